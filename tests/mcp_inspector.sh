#!/usr/bin/env bash
# The official MCP Inspector, in CLI mode, against the built `nocturne mcp`: lists the
# tools, adds a memory and finds it by search. Prints "ok N - …" / "not ok N - …" lines.
# usage: mcp_inspector.sh INSPECTOR NOCTURNE_BINARY
set -uo pipefail
inspector=$1 nocturne=$2
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
store="$dir/memory.db"
n=0
check() { # check WHAT PYTHON_EXPRESSION_ON_d OUTPUT_FILE
  n=$((n + 1))
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$3" 2>/dev/null; then
    echo "ok $n - $1"
  else
    echo "not ok $n - $1 ($(head -c 400 "$3"))"
  fi
}
run() { timeout 120 "$inspector" --cli "$nocturne" mcp --store "$store" --allow edit "$@" > "$dir/out.json" 2> "$dir/err.log" || cat "$dir/err.log" >> "$dir/out.json"; }

run --method tools/list
check "the Inspector lists the eleven tools of nocturne mcp, each with an input schema" \
  "sorted(t['name'] for t in d['tools']) == sorted(['add_memory','search_memories','get_context','list_memories','correct_memory','pin_memory','forget_memory','erase_memory','sleep','apply_plan','memory_history']) and all(t['inputSchema']['type'] == 'object' for t in d['tools'])" "$dir/out.json"
run --method tools/call --tool-name add_memory --tool-arg "text=I live in Ghent and I keep a cat called Miso."
check "the Inspector calls add_memory: two facts stored through the Encode gate" \
  "not d.get('isError') and [f['text'] for f in d['structuredContent']['stored']] == ['I live in Ghent.', 'I keep a cat called Miso.']" "$dir/out.json"
run --method tools/call --tool-name search_memories --tool-arg "query=What is my cat called?" --tool-arg limit=1
check "the Inspector calls search_memories: the cat's name, one fact" \
  "not d.get('isError') and [f['text'] for f in d['structuredContent']['facts']] == ['I keep a cat called Miso.']" "$dir/out.json"
run --method tools/call --tool-name pin_memory --tool-arg id=m_404
check "the Inspector sees an unknown id as a tool error" "d.get('isError') is True and 'm_404' in d['content'][0]['text']" "$dir/out.json"
