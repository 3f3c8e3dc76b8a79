"""How sure the reviews are: the reviewers' agreement and a rank-stability check.

A third of the score (visual 20, code 10) comes from two or three blind reviewers, and a one-run
round has no repetitions to measure that noise. So, per round:
- agreement, per dimension: the mean gap between the first two reviews received of each code,
  and how many codes needed a third reviewer (their first two differed past the limit);
- rank stability: every ranked entry's place recomputed twice, its review scores at the high
  end of its reviewers' range and every other entry's at the low end (its best place), then the
  reverse (its worst), with the board's own tie rule and advancement rule
  (`scoring/advancement.py`). Entries are units in a one-run round and models (the mean over
  their counted repetitions) in a repeated one. The leader is stable when it leads at its worst;
  the advancing set when every entry advances at its best and its worst alike, or at neither. An
  entry whose best and worst places differ depends on which reviewer is believed.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Literal

from records.evidence.scoring import (
    DimensionScore,
    Leaderboard,
    LeaderboardRow,
    ModelLeaderboard,
    RankRange,
    ReviewerAgreement,
    ReviewStability,
)
from records.rubric import GATE_CAP, REVIEW_RANGES, THIRD_REVIEW_GAP
from scoring.advancement import Entry, rank
from scoring.claims import agent_label

SCORED = ("ranked", "gate_failed")
METHOD = (
    "each ranked entry's place recomputed with its own review scores at the high end of its "
    "reviewers' range and every other entry's at the low end (its best place), then the reverse "
    "(its worst), by the board's tie rule and advancement rule; entries are units in a one-run "
    "round, models (the mean over their counted runs) in a repeated one"
)
Bounds = dict[str, tuple[float, float]]


def _reviews(score: DimensionScore) -> list[float]:
    """The reviewers' scores of one dimension, in the order received."""
    return [c.points for c in score.components if c.name.startswith("review:")]


def total_bounds(row: LeaderboardRow) -> tuple[float, float] | None:
    """The row's total with its review scores at their reviewers' lowest and highest (capped as
    the total is); None for a row without a score."""
    if row.breakdown is None or row.total is None or row.raw_total is None:
        return None
    low = high = row.raw_total
    for score in (row.breakdown.visual, row.breakdown.code):
        values = _reviews(score)
        if values and score.points is not None:
            low += min(values) - score.points
            high += max(values) - score.points
    if row.capped:
        low, high = min(low, GATE_CAP), min(high, GATE_CAP)
    return round(low, 6), round(high, 6)


def agreement(rows: list[LeaderboardRow]) -> list[ReviewerAgreement]:
    """Per manual dimension: the mean gap of the first two reviews and the third reviews."""
    found = []
    dimensions: tuple[tuple[Literal["visual", "code_quality"], str], ...] = (
        ("visual", "visual"),
        ("code_quality", "code"),
    )
    for dimension, field in dimensions:
        limit = THIRD_REVIEW_GAP[dimension]
        gaps = []
        for row in rows:
            if row.breakdown is None:
                continue
            values = _reviews(getattr(row.breakdown, field))
            if len(values) >= 2:
                gaps.append(abs(values[0] - values[1]))
        found.append(
            ReviewerAgreement(
                dimension=dimension,
                max_points=REVIEW_RANGES[dimension],
                codes_with_two=len(gaps),
                mean_first_gap=round(statistics.fmean(gaps), 6) if gaps else None,
                limit=limit,
                third_reviews=sum(gap > limit for gap in gaps),
            )
        )
    return found


def _third(row: LeaderboardRow) -> bool:
    if row.breakdown is None:
        return False
    pairs = ((row.breakdown.visual, "visual"), (row.breakdown.code, "code_quality"))
    return any(
        len(v := _reviews(score)) >= 2 and abs(v[0] - v[1]) > THIRD_REVIEW_GAP[dim]
        for score, dim in pairs
    )


def rank_ranges(
    entries: list[Entry],
    bounds: Bounds,
    names: dict[str, str],
    selects: bool,
) -> list[RankRange]:
    """Each entry's best and worst place (and advancement) over its reviewers' range."""
    current, _ = rank(entries)

    def placed(
        key: str, own: Callable[[tuple[float, float]], float], others: int
    ) -> tuple[int, bool]:
        moved = [
            Entry(
                e.key,
                e.code,
                own(bounds[e.key]) if e.key == key else bounds[e.key][others],
                e.automated,
                e.cost_usd,
            )
            for e in entries
        ]
        placement = rank(moved)[0][key]
        return placement.rank, placement.advanced

    found = []
    for entry in sorted(entries, key=lambda e: current[e.key].rank):
        best, best_in = placed(entry.key, lambda b: b[1], 0)
        worst, worst_in = placed(entry.key, lambda b: b[0], 1)
        found.append(
            RankRange(
                key=entry.code,
                name=names[entry.key],
                rank=current[entry.key].rank,
                best_rank=best,
                worst_rank=worst,
                low_total=bounds[entry.key][0],
                high_total=bounds[entry.key][1],
                advances=current[entry.key].advanced if selects else None,
                advances_at_best=best_in if selects else None,
                advances_at_worst=worst_in if selects else None,
            )
        )
    return found


def _unit_entries(board: Leaderboard) -> tuple[list[Entry], Bounds, dict[str, str]]:
    entries, bounds, names = [], {}, {}
    for row in board.units:
        found = total_bounds(row)
        if row.status != "ranked" or row.total is None or found is None:
            continue
        entries.append(
            Entry(
                row.unit,
                row.candidate_code or row.unit,
                row.total,
                row.automated_score or 0.0,
                row.cost_usd,
            )
        )
        arm = f" via {agent_label(row.agent)}" if row.agent else ""  # an intervention round
        bounds[row.unit], names[row.unit] = found, row.display_name + arm
    return entries, bounds, names


def _model_entries(
    board: Leaderboard, models: ModelLeaderboard
) -> tuple[list[Entry], Bounds, dict[str, str]]:
    by_unit = {row.unit: row for row in board.units}
    entries, bounds, names = [], {}, {}
    for model in models.models:
        if model.status != "ranked" or model.mean_total is None:
            continue
        ends = [
            total_bounds(by_unit[x.unit])
            for x in model.repetitions
            if x.total is not None and x.unit in by_unit
        ]
        if not ends or None in ends:
            continue
        lows = [e[0] for e in ends if e is not None]
        highs = [e[1] for e in ends if e is not None]
        entries.append(
            Entry(
                model.model_key,
                model.model_key,
                model.mean_total,
                model.mean_automated or 0.0,
                model.mean_cost_usd,
            )
        )
        bounds[model.model_key] = (
            round(statistics.fmean(lows), 6),
            round(statistics.fmean(highs), 6),
        )
        names[model.model_key] = model.display_name
    return entries, bounds, names


def review_stability(
    board: Leaderboard, models: ModelLeaderboard | None = None, selects: bool = True
) -> ReviewStability | None:
    """The round's reviewer agreement and rank stability (None when no review is in).
    `models`: a repeated round's model ranking (the check then ranks models); `selects`: the
    round advances entries (an intervention round does not)."""
    scored = [r for r in board.units if r.status in SCORED and r.breakdown is not None]
    reviewed = [
        r
        for r in scored
        if r.breakdown and (_reviews(r.breakdown.visual) or _reviews(r.breakdown.code))
    ]
    if not reviewed:
        return None
    level: Literal["unit", "model"] = "model" if models is not None else "unit"
    entries, bounds, names = (
        _model_entries(board, models) if models is not None else _unit_entries(board)
    )
    ranks = rank_ranges(entries, bounds, names, selects)
    depends = [r.key for r in ranks if r.best_rank != r.worst_rank]
    leader = next((r for r in ranks if r.rank == 1), None)
    leader_stable = None if leader is None else leader.worst_rank == 1
    advancing_stable = (
        all(r.advances_at_best == r.advances_at_worst for r in ranks) if selects and ranks else None
    )
    found = ReviewStability(
        level=level,
        method=METHOD,
        agreement=agreement(scored),
        codes_reviewed=len(reviewed),
        third_reviews=sum(_third(r) for r in reviewed),
        leader_stable=leader_stable,
        advancing_stable=advancing_stable,
        depends=depends,
        ranks=ranks,
        summary="",
    )
    found.summary = summary(found)
    return found


def _gap(found: ReviewerAgreement) -> str:
    name = "visual" if found.dimension == "visual" else "code"
    if found.mean_first_gap is None:
        return f"no code has two {name} reviews"
    return f"{found.mean_first_gap:.1f} points apart in {name} (of {found.max_points:g})"


def summary(found: ReviewStability) -> str:
    """The check in words, as the board shows it."""
    gaps = " and ".join(_gap(a) for a in found.agreement)
    text = (
        f"On average the first two reviews of a code lie {gaps}; {found.third_reviews} of "
        f"{found.codes_reviewed} reviewed codes needed a third reviewer."
    )
    entries = "unit" if found.level == "unit" else "model"
    if found.leader_stable is None:
        return text
    ends = f"With every {entries}'s reviews at either end of its reviewers' range, "
    leader = "the leader stays first" if found.leader_stable else "the leader can lose first place"
    if found.advancing_stable is None:
        moving = ""
    elif found.advancing_stable:
        moving = " and the advancing set is unchanged"
    else:
        moving = " and the advancing set changes"
    moved = [r for r in found.ranks if r.best_rank != r.worst_rank]
    if moved:
        which = ", ".join(f"{r.name} (rank {r.best_rank}–{r.worst_rank})" for r in moved)
        place = f". Places that depend on which reviewer is believed: {which}."
    else:
        place = f"; no {entries}'s place depends on which reviewer is believed."
    return text + " " + ends + leader + moving + place
