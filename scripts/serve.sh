#!/usr/bin/env bash
# Builds Nocturne (release) and serves it on http://127.0.0.1:${PORT:-8080} with the
# embedded offline provider; installs whatever is missing first.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ensure_build_tools
cd "$ROOT"
echo "[serve] building and serving on http://127.0.0.1:${PORT:-8080} (first build takes a few minutes)"
exec trunk serve --release --address 127.0.0.1 --port "${PORT:-8080}"
