"""Under scripts/test a skipped test is a failure: its setup has installed everything the suite
needs, so a `skipif` guard that fires means something is missing, not that the test may pass."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import NO_SKIPS_ENV

TESTS = Path(__file__).parent
SAMPLE = """
import pytest

@pytest.mark.skipif(True, reason="the binary is missing")
def test_guarded() -> None: ...

def test_skips_inside() -> None:
    pytest.skip("no namespace")

@pytest.mark.xfail(reason="a known failure", strict=True)
def test_expected_to_fail() -> None:
    assert False

def test_passes() -> None: ...
"""


def _run(folder: Path, no_skips: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != NO_SKIPS_ENV}
    if no_skips is not None:
        env[NO_SKIPS_ENV] = no_skips
    env["PYTHONPATH"] = str(TESTS)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-p", "conftest", "--rootdir", str(folder), "-c", os.devnull, str(folder)],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    return done.stdout.strip().splitlines()[-1]


def test_a_skip_fails_under_scripts_test_and_only_there(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    assert "1 failed, 1 passed, 1 xfailed, 1 error" in _run(tmp_path, "1")
    assert "1 passed, 2 skipped, 1 xfailed" in _run(tmp_path, None)


def test_scripts_test_sets_it_after_its_setup() -> None:
    script = (TESTS.parent / "scripts" / "test").read_text()
    assert script.index('bash "$ROOT/scripts/setup"') < script.index(f"export {NO_SKIPS_ENV}=1")
