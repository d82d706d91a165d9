//! Polarity: whether a clause is negated, by a fixed list of cues. The similarity and
//! coverage measures of `textmath` are blind to `not` (a stopword); the gates add this
//! measure on top, so a fact that drops the user's negation is refused, and two facts of
//! opposite polarity are a contradiction, never duplicates.
//!
//! The rule fits in one sentence: *a clause is negated when it holds a negation cue* —
//! `not`, any `n't` contraction, `never`, `no` (not as an interjection: `No, …`), `no
//! longer`, `none`, `nobody`, `nothing`, `neither`, `nor`, `without`, `cannot`, or a verb
//! that ends a state (`stopped`, `quit`, `gave up`, `ceased`). A text is split into
//! clauses at sentence ends, semicolons and the conjunctions `but`, `and`, `although`,
//! `though`, `whereas`, `while`.
//!
//! ```
//! use nocturne_core::text::polarity::{is_negated, negation_cues};
//! assert!(is_negated("I am not allergic to peanuts."));
//! assert!(is_negated("I don't eat meat."));
//! assert!(!is_negated("No, I live in Porto."));
//! assert_eq!(negation_cues("I no longer live in Lisbon."), ["no longer"]);
//! ```

use super::textmath::{content_tokens, is_stopword, normalize, tokens};
use std::collections::BTreeSet;

/// Single words that negate their clause (normalized: apostrophes deleted).
pub const NEGATION_WORDS: &[&str] = &[
    "aint", "arent", "cannot", "cant", "couldnt", "didnt", "doesnt", "dont", "hadnt", "hasnt", "havent", "isnt",
    "mustnt", "neither", "never", "nobody", "none", "nor", "not", "nothing", "nowhere", "shant", "shouldnt", "wasnt",
    "werent", "without", "wont", "wouldnt",
];

/// Verbs that end a state: `I quit my job`, `I stopped eating meat`.
pub const ENDING_VERBS: &[&str] = &["ceased", "quit", "quits", "stopped", "stops"];

/// Words that say a value changed: a supersession may rest on one of them in the clause
/// of the newer fact's source that shares the older fact's subject.
pub const CHANGE_CUES: &[&str] = &[
    "anymore", "changed", "instead", "longer", "move", "moved", "moves", "new", "now", "quit", "stopped", "switch",
    "switched", "switches",
];

/// Whether a clause is negated or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Polarity {
    Positive,
    Negative,
}

impl Polarity {
    /// `"negated"` or `"not negated"`, for reasons.
    pub fn describe(self) -> &'static str {
        match self {
            Polarity::Positive => "not negated",
            Polarity::Negative => "negated",
        }
    }
}

/// The clauses of `text`, in order, as written (trimmed, punctuation kept inside). A piece
/// with no content words (`I don't` in `I don't, and never will`) stays with the next
/// piece of its sentence, so a cue is never cut off from what it negates.
pub fn clauses(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (end, _) in text.match_indices(['.', '!', '?', ';', '\n']).chain(std::iter::once((text.len(), ""))) {
        sentence_clauses(text, start, end, &mut out);
        start = (end + 1).min(text.len());
    }
    out
}

/// Splits `text[start..end]` (one sentence) at conjunctions into `out`.
fn sentence_clauses<'a>(text: &'a str, start: usize, end: usize, out: &mut Vec<&'a str>) {
    let mut pieces: Vec<(usize, usize)> = Vec::new();
    let mut from = start;
    while let Some((at, len)) = next_conjunction(&text[from..end]) {
        pieces.push((from, from + at));
        from += at + len;
    }
    pieces.push((from, end));
    let mut open: Option<usize> = None;
    for (i, (a, b)) in pieces.iter().enumerate() {
        let begin = open.unwrap_or(*a);
        let last = i + 1 == pieces.len();
        if content_tokens(&text[*a..*b]).iter().all(|t| is_cue_token(t)) && !last {
            open = Some(begin);
            continue;
        }
        open = None;
        push_clause(out, &text[begin..*b]);
    }
}

fn push_clause<'a>(out: &mut Vec<&'a str>, clause: &'a str) {
    let c = clause.trim_matches(|c: char| c.is_whitespace() || c == ',' || c == ':');
    if c.chars().any(char::is_alphanumeric) {
        out.push(c);
    }
}

/// The byte offset and length of the first clause-joining conjunction (` but `, ` and `, …).
fn next_conjunction(text: &str) -> Option<(usize, usize)> {
    let lower = text.to_lowercase();
    if lower.len() != text.len() {
        // A lowercase form of another length (rare scripts): do not split, stay exact.
        return None;
    }
    ["but", "and", "although", "though", "whereas", "while"]
        .iter()
        .filter_map(|w| {
            let needle = format!(" {w} ");
            lower.find(&needle).map(|at| (at, needle.len()))
        })
        .min()
}

/// The negation cues of `text`, in order, as phrases (`"not"`, `"dont"`, `"no longer"`,
/// `"gave up"`); `no` as an interjection (`No, …`) or in an idiom (`no matter what`), and
/// `any more`/`anymore` after another cue are not counted.
pub fn negation_cues(text: &str) -> Vec<String> {
    let raw: Vec<&str> = text.split_whitespace().collect();
    let words: Vec<String> = raw.iter().map(|w| normalize(w).trim().to_string()).collect();
    let mut cues = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        let next = words.get(i + 1).map(String::as_str);
        if w == "no" {
            let interjection = raw[i].ends_with([',', '.', '!', ';', ':']) || next.is_none();
            // `no matter what`, `no doubt`, `no wonder`: idioms that deny nothing said.
            let idiom = matches!(next, Some("matter" | "doubt" | "wonder"));
            if !interjection && !idiom {
                if next == Some("longer") {
                    cues.push("no longer".to_string());
                    i += 2;
                    continue;
                }
                cues.push("no".to_string());
            }
        } else if NEGATION_WORDS.contains(&w) || ENDING_VERBS.contains(&w) {
            cues.push(w.to_string());
        } else if (w == "gave" || w == "give" || w == "given") && next == Some("up") {
            cues.push(format!("{w} up"));
            i += 2;
            continue;
        }
        i += 1;
    }
    cues
}

/// The polarity of one clause: negated when it holds any negation cue.
pub fn polarity(clause: &str) -> Polarity {
    if negation_cues(clause).is_empty() {
        Polarity::Positive
    } else {
        Polarity::Negative
    }
}

/// Whether any clause of `text` is negated.
pub fn is_negated(text: &str) -> bool {
    polarity(text) == Polarity::Negative
}

/// The cue of `clause` shown with the word after it, as the user wrote it (`"not
/// allergic"`, `"don't eat"`, `"no longer live"`), for a refusal that a person can check.
pub fn cue_in_context(clause: &str) -> Option<String> {
    written_cue(clause).map(|(_, with_next)| with_next)
}

/// The first cue of `clause` as written (`"don't"`), and with the word after it.
fn written_cue(clause: &str) -> Option<(String, String)> {
    let raw: Vec<&str> = clause.split_whitespace().collect();
    let first = negation_cues(clause).into_iter().next()?;
    let first_word = first.split(' ').next().unwrap_or("");
    let at = raw.iter().position(|w| normalize(w).trim() == first_word)?;
    let len = first.split(' ').count();
    let shown: Vec<&str> = raw[at..(at + len + 1).min(raw.len())]
        .iter()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’'))
        .collect();
    Some((shown[..len.min(shown.len())].join(" "), shown.join(" ")))
}

/// The change cues of `text` (`now`, `moved`, `no longer`, …), in order, as written
/// (normalized, not stemmed: `news` is not `new`).
pub fn change_cues(text: &str) -> Vec<String> {
    let normalized = normalize(text);
    let words: Vec<&str> = normalized.split_whitespace().collect();
    let time = |at: usize| at > 0 && NOW_AS_TIME.contains(&words[at - 1]);
    words
        .iter()
        .enumerate()
        .filter(|&(at, w)| CHANGE_CUES.contains(w) && !(*w == "now" && time(at)))
        .map(|(_, w)| w.to_string())
        .collect()
}

/// Words that make the `now` after them a time, not a change: a moment (`right now`, `just
/// now`), a while (`for now`), a point reached (`by now`) or a length (`a year now`, `for
/// weeks now`).
const NOW_AS_TIME: &[&str] = &[
    "by", "day", "days", "for", "hours", "just", "month", "months", "right", "week", "weeks", "while", "year", "years",
];

/// Whether a (normalized, stemmed) token belongs to the polarity or change vocabulary
/// rather than to what a fact is about (`longer` in `no longer`, `now`).
pub fn is_cue_token(token: &str) -> bool {
    NEGATION_WORDS.contains(&token) || ENDING_VERBS.contains(&token) || CHANGE_CUES.contains(&token)
}

/// Checks that every clause of `text` has the polarity of the source clause that covers
/// it best (ties: any of them). `Err` names the cue: `the user said "not allergic"; the
/// fact drops "not"`. `whose` and `what` name the sources and the text, for the reason.
///
/// ```
/// use nocturne_core::text::polarity::keeps_polarity;
/// let said = ["I am not allergic to peanuts."];
/// assert!(keeps_polarity("The user is not allergic to peanuts.", &said, "the user said", "the fact").is_ok());
/// let err = keeps_polarity("The user is allergic to peanuts.", &said, "the user said", "the fact").unwrap_err();
/// assert!(err.0.contains("\"not allergic\"") && err.0.contains("drops \"not\""));
/// ```
pub fn keeps_polarity(text: &str, sources: &[&str], whose: &str, what: &str) -> Result<(), Inverted> {
    // Each clause cut further by the one splitter, so a comma between two statements
    // (`I moved to Porto, I no longer live in Lisbon`) parts their polarities too; a piece
    // keeps what the splitter restored (`I don't smoke or drink` → `I don't drink.`).
    let source_clauses: Vec<(String, BTreeSet<String>)> = sources
        .iter()
        .flat_map(|s| clauses(s))
        .flat_map(|c| super::split::statements(c).into_iter().map(|p| p.text))
        .map(|c| {
            let toks = tokens(&c).into_iter().filter(|t| !is_stopword(t) && !is_cue_token(t)).collect();
            (c, toks)
        })
        .collect();
    for clause in clauses(text) {
        let own: BTreeSet<String> = content_tokens(clause).into_iter().filter(|t| !is_cue_token(t)).collect();
        let overlap = |toks: &BTreeSet<String>| own.intersection(toks).count();
        let best = source_clauses.iter().map(|(_, t)| overlap(t)).max().unwrap_or(0);
        if best == 0 {
            continue;
        }
        let covering: Vec<&str> =
            source_clauses.iter().filter(|(_, t)| overlap(t) == best).map(|(c, _)| c.as_str()).collect();
        let mine = polarity(clause);
        if covering.iter().any(|c| polarity(c) == mine) {
            continue;
        }
        let source = covering[0];
        return Err(Inverted(match mine {
            Polarity::Positive => {
                let (word, cue) = written_cue(source).unwrap_or_default();
                format!("{whose} \"{cue}\"; {what} drops \"{word}\" and says the opposite")
            }
            Polarity::Negative => {
                let cue = cue_in_context(clause).unwrap_or_default();
                format!("{what} adds a negation (\"{cue}\") that is not in the words \"{source}\"")
            }
        }));
    }
    Ok(())
}

/// How a text inverts the clause of its source it comes from (`keeps_polarity`), worded for a refusal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inverted(pub String);

impl std::fmt::Display for Inverted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Inverted {}

/// The words, where a gate writes its refusal.
impl From<Inverted> for String {
    fn from(why: Inverted) -> String {
        why.0
    }
}

/// Whether two texts have opposite polarity (one negated, the other not).
pub fn opposite(a: &str, b: &str) -> bool {
    is_negated(a) != is_negated(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cue_lists_are_sorted_and_unique() {
        for list in [NEGATION_WORDS, ENDING_VERBS, CHANGE_CUES] {
            let mut sorted = list.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted, list);
        }
    }

    #[test]
    fn every_cue_negates_its_clause() {
        for text in [
            "I am not allergic to peanuts.",
            "I don't eat meat.",
            "I do not eat meat.",
            "I'm not a morning person.",
            "She isn't my manager.",
            "I won't move to Berlin.",
            "I can't drive.",
            "I cannot drive.",
            "I never drink coffee after noon.",
            "I have no car.",
            "I no longer live in Lisbon.",
            "I don't live in Lisbon anymore.",
            "None of my friends cook.",
            "Nobody in my family smokes.",
            "Nothing scares me.",
            "I drink neither tea nor coffee.",
            "I travel without a phone.",
            "I stopped eating meat.",
            "I quit my job at the bank.",
            "I gave up smoking.",
            "I didn’t go to the party.",
        ] {
            assert!(is_negated(text), "{text}");
        }
    }

    #[test]
    fn plain_statements_and_interjections_are_not_negated() {
        for text in [
            "I am allergic to peanuts.",
            "I eat meat.",
            "No, I live in Porto.",
            "I live in Lisbon and work best in the morning.",
            "I keep a bearded dragon called Saffron.",
            "Yes.",
            "I noticed a new café.",
        ] {
            assert!(!is_negated(text), "{text}");
        }
    }

    /// Found by the LoCoMo Sleep audit (#66): "I'm gonna keep going and reach my dreams no
    /// matter what." superseded "I'm going for my dreams." as its opposite.
    #[test]
    fn regression_no_matter_what_denies_nothing() {
        for text in ["I'll reach my dreams no matter what.", "No doubt it helped.", "No wonder I'm tired."] {
            assert!(!is_negated(text), "{text}");
        }
        for text in ["I have no car.", "I eat no meat."] {
            assert!(is_negated(text), "{text}");
        }
    }

    #[test]
    fn clauses_split_at_sentences_and_conjunctions() {
        assert_eq!(
            clauses("I am not allergic to peanuts and I live in Lisbon. I work as a nurse; I like tea"),
            ["I am not allergic to peanuts", "I live in Lisbon", "I work as a nurse", "I like tea"]
        );
        assert_eq!(clauses("I drink neither tea nor coffee."), ["I drink neither tea nor coffee"]);
        assert!(clauses(" . ; ").is_empty());
    }

    #[test]
    fn the_cue_is_shown_as_written_with_its_word() {
        assert_eq!(cue_in_context("I am not allergic to peanuts").as_deref(), Some("not allergic"));
        assert_eq!(cue_in_context("I don't eat meat").as_deref(), Some("don't eat"));
        assert_eq!(cue_in_context("I no longer live in Lisbon").as_deref(), Some("no longer live"));
        assert_eq!(cue_in_context("I eat meat"), None);
    }

    #[test]
    fn change_cues_are_found() {
        assert_eq!(change_cues("I now live in Porto"), ["now"]);
        assert!(change_cues("I can't right now.").is_empty());
        assert!(change_cues("I've been playing for just under a year now.").is_empty());
        assert_eq!(change_cues("Now I live in Porto, for now."), ["now"]);
        assert_eq!(change_cues("I moved to Porto last year"), ["moved"]);
        assert!(change_cues("I play chess on Mondays").is_empty());
    }
}
