"""Benchmark (not a timed test): the evaluator's wall time on the reference solution against the
bare minimum any judge pays — `npm ci --offline` + `npm run build` + one page load — as a ratio.
Target: at most 2.0x.

    .venv/bin/python scripts/bench_evaluator.py [--runs N] [--no-evidence]

The bare page load runs Chromium with the same flags inside the same loopback-only namespace.
"""

from __future__ import annotations

import argparse
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
from records.tools import NPM_CACHE, node_path_env
from sandbox import loopback_netns_argv

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


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--no-evidence", action="store_true")
    args = parser.parse_args()
    bare_times, eval_times = [], []
    with tempfile.TemporaryDirectory(prefix="siteos-bench-") as tmp:
        app = Path(tmp) / "reference"
        materialize_reference(app)
        for i in range(args.runs):
            work = Path(tmp) / f"run{i}"
            work.mkdir()
            bare_times.append(bare(app, work))
            start = time.monotonic()
            evidence = not args.no_evidence
            result = evaluate(
                app, work / "out", video=evidence, trace=evidence, screenshots=evidence
            )
            eval_times.append(time.monotonic() - start)
            print(
                f"run {i + 1}: bare {bare_times[-1]:.1f} s, evaluator {eval_times[-1]:.1f} s "
                f"(score {result.automated_score}/60; phases {result.timings.model_dump()})"
            )
    b, e = statistics.median(bare_times), statistics.median(eval_times)
    print(f"bare npm ci + build + one page load: {b:.1f} s")
    print(
        f"evaluator (15 checks, 6 gates{', evidence' if not args.no_evidence else ''}): {e:.1f} s"
    )
    print(f"ratio: {e / b:.2f}x (target <= 2.0x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
