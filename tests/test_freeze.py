"""The freeze stage writes round.json and refuses changed inputs once the order is drawn or a round
has paid units, and refuses a round whose tool versions differ from the installed ones."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import harness.freeze as freeze_stage
import harness.unit
from records import inputs, tools
from records.evidence.round import OrderRecord
from records.inputs import load_cohort, load_round
from records.io import read_record, write_record
from records.layout import round_paths
from records.round import Round


def scored_unit(evidence: Path) -> None:
    unit = round_paths("round-0", evidence).unit("claude-opus-r1")
    unit.root.mkdir(parents=True)
    unit.session.write_text("{}")


def test_freeze_writes_hashes_and_is_stable(frozen_inputs: Path) -> None:
    evidence = frozen_inputs / "evidence"
    record = freeze_stage.freeze(Round.load("round-0", evidence))
    path = round_paths("round-0", evidence).round_json
    assert read_record(path, freeze_stage.RoundRecord) == record
    assert len(record.inputs.prompt_sha256) == 64
    before = path.read_bytes()
    freeze_stage.freeze(Round.load("round-0", evidence))
    assert path.read_bytes() == before  # unchanged inputs: the file is not rewritten


def test_prompt_change_before_any_scored_unit_refreezes(frozen_inputs: Path) -> None:
    evidence = frozen_inputs / "evidence"
    first = freeze_stage.freeze(Round.load("round-0", evidence))
    (frozen_inputs / "tasks/atlas-rooms/prompt.md").write_bytes(b"Build the site!\n")
    second = freeze_stage.freeze(Round.load("round-0", evidence))
    assert second.inputs.prompt_sha256 != first.inputs.prompt_sha256


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (
            lambda root: (root / "tasks/atlas-rooms/prompt.md").write_bytes(b"Build the site. \n"),
            "prompt_sha256",
        ),
        (
            lambda root: (root / "tasks/atlas-rooms/starter/src/main.ts").write_text(
                "export {};\n"
            ),
            "starter_tree_sha256",
        ),
        (
            lambda root: (root / "tasks/atlas-rooms/starter/src/main.ts").chmod(0o755),
            "starter_tree_sha256",
        ),
    ],
)
def test_changed_input_after_a_scored_unit_is_refused(
    frozen_inputs: Path, mutate: Callable[[Path], object], field: str
) -> None:
    evidence = frozen_inputs / "evidence"
    freeze_stage.freeze(Round.load("round-0", evidence))
    scored_unit(evidence)
    before = round_paths("round-0", evidence).round_json.read_bytes()
    mutate(frozen_inputs)
    assert freeze_stage.verify_frozen_inputs(Round.load("round-0", evidence)) == [field]
    with pytest.raises(freeze_stage.FrozenInputsChanged) as info:
        freeze_stage.freeze(Round.load("round-0", evidence))
    message = str(info.value)
    assert field in message and "new round" in message and "claude-opus-r1" in message
    assert round_paths("round-0", evidence).round_json.read_bytes() == before


@pytest.fixture
def copied_benchmark(frozen_inputs: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of benchmark/ (cohort and round files) the test may change."""
    copy = frozen_inputs / "benchmark"
    shutil.copytree(inputs.BENCHMARK_DIR, copy)
    monkeypatch.setattr(inputs, "BENCHMARK_DIR", copy)
    return copy


def draw_order(evidence: Path) -> None:
    """order.json as the order stage leaves it (written with the real writer)."""
    write_record(
        round_paths("round-0", evidence).order,
        OrderRecord(round_id="round-0", seed=1, drawn_at="2026-12-01T00:00:00Z",
                    qualified=[], not_testable=[], order=[]),
    )  # fmt: skip


def test_cohort_is_protected_from_the_frozen_order_on(copied_benchmark: Path) -> None:
    evidence = copied_benchmark.parent / "evidence"
    freeze_stage.freeze(Round.load("round-0", evidence))
    cohort = copied_benchmark / "models.json"
    data = json.loads(cohort.read_text())
    data["description"] += " (edited after preflight)"
    cohort.write_text(json.dumps(data, indent=2))
    freeze_stage.freeze(
        Round.load("round-0", evidence)
    )  # no order yet: the new cohort is simply frozen
    draw_order(evidence)
    data["description"] += " (edited after the order was drawn)"
    cohort.write_text(json.dumps(data, indent=2))
    before = round_paths("round-0", evidence).round_json.read_bytes()
    with pytest.raises(freeze_stage.FrozenInputsChanged) as info:
        freeze_stage.freeze(Round.load("round-0", evidence))
    message = str(info.value)
    assert "has its run order drawn (order.json)" in message and "cohort_sha256" in message
    assert "new round" in message
    assert round_paths("round-0", evidence).round_json.read_bytes() == before


def test_prompt_is_protected_from_the_frozen_order_on(frozen_inputs: Path) -> None:
    evidence = frozen_inputs / "evidence"
    freeze_stage.freeze(Round.load("round-0", evidence))
    draw_order(evidence)
    (frozen_inputs / "tasks/atlas-rooms/prompt.md").write_bytes(b"Build the site, differently.\n")
    with pytest.raises(freeze_stage.FrozenInputsChanged, match="prompt_sha256"):
        freeze_stage.freeze(Round.load("round-0", evidence))


@pytest.mark.parametrize(
    ("versions", "problem"),
    [
        ({"node": "v20.11.0", "opencode": "1.17.18"}, "node 22.23.5 is required but"),
        ({"node": "v22.23.5", "opencode": "1.17.17"}, "opencode 1.17.18 is required but"),
        ({"node": "v22.23.5"}, "opencode 1.17.18 is required but"),
    ],
)
def test_round_tool_versions_must_equal_the_installed_tools(
    frozen_inputs: Path,
    monkeypatch: pytest.MonkeyPatch,
    versions: dict[str, str],
    problem: str,
) -> None:
    installed = frozen_inputs / "versions.json"
    installed.write_text(json.dumps(versions))
    monkeypatch.setattr(tools, "VERSIONS_FILE", installed)
    evidence = frozen_inputs / "evidence"
    with pytest.raises(freeze_stage.ToolVersionMismatch) as info:
        freeze_stage.freeze(Round.load("round-0", evidence))
    message = str(info.value)
    assert "round-0.json" in message and problem in message and str(installed) in message
    assert "new round" in message
    assert not round_paths("round-0", evidence).round_json.exists()
    key = load_cohort(load_round("round-0").cohort_path).candidates[0].key
    with pytest.raises(freeze_stage.ToolVersionMismatch):  # no paid session on other tools
        harness.unit.run_unit(Round.load("round-0", evidence), key)


def test_node_version_with_or_without_v_prefix_matches(
    frozen_inputs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed = frozen_inputs / "versions.json"
    installed.write_text(json.dumps({"node": "v22.23.5", "opencode": "1.17.18"}))
    monkeypatch.setattr(tools, "VERSIONS_FILE", installed)
    assert tools.version_mismatches({"node": "22.23.5", "opencode": "1.17.18"}) == []
    freeze_stage.freeze(Round.load("round-0", frozen_inputs / "evidence"))


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
