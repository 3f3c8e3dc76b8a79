"""The board's headline claim (scoring/claims.py) and how sure its reviews are
(scoring/review_stability.py), on rounds scored by the real stage: real session and result
records, real packets and codes, reviewer sheets read as an operator saves them."""

from __future__ import annotations

import dataclasses
import re
import statistics
from pathlib import Path

import pytest
from scoring_support import make_round, make_unit, result, session

from records.evidence.evaluation import EvaluationResult
from records.evidence.scoring import Leaderboard, ModelLeaderboard
from records.io import read_record
from scoring.claims import RULES, difference
from scoring.codes import load_codes
from scoring.evidence import RoundContext
from scoring.packets import build_round_packets
from scoring.pipeline import score_context
from scoring.uncertainty import t_quantile

STRONGER_WORDS = re.compile(r"\b(winner|won|wins|champion)\b", re.IGNORECASE)


def sheets(ctx: RoundContext, marks: dict[str, dict[str, tuple[float, float]]]) -> None:
    """Packets, then one sheet per reviewer: `marks[reviewer][unit] = (visual, code)`."""
    build_round_packets(ctx)
    codes = load_codes(ctx.paths)
    assert codes is not None
    ctx.paths.reviews_dir.mkdir(exist_ok=True)
    for reviewer, by_unit in marks.items():
        rows = "".join(f"{codes.code_of(u)},{v:g},{c:g},\n" for u, (v, c) in by_unit.items())
        (ctx.paths.reviews_dir / f"{reviewer}.csv").write_text(
            "code,visual,code_quality,notes\n" + rows
        )


def same_marks(units: list[str], visual: float = 15, code: float = 7) -> dict:
    return {r: {u: (visual, code) for u in units} for r in ("alice", "bob")}


# --- a one-run round: leading this screen, never a winner ------------------------------------
FLIP = {  # model -> checks failed: strong-builder 3 points above the two others before reviews
    "strong-builder": (),
    "partial-builder": ("axe",),
    "signer": ("mobile-nav",),
}


def flip_round(tmp_path: Path, alice_on_strong: tuple[float, float]) -> Leaderboard:
    """Three units a few points apart; bob gives every unit (16, 7), alice the same except
    `alice_on_strong` for strong-builder's unit."""
    ctx = make_round(tmp_path)
    units = [make_unit(ctx, key, evaluation=result(failed=f)) for key, f in FLIP.items()]
    marks = same_marks(units, 16, 7)
    marks["alice"]["strong-builder-r1"] = alice_on_strong
    sheets(ctx, marks)
    return score_context(ctx)


def test_a_final_one_run_board_says_leading_this_screen_never_winner(tmp_path: Path) -> None:
    board = flip_round(tmp_path, (16, 7))
    claim = board.claim
    assert board.standing == "final" and claim is not None
    assert (claim.shape, claim.kind) == ("one_run", "leading_screen")
    assert claim.headline == "Leading this screen: Northwind Builder 1"
    assert claim.advancing[0] == "Northwind Builder 1"  # the other two tie: the codes order them
    assert set(claim.advancing) == {"Northwind Builder 1", "Kestrel Partial 2", "Inkwell Signer 1"}
    assert f"Advancing: {', '.join(claim.advancing[:2])} and {claim.advancing[2]}." in claim.detail
    assert claim.caveat.startswith("One run per model: a breadth screen, not a verdict.")
    for text in (claim.headline, claim.detail):
        assert not STRONGER_WORDS.search(text), text
    assert claim.rule == RULES["one_run"] and claim.final
    # the file carries it: a reader of leaderboard.json gets the same claim
    assert read_record(tmp_path / "test" / "leaderboard.json", Leaderboard).claim == claim


def test_a_provisional_one_run_board_leads_on_current_totals(tmp_path: Path) -> None:
    ctx = make_round(tmp_path)
    for key, failed in FLIP.items():
        make_unit(ctx, key, evaluation=result(failed=failed))
    board = score_context(ctx)  # no sheet yet
    assert board.standing == "provisional" and board.claim is not None
    assert board.claim.kind == "provisional_leader"
    assert board.claim.headline == "Leading this screen (provisional): Northwind Builder 1"
    assert "Would advance on current totals:" in board.claim.detail
    assert board.review_stability is None  # no review is in: nothing to check


def test_one_reviewer_flipping_two_ranks_is_named_and_unsettles_the_leader(
    tmp_path: Path,
) -> None:
    """Alice scores the leader 2 visual and 2 code points below bob (well inside the
    third-review limits): averaged it still leads by a point, but at alice's end it falls two
    places, behind both units it leads."""
    board = flip_round(tmp_path, (14, 5))
    stability = board.review_stability
    assert stability is not None and stability.level == "unit"
    ranks = {r.name: r for r in stability.ranks}
    strong = ranks["Northwind Builder 1"]
    assert (strong.rank, strong.best_rank, strong.worst_rank) == (1, 1, 3)
    assert strong.high_total - strong.low_total == pytest.approx(4.0)  # (16-14) + (7-5)
    assert stability.leader_stable is False
    assert stability.advancing_stable is True  # three units: all advance at every end
    assert strong.advances_at_worst is True
    code = next(r.candidate_code for r in board.units if r.unit == "strong-builder-r1")
    assert code in stability.depends
    assert "the leader can lose first place" in stability.summary
    assert "Northwind Builder 1 (rank 1–3)" in stability.summary
    visual, quality = stability.agreement
    assert (visual.codes_with_two, visual.third_reviews) == (3, 0)
    assert visual.mean_first_gap == pytest.approx(2 / 3)
    assert quality.mean_first_gap == pytest.approx(2 / 3)
    assert stability.codes_reviewed == 3 and stability.third_reviews == 0
    # the headline still says only what the round supports
    assert board.claim is not None and board.claim.kind == "leading_screen"


def test_when_the_reviewers_agree_no_place_depends_on_them(tmp_path: Path) -> None:
    stability = flip_round(tmp_path, (16, 7)).review_stability
    assert stability is not None
    assert stability.leader_stable is True and stability.depends == []
    assert all(r.best_rank == r.worst_rank == r.rank for r in stability.ranks)
    assert "no unit's place depends on which reviewer is believed" in stability.summary


def test_a_sealed_board_keeps_the_check_but_not_each_units_review_range(tmp_path: Path) -> None:
    ctx = make_round(tmp_path)
    units = [make_unit(ctx, key, evaluation=result(failed=f)) for key, f in FLIP.items()]
    marks = same_marks(units, 16, 7)
    del marks["bob"][units[0]]  # one review missing: the codes stay sealed
    sheets(ctx, marks)
    board = score_context(ctx)
    assert board.code_map is not None and board.code_map.sealed
    assert board.review_stability is not None and board.review_stability.ranks == []
    assert board.review_stability.leader_stable is not None


# --- a repeated round: a champion only when separated ----------------------------------------
def repeated_round(tmp_path: Path, failures: dict[str, list[tuple[str, ...]]]) -> Leaderboard:
    """Three repetitions of each model, every check failing as listed per repetition; two
    reviewers agreeing on every unit, so the standing is final."""
    ctx = dataclasses.replace(make_round(tmp_path), repetitions=3)
    units = []
    for key, per_rep in failures.items():
        for rep, failed in enumerate(per_rep, start=1):
            evaluation: EvaluationResult = result(failed=failed)
            record = session(key, unit=f"{key}-r{rep}", repetition=rep)
            units.append(make_unit(ctx, key, record, evaluation))
    sheets(ctx, same_marks(units))
    return score_context(ctx)


def test_a_separated_leader_alone_in_the_top_tier_is_the_champion(tmp_path: Path) -> None:
    board = repeated_round(
        tmp_path,
        {  # 0, -3, -3 against -13, -15, -14: the pair differs by 13, 12, 11
            "strong-builder": [(), ("axe",), ("mobile-nav",)],
            "partial-builder": [
                ("url-state", "long-copy", "media-fallback"),
                ("url-state", "long-copy", "axe", "mobile-nav"),
                ("url-state", "media-fallback", "no-overflow"),
            ],
        },
    )
    claim = board.claim
    assert board.standing == "final" and claim is not None
    assert (claim.shape, claim.kind) == ("repeated", "champion")
    assert claim.headline == "Champion: Northwind Builder 1"
    assert claim.top_tier == ["strong-builder"]
    pair = claim.top_pair
    assert pair is not None and pair.separated and pair.repetitions == 3
    assert pair.mean_difference == pytest.approx(12.0)
    assert pair.low is not None and pair.low > 0
    assert "alone in the top tier" in claim.detail


def test_overlapping_leaders_share_the_top_tier_with_a_planning_figure(tmp_path: Path) -> None:
    board = repeated_round(
        tmp_path,
        {  # 0, -3, -3 against -4, 0, -5: differences 4, -3, 2
            "strong-builder": [(), ("axe",), ("mobile-nav",)],
            "partial-builder": [("long-copy",), (), ("url-state",)],
        },
    )
    claim = board.claim
    assert board.standing == "final" and claim is not None
    assert claim.kind == "no_single_champion"
    assert claim.headline == (
        "No single champion: Northwind Builder 1 and Kestrel Partial 2 share the top tier"
    )
    assert not STRONGER_WORDS.sub("", claim.headline).count("Champion:")
    pair = claim.top_pair
    assert pair is not None and not pair.separated
    assert pair.mean_difference == pytest.approx(1.0)
    assert pair.low is not None and pair.low < 0 < (pair.high or 0)
    # the planning figure: the fewest n with t(0.975, n-1) * s / sqrt(n) < 1, s = sd(4, -3, 2)
    s = statistics.stdev([4, -3, 2])
    n = pair.repetitions_to_separate
    assert n is not None and n > 3
    assert (
        t_quantile(0.975, n - 1) * s / n**0.5 < 1 <= t_quantile(0.975, n - 2) * s / (n - 1) ** 0.5
    )
    assert f"about {n} repetitions per model would be expected to separate them" in claim.detail
    assert "a planning figure" in claim.detail
    models = read_record(tmp_path / "test" / "model-leaderboard.json", ModelLeaderboard)
    notes = {m.model_key: m.tier_note for m in models.models}
    assert notes["strong-builder"].startswith("shares the top tier with Kestrel Partial 2")
    assert models.schema_version == 3 and "cut at the bounds" in models.interval_method


def test_a_wide_interval_below_the_runner_up_still_shares_the_top_tier(tmp_path: Path) -> None:
    spread = ("catalogue-listing", "url-state", "no-overflow", "responsive-layout", "long-copy",
              "media-fallback", "mobile-nav", "keyboard-focus", "dialog-focus", "semantics",
              "reduced-motion", "axe")  # fmt: skip
    board = repeated_round(
        tmp_path,
        {  # the pair as in the champion's round (separated); signer 0, 0, -44: ranked third
            "strong-builder": [(), ("axe",), ("mobile-nav",)],
            "partial-builder": [
                ("url-state", "long-copy", "media-fallback"),
                ("url-state", "long-copy", "axe", "mobile-nav"),
                ("url-state", "media-fallback", "no-overflow"),
            ],
            "signer": [(), (), spread],
        },
    )
    claim = board.claim
    assert claim is not None and claim.kind == "no_single_champion"
    assert claim.top_pair is not None and claim.top_pair.separated
    assert claim.top_pair.lower == "partial-builder"
    assert claim.top_tier == ["strong-builder", "signer"]
    assert claim.headline == (
        "No single champion: Northwind Builder 1 and Inkwell Signer 1 share the top tier"
    )
    # the detail says why, although the lead over the runner-up is wholly above zero
    assert "wholly above zero. The 95% interval of Inkwell Signer 1 (" in claim.detail
    assert "these runs cannot rank the leader above that model." in claim.detail


def test_a_provisional_repeated_round_names_no_champion(tmp_path: Path) -> None:
    ctx = dataclasses.replace(make_round(tmp_path), repetitions=3)
    for key, per_rep in {"strong-builder": [(), (), ()], "partial-builder": [("axe",)] * 3}.items():
        for rep, failed in enumerate(per_rep, start=1):
            record = session(key, unit=f"{key}-r{rep}", repetition=rep)
            make_unit(ctx, key, record, result(failed=failed))
    board = score_context(ctx)  # no reviews: provisional
    assert board.claim is not None and board.claim.kind == "provisional_leader"
    assert board.claim.headline == "Leading on current totals (provisional): Northwind Builder 1"
    assert "No champion is named until the standing is final" in board.claim.caveat


def test_a_repeated_round_checks_rank_stability_by_model(tmp_path: Path) -> None:
    board = repeated_round(
        tmp_path,
        {"strong-builder": [(), (), ()], "partial-builder": [("axe",), ("axe",), ("axe",)]},
    )
    stability = board.review_stability
    assert stability is not None and stability.level == "model"
    assert [r.key for r in stability.ranks] == ["strong-builder", "partial-builder"]
    assert stability.leader_stable is True


# --- an intervention round: what the runs could detect ---------------------------------------
def test_an_interval_spanning_zero_is_no_detectable_difference_with_what_was_detectable() -> None:
    found = difference("", "", "claude-code", "opencode", [1.0, -2.0, 0.5, 2.5])
    assert found.verdict == "no_detectable_difference"
    half = t_quantile(0.975, 3) * statistics.stdev([1.0, -2.0, 0.5, 2.5]) / 2  # t * s / sqrt(4)
    assert found.smallest_detectable == pytest.approx(half, abs=1e-3)
    assert found.sentence.startswith(
        "every paired model: no detectable difference between Claude Code and OpenCode"
    )
    assert "could have detected a mean difference of about 3 points or more" in found.sentence
    assert difference("m", "M", "claude-code", "opencode", [5.0, 6.0, 7.0]).verdict == "higher"
    flat = difference("", "", "claude-code", "opencode", [0.0, 0.0, 0.0])  # the demo's shape
    assert flat.verdict == "no_detectable_difference" and flat.smallest_detectable == 0
    assert "no spread, so any non-zero mean difference would have been detected" in flat.sentence
    one = difference("m", "M", "claude-code", "opencode", [3.0])
    assert one.verdict == "not_measurable" and one.smallest_detectable is None
