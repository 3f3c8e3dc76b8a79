"""Determinism: the same submission judged twice, apart, gives identical checks, gates and score.

The reference is the submission: every check runs its whole journey on it, so every wait and
sweep is exercised (the starter fails most checks early; its score is pinned by every
calibration, which must be exactly the rubric's calibration score each time).

Both judgements come from the golden round, so this file runs no browser of its own:
- the first is its reference control: the controls command's evaluation of the reference, with
  its own install and build, its checks on a lane per core (three);
- the second is its `strong-builder-r1` unit: the scripted model writes the reference's files
  through OpenCode's tool calls, and the round's evaluation stage judges its worktree, with its
  own install and build, in another process at another moment of the round, its checks on one
  lane (`evaluator.unit_evaluation.UNIT_LANES`): so the lane plan changes no verdict either.

The test first proves the two are the same submission (every file the build reads is the
reference's, byte for byte), then that the judge said the same of both.
"""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest
from demo_build import DemoBuild

from evaluator.controls import materialize
from records.evidence.evaluation import CheckResult, EvaluationResult, GateResult
from records.io import read_record
from records.layout import controls_dir, round_paths
from records.rubric import MAX_AUTOMATED
from records.task import DEFAULT_TASK, load_task

TASK = load_task(DEFAULT_TASK)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

UNIT = "strong-builder-r1"
NOT_BUILT = {"PROGRESS.md", "DELETE"}
"""The agent's own notes and the reference overlay's (comment-only) deletion list: files the
build never reads, so they may differ."""


def _fingerprint(checks: list[CheckResult]) -> list[tuple[str, bool, bool, int, list[str]]]:
    return [
        (c.id, c.executed, c.passed, c.points, [d.expected + " | " + d.seen for d in c.diagnostics])
        for c in checks
    ]


def _gates(gates: list[GateResult]) -> list[tuple[str, bool, str, str]]:
    return [(g.id, g.failed, g.status, g.reason) for g in gates]


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.relative_to(root).as_posix() not in NOT_BUILT
    }


def test_the_unit_submitted_the_reference(tmp_path: Path, demo_round: DemoBuild) -> None:
    unit = round_paths(demo_round.round_id, demo_round.pristine).unit(UNIT)
    with tarfile.open(unit.archive) as archive:
        archive.extractall(tmp_path / "unit", filter="data")
    reference = materialize.materialize_reference(TASK, tmp_path / "reference")
    assert _files(tmp_path / "unit" / "worktree") == _files(reference)


def test_two_judgements_apart_are_identical(demo_round: DemoBuild) -> None:
    first = read_record(controls_dir(demo_round.pristine) / "reference" / "result.json",
                        EvaluationResult)  # fmt: skip
    unit = round_paths(demo_round.round_id, demo_round.pristine).unit(UNIT)
    second = read_record(unit.evaluation / "result.json", EvaluationResult)
    assert first.video and first.screenshots and second.video and second.screenshots
    assert _fingerprint(second.checks) == _fingerprint(first.checks)
    assert _gates(second.gates) == _gates(first.gates)
    assert second.automated_score == first.automated_score == MAX_AUTOMATED
    assert not (second.evaluator_errors or first.evaluator_errors)
