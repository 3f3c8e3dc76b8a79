"""Benchmark (not a timed test): the evaluator's wall time on the reference solution against its
floor, measured first in the same run (`scripts/bench_floor.py`: the build plus what the checks
are specified to load, priced alone — the least wall time any evaluator with the same coverage can
take), as a ratio with all evidence (video, trace, screenshots; target at most 1.6x) and without
(`video`, `trace` and `screenshots` off, as the controls' mutants run; target at most 1.3x); the
ratio against the bare judge (`npm ci --offline` + `npm run build` + one page load) beside it for
reference; plus the evidence's size
on disk and the CPU seconds each run cost: the whole machine's busy time over the run
(`/proc/stat`), because Chromium's renderers and GPU process, which no parent waits for, are most
of it and `getrusage` misses them; so run it on a quiet machine. The same score is expected in
both modes. Note the machine's load when quoting numbers.

    .venv/bin/python scripts/bench_evaluator.py [--runs N] [--no-evidence | --evidence-only]
        [--lanes N]

`--lanes 1` runs the checks one after another (the browser phase's default is one lane per core,
at most two), for a before/after on the same machine.

The bare page load runs Chromium with the same flags inside the same loopback-only namespace.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from evaluator.controls.materialize import materialize_reference
from evaluator.evaluate import evaluate
from records.layout import REPO_ROOT
from records.task import DEFAULT_TASK, load_task
from records.tools import NPM_CACHE, node_path_env
from sandbox import loopback_netns_argv
from sandbox.monitor import machine_busy_seconds

TASK = load_task(DEFAULT_TASK)
PAGE_LOAD = r"""
import sys, threading
from pathlib import Path
from playwright.sync_api import sync_playwright
from evaluator.browser import CHROMIUM_ARGS
from evaluator.serve import StaticServer
from records.tools import CHROMIUM
with StaticServer(Path(sys.argv[1])) as server, sync_playwright() as pw:
    browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    page = browser.new_page()
    page.goto(server.url + "/", wait_until="load")
    browser.close()
"""


def bare(app: Path, work: Path) -> float:
    start = time.monotonic()
    copy = work / "bare"
    shutil.copytree(app, copy, ignore=shutil.ignore_patterns("node_modules", "dist"))
    cache = work / "cache"
    shutil.copytree(NPM_CACHE, cache)
    env = node_path_env()
    env["npm_config_cache"] = str(cache)
    for cmd in (["npm", "ci", "--offline", "--no-audit", "--no-fund"], ["npm", "run", "build"]):
        subprocess.run(cmd, cwd=copy, env=env, check=True, capture_output=True)
    subprocess.run(
        loopback_netns_argv([sys.executable, "-c", PAGE_LOAD, str(copy / "dist")]),
        cwd=REPO_ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    return time.monotonic() - start


def tree_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1)
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--no-evidence", action="store_true", help="only the run without evidence")
    only.add_argument("--evidence-only", action="store_true", help="only the run with evidence")
    parser.add_argument(
        "--lanes", type=int, default=None, help="checks run at once (default: by cores)"
    )
    parser.add_argument("--repeats", type=int, default=12, help="the floor's timings per operation")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_floor import measure_floor  # a sibling script

    floor = measure_floor(args.repeats)
    if floor is None:
        return 1
    modes = [
        m for m in (True, False) if not (m and args.no_evidence or not m and args.evidence_only)
    ]
    bare_times: list[float] = []
    eval_times: dict[bool, list[float]] = {m: [] for m in modes}
    eval_cpu: dict[bool, list[float]] = {m: [] for m in modes}
    scores: dict[bool, set[int]] = {m: set() for m in modes}
    sizes: list[int] = []
    print(
        f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores;"
        f" lanes: {args.lanes or 'by cores'}"
    )
    with tempfile.TemporaryDirectory(prefix="siteos-bench-") as tmp:
        app = Path(tmp) / "reference"
        materialize_reference(TASK, app)
        for i in range(args.runs):
            work = Path(tmp) / f"run{i}"
            work.mkdir()
            bare_times.append(bare(app, work))
            for evidence in modes:
                out = work / ("out" if evidence else "out-bare")
                start, cpu = time.monotonic(), machine_busy_seconds()
                result = evaluate(
                    app,
                    out,
                    task=TASK,
                    video=evidence,
                    trace=evidence,
                    screenshots=evidence,
                    lanes=args.lanes,
                )
                eval_times[evidence].append(time.monotonic() - start)
                eval_cpu[evidence].append(machine_busy_seconds() - cpu)
                scores[evidence].add(result.automated_score)
                if evidence:
                    sizes.append(tree_bytes(out))
                label = "with evidence" if evidence else "no evidence"
                print(
                    f"run {i + 1}: bare {bare_times[-1]:.1f} s, evaluator ({label})"
                    f" {eval_times[evidence][-1]:.1f} s, {eval_cpu[evidence][-1]:.0f} CPU s"
                    f" (score {result.automated_score}/60;"
                    f" phases {result.timings.model_dump()})",
                    flush=True,
                )
    b = statistics.median(bare_times)
    print(f"bare npm ci + build + one page load: {b:.1f} s")
    f = floor["floor_wall_s"]
    print(f"floor (least evaluation wall time with the checks' coverage): {f:.1f} s")
    met = True
    for evidence in modes:
        e = statistics.median(eval_times[evidence])
        target = 1.6 if evidence else 1.3
        met = met and e / f <= target
        label = "with evidence" if evidence else "no evidence"
        print(
            f"evaluator (15 checks, 6 gates, {label}): {e:.1f} s; {e / f:.2f}x the floor"
            f" (target <= {target}x), {e / b:.2f}x the bare judge;"
            f" {statistics.median(eval_cpu[evidence]):.0f} CPU s; scores {sorted(scores[evidence])}"
        )
    print("both ratios within target" if met else "a ratio is above its target")
    if sizes:
        print(f"evidence per unit: {statistics.median(sizes) / 1e6:.1f} MB (target <= 8 MB)")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    same = len({s for v in scores.values() for s in v}) == 1
    print("same score in every run and mode" if same else "SCORES DIFFER between runs or modes")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
