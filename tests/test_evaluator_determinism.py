"""Determinism: the same submission judged three times gives identical checks and scores.

The reference is the submission: every check runs its whole journey on it, so every wait and
sweep is exercised (the starter fails most checks early; its score is pinned by every
calibration, which must be exactly the rubric's calibration score each time).

The build is done once and the browser phase run three times: the checks only ever see the built
`dist/` (served byte for byte) and the frozen data file, so re-running the browser phase on one
build is the same measurement as three full evaluations, minus two identical npm runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.build import Workspace, copy_app, run_step
from evaluator.controls import materialize
from evaluator.evaluate import run_browser_phase
from records.evidence.evaluation import PhaseRecord
from records.rubric import MAX_AUTOMATED

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _build(app: Path, root: Path) -> Path:
    workspace = Workspace(root)
    root.mkdir()
    copy_app(app, workspace)
    for step in ("install", "build"):
        assert run_step(workspace, step).ok
    return workspace.dist


def _fingerprint(phase: PhaseRecord) -> list[tuple[str, bool, bool, int, list[str]]]:
    return [
        (
            c.id,
            c.executed,
            c.passed,
            c.points,
            [d.expected + " | " + d.seen for d in c.diagnostics],
        )
        for c in phase.checks
    ]


def test_three_runs_are_identical(tmp_path: Path) -> None:
    app = tmp_path / "app"
    materialize.materialize_reference(app)
    dist = _build(app, tmp_path / "ws")
    runs = []
    for i in range(3):
        phase, _ = run_browser_phase(
            dist, tmp_path / f"out{i}", video=False, trace=False, screenshots=False
        )
        assert phase.complete, phase.error
        runs.append((_fingerprint(phase), phase.probes))
    assert runs[0] == runs[1] == runs[2]
    assert sum(c[3] for c in runs[0][0]) == MAX_AUTOMATED
