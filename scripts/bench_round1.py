"""Round 1 wall-clock benchmark (not a test): the demo's Round 1 with N sessions at once.

Needs a finished demo round (what `./scripts/demo` wrote to `evidence/`, or `--demo-evidence`).
For each N it copies that demo round into a scratch evidence folder, writes demo-round-1's cohort
from it (`python -m harness.advance`), and times three parts of `scripts/demo-round-1`:

- before: freeze, calibration, catalogue, spend, preflight, order (`doit`);
- sessions: the 18 scored sessions, `python -m harness.parallel run demo-round-1 -n N`;
- after: evaluation, packets, scoring and the site (`doit -n 2 -P thread`).

    .venv/bin/python scripts/bench_round1.py [--parallel 4 1] [--demo-evidence DIR] [--keep]

Prints one JSON object: seconds per part and N, the load average before and after each part
(the machine's other work shows there), and the model leaderboard's means, which must not
depend on N.
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
sys.path.insert(0, str(ROOT))

from records.layout import EVIDENCE_DIR  # noqa: E402

ROUND = "demo-round-1"
BEFORE = ["freeze", "calibrate", "catalogue", "spend", "preflight", "order"]
AFTER = ["unit", "evaluate", "packets", "score", "site"]


def timed(cmd: list[str], env: dict[str, str], log: Path) -> float:
    start = time.perf_counter()
    with log.open("a") as out:
        subprocess.run(cmd, cwd=ROOT, env=env, check=True, stdout=out, stderr=subprocess.STDOUT)
    return round(time.perf_counter() - start, 1)


def load() -> float:
    return round(os.getloadavg()[0], 1)


def one(n: int, demo_evidence: Path, scratch: Path) -> dict[str, object]:
    evidence = scratch / f"n{n}" / "evidence"
    evidence.mkdir(parents=True)
    shutil.copytree(demo_evidence / "demo", evidence / "demo")
    for name in ("controls.json", "controls"):
        source = demo_evidence / name
        if source.is_dir():
            shutil.copytree(source, evidence / name)
        elif source.is_file():
            shutil.copy2(source, evidence / name)
    env = dict(os.environ, SITEOS_EVIDENCE_DIR=str(evidence), SITEOS_ROUND=ROUND)
    env.pop("OPENROUTER_API_KEY", None)
    log = evidence.parent / "bench.log"
    python = sys.executable
    report: dict[str, object] = {"n": n, "evidence_dir": str(evidence), "log": str(log)}
    timed([python, "-m", "harness.advance", "demo", "--to", ROUND, "--evidence", str(evidence)],
          env, log)  # fmt: skip
    parts = (
        ("before", [python, "-m", "doit", "-n", "2", "-P", "thread", *BEFORE]),
        ("sessions", [python, "-m", "harness.parallel", "run", ROUND, "-n", str(n),
                      "--evidence", str(evidence)]),
        ("after", [python, "-m", "doit", "-n", "2", "-P", "thread", *AFTER]),
    )  # fmt: skip
    total = 0.0
    for name, cmd in parts:
        start_load = load()
        seconds = timed(cmd, env, log)
        total += seconds
        report[f"{name}_s"] = seconds
        report[f"{name}_load"] = [start_load, load()]
    report["total_s"] = round(total, 1)
    board = json.loads((evidence / ROUND / "model-leaderboard.json").read_text())
    report["means"] = {m["model_key"]: m["mean_total"] for m in board["models"]}
    report["standing"] = board["standing"]
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--parallel", type=int, nargs="+", default=[4, 1])
    parser.add_argument("--demo-evidence", type=Path, default=EVIDENCE_DIR)
    parser.add_argument("--keep", action="store_true", help="keep the scratch evidence folders")
    args = parser.parse_args()
    if not (args.demo_evidence / "demo" / "leaderboard.json").is_file():
        sys.exit(f"{args.demo_evidence}/demo/leaderboard.json: run ./scripts/demo first")
    scratch = Path(tempfile.mkdtemp(prefix="siteos-bench-round1-"))
    runs = [one(n, args.demo_evidence, scratch) for n in args.parallel]
    print(json.dumps({"cpus": os.cpu_count(), "runs": runs}, indent=2))
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
