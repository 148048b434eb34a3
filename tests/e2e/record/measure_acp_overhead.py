#!/usr/bin/env python3
"""What agentry adds to a one-turn run of the agents the acp and pi backends drive: the same
turn ("SAY: ...") against the mock model, N times each way, median wall time:

  direct   spawn the agent, speak its protocol (ACP; pi's RPC mode), one prompt, stdin
           closed, until it exits;
  daemon   POST /api/runs to a serving agentry (embedded SQLite) whose agent runs that same
           command through the backend, until the run is `success`.

    tests/e2e/offline.sh python3 tests/e2e/record/measure_acp_overhead.py [-n 5] [--agentry BIN]
        [claude-acp gemini qwen opencode pi]

Needs the agents scripts/install-agents.sh installs (paths.env) and a built agentry.
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from harness import REPO, JsonlProcess, MockModel, Scratch, warn_if_online


def paths_env() -> dict:
    out = subprocess.run([str(REPO / "scripts" / "install-agents.sh")], capture_output=True, text=True, check=True)
    return dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)


def agent_setup(name: str, bins: dict, mock: MockModel, home: Path) -> tuple[list, dict]:
    """(argv, env) that point the agent at the mock, offline (as tests/e2e/acp_agents_test.cpp)."""
    env = {"HOME": str(home)}
    if name == "claude-acp":
        env.update({"IS_SANDBOX": "1", "ANTHROPIC_BASE_URL": mock.anthropic_url, "ANTHROPIC_API_KEY": "dummy",
                    "CLAUDE_CODE_MAX_RETRIES": "0", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                    "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
                    "CLAUDE_CODE_EXECUTABLE": bins["AGENTRY_CLAUDE_BIN"]})
        return [bins["AGENTRY_CLAUDE_ACP_BIN"]], env
    if name == "gemini":
        (home / ".gemini").mkdir(exist_ok=True)
        (home / ".gemini/settings.json").write_text(json.dumps({
            "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False, "maxAttempts": 1},
            "model": {"name": "gemini-2.5-flash"}, "security": {"auth": {"selectedType": "gemini-api-key"}}}))
        env.update({"GEMINI_API_KEY": "dummy", "GOOGLE_GEMINI_BASE_URL": mock.anthropic_url})
        return [bins["AGENTRY_GEMINI_BIN"], "--acp"], env
    if name == "qwen":
        (home / ".qwen").mkdir(exist_ok=True)
        (home / ".qwen/settings.json").write_text(json.dumps({
            "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
            "general": {"enableAutoUpdate": False},
            "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False, "enableAutoSkill": False},
            "security": {"auth": {"selectedType": "openai"}},
            "model": {"name": "mock-model", "generationConfig": {"maxRetries": 0}},
            "ui": {"enableFollowupSuggestions": False}}))
        env.update({"OPENAI_API_KEY": "dummy", "OPENAI_BASE_URL": mock.openai_url})
        return [bins["AGENTRY_QWEN_BIN"], "--acp", "--approval-mode", "default"], env
    if name == "opencode":
        env["OPENCODE_CONFIG_CONTENT"] = json.dumps({
            "model": "mock/mock-model", "small_model": "mock/mock-model", "autoupdate": False, "share": "disabled",
            "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "Mock",
                                  "options": {"baseURL": mock.openai_url, "apiKey": "dummy"},
                                  "models": {"mock-model": {"name": "Mock Model"}}}}})
        for off in ("MODELS_FETCH", "AUTOUPDATE", "DEFAULT_PLUGINS", "LSP_DOWNLOAD", "SHARE"):
            env["OPENCODE_DISABLE_" + off] = "1"
        env["npm_config_registry"] = mock.anthropic_url + "/npm-registry-blocked/"
        return [bins["AGENTRY_OPENCODE_BIN"], "acp"], env
    if name == "pi":
        (home / ".pi/agent").mkdir(parents=True, exist_ok=True)
        (home / ".pi/agent/models.json").write_text(json.dumps({"providers": {"mock": {
            "baseUrl": mock.openai_url, "api": "openai-completions", "apiKey": "dummy",
            "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [{"id": "mock-model", "name": "Mock", "reasoning": False, "input": ["text"],
                        "contextWindow": 128000, "maxTokens": 4096}]}}}))
        env["PI_OFFLINE"] = "1"
        return [bins["AGENTRY_PI_BIN"], "--mode", "rpc", "--provider", "mock", "--model", "mock-model"], env
    raise SystemExit(f"unknown agent {name}")


def direct_turn(name: str, argv: list, env: dict, scratch: Scratch, text: str) -> float:
    t0 = time.monotonic()
    proc = JsonlProcess(argv, scratch.workspace, {**os.environ, **env}, scratch.root / "stderr.txt")

    def until(pred, timeout=90):
        while True:
            msg = proc.next(timeout)
            if msg is None:
                raise RuntimeError("the agent ended early: " + proc.stderr_tail())
            if pred(msg):
                return msg

    if name == "pi":
        proc.send({"id": "p", "type": "prompt", "message": text})
        until(lambda m: m.get("type") == "agent_end")
    else:
        proc.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False},
                                                         "terminal": False}}})
        until(lambda m: m.get("id") == 1)
        proc.send({"jsonrpc": "2.0", "id": 2, "method": "session/new",
                   "params": {"cwd": str(scratch.workspace), "mcpServers": []}})
        session = until(lambda m: m.get("id") == 2)["result"]["sessionId"]
        proc.send({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
                   "params": {"sessionId": session, "prompt": [{"type": "text", "text": text}]}})
        until(lambda m: m.get("id") == 3)
    # Measured like the backend ends an attempt: stdin closed, the agent's exit (or a stop).
    proc.close(timeout=3)
    return time.monotonic() - t0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(url: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def daemon_turn(api: str, agent: str, cwd: Path, text: str) -> float:
    t0 = time.monotonic()
    run = http(api + "/runs", {"agent": agent, "callerCwd": str(cwd), "overrides": {"message": text}})["run"]["runId"]
    while True:
        status = http(f"{api}/runs/{run}")["run"]["status"]
        if status != "running" and status != "ready":
            break
        time.sleep(0.005)
    took = time.monotonic() - t0
    if status != "success":
        raise RuntimeError(f"run {run} ended {status}")
    return took


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=5)
    ap.add_argument("--agentry", default=str(REPO / "build/default/bin/agentry"))
    ap.add_argument("agents", nargs="*", default=["claude-acp", "gemini", "qwen", "opencode", "pi"])
    args = ap.parse_args()
    warn_if_online()
    bins = paths_env()
    mock = MockModel()
    print(f"{'agent':12} {'direct s':>9} {'daemon s':>9} {'ratio':>6}   (median of {args.n}, one SAY turn)")
    try:
        for name in args.agents:
            scratch = Scratch("overhead-" + name)
            argv, env = agent_setup(name, bins, mock, scratch.home)
            direct = [direct_turn(name, argv, env, scratch, f"SAY: direct {i}") for i in range(args.n)]
            config = scratch.root / "config"
            backend = "pi" if name == "pi" else "acp"
            section = ({"command": argv[:1], "args": argv[1:] if name != "pi" else [], "env": env} if backend == "acp"
                       else {"command": argv[:1], "args": argv[3:], "env": env})
            (config / "agents" / "bench").mkdir(parents=True)
            (config / "agents/bench/agent.md").write_text(
                "---\nschemaVersion: 1\nbackend: " + backend + "\nbackendConfig:\n  " + backend + ": " +
                json.dumps(section) + "\n---\nBenchmark agent.\n")
            port = free_port()
            daemon = subprocess.Popen([args.agentry, "serve", "--listen", f"ws://127.0.0.1:{port}/"],
                                      env={**os.environ, "AGENTRY_HOME": str(scratch.root / "agentry-home"),
                                           "AGENTRY_CONFIG_DIR": str(config)},
                                      stdout=subprocess.DEVNULL, stderr=open(scratch.root / "daemon.err", "w"))
            api = f"http://127.0.0.1:{port}/api"
            for _ in range(200):
                try:
                    http(api + "/backends")
                    break
                except OSError:
                    time.sleep(0.05)
            try:
                through = [daemon_turn(api, "bench", scratch.workspace, f"SAY: daemon {i}") for i in range(args.n)]
            finally:
                daemon.terminate()
                daemon.wait(timeout=20)
            d, t = statistics.median(direct), statistics.median(through)
            print(f"{name:12} {d:9.2f} {t:9.2f} {t / d:6.2f}x", flush=True)
            scratch.cleanup()
    finally:
        mock.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
