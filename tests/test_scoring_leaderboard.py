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
    unseal(ctx.paths, "this test reads codes on the board", "test")  # else sealed
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
    # step-burner has no reviews and big-spender's evaluation failed: the standing is
    # provisional and nothing is announced yet
    assert board.provisional and board.standing == "provisional"
    assert board.standing_reason == (
        "reviews missing for 1 of 2 gate-eligible units; "
        "evaluation failed for 1 unit (big-spender-r1): re-evaluate or replace"
    )
    assert board.provisional_codes == [burner.candidate_code]
    assert board.advancing == [] and not top.advancement.advanced
    assert board.advancing_projected == [top.candidate_code, burner.candidate_code]
    assert top.advancement.projected and top.advancement.reason.startswith(
        "projected (reviews missing for 1 of 2 gate-eligible units; evaluation failed"
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
    unseal(ctx.paths, "this test reads codes on the board", "test")  # else sealed
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
    from harness.replacement import create_replacement

    outage = session("provider-outage", failure_class="provider_outage", validity="invalid")
    create_replacement("test", make_unit(ctx, "provider-outage", outage), "HTTP 503",
                       evidence_dir=ctx.paths.root.parent)  # fmt: skip
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


def reviewed(ctx: RoundContext, units: list[str]) -> list[str]:
    """Packets, then two complete reviews of every listed unit's code; returns the codes."""
    build_round_packets(ctx)
    unseal(ctx.paths, "this test reads codes on the board", "test")
    codes = load_codes(ctx.paths)
    assert codes is not None
    listed = [codes.code_of(u) for u in units]
    ctx.paths.reviews_dir.mkdir(exist_ok=True)
    for reviewer in ("alice", "bob"):
        (ctx.paths.reviews_dir / f"{reviewer}.csv").write_text(
            "code,visual,code_quality,notes\n" + "".join(f"{c},15,7,\n" for c in listed)
        )
    return listed


OTHERS = (  # five other models below strong-builder: 3, 5, 6, 8 and 14 points lower
    ("partial-builder", ("axe",)),
    ("progress-liar", ("url-state",)),
    ("signer", ("filter-journey",)),
    ("wide-footer", ("url-state", "axe")),
    ("one-pass", ("filter-journey", "url-state", "axe")),
)


def test_a_replaced_unit_is_superseded_one_model_holds_one_place(tmp_path: Path) -> None:
    """Evaluator failure, documented replacement, then a fixed evaluator re-evaluates the
    original: only the replacement ranks; the original is kept, labelled superseded."""
    from harness.replacement import create_replacement
    from records.io import write_record

    ctx = make_round(tmp_path)
    original = make_unit(ctx, "strong-builder", evaluation=result(evaluator_error="Chromium died"))
    for key, failed in OTHERS:
        make_unit(ctx, key, evaluation=result(failed=failed))
    record = create_replacement("test", original, "evaluator crashed", evidence_dir=tmp_path)
    assert record.replacement_unit == "strong-builder-r1-x1"
    make_unit(
        ctx,
        "strong-builder",
        session("strong-builder", unit="strong-builder-r1-x1", replacement_of=original),
        result(),
    )
    write_record(ctx.paths.unit(original).result, result())  # the fixed evaluator's result
    units = ["strong-builder-r1-x1", *(f"{k}-r1" for k, _ in OTHERS)]
    reviewed(ctx, units)
    board = score_context(ctx)
    rows = {r.unit: r for r in board.units}

    old = rows[original]
    assert (old.status, old.own_status, old.superseded_by) == (
        "superseded", "ranked", "strong-builder-r1-x1"
    )  # fmt: skip
    assert old.rank is None and old.total is None and not old.eligible
    assert not old.advancement.advanced and not old.advancement.projected
    assert old.status_reasons[0] == (
        "superseded by strong-builder-r1-x1: the replacement holds this model's place "
        "(own status: ranked)"
    )
    new = rows["strong-builder-r1-x1"]
    assert (new.status, new.rank, new.replacement_of) == ("ranked", 1, original)
    ranked = [r for r in board.units if r.rank is not None]
    assert len({r.model_key for r in ranked}) == len(ranked) == 6  # one place per model
    assert [r.rank for r in ranked] == [1, 2, 3, 4, 5, 6]
    assert board.standing == "final" and len(board.advancing) == 5  # one-pass is 6 behind
    assert old.candidate_code not in board.advancing_projected
    assert [r.unit for r in board.units][-1] == original  # listed last, kept


def test_a_pending_replacement_already_supersedes_its_unit(tmp_path: Path) -> None:
    from harness.replacement import create_replacement

    ctx = make_round(tmp_path)
    outage = make_unit(
        ctx,
        "provider-outage",
        session("provider-outage", failure_class="provider_outage", validity="invalid"),
    )
    make_unit(ctx, "strong-builder", evaluation=result())
    create_replacement("test", outage, "HTTP 503", evidence_dir=tmp_path)
    board = score_context(ctx)
    row = next(r for r in board.units if r.unit == outage)
    assert (row.status, row.own_status) == ("superseded", "provider_outage")
    assert row.status_reasons[0].startswith(
        "superseded by provider-outage-r1-x1 (documented replacement, not run yet)"
    )
    assert board.standing == "provisional"
    assert "1 documented replacement unit not run yet" in board.standing_reason


def test_missing_or_unreadable_evidence_stays_on_the_board(tmp_path: Path) -> None:
    """A unit whose session.json is missing or corrupt, or whose recorded archive is gone, is
    listed as invalid with the file named; the other units' advancement does not move."""
    ctx = make_round(tmp_path)
    for key, failed in OTHERS:
        make_unit(ctx, key, evaluation=result(failed=failed))
    gone = make_unit(ctx, "strong-builder", evaluation=result())
    corrupt = make_unit(ctx, "step-burner", evaluation=result())
    recorded = session("big-spender", evidence_files=["events.jsonl", "worktree.tar.gz"])
    archive_lost = make_unit(ctx, "big-spender", recorded, result())
    ctx.paths.unit(gone).session.unlink()
    ctx.paths.unit(corrupt).session.write_text('{"unit": "step-burner-r1", ')
    board = score_context(ctx)
    rows = {r.unit: r for r in board.units}
    assert set(rows) >= {gone, corrupt, archive_lost}
    for unit, file in (
        (gone, f"units/{gone}/session.json"),
        (corrupt, f"units/{corrupt}/session.json"),
        (archive_lost, f"units/{archive_lost}/worktree.tar.gz"),
    ):
        row = rows[unit]
        assert row.status == "invalid" and row.evidence_missing == [file], row
        assert row.rank is None and row.total is None
        assert row.status_reasons[0].startswith(f"required evidence missing: {file}")
    assert rows[gone].status_reasons == [f"required evidence missing: units/{gone}/session.json "
                                         "(missing)"]  # fmt: skip
    assert (
        rows[corrupt]
        .status_reasons[0]
        .startswith(
            f"required evidence missing: units/{corrupt}/session.json (unreadable: not valid JSON"
        )
    )
    assert str(tmp_path) not in rows[corrupt].status_reasons[0]  # no local path on the board
    assert (rows[gone].model_key, rows[gone].display_name) == (
        "strong-builder",
        "Northwind Builder 1",
    )
    assert rows[gone].elapsed_seconds is None and rows[gone].tokens is None
    assert read_record(ctx.paths.leaderboard, Leaderboard) == board


def test_a_unit_in_the_frozen_order_without_a_folder_is_listed(tmp_path: Path) -> None:
    from records.evidence.round import OrderRecord
    from records.io import write_record

    ctx = make_round(tmp_path)
    make_unit(ctx, "strong-builder", evaluation=result())
    write_record(
        ctx.paths.order,
        OrderRecord(
            round_id="test", seed=7, drawn_at="2026-11-30T00:00:00Z",
            qualified=["strong-builder", "signer"], not_testable=[],
            order=["signer-r1", "strong-builder-r1"],
        ),
    )  # fmt: skip
    row = next(r for r in score_context(ctx).units if r.unit == "signer-r1")
    assert row.status == "invalid" and row.evidence_missing == ["units/signer-r1/session.json"]


def test_the_standing_is_provisional_while_an_evaluation_failed(tmp_path: Path) -> None:
    ctx = make_round(tmp_path)
    make_unit(ctx, "strong-builder", evaluation=result())
    make_unit(ctx, "signer", evaluation=result(evaluator_error="browser phase crashed"))
    make_unit(ctx, "progress-liar")  # a valid run with no result.json
    reviewed(ctx, ["strong-builder-r1"])
    board = score_context(ctx)
    rows = {r.unit: r for r in board.units}
    assert rows["progress-liar-r1"].status == "evaluation_failed"
    assert rows["progress-liar-r1"].status_reasons == ["evaluation/result.json missing"]
    assert (board.standing, board.advancing) == ("provisional", [])
    assert board.standing_reason == (
        "evaluation failed for 2 units (progress-liar-r1, signer-r1): re-evaluate or replace"
    )
    write_record_ = __import__("records.io", fromlist=["write_record"]).write_record
    for unit in ("signer-r1", "progress-liar-r1"):  # re-evaluated by a fixed evaluator
        write_record_(ctx.paths.unit(unit).result, result(failed=("axe",), gates=("axe-serious",)))
    board = score_context(ctx)
    assert board.standing == "final"


def test_a_gate_probe_failure_is_an_evaluation_failure_not_a_pass(tmp_path: Path) -> None:
    """The leaderboard and the replacement command use one rule: a gate whose probe itself
    failed was not measured, so the unit is not ranked on it."""
    ctx = make_round(tmp_path)
    data = result().model_dump(mode="json")
    data["gates"][1] = {"id": "root-page", "failed": False, "status": "evaluator_error",
                        "reason": "the probe crashed"}  # fmt: skip
    from records.evidence.evaluation import EvaluationResult

    make_unit(ctx, "signer", evaluation=EvaluationResult.model_validate(data))
    row = score_context(ctx).units[0]
    assert row.status == "evaluation_failed" and row.rank is None
    assert row.status_reasons == ["gate probe evaluator error: root-page"]


def test_older_leaderboards_still_load(tmp_path: Path) -> None:
    ctx = make_round(tmp_path)
    make_unit(ctx, "strong-builder", evaluation=result())
    data = json.loads(score_context(ctx).model_dump_json())
    assert data["schema_version"] == 7 and data["round_kind"] == "demo"
    assert data["claim"]["shape"] == "one_run"  # schema 7: the headline and its basis
    assert data["units"][0]["agent"] == ""  # a round of one agent names none
    assert data["units"][0]["evidence_check"] == "files_present"  # written without manifests
    schema_7_only = ("claim", "units_outside", "review_")  # review_stability and the sheets
    schema_6 = {k: v for k, v in data.items() if not k.startswith(schema_7_only)}
    schema_6 = {**schema_6, "schema_version": 6}
    for row in schema_6["units"]:
        del row["evidence_check"]
    older_6 = Leaderboard.model_validate(schema_6)
    assert (older_6.units_outside_order, older_6.review_sheets_missing) == ([], [])
    assert (older_6.claim, older_6.review_stability) == (None, None)  # no claim is made up
    assert older_6.units[0].evidence_check is None  # not checked then, not guessed
    schema_5 = {**data, "schema_version": 5}
    for row in schema_5["units"]:
        del row["agent"]
    assert Leaderboard.model_validate(schema_5).units[0].agent == ""
    hashes = {f: "0" * 64 for f in ("prompt_sha256", "starter_tree_sha256", "evaluator_sha256")}
    schema_4 = {**data, "schema_version": 4, "versions": hashes}  # versions without the task
    versions = Leaderboard.model_validate(schema_4).versions
    assert versions is not None and versions.task is None  # unknown, not guessed
    schema_3 = {k: v for k, v in data.items() if k not in ("round_kind", "versions")}
    older = Leaderboard.model_validate({**schema_3, "schema_version": 3})
    assert (older.round_kind, older.versions) == (None, None)  # unknown, not guessed
    data = {**schema_3, "schema_version": 2}
    for row in data["units"]:
        for name in ("superseded_by", "own_status", "evidence_missing"):
            del row[name]
    assert Leaderboard.model_validate(data).units[0].status == "ranked"
