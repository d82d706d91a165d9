//! The sync worker's entry point: a wasm module of its own (`nocturne-sync-worker`),
//! started by the page in a Web Worker for a sync or the Sleep lease (`sync::worker`). It
//! holds the sync library (Yjs), the key derivation and the sealing, which the page's bundle does
//! not.

fn main() {
    nocturne_app::sync::worker::serve();
}
