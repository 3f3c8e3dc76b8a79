"""Whether `controls.json` is a complete, all-matching run of today's controls and judge.

A full run where every control matched writes `controls.inputs.json` (the digest of what decides
every verdict); a partial or failing run removes it. The controls stage is up to date, and the
site calls the controls current, only while that stamp names exactly the current inputs.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from records.evidence.controls import ControlsInputs
from records.hashing import files_sha256, tree_files
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
    variants and mutants), the evaluator's sources and the code that runs the controls."""
    skip = {"node_modules", "dist", ".git", "__pycache__"}
    files = {*tree_files(task.folder, skip), *evaluator_source_files()}
    files.update(tree_files(CONTROLS_CODE, skip))
    return sorted(files)


def inputs_record(task: Task, controls: int) -> ControlsInputs:
    """The stamp of `task`'s controls: its folder's files named from the tasks folder (wherever
    that is), the code's from the repository."""
    files = control_inputs(task)
    own = [f for f in files if f.is_relative_to(task.folder)]
    code = [f for f in files if not f.is_relative_to(task.folder)]
    parts = f"{files_sha256(own, task.folder.parent)} {files_sha256(code, REPO_ROOT)}"
    digest = hashlib.sha256(parts.encode()).hexdigest()
    return ControlsInputs(task=task.id, sha256=digest, files=len(files), controls=controls)


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
