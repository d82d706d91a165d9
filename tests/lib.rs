//! Shared helpers for the browser suites (the suites themselves are in `browser.rs`).

/// A database name no other test uses.
pub fn unique_db(prefix: &str, n: u32) -> String {
    format!("nocturne-test-{prefix}-{n}")
}
