//! nocturne-app: Nocturne in the browser — the Leptos UI, the IndexedDB store and the
//! model providers (an OpenAI-compatible endpoint, a GGUF model run in the page). The only crate that touches the browser.

pub mod cases;
pub mod error;
pub mod http;
pub mod idb;
pub mod inbox;
pub mod inpage;
pub mod jobs;
pub mod lock;
pub mod providers;
pub mod reader;
pub mod stop;
pub mod storage;
pub mod sync;
pub mod task;
pub mod ui;
pub mod worker;

/// Mounts the app on the page's body.
pub fn mount() {
    leptos::mount::mount_to_body(ui::App);
}
