"""One documented replacement unit per failed unit, created only by an explicit command.

Exactly what the methodology allows: provider outages, harness failures and evaluator failures
(seed: they are never scored as model-quality failures). An evaluator failure is the
leaderboard's `evaluation_failed`: a missing or unreadable result.json counts. A model failure is
scored, an invalid run (identity, retry, changed prompt or starter, required evidence missing) is
not replaceable: a changed prompt or starter is our error and the runner already refuses to start
such a session. The replacement is a new
unit `<unit>-x1` holding `replacement.json` with the reason; the failed unit's evidence stays.
"""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import Literal

from harness.attribution import REPLACEABLE_CLASSES
from harness.session.evidence import now_iso
from records.archive import archive_altered
from records.evidence.evaluation import EvaluationResult
from records.evidence.manifest import EvidenceManifest
from records.evidence.round import ReplacementRecord
from records.evidence.session import FailureClass, SessionRecord
from records.io import RecordError, read_record, write_record
from records.layout import EVIDENCE_DIR, RoundPaths, UnitPaths, round_paths
from records.result_check import frozen_judge, result_problems
from records.unit_ids import UnitId, unit_id

ReplacedClass = FailureClass | Literal["evaluator"]
# session failure classes (harness.attribution decides them); plus evaluator failures
REPLACEABLE = REPLACEABLE_CLASSES


class ReplacementRefused(RuntimeError):
    """The unit may not be replaced (not failed for a replaceable reason, or replaced already)."""


def replacement_record(paths: UnitPaths) -> ReplacementRecord:
    path = paths.replacement
    if not path.exists():
        raise ReplacementRefused(
            f"{paths.root.name} is a replacement unit without {path.name}: create it with "
            "create_replacement(round, unit, reason) first"
        )
    return read_record(path, ReplacementRecord)


def evaluator_failure(paths: UnitPaths) -> str:
    """Why the evaluator (not the model) failed on this unit; '' when it did not.

    The leaderboard's `evaluation_failed` rule: no usable result.json (missing, or unreadable:
    reported, never raised), a result that is not the round's task's or judge's
    (`records.result_check`), or the result's own `evaluation_failures` (an evaluator error, a
    gate probe's failure, a check not executed on a submission that installed and built).
    """
    if not paths.result.exists():
        return "evaluation/result.json missing"
    try:
        result = read_record(paths.result, EvaluationResult)
    except RecordError as exc:
        return f"evaluation/result.json unreadable: {exc}"
    manifest = paths.evaluation_files.manifest
    judged = read_record(manifest, EvidenceManifest) if manifest.is_file() else None
    wrong = result_problems(result, frozen_judge(RoundPaths(paths.root.parent.parent)), judged)
    if wrong:
        return "evaluation/result.json is not a result of the round's task and judge: " + (
            "; ".join(wrong)
        )
    return "; ".join(result.evaluation_failures)


def missing_evidence(paths: UnitPaths, session: SessionRecord) -> list[str]:
    """events.jsonl and each required file the session recorded at its end, missing now (the
    leaderboard lists such a unit as invalid, evidence missing)."""
    recorded = set(session.evidence_files)
    required = [paths.events, *(p for p in paths.required_evidence if p.name in recorded)]
    return [p.name for p in dict.fromkeys(required) if not p.exists()]


def _session(paths: UnitPaths) -> SessionRecord:
    if not paths.session.exists():
        raise ReplacementRefused(
            f"{paths.session} missing: only a recorded unit can be replaced (the leaderboard "
            "lists it as invalid, evidence missing)"
        )
    try:
        return read_record(paths.session, SessionRecord)
    except RecordError as exc:
        raise ReplacementRefused(
            f"{exc}: an unreadable session record is missing evidence (invalid), not a "
            "failure a replacement may cover"
        ) from exc


def create_replacement(
    round_id: str, unit: str, reason: str, *, evidence_dir: Path = EVIDENCE_DIR
) -> ReplacementRecord:
    """Create the replacement of `unit` (e.g. `claude-opus-r1` -> `claude-opus-r1-x1`).

    The order of the leaderboard's statuses: a provider outage or harness failure is
    replaceable; an invalid run (changed inputs, identity, retries, evidence missing) is not; a
    valid run whose evaluation failed is; anything else is the model's own, scored.
    """
    if not reason.strip():
        raise ReplacementRefused("a replacement needs a written reason")
    try:
        failed_id = UnitId.parse(unit)
    except ValueError as exc:
        raise ReplacementRefused(str(exc)) from exc
    if failed_id.is_replacement:
        raise ReplacementRefused(f"{unit} is itself a replacement: one replacement per unit")
    rpaths = round_paths(round_id, evidence_dir)
    failed = rpaths.unit(unit)
    session = _session(failed)
    failure_class: ReplacedClass = session.failure_class
    hashes = (session.prompt_sha256, session.starter_tree_sha256)
    frozen = (session.frozen_prompt_sha256, session.frozen_starter_tree_sha256)
    if None not in hashes and hashes != frozen:  # both measured (a session could have started)
        raise ReplacementRefused(
            f"{unit} is invalid: its prompt or starter differs from the frozen round (the runner "
            "refused to start it). That is our error, not a failure a replacement may cover: "
            "restore the frozen inputs or create a new round"
        )
    evaluator = ""
    if failure_class not in REPLACEABLE:
        why = list(session.invalid_reasons) if session.validity != "valid" else []
        if not why and (missing := missing_evidence(failed, session)):
            why = [f"required evidence missing: {', '.join(missing)}"]
        if not why and (altered := archive_altered(failed, session)):
            why = [f"required evidence altered: {failed.archive.name}: {altered}"]
        if why:
            raise ReplacementRefused(
                f"{unit} is invalid ({'; '.join(why) or 'session marked invalid'}): only provider "
                "outages, harness failures and evaluator failures get a replacement (model "
                "failures are scored; invalid runs are listed with their reasons)"
            )
        evaluator = evaluator_failure(failed)
    if failure_class not in REPLACEABLE and not evaluator:
        raise ReplacementRefused(
            f"{unit} failed as {failure_class!r}: only provider outages, harness failures and "
            "evaluator failures get a replacement (model failures are scored; invalid runs are "
            "listed with their reasons)"
        )
    if evaluator:
        failure_class = "evaluator"
    target = rpaths.unit(
        unit_id(failed_id.model_key, failed_id.repetition, replacement=1, agent=failed_id.agent)
    )
    if target.replacement.exists() or target.session.exists():
        raise ReplacementRefused(f"{unit} already has its one replacement ({target.root.name})")
    record = ReplacementRecord(
        round_id=round_id,
        replaced_unit=unit,
        replacement_unit=target.root.name,
        failure_class=failure_class,
        reason=reason.strip() + (f" [{evaluator}]" if evaluator else ""),
        created_at=now_iso(),
        created_by=getpass.getuser(),
    )
    write_record(target.replacement, record)
    return record
