"""Pipeline speed benchmark (not a test): a whole demo round, a no-op `doit`, the site build.

Runs the README's own command (`scripts/demo-round`; for the showcase: doit with the controls,
the documented replacement, doit again) into a scratch evidence folder, so the repository's
evidence is untouched:

    .venv/bin/python scripts/bench_pipeline.py [--round demo|showcase] [--keep DIR]

Prints one JSON object: seconds for each measurement, and when each phase of the round began
(from the moment doit announces each task): the preflights beside the controls, the sessions,
the evaluations, and the replacement's second pass; and the machine's busy CPU seconds over the
round (`/proc/stat`, every process: the round is CPU-bound on two cores, so this over the cores
is the least wall time it can take). Target: the no-op run well under 1 s of doit time. Note the
machine's load when quoting numbers.
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

from sandbox.monitor import machine_busy_seconds

ROOT = Path(__file__).resolve().parent.parent
DOIT = [sys.executable, "-m", "doit"]


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    return round(time.perf_counter() - start, 3)


def demo_round(env: dict[str, str]) -> tuple[float, list[tuple[float, str]]]:
    """Run scripts/demo-round; its wall time and (seconds since start, task) as each task began."""
    started = time.perf_counter()
    tasks: list[tuple[float, str]] = []
    with subprocess.Popen(
        ["bash", str(ROOT / "scripts" / "demo-round")], cwd=ROOT, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    ) as proc:  # fmt: skip
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(".  "):
                tasks.append((round(time.perf_counter() - started, 1), line[3:].strip()))
    if proc.returncode != 0:
        raise SystemExit(f"scripts/demo-round failed (exit {proc.returncode})")
    return round(time.perf_counter() - started, 1), tasks


def phases(tasks: list[tuple[float, str]]) -> dict[str, float | None]:
    """When the round's phases began (seconds since the start), from the task announcements: the
    first session (the preflights are done), the first pass's packets (its sessions and
    evaluations are done) and the replacement's session."""

    def first(prefix: str, after: float = -1.0) -> float | None:
        return next((t for t, name in tasks if name.startswith(prefix) and t > after), None)

    sessions = first("unit:")
    packets = first("packets")
    return {
        "first_session_at_s": sessions,
        "first_evaluation_at_s": first("evaluate:"),
        "first_pass_packets_at_s": packets,
        "replacement_session_at_s": first("unit:", packets) if packets is not None else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keep", type=Path, help="use (and keep) this evidence folder")
    parser.add_argument("--round", default="demo", choices=("demo", "showcase"))
    args = parser.parse_args()
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="siteos-bench-"))
    env = dict(os.environ, SITEOS_EVIDENCE_DIR=str(scratch), SITEOS_ROUND=args.round)
    env["SITEOS_CONTROLS"] = "1" if args.round == "showcase" else "0"
    report: dict[str, object] = {
        "evidence_dir": str(scratch),
        "load_average_at_start": round(os.getloadavg()[0], 1),
        "cores": os.cpu_count(),
    }
    cpu = machine_busy_seconds()
    total, tasks = demo_round(env)
    report["whole_demo_round_s"] = total
    report["whole_demo_round_busy_cpu_s"] = round(machine_busy_seconds() - cpu, 1)
    report["phases"] = phases(tasks)
    report["noop_doit_s"] = timed(DOIT, env)
    subprocess.run([*DOIT, "forget", "site"], cwd=ROOT, env=env, check=True, capture_output=True)
    report["site_build_s"] = timed([*DOIT, "site"], env)  # the site alone, rendered again
    report["tasks_started_at_s"] = [f"{t:7.1f}  {name}" for t, name in tasks]
    print(json.dumps(report, indent=2))
    if args.keep is None:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
