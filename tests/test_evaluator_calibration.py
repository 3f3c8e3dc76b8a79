"""Calibration on the real starter: exactly the rubric's calibration score, every check executed,
the three core journeys missing, the hard gate failed; and an independent implementation of the
contract (tests/fixtures/atlas-static, no shared DOM with the reference) scores full marks with
no gate."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from evaluator_fixtures import materialize_static_atlas

from evaluator.calibration import calibrate
from evaluator.checks import CHECK_COUNT
from evaluator.evaluate import evaluate
from records.evidence.evaluation import Calibration
from records.io import read_record
from records.layout import round_paths
from records.rubric import CALIBRATION_SCORE, MAX_AUTOMATED

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_calibration_passes_on_the_starter(tmp_path: Path) -> None:
    assert calibrate("demo", evidence_dir=tmp_path) == 0
    paths = round_paths("demo", tmp_path)
    record = read_record(paths.calibration, Calibration)
    assert record.passed and record.automated_score == CALIBRATION_SCORE
    assert record.checks_executed == CHECK_COUNT and record.hard_gate_failed
    assert sorted(record.missing_core_journeys) == ["detail", "enquiry", "filter"]
    out = paths.calibration_dir
    assert (out / "result.json").is_file() and (out / "video.webm").stat().st_size > 0
    assert (out / "trace.zip").is_file() and (out / "axe.json").is_file()
    assert len(list((out / "screenshots").glob("*.png"))) >= 18
    for log in ("install", "check", "build", "browser"):
        assert (out / "logs" / f"{log}.log").is_file()


def test_an_independent_implementation_scores_full_marks(tmp_path: Path) -> None:
    app = tmp_path / "app"
    materialize_static_atlas(app)
    result = evaluate(app, tmp_path / "out", video=False, trace=False, screenshots=False)
    failures = {c.id: [d.seen for d in c.diagnostics] for c in result.checks if not c.passed}
    assert result.automated_score == MAX_AUTOMATED, failures
    assert not result.hard_gate_failed, [g for g in result.gates if g.failed]
    shutil.rmtree(app)
