"""Claude Code, Codex CLI, Gemini CLI and Copilot CLI as scored units: each real CLI runs a
scripted build (the showcase's strong builder, its calls in the agent's own tools) in the session
sandbox, through the recording proxy (Anthropic Messages, OpenAI Responses for Codex and Copilot
CLI, the Gemini API translated to chat/completions) to the simulator, with nothing past loopback;
its unit is evaluated and scored like an OpenCode unit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from session_support import agent_round, order_units, pass_preconditions

from evaluator.unit_evaluation import evaluate_unit
from harness.agents import ClaudeCodeAgent, CodexAgent, CopilotAgent, GeminiCliAgent
from harness.agents.copilot import MAX_OUTPUT_TOKENS
from harness.freeze import freeze
from harness.unit import run_unit
from records.evidence.agent import AgentTrace
from records.evidence.gateway import read_exchanges
from records.io import read_record
from records.round import Round
from scoring import score_round

pytestmark = [pytest.mark.agent_cli, pytest.mark.browser, pytest.mark.slow]
AGENTS = {  # agent -> (its adapter, the protocol its proxy log records, the path it posts to)
    "claude-code": (ClaudeCodeAgent, "messages", "/api/v1/messages"),
    "codex": (CodexAgent, "responses", "/api/v1/responses"),
    "gemini-cli": (GeminiCliAgent, "gemini",
                   "/api/v1/gemini/v1beta/models/demo-northwind/builder-1:streamGenerateContent"),
    "copilot": (CopilotAgent, "responses", "/api/v1/responses"),
}  # fmt: skip
# The default tier runs one CLI per wire protocol; Copilot CLI shares Codex's (OpenAI Responses)
# and runs in the full tier (its own protocol tests, tests/test_agent_copilot.py, stay default).
FULL_TIER_ONLY = {"copilot"}


@pytest.fixture(
    scope="module",
    params=[
        pytest.param(n, marks=pytest.mark.full) if n in FULL_TIER_ONLY else n
        for n in sorted(AGENTS)
    ],
)
def unit(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    name = request.param
    adapter = AGENTS[name][0]()
    if adapter.installed_version() is None:
        pytest.fail(f"{name} is not installed: run scripts/setup")
    round_id = f"{name}-round"
    agent = {"name": name, "version": adapter.info.version}
    with agent_round(tmp_path_factory, round_id, agent) as (evidence, _):
        rnd = Round.load(round_id, evidence)
        freeze(rnd)
        pass_preconditions(evidence, round_id)
        order_units(rnd, ["strong-builder-r1"])
        record = run_unit(rnd, "strong-builder", check_order=False)
        yield name, rnd, record


def test_the_cli_completes_the_scripted_build_in_the_sandbox(unit: tuple) -> None:
    name, rnd, record = unit
    assert (record.agent.name, record.stop_status, record.validity) == (
        name, "completed", "valid"), record.invalid_reasons  # fmt: skip
    assert record.isolation.level == "bwrap-loopback-proxy"  # no network but the proxy
    exchanges = read_exchanges(rnd.unit("strong-builder-r1").gateway)
    _, protocol, path = AGENTS[name]
    assert exchanges and {x.path.split("?")[0] for x in exchanges} == {path}, exchanges[:2]
    assert {x.protocol for x in exchanges} == {protocol}
    assert record.steps == len(exchanges) and record.cost_usd and record.cost_usd > 0
    trace = read_record(rnd.unit("strong-builder-r1").trace, AgentTrace)
    assert trace.agent.name == name and trace.steps
    tools = [p for s in trace.steps for p in s.parts if p.kind == "tool"]
    assert any(f.endswith("src/pages/VenuePage.tsx") for p in tools for f in p.files)
    assert any(p.shell and p.exit_code == 0 for p in tools)


def test_the_proxy_forwards_the_agents_output_limit_as_it_was_sent(unit: tuple) -> None:
    """$5 covers the route's maximum output at its price, so the hard budget writes nothing in:
    Codex names no `max_output_tokens` and none goes upstream, nor does Gemini CLI name a
    `maxOutputTokens` (its forwarded chat request has no `max_tokens`); Claude Code's own
    `max_tokens` goes as it was sent, as does Copilot CLI's `max_output_tokens` (its provider's
    output limit; the exchange records hold the bodies as forwarded)."""
    name, rnd, _ = unit
    exchanges = read_exchanges(rnd.unit("strong-builder-r1").gateway)
    assert exchanges and all(x.budget_capped is None for x in exchanges)
    assert all(x.max_tokens_change is None for x in exchanges)
    if name == "codex":
        assert not any("max_output_tokens" in x.request for x in exchanges)
    elif name == "copilot":
        assert all(x.request.get("max_output_tokens") == MAX_OUTPUT_TOKENS for x in exchanges)
    elif name == "gemini-cli":
        assert not any("max_tokens" in x.request for x in exchanges)
    else:
        assert all(isinstance(x.request.get("max_tokens"), int) for x in exchanges)


def test_the_unit_is_evaluated_and_ranked_like_an_opencode_unit(unit: tuple) -> None:
    _, rnd, _ = unit
    result = evaluate_unit(rnd, "strong-builder-r1")
    assert result.automated_score == result.max_automated and not result.hard_gate_failed
    board = score_round(rnd)
    (row,) = [r for r in board.units if r.unit == "strong-builder-r1"]
    assert row.status == "ranked" and row.automated_score == result.automated_score
