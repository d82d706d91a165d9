//! What each command does, one file per group; `main.rs` only parses and dispatches.

pub(crate) mod chat;
pub(crate) mod check;
pub(crate) mod memory;
pub(crate) mod review;
pub(crate) mod sleep;
