"""Up to N scored sessions at once, started strictly in frozen order.

    python -m harness.parallel run ROUND [-n N] [--evidence DIR]

Each unit runs in its own child process (`python -m harness.parallel one ...`, its own process
group) through `harness.unit.run_unit`, so it keeps everything a serial unit has of its own: a
fresh scratch folder and worktree, its own gateway (simulator instance or upstream connection),
its own recording proxy and hard budget, its own evidence folder. A child that crashes or is
killed affects no other; the next `doit` records it as a harness failure from its `.running`
marker, as for a serial run.

Order: unit k+1 is launched only once unit k has *started* (its `.running` marker or session.json
exists, or its child has ended), and only while fewer than N children run. A child refuses to
start when an earlier unit of the frozen order has not started (`require_started_before`).

Slots: each child gets a free slot of the round's pool (`harness.slot_plan`, planned from the
round's `slot` shape: the plan refuses more slots than the machine holds) and pins itself to the
slot's CPUs before anything else runs, so its proxy, sandbox and agent inherit them; the slot is
free again when the child ends. session.json records it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from harness.session.evidence import MarkerUnreadable, read_marker
from harness.slot_plan import Slot, SlotPool, SlotsRefused, pool_for
from records.evidence.gateway import KeyCheck
from records.io import read_record
from records.layout import EVIDENCE_DIR, REPO_ROOT, RoundPaths
from records.round import Round
from records.unit_ids import UnitId


class ParallelRefused(RuntimeError):
    """A unit would start before an earlier unit of the frozen order."""


@dataclass(frozen=True)
class Scheduled:
    unit: str
    key: str  # the entrant's: the model, or `<model>-via-<agent>` in an intervention round
    repetition: int
    replacement: int = 0

    @classmethod
    def of(cls, unit: str) -> Scheduled:
        parsed = UnitId.parse(unit)
        return cls(unit, parsed.entrant, parsed.repetition, parsed.replacement)


@dataclass
class Launch:
    """One child: when it was launched and when its unit was seen started (monotonic seconds)."""

    unit: str
    process: subprocess.Popen[bytes]
    launched: float
    started: float | None = None
    ended: float | None = None
    returncode: int | None = None
    worktree: str | None = None  # from the unit's `.running` marker, once it started
    runner_pid: int | None = None
    slot: Slot | None = None


@dataclass
class Schedule:
    launches: list[Launch] = field(default_factory=list)

    @property
    def start_order(self) -> list[str]:
        started = [x for x in self.launches if x.started is not None]
        return [x.unit for x in sorted(started, key=lambda x: x.started or 0.0)]

    @property
    def most_at_once(self) -> int:
        """The most children alive at the same moment (from launch and end times)."""
        events = [(x.launched, 1) for x in self.launches]
        events += [(x.ended, -1) for x in self.launches if x.ended is not None]
        alive = peak = 0
        for _, change in sorted(events, key=lambda e: (e[0], e[1])):
            alive += change
            peak = max(peak, alive)
        return peak


def started(paths: RoundPaths, unit: str) -> bool:
    files = paths.unit(unit)
    return files.running_marker.exists() or files.session.exists()


def require_started_before(paths: RoundPaths, order: list[str], unit: str) -> None:
    """Refuse unless every unit before `unit` in the frozen order has started."""
    if unit not in order:
        return  # documented replacements run after the frozen order
    for earlier in order[: order.index(unit)]:
        if not started(paths, earlier):
            raise ParallelRefused(
                f"unit {unit!r} starts after {earlier!r} in the frozen order; it has not started"
            )


def child_command(rnd: Round, item: Scheduled, slot: Slot | None = None) -> list[str]:
    command = [
        sys.executable, "-m", "harness.parallel", "one", rnd.id, item.key,
        str(item.repetition), "--replacement", str(item.replacement),
        "--evidence", str(rnd.evidence_dir),
    ]  # fmt: skip
    if slot is not None:
        command += ["--slot", str(slot.index), "--cpus", ",".join(map(str, slot.cpus))]
    return command


def _reap(running: list[Launch], pool: SlotPool | None = None) -> list[Launch]:
    alive = []
    for launch in running:
        code = launch.process.poll()
        if code is None:
            alive.append(launch)
        else:
            launch.ended, launch.returncode = time.monotonic(), code
            if pool is not None and launch.slot is not None:
                pool.release(launch.slot)
                launch.slot = None
    return alive


def run_parallel(
    rnd: Round,
    units: list[Scheduled],
    max_parallel: int,
    poll_seconds: float = 0.1,
    log: bool = True,
    pool: SlotPool | None = None,
) -> Schedule:
    """Launch every not-yet-recorded unit in order, at most `max_parallel` at once, each in a free
    slot of `pool` (default: the round's pool of `max_parallel` slots); wait for all."""
    if max_parallel < 1:
        raise ValueError("max_parallel must be at least 1")
    pool = pool or pool_for(rnd.settings, max_parallel)
    paths = rnd.paths
    schedule = Schedule()
    running: list[Launch] = []
    for item in units:
        if paths.unit(item.unit).session.exists():
            continue
        while len(running := _reap(running, pool)) >= max_parallel:
            time.sleep(poll_seconds)
        slot = _free_slot(pool, running, poll_seconds)
        process = subprocess.Popen(  # its own process group: a kill of one spares the others
            child_command(rnd, item, slot), cwd=REPO_ROOT, start_new_session=True
        )
        launch = Launch(item.unit, process, time.monotonic(), slot=slot)
        schedule.launches.append(launch)
        running.append(launch)
        while not started(paths, item.unit) and process.poll() is None:
            time.sleep(poll_seconds)
        launch.started = time.monotonic()
        try:
            marker = read_marker(paths.unit(item.unit), item.unit)
        except MarkerUnreadable:  # the unit's own runner refuses it and says why
            marker = None
        if marker is not None:
            launch.worktree, launch.runner_pid = marker.worktree, marker.runner_pid
        if log:
            names = ", ".join(x.unit for x in _reap(running, pool)) or "none"
            print(f"[parallel {rnd.id}] started {item.unit} in slot {slot.index}; running: {names}",
                  flush=True)  # fmt: skip
    while running := _reap(running, pool):
        time.sleep(poll_seconds)
    return schedule


def _free_slot(pool: SlotPool, running: list[Launch], poll_seconds: float) -> Slot:
    """A free slot of `pool`, reaping ended children meanwhile (an evaluation may hold one)."""
    while (slot := pool.try_acquire()) is None:
        running[:] = _reap(running, pool)
        time.sleep(poll_seconds)
    return slot


def scheduled(rnd: Round) -> list[Scheduled]:
    """The frozen order, then documented replacements (`Round.units`, as dodo lists them)."""
    return [Scheduled.of(unit) for unit in rnd.units()]


def sessions_at_once(rnd: Round) -> int:
    """The sessions the round runs at once: as the spend stage derived them (key-check.json),
    else the round file's `max_parallel_sessions`."""
    path = rnd.paths.key_check
    if path.exists():
        check = read_record(path, KeyCheck)
        if check.parallel is not None:
            return check.parallel.sessions
    return rnd.settings.max_parallel_sessions


def run_round(rnd: Round, max_parallel: int | None = None) -> bool:
    """Every outstanding unit of the round, `max_parallel_sessions` at once; True when all
    children ended cleanly."""
    settings = rnd.settings
    at_once = sessions_at_once(rnd)
    limit = max_parallel or at_once
    if settings.kind == "real" and limit != at_once:
        raise ParallelRefused(
            f"round {rnd.id!r} is real: it runs {at_once} at once (key-check.json's `parallel`, "
            "derived from the bound its round file sets, this machine's slots and the key's rate "
            "limit; without a key check, as its round file says), not -n"
        )
    schedule = run_parallel(rnd, scheduled(rnd), limit, pool=pool_for(settings, limit))
    return all(x.returncode == 0 for x in schedule.launches)


def _one(args: argparse.Namespace) -> int:
    from harness.slot_plan import this_machine
    from harness.unit import run_unit
    from records.slots import SlotRecord

    rnd = Round.load(args.round, args.evidence)
    unit = rnd.entrant(args.model).unit(args.repetition)
    if not args.replacement and not args.order_checked:
        require_started_before(rnd.paths, rnd.order().order, unit)
    slot = None
    if args.slot is not None:
        cpus = [int(c) for c in args.cpus.split(",") if c]
        if cpus:  # before any thread starts: everything this process runs inherits it
            os.sched_setaffinity(0, cpus)
        slot = SlotRecord(
            shape=rnd.settings.slot_shape, index=args.slot, cpus=cpus, machine=this_machine()
        )
    record = run_unit(
        rnd, args.model, args.repetition, replacement=args.replacement, check_order=False,
        slot=slot,
    )  # fmt: skip
    print(f"{record.unit}: {record.stop_status}/{record.validity}", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.parallel", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run the round's outstanding units in parallel")
    run.add_argument("round")
    run.add_argument("-n", type=int, default=None, help="at most N at once (default: round file)")
    one = commands.add_parser("one", help="one unit (the scheduler's child)")
    one.add_argument("round")
    one.add_argument("model")
    one.add_argument("repetition", type=int)
    one.add_argument("--replacement", type=int, default=0)
    one.add_argument("--slot", type=int, default=None, help="the slot's index")
    one.add_argument("--cpus", default="", help="the slot's CPUs, comma-separated (empty: shared)")
    one.add_argument(
        "--order-checked",
        action="store_true",
        help="a cluster worker: the coordinator keeps the frozen start order (harness/cluster.py)",
    )
    for sub in (run, one):
        sub.add_argument("--evidence", type=Path, default=EVIDENCE_DIR)
    args = parser.parse_args(argv)
    try:
        if args.command == "one":
            return _one(args)
        return 0 if run_round(Round.load(args.round, args.evidence), args.n) else 1
    except (ParallelRefused, SlotsRefused) as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
