"""An intervention round's factor and arms as data (records/interventions.py): the committed
method arms, the validation of arm folders and round files, entrants per arm, the freeze of each
arm folder, session.json's arm, and the worktree whose base commit holds the arm's files."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from scoring_support import session

import harness.freeze as freeze_stage
import records.inputs
import records.interventions
from harness.session.worktree import WorktreeError, create_worktree, final_diff
from records.evidence.round import FrozenInputs, RoundRecord
from records.evidence.session import SessionRecord
from records.inputs import RoundSettings
from records.interventions import (
    INTERVENTIONS_DIR,
    ArmRecord,
    InterventionSpec,
    load_arm,
    load_arms,
)
from records.io import RecordError, read_record, write_record
from records.layout import round_paths
from records.round import Round

REPO = Path(__file__).resolve().parent.parent
METHOD = InterventionSpec(factor="method", arms=["none", "placebo", "tracer-bullets"])


def test_the_method_arms_load_with_one_baseline_and_a_placebo() -> None:
    arms = load_arms(METHOD)
    assert [a.id for a in arms] == ["none", "placebo", "tracer-bullets"]
    assert [(a.manifest.baseline, a.manifest.placebo) for a in arms] == [
        (True, False), (False, True), (False, False),
    ]  # fmt: skip
    assert [a.files for a in arms] == [[], ["AGENTS.md"], ["AGENTS.md"]]
    assert len({a.sha256() for a in arms}) == 3


def test_the_placebo_is_as_long_as_the_method_and_says_nothing_about_method() -> None:
    method = (INTERVENTIONS_DIR / "method/tracer-bullets/AGENTS.md").read_bytes()
    placebo = (INTERVENTIONS_DIR / "method/placebo/AGENTS.md").read_bytes()
    assert abs(len(placebo) - len(method)) <= 0.02 * len(method)
    text = placebo.decode().lower()
    for word in ("slice", "deepen", "interface", "tracer", "modules?", "first", "should", "must"):
        assert not re.search(rf"\b{word}\b", text), word
    assert "from end to end" in method.decode() and "a small interface over" in method.decode()


@pytest.mark.parametrize(
    ("arm", "version", "folders"),
    [
        ("openspec", "1.13.2", {".opencode", ".claude", ".agents", "openspec"}),
        ("spec-kit", "1.2.3", {".opencode", ".claude", ".agents", ".specify"}),
    ],
)
def test_the_generated_arms_name_their_tool_version_and_agent_forms(
    arm: str, version: str, folders: set[str]
) -> None:
    found = load_arm("method", arm)
    made = found.manifest.generated
    assert made is not None and made.version == version
    assert made.script == "scripts/generate_method_arms.py"
    assert (REPO / made.script).is_file()
    assert {f.split("/")[0] for f in found.files} == folders
    assert not (found.manifest.baseline or found.manifest.placebo)


def _arm(root: Path, arm: str, **fields: Any) -> Path:
    folder = root / "method" / arm
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {
        "schema_version": 1, "id": arm, "factor": "method", "title": arm, "adds": "AGENTS.md",
        "baseline": False, "placebo": False, "source": "a test", **fields,
    }  # fmt: skip
    (folder / "arm.json").write_text(json.dumps(manifest))
    return folder / "arm.json"


def test_an_arm_set_needs_one_baseline_first_and_a_placebo(tmp_path: Path) -> None:
    base = _arm(tmp_path, "none", baseline=True)
    _arm(tmp_path, "tb")
    spec = InterventionSpec(factor="method", arms=["none", "tb"])
    with pytest.raises(RecordError, match="field placebo: a method factor needs a placebo"):
        load_arms(spec, tmp_path)
    _arm(tmp_path, "tb", placebo=True)
    assert [a.id for a in load_arms(spec, tmp_path)] == ["none", "tb"]
    two = _arm(tmp_path, "tb", baseline=True)
    with pytest.raises(RecordError, match="field baseline: exactly one arm") as caught:
        load_arms(spec, tmp_path)
    assert str(base) in str(caught.value) and str(two) in str(caught.value)
    _arm(tmp_path, "tb", placebo=True)
    with pytest.raises(RecordError, match="the baseline arm comes first"):
        load_arms(InterventionSpec(factor="method", arms=["tb", "none"]), tmp_path)


def test_an_arm_file_names_its_folder_and_factor(tmp_path: Path) -> None:
    path = _arm(tmp_path, "tb", id="other")
    with pytest.raises(RecordError, match=f"{path}: field id: 'other'"):
        load_arm("method", "tb", tmp_path)
    text = path.read_text().replace('"other"', '"tb"')
    path.write_text(text.replace('"placebo": false', '"placebo": "maybe"'))
    with pytest.raises(RecordError, match="field placebo"):
        load_arm("method", "tb", tmp_path)
    _arm(tmp_path, "both", baseline=True, placebo=True)
    with pytest.raises(RecordError, match="baseline or the placebo, not both"):
        load_arm("method", "both", tmp_path)
    with pytest.raises(RecordError, match="no such arm folder"):
        load_arm("method", "missing", tmp_path)


def _settings(**changes: Any) -> dict[str, Any]:
    data = json.loads((records.inputs.rounds_dir() / "demo-method.json").read_text())
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def test_a_round_declares_one_factor_only() -> None:
    agents = [{"name": "opencode", "version": "1.17.18"}, {"name": "claude-code", "version": "2"}]
    with pytest.raises(ValueError, match="varies one factor only"):
        RoundSettings.model_validate(_settings(agents=agents, agent=None))
    with pytest.raises(ValueError, match="declared by the round's `agents` list"):
        RoundSettings.model_validate(
            _settings(intervention={"factor": "agent", "arms": ["a", "b"]})
        )
    with pytest.raises(ValueError, match="intervention.arms"):
        RoundSettings.model_validate(_settings(intervention={"factor": "method", "arms": ["none"]}))
    one = RoundSettings.model_validate(_settings(intervention=None))
    assert (one.factor, one.arm_ids, one.is_intervention) == (None, [], False)


def test_every_committed_round_file_still_loads_with_its_factor() -> None:
    factors = {}
    for path in sorted(records.inputs.rounds_dir().glob("*.json")):
        settings = records.inputs.load_round(path.stem, require_cohort=False)
        factors[path.stem] = settings.factor
    assert factors["demo-intervention"] == factors["round-2-agents"] == "agent"
    assert factors["demo-method"] == factors["round-2-method"] == "method"
    assert factors["demo-tools"] == factors["round-2-tools"] == "tools"
    assert factors["demo-starter"] == factors["round-2-starter"] == "starter"
    assert factors["demo"] is factors["round-1"] is None


def test_entrants_are_each_model_in_each_arm_with_the_one_agent() -> None:
    rnd = Round.load("demo-method")
    entrants = rnd.entrants()
    models = [c.key for c in rnd.cohort.candidates]
    arms = rnd.settings.arm_ids
    assert [e.key for e in entrants] == [f"{m}-via-{a}" for m in models for a in arms]
    assert {e.agent.name for e in entrants} == {"opencode"}
    unit = entrants[2].unit(1)
    assert unit == f"{models[0]}-via-tracer-bullets-r1"
    assert rnd.arm("tracer-bullets") is not None and rnd.arm("opencode") is None
    agents = Round.load("demo-intervention")
    assert [e.arm for e in agents.entrants()][:2] == ["opencode", "claude-code"]


def test_freeze_records_each_arm_folder_and_refuses_a_changed_arm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(records.interventions, "INTERVENTIONS_DIR", tmp_path / "interventions")
    shutil.copytree(INTERVENTIONS_DIR, tmp_path / "interventions")
    evidence = tmp_path / "evidence"
    rnd = Round.load("demo-method", evidence)
    record = freeze_stage.freeze(rnd)
    assert record.schema_version == 4 and record.factor == "method"
    assert record.inputs.arms_sha256 == {a.id: a.sha256() for a in rnd.arms}
    paths = round_paths("demo-method", evidence)
    unit = paths.unit("strong-builder-via-none-r1")
    unit.root.mkdir(parents=True)
    unit.session.write_text("{}")  # a scored unit: the inputs are frozen
    (tmp_path / "interventions/method/tracer-bullets/AGENTS.md").write_text("Work fast.\n")
    with pytest.raises(freeze_stage.FrozenInputsChanged, match="arms_sha256"):
        freeze_stage.freeze(Round.load("demo-method", evidence))


def test_round_json_of_schema_3_loads_without_arms(tmp_path: Path) -> None:
    data = {
        "schema_version": 3, "round_id": "demo", "frozen_at": "t", "seed": 1,
        "cohort_file": "demo-cohort.json", "evaluator_sha256": "e", "tool_versions": {},
        "inputs": {"prompt_sha256": "p", "starter_tree_sha256": "s", "cohort_sha256": "c",
                   "settings_sha256": "r"},
    }  # fmt: skip
    path = tmp_path / "round.json"
    path.write_text(json.dumps(data))
    record = read_record(path, RoundRecord)
    assert (record.factor, record.inputs.arms_sha256) == (None, {})


def test_session_json_records_the_arm_and_schema_6_files_still_load(tmp_path: Path) -> None:
    arm = ArmRecord(factor="method", arm="placebo", sha256="a" * 64, frozen_sha256="a" * 64,
                    files=["AGENTS.md"])  # fmt: skip
    record = session(arm=arm.model_dump())
    assert record.schema_version == 7
    path = tmp_path / "session.json"
    write_record(path, record)
    assert read_record(path, SessionRecord).arm == arm
    older = json.loads(path.read_text())
    older.pop("arm")
    older["schema_version"] = 6
    path.write_text(json.dumps(older))
    assert read_record(path, SessionRecord).arm is None


def _starter(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src/main.ts").write_text("export {};\n")
    (root / "README.md").write_text("# Starter\n")
    return root


def test_the_arm_files_are_the_base_commit_not_the_sessions_work(tmp_path: Path) -> None:
    starter = _starter(tmp_path / "starter")
    arm = load_arm("method", "tracer-bullets")
    bare_hash, _ = create_worktree(tmp_path / "bare", tmp_path / "cache", starter)
    tree_hash, base = create_worktree(
        tmp_path / "wt", tmp_path / "cache", starter, (arm.folder, arm.files)
    )
    assert tree_hash == bare_hash  # the starter's hash is the frozen starter's, arm or not
    wt = tmp_path / "wt"
    assert (wt / "AGENTS.md").read_bytes() == (arm.folder / "AGENTS.md").read_bytes()
    assert not (wt / "arm.json").exists()
    assert final_diff(wt, base) == b""  # a model that changed nothing changed nothing
    (wt / "src/main.ts").write_text("export const a = 1;\n")
    diff = final_diff(wt, base).decode()
    assert "src/main.ts" in diff and "AGENTS.md" not in diff


def test_an_arm_only_adds_files(tmp_path: Path) -> None:
    starter = _starter(tmp_path / "starter")
    folder = tmp_path / "arm"
    folder.mkdir()
    (folder / "README.md").write_text("# Replaced\n")
    with pytest.raises(WorktreeError, match="the starter already has README.md"):
        create_worktree(tmp_path / "wt", tmp_path / "cache", starter, (folder, ["README.md"]))


def test_a_round_tag_fingerprints_each_arm_folder() -> None:
    from publish.tag import flat_inputs

    arms = {"none": "a", "placebo": "b"}
    inputs = FrozenInputs(prompt_sha256="p", starter_tree_sha256="s", cohort_sha256="c",
                          settings_sha256="r", arms_sha256=arms)  # fmt: skip
    assert flat_inputs(inputs) == {
        "prompt_sha256": "p", "starter_tree_sha256": "s", "cohort_sha256": "c",
        "settings_sha256": "r", "arm_none_sha256": "a", "arm_placebo_sha256": "b",
    }  # fmt: skip
    assert "arms_sha256" not in flat_inputs(inputs.model_copy(update={"arms_sha256": {}}))
