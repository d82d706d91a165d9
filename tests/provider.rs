//! The OpenAI-compatible provider and the Web Locks guard in headless Chromium, against
//! the scripted server `tests/fake_openai.py` (started by scripts/test.sh, its address
//! baked in at compile time through NOCTURNE_FAKE_OPENAI).
#![cfg(target_arch = "wasm32")]

use nocturne_app::http::{HttpConfig, HttpProvider, JsonMode, ModeMemo};
use nocturne_app::idb::IdbStore;
use nocturne_app::lock::{self, LockError, Wait};
use nocturne_core::flow::chat;
use nocturne_core::flow::sleep::{self, SleepOptions};
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::prompt;
use nocturne_core::llm::provider::{Provider, ProviderError, Request};
use nocturne_core::proof::verify;
use nocturne_core::store::Store;
use nocturne_core::PassKind;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const NOW: i64 = 1_767_225_600;
const SERVER: &str = match option_env!("NOCTURNE_FAKE_OPENAI") {
    Some(s) => s,
    None => "http://127.0.0.1:18999",
};

fn provider(mode: &str, prefer: JsonMode, timeout_ms: u32) -> HttpProvider {
    HttpProvider::new(
        HttpConfig {
            base_url: format!("{SERVER}/{mode}/v1"),
            model: "fake".into(),
            api_key: Some("sk-test-secret".into()),
            timeout_ms,
            prefer,
            style: Default::default(),
        },
        ModeMemo::default(),
    )
}

/// A request with a JSON contract, like a pass sends.
fn pass_request() -> Request {
    let item = nocturne_core::testkit::conformance::fact(1, nocturne_core::Block::Scratch, "I live in Lisbon.", NOW);
    prompt::pass_requests(
        PassKind::Dedupe,
        &[&item],
        &Default::default(),
        &Default::default(),
        NOW,
        &Default::default(),
        Default::default(),
    )
    .remove(0)
}

async fn received() -> Vec<serde_json::Value> {
    let text = gloo_text(&format!("{SERVER}/_requests")).await;
    serde_json::from_str(&text).expect("the fake server lists requests")
}

async fn gloo_text(url: &str) -> String {
    let window = web_sys::window().expect("window");
    let resp: web_sys::Response = JsFuture::from(window.fetch_with_str(url)).await.expect("fetch").into();
    JsFuture::from(resp.text().expect("text")).await.expect("body").as_string().unwrap_or_default()
}

#[wasm_bindgen_test]
async fn a_well_behaved_endpoint_gets_a_schema_and_deterministic_settings() {
    let p = provider("good", JsonMode::Schema, 5000);
    let out = p.complete(&pass_request()).await.expect("completion");
    assert_eq!(out.text, r#"{"drop": []}"#);
    assert_eq!((out.prompt_tokens, out.completion_tokens), (11, 5));
    assert_eq!(p.mode(), JsonMode::Schema);
    let last = received().await.into_iter().rfind(|r| r["mode"] == "good").expect("recorded");
    assert_eq!(last["format"], "json_schema");
    assert_eq!(last["temperature"], 0);
    assert_eq!(last["cachePrompt"], false);
    assert_eq!(last["auth"], "Bearer sk-test-secret");
}

#[wasm_bindgen_test]
async fn lm_studio_400_is_detected_once_and_json_mode_is_reported_unsupported() {
    let p = provider("lmstudio", JsonMode::Object, 5000);
    p.complete(&pass_request()).await.expect("first call falls back");
    assert_eq!(p.mode(), JsonMode::Plain);
    assert_eq!(p.mode().label(), "json mode unsupported");
    p.complete(&pass_request()).await.expect("second call");
    let formats: Vec<serde_json::Value> =
        received().await.into_iter().filter(|r| r["mode"] == "lmstudio").map(|r| r["format"].clone()).collect();
    assert_eq!(
        formats,
        [serde_json::json!("json_object"), serde_json::Value::Null, serde_json::Value::Null],
        "refused once, then never sent again"
    );
}

#[wasm_bindgen_test]
async fn a_server_refusing_json_schema_falls_back_to_json_object() {
    let p = provider("noschema", JsonMode::Schema, 5000);
    p.complete(&pass_request()).await.expect("falls back");
    assert_eq!(p.mode(), JsonMode::Object);
    let formats: Vec<serde_json::Value> =
        received().await.into_iter().filter(|r| r["mode"] == "noschema").map(|r| r["format"].clone()).collect();
    assert_eq!(formats, [serde_json::json!("json_schema"), serde_json::json!("json_object")]);
}

#[wasm_bindgen_test]
async fn a_hanging_endpoint_times_out() {
    let err = provider("hang", JsonMode::Schema, 1000).complete(&pass_request()).await.expect_err("must time out");
    assert_eq!(err, ProviderError::Timeout { seconds: 1 });
    assert!(err.to_string().contains("did not answer within 1 s"));
}

#[wasm_bindgen_test]
async fn garbage_truncated_and_failing_bodies_are_clear_errors() {
    let garbage = provider("garbage", JsonMode::Schema, 5000).complete(&pass_request()).await.expect_err("garbage");
    assert!(matches!(&garbage, ProviderError::BadResponse(m) if m.contains("not valid JSON")), "{garbage}");
    let cut = provider("truncated", JsonMode::Schema, 5000).complete(&pass_request()).await.expect_err("truncated");
    assert!(matches!(&cut, ProviderError::BadResponse(m) if m.contains("not valid JSON")), "{cut}");
    let down = provider("http500", JsonMode::Schema, 5000).complete(&pass_request()).await.expect_err("500");
    assert!(matches!(&down, ProviderError::Http { status: 500, body } if body.contains("crashed")), "{down}");
}

#[wasm_bindgen_test]
async fn unreachable_and_cors_refusals_say_what_to_do() {
    let closed = HttpProvider::new(
        HttpConfig {
            base_url: "http://127.0.0.1:9/v1".into(),
            model: "x".into(),
            api_key: None,
            timeout_ms: 5000,
            prefer: JsonMode::Schema,
            style: Default::default(),
        },
        ModeMemo::default(),
    );
    let err = closed.complete(&pass_request()).await.expect_err("nothing listens on port 9");
    assert!(matches!(err, ProviderError::Unreachable(_)), "{err}");
    assert!(err.to_string().contains("CORS"));
    let nocors =
        provider("nocors", JsonMode::Schema, 5000).complete(&pass_request()).await.expect_err("no CORS headers");
    assert!(matches!(nocors, ProviderError::Unreachable(_)), "{nocors}");
}

#[wasm_bindgen_test]
async fn the_api_key_never_appears_in_an_error() {
    let err = provider("echokey", JsonMode::Schema, 5000).complete(&pass_request()).await.expect_err("401");
    let text = err.to_string();
    assert!(text.contains("401") && text.contains("<api key>"), "{text}");
    assert!(!text.contains("sk-test-secret"), "{text}");
    assert!(!format!("{:?}", provider("good", JsonMode::Schema, 1).config).contains("sk-test-secret"));
}

#[wasm_bindgen_test]
async fn chat_replies_stream_in_pieces() {
    let p = provider("good", JsonMode::Schema, 5000);
    let request = prompt::chat_request(&[], &[], "Hello?");
    let mut pieces = Vec::new();
    let out = p.stream(&request, &mut |d| pieces.push(d.to_string())).await.expect("stream");
    assert_eq!(pieces, ["Hel", "lo", " there"]);
    assert_eq!(out.text, "Hello there");
    assert_eq!(out.completion_tokens, 3);
}

#[wasm_bindgen_test]
async fn a_broken_endpoint_ends_the_pass_and_leaves_indexeddb_as_it_was() {
    let name = "nocturne-test-provider-sleep";
    IdbStore::delete(name).await.expect("delete");
    let store = IdbStore::open(name).await.expect("open");
    for (days, text) in verify::SCRIPT {
        chat::chat_turn(&store, &OfflineProvider, text, NOW - (days * 86_400.0) as i64, chat::TurnOptions::default())
            .await
            .expect("seed");
    }
    let before = store.export().await.expect("export");
    let mut events = Vec::new();
    let err = sleep::sleep(&store, &provider("truncated", JsonMode::Schema, 5000), &SleepOptions::new(NOW), &mut |e| {
        events.push(e.name())
    })
    .await
    .expect_err("a truncated reply ends the Sleep");
    assert!(err.to_string().contains("dedupe pass stopped and changed nothing"), "{err}");
    assert_eq!(events, ["pass:dedupe:start", "pass:dedupe:error"]);
    assert_eq!(store.export().await.expect("export"), before, "IndexedDB changed");
    // A well-behaved endpoint runs the whole Sleep through the same store.
    let report = sleep::sleep(&store, &provider("good", JsonMode::Schema, 5000), &SleepOptions::new(NOW), &mut |_| {})
        .await
        .expect("sleep");
    assert_eq!(report.passes.len(), PassKind::SLEEP.len());
    assert_eq!(report.total(|p| p.proposed), 0, "the fake model proposes nothing");
    assert!(report.total(|p| p.enforced) > 0, "the engine rules still run");
    assert!(store.versions().await.expect("versions").len() > before.versions.len());
}

#[wasm_bindgen_test]
async fn a_second_sleep_is_refused_while_one_holds_the_lock() {
    let (tx, rx) = futures_channel();
    let holder = lock::exclusive("nocturne-test-lock", Wait::IfAvailable, async move {
        let _ = JsFuture::from(rx).await;
        "first"
    });
    let second = async {
        // Ask while the first holds the lock, then let the first finish.
        let r = lock::exclusive("nocturne-test-lock", Wait::IfAvailable, async { "second" }).await;
        let _ = tx.call0(&wasm_bindgen::JsValue::NULL);
        r
    };
    let (first, second) = join(holder, second).await;
    assert_eq!(first, Ok("first"));
    assert_eq!(second, Err(LockError::Busy));
    assert!(LockError::Busy.to_string().contains("another"));
    assert_eq!(
        lock::exclusive("nocturne-test-lock", Wait::IfAvailable, async { 3 }).await,
        Ok(3),
        "free again afterwards"
    );
}

#[wasm_bindgen_test]
async fn a_write_queued_behind_a_sleep_runs_after_it_never_during() {
    let order = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let (tx, rx) = futures_channel();
    let sleep_order = order.clone();
    let sleep = lock::exclusive("nocturne-queue-lock", Wait::IfAvailable, async move {
        sleep_order.borrow_mut().push("sleep starts");
        let _ = JsFuture::from(rx).await;
        sleep_order.borrow_mut().push("sleep ends");
    });
    let write_order = order.clone();
    let chat = async move {
        let queued = lock::exclusive("nocturne-queue-lock", Wait::Queue, async {
            write_order.borrow_mut().push("chat turn recorded");
        });
        // Release the Sleep only after the chat turn has asked for the lock.
        let release = async {
            let _ = JsFuture::from(js_sys::Promise::resolve(&wasm_bindgen::JsValue::NULL)).await;
            let _ = tx.call0(&wasm_bindgen::JsValue::NULL);
        };
        join(queued, release).await.0
    };
    let (slept, chatted) = join(sleep, chat).await;
    assert!(slept.is_ok() && chatted.is_ok(), "{slept:?} {chatted:?}");
    assert_eq!(*order.borrow(), ["sleep starts", "sleep ends", "chat turn recorded"]);
}

/// A promise and the function that resolves it.
fn futures_channel() -> (js_sys::Function, js_sys::Promise) {
    let mut resolve = None;
    let promise = js_sys::Promise::new(&mut |r, _| resolve = Some(r));
    (resolve.expect("set synchronously"), promise)
}

/// Polls two futures together (no executor crate needed).
async fn join<A: std::future::Future, B: std::future::Future>(a: A, b: B) -> (A::Output, B::Output) {
    use std::pin::pin;
    use std::task::Poll;
    let (mut a, mut b) = (pin!(a), pin!(b));
    let (mut ra, mut rb) = (None, None);
    std::future::poll_fn(|cx| {
        if ra.is_none() {
            if let Poll::Ready(v) = a.as_mut().poll(cx) {
                ra = Some(v);
            }
        }
        if rb.is_none() {
            if let Poll::Ready(v) = b.as_mut().poll(cx) {
                rb = Some(v);
            }
        }
        if ra.is_some() && rb.is_some() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    (ra.expect("ready"), rb.expect("ready"))
}

/// `auto` moves to choosing after an unusable free-text reply, once per endpoint and model:
/// every provider built on the same session memo sees it; another model does not.
#[wasm_bindgen_test]
async fn auto_moves_to_choosing_once_per_model_and_every_provider_of_the_session_sees_it() {
    use nocturne_app::http::StyleMemo;
    use nocturne_core::llm::provider::ProposalStyle;
    let styles = StyleMemo::default();
    let built = |model: &str| {
        let mut config = provider("good", JsonMode::Schema, 5_000).config;
        config.model = model.into();
        HttpProvider::with_styles(config, ModeMemo::default(), styles.clone())
    };
    let first = built("a-large-model");
    assert_eq!(first.proposal_style(), ProposalStyle::FreeText);
    let line = first.observe_unusable("the reply was cut off at the token limit");
    assert!(line.as_deref().is_some_and(|l| l.contains("a-large-model")), "auto says it switched: {line:?}");
    assert_eq!(built("a-large-model").proposal_style(), ProposalStyle::Candidates, "shared by the session");
    assert_eq!(built("another-large-model").proposal_style(), ProposalStyle::FreeText, "per model");
    assert_eq!(first.observe_unusable("again"), None, "no second line once choosing");
}
