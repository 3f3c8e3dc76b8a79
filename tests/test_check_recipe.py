"""The "add a check" recipe (docs/architecture.md), proved with a throwaway check: a module
(tests/toy_checks/landmarks.py) and its entry in a checks package's `CHECKS`, named by a task's
task.json. Nothing else changes: the evaluator runs it in the browser phase, scores it and
records it in result.json, and the task is refused when its checks disagree with the rubric."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from task_support import copy_real_task

from evaluator.check_set import CheckSetRefused, check_set, task_checks
from evaluator.controls.materialize import materialize_reference
from evaluator.evaluate import evaluate
from records.task import DEFAULT_TASK, TASK_FILE, load_task

TESTS = Path(__file__).resolve().parent


def toy_task(tmp_path: Path, **changes: object) -> Path:
    """A copy of the atlas-rooms task whose task.json names the toy checks package."""
    tasks = tmp_path / "tasks"
    spec = json.loads((copy_real_task(tasks) / TASK_FILE).read_text())
    passes = [("landmarks" if c == "semantics" else c) for c in spec["calibration_passes"]]
    spec.update({"checks": "toy_checks", "version": "1.0-toy", "calibration_passes": passes})
    spec.update(changes)
    (tasks / DEFAULT_TASK / TASK_FILE).write_text(json.dumps(spec))
    return tasks


def test_a_task_is_judged_by_the_checks_its_task_json_names(tmp_path: Path) -> None:
    task = load_task(DEFAULT_TASK, toy_task(tmp_path))
    checks = task_checks(task)
    assert "landmarks" in checks.ids and "semantics" not in checks.ids
    assert checks.max_points == task_checks(load_task(DEFAULT_TASK)).max_points


def test_checks_that_disagree_with_the_rubric_or_the_task_are_refused(tmp_path: Path) -> None:
    task = load_task(DEFAULT_TASK, toy_task(tmp_path, journeys={"filter": "filter-journey"}))
    with pytest.raises(CheckSetRefused, match="journeys"):
        task_checks(task)
    task = load_task(DEFAULT_TASK, toy_task(tmp_path / "b", calibration_passes=["semantic"]))
    with pytest.raises(CheckSetRefused, match="unknown checks \\['semantic'\\]"):
        task_checks(task)
    short = check_set("evaluator.checks")
    assert type(short)("short", short.checks[1:]).problems()  # a set 60 points short is refused


@pytest.mark.browser
@pytest.mark.slow
def test_the_new_check_runs_and_scores_like_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(TESTS))  # the browser phase imports the package
    task = load_task(DEFAULT_TASK, toy_task(tmp_path))
    app = materialize_reference(task, tmp_path / "app")
    result = evaluate(app, tmp_path / "out", task=task, video=False, trace=False,
                      screenshots=False)  # fmt: skip
    (landmarks,) = [c for c in result.checks if c.id == "landmarks"]
    assert landmarks.executed and landmarks.passed and landmarks.points == 3
    assert [c.id for c in result.checks] == task_checks(task).ids
    assert result.automated_score == result.max_automated and not result.evaluator_errors
