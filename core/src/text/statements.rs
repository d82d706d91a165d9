//! Statements, one per fact: what the user's turns can become as facts, prepared by pure
//! code so a small model only has to choose. Each statement is offered as written — a
//! sentence, or each statement of a compound as the one splitter (`text::split`) cuts it,
//! its subject restored. Questions and chatter (greetings, thanks, reactions: `text::worth`)
//! are never offered. Because every statement is the user's own words, a chosen one cannot
//! invent a token or drop a negation.
//!
//! ```
//! use nocturne_core::text::statements::statements;
//! let c = statements(&["I don't eat meat and live in Ghent. What is my name? Thanks!"]);
//! let texts: Vec<&str> = c.iter().map(|c| c.text.as_str()).collect();
//! assert_eq!(texts, ["I don't eat meat.", "I live in Ghent."]);
//! assert!(c[0].negated && !c[1].negated);
//! ```

use super::antecedent;
use super::polarity;
use super::split;
use super::textmath::content_tokens;
use super::{sentence, state};

/// One statement a fact may be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// The user's words, as a sentence (capitalised, with a full stop).
    pub text: String,
    /// Whether the statement is negated (`text::polarity`).
    pub negated: bool,
}

/// Short replies that state nothing.
const GREETINGS: &[&str] =
    &["hi", "hello", "hey", "thanks", "thank you", "ok", "okay", "yes", "no", "bye", "good morning", "good night"];

/// The statements of `texts` (user turns) a fact may be, in order, without repeats; a
/// pronoun whose antecedent an earlier statement or question of the same turn names is
/// replaced by it (`text::antecedent`), so no statement orphans its referent.
pub fn statements(texts: &[&str]) -> Vec<Statement> {
    let mut out: Vec<Statement> = Vec::new();
    for text in texts {
        let mut before: Vec<String> = Vec::new();
        for sentence in sentence::sentences(text) {
            let pieces = standalone(sentence);
            if pieces.is_empty() {
                // A question names things too (`Have you seen my new bike? It's electric.`).
                before.push(sentence.to_string());
            }
            for piece in pieces {
                let resolved = antecedent::resolve_in(&piece, &before);
                before.push(piece);
                let Some(candidate) = candidate(&resolved) else { continue };
                if !out.iter().any(|c| c.text == candidate.text) {
                    out.push(candidate);
                }
            }
        }
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

/// The statements of one sentence: its pieces (`text::split`). A question is no statement
/// — but a statement with a tag (`…, right?`) is one, and so is a clause with its own
/// subject and verb before the question it leads to (`The Hobbit is great, but have you
/// read Dune?`).
fn standalone(sentence: &str) -> Vec<String> {
    let body = sentence.trim();
    let Some(question) = body.strip_suffix('?') else {
        return split::split(body).into_iter().map(|p| p.text).collect();
    };
    let lower = question.to_lowercase();
    if let Some(tag) = TAGS.iter().find(|t| lower.ends_with(&format!(", {t}"))) {
        let statement = question[..question.len() - tag.len() - 2].trim();
        return if statement.is_empty() { Vec::new() } else { vec![statement.to_string()] };
    }
    let pieces = polarity::clauses(question);
    match pieces.split_last() {
        Some((_, before)) if !before.is_empty() => {
            before.iter().filter(|p| state::states(p)).map(|p| p.to_string()).collect()
        }
        _ => Vec::new(),
    }
}

/// The statements of `sentence` as slices of it when it holds several (erase redacts
/// only the ones that hold the erased words); `None` when it is one statement.
pub fn standalone_spans(sentence: &str) -> Option<Vec<&str>> {
    let pieces = split::split(sentence);
    (pieces.len() > 1).then(|| pieces.into_iter().map(|p| p.span).collect())
}

/// The statements `text` holds, each as its own fact would be (`text::split`): every
/// sentence, a compound cut into its statements with their subjects restored. Nothing is
/// left out — what each piece says is for a gate to judge.
///
/// ```
/// use nocturne_core::text::statements::pieces;
/// assert_eq!(pieces("I live in Ghent and my locker code is 4417."), ["I live in Ghent.", "My locker code is 4417."]);
/// assert_eq!(pieces("I live in Lisbon and work best in the morning."), ["I live in Lisbon.", "I work best in the morning."]);
/// ```
pub fn pieces(text: &str) -> Vec<String> {
    split::pieces(text)
}

/// The statements `text` holds as facts: [`pieces`], each pronoun whose antecedent an
/// earlier piece names replaced by it (`text::antecedent`).
///
/// ```
/// use nocturne_core::text::statements::facts;
/// assert_eq!(facts("I wrote a report and I sent it to Dries."), ["I wrote a report.", "I sent the report to Dries."]);
/// ```
pub fn facts(text: &str) -> Vec<String> {
    antecedent::facts(text)
}

fn candidate(piece: &str) -> Option<Statement> {
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
    Some(Statement { negated: polarity::is_negated(&text), text })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(c: &[Statement]) -> Vec<&str> {
        c.iter().map(|c| c.text.as_str()).collect()
    }

    #[test]
    fn clauses_that_stand_alone_are_split_and_others_kept_whole() {
        let c = statements(&["I live in Lisbon and work best in the morning. I keep a cat but my sister keeps a dog."]);
        assert_eq!(
            texts(&c),
            ["I live in Lisbon.", "I work best in the morning.", "I keep a cat.", "My sister keeps a dog."]
        );
        assert_eq!(texts(&statements(&["My stack is Airflow and Postgres."])), ["My stack is Airflow and Postgres."]);
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
