#!/usr/bin/env bash
# Runs every test: native tests, the gate cases and the verifier through the command
# line, the wasm suites in headless Chromium, a release `trunk build` with its size
# report, and the end-to-end checks of the built page in headless Chromium. Installs
# whatever is missing first. Exits non-zero if anything failed.
set -uo pipefail
# Each stage's wall-clock time, printed in the summary.
started=$(date +%s); stage=""; stage_start=$started; timings=()
end_stage() { [ -n "$stage" ] && timings+=("$(printf '%5ss  %s' $(( $(date +%s) - stage_start )) "$stage")"); stage=""; }
step() { end_stage; stage="$*"; stage_start=$(date +%s); echo; echo "==== $*"; }
step "install what is missing (tools, Chromium, playwright-core)"
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
set -e
# What downloads and unpacks (Debian, npm) comes first; what compiles (cargo install,
# emscripten, llama.cpp) runs in the background while the native stages run, and the first
# stage that needs it waits for it. On a fresh machine that was 16 of the 62 minutes, in
# one line of work while a core sat idle in every single-threaded stage after it.
ensure_rust
ensure_binaryen
ensure_wllama
ensure_chromium
ensure_e2e_node
ensure_mcp_inspector
set +e
cd "$ROOT"
LOG=$(mktemp -d)
failed_steps=()
skipped_steps=()
# The sync server the native tests' sync checks run; the command-line tools the wasm suites
# and the release build need.
( set -e; ensure_ysweet ) > "$LOG/ysweet.log" 2>&1 &
ysweet_job=$!
( set -e; ensure_wasm_bindgen; ensure_trunk ) > "$LOG/tools.log" 2>&1 &
tools_job=$!
# The SIMD runtime (scripts/build-wllama.sh), needed from the release build on.
( ensure_wllama_built; echo "$WLLAMA_RUNTIME" > "$LOG/wllama-runtime" ) > "$LOG/wllama.log" 2>&1 &
wllama_job=$!
# Waits for a background install, prints its log, and fails the run if it failed.
await() { # job, log, what
  local rc=0; wait "$1" || rc=$?
  cat "$2"
  [ "$rc" = 0 ] || { echo "FAILED: $3 (exit $rc, its log above)"; failed_steps+=("$3"); }
}
# The real models' server is built from source on a fresh machine (minutes of both cores)
# and their files fetched and requantised. Begun now at the lowest priority, that work
# takes what the single-threaded stages leave idle; the real-model stage waits for it (and
# local-llm.sh start builds again, in the foreground, whatever it did not finish).
( nice -n 19 ./scripts/local-llm.sh install \
    && LLM_MODEL=gemma3-270m nice -n 19 ./scripts/local-llm.sh install \
    && nice -n 19 ./scripts/local-llm.sh page-model > /dev/null ) > "$LOG/llm-install.log" 2>&1 &
llm_install=$!
export CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}
# Every build here starts from what the lock file names, not from an edit a minute ago:
# incremental compilation's bookkeeping only slows such a build (and fills the disk).
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
export WASM_BINDGEN_TEST_TIMEOUT=${WASM_BINDGEN_TEST_TIMEOUT:-120}
native=0; native_failed=0; wasm=0; wasm_failed=0; e2e=0; e2e_failed=0

# Sums "test result: … N passed; M failed" lines of a cargo test log.
count() { grep -E "^test result:" "$1" | sed -E 's/.* ([0-9]+) passed; ([0-9]+) failed.*/\1 \2/' | awk '{p+=$1; f+=$2} END {print p+0, f+0}'; }


# Every package of the lock file, for every target: core/tests/purity.rs reads the whole
# dependency tree offline (`cargo tree --target all`), including crates only some targets use.
cargo fetch --locked -q || failed_steps+=("cargo fetch")
step "format and lints (cargo fmt --check, clippy -D warnings, native and wasm32)"
cargo fmt --all -- --check || failed_steps+=("cargo fmt --check")
# The page's crate is linted for the target it ships on (wasm32, below): checking it natively
# too cost a third of the native lint's work (leptos, web-sys: 76 of 219 CPU-seconds) for
# code no native build runs.
cargo clippy --locked --workspace --exclude nocturne-app --all-targets -q -- -D warnings \
  || failed_steps+=("clippy (native)")
cargo clippy --locked -p nocturne-app -p nocturne-tests --target wasm32-unknown-unknown --all-targets -q -- -D warnings \
  || failed_steps+=("clippy (wasm32)")

step "native tests (core, command line)"
await "$ysweet_job" "$LOG/ysweet.log" "installing the sync server y-sweet"
cargo test --locked --no-fail-fast -p nocturne-core -p nocturne-sync -p nocturne-cli 2>&1 | tee "$LOG/native.log"
[ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("native tests")
read -r native native_failed < <(count "$LOG/native.log")

step "nocturne gate cases/*.json"
cargo run --locked -q -p nocturne-cli -- gate cases/*.json > "$LOG/gate.jsonl" || failed_steps+=("nocturne gate")
echo "$(wc -l < "$LOG/gate.jsonl") case files judged as expected"

step "nocturne bench-gates (the meaning corpus)"
cargo run --locked -q -p nocturne-cli -- bench-gates || failed_steps+=("nocturne bench-gates")

step "nocturne bench-worth (statements worth remembering, labelled; held-out person and chatter corpora)"
cargo run --locked -q -p nocturne-cli -- bench-worth | grep -v -- '-group:' || failed_steps+=("nocturne bench-worth")
cargo run --locked -q -p nocturne-cli -- bench-trust | grep -v -- '-group:' || failed_steps+=("nocturne bench-trust (poison refused or held, benign accepted)")

step "nocturne bench-split (held-out compound sentences through the one splitter)"
cargo run --locked -q -p nocturne-cli -- bench-split | grep -v -- '-group:' || failed_steps+=("nocturne bench-split")

step "nocturne bench-conversation: a real long conversation (LoCoMo) through chat and Sleep, against BM25"
# Benchmark data outside this repository (never shipped): the steering repo's shared/locomo.
locomo=""
for dir in "${NOCTURNE_LOCOMO:-}" "$ROOT/../shared/locomo" /work/shared/locomo; do
  [ -n "$dir" ] && [ -f "$dir/30.json" ] && { locomo="$dir"; break; }
done
if [ -n "$locomo" ]; then
  # The debug build the native tests made: 2 minutes to run, where a release build of the
  # command line costs 4 minutes to compile on a fresh machine for a 16-second run.
  cargo run --locked -q -p nocturne-cli -- bench-conversation --check "$locomo/30.json" \
    || failed_steps+=("nocturne bench-conversation --check (memory that helps answer)")
else
  echo "SKIPPED: no LoCoMo conversation found (looked for 30.json in \$NOCTURNE_LOCOMO, ../shared/locomo, /work/shared/locomo)"
  skipped_steps+=("bench-conversation (no LoCoMo data)")
fi

step "nocturne verify --provider offline"
cargo run --locked -q -p nocturne-cli -- verify --provider offline || failed_steps+=("nocturne verify")

step "nocturne mcp under the official MCP Inspector (CLI mode)"
cargo build --locked -q -p nocturne-cli || failed_steps+=("cargo build nocturne-cli")
bash tests/mcp_inspector.sh "$NOCTURNE_MCP_INSPECTOR" "${CARGO_TARGET_DIR:-target}/debug/nocturne" 2>&1 | tee "$LOG/inspector.log"
e2e=$((e2e + $(grep -c '^ok ' "$LOG/inspector.log"))); e2e_failed=$((e2e_failed + $(grep -c '^not ok ' "$LOG/inspector.log")))
grep -q '^ok ' "$LOG/inspector.log" || failed_steps+=("the MCP Inspector check (no check ran)")
grep -q '^not ok ' "$LOG/inspector.log" && failed_steps+=("the MCP Inspector check")

step "wasm suites in headless Chromium"
await "$tools_job" "$LOG/tools.log" "installing wasm-bindgen-cli and trunk"
# The scripted OpenAI-compatible server the provider suite talks to (a fixed port keeps
# the compiled-in address, and so the build, stable between runs).
fake_port=${NOCTURNE_FAKE_PORT:-18999}
python3 tests/fake_openai.py "$fake_port" > "$LOG/fake.log" 2>&1 &
fake=$!
for _ in $(seq 1 50); do grep -q ready "$LOG/fake.log" && break; sleep 0.1; done
export NOCTURNE_FAKE_OPENAI="http://127.0.0.1:$fake_port"
# The browser benchmark runs here at 2,000 facts (its bounds on rows written and its figures);
# scripts/bench.sh runs it at 10,000 in a release build.
NOCTURNE_BENCH_FACTS=2000 cargo test --locked --no-fail-fast -p nocturne-tests --target wasm32-unknown-unknown \
  --test browser --test provider --test bench 2>&1 | tee "$LOG/wasm.log"
[ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("wasm tests")
kill "$fake" 2>/dev/null
read -r wasm wasm_failed < <(count "$LOG/wasm.log")

step "release build as scripts/serve.sh serves it (trunk serve), its sizes, and a newcomer's first load"
await "$wllama_job" "$LOG/wllama.log" "building the SIMD runtime (scripts/build-wllama.sh)"
WLLAMA_RUNTIME=$(cat "$LOG/wllama-runtime" 2>/dev/null || echo failed)
# The in-page checks must run on the runtime the README promises: llama.cpp built here with
# wasm SIMD (scripts/build-wllama.sh), not npm's fallback. NOCTURNE_WLLAMA_BUILD=0 opts out
# (the summary then names those checks as skipped); CI may not.
promised_runtime=built
if [ "$WLLAMA_RUNTIME" = off ]; then
  if [ -n "${CI:-}" ]; then
    failed_steps+=("NOCTURNE_WLLAMA_BUILD=0 in CI: the in-page checks must run on the SIMD runtime")
  else
    promised_runtime=any
    skipped_steps+=("the in-page checks on the SIMD runtime (NOCTURNE_WLLAMA_BUILD=0: they run npm's wllama)")
  fi
elif [ "$WLLAMA_RUNTIME" != built ]; then
  echo "NOTE: the SIMD runtime is not built (see above): the in-page checks run on npm's wllama, and the test command fails"
fi
# The release build is the one serve.sh makes and serves (trunk serve --release, its headers,
# no live-reload script; with no model of its own in dist, which tests/e2e/inpage.cjs checks):
# one build for the size report, the check of the page as a newcomer
# first loads it, and the end-to-end checks after it. serve.sh runs in a session of its own,
# so that stopping it stops all it started.
rm -rf dist
serve_port=${PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
serve_started=$(date +%s)
PORT=$serve_port NOCTURNE_SERVE_MODEL=none setsid ./scripts/serve.sh > "$LOG/serve.log" 2>&1 &
serve_pid=$!
served=no
for _ in $(seq 1 1800); do
  curl -sf -o /dev/null "http://127.0.0.1:$serve_port/" && { served=yes; break; }
  kill -0 "$serve_pid" 2>/dev/null || break
  grep -q ' ERROR ' "$LOG/serve.log" && break # trunk serve waits for a change after a failed build
  sleep 1
done
grep -E '^\[(serve|build-wllama)' "$LOG/serve.log"
if [ "$served" = yes ] && [ -f dist/index.html ]; then
  echo "serve.sh answered in $(( $(date +%s) - serve_started )) s"
  wasm_file=$(ls dist/nocturne-app-*_bg.wasm | head -n1); js_file=${wasm_file%_bg.wasm}.js
  printf "size: wasm %s bytes raw, %s gzipped; js %s raw, %s gzipped\n" \
    "$(wc -c < "$wasm_file")" "$(gzip -9c "$wasm_file" | wc -c)" "$(wc -c < "$js_file")" "$(gzip -9c "$js_file" | wc -c)"
  main_gz=$(( $(gzip -9c "$wasm_file" | wc -c) + $(gzip -9c "$js_file" | wc -c) ))
  echo "size: main bundle $main_gz bytes gzipped (budget 600000: $([ "$main_gz" -le 600000 ] && echo within || echo OVER))"
  gz() { cat "$@" | gzip -9c | wc -c; }
  printf "size: import worker, fetched when a history file is first read: wasm %s gzipped, js %s gzipped\n" \
    "$(gz dist/nocturne-import_bg.wasm)" "$(gz dist/nocturne-import.js dist/nocturne-import_loader.js)"
  printf "size: sync worker, fetched when the memory first syncs or takes the Sleep lease: wasm %s gzipped, js %s gzipped\n" \
    "$(gz dist/nocturne-sync-worker_bg.wasm)" "$(gz dist/nocturne-sync-worker.js dist/nocturne-sync-worker_loader.js)"
  # The export readers and the zip reader live in the import worker's module only: their
  # words must not be in the page's bundle, and must be in the worker's.
  if grep -q "the zip holds no conversations" "$wasm_file" || ! grep -q "the zip holds no conversations" dist/nocturne-import_bg.wasm; then
    echo "size: the export readers are in the main bundle, or missing from the import worker"
    failed_steps+=("size: export readers outside the import worker")
  fi
  # Likewise the sync: the procedure (its first-sync refusal), the key derivation and
  # sealing (the key check's words), the Yjs replica (its unreadable-document error) and
  # the record reader (serde's words for a checkpoint record: the page keeps the records it
  # makes as JSON and never reads one back).
  for words in "the first sync needs the server's address" "nocturne sync key check v1" "the sync document could not be read" "struct variant Op::Checkpoint"; do
    if grep -q "$words" "$wasm_file" || ! grep -q "$words" dist/nocturne-sync-worker_bg.wasm; then
      echo "size: the sync ('$words') is in the main bundle, or missing from the sync worker"
      failed_steps+=("size: sync outside the sync worker")
    fi
  done
  printf "size: job worker, precached and started for each job on the memory: wasm %s gzipped, js %s gzipped\n" \
    "$(gz dist/nocturne-jobs_bg.wasm)" "$(gz dist/nocturne-jobs.js dist/nocturne-jobs_loader.js)"
  # And the job worker: the verifier (its empty-store refusal), the gate case reader, a Sleep
  # (its stop), the offline provider, the gates and the write path live in the job
  # worker only; the page draws and answers the model.
  for words in "the verifier needs an empty store" "lists no case files" "stopped by the user after pass" \
      "both describe the same" "fact introduces proper nouns absent from the transcript" "the edit wrote no version"; do
    if grep -q "$words" "$wasm_file" || ! grep -q "$words" dist/nocturne-jobs_bg.wasm; then
      echo "size: the job worker's code ('$words') is in the main bundle, or missing from the job worker"
      failed_steps+=("size: the job worker's code outside the job worker")
    fi
  done
  rt=dist/inpage
  printf "size: in-page runtime, loaded only when chosen: js %s gzipped, wasm %s gzipped (single-thread; multi-thread %s)\n" \
    "$(cat "$rt"/*.js "$rt/wllama/index.js" | gzip -9c | wc -c)" "$(gzip -9c "$rt/wllama/single-thread/wllama.wasm" | wc -c)" \
    "$(gzip -9c "$rt/wllama/multi-thread/wllama.wasm" | wc -c)"
  node tests/e2e/served.cjs "http://127.0.0.1:$serve_port/" 2>&1 | tee "$LOG/served.log"
  [ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("the page as serve.sh serves it")
  e2e=$((e2e + $(grep -c '^ok ' "$LOG/served.log"))); e2e_failed=$((e2e_failed + $(grep -c '^not ok ' "$LOG/served.log")))
else
  grep -E 'ERROR|error' "$LOG/serve.log" | tail -n 20
  failed_steps+=("release build (serve.sh did not answer: the trunk build failed, see above)")
fi
kill -TERM -- "-$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null

step "end-to-end checks of the built page in headless Chromium"
if [ -f dist/index.html ]; then
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  python3 -m http.server "$port" --bind 127.0.0.1 --directory dist > "$LOG/http.log" 2>&1 &
  server=$!
  for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
  mkdir -p tests/e2e/out
  # The scripted slow model, for stopping a Sleep mid-pass.
  python3 tests/fake_openai.py "$fake_port" > "$LOG/fake-e2e.log" 2>&1 &
  fake=$!
  for _ in $(seq 1 50); do grep -q ready "$LOG/fake-e2e.log" && break; sleep 0.1; done
  node tests/e2e/app.cjs "http://127.0.0.1:$port/" tests/e2e/out "http://127.0.0.1:$fake_port" 2>&1 | tee "$LOG/e2e.log"
  [ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("end-to-end")
  # A Sleep reviewed before it changes: two of five edits approved and applied.
  node tests/e2e/review.cjs "http://127.0.0.1:$port/" tests/e2e/out 2>&1 | tee -a "$LOG/e2e.log"
  [ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("end-to-end (review before applying)")
  # Memory commands said in the chat: forget and its Undo, an ambiguous one, a reminder.
  node tests/e2e/told.cjs "http://127.0.0.1:$port/" tests/e2e/out 2>&1 | tee -a "$LOG/e2e.log"
  [ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("end-to-end (memory commands in the chat)")
  # A memory that has lived for years: 10,000 facts imported, then chatted with.
  large_memory=tests/e2e/out/memory-10k.json
  cargo run --locked -q -p nocturne-cli -- bench-recall --facts 10000 --export "$large_memory" \
    || failed_steps+=("nocturne bench-recall --export")
  node tests/e2e/large.cjs "http://127.0.0.1:$port/" "$large_memory" tests/e2e/out 2>&1 | tee -a "$LOG/e2e.log"
  [ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("end-to-end (10,000-fact memory)")
  # Importing a history in the page: a zipped ChatGPT export dropped on it, stop and
  # resume, a corrupt file, and 5,000 conversations with the longest task reported.
  exports=tests/e2e/out/exports; mkdir -p "$exports"
  { cargo run --locked -q -p nocturne-cli -- sample-export chatgpt "$exports/small.zip" \
    && cargo run --locked -q -p nocturne-cli -- sample-export synthetic "$exports/medium.zip" --conversations 300 --turns 4 \
    && cargo run --locked -q -p nocturne-cli -- sample-export synthetic "$exports/large.zip" --conversations 5000 --turns 2; } > /dev/null \
    || failed_steps+=("nocturne sample-export")
  node tests/e2e/import.cjs "http://127.0.0.1:$port/" tests/e2e/out "$exports/small.zip" "$exports/medium.zip" "$exports/large.zip" 2>&1 | tee -a "$LOG/e2e.log"
  [ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("end-to-end (import a history)")
  # Sync: two browser profiles and the command line through the real y-sweet server.
  cargo build --locked -q -p nocturne-cli || failed_steps+=("cargo build nocturne-cli")
  node tests/e2e/sync.cjs "http://127.0.0.1:$port/" tests/e2e/out "$NOCTURNE_YSWEET" "${CARGO_TARGET_DIR:-target}/debug/nocturne" 2>&1 | tee -a "$LOG/e2e.log"
  [ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("end-to-end (sync across devices)")
  kill "$server" "$fake" 2>/dev/null
  e2e=$((e2e + $(grep -c '^ok ' "$LOG/e2e.log"))); e2e_failed=$((e2e_failed + $(grep -c '^not ok ' "$LOG/e2e.log")))
else
  failed_steps+=("end-to-end (no build)")
fi

step "a real model: llama.cpp's server with SmolLM2-135M (scripts/local-llm.sh)"
wait "$llm_install" || echo "NOTE: the real models' background install failed (its log below); local-llm.sh start tries again"
cat "$LOG/llm-install.log"
if ./scripts/local-llm.sh start; then
  llm="http://127.0.0.1:${LLM_PORT:-18080}/v1"
  cargo run --locked -q -p nocturne-cli -- verify --provider openai --base-url "$llm" --model smollm2 2>&1 | tee "$LOG/real-cli.log"
  [ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("verify with the real model (native)")
  # Not hollow: at least 8 facts active after the Sleep, every one traceable.
  if ! grep -Eq '^\[OK\] no invention: ([0-9]+)/\1 ' "$LOG/real-cli.log" \
    || [ "$(sed -nE 's/^\[OK\] no invention: ([0-9]+)\/.*/\1/p' "$LOG/real-cli.log")" -lt 8 ]; then
    failed_steps+=("the real model remembers at least 8 traceable facts (native)")
  fi
  # Replies that cite: at least 3 of the 5 quiz answers cite the fact asked about (or one
  # derived from it), no answer cites a fact outside its prompt, the probe does not leak.
  cited=$(sed -nE 's/^\[(OK|score)\] quiz recall by citation: ([0-9]+)\/.*/\2/p' "$LOG/real-cli.log")
  if [ -z "$cited" ] || [ "$cited" -lt 3 ]; then
    failed_steps+=("the real model recalls at least 3 of 5 quiz facts through citations (native: ${cited:-none})")
  fi
  grep -q '^\[OK\] citations within prompts' "$LOG/real-cli.log" || failed_steps+=("no answer cites outside its prompt (native)")
  # The memory is data: given a memory that holds an injected instruction, the real model
  # does not follow it (and does with the memory unescaped, the fault the test plants).
  NOCTURNE_LLM_URL="$llm" cargo test --locked -q -p nocturne-cli --test injection -- --ignored --nocapture 2>&1 | tee "$LOG/injection.log"
  [ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("a real model does not follow an instruction in its memory")
  read -r injected injected_failed < <(count "$LOG/injection.log")
  native=$((native + injected)); native_failed=$((native_failed + injected_failed))
  if grep -q 'leakedForgottenContent=true' "$LOG/real-cli.log"; then failed_steps+=("the forgotten probe leaked (native)"); fi
  if [ -n "${port:-}" ] && [ -f dist/index.html ]; then
    python3 -m http.server "$port" --bind 127.0.0.1 --directory dist > "$LOG/http2.log" 2>&1 &
    server=$!
    for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
    node tests/e2e/real-model.cjs "http://127.0.0.1:$port/" "$llm" tests/e2e/out 2>&1 | tee "$LOG/real-e2e.log"
    [ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("verify with the real model (browser)")
    if [ -f "${large_memory:-}" ]; then
      node tests/e2e/large.cjs "http://127.0.0.1:$port/" "$large_memory" tests/e2e/out "$llm" 2>&1 | tee -a "$LOG/real-e2e.log"
      [ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("the real model over a 10,000-fact memory (browser)")
    fi
    kill "$server" 2>/dev/null
    e2e=$((e2e + $(grep -c '^ok ' "$LOG/real-e2e.log"))); e2e_failed=$((e2e_failed + $(grep -c '^not ok ' "$LOG/real-e2e.log")))
  fi
  # A dropped streaming request frees the model's slot at once (no orphaned generation).
  python3 tests/llm_stop.py "$llm" 2>&1 | tee "$LOG/llm-stop.log"
  [ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("a stopped request stops the model")
  ./scripts/local-llm.sh stop
else
  failed_steps+=("starting the local model")
fi

step "a second small model: Gemma 3 270M under llama.cpp's server, proposal style auto"
# Its name is on no list: auto must reach choosing by how the model behaves.
if LLM_MODEL=gemma3-270m ./scripts/local-llm.sh start; then
  second="http://127.0.0.1:${LLM_PORT:-18081}/v1"
  # Its proposals vary between runs of one build ("would accept 2 of 11" … "21 of 27");
  # every check holds for each: a promise it files under two categories falls due as one
  # (commitments are read from their words, text::promise), and the policy comparison
  # counts what a cap could still forget.
  cargo run --locked -q -p nocturne-cli -- verify --provider openai --base-url "$second" --model gemma3-270m 2>&1 | tee "$LOG/second.log"
  [ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("verify with a second small model")
  grep -q '^proposal style used: choose from candidates (auto)' "$LOG/second.log" \
    || failed_steps+=("auto moves the second small model to choosing by itself")
  if ! grep -Eq '^\[OK\] no invention: ([0-9]+)/\1 ' "$LOG/second.log" \
    || [ "$(sed -nE 's/^\[OK\] no invention: ([0-9]+)\/.*/\1/p' "$LOG/second.log")" -lt 8 ]; then
    failed_steps+=("the second small model remembers at least 8 traceable facts")
  fi
  grep -q '^\[OK\] sleep: ' "$LOG/second.log" || failed_steps+=("a Sleep with the second small model completes")
  LLM_MODEL=gemma3-270m ./scripts/local-llm.sh stop
else
  failed_steps+=("starting the second local model")
fi

step "a real model inside the page: SmolLM2-135M in llama.cpp compiled to WebAssembly"
# The model file the page offers (local-llm.sh page-model: SmolLM2 in a quantisation with
# wasm SIMD kernels) is picked through the file input; none is served.
gguf=$(./scripts/local-llm.sh page-model || true)
if [ -s "$gguf" ] && [ -n "${port:-}" ] && [ -f dist/index.html ]; then
  # Served as `scripts/serve.sh` serves it: cross-origin isolated, so threads could run
  # (Settings' auto picks one on two cores).
  python3 tests/serve_dist.py "$port" dist > "$LOG/http3.log" 2>&1 &
  server=$!
  for _ in $(seq 1 50); do grep -q ready "$LOG/http3.log" && break; sleep 0.1; done
  node tests/e2e/inpage.cjs "http://127.0.0.1:$port/" "$gguf" dist tests/e2e/out 2>&1 | tee "$LOG/inpage.log"
  [ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("the in-page model (browser)")
  node tests/e2e/inpage-cache.cjs "http://127.0.0.1:$port/" "$gguf" 2>&1 | tee -a "$LOG/inpage.log"
  [ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("the in-page model's prompt cache (browser)")
  # The same prompts to the page and to llama.cpp's native server, one run: the
  # `inpage-vs-native:` line (figures, not pass marks; both must answer).
  if ./scripts/local-llm.sh start; then
    node tests/e2e/inpage-vs-native.cjs "http://127.0.0.1:$port/" "$gguf" "http://127.0.0.1:${LLM_PORT:-18080}/v1" 2>&1 | tee -a "$LOG/inpage.log"
    [ "${PIPESTATUS[0]}" = 0 ] || failed_steps+=("the in-page model beside the native server")
    ./scripts/local-llm.sh stop
  else
    failed_steps+=("starting the local model for the side-by-side measurement")
  fi
  kill "$server" 2>/dev/null
  e2e=$((e2e + $(grep -c '^ok ' "$LOG/inpage.log"))); e2e_failed=$((e2e_failed + $(grep -c '^not ok ' "$LOG/inpage.log")))
  # Which runtime the page ran, from its figures' lines: the promised one, or a failure
  # (passing on npm's fallback would hide a broken build).
  inpage_runtime=$(grep -hE '^(bench|inpage-vs-native): ' "$LOG/inpage.log" | grep -oE 'runtime=[a-z]+' | sort -u | paste -sd, -)
  echo "in-page model ran: ${inpage_runtime:-no figures} (promised: runtime=built)"
  if [ "$promised_runtime" = built ] && [ "$inpage_runtime" != runtime=built ]; then
    why="the SIMD runtime is not built"
    [ "$WLLAMA_RUNTIME" = failed ] && why="its build failed: see $TOOLS/wllama-built-2.3.7.failed, NOCTURNE_WLLAMA_RETRY=1 builds it again"
    failed_steps+=("in-page checks not run on the promised runtime (ran ${inpage_runtime:-nothing}, not runtime=built; $why)")
  fi
else
  failed_steps+=("the in-page model (no model file at $gguf, or no build)")
fi

end_stage
echo
echo "==== time per stage (total $(( ($(date +%s) - started) / 60 )) min $(( ($(date +%s) - started) % 60 )) s)"
printf '%s\n' "${timings[@]}"
echo
echo "==== summary"
echo "native tests: $native passed, $native_failed failed"
echo "wasm tests in Chromium: $wasm passed, $wasm_failed failed"
echo "end-to-end checks: $e2e passed, $e2e_failed failed"
if [ ${#failed_steps[@]} -gt 0 ]; then echo "failed steps: ${failed_steps[*]}"; fi
if [ ${#skipped_steps[@]} -gt 0 ]; then echo "skipped steps: ${skipped_steps[*]}"; fi
total=$((native + wasm + e2e)); total_failed=$((native_failed + wasm_failed + e2e_failed + ${#failed_steps[@]}))
echo "$total passed, $total_failed failed"
[ ${#failed_steps[@]} -eq 0 ] && [ "$total_failed" -eq 0 ]
