"""A task is a folder (records/task.py): the real one agrees with the checks that judge it, a
broken one is refused naming the file and field, and the freeze records which task a round ran."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from task_support import own_folder_spec

import harness.freeze as freeze_stage
from evaluator.browser import VIEWPORTS
from evaluator.check_set import task_checks
from records.hashing import file_sha256, tree_sha256
from records.inputs import load_round, rounds_dir
from records.io import RecordError
from records.layout import REPO_ROOT, round_paths
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
    spec = own_folder_spec(real)
    (folder / TASK_FILE).write_text(json.dumps({**spec, **(edit or {})}))
    shutil.copy(real.prompt, folder / "prompt.md")
    data = folder / str(spec["data"])
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
    assert record.schema_version == 4 and record.task == settings.load_task().ref
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


FROZEN_PROMPT_SHA256 = "0c8a3b0c3cfaa2878f9317ed0fc33b666213b1507ce2e0a784b2e02aa67d6d82"
FROZEN_STARTER_TREE_SHA256 = "bc979c91f09ddf84d66f7fa0407d4f1b0c047cf1b5a49ac93bf8f8d10b848d1c"


def test_the_seed_paths_are_the_atlas_rooms_prompt_and_starter_with_the_frozen_hashes() -> None:
    """The methodology names `app-starter/` and `benchmark/task-prompt.md`: they are the task's
    own starter and prompt (task.json names them), with the bytes every round froze."""
    task = load_task(DEFAULT_TASK)
    assert task.starter == REPO_ROOT / "app-starter"
    assert task.prompt == REPO_ROOT / "benchmark" / "task-prompt.md"
    assert (REPO_ROOT / "app-starter" / "package.json").is_file()
    assert task.data == REPO_ROOT / "app-starter" / "src" / "data" / "venues.json"
    assert file_sha256(task.prompt) == FROZEN_PROMPT_SHA256
    assert tree_sha256(task.starter) == FROZEN_STARTER_TREE_SHA256
    assert not (task.folder / "starter").exists() and not (task.folder / "prompt.md").exists()


def test_a_task_naming_no_paths_keeps_its_prompt_and_starter_in_its_own_folder(
    tmp_path: Path,
) -> None:
    folder = copy_task(tmp_path)
    (folder / "starter").mkdir(exist_ok=True)
    task = load_task(DEFAULT_TASK, tmp_path)
    assert (task.prompt, task.starter) == (folder / "prompt.md", folder / "starter")
    assert task.data.is_relative_to(folder / "starter")


def test_a_task_json_naming_a_missing_starter_is_refused(tmp_path: Path) -> None:
    copy_task(tmp_path, {"starter": "../elsewhere"})
    with pytest.raises(RecordError, match="the task has no ../elsewhere"):
        load_task(DEFAULT_TASK, tmp_path)
