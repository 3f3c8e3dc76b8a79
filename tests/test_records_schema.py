"""Every persisted root carries schema_version; files written before a format change still load.

No evidence is committed (evidence/ holds only its README), so the legacy files here are written
in the exact shapes the earlier writers produced, and the current ones by the real writers.
"""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import shutil
from pathlib import Path

import pytest
from scoring_support import session

import records.evidence
from evaluator import browser_phase
from harness.agents.opencode import OpenCodeAgent
from harness.session.evidence import save_trace
from records.base import Record, Root
from records.evidence.agent import AgentTrace, CommandsRecord
from records.evidence.evaluation import CheckResult, PhaseFacts, PhaseRecord
from records.evidence.round import RoundRecord
from records.evidence.session import SessionRecord
from records.io import RecordError, read_record, write_json, write_record
from records.layout import REPO_ROOT, UnitPaths

# Real `opencode run --format json` output: a copy of ../shared/reference/opencode-1.17.18/.
REFERENCE = Path(__file__).parent / "data/reference/opencode-1.17.18/run-format-json-events.jsonl"
DATA = Path(__file__).parent / "data"

# Every file-level record (one file each); embedded parts are plain Records.
ROOTS = {
    "session.json": "records.evidence.session:SessionRecord",
    ".running": "records.evidence.session:RunningMarker",
    "gateway summary (session.json#gateway)": "records.evidence.gateway:GatewaySummary",
    "gateway.jsonl line": "records.evidence.gateway:ExchangeRecord",
    "round.json": "records.evidence.round:RoundRecord",
    "preflight.json": "records.evidence.round:PreflightRecord",
    "probe.json": "records.evidence.round:ProbeRecord",
    "order.json": "records.evidence.round:OrderRecord",
    "replacement.json": "records.evidence.round:ReplacementRecord",
    "result.json": "records.evidence.evaluation:EvaluationResult",
    "calibration.json": "records.evidence.evaluation:Calibration",
    ".phase.json": "records.evidence.evaluation:PhaseRecord",
    "private/codes.json": "records.evidence.blind:CodesRecord",
    "private/code-secret.json": "records.evidence.blind:CodeSecret",
    "packets/index.json": "records.evidence.scoring:PacketIndex",
    "leaderboard.json": "records.evidence.scoring:Leaderboard",
    "model-leaderboard.json": "records.evidence.scoring:ModelLeaderboard",
    "commands.json": "records.evidence.agent:CommandsRecord",
    "controls.inputs.json": "records.evidence.controls:ControlsInputs",
    "trace.json": "records.evidence.agent:AgentTrace",
    "catalogue.json": "records.evidence.catalogue:CatalogueReport",
    "controls.json": "records.evidence.controls:ControlsRecord",
    "manifest.json": "records.evidence.manifest:EvidenceManifest",
}


def _load(target: str) -> type[Record]:
    module, name = target.split(":")
    found: type[Record] = getattr(importlib.import_module(module), name)
    return found


@pytest.mark.parametrize("file", sorted(ROOTS))
def test_every_root_has_a_schema_version(file: str) -> None:
    model = _load(ROOTS[file])
    assert "schema_version" in model.model_fields, f"{file}: {model.__name__} has no version"
    assert model.model_fields["schema_version"].default >= 1


def test_every_record_module_has_one_base() -> None:
    for info in pkgutil.iter_modules(records.evidence.__path__):
        module = importlib.import_module(f"records.evidence.{info.name}")
        mine = module.__name__
        defined = [v for v in vars(module).values() if getattr(v, "__module__", "") == mine]
        for value in defined:
            if isinstance(value, type) and hasattr(value, "model_fields"):
                assert issubclass(value, Record), f"{module.__name__}.{value.__name__}"


def test_every_model_base_is_in_records_base() -> None:
    """One base per policy (records/base.py): no package defines its own pydantic base."""
    found = []
    for package in ("records", "sandbox", "harness", "evaluator", "scoring", "publish"):
        for path in sorted((REPO_ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                bases = [b.id for b in getattr(node, "bases", []) if isinstance(b, ast.Name)]
                if isinstance(node, ast.ClassDef) and "BaseModel" in bases:
                    found.append(f"{path.relative_to(REPO_ROOT)}:{node.name}")
    assert found == ["records/base.py:Record", "records/base.py:Loose", "records/base.py:Lenient"]


def test_a_newer_schema_is_refused_naming_file_and_field(tmp_path: Path) -> None:
    assert issubclass(CommandsRecord, Root)
    path = tmp_path / "commands.json"
    write_json(path, {"schema_version": 3, "commands": []})
    with pytest.raises(RecordError) as caught:
        read_record(path, CommandsRecord)
    assert str(path) in str(caught.value) and "schema_version" in str(caught.value)


def test_session_json_of_schema_1_loads_with_the_round_ceilings(tmp_path: Path) -> None:
    legacy = session().model_dump(mode="json")
    legacy["schema_version"] = 1
    legacy["ceilings"] = {"steps": 40, "wall_clock_seconds": 1800.0, "budget_usd": 10.0}
    path = tmp_path / "session.json"
    write_json(path, legacy)
    record = read_record(path, SessionRecord)
    assert record.schema_version == 1
    assert record.ceilings.wall_clock_minutes == 30 and record.ceilings.wall_clock_seconds == 1800
    write_record(path, session())
    assert json.loads(path.read_text())["schema_version"] == 7


def test_session_json_before_resource_limit_loads(tmp_path: Path) -> None:
    """Schema 4 added the stop status `resource_limit` and the fields `resource_limit` and
    `attribution`; a schema 2 or 3 file has none of them and still loads (nor does a schema 4 file
    have schema 5's `lingered_seconds`)."""
    for version in (2, 3):
        legacy = session(stop_status="time_ceiling").model_dump(mode="json")
        legacy["schema_version"] = version
        for added in ("resource_limit", "attribution", "worktree_archive_sha256"):
            legacy.pop(added, None)
        path = tmp_path / f"session-{version}.json"
        write_json(path, legacy)
        record = read_record(path, SessionRecord)
        assert (record.schema_version, record.stop_status) == (version, "time_ceiling")
        assert (record.resource_limit, record.attribution) == (None, "")
    legacy = session().model_dump(mode="json")
    legacy["schema_version"] = 4
    legacy.pop("lingered_seconds")  # schema 5 added it: a schema 4 file never lingered
    write_json(path := tmp_path / "session-4.json", legacy)
    assert read_record(path, SessionRecord).lingered_seconds is None
    limited = session(stop_status="resource_limit", resource_limit="nproc: stopped")
    path = tmp_path / "session.json"
    write_record(path, limited)
    assert read_record(path, SessionRecord).resource_limit == "nproc: stopped"


@pytest.mark.parametrize(("scoring", "version"), [(None, 1), ("ab" * 32, 2)])
def test_round_json_without_a_version_is_labelled_by_content(
    tmp_path: Path, scoring: str | None, version: int
) -> None:
    data = {
        "round_id": "showcase",
        "frozen_at": "2026-12-01T00:00:00+00:00",
        "seed": 1,
        "cohort_file": "demo-cohort.json",
        "inputs": {k: "0" * 64 for k in ("prompt_sha256", "starter_tree_sha256",
                                        "cohort_sha256", "settings_sha256")},
        "evaluator_sha256": "1" * 64,
        "tool_versions": {"opencode": "1.17.18"},
    }  # fmt: skip
    if scoring:
        data["scoring_sha256"] = scoring
    path = tmp_path / "round.json"
    write_json(path, data)
    assert read_record(path, RoundRecord).schema_version == version


def test_commands_json_bare_list_of_schema_1_loads(tmp_path: Path) -> None:
    path = tmp_path / "commands.json"
    write_json(path, [{  # exactly what CommandRun.as_json wrote before commands.json had a version
        "call_id": "c1", "command": "npm run build", "exit_code": 0, "status": "completed",
        "output": "ok", "output_truncated": False, "timestamp": 1796077736166,
    }])  # fmt: skip
    record = read_record(path, CommandsRecord)
    assert record.schema_version == 1 and record.commands[0].exit_code == 0
    assert record.commands[0].source is None and record.commands[0].line is None


def test_trace_from_the_real_writers_loads(tmp_path: Path) -> None:
    assert REFERENCE.is_file(), f"{REFERENCE}: the recorded reference events are missing"
    paths = UnitPaths(tmp_path / "unit")
    paths.root.mkdir()
    shutil.copy(REFERENCE, paths.events)
    save_trace(paths, OpenCodeAgent().read_trace(paths.events))
    trace = read_record(paths.trace, AgentTrace)
    assert trace.schema_version == 2 and not paths.commands.exists()
    assert [c.line for c in trace.commands] == [5]
    line = paths.events.read_text().split("\n")[4]
    assert json.loads(line)["part"]["tool"] == "bash"  # the cited line is the command's event


def test_a_schema_1_trace_loads_as_one_step_with_every_fact_kept(tmp_path: Path) -> None:
    """`trace-schema-1.json` is what the schema-1 writer (git history) made of the reference
    events: read now, it gives scoring the same commands, edits, messages and finish."""
    old = read_record(DATA / "trace-schema-1.json", AgentTrace)
    shutil.copy(REFERENCE, tmp_path / "events.jsonl")
    new = OpenCodeAgent().read_trace(tmp_path / "events.jsonl")
    assert old.schema_version == 2 and "schema 1" in old.notes and len(old.steps) == 1
    assert old.commands == new.commands and old.edits == new.edits
    assert [(m.text, m.source) for m in old.messages] == [(m.text, m.source) for m in new.messages]
    assert [p.source for p in old.parts()] == [p.source for p in new.parts()]
    assert old.finished_normally and new.finished_normally
    data = json.loads((DATA / "trace-schema-1.json").read_text())  # a read of the file written
    read = {"tool": "read", "status": "completed", "input": {"filePath": "/worktree/hello.txt"},
            "call_id": "c0", "timestamp": 1, "source": "events.jsonl:1"}  # fmt: skip
    data["tool_calls"].insert(0, read)
    assert AgentTrace.model_validate(data).edits == ["/worktree/hello.txt"]  # edited once
    again = tmp_path / "trace.json"  # the migrated record writes and reads back unchanged
    write_record(again, old)
    assert read_record(again, AgentTrace) == old


def test_phase_json_from_the_browser_phase_loads(tmp_path: Path) -> None:
    state = browser_phase.PhaseState(complete=True, video="video.webm")
    state.checks.append(
        CheckResult(id="x", dimension="functional", points=5, max_points=5, executed=True,
                    passed=True)
    )  # fmt: skip
    state.facts = PhaseFacts(max_overflow={"px": 3, "url": "/"}, unsettled=["/a"])
    path = tmp_path / ".phase.json"
    write_record(path, browser_phase._state_json(state))
    phase = read_record(path, PhaseRecord)
    assert phase.complete and phase.checks[0].id == "x" and phase.facts.max_overflow["px"] == 3


def test_a_failed_browser_phase_writes_a_typed_phase_file(tmp_path: Path) -> None:
    phase_json = tmp_path / ".phase.json"
    code = browser_phase.main([
        "--dist", str(tmp_path / "dist"), "--out", str(tmp_path / "out"),
        "--phase-json", str(phase_json), "--data", str(tmp_path / "missing.json"),
        "--checks", "evaluator.checks",
    ])  # fmt: skip
    phase = read_record(phase_json, PhaseRecord)
    assert code == 2 and not phase.complete and phase.error and phase.schema_version == 1
