"""Load-proof verdicts (not a timed test): the controls judged twice, once on a quiet machine and
once while a CPU hog keeps every core busy, and their verdicts compared control by control.

    .venv/bin/python scripts/bench_load.py [--only reference,variant-native-dialog,...] [--hogs 4]
        [--keep DIR]

A verdict is a control's automated score, its failed checks and its failed gates. Every wait in a
check ends on an observed condition with a generous ceiling, so a slow machine may make the
evaluation slower but must never change a verdict: the script exits 1 when any control's verdict
differs between the two runs (and prints which), 2 when they agree but a control missed its
expectation, 0 when all are identical and as expected. Each run is a full `run_controls`
(reference, legal variants, mutants, or the `--only` subset) written to a temporary folder (or
`--keep DIR`: DIR/quiet and DIR/loaded), never to evidence/. The hog is N busy Python processes
(`while True: pass`; default 4, two per core on this 2-core machine) started just before the loaded
run and killed by their process ids right after it; the machine's busy share of its cores over each
run (`/proc/stat`) is printed so the load can be seen to have been there. The whole set takes about
twice the controls' time: run it on an otherwise quiet machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from evaluator.controls.run import run_controls
from records.evidence.controls import ControlRow, read_controls
from records.task import DEFAULT_TASK, load_task
from sandbox.monitor import machine_busy_seconds

HOG = "while True: pass"


@dataclass(frozen=True)
class Run:
    """One `run_controls` pass: its rows, wall time and the machine's busy share of its cores."""

    label: str
    rows: dict[str, ControlRow]
    wall_s: float
    busy: float


def verdict(row: ControlRow) -> tuple[int | None, tuple[str, ...], tuple[str, ...]]:
    """What must not depend on load: the score, the failed checks, the failed gates."""
    return (
        row.actual_score,
        tuple(sorted(row.actual_failed_checks)),
        tuple(sorted(row.gates_failed)),
    )


def start_hogs(n: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(n)]


def stop_hogs(hogs: list[subprocess.Popen[bytes]]) -> None:
    for hog in hogs:
        hog.kill()
    for hog in hogs:
        hog.wait(timeout=30)


def judge(label: str, only: list[str] | None, folder: Path, hogs: int) -> Run:
    """Run the controls into `folder` (with `hogs` busy processes alongside)."""
    out_json = folder / "controls.json"
    started, busy0 = time.monotonic(), machine_busy_seconds()
    running = start_hogs(hogs)
    try:
        run_controls(
            only, task=load_task(DEFAULT_TASK), out_json=out_json, out_dir=folder / "controls"
        )
    finally:
        stop_hogs(running)
    wall = time.monotonic() - started
    busy = (machine_busy_seconds() - busy0) / (wall * (os.cpu_count() or 1))
    rows = read_controls(out_json) or []
    return Run(label, {r.control: r for r in rows}, wall, busy)


def show(row: ControlRow | None) -> str:
    if row is None:
        return "not run"
    score, failed, gates = verdict(row)
    return f"{score}/60 failed [{', '.join(failed)}] gates [{', '.join(gates)}]"


def compare(quiet: Run, loaded: Run) -> list[str]:
    """Print both runs side by side; return the controls whose verdicts differ."""
    for run in (quiet, loaded):
        print(f"{run.label}: {run.wall_s:.1f} s, cores {run.busy:.0%} busy")
    differ = []
    for name in sorted({*quiet.rows, *loaded.rows}, key=list({**quiet.rows, **loaded.rows}).index):
        a, b = quiet.rows.get(name), loaded.rows.get(name)
        same = a is not None and b is not None and verdict(a) == verdict(b)
        times = f"{a.duration_s if a else 0:5.1f}s / {b.duration_s if b else 0:5.1f}s"
        expected = "match" if a and b and a.match and b.match else "EXPECTATION NOT MET"
        print(f"{name:40} {'same' if same else 'DIFFERENT':9} {times}  {show(a)}  {expected}")
        if not same:
            print(f"{'':40} quiet  {show(a)}\n{'':40} loaded {show(b)}")
            differ.append(name)
    return differ


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench_load.py", description=__doc__)
    parser.add_argument("--only", default="", help="comma-separated control names (default all)")
    parser.add_argument("--hogs", type=int, default=4, help="busy processes in the loaded run")
    parser.add_argument("--keep", type=Path, help="keep both runs' controls.json and output here")
    args = parser.parse_args(argv)
    only = [x for x in args.only.split(",") if x] or None
    with tempfile.TemporaryDirectory(prefix="siteos-bench-load-") as tmp:
        folder = args.keep or Path(tmp)
        quiet = judge("quiet", only, folder / "quiet", 0)
        loaded = judge(f"loaded ({args.hogs} busy processes)", only, folder / "loaded", args.hogs)
    differ = compare(quiet, loaded)
    if differ:
        print(f"verdicts differ under load: {', '.join(differ)}")
        return 1
    missed = [n for run in (quiet, loaded) for n, row in run.rows.items() if not row.match]
    print(f"identical verdicts for {len(quiet.rows)} controls, quiet and loaded")
    if missed:
        print(f"but not as expected: {', '.join(sorted(set(missed)))}")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
