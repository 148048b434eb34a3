#!/usr/bin/env python3
"""What a run costs the daemon, per backend, with the real agents against the mock model:

  CPU per agent event   the daemon's CPU time (utime + stime of `agentry serve`) for a long
                        reply minus that for a short one, divided by the difference in the
                        events the run's live timeline stream delivered (deltas included,
                        one SSE viewer attached): the marginal cost of one event, without
                        the fixed cost of starting a run;
  memory per live run   the daemon's RSS with L runs live at once (each agent waiting on a
                        stalled model answer) minus its RSS before them, divided by L: what a
                        live run holds in the daemon (the backend instance, its buffers, the
                        run's state; the agent's own process is not counted).

One daemon (embedded SQLite) per agent, so each plugin is loaded in a fresh process.

    tests/e2e/offline.sh python3 tests/e2e/record/measure_backend_cost.py [-n 3] [--live 4]
        [--agentry BIN] [codex claude claude-acp gemini qwen opencode pi]

Needs the agents scripts/install-agents.sh installs (paths.env) and a built agentry.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from harness import REPO, MockModel, Scratch, warn_if_online
from measure_acp_overhead import agent_setup, free_port, paths_env

TICKS = os.sysconf("SC_CLK_TCK")
LONG_WORDS = 6000  # the mock streams two words a delta: up to 3000 events, so CPU ticks (10 ms) resolve


def http(url: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read())
    except urllib.error.HTTPError as e:
        raise RuntimeError(f"{url}: {e.code} {e.read().decode(errors='replace')[:500]}") from None


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def definition(name: str, bins: dict, mock: MockModel, scratch: Scratch) -> tuple[str, dict]:
    """(backend, backendConfig section) for an agent against the mock."""
    if name == "codex":
        scratch.write_codex_config(mock.openai_url)
        return "codex", {"command": bins["AGENTRY_CODEX_BIN"], "codexHome": str(scratch.codex_home),
                         "env": {"MOCK_API_KEY": "dummy", "HOME": str(scratch.home)}}
    if name == "claude":
        return "claude", {"binary": bins["AGENTRY_CLAUDE_BIN"],
                          "env": {"HOME": str(scratch.home), "ANTHROPIC_BASE_URL": mock.anthropic_url,
                                  "ANTHROPIC_API_KEY": "dummy", "CLAUDE_CODE_MAX_RETRIES": "0"}}
    argv, env = agent_setup(name, bins, mock, scratch.home)
    if name == "pi":
        return "pi", {"command": argv[:1], "args": argv[3:], "env": env}
    return "acp", {"command": argv[:1], "args": argv[1:], "env": env}


class Daemon:
    def __init__(self, agentry: str, scratch: Scratch, backend: str, section: dict):
        config = scratch.root / "config"
        (config / "agents" / "bench").mkdir(parents=True)
        (config / "agents/bench/agent.md").write_text(
            "---\nschemaVersion: 1\nbackend: " + backend + "\nunrestricted: true\nbackendConfig:\n  " + backend +
            ": " + json.dumps(section) + "\n---\nBenchmark agent.\n")
        port = free_port()
        self.proc = subprocess.Popen([agentry, "serve", "--listen", f"ws://127.0.0.1:{port}/"],
                                     env={**os.environ, "AGENTRY_HOME": str(scratch.root / "agentry-home"),
                                          "AGENTRY_CONFIG_DIR": str(config)},
                                     stdout=subprocess.DEVNULL, stderr=open(scratch.root / "daemon.err", "w"))
        self.base = f"http://127.0.0.1:{port}"
        self.api = self.base + "/api"
        self.cwd = scratch.workspace
        for _ in range(400):
            try:
                http(self.api + "/backends")
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the daemon did not start: " + (scratch.root / "daemon.err").read_text()[-2000:])

    def start(self, text: str) -> str:
        return http(self.api + "/runs", {"agent": "bench", "callerCwd": str(self.cwd),
                                         "overrides": {"message": text}})["run"]["runId"]

    def status(self, run: str) -> str:
        return http(f"{self.api}/runs/{run}")["run"]["status"]

    def settle(self, run: str, limit: float = 120) -> str:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            status = self.status(run)
            if status not in ("running", "ready"):
                return status
            time.sleep(0.1)
        raise RuntimeError(f"run {run} did not settle")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def count_stream(base: str, run: str, counted: list, done: threading.Event):
    """Counts the data frames of the run's live timeline stream until `done`."""
    with urllib.request.urlopen(f"{base}/api/runs/{run}/events/timeline", timeout=180) as resp:
        for raw in resp:
            if raw.startswith(b"data:"):
                counted[0] += 1
            if done.is_set():
                return


def measured_turn(d: Daemon, text: str) -> tuple[float, int]:
    """(daemon CPU seconds, events streamed) for one run told `text`."""
    before = cpu_seconds(d.proc.pid)
    run = d.start(text)
    counted, done = [0], threading.Event()
    viewer = threading.Thread(target=count_stream, args=(d.base, run, counted, done), daemon=True)
    viewer.start()
    status = d.settle(run)
    time.sleep(0.3)  # the stream's last frames
    done.set()
    used = cpu_seconds(d.proc.pid) - before
    if status != "success":
        raise RuntimeError(f"run {run} ended {status}")
    return used, counted[0]


def live_runs_memory(d: Daemon, live: int, model_log: Path) -> float:
    """KiB of daemon RSS per live run."""
    time.sleep(1)
    before = rss_kib(d.proc.pid)
    stalled = lambda: model_log.read_text(errors="replace").count("STALL: 90") if model_log.exists() else 0
    asked_before = stalled()
    runs = [d.start("SAY: waiting\nSTALL: 90") for _ in range(live)]
    deadline = time.monotonic() + 120
    while stalled() - asked_before < live and time.monotonic() < deadline:  # every agent waits on the model
        time.sleep(0.25)
    time.sleep(1)
    during = rss_kib(d.proc.pid)
    for run in runs:
        if d.status(run) in ("running", "ready"):
            http(f"{d.api}/runs/{run}/abort", {"reason": "measured"})
    for run in runs:
        d.settle(run)
    if stalled() - asked_before < live:
        raise RuntimeError("not every run reached the model")
    return (during - before) / live


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=3, help="runs of each size per agent")
    ap.add_argument("--live", type=int, default=4, help="runs live at once for the memory figure")
    ap.add_argument("--agentry", default=str(REPO / "build/default/bin/agentry"))
    ap.add_argument("agents", nargs="*", default=["codex", "claude", "claude-acp", "gemini", "qwen", "opencode", "pi"])
    args = ap.parse_args()
    warn_if_online()
    bins = paths_env()
    model_log = Path(tempfile.mkdtemp(prefix="agentry-cost-")) / "model-requests.jsonl"
    mock = MockModel(model_log)
    long_text = "SAY: " + " ".join(f"word{i}" for i in range(LONG_WORDS))
    print(f"{'agent':11} {'events short/long':>17} {'CPU ms short/long':>18} {'µs/event':>9} {'KiB/live run':>13}")
    try:
        for name in args.agents:
            scratch = Scratch("cost-" + name)
            backend, section = definition(name, bins, mock, scratch)
            d = Daemon(args.agentry, scratch, backend, section)
            try:
                measured_turn(d, "SAY: warm-up")  # the plugin loaded, the agent's caches warm
                # Memory first: after the long replies the heap holds freed pages a live run reuses.
                per_run = live_runs_memory(d, args.live, model_log)
                short = [measured_turn(d, "SAY: short reply") for _ in range(args.n)]
                long = [measured_turn(d, long_text) for _ in range(args.n)]
                cpu_s, ev_s = statistics.median(c for c, _ in short), statistics.median(e for _, e in short)
                cpu_l, ev_l = statistics.median(c for c, _ in long), statistics.median(e for _, e in long)
                per_event = (cpu_l - cpu_s) / max(1, ev_l - ev_s) * 1e6
                print(f"{name:11} {ev_s:>8.0f}/{ev_l:<8.0f} {cpu_s * 1e3:>8.0f}/{cpu_l * 1e3:<9.0f} {per_event:>9.0f} "
                      f"{per_run:>13.0f}", flush=True)
            finally:
                d.stop()
                scratch.cleanup()
    finally:
        mock.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
