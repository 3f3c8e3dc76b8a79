"""What the tests that drive Chromium themselves need before they start it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from records.layout import REPO_ROOT
from records.tools import CHROMIUM
from sandbox.netns import loopback_netns_argv, netns_available


def require_browser() -> None:
    """Fail (never skip) unless the evaluator's Chromium and a loopback-only namespace exist."""
    if not CHROMIUM.exists() or not netns_available():
        pytest.fail(f"needs {CHROMIUM} and a loopback-only network namespace (scripts/setup)")


def run_driver(driver: Path, *args: str) -> None:
    """Run a test's browser driver script in a loopback-only namespace; fail with its stderr."""
    require_browser()
    proc = subprocess.run(
        loopback_netns_argv([sys.executable, str(driver), *args]),
        capture_output=True, text=True, timeout=120, cwd=REPO_ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
