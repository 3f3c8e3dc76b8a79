"""A stand-in task folder for tests that must not hash or read the real task's bytes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import records.task
from records.task import DEFAULT_TASK, TASK_FILE, Task, load_task


def own_folder_spec(real: Task) -> dict[str, object]:
    """`real`'s task.json as a task keeping its prompt, starter and data in its own folder (the
    default layout: `prompt.md`, `starter/`), wherever the real one names them."""
    spec = json.loads((real.folder / TASK_FILE).read_text())
    spec.pop("prompt", None)
    spec.pop("starter", None)
    spec["data"] = f"starter/{real.data.relative_to(real.starter).as_posix()}"
    return dict(spec)


def copy_real_task(tasks_dir: Path) -> Path:
    """`tasks_dir/atlas-rooms/`: a byte-for-byte copy of the real task laid out in its own folder
    (its prompt and starter copied in beside the rest); its path."""
    real = load_task(DEFAULT_TASK)
    folder = tasks_dir / DEFAULT_TASK
    skip = shutil.ignore_patterns("node_modules", "dist")
    shutil.copytree(real.folder, folder, ignore=skip)
    shutil.copytree(real.starter, folder / "starter", ignore=skip)
    shutil.copy(real.prompt, folder / "prompt.md")
    (folder / TASK_FILE).write_text(json.dumps(own_folder_spec(real)))
    return folder


def stand_in_task(tasks_dir: Path, monkeypatch: pytest.MonkeyPatch, prompt: bytes) -> Path:
    """`tasks_dir/atlas-rooms/`: the real task.json with a stand-in prompt and a one-file starter
    (plus the real frozen data), made the tasks folder every `load_task` reads; its path."""
    real = load_task(DEFAULT_TASK)
    folder = tasks_dir / DEFAULT_TASK
    (folder / "starter" / "src").mkdir(parents=True)
    spec = own_folder_spec(real)
    (folder / TASK_FILE).write_text(json.dumps(spec))
    (folder / "prompt.md").write_bytes(prompt)
    (folder / "starter" / "src" / "main.ts").write_text("export {}\n")
    data = folder / str(spec["data"])
    data.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(real.data, data)
    monkeypatch.setattr(records.task, "TASKS_DIR", tasks_dir)
    return folder
