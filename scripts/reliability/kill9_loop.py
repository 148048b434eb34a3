#!/usr/bin/env python3
"""Kill the daemon with SIGKILL while a run streams durable events, again and again.

Each cycle starts `agentry serve` on an ephemeral loopback port, checks what the
previous cycle left behind, starts a mock run that emits durable notices without
pause, follows its timeline over SSE, and SIGKILLs the daemon at a random moment.
After each restart it checks that

  * every timeline event the daemon delivered over SSE is in the store, unchanged
    (agentry publishes an event only after its commit: durable before visible);
  * the SSE stream delivered cursors 1, 2, 3... with no gap and no duplicate;
  * `PRAGMA integrity_check` and `PRAGMA foreign_key_check` pass on the database;
  * the run that was running under the killed daemon is no longer running: startup
    reconciliation ended it as `error` with a `run.controller_reconciled` audit record
    naming the killed daemon's controller, and no run is left `running`.

It prints one line per cycle and a summary, and exits 1 on any lost or changed event
or failed check. It builds nothing: pass the binary of a build that also built the
mock plugin (cmake --build --preset default).

    scripts/reliability/kill9_loop.py [--binary build/default/bin/agentry] [--cycles 100]
"""

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

AGENT_MD = """---
schemaVersion: 1
backend: mock
model: small
backendConfig:
  mock: {{steps: [{{events: {events}, kind: notice, rateHz: {rate}}}]}}
---
Emits numbered notices until it is killed.
"""


class Daemon:
    """One `agentry serve` process in its own process group, killed with it."""

    def __init__(self, binary, env, log_path):
        self.binary, self.env, self.log_path = binary, env, log_path
        self.proc = None
        self.port = None

    def start(self, timeout=30.0):
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [str(self.binary), "serve", "--listen", "ws://127.0.0.1:0/"],
            env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
            start_new_session=True)
        log.close()
        ready = threading.Event()

        # Drains stdout for the daemon's whole life, so a full pipe never blocks it.
        def read_stdout(proc):
            for raw in proc.stdout:
                line = raw.decode(errors="replace").strip()
                if line.startswith("serving on ws://127.0.0.1:") and self.port is None:
                    self.port = int(line.rsplit(":", 1)[1].strip("/"))
                    ready.set()

        self.port = None
        threading.Thread(target=read_stdout, args=(self.proc,), daemon=True).start()
        if not ready.wait(timeout):
            self.kill9()
            raise RuntimeError(f"agentry serve did not print 'serving on ws://...' within {timeout} s; "
                               f"see {self.log_path}")

    def kill9(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        if self.proc:
            self.proc.wait()

    def stop(self, timeout=15.0):
        if not self.proc or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill9()


class Api:
    """JSON requests to the daemon, one connection each."""

    def __init__(self, port):
        self.port = port

    def call(self, method, path, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            headers = {}
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"  # required for mutations (CSRF)
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            text = response.read()
            return response.status, json.loads(text) if text else None
        finally:
            conn.close()

    def ok(self, method, path, body=None, expect=200):
        status, answer = self.call(method, path, body)
        if status != expect:
            raise RuntimeError(f"{method} {path}: {status} {answer}")
        return answer

    def timeline(self, run_id):
        """Every stored timeline event of the run, by cursor."""
        events, after = {}, 0
        while True:
            page = self.ok("GET", f"/api/runs/{run_id}/timeline?after={after}&limit=5000")
            for event in page["events"]:
                events[event["cursor"]] = event
            if not page["events"]:
                return events
            after = page["lastCursor"]

    def audit(self, run_id):
        records, after = [], 0
        while True:
            page = self.ok("GET", f"/api/runs/{run_id}/audit?after={after}&limit=5000")
            records += page["events"]
            if not page["events"]:
                return records
            after = page["lastCursor"]

    def running_runs(self):
        page = self.ok("GET", "/api/runs?global=true&includeArchived=true&limit=500")
        return [r["runId"] for r in page["runs"] if r["status"] == "running"]


class TimelineFollower(threading.Thread):
    """Follows a run's timeline SSE stream and keeps every complete durable event."""

    def __init__(self, port, run_id):
        super().__init__(daemon=True)
        self.port, self.run_id = port, run_id
        self.seen = {}          # cursor -> the event as delivered
        self.last = 0           # the highest cursor delivered
        self.order_errors = []  # cursors that broke 1, 2, 3...
        self.error = None

    def run(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=30) as sock:
                sock.sendall((f"GET /api/runs/{self.run_id}/events/timeline HTTP/1.1\r\n"
                              f"Host: 127.0.0.1:{self.port}\r\nAccept: text/event-stream\r\n\r\n").encode())
                self._read(sock.makefile("rb"))
        except (ConnectionError, socket.timeout, OSError):
            pass  # the daemon was killed: whatever arrived whole is recorded
        except Exception as e:  # noqa: BLE001 - reported with the cycle
            self.error = e

    def _read(self, stream):
        status = stream.readline()
        if b" 200 " not in status:
            raise RuntimeError(f"timeline stream answered {status!r}")
        while stream.readline() not in (b"\r\n", b"\n", b""):
            pass  # response headers
        block = {}
        for raw in stream:
            if not raw.endswith(b"\n"):
                return  # cut off mid-line by the kill: not delivered
            line = raw.rstrip(b"\r\n").decode()
            if line == "":
                self._deliver(block)
                block = {}
            elif not line.startswith(":"):
                field, _, value = line.partition(":")
                block[field] = value[1:] if value.startswith(" ") else value

    def _deliver(self, block):
        if "id" not in block or "data" not in block:
            return  # ephemeral events carry no id and are never stored
        cursor = int(block["id"])
        if cursor != self.last + 1:
            self.order_errors.append(cursor)
        self.last = max(self.last, cursor)
        self.seen[cursor] = json.loads(block["data"])


def integrity(db_path):
    """(integrity_check result, foreign key violations), read beside the live daemon."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=30)
    try:
        result = ", ".join(row[0] for row in conn.execute("PRAGMA integrity_check"))
        fk = conn.execute("PRAGMA foreign_key_check").fetchall()
        return result, len(fk)
    finally:
        conn.close()


def check_previous(api, previous, db_path):
    """Checks of what the killed daemon left; returns (problems, lost, changed, reconciled)."""
    problems = []
    lost = changed = reconciled = 0
    result, fk = integrity(db_path)
    if result != "ok":
        problems.append(f"integrity_check: {result}")
    if fk:
        problems.append(f"foreign_key_check: {fk} violations")
    if previous is None:
        return problems, lost, changed, reconciled, result == "ok" and not fk

    run_id, seen, old_pid = previous["run_id"], previous["seen"], previous["pid"]
    stored = api.timeline(run_id)
    for cursor, event in seen.items():
        if cursor not in stored:
            lost += 1
        elif stored[cursor] != event:
            changed += 1
    if lost:
        problems.append(f"{lost} delivered events missing from the store")
    if changed:
        problems.append(f"{changed} delivered events differ from the stored ones")

    status = api.ok("GET", f"/api/runs/{run_id}")["run"]["status"]
    records = [r for r in api.audit(run_id) if r["type"] == "run.controller_reconciled"]
    by_old = [r for r in records if str(r["data"].get("controllerId", "")).startswith(f"daemon-{old_pid}-")]
    if status == "running":
        problems.append("the killed daemon's run is still running")
    elif status == "error" and any(r["data"].get("decision") == "finalized" for r in by_old):
        reconciled = 1
    else:
        problems.append(f"run ended {status} without a finalized run.controller_reconciled naming "
                        f"daemon-{old_pid}-...: {records}")
    still = api.running_runs()
    if still:
        problems.append(f"runs left running after reconciliation: {still}")
    return problems, lost, changed, reconciled, result == "ok" and not fk


def default_binary():
    for preset in ("default", "debug"):
        candidate = ROOT / "build" / preset / "bin" / "agentry"
        if candidate.exists():
            return candidate
    return ROOT / "build" / "default" / "bin" / "agentry"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", type=Path, default=default_binary())
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--min-kill-ms", type=int, default=50)
    parser.add_argument("--max-kill-ms", type=int, default=800)
    parser.add_argument("--rate-hz", type=int, default=2000, help="durable events per second from the mock agent")
    parser.add_argument("--seed", type=int, default=None, help="for a reproducible sequence of kill delays")
    parser.add_argument("--keep", action="store_true", help="keep the temporary home, config and logs")
    args = parser.parse_args()

    binary = args.binary.resolve()
    if not os.access(binary, os.X_OK):
        sys.exit(f"kill9_loop: {binary} is not an executable; build it first (cmake --build --preset default)")
    plugin = binary.parent.parent / "lib" / "agentry" / "plugins" / "mock.so"
    if not plugin.exists():
        sys.exit(f"kill9_loop: the mock backend {plugin} is missing; build the agentry_plugin_mock target")
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)

    tmp = Path(tempfile.mkdtemp(prefix="agentry-kill9."))
    home, config, work = tmp / "home", tmp / "config", tmp / "work"
    for d in (home, config / "agents" / "streamer", work):
        d.mkdir(parents=True)
    (config / "agents" / "streamer" / "agent.md").write_text(AGENT_MD.format(events=1_000_000, rate=args.rate_hz))
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTRY_")}
    env.update(AGENTRY_HOME=str(home), AGENTRY_CONFIG_DIR=str(config), AGENTRY_LOG_LEVEL="warn")
    log_path = tmp / "daemon.log"
    daemon = Daemon(binary, env, log_path)

    def cleanup(*_):
        daemon.kill9()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)

    signal.signal(signal.SIGTERM, lambda *_: (cleanup(), sys.exit(143)))
    print(f"kill9_loop: {args.cycles} cycles, kills after {args.min_kill_ms}-{args.max_kill_ms} ms, "
          f"{args.rate_hz} events/s, seed {seed}, binary {binary}, home {home}", flush=True)

    totals = dict(acknowledged=0, lost=0, changed=0, order=0, integrity_ok=0, reconciled=0, failed_cycles=0)
    started = time.monotonic()
    previous = None
    try:
        for cycle in range(args.cycles + 1):  # the extra start only checks the last kill
            t0 = time.monotonic()
            daemon.start()
            api = Api(daemon.port)
            problems, lost, changed, reconciled, ok = check_previous(api, previous, home / "agentry.db")
            totals["lost"] += lost
            totals["changed"] += changed
            totals["reconciled"] += reconciled
            totals["integrity_ok"] += 1 if ok else 0
            if previous is not None:
                problems = previous["problems"] + problems
                totals["failed_cycles"] += 1 if problems else 0
                print(f"cycle {cycle:3d}: killed after {previous['delay_ms']:3d} ms, {len(previous['seen']):5d} events "
                      f"acknowledged, lost {lost}, changed {changed}, integrity {'ok' if ok else 'FAILED'}, "
                      f"reconciled {reconciled}; run {previous['cycle_s']:.2f} s, restart and checks "
                      f"{time.monotonic() - t0:.2f} s" + (f"  PROBLEMS: {'; '.join(problems)}" if problems else ""),
                      flush=True)
            if cycle == args.cycles:
                break

            t1 = time.monotonic()
            body = {"agent": "streamer", "callerCwd": str(work), "overrides": {"message": f"cycle {cycle}"}}
            run = api.ok("POST", "/api/runs", body, expect=201)["run"]
            follower = TimelineFollower(daemon.port, run["runId"])
            follower.start()
            delay_ms = rng.randint(args.min_kill_ms, args.max_kill_ms)
            time.sleep(delay_ms / 1000)
            pid = daemon.proc.pid
            daemon.kill9()
            # The socket ends at what the kernel still held for it; reading that may take a while.
            follower.join(120)
            seen = dict(follower.seen)  # a copy: a reader still running must not change it under the checks
            problems = []
            if follower.is_alive():
                problems.append("the timeline reader did not finish within 120 s of the kill")
            if run["status"] != "running":
                problems.append(f"the run started as {run['status']}, not running")
            if follower.error:
                problems.append(f"timeline stream: {follower.error}")
            if follower.order_errors:
                problems.append(f"stream cursors out of order at {follower.order_errors[:5]}")
            totals["order"] += len(follower.order_errors)
            totals["acknowledged"] += len(seen)
            previous = dict(run_id=run["runId"], seen=seen, pid=pid, delay_ms=delay_ms,
                            problems=problems, cycle_s=time.monotonic() - t1)
        daemon.stop()
    finally:
        cleanup()

    elapsed = time.monotonic() - started
    print(f"kill9_loop: {args.cycles} cycles in {elapsed:.0f} s; events acknowledged {totals['acknowledged']}, "
          f"lost {totals['lost']}, changed {totals['changed']}, stream order errors {totals['order']}; "
          f"integrity ok {totals['integrity_ok']}/{args.cycles + 1}; runs reconciled "
          f"{totals['reconciled']}/{args.cycles}; cycles with problems {totals['failed_cycles']}", flush=True)
    if args.keep:
        print(f"kill9_loop: kept {tmp}")
    return 1 if totals["failed_cycles"] or totals["lost"] or totals["changed"] else 0


if __name__ == "__main__":
    sys.exit(main())
