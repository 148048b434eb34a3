#!/usr/bin/env python3
"""The benchmarks with goals, run in turn and read back as one table.

    scripts/bench-table.py [build-dir]        (default build/default)

Runs the ceiling, stream, run-init, large-store and soak programs of a build with
Google Benchmark's JSON output, then prints each figure beside its goal and beside this
machine's own ceiling measured in the same run (benchmarks/README.md, "The table").
BENCH_QUICK=1 runs everything smaller (a quick look, minutes fewer; the figures are then
rougher). AGENTRY_BENCH_DAEMON=http://host:port drives a daemon elsewhere
(benchmarks/README.md, "Remote daemon"). The JSON and the table stay in
<build-dir>/bench-results/<time>/.
"""

import json
import os
import subprocess
import sys
import time
from datetime import datetime

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
CORES = os.cpu_count() or 1


def program_runs():
    """(program, arguments, environment) in the order they run."""
    stream_cases = ("^BM_Stream/(durable/sse/subs:(1|100)/|deltas/sse/subs:5/|"
                    "latency/ws/notice/subs:100/rate_hz:1000/)")
    return [
        ("ceiling_benchmark", ["--benchmark_min_time=0.1"] if QUICK else [], {}),
        ("stream_delivery_benchmark", ["--benchmark_filter=" + stream_cases],
         {"AGENTRY_STREAM_BENCH_SCALE": os.environ.get("AGENTRY_STREAM_BENCH_SCALE", "0.05" if QUICK else "1")}),
        ("daemon_run_init_benchmark", ["--benchmark_filter=threads:8"], {}),
        ("large_store_benchmark", [], {}),
        ("soak_benchmark", [],
         {"AGENTRY_SOAK_SECONDS": os.environ.get("AGENTRY_SOAK_SECONDS", "5" if QUICK else "20")}),
    ]


def run_program(build, out_dir, index, total, program, args, env):
    """Runs one program, echoing each finished case; its JSON results, or an error string."""
    path = os.path.join(build, "benchmarks", program)
    out = os.path.join(out_dir, program + ".json")
    if not os.access(path, os.X_OK):
        return f"{path} is not built"
    started = time.monotonic()
    print(f"[{index}/{total}] {program} {' '.join(args)}".rstrip(), flush=True)
    command = [path, "--benchmark_out=" + out, "--benchmark_out_format=json"] + args
    log = os.path.join(out_dir, program + ".stderr.log")  # the daemon's and the program's messages
    with open(log, "w") as err, subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, text=True,
                                                 env={**os.environ, **env}) as child:
        for line in child.stdout:
            if line.startswith("BM_"):
                name = line.split()[0]
                print(f"      {time.monotonic() - started:6.0f} s  {name}", flush=True)
    if child.returncode != 0:
        with open(log) as err:
            print("".join(err.readlines()[-10:]), end="", file=sys.stderr)
        return f"{program} exited with {child.returncode} (see {log})"
    with open(out) as f:
        return json.load(f)


def find(results, program, prefix):
    """The first case of `program` whose name starts with `prefix`, or an error string."""
    got = results.get(program)
    if isinstance(got, str):
        return got
    if got is None:
        return "not run"
    for case in got.get("benchmarks", []):
        if case["name"].startswith(prefix):
            if case.get("error_occurred"):
                return "skipped: " + case.get("error_message", "")
            return case
    return f"no case {prefix}"


# --- the ceilings -----------------------------------------------------------------------

def ceilings(results):
    """This machine's limits: loopback bytes/s, its round trip in ms, SQLite rows/s, cores."""
    c = {"cores": CORES}
    tcp = find(results, "ceiling_benchmark", "BM_LoopbackTcpBytes")
    if isinstance(tcp, dict):
        c["tcp_bytes_per_s"] = tcp["bytes_per_second"]
    rtt = find(results, "ceiling_benchmark", "BM_LoopbackRoundTrip")
    if isinstance(rtt, dict):
        c["rtt_ms"] = rtt["real_time"] / {"ns": 1e6, "us": 1e3, "ms": 1.0, "s": 1e-3}[rtt["time_unit"]]
    sqlite = find(results, "ceiling_benchmark", "BM_SqliteTimelineInsert")
    if isinstance(sqlite, dict):
        c["sqlite_rows_per_s"] = sqlite["items_per_second"]
    packed = find(results, "ceiling_benchmark", "BM_SqliteTimelineBatchInsert")
    if isinstance(packed, dict):
        c["sqlite_packed_events_per_s"] = packed["items_per_second"]
    return c


# --- formatting -------------------------------------------------------------------------

def rate(v):
    return f"{v:,.0f}/s"


def millis(v):
    return f"{v:.3f} ms" if v < 1 else f"{v:.2f} ms" if v < 10 else f"{v:.1f} ms"


def mib(v):
    return f"{v:.1f} MiB"


def cores(v):
    return f"{v:.2f} cores"


def goal_text(op, value, fmt):
    """'≥ 1,000,000/s', '< 20 ms': the goal as the issue states it."""
    symbol = {">=": "≥", "<=": "≤", "<": "<"}[op]
    shown = fmt(value) if fmt is rate else f"{value:g} {fmt(value).split()[-1]}"
    return f"{symbol} {shown}"


class Figure:
    """One row: where the figure comes from, its goal, the ceiling it is read against.

    goal: (op, value) with op '>=' or '<=' / '<'; ceiling(case, c) -> (value, text) or None;
    lower_is_better: the ratio is then 'times the floor' rather than 'share of the ceiling'.
    """

    def __init__(self, label, program, prefix, field, fmt, goal=None, goal_text=None, ceiling=None,
                 scale=1.0):
        self.label, self.program, self.prefix, self.field = label, program, prefix, field
        self.fmt, self.goal, self.goal_text, self.ceiling, self.scale = fmt, goal, goal_text, ceiling, scale

    def row(self, results, c):
        case = find(results, self.program, self.prefix)
        goal = self.goal_text or (goal_text(*self.goal, self.fmt) if self.goal else "—")
        if isinstance(case, str):
            return [self.label, case, goal, "—", "—", "—"]
        if self.field not in case:
            return [self.label, f"no {self.field} (remote daemon?)", goal, "—", "—", "—"]
        value = case[self.field] * self.scale
        met = "—"
        if self.goal:
            op, target = self.goal
            met = "yes" if (value >= target if op == ">=" else value <= target if op == "<=" else value < target) else "no"
        if case.get("label", "").startswith("FAIL"):
            met = "FAIL: " + case["label"][5:80]
        ceiling, ratio = "—", "—"
        limit = self.ceiling(case, c) if self.ceiling else None
        if limit and limit[0]:
            ceiling = limit[1]
            r = value / limit[0]
            # A time against its floor: how many times the floor; a rate: its share of the ceiling.
            lower_is_better = self.goal is not None and self.goal[0] != ">="
            ratio = (f"×{r:,.0f}" if r >= 10 else f"×{r:.1f}") if lower_is_better else f"{r:.3f}"
        return [self.label, self.fmt(value), goal, ceiling, ratio, met]


def sqlite_events(_case, c):
    v = c.get("sqlite_packed_events_per_s")
    return (v, f"{rate(v)} SQLite events, 512 a row") if v else None


def sqlite_runs(_case, c):
    v = c.get("sqlite_rows_per_s")
    return (v / 5, f"{rate(v / 5)} (SQLite rows ÷ 5)") if v else None


def tcp_deliveries(case, c):
    v, per = c.get("tcp_bytes_per_s"), case.get("bytes_per_env")
    return (v / per, f"{rate(v / per)} (TCP ÷ {per:.0f} B)") if v and per else None


def round_trip(_case, c):
    v = c.get("rtt_ms")
    return (v, f"{millis(v)} loopback RTT") if v else None


def all_cores(_case, c):
    return (c["cores"], f"{c['cores']} cores")


def exec_floor(case, _c):
    v = case.get("exec_floor_ms")
    return (v, f"{millis(v)} exec") if v else None


def figures():
    ms_per_us = 1e-3
    per_run_goal = CORES / 5000 * 1e3  # ms of daemon CPU per run at 5,000 runs/s on every core
    rows = [
        Figure("durable events/s to 1 SSE subscriber", "stream_delivery_benchmark",
               "BM_Stream/durable/sse/subs:1/", "events_per_s", rate, (">=", 1e6), ceiling=sqlite_events),
        Figure("deliveries/s to 100 SSE subscribers", "stream_delivery_benchmark",
               "BM_Stream/durable/sse/subs:100/", "deliveries_per_s", rate, (">=", 5e6), ceiling=tcp_deliveries),
        Figure("WebSocket, 100 subscribers at 1,000 events/s: p50", "stream_delivery_benchmark",
               "BM_Stream/latency/ws/notice/subs:100/rate_hz:1000/", "p50_us", millis, ("<", 20),
               ceiling=round_trip, scale=ms_per_us),
        Figure("daemon peak RSS, 100,000 deltas to 5 SSE subscribers", "stream_delivery_benchmark",
               "BM_Stream/deltas/sse/subs:5/", "rss_mb", mib, ("<", 64)),
        Figure("run init/s, 8 clients", "daemon_run_init_benchmark", "BM_DaemonRunInit/",
               "items_per_second", rate, (">=", 5000), ceiling=sqlite_runs),
        Figure("daemon CPU per run init, 8 clients", "daemon_run_init_benchmark", "BM_DaemonRunInit/",
               "daemon_cpu_us", millis, ("<=", per_run_goal),
               goal_text=f"≤ {millis(per_run_goal)} (5,000/s on {CORES} cores)", scale=ms_per_us),
        Figure("restart to serving, 100,000 runs", "large_store_benchmark", "BM_Restart",
               "restart_ms", millis, ("<=", 50), ceiling=exec_floor),
        Figure("list of 100 runs at 100,000 runs: p50", "large_store_benchmark", "BM_ListPage",
               "p50_ms", millis, ("<=", 2), ceiling=round_trip),
        Figure("run detail at 100,000 runs: p50", "large_store_benchmark", "BM_RunDetail",
               "p50_ms", millis, ("<=", 0.3), ceiling=round_trip),
        # The daemon's CPU per request: steadier than the times when the machine is busy.
        Figure("daemon CPU per list of 100 runs", "large_store_benchmark", "BM_ListPage",
               "daemon_cpu_us", millis, scale=ms_per_us),
        Figure("daemon CPU per run detail", "large_store_benchmark", "BM_RunDetail",
               "daemon_cpu_us", millis, scale=ms_per_us),
        Figure("idle daemon RSS, 100,000 runs", "large_store_benchmark", "BM_IdleRss",
               "rss_idle_mb", mib, ("<", 32)),
    ]
    for runs in (100, 400):
        prefix = f"BM_Soak/runs:{runs}/"
        soak = f"soak, {runs} runs × 200 events/s"
        rows += [
            Figure(f"{soak}: daemon CPU", "soak_benchmark", prefix, "cpu_cores", cores, ceiling=all_cores),
            Figure(f"{soak}: durable events/s written", "soak_benchmark", prefix, "events_per_s", rate,
                   (">=", runs * 200 * 0.95), goal_text=f"{rate(runs * 200)} asked", ceiling=sqlite_events),
            Figure(f"{soak}: API p99", "soak_benchmark", prefix, "api_p99_ms", millis, ("<", 10),
                   ceiling=round_trip),
            Figure(f"{soak}: daemon peak RSS", "soak_benchmark", prefix, "rss_mb", mib, ("<", 64)),
        ]
    return rows


def table(rows):
    header = ["figure", "measured", "goal", "ceiling", "ratio to ceiling", "met?"]
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(str(v).ljust(w) for v, w in zip(r, widths)) + " |"
    return "\n".join([line(header), "| " + " | ".join("-" * w for w in widths) + " |"] + [line(r) for r in rows])


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build/default"
    out_dir = os.path.join(build, "bench-results", datetime.now().strftime("%Y%m%d-%H%M%S"))
    os.makedirs(out_dir, exist_ok=True)
    remote = os.environ.get("AGENTRY_BENCH_DAEMON")
    print(f"benchmarks of {build}{' (quick)' if QUICK else ''}"
          f"{', driving ' + remote if remote else ''}; results in {out_dir}", flush=True)
    runs = program_runs()
    results = {}
    started = time.monotonic()
    for i, (program, args, env) in enumerate(runs, 1):
        results[program] = run_program(build, out_dir, i, len(runs), program, args, env)
        if isinstance(results[program], str):
            print(f"      {results[program]}", flush=True)
    c = ceilings(results)
    summary = [f"{CORES} cores, load average {os.getloadavg()[0]:.1f} at the end, "
               f"{time.monotonic() - started:.0f} s{', quick scale' if QUICK else ''}."]
    if "tcp_bytes_per_s" in c:
        summary.append(f"Ceilings of this machine: loopback TCP {c['tcp_bytes_per_s'] / 2**30:.2f} GiB/s, "
                       f"loopback round trip {millis(c.get('rtt_ms', 0))}, SQLite "
                       f"{rate(c.get('sqlite_rows_per_s', 0))} timeline rows durably (4,096 a transaction), "
                       f"{rate(c.get('sqlite_packed_events_per_s', 0))} events packed 512 to a row.")
    if remote:
        summary.append(f"The daemon was {remote}; the ceilings are this machine's.")
    text = table([f.row(results, c) for f in figures()]) + "\n\n" + "\n".join(summary) + "\n"
    with open(os.path.join(out_dir, "table.md"), "w") as f:
        f.write(text)
    print()
    print(text, end="")


if __name__ == "__main__":
    main()
