//! What a version is, by its label: the typed view of the string every store keeps
//! (`consolidation:start`, `pass:merge:after`, `turn:12`, `user:pin`, `restore:v7`),
//! written and read back the same, so stored files are unchanged.
//!
//! ```
//! use nocturne_core::model::label::Label;
//! use nocturne_core::PassKind;
//! assert_eq!(Label::PassAfter(PassKind::Merge).to_string(), "pass:merge:after");
//! assert_eq!(Label::parse("pass:merge:after"), Label::PassAfter(PassKind::Merge));
//! assert_eq!(Label::parse("turn:12"), Label::Turn(12));
//! assert_eq!(Label::parse("bench:seed"), Label::Other("bench:seed".into()));
//! ```

use crate::model::pass::PassKind;
use std::fmt;

/// A version's label, typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Label {
    /// The marker a Sleep writes before its first pass.
    SleepStart,
    /// The marker before a pass, and the version a pass wrote.
    PassBefore(PassKind),
    PassAfter(PassKind),
    /// The facts a chat turn stored (the number of the turn).
    Turn(u32),
    /// A user's edit: `correct`, `pin`, `unpin`, `forget`, `erase`.
    User(String),
    /// A restore of version `v`.
    Restore(u64),
    /// Anything else a writer named (`bench:seed`, an import's labels).
    Other(String),
}

impl Label {
    /// Reads a stored label; one it does not know is [`Label::Other`].
    pub fn parse(text: &str) -> Label {
        let pass = |rest: &str, phase: &str| rest.strip_suffix(phase).and_then(PassKind::parse);
        if text == "consolidation:start" {
            return Label::SleepStart;
        }
        if let Some(rest) = text.strip_prefix("pass:") {
            if let Some(p) = pass(rest, ":before") {
                return Label::PassBefore(p);
            }
            if let Some(p) = pass(rest, ":after") {
                return Label::PassAfter(p);
            }
        }
        if let Some(n) = text.strip_prefix("turn:").and_then(|n| n.parse().ok()) {
            return Label::Turn(n);
        }
        if let Some(kind) = text.strip_prefix("user:").filter(|k| !k.is_empty()) {
            return Label::User(kind.to_string());
        }
        if let Some(v) = text.strip_prefix("restore:v").and_then(|v| v.parse().ok()) {
            return Label::Restore(v);
        }
        Label::Other(text.to_string())
    }

    /// Whether a Sleep wrote it: its start marker or one of its passes.
    pub fn is_sleep(&self) -> bool {
        matches!(self, Label::SleepStart | Label::PassBefore(_) | Label::PassAfter(_))
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Label::SleepStart => f.write_str("consolidation:start"),
            Label::PassBefore(p) => write!(f, "pass:{}:before", p.name()),
            Label::PassAfter(p) => write!(f, "pass:{}:after", p.name()),
            Label::Turn(n) => write!(f, "turn:{n}"),
            Label::User(kind) => write!(f, "user:{kind}"),
            Label::Restore(v) => write!(f, "restore:v{v}"),
            Label::Other(text) => f.write_str(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_label_reads_back_as_written() {
        let mut labels = vec![
            Label::SleepStart,
            Label::Turn(0),
            Label::Turn(4_000_000),
            Label::User("erase".into()),
            Label::Restore(12),
            Label::Other("bench:seed".into()),
        ];
        for p in PassKind::SLEEP {
            labels.extend([Label::PassBefore(p), Label::PassAfter(p)]);
        }
        for label in labels {
            assert_eq!(Label::parse(&label.to_string()), label);
        }
        for odd in ["pass:nap:after", "turn:x", "user:", "restore:12", "consolidation:end"] {
            assert_eq!(Label::parse(odd), Label::Other(odd.into()), "{odd}");
        }
    }
}
