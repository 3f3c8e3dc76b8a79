"""A whole round scored from evidence: statuses, totals, traces, leaderboard.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scoring_support import CHECKS, make_round, make_unit, result, session

from records.evidence.scoring import Leaderboard
from records.io import read_record
from scoring.__main__ import main
from scoring.codes import load_codes
from scoring.evidence import RoundContext
from scoring.packets import build_round_packets
from scoring.pipeline import score_context
from scoring.sealing import unseal


def build_round(tmp_path: Path) -> RoundContext:
    ctx = make_round(tmp_path)
    make_unit(ctx, "strong-builder", evaluation=result())
    make_unit(
        ctx, "partial-builder", evaluation=result(failed=("venue-detail",), gates=("core-journey",))
    )
    make_unit(
        ctx,
        "type-breaker",
        # A failed build leaves every check unrun: the model's failure, not the evaluator's.
        evaluation=result(
            not_executed=tuple(c[0] for c in CHECKS), gates=("install-build",), build_ok=False
        ),
    )
    make_unit(
        ctx,
        "step-burner",
        session(
            "step-burner",
            stop_status="step_ceiling",
            exit_code=None,
            elapsed_seconds=1500.0,
            cost_usd=7.5,
        ),
        result(),
    )
    make_unit(ctx, "big-spender", evaluation=result(not_executed=("axe",)))
    make_unit(
        ctx,
        "identity-swap",
        session(
            "identity-swap",
            validity="invalid",
            invalid_reasons=["identity contradicts the freeze: other/model"],
        ),
        result(),
    )
    make_unit(
        ctx,
        "provider-outage",
        session(
            "provider-outage",
            failure_class="provider_outage",
            stop_status="time_ceiling",
            failure_detail="HTTP 503 on every retry",
        ),
    )
    make_unit(
        ctx,
        "idle",
        session(
            "idle",
            failure_class="harness",
            stop_status="not_started",
            failure_detail="sandbox failed to start",
        ),
    )
    flaky = ctx.paths.preflight("flaky-adapter")
    flaky.parent.mkdir(parents=True)
    flaky.write_text(
        json.dumps(
            {
                "verdict": "not_testable",
                "reason_class": "adapter_unstable",
                "reason": "probe 2 of 3 failed",
            }
        )
    )
    return ctx


def test_round_statuses_totals_and_traces(tmp_path: Path) -> None:
    ctx = build_round(tmp_path)
    build_round_packets(ctx)
    unseal(ctx.paths, "test", "this test reads codes on the board", "test")  # else sealed
    codes = load_codes(ctx.paths)
    assert codes is not None
    strong = codes.code_of("strong-builder-r1")
    ctx.paths.reviews_dir.mkdir()
    for reviewer, visual, quality in (("alice", 18, 9), ("bob", 16, 8)):
        (ctx.paths.reviews_dir / f"{reviewer}.csv").write_text(
            f"code,visual,code_quality,notes\n{strong},{visual},{quality},\n"
        )
    board = score_context(ctx)
    rows = {r.unit: r for r in board.units}
    assert read_record(ctx.paths.leaderboard, Leaderboard) == board

    top = rows["strong-builder-r1"]
    assert (top.status, top.rank, top.total, top.provisional) == ("ranked", 1, 95.5, False)
    assert top.breakdown is not None and top.breakdown.visual.points == 17
    assert top.breakdown.code.points == 8.5 and top.advancement.projected

    burner = rows["step-burner-r1"]
    assert burner.status == "ranked" and burner.stop_status == "step_ceiling"
    assert burner.breakdown is not None and burner.breakdown.efficiency.points == 1.0  # 0+0.5+0+0.5
    assert burner.provisional and burner.reviews is not None
    assert burner.reviews.visual == "no_reviews"

    for unit, gate in (
        ("partial-builder-r1", "core-journey"),
        ("type-breaker-r1", "install-build"),
    ):
        row = rows[unit]
        assert row.status == "gate_failed" and row.capped and not row.eligible and row.rank is None
        assert [g.id for g in row.gates_failed] == [gate] and row.total is not None
        assert row.total <= 49 and row.cost_usd == 1.25 and row.elapsed_seconds == 600
    breaker = rows["type-breaker-r1"].breakdown
    assert breaker is not None and breaker.verification.points == 4  # claims a failed build

    assert rows["big-spender-r1"].status == "evaluation_failed"
    assert rows["big-spender-r1"].checks_not_executed == ["axe"]
    assert rows["identity-swap-r1"].status == "invalid"
    assert rows["identity-swap-r1"].invalid_reasons == [
        "identity contradicts the freeze: other/model"
    ]
    assert rows["provider-outage-r1"].status == "provider_outage"
    assert rows["idle-r1"].status == "harness_failure"
    for unit in ("big-spender-r1", "identity-swap-r1", "provider-outage-r1", "idle-r1"):
        assert rows[unit].total is None and rows[unit].rank is None and not rows[unit].eligible

    assert [r.unit for r in board.units][:2] == ["strong-builder-r1", "step-burner-r1"]
    # step-burner has no reviews: the standing is provisional and nothing is announced yet
    assert board.provisional and board.standing == "provisional"
    assert board.standing_reason == "reviews missing for 1 of 2 gate-eligible units"
    assert board.provisional_codes == [burner.candidate_code]
    assert board.advancing == [] and not top.advancement.advanced
    assert board.advancing_projected == [top.candidate_code, burner.candidate_code]
    assert top.advancement.projected and top.advancement.reason.startswith(
        "projected (reviews missing for 1 of 2 gate-eligible units): top 5"
    )
    assert [(n.model_key, n.reason_class) for n in board.not_testable] == [
        ("flaky-adapter", "adapter_unstable")
    ]

    for row in (top, burner, rows["type-breaker-r1"]):  # every number traces to a file
        assert row.breakdown is not None
        for dimension in row.breakdown.model_dump():
            score = getattr(row.breakdown, dimension)
            for component in score.components:
                for source in component.sources:
                    file = source.split("#")[0].rsplit(":", 1)[0]
                    assert (ctx.paths.root / file).exists(), (dimension, source)
        assert {"total", "elapsed_seconds", "cost_usd", "tokens"} <= {
            e.field for e in row.explanations
        }


def test_third_review_keeps_the_row_provisional(tmp_path: Path) -> None:
    ctx = make_round(tmp_path)
    make_unit(ctx, "strong-builder", evaluation=result())
    build_round_packets(ctx)
    codes = load_codes(ctx.paths)
    assert codes is not None
    code = codes.code_of("strong-builder-r1")
    ctx.paths.reviews_dir.mkdir()
    for reviewer, visual in (("a", 18), ("b", 13)):
        (ctx.paths.reviews_dir / f"{reviewer}.csv").write_text(
            f"code,visual,code_quality,notes\n{code},{visual},8,\n"
        )
    row = score_context(ctx).units[0]
    assert row.provisional and row.reviews is not None
    assert row.reviews.visual == "awaiting_third_review" and row.reviews.code == "complete"
    third = [{"code": code, "visual": 15, "code_quality": None, "notes": ""}]  # every key
    (ctx.paths.reviews_dir / "c.json").write_text(json.dumps(third))
    row = score_context(ctx).units[0]
    assert not row.provisional and row.breakdown is not None and row.breakdown.visual.points == 15


def test_cli_reports_errors_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["score", "--round", "no-such-round", "--evidence-dir", str(tmp_path)]) == 1
    assert "no such round" in capsys.readouterr().err


def test_advancement_is_final_only_when_every_eligible_unit_is(tmp_path: Path) -> None:
    ctx = make_round(tmp_path)
    make_unit(ctx, "strong-builder", evaluation=result())
    make_unit(ctx, "progress-liar", evaluation=result())
    make_unit(  # gate-failed rows cannot advance: their missing reviews do not hold the board
        ctx, "partial-builder", evaluation=result(failed=("venue-detail",), gates=("core-journey",))
    )
    build_round_packets(ctx)
    unseal(ctx.paths, "test", "this test reads codes on the board", "test")  # else sealed
    codes = load_codes(ctx.paths)
    assert codes is not None
    eligible = [codes.code_of(u) for u in ("strong-builder-r1", "progress-liar-r1")]
    ctx.paths.reviews_dir.mkdir()
    sheet = ctx.paths.reviews_dir / "alice.csv"
    sheet.write_text(f"code,visual,code_quality,notes\n{eligible[0]},15,7,\n")
    board = score_context(ctx)
    assert (board.standing, board.advancing) == ("provisional", [])
    assert board.standing_reason == "reviews missing for 2 of 2 gate-eligible units"
    assert sorted(board.advancing_projected) == sorted(eligible)

    for reviewer in ("alice", "bob"):
        (ctx.paths.reviews_dir / f"{reviewer}.csv").write_text(
            "code,visual,code_quality,notes\n" + "".join(f"{c},15,7,\n" for c in eligible)
        )
    board = score_context(ctx)
    assert board.standing == "final" and board.provisional  # partial-builder is still unreviewed
    assert board.standing_reason == "every gate-eligible unit (2) is final"
    assert board.advancing == board.advancing_projected and sorted(board.advancing) == sorted(
        eligible
    )
    assert all(r.advancement.advanced for r in board.units if r.eligible)

    # a documented replacement that has not run yet could still change the ranking
    pending = ctx.paths.unit("provider-outage-r1-x1").root
    pending.mkdir(parents=True)
    (pending / "replacement.json").write_text("{}")
    board = score_context(ctx)
    assert (board.standing, board.advancing) == ("provisional", [])
    assert board.standing_reason == "1 documented replacement unit not run yet"


def test_not_testable_rows_carry_the_probe_fraction(tmp_path: Path) -> None:
    ctx = make_round(tmp_path)
    make_unit(ctx, "strong-builder", evaluation=result())
    for key, record in (
        ("flaky-adapter", {"verdict": "not_testable", "reason": "2/3 probes passed",
                           "probes_required": 3, "probes_passed": 2,
                           "probes": [{"passed": True}, {"passed": False}, {"passed": True}]}),
        ("missing-route", {"verdict": "not_testable", "reason": "not in /models",
                           "probes_required": 3, "probes_passed": 0, "probes": []}),
        ("no-tool-choice", {"verdict": "not_testable", "reason": "probe 1 of 3 failed",
                            "probes_required": 3, "probes": [{"passed": False}]}),  # schema 1
    ):  # fmt: skip
        path = ctx.paths.preflight(key)
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(record))
    build_round_packets(ctx)
    rows = {
        n.model_key: (n.probes_passed, n.probes_required) for n in score_context(ctx).not_testable
    }
    assert rows == {"flaky-adapter": (2, 3), "missing-route": (None, 3), "no-tool-choice": (0, 3)}
