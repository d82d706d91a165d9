//! The kinds of edit: which pass proposed a mutation ([`PassKind`]) and what it does to
//! its item ([`MutationKind`]). Stored by their serde names (`"dedupe"`, `"drop"`), matched
//! exhaustively everywhere so adding a pass is a compile error wherever it matters.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The kinds of proposal a gate judges: the encoder's and the five Sleep passes'.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PassKind {
    Encode,
    Dedupe,
    Merge,
    Promote,
    Forget,
    Supersede,
}

impl PassKind {
    /// Every kind, the encoder first, then the Sleep passes in order.
    pub const ALL: [PassKind; 6] =
        [PassKind::Encode, PassKind::Dedupe, PassKind::Merge, PassKind::Supersede, PassKind::Promote, PassKind::Forget];

    /// The Sleep passes, in order: the article's four with Supersede after Merge.
    pub const SLEEP: [PassKind; 5] =
        [PassKind::Dedupe, PassKind::Merge, PassKind::Supersede, PassKind::Promote, PassKind::Forget];

    /// The name as stored and shown (`"dedupe"`).
    pub fn name(self) -> &'static str {
        match self {
            PassKind::Encode => "encode",
            PassKind::Dedupe => "dedupe",
            PassKind::Merge => "merge",
            PassKind::Promote => "promote",
            PassKind::Forget => "forget",
            PassKind::Supersede => "supersede",
        }
    }

    /// Parses a stored name; anything else is `None`.
    ///
    /// ```
    /// use nocturne_core::model::pass::PassKind;
    /// assert_eq!(PassKind::parse("supersede"), Some(PassKind::Supersede));
    /// assert_eq!(PassKind::parse("sideways"), None);
    /// ```
    pub fn parse(name: &str) -> Option<PassKind> {
        PassKind::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The key of the proposal list in the model's JSON reply.
    pub fn proposal_key(self) -> &'static str {
        match self {
            PassKind::Encode => "facts",
            PassKind::Dedupe => "drop",
            PassKind::Merge => "merge",
            PassKind::Promote => "promote",
            PassKind::Forget => "forget",
            PassKind::Supersede => "supersede",
        }
    }

    /// The mutation kind one proposal of this pass produces.
    pub fn mutation_kind(self) -> MutationKind {
        match self {
            PassKind::Encode => MutationKind::Add,
            PassKind::Dedupe => MutationKind::Drop,
            PassKind::Merge => MutationKind::Merge,
            PassKind::Promote => MutationKind::Promote,
            PassKind::Forget => MutationKind::Forget,
            PassKind::Supersede => MutationKind::Supersede,
        }
    }

    /// The field naming the item a proposal is about.
    pub fn item_field(self) -> &'static str {
        match self {
            PassKind::Encode => "text",
            PassKind::Merge => "intoId",
            PassKind::Supersede => "oldId",
            PassKind::Dedupe | PassKind::Promote | PassKind::Forget => "itemId",
        }
    }
}

impl fmt::Display for PassKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a mutation came from: a pass (the encoder or a Sleep pass) judged it, or the
/// user made it. Stored as the pass's name or `"user"`; compares equal to a [`PassKind`]
/// when it is that pass, so `m.pass == PassKind::Dedupe` reads as before.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    Pass(PassKind),
    User,
    /// A chat reply: a citation of a fact its prompt did not carry is refused and logged.
    Reply,
    /// Another device's record replayed here: a Sleep planned on a head that has since
    /// moved, or an edit whose fact changed meanwhile, is refused and logged.
    Sync,
}

impl Stage {
    /// `"dedupe"`, `"user"`.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Pass(p) => p.name(),
            Stage::User => "user",
            Stage::Reply => "reply",
            Stage::Sync => "sync",
        }
    }

    /// The pass, when a pass judged it.
    pub fn pass(self) -> Option<PassKind> {
        match self {
            Stage::Pass(p) => Some(p),
            Stage::User | Stage::Reply | Stage::Sync => None,
        }
    }
}

impl From<PassKind> for Stage {
    fn from(p: PassKind) -> Self {
        Stage::Pass(p)
    }
}

impl PartialEq<PassKind> for Stage {
    fn eq(&self, other: &PassKind) -> bool {
        *self == Stage::Pass(*other)
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Stage {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Stage {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        match name.as_str() {
            "user" => Ok(Stage::User),
            "reply" => Ok(Stage::Reply),
            "sync" => Ok(Stage::Sync),
            other => PassKind::parse(other)
                .map(Stage::Pass)
                .ok_or_else(|| serde::de::Error::custom(format!("unknown pass '{other}'"))),
        }
    }
}

/// What a mutation does to its item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MutationKind {
    /// A new fact enters scratch.
    Add,
    /// A duplicate leaves the active set.
    Drop,
    /// Sources fold into one fact.
    Merge,
    /// A fact moves to a higher block.
    Promote,
    /// A fact leaves the active set under a retention rule.
    Forget,
    /// An older value stops being current.
    Supersede,
    /// The user replaced a fact's text (the old text stays in history).
    Correct,
    /// The user pinned a fact: no Sleep forgets or replaces it.
    Pin,
    /// The user unpinned a fact.
    Unpin,
    /// The user erased a fact's words everywhere; only this tombstone remains.
    Erase,
    /// A reply cited a fact (a citation of a fact its prompt did not carry is refused).
    Cite,
    /// A whole Sleep another device ran (logged when it is refused as stale on replay).
    Sleep,
    /// A restore of a version another device made (logged when it is refused as stale on
    /// replay).
    Restore,
    /// The retention policy changed under a rule of the code (a store on the old default
    /// moving to forget by value): what changed and why, the old and new policy in the
    /// raw proposal.
    Policy,
    /// A statement of the user's that stored no fact, and the rule that decided (so nothing
    /// said is lost without a word).
    Skip,
}

impl MutationKind {
    /// The name as stored and shown (`"drop"`).
    pub fn as_str(self) -> &'static str {
        match self {
            MutationKind::Add => "add",
            MutationKind::Drop => "drop",
            MutationKind::Merge => "merge",
            MutationKind::Promote => "promote",
            MutationKind::Forget => "forget",
            MutationKind::Supersede => "supersede",
            MutationKind::Correct => "correct",
            MutationKind::Pin => "pin",
            MutationKind::Unpin => "unpin",
            MutationKind::Erase => "erase",
            MutationKind::Cite => "cite",
            MutationKind::Sleep => "sleep",
            MutationKind::Restore => "restore",
            MutationKind::Skip => "skip",
            MutationKind::Policy => "policy",
        }
    }
}

impl fmt::Display for MutationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
