//! `nocturne sync` against the real y-sweet server (installed by `scripts/setup.sh` from
//! crates.io, started here on 127.0.0.1): three store files as three devices. A fact told
//! on one reaches the others; offline work on two devices converges to one head with every
//! user turn and the stale Sleep refused in the log; a canary sentence is in no byte the
//! server stored; a wrong passphrase and a tampered record change nothing; an erase leaves
//! the words on no device and in nothing the server holds, decrypted.

use nocturne_core::model::memory::Role;
use nocturne_core::model::pass::Stage;
use nocturne_core::store::document::Document;
use nocturne_core::text::order;
use nocturne_sync::replica::Replica;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

const PASSPHRASE: &str = "a long passphrase for the test";
const CANARY: &str = "Quokka7731";

struct Server {
    child: Option<Child>,
    port: u16,
    data: PathBuf,
}

impl Server {
    fn binary() -> PathBuf {
        let path = std::env::var("NOCTURNE_YSWEET").map(PathBuf::from).unwrap_or_else(|_| {
            PathBuf::from(std::env::var("HOME").unwrap_or_default())
                .join(".cache/nocturne-tools/y-sweet-0.9.1/bin/y-sweet")
        });
        assert!(
            path.exists(),
            "the sync server is not installed at {}: run scripts/setup.sh (ensure_ysweet)",
            path.display()
        );
        path
    }

    fn start(data: &Path, port: u16) -> Server {
        let mut s = Server { child: None, port, data: data.to_path_buf() };
        s.restart();
        s
    }

    /// Starts the server and waits for its own word that it listens: a port that answers
    /// may be held by another process (two tests once shared one), and a server that cannot
    /// bind exits — reported here, never mistaken for the one that holds the port.
    fn restart(&mut self) {
        let mut child = Command::new(Self::binary())
            .args(["serve", self.data.to_str().expect("utf8"), "--port", &self.port.to_string(), "--host", "127.0.0.1"])
            // A snapshot on disk every second (the default is ten).
            .args(["--checkpoint-freq-seconds", "1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("y-sweet starts");
        let stdout = child.stdout.take().expect("piped stdout");
        self.child = Some(child);
        let listening = format!("Listening on ws://127.0.0.1:{}", self.port);
        let (tx, rx) = std::sync::mpsc::channel();
        // Reads the log to its end, so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
                if line.contains(&listening) {
                    let _ = tx.send(true);
                }
            }
            let _ = tx.send(false);
        });
        match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(true) => {}
            Ok(false) => {
                let status = self.child.as_mut().and_then(|c| c.wait().ok());
                panic!(
                    "y-sweet exited before listening on port {} ({status:?}): the port is held by something else",
                    self.port
                )
            }
            Err(_) => panic!("y-sweet did not listen on {} within 20 s", self.port),
        }
    }

    fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    /// Every byte the server stored on disk.
    fn stored(&self) -> Vec<u8> {
        let mut all = Vec::new();
        for entry in walk(&self.data) {
            all.extend(std::fs::read(entry).unwrap_or_default());
        }
        all
    }

    /// The document the server holds, as it serves it.
    fn document(&self, space: &str) -> Replica {
        Replica::load(3, &self.document_bytes(space)).expect("the server's document")
    }

    /// The bytes of the document the server holds (`GET /d/SPACE/as-update`).
    fn document_bytes(&self, space: &str) -> Vec<u8> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        use std::io::{Read, Write};
        write!(stream, "GET /d/{space}/as-update HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").expect("request");
        let mut response = Vec::new();
        stream.read_to_end(&mut response).expect("response");
        let body = response.windows(4).position(|w| w == b"\r\n\r\n").map(|i| &response[i + 4..]).expect("a body");
        body.to_vec()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A port no other test of this binary was given: the tests run in parallel, and two
/// servers handed one port once made a test talk to another test's server until that test
/// ended and stopped it ("cannot connect" on a fresh machine's CI).
fn free_port() -> u16 {
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("nocturne-sync-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn nocturne(args: &[&str], passphrase: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocturne"))
        .args(args)
        .env("NOCTURNE_SYNC_PASSPHRASE", passphrase)
        .output()
        .expect("nocturne runs")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn ok(args: &[&str]) -> String {
    let o = nocturne(args, PASSPHRASE);
    let t = text(&o);
    assert!(o.status.success(), "nocturne {args:?} failed: {t}");
    t
}

/// The head digest a `nocturne sync` printed.
fn head(out: &str) -> String {
    out.split("head ").nth(1).map(|s| s.split_whitespace().next().unwrap_or("").to_string()).expect(out)
}

/// The memory at `store` as its export document (a database or a JSON file alike).
fn doc(store: &Path) -> Document {
    let out = nocturne(&["export", "--store", store.to_str().expect("utf8")], PASSPHRASE);
    assert!(out.status.success(), "export: {}", text(&out));
    Document::parse(&String::from_utf8_lossy(&out.stdout)).expect("a memory")
}

fn user_turns(store: &Path) -> Vec<String> {
    let mut t: Vec<String> =
        doc(store).transcript.into_iter().filter(|t| t.role == Role::User).map(|t| t.text).collect();
    order::sort(&mut t);
    t
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// The fault behind "cannot connect to ws://…" on a fresh machine: a server started on a
/// port something else holds exits, while the port still answers. It must be reported.
#[test]
fn regression_a_server_whose_port_is_taken_is_reported_not_mistaken_for_the_holder() {
    let holder = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = holder.local_addr().expect("addr").port();
    let data = std::env::temp_dir().join(format!("nocturne-sync-taken-{}", std::process::id()));
    std::fs::create_dir_all(&data).expect("temp dir");
    let started = std::panic::catch_unwind(|| Server::start(&data, port));
    let message = match started {
        Ok(_) => panic!("a server on a taken port was taken for a running one"),
        Err(e) => e.downcast_ref::<String>().cloned().unwrap_or_default(),
    };
    assert!(message.contains("exited before listening"), "{message}");
    let _ = std::fs::remove_dir_all(&data);
}

#[test]
fn three_devices_sync_through_a_real_y_sweet_server() {
    let d = dir();
    let mut server = Server::start(&d.join("server"), free_port());
    let url = server.url();
    let (a, b, c) = (d.join("laptop.db"), d.join("phone.db"), d.join("work.json"));
    let (sa, sb, sc) = (a.to_str().expect("utf8"), b.to_str().expect("utf8"), c.to_str().expect("utf8"));

    // (1) A fact told on one device appears on the others.
    ok(&["chat", "--store", sa, "--now", "1790000000", "My sister Ana lives in Porto."]);
    let out =
        ok(&["sync", "--store", sa, "--server", &url, "--device-name", "laptop", "--test-kdf", "--now", "1790000001"]);
    let space = out.split("space ").nth(1).and_then(|s| s.split(';').next()).expect(&out).to_string();
    ok(&["sync", "--store", sb, "--server", &url, "--space", &space, "--device-name", "phone"]);
    ok(&["sync", "--store", sc, "--server", &url, "--space", &space, "--device-name", "work"]);
    for s in [sb, sc] {
        let found = ok(&["search", "--store", s, "Porto"]);
        assert!(found.contains("My sister Ana lives in Porto."), "{found}");
    }

    // (2) The server goes away: the laptop chats and pins, the phone chats and sleeps.
    server.stop();
    ok(&["chat", "--store", sa, "--now", "1790000100", &format!("My locker code is {CANARY}.")]);
    let facts = doc(&a).items;
    let porto = facts.iter().find(|i| i.active && i.text.contains("Porto")).expect("the Porto fact").item_id.clone();
    ok(&["pin", "--store", sa, "--now", "1790000110", &porto]);
    ok(&["chat", "--store", sb, "--now", "1790000120", "I work as a nurse at the city hospital."]);
    ok(&["sleep", "--store", sb, "--deep", "--now", "1790000130"]);
    let before = doc(&b);
    let offline = nocturne(&["sync", "--store", sb], PASSPHRASE);
    let t = text(&offline);
    assert!(!offline.status.success() && t.contains("the sync server") && t.contains("nothing was lost"), "{t}");
    assert_eq!(doc(&b), before, "a failed sync changed the store");

    server.restart();
    let mut heads = Vec::new();
    for _ in 0..2 {
        heads.clear();
        for s in [sa, sb, sc] {
            heads.push(head(&ok(&["sync", "--store", s])));
        }
    }
    assert!(heads.iter().all(|h| h == &heads[0]), "devices diverged: {heads:?}");
    let all = user_turns(&a);
    assert_eq!(all.len(), 3, "{all:?}");
    for s in [&b, &c] {
        assert_eq!(user_turns(s), all);
    }
    let log = doc(&c).mutations;
    let stale =
        log.iter().find(|m| m.pass == Stage::Sync).expect("the phone's Sleep, planned on a stale head, is logged");
    assert!(stale.rejection_reason.as_deref().unwrap_or("").contains("refused as stale"), "{stale:?}");
    assert!(
        doc(&c).items.iter().any(|i| i.pinned && i.text.contains("Porto")),
        "the laptop's pin reached the work machine"
    );

    // Only one device sleeps at a time: the laptop's lease holds the phone off.
    let before = doc(&b);
    hold_lease(&server, &space, "ffff0000");
    let refused = nocturne(&["sleep", "--store", sb, "--now", "1790000140"], PASSPHRASE);
    let t = text(&refused);
    assert!(!refused.status.success() && t.contains("holds this memory's Sleep lease"), "{t}");
    assert_eq!(doc(&b), before, "a Sleep refused for the lease wrote something");
    hold_lease(&server, &space, "");

    // (3) The canary is in no byte the server holds — neither the document it serves nor its
    // files — though the server does hold it, sealed (the key opens it there).
    std::thread::sleep(Duration::from_secs(3));
    let held = server.document_bytes(&space);
    assert!(server.stored().len() > 2_000, "the server wrote no snapshot of the space");
    assert!(!records_holding(&server, &space, CANARY).is_empty(), "the server holds the canary's record");
    for words in [CANARY.as_bytes(), b"Porto", b"nurse"] {
        assert!(!contains(&held, words), "the server holds {} in clear", String::from_utf8_lossy(words));
        assert!(
            !contains(&server.stored(), words),
            "the server's files hold {} in clear",
            String::from_utf8_lossy(words)
        );
    }

    // (4) A wrong passphrase writes nothing; a tampered record is refused and changes nothing.
    let d4 = d.join("stranger.json");
    let wrong = nocturne(
        &["sync", "--store", d4.to_str().expect("utf8"), "--server", &url, "--space", &space],
        "not the passphrase",
    );
    assert!(!wrong.status.success() && text(&wrong).contains("wrong passphrase"), "{}", text(&wrong));
    assert!(!d4.exists() && !PathBuf::from(format!("{}.sync.json", d4.display())).exists());
    tamper(&server, &space);
    let before = doc(&b);
    let out = ok(&["sync", "--store", sb]);
    assert!(out.contains("refused record r:ffffffff:0000000001"), "{out}");
    assert_eq!(head(&out), heads[0], "a tampered record changed the memory");
    assert_eq!(doc(&b), before);

    // (5) An erase on the phone leaves the words on no device and nowhere on the server.
    let holding = records_holding(&server, &space, CANARY);
    assert!(!holding.is_empty(), "the canary's records were on the server");
    let id = doc(&b).items.iter().find(|i| i.text.contains(CANARY)).expect("the canary fact").item_id.clone();
    ok(&["erase", "--store", sb, "--now", "1790000200", &id]);
    for s in [sb, sa, sc, sb] {
        ok(&["sync", "--store", s]);
    }
    for s in [&a, &b, &c] {
        let bytes = std::fs::read(s).expect("store");
        assert!(!contains(&bytes, CANARY.as_bytes()), "{} still holds the words", s.display());
        assert!(contains(&bytes, b"Porto"), "the erase took more than its words");
        let replica = std::fs::read(format!("{}.sync.ydoc", s.display())).expect("replica");
        for sealed in &holding {
            assert!(!contains(&replica, &sealed[sealed.len() - 32..]), "{} keeps an erased record", s.display());
        }
    }
    assert!(records_holding(&server, &space, CANARY).is_empty(), "a record the server holds has the words, decrypted");
    std::thread::sleep(Duration::from_secs(3));
    let stored = server.stored();
    for sealed in &holding {
        assert!(!contains(&stored, &sealed[sealed.len() - 32..]), "the server's files keep an erased record's bytes");
    }
}

/// The sealed bytes of every record the server holds whose opened text has `words`.
fn records_holding(server: &Server, space: &str, words: &str) -> Vec<Vec<u8>> {
    let replica = server.document(space);
    let key =
        nocturne_sync::open_space(&replica, PASSPHRASE, (nocturne_sync::crypto::KdfParams::TEST, [0; 16], [0; 12]))
            .expect("the passphrase opens the server's space");
    let (records, bad) = nocturne_sync::device::open_records(&replica, &key).expect("records");
    let holding: Vec<String> = records
        .iter()
        .filter(|r| serde_json::to_string(r).unwrap_or_default().contains(words))
        .map(|r| r.id.key())
        .collect();
    let _ = bad;
    replica.records().into_iter().filter(|(k, _)| holding.contains(k)).map(|(_, v)| v).collect()
}

/// Another device takes (or, with an empty id, gives back) the Sleep lease until far ahead.
fn hold_lease(server: &Server, space: &str, device: &str) {
    let replica = Replica::new(0xbeef);
    let url = nocturne_sync::session::url(&server.url(), space);
    exchange(&url, &replica);
    replica.set_lease(&nocturne_sync::replica::Lease {
        device: device.into(),
        until: if device.is_empty() { 0 } else { 1_790_999_999 },
    });
    exchange(&url, &replica);
}

/// A hostile peer (or server) writes bytes that are not a sealed record under a record id.
fn tamper(server: &Server, space: &str) {
    let replica = Replica::new(0xdead);
    let url = nocturne_sync::session::url(&server.url(), space);
    exchange(&url, &replica);
    let (_, mut sealed) = replica.records().into_iter().next().expect("a record to copy");
    let n = sealed.len() / 2;
    sealed[n] ^= 0x55;
    replica.put("r:ffffffff:0000000001", sealed);
    exchange(&url, &replica);
}

fn exchange(url: &str, replica: &Replica) {
    let (mut socket, _) = tungstenite::connect(url).expect("connect");
    let (mut session, first) = nocturne_sync::session::Session::start(replica, [4; 8]);
    socket.send(tungstenite::Message::binary(first)).expect("send");
    while !session.done() {
        if let tungstenite::Message::Binary(bytes) = socket.read().expect("read") {
            for reply in session.receive(replica, &bytes).expect("receive") {
                socket.send(tungstenite::Message::binary(reply)).expect("send");
            }
        }
    }
}

/// Issue 42: on a store that syncs, `nocturne sleep` without `--yes` retired 14 of 14
/// active facts — the synced path returned before the estimate and the guard that the
/// same memory not synced goes through.
#[test]
fn regression_a_synced_sleep_asks_before_retiring_most_of_the_memory() {
    let d = std::env::temp_dir().join(format!("nocturne-sync-guard-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    let server = Server::start(&d.join("server"), free_port());
    let a = d.join("laptop.json");
    let sa = a.to_str().expect("utf8");
    let days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
    for (did, day) in
        ["I painted the fence", "I fixed my bike"].iter().flat_map(|did| days.iter().map(move |day| (did, day)))
    {
        ok(&["chat", "--store", sa, "--now", "1790000000", &format!("{did} on {day}.")]);
    }
    ok(&[
        "sync",
        "--store",
        sa,
        "--server",
        &server.url(),
        "--device-name",
        "laptop",
        "--test-kdf",
        "--now",
        "1790000001",
    ]);
    ok(&["policy", "--store", sa, "--stale-after-days", "1", "--now", "1790000002"]);
    let before = std::fs::read(&a).expect("store file");
    let later = "1799000000";
    let refused = nocturne(&["sleep", "--store", sa, "--now", later], PASSPHRASE);
    let t = text(&refused);
    assert!(!refused.status.success() && t.contains("estimate:") && t.contains("would retire 14 of 14"), "{t}");
    assert!(std::fs::read(&a).expect("store file") == before, "a refused synced Sleep changed the store file");
    // The planted fault's mirror: with --yes it runs, as a Sleep recorded for the next sync.
    let done = ok(&["sleep", "--store", sa, "--now", later, "--yes"]);
    assert!(done.contains("sleep recorded for the next sync") && done.contains("active 14 -> "), "{done}");
}

/// An MCP host's `add_memory` on a store that syncs once went out, at the next sync, as a
/// checkpoint of the whole memory ("writes made outside sync"); it is now a record of the
/// turn, which another device replays.
#[test]
fn regression_an_mcp_write_on_a_synced_store_reaches_another_device_as_a_record() {
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
    use rmcp::ServiceExt;
    let d = std::env::temp_dir().join(format!("nocturne-sync-mcp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    let server = Server::start(&d.join("server"), free_port());
    let url = server.url();
    let (a, b) = (d.join("desktop.json"), d.join("phone.json"));
    let (sa, sb) = (a.to_str().expect("utf8"), b.to_str().expect("utf8"));
    let out = ok(&["sync", "--store", sa, "--server", &url, "--test-kdf", "--now", "1790000000"]);
    let space = out.split("space ").nth(1).and_then(|s| s.split(';').next()).expect(&out).to_string();
    ok(&["sync", "--store", sb, "--server", &url, "--space", &space, "--now", "1790000001"]);
    // A turn on the command line: the memory is now made of records.
    ok(&["chat", "--store", sa, "--now", "1790000002", "I work as a nurse."]);
    assert!(ok(&["sync", "--store", sa, "--now", "1790000003"]).contains("sealed 1 record(s)"));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let added = runtime.block_on(async {
        let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_nocturne")).configure(|cmd| {
            cmd.args(["mcp", "--store", sa, "--now", "1790000100"]);
        });
        let client = ().serve(TokioChildProcess::new(command).expect("starts")).await.expect("handshake");
        let args = serde_json::json!({"text": "My sister Ana lives in Porto."});
        let serde_json::Value::Object(args) = args else { unreachable!() };
        let r = client.call_tool(CallToolRequestParams::new("add_memory").with_arguments(args)).await.expect("call");
        let _ = client.cancel().await;
        r
    });
    assert_ne!(added.is_error, Some(true), "{added:?}");
    let sent = ok(&["sync", "--store", sa, "--now", "1790000200"]);
    assert!(sent.contains("sealed 1 record(s)") && !sent.contains("outside sync"), "{sent}");
    let got = ok(&["sync", "--store", sb, "--now", "1790000300"]);
    assert!(got.contains("applied 2 from other devices") && head(&got) == head(&sent), "{sent}\n{got}");
    assert!(ok(&["search", "--store", sb, "Porto"]).contains("My sister Ana lives in Porto."));
}

/// `nocturne import` on a store that syncs once wrote straight into the store, and the next
/// sync sent the whole memory as a checkpoint ("writes made outside sync"); the import now
/// goes through the one write path, a record per day of history and per Sleep, which
/// another device replays to the same memory. A database store this time.
#[test]
fn regression_an_import_on_a_synced_store_reaches_another_device_as_records() {
    let d = std::env::temp_dir().join(format!("nocturne-sync-import-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    let server = Server::start(&d.join("server"), free_port());
    let url = server.url();
    let (a, b, zip) = (d.join("desktop.db"), d.join("phone.db"), d.join("history.zip"));
    let (sa, sb, sz) = (a.to_str().expect("utf8"), b.to_str().expect("utf8"), zip.to_str().expect("utf8"));
    let out = ok(&["sync", "--store", sa, "--server", &url, "--test-kdf", "--now", "1790000000"]);
    let space = out.split("space ").nth(1).and_then(|s| s.split(';').next()).expect(&out).to_string();
    ok(&["sync", "--store", sb, "--server", &url, "--space", &space, "--now", "1790000001"]);
    ok(&["sample-export", "chatgpt", sz]);
    let imported = ok(&["import", sz, "--store", sa, "--now", "1790000100"]);
    assert!(imported.contains("recorded for the next sync: ") && imported.contains("import record(s)"), "{imported}");
    let sent = ok(&["sync", "--store", sa, "--now", "1790000200"]);
    assert!(!sent.contains("outside sync") && !sent.contains("sealed 1 record(s)"), "{sent}");
    let got = ok(&["sync", "--store", sb, "--now", "1790000300"]);
    assert!(head(&got) == head(&sent), "{sent}\n{got}");
    let (on_a, on_b) = (user_turns(&a), user_turns(&b));
    assert!(!on_b.is_empty() && on_b == on_a, "{on_a:?}\n{on_b:?}");
}
