#!/usr/bin/env python3
"""Records golden transcripts of the real `codex app-server` (stdio) against the mock model.

    tests/e2e/offline.sh python3 tests/e2e/record/record_codex.py [scenario ...]

Writes tests/e2e/golden/codex/<scenario>.jsonl (server->client lines) and <scenario>.sent.jsonl
(client->server lines), with scratch paths scrubbed to /WORKSPACE and /CODEX_HOME. Each
scenario gets its own CODEX_HOME, workspace and mock model process.
"""

import sys
import time

from agents import Codex
from harness import DriverError, MockModel, Scratch, agent_paths, save_golden, warn_if_online


def text(binary, scratch, mock):
    c = Codex(binary, scratch, mock)
    c.initialize()
    thread = c.start_thread(scratch.workspace)
    c.start_turn(thread, "SAY: Hello from the mock model.")
    turn = c.wait_turn_completed()
    check(turn["status"] == "completed", f"turn status {turn['status']}")
    return [("text", c)]


def shell(binary, scratch, mock):
    c = Codex(binary, scratch, mock)
    c.initialize()
    thread = c.start_thread(scratch.workspace)
    c.start_turn(thread, "SHELL: echo hi > out.txt\nSAY: done")
    turn = c.wait_turn_completed()
    check(turn["status"] == "completed", f"turn status {turn['status']}")
    check((scratch.workspace / "out.txt").read_text() == "hi\n", "out.txt was not written")
    return [("shell", c)]


def approval(binary, scratch, mock):
    c = Codex(binary, scratch, mock, decision="accept")
    c.initialize()
    thread = c.start_thread(scratch.workspace, approval_policy="untrusted")
    c.start_turn(thread, "SHELL: touch approved.txt\nSAY: approved and done")
    turn = c.wait_turn_completed()
    check(turn["status"] == "completed", f"turn status {turn['status']}")
    check(c.approvals_answered >= 1, "no approval request arrived")
    check((scratch.workspace / "approved.txt").exists(), "approved.txt was not created")
    return [("approval", c)]


def interrupt(binary, scratch, mock):
    c = Codex(binary, scratch, mock)
    c.initialize()
    thread = c.start_thread(scratch.workspace)
    turn_id = c.start_turn(thread, "SAY: Starting a long answer\nSTALL: 30\nSAY: never sent")
    c.wait_for("item/agentMessage/delta")  # the reply is streaming: interrupt mid-turn
    c.request("turn/interrupt", {"threadId": thread, "turnId": turn_id})
    turn = c.wait_turn_completed(timeout=10)
    check(turn["status"] == "interrupted", f"turn status {turn['status']}")
    return [("interrupt", c)]


def fail(binary, scratch, mock):
    c = Codex(binary, scratch, mock)
    c.initialize()
    thread = c.start_thread(scratch.workspace)
    c.start_turn(thread, "FAIL: 500")
    turn = c.wait_turn_completed()
    check(turn["status"] == "failed", f"turn status {turn['status']}")
    return [("fail", c)]


def resume(binary, scratch, mock):
    first = Codex(binary, scratch, mock, tag="codex-1")
    first.initialize()
    thread = first.start_thread(scratch.workspace)
    first.start_turn(thread, "SAY: First process reply.")
    first.wait_turn_completed()
    first.close()
    second = Codex(binary, scratch, mock, tag="codex-2")  # a new process, same CODEX_HOME
    second.initialize()
    check(second.resume_thread(thread, scratch.workspace) == thread, "resume returned another thread id")
    second.start_turn(thread, "SAY: Second process reply.")
    turn = second.wait_turn_completed()
    check(turn["status"] == "completed", f"turn status {turn['status']}")
    return [("resume.setup", first), ("resume", second)]


SCENARIOS = {f.__name__: f for f in (text, shell, approval, interrupt, fail, resume)}


def check(ok: bool, what: str):
    if not ok:
        raise DriverError(what)


def main(argv: list[str]) -> int:
    names = argv or list(SCENARIOS)
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        print(f"unknown scenario(s) {unknown}; known: {list(SCENARIOS)}", file=sys.stderr)
        return 64
    warn_if_online()
    binary = agent_paths()["codex"]
    failed = 0
    for name in names:
        scratch = Scratch(f"codex-{name}")
        mock = MockModel(scratch.root / "requests.jsonl")
        started = time.monotonic()
        try:
            clients = SCENARIOS[name](binary, scratch, mock)
            for scenario, client in clients:
                client.close()
                save_golden("codex", scenario, client.p, scratch, mock.port)
            print(f"codex {name}: ok in {time.monotonic() - started:.2f} s")
            scratch.cleanup()
        except DriverError as e:
            failed += 1
            print(f"codex {name}: FAILED: {e}\n--- mock log:\n{mock.stderr()}\n(kept {scratch.root})", file=sys.stderr)
        finally:
            mock.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
