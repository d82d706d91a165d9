#!/usr/bin/env python3
"""Serves a built app like `trunk serve` does: static files from DIR on 127.0.0.1:PORT,
cross-origin isolated (COOP/COEP), so the in-page model may run multi-threaded.

usage: serve_dist.py PORT DIR
"""
import functools
import http.server
import sys


class Isolated(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()

    def log_message(self, *args):
        pass


port, root = int(sys.argv[1]), sys.argv[2]
handler = functools.partial(Isolated, directory=root)
http.server.ThreadingHTTPServer.allow_reuse_address = True
with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
    print("ready", flush=True)
    server.serve_forever()
