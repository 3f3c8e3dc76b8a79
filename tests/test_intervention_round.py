"""The demo intervention round end to end (scripts/demo-intervention's stages, built once per
session by `tests/demo_build.py`; full tier: twenty sessions): four scripted models, each run by
OpenCode, Claude Code, Codex, Gemini CLI and Copilot CLI through the same proxy and simulator;
every unit evaluated and scored; the agents compared model by model in intervention.json."""

from __future__ import annotations

import statistics

import pytest
from demo_build import demo_build

from records.evidence.gateway import read_exchanges
from records.evidence.round import PreflightRecord
from records.evidence.scoring import InterventionBoard, Leaderboard
from records.io import read_record
from records.layout import RoundPaths
from records.unit_ids import UnitId

pytestmark = [pytest.mark.agent_cli, pytest.mark.browser, pytest.mark.slow, pytest.mark.full]
ROUND = "demo-intervention"
PROTOCOLS = {
    "opencode": "chat/completions",
    "claude-code": "messages",
    "codex": "responses",
    "gemini-cli": "gemini",
    "copilot": "responses",
}
ASK_REASONING = ("claude-code", "codex", "copilot")  # always, whatever the route takes


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> RoundPaths:
    return RoundPaths(demo_build(tmp_path_factory, ROUND).pristine / ROUND)


def test_every_model_ran_with_every_agent_through_its_own_protocol(paths: RoundPaths) -> None:
    preflight = {
        k: read_record(paths.preflight(k), PreflightRecord) for k in paths.preflight_keys()
    }
    models = ("signer", "strong-builder", "type-breaker", "wide-footer")
    assert sorted(preflight) == sorted(f"{m}-via-{a}" for m in models for a in PROTOCOLS)
    assert {k: p.agent.name for k, p in preflight.items()} == {k: k.split("-via-")[1]
                                                               for k in preflight}  # fmt: skip
    # wide-footer's route does not take reasoning, which Claude Code, Codex and Copilot CLI always
    # ask for: with the frozen require_parameters policy the gateway has no endpoint for it
    assert [k for k, p in preflight.items() if not p.qualified] == [
        f"wide-footer-via-{agent}" for agent in ASK_REASONING
    ]
    for agent in ASK_REASONING:
        reason = preflight[f"wide-footer-via-{agent}"].reason
        assert "no_endpoint" in reason and "can handle the requested parameters" in reason
    for unit in paths.units_with("session"):
        agent = UnitId.parse(unit).agent
        protocols = {x.protocol for x in read_exchanges(paths.unit(unit).gateway)}
        assert protocols == {PROTOCOLS[agent]}, unit


def test_the_agents_are_compared_model_by_model_from_the_leaderboard(paths: RoundPaths) -> None:
    board = read_record(paths.leaderboard, Leaderboard)
    found = read_record(paths.intervention, InterventionBoard)
    assert (found.baseline, found.agents, found.standing) == ("opencode", list(PROTOCOLS), "final")
    assert {r.agent for r in board.units} == set(PROTOCOLS)
    assert board.advancing == board.advancing_projected == []  # a comparison, not a selection
    assert [(n.model_key, n.agent) for n in board.not_testable] == [
        ("wide-footer", agent) for agent in ASK_REASONING
    ]
    means = {}
    for model in found.models:
        for arm in model.arms:
            rows = [r for r in board.units
                    if (r.model_key, r.agent) == (model.model_key, arm.agent)]  # fmt: skip
            assert arm.units == [r.unit for r in rows if r.total is not None]
            totals = [r.total for r in rows if r.total is not None]
            means[model.model_key, arm.agent] = statistics.fmean(totals) if totals else None
            assert arm.mean_total == means[model.model_key, arm.agent]
    assert [e.agent for e in found.effects] == [a for a in PROTOCOLS if a != "opencode"]
    for effect in found.effects:
        agent = effect.agent
        keys = [m.model_key for m in found.models]
        paired = [k for k in keys if None not in (means[k, "opencode"], means[k, agent])]
        expected = ["signer", "strong-builder", "type-breaker"]
        assert (
            effect.models
            == paired
            == (expected if agent in ASK_REASONING else [*expected, "wide-footer"])
        )
        assert effect.differences == [
            pytest.approx(means[m, agent] - means[m, "opencode"])  # type: ignore[operator]
            for m in paired
        ]
        assert effect.low is not None and effect.high is not None
        assert effect.low <= effect.mean_difference <= effect.high  # type: ignore[operator]
