//! What a sentence of a user's turn does: it states something, asks something, asks the
//! assistant to do something, or tells the memory to change. Only statements are facts;
//! a question is answered from memory, a request is answered, a command about the memory
//! is carried out as the user's own edit. Read by grammar, not by a list of sentences.
//!
//! The rule, on one screen. Quoted words are set aside (a reported question is still a
//! statement), and openers are skipped (`ok`, `also`, `hey`, `please`, `btw` …). Then:
//! 1. **A correction** marks a stored value as wrong: it opens with `that's not right`,
//!    `that's wrong`, `you've got it wrong`, `you've mixed up`, `correction:`, `small
//!    fix:`, `wrong city,`, `it's spelled`, or with `no,` / `actually,` / `I meant` / `I
//!    said` before a contrast (`…, not Inez`), or it asks to `fix`/`update` `that`.
//! 2. **A tag** after a statement asks for confirmation: `…, isn't it?`, `… didn't I`,
//!    `…, right?`, `…, yeah?`, `…, correct?` — a question.
//! 3. **Interrogative word order**: an auxiliary or modal before its subject (`do I …`,
//!    `is my flight …`, `can you …`), or a wh-word before an auxiliary, a verb or a noun
//!    and its auxiliary (`what's …`, `who lives …`, `which school does …`) — with or
//!    without `?`. A wh-word before a subject with no `?` is a fronted clause, a statement
//!    (`What I love most about Kyoto is the quiet.`); an auxiliary before a verb or `and` has
//!    no subject (`Can't wait …`, `Will and I …`, `May is …`): a statement.
//! 4. **The assistant addressed**: an imperative (a verb's base form with no subject, not a
//!    verb of feeling or wanting: `Tell me …`, `Don't let me forget …`), a modal with `you`
//!    (`can you …`, `would you mind …`, `is there any chance you could …`), or `you` after a
//!    wish (`I'd like you to …`, `I need you to …`, `if you could …`). The verb's meaning
//!    decides what is asked: *forget* (forget, disregard, ignore, don't remember, stop
//!    remembering), *erase* (delete, erase, remove, wipe, clear, purge, get rid of — of the
//!    user's data), *remember* (remember that, note, save, keep in mind, keep track, commit
//!    to memory, `for future reference`), *remind* (remind me to/about/on, set a reminder,
//!    nudge me, ping me, make sure I remember to), *correct* (change/update my … to …) are
//!    commands about the memory; `tell`/`remind` `me` + a wh-clause asks for a stored fact
//!    (a question: `Remind me what my therapist's name is.`), and so do `do you know`, `do
//!    you remember`, `can you remember` + a noun; every other verb is a request.
//! 5. **A wish to know** what `you` know or what the user said (`I want to know everything
//!    you've got on me`, `I was wondering if you remember …`, `let me know if you have …`)
//!    is a question. A wish for what the assistant gives in the chat — an idea, a recipe,
//!    tips, help, a list, an answer, a way to do something (`I need a gift idea for my
//!    mum`, `I'd love a recipe for …`, `I want to know how long to boil an egg`, `I have a
//!    question about …`) — is a request; a wish for a thing of the world is the speaker's
//!    (`I need a new laptop`, `I'd love to visit Japan`).
//! 6. Anything else is a statement — a subject and its verb that tell something, whatever
//!    they say about reminding or forgetting (`My physio keeps telling me to remember my
//!    posture.`, `I need to remember to renew my passport.`) — unless it ends with `?`
//!    (`So my flight is at six?`), which makes it a question.
//!
//! A request in the form of a wish or a farewell (`Enjoy your day!`, `Take care!`) asks
//! nothing: it is chatter, read as a statement for `text::worth` to refuse.
//!
//! ```
//! use nocturne_core::text::act::{read, Act, CommandKind};
//! assert_eq!(read("I'm allergic to penicillin.").act, Act::Statement);
//! assert_eq!(read("what's my dog called").act, Act::Question);
//! assert_eq!(read("Tell me about Miso.").act, Act::Request);
//! assert_eq!(read("Please forget that I'm vegan.").act, Act::Command(CommandKind::Forget));
//! assert_eq!(read("Remind me to call the vet tomorrow.").act, Act::Command(CommandKind::Remind));
//! assert_eq!(read("My physio keeps telling me to remember my posture.").act, Act::Statement);
//! ```

mod assistant;
mod words;

use super::verbs::{self, Form};
use assistant::{
    addressed, embedded_you, imperative, negated_imperative, wanted_done, wants_given, wish_to_know, you_first,
    you_modal,
};
use words::{aux, base_verb, capitals, is, lemma, subject_at, unquoted, words, W};
use words::{MODALS, NEGATED, OPENERS, STATE_VERBS, SUBJECTS, SUMMARY_WORDS, WH};

/// What a sentence does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Act {
    /// Tells something: the only act that becomes a fact.
    Statement,
    /// Asks for information (answered from memory).
    Question,
    /// Asks the assistant to do something other than change the memory.
    Request,
    /// Tells the memory to change.
    Command(CommandKind),
}

/// What a command about the memory asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CommandKind {
    /// Drop what the user said (retire a fact).
    Forget,
    /// Replace a stored value with the one the sentence gives.
    Correct,
    /// Store what the sentence says.
    Remember,
    /// Set a reminder: a commitment with its due date.
    Remind,
    /// Remove stored data for good.
    Erase,
}

impl CommandKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CommandKind::Forget => "forget",
            CommandKind::Correct => "correct",
            CommandKind::Remember => "remember",
            CommandKind::Remind => "remind",
            CommandKind::Erase => "erase",
        }
    }
}

impl Act {
    /// The act's name as the corpora and the log write it (`statement`, `question`,
    /// `request`, `command`).
    pub fn name(self) -> &'static str {
        match self {
            Act::Statement => "statement",
            Act::Question => "question",
            Act::Request => "request",
            Act::Command(_) => "command",
        }
    }
}

impl std::fmt::Display for Act {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Act::Statement => write!(f, "a statement"),
            Act::Question => write!(f, "a question"),
            Act::Request => write!(f, "a request to the assistant"),
            Act::Command(kind) => write!(f, "a command about the memory ({})", kind.as_str()),
        }
    }
}

/// A sentence's act and the grammar that decided it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    pub act: Act,
    /// What decided, in a few words: `the imperative "tell"`, `"do" before its subject`.
    pub cue: String,
}

impl Reading {
    fn new(act: Act, cue: impl Into<String>) -> Reading {
        Reading { act, cue: cue.into() }
    }

    pub fn is_statement(&self) -> bool {
        self.act == Act::Statement
    }
}

impl std::fmt::Display for Reading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.act, self.cue)
    }
}

/// One sentence of a turn, what it does, and the statements it holds: the whole sentence
/// for a statement; for a question, the clauses before it that state something on their
/// own (`The Hobbit is great, but have you read Dune?`); none otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Said<'a> {
    pub sentence: &'a str,
    pub reading: Reading,
    pub stated: Vec<&'a str>,
}

/// The sentences of a user's turn (`text::sentence`), each read.
pub fn turn(text: &str) -> Vec<Said<'_>> {
    super::sentence::sentences(text)
        .into_iter()
        .map(|sentence| {
            let reading = read(sentence);
            let stated = match reading.act {
                Act::Statement => vec![sentence],
                Act::Question if reading.cue.starts_with(QUESTION_AFTER) => leading_statements(sentence),
                _ => Vec::new(),
            };
            Said { sentence, reading, stated }
        })
        .collect()
}

/// The clauses before a sentence's final question that state something
/// (`text::state::states`), as slices of it.
fn leading_statements(sentence: &str) -> Vec<&str> {
    let body = sentence.trim().trim_end_matches('?');
    let pieces = super::polarity::clauses(body);
    match pieces.split_last() {
        Some((_, before)) if !before.is_empty() => {
            before.iter().copied().filter(|p| super::state::states(p)).map(str::trim).collect()
        }
        _ => Vec::new(),
    }
}

/// Whether `sentence` is a statement.
pub fn is_statement(sentence: &str) -> bool {
    read(sentence).is_statement()
}

// ---------------------------------------------------------------------------------------
// Reading.

/// The cue of a question whose statement clauses before it still count
/// ([`Said::stated`]).
const QUESTION_AFTER: &str = "it ends with";

/// What `sentence` does, and why.
pub fn read(sentence: &str) -> Reading {
    let ws = words(sentence);
    let caps = capitals(sentence, ws.len());
    let unquoted = unquoted(sentence);
    let asks = unquoted.trim_end().ends_with('?');
    if ws.is_empty() {
        return Reading::new(Act::Statement, "no words");
    }
    if let Some(cue) = correction(&ws) {
        return Reading::new(Act::Command(CommandKind::Correct), cue);
    }
    if let Some(tag) = tag(&ws, asks) {
        return Reading::new(Act::Question, format!("it ends with the tag \"{tag}\""));
    }
    let from = openers(&ws);
    if from == ws.len() {
        return Reading::new(Act::Statement, "only openers");
    }
    let rest = &ws[from..];
    let caps = &caps[from.min(caps.len())..];
    // `No need to remember that.`
    if ws.len() > 3 && ws[0].w == "no" && ws[1].w == "need" && ws[2].w == "to" {
        if let Some(Reading { act: Act::Command(CommandKind::Remember), cue }) = addressed(&ws, 3, "\"no need to\"") {
            return Reading::new(Act::Command(CommandKind::Forget), cue);
        }
    }
    let reading = clause_type(rest, caps, asks).unwrap_or_else(|| declarative(rest, asks));
    chatter(sentence, after_adverbial(rest, caps, asks, reading))
}

/// A statement read from a sentence that opens with a time or a condition set off by a
/// comma (`From now on, call me Sam.`, `When you get a chance, summarise this.`): the
/// clause after it decides, unless the opening holds the speaker's own clause.
fn after_adverbial(ws: &[W], caps: &[bool], asks: bool, reading: Reading) -> Reading {
    if reading.act != Act::Statement {
        return reading;
    }
    let Some(p) = ws.iter().take(7).position(|w| w.pause) else { return reading };
    let opening: Vec<&str> = ws[..=p].iter().map(|w| w.w.as_str()).collect();
    if p + 1 >= ws.len() || opening.iter().any(|w| matches!(*w, "i" | "we" | "my" | "our" | "'m" | "me")) {
        return reading;
    }
    let rest = &ws[p + 1..];
    let caps = &caps[(p + 1).min(caps.len())..];
    match clause_type(rest, caps, asks) {
        Some(r) if r.act != Act::Statement => r,
        _ => reading,
    }
}

/// A request that is only a wish, a farewell or thanks (`Enjoy your day!`, `Take care!`)
/// asks nothing: chatter, left to `text::worth`.
fn chatter(sentence: &str, reading: Reading) -> Reading {
    use super::worth::Chatter;
    if reading.act != Act::Request {
        return reading;
    }
    match super::worth::informative(sentence) {
        Err(c @ (Chatter::Wish | Chatter::Farewell | Chatter::Thanks | Chatter::Greeting | Chatter::Apology)) => {
            Reading::new(
                Act::Statement,
                format!("{} in the form of a request", c.to_string().replace("states nothing to remember: ", "")),
            )
        }
        _ => reading,
    }
}

/// How many words open the sentence without being its clause (`ok`, `hey nocturne,`,
/// `also,`); a greeting's name is skipped with it.
fn openers(ws: &[W]) -> usize {
    let mut k = 0;
    while k < ws.len() && is(OPENERS, &ws[k].w) {
        let greeting = matches!(ws[k].w.as_str(), "hey" | "hi" | "hello" | "hiya" | "yo");
        k += 1;
        // `hey nocturne, …`: the name said to someone.
        if greeting && ws.get(k).is_some_and(|w| w.pause && !aux(&w.w) && !is(SUBJECTS, &w.w)) {
            k += 1;
        }
    }
    k
}

/// A marker that a stored value is wrong, and which.
fn correction(ws: &[W]) -> Option<String> {
    let text: Vec<&str> = ws.iter().map(|w| w.w.as_str()).collect();
    let starts = |p: &[&str]| text.len() >= p.len() && text[..p.len()] == *p;
    const OPEN: &[&[&str]] = &[
        &["that", "'s", "not", "right"],
        &["that", "'s", "wrong"],
        &["that", "'s", "not", "true"],
        &["that", "'s", "not", "correct"],
        &["that", "'s", "incorrect"],
        &["that", "is", "wrong"],
        &["that", "is", "not", "right"],
        &["that", "isn't", "right"],
        &["that", "isn't", "true"],
        &["not", "quite"],
        &["you", "'ve", "got", "it", "wrong"],
        &["you", "got", "it", "wrong"],
        &["you", "'ve", "got", "that", "wrong"],
        &["you", "have", "it", "wrong"],
        &["you", "'ve", "mixed", "up"],
        &["you", "mixed", "up"],
        &["you", "'re", "wrong"],
        &["correction"],
        &["small", "fix"],
        &["quick", "fix"],
        &["it", "'s", "spelled"],
        &["it", "'s", "spelt"],
        &["it", "is", "spelled"],
    ];
    if let Some(p) = OPEN.iter().find(|p| starts(p)) {
        return Some(format!("it marks a stored value as wrong: \"{}\"", p.join(" ").replace(" '", "'")));
    }
    // `You've mixed up my kids`, `you got my birthday wrong`, `you misheard me`.
    let you = if starts(&["you", "'ve"]) || starts(&["you", "have"]) { 2 } else { usize::from(starts(&["you"])) };
    if you > 0 {
        let verb = text.get(you).copied().unwrap_or("");
        let wrong = matches!(verb, "got" | "have" | "put" | "written" | "wrote" | "noted" | "saved" | "stored")
            && text[you..].iter().take(6).any(|w| *w == "wrong");
        if wrong || matches!(verb, "mixed" | "confused" | "misheard" | "misspelled" | "misspelt" | "misunderstood") {
            return Some(format!("it says the assistant has it wrong: \"you {verb} …\""));
        }
    }
    // `Wrong city, I moved …`.
    if text.first() == Some(&"wrong") && ws.iter().take(3).any(|w| w.pause) {
        return Some("it marks a stored value as wrong: \"wrong …,\"".into());
    }
    // `No, my husband is Arjun, not Arun.`, `Actually, …, not …`, `I meant Poznań, not Gniezno.`
    // A contrast: `not` after a value (`Arjun, not Arun`, `Ayşe not Ayse`), not after an
    // auxiliary (`I'm not vegan` negates).
    let contrast = ws.windows(2).any(|p| p[1].w == "not" && (p[0].pause || !aux(&p[0].w) && !is(SUBJECTS, &p[0].w)));
    let lead = ["no", "sorry", "nope"].iter().any(|m| starts(&[m]) && ws[0].pause)
        || starts(&["actually"])
        || starts(&["i", "said"])
        || starts(&["i", "mean"]);
    // `I meant Poznań`: the user takes back what they said, contrast or not.
    let meant = starts(&["i", "meant"]) || ws[0].pause && text.get(1..3) == Some(&["i", "meant"][..]);
    if contrast && lead || meant {
        return Some(format!(
            "\"{}\" before a contrast (\", not …\")",
            text[..if text[0] == "i" { 2 } else { 1 }].join(" ")
        ));
    }
    // `…, please fix that`, `Update that please.`, `Can you fix that?`
    let fix = text.windows(2).position(|p| {
        matches!(p[0], "fix" | "update" | "correct" | "change" | "amend") && matches!(p[1], "that" | "it" | "this")
    });
    fix.filter(|k| text[k + 2..].iter().all(|w| matches!(*w, "please" | "for" | "me" | "thanks" | "now")))
        .map(|k| format!("it asks to \"{} {}\"", text[k], text[k + 1]))
}

/// A tag that asks to confirm the statement before it (`…, isn't it?`, `…, right?`).
fn tag(ws: &[W], asks: bool) -> Option<String> {
    let n = ws.len();
    if n < 3 {
        return None;
    }
    const PRONOUNS: &[&str] = &["i", "you", "we", "he", "she", "it", "they", "there"];
    let (a, b) = (&ws[n - 2], &ws[n - 1]);
    if is(NEGATED, &a.w) && is(PRONOUNS, &b.w) && (asks || ws[n - 3].pause || n > 4) && !aux(&ws[0].w) {
        return Some(format!("{} {}", a.w, b.w));
    }
    // `…, is that right?`
    if n >= 4
        && ws[n - 4].pause
        && is(&["is", "am"], &ws[n - 3].w)
        && is(&["that", "i"], &a.w)
        && is(&["right", "correct", "true"], &b.w)
    {
        return Some(format!("{} {} {}", ws[n - 3].w, a.w, b.w));
    }
    const ONE: &[&str] = &["right", "yeah", "yes", "correct", "no", "eh", "innit", "ok", "okay", "true", "yea", "ya"];
    (asks && a.pause && is(ONE, &b.w) && !aux(&ws[0].w) && !is(WH, &ws[0].w)).then(|| b.w.clone())
}

/// The clause type by its first words: a wh-question, an auxiliary before its subject, an
/// imperative, `you` and a modal. `None`: a declarative.
fn clause_type(ws: &[W], caps: &[bool], asks: bool) -> Option<Reading> {
    let first = ws[0].w.as_str();
    let next = ws.get(1).map_or("", |w| w.w.as_str());
    if first == "for" && next == "future" && ws.get(2).is_some_and(|w| w.w == "reference") {
        return Some(Reading::new(Act::Command(CommandKind::Remember), "\"for future reference\""));
    }
    if is(WH, first) {
        return Some(wh(ws, caps, asks));
    }
    // `since when have I been in Nairobi`: a wh-word after a preposition.
    if matches!(first, "since" | "until" | "till") && is(WH, next) && ws.len() > 2 {
        return Some(wh(&ws[1..], &caps[1.min(caps.len())..], asks));
    }
    if first == "any" && next == "chance"
        || (first == "is" && next == "there" && ws.get(2).is_some_and(|w| w.w == "any"))
    {
        return you_modal(ws).or_else(|| Some(Reading::new(Act::Question, "\"any chance\" asks")));
    }
    if aux(first) {
        return auxiliary_first(ws, caps);
    }
    if first == "you" {
        return you_first(ws);
    }
    // `Let's plan my week`: a proposal, what is proposed decides.
    if first == "let" && next == "'s" || first == "let's" {
        let k = if first == "let" { 2 } else { 1 };
        return addressed(ws, k, "\"let's\"");
    }
    if first == "any" && next == "idea" || first == "no" && next == "idea" && asks {
        return Some(Reading::new(Act::Question, "\"any idea\" asks"));
    }
    if first == "let" && next == "me" && ws.get(2).is_some_and(|w| w.w == "know") {
        return Some(Reading::new(Act::Question, "\"let me know\" asks"));
    }
    // `Call me Jojo, everyone does.`: the name the speaker goes by, a fact about them.
    if first == "call" && next == "me" && caps.get(2).copied().unwrap_or(false) {
        return Some(Reading::new(Act::Statement, "\"call me\" and a name: the name the speaker goes by"));
    }
    imperative(ws, 0)
}

/// A sentence that opens with a wh-word.
fn wh(ws: &[W], caps: &[bool], asks: bool) -> Reading {
    let first = ws[0].w.as_str();
    let asked = |why: &str| Reading::new(Act::Question, format!("\"{first}\" {why}"));
    let Some(n1) = ws.get(1).map(|w| w.w.as_str()) else { return asked("asks") };
    // `What a view!`, `How lovely!`: an exclamation.
    let verbless = !ws[1..].iter().any(|w| {
        // `how old's mum now`: `'s` is `is`.
        aux(&w.w) || w.w.ends_with("'s") || verbs::forms(&w.w).is_some_and(|f| f.is(Form::Third) || f.is(Form::Past))
    });
    let how_adjective = first == "how" && !matches!(n1, "about" | "come" | "many" | "much" | "long" | "often" | "far");
    if (first == "what" && matches!(n1, "a" | "an") || how_adjective) && verbless && !asks {
        return Reading::new(Act::Statement, format!("an exclamation with \"{first}\""));
    }
    if aux(n1) {
        return asked("before an auxiliary");
    }
    if verbs::forms(n1).is_some_and(|f| f.is(Form::Third) || f.past_only()) {
        return asked("asks who or what did it");
    }
    // `what time is …`, `which school does …`, `how many daughters do …`.
    if !subject_at(ws, 1, caps) && ws[2.min(ws.len())..ws.len().min(5)].iter().any(|w| aux(&w.w)) {
        return asked("and a noun before an auxiliary");
    }
    // `How about Friday`, `what about my sister`: no clause of its own.
    if !subject_at(ws, 1, caps) {
        return asked("asks");
    }
    // `What I love most … is …`, `Where I grew up, …`: a fronted clause.
    if asks {
        asked("asks (\"?\")")
    } else {
        Reading::new(Act::Statement, format!("a clause fronted by \"{first}\", with its own subject"))
    }
}

/// An auxiliary or modal first: before a subject it asks (or, with `you`, addresses the
/// assistant); before a verb or `and` it has no subject (`Can't wait`, `Will and I`).
fn auxiliary_first(ws: &[W], caps: &[bool]) -> Option<Reading> {
    let first = ws[0].w.as_str();
    let next = ws.get(1).map_or("", |w| w.w.as_str());
    // `Don't let me forget …`, `Do not keep …`: a negated imperative.
    if matches!(first, "don't") && !subject_at(ws, 1, caps) || first == "do" && next == "not" {
        let verb = if first == "do" { 2 } else { 1 };
        return negated_imperative(ws, verb);
    }
    // `is dumpling a dog or a cat`, `does tofu go outside`: a name typed lowercase is still
    // the subject when a verb or an article follows it.
    let lowercase_subject = matches!(first, "is" | "are" | "was" | "were" | "does" | "do" | "did" | "has" | "have")
        && ws
            .get(1)
            .is_some_and(|w| !aux(&w.w) && verbs::forms(&w.w).is_none() && !matches!(w.w.as_str(), "and" | "not"))
        && ws.get(2).is_some_and(|w| matches!(w.w.as_str(), "a" | "an" | "the" | "still") || base_verb(&w.w));
    if !subject_at(ws, 1, caps) && !lowercase_subject {
        // No subject: `Can't remember the last time …`, `May is when …`: a statement.
        return None;
    }
    // `Could I get a summary …?`, `Can we plan my week?`: asking to be given, or proposing.
    let third = ws.get(2).map_or("", |w| w.w.as_str());
    if matches!(first, "can" | "could" | "may") && next == "i" && matches!(third, "get" | "have") {
        return Some(Reading::new(Act::Request, format!("\"{first} I {third}\" asks to be given")));
    }
    if matches!(first, "can" | "could" | "shall") && next == "we" && base_verb(third) && !is(STATE_VERBS, lemma(third))
    {
        return addressed(ws, 2, &format!("\"{first} we\""));
    }
    if next != "you" {
        if let Some(r) = embedded_you(ws) {
            return Some(r);
        }
    }
    if next == "you" {
        if is(MODALS, first) || is(NEGATED, first) && first != "don't" && first != "didn't" {
            return you_modal(ws).or_else(|| Some(Reading::new(Act::Question, format!("\"{first} you\" asks"))));
        }
        // `Do you mind deleting …?`
        if first == "do" && ws.get(2).is_some_and(|w| w.w == "mind") {
            if let Some(r) = addressed(ws, 3, "do you mind") {
                return Some(r);
            }
        }
    }
    Some(Reading::new(Act::Question, format!("\"{first}\" before its subject")))
}

/// A declarative: the assistant addressed inside it (`I'd like you to …`, `if you could
/// …`), a wish to know what it knows (`I want to know everything you've got on me`), or a
/// statement — a question when it ends with `?`.
fn declarative(ws: &[W], asks: bool) -> Reading {
    let text: Vec<&str> = ws.iter().map(|w| w.w.as_str()).collect();
    let speaker = matches!(text.first(), Some(&"i") | Some(&"if") | Some(&"it"));
    if speaker {
        if let Some(r) = embedded_you(ws)
            .or_else(|| wish_to_know(&text))
            .or_else(|| wanted_done(&text))
            .or_else(|| wants_given(&text))
        {
            return r;
        }
    }
    // `I'd like a summary of the meeting.`: a summary wished for is asked of the assistant.
    let summary = text.iter().any(|w| is(SUMMARY_WORDS, w));
    let wished = text.iter().take(4).any(|w| matches!(*w, "like" | "love" | "want" | "need" | "could" | "would"))
        || text.contains(&"please");
    if summary && (wished || asks || is(SUMMARY_WORDS, text[0])) {
        return Reading::new(Act::Request, "a summary asked for");
    }
    if asks && !text.ends_with(&["you", "know"]) {
        return Reading::new(Act::Question, format!("{QUESTION_AFTER} \"?\""));
    }
    Reading::new(Act::Statement, "a subject and its verb tell something")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn act(s: &str) -> Act {
        read(s).act
    }

    #[test]
    fn tell_me_about_miso_is_a_request() {
        assert_eq!(act("Tell me about Miso."), Act::Request);
    }

    #[test]
    fn forget_that_i_am_vegan_is_a_forget_command() {
        assert_eq!(act("Please forget that I'm vegan."), Act::Command(CommandKind::Forget));
        assert_eq!(act("Forget that I'm vegan"), Act::Command(CommandKind::Forget));
    }

    #[test]
    fn the_first_questions_are_questions() {
        for q in [
            "What's my name?",
            "Who am I?",
            "What do you know about me?",
            "Do I have any pets?",
            "What's my job?",
            "Where am I travelling to?",
            "When is my flight?",
            "Which medicine should I avoid?",
            "What do you remember about my family?",
        ] {
            assert_eq!(act(q), Act::Question, "{q}");
        }
    }

    #[test]
    fn commands_by_the_verbs_meaning() {
        assert_eq!(act("Remember that my PIN changed."), Act::Command(CommandKind::Remember));
        assert_eq!(act("That's wrong, my name is Lena."), Act::Command(CommandKind::Correct));
        assert_eq!(act("Remind me to call the vet tomorrow."), Act::Command(CommandKind::Remind));
        assert_eq!(act("Remind me to call the vet on Friday."), Act::Command(CommandKind::Remind));
        assert_eq!(act("Delete everything you know about my ex."), Act::Command(CommandKind::Erase));
    }

    #[test]
    fn statements_that_name_reminding_or_forgetting_are_statements() {
        for s in [
            "Hi! I'm Lena, I work as a midwife in Graz and I have a cat called Miso.",
            "My partner Tomas is a carpenter.",
            "I'm allergic to penicillin.",
            "We're flying to Lisbon on the 14th of March.",
            "I need to remember to renew my passport.",
            "I keep forgetting my keys.",
            "Where I grew up, nobody locked their doors.",
            "Can't wait for the weekend!",
        ] {
            assert_eq!(act(s), Act::Statement, "{s}");
        }
    }

    /// Sentences of every form the corpus README names, written for these tests (none of
    /// them is a corpus line): each read as its act.
    #[test]
    fn every_form_the_conventions_name() {
        use CommandKind::*;
        let cases: &[(&str, Act)] = &[
            ("Do you recall what my landlord is called?", Act::Question),
            ("any idea when my library books are due", Act::Question),
            ("Let me know if you have my cousin's address.", Act::Question),
            ("Tell me when my niece's recital is.", Act::Question),
            ("Remind me what my physio's name is.", Act::Question),
            ("remind me my locker number", Act::Question),
            ("Can you check whether I told you about my sesame allergy?", Act::Question),
            ("I'd like to know which boosters I said I'd had.", Act::Question),
            ("I was wondering if you remember my mother's maiden name.", Act::Question),
            ("my birthday's in may isn't it", Act::Question),
            ("The vet is on Friday, is that right?", Act::Question),
            ("Did you delete what I said about my overdraft?", Act::Question),
            ("Is my old phone number still stored?", Act::Question),
            ("So my train is at six?", Act::Question),
            ("and my sister's birthday?", Act::Question),
            ("Talk me through setting up a budget.", Act::Request),
            ("Fill me in on how tax returns work.", Act::Request),
            ("Boil this report down to three points.", Act::Request),
            ("Could you recap the key decisions?", Act::Request),
            ("I'd like a summary of the meeting notes.", Act::Request),
            ("Would you mind shortening this paragraph?", Act::Request),
            ("Do you mind checking my maths?", Act::Request),
            ("I'd love it if you could draft a birthday message for my dad.", Act::Request),
            ("If you could translate this into Welsh, that'd be great.", Act::Request),
            ("Would it be possible for you to rank these hotels?", Act::Request),
            ("Think of a name for my sourdough starter.", Act::Request),
            ("Look up the train times to Bruges.", Act::Request),
            ("Can you remind me how to poach an egg?", Act::Request),
            ("Quiz me on French verbs.", Act::Request),
            ("Don't hold on to my old postcode.", Act::Command(Forget)),
            ("Scratch what I said about the job offer.", Act::Command(Forget)),
            ("Ignore what I told you about my neighbour.", Act::Command(Forget)),
            ("You don't need to remember my old phone number.", Act::Command(Forget)),
            ("Correction: my son is 9, not 8.", Act::Command(Correct)),
            ("I said Thursday, not Tuesday.", Act::Command(Correct)),
            ("Actually my cat is called Pixel not Pickle.", Act::Command(Correct)),
            ("You got my birthday wrong, it's the 3rd of June.", Act::Command(Correct)),
            ("Update my job title to senior nurse.", Act::Command(Correct)),
            ("Don't forget I'm lactose intolerant.", Act::Command(Remember)),
            ("Make a note that my gate code is 4471.", Act::Command(Remember)),
            ("Add this to your notes: my dentist is Dr Mbeki.", Act::Command(Remember)),
            ("Please jot down that my bin day is Tuesday.", Act::Command(Remember)),
            ("Set a reminder for the MOT next Friday.", Act::Command(Remind)),
            ("Ping me at 5 to leave for the station.", Act::Command(Remind)),
            ("Give me a nudge tomorrow about the gas bill.", Act::Command(Remind)),
            ("Would you remind me on Friday to water the plants?", Act::Command(Remind)),
            ("Take my old address out of your memory.", Act::Command(Erase)),
            ("Purge everything about my last job.", Act::Command(Erase)),
            ("Clear your notes on my divorce.", Act::Command(Erase)),
            ("I plan to remind my brother about the loan.", Act::Statement),
            ("I'm wondering if I should learn the cello.", Act::Statement),
            ("My neighbour asked me to remind her about the bins.", Act::Statement),
            ("I told my kids to forget about the trip.", Act::Statement),
            ("Why I moved to Leeds is a long story.", Act::Statement),
            ("Can't remember when I last slept eight hours.", Act::Statement),
            ("Might be changing jobs in spring.", Act::Statement),
            ("Hit my head on the cupboard yesterday.", Act::Statement),
            ("Love my new flat.", Act::Statement),
            ("Nadia asked me, \"Can you drive me to the airport?\"", Act::Statement),
            ("Work is mad this week.", Act::Statement),
            ("Let's plan my week.", Act::Request),
            ("How about a list of easy dinners", Act::Question),
            ("From now on, call me Sam.", Act::Statement),
            ("When you get a chance, summarise this thread.", Act::Request),
            ("TL;DR of this thread please", Act::Request),
            ("I don't want you to remember my old address.", Act::Command(Forget)),
            ("I'd like my old email deleted from your memory.", Act::Command(Erase)),
            ("No need to remember that.", Act::Command(Forget)),
            ("Make sure I call my mum on Sunday.", Act::Command(Remind)),
            ("Replace my old email with the new one.", Act::Command(Correct)),
            ("You remember my sister's name", Act::Question),
            ("I wonder what my blood type is", Act::Question),
            ("I wonder if my sister will come to the party.", Act::Statement),
            ("Can I ask you to delete my address?", Act::Command(Erase)),
        ];
        let wrong: Vec<String> = cases
            .iter()
            .filter(|(s, want)| read(s).act != *want)
            .map(|(s, want)| format!("{s:?}: want {want}, got {}", read(s)))
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn a_statement_before_a_question_in_one_sentence_still_states() {
        let said = turn("The Hobbit is great, but have you read Dune?");
        assert_eq!(said[0].reading.act, Act::Question);
        assert_eq!(said[0].stated, ["The Hobbit is great"]);
    }
}
