#!/usr/bin/env bash
# Builds the in-page model's runtime here: wllama 2.3.7's C++ (from its npm package) over
# llama.cpp, compiled by Debian's emscripten 3.1.6 with ggml's wasm SIMD kernels, into
# $NOCTURNE_TOOLS/wllama-built-2.3.7 (index.js, {single,multi}-thread/wllama.wasm, runtime.json).
# scripts/inpage_runtime.py copies it into the build in place of npm's runtime, whose wasm
# has no SIMD dot products: emscripten's CMake toolchain reports the processor as x86, so
# ggml-cpu falls back to its generic code. -DEMSCRIPTEN_SYSTEM_PROCESSOR=wasm makes it
# compile ggml-cpu/arch/wasm instead.
#
# llama.cpp: wllama 2.3.7 bundles b7179, which no registry serves; the closest registry
# copy is the one vendored in crates.io's llama-cpp-sys-2 0.1.126 (commit 4c91f2633f, about
# a week older), pinned by SHA-256. wllama's C++ compiles against it unchanged, and clang-14
# compiles it with no source patch. Two patches make prompts faster. In
# scripts/wllama-q8-2x2.patch Q8_0's wasm dot product also takes two rows by two columns,
# as ARM's int8 matmul kernel does, so a prompt's matrix products widen each block's bytes
# once for two dot products instead of once for one, and widens them as even and odd bytes
# by shifts rather than as low and high halves (V8 spends two x64 instructions on each
# extend_high): that kernel is two thirds of a prompt's time in the page.
# scripts/wllama-wasm-expf.patch gives wasm the vector expf x86 and ARM have, so softmax
# and SiLU no longer call the scalar expf once per element. Another keeps two
# threads fast when the machine is busy (scripts/wllama-barrier.patch): in the
# multi-thread build a thread waiting at ggml's barrier, or for the next graph, spins
# briefly and then sleeps on the counter (a futex, Atomics.wait) instead of spinning on,
# which burnt a time slice per barrier whenever the other thread was descheduled. Flags are wllama's own
# (scripts/docker-compose.yml in its package) except -fexceptions for -fwasm-exceptions
# (3.1.6's wasm exceptions never caught) and no -flto; the glue fixes are in
# scripts/wllama_glue.py.
#
# Both variants are built (NOCTURNE_WLLAMA_VARIANTS="single multi", about 2 minutes each
# on a quiet 2-core machine): the single-thread one runs wherever the page is not
# cross-origin isolated and where Settings' auto picks one thread (two cores); the
# multi-thread one wherever more run. A variant not built runs npm's. Idempotent: a build
# of this recipe is kept; a failure leaves no output, so the page falls back to the npm
# runtime and says so.
#
# A check before the output is kept: each wasm holds i32x4.dot_i16x8_s instructions (the
# SIMD kernels were compiled in). The e2e (tests/e2e/inpage.cjs) checks a completion.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=${NOCTURNE_TOOLS:-$HOME/.cache/nocturne-tools}
NPM=${NOCTURNE_WLLAMA:-$TOOLS/wllama-2.3.7/package}
OUT=$TOOLS/wllama-built-2.3.7
WORK=$TOOLS/wllama-build
VARIANTS=${NOCTURNE_WLLAMA_VARIANTS:-single multi}
CRATE=llama-cpp-sys-2-0.1.126
CRATE_SHA256=fcf4f0b93f111d7cc2ae702b2dd20efb4a9a19297addb3e63c1cfb97e6a13c6f
WASM_DIS=${WASM_DIS:-$TOOLS/binaryen/node_modules/.bin/wasm-dis}
say() { echo "[build-wllama] $*" >&2; }
# Builds (or, with its outputs removed, links again) the wllama target of the variant in
# $build with its flags, appending to its make.log.
link_wllama() { (cd "$build" && EMCC_CFLAGS="$FLAGS $extra" emmake make wllama -j2 >> make.log 2>&1); }
# Whether every function the wasm in $1 imports is named in its glue's import object.
glue_matches() {
  "$WASM_DIS" "$1/wllama.wasm" 2>/dev/null | python3 -c '
import re, sys
wanted = set(re.findall(r"\(import \"[^\"]+\" \"([^\"]+)\" \(func", sys.stdin.read()))
glue = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"asmLibraryArg=\{(.*?)\};", glue, re.S)
given = set(re.findall(r"\"([^\"]+)\":", m.group(1))) if m else set()
missing = sorted(wanted - given)
if missing or not wanted:
    sys.exit("glue lacks %d of %d imports, such as %s" % (len(missing), len(wanted), missing[:3]))
' "$1/wllama.js"
}

PATCHES=("$ROOT/scripts/wllama-q8-2x2.patch" "$ROOT/scripts/wllama-barrier.patch" "$ROOT/scripts/wllama-wasm-expf.patch")
recipe=$(cat "$ROOT/scripts/build-wllama.sh" "$ROOT/scripts/wllama_glue.py" "${PATCHES[@]}" <(echo "$VARIANTS") | sha256sum | cut -c1-16)
if [ -f "$OUT/runtime.json" ] && grep -q "\"recipe\": \"$recipe\"" "$OUT/runtime.json"; then exit 0; fi
[ -s "$NPM/esm/index.min.js" ] || { say "no npm wllama at $NPM (scripts/setup.sh fetches it first)"; exit 1; }

if ! command -v emcc > /dev/null || ! command -v cmake > /dev/null; then
  say "installing Debian's emscripten and cmake"
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq emscripten cmake > /dev/null
fi
# Debian's emscripten runs its JS optimiser with Debian's node modules (acorn).
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

started=$(date +%s)
rm -rf "$WORK" "$OUT.part" && mkdir -p "$WORK" "$OUT.part"
trap 'rm -rf "$OUT.part"' EXIT
curl -sSfL "https://static.crates.io/crates/llama-cpp-sys-2/$CRATE.crate" -o "$WORK/crate.tgz"
got=$(sha256sum "$WORK/crate.tgz" | cut -d' ' -f1)
[ "$got" = "$CRATE_SHA256" ] || { say "$CRATE.crate has SHA-256 $got, not the pinned $CRATE_SHA256"; exit 1; }
tar -xzf "$WORK/crate.tgz" -C "$WORK"
cp -a "$NPM" "$WORK/wllama"
cp -a "$WORK/$CRATE/llama.cpp" "$WORK/wllama/llama.cpp"
for patch in "${PATCHES[@]}"; do
  (cd "$WORK/wllama/llama.cpp" && git apply "$patch") || { say "$patch does not apply to $CRATE's llama.cpp"; exit 1; }
done

FLAGS="--no-entry -O3 -msimd128 -DNDEBUG -frtti -fexceptions -sEXPORT_ALL=1 -sEXPORT_ES6=0 -sMODULARIZE=0 \
-sINITIAL_MEMORY=128MB -sMAXIMUM_MEMORY=4096MB -sALLOW_MEMORY_GROWTH=1 -sFORCE_FILESYSTEM=1 \
-sEXPORTED_FUNCTIONS=_main,_wllama_malloc,_wllama_start,_wllama_action,_wllama_exit,_wllama_debug \
-sEXPORTED_RUNTIME_METHODS=ccall,cwrap,FS,MEMFS,mmapAlloc,FS_createDataFile,HEAPU8 -sNO_EXIT_RUNTIME=1"
for v in $VARIANTS; do
  extra=""
  [ "$v" = multi ] && extra="-pthread -sUSE_PTHREADS=1 -sPTHREAD_POOL_SIZE=Module[\\\"pthreadPoolSize\\\"]"
  build="$WORK/build-$v"
  mkdir -p "$build"
  say "building the $v-thread runtime with $(emcc --version | head -n1) (about 10 minutes on two cores)"
  (cd "$build" && EMCC_CFLAGS="" emcmake cmake "$WORK/wllama" -DEMSCRIPTEN_SYSTEM_PROCESSOR=wasm \
    -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_HTTPLIB=OFF -DGGML_OPENMP=OFF -DLLAMA_BUILD_COMMON=OFF > cmake.log 2>&1) \
    || { tail -n 20 "$build/cmake.log" >&2; say "cmake failed: $build/cmake.log"; exit 1; }
  : > "$build/make.log"
  link_wllama || { grep -m 20 -E "error" "$build/make.log" >&2; say "the $v-thread build failed: $build/make.log"; exit 1; }
  # Seen once, on a fresh machine's first build (emscripten's library cache still cold):
  # the wasm's imports minified ("a" "a") and its glue's left whole, so the page could not
  # load it. The link is made again once; a second mismatch fails the build (npm's runs).
  if ! glue_matches "$build"; then
    say "the $v-thread glue does not provide the wasm's imports; linking again"
    rm -f "$build/wllama.js" "$build/wllama.wasm"
    link_wllama || { say "the $v-thread link failed: $build/make.log"; exit 1; }
    glue_matches "$build" || { say "the $v-thread glue still does not provide the wasm's imports"; exit 1; }
  fi
  mkdir -p "$OUT.part/$v-thread"
  for f in wllama.js wllama.wasm wllama.worker.js; do [ -f "$build/$f" ] && cp "$build/$f" "$OUT.part/$v-thread/"; done
  dots=$("$WASM_DIS" "$OUT.part/$v-thread/wllama.wasm" 2>/dev/null | grep -c 'i32x4.dot_i16x8_s' || true)
  [ "${dots:-0}" -gt 0 ] || { say "the $v-thread wasm holds no i32x4.dot_i16x8_s: the SIMD kernels were not compiled in"; exit 1; }
  say "$v-thread: $(stat -c %s "$OUT.part/$v-thread/wllama.wasm") bytes, $dots SIMD dot products"
done
python3 "$ROOT/scripts/wllama_glue.py" "$NPM/esm/index.min.js" "$OUT.part/index.js" "$OUT.part"
built=$(echo "$VARIANTS" | sed 's/ /, /g')
cat > "$OUT.part/runtime.json" <<JSON
{"runtime": "built", "detail": "llama.cpp ($CRATE's copy) with wllama 2.3.7, built here by emscripten 3.1.6 with wasm SIMD ($built-thread)", "recipe": "$recipe"}
JSON
rm -rf "$OUT" && mv "$OUT.part" "$OUT"
trap - EXIT
rm -rf "$WORK"
say "built in $(( $(date +%s) - started )) s: $OUT"
