#!/usr/bin/env bash
# Rehearses a newcomer's first run on a fresh machine: a fresh clone of this commit, a clean
# HOME (so empty ~/.cache/nocturne-tools, ~/.cache/local-llm, ~/.npm, ~/.cache/pip, no
# ~/.emscripten*), a CARGO_HOME holding only rustup's proxies, a PATH without anything
# installed before, its own target directory; then the newcomer's command, timed.
#
#   scripts/rehearse.sh [test|serve|setup]     (default: test)
#
# test   runs ./scripts/test.sh in the fresh clone (its summary ends with the time per stage).
# serve  runs ./scripts/serve.sh and reports when it first answers, checks the page as a
#        newcomer first loads it (tests/e2e/served.cjs), waits for the runtime built in the
#        background and checks the page again (it must then serve runtime=built), then stops.
# setup  runs ./scripts/setup.sh alone.
#
# env: REHEARSE_DIR (/var/tmp/nocturne-rehearsal; removed and made again), and whatever the
#      command reads (PORT, NOCTURNE_FAKE_PORT, LLM_PORT, CI …), passed through.
#      REHEARSE_PURGE=1 first purges Debian's emscripten, binaryen and cmake (apt-get), which
#      only the runtime's build uses, so that their install is rehearsed too.
#
# What it cannot reset, and why: system packages others on the machine use — Debian's
# chromium and chromium-driver, and emscripten's dependencies (clang-14, llvm-14, lld-14,
# node-acorn), which stay installed after a purge — and RUSTUP_HOME (/root/.rustup, shared:
# the wasm32 target, rustfmt and clippy stay added). A fresh machine spends a few more
# minutes installing those. The machine's own environment (node, python3, gcc, the registry
# settings in the environment) is kept: a fresh machine has it.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MODE=${1:-test}
case "$MODE" in test|serve|setup) ;; *) echo "usage: $0 [test|serve|setup]" >&2; exit 2 ;; esac
DIR=${REHEARSE_DIR:-/var/tmp/nocturne-rehearsal}
RUSTUP_BIN=$(command -v rustup || true)
RUSTUP_BIN=$(readlink -f "${RUSTUP_BIN:-$HOME/.cargo/bin/rustup}")
[ -x "$RUSTUP_BIN" ] || { echo "[rehearse] no rustup found" >&2; exit 1; }
export RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
note() { echo "[rehearse] $*" >&2; }

case "$DIR" in /|/root|/home|"$HOME") note "REHEARSE_DIR=$DIR would remove too much"; exit 2 ;; esac
rm -rf "$DIR"
mkdir -p "$DIR/home/.cargo/bin"
# A fresh clone of this commit: no dist/, no target/, nothing ignored left behind.
git clone -q --no-checkout "$ROOT" "$DIR/clone"
git -C "$DIR/clone" checkout -q --detach "$(git -C "$ROOT" rev-parse HEAD)"
[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ] || note "uncommitted changes in $ROOT are not rehearsed (a clone of HEAD $(git -C "$ROOT" rev-parse --short HEAD))"
# rustup's proxies, as rustup-init leaves them in ~/.cargo/bin, and nothing else.
for proxy in rustup cargo rustc rustdoc rustfmt cargo-fmt cargo-clippy clippy-driver rust-gdb rust-lldb; do
  ln -s "$RUSTUP_BIN" "$DIR/home/.cargo/bin/$proxy"
done

if [ "${REHEARSE_PURGE:-0}" = 1 ]; then
  note "purging Debian's emscripten, binaryen and cmake"
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get purge -y -qq emscripten binaryen cmake > /dev/null
fi

# The PATH a fresh login has: the proxies first (rustup's env file), then the system's,
# without any directory a tool was installed into before.
path="$DIR/home/.cargo/bin"
IFS=: read -ra dirs <<< "$PATH"
for d in "${dirs[@]}"; do
  case "$d" in "$HOME/.cargo/bin"|*/nocturne-tools/*|*/.cache/*|"") continue ;; esac
  case ":$path:" in *":$d:"*) continue ;; esac
  path="$path:$d"
done
unset CARGO_TARGET_DIR NOCTURNE_TOOLS NOCTURNE_WLLAMA NOCTURNE_WLLAMA_BUILT NOCTURNE_WLLAMA_BUILD NOCTURNE_WLLAMA_RETRY \
  NOCTURNE_MCP_INSPECTOR NOCTURNE_YSWEET NOCTURNE_SERVE_MODEL LLM_HOME NODE_PATH EM_CONFIG EM_CACHE EMSDK
export HOME="$DIR/home" CARGO_HOME="$DIR/home/.cargo" PATH="$path"
cd "$DIR/clone"
note "HOME=$HOME, PATH=$PATH, RUSTUP_HOME=$RUSTUP_HOME (shared), clone of $(git rev-parse --short HEAD) in $DIR/clone"
started=$(date +%s)
# The wall time, and what else ran: the load average (others' work on a shared machine
# stretches the wall time) and the CPU time of everything the command ran (bash's `times`:
# the same whatever else runs; on an idle 2-core machine the wall time is at least half of it).
elapsed() {
  local s=$(( $(date +%s) - started )) cpu
  cpu=$(times | tail -n 1 | awk '{ split($1, u, /[ms]/); split($2, y, /[ms]/); printf "%d", u[1] * 60 + u[2] + y[1] * 60 + y[2] }')
  echo "$(( s / 60 )) min $(( s % 60 )) s (CPU $(( cpu / 60 )) min; load average now $(cut -d' ' -f1-3 /proc/loadavg), at the start $load0)"
}
load0=$(cut -d' ' -f1-3 /proc/loadavg)

case "$MODE" in
  setup)
    rc=0; ./scripts/setup.sh || rc=$?
    note "setup: exit $rc after $(elapsed)"; exit $rc ;;
  test)
    rc=0; ./scripts/test.sh || rc=$?
    note "test command: exit $rc after $(elapsed)"; exit $rc ;;
  serve)
    port=${PORT:-8080}
    setsid ./scripts/serve.sh > "$DIR/serve.log" 2>&1 &
    pid=$!
    trap 'kill -TERM -- "-$pid" 2> /dev/null || true' EXIT
    until curl -sf -o /dev/null "http://127.0.0.1:$port/"; do
      kill -0 "$pid" 2> /dev/null || { cat "$DIR/serve.log" >&2; note "serve.sh ended without answering after $(elapsed)"; exit 1; }
      sleep 2
    done
    note "serve.sh answered on http://127.0.0.1:$port/ after $(elapsed)"
    grep -E '^\[(serve|setup|build-wllama)' "$DIR/serve.log" >&2 || true
    # The check's browser driver (the test command's install, not serve.sh's).
    (source ./scripts/setup.sh && ensure_chromium && ensure_e2e_node) > "$DIR/e2e-install.log" 2>&1
    export NODE_PATH="$HOME/.cache/nocturne-tools/e2e/node_modules"
    rc=0; node tests/e2e/served.cjs "http://127.0.0.1:$port/" || rc=$?
    if grep -q 'builds in the background' "$DIR/serve.log"; then
      note "waiting for the runtime's background build (log: $HOME/.cache/nocturne-tools/wllama-build.log)"
      until grep -qE '^\[serve\] the SIMD runtime (is built|was not built)' "$DIR/serve.log"; do
        kill -0 "$pid" 2> /dev/null || break
        sleep 5
      done
      grep -E '^\[serve\] the SIMD runtime' "$DIR/serve.log" >&2 || true
      grep -E '^\[build-wllama\]' "$HOME/.cache/nocturne-tools/wllama-build.log" >&2 || true
      note "after $(elapsed), the page a reload gets:"
      node tests/e2e/served.cjs "http://127.0.0.1:$port/" | tee "$DIR/served-after.log" || rc=$?
      grep -q '^served: runtime=built' "$DIR/served-after.log" || { note "the page does not serve the built runtime"; rc=1; }
    fi
    note "serve rehearsal: exit $rc after $(elapsed)"; exit $rc ;;
esac
