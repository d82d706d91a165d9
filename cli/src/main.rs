//! `nocturne`: the native command line over nocturne-core — text measures, gate cases,
//! chat, sleep, versions, diff, restore, quiz, verify and benchmarks.

mod bench;
mod openai;

use nocturne_core::flow::{chat, sleep};
use nocturne_core::gate::case;
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::proof::{compare, quiz, verify};
use nocturne_core::store::diff;
use nocturne_core::store::document::Document;
use nocturne_core::store::{MemStore, Store};
use nocturne_core::text::textmath;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: nocturne <command> [args]

text measures
  similarity A B                 containment similarity of two facts (number first)
  coverage CLAIM SOURCE...       share of CLAIM's content tokens in the sources, then the missing ones
  proper-nouns TEXT              capitalised words not at a sentence start
  gate FILE...                   judge gate case files (SPEC §10); one JSON line per file

memory (a store file, default nocturne-memory.json; --now SECONDS overrides the clock)
  chat [--store F] MESSAGE       reply from memory and encode the turn (offline provider)
  sleep [--store F] [--dry-run]  run Dedupe -> Merge -> Supersede -> Promote -> Forget
  versions [--store F]           the version timeline
  diff [--store F] LO HI         what changed between two versions
  restore [--store F] SEQ        restore a version (as a new version)
  quiz [--store F]               the Wake quiz

proofs
  verify [--provider offline|openai] [--base-url URL --model NAME --api-key-env VAR --timeout S]
                                 scripted conversation, dry run, sleep, quiz, audit, gate cases
  bench-models [--provider offline|URL,MODEL[,KEY_ENV]]...
                                 the same conversation and Sleep through each provider, as a table
  bench-gates                    the meaning corpus through the gates: inverted facts, faithful
                                 negations, compatible pairs, contradictions (exit 1 off target)
  bench [--max N]                performance figures (see README)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("nocturne: {message}");
            ExitCode::from(2)
        }
    }
}

/// Parsed common flags and the remaining positional arguments.
struct Flags {
    store: PathBuf,
    now: i64,
    dry_run: bool,
    providers: Vec<String>,
    base_url: String,
    model: String,
    api_key_env: Option<String>,
    timeout: u64,
    max: usize,
    positional: Vec<String>,
}

fn flags(args: &[String]) -> Result<Flags, String> {
    let mut f = Flags {
        store: PathBuf::from("nocturne-memory.json"),
        now: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64),
        dry_run: false,
        providers: Vec::new(),
        base_url: "http://127.0.0.1:18080/v1".into(),
        model: "smollm2".into(),
        api_key_env: None,
        timeout: 300,
        max: 100_000,
        positional: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--store" => f.store = PathBuf::from(value("--store")?),
            "--now" => f.now = value("--now")?.parse().map_err(|_| "--now takes Unix seconds".to_string())?,
            "--dry-run" => f.dry_run = true,
            "--provider" => f.providers.push(value("--provider")?),
            "--base-url" => f.base_url = value("--base-url")?,
            "--model" => f.model = value("--model")?,
            "--api-key-env" => f.api_key_env = Some(value("--api-key-env")?),
            "--timeout" => {
                f.timeout = value("--timeout")?.parse().map_err(|_| "--timeout takes seconds".to_string())?
            }
            "--max" => f.max = value("--max")?.parse().map_err(|_| "--max takes a number of facts".to_string())?,
            _ => f.positional.push(a.clone()),
        }
    }
    Ok(f)
}

fn run(args: &[String]) -> Result<ExitCode, String> {
    let Some((command, rest)) = args.split_first() else {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    };
    match command.as_str() {
        "similarity" => {
            let [a, b] = rest else { return Err("similarity takes two texts".into()) };
            let (ta, tb) = (textmath::content_tokens(a), textmath::content_tokens(b));
            let shared: Vec<&String> = ta.intersection(&tb).collect();
            println!("{:.3}\tshared: {}", textmath::similarity(a, b), join(shared));
            Ok(ExitCode::SUCCESS)
        }
        "coverage" => {
            let Some((claim, sources)) = rest.split_first().filter(|(_, s)| !s.is_empty()) else {
                return Err("coverage takes a claim and at least one source".into());
            };
            let c = textmath::coverage(claim, sources.iter().map(String::as_str));
            println!("{:.3}\tmissing: {}", c.score, join(&c.missing));
            Ok(ExitCode::SUCCESS)
        }
        "proper-nouns" => {
            let text = rest.join(" ");
            for name in textmath::proper_nouns(&text) {
                println!("{name}");
            }
            Ok(ExitCode::SUCCESS)
        }
        "gate" => gate(rest),
        "chat" => {
            let f = flags(rest)?;
            let store = open(&f.store)?;
            let message = f.positional.join(" ");
            let turn = pollster::block_on(chat::chat_turn(&store, &OfflineProvider, &message, f.now))
                .map_err(|e| e.to_string())?;
            println!("{}", turn.reply);
            for m in &turn.encoded {
                match &m.rejection_reason {
                    None => println!("  encoded {}", m.item_id),
                    Some(why) => println!("  encoder refused: {why}"),
                }
            }
            if let Some(err) = turn.encode_error {
                println!("  encoder failed: {err}");
            }
            save(&store, &f.store)?;
            Ok(ExitCode::SUCCESS)
        }
        "sleep" => {
            let f = flags(rest)?;
            let store = open(&f.store)?;
            let mut options = sleep::SleepOptions::new(f.now);
            options.dry_run = f.dry_run;
            let result = pollster::block_on(sleep::sleep(&store, &OfflineProvider, &options, &mut |ev| {
                let v = &ev.event_line();
                println!("{v}");
            }));
            let report = result.map_err(|e| e.to_string())?;
            println!(
                "{}: active {} -> {}; proposed {} accepted {} rejected {} enforced {}",
                if report.dry_run { "dry run (nothing written)" } else { "sleep" },
                report.active_before,
                report.active_after,
                report.total(|p| p.proposed),
                report.total(|p| p.accepted),
                report.total(|p| p.rejected),
                report.total(|p| p.enforced)
            );
            if !f.dry_run {
                save(&store, &f.store)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        "versions" => {
            let f = flags(rest)?;
            let store = open(&f.store)?;
            for v in pollster::block_on(store.versions()).map_err(|e| e.to_string())? {
                println!("{:>5} {:<24} active={:<4} changed={}", v.id(), v.label, v.active_count, v.changed);
            }
            Ok(ExitCode::SUCCESS)
        }
        "diff" => {
            let f = flags(rest)?;
            let store = open(&f.store)?;
            let [lo, hi] = f.positional.as_slice() else { return Err("diff takes two version numbers".into()) };
            let d = pollster::block_on(diff::diff(&store, seq(lo)?, seq(hi)?)).map_err(|e| e.to_string())?;
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
                println!(
                    "refused   {} {} {}: {}",
                    m.pass,
                    m.kind,
                    m.item_id,
                    m.rejection_reason.as_deref().unwrap_or("")
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        "restore" => {
            let f = flags(rest)?;
            let store = open(&f.store)?;
            let [target] = f.positional.as_slice() else { return Err("restore takes one version number".into()) };
            let v = pollster::block_on(store.restore(seq(target)?, f.now)).map_err(|e| e.to_string())?;
            println!("{} {} active={}", v.id(), v.label, v.active_count);
            save(&store, &f.store)?;
            Ok(ExitCode::SUCCESS)
        }
        "quiz" => {
            let f = flags(rest)?;
            let store = open(&f.store)?;
            let report = pollster::block_on(quiz::wake(&store, &OfflineProvider, f.now)).map_err(|e| e.to_string())?;
            for q in &report.questions {
                println!(
                    "[{}] {} -> {} (score {:.2}, attempts {})",
                    if q.correct { "OK" } else { "MISS" },
                    q.question,
                    q.answer,
                    q.score,
                    q.attempts
                );
            }
            if let Some(p) = &report.probe {
                println!(
                    "forgotten probe [{}]: {} -> {} absentFromStore={} saidAbsent={} leaked={}",
                    if p.passed { "OK" } else { "FAIL" },
                    p.question,
                    p.answer,
                    p.absent_from_store,
                    p.said_absent,
                    p.leaked_forgotten_content
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        "verify" => {
            let f = flags(rest)?;
            match f.providers.first().map(String::as_str).unwrap_or("offline") {
                "offline" => verify(&f, &OfflineProvider, true),
                "openai" => {
                    let provider = remote(&f, &f.base_url, &f.model, f.api_key_env.as_deref())?;
                    let code = verify(&f, &provider, false);
                    println!("json mode used: {}", provider.mode().label());
                    code
                }
                other => Err(format!("unknown provider '{other}' (offline or openai)")),
            }
        }
        "bench-models" => {
            let f = flags(rest)?;
            let clock = || {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
            };
            let mut rows = vec![pollster::block_on(compare::run(OfflineProvider, f.now, &clock))];
            for spec in f.providers.iter().filter(|p| p.as_str() != "offline") {
                // URL,MODEL[,API_KEY_ENV]
                let parts: Vec<&str> = spec.split(',').collect();
                let (url, model) = match parts.as_slice() {
                    [url, model, ..] => (*url, *model),
                    _ => return Err(format!("--provider '{spec}': give offline, or BASE_URL,MODEL[,API_KEY_ENV]")),
                };
                eprintln!("bench-models: running {model} @ {url} …");
                rows.push(pollster::block_on(compare::run(
                    remote(&f, url, model, parts.get(2).copied())?,
                    f.now,
                    &clock,
                )));
            }
            print!("{}", compare::table(&rows));
            Ok(ExitCode::SUCCESS)
        }
        "bench-gates" => {
            let corpus = nocturne_core::testkit::meaning::corpus();
            let score = nocturne_core::testkit::meaning::score(&corpus).map_err(|e| e.to_string())?;
            println!("{}", score.line());
            for miss in &score.misses {
                println!("  miss: {miss}");
            }
            Ok(if score.meets_targets() { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        "bench" => {
            let f = flags(rest)?;
            bench::run(f.max);
            Ok(ExitCode::SUCCESS)
        }
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!("unknown command '{other}'\n{USAGE}")),
    }
}

/// An OpenAI-compatible provider from the flags; the key is read from the named
/// environment variable and never printed.
fn remote(f: &Flags, url: &str, model: &str, key_env: Option<&str>) -> Result<openai::OpenAi, String> {
    let key = match key_env {
        Some(var) => Some(
            std::env::var(var).map_err(|_| format!("the environment variable {var} (for the API key) is not set"))?,
        ),
        None => None,
    };
    Ok(openai::OpenAi::new(url, model, key, std::time::Duration::from_secs(f.timeout)))
}

/// `nocturne verify`: every check, one line each, then `N/N checks`. With a real model the
/// model-dependent figures are reported, not required.
fn verify<P: nocturne_core::llm::provider::Provider>(
    f: &Flags,
    provider: &P,
    require_skill: bool,
) -> Result<ExitCode, String> {
    let store = MemStore::new();
    let options = verify::VerifyOptions { now: f.now, require_skill, cases: case::bundled() };
    println!("verify with {}", provider.label());
    let report = pollster::block_on(verify::verify(&store, provider, &options, &mut |c| println!("{}", c.line())));
    println!("{}", report.summary(require_skill));
    Ok(if report.ok(require_skill) { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn join<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    items.into_iter().map(|s| s.as_ref().to_string()).collect::<Vec<_>>().join(", ")
}

fn seq(text: &str) -> Result<u64, String> {
    text.trim_start_matches('v').parse().map_err(|_| format!("'{text}' is not a version number (like 12 or v12)"))
}

/// `nocturne gate FILE…`: one JSON line per file; exit 2 on a malformed file, 1 when a
/// verdict disagrees with the file's `expect`.
fn gate(files: &[String]) -> Result<ExitCode, String> {
    if files.is_empty() {
        return Err("gate takes one or more case files".into());
    }
    let (mut malformed, mut disagree) = (false, false);
    for file in files {
        let judged = std::fs::read_to_string(file)
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
    Ok(if malformed {
        ExitCode::from(2)
    } else if disagree {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn open(path: &Path) -> Result<MemStore, String> {
    if !path.exists() {
        return Ok(MemStore::new());
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let doc = Document::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    MemStore::from_document(doc).map_err(|e| format!("{}: {e}", path.display()))
}

fn save(store: &MemStore, path: &Path) -> Result<(), String> {
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, store.document().to_json()).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot replace {}: {e}", path.display()))
}
