//! The browser suites drive whole Sleeps inside one test's future: unoptimised, those
//! futures outgrow wasm's default 1 MiB stack (a "memory access out of bounds" trap), so
//! the test binaries get 8 MiB. The app's own build is untouched.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-tests=-zstack-size=8388608");
    }
}
