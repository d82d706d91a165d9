//! `nocturne`: the native command line over nocturne-core — text measures, gate cases,
//! chat, sleep, versions, diff, restore, quiz, verify and benchmarks.

mod adversarial;
mod answers;
mod args;
mod bench;
mod cmd;
mod conversation;
mod corpora;
mod db;
mod error;
mod file;
mod import;
mod mcp;
mod openai;
mod policy;
mod provider;
mod scale;
mod sleep_audit;
mod store;
mod storebench;
mod sync;
mod trust;
mod write;

use args::{Cli, Command, KeepArg, ProviderArgs, ProviderKind};
use clap::Parser;
use error::CliError;
use nocturne_core::flow::edit::UserEdit;
use nocturne_core::llm::provider::Provider;
use nocturne_core::text::textmath;
use std::io::Write;
use std::process::ExitCode;

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

/// Output that cannot be written is an error, never a panic: a closed standard output
/// (`nocturne versions | head`) ends the command quietly with the shell's code for it
/// (128 + SIGPIPE); any other failure to print (`> /dev/full`) with one line and exit 1.
fn output_errors_are_errors() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message =
            payload.downcast_ref::<String>().map(String::as_str).or_else(|| payload.downcast_ref::<&str>().copied());
        if let Some(m) = message.filter(|m| m.starts_with("failed printing to std")) {
            if m.contains("Broken pipe") {
                std::process::exit(141);
            }
            let why = m.split_once(": ").map_or(m, |(_, why)| why);
            let _ = writeln!(std::io::stderr(), "nocturne: cannot write the output: {why}");
            std::process::exit(1);
        }
        default(info)
    }));
}

/// What was printed, written out: an error here is the command's error.
fn flushed(code: ExitCode) -> ExitCode {
    match std::io::stdout().flush() {
        Ok(()) => code,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(141),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "nocturne: cannot write the output: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    on_interrupt();
    output_errors_are_errors();
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => flushed(code),
        Err(e) => {
            eprintln!("nocturne: {e}");
            for cause in e.causes() {
                eprintln!("  because: {cause}");
            }
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> Result<ExitCode, CliError> {
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
        Command::Gate { files } => return Ok(cmd::check::gate(&files)),
        Command::Chat { store, provider, speaker, show_memory, message } => {
            let flags = cmd::chat::ChatFlags { speaker: speaker.as_deref(), show_memory };
            cmd::chat::chat(&store, &provider, flags, message)?
        }
        Command::Sleep { store, provider, dry_run, deep, yes, review } => match review {
            // A plan writes nothing, so the guard against retiring a lot has nothing to guard.
            Some(plan) => cmd::review::plan_command(&store, &provider, deep, &plan)?,
            None => cmd::sleep::sleep_command(&store, &provider, cmd::sleep::SleepFlags { dry_run, deep, yes })?,
        },
        Command::Review { plan } => cmd::review::list_command(&plan)?,
        Command::Apply { plan, store, only, reject, reason } => {
            cmd::review::apply_command(&store, &plan, only, &reject, reason.as_deref())?
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
        Command::Mcp { store, provider, budget, allow } => {
            mcp::serve(mcp::Config { store: store.store, provider, budget, now: store.now, client: None, allow })?
        }
        Command::Versions { store } => cmd::memory::versions(&store)?,
        Command::Diff { store, lo, hi } => cmd::memory::diff(&store, &lo, &hi)?,
        Command::Restore { store, version } => cmd::memory::restore(&store, &version)?,
        Command::Edit { store, id, text } => {
            cmd::memory::user_edit(&store, UserEdit::Correct { item_id: id, text: text.join(" ") })?
        }
        Command::Policy { store, stale_after_days, max_active_facts, transient_grace_days, commitment_grace_days } => {
            let changes =
                policy::Changes { stale_after_days, max_active_facts, transient_grace_days, commitment_grace_days };
            policy::run(&store.store, store.now(), changes)?
        }
        Command::Pin { store, id } => cmd::memory::user_edit(&store, UserEdit::Pin { item_id: id })?,
        Command::Unpin { store, id } => cmd::memory::user_edit(&store, UserEdit::Unpin { item_id: id })?,
        Command::Forget { store, id, reason } => {
            cmd::memory::user_edit(&store, UserEdit::Forget { item_id: id, reason })?
        }
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
        Command::Erase { store, id } => cmd::memory::erase(&store, &id)?,
        Command::Export { store, out } => cmd::memory::export(&store, out.as_deref())?,
        Command::MoveStore { store, to } => cmd::memory::move_store(&store, to.as_deref())?,
        Command::Search { store, query } => cmd::memory::search(&store, &query.join(" "))?,
        Command::Quiz { store, provider } => cmd::check::quiz(&store, &provider)?,
        Command::Verify { provider, now } => return cmd::check::verify_command(&provider, now),
        Command::BenchModels { providers, timeout, now } => cmd::check::bench_models(&providers, timeout, now)?,
        Command::BenchGates => return cmd::check::bench_gates(),
        Command::Bench { max } => bench::run(max),
        Command::BenchCandidates { max, new } => adversarial::run(max, new)?,
        Command::BenchWorth { misses } => corpora::worth(misses)?,
        Command::BenchSplit { misses } => corpora::split(misses)?,
        Command::BenchTrust { misses } => trust::run(misses)?,
        Command::BenchActs { misses } => corpora::acts(misses)?,
        Command::BenchConversation { files, budget, policy, check, misses, sleep_audit, audit_labels } => {
            let keep = policy.map(|p| match p {
                KeepArg::Keep => conversation::Keep::Everything,
                KeepArg::Default => conversation::Keep::Default,
            });
            let audit = sleep_audit.then_some(audit_labels.as_path());
            conversation::run(&files, budget, keep, check, misses, audit)?
        }
        Command::BenchAnswers { file, provider, questions } => {
            let p = provider.build()?;
            let started = std::time::Instant::now();
            let classes = answers::run(&file, questions, &p)?;
            println!("{}", classes.line(&p.label(), started.elapsed().as_secs_f64()));
        }
        Command::BenchIncremental { facts, new } => scale::incremental(facts, new)?,
        Command::BenchStore { facts, pipe_turns, dir } => {
            storebench::run(&storebench::Options { facts, pipe_turns, dir })?
        }
        Command::BenchRecall { facts, export } => scale::recall(facts, export.as_deref())?,
    }
    Ok(ExitCode::SUCCESS)
}

fn join<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    items.into_iter().map(|s| s.as_ref().to_string()).collect::<Vec<_>>().join(", ")
}
