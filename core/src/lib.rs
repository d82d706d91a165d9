//! nocturne-core: the sans-IO heart of Nocturne — text measures, gates, passes, the
//! versioned store contract, the offline provider, the Wake quiz and the verifier.
//!
//! Nothing in this crate touches a clock, a network or a database on its own: time is
//! passed in as Unix seconds, the language model comes in through [`provider::Provider`]
//! and storage through [`store::Store`]. The rule the whole crate serves is
//! *the model proposes, the code applies*: every proposal goes through a pure function in
//! [`gate`], and every verdict — accepted or refused — is recorded.

pub mod audit;
pub mod case;
pub mod chat;
pub mod compare;
pub mod diff;
pub mod document;
pub mod engine;
pub mod gate;
pub mod lineage;
pub mod memory;
pub mod offline;
pub mod openai;
pub mod pass;
pub mod policy;
pub mod prompt;
pub mod provider;
pub mod quiz;
pub mod sleep;
pub mod store;
pub mod synth;
pub mod textmath;
pub mod verify;

pub use memory::{Block, Item, Mutation, Proposer, Turn, Version};
pub use policy::RetentionPolicy;

/// Seconds in a day, the unit of `staleAfterDays`.
pub const DAY: i64 = 86_400;
