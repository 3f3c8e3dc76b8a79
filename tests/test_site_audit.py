"""The site meets the bar it sets for models: the evaluator's own no-overflow measurement and axe
run (its code, imported by tests/site_audit.py, not a copy) on every page type of the built site
at 360, 768 and 1440 px, in the light and the dark scheme, served over HTTP on loopback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from browser_support import require_browser
from site_fixture import shared_site

from sandbox.netns import loopback_netns_argv

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.opencode]
DRIVER = Path(__file__).with_name("site_audit.py")


@pytest.fixture(scope="module")
def visits(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    require_browser()
    _, _, site = shared_site(tmp_path_factory)  # with a repeated round: rounds and model pages
    out = tmp_path_factory.mktemp("audit") / "audit.json"
    proc = subprocess.run(
        loopback_netns_argv([sys.executable, str(DRIVER), str(site), str(out)]),
        capture_output=True, text=True, timeout=1800, cwd=Path(__file__).parent.parent,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    data: list[dict[str, Any]] = json.loads(out.read_text())
    return data


def pages(visits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [v for v in visits if "page" in v]


def test_every_page_type_was_judged(visits: list[dict[str, Any]]) -> None:
    kinds = {v["page"] for v in pages(visits)}
    assert {"leaderboard", "checks", "cost", "cohort", "calibration", "transcript",
            "evidence viewer", "not found", "index", "methodology", "rounds", "models/index",
            "model"} <= kinds  # fmt: skip
    # a unit page of each status the golden round shows (tests/site_audit.py, `unit_statuses`)
    assert {"unit: ranked", "unit: gate_failed", "unit: invalid"} <= kinds
    combos = {(v["width"], v["scheme"]) for v in pages(visits)}
    assert combos == {(w, s) for w in (360, 768, 1440) for s in ("default", "slate")}


def test_no_horizontal_overflow(visits: list[dict[str, Any]]) -> None:
    wide = [(v["page"], v["width"], v["scheme"], v["overflow_px"]) for v in pages(visits)
            if v["overflow_px"] > 0]  # fmt: skip
    assert wide == []


def test_the_longest_transcript_stays_short(visits: list[dict[str, Any]]) -> None:
    """The biggest transcript page, every file write folded: under 8,000 px at 1440 px."""
    heights = [v["height_px"] for v in pages(visits) if v["page"] == "transcript"
               and v["width"] == 1440]  # fmt: skip
    assert heights and max(heights) < 8000, heights


def test_no_serious_or_critical_axe_violation(visits: list[dict[str, Any]]) -> None:
    found = [(v["page"], v["width"], v["scheme"], x["id"], x["targets"][:2])
             for v in pages(visits) for x in v["serious"]]  # fmt: skip
    assert found == []


def test_no_text_is_cut_inside_a_table_cell(visits: list[dict[str, Any]]) -> None:
    cut = [(v["page"], v["width"], v["scheme"], v["cut_text"]) for v in pages(visits)
           if v["cut_text"]]  # fmt: skip
    assert cut == []


def test_a_phone_sees_a_result_row_on_its_first_screen(visits: list[dict[str, Any]]) -> None:
    (screen,) = [v["first_screen"] for v in visits if "first_screen" in v]
    assert screen["row_top_px"] is not None and screen["row_top_px"] < screen["height"], screen


def test_nothing_left_loopback(visits: list[dict[str, Any]]) -> None:
    assert all(v["blocked"] == [] for v in visits if "blocked" in v)
