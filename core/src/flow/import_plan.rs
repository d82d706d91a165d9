//! Planning an import of a history (`history::read`'s `History`): the messages the memory
//! lacks, in time order, cut into batches ([`plan`]); what running it will ask the model
//! ([`estimate`]). Both pure; [`crate::flow::import::run`] writes the plan.
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

use crate::flow::stop::StopToken;
use crate::history::{History, Message};
use crate::llm::prompt::{self, Budget};
use crate::llm::provider::ProposalStyle;
use crate::model::memory::{Role, Turn};
use crate::text::order;
use crate::text::statements;
use crate::text::textmath::estimate_tokens;
use crate::text::when::Day;
use std::collections::HashSet;
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
    /// memory (see [`crate::flow::import::final_sleep`]).
    pub retire_a_lot: bool,
    /// The name of the file the history came from: each imported turn, and every fact
    /// encoded from it, keeps it as its source (`By::Import`, received when imported), so
    /// the trust policy holds it to what a source other than the user may do. `None`: a
    /// history with no file (a test's), kept as the user's.
    pub file: Option<String>,
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
            file: None,
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
    /// use nocturne_core::flow::import_plan::Plan;
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
/// use nocturne_core::flow::import_plan::{estimate, plan, Estimating, ImportOptions};
/// use nocturne_core::history::read;
/// use nocturne_core::llm::provider::ProposalStyle;
/// let log = br#"{"role": "user", "content": "I moved to Lisbon.", "timestamp": 1714554000}
/// {"role": "user", "content": "I teach chemistry.", "timestamp": 1714640400}"#;
/// let history = read("chat.jsonl", log, None, 1_796_558_400).unwrap();
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
            let offered = statements::statements(&texts);
            (!offered.is_empty()).then(|| prompt::encode_choice_request(&offered))
        }
    }
}

/// The turn a message becomes, at `index` of the transcript.
pub(crate) fn turn(index: u32, m: &Message) -> Turn {
    Turn {
        index,
        role: m.role,
        text: m.text.clone(),
        at: m.at,
        speaker: m.speaker.clone(),
        memory: None,
        source: Some(m.source.clone()),
        provenance: None,
    }
}
