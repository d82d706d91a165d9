#!/usr/bin/env python3
"""A stopped request really stops the model: against llama.cpp's server, start a long
generation, drop the connection (what Ctrl-C or the app's Stop does), and show the slot is
free again — /slots says it is idle well before the generation would have ended — then time
a short request. usage: llm_stop.py BASE_URL   (e.g. http://127.0.0.1:18080/v1)
Prints key=value lines; exits 1 if the slot is still busy when the bound runs out."""
import json
import socket
import sys
import time
import urllib.parse
import urllib.request

base = sys.argv[1].rstrip("/")
root = base[: -len("/v1")] if base.endswith("/v1") else base
host = urllib.parse.urlparse(root)

LONG_TOKENS = 4000   # ~35 s at this machine's ~115 tokens/s
BOUND_S = 15         # the slot must be idle long before the long generation could end


def busy():
    with urllib.request.urlopen(f"{root}/slots", timeout=5) as r:
        return any(s.get("is_processing") for s in json.load(r))


def body(tokens, text, stream=True):
    return json.dumps({"model": "smollm2", "messages": [{"role": "user", "content": text}],
                       "max_tokens": tokens, "temperature": 0, "cache_prompt": False,
                       "ignore_eos": True, "stream": stream}).encode()


# 1. A long generation on a raw socket, so it can be dropped mid-way.
payload = body(LONG_TOKENS, "Tell a very long story about a lighthouse keeper.")
sock = socket.create_connection((host.hostname, host.port or 80), timeout=5)
sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             + f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
started = time.time()
while not busy():
    if time.time() - started > 10:
        print("llm-stop: the long generation never started")
        sys.exit(1)
    time.sleep(0.1)
time.sleep(1.0)
# 2. Drop it, as a client that stops does.
sock.close()
dropped = time.time()
while busy():
    if time.time() - dropped > BOUND_S:
        print(f"llm-stop: slot still busy {BOUND_S}s after the client went away (an orphaned generation)")
        sys.exit(1)
    time.sleep(0.1)
freed = time.time() - dropped
# 3. The next short request answers at normal speed.
t0 = time.time()
req = urllib.request.Request(f"{base}/chat/completions", data=body(8, "Say hi.", stream=False), headers={"Content-Type": "application/json"})
with urllib.request.urlopen(req, timeout=60) as r:
    json.load(r)
print(f"llm-stop: slotFreedAfterS={freed:.2f} nextShortRequestS={time.time() - t0:.2f} longGenerationWouldTakeTokens={LONG_TOKENS}")
print("llm-stop: 1 passed, 0 failed")
