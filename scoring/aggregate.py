"""A repeated round ranked by model: `model-leaderboard.json` from the round's leaderboard.json.

Each model has R repetitions (`<model>-r<r>`). Repetition r counts its documented replacement
(`<model>-r<r>-x<k>`, the highest k that ran) when one ran, else the original unit; a replacement
that was created but has not run is `replacement_pending`. A counted repetition has a score when
its status is `ranked` or `gate_failed` (capped at 49, counted at its capped total).

- incomplete: a repetition without a score (invalid, outage, harness or evaluator failure with no
  replacement, or a replacement pending): shown with its statuses, never ranked;
- ineligible: complete, but a hard gate failed in more than half its repetitions: ranked apart;
- ranked: every other complete model, by the mean of its R totals (median, min–max spread and
  per-dimension means shown beside it).
Tie rule and advancement are Round 0's, on means: higher mean total, higher mean automated score,
lower mean gateway cost (unknown last), model key; the top five plus every ranked model within
three points of fifth. No model advances while the unit leaderboard's standing is provisional.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Literal

from records.evidence.scoring import (
    Advancement,
    Leaderboard,
    LeaderboardRow,
    ModelLeaderboard,
    ModelRow,
    ModelRules,
    PairedDifference,
    RepetitionResult,
    Tie,
)
from records.hashing import file_sha256
from records.io import RecordError, read_record
from records.layout import RoundPaths
from records.rubric import ADVANCE_MARGIN, ADVANCE_TOP, DIMENSION_IDS
from records.rubric import TIE_RULE as UNIT_TIE_RULE
from records.unit_ids import parse_unit, unit_id
from scoring.advancement import Entry, rank
from scoring.evidence import pending_replacements
from scoring.uncertainty import (
    INTERVAL_METHOD,
    TOTAL_BOUNDS,
    Interval,
    mean_interval,
    paired_difference,
    tiers,
)

SCORED = ("ranked", "gate_failed")
TIE_RULE = (
    "higher mean total, then higher mean automated score, then lower mean gateway cost "
    "(unknown cost last), then model key"
)
RULES = ModelRules(
    ranking="mean of the repetitions' totals (a gate-failed repetition counts at its capped "
    "total); median, min-max spread and per-dimension means are shown beside it",
    incomplete="a repetition without a score (invalid, provider outage, harness or evaluator "
    "failure) counts its documented replacement when that ran; otherwise the model is marked "
    "incomplete and is not ranked",
    eligibility="a complete model whose repetitions failed a hard gate in more than half of "
    "them is ineligible: shown, not ranked",
    tie_rule=TIE_RULE,
    advancement=f"top {ADVANCE_TOP} ranked models by mean total plus every ranked model within "
    f"{ADVANCE_MARGIN:g} points of fifth; none while the standing is provisional",
    counts="valid: repetitions counted with a score; invalid: this model's units without a "
    "score (replaced ones included); replaced: repetitions counted through a replacement; "
    "gate_failed: counted repetitions that failed a hard gate",
)


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 6) if values else None


def _base(row: LeaderboardRow) -> tuple[str, int]:
    """(original unit, replacement number) of a row: `m-r2-x1` -> ('m-r2', 1)."""
    unit = parse_unit(row.unit)
    if unit is None or not unit.is_replacement:
        return row.replacement_of or row.unit, 0
    return row.replacement_of or unit.original, unit.replacement


def _repetition(
    r: int, key: str, rows: list[LeaderboardRow], pending: set[str]
) -> tuple[RepetitionResult, LeaderboardRow | None]:
    """The counted unit of repetition r and the result as the model leaderboard shows it."""
    original = unit_id(key, r)
    mine = sorted((row for row in rows if _base(row)[0] == original), key=lambda w: _base(w)[1])
    if not mine:
        return RepetitionResult(repetition=r, unit=None, status="missing"), None
    counted = mine[-1]
    replaced = original if _base(counted)[1] else None
    waiting = sorted(u for u in pending if u.startswith(f"{original}-x"))
    if waiting and counted.status not in SCORED:
        return RepetitionResult(
            repetition=r, unit=waiting[-1], status="replacement_pending", replaced_unit=original
        ), None
    scored = counted.status in SCORED
    return RepetitionResult(
        repetition=r,
        unit=counted.unit,
        status=counted.status,
        total=counted.total if scored else None,
        automated_score=counted.automated_score if scored else None,
        provisional=counted.provisional,
        replaced_unit=replaced,
        source=f"leaderboard.json#units/{counted.unit}",
    ), counted if scored else None


def model_row(
    key: str, rows: list[LeaderboardRow], repetitions: int, pending: set[str]
) -> ModelRow:
    """One model's repetitions, central values and counts (rank and advancement added later)."""
    results: list[RepetitionResult] = []
    counted: list[LeaderboardRow] = []
    for r in range(1, repetitions + 1):
        result, row = _repetition(r, key, rows, pending)
        results.append(result)
        if row is not None:
            counted.append(row)
    totals = [row.total for row in counted if row.total is not None]
    dims: dict[str, float | None] = {}
    for dim in DIMENSION_IDS:
        points = [
            score.points
            for row in counted
            if row.breakdown is not None
            and (score := getattr(row.breakdown, dim)).points is not None
        ]
        dims[dim] = _mean(points)
    costs = [row.cost_usd for row in counted]
    gate_failed = sum(row.status == "gate_failed" for row in counted)
    missing = [f"r{x.repetition} {x.status}" for x in results if x.total is None]
    status: Literal["ranked", "ineligible", "incomplete"]
    if missing:
        status, reason = "incomplete", f"no score for {', '.join(missing)}"
    elif 2 * gate_failed > repetitions:
        status, reason = "ineligible", f"a hard gate failed in {gate_failed} of {repetitions}"
    else:
        status, reason = "ranked", ""
    first = rows[0]
    return ModelRow(
        model_key=key,
        display_name=first.display_name,
        route=first.route,
        status=status,
        status_reason=reason,
        repetitions=results,
        totals=totals,
        mean_total=_mean(totals),
        median_total=statistics.median(totals) if totals else None,
        min_total=min(totals) if totals else None,
        max_total=max(totals) if totals else None,
        spread=round(max(totals) - min(totals), 6) if totals else None,
        dimension_means=dims,
        mean_automated=_mean([row.automated_score or 0.0 for row in counted]),
        mean_cost_usd=None if None in costs else _mean([c for c in costs if c is not None]),
        valid=len(counted),
        invalid=sum(row.status not in SCORED for row in rows),
        replaced=sum(x.replaced_unit is not None and x.total is not None for x in results),
        gate_failed=gate_failed,
        provisional=any(row.provisional for row in counted),
        advancement=Advancement(advanced=False, reason=f"not ranked: {status}"),
    )


def aggregate(
    board: Leaderboard, repetitions: int, source_sha256: str, pending: set[str] | None = None
) -> ModelLeaderboard:
    """Rank the board's models by mean total; advancement only on a final standing."""
    by_model: dict[str, list[LeaderboardRow]] = {}
    for row in board.units:
        by_model.setdefault(row.model_key, []).append(row)
    models = [model_row(k, rows, repetitions, pending or set()) for k, rows in by_model.items()]
    entries: list[Entry] = []
    for m in models:
        if m.status == "ranked" and m.mean_total is not None:
            automated = m.mean_automated or 0.0
            entries.append(
                Entry(m.model_key, m.model_key, m.mean_total, automated, m.mean_cost_usd)
            )
    placements, fifth = rank(entries)
    final = board.standing == "final"
    for m in models:
        placement = placements.get(m.model_key)
        if placement is None:
            continue
        reason = placement.reason.replace(UNIT_TIE_RULE, TIE_RULE)
        m.rank = placement.rank
        m.advancement = Advancement(
            advanced=placement.advanced and final,
            projected=placement.advanced,
            reason=reason if final else f"projected ({board.standing_reason}): {reason}",
            tied_with=placement.tied_with,
            behind_fifth=placement.behind_fifth,
        )
    order = ("ranked", "ineligible", "incomplete")
    models.sort(
        key=lambda m: (order.index(m.status), m.rank or 0, -(m.mean_total or 0), m.model_key)
    )
    ranked = [m for m in models if m.status == "ranked"]
    paired = uncertainty(models, ranked)
    ties: dict[float, list[str]] = {}
    for entry in entries:
        ties.setdefault(round(entry.total, 6), []).append(entry.key)
    return ModelLeaderboard(
        round_id=board.round_id,
        repetitions=repetitions,
        source_sha256=source_sha256,
        standing=board.standing,
        standing_reason=board.standing_reason,
        rules=RULES,
        fifth_mean=fifth,
        advancing=[m.model_key for m in models if m.advancement.advanced],
        advancing_projected=[m.model_key for m in models if m.advancement.projected],
        ties=[
            Tie(total=t, codes=sorted(k))
            for t, k in sorted(ties.items(), reverse=True)
            if len(k) > 1
        ],  # fmt: skip
        models=models,
        interval_method=INTERVAL_METHOD,
        paired_differences=paired,
    )


def uncertainty(models: list[ModelRow], ranked: list[ModelRow]) -> list[PairedDifference]:
    """Set each model's bounded t-interval (and each ranked model's tier, in words too) on its
    row; return the paired differences of adjacent ranked models (`scoring/uncertainty.py`)."""
    intervals = {
        m.model_key: mean_interval(m.totals, bounds=TOTAL_BOUNDS) for m in models if m.totals
    }
    for m in models:
        if m.model_key in intervals:
            interval = intervals[m.model_key]
            m.interval_low, m.interval_high = _round(interval.low), _round(interval.high)
            m.interval_clipped = interval.clipped
    ranked_intervals = {m.model_key: intervals[m.model_key] for m in ranked}
    found_tiers = tiers(ranked_intervals)
    names = {m.model_key: m.display_name for m in ranked}
    for m in ranked:
        m.tier = found_tiers[m.model_key]
        m.tier_note = tier_note(m.model_key, ranked_intervals, found_tiers, names)
    totals = {
        m.model_key: {x.repetition: x.total for x in m.repetitions if x.total is not None}
        for m in ranked
    }
    found: list[PairedDifference] = []
    for upper, lower in zip(ranked, ranked[1:], strict=False):
        pair = paired_difference(upper.model_key, lower.model_key, totals)
        if pair is not None:
            found.append(
                PairedDifference(
                    upper=pair.upper,
                    lower=pair.lower,
                    repetitions=pair.repetitions,
                    mean_difference=round(pair.difference.mean, 6),
                    interval_low=_round(pair.difference.low),
                    interval_high=_round(pair.difference.high),
                    separated=pair.separated,
                )
            )
    return found


def tier_note(
    key: str,
    intervals: dict[str, Interval],
    found_tiers: dict[str, int | None],
    names: dict[str, str],
) -> str:
    """The tier of `key` in words: which models it shares the top tier with, which lie wholly
    above it and which it cannot be told apart from (ranked order kept)."""
    own = intervals[key]
    if own.low is None or own.high is None:
        return "no interval (fewer than two counted runs): no tier"
    above, apart = [], []
    for other, theirs in intervals.items():
        if other == key or theirs.low is None or theirs.high is None:
            continue
        if theirs.low > own.high:
            above.append(names[other])
        elif not theirs.high < own.low:
            apart.append(names[other])
    if found_tiers[key] == 1:
        top = [names[o] for o in intervals if o != key and found_tiers.get(o) == 1]
        if (
            not above
            and not apart
            and not any(o != key and i.high is not None for o, i in intervals.items())
        ):
            return "the only ranked model with an interval: no other to compare"
        if not top:
            return "alone in the top tier: every other model's interval lies wholly below"
        return f"shares the top tier with {_join(top)}: these runs cannot tell them apart"
    note = f"below {_join(above)} (their intervals lie wholly above)"
    return note + (f"; cannot be told apart from {_join(apart)}" if apart else "")


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def aggregate_round(paths: RoundPaths, repetitions: int) -> ModelLeaderboard:
    """The model leaderboard of the round whose leaderboard.json is at `paths`."""
    path: Path = paths.leaderboard
    if not path.exists():
        raise RecordError(f"{path} missing: score the round before aggregating it by model")
    board = read_record(path, Leaderboard)
    return aggregate(board, repetitions, file_sha256(path), set(pending_replacements(paths)))
