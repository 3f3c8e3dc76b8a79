"""The results site, rendered from evidence the real stages produced (see site_fixture.py) and
built with `mkdocs build --strict`: every page, every cited file, nothing a reader should not see.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import shutil
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markupsafe import escape
from PIL import Image
from site_fixture import copy_evidence, real_evidence

from publish.linkcheck import check_site
from publish.media import THUMB_WIDTH
from publish.render import SITE_SRC, render_docs, render_site
from publish.sources import load_round_evidence
from publish.views import fmt_points, leaderboard_rows
from records.evidence.controls import read_controls
from records.evidence.round import RoundRecord
from records.evidence.scoring import Leaderboard
from records.io import RecordError, read_record
from records.layout import REPO_ROOT, controls_json, round_paths
from records.round import Round
from records.rubric import MAX_AUTOMATED
from scoring import score_round

pytestmark = [pytest.mark.slow, pytest.mark.opencode, pytest.mark.browser]
SITE_LIMIT = 25 * 1024 * 1024
# What must never reach a reader in the site's own words (verbatim evidence in <pre>/<code> and
# the evidence viewers is exempt): Python's None/NaN and reprs of lists and dicts; and no table
# cell may be only a placeholder.
LEAKS = re.compile(r"\b(None|NaN)\b|\['|\[\"|\{'|\{\"|\[\]|\{\}")
PLACEHOLDERS = {"null", "None", "NaN", "nan", "undefined"}


@pytest.fixture(scope="module")
def evidence(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    return real_evidence(tmp_path_factory)


@pytest.fixture(scope="module")
def built(evidence: tuple[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    round_id, folder = evidence
    started = time.perf_counter()
    site = render_site(Round.load(round_id, folder), tmp_path_factory.mktemp("site") / "build")
    print(f"render_site: {time.perf_counter() - started:.2f} s")
    return site


@pytest.fixture(scope="module")
def board(evidence: tuple[str, Path]) -> Leaderboard:
    round_id, folder = evidence
    return read_record(round_paths(round_id, folder).leaderboard, Leaderboard)


def text(site: Path, page: str) -> str:
    return (site / page).read_text(encoding="utf-8")


class Visible(HTMLParser):
    """The text a reader sees (or hears): body text plus title, alt and aria-label values."""

    SKIP = {"script", "style", "template", "svg", "pre", "code"}

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skipping = 0
        self.cells: list[tuple[str, str]] = []  # (data-label or tag, text) of table cells
        self._cell: str | None = None
        self._cell_text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.skipping += 1
        found = dict(attrs)
        for name in ("title", "alt", "aria-label"):
            if found.get(name):
                self.parts.append(str(found[name]))
        if tag in ("td", "th") and self._cell is None:
            self._cell, self._cell_text = str(found.get("data-label") or tag), []

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skipping -= 1
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append((self._cell, " ".join("".join(self._cell_text).split())))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)
        if self._cell is not None:
            self._cell_text.append(data)


def visible(html: str) -> Visible:
    parser = Visible()
    parser.feed(html)
    return parser


def site_pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "assets" not in p.parts)


def test_every_page_is_built(built: Path, board: Leaderboard) -> None:
    for page in ("index", "leaderboard", "checks", "cost", "cohort", "calibration",
                 "methodology", "downloads", "units/index", "404"):  # fmt: skip
        assert (built / f"{page}.html").is_file(), page
    for row in board.units:
        assert (built / "units" / f"{row.unit}.html").is_file(), row.unit
        assert (built / "units" / f"{row.unit}-transcript.html").is_file(), row.unit
    assert (built / "search" / "search_index.js").is_file()  # offline search index
    assert (built / "charts" / "score-vs-cost.svg").read_text().startswith("<svg")


def test_no_broken_link_anchor_or_remote_asset(built: Path) -> None:
    assert check_site(built) == []
    for page in site_pages(built):
        html = page.read_text()
        assert not re.search(r'<(script|link|img|video|source)[^>]+(src|href)="(https?:)?//', html)


def test_no_placeholder_or_python_repr_reaches_a_reader(built: Path) -> None:
    leaks = []
    for page in site_pages(built):
        if "evidence" in page.relative_to(built).parts:
            continue  # the viewers show evidence files verbatim
        seen = visible(page.read_text())
        where = page.relative_to(built)
        for match in LEAKS.finditer(" ".join(seen.parts)):
            leaks.append(f"{where}: {match.group(0)!r}")
        for label, cell in seen.cells:
            if cell in PLACEHOLDERS or (not cell and label not in ("td", "th")):
                leaks.append(f"{where}: {label} cell {cell!r}")
    assert leaks == []


def test_every_cited_source_is_a_published_file(built: Path, board: Leaderboard) -> None:
    assert all("sb-cite--missing" not in p.read_text() for p in site_pages(built))
    for row in board.units:
        page = text(built, f"units/{row.unit}.html")
        cited = {s for e in row.explanations for s in e.sources}
        if row.breakdown is not None:
            for dim in row.breakdown.model_dump().values():
                cited |= {s for c in dim["components"] for s in c["sources"]}
        for source in cited:
            if source.startswith("reviews/") and board.standing != "final":
                # reviewer sheets name codes: published once the standing is final
                assert f"{source} (sealed until the standing is final)" in page, (row.unit, source)
                continue
            assert f"<code>{source}</code></a>" in page, (row.unit, source)


def test_evidence_viewers_declare_utf8_and_anchor_lines(built: Path) -> None:
    viewers = sorted((built / "evidence").rglob("*.html"))
    assert viewers
    for viewer in viewers:
        html = viewer.read_text()
        assert html.startswith("<!doctype html>") and '<meta charset="utf-8">' in html, viewer
        assert 'id="L1"' in html
    progress = [v for v in viewers if v.name == "PROGRESS.md.html"]
    assert progress and all((v.parent / "PROGRESS.md.txt").is_file() for v in progress)


def board_rows(html: str) -> dict[str, dict[str, str]]:
    """unit -> {data-label: visible text} of the scored table's rows."""
    table = html.split('id="leaderboard"')[1].split("</table>")[0]
    rows = {}
    for chunk in table.split("<tr data-order=")[1:]:
        unit = re.search(r'href="units/([^"]+)\.html"', chunk)
        assert unit, chunk[:200]
        rows[unit.group(1)] = dict(visible(f"<table><tr {chunk}</table>").cells)
    return rows


def test_leaderboard_is_a_decision_view(
    built: Path, board: Leaderboard, evidence: tuple[str, Path]
) -> None:
    html = text(built, "leaderboard.html")
    rows = board_rows(html)
    assert 'class="sb-sticky"' in html  # the model column stays put while scrolling
    assert "⇅" not in html  # one sort icon per header, drawn by the site's CSS
    assert 'id="one-run"' in html and "cannot separate close models" in html  # one run a model
    standing = html.split('id="standing"')[1].split("</div>")[0]  # before any table
    assert html.index('id="standing"') < html.index('id="leaderboard"') and "<table" not in standing
    assert ("provisional" in standing) == (board.standing != "final")
    # the headline is leaderboard.json's claim, and a one-run board never says more
    claim = board.claim
    assert claim is not None and claim.shape == "one_run"
    assert f"<b>{escape(claim.headline)}</b>" in standing
    assert claim.headline.startswith(
        "Leading this screen: "
        if board.standing == "final"
        else "Leading this screen (provisional)"
    )
    assert not re.search(
        r"\b(winner|champion)\b", standing.lower().replace(claim.caveat.lower(), "")
    )
    if board.review_stability is not None:  # a board with reviews says how sure they are
        assert "how sure the reviews are" in standing and 'id="review-stability"' in html
    frozen = read_record(round_paths(board.round_id, evidence[1]).round_json, RoundRecord)
    hashes = f"prompt {frozen.inputs.prompt_sha256[:8]}, starter"
    assert frozen.task is not None  # round.json names its task (schema 3)
    task = f"“{frozen.task.title}” ({frozen.task.id} {frozen.task.version}; {hashes}"
    assert task in standing and "Atlas Rooms" in task  # the task, by name, version and hashes
    scored = [r for r in board.units if r.status in ("ranked", "gate_failed")]
    assert scored and set(rows) == {r.unit for r in scored}
    for row in board.units:
        assert f'href="units/{row.unit}.html"' in html, row.unit
    waiting, spreads = False, 0
    for row in scored:
        cells = rows[row.unit]
        assert {"Total", "Automated /60", "Review /30", "Cost", "Time", "Status"} <= set(cells)
        assert re.fullmatch(r"\d+:\d\d min", cells["Time"]), cells["Time"]
        assert cells["Cost"] == "unknown" or cells["Cost"].startswith("$")
        unreviewed = row.reviews is None or (
            row.reviews.visual == "no_reviews" and row.reviews.code == "no_reviews"
        )
        if unreviewed:
            assert cells["Review /30"] == "pending", row.unit  # not "0"
        else:
            review = r"[\d.]+( provisional)?( ?spread ([\d.]+|—) / ([\d.]+|—))?"  # + the spread
            assert re.fullmatch(review, cells["Review /30"]), cells
        agreement = row.agreement
        if agreement is not None and agreement.visual.spread is not None:
            shown = [fmt_points(d.spread) if d.spread is not None else "—"
                     for d in (agreement.visual, agreement.code)]  # fmt: skip
            assert cells["Review /30"].endswith(f"spread {shown[0]} / {shown[1]}"), cells
            spreads += 1
        waiting |= row.reviews is None or {row.reviews.visual, row.reviews.code} != {"complete"}
        assert all("gate-capped: " in cells["Status"] and g.id in cells["Status"]
                   for g in row.gates_failed), cells  # fmt: skip
        capped_lower = row.capped and (row.raw_total or 0) > (row.total or 0)
        assert ("capped from" in cells["Total"]) == capped_lower, row.unit
    assert ("out of 70 achievable" in html) == waiting
    assert spreads  # the reviewed unit shows how far its two reviewers lie apart
    assert board.not_testable  # the quick demo has routes the preflight found unfit
    untestable = html.split('id="untestable"')[1].split("</table>")[0]
    for route in board.not_testable:
        assert route.display_name in untestable and route.route in untestable
    orders = [int(o) for o in re.findall(r'<tr data-order="(\d+)"', html.split("</table>")[0])]
    assert orders == sorted(orders)


def test_an_ordinary_round_has_no_agents_page(built: Path) -> None:
    """The agents compared page, its nav entry and the agent column are an intervention round's
    only (tests/test_site_intervention.py)."""
    assert not (built / "agents.html").exists()
    for page in ("index.html", "leaderboard.html", "cohort.html"):
        html = text(built, page)
        assert "agents.html" not in html and 'data-label="Agent"' not in html, page


def test_round_banner_on_every_page(built: Path, evidence: tuple[str, Path]) -> None:
    round_id, folder = evidence
    frozen = json.loads(round_paths(round_id, folder).round_json.read_text())
    for page in site_pages(built):
        if "evidence" in page.relative_to(built).parts:
            continue  # the standalone viewers carry their file, not the site chrome
        html = page.read_text()
        assert 'class="sb-banner"' in html, page
        assert "Demo round" in html and frozen["evaluator_sha256"][:12] in html, page
        assert "OpenCode 1.17.18" in html and "siteos-bench" in html, page


def test_controls_table_shows_expected_and_actual(built: Path, evidence: tuple[str, Path]) -> None:
    rows = read_controls(controls_json(evidence[1]))
    assert rows
    table = text(built, "calibration.html").split('id="controls"')[1].split("</table>")[0]
    cells = " ".join(re.sub(r"<[^>]+>", " ", table).split())
    for row in rows:
        assert row.control in cells and row.description.split()[0] in cells
        assert f"{row.expected_score}/{MAX_AUTOMATED}" in cells
        assert f"{row.actual_score}/{MAX_AUTOMATED}" in cells
        for check in row.expected_failed_checks + row.actual_failed_checks:
            assert check in cells


def test_transcript_shows_every_tool_call(built: Path, evidence: tuple[str, Path]) -> None:
    round_id, folder = evidence
    for unit in round_paths(round_id, folder).units_dir.iterdir():
        events = [json.loads(x) for x in (unit / "events.jsonl").read_text().splitlines() if x]
        tools = [i for i, e in enumerate(events, 1) if e.get("type") == "tool_use"]
        html = text(built, f"units/{unit.name}-transcript.html")
        assert html.count("sb-t--tool") == len(tools), unit.name
        for line in tools:
            assert f'id="L{line}"' in html
        writes = [e for e in events if e.get("type") == "tool_use" and e["part"]["tool"] == "write"]
        assert html.count('<div class="highlight"><pre>') >= len(writes), unit.name  # each folded
        assert '<span class="kd">' in html and '<span class="w">' not in html  # plain spaces
        assert "events.jsonl" in html and "trace.json" in html


def test_check_matrix(built: Path, board: Leaderboard) -> None:
    html = text(built, "checks.html")
    measured = [r for r in board.units if r.breakdown is not None]
    for row in measured:
        links = re.findall(rf'href="units/{re.escape(row.unit)}\.html#check-[\w-]+"', html)
        assert len(links) == 15, row.unit
    assert 'id="check-dialog-focus"' in html  # what each check proves, once


def test_cost_view(built: Path) -> None:
    html = text(built, "cost.html")
    assert '<svg xmlns="http://www.w3.org/2000/svg"' in html  # inline, styled by the theme
    chart = html.split('class="sb-chart-svg"')[1].split("</svg>")[0]
    assert "log scale" in chart and "<title>" in chart  # hover titles on every point
    assert "frontier" in chart
    assert "#fff" not in chart and "<style>" not in chart  # no white slab in dark mode


def test_weight_and_media(built: Path) -> None:
    files = [p for p in built.rglob("*") if p.is_file()]
    assert sum(p.stat().st_size for p in files) <= SITE_LIMIT
    media = [p for p in (built / "media").rglob("*") if p.is_file()]
    digests = [hashlib.sha256(p.read_bytes()).hexdigest() for p in media]
    assert len(digests) == len(set(digests))  # each image once
    thumbs = list((built / "media" / "thumbs").glob("*.webp"))
    assert thumbs and all(Image.open(t).width <= THUMB_WIDTH for t in thumbs)
    assert not (built / "assets" / "javascripts" / "lunr").exists()  # no Thai segmenter
    assert not (built / "sitemap.xml").exists()


def test_404_works_from_file_urls(built: Path) -> None:
    html = text(built, "404.html")
    assert not re.search(r'(href|src)="/(?!/)', html)


def test_downloads(built: Path, board: Leaderboard) -> None:
    rows = list(csv.DictReader((built / "downloads" / "leaderboard.csv").open()))
    assert {r["unit"] for r in rows} == {u.unit for u in board.units}
    assert {(r["round_id"], r["round_kind"]) for r in rows} == {(board.round_id, "demo")}
    assert all(r["evaluator_sha256"] and r["agent"].startswith("OpenCode") for r in rows)
    assert {r["task"] for r in rows} == {"atlas-rooms 1.0"}  # the task and its version
    assert board.claim is not None and {r["headline"] for r in rows} == {board.claim.headline}
    stability = board.review_stability
    ranks = {r.key: f"{r.best_rank}-{r.worst_rank}" for r in (stability.ranks if stability else [])}
    for r in rows:  # each ranked unit's rank with every unit's reviews at either end
        expected = ranks.get(r["candidate_code"] or r["unit"], "") if r["rank"] else ""
        assert r["rank_under_reviews"] == expected, r["unit"]
    data = json.loads((built / "downloads" / "leaderboard.json").read_text())
    assert data["round_id"] == board.round_id and len(data["units"]) == len(board.units)
    assert data["round_kind"] == "demo" and len(data["versions"]["evaluator_sha256"]) == 64
    assert data["versions"]["task"]["id"] == "atlas-rooms"
    assert {r["evaluator_sha256"] for r in rows} == {data["versions"]["evaluator_sha256"]}
    billed = [(r["cost_usd"], r["billed_usd"]) for r in rows if r["cost_usd"]]
    assert billed and all(abs(float(c) - float(b)) < 1e-6 for c, b in billed)  # reconciled


def digest(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*")) if p.is_file()
    }  # fmt: skip


def test_output_is_deterministic(built: Path, evidence: tuple[str, Path], tmp_path: Path) -> None:
    again = render_site(Round.load(evidence[0], evidence[1]), tmp_path / "build")
    assert digest(again) == digest(built)


def test_absent_optional_files_are_tolerated(evidence: tuple[str, Path], tmp_path: Path) -> None:
    round_id, source = evidence
    folder = copy_evidence(source, tmp_path / "evidence")
    paths = round_paths(round_id, folder)
    board = read_record(paths.leaderboard, Leaderboard)
    paths.leaderboard.unlink()
    controls_json(folder).unlink()
    unscored = {
        r.unit: r.status
        for r in leaderboard_rows(load_round_evidence(Round.load(round_id, folder)))
    }
    assert unscored == {r.unit: r.status for r in board.units}  # scoring's statuses, not the site's
    for video in paths.units_dir.glob("*/evaluation/*.webm"):
        video.unlink()
        result = json.loads((video.parent / "result.json").read_text())
        result["video"] = None
        (video.parent / "result.json").write_text(json.dumps(result))
    site = render_site(Round.load(round_id, folder), tmp_path / "build")
    assert "Scoring has not run yet" in text(site, "leaderboard.html")
    assert "No controls evidence" in text(site, "calibration.html")
    unit = evaluated(paths.units_dir)[0].name
    page = text(site, f"units/{unit}.html")  # no leaderboard: no code map unsealed, no media
    assert "not shown while the round's reviews are sealed" in page and "<video" not in page


def evaluated(units: Path) -> list[Path]:
    """Units whose evaluation listed screenshots."""
    return [
        u
        for u in sorted(units.iterdir())
        if (u / "evaluation" / "result.json").is_file()
        and json.loads((u / "evaluation" / "result.json").read_text())["screenshots"]
    ]


@pytest.mark.parametrize(
    ("relative", "content", "needle"),
    [
        ("calibration.json", '{"automated_score": 26}', "field passed"),
        ("../controls.json", '[{"control": "reference"}]', "field controls.0.expected_score"),
    ],
)
def test_malformed_file_is_named(
    evidence: tuple[str, Path], tmp_path: Path, relative: str, content: str, needle: str
) -> None:
    round_id, source = evidence
    folder = copy_evidence(source, tmp_path / "evidence")
    paths = round_paths(round_id, folder)
    unit = evaluated(paths.units_dir)[0].name
    target = Path(os.path.normpath(paths.root / relative.replace("UNIT", f"units/{unit}")))
    target.write_text(content)
    with pytest.raises(RecordError) as caught:
        render_site(Round.load(round_id, folder), tmp_path / "build")
    assert str(target) in str(caught.value) and needle in str(caught.value)
    assert not (tmp_path / "build" / "site").exists()  # nothing half-built is left as the site


@pytest.mark.parametrize(
    ("relative", "content"),
    [("UNIT/session.json", "{not json"), ("UNIT/evaluation/result.json", '{"automated_score": 3}')],
)
def test_a_unit_with_an_unreadable_file_stays_on_the_site(
    evidence: tuple[str, Path], tmp_path: Path, relative: str, content: str
) -> None:
    """Nothing vanishes (issue 29): a unit's unreadable session or result is read as absent and
    the unit keeps its page (the leaderboard row names the file: tests/test_site_statuses.py).
    The pages' sources are enough: MkDocs turns each into its page (`test_every_page_is_built`)."""
    round_id, source = evidence
    folder = copy_evidence(source, tmp_path / "evidence")
    paths = round_paths(round_id, folder)
    unit = evaluated(paths.units_dir)[0].name
    (paths.root / relative.replace("UNIT", f"units/{unit}")).write_text(content)
    docs = tmp_path / "docs"
    docs.mkdir()
    render_docs(load_round_evidence(Round.load(round_id, folder)), docs)
    assert (docs / "units" / f"{unit}.md").is_file()


def test_listed_but_missing_media_is_left_out_and_the_board_names_it(
    evidence: tuple[str, Path], tmp_path: Path
) -> None:
    """Screenshots result.json lists, deleted: the round is scored again and the site renders
    (one unit's lost files never stop the board); the unit is listed as evidence missing with
    the files named (tests/test_evidence_integrity.py), its page built from what is left."""
    round_id, source = evidence
    folder = copy_evidence(source, tmp_path / "evidence")
    unit = evaluated(round_paths(round_id, folder).units_dir)[0]
    shutil.rmtree(unit / "evaluation" / "screenshots")
    rnd = Round.load(round_id, folder)
    board = score_round(rnd)
    row = next(r for r in board.units if r.unit == unit.name)
    assert row.status == "invalid" and row.evidence_missing
    assert all(
        f.startswith(f"units/{unit.name}/evaluation/screenshots/") for f in row.evidence_missing
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    render_docs(load_round_evidence(rnd), docs)
    page = (docs / "units" / f"{unit.name}.md").read_text()
    assert "evidence missing" in page and "screenshots/" in page


def test_methodology_names_computing_files() -> None:
    page = (SITE_SRC / "docs" / "methodology.md").read_text()
    paths = sorted(
        set(
            re.findall(
                r"`((?:evaluator|harness|records|publish|sandbox|scoring|scripts|benchmark"
                r"|docs)/[\w./-]*)`",
                page,
            )
        )
    )
    assert len(paths) > 20
    missing = [p for p in paths if not (REPO_ROOT / p).exists()]
    assert not missing, f"named in methodology.md but not in the repository: {', '.join(missing)}"
