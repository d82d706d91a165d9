//! What proves the memory works: the independent re-audit of the stored log, the Wake
//! quiz, the verifier and the cross-model benchmark. The top layer: it may use every other.

pub mod audit;
pub mod check;
pub mod compare;
pub mod quiz;
pub mod recall;
pub mod verify;
