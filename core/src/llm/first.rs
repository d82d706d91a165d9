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

use crate::store::retrieval::roots;
use crate::text::act::{self, Act};
use crate::text::kinds;
use crate::text::textmath::is_stopword;
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
        let mut found = with_lemmas(text);
        found.extend(implied(text).into_iter().map(String::from));
        // `(due 2026-01-02, tomorrow)`: the prompt says the fact falls due then.
        // A commitment is what the speaker needs to do (`When do I need to call the vet?`).
        if about.is_some_and(|a| a.starts_with("due ")) {
            found.insert("due".into());
            found.insert("need".into());
        }
        Line { id, text, about, roots: found, whose: whose(text) }
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

/// What a fact says without the word a question uses: `I can't take ibuprofen` says what
/// to `avoid`; `I'm a sonographer` says the speaker's `job`; `Before that I lived …`,
/// `I used to …` say what no longer holds (`past`).
fn implied(text: &str) -> Vec<&'static str> {
    let ws = words(text);
    let joined = format!(" {} ", ws.join(" "));
    let has = |p: &str| joined.contains(&format!(" {p} "));
    let mut out = Vec::new();
    let refuses = ["can't", "cannot", "can", "don't", "shouldn't", "mustn't"].iter().any(|n| {
        ["take", "eat", "have", "drink", "use"]
            .iter()
            .any(|v| has(&format!("{n} {v}")) && (*n != "can" || has(&format!("can not {v}"))))
    });
    if refuses || has("allergic") || has("intolerant") {
        out.push("avoid");
    }
    let job = ["i'm a", "i'm an", "i am a", "i am an", "im a", "im an", "i work as", "i'm the"].iter().any(|p| has(p))
        && !["fan", "vegetarian", "vegan", "bit", "person", "huge", "big", "little"]
            .iter()
            .any(|w| ws.contains(&w.to_string()));
    if job {
        out.push("job");
    }
    if has("before that") || has("used to") || has("no longer") || has("previously") || has("formerly") {
        out.push("past");
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
    while ws.get(k).is_some_and(|w| OPENERS.contains(&w.as_str())) {
        k += 1;
    }
    let first = ws.get(k).map_or("", String::as_str);
    let next = ws.get(k + 1).map_or("", String::as_str);
    match first {
        "i" | "i'm" | "i've" | "i'd" | "i'll" | "we" | "we're" | "we've" | "we'll" | "me" | "im" | "ive" => {
            Whose::Speaker
        }
        // `Remind me to call the vet`: a reminder the speaker set.
        "remind" if next == "me" => Whose::Speaker,
        "my" | "our" if PEOPLE.contains(&next) => Whose::Person(next.to_string()),
        "my" | "our" | "mine" => Whose::Mine,
        _ => {
            let capitalised = text
                .split_whitespace()
                .find(|w| !OPENERS.contains(&w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase().as_str()))
                .is_some_and(|w| w.chars().next().is_some_and(char::is_uppercase));
            let first_person = ws.iter().any(|w| matches!(w.as_str(), "i" | "i'm" | "my" | "we" | "our" | "me"));
            // `Bach is my favourite composer`: the name is the speaker's thing's value.
            let value = ws.get(k + 1).is_some_and(|w| w == "is" || w == "was")
                && ws.get(k + 2).is_some_and(|w| w == "my" || w == "our");
            if value {
                Whose::Mine
            } else if capitalised && !first.is_empty() && !matches!(first, "the" | "a" | "an" | "this" | "that" | "it")
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
        Kind::Name => name(&lines),
        Kind::Identity => identity(&lines),
        Kind::AboutMe => about_me(&lines),
        Kind::Topic => topic(&lines, &question),
    }?;
    (!answer.cited.is_empty()).then_some(answer)
}

// ---------------------------------------------------------------------------------------
// The question.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Name,
    Identity,
    AboutMe,
    Topic,
}

/// What a line must give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Want {
    Any,
    /// A resolved date (`when`, `what date`).
    Date,
    /// A number (`how old`, `how many`).
    Number,
    /// A clock time (`what time`).
    Time,
    /// A name (`what's my cat called`).
    Name,
}

/// What a question asks.
#[derive(Clone, Debug)]
struct Asked {
    kind: Kind,
    /// Whose: `None` for the speaker; the word naming the person or thing otherwise.
    holder: Option<String>,
    /// Words a line must meet, each with the roots that meet it.
    needs: Vec<Need>,
    /// Words naming the kind of answer: met if a line holds them, not required.
    heads: Vec<Need>,
    /// Names the question names: a line must hold each.
    names: Vec<String>,
    want: Want,
    /// The question asks about the speaker (`I`, `me`, `we`).
    speaker: bool,
    /// It asks what is ahead (`am I doing`, `are we going`, `next`, `coming up`): a line
    /// with a date counts more.
    ahead: bool,
    /// It asks in the present (`do I live`): a line that says it no longer holds does not
    /// answer.
    present: bool,
}

#[derive(Clone, Debug)]
struct Need {
    word: String,
    roots: BTreeSet<String>,
    /// The word's own roots.
    own: BTreeSet<String>,
}

impl Need {
    fn new(word: &str) -> Need {
        let mut roots = with_lemmas(word);
        roots.insert(word.to_string());
        let own = roots.clone();
        for group in MEANS {
            let (names, members) = group.split_once(':').unwrap_or((group, ""));
            if names.split_whitespace().any(|w| w == word) {
                roots.extend(names.split_whitespace().chain(members.split_whitespace()).flat_map(self::roots));
            }
        }
        // A kind's members (`text::kinds`), but not a person's family (`kids` is no husband).
        if !PEOPLE.contains(&word) {
            for member in kinds::members(word) {
                roots.extend(self::roots(member));
            }
        }
        Need { word: word.to_string(), roots, own }
    }

    /// The line holds the word itself (or what it implies: `job` for `I'm a nurse`), not
    /// only a word that means it.
    fn exact(&self, line: &Line<'_>) -> bool {
        !self.own.is_disjoint(&line.roots)
    }

    /// `a or b`: either meets it.
    fn either(a: &str, b: &str) -> Need {
        let mut need = Need::new(a);
        let other = Need::new(b);
        need.roots.extend(other.roots);
        need.own.extend(other.own);
        need.word = format!("{a} or {b}");
        need
    }

    fn met(&self, line: &Line<'_>) -> bool {
        !self.roots.is_disjoint(&line.roots)
    }

    /// The need names people (`siblings`, `kids`, `my sister`).
    fn people(&self) -> bool {
        PEOPLE.contains(&self.word.as_str())
    }
}

/// Words that answer a question's word, general English: `names: members` — a question
/// naming one of the names is met by any member (`pets` by `dog`, not `dog` by `goldfish`);
/// a group with no `:` is words that mean the same, each met by any other.
#[rustfmt::skip]
const MEANS: &[&str] = &[
    "avoid: allergic allergy allergies intolerant react reaction hives",
    "allergy allergies allergic intolerant",
    "medicine medicines medication medications drug drugs antibiotic antibiotics painkiller painkillers: pills tablets prescribed avoid",
    "condition conditions: disease illness diagnosed disorder syndrome",
    "flight flights fly flying flew",
    "holiday holidays vacation trip: travel travelling traveling flying fly going visiting",
    "travel travelling traveling trip: flying fly going",
    "wedding married marrying marry",
    "expire expires expiry: run runs valid",
    "like likes love loves enjoy fan prefer rather obsessed adore support",
    "favourite favorite: love most best go-to",
    "sibling siblings: brother brothers sister sisters twin",
    "kid kids child children: son sons daughter daughters",
    "parents: mum mom mother dad father",
    "family relatives: partner spouse husband wife boyfriend girlfriend fiancé fiance fiancee son sons daughter daughters kid kids child children baby mum mom mother dad father parents brother brothers sister sisters sibling siblings twin twins grandma grandmother grandad grandfather grandpa granny aunt uncle cousin niece nephew",
    "partner spouse: husband wife boyfriend girlfriend fiancé fiancee fiance",
    "live lives living home city town: based moved move",
    "race races: marathon triathlon run running",
    "author authors: writer novels novel books",
    "composer composers: music",
    "job work works working career profession living occupation: promoted employed freelance",
    "pet pets animal animals: dog dogs cat cats puppy kitten dragon lizard tortoise turtle rabbit hamster fish goldfish parrot bird hen hens chicken chickens bee bees goat goats horse pony snake guinea",
    "dog dogs: puppy puppies beagle labrador lurcher terrier spaniel collie retriever poodle whippet greyhound dachshund pug bulldog husky corgi",
    "cat cats: kitten kittens",
    "summer: june july august",
    "winter: december january february",
    "spring: march april may",
    "autumn fall: september october november",
    "eat eating: food pasta bread gluten coeliac celiac intolerant allergic vegan vegetarian",
    "surname lastname",
    "starting start starts",
    "plans plan: going flying trip",
];

/// Words a question is asked with, that say nothing of what it is about.
#[rustfmt::skip]
const ASKING: &[&str] = &[
    "remember", "know", "tell", "recall", "say", "said", "mention", "mentioned", "again", "anything", "something",
    "everything", "think", "happen", "please", "remind", "wonder", "wondering", "ever", "already", "exactly",
    "do", "does", "did", "done", "doing", "have", "has", "had", "get", "got", "go", "going", "be", "is", "am", "are",
    "was", "were", "can", "could", "would", "should", "will", "any", "kind", "sort", "type", "name", "names", "called",
    "call", "when", "date", "day", "time", "old", "age", "many", "much", "where", "who", "what", "which", "how", "why",
    "whats", "who's", "what's", "where's", "when's", "i", "me", "my", "we", "us", "our", "you", "your", "u", "so",
    "now", "currently", "still", "right", "yeah", "people", "next", "upcoming", "coming", "up", "this", "that",
    "alone", "take", "normal", "regular", "usual", "want", "you've", "hear", "i'd", "myself", "all", "stored",
    "memory", "hold", "or",
];

impl Asked {
    fn read(question: &str) -> Asked {
        let ws = words(question);
        let has = |w: &str| ws.iter().any(|x| x == w);
        let kind = kind_of(&ws);
        let holder = holder(question, &ws);
        let want = if has("when") || has("date") {
            Want::Date
        } else if has("time") && !has("when") {
            Want::Time
        } else if has("old") || has("age") || has("many") || has("much") {
            Want::Number
        } else if holder.is_some() && (has("name") || has("called")) {
            Want::Name
        } else {
            Want::Any
        };
        let wh = ws.iter().position(|w| matches!(w.as_str(), "what" | "which" | "whats" | "what's"));
        let verb = ws
            .iter()
            .enumerate()
            .skip(wh.map_or(0, |w| w + 1))
            .find(|(_, w)| ASKING.contains(&w.as_str()))
            .map(|(k, _)| k);
        let mut needs = Vec::new();
        let mut heads = Vec::new();
        let skip = |w: &String| {
            ASKING.contains(&w.as_str()) || is_stopword(w) || roots(w).is_empty() || Some(w) == holder.as_ref()
        };
        let mut k = 0;
        while k < ws.len() {
            let w = &ws[k];
            k += 1;
            if skip(w)
                || HOLDER_ADJECTIVES.contains(&w.as_str()) && ws.get(k).is_some_and(|n| Some(n) == holder.as_ref())
            {
                continue;
            }
            // `Can I eat normal pasta?`: what is eaten names the kind of answer (a diet).
            let eaten = ws[..k - 1].iter().any(|w| matches!(w.as_str(), "eat" | "drink" | "eating" | "drinking"));
            let head = wh.is_some_and(|h| k - 1 > h) && verb.is_none_or(|v| k - 1 < v) || eaten;
            // `window or aisle`: either.
            let need = match ws.get(k..k + 2) {
                Some([or, other]) if or == "or" && !skip(other) => {
                    k += 2;
                    Need::either(w, other)
                }
                _ => Need::new(w),
            };
            if head {
                heads.push(need);
            } else {
                needs.push(need);
            }
        }
        // `What do I do?`: asks for the speaker's work.
        let last = ws.iter().rev().find(|w| !matches!(w.as_str(), "again" | "now" | "exactly"));
        if needs.is_empty() && heads.is_empty() && holder.is_none() && last.is_some_and(|w| w == "do") {
            needs.push(Need::new("job"));
        }
        let names = crate::text::textmath::proper_nouns(question).into_iter().map(|n| n.to_lowercase()).collect();
        let speaker = ws.iter().any(|w| matches!(w.as_str(), "i" | "me" | "we" | "us" | "i'm" | "myself"));
        let ahead = has("next")
            || has("coming")
            || has("upcoming")
            || ws.windows(2).any(|p| matches!(p[0].as_str(), "am" | "are") && p[1].ends_with("ing"))
            || ws.windows(3).any(|p| {
                matches!(p[0].as_str(), "am" | "are") && matches!(p[1].as_str(), "i" | "we") && p[2].ends_with("ing")
            });
        let present = ws.iter().any(|w| matches!(w.as_str(), "do" | "does" | "am" | "is" | "are" | "now"));
        Asked { kind, holder, needs, heads, names, want, speaker, ahead, present }
    }
}

/// Words between `my` and what it owns (`my next gig`, `my new flat`).
const HOLDER_ADJECTIVES: &[&str] = &["next", "new", "old", "current", "first", "last", "upcoming", "own", "usual"];

/// Name, who-am-I, about-me, or any other question.
fn kind_of(ws: &[String]) -> Kind {
    let text = format!(" {} ", ws.join(" "));
    let has = |p: &str| text.contains(&format!(" {p} "));
    let mine = has("my name") && !has("surname") || has("am i called") || has("i'm called") || has("call me");
    if mine && !ws.windows(3).any(|w| w[0] == "my" && w[2] == "name" && w[1] != "name") {
        return Kind::Name;
    }
    if has("who am i") || has("who i am") || has("who do you think i am") {
        return Kind::Identity;
    }
    let about = has("about me") || has("about myself") || has("on me") || has("about us");
    let rest: Vec<&String> = ws
        .iter()
        .filter(|w| {
            !ASKING.contains(&w.as_str())
                && !is_stopword(w)
                && !matches!(w.as_str(), "myself" | "all" | "got" | "hold" | "stored" | "memory")
        })
        .collect();
    if about && rest.is_empty() {
        return Kind::AboutMe;
    }
    Kind::Topic
}

/// Whose the question asks about: `my sister` → `sister`; `my flight` → `flight`;
/// `Yasmin's wedding` → `yasmin`; the speaker → `None`.
fn holder(question: &str, ws: &[String]) -> Option<String> {
    if let Some(k) = ws.iter().position(|w| w == "my" || w == "our") {
        let mut n = k + 1;
        while ws.get(n).is_some_and(|w| HOLDER_ADJECTIVES.contains(&w.as_str())) && n + 1 < ws.len() {
            n += 1;
        }
        if let Some(next) = ws.get(n).filter(|n| n.as_str() != "name") {
            return Some(next.clone());
        }
    }
    question.split_whitespace().skip(1).find_map(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’');
        let name = w.strip_suffix("'s").or_else(|| w.strip_suffix("’s"))?;
        name.chars().next().is_some_and(char::is_uppercase).then(|| name.to_lowercase())
    })
}

// ---------------------------------------------------------------------------------------
// Answers.

/// The speaker's name, from the lines that give it.
fn name(lines: &[Line<'_>]) -> Option<Answer> {
    let found: Vec<(&Line<'_>, String)> = lines.iter().filter_map(|l| name_in(l).map(|n| (l, n))).collect();
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
    for k in 0..lower.len() {
        let (w, next) = (lower[k].as_str(), lower.get(k + 1).map_or("", String::as_str));
        let prev = k.checked_sub(1).map_or("", |p| lower[p].as_str());
        let (start, stated) = match w {
            "name's" => (k + 1, true),
            "name" if next == "is" => (k + 2, true),
            "me" if matches!(prev, "call" | "calls" | "called") => (k + 1, true),
            "i'm" | "im" if line.whose == Whose::Speaker => (k + 1, false),
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
    let starts_i =
        ws.iter().find(|w| !OPENERS.contains(&w.as_str())).is_some_and(|w| matches!(w.as_str(), "i" | "i'm" | "im"));
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
    ]) {
        return false;
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
    let chosen: Vec<&Line<'_>> = lines
        .iter()
        .filter(|l| {
            l.whose != Whose::World
                || words(l.text).iter().any(|w| matches!(w.as_str(), "i" | "my" | "we" | "our" | "me" | "us" | "i'm"))
        })
        .take(MAX_CITED)
        .collect();
    if chosen.is_empty() {
        return None;
    }
    let quotes: Vec<String> = chosen.iter().map(|l| l.quoted()).collect();
    let text = format!("From memory: {} (offline rules: the lines about you and yours)", quotes.join("; "));
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
        Some(h) if !Need::new(h).met(line) => return None,
        // A question about the speaker is not answered by what another person does, unless
        // it asks about their people (`Do I have any siblings?`).
        None if q.speaker && q.names.is_empty() => {
            let people = q.needs.iter().chain(&q.heads).any(Need::people);
            if !people && matches!(line.whose, Whose::Person(_) | Whose::World) {
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
        + q.holder.as_ref().map_or(0, |h| usize::from(Need::new(h).exact(line)));
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
        Want::Name => {
            crate::text::textmath::proper_nouns(text).len()
                + usize::from(text.contains(" called ") || text.contains(" named "))
                > 0
        }
    }
}

#[rustfmt::skip]
const NUMBERS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "twenty",
    "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "twins", "triplets",
];
