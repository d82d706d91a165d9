//! Bundles the gate case files in `../cases/` into the crate, so the verifier (native and
//! in the browser) runs them with no file system.

use std::{env, fs, path::Path};

fn main() {
    let dir = Path::new(&env::var("CARGO_MANIFEST_DIR").expect("set by cargo")).join("../cases");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect()
        })
        .unwrap_or_default();
    #[allow(clippy::disallowed_methods)] // a build script, not the bundle
    files.sort();
    let mut out = String::from(
        "/// Every gate case file of `cases/`, as (file name, JSON text).\npub const BUNDLED: &[(&str, &str)] = &[\n",
    );
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        out.push_str(&format!("    ({name:?}, include_str!({:?})),\n", f.display().to_string()));
    }
    out.push_str("];\n");
    let dest = Path::new(&env::var("OUT_DIR").expect("set by cargo")).join("bundled_cases.rs");
    fs::write(dest, out).expect("OUT_DIR is writable");
}
