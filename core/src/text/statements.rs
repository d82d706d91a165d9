//! Statements, one per fact: what the user's turns can become as facts, prepared by pure
//! code so a small model only has to choose. Each statement is offered as written — a
//! sentence, or each statement of a compound as the one splitter (`text::split`) cuts it,
//! its subject restored. Only what states something is offered (`text::act`): never a
//! question, a request to the assistant or a command about the memory, nor chatter
//! (greetings, thanks, reactions: `text::worth`). Because every statement is the user's
//! own words, a chosen one cannot invent a token or drop a negation.
//!
//! ```
//! use nocturne_core::text::statements::statements;
//! let c = statements(&["I don't eat meat and live in Ghent. What is my name? Thanks!"]);
//! let texts: Vec<&str> = c.iter().map(|c| c.text.as_str()).collect();
//! assert_eq!(texts, ["I don't eat meat.", "I live in Ghent."]);
//! assert!(c[0].negated && !c[1].negated);
//! ```

use super::act;
use super::antecedent;
use super::polarity;
use super::split;
use super::textmath::content_tokens;

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

/// The statements of `texts` (user turns) a fact may be, in order, without repeats: the
/// pieces of every sentence that states something (`text::act`) — a question, a request
/// or a command about the memory offers none, but a statement before a question in one
/// sentence does (`The Hobbit is great, but have you read Dune?`). A pronoun whose
/// antecedent an earlier statement or question of the same turn names is replaced by it
/// (`text::antecedent`), so no statement orphans its referent.
pub fn statements(texts: &[&str]) -> Vec<Statement> {
    let mut out: Vec<Statement> = Vec::new();
    for text in texts {
        let mut before: Vec<String> = Vec::new();
        for said in act::turn(text) {
            if said.stated.is_empty() {
                // A question names things too (`Have you seen my new bike? It's electric.`).
                before.push(said.sentence.to_string());
            }
            for s in &said.stated {
                let pieces = split::split(s);
                // Where the candidate of the piece before went in `out`, if it made one.
                let mut last: Option<usize> = None;
                for (n, piece) in pieces.iter().enumerate() {
                    // `I'm epileptic, but it's well controlled`: kept with the piece before.
                    let joined = n.checked_sub(1).and_then(|m| antecedent::kept_with(s, &pieces[m], piece, &before));
                    let text = match joined {
                        Some(joined) => {
                            before.pop();
                            if let Some(k) = last.take() {
                                out.remove(k);
                            }
                            joined
                        }
                        None => piece.text.clone(),
                    };
                    let resolved = antecedent::resolve_in(&text, &before);
                    before.push(text);
                    last = None;
                    let Some(candidate) = candidate(&resolved) else { continue };
                    if !out.iter().any(|c| c.text == candidate.text) {
                        last = Some(out.len());
                        out.push(candidate);
                    }
                }
            }
        }
    }
    out
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
    fn a_statement_before_a_question_is_still_one_but_a_tag_asks() {
        let c = statements(&["Blue's my favourite, right? The Hobbit is great, but have you read Dune? Is it yours?"]);
        assert_eq!(texts(&c), ["The Hobbit is great."]);
    }

    #[test]
    fn tell_me_about_miso_is_not_stored() {
        let c = statements(&["Tell me about Miso. Please forget that I'm vegan. Remind me to call the vet tomorrow."]);
        assert!(c.is_empty(), "{c:?}");
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
