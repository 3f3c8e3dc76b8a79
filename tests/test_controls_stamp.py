"""The controls are shared by every round: doit re-runs them only when what they judge changed.

Each round keeps its own doit state, so a file-based dependency made a new round (the rehearsal,
demo-round-1) evaluate all 19 controls again; `controls.inputs.json` records the inputs of the
last all-matching full run instead.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from records.controls_stamp import controls_current, inputs_record
from records.evidence.controls import ControlsInputs
from records.io import write_json, write_record
from records.layout import REPO_ROOT, controls_inputs_json, controls_json
from records.task import DEFAULT_TASK, load_task

TASK = load_task(DEFAULT_TASK)


def _doit_controls(evidence: Path, round_id: str) -> str:
    env = dict(os.environ, SITEOS_EVIDENCE_DIR=str(evidence), SITEOS_ROUND=round_id)
    proc = subprocess.run(
        [sys.executable, "-m", "doit", "info", "controls"],
        cwd=REPO_ROOT, env=env, text=True, capture_output=True, timeout=120,
    )  # fmt: skip
    assert "status     :" in proc.stdout, proc.stdout + proc.stderr  # `info` exits 1 for "run"
    return proc.stdout


def test_current_only_with_a_stamp_of_the_current_inputs(tmp_path: Path) -> None:
    assert not controls_current(tmp_path)
    write_json(controls_json(tmp_path), [])
    assert not controls_current(tmp_path)  # controls.json alone: not known to match
    write_record(controls_inputs_json(tmp_path), inputs_record(TASK, 19))
    assert controls_current(tmp_path)
    stale = ControlsInputs(sha256="0" * 64, files=1, controls=19)
    write_record(controls_inputs_json(tmp_path), stale)
    assert not controls_current(tmp_path)
    controls_inputs_json(tmp_path).write_text("{not json")
    assert not controls_current(tmp_path)


def test_a_new_round_finds_the_controls_up_to_date(tmp_path: Path) -> None:
    """Two rounds, two doit state files, one controls run: neither round wants to run it."""
    write_json(controls_json(tmp_path), [])
    write_record(controls_inputs_json(tmp_path), inputs_record(TASK, 19))
    for round_id in ("demo", "round-0-rehearsal"):
        assert "status     : up-to-date" in _doit_controls(tmp_path, round_id)
    controls_inputs_json(tmp_path).unlink()
    assert "status     : run" in _doit_controls(tmp_path, "demo")
