"""What the tests that drive Chromium themselves need before they start it."""

from __future__ import annotations

import pytest

from records.tools import CHROMIUM
from sandbox.netns import netns_available


def require_browser() -> None:
    """Fail (never skip) unless the evaluator's Chromium and a loopback-only namespace exist."""
    if not CHROMIUM.exists() or not netns_available():
        pytest.fail(f"needs {CHROMIUM} and a loopback-only network namespace (scripts/setup)")
