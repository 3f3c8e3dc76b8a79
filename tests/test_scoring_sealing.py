"""The code map on leaderboard.json: sealed while reviews are out, revealed when they are in or
when the operator unseals (recorded); reviewer agreement on every reviewed row."""

from __future__ import annotations

from pathlib import Path

import pytest
from scoring_support import make_round, make_unit, result, session

from records.evidence.blind import Unsealing
from records.evidence.scoring import Leaderboard
from records.io import read_record
from records.layout import round_paths
from scoring.__main__ import main
from scoring.codes import load_codes
from scoring.evidence import RoundContext
from scoring.packets import build_round_packets
from scoring.pipeline import score_context
from scoring.sealing import unseal


def two_units(tmp_path: Path) -> tuple[RoundContext, dict[str, str]]:
    ctx = make_round(tmp_path)
    for key in ("strong-builder", "progress-liar"):
        make_unit(ctx, key, evaluation=result())
    build_round_packets(ctx)
    codes = load_codes(ctx.paths)
    assert codes is not None
    return ctx, {e.unit: e.code for e in codes.codes}


def sheet(ctx: RoundContext, reviewer: str, rows: dict[str, tuple[float, float]]) -> None:
    ctx.paths.reviews_dir.mkdir(exist_ok=True)
    lines = "".join(f"{code},{v:g},{q:g},ok\n" for code, (v, q) in rows.items())
    (ctx.paths.reviews_dir / f"{reviewer}.csv").write_text(
        "code,visual,code_quality,notes\n" + lines
    )


def test_the_map_is_sealed_until_every_scored_row_is_reviewed(tmp_path: Path) -> None:
    ctx, codes = two_units(tmp_path)
    strong, liar = codes["strong-builder-r1"], codes["progress-liar-r1"]
    sheet(ctx, "alice", {strong: (18, 9), liar: (12, 6)})
    sheet(ctx, "bob", {strong: (16, 8)})
    board = score_context(ctx)
    text = ctx.paths.leaderboard.read_text()
    assert board.code_map is not None and board.code_map.sealed
    for code in codes.values():
        assert code not in text  # no code anywhere: not in rows, lists or reasons
    assert all(r.candidate_code is None for r in board.units)
    row = next(r for r in board.units if r.unit == "strong-builder-r1")
    assert row.breakdown is not None and row.breakdown.visual.points == 17
    assert row.breakdown.visual.components == []  # per-reviewer scores would link the sheets

    sheet(ctx, "bob", {strong: (16, 8), liar: (11, 6)})
    board = score_context(ctx)
    assert board.code_map is not None and not board.code_map.sealed
    assert board.code_map.unsealed_by == "reviews_complete"
    assert {r.unit: r.candidate_code for r in board.units} == codes


def test_the_operator_unseals_explicitly_and_it_is_recorded(tmp_path: Path) -> None:
    ctx, codes = two_units(tmp_path)
    evidence = str(tmp_path)
    assert score_context(ctx).code_map.sealed  # type: ignore[union-attr]
    with pytest.raises(SystemExit):
        main(["unseal", "test", "--evidence-dir", evidence])  # a reason is required
    unseal(ctx.paths, "reviewer pool exhausted", "ops")  # what the CLI records
    record = read_record(ctx.paths.unsealing, Unsealing)
    assert (record.by, record.reason, record.reviews_complete) == (
        "ops",
        "reviewer pool exhausted",
        False,
    )
    board = score_context(ctx)
    assert board.code_map is not None and not board.code_map.sealed
    assert board.code_map.unsealed_by == "operator" and board.code_map.unsealing == "unsealing.json"
    assert "reviewer pool exhausted" in board.code_map.reason
    assert {r.unit: r.candidate_code for r in board.units} == codes


def test_agreement_shows_spread_and_the_third_review(tmp_path: Path) -> None:
    ctx, codes = two_units(tmp_path)
    strong, liar = codes["strong-builder-r1"], codes["progress-liar-r1"]
    sheet(ctx, "a", {strong: (18, 9), liar: (12, 6)})
    sheet(ctx, "b", {strong: (12, 8), liar: (11, 6)})
    board = score_context(ctx)
    rows = {r.unit: r for r in board.units}
    spread = rows["strong-builder-r1"].agreement
    assert spread is not None and spread.visual.spread == 6 and spread.visual.third_review
    assert spread.visual.status == "awaiting_third_review" and spread.code.spread == 1
    sheet(ctx, "c", {strong: (15, 8)})
    board = score_context(ctx)
    rows = {r.unit: r for r in board.units}
    third = rows["strong-builder-r1"].agreement
    assert third is not None and third.visual.reviewers == 3 and third.visual.third_review
    assert third.visual.status == "complete" and not board.code_map.sealed  # type: ignore[union-attr]


def test_unseal_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ctx = make_round(tmp_path)
    ctx = RoundContext("showcase", ctx.seed, ctx.cohort, round_paths("showcase", tmp_path))
    make_unit(ctx, "strong-builder", session("strong-builder", round_id="showcase"), result())
    build_round_packets(ctx)
    evidence = ["--evidence-dir", str(tmp_path)]
    assert main(["score", "showcase", *evidence]) == 0
    assert read_record(ctx.paths.leaderboard, Leaderboard).code_map.sealed  # type: ignore[union-attr]
    with pytest.raises(SystemExit):
        main(["unseal", "showcase", *evidence])  # no reason: refused before anything is written
    assert not ctx.paths.unsealing.exists()
    assert main(["unseal", "showcase", "--reason", "audit", "--by", "ops", *evidence]) == 0
    assert "code map revealed" in capsys.readouterr().out
    board = read_record(ctx.paths.leaderboard, Leaderboard)
    assert board.code_map is not None and board.code_map.unsealed_by == "operator"
    assert board.units[0].candidate_code is not None
    assert read_record(ctx.paths.unsealing, Unsealing).reason == "audit"
