#!/usr/bin/env python3
"""Records golden transcripts of real Claude Code (`claude -p` stream-json) against the mock model.

    tests/e2e/offline.sh python3 tests/e2e/record/record_claude.py [scenario ...]

Writes tests/e2e/golden/claude/<scenario>.jsonl (stdout lines of claude) and
<scenario>.sent.jsonl (stdin lines we wrote), with scratch paths scrubbed to /WORKSPACE and
/HOME. Every process runs with --include-partial-messages (stream_event lines carry the deltas)
and starts with an `initialize` control_request, as a backend plugin would.
"""

import sys
import time
import uuid

from agents import Claude
from harness import DriverError, MockModel, Scratch, agent_paths, save_golden, warn_if_online


def text(binary, scratch, mock):
    c = Claude(binary, scratch, mock)
    c.initialize()
    c.send_user("SAY: Hello from the mock model.")
    result = c.wait_result()
    check(result["is_error"] is False, f"result {result}")
    return [("text", c)]


def bash(binary, scratch, mock):
    # With -p, a Bash call that needs approval is denied silently unless the prompt tool is stdio.
    c = Claude(binary, scratch, mock, extra_args=["--permission-prompt-tool", "stdio"], behavior="allow")
    c.initialize()
    c.send_user("SHELL: echo hi > out.txt\nSAY: done")
    result = c.wait_result()
    check(result["is_error"] is False, f"result {result}")
    check(c.permissions_answered >= 1, "no can_use_tool control_request arrived")
    check((scratch.workspace / "out.txt").read_text() == "hi\n", "out.txt was not written")
    return [("bash", c)]


def interrupt(binary, scratch, mock):
    c = Claude(binary, scratch, mock)
    c.initialize()
    c.send_user("SAY: Starting a long answer\nSTALL: 30\nSAY: never sent")
    c.wait_for(lambda m: m.get("type") == "stream_event"
               and m["event"].get("delta", {}).get("type") == "text_delta")  # mid-stream
    c.control("interrupt")
    result = c.wait_result(timeout=10)
    check(result["subtype"] == "error_during_execution", f"result {result}")
    return [("interrupt", c)]


def api_error(binary, scratch, mock):
    c = Claude(binary, scratch, mock)
    c.initialize()
    c.send_user("FAIL: 500")
    result = c.wait_result()
    # An API error reports subtype "success": is_error is the field that tells.
    check(result["is_error"] is True, f"result {result}")
    return [("api_error", c)]


def resume(binary, scratch, mock):
    session = str(uuid.uuid4())  # known up front; a --resume process names it only after a turn
    first = Claude(binary, scratch, mock, extra_args=["--session-id", session], tag="claude-1")
    first.initialize()
    first.send_user("SAY: First process reply.")
    first.wait_result()
    first.close()
    second = Claude(binary, scratch, mock, extra_args=["--resume", session], tag="claude-2")
    second.initialize()
    second.send_user("SAY: Second process reply.")
    result = second.wait_result()
    check(result["is_error"] is False and result["session_id"] == session, f"result {result}")
    return [("resume.setup", first), ("resume", second)]


SCENARIOS = {f.__name__: f for f in (text, bash, interrupt, api_error, resume)}


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
    binary = agent_paths()["claude"]
    failed = 0
    for name in names:
        scratch = Scratch(f"claude-{name}")
        mock = MockModel(scratch.root / "requests.jsonl")
        started = time.monotonic()
        try:
            for scenario, client in SCENARIOS[name](binary, scratch, mock):
                client.close()
                save_golden("claude", scenario, client.p, scratch, mock.port)
            print(f"claude {name}: ok in {time.monotonic() - started:.2f} s")
            scratch.cleanup()
        except DriverError as e:
            failed += 1
            print(f"claude {name}: FAILED: {e}\n--- mock log:\n{mock.stderr()}\n(kept {scratch.root})", file=sys.stderr)
        finally:
            mock.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
