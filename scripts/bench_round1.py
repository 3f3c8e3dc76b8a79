"""Round 1 wall-clock benchmark (not a test): the demo's Round 1 with N sessions at once.

Needs a finished showcase round (what `./scripts/demo --full` wrote to `evidence/`, or
`--demo-evidence`). The first N runs the whole of `scripts/demo-round-1`'s round in a scratch
evidence folder (the showcase round copied in, demo-round-1's cohort written from it by
`python -m harness.advance`), in three timed parts:

- before: freeze, calibration, catalogue, spend, preflight, order (`doit`);
- sessions: the 18 scored sessions, `python -m harness.parallel run demo-round-1 -n N`;
- after: evaluation, packets, scoring and the site (`doit -n 2 -P thread`).

Every later N repeats only the sessions (the one part N changes), on a copy of the first run's
evidence as it was before its sessions; the other parts do the same work whatever N is.

    .venv/bin/python scripts/bench_round1.py [--parallel 4 1] [--demo-evidence DIR] [--keep]

Prints one JSON object: seconds per part and N, the load average before and after each part
(the machine's other work shows there), each unit's stop status (which must not depend on N) and
the first run's model leaderboard means.
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


def stop_statuses(evidence: Path) -> dict[str, str]:
    units = evidence / ROUND / "units"
    return {
        u.name: json.loads((u / "session.json").read_text())["stop_status"]
        for u in sorted(units.iterdir())
        if (u / "session.json").is_file()
    }


def part(report: dict[str, object], name: str, cmd: list[str], env: dict[str, str],
         log: Path) -> float:  # fmt: skip
    """Time one part into `report` (seconds and the load average before and after)."""
    start_load = load()
    seconds = timed(cmd, env, log)
    report[f"{name}_s"] = seconds
    report[f"{name}_load"] = [start_load, load()]
    return seconds


def first(n: int, demo_evidence: Path, scratch: Path) -> dict[str, object]:
    """The whole round with N at once; leaves `scratch/base`, the evidence before sessions."""
    evidence = scratch / f"n{n}" / "evidence"
    evidence.mkdir(parents=True)
    # not the controls: not timed
    shutil.copytree(demo_evidence / "showcase", evidence / "showcase")
    env = environment(evidence)
    log = evidence.parent / "bench.log"
    python = sys.executable
    report: dict[str, object] = {"n": n, "evidence_dir": str(evidence), "log": str(log)}
    timed([python, "-m", "harness.advance", "showcase", "--to", ROUND, "--evidence", str(evidence)],
          env, log)  # fmt: skip
    doit = [python, "-m", "doit", "-n", "2", "-P", "thread"]
    total = part(report, "before", [*doit, *BEFORE], env, log)
    shutil.copytree(evidence, scratch / "base" / "evidence", symlinks=True)
    total += part(report, "sessions", sessions(n, evidence), env, log)
    total += part(report, "after", [*doit, *AFTER], env, log)
    report["total_s"] = round(total, 1)
    board = json.loads((evidence / ROUND / "model-leaderboard.json").read_text())
    report["means"] = {m["model_key"]: m["mean_total"] for m in board["models"]}
    report["standing"] = board["standing"]
    report["stop_statuses"] = stop_statuses(evidence)
    return report


def sessions_only(n: int, scratch: Path) -> dict[str, object]:
    """The sessions again with N at once, on a copy of the first run's pre-session evidence."""
    evidence = scratch / f"n{n}" / "evidence"
    shutil.copytree(scratch / "base" / "evidence", evidence, symlinks=True)
    log = evidence.parent / "bench.log"
    report: dict[str, object] = {"n": n, "evidence_dir": str(evidence), "log": str(log)}
    part(report, "sessions", sessions(n, evidence), environment(evidence), log)
    report["stop_statuses"] = stop_statuses(evidence)
    return report


def sessions(n: int, evidence: Path) -> list[str]:
    return [sys.executable, "-m", "harness.parallel", "run", ROUND, "-n", str(n),
            "--evidence", str(evidence)]  # fmt: skip


def environment(evidence: Path) -> dict[str, str]:
    env = dict(os.environ, SITEOS_EVIDENCE_DIR=str(evidence), SITEOS_ROUND=ROUND)
    env.pop("OPENROUTER_API_KEY", None)
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--parallel", type=int, nargs="+", default=[4, 1])
    parser.add_argument("--demo-evidence", type=Path, default=EVIDENCE_DIR)
    parser.add_argument("--keep", action="store_true", help="keep the scratch evidence folders")
    args = parser.parse_args()
    if not (args.demo_evidence / "showcase" / "leaderboard.json").is_file():
        sys.exit(f"{args.demo_evidence}/demo/leaderboard.json: run ./scripts/demo first")
    scratch = Path(tempfile.mkdtemp(prefix="siteos-bench-round1-"))
    runs = [first(args.parallel[0], args.demo_evidence, scratch)]
    runs += [sessions_only(n, scratch) for n in args.parallel[1:]]
    if any(run["stop_statuses"] != runs[0]["stop_statuses"] for run in runs):
        print("stop statuses differ between the runs", file=sys.stderr)
    print(json.dumps({"cpus": os.cpu_count(), "runs": runs}, indent=2))
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
