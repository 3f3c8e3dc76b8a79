"""Is a unit's evidence what its writers wrote? Checked per unit, never per round.

    check_evidence(unit, session) -> Integrity   (problems: (file, why); how it was checked)

A unit whose session.json lists `manifest.json` (every unit the runner recorded since manifests
exist, `records/manifest.py`) is checked by its manifests: the session's (events, trace, gateway
log, diff, worktree archive, PROGRESS.md, the agent's stderr) and, once it has a result.json, the
evaluation's (result.json, its screenshots and video). A listed file missing or not hashing as
recorded, or a manifest missing or unreadable, is a problem naming the file.

A unit recorded before manifests (session.json does not list one) is checked by the files
present, and flagged so (`checked` "files_present"): events.jsonl and each required file
session.json recorded must exist, the worktree archive must hash as session.json recorded, the
screenshots and video result.json names must exist, and events.jsonl may not have lost lines
since trace.json was read from it (more lines that are not JSON than the trace counted, or a line
the trace cites past the file's end: truncated mid-line). With a manifest the hash decides, so an
agent killed mid-line (whose last line was never whole) is not mistaken for a truncated file.

In both, a trace.json that does not parse is a problem of that unit alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from records.archive import archive_altered
from records.evidence.agent import AgentTrace, native_line
from records.evidence.evaluation import EvaluationResult
from records.evidence.manifest import EvidenceManifest
from records.evidence.session import SessionRecord
from records.io import RecordError, read_record
from records.layout import UnitPaths
from records.manifest import evaluation_files, manifest_problems

Checked = Literal["manifest", "files_present"]
MANIFEST = "manifest.json"


@dataclass(frozen=True)
class Integrity:
    problems: list[tuple[Path, str]]
    checked: Checked
    manifest: EvidenceManifest | None = None
    """The evaluation's manifest, when it was read (its judge's digest is checked with the
    result, `scoring/result_check.py`)."""


def _manifest(
    path: Path, expected: str, problems: list[tuple[Path, str]]
) -> EvidenceManifest | None:
    """The manifest at `path`; a problem when it is missing (`expected`: why it must be there)
    or unreadable."""
    if not path.is_file():
        problems.append((path, f"missing: {expected}"))
        return None
    try:
        return read_record(path, EvidenceManifest)
    except RecordError as exc:
        problems.append((path, "unreadable: " + str(exc).removeprefix(f"{path}: ")))
        return None


def _events_truncated(paths: UnitPaths, trace: AgentTrace) -> str:
    """Why events.jsonl is no longer the log trace.json was read from ('' when it may be)."""
    lines = paths.events.read_text(encoding="utf-8", errors="replace").split("\n")
    malformed = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            json.loads(line)
        except ValueError:
            malformed += 1
    if malformed > trace.malformed_lines:
        return (
            f"truncated or altered: {malformed} lines are not JSON, trace.json counted "
            f"{trace.malformed_lines} when it was read"
        )
    cited = [native_line(p.source) for p in trace.parts() if p.source]
    last = max((n for n in cited if n is not None), default=0)
    if last > len(lines):
        return f"truncated: trace.json cites line {last}, the file has {len(lines)}"
    return ""


def check_evidence(
    paths: UnitPaths,
    session: SessionRecord,
    trace: AgentTrace | None,
    trace_error: str | None,
    result: EvaluationResult | None,
) -> Integrity:
    """Every problem of the unit's evidence (rules in the module docstring)."""
    problems: list[tuple[Path, str]] = []
    if trace_error is not None:
        problems.append((paths.trace, trace_error))
    altered = archive_altered(paths, session)
    if altered:
        problems.append((paths.archive, f"altered: {altered}"))
    if MANIFEST not in session.evidence_files:
        recorded = set(session.evidence_files)
        required = [paths.events, *(p for p in paths.required_evidence if p.name in recorded)]
        problems += [(p, "missing") for p in dict.fromkeys(required) if not p.exists()]
        why = _events_truncated(paths, trace) if trace and paths.events.is_file() else ""
        if why:
            problems.append((paths.events, why))
        if result is not None:
            named = evaluation_files(paths, result)[1:]
            problems += [(p, "missing") for p in named if not p.is_file()]
        return Integrity(_unique(problems), "files_present")
    session_manifest = _manifest(paths.manifest, "session.json lists it", problems)
    if session_manifest is not None:
        problems += manifest_problems(paths.root, session_manifest)
    evaluation = None
    if result is not None:
        evaluation = _manifest(
            paths.evaluation_files.manifest, "the evaluation wrote result.json", problems
        )
        if evaluation is not None:
            problems += manifest_problems(paths.evaluation, evaluation)
    return Integrity(_unique(problems), "manifest", evaluation)


def _unique(problems: list[tuple[Path, str]]) -> list[tuple[Path, str]]:
    """One problem per file (the first found)."""
    seen: dict[Path, str] = {}
    for path, why in problems:
        seen.setdefault(path, why)
    return list(seen.items())
