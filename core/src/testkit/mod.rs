//! Test kit, behind the `testkit` feature so it never ships in the app: deterministic
//! benchmark memories and the store conformance suite every backend must pass.

pub mod adversarial;
pub mod choose;
pub mod conformance;
pub mod corpora;
pub mod dates;
pub mod documents;
pub mod exports;
pub mod lifetime;
pub mod locomo;
pub mod meaning;
pub mod synth;
pub mod worth;
