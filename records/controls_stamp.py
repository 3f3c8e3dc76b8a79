"""Whether `controls.json` is a complete, all-matching run of today's controls and judge.

A full run where every control matched writes `controls.inputs.json` (the digest of what decides
every verdict); a partial or failing run removes it. The controls stage is up to date, and the
site calls the controls current, only while that stamp names exactly the current inputs.
"""

from __future__ import annotations

import hashlib
from pathlib import Path, PurePosixPath

from records.evidence.controls import ControlsInputs
from records.hashing import named_files_sha256, tree_files
from records.io import RecordError, read_record
from records.layout import (
    EVIDENCE_DIR,
    REPO_ROOT,
    controls_inputs_json,
    controls_json,
    evaluator_source_files,
)
from records.task import Task, load_task

CONTROLS_CODE = REPO_ROOT / "evaluator" / "controls"
SCHEMA_1_TASK = "atlas-rooms"
"""The task of a schema-1 stamp (written before tasks were folders)."""


def control_inputs(task: Task) -> list[Path]:
    """What decides every control's verdict: the task's folder (its starter, reference overlay,
    variants and mutants, and its prompt and starter wherever task.json names them), the
    evaluator's sources and the code that runs the controls."""
    return sorted(path for _, path in _named_inputs(task))


def _named_inputs(task: Task) -> list[tuple[str, Path]]:
    """Each input under a name that does not depend on where the checkout or the task's files
    lie: the task's own files as `<task>/<path>` (its starter's as `<task>/starter/<path>` and its
    prompt as `<task>/prompt.md`, wherever task.json puts them), the code's from the repository."""
    skip = {"node_modules", "dist", ".git", "__pycache__"}
    own: dict[Path, str] = {
        path: f"{task.id}/{path.relative_to(task.folder).as_posix()}"
        for path in tree_files(task.folder, skip)
    }
    own.update(
        (path, f"{task.id}/starter/{path.relative_to(task.starter).as_posix()}")
        for path in tree_files(task.starter, skip)
    )
    own[task.prompt] = f"{task.id}/prompt.md"
    code = {*evaluator_source_files(), *tree_files(CONTROLS_CODE, skip)} - set(own)
    named = sorted(((name, path) for path, name in own.items()), key=lambda n: PurePosixPath(n[0]))
    return named + [(path.relative_to(REPO_ROOT).as_posix(), path) for path in sorted(code)]


def inputs_record(task: Task, controls: int) -> ControlsInputs:
    """The stamp of `task`'s controls: its files named from the task (wherever they lie), the
    code's from the repository."""
    named = _named_inputs(task)
    own = [pair for pair in named if pair[0].startswith(f"{task.id}/")]
    code = named[len(own) :]
    parts = f"{named_files_sha256(own)} {named_files_sha256(code)}"
    digest = hashlib.sha256(parts.encode()).hexdigest()
    return ControlsInputs(task=task.id, sha256=digest, files=len(named), controls=controls)


def controls_current(evidence_dir: Path = EVIDENCE_DIR) -> bool:
    """True while controls.json holds an all-matching full run of exactly the current inputs."""
    stamp = controls_inputs_json(evidence_dir)
    if not controls_json(evidence_dir).is_file() or not stamp.is_file():
        return False
    try:
        recorded = read_record(stamp, ControlsInputs)
        task = load_task(recorded.task or SCHEMA_1_TASK)
    except RecordError:
        return False
    return recorded.sha256 == inputs_record(task, recorded.controls).sha256
