"""Writes Server-Sent Events to a client and notices when the client has gone away.

Both agents drop the model connection when a turn is interrupted; the mock must then stop
quietly instead of stalling a thread for the rest of a STALL or printing a traceback.
"""

import json
import select
import socket
import time


class ClientGone(Exception):
    pass


class SseWriter:
    def __init__(self, handler):
        self._h = handler

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
        self._write(f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n")

    def comment(self, text: str = "keep-alive"):
        self._write(f": {text}\n\n")

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
