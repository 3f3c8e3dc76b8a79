"""The "add an agent" recipe (docs/architecture.md), proved with a throwaway agent: an adapter
(tests/toy_agent.py), one entry in `AGENTS`, its version as setup would record it, and a round
file naming it. Nothing else changes: its unit runs in the same sandbox through the same recording
proxy, writes the same trace.json, and is evaluated and scored like an OpenCode unit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from session_support import agent_round, order_units, pass_preconditions
from toy_agent import NAME, VERSION, ToyAgent

import harness.agents
import records.inputs
import records.tools
from evaluator.unit_evaluation import evaluate_unit
from harness.freeze import freeze
from harness.unit import run_unit
from records.evidence.agent import AgentTrace
from records.io import read_record
from records.layout import round_paths
from records.round import Round
from scoring import score_round

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # Chromium judges the unit
ROUND = "toy-round"


@pytest.fixture(scope="module")
def evidence(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The showcase round's settings under another round id, naming the toy agent."""
    with agent_round(tmp_path_factory, ROUND, {"name": NAME, "version": VERSION}) as (ev, mp):
        mp.setitem(harness.agents.AGENTS, NAME, ToyAgent)  # the registry entry
        installed = records.tools.tool_versions()
        mp.setattr(records.tools, "tool_versions", lambda: {**installed, NAME: VERSION})  # setup
        freeze(Round.load(ROUND, ev))
        pass_preconditions(ev, ROUND)
        order_units(Round.load(ROUND, ev), ["strong-builder-r1"])
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
