"""Determinism: the same submission judged twice, apart, gives identical checks, gates and score.

The reference is the submission: every check runs its whole journey on it, so every wait and
sweep is exercised (the starter fails most checks early; its score is pinned by every
calibration, which must be exactly the rubric's calibration score each time).

The first judgement is the golden round's reference control: a whole evaluation by the controls
command, with its own install and build, its video and screenshots. The second is made here: its
whole evaluation without evidence (no video, trace or screenshots). So the two share no process,
no build and no evidence setting, and must still say the same.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from demo_build import DemoBuild

from evaluator.controls import materialize
from evaluator.evaluate import evaluate
from records.evidence.evaluation import CheckResult, EvaluationResult, GateResult
from records.io import read_record
from records.layout import controls_dir
from records.rubric import MAX_AUTOMATED

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _fingerprint(checks: list[CheckResult]) -> list[tuple[str, bool, bool, int, list[str]]]:
    return [
        (c.id, c.executed, c.passed, c.points, [d.expected + " | " + d.seen for d in c.diagnostics])
        for c in checks
    ]


def _gates(gates: list[GateResult]) -> list[tuple[str, bool, str, str]]:
    return [(g.id, g.failed, g.status, g.reason) for g in gates]


def test_two_judgements_apart_are_identical(tmp_path: Path, demo_round: DemoBuild) -> None:
    first = read_record(controls_dir(demo_round.pristine) / "reference" / "result.json",
                        EvaluationResult)  # fmt: skip
    assert first.video and first.screenshots  # judged with its evidence
    app = materialize.materialize_reference(tmp_path / "app")
    second = evaluate(app, tmp_path / "out", video=False, trace=False, screenshots=False)
    assert not second.video and not second.screenshots
    assert _fingerprint(second.checks) == _fingerprint(first.checks)
    assert _gates(second.gates) == _gates(first.gates)
    assert second.automated_score == first.automated_score == MAX_AUTOMATED
    assert not (second.evaluator_errors or first.evaluator_errors)
