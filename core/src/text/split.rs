//! The one splitter (SPEC §14): a sentence that states several things becomes one
//! statement per clause, each keeping its subject. The Encode gate, the offline encoder,
//! Dedupe's compound rule and erase all cut a compound here, so a compound is recognised
//! wherever it came from.
//!
//! The grammar, on one screen. A sentence is cut at a coordinator — `and`, `but`, `yet`,
//! contrastive `while`/`whereas`, `as well as`, a list comma, and `or` where a negation
//! covers both sides — only when what follows is
//! - a **clause** with its own subject and verb (`… and my sister keeps a dog`), kept as
//!   written (`while`/`whereas` only between two different subjects: the same subject
//!   makes it a time, `I listen to podcasts while I run`); or
//! - a **predicate**: a verb (`verbs`) that can carry the left clause's subject —
//!   `teaches` after one person, `teach` after `I`/`we`/`they`, any finite past — or an
//!   auxiliary. The subject is restored, and the left clause's auxiliary too when the verb
//!   cannot stand without it: a participle after `have` (`I've lived … and worked …`), a
//!   participle usually said in the passive after `be` (`was born … and raised …`), a
//!   gerund after `be` (`'ve been running … and doing …`), a base form after a modal or
//!   `did` (`will graduate … and join …`; `can't read or write`). A contrast (`but`,
//!   `yet`) reads a base form after `I`/`we`/`they` as its own present (`used to smoke but
//!   quit in 2015`).
//!
//! What is not cut: nouns and adjectives joined (`Airflow and Postgres`, `tea and
//! coffee`, `married and retired`), two infinitives under one `to` (`want to learn
//! Portuguese and move to Brazil`), `try and`/`go and`, a comparison (`more than my husband
//! and I`), a subject `Tom and I`, a subordinate clause (`because …`, `when …`, `who …`),
//! a lone word after `and` that is as often a noun (`music and dance`). Each piece
//! is the sentence's own words in order, after what was restored, capitalised, with one
//! full stop; [`Piece::how`] says why it was cut.
//!
//! ```
//! use nocturne_core::text::split::pieces;
//! assert_eq!(pieces("I live in Ghent and teach chemistry."), ["I live in Ghent.", "I teach chemistry."]);
//! assert_eq!(pieces("I don't smoke or drink."), ["I don't smoke.", "I don't drink."]);
//! assert_eq!(pieces("My stack is Airflow and Postgres."), ["My stack is Airflow and Postgres."]);
//! ```

use super::verbs::{self, Form, Forms};

/// One statement of a sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece<'a> {
    /// The statement's own words in the sentence (what erase redacts): without the
    /// coordinator and without what was restored.
    pub span: &'a str,
    /// The statement: restored words, then the span, capitalised, with one full stop.
    pub text: String,
    pub how: How,
}

/// Why a piece was cut where it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum How {
    /// The sentence's first statement (or the whole sentence).
    First,
    /// After `after`, a clause with its own subject.
    Clause { after: String },
    /// After `after`, a predicate whose subject (and auxiliary) the sentence left out:
    /// `restored` is what was put back.
    Predicate { after: String, restored: String },
}

impl std::fmt::Display for How {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            How::First => write!(f, "the sentence's first statement"),
            How::Clause { after } => write!(f, "a clause of its own after \"{after}\""),
            How::Predicate { after, restored } => {
                write!(f, "a predicate after \"{after}\" whose \"{restored}\" the sentence left out")
            }
        }
    }
}

/// The statements of `text`: every sentence (at `.`, `!`, `?`, `;`, a line end), each
/// split by [`split`]. A question stays whole.
pub fn statements(text: &str) -> Vec<Piece<'_>> {
    sentences(text)
        .into_iter()
        .flat_map(|s| if s.trim_end().ends_with('?') { vec![whole(s)] } else { split(s) })
        .filter(|p| p.span.chars().any(char::is_alphanumeric))
        .collect()
}

/// The statements of `text` as texts (see [`statements`]).
pub fn pieces(text: &str) -> Vec<String> {
    statements(text).into_iter().map(|p| p.text).collect()
}

/// Whether `text` holds more than one statement.
pub fn is_compound(text: &str) -> bool {
    statements(text).len() > 1
}

/// Who a clause with a subject and a verb is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum About {
    /// `I`, `we`.
    Speaker,
    /// Someone or something else named: `my sister`, `Priya`, `she`, `the flat`.
    Someone,
    /// The other person: `you`, `your …`.
    Addressee,
    /// Something pointed at: `that`, `it`, `this`.
    Pointed,
}

/// Who the first clause of `text` is about, and where (a byte offset) its subject starts;
/// `None` when `text` has no subject with a verb.
///
/// ```
/// use nocturne_core::text::split::{about, About};
/// assert_eq!(about("Honestly, I'm vegan."), Some((About::Speaker, 10)));
/// assert_eq!(about("That's so cool!").map(|a| a.0), Some(About::Pointed));
/// assert_eq!(about("Good morning!"), None);
/// ```
pub fn about(text: &str) -> Option<(About, usize)> {
    let toks = tokens(text);
    let c = clause_at(&toks, 0, toks.len())?;
    let first = &toks[c.subject.0];
    let who = match first.lower.as_str() {
        "i" | "we" => About::Speaker,
        "you" | "your" => About::Addressee,
        "that" | "this" | "it" | "these" | "those" | "there" => About::Pointed,
        _ => About::Someone,
    };
    Some((who, first.at))
}

/// Whether the first clause of `text` says how someone or something is, not what
/// happened: `be` with no verb after it, with a participle that is no passive of an event
/// (`I'm exhausted`, `I was bored`, `This week has been swamped`; not `I was promoted`) or
/// with the progressive of a condition (`I'm feeling awful`, `I'm doing well`; not `I'm
/// hiking this weekend`, an activity), or a verb of feeling or having in the present (`I
/// feel awful`, `I have a cold`).
///
/// ```
/// use nocturne_core::text::split::state;
/// assert!(state("I'm exhausted today."));
/// assert!(state("This week I'm swamped."));
/// assert!(state("I was bored today."));
/// assert!(!state("I went to the store today."));
/// assert!(!state("I was promoted today."));
/// assert!(state("I'm feeling awful today."));
/// assert!(!state("I'm hiking with some buddies this weekend."));
/// ```
pub fn state(text: &str) -> bool {
    let toks = tokens(text);
    let Some(c) = clause_at(&toks, 0, toks.len()) else { return false };
    let main = c.main_forms(&toks);
    if c.has_be(&toks) {
        return main.is_none_or(|f| {
            (f.is(Form::Gerund) && condition(f.lemma, c.main.and_then(|m| toks.get(m + 1)).map(|t| t.lower.as_str())))
                || (f.is(Form::Participle) && !f.usually_passive())
        });
    }
    c.aux.iter().all(|a| is(NEGATIONS, &toks[*a].lower) || do_negated(&toks[*a].lower) || is(DO, &toks[*a].lower))
        && main.is_some_and(|f| {
            matches!(f.lemma, "feel" | "have" | "look" | "seem" | "sound") && (f.is(Form::Base) || f.is(Form::Third))
        })
}

/// Whether a progressive of `lemma` (followed by `next`) says how someone is — `feeling
/// awful`, `struggling`, `doing well` — rather than what they do: `I'm hiking this weekend`
/// is an activity (a plan, or history once past), never a passing state.
fn condition(lemma: &str, next: Option<&str>) -> bool {
    match lemma {
        "feel" | "struggle" | "suffer" | "hurt" | "recover" | "ache" | "freak" | "panic" | "stress" => true,
        "do" => next.is_some_and(|n| {
            ["well", "fine", "ok", "okay", "great", "better", "worse", "badly", "alright", "good", "terrible", "awful"]
                .contains(&n)
        }),
        _ => false,
    }
}

/// Whether `text` states something of its own: a subject with a verb (`The Hobbit is
/// great`), not a fragment (`in the morning`).
pub fn states(text: &str) -> bool {
    let toks = tokens(text);
    clause_at(&toks, 0, toks.len()).is_some()
}

/// The sentences of `text`, each with its closing mark: a `.`, `!` or `?` followed by a
/// space or the end (not after an abbreviation such as `Dr.` or an initial), a `;`, a
/// line end.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        let next = chars.get(k + 1).map(|x| x.1);
        let ends = match c {
            ';' | '\n' => true,
            '.' | '!' | '?' | '…' => {
                next.is_none_or(|n| n.is_whitespace() || matches!(n, '"' | '\'' | ')' | '”' | '’'))
                    && !(c == '.' && abbreviation(&text[start..i]))
                    && !next.is_some_and(|n| matches!(n, '.' | '!' | '?'))
            }
            _ => false,
        };
        if ends {
            let end = i + c.len_utf8();
            if text[start..end].chars().any(char::is_alphanumeric) {
                out.push(&text[start..end]);
            }
            start = end;
        }
    }
    if text[start..].chars().any(char::is_alphanumeric) {
        out.push(&text[start..]);
    }
    out.into_iter().map(str::trim).collect()
}

/// `sentence` as its statements (one when it is not a compound).
pub fn split(sentence: &str) -> Vec<Piece<'_>> {
    let toks = tokens(sentence);
    let Some(first) = first_clause(&toks) else { return vec![whole(sentence)] };
    let cuts = cuts(&toks, first);
    if cuts.is_empty() {
        return vec![whole(sentence)];
    }
    let mut out = Vec::new();
    let mut from = 0;
    let mut how = How::First;
    let mut prefix = String::new();
    for cut in cuts {
        out.push(piece(sentence, &toks, from, cut.at, &prefix, how));
        from = cut.resume;
        prefix = cut.restored.clone();
        how = if cut.restored.is_empty() {
            How::Clause { after: cut.word }
        } else {
            How::Predicate { after: cut.word, restored: cut.restored }
        };
    }
    out.push(piece(sentence, &toks, from, toks.len(), &prefix, how));
    out
}

// ---------------------------------------------------------------------------------------
// Words.

/// A word (or a mark) of the sentence, where it is, and its lowercase form with `’` as `'`.
#[derive(Clone, Debug)]
struct Tok<'a> {
    text: &'a str,
    at: usize,
    lower: String,
    word: bool,
}

/// Pronoun contractions read as a subject and an auxiliary (`I'm` → `I` `'m`).
const PRONOUNS: &[&str] = &["i", "you", "he", "she", "we", "they", "it", "that", "there", "who"];

fn tokens(s: &str) -> Vec<Tok<'_>> {
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
const HAVE: &[&str] = &["have", "has", "had", "'ve"];
const DO: &[&str] = &["do", "does", "did"];
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
const DETERMINERS: &[&str] = &[
    "the", "a", "an", "this", "that", "these", "those", "my", "our", "your", "his", "her", "their", "its", "both",
    "all", "every", "each", "some", "most", "another", "one", "two", "three", "four", "many", "several", "whose",
];
const SUBJECT_PRONOUNS: &[&str] = &[
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
const NEGATIONS: &[&str] = &["not", "never", "no"];
#[rustfmt::skip]
const PREPOSITIONS: &[&str] = &[
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

fn is(list: &[&str], w: &str) -> bool {
    list.contains(&w)
}

fn auxiliary(t: &Tok<'_>) -> bool {
    t.word && [BE, HAVE, DO, MODALS, NEGATED].iter().any(|l| is(l, &t.lower))
}

fn adverb(t: &Tok<'_>) -> bool {
    t.word
        && (is(ADVERBS, &t.lower) || (t.lower.len() > 4 && t.lower.ends_with("ly") && verbs::forms(&t.lower).is_none()))
}

fn verb(t: &Tok<'_>) -> Option<Forms> {
    if !t.word || auxiliary(t) {
        return None;
    }
    verbs::forms(&t.lower)
}

/// A finite verb form: one a subject can carry with no auxiliary before it.
fn finite(f: &Forms) -> bool {
    f.is(Form::Base) || f.is(Form::Third) || f.is(Form::Past)
}

// ---------------------------------------------------------------------------------------
// Clauses.

/// How many speak: `I`; one person or thing; several (or `you`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Number {
    First,
    Singular,
    Plural,
}

/// A clause's subject and verb group, as token ranges.
#[derive(Clone, Debug)]
struct Clause {
    /// The subject: tokens `subject.0..subject.1`.
    subject: (usize, usize),
    number: Number,
    /// Auxiliary and negation tokens of the verb group (restored ones included), in order.
    aux: Vec<usize>,
    /// The main verb, if the group has one past its auxiliaries.
    main: Option<usize>,
    /// A predicate cut from a list at a comma (`… , skip breakfast and work till midnight`):
    /// what joins it next is the list's next predicate, not a second noun.
    listed: bool,
}

impl Clause {
    fn has(&self, toks: &[Tok<'_>], list: &[&str]) -> bool {
        self.aux.iter().any(|a| is(list, &toks[*a].lower))
    }
    fn has_have(&self, toks: &[Tok<'_>]) -> bool {
        self.aux.iter().any(|a| is(HAVE, &toks[*a].lower) || have_negated(&toks[*a].lower))
    }
    fn has_be(&self, toks: &[Tok<'_>]) -> bool {
        self.aux.iter().any(|a| is(BE, &toks[*a].lower) || be_negated(&toks[*a].lower))
    }
    fn modal(&self, toks: &[Tok<'_>]) -> bool {
        self.aux.iter().any(|a| {
            let w = toks[*a].lower.as_str();
            is(MODALS, w) || w == "used" || (is(NEGATED, w) && !do_negated(w) && !be_negated(w) && !have_negated(w))
        })
    }
    fn did_or_do(&self, toks: &[Tok<'_>]) -> bool {
        self.aux.iter().any(|a| is(DO, &toks[*a].lower) || do_negated(&toks[*a].lower))
    }
    /// `be` with no verb after it: `is Irish`, `'m a vet`, `'ve been sober`.
    fn copula(&self, toks: &[Tok<'_>]) -> bool {
        self.main.is_none() && self.aux.last().is_some_and(|a| is(BE, &toks[*a].lower) || be_negated(&toks[*a].lower))
    }
    fn main_forms(&self, toks: &[Tok<'_>]) -> Option<Forms> {
        self.main.and_then(|m| verb_at(toks, m))
    }
    /// Where the verb group ends: past the main verb, or past the last auxiliary.
    fn verb_end(&self) -> usize {
        self.main.or(self.aux.last().copied()).map_or(self.subject.1, |m| m + 1)
    }
}

fn be_negated(w: &str) -> bool {
    ["isn't", "aren't", "wasn't", "weren't", "isnt", "arent", "wasnt", "werent", "ain't"].contains(&w)
}

fn have_negated(w: &str) -> bool {
    ["haven't", "hasn't", "hadn't", "havent", "hasnt", "hadnt"].contains(&w)
}

fn do_negated(w: &str) -> bool {
    ["don't", "doesn't", "didn't", "dont", "doesnt", "didnt"].contains(&w)
}

/// The verb form at `k`: from the table, or, for a word the table lacks, guessed from its
/// place — right after `I`/`we`/`they`/`he`/`she` a verb (`I sublet my flat`), after
/// `be` an `-ing` word a gerund (`I'm house-sitting`).
fn verb_at(toks: &[Tok<'_>], k: usize) -> Option<Forms> {
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
fn group(toks: &[Tok<'_>], v: usize, end: usize) -> (Vec<usize>, Option<usize>) {
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
const PERSONAL: &[&str] = &["i", "you", "he", "she", "we", "they", "it"];

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
fn name(toks: &[Tok<'_>], k: usize) -> bool {
    let t = &toks[k];
    t.word
        && t.text.chars().next().is_some_and(char::is_uppercase)
        && t.lower != "i"
        && (k > 0 || !(adverb(t) || is(PREPOSITIONS, &t.lower) || is(SUBORDINATORS, &t.lower)))
}

fn number(toks: &[Tok<'_>], (s, e): (usize, usize)) -> Number {
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
fn clause_at(toks: &[Tok<'_>], from: usize, end: usize) -> Option<Clause> {
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
fn first_clause(toks: &[Tok<'_>]) -> Option<Clause> {
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

// ---------------------------------------------------------------------------------------
// Cuts.

/// Where a sentence is cut: the coordinator `at..resume`, as written, and what the next
/// piece restores.
#[derive(Clone, Debug)]
struct Cut {
    at: usize,
    resume: usize,
    word: String,
    restored: String,
}

/// The coordinator at `k`: its words' end and how it is written (`, and` is one).
fn coordinator(toks: &[Tok<'_>], k: usize) -> Option<(usize, String)> {
    let w = toks[k].lower.as_str();
    let next = toks.get(k + 1).map(|t| t.lower.as_str());
    match w {
        "," => match next {
            Some("and" | "but" | "yet" | "while" | "whereas" | "or") => Some((k + 2, format!(", {}", next?))),
            Some("as") => coordinator(toks, k + 1).map(|(e, s)| (e, format!(", {s}"))),
            _ => Some((k + 1, ",".into())),
        },
        "and" | "but" | "yet" | "while" | "whereas" | "or" => Some((k + 1, w.into())),
        "as" if next == Some("well") && toks.get(k + 2).is_some_and(|t| t.lower == "as") => {
            Some((k + 3, "as well as".into()))
        }
        _ => None,
    }
}

fn cuts(toks: &[Tok<'_>], first: Clause) -> Vec<Cut> {
    let mut out = Vec::new();
    let mut left = first;
    let mut start = 0;
    let mut k = left.verb_end();
    while k < toks.len() {
        let Some((resume, word)) = coordinator(toks, k) else {
            k += 1;
            continue;
        };
        match next_piece(toks, &left, start, k, resume, &word) {
            Some((clause, restored)) => {
                out.push(Cut { at: k, resume, word: word.trim_start_matches(", ").to_string(), restored });
                k = clause.verb_end().max(resume);
                left = clause;
                start = resume;
            }
            None => k += 1,
        }
    }
    out
}

/// Whether what follows the coordinator at `at` (ending at `resume`) is a statement of its
/// own, and if so its clause (subject, verb group) and the words restored before it.
fn next_piece(
    toks: &[Tok<'_>],
    left: &Clause,
    start: usize,
    at: usize,
    resume: usize,
    word: &str,
) -> Option<(Clause, String)> {
    let bare = word.trim_start_matches(", ");
    if blocked(toks, start, at) || correlative(toks, left, at, bare) {
        return None;
    }
    let mut r = resume;
    while r < toks.len() && (adverb(&toks[r]) || is(NEGATIONS, &toks[r].lower)) && !is(SUBJECT_PRONOUNS, &toks[r].lower)
    {
        r += 1;
    }
    if r >= toks.len() {
        return None;
    }
    // A clause with its own subject.
    if !matches!(bare, "as well as" | "or") {
        if let Some(c) = clause_at(toks, resume, toks.len()).filter(|c| c.subject.0 == r) {
            if matches!(bare, "while" | "whereas") && !contrasts(toks, left, &c) {
                return None;
            }
            return Some((c, String::new()));
        }
    }
    if matches!(bare, "while" | "whereas") || (word == "," && !list_goes_on(toks, resume)) {
        return None;
    }
    let aux = predicate(toks, left, at, r, bare)?;
    let (own, main) = group(toks, r, toks.len());
    let restored = restored(toks, left.subject, &aux);
    let listed = word == ",";
    let clause = Clause { subject: left.subject, number: left.number, aux: [aux, own].concat(), main, listed };
    Some((clause, restored))
}

/// `while` between two clauses contrasts them (`I work nights while my wife works days`,
/// `… while I got the piano`) unless the second tells a time: the same subject, or a
/// pronoun doing something with no object (`… while she cooks`, `… while I wash up`),
/// in the middle of doing it (`while we were working`) or somewhere (`while we're at work`).
fn contrasts(toks: &[Tok<'_>], left: &Clause, right: &Clause) -> bool {
    let same = text_of(toks, right.subject).to_lowercase() == text_of(toks, left.subject).to_lowercase();
    let pronoun = right.subject.1 - right.subject.0 == 1 && is(PERSONAL, &toks[right.subject.0].lower);
    let ongoing = right.has_be(toks) && right.main_forms(toks).is_some_and(|f| f.is(Form::Gerund));
    let at_place = right.copula(toks) && toks.get(right.verb_end()).is_some_and(|t| t.lower == "at");
    let rest = &toks[right.verb_end().min(toks.len())..];
    let no_object = rest.iter().all(|t| !t.word || adverb(t) || is(PARTICLES, &t.lower));
    !same && !(pronoun && (ongoing || at_place || no_object))
}

/// Words that complete a verb without being its object (`wash up`, `come home`).
const PARTICLES: &[&str] =
    &["up", "out", "down", "off", "away", "back", "home", "together", "early", "late", "in", "on"];

/// `either … or`, `both … and`, `not only … but`: one statement of two alternatives or
/// one emphasis, not two statements.
fn correlative(toks: &[Tok<'_>], left: &Clause, at: usize, conj: &str) -> bool {
    let words: Vec<&str> = toks[left.subject.1.min(at)..at].iter().map(|t| t.lower.as_str()).collect();
    match conj {
        "or" => words.contains(&"either"),
        "and" => toks[left.verb_end().min(at)..at].iter().any(|t| t.lower == "both"),
        "but" => words.windows(2).any(|w| w == ["not", "only"]),
        _ => false,
    }
}

/// A comma cuts a list of predicates only when the list goes on to `and`/`but`/`yet`.
fn list_goes_on(toks: &[Tok<'_>], from: usize) -> bool {
    toks[from..].iter().any(|t| matches!(t.lower.as_str(), "and" | "but" | "yet" | ","))
}

/// No cut inside a comparison or a range (`more than my husband and I`, `between 5 and
/// 6`): such a word since the last verb of the conjunct.
fn blocked(toks: &[Tok<'_>], start: usize, at: usize) -> bool {
    for t in toks[start..at].iter().rev() {
        if verb(t).is_some() || auxiliary(t) {
            return false;
        }
        if matches!(t.lower.as_str(), "than" | "between") {
            return true;
        }
    }
    false
}

/// Object pronouns: a word after a verb that makes it take an object.
const OBJECTS: &[&str] = &["me", "him", "her", "us", "them", "it", "you", "everything", "something", "nothing"];

/// Whether an object starts at `k` (`a lamb`, `my son`, `four kids`, `her`).
fn object_at(toks: &[Tok<'_>], k: usize) -> bool {
    toks.get(k).is_some_and(|t| {
        t.word && (is(DETERMINERS, &t.lower) || is(OBJECTS, &t.lower) || t.lower.chars().all(|c| c.is_ascii_digit()))
    })
}

/// The auxiliaries a predicate at `r` takes from the left clause (empty: only the
/// subject), or `None` when it is no predicate of that subject.
fn predicate(toks: &[Tok<'_>], left: &Clause, at: usize, r: usize, conj: &str) -> Option<Vec<usize>> {
    let t = &toks[r];
    let contrast = matches!(conj, "but" | "yet");
    let either = conj == "or";
    let keep = |v: &[usize]| -> Vec<usize> {
        v.iter().copied().filter(|a| either || !is(NEGATIONS, &toks[*a].lower)).collect()
    };
    if auxiliary(t) {
        return auxiliary_predicate(toks, left, r, &keep);
    }
    let f = verb_at(toks, r)?;
    if noun_like(toks, left, at, r, conj, &f) {
        return None;
    }
    if to_infinitive(toks, left, at) && f.is(Form::Base) && !contrast {
        return None;
    }
    let passive_left = left.has_be(toks) && left.main_forms(toks).is_some_and(|m| m.is(Form::Participle));
    let passive = |f: &Forms| f.usually_passive() && (!object_at(toks, r + 1) || f.takes_two_objects());
    if f.is(Form::Gerund) && !f.is(Form::Base) {
        return left.has_be(toks).then(|| keep(&left.aux));
    }
    if f.participle_only() {
        return (left.has_have(toks) || left.has_be(toks)).then(|| keep(&left.aux));
    }
    if f.is(Form::Participle) && left.has_have(toks) && !contrast && !f.past_only() {
        if passive_left && passive(&f) {
            return Some(keep(&left.aux));
        }
        let upto = left.aux.iter().position(|a| is(HAVE, &toks[*a].lower) || have_negated(&toks[*a].lower))?;
        let mut restored: Vec<usize> = left.aux[..=upto].to_vec();
        restored.extend(left.aux[upto + 1..].iter().filter(|a| is(NEGATIONS, &toks[**a].lower)));
        return Some(keep(&restored));
    }
    if f.is(Form::Past) && f.is(Form::Participle) && !f.is(Form::Base) {
        let complement = toks.get(r + 1).is_some_and(|n| matches!(n.lower.as_str(), "of" | "with" | "about" | "by"));
        if left.copula(toks) && (f.lemma.is_empty() || f.usually_passive() || complement) {
            return None;
        }
        return Some(if passive_left && passive(&f) { keep(&left.aux) } else { Vec::new() });
    }
    if f.past_only() {
        return Some(Vec::new());
    }
    if f.is(Form::Base) && (left.modal(toks) || left.did_or_do(toks)) {
        let own_present = left.number != Number::Singular;
        let do_present = !left.has(toks, &["did", "didn't", "didnt"]) && !left.modal(toks);
        if own_present && (contrast || (do_present && !either)) {
            return Some(Vec::new());
        }
        return Some(left.aux.clone());
    }
    if f.is(Form::Third) && !f.is(Form::Base) {
        return (left.number == Number::Singular).then(Vec::new);
    }
    (f.is(Form::Base) && (left.number != Number::Singular || f.is(Form::Past))).then(Vec::new)
}

/// A predicate that opens with an auxiliary: its own (`… and have lived here since`), or
/// `be`/`have`/`do` as the verb itself after a modal (`I'll host … as well as do the
/// payroll`), or none (`have you read …?` asks; `been` needs what the left clause had).
fn auxiliary_predicate(
    toks: &[Tok<'_>],
    left: &Clause,
    r: usize,
    keep: &dyn Fn(&[usize]) -> Vec<usize>,
) -> Option<Vec<usize>> {
    let t = &toks[r];
    let inverted = toks.get(r + 1).is_some_and(|n| is(SUBJECT_PRONOUNS, &n.lower));
    if inverted || matches!(t.lower.as_str(), "been" | "being" | "'s") {
        return None;
    }
    let main_use = !toks.get(r + 1).is_some_and(|n| {
        auxiliary(n) || is(NEGATIONS, &n.lower) || adverb(n) || verb_at(toks, r + 1).is_some_and(|f| !f.is(Form::Base))
    });
    if matches!(t.lower.as_str(), "be" | "have" | "do") && main_use && (left.modal(toks) || left.did_or_do(toks)) {
        return Some(keep(&left.aux));
    }
    (t.lower != "be").then(Vec::new)
}

/// The word after the coordinator is as likely a noun joined to the left clause's object
/// as a verb: a lone word after an object (`music and dance`), a word after a copula
/// (`married and retired`), or a noun that is also a verb after a bare noun, followed by a
/// preposition (`buy bread and milk from …`, `study film and design at …`). `try and`,
/// `go and` join one action.
fn noun_like(toks: &[Tok<'_>], left: &Clause, at: usize, r: usize, conj: &str, f: &Forms) -> bool {
    let before = &toks[at - 1];
    if conj == "and" && r == at + 1 && verb(before).is_some_and(|b| matches!(b.lemma, "try" | "go" | "come")) {
        return true;
    }
    let lone = toks.get(r + 1).is_none_or(|n| !n.word || coordinator(toks, r + 1).is_some());
    let has_object = left.verb_end() < at;
    let after_adverb = r > 0 && adverb(&toks[r - 1]);
    if lone && !after_adverb && ((has_object && (f.also_a_noun() || !f.is(Form::Past))) || left.copula(toks)) {
        return true;
    }
    let bare_noun = matches!(conj, "and" | "or")
        && !left.listed
        && before.word
        && before.lower.chars().all(char::is_alphabetic)
        && !name(toks, at - 1)
        && at >= 2
        && (verb(&toks[at - 2]).is_some() || is(PREPOSITIONS, &toks[at - 2].lower));
    let then_preposition = toks.get(r + 1).is_some_and(|n| is(PREPOSITIONS, &n.lower));
    f.also_a_noun() && bare_noun && then_preposition && !after_adverb
}

/// The left conjunct's verb takes `to` and a verb (`want to learn …`, `taught me to
/// knit …`), so a base form after the coordinator is a second infinitive under that `to`.
fn to_infinitive(toks: &[Tok<'_>], left: &Clause, at: usize) -> bool {
    let Some(main) = left.main.filter(|m| verb(&toks[*m]).is_some_and(|f| CATENATIVE.contains(&f.lemma))) else {
        return false;
    };
    let to = if toks.get(main + 1).is_some_and(|t| t.lower == "to") {
        main + 1
    } else if toks.get(main + 1).is_some_and(|t| is(OBJECTS, &t.lower))
        && toks.get(main + 2).is_some_and(|t| t.lower == "to")
    {
        main + 2
    } else {
        return false;
    };
    to + 1 < at
        && verb(&toks[to + 1]).is_some_and(|f| f.is(Form::Base))
        && !left.aux.iter().any(|a| toks[*a].lower == "used")
}

/// Verbs that take `to` and another verb (`want to`, `going to`, `taught me to`).
#[rustfmt::skip]
const CATENATIVE: &[&str] = &[
    "want", "need", "plan", "hope", "try", "go", "like", "love", "hate", "prefer", "learn", "decide", "start",
    "begin", "continue", "have", "get", "wish", "mean", "intend", "expect", "aim", "promise", "agree", "refuse",
    "offer", "seem", "tend", "manage", "afford", "choose", "help", "teach", "ask", "tell", "remember", "forget",
    "prepare", "arrange", "deserve", "struggle", "fail", "pretend", "long", "plan", "dream", "swear", "vow",
    "threaten", "hesitate", "attempt", "encourage", "allow", "force", "persuade", "convince", "train", "bother",
];

fn text_of(toks: &[Tok<'_>], (s, e): (usize, usize)) -> String {
    let mut out = String::new();
    for (k, t) in toks[s..e].iter().enumerate() {
        if k > 0 && !(t.text.starts_with(['\'', '’']) || t.at == toks[s + k - 1].at + toks[s + k - 1].text.len()) {
            out.push(' ');
        }
        out.push_str(t.text);
    }
    out
}

/// The words a predicate takes back: the subject, then the auxiliaries (a contracted one
/// kept on its subject: `I've been`).
fn restored(toks: &[Tok<'_>], subject: (usize, usize), aux: &[usize]) -> String {
    let mut out = text_of(toks, subject);
    let mut last = subject.1 - 1;
    for &a in aux {
        let t = &toks[a];
        let attached = t.at == toks[last].at + toks[last].text.len() && a == last + 1;
        if !attached {
            out.push(' ');
        }
        out.push_str(t.text);
        last = a;
    }
    out
}

// ---------------------------------------------------------------------------------------
// Pieces.

fn whole(sentence: &str) -> Piece<'_> {
    let span = sentence.trim();
    Piece { span, text: statement("", span), how: How::First }
}

fn piece<'a>(s: &'a str, toks: &[Tok<'a>], from: usize, to: usize, prefix: &str, how: How) -> Piece<'a> {
    let start = if from == 0 { 0 } else { toks.get(from).map_or(s.len(), |t| t.at) };
    let end = toks.get(to).map_or(s.len(), |t| t.at);
    let span = s[start..end].trim().trim_end_matches([',', ';', ':']).trim_end();
    Piece { span, text: statement(prefix, span), how }
}

/// `prefix` and `span` as one statement: capitalised, `i` as `I`, one full stop.
fn statement(prefix: &str, span: &str) -> String {
    let body = span
        .trim()
        .trim_end_matches(|c: char| matches!(c, '.' | '!' | '?' | ';' | ',' | ':' | '…') || c.is_whitespace());
    let joined = if prefix.is_empty() { body.to_string() } else { format!("{prefix} {body}") };
    let words: Vec<String> = joined
        .split(' ')
        .map(|w| {
            let lower = w.to_lowercase().replace('’', "'");
            if lower == "i" || ["i'm", "i've", "i'll", "i'd"].contains(&lower.as_str()) {
                format!("I{}", &w[1..])
            } else {
                w.to_string()
            }
        })
        .collect();
    let joined = words.join(" ");
    let mut chars = joined.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

/// `Dr.`, `Mrs.`, `St.`, `e.g.`, a lone initial: a full stop that ends no sentence.
fn abbreviation(before: &str) -> bool {
    let last = before.rsplit(|c: char| c.is_whitespace()).next().unwrap_or("");
    let w = last.trim_start_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    (w.chars().count() == 1 && w.chars().all(char::is_alphabetic) && w != "i" && w != "a")
        || ["mr", "mrs", "ms", "dr", "st", "prof", "jr", "sr", "vs", "etc", "e.g", "i.e", "approx", "mt"]
            .contains(&w.as_str())
}
