"""A task is a folder (records/task.py): the real one agrees with the checks that judge it, a
broken one is refused naming the file and field, and the freeze records which task a round ran."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import harness.freeze as freeze_stage
from evaluator.browser import VIEWPORTS
from evaluator.check_set import task_checks
from records.inputs import load_round, rounds_dir
from records.io import RecordError
from records.layout import round_paths
from records.round import Round
from records.task import DEFAULT_TASK, TASK_FILE, load_task, task_ids


def test_the_task_agrees_with_the_checks_that_judge_it() -> None:
    task = load_task(DEFAULT_TASK)
    assert task_ids() == [DEFAULT_TASK]
    assert task.spec.journeys == task_checks(task).core_journeys  # journey -> check, in order
    assert task.spec.viewports == sorted(VIEWPORTS)
    assert task.spec.checks == "evaluator.checks"
    for path in (task.prompt, task.contract, task.starter / "package.json", task.data):
        assert path.is_file(), path
    assert task.prompt.read_text().startswith(f"# {task.spec.title}\n")


def copy_task(tmp_path: Path, edit: dict[str, object] | None = None) -> Path:
    real = load_task(DEFAULT_TASK)
    folder = tmp_path / DEFAULT_TASK
    folder.mkdir()
    spec = json.loads((real.folder / TASK_FILE).read_text())
    (folder / TASK_FILE).write_text(json.dumps({**spec, **(edit or {})}))
    shutil.copy(real.prompt, folder / "prompt.md")
    data = folder / real.data.relative_to(real.folder)
    data.parent.mkdir(parents=True)
    shutil.copy(real.data, data)
    return folder


def test_a_copy_loads_from_another_tasks_folder(tmp_path: Path) -> None:
    copy_task(tmp_path)
    task = load_task(DEFAULT_TASK, tmp_path)
    assert task.folder == tmp_path / DEFAULT_TASK and task.ref == load_task(DEFAULT_TASK).ref


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"id": "atlas-room"}, "id 'atlas-room' is not its folder's name"),
        ({"calibration_score": -1}, "calibration_score"),
        ({"journeys": {}}, "journeys"),
        ({"colour": "blue"}, "colour"),
    ],
)
def test_a_broken_task_json_is_refused_naming_file_and_field(
    tmp_path: Path, edit: dict[str, object], message: str
) -> None:
    copy_task(tmp_path, edit)
    with pytest.raises(RecordError, match=message) as caught:
        load_task(DEFAULT_TASK, tmp_path)
    assert str(tmp_path / DEFAULT_TASK / TASK_FILE) in str(caught.value)


def test_a_task_without_its_prompt_or_folder_is_refused(tmp_path: Path) -> None:
    (copy_task(tmp_path) / "prompt.md").unlink()
    with pytest.raises(RecordError, match="the task has no prompt.md"):
        load_task(DEFAULT_TASK, tmp_path)
    with pytest.raises(RecordError, match="no-such-task/task.json: file not found"):
        load_task("no-such-task", tmp_path)


def test_a_round_names_its_task_and_the_freeze_records_it(frozen_inputs: Path) -> None:
    settings = load_round("round-0")
    assert settings.task == DEFAULT_TASK  # a round file that names none
    record = freeze_stage.freeze(Round.load("round-0", frozen_inputs / "evidence"))
    assert record.schema_version == 3 and record.task == settings.load_task().ref
    assert round_paths("round-0", frozen_inputs / "evidence").round_json.is_file()


def test_a_round_naming_an_unknown_task_is_refused_before_freezing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = json.loads((rounds_dir() / "demo.json").read_text())
    rounds = tmp_path / "rounds"
    rounds.mkdir()
    (rounds / "elsewhere.json").write_text(json.dumps({**data, "round_id": "elsewhere",
                                                       "task": "no-such-task"}))  # fmt: skip
    monkeypatch.setattr("records.inputs.rounds_dir", lambda: rounds)
    with pytest.raises(RecordError, match="no-such-task/task.json: file not found"):
        freeze_stage.freeze(Round.load("elsewhere", tmp_path / "evidence"))
    assert not (tmp_path / "evidence").exists()
