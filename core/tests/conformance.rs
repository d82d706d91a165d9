//! The store conformance suite against MemStore (the browser suite runs it against IndexedDB).

use nocturne_core::store::MemStore;
use nocturne_core::testkit::conformance;

#[test]
fn mem_store_passes_every_conformance_check() {
    let mut failures = Vec::new();
    for name in conformance::CHECKS {
        if let Err(e) = pollster::block_on(conformance::check(name, &MemStore::new())) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
