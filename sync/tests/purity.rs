//! nocturne-sync stays sans-IO like the core: no web, storage, network or async-runtime
//! crate among its normal dependencies, for any target. (`getrandom`, with `js-sys` and
//! `wasm-bindgen` under it, comes with Yjs: `yrs` seeds a default client id through
//! `fastrand`; every replica here is given its id, so nothing reads it.)

use std::process::Command;

const FORBIDDEN: &[&str] = &[
    "web-sys",
    "leptos",
    "rexie",
    "idb",
    "gloo",
    "gloo-net",
    "gloo-timers",
    "reqwest",
    "ureq",
    "hyper",
    "tokio",
    "async-std",
    "smol",
    "mio",
    "tungstenite",
];

#[test]
fn sync_has_no_web_storage_network_or_runtime_dependency() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["tree", "-q", "--offline", "-p", "nocturne-sync", "-e", "normal", "--target", "all", "--prefix", "none"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(out.status.success(), "cargo tree failed: {}", String::from_utf8_lossy(&out.stderr));
    let tree = String::from_utf8_lossy(&out.stdout);
    let names: Vec<&str> = tree.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(names.contains(&"yrs") && names.contains(&"nocturne-core"), "cargo tree output looks wrong:\n{tree}");
    let bad: Vec<&&str> = FORBIDDEN.iter().filter(|f| names.contains(f)).collect();
    assert!(bad.is_empty(), "nocturne-sync depends on {bad:?}; the transport and storage belong in app/ or cli/");
}
