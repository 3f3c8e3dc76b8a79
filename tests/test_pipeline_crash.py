"""Crash safety of the pipeline: kill -9 of `doit` mid-session, then `doit` completes cleanly.

The killed unit is recorded as a harness failure from the evidence it left; no second session of
it runs, and every JSON file in the round's evidence parses.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dodo import PIPELINE
from records.layout import REPO_ROOT, round_paths

pytestmark = [pytest.mark.slow, pytest.mark.opencode, pytest.mark.browser]

ROUND = "demo-smoke"


def test_kill_minus_nine_mid_session_then_doit_completes(tmp_path: Path) -> None:
    evidence = tmp_path / "evidence"
    env = dict(os.environ, SITEOS_EVIDENCE_DIR=str(evidence), SITEOS_ROUND=ROUND)
    units = round_paths(ROUND, evidence).units_dir
    first = subprocess.Popen(
        [sys.executable, "-m", "doit", *PIPELINE],
        cwd=REPO_ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 600
        while not list(units.glob("*/.running")):
            assert first.poll() is None, "doit ended before any session started"
            assert time.monotonic() < deadline, "no session started within 10 minutes"
            time.sleep(0.2)
        time.sleep(2.0)
        killed = next(units.glob("*/.running")).parent.name
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()

    second = subprocess.run(
        [sys.executable, "-m", "doit", *PIPELINE],
        cwd=REPO_ROOT,
        env=env,
        text=True,
        capture_output=True,
        timeout=1800,
    )
    assert second.returncode == 0, second.stdout[-4000:] + second.stderr[-4000:]

    session = json.loads((units / killed / "session.json").read_text())
    assert session["stop_status"] == "crashed"
    assert session["failure_class"] == "harness"
    assert not (units / killed / ".running").exists()
    for path in evidence.rglob("*.json"):
        json.loads(path.read_text())  # no half-written record anywhere
    board = json.loads(round_paths(ROUND, evidence).leaderboard.read_text())
    row = next(u for u in board["units"] if u["unit"] == killed)
    assert row["status"] == "harness_failure"
