//! The one splitter (one statement per fact): a sentence that states several things becomes one
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

use super::clause::{
    adverb, auxiliary, clause_at, first_clause, group, have_negated, is, name, tokens, verb, verb_at, Clause, Number,
    Tok, DETERMINERS, HAVE, NEGATIONS, PERSONAL, PREPOSITIONS, SUBJECT_PRONOUNS,
};
use super::sentence::sentences;
use super::verbs::{Form, Forms};

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

/// `I can't eat shellfish, I'm allergic`: a clause that ends on an adjective whose
/// complement it leaves out (allergic *to* what, afraid *of* what) says it only of what the
/// clause before names; cut off, the piece would lose it.
fn elided_complement(toks: &[Tok<'_>], c: &Clause) -> bool {
    let Some(be) = c.aux.iter().rev().find(|a| !adverb(&toks[**a])).filter(|a| is(BE, &toks[**a].lower)) else {
        return false;
    };
    // `scared`, `tired` read as participles are the adjective too.
    let from = c.main.unwrap_or(be + 1);
    let rest: Vec<&Tok<'_>> = toks[from..]
        .iter()
        .take_while(|t| t.word)
        .filter(|t| !adverb(t) && !is(&["so", "very", "really", "quite", "too", "a", "bit", "little"], &t.lower))
        .collect();
    matches!(rest.as_slice(), [adjective] if is(ELIDED, &adjective.lower))
}

/// Adjectives said with a complement a speaker may leave to the sentence before.
const ELIDED: &[&str] = &[
    "allergic",
    "intolerant",
    "afraid",
    "scared",
    "terrified",
    "frightened",
    "aware",
    "fond",
    "jealous",
    "addicted",
    "obsessed",
    "used",
    "ashamed",
];
const BE: &[&str] = &["'m", "am", "'re", "are", "is", "'s", "was", "were", "be", "been"];

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
            if matches!(bare, "while" | "whereas") && !contrasts(toks, left, &c)
                || word == "," && apposition(toks, &c)
                || elided_complement(toks, &c)
            {
                return None;
            }
            return Some((c, String::new()));
        }
    }
    if matches!(bare, "while" | "whereas") || (word == "," && !list_goes_on(toks, resume)) {
        return None;
    }
    if bare == "as well as" {
        if let Some(object) = second_object(toks, left, at, r) {
            return Some(object);
        }
    }
    let aux = predicate(toks, left, at, r, bare)?;
    let (own, main) = group(toks, r, toks.len());
    let restored = restored(toks, left.subject, &aux);
    let listed = word == ",";
    let clause = Clause { subject: left.subject, number: left.number, aux: [aux, own].concat(), main, listed };
    Some((clause, restored))
}

/// `I play the cello as well as the piano`, `I have a dog named Pepper as well as two
/// rabbits`: a second thing the left clause's verb takes, said with a determiner, is a
/// second statement of that verb (subject, auxiliaries and verb restored). A bare noun
/// (`Spanish as well as Portuguese`) stays one statement, as `and` would, and a clause
/// after it (`as well as my mother does`) is a comparison.
fn second_object(toks: &[Tok<'_>], left: &Clause, at: usize, r: usize) -> Option<(Clause, String)> {
    let t = &toks[r];
    let determined =
        is(DETERMINERS, &t.lower) && !matches!(t.lower.as_str(), "this" | "that" | "these" | "those" | "both" | "all");
    let has_object = left.verb_end() < at;
    let clause = clause_at(toks, r, toks.len()).filter(|c| c.subject.0 == r);
    if !determined || !has_object || clause.is_some() || left.aux.is_empty() && left.main.is_none() {
        return None;
    }
    let verb: Vec<usize> = left.aux.iter().copied().chain(left.main).collect();
    let restored = restored(toks, left.subject, &verb);
    Some((
        Clause { subject: left.subject, number: left.number, aux: left.aux.clone(), main: left.main, listed: false },
        restored,
    ))
}

/// `We got a new puppy, a beagle called Waffle`: an indefinite noun phrase after a comma,
/// named by a participle, says what came before is, not a clause of its own — cut off,
/// the name would lose what it names.
fn apposition(toks: &[Tok<'_>], c: &Clause) -> bool {
    let indefinite = matches!(toks[c.subject.0].lower.as_str(), "a" | "an");
    let naming = c.main.is_some_and(|m| matches!(toks[m].lower.as_str(), "called" | "named" | "nicknamed"));
    indefinite && naming && c.aux.is_empty()
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
