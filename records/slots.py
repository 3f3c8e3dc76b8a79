"""The slot a unit runs in: a declared shape of CPUs and memory, where it ran, and on what machine.

A round file declares the shape (`RoundSettings.slot`); `harness/slot_plan.py` cuts the machine
into slots of that shape and hands one to each running unit (its session, then its evaluation);
session.json records the slot the session had and the machine it ran on (`SlotRecord`, `Machine`).

A pinned slot is a set of CPUs of its own (the unit's process tree is pinned to them by CPU
affinity, inherited by the sandbox, the agent and everything they start) plus the session
sandbox's memory budget (`sandbox.limits.Limits.resident_total`). An unpinned slot shares the
machine's CPUs with every other unit: only a simulated round may run so, and its elapsed times
are then not comparable between units.
"""

from __future__ import annotations

from pydantic import Field

from records.base import Frozen, Record

GIB = 1024**3


class SlotShape(Frozen):
    """What one unit gets: `cpus` CPUs of its own (when `pinned`) and `memory_gib` of memory."""

    cpus: int = Field(ge=1, le=256, description="CPUs the unit's processes are pinned to")
    memory_gib: float = Field(
        gt=0, le=1024, description="the session sandbox's resident-memory budget (all processes)"
    )
    pinned: bool = Field(
        default=True,
        description="false: the unit shares the machine's CPUs with the others (simulated rounds "
        "only; elapsed times are then not comparable between units)",
    )

    @property
    def memory_bytes(self) -> int:
        return int(self.memory_gib * GIB)

    def describe(self) -> str:
        cpus = f"{self.cpus} CPU{'s' if self.cpus != 1 else ''}"
        memory = f"{self.memory_gib:g} GiB"
        return f"{cpus}, {memory}" if self.pinned else f"shared CPUs (unpinned), {memory}"


REAL_SLOT = SlotShape(cpus=2, memory_gib=8, pinned=True)
"""A real round's slot when its file names none: two CPUs (the agent's Node process beside its own
`npm run build` and type check) and the 8 GiB the session sandbox has always allowed."""
SHARED_SLOT = SlotShape(cpus=1, memory_gib=8, pinned=False)
"""A simulated round's slot when its file names none: shared CPUs, as such rounds always ran."""


class Machine(Record):
    """The machine a unit ran on."""

    hostname: str
    cpu_model: str
    cpu_count: int = Field(description="the machine's CPUs (os.cpu_count)")
    memory_gib: float = Field(description="MemTotal of /proc/meminfo")


class SlotRecord(Record):
    """The slot one unit's session ran in (session.json schema 6)."""

    shape: SlotShape
    index: int = Field(ge=0, description="which of the machine's slots (0-based)")
    cpus: list[int] = Field(
        default_factory=list, description="the CPUs it was pinned to (empty: unpinned, shared)"
    )
    machine: Machine

    @property
    def pinned(self) -> bool:
        return bool(self.cpus)

    def describe(self) -> str:
        if not self.cpus:
            return f"slot {self.index} ({self.shape.describe()})"
        return f"slot {self.index} ({self.shape.describe()}; CPUs {','.join(map(str, self.cpus))})"
