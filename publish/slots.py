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
    sessions = list(sessions)
    slots: list[SlotRecord] = [s.slot for s in sessions if s is not None and s.slot is not None]
    recorded = [s for s in sessions if s is not None]
    machines = sorted({_machine(s.machine) for s in slots})
    text = (
        f"up to {parallel} session{'s' if parallel != 1 else ''} at once, each in a slot of "
        f"{shape.describe()}{' on ' + '; '.join(machines) if machines else ''}."
    )
    if derived is not None:
        text += f" Derived before spending: {derived.basis}."
    if slots:
        text += f" {len(slots)} of {len(recorded)} sessions recorded their slot."
    elif recorded:
        text += " Its sessions recorded no slot (written before slots were recorded)."
    if not shape.pinned:
        text += (
            " Not pinned: the sessions shared the machine's CPUs, so their elapsed times (and the "
            "efficiency points) are not comparable between units."
        )
    return text
