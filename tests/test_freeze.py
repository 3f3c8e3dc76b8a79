"""The freeze stage writes round.json and refuses changed inputs once a round has paid units."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import harness.freeze as freeze_stage
from records.io import read_record
from records.layout import round_paths


def scored_unit(evidence: Path) -> None:
    unit = round_paths("round-0", evidence).unit("claude-opus-r1")
    unit.root.mkdir(parents=True)
    unit.session.write_text("{}")


def test_freeze_writes_hashes_and_is_stable(frozen_inputs: Path) -> None:
    evidence = frozen_inputs / "evidence"
    record = freeze_stage.freeze("round-0", evidence)
    path = round_paths("round-0", evidence).round_json
    assert read_record(path, freeze_stage.RoundRecord) == record
    assert len(record.inputs.prompt_sha256) == 64
    before = path.read_bytes()
    freeze_stage.freeze("round-0", evidence)
    assert path.read_bytes() == before  # unchanged inputs: the file is not rewritten


def test_prompt_change_before_any_scored_unit_refreezes(frozen_inputs: Path) -> None:
    evidence = frozen_inputs / "evidence"
    first = freeze_stage.freeze("round-0", evidence)
    (frozen_inputs / "task-prompt.md").write_bytes(b"Build the site!\n")
    second = freeze_stage.freeze("round-0", evidence)
    assert second.inputs.prompt_sha256 != first.inputs.prompt_sha256


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (
            lambda root: (root / "task-prompt.md").write_bytes(b"Build the site. \n"),
            "prompt_sha256",
        ),
        (
            lambda root: (root / "starter" / "src" / "main.ts").write_text("export {};\n"),
            "starter_tree_sha256",
        ),
        (lambda root: (root / "starter" / "src" / "main.ts").chmod(0o755), "starter_tree_sha256"),
    ],
)
def test_changed_input_after_a_scored_unit_is_refused(
    frozen_inputs: Path, mutate: Callable[[Path], object], field: str
) -> None:
    evidence = frozen_inputs / "evidence"
    freeze_stage.freeze("round-0", evidence)
    scored_unit(evidence)
    before = round_paths("round-0", evidence).round_json.read_bytes()
    mutate(frozen_inputs)
    assert freeze_stage.verify_frozen_inputs("round-0", evidence) == [field]
    with pytest.raises(freeze_stage.FrozenInputsChanged) as info:
        freeze_stage.freeze("round-0", evidence)
    message = str(info.value)
    assert field in message and "new round" in message and "claude-opus-r1" in message
    assert round_paths("round-0", evidence).round_json.read_bytes() == before



def test_replacement_command_refuses_a_unit_that_was_never_recorded(tmp_path: Path) -> None:
    env = dict(os.environ, SITEOS_EVIDENCE_DIR=str(tmp_path / "evidence"))
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "replace", "ghost-r1", "--reason", "outage",
         "--round", "round-0"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "refused:" in proc.stderr and "ghost-r1" in proc.stderr
    assert "only a recorded unit can be replaced" in proc.stderr
    assert not (tmp_path / "evidence" / "round-0" / "units" / "ghost-r1-x1").exists()
