//! `nocturne mcp` as a host runs it: a child process driven by the official SDK's client
//! over stdio — the tools and their schemas, writes through the gates, the user's edits in
//! the log, a Sleep, bad input as tool errors that change nothing, a 10,000-fact store
//! searched within the budget, and a chat in another process writing the same file.

use nocturne_core::text::order;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;

mod common;

use common::exported;

type Client = RunningService<RoleClient, ()>;

const NOW: &str = "1767139200";

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nocturne-mcp-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// `nocturne mcp --store STORE …extra`, connected through the SDK's child-process client.
/// A server with every tool (`--allow edit`) unless `extra` names a scope.
async fn connect(store: &std::path::Path, extra: &[&str]) -> Client {
    let mut extra: Vec<&str> = extra.to_vec();
    if !extra.contains(&"--allow") {
        extra.extend(["--allow", "edit"]);
    }
    serve(store, &extra).await
}

async fn serve(store: &std::path::Path, extra: &[&str]) -> Client {
    let store = store.to_str().expect("utf8").to_string();
    let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_nocturne")).configure(|cmd| {
        cmd.args(["mcp", "--store", &store, "--now", NOW]).args(&extra);
    });
    let transport = TokioChildProcess::new(command).expect("nocturne mcp starts");
    ().serve(transport).await.expect("the MCP handshake succeeds")
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else { panic!("arguments must be an object") };
    client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{tool}: a protocol error where a result or a tool error was due: {e}"))
}

/// The structured result of a call that must succeed.
async fn ok(client: &Client, tool: &str, args: Value) -> Value {
    let r = call(client, tool, args.clone()).await;
    assert_ne!(r.is_error, Some(true), "{tool}({args}) failed: {}", text(&r));
    r.structured_content.clone().unwrap_or_else(|| panic!("{tool}: no structured result: {}", text(&r)))
}

/// The message of a call that must be a tool error.
async fn tool_error(client: &Client, tool: &str, args: Value) -> String {
    let r = call(client, tool, args.clone()).await;
    assert_eq!(r.is_error, Some(true), "{tool}({args}) should be a tool error, got {}", text(&r));
    text(&r)
}

fn text(r: &CallToolResult) -> String {
    r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join(" ")
}

/// The elements of a JSON array; none for anything else.
fn each(v: &Value) -> impl Iterator<Item = &Value> {
    v.as_array().into_iter().flatten()
}

fn texts(facts: &Value) -> Vec<String> {
    each(facts).filter_map(|f| f["text"].as_str().map(String::from)).collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime")
}

/// The tools and their schemas are what hosts were shown before the server moved to rmcp's
/// tool router: `mcp_tools.json` is `tools/list` as the MCP Inspector read it from the
/// binary before the move. Compared tool by tool (the order a host lists them in carries
/// nothing).
#[test]
fn the_tools_list_is_the_one_hosts_were_shown() {
    let expected: Value =
        serde_json::from_str(include_str!("mcp_tools.json")).expect("mcp_tools.json is the Inspector's JSON");
    let by_name = |tools: &Value| -> std::collections::BTreeMap<String, Value> {
        each(&tools["tools"]).map(|t| (t["name"].as_str().unwrap_or_default().to_string(), t.clone())).collect()
    };
    let expected = by_name(&expected);
    runtime().block_on(async {
        let client = connect(&temp("tools.db"), &[]).await;
        let tools = client.list_all_tools().await.expect("tools/list");
        let listed = by_name(&json!({ "tools": serde_json::to_value(&tools).expect("tools as JSON") }));
        assert_eq!(listed.keys().collect::<Vec<_>>(), expected.keys().collect::<Vec<_>>());
        for (name, want) in &expected {
            assert_eq!(&listed[name], want, "tool {name} differs from what hosts were shown");
        }
        client.cancel().await.expect("close");
    });
}

#[test]
fn the_tools_are_listed_with_a_schema_and_a_description_each() {
    runtime().block_on(async {
        let client = connect(&temp("list.db"), &[]).await;
        let tools = client.list_all_tools().await.expect("tools/list");
        let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
        order::sort(&mut names);
        assert_eq!(
            names,
            [
                "add_memory",
                "apply_plan",
                "correct_memory",
                "erase_memory",
                "forget_memory",
                "get_context",
                "list_memories",
                "memory_history",
                "pin_memory",
                "search_memories",
                "sleep"
            ]
        );
        for t in &tools {
            assert_eq!(t.input_schema.get("type"), Some(&json!("object")), "{}", t.name);
            assert!(t.description.as_deref().is_some_and(|d| d.len() > 60), "{} needs a description", t.name);
        }
        let required = |name: &str| {
            let t = tools.iter().find(|t| t.name == name).expect("tool");
            t.input_schema.get("required").cloned().unwrap_or(json!([]))
        };
        assert_eq!(required("add_memory"), json!(["text"]));
        assert_eq!(required("search_memories"), json!(["query"]));
        let erase = required("erase_memory");
        assert!(erase.as_array().is_some_and(|r| r.contains(&json!("confirm")) && r.contains(&json!("id"))), "{erase}");
        client.cancel().await.expect("close");
    });
}

#[test]
fn a_conversation_added_through_mcp_is_gated_stored_searched_and_slept_on() {
    let store = temp("conversation.db");
    runtime().block_on(async {
        let client = connect(&store, &[]).await;
        let first = ok(&client, "add_memory", json!({"text": "I live in Ghent and I keep a cat called Miso."})).await;
        assert_eq!(texts(&first["stored"]), ["I live in Ghent.", "I keep a cat called Miso."], "{first}");
        let greeting = ok(&client, "add_memory", json!({"text": "Hi there!"})).await;
        assert!(texts(&greeting["stored"]).is_empty(), "{greeting}");
        assert!(greeting["note"].as_str().is_some_and(|n| n.contains("nothing")), "{greeting}");
        let negation = ok(&client, "add_memory", json!({"text": "I do not eat meat."})).await;
        assert_eq!(texts(&negation["stored"]), ["I do not eat meat."], "the \"not\" is kept: {negation}");
        ok(&client, "add_memory", json!({"text": "I live in Ghent."})).await;
        let dated =
            ok(&client, "add_memory", json!({"text": "I live in Lisbon now.", "said_at": "2025-12-31T00:04:00Z"}))
                .await;
        assert_eq!(dated["stored"][0]["said"], json!("2025-12-31"), "said_at is the fact's date: {dated}");

        let found = ok(&client, "search_memories", json!({"query": "Where do I live?", "limit": 3})).await;
        let hits = texts(&found["facts"]);
        assert!(hits.len() <= 3 && hits.iter().any(|t| t.contains("Lisbon")), "{found}");
        let context = ok(&client, "get_context", json!({"query": "Where do I live?"})).await;
        let memory = context["context"].as_str().expect("context text");
        assert!(memory.starts_with("Everything between MEMORY") && memory.contains("Lisbon"), "{memory}");

        let slept = ok(&client, "sleep", json!({})).await;
        let accepted = |pass: &str| {
            each(&slept["passes"]).find(|p| p["pass"] == pass).map_or(0, |p| p["accepted"].as_u64().unwrap_or(0))
        };
        assert!(accepted("dedupe") >= 1, "the repeated statement is deduplicated: {slept}");
        assert!(accepted("supersede") >= 1, "Lisbon supersedes Ghent: {slept}");
        let active = ok(&client, "list_memories", json!({})).await;
        let now = texts(&active["facts"]);
        assert!(now.iter().any(|t| t == "I do not eat meat."), "the negation stays as said: {now:?}");
        assert!(now.iter().any(|t| t.contains("Lisbon")) && !now.iter().any(|t| t.contains("Ghent")), "{now:?}");
        let history = ok(&client, "memory_history", json!({"limit": 100})).await;
        let stages: Vec<&str> = each(&history["edits"]).filter_map(|e| e["stage"].as_str()).collect();
        assert!(
            stages.contains(&"dedupe") && stages.contains(&"supersede") && stages.contains(&"encode"),
            "{stages:?}"
        );
        client.cancel().await.expect("close");
    });
}

/// A reviewed Sleep (`flow::review`) through MCP: `sleep` with `review` returns a plan and writes nothing to the
/// memory; `apply_plan` applies only the edits named, logs the rest as not approved, and a
/// second call applies nothing; a plan id the server never made is a tool error.
#[test]
fn a_reviewed_sleep_through_mcp_writes_nothing_until_the_user_applies_it() {
    let store = temp("reviewed.db");
    runtime().block_on(async {
        let client = connect(&store, &[]).await;
        for text in ["I keep a bearded dragon.", "I keep a bearded dragon called Saffron.", "I live in Lisbon."] {
            ok(&client, "add_memory", json!({"text": text})).await;
        }
        ok(&client, "add_memory", json!({"text": "I moved to Porto, I no longer live in Lisbon."})).await;
        let before = exported(&store);
        let planned = ok(&client, "sleep", json!({"review": true})).await;
        assert_eq!(exported(&store), before, "a plan writes nothing");
        let plan = &planned["plan"];
        let id = plan["id"].as_str().expect("plan id").to_string();
        let accepted: Vec<&str> =
            each(&plan["edits"]).filter(|e| e["refused"].is_null()).filter_map(|e| e["id"].as_str()).collect();
        assert!(accepted.len() >= 2, "{planned}");
        let applied = ok(&client, "apply_plan", json!({"plan_id": id, "only": [accepted[0]]})).await;
        assert_eq!(applied["applied"], json!(1), "{applied}");
        assert_eq!(applied["not_approved"], json!(accepted.len() - 1), "{applied}");
        let again = ok(&client, "apply_plan", json!({"plan_id": id})).await;
        assert!(again["summary"].as_str().is_some_and(|s| s.contains("at most once")), "{again}");
        let err = tool_error(&client, "apply_plan", json!({"plan_id": "p-0000000000000000"})).await;
        assert!(err.contains("no plan"), "{err}");
        let err = tool_error(&client, "apply_plan", json!({"plan_id": "../memory"})).await;
        assert!(err.contains("not a plan id"), "{err}");
        client.cancel().await.expect("close");
    });
}

/// The one write path's guard reaches the MCP server too: a Sleep that would retire most of
/// the memory is a tool error that writes nothing until the host confirms.
#[test]
fn an_mcp_sleep_that_would_retire_most_of_the_memory_needs_confirm() {
    let store = temp("heavy.db");
    runtime().block_on(async {
        let client = connect(&store, &[]).await;
        for day in 1..=12 {
            let said = format!("2025-03-{day:02}");
            ok(&client, "add_memory", json!({"text": "I'm exhausted today.", "said_at": said})).await;
        }
        let before = exported(&store);
        let err = tool_error(&client, "sleep", json!({})).await;
        assert!(err.contains("would retire 12 of 12") && err.contains("confirm"), "{err}");
        assert_eq!(exported(&store), before, "a refused Sleep writes nothing");
        let slept = ok(&client, "sleep", json!({"confirm": true})).await;
        assert_eq!(slept["active_after"], json!(0), "{slept}");
        client.cancel().await.expect("close");
    });
}

/// A careless model on 127.0.0.1: the encoder drops a "not" and invents a fact beside the
/// user's own statement; Dedupe calls two different facts duplicates.
fn careless_model() -> String {
    common::model(|_, body| {
        let encoding = body.contains("atomic fact");
        let content = if encoding && body.contains("fish") {
            json!({"facts": [{"text": "I eat fish on Fridays.", "category": "preferences", "block": "scratch"}]})
        } else if encoding {
            json!({"facts": [
                {"text": "I do not eat meat.", "category": "preferences", "block": "scratch"},
                {"text": "I eat meat.", "category": "preferences", "block": "scratch"},
                {"text": "I fly rockets for NASA.", "category": "identity", "block": "scratch"}
            ]})
        } else if body.contains("duplicateOf") {
            json!({"drop": [{"itemId": "m_1", "duplicateOf": "m_2", "reason": "both are about food"}]})
        } else {
            json!({"drop": [], "merge": [], "supersede": [], "promote": [], "forget": []})
        };
        Some(content.to_string())
    })
}

#[test]
fn a_careless_models_statements_are_refused_with_reasons_through_add_memory_and_sleep() {
    let url = careless_model();
    let store = temp("careless.db");
    runtime().block_on(async {
        let args = ["--provider", "openai", "--base-url", &url, "--model", "careless", "--proposal-style", "free-text"];
        let client = connect(&store, &args).await;
        let added = ok(&client, "add_memory", json!({"text": "I do not eat meat."})).await;
        assert_eq!(texts(&added["stored"]), ["I do not eat meat."], "{added}");
        let refused: Vec<(String, String)> = each(&added["refused"])
            .map(|r| {
                (r["statement"].as_str().unwrap_or("").to_string(), r["reason"].as_str().unwrap_or("").to_string())
            })
            .collect();
        assert_eq!(refused.len(), 2, "the dropped \"not\" and the invention are refused: {added}");
        assert!(refused.iter().all(|(s, why)| !s.is_empty() && why.len() > 10), "{refused:?}");
        ok(&client, "add_memory", json!({"text": "I eat fish on Fridays."})).await;
        let slept = ok(&client, "sleep", json!({})).await;
        let dedupe = each(&slept["passes"]).find(|p| p["pass"] == "dedupe").cloned();
        assert_eq!(
            dedupe.as_ref().map(|d| (d["accepted"].clone(), d["refused"].clone())),
            Some((json!(0), json!(1))),
            "{slept}"
        );
        let history = ok(&client, "memory_history", json!({})).await;
        let refusal = each(&history["edits"]).find(|e| e["stage"] == "dedupe").cloned();
        let refusal = refusal.expect("the refused drop is in the history");
        assert_eq!(refusal["accepted"], json!(false));
        assert!(refusal["refused_because"].as_str().is_some_and(|r| r.len() > 10), "{refusal}");
        let facts = texts(&ok(&client, "list_memories", json!({})).await["facts"]);
        assert_eq!(facts.len(), 2, "both facts are still active: {facts:?}");
        client.cancel().await.expect("close");
    });
}

#[test]
fn the_users_edits_through_mcp_are_logged_as_the_users_and_erase_needs_a_confirmation() {
    let store = temp("edits.db");
    runtime().block_on(async {
        let client = connect(&store, &[]).await;
        ok(
            &client,
            "add_memory",
            json!({"text": "I live in Ghent and my locker code is 4417 and I keep a cat called Miso."}),
        )
        .await;
        let listed = ok(&client, "list_memories", json!({})).await;
        let ids: Vec<String> = each(&listed["facts"]).filter_map(|f| f["id"].as_str().map(String::from)).collect();
        assert_eq!(ids.len(), 3, "{ids:?}");
        let corrected = ok(&client, "correct_memory", json!({"id": ids[0], "text": "I live in Antwerp."})).await;
        assert_eq!(corrected["fact"]["text"], json!("I live in Antwerp."), "{corrected}");
        ok(&client, "pin_memory", json!({"id": ids[2]})).await;
        ok(&client, "forget_memory", json!({"id": ids[2], "reason": "the cat moved out"})).await;

        let before = exported(&store);
        let unconfirmed = tool_error(&client, "erase_memory", json!({"id": ids[1], "confirm": false})).await;
        assert!(unconfirmed.contains("confirm"), "{unconfirmed}");
        assert_eq!(exported(&store), before, "an unconfirmed erase changes nothing");
        let erased = ok(&client, "erase_memory", json!({"id": ids[1], "confirm": true})).await;
        assert_eq!(erased["erased"], json!([ids[1].clone()]), "{erased}");
        let file = exported(&store);
        assert!(!file.contains("4417"), "the erased words are in no row of the store file");

        let history = ok(&client, "memory_history", json!({"limit": 50})).await;
        let by_user: Vec<String> = each(&history["edits"])
            .filter(|e| e["proposer"] == "user")
            .filter_map(|e| e["kind"].as_str().map(String::from))
            .collect();
        for kind in ["correct", "pin", "forget", "erase"] {
            assert!(by_user.iter().any(|k| k == kind), "{kind} is logged as the user's: {by_user:?}");
        }
        client.cancel().await.expect("close");
    });
}

#[test]
fn every_bad_input_is_a_tool_error_and_leaves_the_store_file_byte_identical() {
    let store = temp("bad-input.json");
    runtime().block_on(async {
        let client = connect(&store, &[]).await;
        ok(&client, "add_memory", json!({"text": "I live in Ghent."})).await;
        let before = std::fs::read(&store).expect("store");
        let huge = "I like tea. ".repeat(90_000);
        let cases = [
            ("no_such_tool", json!({}), "no tool named"),
            ("add_memory", json!({}), "missing field `text`"),
            ("add_memory", json!({"text": 5}), "invalid type"),
            ("add_memory", json!({"text": huge}), "at most"),
            ("add_memory", json!({"text": "   "}), "empty"),
            ("add_memory", json!({"text": "I like tea.", "said_at": "last Tuesday"}), "not a date"),
            ("add_memory", json!({"text": "I like tea.", "mood": "happy"}), "unknown field"),
            ("search_memories", json!({"query": "tea", "limit": 0}), "out of range"),
            ("list_memories", json!({"block": "diary"}), "no block"),
            ("list_memories", json!({"cursor": "page-two"}), "not a cursor"),
            ("correct_memory", json!({"id": "m_999", "text": "I live in Rome."}), "m_999"),
            ("pin_memory", json!({"id": "m_999"}), "m_999"),
            ("forget_memory", json!({"id": "m_999"}), "m_999"),
            ("erase_memory", json!({"id": "m_999", "confirm": true}), "m_999"),
            ("erase_memory", json!({"id": "m_1"}), "missing field `confirm`"),
        ];
        for (tool, args, says) in cases {
            let message = tool_error(&client, tool, args.clone()).await;
            assert!(
                message.contains(says),
                "{tool}({}) should say {says:?}: {message}",
                &args.to_string()[..args.to_string().len().min(80)]
            );
            assert_eq!(std::fs::read(&store).expect("store"), before, "{tool} changed the store file");
        }
        // The file replaced by something that is not a memory: a tool error naming it, and
        // nothing written over it.
        std::fs::write(&store, "{ this is not a memory").expect("overwrite");
        for (tool, args) in
            [("add_memory", json!({"text": "I like tea."})), ("search_memories", json!({"query": "tea"}))]
        {
            let message = tool_error(&client, tool, args).await;
            assert!(message.contains("not a readable memory file"), "{message}");
        }
        assert_eq!(std::fs::read_to_string(&store).expect("store"), "{ this is not a memory");
        client.cancel().await.expect("close");
    });
}

#[test]
fn search_and_context_stay_within_the_budget_on_a_10000_fact_store() {
    use nocturne_core::model::memory::Block;
    use nocturne_core::store::{Commit, MemStore, Store};
    let json_store = temp("large.json");
    let memory = MemStore::new();
    let topics = ["tea", "bikes", "chess", "violins", "gardens", "rivers", "trains", "clouds"];
    let items: Vec<_> = (1..=10_000u64)
        .map(|n| {
            let text =
                format!("Fact {n}: I once talked about {} with friend number {n}.", topics[n as usize % topics.len()]);
            nocturne_core::testkit::conformance::fact(n, Block::Scratch, &text, 1_767_000_000 + n as i64)
        })
        .collect();
    pollster::block_on(memory.commit(Commit {
        at: 1_767_000_000,
        label: Some("seed".into()),
        items,
        ..Default::default()
    }))
    .expect("seed");
    std::fs::write(&json_store, memory.document().to_json()).expect("write the store file");
    // The same memory moved into a database, where search and context rank the facts it
    // finds for the query with the whole memory's statistics.
    let db_store = temp("large.db");
    let moved = std::process::Command::new(env!("CARGO_BIN_EXE_nocturne"))
        .args(["move-store", "--store", json_store.to_str().expect("utf8"), "--to", db_store.to_str().expect("utf8")])
        .output()
        .expect("nocturne runs");
    assert!(moved.status.success(), "{}", String::from_utf8_lossy(&moved.stderr));
    for store in [json_store, db_store] {
        search_and_context_within_budget(&store);
    }
}

fn search_and_context_within_budget(store: &std::path::Path) {
    runtime().block_on(async {
        let client = connect(store, &["--budget", "1500"]).await;
        let t0 = std::time::Instant::now();
        let found =
            ok(&client, "search_memories", json!({"query": "Who did I talk to about violins?", "limit": 20})).await;
        let search_s = t0.elapsed().as_secs_f64();
        let hits = texts(&found["facts"]);
        assert!(!hits.is_empty() && hits.len() <= 20 && hits.iter().all(|t| t.contains("violins")), "{hits:?}");
        let t1 = std::time::Instant::now();
        let context = ok(&client, "get_context", json!({"query": "Who did I talk to about violins?"})).await;
        let context_s = t1.elapsed().as_secs_f64();
        let tokens = context["tokens"].as_u64().expect("tokens");
        assert!(tokens <= 1500 && context["left_out"].as_u64() > Some(9_000), "{}", context["tokens"]);
        let words = context["context"].as_str().expect("context").len();
        assert!(words < 1500 * 8, "the context is bounded: {words} bytes");
        let page = ok(&client, "list_memories", json!({})).await;
        assert_eq!(page["facts"].as_array().map(Vec::len), Some(50));
        assert_eq!(page["total"], json!(10_000));
        let next = ok(&client, "list_memories", json!({"cursor": page["next_cursor"]})).await;
        assert_eq!(next["facts"][0]["id"], json!("m_51"));
        println!(
            "mcp on 10,000 facts in {}: search {search_s:.2} s, context {context_s:.2} s, {tokens} tokens",
            store.display()
        );
        client.cancel().await.expect("close");
    });
}

#[test]
fn the_mcp_server_and_a_chat_writing_one_store_file_at_once_lose_nothing() {
    // Both ways a memory is kept: the database, and a JSON file as earlier versions kept it.
    for name in ["shared.db", "shared.json"] {
        two_writers_lose_nothing(&temp(name));
    }
}

fn two_writers_lose_nothing(store: &std::path::Path) {
    let store = store.to_path_buf();
    let s = store.to_str().expect("utf8").to_string();
    let n = 25;
    let chat_lines: String =
        (0..n).map(|i| format!("My chat note number {i} is about the colour {}.\n", i * 7)).collect();
    runtime().block_on(async {
        let client = connect(&store, &[]).await;
        ok(&client, "add_memory", json!({"text": "I live in Ghent."})).await;
        // A chat in another process, one turn per line, while the host adds its own.
        let mut chat = std::process::Command::new(env!("CARGO_BIN_EXE_nocturne"))
            .args(["chat", "--store", &s, "--now", NOW])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("chat runs");
        chat.stdin.take().expect("stdin").write_all(chat_lines.as_bytes()).expect("write");
        for i in 0..n {
            ok(&client, "add_memory", json!({"text": format!("My host note number {i} is about the town {}.", i * 3)}))
                .await;
        }
        let out = chat.wait_with_output().expect("chat ends");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        client.cancel().await.expect("close");
    });
    let doc: Value = serde_json::from_str(&exported(&store)).expect("json");
    let said: Vec<&str> =
        each(&doc["transcript"]).filter(|t| t["role"] == "user").filter_map(|t| t["text"].as_str()).collect();
    let facts: Vec<&str> = each(&doc["items"]).filter_map(|i| i["text"].as_str()).collect();
    for i in 0..n {
        let host = format!("My host note number {i} is about the town {}.", i * 3);
        let chat = format!("My chat note number {i} is about the colour {}.", i * 7);
        assert!(said.contains(&host.as_str()) && said.contains(&chat.as_str()), "turn {i} lost: {said:?}");
        assert!(facts.contains(&host.as_str()) && facts.contains(&chat.as_str()), "fact {i} lost");
    }
    assert_eq!(said.len(), 2 * n + 1, "every user turn once: {said:?}");
}

/// `--allow`: by default a host may read and add, and no more; each scope lists only its
/// tools, and a tool outside it is refused by name, the store left byte-identical.
#[test]
fn a_tool_outside_the_servers_scope_is_neither_listed_nor_run() {
    let store = temp("scopes.db");
    runtime().block_on(async {
        let names = |tools: Vec<rmcp::model::Tool>| {
            let mut names: Vec<String> = tools.into_iter().map(|t| t.name.to_string()).collect();
            order::sort(&mut names);
            names
        };
        let read = ["get_context", "list_memories", "memory_history", "search_memories"];
        let default = serve(&store, &[]).await;
        let listed = names(default.list_all_tools().await.expect("tools"));
        let mut expected: Vec<&str> = read.iter().copied().chain(["add_memory"]).collect();
        order::sort(&mut expected);
        assert_eq!(listed, expected, "the default scope is add");
        let added = ok(&default, "add_memory", json!({"text": "I live in Ghent."})).await;
        let id = added["stored"][0]["id"].as_str().expect("an id").to_string();
        assert!(added["stored"][0]["from"][0]["by"].as_str().is_some_and(|b| b.starts_with("MCP client")), "{added}");
        let before = exported(&store);
        for (tool, args) in [
            ("erase_memory", json!({"id": id, "confirm": true})),
            ("correct_memory", json!({"id": id, "text": "I live in Rome."})),
            ("forget_memory", json!({"id": id})),
            ("sleep", json!({})),
        ] {
            let err = tool_error(&default, tool, args).await;
            assert!(err.contains("needs the edit scope") && err.contains("--allow edit"), "{tool}: {err}");
        }
        assert_eq!(exported(&store), before, "nothing outside the scope ran");
        default.cancel().await.expect("close");

        let reader = serve(&store, &["--allow", "read"]).await;
        assert_eq!(names(reader.list_all_tools().await.expect("tools")), read);
        let err = tool_error(&reader, "add_memory", json!({"text": "I keep bees."})).await;
        assert!(err.contains("needs the add scope"), "{err}");
        assert_eq!(exported(&store), before);
        reader.cancel().await.expect("close");

        let editor = serve(&store, &["--allow", "edit"]).await;
        assert_eq!(editor.list_all_tools().await.expect("tools").len(), 11, "every tool");
        editor.cancel().await.expect("close");
    });
}
