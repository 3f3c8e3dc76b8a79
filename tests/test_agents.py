"""Agents as plug-ins: the round names the agent, the registry refuses what it cannot run as named,
and `python -m harness.agents retrace` rebuilds trace.json for units recorded before traces."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from scoring_support import make_round, session

from harness.agents import AGENTS, AgentRefused, OpenCodeAgent, adapter, agent_for
from harness.agents.__main__ import main as agents_main
from records.evidence.agent import AgentInfo, AgentTrace
from records.inputs import RoundSettings, load_round
from records.io import RecordError, read_record, write_record
from records.layout import REPO_ROOT
from scoring.anonymise import anonymise_diff, identity_pattern
from scoring.evidence import load_unit

# Real `opencode run --format json` output: a copy of ../shared/reference/opencode-1.17.18/.
REFERENCE = Path(__file__).parent / "data/reference/opencode-1.17.18/run-format-json-events.jsonl"
OPENCODE = AgentInfo(name="opencode", version="1.17.18")


def test_round_files_without_an_agent_name_opencode_1_17_18() -> None:
    for round_id in ("demo", "round-0"):
        assert load_round(round_id).agent == OPENCODE


def test_round_settings_refuse_two_different_agent_versions() -> None:
    data = json.loads((REPO_ROOT / "benchmark/rounds/demo.json").read_text())
    data["agent"] = {"name": "opencode", "version": "1.18.0"}
    with pytest.raises(ValueError, match="differs from agent.version"):
        RoundSettings.model_validate(data)
    del data["opencode_version"]
    assert RoundSettings.model_validate(data).agent.version == "1.18.0"


def test_the_registry_maps_names_to_adapters() -> None:
    assert set(AGENTS) == {"opencode", "claude-code", "codex", "gemini-cli", "copilot"}
    agent = adapter(OPENCODE, "round 'demo'")
    assert isinstance(agent, OpenCodeAgent) and agent.info == OPENCODE
    assert "OpenCode" in agent.identity.names and agent.identity.files and agent.identity.ids
    for name, version in (("claude-code", "2.1.332"), ("codex", "0.171.0"),
                          ("gemini-cli", "0.61.0"), ("copilot", "1.0.102")):  # fmt: skip
        other = adapter(AgentInfo(name=name, version=version), "round 'x'")
        assert other.info == AgentInfo(name=name, version=version) and other.identity.names
    with pytest.raises(AgentRefused, match="'aider' has no adapter"):
        adapter(AgentInfo(name="aider", version="1.0.0"), "round 'x'")
    with pytest.raises(AgentRefused, match="adapter speaks claude-code 2.1.332"):
        adapter(AgentInfo(name="claude-code", version="2.0.0"), "round 'x'")
    with pytest.raises(AgentRefused, match="adapter speaks opencode 1.17.18"):
        adapter(AgentInfo(name="opencode", version="1.18.0"), "round 'x'")


def test_a_version_other_than_the_installed_one_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(OpenCodeAgent, "installed_version", lambda self: "1.18.0")
    with pytest.raises(AgentRefused) as caught:
        agent_for(OPENCODE, "round 'demo'")
    message = str(caught.value)
    assert "round 'demo'" in message and "1.18.0 is installed" in message
    assert ".tools/versions.json" in message and "scripts/setup" in message


def test_retrace_rebuilds_missing_traces_and_scoring_reads_them(tmp_path: Path) -> None:
    assert REFERENCE.is_file(), f"{REFERENCE}: the recorded reference events are missing"
    ctx = make_round(tmp_path)
    record = session("strong-builder")
    paths = ctx.paths.unit(record.unit)
    write_record(paths.session, record)
    shutil.copy(REFERENCE, paths.events)
    with pytest.raises(RecordError, match="python -m harness.agents retrace test"):
        load_unit(ctx.paths, record.unit)
    assert agents_main(["retrace", "test", "--evidence", str(tmp_path)]) == 0
    trace = read_record(paths.trace, AgentTrace)
    assert trace == OpenCodeAgent().read_trace(paths.events)
    assert load_unit(ctx.paths, record.unit).trace == trace
    before = paths.trace.stat().st_mtime_ns
    assert agents_main(["retrace", "test", "--evidence", str(tmp_path)]) == 0
    assert paths.trace.stat().st_mtime_ns == before  # an existing trace is kept


def test_retrace_refuses_an_agent_without_adapter(tmp_path: Path) -> None:
    ctx = make_round(tmp_path)
    record = session("strong-builder", agent={"name": "codex", "version": "1"})
    paths = ctx.paths.unit(record.unit)
    write_record(paths.session, record)
    paths.events.write_text("{}\n")
    assert agents_main(["retrace", "test", "--evidence", str(tmp_path)]) == 2
    assert not paths.trace.exists()


def test_the_anonymiser_knows_an_agent_only_through_its_adapter() -> None:
    identity = OpenCodeAgent.identity
    diff = (
        "diff --git a/.opencode/state.json b/.opencode/state.json\n+{}\n"
        "diff --git a/src/a.ts b/src/a.ts\n+// OpenCode session ses_dd16cbb0cffeOqRJMA6omQr1PK\n"
    )
    bare = anonymise_diff(diff, identity_pattern(["Nobody"]))
    assert ".opencode" in bare and "ses_" in bare and "OpenCode" in bare
    told = anonymise_diff(diff, identity_pattern(identity.names, identity.ids), identity.files)
    assert ".opencode" not in told and "ses_" not in told and "OpenCode" not in told
    assert told.count("[redacted]") == 2
