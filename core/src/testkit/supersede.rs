//! The supersede pairs (`corpora/supersede.tsv`) through the Supersede gate, as a careless
//! model would send them: every pair, compatible or not, proposed as a supersession of the
//! older statement by the newer, each statement its own fact and its own turn, said thirty
//! days and one day ago. A compatible pair must be refused (both still hold); a change
//! accepted. Figures by half and shape; the test half's are the ones reported, the dev
//! pairs (`supersede-dev.tsv`, a second writer's) are tuning material like the tuning half.

use super::corpora::{self, Half, Pair};
use crate::gate::case::{Case, CaseError};
use serde_json::json;
use std::collections::BTreeMap;

/// Compatible pairs kept (refused), test half, per shape: at least this share.
pub const COMPATIBLE_KEPT: f64 = 0.97;
/// Changes accepted, test half, per shape: at least this share.
pub const CHANGES_ACCEPTED: f64 = 0.90;
/// The test half's totals this code must not fall below (what it reached when the referent
/// rule landed: 68/72 kept, 45/86 accepted), while the per-shape targets above are not yet
/// met: a rule that supersedes every pair loses the first, one that refuses every pair the
/// second.
pub const FLOOR_COMPATIBLE_KEPT: f64 = 0.94;
/// See [`FLOOR_COMPATIBLE_KEPT`].
pub const FLOOR_CHANGES_ACCEPTED: f64 = 0.50;

/// `(pairs, right)` of one kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    pub pairs: usize,
    pub right: usize,
}

impl Count {
    pub fn share(&self) -> f64 {
        if self.pairs == 0 {
            1.0
        } else {
            self.right as f64 / self.pairs as f64
        }
    }
    fn add(&mut self, right: bool) {
        self.pairs += 1;
        self.right += usize::from(right);
    }
}

/// One half and shape: compatible pairs kept, changes accepted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub kept: Count,
    pub accepted: Count,
}

/// How the gate did on the pairs.
#[derive(Clone, Debug, Default)]
pub struct Score {
    pub groups: BTreeMap<(Half, &'static str), Tally>,
    /// `(half, line)`: the pairs the gate got wrong, with its reason (print the tuning and
    /// dev halves' only: nobody tunes a rule on the test half by reading it).
    pub misses: Vec<(Half, String)>,
}

impl Score {
    /// Every shape of one half together.
    pub fn total(&self, half: Half) -> Tally {
        let mut out = Tally::default();
        for t in self.groups.iter().filter(|((h, _), _)| *h == half).map(|(_, t)| t) {
            out.kept.pairs += t.kept.pairs;
            out.kept.right += t.kept.right;
            out.accepted.pairs += t.accepted.pairs;
            out.accepted.right += t.accepted.right;
        }
        out
    }

    /// `supersede: half=… shape=… compatibleKept=a/n changesAccepted=b/m`, each half's
    /// total first.
    pub fn lines(&self) -> Vec<String> {
        let line = |half: Half, shape: &str, t: &Tally| {
            format!(
                "supersede: half={} shape={shape} compatibleKept={}/{} ({:.3}) changesAccepted={}/{} ({:.3})",
                half.name(),
                t.kept.right,
                t.kept.pairs,
                t.kept.share(),
                t.accepted.right,
                t.accepted.pairs,
                t.accepted.share()
            )
        };
        let mut out = Vec::new();
        for half in [Half::Tuning, Half::Test, Half::Dev] {
            if self.total(half) == Tally::default() {
                continue;
            }
            out.push(line(half, "all", &self.total(half)));
            for ((_, shape), t) in self.groups.iter().filter(|((h, _), _)| *h == half) {
                out.push(line(half, shape, t));
            }
        }
        out
    }

    /// The test half's totals under their floors, as sentences (empty: no regression).
    pub fn below_floor(&self) -> Vec<String> {
        let t = self.total(Half::Test);
        let mut out = Vec::new();
        if t.kept.share() < FLOOR_COMPATIBLE_KEPT {
            out.push(format!("compatible kept {:.3} < {FLOOR_COMPATIBLE_KEPT}", t.kept.share()));
        }
        if t.accepted.share() < FLOOR_CHANGES_ACCEPTED {
            out.push(format!("changes accepted {:.3} < {FLOOR_CHANGES_ACCEPTED}", t.accepted.share()));
        }
        out
    }

    /// The shapes of the test half under a target, as sentences (empty: on target).
    pub fn off_target(&self) -> Vec<String> {
        let mut out = Vec::new();
        for ((_, shape), t) in self.groups.iter().filter(|((h, _), _)| *h == Half::Test) {
            if t.kept.share() < COMPATIBLE_KEPT {
                out.push(format!("{shape}: compatible kept {:.3} < {COMPATIBLE_KEPT}", t.kept.share()));
            }
            if t.accepted.share() < CHANGES_ACCEPTED {
                out.push(format!("{shape}: changes accepted {:.3} < {CHANGES_ACCEPTED}", t.accepted.share()));
            }
        }
        out
    }
}

const NOW: i64 = 1_767_225_600;
const DAY: i64 = 86_400;

/// The gate case a careless model makes of `pair`: supersede the older by the newer.
pub fn case(pair: &Pair) -> Case {
    let item = |id: &str, text: &str, days_ago: i64, turn: u32| {
        json!({"itemId": id, "block": "human", "text": text, "category": "identity",
               "createdAt": NOW - days_ago * DAY, "active": true, "sourceTurn": turn})
    };
    let case = json!({
        "name": format!("{} {}: '{}' then '{}'", pair.shape, if pair.change { "change" } else { "compatible" }, pair.older, pair.newer),
        "now": NOW,
        "policy": serde_json::to_value(crate::model::policy::RetentionPolicy::default()).unwrap_or_default(),
        "transcript": [format!("user: {}", pair.older), format!("user: {}", pair.newer)],
        "items": [item("m_1", pair.older, 30, 0), item("m_2", pair.newer, 1, 1)],
        "pass": "supersede",
        "proposal": {"supersede": [{"oldId": "m_1", "newId": "m_2", "reason": "the newer value"}]},
        "expect": [],
    });
    serde_json::from_value(case).unwrap_or_else(|e| panic!("a supersede pair builds a valid case: {e}"))
}

/// Every pair of `supersede.tsv` through the gate.
pub fn score() -> Result<Score, CaseError> {
    score_of(&corpora::supersede())
}

/// [`score`] over `pairs`.
pub fn score_of(pairs: &[Pair]) -> Result<Score, CaseError> {
    let mut s = Score::default();
    for pair in pairs {
        let result = case(pair).judge()?;
        let Some(verdict) = result.verdicts.last() else { continue };
        let tally = s.groups.entry((pair.half, pair.shape)).or_default();
        let right = verdict.accepted == pair.change;
        if pair.change {
            tally.accepted.add(right);
        } else {
            tally.kept.add(right);
        }
        if !right {
            let what = if pair.change { "change refused" } else { "compatible accepted" };
            s.misses.push((
                pair.half,
                format!("{} {what}: {:?} / {:?}: {}", pair.shape, pair.older, pair.newer, verdict.reason),
            ));
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_has_both_labels_in_both_halves() {
        let s = score().unwrap();
        let shapes: std::collections::BTreeSet<&str> = s.groups.keys().map(|(_, shape)| *shape).collect();
        assert_eq!(shapes.len(), 9);
        for half in [Half::Tuning, Half::Test] {
            for shape in &shapes {
                let t = s.groups[&(half, *shape)];
                assert!(t.kept.pairs >= 4 && t.accepted.pairs >= 4, "{shape} {half:?}: {t:?}");
            }
        }
    }

    #[test]
    fn the_gate_today_is_above_its_floor_and_a_gate_that_supersedes_every_pair_is_not() {
        let s = score().unwrap();
        assert!(s.below_floor().is_empty(), "{:?}", s.below_floor());
        // The careless gate: every compatible pair superseded (none kept), every change accepted.
        let mut careless = s.clone();
        for ((half, _), t) in careless.groups.iter_mut() {
            if *half == Half::Test {
                t.kept.right = 0;
                t.accepted.right = t.accepted.pairs;
            }
        }
        assert!(careless.below_floor()[0].starts_with("compatible kept 0.000"), "{:?}", careless.below_floor());
        // The timid gate: every pair refused.
        let mut timid = s;
        for t in timid.groups.values_mut() {
            t.kept.right = t.kept.pairs;
            t.accepted.right = 0;
        }
        assert_eq!(timid.below_floor(), ["changes accepted 0.000 < 0.5"]);
    }
}
