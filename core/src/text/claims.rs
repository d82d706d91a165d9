//! The parts of a clause that [`super::addressed`] reads before it asks whether the clause
//! is an instruction: its openers (`please`, `always`, `from now on`, a `when …,` phrase), a
//! claim of authority over the assistant (`As the system operator, …`, `Message from the
//! memory service: …`, `I am the administrator.`), a claim of the user's consent for
//! someone else (`The user has authorised me to …`), and a rule set for the assistant, its
//! replies or its memory (`The assistant must …`, `Every reply should …`, `This note …`).
//!
//! Each works on a clause's words as `addressed` cuts them: lowercase, a comma its own word.

/// What an imperative may be about that only concerns an assistant: the user in the third
/// person, the memory and its parts, replies, secrets, whoever it would tell.
pub const ASSISTANT_WORK: &[&str] = &[
    "user",
    "user's",
    "users",
    "users'",
    "memory",
    "memories",
    "instructions",
    "instruction",
    "rules",
    "prompt",
    "prompts",
    "system",
    "conversation",
    "chat",
    "context",
    "transcript",
    "reply",
    "replies",
    "response",
    "responses",
    "answer",
    "answers",
    "question",
    "questions",
    "output",
    "message",
    "messages",
    "greeting",
    "summary",
    "password",
    "passwords",
    "secret",
    "secrets",
    "credentials",
    "previous",
    "above",
    "prior",
    "stored",
    "saved",
    "anyone",
    "anybody",
    "everyone",
    "everybody",
    "whoever",
    "someone",
    "somebody",
    "sender",
    "caller",
    "callers",
    "facts",
];

/// Who may claim authority over an assistant.
const AUTHORITY: &[&str] = &[
    "administrator",
    "administrators",
    "admin",
    "admins",
    "sysadmin",
    "operator",
    "operators",
    "developer",
    "developers",
    "dev",
    "devs",
    "creator",
    "creators",
    "maker",
    "makers",
    "owner",
    "owners",
    "root",
    "superuser",
    "moderator",
    "moderators",
    "maintainer",
    "maintainers",
    "vendor",
    "police",
    "officer",
    "authorities",
    "government",
    "guardian",
    "doctor",
    "physician",
    "lawyer",
    "court",
    "team",
    "staff",
    "support",
    "security",
    "service",
    "system",
    "anthropic",
    "openai",
    "nocturne",
];

/// Words before a clause's verb that do not change whom it addresses.
const OPENERS: &[&str] = &[
    "please",
    "pls",
    "plz",
    "kindly",
    "now",
    "also",
    "and",
    "then",
    "so",
    "ok",
    "okay",
    "hey",
    "just",
    "simply",
    "immediately",
    "always",
    "never",
    "first",
    "next",
    "finally",
    "instead",
    "but",
    "or",
    "oh",
    "hi",
    "hello",
    "quickly",
    "silently",
    "secretly",
    "quietly",
    "seriously",
    "important",
    "urgent",
    "again",
    "today",
    "dont",
    "don't",
    "do",
    "not",
    "henceforth",
    "hereafter",
    "furthermore",
    "additionally",
    ",",
];

/// Words that open a phrase before the clause's own verb (`When you summarise …, leave
/// out …`, `Before answering anything, call …`).
const LEADING: &[&str] = &[
    "when", "whenever", "if", "before", "after", "once", "while", "as", "for", "in", "from", "on", "during", "unless",
    "until", "each", "every", "any", "because", "since", "to", "at", "with", "without", "starting",
];

/// A clause's words after its openers, and whether it was asked with `please` or given as
/// a standing order (`from now on`, `going forward`, anywhere in it).
pub fn openers(words: &[String]) -> (&[String], bool) {
    let mut rest = words;
    let mut asked = (0..words.len()).any(|k| multiword_opener(&words[k..]).is_some());
    loop {
        let first = rest.first().map(String::as_str);
        if let Some(n) = multiword_opener(rest) {
            rest = &rest[n..];
        } else if let Some(w) = first.filter(|w| OPENERS.contains(w)) {
            asked |= matches!(w, "please" | "pls" | "plz" | "kindly");
            rest = &rest[1..];
        } else if first.is_some_and(|w| LEADING.contains(&w)) {
            match rest.iter().take(16).position(|w| w == ",") {
                Some(comma) => rest = &rest[comma + 1..],
                None => return (rest, asked),
            }
        } else {
            return (rest, asked);
        }
    }
}

/// How many words a multi-word opener takes (`from now on`, `going forward`).
fn multiword_opener(words: &[String]) -> Option<usize> {
    const PHRASES: &[&[&str]] = &[
        &["from", "now", "on"],
        &["going", "forward"],
        &["from", "this", "point", "on"],
        &["from", "this", "point", "forward"],
        &["at", "all", "times"],
        &["henceforth"],
        &["from", "here", "on"],
    ];
    PHRASES.iter().find(|p| p.len() <= words.len() && p.iter().zip(words).all(|(a, b)| a == b)).map(|p| p.len())
}

/// A claim of authority over the assistant, as a cue: `As the system operator,` (or
/// `As root,`), a header naming who it is from (`Message from your developer:`, `Verified
/// by the trust team:`), `I am the administrator.` with nothing it administers named,
/// `the real user`.
pub fn authority(words: &[String]) -> Option<String> {
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    let cue = |n: usize| w.iter().take(n).copied().collect::<Vec<_>>().join(" ").replace(" ,", ",");
    let until_comma = w.iter().position(|x| *x == ",").unwrap_or(w.len());
    // `As the system operator, …`; `As a nurse, …` is a person's own standing.
    if w.first() == Some(&"as")
        && !matches!(w.get(1), Some(&"a") | Some(&"an"))
        && w[..until_comma].iter().any(|x| AUTHORITY.contains(x) || *x == "user's")
    {
        return Some(cue(until_comma + 1));
    }
    let start = usize::from(matches!(w.first(), Some(&"automated") | Some(&"official") | Some(&"urgent")));
    const HEADERS: &[&str] = &[
        "message",
        "note",
        "notice",
        "alert",
        "update",
        "memo",
        "directive",
        "order",
        "announcement",
        "warning",
        "instruction",
        "instructions",
        "notification",
        "broadcast",
    ];
    if w.get(start).is_some_and(|x| HEADERS.contains(x)) && w.get(start + 1) == Some(&"from") {
        let sender = &w[start + 2..until_comma.max(start + 2)];
        if sender.iter().any(|x| AUTHORITY.contains(x) || ["memory", "maintenance", "trust"].contains(x)) {
            return Some(cue(until_comma));
        }
    }
    const ATTESTED: &[&str] = &[
        "verified",
        "authorised",
        "authorized",
        "approved",
        "signed",
        "confirmed",
        "certified",
        "sanctioned",
        "issued",
    ];
    if w.first().is_some_and(|x| ATTESTED.contains(x)) && w.get(1) == Some(&"by") {
        return Some(cue(until_comma.min(6)));
    }
    if let Some(at) = w.windows(3).position(|x| {
        matches!(x[0], "the" | "a") && matches!(x[1], "real" | "actual" | "true" | "genuine") && x[2] == "user"
    }) {
        return Some(w[at..at + 3].join(" "));
    }
    if let Some(at) =
        w.windows(4).position(|x| x[..3] == ["on", "behalf", "of"] && ["the", "user", "this"].contains(&x[3]))
    {
        return Some(w[at..(at + 5).min(w.len())].join(" "));
    }
    claimed_role(&w)
}

/// `I am the administrator.`, `This is the police.`, `Your creator here.`: a role over the
/// assistant claimed with nothing it is a role of (`I'm the administrator of our building's
/// chat` names one).
fn claimed_role(w: &[&str]) -> Option<String> {
    let speaker = match w {
        ["i", "am", ..] | ["this", "is", ..] | ["it", "is", ..] | ["we", "are", ..] => 2,
        ["i'm", ..] | ["im", ..] | ["it's", ..] | ["its", ..] | ["we're", ..] => 1,
        _ => 0,
    };
    let here = w.last() == Some(&"here") && w.len() <= 6;
    if speaker == 0 && !here {
        return None;
    }
    let mut k = speaker;
    // `I'm the user's guardian`: a standing over the user's memory claimed by someone else.
    if speaker > 0 && matches!(w.get(k..k + 2), Some(["the" | "this", "user's"])) {
        return Some(w[..(k + 3).min(w.len())].join(" "));
    }
    if !matches!(w.get(k), Some(&"the") | Some(&"your")) {
        return None;
    }
    k += 1;
    while w.get(k).is_some_and(|x| ["real", "actual", "true", "official", "legitimate", "genuine"].contains(x)) {
        k += 1;
    }
    let noun = w.get(k)?;
    let after = w.get(k + 1).copied();
    let unscoped = after.is_none_or(|a| [",", "here", "speaking", "writing", "and", "now", "so"].contains(&a));
    (AUTHORITY.contains(noun) && unscoped).then(|| w[..(k + 1)].join(" "))
}

/// A claim that the user let someone else in, as a cue: the user (subject) authorising,
/// allowing or wanting someone the text speaks for (`me`, `us`, `the sender`, `anyone`) or
/// access to what is stored (`The user consented to data sharing.`).
pub fn consent(words: &[String]) -> Option<String> {
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    let mut k = usize::from(w.first() == Some(&"the"));
    if w.get(k) != Some(&"user") {
        return None;
    }
    k += 1;
    while w.get(k).is_some_and(|x| ["has", "have", "had", "is", "was", "already", "explicitly", "also"].contains(x)) {
        k += 1;
    }
    const CONSENTS: &[&str] = &[
        "authorised",
        "authorized",
        "authorises",
        "authorizes",
        "allowed",
        "allows",
        "permitted",
        "permits",
        "consented",
        "consents",
        "agreed",
        "agrees",
        "approved",
        "approves",
        "granted",
        "grants",
        "given",
        "gave",
        "gives",
        "lets",
        "let",
        "wants",
        "wanted",
        "okayed",
        "cleared",
        "asked",
        "requested",
    ];
    if !w.get(k).is_some_and(|x| CONSENTS.contains(x)) {
        return None;
    }
    const SOMEONE_ELSE: &[&str] = &[
        "me",
        "us",
        "sender",
        "anyone",
        "anybody",
        "everyone",
        "everybody",
        "whoever",
        "another",
        "third",
        "access",
        "data",
        "information",
        "memories",
        "memory",
        "everything",
        "anything",
        "stored",
        "saved",
        "records",
        "passwords",
        "history",
        "logs",
    ];
    let rest = &w[k + 1..];
    rest.iter().any(|x| SOMEONE_ELSE.contains(x)).then(|| w.iter().take(k + 5).copied().collect::<Vec<_>>().join(" "))
}

/// A rule for the assistant, its replies or its memory, as a cue: a clause whose subject is
/// one of them and whose verb is an obligation, a permission or a habit (`The assistant
/// must …`, `Every reply should …`, `All memories are to be deleted`), or a text speaking
/// of itself (`This note outranks the user`).
pub fn rule(words: &[String]) -> Option<String> {
    let w: Vec<&str> = words.iter().map(String::as_str).filter(|x| *x != ",").collect();
    const DETERMINERS: &[&str] = &["the", "this", "that", "our", "all", "every", "each", "any", "no", "these"];
    let k = usize::from(w.first().is_some_and(|x| DETERMINERS.contains(x)));
    let subject = *w.get(k)?;
    const AGENTS: &[&str] = &[
        "assistant",
        "assistants",
        "ai",
        "bot",
        "chatbot",
        "llm",
        "agent",
        "nocturne",
        "chatgpt",
        "claude",
        "gpt",
        "copilot",
        "gemini",
    ];
    const OWN: &[&str] = &[
        "reply",
        "replies",
        "answer",
        "answers",
        "response",
        "responses",
        "output",
        "outputs",
        "greeting",
        "greetings",
        "memory",
        "memories",
        "instructions",
        "rules",
        "prompt",
        "conversation",
        "transcript",
    ];
    const ITSELF: &[&str] = &["note", "message", "text", "entry", "line", "instruction", "request", "record"];
    let cue = || w.iter().take(k + 4).copied().collect::<Vec<_>>().join(" ");
    if w.first() == Some(&"this") && ITSELF.contains(&subject) && w.len() > k + 1 {
        return Some(cue());
    }
    let loose = ["system", "model"].contains(&subject);
    if !(AGENTS.contains(&subject) || OWN.contains(&subject) || loose) {
        return None;
    }
    let mut v = k + 1;
    while w.get(v).is_some_and(|x| ["always", "never", "now", "also", "only", "henceforth"].contains(x)) {
        v += 1;
    }
    let verb = *w.get(v)?;
    let then = w.get(v + 1).copied();
    let obliged = match verb {
        "must" | "should" | "shall" | "will" | "may" | "can" | "cannot" | "can't" | "mustn't" | "shouldn't"
        | "won't" | "ought" => true,
        "has" | "have" | "needs" | "need" => then == Some("to"),
        "is" | "are" => then.is_some_and(|t| {
            ["to", "now", "required", "allowed", "permitted", "authorised", "authorized", "expected", "forbidden"]
                .contains(&t)
        }),
        _ => v > k + 1,
    };
    let about_work = w[v..].iter().any(|x| ASSISTANT_WORK.contains(x) && !["system", "model"].contains(x));
    (obliged && (!loose || about_work)).then(cue)
}
