#!/usr/bin/env bash
# Runs the sync server: y-sweet (crates.io, installed here once) on 127.0.0.1, keeping each
# space as one compacted snapshot under DATA (default ~/.local/share/nocturne-sync).
# It only ever sees sealed records. usage: scripts/sync-server.sh [PORT] [DATA]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ensure_ysweet
port=${1:-8080}
data=${2:-$HOME/.local/share/nocturne-sync}
mkdir -p "$data"
echo "sync server: ws://127.0.0.1:$port (data in $data)" >&2
exec "$NOCTURNE_YSWEET" serve "$data" --host 127.0.0.1 --port "$port" --checkpoint-freq-seconds 1
