"""The built site works from file:// in Chromium with no network: search, sorting, lightbox, video.

The browser runs in a child process inside a loopback-only network namespace, launched with the
project's flags, and aborts every request that is not a file:// URL.
"""

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
DRIVER = Path(__file__).with_name("site_browser.py")


@pytest.fixture(scope="module")
def observed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    require_browser()
    _, _, site = shared_site(tmp_path_factory)
    root = tmp_path_factory.mktemp("browse")
    out = root / "observed.json"
    proc = subprocess.run(
        loopback_netns_argv([sys.executable, str(DRIVER), str(site), str(out)]),
        capture_output=True, text=True, timeout=180, cwd=Path(__file__).parent.parent,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    data: dict[str, Any] = json.loads(out.read_text())
    return data


def test_nothing_leaves_the_machine_and_nothing_is_missing(observed: dict[str, Any]) -> None:
    assert observed["blocked"] == []
    # Chromium aborts a favicon load when the test navigates on; a missing file would fail with
    # ERR_FILE_NOT_FOUND instead.
    assert [f for f in observed["failed"] if "ERR_ABORTED" not in f] == []
    assert observed["console_errors"] == []
    assert observed["page_errors"] == []


def test_search_works_offline(observed: dict[str, Any]) -> None:
    assert observed["search_results"] > 0
    # A check's id finds the page that says what the check proves first.
    assert "checks.html" in (observed["search_first_dialog_focus"] or "")


def money(texts: list[str]) -> list[float | None]:
    return [None if t == "unknown" else float(t.strip("$").replace(",", "")) for t in texts]


def test_leaderboard_sorts_on_header_click(observed: dict[str, Any]) -> None:
    assert observed["aria_sort_after_click"] == "ascending"  # cheapest first
    first = money(observed["costs_after_click"])
    known = [c for c in first if c is not None]
    assert known == sorted(known) and first[: len(known)] == known  # unknown cost last
    second = money(observed["costs_after_second_click"])
    known = [c for c in second if c is not None]
    assert known == sorted(known, reverse=True) and second[: len(known)] == known
    assert observed["resorted_class"] is True
    assert observed["aria_sort_total"] == "descending"  # best total first on the first press
    totals = [float(t.split()[0]) for t in observed["totals_after_click"] if t[0].isdigit()]
    assert totals == sorted(totals, reverse=True)
    assert observed["sort_icon"] in ('"↕"', '"↑"', '"↓"')  # one icon, no stacked glyphs
    assert observed["th_mask"] in ("none", "normal")


def test_transcript_renders(observed: dict[str, Any]) -> None:
    assert observed["transcript_entries"] > 0


def test_lightbox_opens(observed: dict[str, Any]) -> None:
    assert observed["lightbox_links"] >= 6
    assert observed["lightbox_open"] is True
    assert observed["thumbnails"] and all(t.endswith(".webp") for t in observed["thumbnails"])


def test_video_is_playable(observed: dict[str, Any]) -> None:
    assert observed["video_count"] == 1
    assert observed["video_src"].startswith("file://") and observed["video_src"].endswith(".webm")
    assert observed["video_state"]["error"] is None
    assert observed["video_state"]["readyState"] > 0
    poster = observed["video_poster"]  # a still of the video before it plays
    assert poster["src"].endswith(".webp") and poster["width"] == 800, poster
