//! The verifier's checks: each one line of evidence ([`Check`]), all of a run
//! ([`VerifyReport`]) and the recorder its steps write them to.

use serde::{Deserialize, Serialize};

/// One verifier check.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    pub name: String,
    pub passed: bool,
    /// Depends on the model's skill: reported, and only required of the offline provider.
    pub model_dependent: bool,
    /// Whether this run requires it to pass (every check that is not model-dependent,
    /// and every check when the run requires skill).
    pub required: bool,
    pub evidence: String,
}

impl Check {
    /// `[OK] name: evidence`, `[FAIL] …` for a required check that failed, or `[score] …`
    /// for a model-dependent figure this run does not require.
    pub fn line(&self) -> String {
        let tag = match (self.passed, self.required) {
            (true, _) => "OK",
            (false, true) => "FAIL",
            (false, false) => "score",
        };
        format!("[{tag}] {}: {}", self.name, self.evidence)
    }
}

/// All checks.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct VerifyReport {
    pub checks: Vec<Check>,
}

impl VerifyReport {
    /// Checks that count toward the verdict.
    pub fn required(&self, require_skill: bool) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(move |c| require_skill || !c.model_dependent)
    }

    /// The check called `name`, if it ran.
    pub fn get(&self, name: &str) -> Option<&Check> {
        self.checks.iter().find(|c| c.name == name)
    }

    /// Whether every required check passed.
    pub fn ok(&self, require_skill: bool) -> bool {
        self.required(require_skill).all(|c| c.passed)
    }

    /// `N/M checks`.
    pub fn summary(&self, require_skill: bool) -> String {
        let required: Vec<&Check> = self.required(require_skill).collect();
        let passed = required.iter().filter(|c| c.passed).count();
        let reported = self.checks.len() - required.len();
        let extra =
            if reported > 0 { format!(" ({reported} model-dependent figure(s) reported)") } else { String::new() };
        format!("{passed}/{} checks{extra}", required.len())
    }
}

/// Where the verifier's steps record their checks: each is passed to `sink` as it is made
/// and kept in `report`.
pub(crate) struct Recorder<'a> {
    pub(crate) report: VerifyReport,
    pub(crate) require_skill: bool,
    pub(crate) sink: &'a mut dyn FnMut(&Check),
}

impl Recorder<'_> {
    pub(crate) fn check(&mut self, name: &str, passed: bool, model_dependent: bool, evidence: String) {
        let required = self.require_skill || !model_dependent;
        let c = Check { name: name.into(), passed, model_dependent, required, evidence };
        (self.sink)(&c);
        self.report.checks.push(c);
    }
}
