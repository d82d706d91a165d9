#!/usr/bin/env bash
# Measures the two candidates for the in-page model on this machine, in headless Chromium:
# llama.cpp compiled to WebAssembly (@wllama/wllama, the one Nocturne uses) and candle
# (Rust, quantized_llama with wasm SIMD), both running SmolLM2-135M-Instruct Q4_1: load
# time, prompt and generation tokens per second (256 prompt tokens, 64 greedy tokens), one
# thread and, for wllama, two (the page is served cross-origin isolated). Not part of the
# test command: it builds candle (a few minutes) outside the workspace.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../scripts/setup.sh"
ensure_build_tools
ensure_e2e_node
gguf=$("$ROOT/scripts/local-llm.sh" model)
www=$(mktemp -d)
RUSTFLAGS="-C target-feature=+simd128" CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/var/tmp/nocturne-runtime-choice} \
  cargo build --release --target wasm32-unknown-unknown --manifest-path "$here/Cargo.toml"
wasm-bindgen --target web --out-dir "$www/pkg" "${CARGO_TARGET_DIR:-/var/tmp/nocturne-runtime-choice}/wasm32-unknown-unknown/release/runtime_choice.wasm"
cp "$here/page.html" "$www/index.html"
mkdir -p "$www/wllama"
cp "$NOCTURNE_WLLAMA/esm/index.min.js" "$www/wllama/index.js"
cp -r "$NOCTURNE_WLLAMA/esm/single-thread" "$NOCTURNE_WLLAMA/esm/multi-thread" "$www/wllama/"
ln -s "$gguf" "$www/model.gguf"
echo "candle wasm: $(wc -c < "$www/pkg/runtime_choice_bg.wasm") bytes, $(gzip -9c "$www/pkg/runtime_choice_bg.wasm" | wc -c) gzipped"
echo "wllama wasm: $(wc -c < "$www/wllama/single-thread/wllama.wasm") bytes, $(gzip -9c "$www/wllama/single-thread/wllama.wasm" | wc -c) gzipped; js $(gzip -9c "$www/wllama/index.js" | wc -c) gzipped"
port=${PORT:-18436}
python3 "$ROOT/tests/serve_dist.py" "$port" "$www" > "$www/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$www"' EXIT
for _ in $(seq 1 50); do grep -q ready "$www/server.log" && break; sleep 0.1; done
for run in "wllama 1" "wllama 2" "candle 1"; do
  node "$here/run.cjs" "http://127.0.0.1:$port/" $run
done
