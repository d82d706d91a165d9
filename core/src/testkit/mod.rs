//! Test kit, behind the `testkit` feature so it never ships in the app: deterministic
//! benchmark memories and the store conformance suite every backend must pass.

pub mod acts;
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
pub mod supersede;
pub mod synth;
pub mod worth;

/// The article's retention rules, which a memory now only has when its user sets them:
/// forget unprotected facts older than 30 days, keep at most 120 active facts — for the
/// tests of those two rules.
pub fn article_policy() -> crate::model::policy::RetentionPolicy {
    crate::model::policy::RetentionPolicy {
        stale_after_days: Some(30.0),
        max_active_facts: Some(120),
        ..Default::default()
    }
}
