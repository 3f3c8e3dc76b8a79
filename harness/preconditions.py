"""What must hold before a unit spends anything, checked by the code that spends.

    require_preconditions(rnd)   # raises PreconditionFailed

doit's task order runs `calibrate` and `spend` before `unit`, but a unit started directly (`python
-m harness.parallel`, `run_unit`) must not rely on that: the key check must have passed (every
round: a simulated round's spend stage records one too) and the calibration must have passed, the
evaluator scoring the starter exactly the rubric's reference (seed: "This catches a permissive,
overly strict or mechanically broken evaluator before money is spent"), made by the current
evaluator (calibration.json's `evaluator_sha256` equals the digest of today's evaluator sources;
doit's calibrate task re-runs when those files change).
"""

from __future__ import annotations

from harness.spend import SpendRefused, require_key_check
from records.evidence.evaluation import Calibration
from records.io import RecordError, read_record
from records.layout import evaluator_sha256
from records.round import Round
from records.rubric import MAX_AUTOMATED


class PreconditionFailed(RuntimeError):
    """The calibration or the key check has not passed: nothing may be spent."""


def require_calibration(rnd: Round) -> Calibration:
    """The round's calibration.json exists, parses, passed, scored exactly the reference and was
    made by the current evaluator."""
    path = rnd.paths.calibration
    expected = rnd.task.spec.calibration_score
    if not path.exists():
        raise PreconditionFailed(
            f"{path} is missing: run the calibration stage (`doit calibrate`) before any paid "
            f"session; the evaluator must score the starter exactly {expected}/"
            f"{MAX_AUTOMATED} first"
        )
    try:
        record = read_record(path, Calibration)
    except RecordError as exc:
        raise PreconditionFailed(f"calibration unreadable, nothing is spent: {exc}") from exc
    if not record.passed or record.automated_score != expected:
        why = "; ".join(record.reasons) or f"automated score {record.automated_score}"
        raise PreconditionFailed(
            f"{path}: calibration did not pass ({why}); expected exactly {expected}/"
            f"{MAX_AUTOMATED}: fix the evaluator and run `doit calibrate` before any session"
        )
    current = evaluator_sha256()
    if record.evaluator_sha256 != current:
        made_by = (
            f"evaluator {record.evaluator_sha256[:12]}"
            if record.evaluator_sha256
            else "an evaluator it does not name (calibration.json schema 1)"
        )
        raise PreconditionFailed(
            f"{path}: the calibration was made by {made_by}, not the current evaluator "
            f"{current[:12]} (its sources changed since): run `doit calibrate` so the evaluator "
            "that will judge the units passes first; nothing is spent"
        )
    return record


def require_preconditions(rnd: Round) -> None:
    """A passing key check (`key-check.json`), then a passing calibration, or refuse."""
    try:
        require_key_check(rnd, True)
    except SpendRefused as exc:
        raise PreconditionFailed(str(exc)) from exc
    require_calibration(rnd)
