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
# on a quiet 2-core machine, 4 to 6 with other builds running): the single-thread one runs wherever the page is not
# cross-origin isolated and where Settings' auto picks one thread (two cores); the
# multi-thread one wherever more run. A variant not built runs npm's. Idempotent: a build
# of this recipe is kept. A failed build leaves no output (the page falls back to the npm
# runtime and says so) and a record, $OUT.failed: the recipe, what failed, and the tail of
# its log (whole in $OUT.failed.log). Later runs of the same recipe skip the build with one
# line saying so (exit 3) instead of spending its minutes failing again; a changed recipe
# (this script, the glue fixes, the patches, the variants) builds again, and so does
# NOCTURNE_WLLAMA_RETRY=1 or removing the record. A download or install that fails (the
# network, apt) leaves no record: it costs seconds to try again. `--status` prints built,
# failed or missing for this recipe and exits 0.
#
# A check before the output is kept: each wasm holds i32x4.dot_i16x8_s instructions (the
# SIMD kernels were compiled in). The e2e (tests/e2e/inpage.cjs) checks a completion.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=${NOCTURNE_TOOLS:-$HOME/.cache/nocturne-tools}
NPM=${NOCTURNE_WLLAMA:-$TOOLS/wllama-2.3.7/package}
OUT=$TOOLS/wllama-built-2.3.7
FAILED=$OUT.failed
WORK=$TOOLS/wllama-build
VARIANTS=${NOCTURNE_WLLAMA_VARIANTS:-single multi}
CRATE=llama-cpp-sys-2-0.1.126
CRATE_SHA256=fcf4f0b93f111d7cc2ae702b2dd20efb4a9a19297addb3e63c1cfb97e6a13c6f
WASM_DIS=${WASM_DIS:-/usr/bin/wasm-dis}
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
# built: this recipe's output is there; failed: this recipe failed here before (the record).
status() {
  if [ -f "$OUT/runtime.json" ] && grep -q "\"recipe\": \"$recipe\"" "$OUT/runtime.json"; then echo built
  elif [ -f "$FAILED" ] && grep -qx "recipe: $recipe" "$FAILED"; then echo failed
  else echo missing; fi
}
# The one line a skipped build prints: why, where the log is, how to build again.
skipped() {
  say "skipped: the SIMD runtime failed to build here on $(sed -n 's/^when: //p' "$FAILED") ($(sed -n 's/^reason: //p' "$FAILED")); the page runs npm's wllama without SIMD kernels. Log: $FAILED.log. To build again: NOCTURNE_WLLAMA_RETRY=1 with setup.sh, serve.sh or test.sh (or rm $FAILED)"
  exit 3
}
case "${1:-}" in --status) status; exit 0 ;; "") ;; *) say "usage: $0 [--status]"; exit 2 ;; esac
[ "$(status)" = built ] && exit 0
[ "$(status)" = failed ] && [ "${NOCTURNE_WLLAMA_RETRY:-0}" != 1 ] && skipped
# One build at a time (serve.sh may run one in the background while test.sh starts): the
# second waits for the first, then finds its output or its record.
mkdir -p "$TOOLS"
exec 9> "$TOOLS/wllama-build.lock"
if ! flock -n 9; then
  say "another build of the runtime is running (log: $TOOLS/wllama-build.log when serve.sh started it); waiting for it"
  flock 9
  [ "$(status)" = built ] && exit 0
  [ "$(status)" = failed ] && skipped
fi
[ -s "$NPM/esm/index.min.js" ] || { say "no npm wllama at $NPM (scripts/setup.sh fetches it first)"; exit 1; }

# A build step that failed: the record that makes later runs skip this recipe, with the
# step's log, then exit 1. (Interrupted builds and failed downloads leave no record.)
fail() {
  local reason=$1 log=${2:-}
  if [ -n "$log" ] && [ -f "$log" ]; then cp "$log" "$FAILED.log"; else : > "$FAILED.log"; fi
  {
    echo "recipe: $recipe"
    echo "when: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "reason: $reason"
    echo "log: $FAILED.log"
    echo "emcc: $(emcc --version 2>/dev/null | head -n1)"
    echo "retry: NOCTURNE_WLLAMA_RETRY=1 with scripts/setup.sh, serve.sh or test.sh, or rm $FAILED"
    echo "--- the log's last 40 lines"
    tail -n 40 "$FAILED.log"
  } > "$FAILED"
  tail -n 15 "$FAILED.log" >&2
  say "$reason"
  say "failure recorded in $FAILED (log: $FAILED.log): later runs skip this build until its recipe changes; NOCTURNE_WLLAMA_RETRY=1 builds it again"
  exit 1
}

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
# Stopped (Ctrl-C, serve.sh ending): no record, the next run builds again.
trap 'say "interrupted: nothing recorded, the next run builds again"; exit 130' INT TERM

# What a fresh machine lacked: a PATH on which emscripten finds the binaryen it was made
# with. Debian's emscripten 3.1.6 runs binaryen's tools (wasm-opt, wasm-metadce,
# wasm-emscripten-finalize …) by bare name from PATH, not from its config's BINARYEN_ROOT
# (/usr/share/emscripten/tools/building.py: `cmd = [tool]`). scripts/setup.sh puts npm's
# binaryen 132 (trunk's wasm-opt) first on PATH, so every build that setup started ran
# binaryen 132, which prints the import and export minification map as JSON where 3.1.6
# reads `old => new` lines: the wasm's imports were renamed, the glue kept the old names
# ("glue lacks 94 of 94 imports"), on every link, after about ten minutes of the
# (node-run) binaryen 132. A build run by hand, without npm's binaryen on PATH, used
# Debian's binaryen 108, the one Debian pairs with this emscripten, and worked. So the
# build puts Debian's binaryen first on its own PATH, whatever its caller's says, and
# checks it before compiling.
BINARYEN_BIN="$WORK/binaryen-bin"
mkdir -p "$BINARYEN_BIN"
for tool in wasm-opt wasm-metadce wasm-emscripten-finalize wasm-ctor-eval wasm-split wasm2js wasm-as wasm-dis; do
  [ -x "/usr/bin/$tool" ] || { say "Debian's binaryen has no /usr/bin/$tool (apt-get install binaryen)"; exit 1; }
  ln -s "/usr/bin/$tool" "$BINARYEN_BIN/$tool"
done
export PATH="$BINARYEN_BIN:$PATH"
[ "$(command -v wasm-opt)" = "$BINARYEN_BIN/wasm-opt" ] || { say "wasm-opt on the build's PATH is $(command -v wasm-opt), not Debian's"; exit 1; }

curl -sSfL "https://static.crates.io/crates/llama-cpp-sys-2/$CRATE.crate" -o "$WORK/crate.tgz"
got=$(sha256sum "$WORK/crate.tgz" | cut -d' ' -f1)
[ "$got" = "$CRATE_SHA256" ] || { say "$CRATE.crate has SHA-256 $got, not the pinned $CRATE_SHA256"; exit 1; }
tar -xzf "$WORK/crate.tgz" -C "$WORK"
cp -a "$NPM" "$WORK/wllama"
cp -a "$WORK/$CRATE/llama.cpp" "$WORK/wllama/llama.cpp"
for patch in "${PATCHES[@]}"; do
  (cd "$WORK/wllama/llama.cpp" && git apply "$patch" 2> "$WORK/patch.log") || fail "$(basename "$patch") does not apply to $CRATE's llama.cpp" "$WORK/patch.log"
done

# Seconds first: a small program linked as the runtime will be (-O3, so the imports are
# minified) must get a glue that names the wasm's imports, or the toolchain is wrong and
# ten minutes of compiling would end in the same mismatch.
smoke="$WORK/smoke"
mkdir -p "$smoke"
printf '#include <stdio.h>\nint main(void) { printf("ok %%d\\n", 42); return 0; }\n' > "$smoke/main.c"
(cd "$smoke" && emcc -O3 -sFORCE_FILESYSTEM=1 -sEXPORTED_RUNTIME_METHODS=ccall,FS main.c -o wllama.js > emcc.log 2>&1) \
  || fail "emscripten cannot link a small program (emcc $(emcc --version | head -n1 | awk '{print $NF}'))" "$smoke/emcc.log"
mismatch=$(glue_matches "$smoke" 2>&1) \
  || fail "the toolchain's glue does not name its wasm's imports (a small program: $mismatch; wasm-opt on PATH: $(wasm-opt --version))" "$smoke/emcc.log"

FLAGS="--no-entry -O3 -msimd128 -DNDEBUG -frtti -fexceptions -sEXPORT_ALL=1 -sEXPORT_ES6=0 -sMODULARIZE=0 \
-sINITIAL_MEMORY=128MB -sMAXIMUM_MEMORY=4096MB -sALLOW_MEMORY_GROWTH=1 -sFORCE_FILESYSTEM=1 \
-sEXPORTED_FUNCTIONS=_main,_wllama_malloc,_wllama_start,_wllama_action,_wllama_exit,_wllama_debug \
-sEXPORTED_RUNTIME_METHODS=ccall,cwrap,FS,MEMFS,mmapAlloc,FS_createDataFile,HEAPU8 -sNO_EXIT_RUNTIME=1"
for v in $VARIANTS; do
  extra=""
  [ "$v" = multi ] && extra="-pthread -sUSE_PTHREADS=1 -sPTHREAD_POOL_SIZE=Module[\\\"pthreadPoolSize\\\"]"
  build="$WORK/build-$v"
  mkdir -p "$build"
  v_started=$(date +%s)
  say "building the $v-thread runtime with emscripten $(emcc --version | head -n1 | grep -oE "[0-9]+\.[0-9]+\.[0-9]+" | head -n1) and binaryen $(wasm-opt --version | awk '{print $NF}') (a few minutes on two cores)"
  (cd "$build" && EMCC_CFLAGS="" emcmake cmake "$WORK/wllama" -DEMSCRIPTEN_SYSTEM_PROCESSOR=wasm \
    -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_HTTPLIB=OFF -DGGML_OPENMP=OFF -DLLAMA_BUILD_COMMON=OFF > cmake.log 2>&1) \
    || fail "cmake failed for the $v-thread runtime" "$build/cmake.log"
  : > "$build/make.log"
  link_wllama || fail "the $v-thread build failed (make wllama)" "$build/make.log"
  mismatch=$(glue_matches "$build" 2>&1) || fail "the $v-thread glue does not provide the wasm's imports: $mismatch" "$build/make.log"
  mkdir -p "$OUT.part/$v-thread"
  for f in wllama.js wllama.wasm wllama.worker.js; do [ -f "$build/$f" ] && cp "$build/$f" "$OUT.part/$v-thread/"; done
  dots=$("$WASM_DIS" "$OUT.part/$v-thread/wllama.wasm" 2>/dev/null | grep -c 'i32x4.dot_i16x8_s' || true)
  [ "${dots:-0}" -gt 0 ] || fail "the $v-thread wasm holds no i32x4.dot_i16x8_s: the SIMD kernels were not compiled in" "$build/make.log"
  say "$v-thread: $(stat -c %s "$OUT.part/$v-thread/wllama.wasm") bytes, $dots SIMD dot products, built in $(( $(date +%s) - v_started )) s"
done
python3 "$ROOT/scripts/wllama_glue.py" "$NPM/esm/index.min.js" "$OUT.part/index.js" "$OUT.part" > "$WORK/glue.log" 2>&1 \
  || fail "scripts/wllama_glue.py could not fit the glue into wllama's module" "$WORK/glue.log"
built=$(echo "$VARIANTS" | sed 's/ /, /g')
cat > "$OUT.part/runtime.json" <<JSON
{"runtime": "built", "detail": "llama.cpp ($CRATE's copy) with wllama 2.3.7, built here by emscripten 3.1.6 with wasm SIMD ($built-thread)", "recipe": "$recipe"}
JSON
rm -rf "$OUT" && mv "$OUT.part" "$OUT"
trap - EXIT
rm -rf "$WORK" "$FAILED" "$FAILED.log"
say "built in $(( $(date +%s) - started )) s: $OUT"
