"""A Playwright action that fails because of the app's own element is the app's failure (the
check fails, a core check's journey with it), not an evaluator failure that would leave the
standing provisional and hand the model a replacement; a fault of the evaluator's own stays one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser_support import run_driver

pytestmark = [pytest.mark.browser]
DRIVER = Path(__file__).with_name("app_caused_browser.py")


def test_app_element_failures_fail_the_check_and_our_own_stay_ours(tmp_path: Path) -> None:
    out = tmp_path / "found.json"
    run_driver(DRIVER, str(out))
    found = json.loads(out.read_text())
    expected_text = {
        "checkbox-unchanged": "did not change its state",
        "two-buttons": "strict mode violation",
        "div-textbox": "Element is not an <input>",
    }
    for case, text in expected_text.items():
        result = found[case]
        assert result["executed"] is True, (case, result)
        assert result["passed"] is False, (case, result)
        assert any(text in seen for seen in result["seen"]), (case, result)
        assert all(result["critical"]), (case, result)
    ours = found["our-own-bug"]
    assert ours["executed"] is False and "IndexError" in ours["seen"][0], ours
