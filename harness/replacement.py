"""One documented replacement unit per failed unit, created only by an explicit command.

Exactly what the methodology allows: provider outages, harness failures and evaluator failures
(seed: they are never scored as model-quality failures). A model failure is scored, an invalid
run (identity, retry, changed prompt or starter) is not replaceable: a changed prompt or starter
is our error and the runner already refuses to start such a session. The replacement is a new
unit `<unit>-x1` holding `replacement.json` with the reason; the failed unit's evidence stays.
"""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import Literal

from harness.session.evidence import now_iso
from records.evidence.evaluation import EvaluationResult
from records.evidence.round import ReplacementRecord
from records.evidence.session import FailureClass, SessionRecord
from records.io import read_record, write_record
from records.layout import EVIDENCE_DIR, UnitPaths, round_paths, unit_id

ReplacedClass = FailureClass | Literal["evaluator"]
REPLACEABLE = ("provider_outage", "harness")  # session failure classes; plus evaluator failures


class ReplacementRefused(RuntimeError):
    """The unit may not be replaced (not failed for a replaceable reason, or replaced already)."""


def unit_name(model_key: str, repetition: int = 1, replacement: int = 0) -> str:
    base = unit_id(model_key, repetition)
    return f"{base}-x{replacement}" if replacement else base


def replacement_record(paths: UnitPaths) -> ReplacementRecord:
    path = paths.replacement
    if not path.exists():
        raise ReplacementRefused(
            f"{paths.root.name} is a replacement unit without {path.name}: create it with "
            "create_replacement(round, unit, reason) first"
        )
    return read_record(path, ReplacementRecord)


def evaluator_failure(paths: UnitPaths) -> str:
    """Why the evaluator (not the model) failed on this unit's result.json; '' when it did not.

    The same rule as the leaderboard's `evaluation_failed`: an evaluator error (its own or a gate
    probe's), or a check not executed on a submission that installed and built.
    """
    if not paths.result.exists():
        return ""
    result = read_record(paths.result, EvaluationResult)
    if result.evaluator_error:
        return f"evaluator error: {result.evaluator_error}"
    probe_errors = [g.id for g in result.gates if g.status == "evaluator_error"]
    if probe_errors:
        return f"gate probe evaluator error: {', '.join(probe_errors)}"
    not_run = [c.id for c in result.checks if not c.executed]
    if result.install_ok and result.build_ok and not_run:
        return f"checks not executed: {', '.join(not_run)}"
    return ""


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
    failure_class: ReplacedClass = session.failure_class
    evaluator = "" if failure_class in REPLACEABLE else evaluator_failure(failed)
    hashes = (session.prompt_sha256, session.starter_tree_sha256)
    frozen = (session.frozen_prompt_sha256, session.frozen_starter_tree_sha256)
    if None not in hashes and hashes != frozen:  # both measured (a session could have started)
        raise ReplacementRefused(
            f"{unit} is invalid: its prompt or starter differs from the frozen round (the runner "
            "refused to start it). That is our error, not a failure a replacement may cover: "
            "restore the frozen inputs or create a new round"
        )
    if failure_class not in REPLACEABLE and not evaluator:
        raise ReplacementRefused(
            f"{unit} failed as {failure_class!r}: only provider outages, harness failures and "
            "evaluator failures get a replacement (model failures are scored; invalid runs are "
            "listed with their reasons)"
        )
    if evaluator:
        failure_class = "evaluator"
    target = rpaths.unit(f"{unit}-x1")
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
