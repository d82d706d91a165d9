//! Candidate statements: what the user's turns can become as facts, prepared by pure code
//! so a small model only has to choose. Each sentence is a candidate; a sentence whose
//! clauses each stand alone (`I don't eat meat and I live in Ghent`) is offered as its
//! clauses instead. Questions and chatter (greetings, thanks, reactions: `text::worth`)
//! are never candidates. Because every candidate
//! is the user's own words, a chosen one cannot invent a token or drop a negation.
//!
//! ```
//! use nocturne_core::text::candidates::statements;
//! let c = statements(&["I don't eat meat and I live in Ghent. What is my name? Thanks!"]);
//! let texts: Vec<&str> = c.iter().map(|c| c.text.as_str()).collect();
//! assert_eq!(texts, ["I don't eat meat.", "I live in Ghent."]);
//! assert!(c[0].negated && !c[1].negated);
//! ```

use super::polarity;
use super::textmath::content_tokens;

/// One statement a fact may be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The user's words, as a sentence (capitalised, with a full stop).
    pub text: String,
    /// Whether the statement is negated (`text::polarity`).
    pub negated: bool,
}

/// Words a clause may open with and still stand alone as a statement about someone.
const SUBJECTS: &[&str] = &[
    "i", "i'm", "im", "i’m", "i've", "ive", "i’ve", "i'll", "ill", "i’ll", "i'd", "id", "i’d", "my", "we", "our",
    "she", "he", "they", "their", "his", "her", "the", "it", "its", "nobody", "none", "everyone", "this", "that",
];

/// Short replies that state nothing.
const GREETINGS: &[&str] =
    &["hi", "hello", "hey", "thanks", "thank you", "ok", "okay", "yes", "no", "bye", "good morning", "good night"];

/// The candidate statements of `texts` (user turns), in order, without repeats.
pub fn statements(texts: &[&str]) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    for text in texts {
        for sentence in sentences(text) {
            for piece in standalone_clauses(sentence) {
                let Some(candidate) = candidate(piece) else { continue };
                if !out.iter().any(|c| c.text == candidate.text) {
                    out.push(candidate);
                }
            }
        }
    }
    out
}

/// Sentences with their closing mark kept, so questions can be told apart.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if matches!(c, '.' | '!' | '?' | ';' | '\n') {
            out.push(&text[start..i + c.len_utf8()]);
            start = i + c.len_utf8();
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// Tags that make a statement a question only in form (`Blue's my favourite, right?`).
const TAGS: &[&str] = &[
    "right",
    "isn't it",
    "isnt it",
    "aren't they",
    "arent they",
    "don't you think",
    "dont you think",
    "huh",
    "no",
    "yeah",
    "correct",
    "you know",
    "wasn't it",
    "wasnt it",
    "didn't i",
    "didnt i",
];

/// A sentence split at `and` / `but` when every piece opens with a subject, else whole. A
/// question is no statement — but a statement with a tag (`…, right?`) is one, and so is
/// a clause that stands alone before the question it leads to (`The Hobbit is great, but
/// have you read Dune?`).
fn standalone_clauses(sentence: &str) -> Vec<&str> {
    let body = sentence.trim();
    let stands_alone =
        |p: &&str| p.split_whitespace().next().is_some_and(|w| SUBJECTS.contains(&w.to_lowercase().as_str()));
    if let Some(question) = body.strip_suffix('?') {
        let lower = question.to_lowercase();
        if let Some(tag) = TAGS.iter().find(|t| lower.ends_with(&format!(", {t}"))) {
            let statement = question[..question.len() - tag.len() - 2].trim();
            return if statement.is_empty() { Vec::new() } else { vec![statement] };
        }
        let pieces = polarity::clauses(question);
        return match pieces.split_last() {
            Some((_, before)) if !before.is_empty() => before.iter().copied().filter(stands_alone).collect(),
            _ => Vec::new(),
        };
    }
    let pieces = polarity::clauses(body);
    if pieces.len() > 1 && pieces.iter().all(stands_alone) {
        pieces
    } else {
        vec![body]
    }
}

/// The clauses of `sentence` as slices of it when each stands alone (opens with a subject),
/// so the sentence holds that many statements; `None` when it is one statement.
pub fn standalone_spans(sentence: &str) -> Option<Vec<&str>> {
    let clauses = polarity::clauses(sentence);
    let stands_alone =
        |p: &&str| p.split_whitespace().next().is_some_and(|w| SUBJECTS.contains(&w.to_lowercase().as_str()));
    (clauses.len() > 1 && clauses.iter().all(stands_alone)).then_some(clauses)
}

/// The statements `text` holds, each as its own fact would be: every sentence, split into
/// its clauses where each stands alone (`I live in Ghent and my locker code is 4417` is
/// two). Nothing is left out — what each piece says is for a gate to judge.
///
/// ```
/// use nocturne_core::text::candidates::pieces;
/// assert_eq!(pieces("I live in Ghent and my locker code is 4417."), ["I live in Ghent.", "My locker code is 4417."]);
/// assert_eq!(pieces("I live in Lisbon and work best in the morning."), ["I live in Lisbon and work best in the morning."]);
/// ```
pub fn pieces(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for sentence in sentences(text).into_iter().map(str::trim).filter(|s| !s.is_empty()) {
        let clauses = polarity::clauses(sentence);
        let stands_alone =
            |p: &&str| p.split_whitespace().next().is_some_and(|w| SUBJECTS.contains(&w.to_lowercase().as_str()));
        if sentence.ends_with('?') || clauses.len() < 2 || !clauses.iter().all(stands_alone) {
            out.push(sentence.to_string());
            continue;
        }
        for clause in clauses {
            let words = clause.trim().trim_end_matches(['.', '!', ';', ',']).trim();
            let mut chars = words.chars();
            if let Some(first) = chars.next() {
                out.push(format!("{}{}.", first.to_uppercase(), chars.as_str()));
            }
        }
    }
    out
}

fn candidate(piece: &str) -> Option<Candidate> {
    let words = piece.trim().trim_end_matches(['.', '!', ';', ',']).trim();
    if words.is_empty() || GREETINGS.contains(&words.to_lowercase().trim_end_matches('!')) {
        return None;
    }
    // Chatter (`Thanks, Mel!`, `That's so cool!`) states nothing to remember.
    if content_tokens(words).is_empty() || super::worth::informative(words).is_err() {
        return None;
    }
    let mut chars = words.chars();
    let first = chars.next()?;
    let text = format!("{}{}.", first.to_uppercase(), chars.as_str());
    Some(Candidate { negated: polarity::is_negated(&text), text })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(c: &[Candidate]) -> Vec<&str> {
        c.iter().map(|c| c.text.as_str()).collect()
    }

    #[test]
    fn clauses_that_stand_alone_are_split_and_others_kept_whole() {
        let c = statements(&["I live in Lisbon and work best in the morning. I keep a cat but my sister keeps a dog."]);
        assert_eq!(
            texts(&c),
            ["I live in Lisbon and work best in the morning.", "I keep a cat.", "My sister keeps a dog."]
        );
    }

    #[test]
    fn a_statement_with_a_tag_or_before_a_question_is_still_one() {
        let c = statements(&["Blue's my favourite, right? The Hobbit is great, but have you read Dune? Is it yours?"]);
        assert_eq!(texts(&c), ["Blue's my favourite.", "The Hobbit is great."]);
    }

    #[test]
    fn questions_greetings_and_repeats_are_not_candidates() {
        let c =
            statements(&["Hello! What do you remember about my dragon?", "I keep a cat.", "Thanks.", "I keep a cat."]);
        assert_eq!(texts(&c), ["I keep a cat."]);
    }

    #[test]
    fn each_candidate_carries_its_polarity() {
        let c = statements(&["I am not allergic to peanuts. I speak Portuguese."]);
        assert_eq!(c.iter().map(|c| c.negated).collect::<Vec<_>>(), [true, false]);
    }
}
