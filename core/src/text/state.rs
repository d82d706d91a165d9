//! Who a clause is about and whether it says how someone is (a state, not an event):
//! read from a text's first clause by the grammar the splitter uses (`clause`). The
//! Meaning reading, worth and passing states ask here.

use super::clause::{clause_at, do_negated, is, tokens, DO, NEGATIONS};
use super::verbs::Form;

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
/// use nocturne_core::text::state::{about, About};
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
/// use nocturne_core::text::state::state;
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
