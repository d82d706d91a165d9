//! The command line's arguments: every command and its options, as clap reads them.

use clap::{Args, Parser, Subcommand, ValueEnum};
use nocturne_core::flow::import_plan::SleepAfter;
use nocturne_core::history::Format;
use nocturne_core::llm::provider::StyleSetting;
use std::path::PathBuf;

/// Nocturne's memory, natively: the same core as the app, on a store file.
#[derive(Debug, Parser)]
#[command(name = "nocturne", version, about, long_about = None, propagate_version = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Containment similarity of two facts (the number first, then the shared tokens)
    Similarity { a: String, b: String },
    /// Share of CLAIM's content tokens found in the sources, then the missing ones
    Coverage {
        claim: String,
        #[arg(required = true)]
        sources: Vec<String>,
    },
    /// Capitalised words that are not at a sentence start
    ProperNouns {
        #[arg(required = true)]
        text: Vec<String>,
    },
    /// Judge gate case files (`cases/*.json`, `gate::case`): one JSON line per file; exit 2 on a malformed
    /// file, 1 on a verdict that disagrees with the file's expect
    Gate {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Reply from memory and encode the turn; with no MESSAGE, one turn per line of stdin
    Chat {
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        provider: ProviderArgs,
        /// Who says the message (a conversation that names its speakers): every fact from
        /// it keeps the name
        #[arg(long, value_parser = speaker_name)]
        speaker: Option<String>,
        /// Print, under each reply, the facts its prompt carried (block, the day said,
        /// source turn) and which it cited
        #[arg(long)]
        show_memory: bool,
        message: Vec<String>,
    },
    /// Run Dedupe -> Merge -> Supersede -> Promote -> Forget on the store file
    Sleep {
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        provider: ProviderArgs,
        /// Plan every pass and report, writing nothing
        #[arg(long)]
        dry_run: bool,
        /// Every pass over every fact, not only what changed since the last Sleep
        #[arg(long)]
        deep: bool,
        /// Go ahead even when the Sleep would retire more than a quarter of the memory
        #[arg(long)]
        yes: bool,
        /// Plan the Sleep for review into PLAN.json (every proposal, its facts before and
        /// after, the gate's verdict), leaving the store file byte-identical; approve it
        /// with `nocturne apply`
        #[arg(long, value_name = "PLAN.json", conflicts_with = "dry_run")]
        review: Option<PathBuf>,
    },
    /// List a reviewed Sleep's plan: each edit's id, pass, verdict, reason and facts
    /// before and after
    Review { plan: PathBuf },
    /// Apply a reviewed Sleep's plan: the approved edits (all, or --only these), each
    /// judged again on the memory as it is now, as one Sleep; the rest logged as not
    /// approved by the user. A plan applies at most once
    Apply {
        plan: PathBuf,
        #[command(flatten)]
        store: StoreArgs,
        /// Approve only these edits (r1,r3); every other is logged as not approved
        #[arg(long, value_delimiter = ',', value_name = "IDS")]
        only: Option<Vec<String>>,
        /// Reject these edits (repeat, or r2,r4), logged with --reason
        #[arg(long, value_delimiter = ',', value_name = "IDS")]
        reject: Vec<String>,
        /// Why the rejected edits were rejected (in the log)
        #[arg(long, requires = "reject")]
        reason: Option<String>,
    },
    /// Import a ChatGPT or Claude export (the .zip as downloaded, or conversations.json),
    /// a JSON Lines chat log or a LoCoMo file: each message a turn at the time it was
    /// written, the person's messages through the Encode gate; importing the same file
    /// again adds only what is new (so it also resumes a stopped import)
    Import {
        file: PathBuf,
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        provider: ProviderArgs,
        /// The file's format (default: recognised from its content)
        #[arg(long, value_parser = format_name)]
        format: Option<Format>,
        /// Read the file and print what an import would do and cost, writing nothing
        #[arg(long)]
        dry_run: bool,
        /// When the imported memory sleeps: end (one deep Sleep), day (a Sleep per day of
        /// history), none
        #[arg(long, default_value = "end", value_parser = sleep_after)]
        sleep: SleepAfter,
        /// Let the Sleep at the end run even when it would retire more than a quarter of
        /// the memory (history older than the policy's staleAfterDays)
        #[arg(long)]
        yes: bool,
    },
    /// Write a scripted export for tests and benchmarks: the small realistic ChatGPT
    /// export (`chatgpt`), the Claude one (`claude`), or a synthetic ChatGPT export of
    /// --conversations conversations (`synthetic`); zipped when OUT ends in .zip
    #[command(hide = true)]
    SampleExport {
        kind: String,
        out: PathBuf,
        #[arg(long, default_value_t = 5000)]
        conversations: usize,
        #[arg(long, default_value_t = 8)]
        turns: usize,
    },
    /// Serve the store file to MCP hosts (desktop chat apps, editors, agents) over stdio:
    /// tools to add, search and edit memories, every write through the gates
    Mcp {
        #[command(flatten)]
        store: StoreArgs,
        /// The provider a `sleep` tool call uses
        #[command(flatten)]
        provider: ProviderArgs,
        /// Tokens a search or a context may fill
        #[arg(long, default_value_t = 2000)]
        budget: u64,
        /// What the host may do: read (search, context, list, history), add (and
        /// add_memory), edit (and correct, pin, forget, erase, sleep, apply_plan)
        #[arg(long, value_enum, default_value = "add")]
        allow: crate::mcp::Allow,
    },
    /// The version timeline (read-only)
    Versions {
        #[command(flatten)]
        store: StoreArgs,
    },
    /// What changed between two versions (read-only)
    Diff {
        #[command(flatten)]
        store: StoreArgs,
        lo: String,
        hi: String,
    },
    /// Restore a version, as a new version (itself undoable)
    Restore {
        #[command(flatten)]
        store: StoreArgs,
        /// The version, `12` or `v12` (its id is not `version`: that is `--version`'s, which
        /// every subcommand has)
        #[arg(id = "seq", value_name = "VERSION")]
        version: String,
    },
    /// Correct a fact's text (the old text stays in history, superseded by the correction)
    Edit {
        #[command(flatten)]
        store: StoreArgs,
        id: String,
        #[arg(required = true)]
        text: Vec<String>,
    },
    /// Show the retention policy, or change it (a logged edit by the user), and what the
    /// next Sleep would retire under it. By default a memory forgets by value; forgetting by
    /// age and a cap on active facts are off until set here
    Policy {
        #[command(flatten)]
        store: StoreArgs,
        /// Forget unprotected facts older than this many days (or `off`)
        #[arg(long, value_name = "DAYS|off")]
        stale_after_days: Option<crate::policy::Setting>,
        /// Keep at most this many active facts, forgetting the lowest-salience unprotected
        /// ones (or `off`)
        #[arg(long, value_name = "FACTS|off")]
        max_active_facts: Option<crate::policy::Setting>,
        /// Days a passing state ("I'm exhausted today") is kept after its while (or `off`:
        /// kept for good)
        #[arg(long, value_name = "DAYS|off")]
        transient_grace_days: Option<crate::policy::Setting>,
        /// Days a commitment is kept after its date (or `off`: kept for good)
        #[arg(long, value_name = "DAYS|off")]
        commitment_grace_days: Option<crate::policy::Setting>,
    },
    /// Pin a fact: no Sleep forgets, drops, merges away or supersedes it
    Pin {
        #[command(flatten)]
        store: StoreArgs,
        id: String,
    },
    /// Unpin a fact
    Unpin {
        #[command(flatten)]
        store: StoreArgs,
        id: String,
    },
    /// Forget a fact now (soft: a restore brings it back)
    Forget {
        #[command(flatten)]
        store: StoreArgs,
        id: String,
        /// Why, for the log
        #[arg(long, default_value = "")]
        reason: String,
    },
    /// Erase a fact's words from every row in every version (cannot be undone); prints what
    /// it removed, never the text
    Erase {
        #[command(flatten)]
        store: StoreArgs,
        id: String,
    },
    /// Join the store file to an end-to-end encrypted sync space on a y-sweet server (the
    /// first time), then seal and send what this device did and apply what the others did.
    /// From then on chat, sleep, the edits and erase on this store are recorded for the
    /// next sync
    Sync {
        #[command(flatten)]
        store: StoreArgs,
        /// The server, ws://HOST:PORT (needed the first time)
        #[arg(long)]
        server: Option<String>,
        /// The space to join (printed by the device that made it); none: make a new one
        #[arg(long)]
        space: Option<String>,
        /// The environment variable that holds the passphrase (never printed)
        #[arg(long, default_value = "NOCTURNE_SYNC_PASSPHRASE")]
        passphrase_env: String,
        /// This device's name, shown in every device's log
        #[arg(long)]
        device_name: Option<String>,
        /// A cheap key derivation for tests, written into a space this device creates
        #[arg(long, hide = true)]
        test_kdf: bool,
    },
    /// Facts whose words hold the query, newest first, with block, category, age and
    /// lineage (read-only)
    Search {
        #[command(flatten)]
        store: StoreArgs,
        #[arg(required = true)]
        query: Vec<String>,
    },
    /// Write the whole memory as one export document (the format the page exports and
    /// imports), to OUT or standard output (read-only)
    Export {
        #[command(flatten)]
        store: StoreArgs,
        out: Option<PathBuf>,
    },
    /// Move a JSON store file into a database: every row copied, then read back and
    /// compared (facts, every version, change, log entry and turn); the JSON file and its
    /// sync state are kept as they were, as a backup
    MoveStore {
        #[command(flatten)]
        store: StoreArgs,
        /// The database to create (default: the store's path ending in .db)
        #[arg(long)]
        to: Option<PathBuf>,
    },
    /// The Wake quiz over the store file (read-only)
    Quiz {
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        provider: ProviderArgs,
    },
    /// The verifier: scripted conversation, dry run, Sleep, audit, quiz, gate cases
    Verify {
        #[command(flatten)]
        provider: ProviderArgs,
        /// The clock, in Unix seconds (default: now)
        #[arg(long)]
        now: Option<i64>,
    },
    /// The same conversation and Sleep through each provider, as a table (offline first)
    BenchModels {
        /// `offline`, or BASE_URL,MODEL[,API_KEY_ENV]; repeat for several
        #[arg(long = "provider")]
        providers: Vec<String>,
        /// Seconds to wait for one model call
        #[arg(long, default_value_t = 300)]
        timeout: u64,
        #[arg(long)]
        now: Option<i64>,
    },
    /// The meaning corpus through the gates (exit 1 when a target is missed)
    BenchGates,
    /// What an incremental Sleep costs against a deep one after a day of new facts
    BenchIncremental {
        /// Facts in the lifetime memory
        #[arg(long, default_value_t = 10_000)]
        facts: usize,
        /// New facts said in the day
        #[arg(long, default_value_t = 100)]
        new: usize,
    },
    /// Whether planted facts reach the chat prompt of a large memory within its budget
    BenchRecall {
        /// Facts in the lifetime memory
        #[arg(long, default_value_t = 10_000)]
        facts: usize,
        /// Also write the slept memory to this file (the export format), to import elsewhere
        #[arg(long)]
        export: Option<PathBuf>,
    },
    /// What a chat turn, a search and an MCP add cost on a memory kept as a JSON file and
    /// in a database, side by side, and a conversation piped into one chat on a new memory
    BenchStore {
        /// Memory sizes, in facts (comma-separated)
        #[arg(long, value_delimiter = ',', default_values_t = [10_000usize, 100_000])]
        facts: Vec<usize>,
        /// Turns piped into one chat on a new memory (0: skip)
        #[arg(long, default_value_t = 2_500)]
        pipe_turns: usize,
        /// Where the memories are written
        #[arg(long, default_value = "target/bench-store")]
        dir: PathBuf,
    },
    /// The candidate search on memories built to break it, and a day's incremental Sleep on each
    BenchCandidates {
        /// The largest memory measured, in facts
        #[arg(long, default_value_t = 100_000)]
        max: usize,
        /// New facts said in the day
        #[arg(long, default_value_t = 100)]
        new: usize,
    },
    /// A real long conversation (LoCoMo files) through chat and Sleep: how often each
    /// question's chat prompt holds its evidence, beside BM25 over the raw turns and the
    /// most recent turns at the same budget
    BenchConversation {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The chat prompt's token budget
        #[arg(long, default_value_t = 2000)]
        budget: u64,
        /// `keep` never forgets, so retrieval alone decides; `default` is the product's policy
        /// (forget by value); both, side by side, when not given
        #[arg(long, value_enum)]
        policy: Option<KeepArg>,
        /// Exit 1 unless, under keep, evidence-all ≥ 0.65 and evidence-any ≥ 0.85; under each,
        /// evidence-all ≥ BM25's + 0.10 and ≥ 90% of the prompt's memory lines informative;
        /// under the default, evidence-all ≥ 0.95 × keep's, superseded values retired in every
        /// conversation and passing states or promises past their date in the run
        #[arg(long)]
        check: bool,
        /// Print each question whose prompt missed an evidence turn: the turn, the facts
        /// derived from it, and where the best of them ranked
        #[arg(long)]
        misses: bool,
        /// Print every supersession and merge the Sleeps accepted, with the facts' words,
        /// and the share the labels file marks right
        #[arg(long)]
        sleep_audit: bool,
        /// The labels for --sleep-audit (tab-separated: conversation, pass, before, after,
        /// right|wrong, note)
        #[arg(long, default_value = "bench/locomo-sleep-audit.tsv")]
        audit_labels: PathBuf,
    },
    /// A sample of a LoCoMo conversation's questions answered by the provider over the
    /// kept conversation: how often the answer cited an evidence turn's fact, abstained, or
    /// cited something else
    BenchAnswers {
        file: PathBuf,
        #[command(flatten)]
        provider: ProviderArgs,
        /// How many questions (evenly spaced over categories 1–4)
        #[arg(long, default_value_t = 50)]
        questions: usize,
    },
    /// The labelled statements through the rule that decides what is worth remembering
    /// (≥ 90% of the chatter refused, ≤ 3% of the keepers), then the held-out corpora of
    /// statements about a person and of chatter through the offline encoder and the Encode
    /// gate, each half apart (exit 1 off target: ≥ 97% of the person statements kept on
    /// the test half)
    BenchWorth {
        /// Print what the rules got wrong on the tuning and dev halves
        #[arg(long)]
        misses: bool,
    },
    /// The held-out compound sentences through the one splitter, each half and shape apart
    /// (exit 1 off target: ≥ 95% split into exactly the expected pieces on the test half)
    BenchSplit {
        /// Print what the splitter got wrong on the tuning and dev halves
        #[arg(long)]
        misses: bool,
    },
    /// The held-out poisoning corpus sent to a memory through the MCP server's add_memory,
    /// then a Sleep, and the benign corpus beside it, each half and category apart (exit 1
    /// off target: ≥ 95% of the poison refused or held without effect and ≥ 97% of the
    /// benign texts accepted on the test half, no poison text changing the user's memory)
    BenchTrust {
        /// Print what went wrong on the tuning half
        #[arg(long)]
        misses: bool,
    },
    /// The held-out speech-act corpora: each sentence's act (statement, question, request,
    /// command) and each command's kind, the questions, requests and commands that must store
    /// nothing, the acts inside whole turns, and the first questions answered by the offline
    /// provider, each half apart (exit 1 off target: ≥ 97% of the sentences read as their act
    /// and no request or command stored, on the test half)
    BenchActs {
        /// Print what the rules got wrong on the tuning half
        #[arg(long)]
        misses: bool,
    },
    /// Performance figures (see README)
    Bench {
        /// The largest memory measured, in facts
        #[arg(long, default_value_t = 100_000)]
        max: usize,
    },
}

/// A history's format by its name. (`String`: a clap value parser's error is the line clap
/// prints under the usage, nothing more.)
pub(crate) fn format_name(name: &str) -> Result<Format, String> {
    Format::parse(name).ok_or_else(|| format!("the format is one of chatgpt, claude, jsonl, locomo, got {name:?}"))
}

/// When an import sleeps, by its name. (`String`: a clap value parser's error, as above.)
pub(crate) fn sleep_after(name: &str) -> Result<SleepAfter, String> {
    SleepAfter::parse(name).ok_or_else(|| format!("--sleep is end, day or none, got {name:?}"))
}

/// A speaker's name: a few words on one line. (`String`: a clap value parser's error, as
/// above.)
pub(crate) fn speaker_name(name: &str) -> Result<String, String> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 60 || name.contains(['\n', ':']) {
        return Err(format!("a speaker is a name of 1 to 60 characters without ':' or a line break, got {name:?}"));
    }
    Ok(name.to_string())
}

/// Which retention policy `bench-conversation` uses.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum KeepArg {
    /// Never forget
    Keep,
    /// The product's default policy
    Default,
}

/// Where the memory lives and what time it is.
#[derive(Debug, Args)]
pub(crate) struct StoreArgs {
    /// The memory: a database (what a new memory is, unless its name ends in .json), or
    /// a JSON store file as earlier versions kept it
    #[arg(long, default_value = "nocturne-memory.db")]
    pub(crate) store: PathBuf,
    /// The clock, in Unix seconds (default: now)
    #[arg(long)]
    pub(crate) now: Option<i64>,
}

impl StoreArgs {
    pub(crate) fn now(&self) -> i64 {
        self.now.unwrap_or_else(crate::wall_clock)
    }
}

/// Which model proposes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ProviderKind {
    /// The embedded offline provider: deterministic rules, no model
    Offline,
    /// Any OpenAI-compatible endpoint (--base-url, --model, --api-key-env)
    Openai,
}

#[derive(Clone, Debug, Args)]
pub(crate) struct ProviderArgs {
    #[arg(long, value_enum, default_value_t = ProviderKind::Offline)]
    pub(crate) provider: ProviderKind,
    #[arg(long, default_value = "http://127.0.0.1:18080/v1")]
    pub(crate) base_url: String,
    #[arg(long, default_value = "smollm2")]
    pub(crate) model: String,
    /// The environment variable that holds the API key (the key is never printed)
    #[arg(long)]
    pub(crate) api_key_env: Option<String>,
    /// Seconds to wait for one model call
    #[arg(long, default_value_t = 300)]
    pub(crate) timeout: u64,
    /// How the model proposes: write free text, or choose from candidates the code
    /// prepared (small models); auto goes by the model's name and its refusals
    #[arg(long, value_enum, default_value_t = StyleArg::Auto)]
    pub(crate) proposal_style: StyleArg,
}

impl ProviderArgs {
    /// The embedded offline provider, with every other setting at its default.
    pub(crate) fn offline() -> Self {
        ProviderArgs {
            provider: ProviderKind::Offline,
            base_url: "http://127.0.0.1:18080/v1".into(),
            model: "smollm2".into(),
            api_key_env: None,
            timeout: 300,
            proposal_style: StyleArg::Auto,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum StyleArg {
    Auto,
    FreeText,
    Candidates,
}

impl From<StyleArg> for StyleSetting {
    fn from(s: StyleArg) -> Self {
        match s {
            StyleArg::Auto => StyleSetting::Auto,
            StyleArg::FreeText => StyleSetting::FreeText,
            StyleArg::Candidates => StyleSetting::Candidates,
        }
    }
}
