#!/usr/bin/env python3
"""Per-turn latency of the real agents driven directly (no agentry in between), against the
mock model: the baseline to compare agentry's own overhead with.

    tests/e2e/offline.sh python3 tests/e2e/record/measure_direct.py [-n 20] [codex|claude ...]

Per agent, one process: spawn -> initialize answered, then N text turns ("SAY: ..."), each
timed from writing the request to the turn's end (Codex `turn/completed`, Claude `result`).
The first turn is reported apart, since it pays one-time setup.
"""

import argparse
import statistics
import sys
import time

from agents import Claude, Codex
from harness import MockModel, Scratch, agent_paths, warn_if_online


def measure_codex(binary, scratch, mock, n):
    t0 = time.monotonic()
    c = Codex(binary, scratch, mock)
    c.initialize()
    spawn = time.monotonic() - t0
    thread = c.start_thread(scratch.workspace)
    turns = []
    for i in range(n + 1):
        t = time.monotonic()
        c.start_turn(thread, f"SAY: Reply number {i} from the mock model.")
        c.wait_turn_completed()
        turns.append(time.monotonic() - t)
    c.close()
    return spawn, turns


def measure_claude(binary, scratch, mock, n):
    t0 = time.monotonic()
    c = Claude(binary, scratch, mock)
    c.initialize()
    spawn = time.monotonic() - t0
    turns = []
    for i in range(n + 1):
        t = time.monotonic()
        c.send_user(f"SAY: Reply number {i} from the mock model.")
        c.wait_result()
        turns.append(time.monotonic() - t)
    c.close()
    return spawn, turns


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=20, help="timed turns after the first (default 20)")
    ap.add_argument("agents", nargs="*", metavar="codex|claude")
    args = ap.parse_args()
    args.agents = args.agents or ["codex", "claude"]
    if set(args.agents) - {"codex", "claude"}:
        ap.error(f"unknown agent in {args.agents}; use codex and/or claude")
    warn_if_online()
    paths = agent_paths()
    for agent in args.agents:
        scratch = Scratch(f"measure-{agent}")
        mock = MockModel()
        try:
            fn = measure_codex if agent == "codex" else measure_claude
            spawn, turns = fn(paths[agent], scratch, mock, args.n)
        finally:
            mock.stop()
            scratch.cleanup()
        rest = sorted(turns[1:])
        p90 = rest[max(0, int(len(rest) * 0.9) - 1)]
        print(f"{agent:6s} spawn->initialized {spawn * 1000:6.0f} ms | first turn {turns[0] * 1000:5.0f} ms | "
              f"text turn p50 {statistics.median(rest) * 1000:5.0f} ms  p90 {p90 * 1000:5.0f} ms  "
              f"min {rest[0] * 1000:4.0f} ms  max {rest[-1] * 1000:4.0f} ms  (n={len(rest)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
