"""intervention.json for a method factor (scoring/intervention.py, schema 2): each arm's totals and
metered costs per model, each arm's paired difference from the baseline in total and in cost with
their 95% t-intervals, and the arms' titles and frozen hashes, from a round scored by the real
pipeline (units written by the test helpers' writers, scored by `score_context`)."""

from __future__ import annotations

import dataclasses
import json
import statistics
from pathlib import Path

import pytest
from scoring_support import make_round, make_unit, result, session

from records.evidence.scoring import ArmInfo, ArmScore, InterventionBoard, InterventionModel
from records.io import read_record
from scoring.claims import difference
from scoring.intervention import effect
from scoring.pipeline import score_context
from scoring.uncertainty import mean_interval

ARMS = ("none", "placebo", "tracer-bullets")
INFO = tuple(
    ArmInfo(id=a, title=a.title(), adds="AGENTS.md", baseline=a == "none", placebo=a == "placebo",
            files=[] if a == "none" else ["AGENTS.md"], sha256=str(i) * 64)
    for i, a in enumerate(ARMS)
)  # fmt: skip
# model -> arm -> (failed checks, metered cost in USD)
UNITS = {
    "strong-builder": {"none": ((), 0.40), "placebo": ((), 0.41), "tracer-bullets": ((), 0.50)},
    "partial-builder": {
        "none": (("axe", "mobile-nav"), 0.30),
        "placebo": (("axe", "mobile-nav"), 0.31),
        "tracer-bullets": (("axe",), 0.45),
    },
    "type-breaker": {
        "none": (("axe",), 0.20),
        "placebo": (("axe",), 0.20),
        "tracer-bullets": ((), 0.20),
    },
}


def _board(tmp_path: Path) -> InterventionBoard:
    ctx = dataclasses.replace(make_round(tmp_path), arms=ARMS, factor="method", arm_info=INFO)
    for model, arms in UNITS.items():
        for arm, (failed, cost) in arms.items():
            unit = f"{model}-via-{arm}-r1"
            make_unit(ctx, model, session(model, unit=unit, cost_usd=cost), result(failed=failed))
    score_context(ctx)
    return read_record(ctx.paths.intervention, InterventionBoard)


def test_each_arm_is_compared_with_the_baseline_in_total_and_in_cost(tmp_path: Path) -> None:
    board = _board(tmp_path)
    assert (board.schema_version, board.factor, board.baseline) == (4, "method", "none")
    assert board.agents == list(ARMS) and board.arms == list(INFO)
    placebo, tracer = board.effects
    models = sorted(UNITS)
    assert tracer.cost_models == tracer.models == models
    spent = [UNITS[m]["tracer-bullets"][1] - UNITS[m]["none"][1] for m in models]
    assert tracer.cost_differences == pytest.approx(spent)
    interval = mean_interval(spent)
    assert tracer.mean_cost_difference == pytest.approx(statistics.fmean(spent), abs=1e-6)
    assert (tracer.cost_low, tracer.cost_high) == (
        pytest.approx(interval.low, abs=1e-6), pytest.approx(interval.high, abs=1e-6),
    )  # fmt: skip
    assert placebo.differences == [0.0, 0.0, 0.0]  # the same checks failed: the same totals
    assert placebo.cost_differences == pytest.approx([0.01, 0.01, 0.0])
    gained = dict(zip(tracer.models, tracer.differences, strict=True))
    assert gained["strong-builder"] == 0 and gained["partial-builder"] > 0
    assert gained["type-breaker"] > 0
    for model in board.models:
        for arm in model.arms:
            assert arm.costs == [UNITS[model.model_key][arm.agent][1]]
            assert arm.mean_cost_usd == pytest.approx(arm.costs[0])


def test_an_intervention_json_of_schema_1_still_loads_as_the_agent_factor(tmp_path: Path) -> None:
    data = json.loads(_board(tmp_path).model_dump_json())
    data.update(schema_version=1, agents=["opencode", "claude-code"], baseline="opencode")
    for key in ("factor", "arms"):
        data.pop(key)
    for model in data["models"]:
        model["arms"] = [
            {k: v for k, v in a.items() if k not in ("costs", "mean_cost_usd")}
            for a in model["arms"]
        ]
    data["effects"] = [
        {k: v for k, v in e.items() if not k.startswith("cost") and k != "mean_cost_difference"}
        for e in data["effects"]
    ]
    path = tmp_path / "intervention.json"
    path.write_text(json.dumps(data))
    found = read_record(path, InterventionBoard)
    assert (found.factor, found.arms, found.effects[0].cost_models) == ("agent", [], [])


def test_an_intervention_json_of_schema_2_loads_its_arms_without_a_tool(tmp_path: Path) -> None:
    data = json.loads(_board(tmp_path).model_dump_json())
    data["schema_version"] = 2
    for arm in data["arms"]:
        arm.pop("tool")
    path = tmp_path / "intervention.json"
    path.write_text(json.dumps(data))
    found = read_record(path, InterventionBoard)
    assert [a.tool for a in found.arms] == ["", "", ""] and found.factor == "method"


def test_an_effect_s_interval_is_cut_where_a_difference_ends_as_the_claims_cut_it() -> None:
    """Three paired models, +61, 0 and 0 points: the t-interval (-67.2 to +107.8) reaches past
    what a difference of two 100-point totals can be; it is cut at +100 and marked, the same
    interval the page's "what these runs could detect" sentence gives."""
    gains = {"reader": 61.0, "builder": 0.0, "footer": 0.0}

    def arm(name: str, total: float) -> ArmScore:
        return ArmScore(agent=name, units=[f"u-{name}"], totals=[total], mean_total=total)

    models = [
        InterventionModel(model_key=k, display_name=k, arms=[arm("none", 30), arm("m", 30 + g)])
        for k, g in gains.items()
    ]
    found = effect("m", "none", models)
    raw = mean_interval(list(gains.values()))
    assert raw.high is not None and raw.high > 100
    assert (found.low, found.high, found.clipped) == (pytest.approx(raw.low, abs=1e-4), 100, True)
    claim = difference("", "", "m", "none", found.differences)
    assert (claim.low, claim.high) == (found.low, found.high)
    within = effect("m", "none", [m for m in models if m.model_key != "reader"] * 2)
    assert (within.low, within.high, within.clipped) == (0, 0, False)
