"""A calibration counts only for the evaluator that made it (issue 29).

calibration.json (schema 2) records the digest of the evaluator's sources that made it; the paid
stages refuse a calibration made by another evaluator (or a schema-1 record that names none), and
doit's calibrate task runs again when the evaluator changes. The record is written by the real
`calibrate`; only the starter's evaluation (a minute of browser work, its own test:
test_evaluator_calibration.py) is replaced by the result a starter at the reference score gives.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scoring_support import result
from session_support import freeze_demo

import dodo
import evaluator.calibration as calibration
from harness.preconditions import PreconditionFailed, require_calibration
from harness.spend import check_spend
from harness.unit import UnitRefused, run_unit
from records import layout
from records.evidence.evaluation import Calibration, EvaluationResult
from records.io import read_record, write_json
from records.layout import evaluator_sha256, evaluator_source_files, round_paths
from records.round import Round
from records.task import DEFAULT_TASK, load_task

CALIBRATION = load_task(DEFAULT_TASK).spec.calibration_score

STARTER_FAILS = ("filter-journey", "url-state", "venue-detail", "enquiry-form", "long-copy",
                 "mobile-nav", "dialog-focus", "reduced-motion")  # fmt: skip


def starter_result() -> EvaluationResult:
    """What the evaluator gives the starter: 26/60, the three core journeys missing, gate failed."""
    return result(failed=STARTER_FAILS, gates=("core-journey",))


@pytest.fixture
def calibrated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A passing calibration written by `calibrate` with the current evaluator."""
    monkeypatch.setattr(calibration, "materialize", lambda task, dest: dest.mkdir(parents=True))
    monkeypatch.setattr(calibration, "evaluate", lambda app, out, task: starter_result())
    evidence = tmp_path / "evidence"
    assert calibration.calibrate(Round.load("showcase", evidence)) == 0
    return evidence


def another_evaluator(monkeypatch: pytest.MonkeyPatch) -> None:
    """The evaluator's sources change (one source file fewer): a different judge."""
    files = evaluator_source_files()
    monkeypatch.setattr(layout, "evaluator_source_files", lambda: files[1:])


def test_the_calibration_records_the_evaluator_that_made_it(calibrated: Path) -> None:
    record = read_record(round_paths("showcase", calibrated).calibration, Calibration)
    assert record.schema_version == 3 and record.passed and record.checks_total == 15
    assert record.automated_score == CALIBRATION
    assert record.evaluator_sha256 == evaluator_sha256()
    assert require_calibration(Round.load("showcase", calibrated)) == record


def test_a_calibration_made_by_another_evaluator_is_refused(
    calibrated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made_by = evaluator_sha256()
    another_evaluator(monkeypatch)
    assert evaluator_sha256() != made_by
    with pytest.raises(PreconditionFailed, match=rf"made by evaluator {made_by[:12]}, not the "
                       r"current evaluator .*run `doit calibrate`"):  # fmt: skip
        require_calibration(Round.load("showcase", calibrated))


def test_the_unit_stage_refuses_a_stale_calibration_before_spending(
    calibrated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    freeze_demo(calibrated)
    check_spend(Round.load("showcase", calibrated))
    another_evaluator(monkeypatch)
    with pytest.raises(UnitRefused, match=r"not the current evaluator .*doit calibrate"):
        run_unit(Round.load("showcase", calibrated), "idle", check_order=False)
    assert not round_paths("showcase", calibrated).unit("idle-r1").root.exists()  # nothing spent


def test_a_schema_1_calibration_loads_but_names_no_evaluator(tmp_path: Path) -> None:
    """Older files load; a passing one cannot show which evaluator made it, so it is refused."""
    path = round_paths("showcase", tmp_path).calibration
    fields = {
        "round_id": "showcase", "passed": True, "automated_score": CALIBRATION,
        "expected_score": CALIBRATION, "checks_executed": 15, "hard_gate_failed": True,
        "missing_core_journeys": ["filter", "detail", "enquiry"], "install_ok": True,
        "build_ok": True, "failed_checks": [], "expected_failed_checks": [], "reasons": [],
        "result": "calibration/result.json", "duration_s": 60.0, "schema_version": 1,
    }  # fmt: skip
    write_json(path, fields)
    record = read_record(path, Calibration)
    assert record.evaluator_sha256 is None  # and what it calibrated was atlas-rooms:
    assert (record.checks_total, record.journeys) == (15, ["filter", "detail", "enquiry"])
    with pytest.raises(PreconditionFailed, match=r"an evaluator it does not name .*schema 1"):
        require_calibration(Round.load("showcase", tmp_path))


def test_doit_calibrates_again_when_the_evaluator_changes(
    calibrated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = dodo.task_calibrate()
    assert set(map(str, evaluator_source_files())) <= set(task["file_dep"])
    monkeypatch.setattr(dodo, "ROUND", Round.load("showcase", calibrated))
    (current,) = task["uptodate"]
    assert current() is True
    another_evaluator(monkeypatch)  # e.g. a source removed: file_dep alone would not notice
    assert current() is False
    monkeypatch.undo()
    monkeypatch.setattr(dodo, "ROUND", Round.load("showcase", calibrated))
    path = round_paths("showcase", calibrated).calibration
    path.write_text(json.dumps({**json.loads(path.read_text()), "schema_version": 1,
                                "evaluator_sha256": None}))  # fmt: skip
    assert current() is False
