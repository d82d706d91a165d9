#!/usr/bin/env python3
"""Trunk post-build hook: pins the Content-Security-Policy to the build.

Scripts may come only from the app itself: the one inline module script Trunk writes to
load the wasm is allowed by its SHA-256 hash, computed here, and nothing else inline is.
Connections may go to any http(s) endpoint, because the model's base URL is the user's.
"""
import base64
import hashlib
import os
import re
import sys

from snippets import repair

stage = os.environ.get("TRUNK_STAGING_DIR") or (sys.argv[1] if len(sys.argv) > 1 else "dist")
# First the snippets and digests (scripts/snippets.py): this hook is the one that writes
# index.html, and Trunk runs hooks at once.
repair(stage)
path = os.path.join(stage, "index.html")
html = open(path, encoding="utf-8").read()
hashes = [
    "'sha256-%s'" % base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode()
    for body in re.findall(r"<script(?: [^>]*)?>(.*?)</script>", html, flags=re.S)
]
policy = "; ".join([
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval' " + " ".join(hashes),
    "style-src 'self'",
    "img-src 'self' data:",
    # Any OpenAI-compatible endpoint over HTTP(S), and the sync server over WebSocket.
    "connect-src 'self' http: https: ws: wss:",
    # The in-page model's runtime starts its Web Worker from a blob: URL.
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
])
meta = '<meta http-equiv="Content-Security-Policy" content="%s" />' % policy
if "<!-- CSP -->" not in html:
    sys.exit("index.html has no <!-- CSP --> placeholder")
open(path, "w", encoding="utf-8").write(html.replace("<!-- CSP -->", meta))
