"""One documented replacement unit per failed unit, created only by an explicit command.

Only provider outages and harness failures qualify (seed: they are never scored as model
failures). The replacement is a new unit `<unit>-x1` holding `replacement.json` with the reason;
the failed unit's evidence stays as it is.
"""

from __future__ import annotations

import getpass
from pathlib import Path

from harness.session.evidence import now_iso
from records.evidence.round import ReplacementRecord
from records.evidence.session import SessionRecord
from records.io import read_record, write_record
from records.layout import EVIDENCE_DIR, UnitPaths, round_paths, unit_id

REPLACEABLE = ("provider_outage", "harness")


class ReplacementRefused(RuntimeError):
    """The unit may not be replaced (not failed for a replaceable reason, or replaced already)."""


def unit_name(model_key: str, repetition: int = 1, replacement: int = 0) -> str:
    base = unit_id(model_key, repetition)
    return f"{base}-x{replacement}" if replacement else base


def replacement_path(paths: UnitPaths) -> Path:
    return paths.root / "replacement.json"


def replacement_record(paths: UnitPaths) -> ReplacementRecord:
    path = replacement_path(paths)
    if not path.exists():
        raise ReplacementRefused(
            f"{paths.root.name} is a replacement unit without {path.name}: create it with "
            "create_replacement(round, unit, reason) first"
        )
    return read_record(path, ReplacementRecord)


def create_replacement(
    round_id: str, unit: str, reason: str, *, evidence_dir: Path = EVIDENCE_DIR
) -> ReplacementRecord:
    """Create the replacement of `unit` (e.g. `claude-opus-r1` -> `claude-opus-r1-x1`)."""
    if not reason.strip():
        raise ReplacementRefused("a replacement needs a written reason")
    if "-x" in unit.rsplit("-r", 1)[-1]:
        raise ReplacementRefused(f"{unit} is itself a replacement: one replacement per unit")
    rpaths = round_paths(round_id, evidence_dir)
    failed = rpaths.unit(unit)
    if not failed.session.exists():
        raise ReplacementRefused(f"{failed.session} missing: only a recorded unit can be replaced")
    session = read_record(failed.session, SessionRecord)
    if session.failure_class not in REPLACEABLE:
        raise ReplacementRefused(
            f"{unit} failed as {session.failure_class!r}: only provider outages and harness "
            "failures get a replacement (model failures are scored)"
        )
    target = rpaths.unit(f"{unit}-x1")
    if replacement_path(target).exists() or target.session.exists():
        raise ReplacementRefused(f"{unit} already has its one replacement ({target.root.name})")
    record = ReplacementRecord(
        round_id=round_id,
        replaced_unit=unit,
        replacement_unit=target.root.name,
        failure_class=session.failure_class,
        reason=reason.strip(),
        created_at=now_iso(),
        created_by=getpass.getuser(),
    )
    write_record(replacement_path(target), record)
    return record
