//! The text measures every gate is built from — pure functions over strings, the lowest
//! layer: it uses nothing else in the crate.

pub mod act;
pub mod addressed;
pub mod antecedent;
pub mod claims;
pub mod clause;
pub mod cues;
pub mod dated;
pub mod fold;
pub mod frame;
pub mod kinds;
pub mod order;
pub mod pairs;
pub mod polarity;
pub mod promise;
pub mod referent;
pub mod sentence;
pub mod slots;
pub mod split;
pub mod state;
pub mod statements;
pub mod textmath;
pub mod transient;
pub mod verbs;
pub mod when;
pub mod worth;
