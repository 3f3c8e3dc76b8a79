"""Reviewer bundles and the scripted demo reviews."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from scoring_support import make_round, make_unit, result, session

from records.evidence.blind import DemoReviewSheet
from records.inputs import load_round
from records.io import RecordError, read_record
from records.layout import REPO_ROOT, round_paths
from records.round import Round
from records.rubric import REVIEW_CRITERIA, REVIEW_RANGES
from scoring.bundle import write_bundle
from scoring.codes import load_codes
from scoring.demo_reviews import DEMO_REVIEWS_DIR, PREFIX, demo_sheets, write_demo_reviews
from scoring.packets import build_round_packets
from scoring.pipeline import score_context
from scoring.reviews import read_reviews

KEYS = ("strong-builder", "partial-builder", "idle", "type-breaker", "progress-liar", "signer")


def test_one_zip_per_reviewer_in_a_shuffled_order(tmp_path: Path) -> None:
    ctx = make_round(tmp_path)
    for key in KEYS:
        make_unit(ctx, key, session(key, unit=f"{key}-r1"), result())
    build_round_packets(ctx)
    orders = {}
    for reviewer in ("alice", "bob", "carol"):
        target = write_bundle(ctx, reviewer)
        assert target == ctx.paths.bundles_dir / f"{reviewer}.zip"
        with zipfile.ZipFile(target) as archive:
            names = archive.namelist()
            assert all(i.date_time == (1980, 1, 1, 0, 0, 0) for i in archive.infolist())
            sheet = archive.read(f"{reviewer}/{reviewer}.csv").decode().splitlines()
            page = archive.read(f"{reviewer}/index.html").decode()
        folders = sorted({n.split("/")[1] for n in names if n.count("/") > 1})
        order = [f.split("-", 1)[1] for f in folders]
        assert [line.split(",")[0] for line in sheet[1:]] == order  # the sheet follows the order
        assert all(f"{folder}/index.html" in page for folder in folders)
        assert not any("private" in n or "secret" in n or "codes.json" in n for n in names)
        orders[reviewer] = order
    codes = load_codes(ctx.paths)
    assert codes is not None and sorted(orders["alice"]) == sorted(e.code for e in codes.codes)
    assert len({tuple(o) for o in orders.values()}) > 1  # 1 in 720^2 to be all equal
    again = write_bundle(ctx, "alice").read_bytes()
    assert again == (ctx.paths.bundles_dir / "alice.zip").read_bytes()  # stable per reviewer
    with pytest.raises(ValueError, match="reviewer id"):
        write_bundle(ctx, "../x")


def test_demo_sheets_are_scripted_and_cover_a_third_review() -> None:
    sheets = {p.stem: read_record(p, DemoReviewSheet) for p in sorted(DEMO_REVIEWS_DIR.glob("*"))}
    assert set(sheets) == {"demo-a", "demo-b", "demo-c", "demo-round-1-a", "demo-round-1-b",
                           "demo-intervention-a", "demo-intervention-b", "demo-method-a",
                           "demo-method-b", "demo-starter-a", "demo-starter-b", "demo-tools-a",
                           "demo-tools-b"}  # fmt: skip
    assert all(s.scripted for s in sheets.values())
    assert [p.stem for p in demo_sheets("showcase")] == ["demo-a", "demo-b", "demo-c"]
    assert [p.stem for p in demo_sheets("demo-round-1")] == ["demo-round-1-a", "demo-round-1-b"]
    intervention = ["demo-intervention-a", "demo-intervention-b"]
    assert [p.stem for p in demo_sheets("demo-intervention")] == intervention
    units = [{r.unit: (r.visual, r.code_quality) for r in sheets[k].rows} for k in intervention]
    agents = ("claude-code", "codex", "gemini-cli", "copilot")
    for marks in units:  # the same marks under every agent: any difference is not the reviews'
        assert len(marks) == 4 * 5 and all(
            marks[u] == marks[u.replace("-via-opencode-", f"-via-{agent}-")]
            for u in marks if "-via-opencode-" in u for agent in agents
        )  # fmt: skip
    starter = ["demo-starter-a", "demo-starter-b"]
    assert [p.stem for p in demo_sheets("demo-starter")] == starter
    for key in starter:  # the same marks in both starter arms
        marks = {r.unit: (r.visual, r.code_quality) for r in sheets[key].rows}
        assert len(marks) == 3 * 2 and all(
            marks[u] == marks[u.replace("-via-plain-", "-via-storybook-")]
            for u in marks if "-via-plain-" in u
        )  # fmt: skip
    assert all(s.rounds == ["demo-round-1"] for k, s in sheets.items() if "round-1" in k)
    assert [r.unit for r in sheets["demo-c"].rows] == ["strong-builder-r1"]
    units = {r.unit for r in sheets["demo-round-1-a"].rows}  # every repetition of every advancer
    assert len(units) == 18 and units == {r.unit for r in sheets["demo-round-1-b"].rows}


def test_demo_reviews_become_code_keyed_sheets_and_finish_the_board(tmp_path: Path) -> None:
    ctx = make_round(tmp_path)
    ctx = type(ctx)(round_id="showcase", seed=ctx.seed, cohort=ctx.cohort,
                    paths=round_paths("showcase", tmp_path))  # fmt: skip
    for key in ("strong-builder", "signer", "progress-liar"):
        make_unit(ctx, key, session(key, unit=f"{key}-r1", round_id="showcase"), result())
    with pytest.raises(RecordError, match="build the packets first"):
        write_demo_reviews(Round.load("showcase", tmp_path))
    build_round_packets(ctx)
    written = write_demo_reviews(Round.load("showcase", tmp_path))
    assert [p.name for p in written] == ["demo-a.csv", "demo-b.csv", "demo-c.csv"]
    codes = load_codes(ctx.paths)
    assert codes is not None
    reviews = read_reviews(ctx.paths.reviews_dir, {e.code for e in codes.codes})
    assert reviews and all(r.notes.startswith(PREFIX) for r in reviews)
    board = score_context(ctx)
    assert board.code_map is not None and not board.code_map.sealed  # every row reviewed
    rows = {r.unit: r for r in board.units}
    strong = rows["strong-builder-r1"]
    assert strong.breakdown is not None and strong.breakdown.visual.points == 15  # median of 3
    assert strong.agreement is not None and strong.agreement.visual.third_review
    assert not strong.provisional and strong.agreement.visual.spread == 5
    assert json.loads(ctx.paths.leaderboard.read_text())["code_map"]["unsealed_by"] == (
        "reviews_complete"
    )
    assert load_round("round-0").kind == "real"
    with pytest.raises(RecordError, match="demo-only"):
        write_demo_reviews(Round.load("round-0", tmp_path))


def test_the_written_rubric_is_the_one_in_records() -> None:
    text = (REPO_ROOT / "docs" / "review-rubric.md").read_text()
    for criterion in REVIEW_CRITERIA:
        row = f"| {criterion.title} | {criterion.points:g} | {criterion.looks_for} |"
        assert row in text, row
    for dimension, points in REVIEW_RANGES.items():
        assert sum(c.points for c in REVIEW_CRITERIA if c.dimension == dimension) == points
    assert "Visual craft (0–20)" in text and "Code quality (0–10)" in text


UNSCORED = ("Not testable", "Invalid", "Provider outage", "Harness failure")


def test_demo_sheets_review_every_scored_demo_unit() -> None:
    """A scored demo unit without two scripted reviews keeps the demo provisional and sealed."""
    from scoring_support import demo_cohort

    scored = {f"{c.key}-r1" for c in demo_cohort().candidates if not c.notes.startswith(UNSCORED)}
    for reviewer in ("demo-a", "demo-b"):
        sheet = read_record(DEMO_REVIEWS_DIR / f"{reviewer}.json", DemoReviewSheet)
        missing = scored - {r.unit for r in sheet.rows}
        assert not missing, (reviewer, missing)
