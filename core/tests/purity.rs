//! nocturne-core stays sans-IO: no web, IO or async-runtime crate among its normal
//! dependencies, direct or transitive, for any target.

use std::process::Command;

const FORBIDDEN: &[&str] = &[
    "web-sys",
    "js-sys",
    "wasm-bindgen",
    "wasm-bindgen-futures",
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
    "getrandom",
    "mio",
];

#[test]
fn core_has_no_web_or_io_dependency() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["tree", "-q", "--offline", "-p", "nocturne-core", "-e", "normal", "--target", "all", "--prefix", "none"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(out.status.success(), "cargo tree failed: {}", String::from_utf8_lossy(&out.stderr));
    let tree = String::from_utf8_lossy(&out.stdout);
    let names: Vec<&str> = tree.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(names.contains(&"serde_json"), "cargo tree output looks wrong:\n{tree}");
    let bad: Vec<&&str> = FORBIDDEN.iter().filter(|f| names.contains(f)).collect();
    assert!(
        bad.is_empty(),
        "nocturne-core depends on {bad:?}; move that code to app/ or cli/, or pass it in through a trait"
    );
}

/// The features the app turns on in the core, by `cargo tree -e features`.
fn app_core_features() -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["tree", "-q", "--offline", "-p", "nocturne-app", "-e", "features", "-i", "nocturne-core"])
        .args(["--target", "wasm32-unknown-unknown", "--prefix", "none"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(out.status.success(), "cargo tree failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The core features the app turns on that must stay out of the browser bundle.
fn shipped_test_features(tree: &str) -> Vec<&'static str> {
    ["testkit", "bundled-cases"].into_iter().filter(|f| tree.contains(&format!("feature \"{f}\""))).collect()
}

#[test]
fn the_app_ships_no_test_kit_and_no_bundled_cases() {
    let tree = app_core_features();
    assert!(tree.contains("nocturne-core"), "cargo tree output looks wrong:\n{tree}");
    let shipped = shipped_test_features(&tree);
    assert!(
        shipped.is_empty(),
        "the app turns on nocturne-core's {shipped:?}: it would ship in the browser bundle\n{tree}"
    );
}

#[test]
fn the_feature_check_sees_the_test_kit_turned_on() {
    let planted = "nocturne-core v0.1.0 (/x/core)\nnocturne-core feature \"testkit\"\nnocturne-app v0.1.0 (/x/app)\n";
    assert_eq!(shipped_test_features(planted), ["testkit"]);
    assert!(shipped_test_features("nocturne-core feature \"default\"").is_empty());
}
