#!/usr/bin/env bash
# Sync figures, one line to grep: a memory of FACTS facts (10,000) kept as KIND (db: a
# database, json: a JSON store file) published by one device (one checkpoint), joined cold
# by another (with the default Argon2id), then one chat turn sent by the first and fetched
# by the second — all through the real y-sweet server on 127.0.0.1.
# usage: scripts/bench_sync.sh NOCTURNE_BIN YSWEET_BIN [FACTS] [KIND]
set -euo pipefail
nocturne=$1; ysweet=$2; n=${3:-10000}; kind=${4:-db}
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$ysweet" serve "$work/server" --host 127.0.0.1 --port "$port" --checkpoint-freq-seconds 1 > /dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
export NOCTURNE_SYNC_PASSPHRASE="a passphrase for the benchmark"
"$nocturne" bench-recall --facts "$n" --export "$work/seed.json" > /dev/null
facts=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['items']; print(f\"{len(d)} active={sum(1 for i in d if i['active'])}\")" "$work/seed.json")
if [ "$kind" = db ]; then
  "$nocturne" move-store --store "$work/seed.json" --to "$work/a.$kind" > /dev/null
else
  mv "$work/seed.json" "$work/a.json"
fi
secs() { local t0 t1; t0=$(date +%s.%N); "$@" > "$work/out.txt"; t1=$(date +%s.%N); python3 -c "print(f'{$t1-$t0:.2f}')"; }
join=$(secs "$nocturne" sync --store "$work/a.$kind" --server "ws://127.0.0.1:$port" --device-name laptop)
space=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['space'])" "$work/a.$kind.sync.json")
cold=$(secs "$nocturne" sync --store "$work/b.$kind" --server "ws://127.0.0.1:$port" --space "$space" --device-name phone)
head_b=$(grep -o 'head [0-9a-f]*' "$work/out.txt")
"$nocturne" chat --store "$work/a.$kind" "My sister Ana moved to Porto last spring." > /dev/null
push=$(secs "$nocturne" sync --store "$work/a.$kind")
pull=$(secs "$nocturne" sync --store "$work/b.$kind")
applied=$(grep -o "applied [0-9]* from other devices" "$work/out.txt"); cp "$work/out.txt" /tmp/pull-out.txt
# A space of many records: 1,000 chat turns on one store file, then a cold join.
python3 -c "
import sys
for i in range(1000): print(f'My friend number {i} lives in city number {i % 37} and likes tea.')
" > "$work/turns.txt"
"$nocturne" sync --store "$work/c.$kind" --server "ws://127.0.0.1:$port" --space "many-$space" --device-name writer > /dev/null
t0=$(date +%s.%N); "$nocturne" chat --store "$work/c.$kind" < "$work/turns.txt" > /dev/null; t1=$(date +%s.%N)
turns=$(python3 -c "print(f'{$t1-$t0:.1f}')")
many_push=$(secs "$nocturne" sync --store "$work/c.$kind")
many_cold=$(secs "$nocturne" sync --store "$work/d.json" --server "ws://127.0.0.1:$port" --space "many-$space" --device-name reader)
many_same=$([ "$(grep -o 'head [0-9a-f]*' "$work/out.txt")" = "$("$nocturne" sync --store "$work/c.$kind" | grep -o 'head [0-9a-f]*')" ] && echo yes || echo NO)
sleep 3
server_bytes=$(du -sb "$work/server" | cut -f1)
echo "sync-bench-records: kind=$kind records=1001 chatTurnsS=$turns sealAndSendS=$many_push coldReplayS=$many_cold sameHead=$many_same"
echo "sync-bench: kind=$kind facts=$facts storeBytes=$(wc -c < "$work/a.$kind") serverBytes=$server_bytes publishS=$join coldSyncS=$cold oneTurnPushS=$push oneTurnPullS=$pull ($applied; cold $head_b)"
