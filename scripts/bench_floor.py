"""The evaluator's floor (not a test): what the browser work the checks are specified to do costs
at the least, against what the browser phase costs, on the reference solution.

The reference is built once. Then, in the loopback-only namespace and without evidence (as the
controls' mutants run):

1. the browser phase runs once with every check, counting its Playwright calls: page loads
   (`goto`, `reload`, `goBack`, `goForward`), new pages (`newPage`), axe runs and Chromium
   launches, with the machine's busy CPU seconds over the run (`/proc/stat`: Python,
   Playwright's driver and every Chromium process; run it on a quiet machine);
2. each of those operations is timed alone, many times, in one Chromium with the same flags: a
   settled load of the home, catalogue and detail pages on a warm page, a new page with its
   first load, an axe run on a settled page, a Chromium launch and close.

The floor is the counted operations priced at those unit costs: the CPU the phase cannot avoid
while it loads what the checks judge, before it clicks, types or measures anything. Divided by
the cores and added to the build (`scripts/bench_checks.py`'s, timed here), it is
the least wall time an evaluation can take; against the bare judge of
`scripts/bench_evaluator.py` (the build and one page load), the least ratio any change that keeps
the checks' coverage can reach (printed).

    .venv/bin/python scripts/bench_floor.py [--repeats N]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from records.layout import REPO_ROOT
from records.tools import node_path_env
from sandbox import loopback_netns_argv
from sandbox.monitor import machine_busy_seconds

LOADS = ("goto", "reload", "goBack", "goForward")

MEASURE = r"""
import collections, json, sys, time
from pathlib import Path
import playwright._impl.connection as connection
from playwright.sync_api import sync_playwright
import evaluator.browser_phase as phase
from evaluator.check_set import check_set
from evaluator.browser import CHROMIUM_ARGS, run_axe, settle
from evaluator.data import load_venues
from records.task import DEFAULT_TASK, load_task
from evaluator.serve import StaticServer
from records.tools import CHROMIUM
from sandbox.monitor import machine_busy_seconds

dist, out, repeats, loads = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
calls = collections.Counter()
send = connection.Connection.send_message_to_server

def counting(self, owner, method, params, options):
    expression = str(params.get("expression", "")) if isinstance(params, dict) else ""
    calls["axe" if method == "evaluateExpression" and "axe.run(" in expression else method] += 1
    return send(self, owner, method, params, options)

connection.Connection.send_message_to_server = counting
cpu = machine_busy_seconds()
started = time.monotonic()
task = load_task(DEFAULT_TASK)
code = phase.main(["--dist", str(dist), "--out", str(out), "--phase-json", str(out / "phase.json"),
                   "--data", str(task.data), "--checks", task.spec.checks,
                   "--no-video", "--no-trace", "--no-screenshots"])
phase_cpu, phase_wall = machine_busy_seconds() - cpu, time.monotonic() - started
connection.Connection.send_message_to_server = send
record = json.loads((out / "phase.json").read_text())

def cost(action, n):
    cpu = machine_busy_seconds()
    for _ in range(n):
        action()
    return (machine_busy_seconds() - cpu) / n

data = load_venues(task.data)
with StaticServer(dist) as server, sync_playwright() as pw:
    def launch_close():
        pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS).close()
    launch = cost(launch_close, max(2, repeats // 4))
    browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    def load(p, path):
        p.goto(server.url + path, wait_until="load")
        p.wait_for_selector("h1", state="attached")
        settle(p)
    paths = ["/", "/venues", data.ordinary.path]
    load(page, paths[0])
    per_path = [cost(lambda: load(page, path), repeats) for path in paths]
    def fresh():
        p = context.new_page()
        load(p, "/venues")
        p.close()
    first = cost(fresh, repeats)
    load(page, "/venues")
    run_axe(page)
    axe = cost(lambda: run_axe(page), max(2, repeats // 2))
    browser.close()
checks = record.get("checks", [])
print(json.dumps({
    "exit": code, "passed": sum(c["passed"] for c in checks), "checks": len(checks),
    "lanes": len(phase.plan_lanes(list(check_set(task.spec.checks).checks), phase.LANES)),
    "phase_cpu_s": phase_cpu, "phase_wall_s": phase_wall,
    "loads": sum(calls[m] for m in loads), "new_pages": calls["newPage"],
    "axe_runs": calls["axe"],
    "unit_cpu_s": {
        "load": sum(per_path) / len(per_path), "loads_by_path": dict(zip(paths, per_path)),
        "new_page_extra": first - per_path[1], "axe": axe, "launch": launch,
    },
}))
"""


def sibling(name: str) -> Any:
    """Another benchmark script in this folder, as a module (for its bare judge and its build)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    return importlib.import_module(name)


def measure_floor(repeats: int = 12) -> dict[str, Any] | None:
    """Measure and print the floor; returns its figures (`floor_wall_s`: the least evaluation
    wall time, `bare_s`: the bare judge) or None when the reference did not pass every check."""
    cores = os.cpu_count() or 1
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {cores} cores")
    with tempfile.TemporaryDirectory(prefix="siteos-bench-floor-") as tmp:
        # The build as the bare judge times it: the reference copied, its npm cache, install, build.
        cpu, start = machine_busy_seconds(), time.monotonic()
        dist = sibling("bench_checks").build_reference(Path(tmp))
        build_wall, build_cpu = time.monotonic() - start, machine_busy_seconds() - cpu
        bare_s = sibling("bench_evaluator").bare(dist.parent, Path(tmp) / "bare")
        out = Path(tmp) / "out"
        proc = subprocess.run(
            loopback_netns_argv([sys.executable, "-c", MEASURE, str(dist), str(out),
                                 str(repeats), *LOADS]),
            cwd=REPO_ROOT, env=node_path_env(), capture_output=True, text=True,
        )  # fmt: skip
    if proc.returncode != 0:
        print(proc.stderr[-4000:], file=sys.stderr)
        return None
    m = json.loads(proc.stdout.strip().splitlines()[-1])
    if m["exit"] != 0 or m["passed"] != m["checks"]:
        print(f"the reference did not pass every check ({m['passed']}/{m['checks']})")
        return None
    unit = m["unit_cpu_s"]
    parts = {
        f"{m['loads']} page loads x {unit['load'] * 1000:.0f} ms": m["loads"] * unit["load"],
        f"{m['new_pages']} new pages x {unit['new_page_extra'] * 1000:.0f} ms more": m["new_pages"]
        * unit["new_page_extra"],
        f"{m['axe_runs']} axe runs x {unit['axe'] * 1000:.0f} ms": m["axe_runs"] * unit["axe"],
        f"{m['lanes']} Chromium launches x {unit['launch'] * 1000:.0f} ms": m["lanes"]
        * unit["launch"],
    }
    floor_cpu = sum(parts.values())
    floor_wall = build_wall + floor_cpu / min(cores, m["lanes"])
    print(
        f"browser phase, no evidence: {m['passed']}/{m['checks']} checks passed,"
        f" {m['phase_cpu_s']:.1f} CPU s, {m['phase_wall_s']:.1f} s on {m['lanes']} lanes"
    )
    by_path = unit["loads_by_path"].items()
    print("unit CPU per load: " + ", ".join(f"{p} {s * 1000:.0f} ms" for p, s in by_path))
    print("floor of the phase's CPU (what it loads, priced alone):")
    for label, seconds in parts.items():
        print(f"  {label:38} {seconds:6.1f} CPU s")
    share = floor_cpu / m["phase_cpu_s"]
    print(f"  {'total':38} {floor_cpu:6.1f} CPU s ({share:.0%} of the phase)")
    print(f"build (npm ci --offline + npm run build): {build_wall:.1f} s, {build_cpu:.1f} CPU s")
    print(
        f"least evaluation wall time: {floor_wall:.1f} s (the build, then the floor on"
        f" {min(cores, m['lanes'])} cores); the bare judge {bare_s:.1f} s: at least"
        f" {floor_wall / bare_s:.2f}x, with no evidence at all"
    )
    return {"floor_wall_s": floor_wall, "bare_s": bare_s, "floor_cpu_s": floor_cpu}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=12, help="timings per unit operation")
    args = parser.parse_args()
    return 0 if measure_floor(args.repeats) is not None else 1


if __name__ == "__main__":
    raise SystemExit(main())
