"""The results site renders from a fixture evidence tree and builds with `mkdocs build --strict`."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest
from site_fixture import ROUND, UNITS, build_evidence

from publish.linkcheck import check_site
from publish.render import SITE_SRC, render_site
from records.io import RecordError
from records.layout import REPO_ROOT, round_paths

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("site")
    evidence = build_evidence(root / "evidence")
    started = time.perf_counter()
    site = render_site(ROUND, evidence, root / "build")
    print(f"render_site: {time.perf_counter() - started:.2f} s")
    return site


def text(site: Path, page: str) -> str:
    return (site / page).read_text(encoding="utf-8")


def test_every_page_is_built(built: Path) -> None:
    for page in ("index", "leaderboard", "cost", "cohort", "calibration", "methodology",
                 "downloads", "units/index"):  # fmt: skip
        assert (built / f"{page}.html").is_file(), page
    for key in UNITS:
        assert (built / "units" / f"{key}-r1.html").is_file(), key
    assert (built / "search" / "search_index.js").is_file()  # offline search index
    assert (built / "charts" / "score-vs-cost.svg").read_text().startswith("<svg")
    assert check_site(built) == []


def test_media_referenced_by_raw_html_exists(built: Path) -> None:
    page = built / "units" / "claude-opus-r1.html"
    html = page.read_text()
    videos = re.findall(r'<video[^>]*src="([^"]+)"', html)
    assert videos == ["../media/claude-opus-r1/video.webm"]
    assert (page.parent / videos[0]).resolve().stat().st_size > 1000
    shots = re.findall(r'<img[^>]*src="([^"]+\.png)"', html)
    assert len(shots) == 6
    assert all(w in html for w in ("360 px", "768 px", "1440 px"))
    assert all((page.parent / s).resolve().is_file() for s in shots)


def test_no_network_assets(built: Path) -> None:
    for page in built.rglob("*.html"):
        html = page.read_text()
        assert not re.search(
            r'<(script|link|img|video|source)[^>]+(src|href)="(https?:)?//', html
        ), page
    assert "unpkg.com" not in "".join(p.read_text() for p in built.rglob("*.html"))


def test_every_rule_path_is_visible(built: Path) -> None:
    board = text(built, "leaderboard.html")
    badges = ("advances", "gate-capped", "provisional", "stopped at the step ceiling", "invalid",
              "provider outage", "Advancement line", "Listed apart")  # fmt: skip
    for badge in badges:
        assert badge in board, badge
    cohort = text(built, "cohort.html")
    assert cohort.count("not testable") >= 6 and "adapter unstable" in cohort
    assert "Disclosed substitution" in cohort and "Muse Spark 1.1" in cohort
    calibration = text(built, "calibration.html")
    assert "Calibration passed" in calibration and "26/60" in calibration
    assert "16 of 16 controls match" in calibration
    assert "null" not in calibration.split('id="controls"')[1].split("</table>")[0]
    assert "breaks url-state" in calibration and "55/60" in calibration
    unit = text(built, "units/kimi-r1.html")
    for fact in ("exit 2", "exit 0", "Identity record", "step_ceiling", "129,000", "$2.20"):
        assert fact in unit, fact


def test_agent_text_is_escaped(built: Path) -> None:
    unit = text(built, "units/claude-opus-r1.html")
    assert "echo '&lt;script&gt;'" in unit or "echo &#39;&lt;script&gt;&#39;" in unit
    timeline = unit.split('<ol class="sb-timeline">')[1].split("</ol>")[0]
    assert "<script>" not in timeline and "<b>" not in timeline
    assert "| table | *stars* &lt;b&gt;" in timeline  # no Markdown applied to agent output


def test_downloads(built: Path) -> None:
    rows = list(csv.DictReader((built / "downloads" / "leaderboard.csv").open()))
    assert {r["unit"] for r in rows} == {f"{k}-r1" for k in UNITS}
    ranked = [r for r in rows if r["rank"]]
    assert [r["rank"] for r in ranked] == ["1", "2", "3", "4", "5"]
    data = json.loads((built / "downloads" / "leaderboard.json").read_text())
    assert data["round_id"] == ROUND and len(data["units"]) == len(UNITS)


def digest(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*")) if p.is_file()
    }  # fmt: skip


def test_output_is_deterministic(built: Path, tmp_path: Path) -> None:
    again = render_site(ROUND, built.parent.parent / "evidence", tmp_path / "build")
    assert digest(again) == digest(built)


def test_absent_optional_files_are_tolerated(tmp_path: Path) -> None:
    evidence = build_evidence(tmp_path / "evidence", video=False, leaderboard=False)
    (evidence / "controls.json").unlink()
    site = render_site(ROUND, evidence, tmp_path / "build")
    assert "Scoring has not run yet" in text(site, "leaderboard.html")
    assert "No interaction video" in text(site, "units/claude-opus-r1.html")
    assert "No controls evidence" in text(site, "calibration.html")


@pytest.mark.parametrize(
    ("relative", "content", "needle"),
    [
        ("units/grok-r1/session.json", "{not json", "not valid JSON"),
        ("units/grok-r1/evaluation/result.json", '{"automated_score": 3}', "field checks"),
        ("calibration.json", '{"automated_score": 26}', "field passed"),
        ("../controls.json", '[{"control": "reference"}]', "field 0.expected_score"),
    ],
)
def test_malformed_file_is_named(tmp_path: Path, relative: str, content: str, needle: str) -> None:
    evidence = build_evidence(tmp_path / "evidence", leaderboard=False)
    target = Path(os.path.normpath(round_paths(ROUND, evidence).root / relative))
    target.write_text(content)
    with pytest.raises(RecordError) as caught:
        render_site(ROUND, evidence, tmp_path / "build")
    assert str(target) in str(caught.value) and needle in str(caught.value)
    assert not (tmp_path / "build" / "site").exists()  # nothing half-built is left as the site


def test_listed_but_missing_media_is_an_error(tmp_path: Path) -> None:
    evidence = build_evidence(tmp_path / "evidence", leaderboard=False)
    unit = round_paths(ROUND, evidence).unit("grok-r1")
    shutil.rmtree(unit.evaluation / "screenshots")
    with pytest.raises(RecordError, match="does not exist"):
        render_site(ROUND, evidence, tmp_path / "build")


def test_methodology_names_computing_files() -> None:
    page = (SITE_SRC / "docs" / "methodology.md").read_text()
    paths = sorted(
        set(
            re.findall(
                r"`((?:evaluator|harness|records|publish|sandbox|scoring|scripts|benchmark"
                r"|app-starter|docs)/[\w./-]*)`",
                page,
            )
        )
    )
    assert len(paths) > 20
    missing = [p for p in paths if not (REPO_ROOT / p).exists()]
    assert not missing, f"named in methodology.md but not in the repository: {', '.join(missing)}"
