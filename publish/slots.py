"""How a round was run, from its round file and its sessions' slot records (session.json 6)."""

from __future__ import annotations

from collections.abc import Iterable

from records.evidence.gateway import ParallelDerivation
from records.evidence.session import SessionRecord
from records.inputs import RoundSettings
from records.slots import Machine, SlotRecord


def _machine(m: Machine) -> str:
    return f"{m.hostname} ({m.cpu_model}, {m.cpu_count} CPUs, {m.memory_gib:g} GiB)"


def how_run(
    settings: RoundSettings,
    sessions: Iterable[SessionRecord | None],
    derived: ParallelDerivation | None = None,
) -> str:
    """One paragraph: the sessions at once (as the spend stage derived them, when it did), the
    slots' shape, what the sessions recorded, the machines."""
    shape = settings.slot_shape
    parallel = derived.sessions if derived is not None else settings.max_parallel_sessions
    text = (
        f"up to {parallel} session{'s' if parallel != 1 else ''} at once, each in a slot of "
        f"{shape.describe()}"
    )
    if derived is not None:
        text += f" (derived before spending: {derived.basis})"
    sessions = list(sessions)
    slots: list[SlotRecord] = [s.slot for s in sessions if s is not None and s.slot is not None]
    recorded = [s for s in sessions if s is not None]
    if slots:
        used = sorted({s.index for s in slots})
        machines = sorted({_machine(s.machine) for s in slots})
        text += (
            f"; {len(slots)} of {len(recorded)} sessions recorded their slot (slots "
            f"{', '.join(map(str, used))}) on {'; '.join(machines)}"
        )
    elif recorded:
        text += "; its sessions recorded no slot (written before slots were recorded)"
    if not shape.pinned:
        text += (
            ". The slots are not pinned: the sessions shared the machine's CPUs, so their elapsed "
            "times (and the efficiency points) are not comparable between units"
        )
    return text
