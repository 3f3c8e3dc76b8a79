"""How sure a repeated round is: t quantiles, intervals, tiers and paired differences against
textbook values and hand computation; the model leaderboard carries them."""

from __future__ import annotations

import math

import pytest
from test_scoring_aggregate import board, row

from records.evidence.scoring import ModelLeaderboard
from scoring.aggregate import aggregate
from scoring.uncertainty import (
    TOTAL_BOUNDS,
    Interval,
    mean_interval,
    paired_difference,
    t_quantile,
    tiers,
)


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
    assert ranked.schema_version == 3 and ranked.interval_level == 0.95
    models = {m.model_key: m for m in ranked.models}
    alpha = models["alpha"]  # 80, 70, 90: s = 10, so the t-interval reaches 104.8: cut at 100
    half = 4.302653 * 10 / math.sqrt(3)
    assert (alpha.interval_low, alpha.interval_high) == (pytest.approx(80 - half, abs=1e-5), 100)
    assert alpha.interval_clipped and not models["beta"].interval_clipped
    assert "cut at the bounds" in ranked.interval_method
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


def test_no_interval_reaches_past_the_scores_range() -> None:
    """A wide spread near a bound: the t-interval is cut at it and says so."""
    high = mean_interval([99.0, 80.0, 100.0], bounds=TOTAL_BOUNDS)
    assert high.high == 100.0 and high.clipped and high.low is not None and high.low < 80
    assert high.half_width is not None and high.mean + high.half_width > 100  # before the cut
    low = mean_interval([2.0, 30.0, 0.0], bounds=TOTAL_BOUNDS)
    assert low.low == 0.0 and low.clipped
    inside = mean_interval([50.0, 52.0, 54.0], bounds=TOTAL_BOUNDS)
    assert not inside.clipped and inside == mean_interval([50.0, 52.0, 54.0])
    wide = paired_difference("a", "b", {"a": {1: 100.0, 2: 0.0}, "b": {1: 0.0, 2: 100.0}})
    assert wide is not None and (wide.difference.low, wide.difference.high) == (-100.0, 100.0)


def test_each_tier_says_whom_it_shares_so_tier_1_below_tier_3_reads_right() -> None:
    """Tiers 1, 2, 3, 1 down the ranking: the wide last model cannot be told from the leader."""
    runs = {"aa": (90, 91, 89), "bb": (80, 81, 79), "dd": (70, 71, 69), "ww": (40, 95, 60)}
    rows = [row(key, rep, total) for key, totals in runs.items()
            for rep, total in enumerate(totals, start=1)]  # fmt: skip
    models = aggregate(board().model_copy(update={"units": rows}), 3, "0" * 64).models
    assert [(m.model_key, m.tier) for m in models] == [("aa", 1), ("bb", 2), ("dd", 3), ("ww", 1)]
    notes = {m.model_key: m.tier_note for m in models}
    assert notes["ww"] == "shares the top tier with Aa: these runs cannot tell them apart"
    assert notes["aa"].startswith("shares the top tier with Ww")
    assert (
        notes["dd"]
        == "below Aa and Bb (their intervals lie wholly above); cannot be told apart from Ww"
    )
    assert (
        notes["bb"] == "below Aa (their intervals lie wholly above); cannot be told apart from Ww"
    )
    alone = aggregate(board().model_copy(update={"units": rows[:3]}), 3, "0" * 64).models
    assert alone[0].tier_note == "the only ranked model with an interval: no other to compare"


def test_a_schema_2_model_leaderboard_still_loads() -> None:
    data = aggregate(board(), 3, "0" * 64).model_dump(mode="json")
    data["schema_version"] = 2
    data.pop("interval_method")
    for model in data["models"]:
        for key in ("interval_clipped", "tier_note"):
            model.pop(key)
    old = ModelLeaderboard.model_validate(data)
    assert old.interval_method == "" and old.models[0].tier_note == ""


def test_a_schema_1_model_leaderboard_still_loads() -> None:
    data = aggregate(board(), 3, "0" * 64).model_dump(mode="json")
    data["schema_version"] = 1
    for key in ("interval_level", "paired_differences", "interval_method"):
        data.pop(key)
    for model in data["models"]:
        for key in ("interval_low", "interval_high", "tier", "interval_clipped", "tier_note"):
            model.pop(key)
    old = ModelLeaderboard.model_validate(data)
    assert old.paired_differences == [] and old.models[0].tier is None
