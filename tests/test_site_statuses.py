"""The site shows what the leaderboard says about replaced and broken units (issue 29): a replaced
unit is kept and labelled superseded everywhere (leaderboard, unit page, check matrix, model page,
downloads), its replacement labelled as such, and a unit with missing evidence stays listed.

A small round scored by the real stages and rendered by the real renderer (no demo build)."""

from __future__ import annotations

import csv
from pathlib import Path

from scoring_support import demo_cohort, make_unit, result, session

from harness.replacement import create_replacement
from publish.render import render_docs
from publish.sources import load_round_evidence
from records.io import write_record
from records.layout import round_paths
from records.round import Round
from scoring.evidence import RoundContext
from scoring.pipeline import score_context

PLAIN = {"screenshots": [], "video": None}  # no media to re-encode


def render(tmp_path: Path) -> Path:
    evidence = tmp_path / "evidence"
    ctx = RoundContext("showcase", 7, demo_cohort(), round_paths("showcase", evidence))
    crashed = result(evaluator_error="crashed", **PLAIN)
    original = make_unit(ctx, "strong-builder", evaluation=crashed)
    create_replacement("showcase", original, "the evaluator crashed", evidence_dir=evidence)
    make_unit(
        ctx,
        "strong-builder",
        session("strong-builder", unit="strong-builder-r1-x1", replacement_of=original),
        result(**PLAIN),
    )
    write_record(ctx.paths.unit(original).result, result(**PLAIN))  # a fixed evaluator's result
    broken = make_unit(ctx, "signer", evaluation=result(**PLAIN))
    ctx.paths.unit(broken).session.write_text("{")
    failed = result(evaluator_error="the browser phase ended early (exit 2)", **PLAIN)
    make_unit(ctx, "partial-builder", session("partial-builder"), failed)  # not replaced yet
    score_context(ctx)
    docs = tmp_path / "docs"
    docs.mkdir()
    render_docs(load_round_evidence(Round.load("showcase", evidence)), docs)
    return docs


def test_the_site_labels_superseded_and_replacement_units_and_keeps_broken_ones(
    tmp_path: Path,
) -> None:
    docs = render(tmp_path)
    board = (docs / "leaderboard.md").read_text()
    scored, _, rest = board.partition("## Superseded units")
    assert "units/strong-builder-r1-x1.html" in scored and "replaces strong-builder-r1" in scored
    assert "units/strong-builder-r1.html" not in scored  # one place per model
    assert "superseded by strong-builder-r1-x1" in rest and "units/strong-builder-r1.html" in rest
    assert "evidence missing" in board and "units/signer-r1/session.json" in board

    page = (docs / "units" / "strong-builder-r1.md").read_text()
    assert "Superseded by" in page and 'href="strong-builder-r1-x1.html"' in page
    assert "replaces strong-builder-r1" in (docs / "units" / "strong-builder-r1-x1.md").read_text()
    assert "evidence missing" in (docs / "units" / "signer-r1.md").read_text()
    for unit in ("signer-r1", "strong-builder-r1"):  # never scored, so never awaiting a review
        text = (docs / "units" / f"{unit}.md").read_text()
        assert "not reviewed: never scored" in text and "awaiting blind review" not in text
        assert "sb-pending" not in text
    assert "never scored" not in (docs / "units" / "strong-builder-r1-x1.md").read_text()

    matrix = (docs / "checks.md").read_text()
    assert "superseded by strong-builder-r1-x1, not scored" in matrix

    model = (docs / "models" / "strong-builder.md").read_text()
    assert "superseded by strong-builder-r1-x1" in model and "(replaces strong-builder-r1)" in model

    with (docs / "downloads" / "leaderboard.csv").open() as handle:
        rows = {r["unit"]: r for r in csv.DictReader(handle)}
    assert (rows["strong-builder-r1"]["status"], rows["strong-builder-r1"]["rank"]) == (
        "superseded", ""
    )  # fmt: skip
    assert rows["strong-builder-r1"]["superseded_by"] == "strong-builder-r1-x1"
    assert rows["strong-builder-r1-x1"]["replacement_of"] == "strong-builder-r1"
    assert rows["signer-r1"]["evidence_missing"] == "units/signer-r1/session.json"


def test_an_unscored_unit_shows_no_verdicts_or_points(tmp_path: Path) -> None:
    """An evaluation that failed is kept as evidence, but its page shows no check chips and no
    points: the chips of its result.json (every check passed here) would contradict its status."""
    docs = render(tmp_path)
    failed = (docs / "units" / "partial-builder-r1.md").read_text()
    assert "evaluation failed" in failed and 'class="sb-cell' not in failed
    assert "Not counted" in failed and "60/60 points" not in failed
    superseded = (docs / "units" / "strong-builder-r1.md").read_text()
    assert 'class="sb-cell' not in superseded and "Not counted" in superseded
    ranked = (docs / "units" / "strong-builder-r1-x1.md").read_text()
    assert 'class="sb-cell' in ranked and "Not counted" not in ranked
