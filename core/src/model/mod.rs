//! The memory model — blocks, items, turns, versions, mutations, the passes that make
//! them and the retention policy. Plain data with serde names; no behaviour beyond
//! salience and the overflow set. Uses only `text`.

pub mod candidate;
pub mod category;
pub mod label;
pub mod memory;
pub mod pass;
pub mod policy;
pub mod provenance;

/// Seconds in a day, the unit of `staleAfterDays`.
pub const DAY: i64 = 86_400;
