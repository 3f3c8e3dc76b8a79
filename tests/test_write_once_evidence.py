"""Derived evidence is written once: a re-run of the catalogue check, the key check, the
calibration or a unit's evaluation keeps the earlier files in a dated `history/` folder (same
names, same bytes) instead of replacing them, and the contract names hold the newest."""

from __future__ import annotations

from pathlib import Path

import pytest
from session_support import freeze_demo
from test_calibration_currency import starter_result

from evaluator import calibration
from evaluator.unit_evaluation import evaluate_unit
from harness.catalogue.stage import catalogue_stage
from harness.session.worktree import archive_bytes
from harness.spend import check_spend
from records.evidence.evaluation import Calibration, EvaluationResult
from records.io import atomic_write_bytes, read_record
from records.layout import round_paths
from records.round import Round


def history_copies(history: Path, name: str) -> list[Path]:
    return sorted(history.glob(f"*/{name}"))


def test_catalogue_and_key_check_reruns_keep_the_earlier_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    evidence = tmp_path / "evidence"
    freeze_demo(evidence)
    paths = round_paths("showcase", evidence)
    assert catalogue_stage(Round.load("showcase", evidence))
    check_spend(Round.load("showcase", evidence))
    first = {p.name: p.read_bytes() for p in (paths.catalogue, paths.key_check)}
    assert not paths.history.exists()  # a first run has nothing to keep
    assert catalogue_stage(
        Round.load("showcase", evidence)
    )  # e.g. after `doit forget catalogue spend`
    check_spend(Round.load("showcase", evidence))
    for name, data in first.items():
        kept = history_copies(paths.history, name)
        assert [p.read_bytes() for p in kept] == [data], name
    assert paths.catalogue.exists() and paths.key_check.exists()  # the names are contracts


def test_a_re_evaluation_keeps_the_earlier_result(tmp_path: Path) -> None:
    paths = round_paths("showcase", tmp_path / "evidence").unit("idle-r1")
    worktree = tmp_path / "wt"
    worktree.mkdir()
    (worktree / "package.json").write_text("{ not json")  # fails at install: a fast evaluation
    atomic_write_bytes(paths.archive, archive_bytes(worktree))
    evaluate_unit(Round.load("showcase", tmp_path / "evidence"), "idle-r1")
    earlier = paths.result.read_bytes()
    evaluate_unit(Round.load("showcase", tmp_path / "evidence"), "idle-r1")
    kept = history_copies(paths.history, "evaluation/result.json")
    assert [p.read_bytes() for p in kept] == [earlier]
    assert read_record(paths.result, EvaluationResult).install_ok is False  # the new one


def test_a_calibration_rerun_keeps_the_earlier_verdict_and_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The starter's evaluation is the evaluator's answer for it (`starter_result`); judging the
    real starter is the golden round's calibration, which must give exactly that."""
    monkeypatch.setattr(calibration, "materialize", lambda task, dest: dest.mkdir(parents=True))
    monkeypatch.setattr(calibration, "evaluate", lambda app, out, task: starter_result())
    evidence = tmp_path / "evidence"
    paths = round_paths("showcase", evidence)
    # what a killed or forgotten earlier run left: its verdict and (part of) its output
    paths.calibration_dir.mkdir(parents=True)
    (paths.calibration_dir / "result.json").write_text("{}")
    paths.calibration.write_text('{"partial": true}')
    assert calibration.calibrate(Round.load("showcase", evidence)) == 0
    (entry,) = paths.history.iterdir()
    assert (entry / "calibration.json").read_text() == '{"partial": true}'
    assert (entry / "calibration" / "result.json").read_text() == "{}"
    assert read_record(paths.calibration, Calibration).passed
