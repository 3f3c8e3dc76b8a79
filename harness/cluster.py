"""A round's units as Ray tasks, for when one machine is not enough (`pip install .[cluster]`).

    python -m harness.cluster run ROUND --address HOST:PORT [--evidence DIR] [-n N]

doit stays the planner (freeze, calibrate, spend, preflight, order run on the coordinator as
always); this module replaces only the session stage. Each unit becomes one Ray task requesting
its slot's shape: `num_cpus` (the slot's CPUs), `memory` (its memory budget) and one
`siteos_sandbox`, a custom resource that only nodes with bubblewrap, Node and the agents
installed advertise (`ray start ... --resources='{"siteos_sandbox": K}'`). On the worker the task
unpacks the round's frozen evidence (everything but `units/`) into a scratch evidence folder and
runs the unit there as a parallel child does (`python -m harness.parallel one`): its recording
proxy, hard budget and (simulated rounds) simulator run beside the session on the worker, pinned
with it to a slot of the worker's own (`claim_slot`). The API key travels in the task's arguments
and reaches the child only in its environment: it is never written to disk.

The unit's evidence folder comes back as a gzipped tar with its SHA-256; the coordinator checks
the hash before it writes the folder into `<evidence>/<round>/units/<unit>/` (`install_unit`:
unpacked beside it, then renamed into place; a member outside the folder, a link or a device is
refused). Units start in frozen order: task k+1 is submitted only once task k has started on its
worker (`StartLog`), at most N at once.

A worker lost mid-session (the node died, its raylet or its Ray worker was killed) ends the task
with a Ray error: the coordinator records the unit as a harness failure (`harness.unit.
record_lost`), never a model failure; its one documented replacement (`python -m
harness.replacement`) then runs like any unit on the next `run`. A lost coordinator loses only
the units in flight: a rerun skips every unit with a session.json, as a serial rerun does.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import io
import logging
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.parallel import Scheduled, scheduled, sessions_at_once
from harness.slot_plan import machine_cpus
from records.layout import EVIDENCE_DIR, REPO_ROOT, UnitPaths
from records.round import Round
from records.slots import SlotShape

SANDBOX_RESOURCE = "siteos_sandbox"
KEY_VARIABLE = "OPENROUTER_API_KEY"
SLOT_LOCKS = Path(tempfile.gettempdir()) / "siteos-slots"


class ArchiveRefused(RuntimeError):
    """A unit's archive does not match its hash, or holds something outside its folder."""


def pack(folder: Path, skip: tuple[str, ...] = ()) -> bytes:
    """`folder` as a gzipped tar, members relative to it, in name order (`skip`: top-level
    names left out)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder)
            if relative.parts[0] in skip:
                continue
            tar.add(path, arcname=str(relative), recursive=False)
    return buffer.getvalue()


def unpack(data: bytes, target: Path) -> None:
    """Unpack a `pack` archive into `target`, refusing anything that could land outside it."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            name = Path(member.name)
            if name.is_absolute() or ".." in name.parts:
                raise ArchiveRefused(f"archive member {member.name!r} leaves its folder")
            if not (member.isfile() or member.isdir()):
                raise ArchiveRefused(f"archive member {member.name!r} is a link or device")
        tar.extractall(target, filter="data")


def install_unit(paths: UnitPaths, data: bytes, sha256: str) -> None:
    """Write a unit's evidence folder from its archive, once its SHA-256 matches."""
    found = hashlib.sha256(data).hexdigest()
    if found != sha256:
        raise ArchiveRefused(
            f"{paths.root}: the archive's SHA-256 is {found}, the worker sent {sha256}: not written"
        )
    if paths.session.exists():
        raise ArchiveRefused(f"{paths.session} exists: a recorded unit is never written again")
    paths.root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{paths.root.name}-", dir=paths.root.parent))
    try:
        unpack(data, staging)
        if paths.root.exists():  # an empty folder (or a lost run's leftovers without a record)
            shutil.rmtree(paths.root)
        staging.rename(paths.root)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


@contextlib.contextmanager
def claim_slot(shape: SlotShape) -> Iterator[tuple[int, list[int]]]:
    """A slot of this worker's own: the first free of its pinned slots (a lock file each, held
    while the unit runs), as (index, CPUs); an unpinned shape gets index 0 and no CPUs."""
    if not shape.pinned:
        yield 0, []
        return
    cpus = machine_cpus()
    SLOT_LOCKS.mkdir(parents=True, exist_ok=True)
    while True:
        for index in range(len(cpus) // shape.cpus):
            handle = (SLOT_LOCKS / f"{index}.lock").open("w")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            try:
                yield index, cpus[index * shape.cpus : (index + 1) * shape.cpus]
            finally:
                handle.close()
            return
        time.sleep(0.5)  # Ray's CPU accounting should make this rare: another job holds them


@dataclass(frozen=True)
class UnitTask:
    """What a worker needs to run one unit (the key is added apart, never logged)."""

    round_id: str
    item: Scheduled
    unit: str
    frozen: bytes  # the round's evidence folder without units/
    shape: SlotShape
    folder: bytes | None = None  # the unit's folder as it stands (a replacement's reason)


def run_on_worker(task: UnitTask, api_key: str | None, log: Any = None) -> tuple[bytes, str]:
    """The Ray task's body: run the unit in a scratch evidence folder of this worker and return
    its evidence folder packed, with its SHA-256."""
    scratch = Path(tempfile.mkdtemp(prefix="siteos-worker-"))
    try:
        evidence = scratch / "evidence"
        unpack(task.frozen, evidence / task.round_id)
        env = {k: v for k, v in os.environ.items() if k != KEY_VARIABLE}
        if api_key:
            env[KEY_VARIABLE] = api_key  # in the child's environment only
        item = task.item
        folder = evidence / task.round_id / "units" / task.unit
        if task.folder is not None:
            unpack(task.folder, folder)
        with claim_slot(task.shape) as (index, cpus):
            command = [
                sys.executable, "-m", "harness.parallel", "one", task.round_id, item.key,
                str(item.repetition), "--replacement", str(item.replacement),
                "--evidence", str(evidence), "--slot", str(index),
                "--cpus", ",".join(map(str, cpus)), "--order-checked",
            ]  # fmt: skip
            child = subprocess.Popen(
                command, cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
            )
            if log is not None:
                while child.poll() is None and not (folder / ".running").exists():
                    time.sleep(0.1)
                log.started.remote(task.unit)
            output, _ = child.communicate()
        if not (folder / "session.json").exists():
            raise RuntimeError(
                f"unit {task.unit} left no session.json (exit {child.returncode}): "
                f"{output.decode(errors='replace')[-2000:]}"
            )
        data = pack(folder)
        return data, hashlib.sha256(data).hexdigest()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@dataclass
class Outcome:
    unit: str
    installed: bool  # the worker's evidence was checked and written
    lost: str = ""  # why the unit was recorded as a harness failure instead


def run_cluster(
    rnd: Round,
    address: str,
    max_parallel: int | None = None,
    api_key: str | None = None,
    node_ip_address: str | None = None,
) -> list[Outcome]:
    """Every outstanding unit of the round as a Ray task on the cluster at `address`, in frozen
    order, at most `max_parallel` (default: the sessions at once the spend stage derived) at once.
    `node_ip_address`: this coordinator's address on the cluster's network (default: Ray's
    guess)."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    from harness.unit import record_lost

    shape = rnd.settings.slot_shape
    limit = max_parallel or sessions_at_once(rnd)
    key = api_key if api_key is not None else os.environ.get(KEY_VARIABLE)
    ray.init(
        address=address, logging_level=logging.WARNING, log_to_driver=False,
        _node_ip_address=node_ip_address,
    )  # fmt: skip
    try:
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        StartLog = ray.remote(num_cpus=0)(_StartLog)  # on the coordinator's node: never lost
        log: Any = StartLog.options(scheduling_strategy=here).remote()
        remote = ray.remote(run_on_worker).options(
            num_cpus=shape.cpus, memory=shape.memory_bytes,
            resources={SANDBOX_RESOURCE: 1}, max_retries=0,
        )  # fmt: skip
        frozen = pack(rnd.paths.root, skip=("units", "history"))
        pending: dict[Any, Scheduled] = {}
        outcomes: list[Outcome] = []

        def settle(ref: Any) -> None:
            item = pending.pop(ref)
            paths = rnd.paths.unit(item.unit)
            try:
                data, sha = ray.get(ref)
            except ray.exceptions.RayError as exc:
                why = (
                    f"its cluster worker was lost mid-session ({type(exc).__name__}: "
                    f"{str(exc).splitlines()[0][:300]}); the unit is not re-run"
                )
                record_lost(rnd, item.key, item.repetition, replacement=item.replacement, why=why)
                outcomes.append(Outcome(item.unit, False, why))
                return
            install_unit(paths, data, sha)
            outcomes.append(Outcome(item.unit, True))

        for item in scheduled(rnd):
            if rnd.paths.unit(item.unit).session.exists():
                continue
            while len(pending) >= limit:
                done, _ = ray.wait(list(pending), num_returns=1)
                settle(done[0])
            root = rnd.paths.unit(item.unit).root
            task = UnitTask(
                rnd.id, item, item.unit, frozen, shape, pack(root) if root.is_dir() else None
            )
            ref = remote.remote(task, key, log)
            pending[ref] = item
            while not ray.get(log.has_started.remote(item.unit)):  # frozen start order
                done, _ = ray.wait([ref], timeout=0.2)
                if done:
                    break
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            settle(done[0])
        return outcomes
    finally:
        ray.shutdown()


class _StartLog:
    """A Ray actor: which units have started on their workers (for the frozen start order)."""

    def __init__(self) -> None:
        self.units: set[str] = set()

    def started(self, unit: str) -> None:
        self.units.add(unit)

    def has_started(self, unit: str) -> bool:
        return unit in self.units


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.cluster", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run the round's outstanding units on a Ray cluster")
    run.add_argument("round")
    run.add_argument("--address", required=True, help="the head node, e.g. 10.0.0.1:6379")
    run.add_argument("-n", type=int, default=None, help="at most N at once (default: round file)")
    run.add_argument("--evidence", type=Path, default=EVIDENCE_DIR)
    run.add_argument("--node-ip-address", default=None, help="this machine's cluster address")
    args = parser.parse_args(argv)
    outcomes = run_cluster(
        Round.load(args.round, args.evidence), args.address, args.n,
        node_ip_address=args.node_ip_address,
    )  # fmt: skip
    for outcome in outcomes:
        print(f"{outcome.unit}: {'recorded' if outcome.installed else 'lost: ' + outcome.lost}")
    return 0 if all(o.installed for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
