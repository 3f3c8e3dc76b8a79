"""The methodology page's rule-path tables are well formed and their references are real.

The end-to-end demo test (`tests/test_pipeline.py`) checks that the demo's evidence exercises
every demo row; this file checks the tables themselves, cheaply.
"""

from __future__ import annotations

import re
from pathlib import Path

from rule_paths import FINDERS, METHODOLOGY, SHOWCASE, Evidence, shown_by, table, unexercised
from scoring_support import make_round, make_unit, result, session

from harness.replacement import create_replacement
from publish import views
from records.inputs import load_cohort, load_round
from records.layout import REPO_ROOT
from scoring.codes import load_codes
from scoring.packets import build_round_packets
from scoring.pipeline import score_context


def test_every_demo_row_has_a_finder_and_names_a_demo_candidate() -> None:
    rows = table(SHOWCASE)
    assert len(rows) >= 15
    assert {r.id for r in rows} == set(FINDERS), "a finder without a row, or a row without one"
    keys = {c.key for c in load_cohort(load_round("showcase").cohort_path).candidates}
    for row in rows:
        assert row.names and set(row.names) <= keys, (row.id, row.names)


def test_every_tests_row_names_a_test_that_exists() -> None:
    rows = table("tests")
    assert {"time-ceiling", "time-band-20-30", "provisional-standing"} <= {r.id for r in rows}
    for row in rows:
        files = [n for n in row.names if n.startswith("tests/")]
        tests = [n for n in row.names if n.startswith("test_")]
        assert files and tests, row
        sources = " ".join((REPO_ROOT / f).read_text() for f in files)
        for name in tests:
            assert re.search(rf"^def {name}\(", sources, re.M), (row.id, name)


def test_the_quick_demo_shows_the_rows_its_cast_names() -> None:
    """The quick demo's six models name the paths a newcomer sees first: a ranked board with final
    reviews, a gate-capped unit, an invalid unit and routes that are not testable."""
    cast = {c.key for c in load_cohort(load_round("demo").cohort_path).candidates}
    assert cast < {c.key for c in load_cohort(load_round("showcase").cohort_path).candidates}
    assert {r.id for r in shown_by(cast)} >= {
        "scored-and-ranked",
        "final-standing",
        "review-third-reviewer",
        "gate-horizontal-overflow",
        "cap-lowers-total",
        "invalid-identity",
        "preflight-two-of-three",
        "catalogue-route-absent",
    }


def test_no_rule_path_is_both_a_demo_path_and_a_test_only_path() -> None:
    assert not {r.id for r in table(SHOWCASE)} & {r.id for r in table("tests")}


def test_an_empty_round_exercises_nothing(tmp_path: Path) -> None:
    problems = unexercised("demo", tmp_path)
    assert len(problems) == len(table(SHOWCASE))
    assert all("is not exercised by" in p and METHODOLOGY.name in p for p in problems)


def test_finders_find_their_paths_in_scored_evidence(tmp_path: Path) -> None:
    """The finders against a round scored by the real stages (a cheap stand-in for the demo)."""
    ctx = make_round(tmp_path)
    make_unit(ctx, "strong-builder", evaluation=result())
    make_unit(ctx, "progress-liar", evaluation=result(), commands=[])  # claims unrun commands
    make_unit(
        ctx,
        "wide-footer",
        evaluation=result(failed=("no-overflow",), gates=("horizontal-overflow",)),
    )
    make_unit(ctx, "step-burner", session("step-burner", stop_status="step_ceiling"), result())
    make_unit(
        ctx,
        "auth-lost",
        session("auth-lost", failure_class="harness", validity="invalid", stop_status="completed"),
    )
    make_unit(ctx, "provider-outage", session("provider-outage", failure_class="provider_outage"))
    create_replacement("test", "provider-outage-r1", "outage", evidence_dir=tmp_path)
    make_unit(
        ctx,
        "provider-outage",
        session(
            "provider-outage",
            unit="provider-outage-r1-x1",
            replacement_of="provider-outage-r1",
            failure_class="provider_outage",
        ),
    )
    build_round_packets(ctx)
    codes = load_codes(ctx.paths)
    assert codes is not None
    scored = [codes.code_of(u) for u in ("strong-builder-r1", "progress-liar-r1",
                                          "wide-footer-r1", "step-burner-r1")]  # fmt: skip
    ctx.paths.reviews_dir.mkdir()
    for reviewer, strong in (("a", 18), ("b", 12), ("c", 15)):  # a gap of 6: a third review
        rows = [f"{scored[0]},{strong},8,"] + (
            [f"{c},14,7," for c in scored[1:]] if reviewer != "c" else []
        )
        (ctx.paths.reviews_dir / f"{reviewer}.csv").write_text(
            "code,visual,code_quality,notes\n" + "\n".join(rows) + "\n"
        )
    score_context(ctx)
    found = {path: finder(Evidence.load("test", tmp_path)) for path, finder in FINDERS.items()}
    assert found["scored-and-ranked"] == {"strong-builder", "progress-liar", "step-burner"}
    assert found["step-ceiling"] == {"step-burner"}
    assert found["gate-horizontal-overflow"] == found["cap-lowers-total"] == {"wide-footer"}
    assert found["false-progress-claim"] == {"progress-liar"}
    assert found["harness-failure"] == {"auth-lost"}
    assert found["provider-outage"] == found["documented-replacement"] == {"provider-outage"}
    assert found["superseded-unit"] == {"provider-outage"}  # the original, kept and labelled
    assert found["review-third-reviewer"] == {"strong-builder"}
    assert found["review-average-of-two"] == {"progress-liar", "wide-footer", "step-burner"}
    assert "strong-builder" in found["final-standing"]
    for path in ("budget-ceiling", "gate-install-build", "invalid-identity", "catalogue-no-tools",
                 "within-three-of-fifth"):  # fmt: skip
        assert found[path] == set(), path


def test_within_three_of_fifth_finder(tmp_path: Path) -> None:
    ctx = make_round(tmp_path)
    keys = ["strong-builder", "signer", "progress-liar", "step-burner", "ellipsis-builder"]
    keys.append("one-pass")
    for key in keys:
        make_unit(ctx, key, evaluation=result())
    build_round_packets(ctx)
    codes = load_codes(ctx.paths)
    assert codes is not None
    ctx.paths.reviews_dir.mkdir()
    rows = [f"{codes.code_of(f'{k}-r1')},{20 - 2 * i},5," for i, k in enumerate(keys)]
    for reviewer in ("a", "b"):
        (ctx.paths.reviews_dir / f"{reviewer}.csv").write_text(
            "code,visual,code_quality,notes\n" + "\n".join(rows) + "\n"
        )
    board = score_context(ctx)
    assert board.standing == "final" and board.fifth_total == 87
    assert FINDERS["within-three-of-fifth"](Evidence.load("test", tmp_path)) == {"one-pass"}
    rows[-1] = f"{codes.code_of('one-pass-r1')},6,5,"  # 4 behind fifth: it no longer advances
    for reviewer in ("a", "b"):
        (ctx.paths.reviews_dir / f"{reviewer}.csv").write_text(
            "code,visual,code_quality,notes\n" + "\n".join(rows) + "\n"
        )
    score_context(ctx)
    assert FINDERS["within-three-of-fifth"](Evidence.load("test", tmp_path)) == set()


def test_a_resource_limit_stop_is_scored_and_disclosed(tmp_path: Path) -> None:
    """Issue 29 (4): a sandbox limit kill is its own stop status, scored with it disclosed on the
    leaderboard row and the site's badge, with no completion or clean-exit points."""
    ctx = make_round(tmp_path)
    limit = "nproc: `opencode run` exceeded the process limit (1024 processes and threads)"
    record = session(
        "process-storm", stop_status="resource_limit", exit_code=-9, failure_class="model",
        resource_limit=limit, attribution="resource-limit",
    )  # fmt: skip
    make_unit(ctx, "process-storm", record, evaluation=result())
    make_unit(ctx, "strong-builder", evaluation=result())
    board = score_context(ctx)
    row = next(r for r in board.units if r.unit == "process-storm-r1")
    assert (row.status, row.stop_status) == ("ranked", "resource_limit")
    assert row.breakdown is not None
    points = {c.name: c.points for c in row.breakdown.efficiency.components}
    assert (points["completion"], points["clean_exit"]) == (0, 0)
    assert FINDERS["resource-limit"](Evidence.load("test", tmp_path)) == {"process-storm"}
    shown = views.Row(
        unit=row.unit, model_key=row.model_key, display_name="", company="", route=row.route,
        code=None, status=row.status, total=row.total, raw_total=row.raw_total, breakdown={},
        capped=False, provisional=False, eligible=True, advances=False, rank=row.rank,
        elapsed_seconds=row.elapsed_seconds, cost_usd=row.cost_usd, tokens=None,
        stop_status=row.stop_status, validity=row.validity, invalid_reasons=[],
        failure_class=row.failure_class, explanations=[],
    )  # fmt: skip
    badge = next(b for b in views.badges(shown) if b.tone == "warn")
    assert (badge.label, badge.title) == (
        "stopped at a sandbox limit", "the work at the limit was scored")  # fmt: skip
