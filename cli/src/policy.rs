//! `nocturne policy`: the memory's retention policy, shown or changed as a logged edit
//! (`flow::edit::set_policy`), with what the next Sleep would retire under it.

use crate::error::CliError;
use crate::store::Memory;
use nocturne_core::flow::{estimate, policy, sleep};
use nocturne_core::llm::provider::ProposalStyle;
use nocturne_core::store::Store;

/// A number of days or facts, or `off`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Setting {
    Off,
    To(f64),
}

impl std::str::FromStr for Setting {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "off" | "none" => Ok(Setting::Off),
            n => n
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .map(Setting::To)
                .ok_or_else(|| format!("expected a number or 'off', got '{s}'")),
        }
    }
}

impl Setting {
    fn days(self) -> Option<f64> {
        match self {
            Setting::Off => None,
            Setting::To(v) => Some(v),
        }
    }
    fn count(self) -> Option<usize> {
        self.days().map(|v| v.round() as usize)
    }
}

/// What to change; `None`: leave as it is.
#[derive(Clone, Copy, Debug, Default)]
pub struct Changes {
    pub stale_after_days: Option<Setting>,
    pub max_active_facts: Option<Setting>,
    pub transient_grace_days: Option<Setting>,
    pub commitment_grace_days: Option<Setting>,
}

/// Prints the policy (after applying `changes`, logged as the user's edit), then what the
/// next Sleep would retire under it.
pub fn run(path: &std::path::Path, now: i64, changes: Changes) -> Result<(), CliError> {
    let memory = Memory::open_existing(path)?;
    let mut policy = pollster::block_on(memory.meta()).map_err(|e| e.to_string())?.policy;
    if let Some(s) = changes.stale_after_days {
        policy.stale_after_days = s.days();
    }
    if let Some(s) = changes.max_active_facts {
        policy.max_active_facts = s.count();
    }
    if let Some(s) = changes.transient_grace_days {
        policy.transient_grace_days = s.days();
    }
    if let Some(s) = changes.commitment_grace_days {
        policy.commitment_grace_days = s.days();
    }
    let change = nocturne_core::write::Policy { policy: policy.clone(), at: now };
    let mut quiet = nocturne_core::write::Watch::quiet();
    let set = crate::write::perform(path, &memory, change, &nocturne_core::write::NoModel, &mut quiet)
        .map_err(|e| e.to_string())?;
    match set.done {
        Some(reason) => println!("changed: {reason}"),
        None => println!("unchanged"),
    }
    if let Some(recorded) = set.recorded {
        println!("recorded for the next sync: {recorded}");
    }
    let days = |d: Option<f64>| d.map_or("off".to_string(), |d| format!("{d} days"));
    println!("forget by age: {}", days(policy.stale_after_days));
    println!("at most: {}", policy.max_active_facts.map_or("no cap".to_string(), |n| format!("{n} active facts")));
    println!("passing states kept after their while: {}", days(policy.transient_grace_days));
    println!("commitments kept after their date: {}", days(policy.commitment_grace_days));
    println!("protected: {}", policy.protected_categories.join(", "));
    let options = sleep::SleepOptions::new(now);
    let (_, note) = policy::in_force(&policy, options.policy.as_ref());
    if let Some(note) = note {
        println!("note: at the next Sleep, {note}");
    }
    let estimate = pollster::block_on(estimate::estimate(&memory, ProposalStyle::FreeText, &options))
        .map_err(|e| e.to_string())?;
    println!("the next Sleep would retire {} of {} active facts", estimate.retire, estimate.active);
    Ok(())
}
