#!/usr/bin/env bash
# Runs the end-to-end suites of the built page — tests/e2e/app.cjs, large.cjs (offline,
# then with the real local model) and real-model.cjs — RUNS times in a row (default 3)
# while a CPU-burning neighbour holds one core, as on a machine busy with other work.
# Every wait in them is on something the page shows, so they must pass however slowly the
# page answers. Prints one line per suite and run; exits non-zero if any check failed.
#
#   ./scripts/e2e-busy.sh [RUNS]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ensure_build_tools
ensure_chromium
ensure_e2e_node
cd "$ROOT"
runs=${1:-3}
trunk build --release > /dev/null
log=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; ./scripts/local-llm.sh stop; }
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory dist > "$log/http.log" 2>&1 &
pids+=($!)
fake_port=${NOCTURNE_FAKE_PORT:-18999}
python3 tests/fake_openai.py "$fake_port" > "$log/fake.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do grep -q ready "$log/fake.log" && curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
./scripts/local-llm.sh start
llm="http://127.0.0.1:${LLM_PORT:-18080}/v1"
mkdir -p tests/e2e/out
memory=tests/e2e/out/memory-10k.json
cargo run --locked -q -p nocturne-cli -- bench-recall --facts 10000 --export "$memory" > /dev/null

# The neighbour: a busy loop pinned to the first core for as long as the suites run.
taskset -c 0 python3 -c 'while True: pass' &
pids+=($!)
echo "[e2e-busy] a busy loop holds core 0 (pid $!); $runs run(s) of the suites"

failed=0
suite() {
  local name=$1; shift
  local out="$log/$name.log" ok bad
  node "$@" > "$out" 2>&1 || true
  ok=$(grep -c '^ok ' "$out" || true); bad=$(grep -c '^not ok ' "$out" || true)
  echo "run $r: $name: $ok passed, $bad failed"
  if [ "$bad" != 0 ] || [ "$ok" = 0 ]; then grep '^not ok ' "$out" | sed 's/^/    /'; failed=1; fi
}
for r in $(seq 1 "$runs"); do
  start=$(date +%s)
  suite app tests/e2e/app.cjs "http://127.0.0.1:$port/" tests/e2e/out "http://127.0.0.1:$fake_port"
  suite large tests/e2e/large.cjs "http://127.0.0.1:$port/" "$memory" tests/e2e/out
  suite large-real-model tests/e2e/large.cjs "http://127.0.0.1:$port/" "$memory" tests/e2e/out "$llm"
  suite real-model tests/e2e/real-model.cjs "http://127.0.0.1:$port/" "$llm" tests/e2e/out
  echo "run $r took $(( $(date +%s) - start )) s"
done
[ "$failed" = 0 ] && echo "[e2e-busy] every suite passed in all $runs runs" || echo "[e2e-busy] some checks failed"
exit "$failed"
