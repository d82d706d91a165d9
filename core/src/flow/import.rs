//! One import path for every history a reader understands (`import::read`): each message
//! becomes a turn at the time it was written, with its source id; the person's messages go
//! through the same Encode gate as a chat turn's, in batches; then a Sleep per day of
//! history or one deep Sleep at the end. A message whose source is already in the
//! transcript is skipped, so importing the same file again (or resuming a stopped import,
//! or a later export that contains it) adds only what is new.
//!
//! [`plan`] and [`estimate`] are pure; [`run`] is the thin async orchestrator.
//!
//! ```
//! use nocturne_core::flow::import::{plan, ImportOptions};
//! use nocturne_core::import::read;
//! let log = br#"{"role": "user", "content": "I moved to Lisbon.", "timestamp": 1714554000}"#;
//! let history = read("log.jsonl", log, None, 0).unwrap();
//! let p = plan(&history, &Default::default(), &ImportOptions::default());
//! assert_eq!((p.new_user, p.batches.len()), (1, 1));
//! let again = plan(&history, &p.sources().collect(), &ImportOptions::default());
//! assert_eq!((again.new_user, again.duplicates), (0, 1));
//! ```

use crate::flow::chat::{self, Unusable};
use crate::flow::focus::Scope;
use crate::flow::sleep::{self, SleepError, SleepOptions};
use crate::flow::stop::StopToken;
use crate::import::{History, Message};
use crate::llm::prompt::{self, Budget};
use crate::llm::provider::{ProposalStyle, Provider};
use crate::model::memory::{Item, Mutation, Role, Turn};
use crate::store::{Commit, Store, StoreError};
use crate::text::candidates;
use crate::text::order;
use crate::text::textmath::estimate_tokens;
use crate::text::when::Day;
use std::collections::{BTreeMap, HashSet};
use std::ops::Range;

/// When the imported memory sleeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SleepAfter {
    /// One deep Sleep after the last batch (the default).
    #[default]
    End,
    /// A Sleep after each day of history, dated that day's end.
    EachDay,
    /// No Sleep: the facts wait in scratch for the next one.
    Never,
}

impl SleepAfter {
    pub fn parse(name: &str) -> Option<SleepAfter> {
        match name {
            "end" => Some(SleepAfter::End),
            "day" | "each-day" => Some(SleepAfter::EachDay),
            "none" | "never" => Some(SleepAfter::Never),
            _ => None,
        }
    }
}

/// How an import runs.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// The person's messages sent to the encoder in one call (and written in one commit).
    pub batch: usize,
    /// A message longer than this (characters) is kept as a turn but not encoded: a pasted
    /// document or program is not a fact about the person, and would not fit a small
    /// model's prompt.
    pub max_encoded_chars: usize,
    pub sleep: SleepAfter,
    /// The Sleeps' model budget.
    pub budget: Budget,
    /// Checked before every batch and inside every Sleep.
    pub stop: StopToken,
    /// Let the Sleep at the end run even when it would retire more than a quarter of the
    /// memory (see [`final_sleep`]).
    pub retire_a_lot: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            batch: 8,
            max_encoded_chars: super::kept::ENCODE_MAX_CHARS,
            sleep: SleepAfter::End,
            budget: Budget::default(),
            stop: StopToken::default(),
            retire_a_lot: false,
        }
    }
}

/// What an import will write: the new messages in time order, cut into batches.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub conversations: usize,
    /// New messages, oldest first (a tie keeps the file's order).
    pub messages: Vec<Message>,
    /// Ranges of `messages`: one commit and at most one encoder call each.
    pub batches: Vec<Range<usize>>,
    pub new_user: usize,
    pub new_assistant: usize,
    /// Messages already in the memory (or twice in the file), skipped.
    pub duplicates: usize,
    /// New user messages kept as turns but too long to encode.
    pub too_long: usize,
    /// Days of history with a new message.
    pub days: usize,
}

impl Plan {
    /// The source ids the plan writes.
    pub fn sources(&self) -> impl Iterator<Item = String> + '_ {
        self.messages.iter().map(|m| m.source.clone())
    }

    /// The plan cut into plans of at most `max_batches` batches that end at a day's end
    /// (a day longer than that is one piece), so a caller can save between pieces and a
    /// Sleep per day still sees whole days. Run one after another, they write what the
    /// whole plan writes; the conversations and duplicates are counted in the first.
    pub fn pieces(&self, max_batches: usize) -> Vec<Plan> {
        let day = |b: &Range<usize>| Day::from_unix(self.messages[b.start].at);
        let mut pieces = Vec::new();
        let mut from = 0;
        for i in 0..self.batches.len() {
            let last = i + 1 == self.batches.len();
            let day_ends = last || day(&self.batches[i + 1]) != day(&self.batches[i]);
            if last || (i + 1 - from >= max_batches.max(1) && day_ends) {
                pieces.push(self.piece(from..i + 1, pieces.is_empty()));
                from = i + 1;
            }
        }
        if pieces.is_empty() {
            pieces.push(Plan { conversations: self.conversations, duplicates: self.duplicates, ..Default::default() });
        }
        pieces
    }

    fn piece(&self, batches: Range<usize>, first: bool) -> Plan {
        let lo = self.batches[batches.start].start;
        let hi = self.batches[batches.end - 1].end;
        let messages = self.messages[lo..hi].to_vec();
        let batches = self.batches[batches].iter().map(|b| b.start - lo..b.end - lo).collect();
        let mut piece = Plan::of(messages, batches).unwrap_or_default();
        if first {
            (piece.conversations, piece.duplicates, piece.too_long) =
                (self.conversations, self.duplicates, self.too_long);
        }
        piece
    }

    /// The plan that writes `messages` (oldest first) in `batches`: what a synced import's
    /// record holds, read back. `None` unless the batches cover the messages in order, each
    /// one non-empty — a record's batches are not trusted.
    ///
    /// ```
    /// use nocturne_core::flow::import::Plan;
    /// assert!(Plan::of(Vec::new(), vec![0..1]).is_none());
    /// assert_eq!(Plan::of(Vec::new(), Vec::new()).map(|p| p.new_user), Some(0));
    /// ```
    pub fn of(messages: Vec<Message>, batches: Vec<Range<usize>>) -> Option<Plan> {
        let mut next = 0;
        for b in &batches {
            if b.start != next || b.end <= b.start {
                return None;
            }
            next = b.end;
        }
        if next != messages.len() {
            return None;
        }
        let user = |m: &&Message| m.role == Role::User;
        Some(Plan {
            new_user: messages.iter().filter(user).count(),
            new_assistant: messages.iter().filter(|m| m.role == Role::Assistant).count(),
            days: messages.iter().map(|m| Day::from_unix(m.at)).collect::<HashSet<_>>().len(),
            batches,
            messages,
            ..Plan::default()
        })
    }

    /// The Sleeps an import of this plan runs when it sleeps as `sleep` says.
    pub fn sleeps(&self, sleep: SleepAfter) -> usize {
        match sleep {
            SleepAfter::End => usize::from(!self.messages.is_empty()),
            SleepAfter::EachDay => self.days,
            SleepAfter::Never => 0,
        }
    }

    /// The user messages of batch `b` that go to the encoder.
    fn encodable<'a>(&'a self, b: &Range<usize>, options: &'a ImportOptions) -> impl Iterator<Item = &'a Message> + 'a {
        self.messages[b.clone()]
            .iter()
            .filter(move |m| m.role == Role::User && m.text.chars().count() <= options.max_encoded_chars)
    }
}

/// Plans an import of `history` into a memory whose transcript holds the sources `known`.
pub fn plan(history: &History, known: &HashSet<String>, options: &ImportOptions) -> Plan {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut duplicates = 0;
    // (time, conversation, place) keeps a conversation's messages in its order on ties.
    let mut keyed: Vec<(i64, usize, usize, &Message)> = Vec::new();
    for (c, conversation) in history.conversations.iter().enumerate() {
        for (i, m) in conversation.messages.iter().enumerate() {
            if known.contains(&m.source) || !seen.insert(&m.source) {
                duplicates += 1;
            } else {
                keyed.push((m.at, c, i, m));
            }
        }
    }
    order::sort_by_key(&mut keyed, |k| (k.0, k.1, k.2));
    let batch = options.batch.max(1);
    let mut batches = Vec::new();
    let mut start = 0;
    let mut users = 0;
    for (i, k) in keyed.iter().enumerate() {
        let prev = i.checked_sub(1).map(|p| &keyed[p]);
        let split = prev.is_some_and(|p| p.1 != k.1 || Day::from_unix(p.0) != Day::from_unix(k.0))
            || (users == batch && k.3.role == Role::User);
        if split {
            batches.push(start..i);
            start = i;
            users = 0;
        }
        users += usize::from(k.3.role == Role::User);
    }
    if start < keyed.len() {
        batches.push(start..keyed.len());
    }
    let messages: Vec<Message> = keyed.iter().map(|k| k.3.clone()).collect();
    let days: HashSet<Day> = messages.iter().map(|m| Day::from_unix(m.at)).collect();
    let user = |m: &&Message| m.role == Role::User;
    Plan {
        conversations: history.conversations.len(),
        new_user: messages.iter().filter(user).count(),
        new_assistant: messages.iter().filter(|m| m.role == Role::Assistant).count(),
        too_long: messages.iter().filter(user).filter(|m| m.text.chars().count() > options.max_encoded_chars).count(),
        days: days.len(),
        duplicates,
        batches,
        messages,
    }
}

/// What an import will cost with a provider that proposes in `style`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Estimate {
    pub conversations: usize,
    pub new_user: usize,
    pub new_assistant: usize,
    pub duplicates: usize,
    pub too_long: usize,
    /// Encoder calls (a batch with nothing worth a call makes none).
    pub calls: usize,
    pub prompt_tokens: u64,
    pub days: usize,
    /// Sleeps the chosen [`SleepAfter`] runs.
    pub sleeps: usize,
}

impl Estimate {
    /// Expected seconds for the encoder calls at `seconds_per_call` plus
    /// `prompt_tokens_per_second` (the Sleeps come on top: each is estimated when it runs).
    pub fn seconds(&self, seconds_per_call: f64, prompt_tokens_per_second: f64) -> f64 {
        self.calls as f64 * seconds_per_call + self.prompt_tokens as f64 / prompt_tokens_per_second.max(1.0)
    }

    /// `import-estimate: conversations=… newUser=… calls=… promptTokens=… days=… sleeps=…`.
    pub fn line(&self) -> String {
        format!(
            "import-estimate: conversations={} newUser={} newAssistant={} duplicates={} tooLong={} calls={} promptTokens={} days={} sleeps={}",
            self.conversations,
            self.new_user,
            self.new_assistant,
            self.duplicates,
            self.too_long,
            self.calls,
            self.prompt_tokens,
            self.days,
            self.sleeps
        )
    }
}

/// Counts the encoder calls `plan` makes and their prompt tokens, by building the requests.
pub fn estimate(plan: &Plan, style: ProposalStyle, options: &ImportOptions) -> Estimate {
    let mut estimating = Estimating::new(plan, style, options);
    loop {
        if let Some(done) = estimating.step(usize::MAX) {
            return done;
        }
    }
}

/// An [`estimate`] made a few batches at a time, so a page can answer input between steps
/// (building every batch's request takes most of a second for a 5,000-conversation file).
///
/// ```
/// use nocturne_core::flow::import::{estimate, plan, Estimating, ImportOptions};
/// use nocturne_core::import::read;
/// use nocturne_core::llm::provider::ProposalStyle;
/// let log = br#"{"role": "user", "content": "I moved to Lisbon.", "timestamp": 1714554000}
/// {"role": "user", "content": "I teach chemistry.", "timestamp": 1714640400}"#;
/// let history = read("chat.jsonl", log, None, 0).unwrap();
/// let options = ImportOptions::default();
/// let plan = plan(&history, &Default::default(), &options);
/// let mut estimating = Estimating::new(&plan, ProposalStyle::FreeText, &options);
/// assert_eq!(estimating.step(1), None);
/// let stepped = estimating.step(1).unwrap();
/// assert_eq!(stepped, estimate(&plan, ProposalStyle::FreeText, &options));
/// ```
pub struct Estimating<'a> {
    plan: &'a Plan,
    style: ProposalStyle,
    options: &'a ImportOptions,
    next: usize,
    calls: usize,
    prompt_tokens: u64,
}

impl<'a> Estimating<'a> {
    pub fn new(plan: &'a Plan, style: ProposalStyle, options: &'a ImportOptions) -> Self {
        Estimating { plan, style, options, next: 0, calls: 0, prompt_tokens: 0 }
    }

    /// Counts the next `batches` batches (at least one); the estimate once all are counted.
    pub fn step(&mut self, batches: usize) -> Option<Estimate> {
        let plan = self.plan;
        let end = plan.batches.len().min(self.next.saturating_add(batches.max(1)));
        for b in &plan.batches[self.next..end] {
            let turns: Vec<Turn> =
                plan.encodable(b, self.options).enumerate().map(|(i, m)| turn(i as u32, m)).collect();
            let Some(request) = request(&turns, self.style) else { continue };
            self.calls += 1;
            self.prompt_tokens += request.messages.iter().map(|m| estimate_tokens(&m.content)).sum::<u64>();
        }
        self.next = end;
        (end == plan.batches.len()).then(|| Estimate {
            conversations: plan.conversations,
            new_user: plan.new_user,
            new_assistant: plan.new_assistant,
            duplicates: plan.duplicates,
            too_long: plan.too_long,
            calls: self.calls,
            prompt_tokens: self.prompt_tokens,
            days: plan.days,
            sleeps: plan.sleeps(self.options.sleep),
        })
    }
}

/// The encoder request for `turns`, as `chat::encode` builds it (`None`: no call).
fn request(turns: &[Turn], style: ProposalStyle) -> Option<crate::llm::provider::Request> {
    if turns.is_empty() {
        return None;
    }
    match style {
        ProposalStyle::FreeText => Some(prompt::encode_request(turns)),
        ProposalStyle::Candidates => {
            let texts: Vec<&str> = turns.iter().map(|t| t.text.as_str()).collect();
            let offered = candidates::statements(&texts);
            (!offered.is_empty()).then(|| prompt::encode_choice_request(&offered))
        }
    }
}

fn turn(index: u32, m: &Message) -> Turn {
    Turn {
        index,
        role: m.role,
        text: m.text.clone(),
        at: m.at,
        speaker: m.speaker.clone(),
        memory: None,
        source: Some(m.source.clone()),
    }
}

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

impl std::error::Error for ImportError {}

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
    run_seen(store, provider, plan, options, now, &mut Seen::default(), on_progress).await
}

/// [`run`] for one of a plan's [`pieces`](Plan::pieces), `seen` carried from the piece
/// before: while nobody else wrote in between, the transcript is not read again.
pub async fn run_seen<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    plan: &Plan,
    options: &ImportOptions,
    now: i64,
    seen: &mut Seen,
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

/// The deep Sleep after an import, unless it would retire more than a quarter of the
/// memory (old history under a short `staleAfterDays`) and `options.retire_a_lot` is not
/// set: then nothing sleeps and `report.held` says why and what to do.
pub async fn final_sleep<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    options: &ImportOptions,
    now: i64,
    report: &mut Report,
) -> Result<(), ImportError> {
    if holds_final_sleep(store, provider.proposal_style(), options, now, report).await? {
        return Ok(());
    }
    sleep_once(store, provider, options, now, Scope::Deep, report).await.map(|_| ())
}

/// Whether the deep Sleep after an import must not run: it would retire more than a
/// quarter of the memory and `options.retire_a_lot` is not set (`report.held` then says
/// why and what to do).
pub async fn holds_final_sleep<S: Store>(
    store: &S,
    style: ProposalStyle,
    options: &ImportOptions,
    now: i64,
    report: &mut Report,
) -> Result<bool, ImportError> {
    let sleep_options =
        SleepOptions { budget: options.budget, stop: options.stop.clone(), ..SleepOptions::new(now) }.deep();
    let estimate = sleep::estimate(store, style, &sleep_options).await?;
    if estimate.retires_a_lot() && !options.retire_a_lot {
        report.held = Some(format!(
            "the Sleep after the import would retire {} of {} active facts (older than the policy's staleAfterDays and not protected), so it did not run; run a Sleep to let it, or raise staleAfterDays first",
            estimate.retire, estimate.active
        ));
        return Ok(true);
    }
    Ok(false)
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
        Err(SleepError::Stopped { .. }) => {
            report.stopped = true;
            Ok(false)
        }
        Err(SleepError::Store(e)) if !e.is_conflict() => Err(ImportError::Store(e)),
        Err(e) => {
            report.sleep_errors.push(format!("{}: {e}", Day::from_unix(at)));
            Ok(true)
        }
    }
}

/// What one batch wrote.
struct Written {
    user: usize,
    assistant: usize,
    facts: usize,
    mutations: Vec<Mutation>,
    unusable: Option<String>,
}

/// What an import last saw of the store: the sources in its transcript, and the head,
/// cursor and turn count it left; while those stand, nobody else wrote a turn and the
/// transcript need not be read again.
#[derive(Default)]
pub struct Seen {
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
    seen: &mut Seen,
) -> Result<Written, ImportError> {
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
    // Another writer may have imported some of these meanwhile (or a stopped run did).
    let turns: Vec<Turn> = plan.messages[b.clone()]
        .iter()
        .filter(|m| !seen.sources.contains(&m.source))
        .enumerate()
        .map(|(i, m)| turn(next + i as u32, m))
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
    let written = Written {
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
