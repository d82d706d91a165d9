//! Every write of the command line and the MCP server is a command of the one write path
//! (`nocturne_core::write`). Each `Command` kind is driven through each native entry point
//! that offers it — a `nocturne` subcommand, an MCP tool — on a store that syncs: only the
//! journal records, so each write must leave exactly the records its command maps to
//! (`nocturne_sync::record::Op::of`). A kind no entry point offers fails the test; a kind
//! added to `Command` and left out below does not compile (the matches have no wildcard).
//! The page's jobs are the third entry point: `nocturne_app::jobs::AnyJob::command` maps
//! each, and the browser suite and the e2e files drive them.

use nocturne_core::write::Kind;
use nocturne_sync::crypto::KdfParams;
use nocturne_sync::device::Device;
use nocturne_sync::procedure::Joined;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

const NOW: &str = "1767139200";

/// How an entry point offers a kind of command.
enum Offer {
    /// The entry point performs it when driven so.
    Driven(Drive),
    /// It does not offer it, and why.
    No(&'static str),
}

/// One way of driving an entry point: the `nocturne` arguments (the store appended), or an
/// MCP tool and its arguments.
enum Drive {
    Cli(Vec<String>),
    Mcp(&'static str, Value),
}

fn args(list: &[&str]) -> Offer {
    Offer::Driven(Drive::Cli(list.iter().map(|s| s.to_string()).collect()))
}

/// What `nocturne` runs for `kind`.
fn cli(kind: Kind, setup: &Setup) -> Offer {
    match kind {
        Kind::Say => Offer::No("every turn of `nocturne chat` gets a reply: it is a Reply"),
        Kind::Reply => args(&["chat", "My sister Ana plays the cello."]),
        Kind::Edit => args(&["pin", &setup.fact]),
        Kind::Erase => args(&["erase", &setup.fact]),
        Kind::Restore => args(&["restore", "1"]),
        Kind::Policy => args(&["policy", "--stale-after-days", "400"]),
        Kind::Sleep => args(&["sleep", "--yes"]),
        Kind::Apply => args(&["apply", setup.plan.to_str().expect("utf8")]),
        Kind::Import => args(&["import", setup.history.to_str().expect("utf8"), "--sleep", "none"]),
        Kind::ImportSleep => args(&["import", setup.history.to_str().expect("utf8"), "--sleep", "end", "--yes"]),
    }
}

/// What an MCP host calls for `kind`.
fn mcp(kind: Kind, setup: &Setup) -> Offer {
    let tool = |name, args| Offer::Driven(Drive::Mcp(name, args));
    match kind {
        Kind::Say => tool("add_memory", json!({"text": "My brother Tom keeps bees."})),
        Kind::Reply => Offer::No("a host writes its own replies; add_memory stores the user's words"),
        Kind::Edit => tool("pin_memory", json!({"id": setup.fact})),
        Kind::Erase => tool("erase_memory", json!({"id": setup.fact, "confirm": true})),
        Kind::Restore => Offer::No("a restore is the user's, from the command line or the page"),
        Kind::Policy => Offer::No("the retention policy is the user's, from the command line or the page"),
        Kind::Sleep => tool("sleep", json!({"confirm": true})),
        Kind::Apply => tool("apply_plan", json!({"plan_id": setup.mcp_plan})),
        Kind::Import => Offer::No("a history file is imported from the command line or the page"),
        Kind::ImportSleep => Offer::No("a history file is imported from the command line or the page"),
    }
}

/// The records a kind of command leaves, by their operation's `kind` tag.
fn records(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Say | Kind::Reply => &["say"],
        Kind::Edit => &["edit"],
        // An erase compacts the space: a checkpoint of the erased memory replaces the records.
        Kind::Erase => &["checkpoint"],
        Kind::Restore => &["restore"],
        Kind::Policy => &["policy"],
        Kind::Sleep => &["sleep"],
        Kind::Apply => &["apply"],
        Kind::Import => &["import"],
        Kind::ImportSleep => &["import", "sleep"],
    }
}

/// What a kind's drive needs in the store beside it.
struct Setup {
    /// An active fact's id.
    fact: String,
    /// A plan file `nocturne sleep --review` wrote.
    plan: PathBuf,
    /// A plan the MCP server keeps.
    mcp_plan: String,
    /// A history file to import.
    history: PathBuf,
}

fn dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nocturne-commands-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn nocturne(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_nocturne")).args(args).output().expect("nocturne runs")
}

fn ok(args: &[&str]) -> String {
    let out = nocturne(args);
    assert!(out.status.success(), "{args:?}: {}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn state_path(store: &Path) -> PathBuf {
    PathBuf::from(format!("{}.sync.json", store.display()))
}

/// A store that syncs, as a device that joined a space and never reached its server: every
/// write is kept as a pending record (the server, on a closed port, is never needed).
fn synced_store(name: &str) -> PathBuf {
    let store = dir().join(name);
    for p in [store.clone(), state_path(&store)] {
        let _ = std::fs::remove_file(p);
    }
    ok(&["chat", "--store", store.to_str().expect("utf8"), "--now", NOW, "I live in Ghent. I keep a cat called Miso."]);
    let joined = Joined {
        server: "ws://127.0.0.1:9".into(),
        space: "space".into(),
        client_id: 7,
        kdf: KdfParams::TEST,
        device: Device::new("d1", "test"),
        last_sync: None,
    };
    std::fs::write(state_path(&store), serde_json::to_string_pretty(&joined).expect("json")).expect("state");
    store
}

/// The operation kinds of the records waiting beside `store`, oldest first.
fn pending(store: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(state_path(store)).expect("sync state");
    let state: Value = serde_json::from_str(&text).expect("json");
    state["device"]["pending"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["op"]["kind"].as_str().map(String::from))
        .collect()
}

/// What each drive needs, made on `store` (only reads and plans: no record).
fn setup(store: &Path) -> Setup {
    let s = store.to_str().expect("utf8");
    let doc: Value = serde_json::from_str(&ok(&["export", "--store", s])).expect("an export");
    let items = doc["items"].as_array().expect("items");
    let fact = items.iter().find(|i| i["active"] == json!(true)).and_then(|i| i["itemId"].as_str());
    let fact = fact.expect("an active fact").to_string();
    let plan = store.with_extension("plan.json");
    ok(&["sleep", "--store", s, "--now", NOW, "--review", plan.to_str().expect("utf8")]);
    let history = store.with_extension("history.json");
    ok(&["sample-export", "chatgpt", history.to_str().expect("utf8")]);
    Setup { fact, plan, mcp_plan: String::new(), history }
}

/// Calls `tool` with `args` on `nocturne mcp` over `store`: its structured result.
fn call(store: &Path, tool: &'static str, args: Value) -> Value {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    runtime.block_on(async {
        let store = store.to_str().expect("utf8").to_string();
        let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_nocturne")).configure(|cmd| {
            cmd.args(["mcp", "--store", &store, "--now", NOW, "--allow", "edit"]);
        });
        let client = ().serve(TokioChildProcess::new(command).expect("starts")).await.expect("handshake");
        let Value::Object(args) = args else { panic!("arguments are an object") };
        let r = client
            .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
            .await
            .expect("a result or a tool error");
        client.cancel().await.expect("close");
        let text: Vec<String> = r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect();
        assert_ne!(r.is_error, Some(true), "{tool}: {}", text.join(" "));
        r.structured_content.unwrap_or(Value::Null)
    })
}

/// Drives `drive` on `store`; the records it left.
fn drive(store: &Path, drive: &Drive) -> Vec<String> {
    let before = pending(store).len();
    match drive {
        Drive::Cli(args) => {
            let mut all: Vec<&str> = args.iter().map(String::as_str).collect();
            all.extend(["--store", store.to_str().expect("utf8"), "--now", NOW]);
            ok(&all);
        }
        Drive::Mcp(tool, args) => {
            call(store, tool, args.clone());
        }
    }
    pending(store).split_off(before)
}

/// The records `got` left, against what `kind`'s command maps to. An erase compacts the
/// space into one checkpoint, which replaces every record before it.
fn check(kind: Kind, entry: &str, got: &[String], all: &[String]) {
    let want = records(kind);
    let got: Vec<&str> = if kind == Kind::Erase {
        all.iter().map(String::as_str).collect()
    } else {
        let mut kinds: Vec<&str> = got.iter().map(String::as_str).collect();
        kinds.dedup();
        kinds
    };
    assert_eq!(got, want, "{kind:?} through {entry} left the wrong records");
}

#[test]
fn every_command_goes_through_the_journal_from_every_entry_point_that_offers_it() {
    let mut offered = std::collections::BTreeSet::new();
    for (entry, offer) in [("the command line", cli as fn(Kind, &Setup) -> Offer), ("the MCP server", mcp)] {
        for kind in Kind::ALL {
            let store = synced_store(&format!("{kind:?}-{}.db", entry.len()));
            let mut setup = setup(&store);
            if kind == Kind::Apply && entry == "the MCP server" {
                let planned = call(&store, "sleep", json!({"review": true}));
                setup.mcp_plan = planned["plan"]["id"].as_str().expect("plan id").to_string();
            }
            let how = match offer(kind, &setup) {
                Offer::Driven(how) => how,
                Offer::No(why) => {
                    assert!(!why.is_empty(), "{kind:?} through {entry}: say why it is not offered");
                    continue;
                }
            };
            offered.insert(kind);
            let got = drive(&store, &how);
            check(kind, entry, &got, &pending(&store));
        }
    }
    let missing: Vec<Kind> = Kind::ALL.into_iter().filter(|k| !offered.contains(k)).collect();
    assert!(missing.is_empty(), "no native entry point offers {missing:?}");
}

/// The check itself: a kind its entry point leaves unmapped, or maps to the wrong write,
/// is caught.
#[test]
fn the_check_catches_a_write_that_left_the_wrong_record() {
    let caught = std::panic::catch_unwind(|| check(Kind::Edit, "a planted entry point", &["say".into()], &[]));
    assert!(caught.is_err(), "a pin that recorded a turn passed");
    check(Kind::ImportSleep, "a test", &["import".into(), "import".into(), "sleep".into()], &[]);
}
