"""Cut this machine into a round's slots and hand them to its units.

    plan_slots(settings, count)  -> the slots, or SlotsRefused naming the round file and field
    pool_for(settings)           -> the process's pool of the round's slots (thread-safe)
    pinned(cpus)                 -> pin the calling thread (and all it starts) to CPUs

A pinned slot is `shape.cpus` CPUs of the machine's (those this process may run on,
`os.sched_getaffinity(0)`) that no other slot holds; slot k takes the k-th run of them. The plan
refuses more slots than the machine holds: their CPUs together, or their memory together against
MemTotal of /proc/meminfo. An unpinned slot has no CPUs of its own: only its memory has to fit.

CPU affinity is inherited by every thread and process started after it is set, so pinning the
thread that runs a unit (or a parallel child process at its start) pins the recording proxy, the
bubblewrap sandbox, the agent and the builds it runs; pinning the thread that evaluates a unit
pins its builds and browser. Affinity is a fairness measure, not a containment: nothing inside
the sandbox is stopped from asking for other CPUs, and nothing gains from it but speed that the
slot's record would then overstate.
"""

from __future__ import annotations

import contextlib
import os
import platform
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from gateway.client import says_deprecated
from records.evidence.gateway import ParallelDerivation
from records.inputs import RoundSettings, round_settings_path
from records.slots import GIB, Machine, SlotRecord, SlotShape


class SlotsRefused(RuntimeError):
    """The round asks for more slots than this machine holds."""


def machine_cpus() -> list[int]:
    """The CPUs this process may run on (a container or taskset may allow fewer than exist)."""
    return sorted(os.sched_getaffinity(0))


def memory_total(meminfo: Path = Path("/proc/meminfo")) -> int:
    """MemTotal in bytes."""
    for line in meminfo.read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    raise SlotsRefused(f"{meminfo}: no MemTotal line")


def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    with contextlib.suppress(OSError):
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine() or "unknown"


def this_machine() -> Machine:
    return Machine(
        hostname=socket.gethostname(),
        cpu_model=cpu_model(),
        cpu_count=os.cpu_count() or len(machine_cpus()),
        memory_gib=round(memory_total() / GIB, 1),
    )


@dataclass(frozen=True)
class Slot:
    index: int
    cpus: tuple[int, ...]  # empty: unpinned

    def record(self, shape: SlotShape, machine: Machine | None = None) -> SlotRecord:
        return SlotRecord(
            shape=shape, index=self.index, cpus=list(self.cpus), machine=machine or this_machine()
        )


def plan_slots(
    settings: RoundSettings,
    count: int,
    cpus: list[int] | None = None,
    memory: int | None = None,
) -> list[Slot]:
    """`count` slots of the round's shape on this machine (or on `cpus` and `memory` bytes)."""
    shape = settings.slot_shape
    cpus = machine_cpus() if cpus is None else cpus
    memory = memory_total() if memory is None else memory
    where = round_settings_path(settings.round_id)
    field = "slot" if settings.slot is not None else "slot (the default for its kind)"
    if not shape.pinned:
        if shape.memory_bytes > memory:
            raise SlotsRefused(
                f"{where}: field {field}: memory_gib {shape.memory_gib:g} is more than this "
                f"machine's {memory / GIB:.1f} GiB"
            )
        return [Slot(k, ()) for k in range(count)]
    need_cpus, need_memory = count * shape.cpus, count * shape.memory_bytes
    if need_cpus > len(cpus) or need_memory > memory:
        raise SlotsRefused(
            f"{where}: fields max_parallel_sessions and {field}: {count} pinned slot(s) of "
            f"{shape.describe()} need {need_cpus} CPUs and {need_memory / GIB:g} GiB; this machine "
            f"holds {len(cpus)} CPUs ({','.join(map(str, cpus))}) and {memory / GIB:.1f} GiB, so "
            f"at most {max_slots(shape, cpus, memory)} such slot(s)"
        )
    return [Slot(k, tuple(cpus[k * shape.cpus : (k + 1) * shape.cpus])) for k in range(count)]


def max_slots(shape: SlotShape, cpus: list[int] | None = None, memory: int | None = None) -> int:
    """How many pinned slots of `shape` this machine holds."""
    cpus = machine_cpus() if cpus is None else cpus
    memory = memory_total() if memory is None else memory
    return min(len(cpus) // shape.cpus, memory // shape.memory_bytes)


class SlotPool:
    """A round's slots in this process: `take()` blocks until one is free."""

    def __init__(self, shape: SlotShape, slots: list[Slot]) -> None:
        self.shape = shape
        self.size = len(slots)
        self._free = list(slots)
        self._ready = threading.Condition()

    def acquire(self) -> Slot:
        with self._ready:
            while not self._free:
                self._ready.wait()
            return self._free.pop(0)

    def try_acquire(self) -> Slot | None:
        """A free slot, or None at once when every slot is taken."""
        with self._ready:
            return self._free.pop(0) if self._free else None

    def release(self, slot: Slot) -> None:
        with self._ready:
            self._free.append(slot)
            self._free.sort(key=lambda s: s.index)
            self._ready.notify()

    @contextlib.contextmanager
    def take(self) -> Iterator[Slot]:
        slot = self.acquire()
        try:
            yield slot
        finally:
            self.release(slot)


_POOLS: dict[str, SlotPool] = {}
_POOLS_LOCK = threading.Lock()


def pool_for(settings: RoundSettings, count: int | None = None) -> SlotPool:
    """The pool of this round's slots in this process: the parallel scheduler, a serial unit and
    the evaluations draw from the same one. The first caller fixes its size (`count`, default
    `max_parallel_sessions`); a later caller naming another size gets a new pool of that size."""
    with _POOLS_LOCK:
        pool = _POOLS.get(settings.round_id)
        if pool is None or (count is not None and count != pool.size):
            size = count or settings.max_parallel_sessions
            pool = SlotPool(settings.slot_shape, plan_slots(settings, size))
            _POOLS[settings.round_id] = pool
        return pool


@contextlib.contextmanager
def pinned(cpus: tuple[int, ...] | list[int]) -> Iterator[None]:
    """Pin the calling thread (and every thread and process it starts meanwhile) to `cpus`; an
    empty set leaves it as it is. The thread's own affinity is restored on exit."""
    if not cpus:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, set(cpus))
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


@contextlib.contextmanager
def unit_slot(settings: RoundSettings) -> Iterator[SlotRecord]:
    """A slot of the round's pool for one unit run in this thread, pinned while it runs."""
    pool = pool_for(settings)
    with pool.take() as slot, pinned(slot.cpus):
        yield slot.record(pool.shape)


@contextlib.contextmanager
def evaluation_slot(settings: RoundSettings) -> Iterator[Slot | None]:
    """A pinned round's evaluation takes a slot of the round's pool, as a session does, so its
    builds and browser run on CPUs no session holds meanwhile; an unpinned round's does not."""
    if not settings.slot_shape.pinned:
        yield None
        return
    with pool_for(settings).take() as slot, pinned(slot.cpus):
        yield slot


def round_plan(
    settings: RoundSettings, units: int, budget_usd: float, sessions: int | None = None
) -> str:
    """What the round will take, printed before any spending: its units, its slots on this
    machine (refused with `SlotsRefused` when they do not fit), the longest wall time the
    ceilings allow (every unit at the session ceiling, `max_parallel_sessions` at once) and
    the budget. `sessions`: at once, as derived (default: the round file's bound)."""
    count = sessions or settings.max_parallel_sessions
    plan_slots(settings, count)
    ceiling = settings.ceilings.wall_clock_minutes
    waves = -(-units // count)
    hours = waves * ceiling / 60
    return (
        f"plan: {units} unit(s), {count} at once in slots of {settings.slot_shape.describe()} "
        f"on {this_machine().hostname}; at most {hours:g} h of sessions ({waves} wave(s) at the "
        f"{ceiling:g}-minute ceiling; evaluations beside them); budget at most ${budget_usd:.2f}"
    )


REQUESTS_PER_SESSION_SECOND = 1.0
"""A session's most requests per second: the agent waits for each answer before its next step,
and one answer (a streamed turn) takes a second or more."""
_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def interval_seconds(interval: str | None) -> float | None:
    """ "10s", "1m", "2h" in seconds (None: not given or not understood)."""
    if not interval or interval[-1] not in _UNITS:
        return None
    try:
        return float(interval[:-1]) * _UNITS[interval[-1]]
    except ValueError:
        return None


def derive_parallel(
    settings: RoundSettings,
    requests: int | None,
    interval: str | None,
    cpus: list[int] | None = None,
    memory: int | None = None,
    note: str | None = None,
) -> ParallelDerivation:
    """Sessions at once: the least of the round file's bound (`max_parallel_sessions`), the slots
    of its shape this machine holds, and the sessions the key's rate limit (`requests` per
    `interval`, from `GET /key`) allows at `REQUESTS_PER_SESSION_SECOND` each. A limit the
    gateway's own `note` calls deprecated (live OpenRouter: "This field is deprecated and safe
    to ignore", beside e.g. 1000 per 1h) is recorded but not applied."""
    bound = settings.max_parallel_sessions
    shape = settings.slot_shape
    machine = max_slots(shape, cpus, memory) if shape.pinned else bound
    seconds = interval_seconds(interval)
    by_rate = None
    deprecated = says_deprecated(note)
    if requests is not None and requests > 0 and seconds and not deprecated:
        by_rate = max(1, int(requests / seconds / REQUESTS_PER_SESSION_SECOND))
    sessions = max(1, min(x for x in (bound, machine, by_rate) if x is not None))
    if by_rate is not None:
        rate = f"the key's rate limit ({requests} requests per {interval}) allows {by_rate}"
    elif deprecated:
        rate = (
            f"the key's rate limit ({requests} requests per {interval}) is not applied: the "
            "gateway calls it deprecated"
        )
    else:
        rate = f"the key states no rate limit (requests {requests}, interval {interval})"
    room = (
        f"this machine holds {machine} slot(s) of {shape.describe()}"
        if shape.pinned
        else f"its slots ({shape.describe()}) share this machine's CPUs"
    )
    basis = f"{sessions} at once: the round file allows {bound}, {room}, {rate}"
    return ParallelDerivation(
        round_bound=bound, machine_slots=machine, rate_limit_requests=requests,
        rate_limit_interval_seconds=seconds, rate_limit_sessions=by_rate, sessions=sessions,
        basis=basis,
    )  # fmt: skip
