"""Calibration on the real starter, as the demo round ran it (its calibrate stage, before any
spending): exactly the rubric's calibration score, every check executed, the three core journeys
missing, the hard gate failed, and the evaluator's whole output kept."""

from __future__ import annotations

import pytest
from demo_build import DemoBuild
from test_calibration_currency import STARTER_FAILS

from evaluator.check_set import check_set
from records.evidence.evaluation import Calibration
from records.io import read_record
from records.layout import round_paths
from records.task import DEFAULT_TASK, load_task

TASK = load_task(DEFAULT_TASK)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_calibration_passes_on_the_starter(demo_round: DemoBuild) -> None:
    paths = round_paths("demo", demo_round.pristine)
    record = read_record(paths.calibration, Calibration)
    assert record.passed and record.automated_score == TASK.spec.calibration_score
    assert (
        record.checks_executed == len(check_set("evaluator.checks").checks)
        and record.hard_gate_failed
    )
    assert sorted(record.missing_core_journeys) == ["detail", "enquiry", "filter"]
    assert sorted(record.failed_checks) == sorted(STARTER_FAILS)  # what the stubbed tests assume
    out = paths.calibration_dir
    assert (out / "result.json").is_file() and (out / "video.webm").stat().st_size > 0
    assert (out / "trace.zip").is_file() and (out / "axe.json").is_file()
    assert len(list((out / "screenshots").glob("*.png"))) >= 18
    for log in ("install", "check", "build", "browser"):
        assert (out / "logs" / f"{log}.log").is_file()
