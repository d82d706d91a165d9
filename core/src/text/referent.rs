//! Noun phrases and what they refer to, for the Supersede rule: the words of a statement
//! and the phrases it names things by, each with its determiner — the speaker (`I`, `we`, `my
//! wife and I`), a definite (`the gym I go to`) or possessive description (`my brother's
//! dog`), a name (`Aoife`, `Hollis & Dean`, `Oscar, our rabbit`), an indefinite that
//! introduces a new one (`a book called Dune`, `another flat`), a count (`two cats`, `both
//! my sisters`) or a pronoun. Whether two facts speak of the same thing is read from
//! these, never from a shared word: `a colleague named Femke` and `a colleague named
//! Joost` are two colleagues; `my older dog` and `my younger dog` two dogs.
//!
//! ```
//! use nocturne_core::text::referent::{noun_phrase, words, Det};
//! let w = words("My brother's dog Toffee");
//! let (p, _) = noun_phrase(&w, 0).unwrap();
//! assert_eq!((p.det, p.head.as_str(), p.name.clone()), (Det::Possessive, "dog", vec!["toffee".to_string()]));
//! let w = words("a book called Dune");
//! assert_eq!(noun_phrase(&w, 0).unwrap().0.det, Det::Indefinite);
//! ```

mod contraction;

use super::textmath::{is_stopword, stem_token};
use super::verbs::{self, Form};

/// A word or mark of a statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    /// As written.
    pub text: String,
    /// Lowercase, `’` as `'`.
    pub lower: String,
    /// Written with a capital (a name, unless it opens the sentence).
    pub cap: bool,
    /// A punctuation mark (`,`, `;`, `&`, `£` …), not a word.
    pub mark: bool,
}

impl Word {
    fn new(text: &str, mark: bool) -> Word {
        let lower = text.to_lowercase().replace('’', "'");
        Word { text: text.to_string(), lower, cap: text.chars().next().is_some_and(char::is_uppercase), mark }
    }

    /// A number (`42`, `1,100`, `42k`, `1.20`) or a number word (`forty`).
    pub fn number(&self) -> bool {
        self.lower.starts_with(|c: char| c.is_ascii_digit()) || NUMBER_WORDS.contains(&self.lower.as_str())
    }

    /// The stemmed token of the word (`brother's` → `brother`, `cats` → `cat`).
    pub fn token(&self) -> String {
        stem_token(&self.lower.replace('\'', ""))
    }

    /// The possessor a word names when it ends in `'s` or `s'` (`brother's`, `kids'`).
    pub fn possessive(&self) -> Option<&str> {
        let w = self.lower.as_str();
        w.strip_suffix("'s").or_else(|| w.strip_suffix("s'").filter(|s| !s.is_empty())).filter(|s| !s.is_empty())
    }

    pub fn is(&self, list: &[&str]) -> bool {
        !self.mark && list.contains(&self.lower.as_str())
    }
}

/// Pronouns whose contracted verb is read as a word of its own (`I'm` → `I` `'m`).
const CONTRACTING: &[&str] =
    &["i", "you", "he", "she", "we", "they", "it", "that", "there", "who", "what", "here", "this"];

/// The words and marks of `text`, a pronoun's contraction cut off (`it's` → `it` `'s`),
/// a possessive kept on its noun (`brother's`), a number kept whole (`1,100`, `1.20`).
pub fn words(text: &str) -> Vec<Word> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        if c.is_alphanumeric() {
            let mut j = k + 1;
            while j < chars.len() {
                let d = chars[j];
                let next_alnum = chars.get(j + 1).is_some_and(|x| x.is_alphanumeric());
                let inner = (matches!(d, '\'' | '’' | '-') && next_alnum)
                    || (matches!(d, ',' | '.' | ':')
                        && c.is_ascii_digit()
                        && chars.get(j + 1).is_some_and(char::is_ascii_digit));
                if d.is_alphanumeric() || inner {
                    j += 1;
                } else {
                    break;
                }
            }
            // `kids'`: a plural's possessive.
            if j < chars.len() && matches!(chars[j], '\'' | '’') && chars[j - 1] == 's' {
                j += 1;
            }
            push_word(&mut out, &chars[k..j].iter().collect::<String>());
            k = j;
        } else {
            if !c.is_whitespace() && !matches!(c, '"' | '“' | '”' | '(' | ')') {
                out.push(Word::new(&c.to_string(), true));
            }
            k += 1;
        }
    }
    contraction::contract_is(out)
}

fn push_word(out: &mut Vec<Word>, text: &str) {
    let lower = text.to_lowercase().replace('’', "'");
    if let Some((head, tail)) = lower.split_once('\'') {
        if CONTRACTING.contains(&head) && matches!(tail, "m" | "re" | "ve" | "ll" | "d" | "s") {
            let cut = text.char_indices().find(|(_, c)| matches!(c, '\'' | '’')).map_or(0, |x| x.0);
            out.push(Word::new(&text[..cut], false));
            out.push(Word::new(&format!("'{tail}"), false));
            return;
        }
    }
    if matches!(lower.as_str(), "im" | "ive") {
        out.push(Word::new(&text[..1], false));
        out.push(Word::new(&format!("'{}", &lower[1..]), false));
        return;
    }
    out.push(Word::new(text, false));
}

/// How a phrase refers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Det {
    /// `I`, `we`, `my wife and I`.
    Speaker,
    /// `the gym I go to`, `this flat`.
    Definite,
    /// `my cat`, `our street`, `my brother's wife`, `Ade's favourite dinosaur`.
    Possessive,
    /// `Aoife`, `Hollis & Dean`, `Oscar, our rabbit`.
    Name,
    /// `a book`, `another flat`, `some friends`: a new one of a kind.
    Indefinite,
    /// `two cats`, `both my sisters`, `all my friends`: several.
    Count,
    /// `he`, `she`, `they`, `it`, `that`, `you`: who it is, the words do not say.
    Pronoun,
    /// A noun with no determiner (`rooibos`, `tickets`).
    Bare,
}

/// A noun phrase: what a statement calls something.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phrase {
    pub det: Det,
    /// Lowercase words of whose it is: `["my"]`, `["my", "brother"]`, `["ade"]`.
    pub possessor: Vec<String>,
    /// Stemmed words before the head (`older`, `favourite`, `phone`).
    pub modifiers: Vec<String>,
    /// The head noun, stemmed (`dog`); empty for a bare name.
    pub head: String,
    /// A name it carries, lowercase (`kiwi` of `a parrot called Kiwi`; `oscar`).
    pub name: Vec<String>,
    /// Content tokens of what restricts it after the head: `go` of `the gym I go to`,
    /// `building` of `the landlord of our building`.
    pub restrictor: Vec<String>,
    pub plural: bool,
    /// A coordination's members (`Jorge and Inmaculada`, `Sanna and I`).
    pub members: Vec<Phrase>,
    /// The phrase as written.
    pub text: String,
}

impl Phrase {
    fn new(det: Det) -> Phrase {
        Phrase {
            det,
            possessor: Vec::new(),
            modifiers: Vec::new(),
            head: String::new(),
            name: Vec::new(),
            restrictor: Vec::new(),
            plural: false,
            members: Vec::new(),
            text: String::new(),
        }
    }

    /// Whether the phrase introduces a new one of a kind (`a colleague named Femke`).
    pub fn is_new(&self) -> bool {
        self.det == Det::Indefinite
    }

    /// Whether the phrase picks out one known thing: the speaker, a description, a name.
    pub fn is_known(&self) -> bool {
        matches!(self.det, Det::Speaker | Det::Definite | Det::Possessive | Det::Name)
    }

    /// Every word that says which one it is, besides its head: modifiers, name, restrictor.
    pub fn marks(&self) -> Vec<&String> {
        self.modifiers.iter().chain(&self.name).chain(&self.restrictor).collect()
    }

    /// Whether `self` and `other` pick out the same thing: both the speaker; or the same
    /// name; or one description (same possessor, head, words before it and restriction).
    pub fn same(&self, other: &Phrase) -> bool {
        if !self.is_known() || !other.is_known() {
            return false;
        }
        match (self.det, other.det) {
            (Det::Speaker, Det::Speaker) => true,
            (Det::Speaker, _) | (_, Det::Speaker) => false,
            _ if !self.name.is_empty() && !other.name.is_empty() => self.name == other.name,
            (Det::Name, _) | (_, Det::Name) => false,
            _ => {
                self.head == other.head
                    && self.plural == other.plural
                    && possessor(&self.possessor) == possessor(&other.possessor)
                    && unrenewed(&self.modifiers) == unrenewed(&other.modifiers)
                    && self.restrictor == other.restrictor
            }
        }
    }

    /// Whether `self` (one) is a member of `group` (several): `my older sister` of `both
    /// my sisters`, `Inmaculada` of `Jorge and Inmaculada`, `my eldest` of `my two daughters`.
    pub fn member_of(&self, group: &Phrase) -> bool {
        if self.plural || (!group.plural && group.members.is_empty()) {
            return false;
        }
        if group.members.iter().any(|m| m.det == Det::Name && self.same(m)) {
            return true;
        }
        let ranked = ["eldest", "youngest", "oldest", "older", "younger", "middle", "little", "big"];
        let head_fits = self.head == group.head || (self.head.is_empty() || ranked.contains(&self.head.as_str()));
        group.members.is_empty()
            && self.is_known()
            && possessor(&self.possessor) == possessor(&group.possessor)
            && !group.possessor.is_empty()
            && head_fits
    }

    /// Whether `self`, said definitely (`the bike`, `my sister's Fiat`, `his girlfriend`,
    /// `Mango`), takes up `earlier`, a thing another statement named (`a hybrid bike`, `a
    /// little red Fiat`, `a girlfriend called Inés`, `two cats, Pickle and Mango`).
    pub fn takes_up(&self, earlier: &Phrase) -> bool {
        if self.is_new() || matches!(self.det, Det::Speaker) {
            return false;
        }
        if !self.name.is_empty() && (earlier.name == self.name || earlier.members.iter().any(|m| m.name == self.name)) {
            return true;
        }
        if self.det == Det::Name {
            return self.name.iter().any(|n| earlier.modifiers.contains(n) || earlier.head == *n);
        }
        let heads = |p: &Phrase| std::iter::once(p.head.clone()).chain(p.name.iter().cloned()).collect::<Vec<_>>();
        !self.head.is_empty()
            && (heads(earlier).contains(&self.head) || earlier.members.iter().any(|m| heads(m).contains(&self.head)))
            && self
                .marks()
                .iter()
                .all(|m| earlier.marks().contains(m) || earlier.name.contains(m) || **m == earlier.head)
    }

    /// The phrase in a reason: `my older dog`, `a book`.
    pub fn describe(&self) -> String {
        if self.det == Det::Speaker {
            return "the speaker".into();
        }
        self.text.clone()
    }
}

/// A description's words without `new`: `my new phone` takes the place of `my phone`.
fn unrenewed(modifiers: &[String]) -> Vec<&String> {
    modifiers.iter().filter(|m| *m != "new").collect()
}

/// `my` and `our` are one possessor (the speaker's household), and `his`/`her`/`their`
/// stand for someone the words do not name.
fn possessor(p: &[String]) -> Vec<String> {
    p.iter().map(|w| if matches!(w.as_str(), "our" | "my") { "my".to_string() } else { w.clone() }).collect()
}

/// Word classes, lowercase.
pub const DEFINITE: &[&str] = &["the", "this", "that", "these", "those"];
pub const POSSESSIVE: &[&str] = &["my", "our", "your", "his", "her", "their", "its"];
pub const INDEFINITE: &[&str] = &["a", "an", "another", "some", "any", "several", "other"];
#[rustfmt::skip]
pub const NUMBER_WORDS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
    "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty",
    "sixty", "seventy", "eighty", "ninety", "hundred", "thousand", "million", "dozen", "half",
];
const GROUP: &[&str] = &["both", "all", "many", "most", "few", "lots"];
pub const PERSONAL: &[&str] =
    &["he", "she", "they", "it", "you", "that", "this", "him", "her", "them", "these", "those"];
#[rustfmt::skip]
pub const PREPOSITIONS: &[&str] = &[
    "in", "on", "at", "to", "for", "with", "from", "by", "about", "into", "onto", "over", "under", "after", "before",
    "until", "till", "between", "during", "through", "across", "near", "around", "without", "like", "than", "as",
    "per", "via", "off", "against", "towards", "toward", "among", "behind", "beside", "upon", "of", "except",
    "round", "outside", "inside", "above", "below", "within", "opposite", "since",
];
/// Words that open a clause inside a phrase (`a friend who's a pilot`).
pub const RELATIVES: &[&str] = &["who", "which", "that", "whose", "where", "whom"];
/// Words that end a phrase: coordinators and subordinators.
#[rustfmt::skip]
pub const JOINERS: &[&str] = &[
    "and", "but", "or", "so", "yet", "because", "when", "while", "if", "although", "though", "whereas", "once",
    "unless", "whenever", "cos", "coz",
];
/// Titles that open a name (`Dr Varga`, `Aunt Rukhsana`).
const TITLES: &[&str] =
    &["dr", "mr", "mrs", "ms", "miss", "prof", "aunt", "auntie", "uncle", "grandma", "grandpa", "st"];

/// Auxiliaries, lowercase (a verb group's first words).
#[rustfmt::skip]
pub const AUXILIARIES: &[&str] = &[
    "am", "is", "are", "was", "were", "be", "been", "being", "'m", "'re", "'s", "have", "has", "had", "'ve", "do",
    "does", "did", "will", "'ll", "would", "'d", "shall", "should", "can", "could", "may", "might", "must",
    "don't", "doesn't", "didn't", "can't", "cannot", "won't", "wouldn't", "couldn't", "shouldn't", "isn't",
    "aren't", "wasn't", "weren't", "haven't", "hasn't", "hadn't", "dont", "doesnt", "didnt", "cant", "wont",
    "isnt", "arent", "wasnt", "werent", "havent", "hasnt", "hadnt", "ain't",
];

/// Whether the word at `k` is a verb a phrase ends before: an auxiliary, or a finite form
/// that agrees with a phrase of `plural` number (a base form after one thing is a noun:
/// `my phone contract costs`).
pub fn verb_here(w: &[Word], k: usize, plural: bool) -> bool {
    let Some(t) = w.get(k).filter(|t| !t.mark) else { return false };
    if t.is(AUXILIARIES) {
        return true;
    }
    let Some(f) = verbs::forms(&t.lower) else { return false };
    f.is(Form::Past) || (f.is(Form::Third) && !plural) || (f.is(Form::Base) && plural)
}

/// Whether a word can be a name: written with a capital (or a title), and no word of the
/// grammar's own.
fn name_word(t: &Word, first: bool) -> bool {
    if t.mark || t.lower == "i" {
        return false;
    }
    let closed = [DEFINITE, POSSESSIVE, INDEFINITE, PERSONAL, PREPOSITIONS, JOINERS, AUXILIARIES, RELATIVES];
    if closed.iter().any(|l| t.is(l)) {
        return false;
    }
    if t.is(TITLES) {
        return true;
    }
    t.cap && !(first && verbs::forms(&t.lower).is_some())
}

/// Whether a word is plural by its form (`cats`, `children`; not `bus`, `glass`).
pub fn plural(lower: &str) -> bool {
    let irregular = ["children", "people", "kids", "twins", "parents", "men", "women", "grandparents", "in-laws"];
    irregular.contains(&lower)
        || (lower.ends_with('s')
            && lower.len() > 3
            && !["ss", "us", "is", "'s", "ous"].iter().any(|x| lower.ends_with(x)))
}

/// The noun phrase starting at word `k`, and where it ends. `None` when no phrase starts
/// there (a verb, a preposition, a mark).
pub fn noun_phrase(w: &[Word], k: usize) -> Option<(Phrase, usize)> {
    let t = w.get(k)?;
    if t.mark {
        return None;
    }
    // `her` before a noun is a possessive (`her exams`), else a pronoun (`I called her`).
    let her_owns = t.lower == "her" && w.get(k + 1).is_some_and(|n| !n.mark && !ends_phrase(n));
    let (mut p, mut at) = if t.is(&["i", "we", "me", "us"]) {
        (Phrase { text: t.text.clone(), ..Phrase::new(Det::Speaker) }, k + 1)
    } else if t.is(PERSONAL) && !her_owns {
        (
            Phrase {
                text: t.text.clone(),
                plural: t.is(&["they", "them", "these", "those"]),
                ..Phrase::new(Det::Pronoun)
            },
            k + 1,
        )
    } else {
        described(w, k)?
    };
    // A coordination: `Jorge and Inmaculada`, `my wife and I`, `Sanna and I`.
    if w.get(at).is_some_and(|t| t.is(&["and", "&"]) || t.lower == "&") {
        if let Some((q, end)) = noun_phrase(w, at + 1).filter(|(q, _)| coordinable(&p, q)) {
            let text = format!("{} and {}", p.text, q.text);
            let speaker = p.det == Det::Speaker || q.det == Det::Speaker;
            let det = if speaker { Det::Speaker } else { p.det };
            let mut group = Phrase { det, text, plural: true, ..Phrase::new(det) };
            group.members = vec![p, q];
            p = group;
            at = end;
        }
    }
    Some((p, at))
}

/// Two phrases a coordination joins into one subject: names, the speaker, descriptions.
fn coordinable(p: &Phrase, q: &Phrase) -> bool {
    let kinds = [Det::Speaker, Det::Name, Det::Possessive, Det::Definite];
    kinds.contains(&p.det) && kinds.contains(&q.det)
}

/// A phrase with a determiner, a possessor or a name, starting at `k`.
fn described(w: &[Word], k: usize) -> Option<(Phrase, usize)> {
    let t = &w[k];
    let mut at = k;
    let mut p = Phrase::new(Det::Bare);
    if t.lower == "her" {
        p.det = Det::Possessive;
        p.possessor.push(t.lower.clone());
        at += 1;
    } else if t.is(DEFINITE) {
        p.det = Det::Definite;
        at += 1;
    } else if t.is(POSSESSIVE) {
        p.det = Det::Possessive;
        p.possessor.push(t.lower.clone());
        at += 1;
    } else if t.is(INDEFINITE) || (t.lower == "one" && w.get(k + 1).is_none_or(|n| n.lower != "of")) {
        p.det = Det::Indefinite;
        at += 1;
    } else if t.is(GROUP) || t.number() {
        p.det = Det::Count;
        p.plural = !t.is(&["one", "a"]);
        at += 1;
        // `both my sisters`, `one of our cars`, `all of my friends`.
        if w.get(at).is_some_and(|n| n.lower == "of") {
            at += 1;
        }
        if let Some(n) = w.get(at).filter(|n| n.is(POSSESSIVE) || n.is(DEFINITE)) {
            p.possessor.extend(n.is(POSSESSIVE).then(|| n.lower.clone()));
            at += 1;
        }
    } else if name_word(t, k == 0)
        || (k == 0 && !t.cap && !ends_phrase(t) && verbs::forms(&t.lower).is_none() && !t.number())
    {
        return named(w, k);
    }
    // `a second starter`, `a new tattoo`: an ordinal or `new` keeps the phrase new.
    let start = at;
    head_words(w, &mut at, &mut p);
    if at == start && p.det != Det::Count {
        return None;
    }
    after_head(w, &mut at, &mut p);
    p.text = text_of(&w[k..at]);
    Some((p, at))
}

/// The words from `at` to the head: a possessor chain (`brother's`), modifiers, the head;
/// the phrase ends before a verb that agrees with it, a preposition, a mark or a joiner.
fn head_words(w: &[Word], at: &mut usize, p: &mut Phrase) {
    let mut taken: Vec<String> = Vec::new();
    while let Some(t) = w.get(*at) {
        // A name after a described head is its own (`my son Leo`) or a clause's subject (`the
        // school Farid goes to`): the head ends before it.
        let name_after = !taken.is_empty()
            && matches!(p.det, Det::Possessive | Det::Definite)
            && t.cap
            && name_word(t, false)
            && w.get(*at + 1).is_none_or(|n| n.mark || n.is(PREPOSITIONS) || verb_here(w, *at + 1, false));
        let stop = ends_phrase(t)
            || (!taken.is_empty() && t.is(AFTER_HEAD))
            || name_after
            || (!taken.is_empty() && verb_here(w, *at, plural(&taken[taken.len() - 1])));
        if stop {
            break;
        }
        if let Some(owner) = t.possessive() {
            // `my brother's` → the possessor is `my brother`; `Ade's` → `ade`.
            p.possessor.append(&mut taken);
            p.possessor.push(owner.to_string());
            if p.det != Det::Count {
                p.det = Det::Possessive;
            }
            *at += 1;
            continue;
        }
        taken.push(t.lower.clone());
        *at += 1;
        if taken.len() >= 6 {
            break;
        }
    }
    if let Some(head) = taken.pop() {
        p.plural = p.plural || plural(&head);
        p.head = stem_token(&head.replace('\'', ""));
    }
    p.modifiers = taken.iter().map(|m| stem_token(&m.replace('\'', ""))).collect();
}

/// Words no noun phrase runs on past: marks, prepositions, joiners, determiners, pronouns,
/// auxiliaries, and words that tell when or how much (`last`, `now`, `too`, `just`).
fn ends_phrase(t: &Word) -> bool {
    t.mark
        || [PREPOSITIONS, JOINERS, RELATIVES, AUXILIARIES, DEFINITE, POSSESSIVE, INDEFINITE].iter().any(|l| t.is(l))
        || t.is(&["i", "we", "you", "he", "she", "they", "it", "me", "him", "us", "them", "called", "named", "both"])
        || t.is(&["now", "too", "anymore", "again", "instead", "already", "still", "also", "just", "lol", "ago"])
}

/// Words that end a phrase after its head because they tell when, how much or how (`a boat
/// last summer`, `dry food only`); before a head they modify it (`my only grandchild`).
#[rustfmt::skip]
const AFTER_HEAD: &[&str] = &[
    "last", "next", "yesterday", "today", "tonight", "tomorrow", "ago", "now", "every", "most", "only", "too",
    "anymore", "again", "instead", "already", "still", "also", "just", "lol", "though", "yet", "either", "so",
    "very", "really", "way", "all", "nowadays", "lately", "recently", "currently", "even", "ever", "never", "not",
    "no", "btw", "tbh", "then", "there", "here", "well", "first",
];

/// What follows a head: a name (`called Kiwi`, `named Femke`, `Toffee` after `my brother's
/// dog`), an appositive list of names (`two cats, Pickle and Mango`).
fn after_head(w: &[Word], at: &mut usize, p: &mut Phrase) {
    let called = w.get(*at).is_some_and(|t| t.is(&["called", "named"]));
    if called {
        let mut end = *at + 1;
        while w.get(end).is_some_and(|t| !t.mark && !t.is(JOINERS) && !t.is(PREPOSITIONS) && !t.is(AUXILIARIES)) {
            if end > *at + 1 && !w[end].cap {
                break;
            }
            end += 1;
        }
        p.name = w[*at + 1..end].iter().map(|t| t.lower.clone()).collect();
        *at = end;
        return;
    }
    // `my son Leo`, `Our lodger Piotr`: a capitalised name right after the head.
    if p.det != Det::Definite && w.get(*at).is_some_and(|t| name_word(t, false) && t.cap) {
        let mut end = *at;
        while w.get(end).is_some_and(|t| name_word(t, false) && t.cap) {
            end += 1;
        }
        p.name = w[*at..end].iter().map(|t| t.lower.clone()).collect();
        *at = end;
        return;
    }
    // `two cats, Pickle and Mango`.
    if p.plural && w.get(*at).is_some_and(|t| t.lower == ",") && w.get(*at + 1).is_some_and(|t| name_word(t, false)) {
        if let Some((names, end)) = noun_phrase(w, *at + 1).filter(|(q, _)| q.det == Det::Name) {
            p.members = if names.members.is_empty() { vec![names] } else { names.members };
            *at = end;
        }
    }
}

/// A name starting at `k` (`Aoife`, `Hollis & Dean`, `Dr Varga`, `Ji-woo`), with an
/// appositive description (`Oscar, our rabbit,`) or a possessive (`Sunita's rescue dog`).
fn named(w: &[Word], k: usize) -> Option<(Phrase, usize)> {
    let mut at = k;
    let mut name = Vec::new();
    while let Some(t) = w.get(at) {
        let joins = t.lower == "&" && !name.is_empty() && w.get(at + 1).is_some_and(|n| n.cap);
        let titled = at > k && w[at - 1].is(TITLES) && !t.mark && !ends_phrase(t);
        if !(joins || titled || (at == k) || (name_word(t, false) && t.cap && t.possessive().is_none())) {
            // `Ade's favourite dinosaur`: a possessive name owns what follows.
            break;
        }
        if let Some(owner) = t.possessive() {
            name.push(owner.to_string());
            let mut p = Phrase { det: Det::Possessive, possessor: name, ..Phrase::new(Det::Possessive) };
            let mut end = at + 1;
            head_words(w, &mut end, &mut p);
            after_head(w, &mut end, &mut p);
            p.text = text_of(&w[k..end]);
            return Some((p, end));
        }
        if t.lower != "&" {
            name.push(t.lower.clone());
        }
        at += 1;
    }
    let mut p = Phrase { det: Det::Name, name, ..Phrase::new(Det::Name) };
    // `Oscar, our rabbit,`: what the name is, between commas.
    if w.get(at).is_some_and(|t| t.lower == ",") {
        if let Some((what, end)) = noun_phrase(w, at + 1).filter(|(q, _)| q.det == Det::Possessive) {
            if w.get(end).is_some_and(|t| t.lower == ",") {
                p.head = what.head;
                p.possessor = what.possessor;
                at = end + 1;
            }
        }
    }
    p.text = text_of(&w[k..at]).trim_end_matches(',').trim().to_string();
    Some((p, at))
}

/// Words as one string, marks attached to the word before.
pub fn text_of(w: &[Word]) -> String {
    let mut out = String::new();
    for t in w {
        let attach = out.is_empty() || (t.mark && t.lower != "&" && t.lower != "£") || t.lower.starts_with('\'');
        if !attach {
            out.push(' ');
        }
        out.push_str(&t.text);
    }
    out
}

/// The content tokens of `w` (stemmed, no stopwords, no marks).
pub fn content(w: &[Word]) -> Vec<String> {
    w.iter().filter(|t| !t.mark).map(Word::token).filter(|t| !t.is_empty() && !is_stopword(t)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn np(text: &str) -> Phrase {
        noun_phrase(&words(text), 0).unwrap().0
    }

    #[test]
    fn phrases_read_their_determiner_head_and_name() {
        let p = np("My older dog is a collie.");
        assert_eq!((p.det, p.head.as_str(), p.modifiers.clone()), (Det::Possessive, "dog", vec!["older".to_string()]));
        let p = np("a parrot called Kiwi");
        assert_eq!((p.det, p.head.as_str(), p.name.clone()), (Det::Indefinite, "parrot", vec!["kiwi".to_string()]));
        let p = np("Oscar, our rabbit, lives in a hutch.");
        assert_eq!((p.det, p.head.as_str(), p.name.clone()), (Det::Name, "rabbit", vec!["oscar".to_string()]));
        let p = np("Hollis & Dean is on the high street.");
        assert_eq!((p.det, p.name.clone()), (Det::Name, vec!["hollis".to_string(), "dean".to_string()]));
        let p = np("Our council tax is £160 a month.");
        assert_eq!((p.head.as_str(), p.modifiers.clone()), ("tax", vec!["council".to_string()]));
        let p = np("My phone contract costs £25.");
        assert_eq!(p.head, "contract");
        let p = np("Both my sisters live in Madrid.");
        assert_eq!((p.det, p.head.as_str(), p.plural), (Det::Count, "sister", true));
        let p = np("Sanna and I adopted a dog.");
        assert_eq!((p.det, p.members.len()), (Det::Speaker, 2));
        let p = np("I have two cats, Pickle and Mango.");
        assert_eq!(p.det, Det::Speaker);
        let w = words("I have two cats, Pickle and Mango.");
        let (cats, _) = noun_phrase(&w, 2).unwrap();
        assert_eq!(cats.members.len(), 2);
    }

    #[test]
    fn the_same_thing_is_the_same_description_name_or_the_speaker() {
        assert!(np("My line manager").same(&np("my line manager")));
        assert!(!np("My older dog").same(&np("My younger dog")));
        assert!(!np("My mobile number").same(&np("My work number")));
        assert!(!np("a colleague named Femke").same(&np("a colleague named Joost")));
        assert!(np("Our cat").same(&np("My cat")));
        assert!(np("My younger brother").member_of(&np("My brothers")));
        assert!(np("the Canon").takes_up(&np("a Canon")));
        assert!(np("The bike").takes_up(&np("a hybrid bike")));
        assert!(np("his girlfriend").takes_up(&np("a girlfriend called Inés")));
        assert!(!np("the cat").takes_up(&np("a dog")));
    }
}
