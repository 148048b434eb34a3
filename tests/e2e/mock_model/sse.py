"""Writes Server-Sent Events to a client and notices when the client has gone away.

Both agents drop the model connection when a turn is interrupted; the mock must then stop
quietly instead of stalling a thread for the rest of a STALL or printing a traceback.
"""

import json
import select
import socket
import time

import script


class ClientGone(Exception):
    pass


class SseWriter:
    """`newline` ends each line: "\n" for most APIs; Gemini's own server sends "\r\n"."""

    def __init__(self, handler, newline: str = "\n"):
        self._h = handler
        self._nl = newline

    def start(self):
        h = self._h
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Cache-Control", "no-cache")
        # The body ends when the connection closes: simplest framing both agents accept.
        h.send_header("Connection", "close")
        h.end_headers()
        h.close_connection = True
        self._flush()

    def event(self, name: str, data: dict):
        nl = self._nl
        self._write(f"event: {name}{nl}data: {json.dumps(data, separators=(',', ':'))}{nl}{nl}")

    def data(self, data):
        """An unnamed event (Chat Completions, Gemini): a JSON object, or a literal such as [DONE]."""
        text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
        self._write(f"data: {text}{self._nl}{self._nl}")

    def comment(self, text: str = "keep-alive"):
        self._write(f": {text}{self._nl}{self._nl}")

    def stall(self, seconds: float, keepalive):
        """Sleeps `seconds`, calling keepalive() every 0.25 s so a dropped client is noticed."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            time.sleep(min(0.25, left))
            keepalive()

    def _write(self, text: str):
        try:
            self._h.wfile.write(text.encode())
        except (BrokenPipeError, ConnectionResetError, OSError) as e:
            raise ClientGone() from e
        self._flush()

    def _flush(self):
        try:
            self._h.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError) as e:
            raise ClientGone() from e


def stream_actions(out: SseWriter, actions: list, delta) -> str:
    """Streams the SAY texts of a step through delta(piece), several pieces each, and runs its
    STALLs with keep-alive comments; returns the full text."""
    text = ""
    for action in actions:
        if action.kind == "STALL":
            out.stall(float(action.arg or 0), out.comment)
            continue
        piece = ("\n\n" if text else "") + action.arg
        for chunk in script.chunks(piece):
            delta(chunk)
        text += piece
    if not text:  # a step of STALLs only must still end with a non-empty message
        text = "(stall over)"
        delta(text)
    return text


def stall_plain(handler, seconds: float):
    """A STALL before a non-streamed reply: nothing can be sent while the answer is pending, so
    the connection is watched instead; a client that closes it ends the wait (ClientGone)."""
    conn = handler.connection
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        readable, _, _ = select.select([conn], [], [], min(0.1, left))
        if readable:
            try:
                if conn.recv(1, socket.MSG_PEEK) == b"":
                    raise ClientGone()
            except OSError as e:
                raise ClientGone() from e
            time.sleep(min(0.1, max(0.0, deadline - time.monotonic())))  # data, not EOF: keep waiting
