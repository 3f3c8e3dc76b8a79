"""A correct app on a slow machine keeps its verdict: the dialog-focus check waits for focus to
move into the dialog, for the dialog to close and for focus to return until it sees them, within
a ceiling (`evaluator.checks._waits.REACTION_MS`) far above what load makes of a reaction. With
the former 1-1.5 s ceilings a reaction 3.5 s late was reported as the app's failure (the
close and the focus return), even with the stretch polling gives a ceiling on a busy machine. An
action (`ACTION_MS`) waits as long for a click the page takes seconds to handle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser_support import run_driver

from evaluator.checks._waits import LOOKUP_MS, REACTION_MS

pytestmark = [pytest.mark.browser]
DRIVER = Path(__file__).with_name("slow_app_browser.py")


def _diagnostics(tmp_path: Path, delay_ms: int, block_ms: int = 0) -> list[list[str]]:
    out = tmp_path / "diagnostics.json"
    run_driver(DRIVER, str(out), str(delay_ms), str(block_ms))
    found: list[list[str]] = json.loads(out.read_text())
    return found


def test_reactions_late_by_load_still_pass(tmp_path: Path) -> None:
    assert _diagnostics(tmp_path, 3500) == []


def test_a_reaction_that_never_comes_in_time_still_fails(tmp_path: Path) -> None:
    found = _diagnostics(tmp_path, 20 * REACTION_MS)  # polling stretches the ceiling under load
    assert [e for e, _ in found][:1] == ["opening the dialog moves focus into it"], found


def test_a_click_the_loaded_page_takes_seconds_to_handle_still_passes(tmp_path: Path) -> None:
    # Playwright's page default (LOOKUP_MS) once bounded every action: a correct app's click that
    # held the main thread longer (3.6 s measured under load) was judged "timed out".
    assert _diagnostics(tmp_path, 0, LOOKUP_MS + 2000) == []
