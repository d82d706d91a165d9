//! The verifier worker's entry point: a wasm module of its own (`nocturne-proof`), started
//! by the page in a Web Worker when Verify or Compare runs (`proof`). It holds the
//! verifier, the provider benchmark and the gate case reader, which the page's bundle does
//! not.

fn main() {
    nocturne_app::proof::serve();
}
