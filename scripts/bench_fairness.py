"""Fairness of slots, measured (not a test): the same CPU-heavy unit workload alone and beside
N-1 copies of itself, each in a pinned slot of its own and, for contrast, in unpinned (shared)
slots; prints every elapsed time and the drift of the together-runs from the alone-runs.

    .venv/bin/python scripts/bench_fairness.py [-n 2] [--cpus 1] [--runs 3] [--builds 4]

The workload is a unit's CPU-heavy part: the starter's `npm run build` (`tsc` type check, then
`vite build`), `--builds` times in a row, in the evaluator's `untrusted_build` bubblewrap sandbox,
on a hard-linked copy of a node_modules installed once at the start. Each copy runs in a process
of its own, as `harness.parallel` runs each unit in a child process: the slots are the round
planner's (`harness.slot_plan.plan_slots`, the round's slot shape set to `--cpus` CPUs, pinned or
not) and the child pins itself to its slot's CPUs before it starts anything, as a parallel child
does (bubblewrap, npm, tsc and esbuild inherit them).

Drift is (median together - median alone) / median alone of one configuration; within 5 % is the
bar for pinned slots. The machine's load average and its busy share over each configuration are
printed too: another job on the same CPUs slows a pinned slot as much as a neighbour would, so
run it on a quiet machine and compare figures within one run of the script.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from evaluator.build import (
    Workspace,
    link_node_modules,
    make_workspace,
    run_step,
    sandbox_spec,
    timed_copy,
)
from harness.slot_plan import Slot, machine_cpus, plan_slots
from records.inputs import load_round
from records.slots import SlotShape
from records.task import DEFAULT_TASK, load_task
from sandbox import run_sandboxed
from sandbox.monitor import machine_busy_seconds


@dataclass(frozen=True)
class Config:
    label: str
    together: int
    pinned: bool


def load_average() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def prepare(starter: Path) -> Workspace:
    """One workspace with the starter installed (`npm ci --offline` in the sandbox)."""
    workspace = make_workspace("siteos-fair-")
    timed_copy(starter, workspace)
    result = run_step(workspace, "install")
    if not result.ok:
        raise SystemExit(f"npm ci failed: {result.describe()}")
    return workspace


def one_unit(cpus: list[int], starter: Path, node_modules: Path, builds: int) -> float:
    """The child: pin this process to `cpus` (empty: shared), build `builds` times; seconds."""
    if cpus:
        os.sched_setaffinity(0, cpus)
    workspace = make_workspace("siteos-fair-")
    try:
        timed_copy(starter, workspace, npm_cache=False)
        link_node_modules(node_modules, workspace)
        command = " && ".join(["npm run build"] * builds)
        spec = sandbox_spec(workspace, ["sh", "-c", command], timeout=600)
        result = run_sandboxed(spec)
        if not result.ok:
            raise SystemExit(f"npm run build failed: {result.describe()}")
        return result.duration
    finally:
        shutil.rmtree(workspace.root, ignore_errors=True)


def build_in(slot: Slot, installed: Workspace, builds: int, out: list[float]) -> None:
    """Start one unit's child process in `slot` and wait for its time."""
    command = [
        sys.executable, __file__, "--one", ",".join(map(str, slot.cpus)),
        "--node-modules", str(installed.app / "node_modules"), "--builds", str(builds),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"unit in slot {slot.index} failed: {done.stderr.strip()[-2000:]}")
    out.append(float(done.stdout.split()[-1]))


def run_config(config: Config, cpus: int, round_id: str, installed: Workspace, builds: int
               ) -> tuple[list[float], float]:  # fmt: skip
    settings = load_round(round_id, require_cohort=False).model_copy(
        update={"slot": SlotShape(cpus=cpus, memory_gib=4, pinned=config.pinned)}
    )
    slots = plan_slots(settings, config.together)
    times: list[float] = []
    busy_before, started = machine_busy_seconds(), time.monotonic()
    threads = [
        threading.Thread(target=build_in, args=(slot, installed, builds, times)) for slot in slots
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - started
    busy = (machine_busy_seconds() - busy_before) / (wall * len(machine_cpus()))
    return times, busy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=2, help="units at once (default 2)")
    parser.add_argument("--cpus", type=int, default=1, help="CPUs per slot (default 1)")
    parser.add_argument("--runs", type=int, default=3, help="rounds of every configuration")
    parser.add_argument("--builds", type=int, default=4, help="builds in a row per unit")
    parser.add_argument("--round", default="demo-round-1", help="whose slot plan (simulated)")
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)  # the child: its CPUs
    parser.add_argument("--node-modules", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    starter = load_task(DEFAULT_TASK).starter
    if args.one is not None:
        cpus = [int(c) for c in args.one.split(",") if c]
        print(f"{one_unit(cpus, starter, args.node_modules, args.builds):.3f}")
        return 0
    configs = [
        Config("pinned, alone", 1, True),
        Config(f"pinned, {args.n} together", args.n, True),
        Config("unpinned, alone", 1, False),
        Config(f"unpinned, {args.n} together", args.n, False),
    ]
    print(f"machine CPUs {machine_cpus()}; slots of {args.cpus} CPU(s); {args.builds} builds "
          f"per unit; load {load_average()}")  # fmt: skip
    installed = prepare(starter)
    results: dict[str, list[float]] = {c.label: [] for c in configs}
    try:
        for run in range(1, args.runs + 1):
            for config in configs:  # interleaved: the machine's speed drifts between minutes
                load = load_average()
                times, busy = run_config(config, args.cpus, args.round, installed, args.builds)
                results[config.label] += times
                shown = ", ".join(f"{t:.1f}" for t in sorted(times))
                print(f"run {run} {config.label:<22} builds {shown} s; load {load}; "
                      f"busy {busy:.0%}", flush=True)  # fmt: skip
    finally:
        shutil.rmtree(installed.root, ignore_errors=True)
    print("\nconfiguration           median   min    max   drift vs alone")
    for pinned_ in (True, False):
        word = "pinned" if pinned_ else "unpinned"
        alone = statistics.median(results[f"{word}, alone"])
        for label in (f"{word}, alone", f"{word}, {args.n} together"):
            values = results[label]
            mid = statistics.median(values)
            drift = (mid - alone) / alone
            print(f"{label:<22} {mid:6.1f} {min(values):6.1f} {max(values):6.1f}   {drift:+.1%}")
    print(f"load average at the end {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
