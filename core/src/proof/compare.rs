//! The cross-model benchmark: the same seeded conversation and Sleep through any
//! provider, counted — encoder verdicts, edits per pass, invention attempts, quiz score,
//! forgotten probe, model calls, tokens, wall time. Time comes in through `clock`.

use crate::flow::chat;
use crate::flow::sleep::{self, SleepOptions};
use crate::llm::provider::{Completion, Layer, Provider};
use crate::model::memory::Mutation;
use crate::model::pass::PassKind;
use crate::model::DAY;
use crate::proof::quiz;
use crate::proof::verify::SCRIPT;
use crate::store::{MemStore, Store};
use serde::{Deserialize, Serialize};
use std::cell::Cell;

/// Counts the calls and tokens going through a provider.
#[derive(Debug)]
pub struct Metered<P> {
    pub inner: P,
    pub calls: Cell<u64>,
    pub prompt_tokens: Cell<u64>,
    pub completion_tokens: Cell<u64>,
}

impl<P> Metered<P> {
    pub fn new(inner: P) -> Self {
        Metered { inner, calls: Cell::new(0), prompt_tokens: Cell::new(0), completion_tokens: Cell::new(0) }
    }
}

impl<P: Provider> Layer for Metered<P> {
    type Inner = P;
    fn inner(&self) -> &P {
        &self.inner
    }
    fn after_call(&self, out: &Completion) {
        self.calls.set(self.calls.get() + 1);
        self.prompt_tokens.set(self.prompt_tokens.get() + out.prompt_tokens);
        self.completion_tokens.set(self.completion_tokens.get() + out.completion_tokens);
    }
}

/// One provider's row of the table.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    pub provider: String,
    /// How the model proposed, at the end of the run (`choose from candidates`).
    pub style: String,
    pub facts_proposed: usize,
    pub facts_accepted: usize,
    pub facts_refused: usize,
    /// Encoder replies that were unusable (truncated, not JSON); those turns were kept.
    pub encode_errors: usize,
    /// (pass, proposed by the model, accepted, refused).
    pub passes: Vec<(String, usize, usize, usize)>,
    /// Refusals for invented tokens or names (encoder and merge).
    pub invention_attempts: usize,
    /// Quiz answers correct by words, and by citation.
    pub quiz_correct: usize,
    pub quiz_cited: usize,
    pub quiz_asked: usize,
    /// Passes that ended on an unusable reply (the Sleep went on without them).
    pub failed_passes: usize,
    /// `None` when nothing was forgotten to probe.
    pub probe_passed: Option<bool>,
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub seconds: f64,
    /// Where the run stopped, if it did.
    pub error: Option<String>,
}

fn is_invention(m: &Mutation) -> bool {
    m.rejection_reason
        .as_deref()
        .is_some_and(|r| r.contains("invented") || r.contains("not traceable") || r.contains("proper nouns absent"))
}

/// Runs the scripted conversation, a Sleep and the quiz through `provider` on a fresh
/// in-memory store. `clock` returns milliseconds.
pub async fn run<P: Provider>(provider: P, now: i64, clock: &dyn Fn() -> f64) -> Row {
    let metered = Metered::new(provider);
    let store = MemStore::new();
    let start = clock();
    let mut row = Row { provider: metered.label(), ..Default::default() };
    let outcome = async {
        for (days, text) in SCRIPT {
            let turn =
                chat::chat_turn(&store, &metered, text, now - (days * DAY as f64) as i64, chat::TurnOptions::default())
                    .await
                    .map_err(|e| e.to_string())?;
            row.encode_errors += usize::from(turn.encode_error.is_some());
        }
        let report =
            sleep::sleep(&store, &metered, &SleepOptions::new(now), &mut |_| {}).await.map_err(|e| e.to_string())?;
        row.passes = report
            .passes
            .iter()
            .map(|p| {
                (
                    p.event.pass.name().to_string(),
                    p.event.proposed,
                    p.event.accepted - p.event.enforced,
                    p.event.rejected,
                )
            })
            .collect();
        row.failed_passes = report.failed().count();
        let q = quiz::wake(&store, &metered, now).await.map_err(|e| e.to_string())?;
        row.quiz_correct = q.correct();
        row.quiz_cited = q.cited_correct();
        row.quiz_asked = q.questions.len();
        row.probe_passed = q.probe.map(|p| p.passed);
        Ok::<(), String>(())
    }
    .await;
    row.error = outcome.err();
    let log = store.mutations().await.unwrap_or_default();
    let encoded: Vec<&Mutation> = log.iter().filter(|m| m.pass == PassKind::Encode).collect();
    row.facts_proposed = encoded.len();
    row.facts_accepted = encoded.iter().filter(|m| m.accepted).count();
    row.facts_refused = row.facts_proposed - row.facts_accepted;
    row.invention_attempts = log.iter().filter(|m| is_invention(m)).count();
    row.calls = metered.calls.get();
    row.prompt_tokens = metered.prompt_tokens.get();
    row.completion_tokens = metered.completion_tokens.get();
    row.seconds = (clock() - start) / 1000.0;
    row.style = metered.proposal_style().label().to_string();
    row
}

/// The rows as a Markdown table.
pub fn table(rows: &[Row]) -> String {
    let mut out = String::from(
        "| provider | proposal style | facts proposed / accepted / refused (unusable replies) | dedupe | merge | supersede | promote | forget | invention attempts | quiz (words · citations) | forgotten probe | calls | prompt / completion tokens | time |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let pass = |name: &str| {
            r.passes.iter().find(|p| p.0 == name).map_or("—".to_string(), |p| format!("{} / {} / {}", p.1, p.2, p.3))
        };
        let style = if r.failed_passes > 0 {
            format!("{} ({} pass(es) ended on an unusable reply)", r.style, r.failed_passes)
        } else {
            r.style.clone()
        };
        let probe = match r.probe_passed {
            Some(true) => "passed",
            Some(false) => "failed",
            None => "nothing forgotten",
        };
        out.push_str(&format!(
            "| {} | {} | {} / {} / {} ({}) | {} | {} | {} | {} | {} | {} | {}/{} · {}/{} | {} | {} | {} / {} | {:.1} s |\n",
            r.provider,
            style,
            r.facts_proposed,
            r.facts_accepted,
            r.facts_refused,
            r.encode_errors,
            pass("dedupe"),
            pass("merge"),
            pass("supersede"),
            pass("promote"),
            pass("forget"),
            r.invention_attempts,
            r.quiz_correct,
            r.quiz_asked,
            r.quiz_cited,
            r.quiz_asked,
            r.error
                .as_ref()
                .map_or(probe.to_string(), |e| format!("stopped: {}", e.chars().take(60).collect::<String>())),
            r.calls,
            r.prompt_tokens,
            r.completion_tokens,
            r.seconds
        ));
    }
    out.push_str("\nPer pass: edits the model proposed / accepted / refused (engine-rule edits not included).\n");
    out
}
