#!/usr/bin/env python3
"""agentry's loopback mock model server for end-to-end tests of real agent CLIs.

Serves, on 127.0.0.1 only, the model APIs of the agents under test, answering from directives
in the prompt (see script.py); one module per API. Python 3 stdlib only.

    POST /v1/responses                 OpenAI Responses (Codex)              openai_responses.py
    POST /v1/messages                  Anthropic Messages (Claude Code)      anthropic_messages.py
    POST /v1/chat/completions          OpenAI Chat Completions (Qwen Code,   openai_chat.py
                                       OpenCode, pi)
    POST /v1beta/models/<m>:streamGenerateContent, :generateContent
                                       Gemini API (Gemini CLI)               gemini_generate.py

The OpenAI and Anthropic paths also work without /v1, and a query string (?beta=true, ?alt=sse)
is ignored. Side endpoints: GET /health, GET /v1/models, POST …/count_tokens, …:countTokens.

    python3 server.py [--port 0] [--log requests.jsonl]

The first stdout line is `listening on 127.0.0.1:<port>` (flushed), so a test can start it with
--port 0 and read the port. Each request is summarised on stderr; with --log every request
body is appended to a JSONL file so tests can assert what the agent sent.
"""

import argparse
import gzip
import itertools
import json
import signal
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import anthropic_messages
import gemini_generate
import openai_chat
import openai_responses
from sse import ClientGone, stall_plain

# Credentials never reach a log, not even a mock's.
_SECRET_HEADERS = {"authorization", "x-api-key", "x-goog-api-key", "cookie"}


class MockServer(ThreadingHTTPServer):
    daemon_threads = True  # a stalled stream must not keep the process alive on shutdown
    allow_reuse_address = True

    def __init__(self, port: int, log_path: str | None):
        super().__init__(("127.0.0.1", port), Handler)
        self._log_path = log_path
        self._lock = threading.Lock()
        self._counter = itertools.count(1)
        self._seq = itertools.count(1)

    def new_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}{next(self._counter):06d}"

    def record(self, entry: dict):
        if not self._log_path:
            return
        with self._lock:
            entry = {"seq": next(self._seq), **entry}
            with open(self._log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry, separators=(",", ":")) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "agentry-mock-model/1"
    body_size = 0

    # -- plain endpoints ---------------------------------------------------------------
    def do_HEAD(self):
        self._plain(200 if self._route() in ("/health", "/") else 404, "", head=True)

    def do_GET(self):
        route = self._route()
        if route in ("/health", "/"):
            self._plain(200, "ok\n")
        elif route == "/v1/models":
            self._json(200, {"object": "list", "data": [{"id": "mock-model", "object": "model",
                                                          "owned_by": "agentry-mock"}]})
        else:
            self._json(404, {"error": {"message": f"mock model: no GET {route}"}})
        self._log_line("-")

    def do_POST(self):
        route = self._route()
        try:
            raw = self._read_body()
            body = json.loads(raw or b"{}")
        except ValueError as e:
            self._log_line(f"bad request body: {e}")
            self._json(400, {"error": {"message": f"mock model: bad request body: {e}"}})
            return
        self.server.record({"time": time.time(), "method": "POST", "path": self.path,
                            "headers": {k.lower(): v for k, v in self.headers.items()
                                        if k.lower() not in _SECRET_HEADERS},
                            "body": body})
        if route in ("/v1/responses", "/responses"):
            self._model_call(openai_responses, body, "codex", body.get("stream", True))
        elif route in ("/v1/messages", "/messages"):
            self._model_call(anthropic_messages, body, "claude", body.get("stream", False))
        elif route in ("/v1/chat/completions", "/chat/completions"):
            self._model_call(openai_chat, body, "chat", body.get("stream", False))
        elif "/models/" in route and route.endswith((":streamGenerateContent", ":generateContent")):
            # Gemini says whether to stream in the path, not the body.
            self._model_call(gemini_generate, body, "gemini", route.endswith(":streamGenerateContent"))
        elif route in ("/v1/messages/count_tokens", "/messages/count_tokens"):
            self._log_line("count_tokens")
            self._json(200, {"input_tokens": max(1, self.body_size // 4)})
        elif "/models/" in route and route.endswith(":countTokens"):
            self._log_line("countTokens")
            self._json(200, {"totalTokens": max(1, self.body_size // 4)})
        else:
            self._log_line("unknown route")
            self._json(404, {"error": {"message": f"mock model: no POST {route}"}})

    # -- model calls ---------------------------------------------------------------------
    def _model_call(self, api, body: dict, who: str, streamed: bool):
        step = api.plan(body)
        model = body.get("model") or "(in path)"  # Gemini names the model in the path
        self._log_line(f"{who} model={model} -> {step.summary()}")
        if step.fail_status is not None:
            self._json(step.fail_status, api.error_body(step.fail_status))
            return
        try:
            if streamed:
                api.stream(self, body, step, self.server.new_id)
            else:
                for action in step.actions:
                    if action.kind == "STALL":
                        stall_plain(self, float(action.arg or 0))
                self._json(200, api.reply(self, body, step, self.server.new_id))
        except ClientGone:
            # Expected when an agent interrupts a turn: it drops the model connection.
            self._log_line("client went away mid-stream")
        self.close_connection = True

    # -- helpers -------------------------------------------------------------------------
    def _route(self) -> str:
        return urlsplit(self.path).path.rstrip("/") or "/"

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            raw = b""
            while (size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)):
                raw += self.rfile.read(size)
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass  # trailers
        else:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        encoding = self.headers.get("Content-Encoding", "").lower()
        if encoding == "gzip":
            raw = gzip.decompress(raw)
        elif encoding == "deflate":
            raw = zlib.decompress(raw)
        elif encoding not in ("", "identity"):
            raise ValueError(f"unsupported Content-Encoding {encoding!r} (stdlib has gzip/deflate only)")
        self.body_size = len(raw)
        return raw

    def _json(self, status: int, obj: dict):
        self._send(status, "application/json", json.dumps(obj).encode())

    def _plain(self, status: int, text: str, head: bool = False):
        self._send(status, "text/plain; charset=utf-8", text.encode(), head)

    def _send(self, status: int, ctype: str, data: bytes, head: bool = False):
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if not head:
                self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _log_line(self, summary: str):
        sys.stderr.write(f"mock-model {time.strftime('%H:%M:%S')} {self.command} {self.path} {summary}\n")
        sys.stderr.flush()

    def log_message(self, fmt, *args):
        pass  # replaced by the one-line summaries of _log_line


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0 = pick a free one)")
    ap.add_argument("--log", metavar="FILE", help="append every request (headers minus secrets, body) as JSONL")
    args = ap.parse_args()
    server = MockServer(args.port, args.log)
    # SIGTERM ends the process cleanly (exit 0) instead of with a traceback.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"listening on 127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except (KeyboardInterrupt, SystemExit):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
