"""Shared plumbing for the recording and measuring drivers: the mock model process, isolated
scratch directories, a JSONL child process with a reader thread, and golden-file scrubbing.
"""

import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

E2E = Path(__file__).resolve().parent.parent
MOCK_SERVER = E2E / "mock_model" / "server.py"
CODEX_CONFIG = E2E / "fixtures" / "codex-config.toml"
GOLDEN = E2E / "golden"
REPO = E2E.parent.parent

# What agent-env.sh exports; repeated here so a driver also works when it was not sourced.
AGENT_ENV = {
    "MOCK_API_KEY": "dummy",
    "ANTHROPIC_API_KEY": "dummy",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_MAX_RETRIES": "0",
}


class DriverError(Exception):
    pass


def agent_paths() -> dict:
    """Native binary paths from scripts/install-agents.sh (runs it; it is a no-op when installed)."""
    if os.environ.get("AGENTRY_CODEX_BIN") and os.environ.get("AGENTRY_CLAUDE_BIN"):
        return {"codex": os.environ["AGENTRY_CODEX_BIN"], "claude": os.environ["AGENTRY_CLAUDE_BIN"]}
    proc = subprocess.run([str(REPO / "scripts" / "install-agents.sh")], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(proc.returncode)
    env = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    return {"codex": env["AGENTRY_CODEX_BIN"], "claude": env["AGENTRY_CLAUDE_BIN"]}


def warn_if_online():
    if os.environ.get("AGENTRY_OFFLINE_ACTIVE") != "1":
        sys.stderr.write("NOTE: not running under tests/e2e/offline.sh; nothing stops an agent from "
                         "reaching the network\n")


class Scratch:
    """Per-recording directories. Under /var/tmp, not /tmp: Codex warns (and skips its PATH
    helper aliases) when CODEX_HOME is under the temporary dir."""

    def __init__(self, name: str):
        base = "/var/tmp" if os.path.isdir("/var/tmp") else None
        self.root = Path(tempfile.mkdtemp(prefix=f"agentry-{name}-", dir=base)).resolve()
        self.workspace = self.root / "ws"
        self.codex_home = self.root / "codex-home"
        self.home = self.root / "home"
        for d in (self.workspace, self.codex_home, self.home):
            d.mkdir()

    def write_codex_config(self, base_url: str):
        text = CODEX_CONFIG.read_text().replace("@MOCK_BASE_URL@", base_url)
        (self.codex_home / "config.toml").write_text(text)

    def cleanup(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def scrub(self, line: str, port: int | None = None) -> str:
        """Replaces machine-specific paths (and the mock's port) with stable placeholders."""
        pairs = [(str(self.workspace), "/WORKSPACE"), (str(self.codex_home), "/CODEX_HOME"),
                 (str(self.home), "/HOME"), (str(self.root), "/SCRATCH")]
        # Claude Code names a project's folder after its cwd with every non-alphanumeric as '-'.
        pairs += [(re.sub(r"[^A-Za-z0-9]", "-", p), r.replace("/", "-")) for p, r in pairs]
        for path, placeholder in pairs:
            line = line.replace(path, placeholder)
        # Claude Code's per-process socket is named after its pid.
        line = re.sub(r"/tmp/cc-socks/\d+\.sock", "/tmp/cc-socks/PID.sock", line)
        if port is not None:
            line = line.replace(f"127.0.0.1:{port}", "127.0.0.1:MOCKPORT")
        return line


class MockModel:
    """The mock model server as a child process; it must run in the driver's network namespace."""

    def __init__(self, log_file: Path | None = None):
        args = [sys.executable, str(MOCK_SERVER), "--port", "0"]
        if log_file:
            args += ["--log", str(log_file)]
        self._stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self._stderr, text=True)
        first = self.proc.stdout.readline().strip()
        if not first.startswith("listening on 127.0.0.1:"):
            raise DriverError(f"mock model did not start: {first!r}")
        self.port = int(first.rsplit(":", 1)[1])
        self.anthropic_url = f"http://127.0.0.1:{self.port}"
        self.openai_url = f"http://127.0.0.1:{self.port}/v1"

    def stderr(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=5)


class JsonlProcess:
    """A child speaking one JSON object per line on stdin/stdout; keeps every line both ways."""

    def __init__(self, argv: list[str], cwd: Path, env: dict, stderr_path: Path):
        self._stderr_path = stderr_path
        self._stderr_file = open(stderr_path, "wb")
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr_file, text=True, bufsize=1)
        self.received: list[str] = []  # raw server->client lines, in order
        self.sent: list[str] = []      # raw client->server lines, in order
        self._inbox: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            if not line:
                continue
            self.received.append(line)
            try:
                self._inbox.put(json.loads(line))
            except ValueError:
                self._inbox.put({"_unparsed": line})
        self._inbox.put(None)  # EOF

    def send(self, msg: dict):
        line = json.dumps(msg, separators=(",", ":"))
        self.sent.append(line)
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def next(self, timeout: float) -> dict | None:
        """The next message, or None at EOF. Raises DriverError on timeout."""
        try:
            return self._inbox.get(timeout=timeout)
        except queue.Empty:
            raise DriverError(f"no output within {timeout} s; stderr tail:\n{self.stderr_tail()}") from None

    def close(self, timeout: float = 15) -> int:
        """Closes stdin (both agents exit on EOF), drains output, returns the exit code."""
        if self.proc.returncode is not None and self._stderr_file.closed:
            return self.proc.returncode  # already closed
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            rc = self.proc.wait(timeout=5)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # let the reader thread finish the last lines
            try:
                if self._inbox.get(timeout=0.2) is None:
                    break
            except queue.Empty:
                continue
        self._stderr_file.close()
        return rc

    def stderr_tail(self, n: int = 30) -> str:
        try:
            return "\n".join(self._stderr_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""


def save_golden(agent: str, scenario: str, proc: JsonlProcess, scratch: Scratch, port: int):
    out = GOLDEN / agent
    out.mkdir(parents=True, exist_ok=True)
    for suffix, lines in ((".jsonl", proc.received), (".sent.jsonl", proc.sent)):
        text = "".join(scratch.scrub(line, port) + "\n" for line in lines)
        (out / f"{scenario}{suffix}").write_text(text)
    print(f"  wrote golden/{agent}/{scenario}.jsonl ({len(proc.received)} lines) and .sent.jsonl "
          f"({len(proc.sent)} lines)")


def child_env(extra: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "CODEX_", "CLAUDE_"))}
    env.update(AGENT_ENV)
    env.update(extra)
    return env
