"""The built site works from file:// in Chromium with no network: search, sorting, lightbox, video.

The browser runs in a child process inside a loopback-only network namespace, launched with the
project's flags, and aborts every request that is not a file:// URL.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from site_fixture import ROUND, build_evidence

from publish.render import render_site
from sandbox.netns import loopback_netns_argv, netns_available

pytestmark = [pytest.mark.browser, pytest.mark.slow]
DRIVER = Path(__file__).with_name("site_browser.py")


@pytest.fixture(scope="module")
def observed(tmp_path_factory: pytest.TempPathFactory) -> dict:  # type: ignore[type-arg]
    if not Path("/usr/bin/chromium").exists() or not netns_available():
        pytest.skip("needs /usr/bin/chromium and a loopback-only network namespace")
    root = tmp_path_factory.mktemp("browse")
    site = render_site(ROUND, build_evidence(root / "evidence"), root / "build")
    out = root / "observed.json"
    proc = subprocess.run(
        loopback_netns_argv([sys.executable, str(DRIVER), str(site), str(out)]),
        capture_output=True, text=True, timeout=180, cwd=Path(__file__).parent.parent,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    data: dict = json.loads(out.read_text())  # type: ignore[type-arg]
    return data


def test_nothing_leaves_the_machine_and_nothing_is_missing(observed: dict) -> None:  # type: ignore[type-arg]
    assert observed["blocked"] == []
    # Chromium aborts a favicon load when the test navigates on; a missing file would fail with
    # ERR_FILE_NOT_FOUND instead.
    assert [f for f in observed["failed"] if "ERR_ABORTED" not in f] == []
    assert observed["console_errors"] == []
    assert observed["page_errors"] == []


def test_search_works_offline(observed: dict) -> None:  # type: ignore[type-arg]
    assert observed["search_results"] > 0


def test_leaderboard_sorts_on_header_click(observed: dict) -> None:  # type: ignore[type-arg]
    assert observed["order_after_click"] != observed["order_initial"]
    assert observed["aria_sort_after_click"] in ("ascending", "descending")
    costs = [float(c.strip("$").replace(",", "")) for c in observed["costs_after_second_click"]]
    assert costs in (sorted(costs), sorted(costs, reverse=True))
    assert observed["resorted_class"] is True


def test_lightbox_opens(observed: dict) -> None:  # type: ignore[type-arg]
    assert observed["lightbox_links"] == 6
    assert observed["lightbox_open"] is True


def test_video_is_playable(observed: dict) -> None:  # type: ignore[type-arg]
    assert observed["video_count"] == 1
    assert observed["video_src"].startswith("file://") and observed["video_src"].endswith(".webm")
    assert observed["video_state"]["error"] is None
    assert observed["video_state"]["readyState"] > 0
