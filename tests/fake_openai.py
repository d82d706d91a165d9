#!/usr/bin/env python3
"""A scripted OpenAI-compatible server for fault injection in the browser tests.

usage: fake_openai.py PORT

Each first path segment picks a behaviour; the rest must be /v1/chat/completions:
  /good       well-behaved: valid JSON for any response_format, SSE when stream=true
  /lmstudio   LM Studio: 400 for response_format json_object, json_schema accepted
  /noschema   older llama.cpp: 400 for response_format json_schema, json_object accepted
  /hang       never answers (the client must time out)
  /garbage    200 with a body that is not JSON
  /truncated  200 with JSON cut short
  /http500    500 with an error body
  /echokey    401 whose body repeats the Authorization header (the client must redact it)
  /nocors     valid answers but no CORS headers (the browser must refuse them)
  /stall      well-behaved, but a Promote pass request is held open (a slow model, for Stop)
  /slowchat   well-behaved, but a chat reply streams "Hel" and then waits a minute
GET /_requests returns what was received (mode, response_format type, headers of note);
GET /<mode>/v1/models lists two models for the well-behaved modes.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RECEIVED = []
LOCK = threading.Lock()


def contract_key(body):
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or {}
    required = schema.get("required") or []
    if required:
        return required[0]
    system = next((m["content"] for m in body.get("messages", []) if m.get("role") == "system"), "")
    for key in ("facts", "drop", "merge", "supersede", "promote", "forget", "question"):
        if '{"%s"' % key in system:
            return key
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def mode(self):
        return self.path.strip("/").split("/")[0]

    def cors(self):
        if self.mode() != "nocors":
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Access-Control-Allow-Headers", "content-type, authorization")
            self.send_header("Access-Control-Allow-Methods", "POST, GET, OPTIONS")

    def reply(self, status, text, content_type="application/json", length=None):
        data = text.encode()
        self.send_response(status)
        self.cors()
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data) if length is None else length))
        self.end_headers()
        self.wfile.write(data)

    def do_OPTIONS(self):
        self.send_response(204)
        self.cors()
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        if self.path == "/_requests":
            with LOCK:
                self.reply(200, json.dumps(RECEIVED))
        elif self.path.endswith("/v1/models") and self.mode() in ("good", "lmstudio", "noschema", "stall", "slowchat"):
            self.reply(200, json.dumps({"object": "list", "data": [{"id": "fake"}, {"id": "fake-large"}]}))
        else:
            self.reply(404, '{"error":"not found"}')

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return self.reply(400, '{"error":"request body is not JSON"}')
        mode = self.mode()
        fmt = (body.get("response_format") or {}).get("type")
        with LOCK:
            RECEIVED.append({
                "mode": mode, "format": fmt, "temperature": body.get("temperature"),
                "cachePrompt": body.get("cache_prompt"), "stream": body.get("stream"),
                "auth": self.headers.get("Authorization"), "model": body.get("model"),
            })
        if mode == "hang":
            time.sleep(30)
            return self.reply(200, "{}")
        if mode == "stall" and '\\"task\\":\\"promote\\"' in raw.decode("utf-8", "replace"):
            time.sleep(60)
            return self.reply(200, "{}")
        if mode == "garbage":
            return self.reply(200, "this is not json at all", "text/plain")
        if mode == "truncated":
            return self.reply(200, '{"choices":[{"message":{"content":"{\\"drop\\": [')
        if mode == "http500":
            return self.reply(500, '{"error":"the model crashed"}')
        if mode == "echokey":
            return self.reply(401, json.dumps({"error": "bad key: " + str(self.headers.get("Authorization"))}))
        if mode == "lmstudio" and fmt == "json_object":
            return self.reply(400, json.dumps({"error": "'response_format.type' must be 'json_schema' or 'text'"}))
        if mode == "noschema" and fmt == "json_schema":
            return self.reply(400, json.dumps({"error": {"message": 'response_format type must be one of "text" or "json_object", but got: json_schema'}}))
        key = contract_key(body)
        # A chat answer (free text with citations, or a choice among offered lines), a
        # quiz question, or a pass's proposals (none).
        if key == "answer":
            content = json.dumps({"answer": "Hello from the fake model.", "cited": []})
        elif key == "fact":
            content = json.dumps({"fact": "none"})
        elif key == "question":
            content = json.dumps({"question": "What do you remember?"})
        else:
            content = json.dumps({key: []}) if key else "Hello from the fake model."
        chat = key in (None, "answer", "fact")
        if mode == "slowchat" and body.get("stream") and chat:
            self.send_response(200)
            self.cors()
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            start = '{"answer": "Hel' if key == "answer" else "Hel"
            first = "data: " + json.dumps({"choices": [{"delta": {"content": start}, "finish_reason": None}]}) + "\n\n"
            self.wfile.write(first.encode())
            self.wfile.flush()
            time.sleep(60)
            return None
        if body.get("stream"):
            # A chat reply streams in three pieces; a proposal streams its JSON in two.
            pieces = ("Hel", "lo", " there") if not key else (content[:5], content[5:])
            if key == "answer":
                pieces = ('{"answer": "Hel', "lo", ' there", "cited": []}')
            usage = {"prompt_tokens": 7, "completion_tokens": 3} if not key else {"prompt_tokens": 11, "completion_tokens": 5}
            events = "".join(
                "data: " + json.dumps({"choices": [{"delta": {"content": piece}, "finish_reason": None}]}) + "\n\n"
                for piece in pieces
            )
            events += "data: " + json.dumps({"choices": [{"delta": {}, "finish_reason": "stop"}], "usage": usage}) + "\n\n"
            events += "data: [DONE]\n\n"
            return self.reply(200, events, "text/event-stream")
        answer = {
            "id": "fake", "object": "chat.completion", "model": body.get("model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 5},
        }
        return self.reply(200, json.dumps(answer))


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    server.daemon_threads = True
    print("ready", flush=True)
    server.serve_forever()
