"""Round 1 wall-clock benchmark (not a test): the demo's Round 1 with N sessions at once.

Needs a finished showcase round (what `./scripts/demo --full` wrote to `evidence/`, or
`--demo-evidence`). The first N runs the whole of `scripts/demo-round-1`'s round in a scratch
evidence folder (the showcase round copied in, demo-round-1's cohort written from it by
`python -m harness.advance`), in three timed parts:

- before: freeze, calibration, catalogue, spend, preflight, order (`doit`);
- sessions: the 18 scored sessions, `python -m harness.parallel run demo-round-1 -n N`;
- after: evaluation, packets, scoring and the site (`doit -n 2 -P thread`).

Every later N repeats the sessions (the one part N changes) and everything after them, on a copy
of the first run's evidence as it was before its sessions, and its verdicts are compared with the
first run's: per unit the stop status, validity, gates failed, each check's points, the automated
score, the total, the rank and the cost; per model the mean and the round's standing. Elapsed
times are not compared (they are what N changes).

    .venv/bin/python scripts/bench_round1.py [--parallel 4 1] [--demo-evidence DIR] [--keep]

Prints one JSON object: seconds per part and N, the load average before and after each part
(the machine's other work shows there), each run's model means and whether its verdicts equal the
first run's (with every difference named); exits 1 when any differ.
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


def verdicts(evidence: Path) -> dict[str, object]:
    """What a run decided, without its times: per unit and per model, from the scored files."""
    board = json.loads((evidence / ROUND / "leaderboard.json").read_text())
    unit_of = {e["candidate_code"]: e["unit"] for e in board["units"]}
    units: dict[str, object] = {}
    for entry in board["units"]:
        result = evidence / ROUND / "units" / entry["unit"] / "evaluation" / "result.json"
        checks = json.loads(result.read_text())["checks"] if result.is_file() else []
        units[entry["unit"]] = {
            "stop_status": entry["stop_status"],
            "validity": entry["validity"],
            "status": entry["status"],
            "gates_failed": entry["gates_failed"],
            "checks": {c["id"]: c["points"] for c in checks},
            "automated_score": entry["automated_score"],
            "total": entry["total"],
            "rank": place(entry, board["units"]),
            "cost_usd": entry["cost_usd"],
        }
    models = json.loads((evidence / ROUND / "model-leaderboard.json").read_text())
    return {
        "units": units,
        "models": {m["model_key"]: m["mean_total"] for m in models["models"]},
        "standing": models["standing"],
        "advancing": sorted(unit_of[code] for code in board["advancing"]),
    }


def place(entry: dict[str, Any], entries: list[dict[str, Any]]) -> int | None:
    """The unit's rank before the tie rule's last step, the blind candidate code (drawn from a
    secret a round's evidence makes once, so once per run here): 1 + the units ahead on total,
    automated score and cost."""
    if entry["rank"] is None:
        return None

    def key(e: dict[str, Any]) -> tuple[float, float, float]:
        return (-round(e["total"], 6), -e["automated_score"], e["cost_usd"] or 0.0)

    return 1 + sum(1 for e in entries if e["rank"] is not None and key(e) < key(entry))


def differences(first: object, other: object, where: str = "") -> list[str]:
    """Every place two verdict records differ, as `path: first -> other`."""
    if isinstance(first, dict) and isinstance(other, dict):
        return [
            d
            for key in sorted(set(first) | set(other))
            for d in differences(first.get(key), other.get(key), f"{where}/{key}")
        ]
    return [] if first == other else [f"{where}: {first!r} -> {other!r}"]


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
    report["verdicts"] = verdicts(evidence)
    return report


def again(n: int, scratch: Path) -> dict[str, object]:
    """Sessions and everything after them again with N at once, on the pre-session copy."""
    evidence = scratch / f"n{n}" / "evidence"
    shutil.copytree(scratch / "base" / "evidence", evidence, symlinks=True)
    log = evidence.parent / "bench.log"
    env = environment(evidence)
    report: dict[str, object] = {"n": n, "evidence_dir": str(evidence), "log": str(log)}
    part(report, "sessions", sessions(n, evidence), env, log)
    doit = [sys.executable, "-m", "doit", "-n", "2", "-P", "thread"]
    part(report, "after", [*doit, *AFTER], env, log)
    report["verdicts"] = verdicts(evidence)
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
    parser.add_argument(
        "--compare", type=Path, metavar="SCRATCH", help="only compare a kept scratch's n<N> runs"
    )
    args = parser.parse_args()
    if args.compare:
        kept = sorted(args.compare.glob("n*"), key=lambda d: -int(d.name[1:]))
        runs = [{"n": int(d.name[1:]), "verdicts": verdicts(d / "evidence")} for d in kept]
        report(runs)
        return
    if not (args.demo_evidence / "showcase" / "leaderboard.json").is_file():
        sys.exit(f"{args.demo_evidence}/showcase/leaderboard.json: run ./scripts/demo --full first")
    scratch = Path(tempfile.mkdtemp(prefix="siteos-bench-round1-"))
    runs = [first(args.parallel[0], args.demo_evidence, scratch)]
    runs += [again(n, scratch) for n in args.parallel[1:]]
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    report(runs)


def report(runs: list[dict[str, Any]]) -> None:
    """Print the runs with their differences from the first; exit 1 when any differ."""
    for run in runs:
        run["differences"] = differences(runs[0]["verdicts"], run["verdicts"])
        run["same_verdicts_as_first"] = not run["differences"]
        run["means"] = run["verdicts"]["models"]
    summary = [{k: v for k, v in run.items() if k != "verdicts"} for run in runs]
    print(json.dumps({"cpus": os.cpu_count(), "runs": summary}, indent=2))
    if any(run["differences"] for run in runs):
        sys.exit("verdicts differ between the runs: see each run's differences")


if __name__ == "__main__":
    main()
