//! Memory worth keeping: whether a statement says something about someone or
//! something that could be asked about later. Greetings, thanks, farewells,
//! acknowledgements, exclamations and reactions to the other person (`Yes, Caroline!`,
//! `Wow, that photo is great!`, `Enjoy your day!`, `You'd be a great counselor!`) are not
//! candidates; opinions and preferences about one's own life are facts. English and French.
//!
//! The rule, on one screen. Words are read lowercase, split at apostrophes (`that's` →
//! `that` `s`, `j'adore` → `j` `adore`), and sorted into small classes: *chatter*
//! (interjections, greeting, thanks, apology and farewell words, acknowledgements,
//! intensifiers, names said to someone, set phrases such as `let me know`), *pointers*
//! (`that`, `it`, `this`, `ça`), *the other person* (`you`, `your`, `tu`), *the speaker*
//! (`I`, `my`, `we`, `je`, `user`; not `me` after `to`/`for`: `sounds good to me`),
//! *praise and feeling* (`great`, `sorry`, `delicious`), *generic verbs* (`love`, `see`,
//! `sound`), *talk nouns* (`thing`, `plan`, `problem`) and function words. What is left
//! is the sentence's *substance*. A sentence states nothing to remember when:
//! 1. it has no substance: `Thanks so much, Mel!`, `That's really cool.`, `I'd love to see it!`;
//! 2. it is a wish, thanks, apology, greeting, farewell or exclamation whoever it names —
//!    it opens with one (`Good luck with the interview!`, `What a view!`) and the speaker
//!    is not in it;
//! 3. its substance is only praise or feeling and the speaker is not in it, or is but
//!    about the other person or something pointed at: `So happy for you!`;
//! 4. it judges the other person — past its chatter and praise it opens with `you`,
//!    `your`, `tu`, it holds praise or feeling, and the speaker is not in it: `You'd be a
//!    great counselor!`, `So cool you found such a helpful group.` (advice with a generic
//!    `you` stays: `You can use coconut oil instead of butter.`);
//! 5. it praises something pointed at: `Wow, that photo is great!`, `J'adore cette photo !`;
//! 6. it is a reaction with no subject to something pointed at or shown (`Love the red
//!    and blue.`) — unless it names a time: `Loved the concert last night.` is an event;
//! 7. it is a verb with no subject done to the other person (`Just testing you.`).
//!
//! A statement of several sentences is worth keeping when one of them is.
//!
//! ```
//! use nocturne_core::text::worth::informative;
//! assert!(informative("I love camping trips with my family.").is_ok());
//! assert!(informative("Yes, Caroline!").is_err());
//! assert_eq!(informative("Enjoy your day!").unwrap_err().to_string(), "states nothing to remember: a wish for the other person");
//! ```

/// The sentences of `text` (at `.`, `!`, `?`, `;` and line ends), without their marks.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.split(['.', '!', '?', ';', '\n']).map(str::trim).filter(|s| s.chars().any(char::is_alphanumeric))
}

/// Why a statement is not worth remembering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chatter {
    Greeting,
    Thanks,
    Farewell,
    Acknowledgement,
    Wish,
    Apology,
    Exclamation,
    /// About the other person (`you`, `your`), not the speaker.
    ToThem,
    /// Praise or feeling about something pointed at (`that`, `it`, `this`).
    Reaction,
}

impl std::fmt::Display for Chatter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self {
            Chatter::Greeting => "a greeting",
            Chatter::Thanks => "thanks",
            Chatter::Farewell => "a farewell",
            Chatter::Acknowledgement => "an acknowledgement",
            Chatter::Wish => "a wish for the other person",
            Chatter::Apology => "an apology",
            Chatter::Exclamation => "an exclamation",
            Chatter::ToThem => "a reaction to the other person, not a fact about the speaker",
            Chatter::Reaction => "a reaction to what was just said or shown",
        };
        write!(f, "states nothing to remember: {what}")
    }
}

/// `Ok` when `statement` says something worth remembering; else what it is instead.
pub fn informative(statement: &str) -> Result<(), Chatter> {
    let mut first = None;
    for clause in sentences(statement) {
        match clause_worth(clause) {
            Ok(()) => return Ok(()),
            Err(kind) => {
                first.get_or_insert(kind);
            }
        }
    }
    Err(first.unwrap_or(Chatter::Exclamation))
}

/// A greeting that says who is speaking: `Hey, Rafaela here.`, `Good morning, this is
/// Hamid.`, `Hi, it's Noor!`, `Kofi speaking.` — the speaker's name, worth keeping.
fn introduces(clause: &str) -> bool {
    let raw: Vec<&str> = clause
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’'))
        .filter(|w| !w.is_empty())
        .collect();
    let lower: Vec<String> = raw.iter().map(|w| w.to_lowercase().replace('’', "'")).collect();
    let mut k = 0;
    while lower.get(k).is_some_and(|w| is(GREETING, w) || matches!(w.as_str(), "good" | "there" | "all" | "everyone")) {
        k += 1;
    }
    let name = |i: usize| {
        raw.get(i).is_some_and(|w| {
            w.chars().next().is_some_and(char::is_uppercase)
                && *w != "I"
                && !is(GREETING, &lower[i])
                && !super::textmath::is_stopword(&lower[i])
        })
    };
    let rest: Vec<&str> = lower[k..].iter().map(String::as_str).collect();
    match rest.as_slice() {
        [_, "here"] | [_, "speaking"] => name(k),
        // `Hey, Oluwaseun here, but Seun is fine.`: the name set off by a comma.
        [_, "here", _, ..] => name(k) && clause.contains(&format!("{} here,", raw[k])),
        // `I'm Ben.` left alone by a split (`I'm Ben, I'm a nurse.`).
        ["i'm", _] | ["im", _] | ["i", "am", _] | ["name's", _] => name(lower.len() - 1),
        ["my", "name", "is", ..] => rest.len() <= 5 && name(k + 3),
        ["this", "is", _] | ["it's", _] | ["its", _] | ["it", "is", _] => name(lower.len() - 1),
        ["it's", _, "here"] | ["its", _, "here"] => name(lower.len() - 2),
        _ => false,
    }
}

#[rustfmt::skip]
const GREETING: &[&str] = &[
    "hi", "hello", "hey", "heya", "hiya", "howdy", "morning", "evening", "afternoon", "gm", "dear", "bonjour",
    "salut", "coucou", "bonsoir", "yo", "mubarak", "merry", "shalom", "namaste", "aloha",
];
const THANKS: &[&str] =
    &["thanks", "thank", "thx", "ty", "tysm", "cheers", "appreciate", "appreciated", "grateful", "merci", "remercie"];
#[rustfmt::skip]
const FAREWELL: &[&str] = &[
    "bye", "goodbye", "cya", "ttyl", "brb", "gn", "x", "xx", "bises", "later", "soon", "night", "regards", "best",
    "revoir", "bientot", "bientôt", "ciao", "tchao", "adieu", "xoxo", "xo",
];
#[rustfmt::skip]
const ACK: &[&str] = &[
    "ok", "okay", "k", "yes", "yeah", "yep", "yup", "ya", "no", "nope", "nah", "sure", "right", "alright", "agree",
    "agreed", "true", "exactly", "indeed", "absolutely", "definitely", "totally", "same", "noted", "gotcha", "oui",
    "ouais", "non", "daccord", "accord", "entendu", "exactement", "carrément", "bien", "vrai", "pareil", "sûr", "sur",
    "np", "anytime", "welcome", "aussi", "kk",
];
/// Apologies: politeness, not a fact (`Apologies for the confusion.`).
#[rustfmt::skip]
const SORRY: &[&str] = &[
    "apologies", "apology", "apologize", "apologise", "pardon", "excuse", "désolé", "désolée", "sorry",
];
/// Interjections and discourse markers: words that carry a tone, not a fact.
#[rustfmt::skip]
const FILLER: &[&str] = &[
    "wow", "oh", "ohh", "ooh", "ah", "aah", "aw", "aww", "awww", "haha", "hahaha", "hehe", "lol", "lmao", "omg",
    "gosh", "yay", "woohoo", "whoa", "hmm", "um", "uh", "huh", "well", "so", "anyway", "anyways", "btw", "way", "by",
    "just", "really", "very", "super", "pretty", "quite", "too", "such", "truly", "sooo", "soo", "pls", "please",
    "meh", "ugh", "oops", "whoops", "eh", "ha", "hah", "man", "dude", "guys", "buddy", "mate", "pal", "bro", "sis",
    "hun", "dear", "friend", "friends", "folks", "team", "everyone", "all", "ouah", "waouh", "oh là là", "bah", "ben",
    "bon", "alors", "enfin", "vraiment", "trop", "tellement", "très", "tres", "hein", "ouf", "bravo", "félicitations",
    "felicitations", "congrats", "congratulations", "kudos", "also", "again", "back", "still", "even", "much", "many",
    "lot", "lots", "tons", "beaucoup", "honestly", "seriously", "literally", "absolutely", "omw", "jeez", "geez", "phew", "crikey", "yikes", "blimey", "dang", "darn", "holy", "goodness", "wowza", "yay", "hooray", "hurray", "woo", "whew", "ooh", "eek", "bummer",
];
/// Praise, blame and feeling: what a reaction says of something.
#[rustfmt::skip]
const PRAISE: &[&str] = &[
    "great", "awesome", "amazing", "cool", "nice", "lovely", "beautiful", "wonderful", "fantastic", "incredible",
    "impressive", "inspiring", "stunning", "gorgeous", "cute", "sweet", "fun", "exciting", "interesting", "brave",
    "proud", "special", "perfect", "brilliant", "epic", "neat", "adorable", "terrible", "awful", "sad", "scary",
    "tough", "hard", "crazy", "wild", "insane", "powerful", "touching", "heartwarming", "traumatizing", "rough",
    "good", "bad", "best", "worst", "glad", "happy", "sorry", "excited", "thrilled", "delighted", "jealous",
    "envious", "blessed", "lucky", "fab", "fabulous", "superb", "excellent", "outstanding", "marvelous", "marvellous",
    "splendid", "dope", "sick", "rad", "legit", "love", "loved", "lovin", "loving", "like", "liked", "hope", "hoping",
    "wish", "delicious", "tasty", "yummy", "fine", "well", "nicely", "hilarious", "funny", "view", "views", "luck",
    "idea", "job", "work", "day", "weekend", "time", "trip", "one", "guts", "helpful", "kind", "thoughtful",
    "generous", "strong", "smart", "talented", "creative", "super", "génial", "genial", "top", "magnifique", "beau",
    "belle", "joli", "jolie", "chouette", "bien", "parfait", "incroyable", "sympa", "content", "contente", "heureux",
    "heureuse", "désolé", "desole", "désolée", "dommage", "courage", "fier", "fière", "mignon", "mignonne",
    "excellente", "formidable", "dingue", "fou", "folle", "journée", "journee", "soirée", "soiree", "week", "end",
    "chance", "idée", "idee", "travail", "boulot", "legend", "lifesaver", "star", "hero", "gem", "champ", "genius", "saint", "angel", "rockstar", "shame", "pity", "beautifully", "wonderfully", "amazingly", "brilliantly", "perfectly", "incredibly",
];
/// Pointers at something just said or shown.
#[rustfmt::skip]
const POINTER: &[&str] = &[
    "that", "this", "it", "its", "those", "these", "them", "they", "there", "here", "ça", "ca", "cela", "ceci", "c",
    "ce", "cette", "ces",
];
/// The other person.
#[rustfmt::skip]
const SECOND: &[&str] = &[
    "you", "your", "yours", "yourself", "yourselves", "ya", "u", "ur", "youre", "youve", "youd", "youll", "tu", "te",
    "toi", "ton", "ta", "tes", "t", "vous", "votre", "vos",
];
/// The speaker, or someone the statement is about.
#[rustfmt::skip]
const SPEAKER: &[&str] = &[
    "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves", "im", "ive", "id", "ill", "user",
    "users", "je", "j", "moi", "mon", "ma", "mes", "m", "nous", "notre", "nos",
];
/// Verbs that say nothing of their own in a reaction (`I'd love to see it`).
#[rustfmt::skip]
const GENERIC: &[&str] = &[
    "love", "loved", "like", "see", "saw", "check", "look", "looks", "looking", "sound", "sounds", "seem", "seems",
    "hear", "heard", "know", "think", "guess", "bet", "hope", "wish", "wait", "want", "try", "take", "let", "make",
    "do", "does", "did", "done", "go", "going", "get", "got", "gotta", "gonna", "wanna", "be", "been", "being", "is",
    "are", "was", "were", "am", "s", "d", "ll", "ve", "re", "m", "can", "cant", "could", "would", "should", "will",
    "must", "may", "might", "need", "keep", "feel", "mean", "say", "tell", "share", "sharing", "enjoy", "have", "has",
    "had", "miss", "agree", "appreciate", "show", "showing", "glad", "care", "adore", "aime", "adorer", "aimer",
    "voir", "vois", "est", "es", "être", "etre", "suis", "sommes", "êtes", "etes", "sont", "était", "etait", "a",
    "as", "ai", "avoir", "fait", "faire", "va", "vas", "vais", "aller", "peux", "peut", "veux", "veut", "dois",
    "doit", "hâte", "hate", "profite", "profitez", "passe", "passez", "prends", "prenez", "soin", "up", "out", "off",
    "on", "over", "around", "continue", "continuez", "continues", "rock", "rocks", "rocking", "happen", "happened",
    "happens", "sounded", "seemed", "looked", "definitely", "talk", "chat", "speak", "catch", "makes", "means",
    "meant", "hearing", "confirm", "confirming", "confirmed", "deserve", "deserved", "entendre", "dire", "air",
    "finds", "believe", "guess", "suppose", "reckon", "imagine",
];
/// Function words, English and French.
#[rustfmt::skip]
const FUNCTION: &[&str] = &[
    "a", "an", "the", "of", "to", "for", "in", "on", "at", "with", "and", "or", "but", "not", "n", "t", "as", "from",
    "about", "what", "how", "all", "some", "any", "if", "than", "then", "into", "onto", "le", "la", "les", "l", "un",
    "une", "des", "de", "du", "d", "à", "au", "aux", "et", "ou", "mais", "pour", "avec", "en", "sur", "dans", "que",
    "qu", "qui", "quel", "quelle", "comme", "pas", "ne", "y", "se", "s", "sa", "son", "ses", "leur", "leurs", "il",
    "elle", "ils", "elles", "so", "such", "more", "most", "own", "ever", "yet", "both", "who", "which", "when",
    "where", "why", "while", "after", "before", "up", "down", "out", "my", "too",
];

/// Set phrases that carry no fact however they are filled in (`let me know`, `see you`).
const FORMULAS: &[&[&str]] = &[
    &["hope", "this", "email", "finds", "you", "well"],
    &["hope", "this", "finds", "you", "well"],
    &["let", "me", "know"],
    &["looking", "forward"],
    &["following", "up"],
    &["in", "advance"],
    &["makes", "sense"],
    &["sure", "thing"],
    &["means", "a", "lot"],
    &["take", "a", "look"],
    &["check", "it", "out"],
    &["check", "this", "out"],
    &["catch", "you", "later"],
    &["talk", "to", "you"],
    &["talk", "soon"],
    &["see", "you"],
    &["to", "meet", "you"],
    &["meet", "you"],
    &["good", "one"],
    &["nice", "one"],
    &["ça", "va"],
    &["fingers", "crossed"],
    &["welcome", "aboard"],
    &["welcome", "back"],
    &["long", "time", "no", "see"],
    &["oh", "my", "god"],
    &["my", "god"],
    &["oh", "my"],
    &["my", "goodness"],
    &["thank", "god"],
    &["never", "mind"],
    &["owe", "you", "one"],
    &["thinking", "out", "loud"],
    &["until", "next", "time"],
    &["that", "s", "life"],
    &["no", "doubt"],
    &["no", "doubts"],
    &["à", "toi"],
    &["à", "vous"],
];
/// Words that open a wish for the other person (`Enjoy your day!`, `Bonne chance !`).
#[rustfmt::skip]
const WISH: &[&str] = &[
    "enjoy", "have", "happy", "merry", "good", "bonne", "bon", "profite", "profitez", "joyeux", "joyeuse",
];
/// Nouns of the conversation itself, not of anyone's life (`sure thing`, `no problem`).
#[rustfmt::skip]
const TALK: &[&str] = &[
    "thing", "things", "stuff", "plan", "sense", "lot", "deal", "question", "questions", "help", "reply", "response",
    "message", "email", "note", "pleasure", "problem", "problems", "prob", "worries", "worry", "advance", "luck",
    "job", "work", "idea", "air", "entretien", "story", "stories", "news",
];
/// Words that name a time: a reaction that names one is an event (`Loved the concert last night`).
#[rustfmt::skip]
const TIME: &[&str] = &[
    "yesterday", "today", "tonight", "tomorrow", "ago", "last", "night", "morning", "weekend", "week", "month",
    "year", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "hier", "demain", "semaine",
    "mois", "année", "annee", "soir", "matin",
];

fn words(clause: &str) -> Vec<String> {
    words_at(clause).0
}

/// The words of `clause`, lowercase, and the byte offset each starts at.
fn words_at(clause: &str) -> (Vec<String>, Vec<usize>) {
    let mut words = Vec::new();
    let mut offsets = Vec::new();
    let mut start = None;
    for (i, c) in clause.char_indices().chain(std::iter::once((clause.len(), ' '))) {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words.push(clause[s..i].to_lowercase());
                offsets.push(s);
                start = None;
            }
            _ => {}
        }
    }
    (words, offsets)
}

/// Which words belong to a set phrase of [`FORMULAS`].
fn in_formula(words: &[String]) -> Vec<bool> {
    let mut mask = vec![false; words.len()];
    for f in FORMULAS {
        for start in 0..words.len().saturating_sub(f.len() - 1) {
            if words[start..start + f.len()].iter().zip(f.iter()).all(|(w, p)| w == p) {
                mask[start..start + f.len()].iter_mut().for_each(|m| *m = true);
            }
        }
    }
    mask
}

/// Names said to someone (`Yes, Caroline!`, `Thanks, Mel.`): a capitalised word set off by
/// a comma, or right after a greeting, thanks or interjection.
fn vocatives(clause: &str) -> Vec<String> {
    let raw: Vec<&str> = clause.split_whitespace().collect();
    let mut out = Vec::new();
    for (i, w) in raw.iter().enumerate() {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
        if !bare.chars().next().is_some_and(char::is_uppercase) || bare == "I" {
            continue;
        }
        // Set off by a comma from the rest (`Thanks, Mel`, `Mel, guess what`), or right
        // after an opener (`Hi Sam`, `Yes Caroline`) — never just a name ending a
        // statement (`I speak Portuguese`).
        let after_opener = i > 0 && {
            let prev = raw[i - 1].trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
            [GREETING, THANKS, ACK, FILLER].iter().any(|list| list.contains(&prev.as_str()))
        };
        let ends = i + 1 == raw.len() || w.ends_with([',', '!', '.', '?', ';']);
        let comma_before = i > 0 && raw[i - 1].ends_with(',') && ends;
        let comma_after = w.ends_with(',') && i == 0;
        if comma_before || comma_after || (after_opener && ends) {
            out.extend(words(bare));
        }
    }
    out
}

fn is(list: &[&str], w: &str) -> bool {
    list.contains(&w)
}

fn clause_worth(clause: &str) -> Result<(), Chatter> {
    if introduces(clause) {
        return Ok(());
    }
    let (words, offsets) = words_at(clause);
    let formula = in_formula(&words);
    let names = vocatives(clause);
    // A statement about the speaker or someone (a subject with a verb): past its subject,
    // `morning`, `best`, `later` are what it is about, not a greeting or a sign-off
    // (`I work best in the morning`).
    let statement = super::state::about(clause)
        .filter(|(who, _)| matches!(who, super::state::About::Speaker | super::state::About::Someone))
        .map(|(_, at)| offsets.iter().position(|o| *o >= at).unwrap_or(words.len()));
    let said = |i: usize| statement.is_some_and(|from| i >= from);
    let chatter = |i: usize| {
        let w = words[i].as_str();
        formula[i]
            || [THANKS, SORRY, ACK, FILLER].iter().any(|l| is(l, w))
            || (!said(i) && (is(GREETING, w) || is(FAREWELL, w)))
            || names.iter().any(|n| n == w)
    };
    let has = |list: &[&str]| (0..words.len()).any(|i| !formula[i] && is(list, &words[i]));
    // The speaker in it, not as a mere listener (`sounds good to me`).
    let speaker = (0..words.len()).any(|i| {
        !formula[i]
            && is(SPEAKER, &words[i])
            && !(i > 0 && matches!(words[i - 1].as_str(), "to" | "for" | "with" | "à" | "pour"))
    });
    let plain = |i: usize| {
        let w = words[i].as_str();
        chatter(i)
            || (statement.is_none() && is(TIME, w))
            || [POINTER, SECOND, GENERIC, FUNCTION, SPEAKER, TALK].iter().any(|l| is(l, w))
    };
    let substance: Vec<usize> = (0..words.len()).filter(|i| !plain(*i)).collect();
    // The first word that is not chatter: what the clause opens with.
    let first = (0..words.len()).find(|i| !chatter(*i)).map_or("", |i| words[i].as_str());
    // `Happy Diwali!`, `Merry Christmas`: a short wish names only the day.
    let wish = is(WISH, first) && !speaker && (has(SECOND) || has(PRAISE) || has(TALK) || words.len() <= 3);
    let kind = || chatter_kind(&words, &formula, wish);
    let opens_with = |list: &[&str]| words.first().is_some_and(|w| is(list, w));
    let time = names_a_time(clause, &words);
    // 1. Nothing of its own.
    if substance.is_empty() {
        return Err(kind());
    }
    // 2. A wish, thanks, apology, greeting, farewell or exclamation (`What a view!`),
    //    whatever it is about.
    let exclaims =
        matches!(first, "what" | "how" | "quel" | "quelle" | "such") && super::state::about(clause).is_none();
    if wish || (!speaker && (exclaims || [THANKS, SORRY, GREETING, FAREWELL].iter().any(|l| opens_with(l)))) {
        return Err(kind());
    }
    // 3. Only praise or feeling, with no one speaking of themselves or about the other.
    if substance.iter().all(|i| is(PRAISE, &words[*i])) && (!speaker || has(SECOND) || has(POINTER)) {
        return Err(kind());
    }
    // 4. About the other person (it opens, past chatter and praise, with `you`), not the speaker.
    let opener = (0..words.len())
        .find(|i| !chatter(*i) && !is(PRAISE, &words[*i]) && (!is(FUNCTION, &words[*i]) || is(SPEAKER, &words[*i])))
        .map_or("", |i| words[i].as_str());
    if is(SECOND, opener) && !speaker && has(PRAISE) {
        return Err(Chatter::ToThem);
    }
    // … or says what the other person is (`You're so clever.`, `You're very patient with
    // me.`): a judgement of them, not a fact about the speaker or anyone's life.
    let judged = (0..words.len().saturating_sub(1))
        .find(|i| !chatter(*i))
        .is_some_and(|i| words[i] == "you" && matches!(words[i + 1].as_str(), "re" | "are" | "were" | "was"));
    if judged && !names_a_time(clause, &words) && !speaker {
        return Err(Chatter::ToThem);
    }
    // 5. Praise of something pointed at (`that photo is great`, `j'adore cette photo`).
    let pointed_noun = |i: usize| i > 0 && is(POINTER, &words[i - 1]);
    if has(POINTER) && !time && substance.iter().all(|i| pointed_noun(*i) || is(PRAISE, &words[*i])) {
        return Err(Chatter::Reaction);
    }
    // 6. A reaction with no subject, to something pointed at or shown (`Love the red and
    //    blue`, `Missed you`).
    let subjectless =
        is(GENERIC, first) || is(PRAISE, first) || super::verbs::forms(first).is_some_and(|f| is(GENERIC, f.lemma));
    let points = words.iter().skip_while(|w| w.as_str() != first).skip(1).take(2).any(|w| {
        is(POINTER, w)
            || is(SECOND, w)
            || matches!(w.as_str(), "the" | "le" | "la" | "les" | "l" | "ce" | "cette" | "ces")
    });
    if subjectless && points && !speaker && !time {
        return Err(Chatter::Reaction);
    }
    // 7. A verb with no subject done to the other person (`Just testing you.`, `Teasing
    //    you!`): about the exchange, not anyone's life.
    let verb_first = super::verbs::forms(first).is_some() && statement.is_none();
    let at_them = words.iter().skip_while(|w| w.as_str() != first).skip(1).take(2).any(|w| is(SECOND, w));
    if verb_first && at_them && !speaker && !time && substance.len() == 1 {
        return Err(Chatter::ToThem);
    }
    Ok(())
}

/// What a clause that states nothing is, by the first class of chatter it holds.
fn chatter_kind(words: &[String], formula: &[bool], wish: bool) -> Chatter {
    let has = |list: &[&str]| (0..words.len()).any(|i| !formula[i] && is(list, &words[i]));
    if wish {
        Chatter::Wish
    } else if has(GREETING) {
        Chatter::Greeting
    } else if has(THANKS) {
        Chatter::Thanks
    } else if has(SORRY) {
        Chatter::Apology
    } else if has(FAREWELL) || formula.iter().any(|f| *f) {
        Chatter::Farewell
    } else if has(SECOND) {
        Chatter::ToThem
    } else if has(POINTER) || has(PRAISE) {
        Chatter::Reaction
    } else if has(ACK) {
        Chatter::Acknowledgement
    } else {
        Chatter::Exclamation
    }
}

fn names_a_time(clause: &str, words: &[String]) -> bool {
    words.iter().any(|w| is(TIME, w)) || !matches!(super::when::resolve(clause, 0), super::when::Resolution::None)
}
