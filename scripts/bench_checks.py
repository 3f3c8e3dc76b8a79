"""Where the browser phase's CPU goes (not a test): each check of the evaluator alone on the
reference solution, then all of them together.

The reference is built once (`npm ci --offline` + `npm run build`); then the browser phase runs
once with no check (Chromium's start and the two gate probes: the floor every run pays), once
per check (`--only <check>`) and once with every check, each in the loopback-only namespace and
without evidence (as the controls' mutants run). For each run it prints the machine's busy CPU
seconds over the run (`/proc/stat`: Python, Playwright's driver and every Chromium process; run it
on a quiet machine), the wall time, and the check's own verdict and duration.

A check run alone pays for what it would otherwise measure on an earlier check's shared visit
(axe, semantics and responsive-layout on no-overflow's), so the per-check rows add up to more
than the "all" row; the difference is what sharing saves.

    .venv/bin/python scripts/bench_checks.py [--checks id,id,...] [--evidence]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from evaluator.checks import CHECKS
from evaluator.controls.materialize import materialize_reference
from records.layout import REPO_ROOT
from records.task import DEFAULT_TASK, load_task
from records.tools import NPM_CACHE, node_path_env
from sandbox import loopback_netns_argv
from sandbox.monitor import machine_busy_seconds

NONE, ALL = "(no check)", "(all checks)"


def build_reference(root: Path) -> Path:
    app = root / "reference"
    materialize_reference(load_task(DEFAULT_TASK), app)
    env = node_path_env()
    cache = root / "npm-cache"
    shutil.copytree(NPM_CACHE, cache)
    env["npm_config_cache"] = str(cache)
    for cmd in (["npm", "ci", "--offline", "--no-audit", "--no-fund"], ["npm", "run", "build"]):
        subprocess.run(cmd, cwd=app, env=env, check=True, capture_output=True)
    return app / "dist"


def run_phase(
    dist: Path, out: Path, only: str | None, evidence: bool
) -> tuple[float, float, dict[str, Any]]:
    phase = out / "phase.json"
    task = load_task(DEFAULT_TASK)
    argv = [sys.executable, "-m", "evaluator.browser_phase", "--dist", str(dist),
            "--out", str(out), "--phase-json", str(phase), "--data", str(task.data),
            "--checks", task.spec.checks]  # fmt: skip
    if only is not None:
        argv += ["--only", only]
    if not evidence:
        argv += ["--no-video", "--no-trace", "--no-screenshots"]
    cpu, start = machine_busy_seconds(), time.monotonic()
    subprocess.run(
        loopback_netns_argv(argv), cwd=REPO_ROOT, env=node_path_env(), check=True,
        capture_output=True,
    )  # fmt: skip
    return machine_busy_seconds() - cpu, time.monotonic() - start, json.loads(phase.read_text())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--checks", default="", help="comma-separated check ids (default: all)")
    parser.add_argument("--evidence", action="store_true", help="with video, trace, screenshots")
    args = parser.parse_args()
    ids = [c for c in args.checks.split(",") if c] or [c.id for c in CHECKS]
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="siteos-bench-checks-") as tmp:
        dist = build_reference(Path(tmp))
        runs: list[tuple[str, str | None]] = [(NONE, "none"), *((i, i) for i in ids), (ALL, None)]
        floor = 0.0
        print(f"{'run':22} {'CPU s':>7} {'- floor':>8} {'wall s':>7}  verdict")
        for n, (label, only) in enumerate(runs):
            out = Path(tmp) / f"out-{n}"
            cpu, wall, phase = run_phase(dist, out, only, args.evidence)
            if label == NONE:
                floor = cpu
            checks = phase.get("checks", [])
            passed = sum(1 for c in checks if c["passed"])
            if label in (NONE, ALL):
                verdict = f"{passed}/{len(checks)} checks passed"
            else:
                mine = next((c for c in checks if c["id"] == label), None)
                verdict = (
                    "not run"
                    if mine is None
                    else (f"{'passed' if mine['passed'] else 'FAILED'} in {mine['duration_s']} s")
                )
            print(f"{label:22} {cpu:7.1f} {cpu - floor:8.1f} {wall:7.1f}  {verdict}", flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
