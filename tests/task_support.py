"""A stand-in task folder for tests that must not hash or read the real task's bytes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import records.task
from records.task import DEFAULT_TASK, TASK_FILE, load_task


def stand_in_task(tasks_dir: Path, monkeypatch: pytest.MonkeyPatch, prompt: bytes) -> Path:
    """`tasks_dir/atlas-rooms/`: the real task.json with a stand-in prompt and a one-file starter
    (plus the real frozen data), made the tasks folder every `load_task` reads; its path."""
    real = load_task(DEFAULT_TASK)
    folder = tasks_dir / DEFAULT_TASK
    (folder / "starter" / "src").mkdir(parents=True)
    shutil.copy(real.folder / TASK_FILE, folder / TASK_FILE)
    (folder / "prompt.md").write_bytes(prompt)
    (folder / "starter" / "src" / "main.ts").write_text("export {}\n")
    data = folder / real.data.relative_to(real.folder)
    data.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(real.data, data)
    monkeypatch.setattr(records.task, "TASKS_DIR", tasks_dir)
    return folder
