"""Rebuild `trace.json` from a session's native events with the adapter that recorded them.

Units and probes recorded before trace.json existed have only `events.jsonl`; scoring reads the
trace, so run `python -m harness.agents retrace ROUND` once for such a round (the session's own
record names the agent). The native events are never changed; an existing trace is kept unless
`force` (which also brings a schema-1 trace to the current trajectory schema).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from harness.agents import adapter
from harness.session.evidence import save_trace
from records.evidence.agent import AgentInfo
from records.evidence.round import PreflightRecord
from records.evidence.session import SessionRecord
from records.io import read_record
from records.layout import EVIDENCE_DIR, SessionPaths, round_paths


def _sessions(round_id: str, evidence_dir: Path) -> Iterator[tuple[SessionPaths, AgentInfo]]:
    """Every recorded session of the round with the agent its record names."""
    rpaths = round_paths(round_id, evidence_dir)
    for name in rpaths.units_with("session"):
        unit = rpaths.unit(name)
        yield unit, read_record(unit.session, SessionRecord).agent
    for key in rpaths.preflight_keys():
        record = read_record(rpaths.preflight(key), PreflightRecord)
        for probe in record.probes:
            yield rpaths.probe(record.model_key, probe.probe), record.agent


def retrace(round_id: str, evidence_dir: Path = EVIDENCE_DIR, force: bool = False) -> list[Path]:
    """Write the missing trace.json files of a round (all of them with `force`); returns them."""
    written = []
    for paths, info in _sessions(round_id, evidence_dir):
        if not paths.events.exists() or (paths.trace.exists() and not force):
            continue
        trace = adapter(info, str(paths.root)).read_trace(paths.events)
        save_trace(paths, trace)
        written.append(paths.trace)
    return written
