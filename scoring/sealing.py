"""The code -> model map on leaderboard.json: sealed until reviews are complete or unsealed.

Revealed when every scored (ranked or gate-failed) row has complete reviews in both manual
dimensions, or when the operator ran `python -m scoring unseal ROUND --reason ...` (recorded in
`unsealing.json`). While sealed, leaderboard.json carries no candidate code: `candidate_code` is
empty, every other field or text naming a code names its unit instead, and the manual dimensions
show their aggregate without per-reviewer scores (which, with a reviewer's sheet, would link a
code to its row). Every row also gets its reviewer agreement (spread, third review).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from records.evidence.blind import CodeMap, CodesRecord, Unsealing
from records.evidence.scoring import (
    DimensionAgreement,
    DimensionScore,
    Leaderboard,
    LeaderboardRow,
    ReviewAgreement,
)
from records.io import RecordError, read_record, write_record
from records.layout import RoundPaths
from records.rubric import THIRD_REVIEW_GAP

SCORED = ("ranked", "gate_failed")


def reviews_complete(board: Leaderboard) -> bool:
    scored = [r for r in board.units if r.status in SCORED]
    return bool(scored) and all(
        r.reviews is not None and r.reviews.visual == r.reviews.code == "complete" for r in scored
    )


def _agreement(score: DimensionScore, limit: float, status: Any) -> DimensionAgreement:
    values = [c.points for c in score.components if c.name.startswith("review:")]
    return DimensionAgreement(
        reviewers=len(values),
        spread=round(max(values) - min(values), 6) if len(values) > 1 else None,
        limit=limit,
        third_review=len(values) > 1 and abs(values[0] - values[1]) > limit,
        status=status,
    )


def add_agreement(row: LeaderboardRow) -> None:
    if row.breakdown is None or row.reviews is None:
        return
    row.agreement = ReviewAgreement(
        visual=_agreement(row.breakdown.visual, THIRD_REVIEW_GAP["visual"], row.reviews.visual),
        code=_agreement(row.breakdown.code, THIRD_REVIEW_GAP["code_quality"], row.reviews.code),
    )


def load_unsealing(paths: RoundPaths) -> Unsealing | None:
    return read_record(paths.unsealing, Unsealing) if paths.unsealing.exists() else None


def _mask(value: Any, pattern: re.Pattern[str], units: dict[str, str]) -> Any:
    if isinstance(value, str):
        return pattern.sub(lambda m: units[m.group(0)], value)
    if isinstance(value, list):
        return [_mask(v, pattern, units) for v in value]
    if isinstance(value, dict):
        return {k: _mask(v, pattern, units) for k, v in value.items()}
    return value


def _withhold(score: DimensionScore) -> DimensionScore:
    reviews = sum(1 for c in score.components if c.name.startswith("review:"))
    return score.model_copy(
        update={
            "components": [],
            "note": f"{reviews} review(s); per-reviewer scores withheld while codes are sealed",
        }
    )


def apply_code_map(board: Leaderboard, codes: CodesRecord, paths: RoundPaths) -> Leaderboard:
    """Add agreement and the code-map state; seal (mask) the board unless it may be revealed."""
    for row in board.units:
        add_agreement(row)
    unsealing = load_unsealing(paths)
    recomputable = sorted(e.unit for e in codes.recomputable)
    if reviews_complete(board):
        board.code_map = CodeMap(
            sealed=False,
            reason="every scored row has complete reviews",
            unsealed_by="reviews_complete",
            recomputable_units=recomputable,
        )
        return board
    if unsealing is not None:
        board.code_map = CodeMap(
            sealed=False,
            reason=f"unsealed by {unsealing.by} at {unsealing.unsealed_at}: {unsealing.reason}",
            unsealed_by="operator",
            unsealing=paths.unsealing.name,
            recomputable_units=recomputable,
        )
        return board
    for row in board.units:
        row.candidate_code = None
        if row.breakdown is not None:
            row.breakdown.visual = _withhold(row.breakdown.visual)
            row.breakdown.code = _withhold(row.breakdown.code)
    units = {e.code: e.unit for e in codes.codes}
    data = board.model_dump(mode="json")
    if units:
        pattern = re.compile("|".join(re.escape(c) for c in sorted(units, key=len, reverse=True)))
        data = _mask(data, pattern, units)
    sealed = Leaderboard.model_validate(data)
    if sealed.review_stability is not None:  # each unit's review range would show its scores
        sealed.review_stability.ranks = []
    sealed.code_map = CodeMap(
        sealed=True,
        reason="sealed until every scored row has complete reviews (or the operator unseals)",
        recomputable_units=recomputable,
    )
    return sealed


def unseal(paths: RoundPaths, reason: str, by: str) -> Unsealing:
    """Record the operator's unsealing (once; a second call keeps the first record)."""
    round_id = paths.round_id
    existing = load_unsealing(paths)
    if existing is not None:
        return existing
    if not reason.strip():
        raise RecordError(f"{paths.unsealing}: field reason: say why the map is unsealed")
    board = read_record(paths.leaderboard, Leaderboard) if paths.leaderboard.exists() else None
    record = Unsealing(
        round_id=round_id,
        reason=reason.strip(),
        by=by,
        unsealed_at=datetime.now(UTC).isoformat(timespec="seconds"),
        reviews_complete=board is not None and reviews_complete(board),
    )
    write_record(paths.unsealing, record)
    return record
