//! Passing states (forget by value, `gate::forget`): a fact that says how someone is for a
//! bounded while — `I'm exhausted today`, `This week I'm swamped`, `I'm in a meeting right
//! now` — stops answering any question truthfully once that while is over, and may be
//! forgotten then. A state with no bounded while (`I'm vegan`, `I live in Lisbon now`) and
//! an event (`I went to the store today`) are never passing: what happened stays.
//!
//! The rule, in one sentence: *a fact is a passing state when its first clause says how
//! someone or something is (`text::state::state`) and it names a while that
//! ends — today, tonight, this morning, afternoon or evening, this week or weekend, right
//! now, at the moment*; its horizon is the last day of that while.
//!
//! ```
//! use nocturne_core::text::transient::horizon;
//! use nocturne_core::text::when::Day;
//! let wednesday = Day::from_ymd(2026, 12, 2).unwrap().start() + 43_200;
//! assert_eq!(horizon("I'm exhausted today.", wednesday), Ok(Day::from_ymd(2026, 12, 2).unwrap()));
//! assert_eq!(horizon("This week I'm swamped.", wednesday), Ok(Day::from_ymd(2026, 12, 6).unwrap()));
//! assert!(horizon("I live in Lisbon now.", wednesday).is_err());
//! assert!(horizon("I went to the store today.", wednesday).is_err());
//! ```

use super::state;
use super::when::{self, Day, Resolution};

/// Time expressions that bound a state to a while that ends (as the resolver names them).
const WHILES: &[&str] =
    &["today", "tonight", "this morning", "this afternoon", "this evening", "this week", "this weekend"];

/// Phrases that bound a state to the day it was said.
const NOW: &[&str] = &["right now", "at the moment", "at the minute", "just now", "for now"];

/// The last day `text`, said at `said_at`, holds as a passing state; else why it is none,
/// worded for a refusal (`“I live in Lisbon” says how someone is with no while that ends
/// …`).
pub fn horizon(text: &str, said_at: i64) -> Result<Day, NoWhile> {
    let quoted = text.trim().trim_end_matches('.');
    if !state::state(text) {
        return Err(NoWhile(format!(
            "“{quoted}” says no passing state: it tells what happened or what someone does, not how they are"
        )));
    }
    let lower = format!(" {} ", text.to_lowercase().replace(|c: char| !c.is_alphanumeric(), " "));
    if NOW.iter().any(|p| lower.contains(&format!(" {p} "))) {
        return Ok(Day::from_unix(said_at));
    }
    match when::resolve(text, said_at) {
        Resolution::Resolved { when, expression } if WHILES.contains(&expression.as_str()) => Ok(when.last()),
        _ => Err(NoWhile(format!(
            "“{quoted}” names no while that ends (today, tonight, this week, right now …): a state with no end is kept"
        ))),
    }
}

/// Why a text holds no passing state (`horizon`), worded for a refusal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoWhile(pub String);

impl std::fmt::Display for NoWhile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NoWhile {}

/// The words, where a gate writes its refusal.
impl From<NoWhile> for String {
    fn from(why: NoWhile) -> String {
        why.0
    }
}
