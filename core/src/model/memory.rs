//! The memory model: blocks, items (facts), transcript turns, versions and mutations.

use super::category::Category;
use super::pass::{MutationKind, Stage};
use super::provenance::Source;
use serde::{Deserialize, Serialize};
use std::fmt;

/// One of the four memory blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Block {
    /// Facts about the assistant.
    Persona,
    /// Stable facts about the user: identity, preferences, commitments.
    Human,
    /// Events anchored in time or place.
    Episodes,
    /// Unconsolidated facts from recent conversation.
    Scratch,
}

impl Block {
    /// All blocks, in display order.
    pub const ALL: [Block; 4] = [Block::Persona, Block::Human, Block::Episodes, Block::Scratch];
    /// The blocks a fact may be promoted to.
    pub const PROMOTION_TARGETS: [Block; 3] = [Block::Persona, Block::Human, Block::Episodes];

    /// The block's name as stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Block::Persona => "persona",
            Block::Human => "human",
            Block::Episodes => "episodes",
            Block::Scratch => "scratch",
        }
    }

    /// Parses a block name exactly as stored (`"human"`); anything else is `None`.
    pub fn parse(name: &str) -> Option<Block> {
        Block::ALL.into_iter().find(|b| b.as_str() == name)
    }

    /// The block's weight in salience.
    pub fn weight(self) -> f64 {
        match self {
            Block::Persona => 60.0,
            Block::Human => 50.0,
            Block::Episodes => 30.0,
            Block::Scratch => 10.0,
        }
    }
}

impl fmt::Display for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One fact. Rows are never deleted: forgetting flips `active`, superseding sets `valid_to`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// `m_17`.
    pub item_id: String,
    pub block: Block,
    pub text: String,
    /// `identity | preferences | commitments | event | context | …`
    pub category: Category,
    /// Index of the transcript turn the fact was encoded from.
    #[serde(default)]
    pub source_turn: Option<u32>,
    pub created_at: i64,
    #[serde(default)]
    pub updated_at: i64,
    pub active: bool,
    /// When the fact became true (defaults to `created_at`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_from: Option<i64>,
    /// When a newer fact superseded this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_to: Option<i64>,
    /// The item that superseded this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// Pinned by the user: no Sleep forgets, drops, merges away or supersedes it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
    /// Who said it (its source turn's speaker), when the conversation names speakers.
    /// Part of what the fact says: facts of two speakers are never one fact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speaker: Option<String>,
    /// Who said it and when the memory received it: its source turn's, and after a merge
    /// the sources of every fact merged. Empty: the user, received when said (every fact
    /// of a memory from before sources were kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<Source>,
}

impl Item {
    /// A new active fact `m_{n}` said at `created_at`, with no source turn: for synthetic
    /// memories and tests.
    pub fn new_fact(n: u64, block: Block, category: &str, text: &str, created_at: i64) -> Item {
        Item {
            item_id: format!("m_{n}"),
            block,
            text: text.into(),
            category: category.into(),
            source_turn: None,
            created_at,
            updated_at: created_at,
            active: true,
            valid_from: None,
            valid_to: None,
            superseded_by: None,
            pinned: false,
            speaker: None,
            sources: Vec::new(),
        }
    }

    /// Who said it and when each source was received ([`Item::sources`], or the user when
    /// the fact was said, for a fact with none recorded).
    pub fn provenance(&self) -> Vec<Source> {
        if self.sources.is_empty() {
            vec![Source::user(self.created_at)]
        } else {
            self.sources.clone()
        }
    }

    /// Whether the user said it (in this chat or on their own other device), alone or
    /// among the sources of a merge: what a source the user does not trust may not touch.
    pub fn said_by_user(&self) -> bool {
        self.sources.is_empty() || self.sources.iter().any(|s| s.by.is_user())
    }

    /// Who said it, when no source of it is the user (an MCP client, the assistant): what
    /// the trust policy (`provenance::Trust::OUTSIDE`) limits. `None` for the user's.
    pub fn outsider(&self) -> Option<String> {
        (!self.said_by_user()).then(|| self.sources.first().map(|s| s.by.to_string()).unwrap_or_default())
    }

    /// When the memory received it: its latest source's receipt.
    pub fn received_at(&self) -> i64 {
        self.sources.iter().map(|s| s.received_at).max().unwrap_or(self.created_at)
    }

    /// Whether it reached the memory more than a day after the date it claims
    /// ([`Source::backdated`]): such a statement supersedes nothing on its date alone.
    pub fn backdated(&self) -> bool {
        self.sources.iter().any(|s| s.backdated(self.created_at))
    }

    /// The fact as a line shows it: `Melanie: I painted a sunrise.` when it has a speaker.
    pub fn said(&self) -> String {
        match &self.speaker {
            Some(name) => format!("{name}: {}", self.text),
            None => self.text.clone(),
        }
    }

    /// The fact's size in tokens as a prompt line carries it (speaker and text).
    pub fn tokens(&self) -> u64 {
        crate::text::textmath::estimate_tokens(&self.said())
    }

    /// Whether the fact is durable about a person, so it may be pinned in human: an
    /// identity or preference, or a one-value slot (`slots`) — never an event or plan
    /// (a commitment, or words naming a time), nor chatter. `Err` says why not.
    pub fn durable(&self, slots: &[String]) -> Result<(), NotDurable> {
        if let Err(chatter) = crate::text::worth::informative(&self.text) {
            return Err(NotDurable(format!("{} {chatter}", self.item_id)));
        }
        if self.category == Category::Commitments {
            return Err(NotDurable(format!("{} is a plan (commitments): plans belong in episodes", self.item_id)));
        }
        if let Some(expression) = crate::text::when::resolve(&self.text, self.created_at).expression() {
            return Err(NotDurable(format!(
                "{} names a time (\"{expression}\"): an event or plan belongs in episodes",
                self.item_id
            )));
        }
        let slot = !crate::text::slots::fills(&self.text, slots).is_empty();
        if slot || matches!(self.category, Category::Identity | Category::Preferences) {
            return Ok(());
        }
        Err(NotDurable(format!(
            "{} is a{} {} fact, not an identity, a preference or a one-value slot",
            self.item_id,
            if self.category.as_str().starts_with(['a', 'e', 'i', 'o', 'u']) { "n" } else { "" },
            self.category
        )))
    }

    /// Age in days at `now`: how long ago it was said.
    pub fn age_days(&self, now: i64) -> f64 {
        (now - self.created_at) as f64 / crate::model::DAY as f64
    }

    /// When the fact is about, from the date expression in its text resolved against the
    /// moment it was said (`text::when`); `None` when it names no date or an ambiguous one.
    /// Whether the fact is a commitment: filed as one, or saying a promise, an agreement,
    /// an obligation or a deadline in its words (`text::promise`), whatever category a
    /// model gave it.
    pub fn is_commitment(&self) -> bool {
        self.category == Category::Commitments || crate::text::promise::binds(&self.text)
    }

    pub fn when(&self) -> Option<crate::text::when::When> {
        crate::text::when::resolve(&self.text, self.created_at).when()
    }

    /// Days since what the fact is about was over: since its resolved date's last day
    /// ended when it has one (an event mentioned today but held last year is a year old),
    /// else since it was said. Negative for a date still ahead.
    pub fn days_since(&self, now: i64) -> f64 {
        match self.when() {
            Some(when) => (now - when.last().plus_days(1).start()) as f64 / crate::model::DAY as f64,
            None => self.age_days(now),
        }
    }

    /// `said 90 days ago`, and the resolved date: `due 2026-12-04, 88 days ago`.
    pub fn dated(&self, now: i64) -> String {
        let item = self;
        let said = format!("said {}", relative(-(item.age_days(now).floor() as i64)));
        let when = match crate::text::when::resolve(&item.text, item.created_at) {
            crate::text::when::Resolution::None => return said,
            // Said so, rather than guessed: the reader can ask.
            crate::text::when::Resolution::Ambiguous { expression, .. } => {
                return format!("{said}; \"{expression}\" names no single date")
            }
            crate::text::when::Resolution::Resolved { when, .. } => when,
        };
        let today = crate::text::when::Day::from_unix(now);
        let offset = if when.last() < today {
            when.last().0 - today.0
        } else if when.first() > today {
            when.first().0 - today.0
        } else {
            0
        };
        let due = if item.is_commitment() { "due " } else { "" };
        format!("{said}; {due}{when}, {}", relative(offset))
    }

    /// The date the fact's words name, for a prompt line, with how far that is from `now`
    /// when within a week: `due 2026-12-04, tomorrow`, `2023-05-07`; `None` when its words
    /// name no date (when it was said is its group's heading).
    pub fn about(&self, now: i64) -> Option<String> {
        use crate::text::when::{Day, Resolution};
        let when = match crate::text::when::resolve(&self.text, self.created_at) {
            Resolution::None => return None,
            Resolution::Ambiguous { expression, .. } => return Some(format!("\"{expression}\" names no single date")),
            Resolution::Resolved { when, .. } => when,
        };
        let today = Day::from_unix(now);
        let offset = if when.last() < today {
            when.last().0 - today.0
        } else if when.first() > today {
            when.first().0 - today.0
        } else {
            0
        };
        let due = if self.is_commitment() { "due " } else { "" };
        let near = if offset.abs() <= 7 { format!(", {}", relative(offset)) } else { String::new() };
        Some(format!("{due}{when}{near}"))
    }

    /// The numeric part of `m_17`, for ordering ids naturally.
    pub fn ordinal(&self) -> u64 {
        id_ordinal(&self.item_id)
    }
}

/// Where the promotion rule sends a scratch fact of `category`, if anywhere: identities
/// and preferences to human, events and plans (commitments) to episodes.
pub fn promotion_target(category: &Category) -> Option<Block> {
    match category {
        Category::Identity | Category::Preferences => Some(Block::Human),
        Category::Event | Category::Commitments => Some(Block::Episodes),
        Category::Context | Category::Other(_) => None,
    }
}

/// Identity, preference and commitment facts are promoted first.
pub fn promotion_priority(category: &Category) -> u8 {
    match category {
        Category::Identity | Category::Preferences | Category::Commitments => 0,
        Category::Event | Category::Context | Category::Other(_) => 1,
    }
}

/// The numeric part of an item id (`m_17` → 17); ids without one sort last.
pub fn id_ordinal(id: &str) -> u64 {
    id.strip_prefix("m_").and_then(|n| n.parse().ok()).unwrap_or(u64::MAX)
}

/// Who spoke a transcript turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One line of the raw transcript — what every stored fact must be traceable to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Turn {
    pub index: u32,
    pub role: Role,
    pub text: String,
    pub at: i64,
    /// Who said it, when the conversation names its speakers (an imported log, a
    /// conversation between two people); every fact from the turn keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speaker: Option<String>,
    /// On a reply: the memory its prompt carried and the facts it cited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryUse>,
    /// Where an imported turn came from (`chatgpt:<conversation>:<message>`), so importing
    /// the same history again adds nothing; `None` for a turn said here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Who said it and when the memory received it (`at` is when it was said, as claimed);
    /// every fact encoded from it keeps this. `None`: the user, received when said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Source>,
}

/// The memory a reply drew on: the facts its prompt carried (ids, in the prompt's order),
/// how many stored facts were left out, the facts it cited, and how it was asked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryUse {
    pub used: Vec<String>,
    pub left_out: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cited: Vec<String>,
    pub style: AnswerStyle,
}

/// How a reply was asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AnswerStyle {
    /// The model wrote the answer and named the lines it relied on.
    #[default]
    FreeText,
    /// The model only chose the line that answers (or none); the code wrote the reply.
    Choose,
    /// A plain reply: no model call was needed (nothing to answer, or no memory).
    Plain,
}

impl Turn {
    /// The turn as the gates read it: `Melanie: I painted a sunrise.` when it has a
    /// speaker, so the name counts as the source's own word.
    pub fn said(&self) -> String {
        match &self.speaker {
            Some(name) => format!("{name}: {}", self.text),
            None => self.text.clone(),
        }
    }
}

/// An exact, immutable state of all items. Stored as the rows that changed since the
/// previous version, so a version costs what it changed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Version {
    pub seq: u64,
    /// `consolidation:start`, `pass:dedupe:before`, `turn:3`, `restore:v12`, …
    pub label: String,
    pub at: i64,
    pub active_count: usize,
    /// How many item rows this version changed.
    pub changed: usize,
}

impl Version {
    /// What the version is, read from its label.
    pub fn kind(&self) -> crate::model::label::Label {
        crate::model::label::Label::parse(&self.label)
    }

    /// The id shown to people: `v12`.
    pub fn id(&self) -> String {
        format!("v{}", self.seq)
    }
}

/// Who proposed an edit: the model, or one of the engine's deterministic rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Proposer {
    #[serde(rename = "model")]
    Model,
    #[serde(rename = "engine-duplicate-rule")]
    DuplicateRule,
    #[serde(rename = "engine-promotion-rule")]
    PromotionRule,
    #[serde(rename = "policy-engine")]
    PolicyEngine,
    /// The user's own edit.
    #[serde(rename = "user")]
    User,
    /// The code's own rules at the door of memory: a statement that is chatter, a question,
    /// or too long to encode stores nothing, for the reason named.
    #[serde(rename = "engine-encode-rule")]
    EncodeRule,
}

impl Proposer {
    pub fn as_str(self) -> &'static str {
        match self {
            Proposer::Model => "model",
            Proposer::DuplicateRule => "engine-duplicate-rule",
            Proposer::PromotionRule => "engine-promotion-rule",
            Proposer::PolicyEngine => "policy-engine",
            Proposer::User => "user",
            Proposer::EncodeRule => "engine-encode-rule",
        }
    }

    /// Whether an engine rule (not the model, not the user) proposed it.
    pub fn is_rule(self) -> bool {
        matches!(
            self,
            Proposer::DuplicateRule | Proposer::PromotionRule | Proposer::PolicyEngine | Proposer::EncodeRule
        )
    }
}

/// What a mutation points at, beyond its item.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Refs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub from_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_block: Option<Block>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_block: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age_days: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_turn: Option<u32>,
    /// Why a supersession was allowed: the slot both facts fill, the change the user
    /// stated, or opposite polarity. The re-audit judges it by this, not by today's policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basis: Option<SupersedeBasis>,
    /// The raw proposal, kept for refused mutations so the log shows what was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal: Option<serde_json::Value>,
    /// The reviewed plan's edit this entry applied or refused (`p-3f9a…/r2`,
    /// `flow::review`): a plan applies at most once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<String>,
}

/// What makes a newer fact replace an older one (judged by `gate::meaning`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "rule")]
pub enum SupersedeBasis {
    /// Both fill this one-value-at-a-time slot for the same holder.
    Slot { slot: String },
    /// The newer fact's source states a change (`now`, `moved`, `no longer` …) in the
    /// clause that shares the older fact's subject.
    Change { cue: String },
    /// The same statement with opposite polarity (`I live in Lisbon` / `I no longer live
    /// in Lisbon`).
    Polarity,
    /// The same referent (`my line manager`, `Yusuf`, the speaker) with a new value of what
    /// it holds one of at a time (`role`: its name, its amount, what it is).
    Role { referent: String, role: String },
    /// The newer fact ends the thing the older one is about (`sold the Canon`, `retired`,
    /// `moved`).
    Ended { thing: String, verb: String },
    /// The older fact held for a while (`this week`, `at the moment`, `until June`) and the
    /// newer one says what holds of the same referent now.
    While { phrase: String },
}

impl SupersedeBasis {
    /// One phrase for evidence and lineage.
    pub fn describe(&self) -> String {
        match self {
            SupersedeBasis::Slot { slot } => format!("both fill the one-value slot \"{slot}\""),
            SupersedeBasis::Change { cue } => format!("the user stated a change (\"{cue}\")"),
            SupersedeBasis::Polarity => "the newer fact states the opposite".into(),
            SupersedeBasis::Role { referent, role } => {
                format!("a new value of {referent}'s {role}, which holds one value at a time")
            }
            SupersedeBasis::Ended { thing, verb } => format!("the newer fact ends {thing} (\"{verb}\")"),
            SupersedeBasis::While { phrase } => {
                format!("the older fact held for a while (\"{phrase}\") and the newer one says what holds now")
            }
        }
    }
}

/// One proposed edit, accepted *or refused*, as stored in the audit log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mutation {
    /// Assigned by the store, increasing.
    pub id: u64,
    /// The version this mutation belongs to (the after-version of its pass).
    pub seq: u64,
    /// The pass that judged it, or the user (stored as `"encode"`, `"dedupe"`, …, `"user"`).
    pub pass: Stage,
    /// What it does to its item (stored as `"add"`, `"drop"`, …).
    pub kind: MutationKind,
    pub item_id: String,
    pub refs: Refs,
    pub accepted: bool,
    /// Why it was proposed (the proposer's words).
    pub reason: String,
    /// Why the gate refused it; `None` when accepted.
    #[serde(default)]
    pub rejection_reason: Option<String>,
    /// The policy the *code* verified (`stale`, `capacity`, …), never the one claimed.
    #[serde(default)]
    pub policy: Option<String>,
    pub proposer: Proposer,
    pub at: i64,
}

impl Mutation {
    /// Every item id this entry names: its own item, the duplicate it was dropped for, the
    /// merge's sources and the fact that superseded it (what a lineage follows).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        let r = &self.refs;
        std::iter::once(self.item_id.as_str())
            .chain(r.duplicate_of.as_deref())
            .chain(r.from_ids.iter().map(String::as_str))
            .chain(r.superseded_by.as_deref())
    }
}

/// `today`, `yesterday`, `in 3 days`, `88 days ago`, `in 4 months`, `3 years ago`.
fn relative(days: i64) -> String {
    let n = days.abs();
    let amount = match n {
        0 => return "today".into(),
        1 => return if days < 0 { "yesterday".into() } else { "tomorrow".into() },
        2..=99 => format!("{n} days"),
        100..=729 => format!("{} months", n / 30),
        _ => format!("{} years", n / 365),
    };
    if days < 0 {
        format!("{amount} ago")
    } else {
        format!("in {amount}")
    }
}

/// Why a fact is not durable about a person (`Item::durable`), worded for a refusal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotDurable(pub String);

impl std::fmt::Display for NotDurable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotDurable {}

/// The words, where a gate writes its refusal.
impl From<NotDurable> for String {
    fn from(why: NotDurable) -> String {
        why.0
    }
}
