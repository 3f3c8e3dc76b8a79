"""Pipeline entry points: plain functions a doit task, a test or `python -m` can call."""

from __future__ import annotations

from pathlib import Path

from records.evidence.scoring import ArmInfo, Leaderboard
from records.hashing import file_sha256
from records.interventions import Factor
from records.io import write_record
from records.round import Round
from scoring.aggregate import aggregate, aggregate_round
from scoring.claims import claim
from scoring.codes import assign_codes
from scoring.evidence import RoundContext, load_context, load_units, pending_replacements
from scoring.intervention import build_intervention
from scoring.leaderboard import build_leaderboard
from scoring.packets import build_round_packets
from scoring.receipts import receive_reviews
from scoring.review_stability import review_stability
from scoring.sealing import apply_code_map, unseal


def build_packets(rnd: Round) -> list[Path]:
    """Draw missing candidate codes and (re)build every blind packet; redacts and flags a
    model's self-signature, fails only on a harness leak."""
    return build_round_packets(load_context(rnd))


def score_context(ctx: RoundContext) -> Leaderboard:
    """Score the round in `ctx` and write its leaderboard.json: every unit, whatever its
    evidence (a missing session record is a row, not a gap)."""
    units = load_units(ctx.paths)
    codes = assign_codes(ctx.paths, [u.unit for u in units if u.reviewable])
    reviews = receive_reviews(ctx.paths, {e.code for e in codes.codes})  # receipted
    board = build_leaderboard(ctx, units, codes, reviews)
    pending = set(pending_replacements(ctx.paths))
    add_claim(board, ctx.repetitions, ctx.arms, pending, ctx.factor, ctx.arm_info)
    board = apply_code_map(board, codes, ctx.paths)
    write_record(ctx.paths.leaderboard, board)
    if ctx.repetitions > 1 and not ctx.arms:  # a repeated round is also ranked by model
        write_record(ctx.paths.model_leaderboard, aggregate_round(ctx.paths, ctx.repetitions))
    if ctx.arms:  # an intervention round: its arms compared on the same models
        sha256 = file_sha256(ctx.paths.leaderboard)
        found = build_intervention(board, list(ctx.arms), sha256, ctx.factor, list(ctx.arm_info))
        write_record(ctx.paths.intervention, found)
    return board


def add_claim(
    board: Leaderboard,
    repetitions: int,
    arms: tuple[str, ...] = (),
    pending: set[str] | None = None,
    factor: Factor = "agent",
    arm_info: tuple[ArmInfo, ...] = (),
) -> None:
    """Set the board's headline claim and how sure its reviews are, from the same numbers the
    model leaderboard and intervention.json are written from (built here in memory first;
    `pending`: documented replacements not run yet)."""
    repeated = repetitions > 1 and not arms
    models = aggregate(board, repetitions, "", pending) if repeated else None
    agents = build_intervention(board, list(arms), "", factor, list(arm_info)) if arms else None
    board.review_stability = review_stability(board, models, selects=not arms)
    board.claim = claim(board, repetitions, arms, models, agents)


def score_round(rnd: Round) -> Leaderboard:
    """Score every unit of the round from its evidence and write `leaderboard.json`."""
    return score_context(load_context(rnd))


def unseal_round(rnd: Round, reason: str, by: str = "operator") -> Leaderboard:
    """Record the operator's unsealing of the code map, then re-score (the map is revealed)."""
    ctx = load_context(rnd)
    unseal(ctx.paths, reason, by)
    return score_context(ctx)
