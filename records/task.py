"""A task is a folder: `benchmark/tasks/<id>/` holds everything one benchmark task is.

    task.json               this record: id, version, title, calibration score, journeys, ...
    prompt.md               the exact bytes every session receives (task.json `prompt`)
    contract.md             the acceptance contract the prompt and the checks share
    starter/                the deliberately incomplete app every session starts from
                            (task.json `starter`)
    reference/              the reference solution, an overlay on the starter (a `DELETE` list)
    mutants/<check>.patch   one mutant per check: the reference minus exactly that check
    variants/<name>.patch   legal variants of the reference that must keep full marks
    reference-screenshots/  images of the reference at the three widths

task.json may name the prompt and the starter elsewhere, relative to the task folder: the
atlas-rooms task keeps them at the paths the methodology cites, `benchmark/task-prompt.md` and
`app-starter/`; a task that names neither keeps both in its own folder.

A round file names its task (`"task": "<id>"`); round.json records the task's id and version
beside the prompt's and starter's hashes. Modules never hold a task's paths as globals: they
ask `load_task(id)` (or the round's task) for them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field, field_validator

from records.base import Frozen, Record
from records.io import RecordError, read_record
from records.layout import BENCHMARK_DIR

TASKS_DIR = BENCHMARK_DIR / "tasks"
DEFAULT_TASK = "atlas-rooms"
"""The task of a round file that names none (every round before tasks were folders)."""
TASK_FILE = "task.json"
TASK_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")


class TaskSpec(Frozen):
    """`benchmark/tasks/<id>/task.json`."""

    schema_version: int = Field(default=1, ge=1, le=1)
    id: str = Field(description="the folder's name")
    version: str = Field(
        description="changes whenever the prompt, starter, contract, checks or controls change"
    )
    title: str = Field(description="what the site calls the task")
    calibration_score: int = Field(
        ge=0, description="the automated score the evaluator must give the untouched starter"
    )
    calibration_passes: list[str] = Field(
        description="the checks the untouched starter passes (every other one fails)"
    )
    journeys: dict[str, str] = Field(
        min_length=1, description="core journey -> the check that proves it, in journey order"
    )
    viewports: list[int] = Field(min_length=1, description="widths in px the checks judge")
    checks: str = Field(description="the Python package whose `CHECKS` tuple judges the task")
    data: str = Field(description="the frozen data the checks compare with, from this folder")
    prompt: str = Field(
        default="prompt.md", description="the prompt's path, relative to this folder"
    )
    starter: str = Field(default="starter", description="the starter's path, from this folder")

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not TASK_ID.match(value):
            raise ValueError(f"task id {value!r} is not lowercase letters, digits and dashes")
        return value


class TaskRef(Record):
    """Which task a round ran, as evidence names it (round.json, leaderboard.json)."""

    id: str
    version: str
    title: str


@dataclass(frozen=True)
class Task:
    """One task folder and its record; every path of the task comes from here."""

    folder: Path
    spec: TaskSpec

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def ref(self) -> TaskRef:
        return TaskRef(id=self.spec.id, version=self.spec.version, title=self.spec.title)

    def _named(self, relative: str) -> Path:
        """A path task.json names, relative to the folder, without `..` parts."""
        return Path(os.path.normpath(self.folder / relative))

    @property
    def prompt(self) -> Path:
        return self._named(self.spec.prompt)

    @property
    def contract(self) -> Path:
        return self.folder / "contract.md"

    @property
    def starter(self) -> Path:
        return self._named(self.spec.starter)

    @property
    def reference(self) -> Path:
        return self.folder / "reference"

    @property
    def mutants(self) -> Path:
        return self.folder / "mutants"

    @property
    def variants(self) -> Path:
        return self.folder / "variants"

    @property
    def reference_screenshots(self) -> Path:
        return self.folder / "reference-screenshots"

    @property
    def data(self) -> Path:
        return self._named(self.spec.data)


def task_folder(task_id: str, tasks_dir: Path) -> Path:
    return tasks_dir / task_id


def load_task(task_id: str, tasks_dir: Path | None = None) -> Task:
    """The task `task_id` (a folder of `tasks_dir`, default `TASKS_DIR`); a missing or
    inconsistent folder raises RecordError naming the file."""
    folder = task_folder(task_id, tasks_dir or TASKS_DIR)
    spec = read_record(folder / TASK_FILE, TaskSpec)
    if spec.id != folder.name:
        raise RecordError(f"{folder / TASK_FILE}: id {spec.id!r} is not its folder's name")
    task = Task(folder=folder, spec=spec)
    for needed in (task.prompt, task.starter, task.data):
        if not needed.exists():
            named = os.path.relpath(needed, folder)
            raise RecordError(f"{folder / TASK_FILE}: the task has no {named}")
    return task


def task_ids(tasks_dir: Path | None = None) -> list[str]:
    """Every task folder (one holding a task.json), sorted."""
    return sorted(p.parent.name for p in (tasks_dir or TASKS_DIR).glob(f"*/{TASK_FILE}"))
