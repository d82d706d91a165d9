//! Commitments read from their words (forget by value, `gate::forget`): a fact binds its speaker
//! to something when it says a promise, an agreement, an obligation or a deadline —
//! `I promised Marco I would return his drill by Monday`, `The grant report is due
//! Friday`, `I have to renew my passport before March`. The retention rules read a
//! commitment from this as well as from the category a model gave, so one promise stored
//! twice under two categories falls due as one.
//!
//! The words are narrow on purpose: a plain future (`I will move to Lisbon in March`) is a
//! plan, not a promise, and what a plan was about stays.
//!
//! ```
//! use nocturne_core::text::promise::binds;
//! assert!(binds("I promised Marco I would return his drill by Monday."));
//! assert!(binds("The grant report is due Friday."));
//! assert!(!binds("I will move to Lisbon in March."));
//! assert!(!binds("I went to the hardware store yesterday."));
//! ```

use super::textmath;

/// Words (normalized, whole) that say a promise, an agreement, an obligation or a deadline.
const CUES: &[&str] = &[
    "promised",
    "promise",
    "promises",
    "committed to",
    "commitment",
    "agreed to",
    "swore",
    "owe",
    "owes",
    "deadline",
    "is due",
    "are due",
    "due by",
    "due on",
    "have to",
    "has to",
    "need to",
    "needs to",
    "must",
];

/// Whether `text` binds its speaker (or someone) to something by its words.
pub fn binds(text: &str) -> bool {
    let s = format!(" {} ", textmath::normalize(text));
    CUES.iter().any(|cue| s.contains(&format!(" {cue} ")))
}

#[cfg(test)]
mod tests {
    use super::binds;

    #[test]
    fn promises_obligations_and_deadlines_bind_plans_and_events_do_not() {
        for yes in [
            "I promised Ana I would review her thesis by Friday.",
            "I owe Sam 20 euros by the end of the month.",
            "I have to renew my passport before March.",
            "The deadline for the grant is 12 May.",
            "We agreed to ship the release on Tuesday.",
            "My tax return is due on 31 January.",
        ] {
            assert!(binds(yes), "{yes}");
        }
        for no in [
            "I will move to Lisbon in March.",
            "I went to the hardware store yesterday.",
            "I love the due diligence part of my job.",
            "I prefer green tea over coffee.",
            "This week I'm swamped at work.",
        ] {
            assert!(!binds(no), "{no}");
        }
    }
}
