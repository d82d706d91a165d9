//! One import path for every history a reader understands (`history::read`): each message
//! becomes a turn at the time it was written, with its source id; the person's messages go
//! through the same Encode gate as a chat turn's, in batches; then a Sleep per day of
//! history or one deep Sleep at the end. A message whose source is already in the
//! transcript is skipped, so importing the same file again (or resuming a stopped import,
//! or a later export that contains it) adds only what is new.
//!
//! [`plan`](crate::flow::import_plan::plan) and its estimate are pure
//! ([`crate::flow::import_plan`]); [`run`] is the thin async orchestrator.
//!
//! ```
//! use nocturne_core::flow::import_plan::{plan, ImportOptions};
//! use nocturne_core::history::read;
//! let log = br#"{"role": "user", "content": "I moved to Lisbon.", "timestamp": 1714554000}"#;
//! let history = read("log.jsonl", log, None, 1_796_558_400).unwrap();
//! let p = plan(&history, &Default::default(), &ImportOptions::default());
//! assert_eq!((p.new_user, p.batches.len()), (1, 1));
//! let again = plan(&history, &p.sources().collect(), &ImportOptions::default());
//! assert_eq!((again.new_user, again.duplicates), (0, 1));
//! ```

use crate::flow::chat::{self, Unusable};
use crate::flow::estimate::retires_a_lot;
use crate::flow::focus::Scope;
use crate::flow::import_plan::{turn, ImportOptions, Plan, SleepAfter};
use crate::flow::review::{self, Retiring};
use crate::flow::sleep::{self, SleepError, SleepOptions};
use crate::llm::provider::Provider;
use crate::model::memory::{Item, Mutation, Role, Turn};
use crate::model::provenance::{By, Source};
use crate::store::{Commit, Store, StoreError};
use crate::text::order;
use crate::text::when::Day;
use std::collections::{BTreeMap, HashSet};
use std::ops::Range;

/// Where an import is, after each batch and each Sleep.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Progress {
    pub batches_done: usize,
    pub batches: usize,
    pub turns: usize,
    pub facts: usize,
    pub refused: usize,
    pub sleeps: usize,
    /// The day of history just written.
    pub day: Option<Day>,
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Report {
    pub conversations: usize,
    pub user_turns: usize,
    pub assistant_turns: usize,
    pub facts: usize,
    pub refused: usize,
    /// Refusal reasons and how often each was given, most frequent first.
    pub refusals: Vec<(String, usize)>,
    pub duplicates: usize,
    pub too_long: usize,
    /// User turns stored but not encoded because the encoder's reply was unusable, and why.
    pub unencoded: usize,
    pub unencoded_why: Option<String>,
    pub sleeps: usize,
    /// A Sleep that failed (the import went on), with why.
    pub sleep_errors: Vec<String>,
    /// Stopped by the user: what was written stays; importing again resumes.
    pub stopped: bool,
    /// Why the Sleep at the end did not run, when it was held back.
    pub held: Option<String>,
}

impl Report {
    /// Adds what a later piece of the same import did.
    pub fn absorb(&mut self, later: Report) {
        self.conversations += later.conversations;
        self.user_turns += later.user_turns;
        self.assistant_turns += later.assistant_turns;
        self.facts += later.facts;
        self.refused += later.refused;
        for (why, n) in later.refusals {
            match self.refusals.iter_mut().find(|r| r.0 == why) {
                Some(r) => r.1 += n,
                None => self.refusals.push((why, n)),
            }
        }
        order::sort_by(&mut self.refusals, |a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        self.duplicates += later.duplicates;
        self.too_long += later.too_long;
        self.unencoded += later.unencoded;
        if self.unencoded_why.is_none() {
            self.unencoded_why = later.unencoded_why;
        }
        self.sleeps += later.sleeps;
        self.sleep_errors.extend(later.sleep_errors);
        self.stopped |= later.stopped;
        if later.held.is_some() {
            self.held = later.held;
        }
    }

    /// `import: userTurns=… assistantTurns=… facts=… refused=… duplicates=… …`.
    pub fn line(&self) -> String {
        format!(
            "import: conversations={} userTurns={} assistantTurns={} facts={} refused={} duplicates={} tooLong={} unencoded={} sleeps={} stopped={}",
            self.conversations,
            self.user_turns,
            self.assistant_turns,
            self.facts,
            self.refused,
            self.duplicates,
            self.too_long,
            self.unencoded,
            self.sleeps,
            self.stopped
        )
    }
}

/// Why an import stopped short (what was committed before stays; importing again resumes).
#[derive(Debug)]
pub enum ImportError {
    Store(StoreError),
    /// The provider could not be reached: the batch under way wrote nothing.
    Provider(String),
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImportError::Store(e) => write!(f, "{e}"),
            ImportError::Provider(e) => {
                write!(
                    f,
                    "the model could not be reached ({e}); what was imported before stays, import again to resume"
                )
            }
        }
    }
}

impl std::error::Error for ImportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ImportError::Store(e) => Some(e),
            ImportError::Provider(_) => None,
        }
    }
}

impl From<StoreError> for ImportError {
    fn from(e: StoreError) -> Self {
        ImportError::Store(e)
    }
}

/// Writes `plan` into `store`, encoding through `provider`, and sleeps as asked. `now` is
/// the wall clock: it stamps the commits and the final Sleep; facts are dated by the
/// message they came from.
pub async fn run<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    plan: &Plan,
    options: &ImportOptions,
    now: i64,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<Report, ImportError> {
    run_piece(store, provider, plan, options, now, &mut TranscriptCache::default(), on_progress).await
}

/// [`run`] for one of a plan's [`pieces`](Plan::pieces), `seen` carried from the piece
/// before: while nobody else wrote in between, the transcript is not read again.
pub async fn run_piece<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    plan: &Plan,
    options: &ImportOptions,
    now: i64,
    seen: &mut TranscriptCache,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<Report, ImportError> {
    let mut report = Report {
        conversations: plan.conversations,
        duplicates: plan.duplicates,
        too_long: plan.too_long,
        ..Default::default()
    };
    let mut refusals: BTreeMap<String, usize> = BTreeMap::new();
    let mut progress = Progress { batches: plan.batches.len(), ..Default::default() };
    let mut since_sleep = 0;
    for (n, b) in plan.batches.iter().enumerate() {
        if options.stop.is_stopped() {
            report.stopped = true;
            break;
        }
        let written = crate::store::replanning(
            |e| matches!(e, ImportError::Store(e) if e.is_conflict()),
            async || write_batch(store, provider, plan, b, options, now, seen).await,
        )
        .await;
        let written = match written {
            // Stopped while the batch's model call was under way: the batch wrote nothing,
            // and the import ends as stopped, not as failed.
            Err(ImportError::Provider(_)) if options.stop.is_stopped() => {
                report.stopped = true;
                break;
            }
            other => other?,
        };
        report.user_turns += written.user;
        report.assistant_turns += written.assistant;
        report.facts += written.facts;
        since_sleep += written.facts;
        for m in written.mutations.iter().filter(|m| !m.accepted) {
            report.refused += 1;
            *refusals.entry(m.rejection_reason.clone().unwrap_or_default()).or_default() += 1;
        }
        if let Some(why) = written.unusable {
            report.unencoded += written.user;
            report.unencoded_why.get_or_insert(why);
        }
        let day = Day::from_unix(plan.messages[b.start].at);
        progress = Progress {
            batches_done: n + 1,
            turns: report.user_turns + report.assistant_turns,
            facts: report.facts,
            refused: report.refused,
            day: Some(day),
            ..progress
        };
        on_progress(&progress);
        let day_ends = plan.batches.get(n + 1).is_none_or(|next| Day::from_unix(plan.messages[next.start].at) != day);
        if options.sleep == SleepAfter::EachDay && day_ends && since_sleep > 0 {
            let end_of_day = day.start() + 86_399;
            if !sleep_once(store, provider, options, end_of_day, Scope::Incremental, &mut report).await? {
                break;
            }
            since_sleep = 0;
            progress.sleeps = report.sleeps;
            on_progress(&progress);
        }
    }
    if options.sleep == SleepAfter::End && !report.stopped && report.user_turns > 0 {
        final_sleep(store, provider, options, now, &mut report).await?;
        progress.sleeps = report.sleeps;
        on_progress(&progress);
    }
    let mut refusals: Vec<(String, usize)> = refusals.into_iter().collect();
    order::sort_by(&mut refusals, |a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    report.refusals = refusals;
    Ok(report)
}

/// The deep Sleep after an import, planned first (`flow::review::planned`): when its plan
/// would retire more than a Sleep may without the user's go-ahead
/// (`flow::estimate::retires_a_lot`: old history under a short `staleAfterDays`, a run of
/// supersessions) and `options.retire_a_lot` is not set, nothing is written and
/// `report.held` says what would go and what to do; otherwise the plan is applied as that
/// Sleep (`flow::review::apply_sleep`), the model not asked again.
pub async fn final_sleep<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    options: &ImportOptions,
    now: i64,
    report: &mut Report,
) -> Result<(), ImportError> {
    let sleep_options = final_sleep_options(options, now);
    let planned = review::planned(store, provider, &sleep_options, &mut |_| {}).await;
    let (plan, dry) = match planned {
        Ok(planned) => planned,
        Err(e) => return sleep_failed(e, now, report).map(|_| ()),
    };
    let retiring = plan.retiring();
    if retires_a_lot(retiring.count(), dry.active_before) && !options.retire_a_lot {
        report.held = Some(held(&retiring, dry.active_before));
        return Ok(());
    }
    match review::apply_sleep(store, &plan, now, &mut |_| {}).await {
        Ok(_) => report.sleeps += 1,
        Err(review::ReviewError::Sleep(e)) => return sleep_failed(e, now, report).map(|_| ()),
        Err(e) => report.sleep_errors.push(format!("{}: {e}", Day::from_unix(now))),
    }
    Ok(())
}

/// How the deep Sleep at the end of an import runs.
pub fn final_sleep_options(options: &ImportOptions, now: i64) -> SleepOptions {
    SleepOptions { budget: options.budget, stop: options.stop.clone(), ..SleepOptions::new(now) }.deep()
}

/// Why the Sleep after an import did not run: what its plan would retire, of how many.
pub fn held(retiring: &Retiring, active: usize) -> String {
    format!(
        "the Sleep after the import would retire {} of {active} active facts ({}: {}), more than a Sleep retires without asking, so it did not run; run a Sleep to see them and let it (it asks first), or raise staleAfterDays first if forgetting by age retires them",
        retiring.count(),
        retiring.by_kind(),
        retiring.named(3)
    )
}

/// A Sleep of an import that failed: stopped (the import ends as stopped), the store
/// failing (the import's error), or anything else (noted, and the import goes on). `false`
/// when it was stopped.
fn sleep_failed(e: SleepError, at: i64, report: &mut Report) -> Result<bool, ImportError> {
    match e {
        SleepError::Stopped { .. } => {
            report.stopped = true;
            Ok(false)
        }
        SleepError::Store(e) if !e.is_conflict() => Err(ImportError::Store(e)),
        e => {
            report.sleep_errors.push(format!("{}: {e}", Day::from_unix(at)));
            Ok(true)
        }
    }
}

/// Runs one Sleep; `false` when the user stopped it.
async fn sleep_once<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    options: &ImportOptions,
    at: i64,
    scope: Scope,
    report: &mut Report,
) -> Result<bool, ImportError> {
    let sleep_options =
        SleepOptions { budget: options.budget, stop: options.stop.clone(), scope, ..SleepOptions::new(at) };
    match sleep::sleep(store, provider, &sleep_options, &mut |_| {}).await {
        Ok(_) => {
            report.sleeps += 1;
            Ok(true)
        }
        Err(e) => sleep_failed(e, at, report),
    }
}

/// What one batch wrote.
struct BatchWritten {
    user: usize,
    assistant: usize,
    facts: usize,
    mutations: Vec<Mutation>,
    unusable: Option<String>,
}

/// What an import last saw of the store: the sources in its transcript, and the head,
/// cursor and turn count it left; while those stand, nobody else wrote a turn and the
/// transcript need not be read again.
#[derive(Debug, Default)]
pub struct TranscriptCache {
    sources: HashSet<String>,
    left: Option<(u64, u32, u32)>,
}

/// Writes one batch in one commit planned against the head it read.
async fn write_batch<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    plan: &Plan,
    b: &Range<usize>,
    options: &ImportOptions,
    now: i64,
    seen: &mut TranscriptCache,
) -> Result<BatchWritten, ImportError> {
    let meta = store.meta().await?;
    let count = store.turn_count().await?;
    // Turns a chat left unencoded are encoded with this batch, as a chat turn would.
    let mut waiting = Vec::new();
    if seen.left != Some((meta.head, meta.encoded_through, count)) {
        // Someone else wrote (or this is the first batch): read the transcript again.
        let transcript = store.transcript().await?;
        seen.sources.extend(transcript.iter().filter_map(|t| t.source.clone()));
        waiting = transcript.into_iter().filter(|t| t.index >= meta.encoded_through && t.role == Role::User).collect();
    }
    let next = count;
    let source = options.file.as_ref().map(|file| Source { by: By::Import { file: file.clone() }, received_at: now });
    // Another writer may have imported some of these meanwhile (or a stopped run did).
    let turns: Vec<Turn> = plan.messages[b.clone()]
        .iter()
        .filter(|m| !seen.sources.contains(&m.source))
        .enumerate()
        .map(|(i, m)| Turn { provenance: source.clone(), ..turn(next + i as u32, m) })
        .collect();
    let encodable = |t: &&Turn| t.role == Role::User && t.text.chars().count() <= options.max_encoded_chars;
    let pending: Vec<Turn> = waiting.into_iter().chain(turns.iter().filter(encodable).cloned()).collect();
    let at = turns.last().map_or(now, |t| t.at);
    let mut encoded = chat::encode(provider, &pending, meta.next_item.max(1), at).await;
    if let Err(Unusable { why, in_free_text: true }) = &encoded {
        if provider.observe_unusable(why).is_some() {
            encoded = chat::encode(provider, &pending, meta.next_item.max(1), at).await;
        }
    }
    let (items, mutations, unusable) = match encoded {
        Ok((items, mutations, _)) => (items, mutations, None),
        Err(Unusable { why, in_free_text: false }) => return Err(ImportError::Provider(why)),
        Err(Unusable { why, .. }) => (Vec::new(), Vec::new(), Some(why)),
    };
    let items: Vec<Item> = items.into_iter().map(|item| dated(item, &pending)).collect();
    let written = BatchWritten {
        user: turns.iter().filter(|t| t.role == Role::User).count(),
        assistant: turns.iter().filter(|t| t.role == Role::Assistant).count(),
        facts: items.len(),
        mutations: mutations.clone(),
        unusable,
    };
    let added = turns.len() as u32;
    let sources: Vec<String> = turns.iter().filter_map(|t| t.source.clone()).collect();
    let versions = store
        .commit(Commit {
            at: now,
            label: (!items.is_empty()).then(|| format!("import:{next}")),
            created: items,
            mutations,
            turns,
            encoded_through: Some(next + added),
            base: Some(meta.head),
            ..Default::default()
        })
        .await?;
    seen.sources.extend(sources);
    let head = versions.last().map_or(meta.head, |v| v.seq);
    seen.left = Some((head, next + added, count + added));
    Ok(written)
}

/// `item` dated when its source turn was said (not when it was imported).
fn dated(mut item: Item, turns: &[Turn]) -> Item {
    if let Some(t) = turns.iter().find(|t| Some(t.index) == item.source_turn) {
        item.created_at = t.at;
        item.updated_at = t.at;
        item.valid_from = Some(t.at);
    }
    item
}
