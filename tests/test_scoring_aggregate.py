"""A repeated round ranked by model: hand-computed means, medians, spreads and counts."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from scoring_support import make_round, make_unit, result, session

from records.evidence.gateway import Tokens
from records.evidence.scoring import (
    Advancement,
    Breakdown,
    DimensionScore,
    Leaderboard,
    LeaderboardRow,
    ModelLeaderboard,
    PacketIndex,
    UnitStatus,
)
from records.io import read_record
from records.rubric import BY_DIMENSION, DIMENSION_IDS
from scoring.aggregate import aggregate
from scoring.bundle import reviewer_order
from scoring.codes import draw_code, load_codes, load_secret
from scoring.packets import build_round_packets
from scoring.pipeline import score_context


def breakdown(functional: float) -> Breakdown:
    dims = {d: DimensionScore(points=1.0, max_points=BY_DIMENSION[d].points) for d in DIMENSION_IDS}
    dims["functional"] = DimensionScore(points=functional, max_points=25.0)
    dims["visual"] = DimensionScore(points=None, max_points=20.0)  # withheld: never measured
    return Breakdown(**dims)


def row(
    key: str,
    rep: int,
    total: float | None,
    status: UnitStatus = "ranked",
    replacement: int = 0,
    functional: float = 20.0,
    automated: float = 50.0,
) -> LeaderboardRow:
    unit = f"{key}-r{rep}" + (f"-x{replacement}" if replacement else "")
    scored = status in ("ranked", "gate_failed")
    return LeaderboardRow(
        unit=unit, candidate_code=f"C-{unit}", model_key=key, route=f"demo/{key}",
        display_name=key.title(), repetition=rep,
        replacement_of=f"{key}-r{rep}" if replacement else None, status=status,
        breakdown=breakdown(functional) if scored else None,
        automated_score=automated if scored else None, total=total if scored else None,
        eligible=status == "ranked", advancement=Advancement(advanced=False, reason="r"),
        elapsed_seconds=60.0, cost_usd=1.0, tokens=Tokens(), stop_status="completed",
        exit_code=0, validity="valid" if status != "invalid" else "invalid",
        failure_class="provider_outage" if status == "provider_outage" else "none",
        identity_verdict="consistent",
    )  # fmt: skip


def board(standing: str = "final") -> Leaderboard:
    rows = [
        row("alpha", 1, 80, functional=25), row("alpha", 2, 70, functional=20),
        row("alpha", 3, 90, functional=15),
        row("beta", 1, 60), row("beta", 2, 75), row("beta", 3, 66),
        # gamma's second repetition was invalid; its documented replacement counts
        row("gamma", 1, 82), row("gamma", 2, None, "invalid"), row("gamma", 2, 70, replacement=1),
        row("gamma", 3, 76),
        # delta's outage was never replaced: incomplete
        row("delta", 1, 90), row("delta", 2, None, "provider_outage"), row("delta", 3, 88),
        # eps failed a gate twice in three: ineligible
        row("eps", 1, 49, "gate_failed"), row("eps", 2, 49, "gate_failed"), row("eps", 3, 85),
        # zeta failed a gate once: ranked on its capped total
        row("zeta", 1, 45, "gate_failed"), row("zeta", 2, 80), row("zeta", 3, 78),
        # eta ties beta on the mean (67) with a higher automated score
        row("eta", 1, 67, automated=55), row("eta", 2, 67, automated=55),
        row("eta", 3, 67, automated=55),
    ]  # fmt: skip
    return Leaderboard(
        round_id="round-1", provisional=False, standing=standing,  # type: ignore[arg-type]
        standing_reason="" if standing == "final" else "reviews missing for 3 of 12",
        fifth_total=None, advancing=[], units=rows,
    )  # fmt: skip


def test_means_medians_spreads_and_counts_match_hand_computation() -> None:
    models = {m.model_key: m for m in aggregate(board(), 3, "0" * 64).models}
    alpha = models["alpha"]
    assert alpha.totals == [80, 70, 90]
    assert (alpha.mean_total, alpha.median_total) == (80.0, 80.0)
    assert (alpha.min_total, alpha.max_total, alpha.spread) == (70, 90, 20.0)
    assert alpha.dimension_means["functional"] == 20.0  # (25 + 20 + 15) / 3
    assert alpha.dimension_means["visual"] is None and alpha.dimension_means["code"] == 1.0
    beta = models["beta"]
    assert (beta.mean_total, beta.median_total, beta.spread) == (67.0, 66, 15.0)
    gamma = models["gamma"]
    assert gamma.status == "ranked" and gamma.totals == [82, 70, 76]
    assert (gamma.mean_total, gamma.median_total) == (76.0, 76)
    assert (gamma.valid, gamma.invalid, gamma.replaced, gamma.gate_failed) == (3, 1, 1, 0)
    assert gamma.repetitions[1].unit == "gamma-r2-x1"
    assert gamma.repetitions[1].replaced_unit == "gamma-r2"
    delta = models["delta"]
    assert delta.status == "incomplete" and delta.rank is None
    assert delta.status_reason == "no score for r2 provider_outage"
    assert (delta.valid, delta.invalid, delta.mean_total) == (2, 1, 89.0)
    eps = models["eps"]
    assert eps.status == "ineligible" and eps.gate_failed == 2 and eps.rank is None
    zeta = models["zeta"]
    assert zeta.status == "ranked" and zeta.gate_failed == 1
    assert zeta.mean_total == round((45 + 80 + 78) / 3, 6) and zeta.median_total == 78


def test_ranking_ties_and_advancement_on_means() -> None:
    ranked = aggregate(board(), 3, "0" * 64)
    order = [m.model_key for m in ranked.models]
    assert order == ["alpha", "gamma", "zeta", "eta", "beta", "eps", "delta"]  # ineligible first
    assert [m.rank for m in ranked.models[:5]] == [1, 2, 3, 4, 5]
    assert [t.codes for t in ranked.ties] == [["beta", "eta"]]  # equal means are disclosed
    beta = ranked.models[4]
    assert (
        beta.advancement.tied_with == ["eta"] and "higher mean automated" in beta.advancement.reason
    )
    assert ranked.advancing == ["alpha", "gamma", "zeta", "eta", "beta"]
    assert ranked.fifth_mean == 67.0
    provisional = aggregate(board("provisional"), 3, "0" * 64)
    assert provisional.advancing == [] and provisional.advancing_projected == ranked.advancing
    assert provisional.models[0].advancement.reason.startswith("projected (reviews missing")


def test_a_pending_replacement_is_shown_as_pending() -> None:
    models = {m.model_key: m for m in aggregate(board(), 3, "0" * 64, {"delta-r2-x1"}).models}
    r2 = models["delta"].repetitions[1]
    assert (r2.status, r2.unit, r2.replaced_unit) == (
        "replacement_pending",
        "delta-r2-x1",
        "delta-r2",
    )
    assert models["delta"].status == "incomplete"


def test_scoring_a_repeated_round_writes_the_model_leaderboard(tmp_path: Path) -> None:
    ctx = dataclasses.replace(make_round(tmp_path), repetitions=3)
    evaluations = {1: result(), 2: result(failed=("venue-detail",)), 3: result(failed=("axe",))}
    for rep, evaluation in evaluations.items():
        make_unit(ctx, "strong-builder", session(unit=f"strong-builder-r{rep}", repetition=rep),
                  evaluation)  # fmt: skip
    units = score_context(ctx)
    models = read_record(ctx.paths.model_leaderboard, ModelLeaderboard)
    (strong,) = models.models
    totals = [r.total for r in sorted(units.units, key=lambda r: r.repetition)]
    assert strong.totals == totals and len(set(totals)) == 3  # three different totals
    assert strong.mean_total == pytest.approx(sum(t for t in totals if t is not None) / 3)
    assert strong.spread == pytest.approx(max(strong.totals) - min(strong.totals))
    assert models.standing == units.standing and models.repetitions == 3
    # one repetition: no model leaderboard
    single = make_round(tmp_path / "single")
    make_unit(single, "strong-builder", evaluation=result())
    score_context(single)
    assert not single.paths.model_leaderboard.exists()


def test_blind_codes_cannot_group_a_models_repetitions(tmp_path: Path) -> None:
    """Codes are per unit (HMAC of the unit under the private secret), the packet index is in
    code order and a reviewer's bundle order depends only on the secret, reviewer and code set."""
    ctx = dataclasses.replace(make_round(tmp_path), repetitions=3)
    for key in ("strong-builder", "partial-builder"):
        for rep in (1, 2, 3):
            make_unit(ctx, key, session(key, unit=f"{key}-r{rep}", repetition=rep), result())
    build_round_packets(ctx)
    codes = load_codes(ctx.paths)
    assert codes is not None and len({e.code for e in codes.codes}) == 6
    secret = load_secret(ctx.paths)
    assert all(e.code == draw_code(secret, e.unit) for e in codes.codes)
    index = ctx.paths.packets_index.read_text()
    assert "-r1" not in index and "builder" not in index
    assert read_record(ctx.paths.packets_index, PacketIndex).codes == sorted(
        e.code for e in codes.codes
    )
    by_unit = [e.code for e in sorted(codes.codes, key=lambda e: e.unit)]
    assert reviewer_order(secret, "alice", by_unit) == reviewer_order(
        secret, "alice", list(reversed(by_unit))
    )
    # no structure links r1 to r2: over many secrets their codes agree on a first character
    # about 1 time in 31, as for unrelated units
    same = sum(
        draw_code(s, "m-r1")[2] == draw_code(s, "m-r2")[2]
        for s in (bytes([i]) * 32 for i in range(200))
    )
    assert same < 25
