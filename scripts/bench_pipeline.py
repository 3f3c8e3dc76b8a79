"""Pipeline speed benchmark (not a test): whole demo round, no-op `doit`, site build.

Runs the demo round into a scratch evidence folder so the repository's evidence is untouched:

    .venv/bin/python scripts/bench_pipeline.py [--keep DIR]

Prints one JSON object with seconds for each measurement. Target: the no-op run well under 1 s
of doit time on the demo round.
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

ROOT = Path(__file__).resolve().parent.parent
DOIT = [sys.executable, "-m", "doit"]


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    return round(time.perf_counter() - start, 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keep", type=Path, help="use (and keep) this evidence folder")
    args = parser.parse_args()
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="siteos-bench-"))
    env = dict(os.environ, SITEOS_EVIDENCE_DIR=str(scratch), SITEOS_ROUND="demo")
    report = {"evidence_dir": str(scratch)}
    report["whole_demo_round_s"] = timed([*DOIT, "-n", "2", "-P", "thread"], env)
    report["noop_doit_s"] = timed(DOIT, env)
    report["site_build_s"] = timed([*DOIT, "-a", "site"], env)
    print(json.dumps(report, indent=2))
    if args.keep is None:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
