//! `nocturne`: the native command line over nocturne-core — text measures, gate cases,
//! chat, sleep, versions, diff, restore, quiz, verify and benchmarks.

mod adversarial;
mod answers;
mod bench;
mod conversation;
mod corpora;
mod file;
mod import;
mod mcp;
mod openai;
mod policy;
mod scale;
mod sync;
mod write;

use nocturne_core::flow::edit::UserEdit;

use clap::{Args, Parser, Subcommand, ValueEnum};
use file::FileStore;
use nocturne_core::flow::import::SleepAfter;
use nocturne_core::flow::{chat, sleep};
use nocturne_core::gate::case;
use nocturne_core::import::Format;
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::provider::{Provider, StyleSetting};
use nocturne_core::proof::{compare, quiz, verify};
use nocturne_core::store::diff;
use nocturne_core::store::{MemStore, Store};
use nocturne_core::text::textmath;
use std::path::PathBuf;
use std::process::ExitCode;

/// Nocturne's memory, natively: the same core as the app, on a store file.
#[derive(Debug, Parser)]
#[command(name = "nocturne", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
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
    /// Judge gate case files (SPEC §10): one JSON line per file; exit 2 on a malformed
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
        stale_after_days: Option<policy::Setting>,
        /// Keep at most this many active facts, forgetting the lowest-salience unprotected
        /// ones (or `off`)
        #[arg(long, value_name = "FACTS|off")]
        max_active_facts: Option<policy::Setting>,
        /// Days a passing state ("I'm exhausted today") is kept after its while (or `off`:
        /// kept for good)
        #[arg(long, value_name = "DAYS|off")]
        transient_grace_days: Option<policy::Setting>,
        /// Days a commitment is kept after its date (or `off`: kept for good)
        #[arg(long, value_name = "DAYS|off")]
        commitment_grace_days: Option<policy::Setting>,
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
    /// Performance figures (see README)
    Bench {
        /// The largest memory measured, in facts
        #[arg(long, default_value_t = 100_000)]
        max: usize,
    },
}

/// A speaker's name: a few words on one line.
fn format_name(name: &str) -> Result<Format, String> {
    Format::parse(name).ok_or_else(|| format!("the format is one of chatgpt, claude, jsonl, locomo, got {name:?}"))
}

fn sleep_after(name: &str) -> Result<SleepAfter, String> {
    SleepAfter::parse(name).ok_or_else(|| format!("--sleep is end, day or none, got {name:?}"))
}

fn speaker_name(name: &str) -> Result<String, String> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 60 || name.contains(['\n', ':']) {
        return Err(format!("a speaker is a name of 1 to 60 characters without ':' or a line break, got {name:?}"));
    }
    Ok(name.to_string())
}

/// Which retention policy `bench-conversation` uses.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum KeepArg {
    /// Never forget
    Keep,
    /// The product's default policy
    Default,
}

/// Where the memory lives and what time it is.
#[derive(Debug, Args)]
struct StoreArgs {
    /// The store file (the export format)
    #[arg(long, default_value = "nocturne-memory.json")]
    store: PathBuf,
    /// The clock, in Unix seconds (default: now)
    #[arg(long)]
    now: Option<i64>,
}

impl StoreArgs {
    fn now(&self) -> i64 {
        self.now.unwrap_or_else(wall_clock)
    }
}

/// Which model proposes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ProviderKind {
    /// The embedded offline provider: deterministic rules, no model
    Offline,
    /// Any OpenAI-compatible endpoint (--base-url, --model, --api-key-env)
    Openai,
}

#[derive(Clone, Debug, Args)]
struct ProviderArgs {
    #[arg(long, value_enum, default_value_t = ProviderKind::Offline)]
    provider: ProviderKind,
    #[arg(long, default_value = "http://127.0.0.1:18080/v1")]
    base_url: String,
    #[arg(long, default_value = "smollm2")]
    model: String,
    /// The environment variable that holds the API key (the key is never printed)
    #[arg(long)]
    api_key_env: Option<String>,
    /// Seconds to wait for one model call
    #[arg(long, default_value_t = 300)]
    timeout: u64,
    /// How the model proposes: write free text, or choose from candidates the code
    /// prepared (small models); auto goes by the model's name and its refusals
    #[arg(long, value_enum, default_value_t = StyleArg::Auto)]
    proposal_style: StyleArg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum StyleArg {
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

/// The provider a command uses: the offline rules or an endpoint.
enum AnyProvider {
    Offline(OfflineProvider),
    Remote(openai::OpenAi),
}

nocturne_core::forward_provider!(AnyProvider { Offline, Remote });

impl ProviderArgs {
    fn build(&self) -> Result<AnyProvider, String> {
        Ok(match self.provider {
            ProviderKind::Offline => AnyProvider::Offline(OfflineProvider),
            ProviderKind::Openai => AnyProvider::Remote(remote(
                self.timeout,
                &self.base_url,
                &self.model,
                self.api_key_env.as_deref(),
                self.proposal_style.into(),
            )?),
        })
    }
}

fn wall_clock() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// Where a long command is, for the line Ctrl-C prints (`after pass merge`).
static PROGRESS: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

fn progress(now: impl Into<String>) {
    if let Ok(mut p) = PROGRESS.lock() {
        *p = now.into();
    }
}

/// Ctrl-C ends the command at once with exit code 130 and one line saying where it
/// stopped. Store files are saved atomically after every pass and every turn, so the
/// file is exactly as after the last completed one; the dropped connection tells a model
/// server to stop generating.
fn on_interrupt() {
    let _ = ctrlc::set_handler(|| {
        let at = PROGRESS.lock().map(|p| p.clone()).unwrap_or_default();
        let at = if at.is_empty() { "before anything was written".to_string() } else { at };
        eprintln!("nocturne: stopped by the user {at}; the store file holds the memory as it was then");
        std::process::exit(130);
    });
}

/// A closed standard output (`nocturne versions | head`) ends the command quietly with the
/// shell's code for it (128 + SIGPIPE), instead of a panic on the next `println!`.
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message =
            payload.downcast_ref::<String>().map(String::as_str).or_else(|| payload.downcast_ref::<&str>().copied());
        if message.is_some_and(|m| m.starts_with("failed printing to stdout") && m.contains("Broken pipe")) {
            std::process::exit(141);
        }
        default(info)
    }));
}

fn main() -> ExitCode {
    on_interrupt();
    quiet_on_closed_stdout();
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("nocturne: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> Result<ExitCode, String> {
    match command {
        Command::Similarity { a, b } => {
            let (ta, tb) = (textmath::content_tokens(&a), textmath::content_tokens(&b));
            let shared: Vec<&String> = ta.intersection(&tb).collect();
            println!("{:.3}\tshared: {}", textmath::similarity(&a, &b), join(shared));
        }
        Command::Coverage { claim, sources } => {
            let c = textmath::coverage(&claim, sources.iter().map(String::as_str));
            println!("{:.3}\tmissing: {}", c.score, join(&c.missing));
        }
        Command::ProperNouns { text } => {
            for name in textmath::proper_nouns(&text.join(" ")) {
                println!("{name}");
            }
        }
        Command::Gate { files } => return Ok(gate(&files)),
        Command::Chat { store, provider, speaker, show_memory, message } => {
            chat(&store, &provider, ChatFlags { speaker: speaker.as_deref(), show_memory }, message)?
        }
        Command::Sleep { store, provider, dry_run, deep, yes } => {
            sleep_command(&store, &provider, SleepFlags { dry_run, deep, yes })?
        }
        Command::Import { file, store, provider, format, dry_run, sleep, yes } => {
            let p = provider.build()?;
            // Rough paces for the estimate: the offline rules take about 4 ms a batch with its save; a
            // model about a second a call plus its prompt at ~230 tokens/s (SmolLM2 under
            // llama.cpp on this project's 2-core machine).
            let pace = match provider.provider {
                ProviderKind::Offline => (0.004, f64::INFINITY),
                ProviderKind::Openai => (1.0, 230.0),
            };
            let request = import::Request {
                file: &file,
                store: &store.store,
                format,
                dry_run,
                sleep,
                yes,
                now: store.now(),
                pace,
            };
            import::run(request, &p)?;
        }
        Command::SampleExport { kind, out, conversations, turns } => {
            import::sample(&kind, &out, conversations, turns)?;
        }
        Command::Mcp { store, provider, budget } => {
            mcp::serve(mcp::Config { store: store.store, provider, budget, now: store.now })?
        }
        Command::Versions { store } => {
            let memory = FileStore::open_existing(&store.store)?;
            for v in pollster::block_on(memory.versions()).map_err(|e| e.to_string())? {
                println!("{:>5} {:<24} active={:<4} changed={}", v.id(), v.label, v.active_count, v.changed);
            }
        }
        Command::Diff { store, lo, hi } => {
            let memory = FileStore::open_existing(&store.store)?;
            let d = pollster::block_on(diff::diff(&memory, seq(&lo)?, seq(&hi)?)).map_err(|e| e.to_string())?;
            print_diff(&d);
        }
        Command::Restore { store, version } => {
            let memory = FileStore::open_existing(&store.store)?;
            let v = pollster::block_on(memory.restore(seq(&version)?, store.now())).map_err(|e| e.to_string())?;
            println!("{} {} active={}", v.id(), v.label, v.active_count);
        }
        Command::Edit { store, id, text } => {
            user_edit(&store, UserEdit::Correct { item_id: id, text: text.join(" ") })?
        }
        Command::Policy { store, stale_after_days, max_active_facts, transient_grace_days, commitment_grace_days } => {
            let changes =
                policy::Changes { stale_after_days, max_active_facts, transient_grace_days, commitment_grace_days };
            policy::run(&store.store, store.now(), changes)?
        }
        Command::Pin { store, id } => user_edit(&store, UserEdit::Pin { item_id: id })?,
        Command::Unpin { store, id } => user_edit(&store, UserEdit::Unpin { item_id: id })?,
        Command::Forget { store, id, reason } => user_edit(&store, UserEdit::Forget { item_id: id, reason })?,
        Command::Sync { store, server, space, passphrase_env, device_name, test_kdf } => {
            sync::sync(&sync::SyncRequest {
                store: &store.store,
                server: server.as_deref(),
                space: space.as_deref(),
                passphrase_env: &passphrase_env,
                device_name: device_name.as_deref(),
                kdf: if test_kdf {
                    nocturne_sync::crypto::KdfParams::TEST
                } else {
                    nocturne_sync::crypto::KdfParams::DEFAULT
                },
                now: store.now(),
            })?
        }
        Command::Erase { store, id } => {
            let memory = FileStore::open_existing(&store.store)?;
            let erased = write::Writer::new(&store.store, &memory).erase(&id, store.now())?.done;
            println!(
                "erased {} fact(s): {}; {} row(s) rewritten; {} word(s) removed; a tombstone remains",
                erased.item_ids.len(),
                erased.item_ids.join(", "),
                erased.rows,
                erased.words
            );
        }
        Command::Search { store, query } => {
            let memory = FileStore::open_existing(&store.store)?;
            let items = pollster::block_on(memory.items()).map_err(|e| e.to_string())?;
            let log = pollster::block_on(memory.mutations()).map_err(|e| e.to_string())?;
            let hits = nocturne_core::store::search::search(&items, &log, &query.join(" "));
            for hit in &hits {
                println!("{}", nocturne_core::store::search::describe(hit, store.now()));
            }
            println!("{} fact(s) match", hits.len());
        }
        Command::Quiz { store, provider } => {
            let memory = FileStore::open_existing(&store.store)?;
            let report =
                pollster::block_on(quiz::wake(&memory, &provider.build()?, store.now())).map_err(|e| e.to_string())?;
            print_quiz(&report);
        }
        Command::Verify { provider, now } => {
            let p = provider.build()?;
            let require_skill = provider.provider == ProviderKind::Offline;
            let code = verify(now.unwrap_or_else(wall_clock), &p, require_skill);
            if let AnyProvider::Remote(r) = &p {
                println!("json mode used: {}", r.mode().label());
                println!("proposal style used: {}", r.style().label());
            }
            return Ok(code);
        }
        Command::BenchModels { providers, timeout, now } => bench_models(&providers, timeout, now)?,
        Command::BenchGates => {
            let corpus = nocturne_core::testkit::meaning::corpus();
            let score = nocturne_core::testkit::meaning::score(&corpus).map_err(|e| e.to_string())?;
            println!("{}", score.line());
            for miss in &score.misses {
                println!("  miss: {miss}");
            }
            return Ok(if score.meets_targets() { ExitCode::SUCCESS } else { ExitCode::FAILURE });
        }
        Command::Bench { max } => bench::run(max),
        Command::BenchCandidates { max, new } => adversarial::run(max, new)?,
        Command::BenchWorth { misses } => corpora::worth(misses)?,
        Command::BenchSplit { misses } => corpora::split(misses)?,
        Command::BenchConversation { files, budget, policy, check, misses } => {
            let keep = policy.map(|p| match p {
                KeepArg::Keep => conversation::Keep::Everything,
                KeepArg::Default => conversation::Keep::Default,
            });
            conversation::run(&files, budget, keep, check, misses)?
        }
        Command::BenchAnswers { file, provider, questions } => {
            let p = provider.build()?;
            let started = std::time::Instant::now();
            let classes = answers::run(&file, questions, &p)?;
            println!("{}", classes.line(&p.label(), started.elapsed().as_secs_f64()));
        }
        Command::BenchIncremental { facts, new } => scale::incremental(facts, new)?,
        Command::BenchRecall { facts, export } => scale::recall(facts, export.as_deref())?,
    }
    Ok(ExitCode::SUCCESS)
}

/// How `nocturne chat` was asked to run.
#[derive(Clone, Copy, Debug)]
struct ChatFlags<'a> {
    speaker: Option<&'a str>,
    show_memory: bool,
}

/// `nocturne chat`: one turn from the arguments, or one per line of standard input. Each
/// turn is saved as it completes; on an error the file holds the turns before it.
fn chat(store: &StoreArgs, provider: &ProviderArgs, flags: ChatFlags<'_>, message: Vec<String>) -> Result<(), String> {
    let speaker = flags.speaker;
    let turns: Vec<String> = if message.is_empty() {
        std::io::stdin()
            .lines()
            .map(|l| l.map_err(|e| format!("cannot read standard input: {e}")))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .filter(|l| !l.trim().is_empty())
            .collect()
    } else {
        vec![message.join(" ")]
    };
    if turns.is_empty() {
        return Err("chat needs a message: as arguments, or one per line on standard input".into());
    }
    let memory = FileStore::open(&store.store)?;
    let p = provider.build()?;
    let writer = write::Writer::new(&store.store, &memory);
    for (i, text) in turns.iter().enumerate() {
        // Each turn is in the file as soon as it is committed, so Ctrl-C or an error loses
        // no earlier turn.
        let written = writer.say(&p, speaker, text, store.now() + i as i64)?;
        let turn = written.done;
        progress(format!("after turn {} of {}", i + 1, turns.len()));
        println!("{}", turn.reply);
        print_memory_use(&memory, &turn, flags.show_memory)?;
        print_encoded(&turn.encoded);
        if let Some(err) = turn.encode_error {
            println!("  encoder failed: {err}");
        }
        if written.recorded.is_some() {
            println!("  recorded for the next sync");
        }
    }
    Ok(())
}

/// Under a reply: each fact stored, each one the gate refused, and each statement that
/// stored nothing with the rule that decided.
fn print_encoded<'a>(verdicts: impl IntoIterator<Item = &'a nocturne_core::model::memory::Mutation>) {
    use nocturne_core::model::pass::MutationKind;
    for m in verdicts {
        match (&m.rejection_reason, m.kind) {
            (None, _) => println!("  encoded {}", m.item_id),
            (Some(why), MutationKind::Skip) => println!("  not kept: {why}"),
            (Some(why), _) => println!("  encoder refused: {why}"),
        }
    }
}

/// Under a reply: what `auto` switched, the citations the gate refused, the facts cited
/// and, with `all`, every fact the prompt carried (block, the day said, source turn).
fn print_memory_use(memory: &FileStore, turn: &chat::TurnOutcome, all: bool) -> Result<(), String> {
    for line in &turn.switched {
        println!("  {line}");
    }
    for (id, why) in &turn.refused_citations {
        println!("  citation of {id} refused: {why}");
    }
    let used = &turn.memory;
    if !all {
        if !used.cited.is_empty() {
            println!("  cited {}", used.cited.join(", "));
        }
        return Ok(());
    }
    let items = pollster::block_on(memory.items()).map_err(|e| e.to_string())?;
    let log = pollster::block_on(memory.mutations()).map_err(|e| e.to_string())?;
    let style = match used.style {
        nocturne_core::model::memory::AnswerStyle::FreeText => "free text",
        nocturne_core::model::memory::AnswerStyle::Choose => "chosen",
        nocturne_core::model::memory::AnswerStyle::Plain => "no model call",
    };
    println!("  memory used ({}; {} more stored, left out; {style}):", used.used.len(), used.left_out);
    for id in &used.used {
        let Some(item) = items.iter().find(|i| &i.item_id == id) else { continue };
        let mark = if used.cited.contains(id) { "cited " } else { "      " };
        let source = item.source_turn.map_or("no source turn".to_string(), |t| format!("turn {t}"));
        let ancestors = nocturne_core::store::lineage::ancestors(item, &log);
        let lineage = if ancestors.is_empty() { String::new() } else { format!(" (from {})", ancestors.join(", ")) };
        println!(
            "  {mark}{id:<7} {:<8} said {} {source}{lineage}: {}",
            item.block.as_str(),
            nocturne_core::text::when::Day::from_unix(item.created_at),
            item.text
        );
    }
    Ok(())
}

/// Makes one user edit in the store file and saves it; prints the version it wrote.
fn user_edit(store: &StoreArgs, edit: UserEdit) -> Result<(), String> {
    let memory = FileStore::open_existing(&store.store)?;
    let written = write::Writer::new(&store.store, &memory).edit(&edit, store.now())?;
    let v = &written.done;
    println!("{} {} active={}", v.id(), v.label, v.active_count);
    if let Some(what) = written.recorded {
        println!("edit made and recorded for the next sync ({what})");
    }
    Ok(())
}

/// How `nocturne sleep` was asked to run.
#[derive(Clone, Copy, Debug)]
struct SleepFlags {
    dry_run: bool,
    deep: bool,
    yes: bool,
}

fn sleep_command(store: &StoreArgs, provider: &ProviderArgs, flags: SleepFlags) -> Result<(), String> {
    let dry_run = flags.dry_run;
    let memory = FileStore::open_existing(&store.store)?;
    let mut options = sleep::SleepOptions::new(store.now());
    options.dry_run = dry_run;
    if flags.deep {
        options = options.deep();
    }
    let p = provider.build()?;
    // The estimate and the guard come first whether the memory syncs or not: a synced
    // Sleep once retired 14 of 14 facts without asking.
    let estimate =
        pollster::block_on(sleep::estimate(&memory, p.proposal_style(), &options)).map_err(|e| e.to_string())?;
    println!("{}", estimate.line());
    if estimate.retires_a_lot() && !dry_run && !flags.yes {
        return Err(format!(
            "this Sleep would retire {} of {} active facts (more than a quarter); nothing was written. \
See which with --dry-run, or run it with --yes",
            estimate.retire, estimate.active
        ));
    }
    // Each pass is in the file as soon as it is committed (written aside, then renamed), so
    // the file is always the memory after the last completed pass.
    progress("before the first pass; nothing was written");
    let mut on_event = |ev: &sleep::PassEvent| {
        println!("{}", ev.event_line());
        if ev.phase == sleep::Phase::Done && !dry_run {
            progress(format!("after pass {}", ev.pass.name()));
        }
    };
    let result = if dry_run {
        pollster::block_on(sleep::sleep(&memory, &p, &options, &mut on_event)).map_err(|e| e.to_string())
    } else {
        let mut notes = Vec::new();
        let written = write::Writer::new(&store.store, &memory).sleep(&p, &options, &mut notes, &mut on_event);
        for note in notes {
            println!("note: {note}");
        }
        written.map(|w| {
            if let Some(what) = &w.recorded {
                println!("sleep recorded for the next sync ({what})");
            }
            w.done
        })
    };
    let report = result?;
    println!(
        "{}: active {} -> {}; proposed {} accepted {} rejected {} enforced {}; {} model call(s)",
        if report.dry_run { "dry run (nothing written)" } else { "sleep" },
        report.active_before,
        report.active_after,
        report.total(|p| p.proposed),
        report.total(|p| p.accepted),
        report.total(|p| p.rejected),
        report.total(|p| p.enforced),
        report.passes.iter().map(|p| p.calls).sum::<usize>()
    );
    for line in report.passes.iter().flat_map(|p| &p.notes) {
        println!("note: {line}");
    }
    for e in report.failed() {
        println!(
            "note: the {} pass ended on an unusable model reply and changed nothing ({}); the Sleep went on",
            e.pass.name(),
            e.error.as_deref().unwrap_or("")
        );
    }
    for p in report.passes.iter().filter(|p| p.search.left > 0) {
        println!(
            "note: the {} candidate search reached its bound per fact and left {} pairs or index entries unexamined ({} examined, {} found)",
            p.event.pass.name(),
            p.search.left,
            p.search.examined,
            p.search.found
        );
    }
    Ok(())
}

fn print_diff(d: &diff::Diff) {
    println!("kept {}", d.kept);
    for c in &d.changed {
        println!(
            "changed   {} [{} -> {}] \"{}\" -> \"{}\"",
            c.after.item_id, c.before.block, c.after.block, c.before.text, c.after.text
        );
    }
    for g in &d.forgotten {
        let by = g.by.as_ref().map_or("no mutation".to_string(), |m| {
            format!("{} {} ({})", m.pass, m.policy.as_deref().unwrap_or("-"), m.reason)
        });
        println!("forgotten {} \"{}\" by {by}", g.item.item_id, g.item.text);
    }
    for a in &d.added {
        println!("added     {} \"{}\"", a.item_id, a.text);
    }
    for m in &d.refused {
        println!("refused   {} {} {}: {}", m.pass, m.kind, m.item_id, m.rejection_reason.as_deref().unwrap_or(""));
    }
}

fn print_quiz(report: &quiz::QuizReport) {
    let mark = |ok: bool| if ok { "OK" } else { "MISS" };
    for q in &report.questions {
        println!(
            "[words {} · citation {}] {} -> {} (score {:.2}, cited {}, attempts {})",
            mark(q.correct),
            mark(q.cited_correct),
            q.question,
            q.answer,
            q.score,
            if q.cited.is_empty() { "nothing".to_string() } else { q.cited.join(", ") },
            q.attempts
        );
    }
    println!(
        "recall: {}/{} by words, {}/{} by citations; {} citation(s) outside their prompt refused",
        report.correct(),
        report.questions.len(),
        report.cited_correct(),
        report.questions.len(),
        report.refused_citations()
    );
    if let Some(p) = &report.probe {
        println!(
            "forgotten probe [words {} · citation {}]: {} -> {} absentFromStore={} saidAbsent={} leaked={} cited={}",
            if p.passed { "OK" } else { "FAIL" },
            if p.passed_by_citation { "OK" } else { "FAIL" },
            p.question,
            p.answer,
            p.absent_from_store,
            p.said_absent,
            p.leaked_forgotten_content,
            if p.cited.is_empty() { "nothing".to_string() } else { p.cited.join(", ") }
        );
    }
}

fn bench_models(providers: &[String], timeout: u64, now: Option<i64>) -> Result<(), String> {
    let now = now.unwrap_or_else(wall_clock);
    let clock =
        || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    let mut rows = vec![pollster::block_on(compare::run(OfflineProvider, now, &clock))];
    for spec in providers.iter().filter(|p| p.as_str() != "offline") {
        let parts: Vec<&str> = spec.split(',').collect();
        let (url, model) = match parts.as_slice() {
            [url, model, ..] => (*url, *model),
            _ => return Err(format!("--provider '{spec}': give offline, or BASE_URL,MODEL[,API_KEY_ENV]")),
        };
        eprintln!("bench-models: running {model} @ {url} …");
        let provider = remote(timeout, url, model, parts.get(2).copied(), StyleSetting::Auto)?;
        rows.push(pollster::block_on(compare::run(provider, now, &clock)));
    }
    print!("{}", compare::table(&rows));
    Ok(())
}

/// An OpenAI-compatible provider from the flags; the key is read from the named
/// environment variable and never printed.
fn remote(
    timeout: u64,
    url: &str,
    model: &str,
    key_env: Option<&str>,
    style: StyleSetting,
) -> Result<openai::OpenAi, String> {
    let key = match key_env {
        Some(var) => Some(
            std::env::var(var).map_err(|_| format!("the environment variable {var} (for the API key) is not set"))?,
        ),
        None => None,
    };
    Ok(openai::OpenAi::new(url, model, key, std::time::Duration::from_secs(timeout), style))
}

/// `nocturne verify`: every check, one line each, then `N/N checks`. With a real model the
/// model-dependent figures are reported, not required.
fn verify<P: Provider>(now: i64, provider: &P, require_skill: bool) -> ExitCode {
    let store = MemStore::new();
    let options = verify::VerifyOptions { now, require_skill, cases: case::bundled() };
    println!("verify with {}", provider.label());
    let report = pollster::block_on(verify::verify(&store, provider, &options, &mut |c| println!("{}", c.line())));
    println!("{}", report.summary(require_skill));
    if report.ok(require_skill) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn join<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    items.into_iter().map(|s| s.as_ref().to_string()).collect::<Vec<_>>().join(", ")
}

fn seq(text: &str) -> Result<u64, String> {
    text.trim_start_matches('v').parse().map_err(|_| format!("'{text}' is not a version number (like 12 or v12)"))
}

/// `nocturne gate FILE…`: one JSON line per file; exit 2 on a malformed file, 1 when a
/// verdict disagrees with the file's `expect`.
fn gate(files: &[PathBuf]) -> ExitCode {
    let (mut malformed, mut disagree) = (false, false);
    for file in files {
        let file = file.display();
        let judged = std::fs::read_to_string(file.to_string())
            .map_err(|e| format!("cannot read it: {e}"))
            .and_then(|text| case::parse(&text).and_then(|c| c.judge()).map_err(|e| e.to_string()));
        match judged {
            Ok(result) => {
                println!("{}", serde_json::to_string(&result).unwrap_or_default());
                for d in &result.disagreements {
                    eprintln!("nocturne: {file}: {d}");
                    disagree = true;
                }
            }
            Err(e) => {
                eprintln!("nocturne: {file}: {e}");
                malformed = true;
            }
        }
    }
    if malformed {
        ExitCode::from(2)
    } else if disagree {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
