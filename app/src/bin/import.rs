//! The import worker's entry point: a wasm module of its own (`nocturne-import`), started
//! by the page in a Web Worker the first time a history file is read (`reader::read`). It
//! holds the zip reader and the export readers, which the page's bundle does not.

fn main() {
    nocturne_app::reader::serve();
}
