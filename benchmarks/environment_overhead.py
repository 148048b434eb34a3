#!/usr/bin/env python3
"""What an execution environment adds to a run, through the real daemon.

One `agentry serve` (embedded SQLite, a temp home) runs a mock agent whose one step is
`sh -c 'echo hi > out.txt'`, N times per variant, one run at a time, and times each run
from `POST /api/runs` to the run's `success` (polled every 5 ms):

  host          no environment: the baseline
  bubblewrap    kind: bubblewrap, network none
  container     kind: container, lifetime run: each run creates, starts, execs into and
                removes its own container
  container+    kind: container, lifetime group, cleanup never: the group's runs reuse one
                container (the first run, which creates it, is not counted)

Podman runs with the options these machines need (runc, cgroupfs, ulimits); the image is
tests/support/make_container_image.sh's.

    python3 benchmarks/environment_overhead.py --agentry build/default/bin/agentry [-n 20]
"""

import argparse
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ENGINE_ARGS = ["--runtime", "runc", "--cgroup-manager", "cgroupfs"]


def run_args() -> list[str]:
    out = []
    for name, res in (("nofile", resource.RLIMIT_NOFILE), ("nproc", resource.RLIMIT_NPROC)):
        hard = resource.getrlimit(res)[1]
        hard = 4096 if hard == resource.RLIM_INFINITY else min(4096, hard)
        out += ["--ulimit", f"{name}={hard}:{hard}"]
    return out


def http(url: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def timed_run(base: str, agent: str, cwd: str, group: str | None = None) -> tuple[float, str]:
    body = {"agent": agent, "callerCwd": cwd, "overrides": {"message": "go"}}
    if group:
        body["runGroupId"] = group
    began = time.monotonic()
    run = http(f"{base}/api/runs", body)["run"]
    while True:
        status = http(f"{base}/api/runs/{run['runId']}")["run"]
        if status["status"] not in ("running", "ready", "initialized"):
            break
        time.sleep(0.005)
    took = time.monotonic() - began
    if status["status"] != "success":
        raise RuntimeError(f"{agent}: {status['status']}: {status.get('statusReason')}")
    return took, run["runGroupId"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agentry", default=str(REPO / "build/default/bin/agentry"))
    parser.add_argument("-n", type=int, default=20)
    args = parser.parse_args()

    image = subprocess.run([str(REPO / "tests/support/make_container_image.sh"), args.agentry, *ENGINE_ARGS],
                           check=True, capture_output=True, text=True).stdout.strip()
    scratch = Path(tempfile.mkdtemp(prefix="agentry-envbench-"))
    home, config, work = scratch / "home", scratch / "config", scratch / "work"
    for d in (home, config / "environments", work):
        d.mkdir(parents=True)
    container = (f"kind: container\nimage: {image}\nengineArgs: {json.dumps(ENGINE_ARGS)}\n"
                 f"extraRunArgs: {json.dumps(run_args())}\n")
    (config / "environments/sandbox.yaml").write_text("schemaVersion: 1\nkind: bubblewrap\n")
    (config / "environments/box.yaml").write_text("schemaVersion: 1\n" + container)
    (config / "environments/shared.yaml").write_text(
        "schemaVersion: 1\n" + container + "lifetime: group\ncleanup: never\n")
    step = json.dumps({"steps": [{"exec": ["sh", "-c", "echo hi > out.txt"]}]})
    for agent, env in (("host", None), ("bubblewrap", "sandbox"), ("container", "box"), ("reused", "shared")):
        (config / "agents" / agent).mkdir(parents=True)
        (config / "agents" / agent / "agent.md").write_text(
            "---\nschemaVersion: 1\nbackend: mock\nbackendConfig:\n  mock: " + step + "\n" +
            (f"executionEnvironment: {env}\n" if env else "") + "---\nA one-command agent.\n")

    port = free_port()
    daemon = subprocess.Popen([args.agentry, "serve", "--listen", f"ws://127.0.0.1:{port}/"],
                              env={**os.environ, "AGENTRY_HOME": str(home), "AGENTRY_CONFIG_DIR": str(config)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                http(f"{base}/api/daemon")
                break
            except OSError:
                time.sleep(0.05)
        results: dict[str, list[float]] = {}
        for agent in ("host", "bubblewrap", "container"):
            timed_run(base, agent, str(work))  # warm: plugin load, image cache
            results[agent] = [timed_run(base, agent, str(work))[0] for _ in range(args.n)]
        _, group = timed_run(base, "reused", str(work))  # creates the group's container
        results["container+"] = [timed_run(base, "reused", str(work), group)[0] for _ in range(args.n)]
        http(f"{base}/api/containers/cleanup", {"all": True})
    finally:
        daemon.terminate()
        daemon.wait(timeout=30)
        shutil.rmtree(scratch, ignore_errors=True)

    host = statistics.median(results["host"])
    print(f"{'variant':<12} {'median ms':>10} {'p90 ms':>8} {'added ms':>9} {'ratio':>6}   (n={args.n})")
    for name, times in results.items():
        med = statistics.median(times)
        p90 = sorted(times)[int(len(times) * 0.9) - 1]
        print(f"{name:<12} {med * 1000:>10.1f} {p90 * 1000:>8.1f} {(med - host) * 1000:>9.1f} {med / host:>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
