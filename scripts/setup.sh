#!/usr/bin/env bash
# Installs whatever is missing for building, serving and testing Nocturne, and nothing
# that is already there. Sourced by serve.sh and test.sh; safe to run on its own.
# Everything comes from the package registries (crates.io, npm, Debian): nothing else.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=${NOCTURNE_TOOLS:-$HOME/.cache/nocturne-tools}
TRUNK_VERSION=0.21.14
BINARYEN_VERSION=132.0.0
# Every script and hook agrees on where the tools are (scripts/inpage_runtime.py and the
# e2e harness read NOCTURNE_TOOLS too).
export NOCTURNE_TOOLS="$TOOLS"
# cargo install puts trunk and wasm-bindgen in $CARGO_HOME/bin. npm's binaryen comes first
# for trunk's wasm-opt; scripts/build-wllama.sh puts Debian's back in front for emscripten.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$TOOLS/binaryen/node_modules/.bin:$TOOLS/e2e/node_modules/.bin:$PATH"
# Trunk must never download a tool: versions are pinned in Trunk.toml and installed here.
export TRUNK_SKIP_VERSION_CHECK=true

# Each line says how long setup had run (where a fresh machine's minutes go).
SETUP_STARTED=${SETUP_STARTED:-$(date +%s)}
say() { echo "[setup +$(( $(date +%s) - SETUP_STARTED ))s] $*" >&2; }

# Tools built from crates.io are built for a few runs here, not for speed: opt-level 1
# without LTO (trunk in 306 s instead of 438 s on two cores, 376 s at opt-level 3).
tool_install() { CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_OPT_LEVEL=1 cargo install "$@"; }

# The wasm-bindgen version Cargo.lock pins (the CLI must match it exactly).
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; sub(/version = "/, ""); sub(/"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

ensure_rust() {
  if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  if ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; then
    say "adding rustfmt and clippy"
    rustup component add rustfmt clippy
  fi
}

ensure_wasm_bindgen() {
  local want; want=$(wasm_bindgen_version)
  [ -n "$want" ] || { say "cannot read the wasm-bindgen version from Cargo.lock"; exit 1; }
  if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$want" ]; then
    say "installing wasm-bindgen-cli $want (matches Cargo.lock)"
    # Not --locked: its lock file pins a webpki-roots release the registry no longer serves.
    tool_install -q wasm-bindgen-cli --version "=$want" --force
  fi
}

ensure_trunk() {
  if [ "$(trunk --version 2>/dev/null | awk '{print $2}')" != "$TRUNK_VERSION" ]; then
    say "installing trunk $TRUNK_VERSION (about 5 minutes, once)"
    # trunk's own release profile asks for fat LTO and one codegen unit.
    tool_install -q trunk --version "=$TRUNK_VERSION" --locked --force
  fi
}

ensure_binaryen() {
  # Debian's binaryen 108 produces a blank page; npm's binaryen 132 is the one Trunk.toml pins.
  if ! wasm-opt --version 2>/dev/null | grep -q "version ${BINARYEN_VERSION%%.*}"; then
    say "installing wasm-opt from npm binaryen@$BINARYEN_VERSION"
    mkdir -p "$TOOLS/binaryen"
    npm install -s --no-audit --no-fund --prefix "$TOOLS/binaryen" "binaryen@$BINARYEN_VERSION" >/dev/null
  fi
}

ensure_chromium() {
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    say "installing Debian chromium and chromium-driver"
    local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
}

ensure_e2e_node() {
  # playwright-core drives the system chromium; it never downloads a browser.
  if [ ! -d "$TOOLS/e2e/node_modules/playwright-core" ]; then
    say "installing playwright-core for the end-to-end checks"
    mkdir -p "$TOOLS/e2e"
    npm install -s --no-audit --no-fund --prefix "$TOOLS/e2e" playwright-core@1 >/dev/null
  fi
  export NODE_PATH="$TOOLS/e2e/node_modules"
}

# The in-page model's runtime: llama.cpp compiled to WebAssembly by @wllama/wllama (MIT),
# pinned by version and checksum. Trunk's post-build hook (scripts/inpage_runtime.py)
# copies it into the build; it is never committed.
WLLAMA_VERSION=2.3.7
WLLAMA_INTEGRITY=sha512-T273gBEqEZCHAoyNZDg+X6boQWktaq+efNF6bJo5aHToJr7jS1kCYImKXDdBi2/CccRuBUcMBHHLHiQN4+OfKQ==
export NOCTURNE_WLLAMA="$TOOLS/wllama-$WLLAMA_VERSION/package"
ensure_wllama() {
  if [ ! -s "$NOCTURNE_WLLAMA/esm/single-thread/wllama.wasm" ]; then
    say "fetching @wllama/wllama@$WLLAMA_VERSION (the in-page model's runtime) from npm"
    local dir="$TOOLS/wllama-$WLLAMA_VERSION" tgz
    rm -rf "$dir" && mkdir -p "$dir"
    tgz=$(cd "$dir" && npm pack -s "@wllama/wllama@$WLLAMA_VERSION")
    local got; got="sha512-$(openssl dgst -sha512 -binary "$dir/$tgz" | base64 -w0)"
    if [ "$got" != "$WLLAMA_INTEGRITY" ]; then
      say "the @wllama/wllama package does not match its pinned checksum ($got)"; rm -rf "$dir"; exit 1
    fi
    tar xzf "$dir/$tgz" -C "$dir" && rm "$dir/$tgz"
  fi
}

# The same runtime built here with wasm SIMD kernels (scripts/build-wllama.sh: Debian's
# emscripten, llama.cpp from crates.io): a few minutes once. If it fails, the page runs
# npm's build and says so, and the failure is recorded: later runs skip it with one line
# (NOCTURNE_WLLAMA_RETRY=1 builds it again). NOCTURNE_WLLAMA_BUILD=0 skips it (the test
# command then names the in-page checks as not run on it). Sets WLLAMA_RUNTIME to built,
# failed or off.
WLLAMA_RUNTIME=""
ensure_wllama_built() {
  if [ "${NOCTURNE_WLLAMA_BUILD:-1}" = 0 ]; then
    WLLAMA_RUNTIME=off
    say "NOCTURNE_WLLAMA_BUILD=0: the SIMD runtime is not built; the page uses npm's wllama"
    return 0
  fi
  local rc=0
  "$ROOT/scripts/build-wllama.sh" || rc=$?
  case $rc in
    0) WLLAMA_RUNTIME=built ;;
    3) WLLAMA_RUNTIME=failed ;; # skipped: build-wllama.sh said why in one line
    *) WLLAMA_RUNTIME=failed; say "the SIMD runtime was not built (see above); the page uses npm's wllama, without its SIMD kernels" ;;
  esac
}

# The official MCP Inspector (CLI mode) for the test command's MCP check. 0.15.0 is the
# newest release whose engines take this machine's Node 20 (0.16 and later want 22).
MCP_INSPECTOR_VERSION=0.15.0
export NOCTURNE_MCP_INSPECTOR="$TOOLS/mcp-inspector-$MCP_INSPECTOR_VERSION/node_modules/.bin/mcp-inspector"
ensure_mcp_inspector() {
  if [ ! -x "$NOCTURNE_MCP_INSPECTOR" ]; then
    say "installing @modelcontextprotocol/inspector@$MCP_INSPECTOR_VERSION from npm"
    mkdir -p "$TOOLS/mcp-inspector-$MCP_INSPECTOR_VERSION"
    npm install -s --no-audit --no-fund --prefix "$TOOLS/mcp-inspector-$MCP_INSPECTOR_VERSION" \
      "@modelcontextprotocol/inspector@$MCP_INSPECTOR_VERSION" >/dev/null
  fi
}

# The sync server (crates.io): y-sweet, a Yjs server that keeps each document as one
# compacted snapshot on disk. About 2 minutes to build, once.
YSWEET_VERSION=0.9.1
export NOCTURNE_YSWEET="$TOOLS/y-sweet-$YSWEET_VERSION/bin/y-sweet"
ensure_ysweet() {
  if [ ! -x "$NOCTURNE_YSWEET" ]; then
    say "installing the sync server y-sweet $YSWEET_VERSION from crates.io (about 2 minutes, once)"
    tool_install -q y-sweet --version "=$YSWEET_VERSION" --locked --root "$TOOLS/y-sweet-$YSWEET_VERSION" \
      --target-dir "${CARGO_TARGET_DIR:-$TOOLS/target}/y-sweet"
  fi
}

# What building the page needs (serve.sh builds the SIMD runtime after the page is served).
ensure_page_tools() {
  ensure_rust
  ensure_wasm_bindgen
  ensure_trunk
  ensure_binaryen
  ensure_wllama
}

ensure_build_tools() {
  ensure_page_tools
  ensure_wllama_built
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  ensure_build_tools
  ensure_chromium
  ensure_e2e_node
  ensure_mcp_inspector
  ensure_ysweet
  say "all tools present"
fi
