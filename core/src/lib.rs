//! nocturne-core: the sans-IO heart of Nocturne — text measures, gates, passes, the
//! versioned store contract, the offline provider, the Wake quiz and the verifier.
//!
//! Nothing in this crate touches a clock, a network or a database on its own: time is
//! passed in as Unix seconds, the language model comes in through [`llm::provider::Provider`]
//! and storage through [`store::Store`]. The rule the whole crate serves is
//! *the model proposes, the code applies*: every proposal goes through a pure function in
//! [`gate`], and every verdict — accepted or refused — is recorded.
//!
//! The modules are layers, each using only the ones above it in this list (a test,
//! `core/tests/layers.rs`, fails when a lower layer names a higher one):
//!
//! | layer | holds |
//! |---|---|
//! | [`text`] | text measures: normalize, stem, similarity, coverage, proper nouns |
//! | [`model`] | blocks, items, versions, mutations, pass and mutation kinds, the retention policy |
//! | [`gate`] | one gate per pass: (pre-pass state, policy, proposal) → verdict; gate case files |
//! | [`store`] | the Store trait, row planning, `MemStore`, the export document, diff, lineage |
//! | [`history`] | readers of histories kept elsewhere: ChatGPT and Claude exports (and their zip), JSON Lines logs, LoCoMo |
//! | [`llm`] | the Provider trait, prompts and schemas, the OpenAI wire format, the offline provider |
//! | [`flow`] | what changes memory: the engine rules, a pass as a plan, the Sleep, a chat turn |
//! | [`write`] | the one write path: every write a [`write::Command`], performed by one journal, with a typed error |
//! | [`proof`] | what proves it: the re-audit, the Wake quiz, the verifier, the cross-model benchmark |
//! | `testkit` | (feature `testkit`) benchmark memories and the store conformance suite |

pub mod flow;
pub mod gate;
pub mod history;
pub mod llm;
pub mod model;
pub mod proof;
pub mod store;
#[cfg(feature = "testkit")]
pub mod testkit;
pub mod text;
pub mod write;

pub use model::memory::{Block, Item, Mutation, Proposer, Turn, Version};
pub use model::pass::{MutationKind, PassKind};
pub use model::policy::RetentionPolicy;
pub use model::DAY;
