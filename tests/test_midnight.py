"""A check that judges "a date after today" never straddles the page's midnight: it waits the
midnight out when it is nearer than its margin (a correct app once failed the enquiry check when
the evaluation ran across midnight: the date filled as tomorrow had become today), and does not
wait otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser_support import run_driver

pytestmark = [pytest.mark.browser]
DRIVER = Path(__file__).with_name("midnight_browser.py")


def test_the_enquiry_dates_are_filled_clear_of_midnight(tmp_path: Path) -> None:
    out = tmp_path / "midnight.json"
    run_driver(DRIVER, str(out))
    found = json.loads(out.read_text())
    waited, before, after = found["before-midnight"]
    assert (before, after) == ("2026-12-05", "2026-12-06")  # the wait crossed the midnight
    assert 1.5 <= waited <= 3.0
    assert found["noon"] == [0.0, "2026-12-05", "2026-12-05"]
