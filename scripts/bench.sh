#!/usr/bin/env bash
# Prints Nocturne's performance figures: the native benchmark (candidate pairs indexed
# and brute force, full offline Sleep, rows per change, diff, prompt tokens, memory) and
# the browser benchmark (offline Sleep over 10,000 facts in IndexedDB, headless Chromium).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ensure_build_tools
ensure_chromium
cd "$ROOT"
export CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver} WASM_BINDGEN_TEST_TIMEOUT=600
cargo run --locked --release -q -p nocturne-cli -- bench
echo
cargo test --locked --release -p nocturne-tests --target wasm32-unknown-unknown --test bench -- --nocapture 2>&1 | grep -E "browser bench|test result"
