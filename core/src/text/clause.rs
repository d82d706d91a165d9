//! The grammar the splitter and the state reader share: a sentence's words (`Tok`) and
//! its clauses — a subject and its verb group (`Clause`), read with the verb table
//! (`verbs`). Nothing here cuts or judges; [`super::split`] cuts at coordinators and
//! [`super::state`] reads what a first clause says.

use super::verbs::{self, Form, Forms};

// ---------------------------------------------------------------------------------------
// Words.

/// A word (or a mark) of the sentence, where it is, and its lowercase form with `’` as `'`.
#[derive(Clone, Debug)]
pub(super) struct Tok<'a> {
    pub(super) text: &'a str,
    pub(super) at: usize,
    pub(super) lower: String,
    pub(super) word: bool,
}

/// Pronoun contractions read as a subject and an auxiliary (`I'm` → `I` `'m`).
const PRONOUNS: &[&str] = &["i", "you", "he", "she", "we", "they", "it", "that", "there", "who"];

pub(super) fn tokens(s: &str) -> Vec<Tok<'_>> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let mut k = 0;
    while k < chars.len() {
        let (i, c) = chars[k];
        if c.is_alphanumeric() {
            let mut j = k + 1;
            while j < chars.len() {
                let (_, d) = chars[j];
                let inner = matches!(d, '\'' | '’' | '-') && chars.get(j + 1).is_some_and(|x| x.1.is_alphanumeric());
                if d.is_alphanumeric() || inner {
                    j += 1;
                } else {
                    break;
                }
            }
            let end = chars.get(j).map_or(s.len(), |x| x.0);
            push_word(&mut out, &s[i..end], i);
            k = j;
        } else {
            if !c.is_whitespace() {
                out.push(Tok { text: &s[i..i + c.len_utf8()], at: i, lower: c.to_string(), word: false });
            }
            k += 1;
        }
    }
    out
}

/// A word, or a pronoun and its contracted auxiliary as two.
fn push_word<'a>(out: &mut Vec<Tok<'a>>, text: &'a str, at: usize) {
    let lower = text.to_lowercase().replace('’', "'");
    if let Some((head, tail)) = lower.split_once('\'') {
        if PRONOUNS.contains(&head) && matches!(tail, "m" | "re" | "ve" | "ll" | "d" | "s") {
            let cut = text.char_indices().find(|(_, c)| matches!(c, '\'' | '’')).map_or(0, |x| x.0);
            out.push(Tok { text: &text[..cut], at, lower: head.to_string(), word: true });
            out.push(Tok { text: &text[cut..], at: at + cut, lower: format!("'{tail}"), word: true });
            return;
        }
    }
    // Chat spellings: `im`, `ive` are `I` and its auxiliary.
    if let Some(tail) = ["im", "ive"].contains(&lower.as_str()).then(|| &lower[1..]) {
        out.push(Tok { text: &text[..1], at, lower: "i".into(), word: true });
        out.push(Tok { text: &text[1..], at: at + 1, lower: format!("'{tail}"), word: true });
        return;
    }
    out.push(Tok { text, at, lower, word: true });
}

/// Word classes, lowercase.
const BE: &[&str] = &["am", "is", "are", "was", "were", "be", "been", "being", "'m", "'re", "'s"];
pub(super) const HAVE: &[&str] = &["have", "has", "had", "'ve"];
pub(super) const DO: &[&str] = &["do", "does", "did"];
#[rustfmt::skip]
const MODALS: &[&str] = &[
    "will", "'ll", "would", "'d", "shall", "should", "can", "could", "may", "might", "must", "ought",
];
/// Negated auxiliaries, apostrophe or not (`don't`, `dont`).
#[rustfmt::skip]
const NEGATED: &[&str] = &[
    "don't", "doesn't", "didn't", "can't", "cannot", "won't", "wouldn't", "couldn't", "shouldn't", "mustn't",
    "isn't", "aren't", "wasn't", "weren't", "haven't", "hasn't", "hadn't", "ain't", "needn't", "dont", "doesnt",
    "didnt", "cant", "wont", "wouldnt", "couldnt", "shouldnt", "isnt", "arent", "wasnt", "werent", "havent",
    "hasnt", "hadnt",
];
#[rustfmt::skip]
pub(super) const DETERMINERS: &[&str] = &[
    "the", "a", "an", "this", "that", "these", "those", "my", "our", "your", "his", "her", "their", "its", "both",
    "all", "every", "each", "some", "most", "another", "one", "two", "three", "four", "many", "several", "whose",
];
pub(super) const SUBJECT_PRONOUNS: &[&str] = &[
    "i",
    "you",
    "he",
    "she",
    "we",
    "they",
    "it",
    "someone",
    "everyone",
    "everybody",
    "nobody",
    "somebody",
    "nothing",
    "everything",
];
/// Words between a subject and its verb, or opening a conjunct, that belong to neither.
#[rustfmt::skip]
const ADVERBS: &[&str] = &[
    "now", "then", "also", "still", "later", "often", "always", "usually", "sometimes", "rarely", "mostly",
    "recently", "just", "already", "even", "only", "finally", "eventually", "currently", "really", "actually",
    "soon", "occasionally", "regularly", "generally", "barely", "hardly", "seldom", "once", "mainly", "definitely",
    "probably", "honestly", "basically", "literally", "totally", "kinda", "btw", "tbh", "lol", "ever", "nowadays",
    "frequently", "constantly", "both", "all", "sort", "kind", "of", "pretty", "so", "almost", "nearly", "too",
    "personally", "otherwise", "meanwhile", "plus", "obviously", "apparently", "luckily", "sadly", "happily",
    "unfortunately", "fortunately", "anyway", "typically", "normally", "since", "longer", "else", "either",
];
pub(super) const NEGATIONS: &[&str] = &["not", "never", "no"];
#[rustfmt::skip]
pub(super) const PREPOSITIONS: &[&str] = &[
    "in", "on", "at", "to", "for", "with", "from", "by", "about", "into", "onto", "over", "under", "after", "before",
    "until", "till", "between", "during", "through", "across", "near", "around", "without", "like", "than", "as",
    "per", "via", "off", "up", "out", "down", "against", "towards", "toward", "among", "behind", "beside", "upon",
    "of", "except",
];
/// Words that open a subordinate clause: what follows them is never a statement of its own.
#[rustfmt::skip]
const SUBORDINATORS: &[&str] = &[
    "when", "if", "because", "since", "after", "before", "although", "though", "while", "as", "once", "until",
    "unless", "whenever", "whereas", "where", "who", "which", "whom", "whose", "that", "so", "till",
];

pub(super) fn is(list: &[&str], w: &str) -> bool {
    list.contains(&w)
}

pub(super) fn auxiliary(t: &Tok<'_>) -> bool {
    t.word && [BE, HAVE, DO, MODALS, NEGATED].iter().any(|l| is(l, &t.lower))
}

pub(super) fn adverb(t: &Tok<'_>) -> bool {
    t.word
        && (is(ADVERBS, &t.lower) || (t.lower.len() > 4 && t.lower.ends_with("ly") && verbs::forms(&t.lower).is_none()))
}

pub(super) fn verb(t: &Tok<'_>) -> Option<Forms> {
    if !t.word || auxiliary(t) {
        return None;
    }
    verbs::forms(&t.lower)
}

/// A finite verb form: one a subject can carry with no auxiliary before it.
pub(super) fn finite(f: &Forms) -> bool {
    f.is(Form::Base) || f.is(Form::Third) || f.is(Form::Past)
}

// ---------------------------------------------------------------------------------------
// Clauses.

/// How many speak: `I`; one person or thing; several (or `you`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Number {
    First,
    Singular,
    Plural,
}

/// A clause's subject and verb group, as token ranges.
#[derive(Clone, Debug)]
pub(super) struct Clause {
    /// The subject: tokens `subject.0..subject.1`.
    pub(super) subject: (usize, usize),
    pub(super) number: Number,
    /// Auxiliary and negation tokens of the verb group (restored ones included), in order.
    pub(super) aux: Vec<usize>,
    /// The main verb, if the group has one past its auxiliaries.
    pub(super) main: Option<usize>,
    /// A predicate cut from a list at a comma (`… , skip breakfast and work till midnight`):
    /// what joins it next is the list's next predicate, not a second noun.
    pub(super) listed: bool,
}

impl Clause {
    pub(super) fn has(&self, toks: &[Tok<'_>], list: &[&str]) -> bool {
        self.aux.iter().any(|a| is(list, &toks[*a].lower))
    }
    pub(super) fn has_have(&self, toks: &[Tok<'_>]) -> bool {
        self.aux.iter().any(|a| is(HAVE, &toks[*a].lower) || have_negated(&toks[*a].lower))
    }
    pub(super) fn has_be(&self, toks: &[Tok<'_>]) -> bool {
        self.aux.iter().any(|a| is(BE, &toks[*a].lower) || be_negated(&toks[*a].lower))
    }
    pub(super) fn modal(&self, toks: &[Tok<'_>]) -> bool {
        self.aux.iter().any(|a| {
            let w = toks[*a].lower.as_str();
            is(MODALS, w) || w == "used" || (is(NEGATED, w) && !do_negated(w) && !be_negated(w) && !have_negated(w))
        })
    }
    pub(super) fn did_or_do(&self, toks: &[Tok<'_>]) -> bool {
        self.aux.iter().any(|a| is(DO, &toks[*a].lower) || do_negated(&toks[*a].lower))
    }
    /// `be` with no verb after it: `is Irish`, `'m a vet`, `'ve been sober`.
    pub(super) fn copula(&self, toks: &[Tok<'_>]) -> bool {
        self.main.is_none() && self.aux.last().is_some_and(|a| is(BE, &toks[*a].lower) || be_negated(&toks[*a].lower))
    }
    pub(super) fn main_forms(&self, toks: &[Tok<'_>]) -> Option<Forms> {
        self.main.and_then(|m| verb_at(toks, m))
    }
    /// Where the verb group ends: past the main verb, or past the last auxiliary.
    pub(super) fn verb_end(&self) -> usize {
        self.main.or(self.aux.last().copied()).map_or(self.subject.1, |m| m + 1)
    }
}

fn be_negated(w: &str) -> bool {
    ["isn't", "aren't", "wasn't", "weren't", "isnt", "arent", "wasnt", "werent", "ain't"].contains(&w)
}

pub(super) fn have_negated(w: &str) -> bool {
    ["haven't", "hasn't", "hadn't", "havent", "hasnt", "hadnt"].contains(&w)
}

pub(super) fn do_negated(w: &str) -> bool {
    ["don't", "doesn't", "didn't", "dont", "doesnt", "didnt"].contains(&w)
}

/// The verb form at `k`: from the table, or, for a word the table lacks, guessed from its
/// place — right after `I`/`we`/`they`/`he`/`she` a verb (`I sublet my flat`), after
/// `be` an `-ing` word a gerund (`I'm house-sitting`).
pub(super) fn verb_at(toks: &[Tok<'_>], k: usize) -> Option<Forms> {
    let t = toks.get(k)?;
    if let Some(f) = verb(t) {
        return Some(f);
    }
    let closed = [ADVERBS, PREPOSITIONS, DETERMINERS, NEGATIONS, SUBORDINATORS, SUBJECT_PRONOUNS];
    if !t.word || auxiliary(t) || closed.iter().any(|l| is(l, &t.lower)) || !t.lower.chars().all(char::is_alphabetic) {
        return None;
    }
    let before = toks[..k].iter().rev().find(|b| !adverb(b))?;
    if before.word && is(BE, &before.lower) && t.lower.ends_with("ing") {
        return Some(Forms::guessed(Form::Gerund));
    }
    match before.lower.as_str() {
        "he" | "she" if t.lower.ends_with('s') => Some(Forms::guessed(Form::Third)),
        "i" | "we" | "they" | "you" if !t.lower.ends_with("ing") => Some(Forms::guessed(Form::Base)),
        _ => None,
    }
}

/// The verb group starting at `v`: auxiliaries, negations and adverbs, then the main verb.
pub(super) fn group(toks: &[Tok<'_>], v: usize, end: usize) -> (Vec<usize>, Option<usize>) {
    let mut aux = Vec::new();
    let mut k = v;
    while k < end {
        let t = &toks[k];
        if auxiliary(t) || (t.lower == "used" && toks.get(k + 1).is_some_and(|n| n.lower == "to")) {
            aux.push(k);
            if t.lower == "used" {
                aux.push(k + 1);
                k += 1;
            }
        } else if t.word && is(NEGATIONS, &t.lower) {
            aux.push(k);
        } else if !adverb(t) {
            break;
        }
        k += 1;
    }
    let main = (k < end).then_some(k).filter(|k| verb_at(toks, *k).is_some());
    (aux, main)
}

/// The subject ending just before token `v`, if one does: a pronoun (`I`, `my wife and
/// I`), or words up to a determiner or a name (`my older sister`, `the rest of my family`,
/// `everyone else in my family`, `Amina`). Never across a comma or a verb.
fn subject_before(toks: &[Tok<'_>], from: usize, v: usize) -> Option<(usize, usize)> {
    let mut k = v.checked_sub(1).filter(|k| *k >= from)?;
    while (adverb(&toks[k]) || is(NEGATIONS, &toks[k].lower)) && k > from && !is(SUBJECT_PRONOUNS, &toks[k].lower) {
        k -= 1;
    }
    let end = k + 1;
    let t = &toks[k];
    if !t.word {
        return None;
    }
    if is(PERSONAL, &t.lower) {
        // `my wife and I`, `Tom and I`.
        if k >= from + 2 && toks[k - 1].lower == "and" {
            if let Some((s, _)) = noun_phrase_back(toks, from, k - 1) {
                return Some((s, end));
            }
        }
        return Some((k, end));
    }
    let (start, _) = noun_phrase_back(toks, from, end)?;
    Some((paired_pronoun(toks, from, start).unwrap_or(start), end))
}

/// Pronouns that pair with a noun phrase into one subject in speech (`me and my team`).
const PAIRED: &[&str] = &["i", "me", "he", "him", "she", "her", "we", "us", "they", "them", "you"];

/// Where a subject starting at `start` really starts when a pronoun and `and` open it
/// (`…, and me and my team had a blast`): the pronoun, if it opens a conjunct itself (after
/// a coordinator, a comma or at `from`). After a verb the pronoun is its object (`I told
/// them and my sister agreed`), and the subject stays as it was.
fn paired_pronoun(toks: &[Tok<'_>], from: usize, start: usize) -> Option<usize> {
    let p = start.checked_sub(2).filter(|p| *p >= from)?;
    let opens = p == from || matches!(toks[p - 1].lower.as_str(), "and" | "," | "but" | "so");
    (toks[start - 1].lower == "and" && is(PAIRED, &toks[p].lower) && opens).then_some(p)
}

/// Words that count what follows `of` (`most of my friends`).
#[rustfmt::skip]
const QUANTIFIERS: &[&str] = &[
    "none", "most", "all", "some", "many", "few", "several", "both", "half", "one", "two", "three", "each", "any",
    "neither", "either", "lots", "plenty",
];

/// Personal pronouns: a subject on their own.
pub(super) const PERSONAL: &[&str] = &["i", "you", "he", "she", "we", "they", "it"];

/// A noun phrase ending at `end` (exclusive), walked back to its determiner or name, on
/// past `of`/`in`/`from` to what it belongs to (`the rest of my family`).
fn noun_phrase_back(toks: &[Tok<'_>], from: usize, end: usize) -> Option<(usize, usize)> {
    let mut k = end;
    let mut start = None;
    while k > from && end - k < 9 {
        let t = &toks[k - 1];
        let w = t.lower.as_str();
        if !t.word || auxiliary(t) || is(PERSONAL, w) || (is(SUBORDINATORS, w) && !is(DETERMINERS, w)) {
            break;
        }
        if is(DETERMINERS, w) || is(SUBJECT_PRONOUNS, w) {
            start = Some(k - 1);
            if k >= from + 3 && matches!(toks[k - 2].lower.as_str(), "of" | "in" | "from") {
                k -= 2;
                continue;
            }
            break;
        }
        // `none of us`, `most of them`: a quantifier owns what follows `of`.
        if w == "of" && k >= from + 2 && is(QUANTIFIERS, &toks[k - 2].lower) {
            start = Some(k - 2);
            break;
        }
        if is(PREPOSITIONS, w) || is(NEGATIONS, w) || w == "and" || w == "or" {
            break;
        }
        if k - 1 == from || name(toks, k - 1) {
            start = Some(k - 1);
        }
        k -= 1;
    }
    let s = start?;
    let head_ok = is(DETERMINERS, &toks[s].lower) || is(SUBJECT_PRONOUNS, &toks[s].lower) || name(toks, s);
    (s < end && (head_ok || verb(&toks[s]).is_none())).then_some((s, end))
}

/// A capitalised word that is no sentence opener: a name.
pub(super) fn name(toks: &[Tok<'_>], k: usize) -> bool {
    let t = &toks[k];
    t.word
        && t.text.chars().next().is_some_and(char::is_uppercase)
        && t.lower != "i"
        && (k > 0 || !(adverb(t) || is(PREPOSITIONS, &t.lower) || is(SUBORDINATORS, &t.lower)))
}

pub(super) fn number(toks: &[Tok<'_>], (s, e): (usize, usize)) -> Number {
    let words: Vec<&str> = toks[s..e].iter().map(|t| t.lower.as_str()).collect();
    match words.as_slice() {
        ["i"] => return Number::First,
        ["you" | "we" | "they"] => return Number::Plural,
        [_] if is(SUBJECT_PRONOUNS, words[0]) => return Number::Singular,
        _ => {}
    }
    if words.contains(&"and") || words.first().is_some_and(|w| matches!(*w, "both" | "all" | "two" | "three" | "many"))
    {
        return Number::Plural;
    }
    // The head: the last word before `of`/`in`/`from` (`the rest of my family`), or after
    // it when a quantifier counts it (`most of my friends`).
    let counted = is(QUANTIFIERS, words[0]) && !matches!(words[0], "none" | "one" | "each" | "neither" | "either");
    let head_at = match toks[s..e].iter().position(|t| matches!(t.lower.as_str(), "of" | "in" | "from")) {
        Some(p) if !counted => s + p,
        _ => e,
    };
    let head = &toks[head_at.max(s + 1) - 1];
    let plural = head.lower.ends_with('s')
        && !["ss", "us", "is", "'s"].iter().any(|x| head.lower.ends_with(x))
        && !name(toks, head_at.max(s + 1) - 1);
    if plural || ["children", "people", "kids", "twins", "parents", "men", "women"].contains(&head.lower.as_str()) {
        Number::Plural
    } else {
        Number::Singular
    }
}

/// Whether the verb (or auxiliary) at `v` agrees with a subject of `number`.
fn agrees(toks: &[Tok<'_>], v: usize, number: Number) -> bool {
    let w = toks[v].lower.as_str();
    if auxiliary(&toks[v]) {
        return match w {
            "is" | "was" | "has" | "does" | "'s" | "isn't" | "wasn't" | "hasn't" | "doesn't" | "isnt" | "wasnt"
            | "hasnt" | "doesnt" => number != Number::Plural || w.starts_with("was") && number == Number::First,
            "are" | "were" | "'re" | "aren't" | "weren't" | "arent" | "werent" => number != Number::Singular,
            "have" | "do" | "'ve" | "haven't" | "don't" | "havent" | "dont" => number != Number::Singular,
            "am" | "'m" => number == Number::First,
            _ => true,
        };
    }
    verb_at(toks, v).is_some_and(|f| {
        f.is(Form::Past) || if number == Number::Singular { f.is(Form::Third) } else { f.is(Form::Base) }
    })
}

/// The clause a conjunct `from..end` opens with: a subject and its verb group.
pub(super) fn clause_at(toks: &[Tok<'_>], from: usize, end: usize) -> Option<Clause> {
    for v in from..end.min(from + 12) {
        let t = &toks[v];
        let head = auxiliary(t) || verb_at(toks, v).is_some_and(|f| finite(&f));
        let after_det = v > 0 && (is(DETERMINERS, &toks[v - 1].lower) || is(PREPOSITIONS, &toks[v - 1].lower));
        if !t.word || !head || (after_det && !auxiliary(t)) {
            continue;
        }
        // A contracted `'s` after a noun is a possessive, not `is`.
        if t.lower == "'s" && !(v > 0 && is(PRONOUNS, &toks[v - 1].lower)) {
            continue;
        }
        let Some(subject) = subject_before(toks, from, v) else { continue };
        let number = number(toks, subject);
        if !agrees(toks, v, number) {
            continue;
        }
        let (aux, main) = group(toks, subject.1, end);
        return Some(Clause { subject, number, aux, main, listed: false });
    }
    None
}

/// The first clause of the sentence, unless it opens with a subordinate clause whose
/// own subject comes first (`When I was young, …`).
pub(super) fn first_clause(toks: &[Tok<'_>]) -> Option<Clause> {
    let c = clause_at(toks, 0, toks.len())?;
    let before = &toks[..c.subject.0];
    // Before the subject only openers (`Honestly,`, `Oh and`) or a phrase set off by a
    // comma (`In 2019, …`); a subordinate clause or a clause this grammar did not read
    // (`The kitchen leaks and …` with `leaks` not known as a verb) leaves the sentence whole.
    let opener = before.iter().any(|t| t.word && is(SUBORDINATORS, &t.lower));
    let set_off = before.last().is_some_and(|t| t.lower == ",");
    let plain =
        before.iter().all(|t| !t.word || adverb(t) || (t.lower == "and" && before.len() == 1) || t.lower == "oh");
    (!opener && (set_off || plain)).then_some(c)
}
