"""An independent implementation of the contract (tests/fixtures/atlas-static, vanilla JS, no
shared DOM with the reference) scores full marks with no gate: the checks judge the contract,
not the reference's markup."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from evaluator_fixtures import materialize_static_atlas

from evaluator.evaluate import evaluate
from records.rubric import MAX_AUTOMATED
from records.task import DEFAULT_TASK, load_task

TASK = load_task(DEFAULT_TASK)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_an_independent_implementation_scores_full_marks(tmp_path: Path) -> None:
    app = tmp_path / "app"
    materialize_static_atlas(app)
    result = evaluate(app, tmp_path / "out", task=TASK, video=False, trace=False, screenshots=False)
    failures = {c.id: [d.seen for d in c.diagnostics] for c in result.checks if not c.passed}
    assert result.automated_score == MAX_AUTOMATED, failures
    assert not result.hard_gate_failed, [g for g in result.gates if g.failed]
    shutil.rmtree(app)
