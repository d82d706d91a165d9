//! The job worker's entry point: a wasm module of its own (`nocturne-jobs`), started
//! by the page in a Web Worker for each job that reads or writes the memory (`jobs`). It
//! holds the core's flows, gates, prompts, the offline provider, the write path, the
//! verifier and the benchmark, which the page's bundle does not.

fn main() {
    nocturne_app::jobs::serve();
}

/// The worker's wasm memory in bytes, for a test or a profiler to read in the worker
/// (`wasm_bindgen.memory_bytes()`): what a warm worker holds between jobs.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn memory_bytes() -> f64 {
    nocturne_app::jobs::memory_bytes()
}
