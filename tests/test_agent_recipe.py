"""The "add an agent" recipe (docs/architecture.md), proved with a throwaway agent: an adapter
(tests/toy_agent.py), one entry in `AGENTS`, its version as setup would record it, and a round
file naming it. Nothing else changes: its unit runs in the same sandbox through the same recording
proxy, writes the same trace.json, and is evaluated and scored like an OpenCode unit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from session_support import CALIBRATION, install
from toy_agent import NAME, VERSION, ToyAgent

import harness.agents
import records.inputs
import records.tools
from evaluator.unit_evaluation import evaluate_unit
from harness.freeze import freeze
from harness.spend import check_spend
from harness.unit import run_unit
from records.evidence.agent import AgentTrace
from records.evidence.evaluation import Calibration
from records.io import read_record, write_record
from records.layout import evaluator_sha256, round_paths
from records.round import Round
from scoring import score_round

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # Chromium judges the unit
ROUND = "toy-round"


@pytest.fixture(scope="module")
def evidence(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The showcase round's settings under another round id, naming the toy agent."""
    with pytest.MonkeyPatch.context() as mp:
        rounds = tmp_path_factory.mktemp("rounds")
        settings = json.loads((records.inputs.rounds_dir() / "showcase.json").read_text())
        settings.update(round_id=ROUND, agent={"name": NAME, "version": VERSION})
        settings.pop("opencode_version", None)
        (rounds / f"{ROUND}.json").write_text(json.dumps(settings))
        mp.setattr(records.inputs, "rounds_dir", lambda: rounds)  # the round file
        mp.setitem(harness.agents.AGENTS, NAME, ToyAgent)  # the registry entry
        installed = records.tools.tool_versions()
        mp.setattr(records.tools, "tool_versions", lambda: {**installed, NAME: VERSION})  # setup
        mp.setenv("SITEOS_SCRATCH", str(tmp_path_factory.mktemp("scratch")))
        install(tmp_path_factory.mktemp("scripts"), mp.setattr)
        ev = tmp_path_factory.mktemp("evidence")
        freeze(Round.load(ROUND, ev))
        check_spend(Round.load(ROUND, ev))
        write_record(round_paths(ROUND, ev).calibration, Calibration(
            round_id=ROUND, passed=True, checks_executed=15, automated_score=CALIBRATION,
            expected_score=CALIBRATION, evaluator_sha256=evaluator_sha256(), hard_gate_failed=True,
            missing_core_journeys=["filter", "detail", "enquiry"], install_ok=True, build_ok=True,
            failed_checks=[], expected_failed_checks=[], reasons=[],
            result="calibration/result.json", duration_s=0.0,
        ))  # fmt: skip
        yield ev


def test_a_new_agent_runs_is_evaluated_and_scored_like_opencode(evidence: Path) -> None:
    record = run_unit(Round.load(ROUND, evidence), "strong-builder", check_order=False)
    assert (record.agent.name, record.agent.version) == (NAME, VERSION)
    assert record.stop_status == "completed" and record.validity == "valid", record
    assert record.isolation.level == "bwrap-loopback-proxy"
    paths = round_paths(ROUND, evidence).unit("strong-builder-r1")
    trace = read_record(paths.trace, AgentTrace)
    assert trace.agent.name == NAME and len(trace.steps) == record.steps
    tools = [p for s in trace.steps for p in s.parts if p.kind == "tool"]
    writes = [f for p in tools for f in p.files]
    assert any(f.endswith("src/pages/VenuePage.tsx") for f in writes)
    commands = [p for p in tools if p.shell]
    assert commands and all(p.exit_code == 0 for p in commands), commands
    result = evaluate_unit(Round.load(ROUND, evidence), "strong-builder-r1")
    assert result.automated_score == result.max_automated and not result.hard_gate_failed
    board = score_round(Round.load(ROUND, evidence))
    (row,) = [r for r in board.units if r.unit == "strong-builder-r1"]
    assert row.status == "ranked" and row.automated_score == result.automated_score
