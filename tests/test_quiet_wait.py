"""The evaluator's "nothing else happens" wait ends on a quiet page, not after a fixed sleep: it
returns early on a still page, starts again when a history push lands inside its window, never
calls a page that keeps changing quiet, and survives a navigation during the wait."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser_support import run_driver

pytestmark = [pytest.mark.browser]
DRIVER = Path(__file__).with_name("quiet_wait_browser.py")
MAX_S = 1.0  # the driver's cap (MAX_MS)
CASES = ("still", "restless", "late-push", "navigates")


def test_quiet_wait_ends_on_evidence(tmp_path: Path) -> None:
    out = tmp_path / "quiet.json"
    run_driver(DRIVER, str(out))
    found = json.loads(out.read_text())
    still, restless, late, navigates = (found[k] for k in CASES)
    assert still[0] and still[1] < MAX_S  # quiet, and well before the cap
    assert not restless[0] and restless[1] >= MAX_S  # never quiet: the cap ends it
    assert late[0] and late[2] == 2  # the push inside the window restarted it: it was seen
    assert not navigates[0] and navigates[1] >= MAX_S * 0.9  # no exception; the rest waited out
