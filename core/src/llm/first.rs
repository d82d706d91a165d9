//! The offline provider's answers to the questions people ask first — who am I, what's
//! my name, what do you know about me, pets, family, work, health, home, tastes, plans,
//! when — from the memory lines of its prompt, each answer citing the lines it used.
//! Deterministic rules, no model; an answer says which rule gave it.
//!
//! The rule, on one screen. The question is read for three things: **whose** it asks
//! about (`my sister` → the sister; `my flight` → the flight; `I`, `me`, `we` → the
//! speaker), **what kind of answer** it wants (a name, a date, a number, a clock time),
//! and the **words** a fact must answer, each also met by the words that mean it in
//! general English (`avoid` by `allergic`, `can't take`; `flight` by `flying`; `pets` by
//! the animals of `text::kinds`). The words between a wh-word and its verb (`which
//! football team`, `what breed`) name the kind of answer, so a fact need not hold them.
//! A line answers when it is about that person or thing — a speaker's question is
//! answered by the speaker's facts and their things, never by what their wife or son
//! does — holds every name the question names, meets every other word, and gives the
//! kind of answer wanted. The lines that meet most words are cited. Three questions have
//! rules of their own: the speaker's **name** (`my name is …`, `I'm …`, `call me …`),
//! **who am I** (the name and the facts of who the speaker is: age, work, origin, home),
//! and **what do you know about me** (every fact about the speaker or theirs, not the
//! world's). No line answers: `I don't have that in memory`.
//!
//! ```
//! use nocturne_core::llm::first::answer;
//! let lines = vec![
//!     ("m_1".to_string(), "Hi! I'm Lena.".to_string()),
//!     ("m_2".to_string(), "I have a cat called Miso.".to_string()),
//!     ("m_3".to_string(), "My partner Tomas is a carpenter.".to_string()),
//! ];
//! let a = answer(&lines, "What's my name?").unwrap();
//! assert!(a.text.starts_with("Your name is Lena.") && a.cited == ["m_1"]);
//! assert_eq!(answer(&lines, "Do I have any pets?").unwrap().cited, ["m_2"]);
//! assert_eq!(answer(&lines, "What does my partner do?").unwrap().cited, ["m_3"]);
//! assert!(answer(&lines, "What's my wife's name?").is_none());
//! ```

mod implied;
mod question;

use crate::store::retrieval::roots;
use crate::text::act::{self, Act};
use implied::{implied, says_job, THIRD_JOB};
use question::{Asked, Kind, Need, Want};
use std::collections::BTreeSet;

/// An answer from memory and the lines it cites.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub text: String,
    pub cited: Vec<String>,
}

/// At most this many lines are cited.
pub const MAX_CITED: usize = 5;

/// One memory line: its words, the date note the prompt gave it, who said it.
#[derive(Clone, Debug)]
struct Line<'a> {
    id: &'a str,
    text: &'a str,
    about: Option<&'a str>,
    roots: BTreeSet<String>,
    whose: Whose,
}

impl<'a> Line<'a> {
    /// `Melanie: I painted a sunrise. (2022-01-01..2022-12-31)` → the words, the note.
    fn read(id: &'a str, line: &'a str) -> Line<'a> {
        let mut text = line.trim();
        if let Some((head, rest)) = text.split_once(": ") {
            if !head.contains(' ') && head.chars().next().is_some_and(char::is_uppercase) && !rest.is_empty() {
                text = rest;
            }
        }
        let mut about = None;
        if let Some((words, note)) = text.rsplit_once(" (") {
            let dated = note.contains("names no single date")
                || note.split(['-', ' ']).any(|p| p.len() == 4 && p.starts_with("20"));
            if dated && note.ends_with(')') {
                text = words;
                about = Some(&note[..note.len() - 1]);
            }
        }
        let whose = whose(text);
        let mut found = with_lemmas(text);
        found.extend(implied(text).into_iter().map(String::from));
        // `My dog Chai is a rescue from Romania`: where someone or something is from.
        if words(text).iter().any(|w| w == "from") {
            found.insert("from".into());
        }
        // `My husband Rhys is a firefighter`: what another person does for work.
        if matches!(whose, Whose::Person(_)) && says_job(&words(text), THIRD_JOB) {
            found.insert("job".into());
        }
        // `(due 2026-01-02, tomorrow)`: the prompt says the fact falls due then.
        // A commitment is what the speaker needs to do (`When do I need to call the vet?`).
        if about.is_some_and(|a| a.starts_with("due ")) {
            found.insert("due".into());
            found.insert("need".into());
        }
        Line { id, text, about, roots: found, whose }
    }

    /// The resolved date the note names (`due 2026-03-14, in 3 days` → `2026-03-14`).
    fn date(&self) -> Option<&'a str> {
        let note = self.about?;
        let note = note.strip_prefix("due ").unwrap_or(note);
        let date = note.split(',').next()?.trim();
        date.starts_with(|c: char| c.is_ascii_digit()).then_some(date)
    }

    fn quoted(&self) -> String {
        match self.about {
            Some(note) => format!("“{}” ({note})", self.text),
            None => format!("“{}”", self.text),
        }
    }
}

/// The roots of `text` (`store::retrieval::roots`) and each verb's lemma (`seeing`, `saw`
/// → `see`), so a question in one tense meets a fact in another.
fn with_lemmas(text: &str) -> BTreeSet<String> {
    let mut out = roots(text);
    for w in words(text) {
        if let Some(f) = crate::text::verbs::forms(&w).filter(|f| !f.lemma.is_empty()) {
            out.insert(f.lemma.to_string());
        }
    }
    out
}

/// Whom a fact is about.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Whose {
    /// The speaker (`I …`, `We …`).
    Speaker,
    /// A thing of the speaker's (`My flat …`, `Our cat …`).
    Mine,
    /// Someone else: `My sister …`, `Kwame …` (the word that names them).
    Person(String),
    /// Neither: `The pier is closed.`
    World,
}

/// People a speaker speaks of by their relation to them.
#[rustfmt::skip]
const PEOPLE: &[&str] = &[
    "wife", "husband", "partner", "boyfriend", "girlfriend", "fiancé", "fiance", "fiancée", "fiancee", "spouse", "son",
    "daughter", "kid", "kids", "child", "children", "baby", "brother", "sister", "sibling", "siblings", "twin", "mum",
    "mom", "mother", "dad", "father", "parents", "parent", "grandma", "grandmother", "grandad", "granddad",
    "grandfather", "grandpa", "nan", "nana", "nonna", "nonno", "abuela", "abuelo", "granny", "gran", "aunt",
    "auntie", "uncle", "cousin", "niece", "nephew", "friend", "mate", "flatmate", "roommate", "housemate",
    "colleague", "coworker", "boss", "manager", "neighbour", "neighbor", "landlord", "landlady", "teacher", "coach",
    "doctor", "dentist", "therapist", "gp", "grandson", "granddaughter", "grandkids", "stepson", "stepdaughter",
    "sister-in-law", "brother-in-law", "mother-in-law", "father-in-law", "ex", "twins", "family", "fiancée", "nephews",
    "nieces", "cousins", "brothers", "sisters", "sons", "daughters", "friends", "colleagues", "grandparents",
    "neighbours", "neighbors", "stepmother", "stepfather", "stepmum", "stepmom", "stepdad", "stepbrother", "stepsister",
    "godmother", "godfather", "godson", "goddaughter", "in-laws", "flatmates", "housemates", "roommates",
];

/// `text` names `holder` as the speaker's past its subject (`My wife is expecting our first
/// baby`): the line is about that one too.
fn owns_later(text: &str, holder: &str) -> bool {
    let ws = words(text);
    ws.iter()
        .enumerate()
        .skip(2)
        .any(|(k, w)| (w == "my" || w == "our") && ws[k + 1..].iter().take(3).any(|x| x == holder))
}

/// Words between `my` and the person it names (`my little sister`, `my best friend`).
const PERSON_ADJECTIVES: &[&str] =
    &["best", "old", "little", "big", "younger", "older", "eldest", "oldest", "youngest", "late", "baby", "twin"];

/// Greetings a speaker opens an introduction with (`Good morning, this is Hamid.`).
const GREETINGS: &[&str] = &[
    "hi",
    "hey",
    "hello",
    "hiya",
    "good",
    "morning",
    "afternoon",
    "evening",
    "there",
    "all",
    "everyone",
    "yo",
    "greetings",
];

/// Words a sentence opens with that say when, not who (`Next month we're moving`).
#[rustfmt::skip]
const TIME_OPENERS: &[&str] = &[
    "next", "last", "yesterday", "today", "tomorrow", "tonight", "every", "since", "recently", "lately",
    "sometimes", "usually", "soon", "later", "earlier", "once", "twice", "monday", "tuesday", "wednesday", "thursday",
    "friday", "saturday", "sunday", "weekends", "mornings", "evenings",
];

/// Openers before a fact's subject (`Hi, I'm …`, `Honestly, my …`).
const OPENERS: &[&str] =
    &["hi", "hey", "hello", "so", "well", "oh", "honestly", "also", "btw", "actually", "yes", "ok"];

/// The words of `text`, lowercase, apostrophes as `'`, a possessive `'s` cut off.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '\'' | '’' | '-')))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase().replace('’', "'"))
        .filter(|w| !w.is_empty())
        .map(|w| w.strip_suffix("'s").map(str::to_string).unwrap_or(w))
        .collect()
}

/// Whom `text` is about, by its subject.
fn whose(text: &str) -> Whose {
    let ws = words(text);
    let mut k = 0;
    // `Good evening, I'm Hemi.`: a greeting opens it, the speaker is its subject.
    while ws.get(k).is_some_and(|w| OPENERS.contains(&w.as_str()) || GREETINGS.contains(&w.as_str())) {
        k += 1;
    }
    let first = ws.get(k).map_or("", String::as_str);
    let mut n = k + 1;
    while matches!(first, "my" | "our")
        && ws.get(n).is_some_and(|w| PERSON_ADJECTIVES.contains(&w.as_str()))
        && ws.get(n + 1).is_some_and(|w| PEOPLE.contains(&w.as_str()))
    {
        n += 1;
    }
    let next = ws.get(n).map_or("", String::as_str);
    match first {
        "i" | "i'm" | "i've" | "i'd" | "i'll" | "we" | "we're" | "we've" | "we'll" | "me" | "im" | "ive" => {
            Whose::Speaker
        }
        // `Remind me to call the vet`: a reminder the speaker set.
        "remind" if next == "me" => Whose::Speaker,
        "my" | "our" if PEOPLE.contains(&next) => Whose::Person(next.to_string()),
        "my" | "our" | "mine" => Whose::Mine,
        _ => {
            // `Next month we're moving`: a time or a little word opens it, not a name.
            let capitalised = text
                .split_whitespace()
                .find(|w| !OPENERS.contains(&w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase().as_str()))
                .is_some_and(|w| w.chars().next().is_some_and(char::is_uppercase))
                && !crate::text::textmath::is_stopword(first)
                && !TIME_OPENERS.contains(&first);
            let subject = |w: &String| {
                matches!(w.as_str(), "i" | "i'm" | "we" | "we're" | "we've" | "i've" | "i'll" | "we'll" | "i'd" | "me")
            };
            // `The neighbour's cat digs up our flowerbeds`: a determiner opens the subject,
            // and the speaker is only an owner further on, not who it is about.
            let determined = matches!(first, "the" | "a" | "an" | "this" | "that" | "these" | "those");
            let first_person =
                ws.iter().any(subject) || !determined && ws.iter().any(|w| matches!(w.as_str(), "my" | "our"));
            // `Bach is my favourite composer`: the name is the speaker's thing's value.
            let value = ws.get(k + 1).is_some_and(|w| w == "is" || w == "was")
                && ws.get(k + 2).is_some_and(|w| w == "my" || w == "our");
            if value {
                Whose::Mine
            } else if capitalised
                && !first.is_empty()
                && !matches!(first, "the" | "a" | "an" | "this" | "that" | "it")
                // `Bee stings make me swell`: a capital that only starts the sentence, about the speaker.
                && !ws.iter().skip(k + 1).any(|w| w == "me")
            {
                Whose::Person(first.to_string())
            } else if first_person {
                Whose::Speaker
            } else {
                Whose::World
            }
        }
    }
}

/// The reply to `message` from memory `lines` (`(id, line)` as the prompt shows them),
/// when a line answers it: its first question, or a request to tell about something.
pub fn answer(lines: &[(String, String)], message: &str) -> Option<Answer> {
    let said = act::turn(message);
    let asked = said.iter().find(|s| matches!(s.reading.act, Act::Question | Act::Request))?;
    let lines: Vec<Line<'_>> = lines.iter().map(|(id, l)| Line::read(id, l)).collect();
    let question = Asked::read(asked.sentence);
    let answer = match question.kind {
        Kind::Name => name(&lines, false),
        Kind::FullName => name(&lines, true),
        Kind::Identity => identity(&lines),
        Kind::AboutMe => about_me(&lines),
        Kind::Topic => topic(&lines, &question),
    }?;
    (!answer.cited.is_empty()).then_some(answer)
}

// ---------------------------------------------------------------------------------------
// Answers.

/// The speaker's name, from the lines that give it; `full`: only a name of more than one
/// word (a question for the surname is not answered by a first name).
fn name(lines: &[Line<'_>], full: bool) -> Option<Answer> {
    let found: Vec<(&Line<'_>, String)> = lines
        .iter()
        .filter_map(|l| name_in(l).map(|n| (l, n)))
        .filter(|(l, n)| !full || n.contains(' ') || FULL.iter().any(|f| l.text.to_lowercase().contains(f)))
        .collect();
    let (first, name) = found.first()?;
    let mut text = format!("Your name is {name}.");
    let others: Vec<&String> = found.iter().map(|(_, n)| n).filter(|n| *n != name).collect();
    if let Some(other) = others.first() {
        text.push_str(&format!(" You also go by {other}."));
    }
    let quotes: Vec<String> = found.iter().map(|(l, _)| l.quoted()).collect();
    text.push_str(&format!(" From memory: {} (offline rules: the lines that name you)", quotes.join("; ")));
    let mut cited = vec![first.id.to_string()];
    for (l, _) in found.iter().skip(1) {
        if !cited.iter().any(|c| c == l.id) {
            cited.push(l.id.to_string());
        }
    }
    Some(Answer { text, cited })
}

/// How a line says it gives the whole name, or the surname.
const FULL: &[&str] = &["full name", "surname", "last name", "family name"];

/// The name a speaker's line gives them: `my name is X`, `the name's X`, `call me X`,
/// `I'm X` (a capitalised word that names no nationality or faith: `I'm Jewish` does not).
fn name_in(line: &Line<'_>) -> Option<String> {
    let raw: Vec<&str> = line.text.split_whitespace().collect();
    let lower: Vec<String> = raw
        .iter()
        .map(|w| {
            w.to_lowercase().replace('’', "'").trim_matches(|c: char| !c.is_alphanumeric() && c != '\'').to_string()
        })
        .collect();
    // Up to two capitalised words from `k`, ending at a mark.
    let capital = |k: usize| -> Option<String> {
        let mut out = Vec::new();
        for w in raw.iter().skip(k).take(2) {
            let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
            if !bare.chars().next().is_some_and(char::is_uppercase) || bare == "I" {
                break;
            }
            out.push(bare);
            if w.ends_with([',', '.', '!', ';', ':']) {
                break;
            }
        }
        (!out.is_empty()).then(|| out.join(" "))
    };
    // `Hey, Rafaela here.`: a greeting, a name, `here`.
    if let Some(k) = lower.iter().position(|w| w == "here") {
        // `Hi, Siddharth here, I'm a medical student.`: more may follow a comma.
        let ends = raw.len() <= k + 2 || raw[k].ends_with(',');
        if k >= 1 && lower[..k - 1].iter().all(|w| GREETINGS.contains(&w.as_str())) && ends {
            if let Some(name) = capital(k - 1).filter(|n| !n.contains(' ')) {
                return Some(name);
            }
        }
    }
    for k in 0..lower.len() {
        let (w, next) = (lower[k].as_str(), lower.get(k + 1).map_or("", String::as_str));
        let prev = k.checked_sub(1).map_or("", |p| lower[p].as_str());
        let (start, stated) = match w {
            "name's" => (k + 1, true),
            "name" if next == "is" => (k + 2, true),
            "me" if matches!(prev, "call" | "calls" | "called") => (k + 1, true),
            // `I'm called Yusuf by my friends`, `I am called …`.
            "called" | "named" if matches!(prev, "i'm" | "im" | "am") && line.whose == Whose::Speaker => (k + 1, true),
            "i'm" | "im" if line.whose == Whose::Speaker => (k + 1, false),
            // `Good morning, this is Hamid.`: the speaker introducing themselves.
            "is" if prev == "this" && lower[..k - 1].iter().all(|w| GREETINGS.contains(&w.as_str())) => (k + 1, true),
            // `Hey! It's Maya.`, `Hi, it's Maya here.`
            // `It's Gráinne, by the way.`: a name set off by a comma.
            "it's" | "its"
                if lower[..k].iter().all(|w| GREETINGS.contains(&w.as_str()))
                    && (lower.len() <= k + 3 || raw.get(k + 1).is_some_and(|w| w.ends_with(','))) =>
            {
                (k + 1, true)
            }
            "i" if next == "am" && line.whose == Whose::Speaker => (k + 2, false),
            _ => continue,
        };
        let Some(name) = capital(start) else { continue };
        let lower_name = name.to_lowercase();
        let nationality =
            ["ish", "ese", "ian", "ean"].iter().any(|e| lower_name.ends_with(e)) || lower_name.contains('-');
        if stated || !nationality {
            return Some(name);
        }
    }
    None
}

/// Who the speaker is: their name and the lines that say who they are.
fn identity(lines: &[Line<'_>]) -> Option<Answer> {
    let chosen: Vec<&Line<'_>> =
        lines.iter().filter(|l| name_in(l).is_some() || who_they_are(l)).take(MAX_CITED).collect();
    if chosen.is_empty() {
        return None;
    }
    let name = chosen.iter().find_map(|l| name_in(l));
    let quotes: Vec<String> = chosen.iter().map(|l| l.quoted()).collect();
    let head = name.map_or("From memory:".to_string(), |n| format!("You're {n}. From memory:"));
    let text = format!("{head} {} (offline rules: the lines that say who you are)", quotes.join("; "));
    Some(Answer { text, cited: chosen.iter().map(|l| l.id.to_string()).collect() })
}

/// A speaker's line that says who they are: their age, work or studies, origin, home,
/// pronouns or marital state — not a taste, a plan, their health, family or pets.
fn who_they_are(line: &Line<'_>) -> bool {
    let ws = words(line.text);
    let starts_i = ws
        .iter()
        .find(|w| !OPENERS.contains(&w.as_str()) && !GREETINGS.contains(&w.as_str()))
        .is_some_and(|w| matches!(w.as_str(), "i" | "i'm" | "im"));
    if !starts_i || line.date().is_some() {
        return false;
    }
    let has = |list: &[&str]| ws.iter().any(|w| list.contains(&w.as_str()));
    if has(&[
        "love",
        "like",
        "hate",
        "prefer",
        "enjoy",
        "support",
        "fan",
        "allergic",
        "can't",
        "have",
        "got",
        "going",
        "learning",
        "expecting",
        "obsessed",
        "terrified",
        "scared",
        "afraid",
        "saving",
        "want",
        "planning",
        "hoping",
        "thinking",
        "trying",
    ]) {
        return false;
    }
    if line.roots.contains("job") {
        return true;
    }
    has(&[
        "i'm",
        "im",
        "am",
        "live",
        "lived",
        "work",
        "teach",
        "grew",
        "born",
        "from",
        "study",
        "studying",
        "volunteer",
        "retired",
        "pronouns",
        "widowed",
        "married",
        "divorced",
        "single",
    ])
}

/// Every line about the speaker or someone or something of theirs.
fn about_me(lines: &[Line<'_>]) -> Option<Answer> {
    // A name that opens a line may be a team, a town or a firm (`Sport Recife got
    // promoted`): a line is the speaker's when it says `I`, `my`, `we` or `our`.
    let mine = |l: &Line<'_>| {
        words(l.text).iter().any(|w| {
            matches!(w.as_str(), "i" | "my" | "we" | "our" | "me" | "us" | "i'm" | "i've" | "we're" | "we've" | "im")
        })
    };
    let mut chosen: Vec<&Line<'_>> = lines.iter().filter(|l| mine(l) || name_in(l).is_some()).collect();
    // Who they are first — the name, then age, work, home — then the rest of theirs.
    crate::text::order::sort_by_key(&mut chosen, |l| {
        (name_in(l).is_none(), !who_they_are(l), l.whose != Whose::Speaker)
    });
    chosen.truncate(MAX_CITED);
    if chosen.is_empty() {
        return None;
    }
    let name = chosen.iter().find_map(|l| name_in(l));
    let head = name.map_or("From memory:".to_string(), |n| format!("You're {n}. From memory:"));
    let quotes: Vec<String> = chosen.iter().map(|l| l.quoted()).collect();
    let text = format!("{head} {} (offline rules: the lines about you and yours)", quotes.join("; "));
    Some(Answer { text, cited: chosen.iter().map(|l| l.id.to_string()).collect() })
}

/// Any other question: the lines about whom it asks that meet every word it needs.
fn topic(lines: &[Line<'_>], q: &Asked) -> Option<Answer> {
    let scored: Vec<(usize, &Line<'_>)> = lines.iter().filter_map(|l| score(l, q).map(|s| (s, l))).collect();
    let best = scored.iter().map(|(s, _)| *s).max()?;
    let chosen: Vec<&Line<'_>> = scored.iter().filter(|(s, _)| *s == best).map(|(_, l)| *l).take(3).collect();
    let quotes: Vec<String> = chosen.iter().map(|l| l.quoted()).collect();
    let why = match &q.holder {
        Some(h) => format!("the lines about your {h} that answer it"),
        None => "the lines that answer it".to_string(),
    };
    let text = match (q.want, chosen[0].date()) {
        (Want::Date, Some(date)) => {
            format!("On {date}. From memory: {} (offline rules: {why}, with the date they name)", quotes.join("; "))
        }
        _ => format!("From memory: {} (offline rules: {why})", quotes.join("; ")),
    };
    Some(Answer { text, cited: chosen.iter().map(|l| l.id.to_string()).collect() })
}

/// How well `line` answers `q`: the words it meets, when it is about the right one, holds
/// every name and meets every needed word and the kind of answer; `None` otherwise.
fn score(line: &Line<'_>, q: &Asked) -> Option<usize> {
    let lower = line.text.to_lowercase();
    if !q.names.iter().all(|n| line.roots.contains(n) || lower.contains(n.as_str())) {
        return None;
    }
    match &q.holder {
        Some(_) if !q.holder_need.as_ref().is_some_and(|h| h.met(line)) => return None,
        // `my MRI`, `my cat`: a thing of the speaker's, not one another person has.
        Some(h) if q.mine && !PEOPLE.contains(&h.as_str()) && matches!(&line.whose, Whose::Person(p) if p != h) => {
            return None
        }
        // `my family`: a person of the family, not a colleague who had a baby.
        Some(h)
            if PEOPLE.contains(&h.as_str())
                && matches!(&line.whose, Whose::Person(p)
                    if p != h && !q.holder_need.as_ref().is_some_and(|n| n.names(p)) && !owns_later(line.text, h)) =>
        {
            return None
        }
        // A question about the speaker is not answered by what another person does, unless
        // it asks about their people (`Do I have any siblings?`).
        None if q.speaker && q.names.is_empty() => {
            let people = q.needs.iter().chain(&q.heads).any(Need::people);
            // `My aunt Farida raised me`: another's doing, said of the speaker.
            let of_me = matches!(line.whose, Whose::Person(_)) && words(line.text).iter().skip(1).any(|w| w == "me");
            if !people && !of_me && matches!(line.whose, Whose::Person(_) | Whose::World) {
                return None;
            }
        }
        _ => {}
    }
    if q.present && line.roots.contains("past") {
        return None;
    }
    if !q.needs.iter().all(|n| n.met(line)) || !gives(line, q.want) {
        return None;
    }
    let met = q.needs.len() + q.heads.iter().filter(|n| n.met(line)).count() + usize::from(q.holder.is_some());
    // Ties go to the line that holds the asked words themselves, says it of the speaker
    // (`I moved …` over `My cat hated the move`), and, for what is ahead, names its date.
    let exact = q.needs.iter().chain(&q.heads).filter(|n| n.exact(line)).count()
        + q.holder_need.as_ref().map_or(0, |h| usize::from(h.exact(line)));
    let own = usize::from(q.speaker && q.holder.is_none() && line.whose == Whose::Speaker);
    let ahead = usize::from(q.ahead && line.date().is_some());
    (met > 0).then_some(8 * met + 2 * exact + own + ahead)
}

/// Whether `line` gives the kind of answer wanted.
fn gives(line: &Line<'_>, want: Want) -> bool {
    let text = line.text;
    match want {
        Want::Any => true,
        Want::Date => line.date().is_some(),
        Want::Number => {
            text.chars().any(|c| c.is_ascii_digit()) || words(text).iter().any(|w| NUMBERS.contains(&w.as_str()))
        }
        Want::Time => text.split_whitespace().any(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != ':').to_lowercase();
            w.contains(':') && w.chars().any(|c| c.is_ascii_digit())
                || w.ends_with("am") && w.starts_with(|c: char| c.is_ascii_digit())
                || w.ends_with("pm") && w.starts_with(|c: char| c.is_ascii_digit())
        }),
        Want::Duration => {
            let ws = words(text);
            let span = ws.iter().any(|w| {
                matches!(
                    w.as_str(),
                    "year"
                        | "years"
                        | "month"
                        | "months"
                        | "week"
                        | "weeks"
                        | "day"
                        | "days"
                        | "decade"
                        | "decades"
                        | "since"
                        | "ago"
                )
            });
            span || line.date().is_some()
        }
        Want::Place => {
            // `I've just started a new job at Siemens`, not `I'm an engineer`.
            let ws = words(text);
            let raw: Vec<&str> = text.split_whitespace().collect();
            // `to` and `on` say where before a name or a determiner (`moved to Cluj`, `on a
            // narrowboat`), not before a bare word (`promoted to head chef`) or a date.
            let towards = raw.windows(2).any(|p| {
                matches!(p[0].to_lowercase().as_str(), "to" | "on")
                    && (p[1].starts_with(char::is_uppercase) && !when_word(p[1])
                        || matches!(p[1].to_lowercase().as_str(), "a" | "an" | "the" | "my" | "our"))
            });
            towards
                || ws.windows(2).any(|p| PLACE_WORDS.contains(&p[0].as_str()))
                || ws.iter().any(|w| PLACES.contains(&w.as_str()))
        }
        Want::Name => {
            crate::text::textmath::proper_nouns(text).len()
                + usize::from(text.contains(" called ") || text.contains(" named "))
                > 0
        }
    }
}

/// Words that say where something is, before the place they name (`in Kreuzberg`, `at
/// Siemens`, `outside Lund`, `from Faro`); `to` and `on` are read apart.
#[rustfmt::skip]
const PLACE_WORDS: &[&str] = &[
    "in", "at", "near", "outside", "inside", "from", "behind", "opposite", "beside", "between", "around", "across",
    "into", "above", "below", "under", "beyond", "within", "towards",
];

/// `Fridays`, `March`: a capitalised word that says when, not where.
fn when_word(word: &str) -> bool {
    let w = word.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    crate::text::cues::time_word(&w) || crate::text::cues::time_word(w.trim_end_matches('s'))
}

/// Words that are a place by themselves (`I work from home`, `we live abroad`).
const PLACES: &[&str] =
    &["home", "abroad", "overseas", "here", "there", "away", "locally", "nearby", "upstairs", "downstairs"];

#[rustfmt::skip]
const NUMBERS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
    "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
    "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "twin", "twins", "triplets",
];
