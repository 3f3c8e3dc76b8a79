"""How sure a repeated round is: t quantiles, intervals, tiers and paired differences against
textbook values and hand computation; the model leaderboard carries them."""

from __future__ import annotations

import math

import pytest
from test_scoring_aggregate import board

from records.evidence.scoring import ModelLeaderboard
from scoring.aggregate import aggregate
from scoring.uncertainty import Interval, mean_interval, paired_difference, t_quantile, tiers


@pytest.mark.parametrize(
    ("df", "expected"),
    [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (29, 2.0452), (100, 1.9840)],
)
def test_t_quantiles_match_the_tables(df: int, expected: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=5e-5)
    assert t_quantile(0.025, df) == pytest.approx(-expected, abs=5e-5)


def test_mean_interval_by_hand() -> None:
    interval = mean_interval([50.0, 52.0, 54.0])  # s = 2, n = 3: 4.3027 * 2 / sqrt(3)
    half = 4.302653 * 2 / math.sqrt(3)
    assert interval.mean == 52.0 and interval.n == 3
    assert (interval.low, interval.high) == (pytest.approx(52 - half), pytest.approx(52 + half))
    assert mean_interval([61.0]) == Interval(61.0, None, None, 1)  # one run: no interval
    with pytest.raises(ValueError):
        mean_interval([])


def test_a_model_ranks_above_another_only_when_its_interval_is_wholly_above() -> None:
    found = tiers(
        {
            "a": mean_interval([80.0, 82.0, 84.0]),  # 73.4 - 87.0
            "b": mean_interval([60.0, 61.0, 62.0]),  # 57.5 - 64.5
            "c": mean_interval([59.0, 61.0, 63.0]),  # 56.0 - 66.0: overlaps b
            "d": mean_interval([70.0]),  # one run: no tier
        }
    )
    assert found == {"a": 1, "b": 2, "c": 2, "d": None}


def test_paired_differences_use_the_repetitions_both_have() -> None:
    totals = {"a": {1: 80.0, 2: 82.0, 3: 84.0}, "b": {1: 60.0, 2: 61.0, 4: 70.0}}
    pair = paired_difference("a", "b", totals)
    assert pair is not None and pair.repetitions == [1, 2]
    assert pair.difference.mean == 20.5  # (20 + 21) / 2
    assert pair.separated  # 12.706 * 0.707 / sqrt(2) = 6.35 below 20.5
    assert paired_difference("a", "c", {**totals, "c": {9: 1.0}}) is None


def test_the_model_leaderboard_carries_intervals_tiers_and_paired_differences() -> None:
    ranked = aggregate(board(), 3, "0" * 64)
    assert ranked.schema_version == 2 and ranked.interval_level == 0.95
    models = {m.model_key: m for m in ranked.models}
    alpha = models["alpha"]  # 80, 70, 90: s = 10
    half = 4.302653 * 10 / math.sqrt(3)
    assert (alpha.interval_low, alpha.interval_high) == (
        pytest.approx(80 - half, abs=1e-5),
        pytest.approx(80 + half, abs=1e-5),
    )
    assert (models["eta"].interval_low, models["eta"].interval_high) == (67.0, 67.0)  # no spread
    # three runs a model cannot separate these: every ranked model shares the first tier
    assert {m.model_key: m.tier for m in ranked.models if m.status == "ranked"} == dict.fromkeys(
        ["alpha", "gamma", "zeta", "eta", "beta"], 1
    )
    assert models["delta"].tier is None and models["delta"].interval_low is not None
    pairs = [(p.upper, p.lower, p.mean_difference, p.separated) for p in ranked.paired_differences]
    assert pairs[0] == ("alpha", "gamma", 4.0, False)  # -2, 0, 14
    assert [(p.upper, p.lower) for p in ranked.paired_differences] == [
        ("alpha", "gamma"), ("gamma", "zeta"), ("zeta", "eta"), ("eta", "beta")
    ]  # fmt: skip


def test_a_schema_1_model_leaderboard_still_loads() -> None:
    data = aggregate(board(), 3, "0" * 64).model_dump(mode="json")
    data["schema_version"] = 1
    for key in ("interval_level", "paired_differences"):
        data.pop(key)
    for model in data["models"]:
        for key in ("interval_low", "interval_high", "tier"):
            model.pop(key)
    old = ModelLeaderboard.model_validate(data)
    assert old.paired_differences == [] and old.models[0].tier is None
