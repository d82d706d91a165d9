//! Every required check of the verifier can fail: each test plants the one fault that
//! check exists to catch — in the store, the model or the case files — and shows the
//! check fails, prints `[FAIL]` and fails the run. A control run with no fault passes.

use nocturne_core::gate::case;
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::provider::{Completion, Provider, ProviderError, Request, Task};
use nocturne_core::model::memory::{Item, Mutation, Turn, Version};
use nocturne_core::proof::check::VerifyReport;
use nocturne_core::proof::verify::{self, VerifyOptions};
use nocturne_core::store::{Commit, MemStore, Meta, Store, StoreError};
use nocturne_core::testkit::choose;
use nocturne_core::{PassKind, RetentionPolicy};
use std::cell::Cell;

const NOW: i64 = 1_767_225_600;

/// What a [`Faulty`] store gets wrong.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    None,
    /// Reports a write on every read of its counter (as if the dry run wrote).
    CountsWritesOnReads,
    /// Hides the Sleep's Dedupe verdicts from the log.
    HidesVerdicts,
    /// Shows an accepted drop pointing at a keeper it does not resemble.
    ForgesAKeeper,
    /// Shows an invented fact among the active ones.
    InventsAFact,
    /// Loses change rows from the diff's range.
    LosesChanges,
    /// A restore that writes a marker and changes nothing.
    RestoresNothing,
    /// Writes a Sleep's versions and log but none of its changed rows (nothing changes).
    SleepsWithoutChanges,
    /// Reads back a policy in which commitments never fall due.
    NeverFallsDue,
    /// Says it rewrote every row, and rewrote none (an erase that erases nothing).
    IgnoresRewrites,
}

/// MemStore with one planted fault.
struct Faulty {
    inner: MemStore,
    fault: Fault,
    reads: Cell<u64>,
}

impl Faulty {
    fn new(fault: Fault) -> Self {
        Faulty { inner: MemStore::new(), fault, reads: Cell::new(0) }
    }
}

impl Store for Faulty {
    async fn items(&self) -> Result<Vec<Item>, StoreError> {
        let mut items = self.inner.items().await?;
        if self.fault == Fault::InventsAFact && !items.is_empty() {
            let mut yacht = items[0].clone();
            yacht.item_id = "m_900".into();
            yacht.text = "The user owns a yacht in Monaco.".into();
            yacht.active = true;
            items.push(yacht);
        }
        Ok(items)
    }
    async fn meta(&self) -> Result<Meta, StoreError> {
        let mut meta = self.inner.meta().await?;
        if self.fault == Fault::NeverFallsDue {
            meta.policy.commitment_grace_days = None;
        }
        Ok(meta)
    }
    async fn versions(&self) -> Result<Vec<Version>, StoreError> {
        self.inner.versions().await
    }
    async fn mutations(&self) -> Result<Vec<Mutation>, StoreError> {
        let mut log = self.inner.mutations().await?;
        match self.fault {
            Fault::HidesVerdicts => log.retain(|m| m.pass != PassKind::Dedupe),
            Fault::ForgesAKeeper => {
                if let Some(m) = log.iter_mut().find(|m| m.accepted && m.pass == PassKind::Dedupe) {
                    let other = if m.item_id == "m_1" { "m_2" } else { "m_1" };
                    m.refs.duplicate_of = Some(other.into());
                }
            }
            _ => {}
        }
        Ok(log)
    }
    async fn transcript(&self) -> Result<Vec<Turn>, StoreError> {
        self.inner.transcript().await
    }
    async fn items_at(&self, seq: u64) -> Result<Vec<Item>, StoreError> {
        self.inner.items_at(seq).await
    }
    async fn changes(&self, lo: u64, hi: u64) -> Result<Vec<(u64, Item)>, StoreError> {
        let mut rows = self.inner.changes(lo, hi).await?;
        if self.fault == Fault::LosesChanges && hi > lo + 1 {
            rows.retain(|(_, i)| i.active);
        }
        Ok(rows)
    }
    async fn item_states(&self, ids: &[String], seq: u64) -> Result<Vec<Item>, StoreError> {
        let mut rows = self.inner.item_states(ids, seq).await?;
        if self.fault == Fault::LosesChanges {
            rows.retain(|i| i.active);
        }
        Ok(rows)
    }
    async fn commit(&self, mut commit: Commit) -> Result<Vec<Version>, StoreError> {
        if self.fault == Fault::SleepsWithoutChanges && commit.label.as_deref().is_some_and(|l| l.starts_with("pass:"))
        {
            commit.items.clear();
        }
        self.inner.commit(commit).await
    }
    async fn set_policy(&self, policy: RetentionPolicy) -> Result<(), StoreError> {
        self.inner.set_policy(policy).await
    }
    async fn replace_all(&self, doc: nocturne_core::store::document::Document, base: u64) -> Result<(), StoreError> {
        if self.fault == Fault::IgnoresRewrites {
            return Ok(());
        }
        self.inner.replace_all(doc, base).await
    }
    fn rows_written(&self) -> u64 {
        if self.fault == Fault::CountsWritesOnReads {
            self.reads.set(self.reads.get() + 1);
        }
        self.inner.rows_written() + self.reads.get()
    }
    async fn restore(&self, seq: u64, at: i64) -> Result<Version, StoreError> {
        if self.fault == Fault::RestoresNothing {
            return self.inner.snapshot(&format!("restore:v{seq}"), at).await;
        }
        self.inner.restore(seq, at).await
    }
}

/// The offline provider, with one task answered differently.
struct Twisted {
    task: Task,
    reply: fn(&Request) -> String,
}

impl Provider for Twisted {
    fn label(&self) -> String {
        "twisted offline".into()
    }
    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        if request.task == self.task {
            return Ok(Completion { text: (self.reply)(request), ..Default::default() });
        }
        OfflineProvider.complete(request).await
    }
}

fn options() -> VerifyOptions {
    VerifyOptions { now: NOW, require_skill: true, cases: case::bundled() }
}

fn run<S: Store, P: Provider>(store: &S, provider: &P, options: &VerifyOptions) -> VerifyReport {
    pollster::block_on(verify::verify(store, provider, options, &mut |_| {}))
}

/// The check called `name` failed, shows `[FAIL]`, and the run fails.
fn fails(report: &VerifyReport, name: &str) {
    let check = report.get(name).unwrap_or_else(|| panic!("no check called {name}: {report:#?}"));
    assert!(!check.passed, "{name} passed despite the planted fault: {}", check.evidence);
    assert!(check.line().starts_with("[FAIL]"), "{}", check.line());
    assert!(!report.ok(true), "the run passed with a failing required check");
}

#[test]
fn with_no_fault_every_check_passes() {
    let report = run(&Faulty::new(Fault::None), &OfflineProvider, &options());
    assert!(report.ok(true), "{:#?}", report.checks.iter().filter(|c| !c.passed).collect::<Vec<_>>());
    assert!(report.checks.len() >= 20);
}

#[test]
fn seed_fails_when_the_encoder_stores_nothing() {
    let silent = Twisted { task: Task::Propose(PassKind::Encode), reply: |_| r#"{"facts": []}"#.into() };
    let report = run(&MemStore::new(), &silent, &options());
    fails(&report, "seed");
    assert!(report.get("seed").is_some_and(|c| c.evidence.contains("insufficient evidence")));
}

#[test]
fn dry_run_fails_when_the_store_reports_writes() {
    fails(&run(&Faulty::new(Fault::CountsWritesOnReads), &OfflineProvider, &options()), "dry run");
}

#[test]
fn policy_comparison_fails_when_no_cap_can_forget_anything() {
    let store = MemStore::new();
    let everything = ["identity", "preferences", "commitments", "event", "context"].map(String::from).to_vec();
    pollster::block_on(store.set_policy(RetentionPolicy { protected_categories: everything, ..Default::default() }))
        .expect("policy");
    fails(&run(&store, &OfflineProvider, &options()), "policy comparison");
}

#[test]
fn sleep_fails_on_a_garbage_reply_and_the_gate_cases_still_run() {
    let garbage = Twisted { task: Task::Propose(PassKind::Merge), reply: |_| "I cannot help with that".into() };
    let report = run(&MemStore::new(), &garbage, &options());
    fails(&report, "sleep");
    assert!(report.get("gate cases").is_some_and(|c| c.passed), "the gates need no model");
}

#[test]
fn refusals_logged_fails_when_verdicts_are_missing_from_the_log() {
    fails(&run(&Faulty::new(Fault::HidesVerdicts), &OfflineProvider, &options()), "refusals logged");
}

#[test]
fn re_audit_fails_on_a_forged_keeper() {
    fails(&run(&Faulty::new(Fault::ForgesAKeeper), &OfflineProvider, &options()), "re-audit");
}

#[test]
fn no_invention_fails_on_an_invented_fact() {
    fails(&run(&Faulty::new(Fault::InventsAFact), &OfflineProvider, &options()), "no invention");
}

#[test]
fn diff_fails_when_change_rows_are_lost() {
    fails(&run(&Faulty::new(Fault::LosesChanges), &OfflineProvider, &options()), "diff");
}

#[test]
fn restore_fails_when_a_restore_changes_nothing() {
    fails(&run(&Faulty::new(Fault::RestoresNothing), &OfflineProvider, &options()), "restore");
}

#[test]
fn quiz_questions_fail_when_every_question_gives_its_answer_away() {
    let leaky = Twisted {
        task: Task::QuizQuestion,
        reply: |req| {
            let fact = req.messages.last().map(|m| m.content.clone()).unwrap_or_default();
            let fact: serde_json::Value = serde_json::from_str(&fact).unwrap_or_default();
            serde_json::json!({"question": format!("Is it true that {}?", fact["fact"].as_str().unwrap_or(""))})
                .to_string()
        },
    };
    fails(&run(&MemStore::new(), &leaky, &options()), "quiz questions");
}

#[test]
fn meaning_held_fails_when_the_negation_never_reaches_memory() {
    // A model that drops the user's "not": the gate refuses the fact, so memory lacks it.
    let careless = Twisted {
        task: Task::Propose(PassKind::Encode),
        reply: |req| {
            let payload: serde_json::Value =
                serde_json::from_str(&req.messages.last().map(|m| m.content.clone()).unwrap_or_default())
                    .unwrap_or_default();
            let facts: Vec<serde_json::Value> = payload["turns"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t["text"].as_str())
                .flat_map(|t| t.split(". ").map(str::to_string).collect::<Vec<_>>())
                .map(|s| serde_json::json!({"text": s.replace("not ", ""), "category": "preferences"}))
                .collect();
            serde_json::json!({ "facts": facts }).to_string()
        },
    };
    fails(&run(&MemStore::new(), &careless, &options()), "meaning held");
}

#[test]
fn commitment_falls_due_fails_when_commitments_never_lose_their_protection() {
    fails(&run(&Faulty::new(Fault::NeverFallsDue), &OfflineProvider, &options()), "commitment falls due");
}

#[test]
fn erase_fails_when_the_store_keeps_the_words() {
    fails(&run(&Faulty::new(Fault::IgnoresRewrites), &OfflineProvider, &options()), "erase");
}

#[test]
fn temporal_recall_fails_when_the_answer_drops_the_date() {
    // Answers from memory but leaves out the line's date: "when" goes unanswered.
    let undated = Twisted {
        task: Task::Chat,
        reply: |req| {
            // Every ISO date (`2026-01-02`) taken out of the reply, the rest kept.
            let text = nocturne_core::llm::offline::respond(req);
            let chars: Vec<char> = text.chars().collect();
            let iso = |w: &[char]| {
                w.len() == 10
                    && w.iter().enumerate().all(|(k, c)| if k == 4 || k == 7 { *c == '-' } else { c.is_ascii_digit() })
            };
            let mut out = String::new();
            let mut k = 0;
            while k < chars.len() {
                if chars.get(k..k + 10).is_some_and(iso) {
                    k += 10;
                } else {
                    out.push(chars[k]);
                    k += 1;
                }
            }
            out
        },
    };
    fails(&run(&MemStore::new(), &undated, &options()), "temporal recall");
}

#[test]
fn gate_cases_fail_on_a_case_that_disagrees_and_on_none_at_all() {
    let mut cases = case::bundled();
    let (name, text) = cases[0].clone();
    let flipped = text.replacen("\"accepted\": true", "\"accepted\": false", 1);
    assert_ne!(flipped, text, "{name} has a verdict to flip");
    cases[0] = (name, flipped);
    let tampered = VerifyOptions { cases, ..options() };
    fails(&run(&MemStore::new(), &OfflineProvider, &tampered), "gate cases");
    let none = VerifyOptions { cases: Vec::new(), ..options() };
    fails(&run(&MemStore::new(), &OfflineProvider, &none), "gate cases");
}

#[test]
fn a_failed_required_check_prints_fail_and_a_model_figure_prints_score() {
    let silent = Twisted { task: Task::Propose(PassKind::Encode), reply: |_| r#"{"facts": []}"#.into() };
    let lenient = VerifyOptions { require_skill: false, ..options() };
    let report = run(&MemStore::new(), &silent, &lenient);
    let encoder = report.get("encoder").expect("encoder check");
    assert!(!encoder.passed && encoder.line().starts_with("[score]"), "{}", encoder.line());
    assert!(report.get("seed").is_some_and(|c| c.line().starts_with("[FAIL]")));
    assert!(!report.ok(false));
}

/// A model that only chooses (candidates style): every option the code offered, or none.
struct Chooser {
    all: bool,
}

impl Provider for Chooser {
    fn label(&self) -> String {
        format!("chooses {}", if self.all { "everything" } else { "nothing" })
    }
    fn proposal_style(&self) -> nocturne_core::llm::provider::ProposalStyle {
        nocturne_core::llm::provider::ProposalStyle::Candidates
    }
    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        let Task::Propose(pass) = request.task else { return OfflineProvider.complete(request).await };
        let reply =
            if self.all { choose::everything(request, pass) } else { serde_json::json!({ pass.proposal_key(): [] }) };
        Ok(Completion { text: reply.to_string(), ..Default::default() })
    }
}

#[test]
fn a_model_that_chooses_every_candidate_and_one_that_chooses_none_give_different_memories() {
    let all = MemStore::new();
    let report = run(&all, &Chooser { all: true }, &VerifyOptions { require_skill: false, ..options() });
    assert!(report.ok(false), "{:#?}", report.checks.iter().filter(|c| !c.passed && c.required).collect::<Vec<_>>());
    let seed = report.get("seed").expect("seed");
    assert!(seed.evidence.contains("candidate statement(s) offered"), "{}", seed.evidence);
    let none = MemStore::new();
    let report = run(&none, &Chooser { all: false }, &VerifyOptions { require_skill: false, ..options() });
    fails(&report, "seed");
    let stored = |s: &MemStore| {
        pollster::block_on(s.mutations())
            .expect("log")
            .iter()
            .filter(|m| m.pass == PassKind::Encode && m.accepted)
            .count()
    };
    assert!(stored(&all) >= 8, "choosing all stored {}", stored(&all));
    assert_eq!(stored(&none), 0, "the code never stores a candidate the model did not choose");
}

#[test]
fn diff_and_restore_fail_for_lack_of_evidence_when_the_sleep_changed_nothing() {
    let report = run(&Faulty::new(Fault::SleepsWithoutChanges), &OfflineProvider, &options());
    fails(&report, "diff");
    fails(&report, "restore");
    for name in ["diff", "restore"] {
        let check = report.get(name).expect("check");
        assert!(check.evidence.contains("insufficient evidence"), "{name}: {}", check.evidence);
    }
}
