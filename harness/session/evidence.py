"""A unit's evidence files and its `.running` marker (crash safety).

The marker is written atomically before any request can cost money and removed only after
session.json is written. A marker without session.json means the runner died mid-session: the next
call records the unit as a harness failure with whatever evidence exists instead of running it
again. A marker that does not validate (or is missing beside a session's logs) stops the next call
with `MarkerUnreadable`: paid work may have begun, so the operator decides, nothing starts.
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from harness.session.process import kill_group
from harness.session.worktree import archive_bytes, final_diff
from records.evidence.agent import AgentTrace, StepMetrics
from records.evidence.gateway import read_exchanges
from records.evidence.session import RunningMarker
from records.io import RecordError, atomic_write_bytes, read_record, write_record
from records.layout import SessionPaths, UnitPaths
from sandbox.runner import reclaim


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def process_start_time(pid: int) -> str | None:
    """Field 22 of /proc/<pid>/stat: tells a live process from a reused pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def runner_alive(marker: RunningMarker) -> bool:
    """Is the runner that wrote `marker` still the same live process?"""
    return marker.runner_start is not None and process_start_time(marker.runner_pid) == (
        marker.runner_start
    )


def write_marker(paths: UnitPaths, marker: RunningMarker) -> None:
    write_record(paths.running_marker, marker)


class MarkerUnreadable(RuntimeError):
    """Paid work may have begun but the `.running` marker cannot say by whom: stop and ask."""


def _what_to_do(unit: str) -> str:
    return (
        f"A session of unit {unit!r} began here and may still be running or may have died "
        "mid-session; another would spend money again and append to its logs, so none was "
        f"started. Check that no runner of {unit!r} is alive (ps -ef | grep {unit}; a doit "
        "still running this round), then write the marker back with `python -m "
        f"harness.marker_repair {unit} --round <round> --reason '<how you know>' --runner-dead` "
        "(it keeps this file and records the repair) so that the next run records the unit as "
        "a harness failure. Never delete it."
    )


def read_marker(paths: UnitPaths, unit: str | None = None) -> RunningMarker | None:
    """The unit's validated marker, or None when no session of the unit ever began here.

    Raises `MarkerUnreadable` (naming the file and what the operator should do) when the marker
    does not parse, names another unit than `unit`, or is missing beside session logs."""
    name = unit or paths.root.name
    if not paths.running_marker.exists():
        logs = [p for p in (paths.events, paths.gateway) if p.exists()]
        if logs and not paths.session.exists():
            raise MarkerUnreadable(
                f"{paths.running_marker}: missing, yet {logs[0]} holds a session's log. "
                + _what_to_do(name)
            )
        return None
    try:
        marker = read_record(paths.running_marker, RunningMarker)
    except RecordError as exc:
        raise MarkerUnreadable(f"unreadable running marker: {exc}\n{_what_to_do(name)}") from exc
    if marker.unit != name:
        raise MarkerUnreadable(
            f"{paths.running_marker}: field unit: {marker.unit!r} is not {name!r}. "
            + _what_to_do(name)
        )
    return marker


def new_marker(unit: str, scratch: Path, worktree: Path) -> RunningMarker:
    pid = os.getpid()
    return RunningMarker(
        unit=unit,
        runner_pid=pid,
        runner_start=process_start_time(pid),
        scratch=str(scratch),
        worktree=str(worktree),
        started_at=now_iso(),
    )


def end_leftovers(marker: RunningMarker) -> None:
    """Kill an agent process group the dead runner left behind (unsandboxed runs)."""
    if marker.agent_pgid is not None and not runner_alive(marker):
        kill_group(marker.agent_pgid, grace=0.5)


def save_worktree_evidence(paths: UnitPaths, worktree: Path, base: str | None) -> None:
    """worktree.diff, worktree.tar.gz and PROGRESS.md as the session left them."""
    reclaim(worktree)  # a killed runner leaves it to the sandbox's uid; git refuses that
    if not worktree.is_dir():
        return
    if base:
        atomic_write_bytes(paths.diff, final_diff(worktree, base))
    atomic_write_bytes(paths.archive, archive_bytes(worktree))
    progress = worktree / "PROGRESS.md"
    if progress.is_file() and not progress.is_symlink():
        atomic_write_bytes(paths.progress, progress.read_bytes())


def save_trace(paths: SessionPaths, trace: AgentTrace) -> None:
    """trace.json, the session's trajectory, with each turn's cost as the gateway metered it."""
    write_record(paths.trace, with_metered_cost(trace, paths.gateway))


def with_metered_cost(trace: AgentTrace, gateway: Path) -> AgentTrace:
    """Each agent turn's cost from the recording proxy: the turn's model requests are the
    gateway's chat requests of the same step number (a retry repeats its step and is added).
    Where the agent's turns and the gateway's steps do not pair up one to one, every turn's cost
    stays unknown and the trajectory's notes say why; the unit's total is the gateway's anyway."""
    costs: dict[int, float | None] = {}
    for rec in read_exchanges(gateway):
        if rec.kind == "chat" and rec.step is not None:
            before, cost = costs.get(rec.step, 0.0), rec.cost_usd
            costs[rec.step] = None if before is None or cost is None else before + cost
    turns = [step for step in trace.steps if step.source == "agent"]
    if not costs:
        return trace
    if len(turns) != max(costs):
        note = (
            f"Per-turn cost not shown: the agent reported {len(turns)} turns, the gateway "
            f"metered {max(costs)} steps."
        )
        return trace.model_copy(update={"notes": " ".join(filter(None, [trace.notes, note]))})
    priced = trace.model_copy(deep=True)
    for number, step in enumerate(s for s in priced.steps if s.source == "agent"):
        step.metrics = (step.metrics or StepMetrics()).model_copy(
            update={"cost_usd": costs.get(number + 1)}
        )
    return priced


def evidence_present(paths: UnitPaths) -> list[str]:
    names = [p.name for p in paths.root.iterdir() if p.is_file()] if paths.root.is_dir() else []
    return sorted(n for n in names if not n.startswith("."))


def remove_scratch(scratch: Path) -> None:
    shutil.rmtree(scratch, ignore_errors=True)


def describe(marker: RunningMarker) -> str:
    return json.dumps(marker.model_dump(), sort_keys=True)
