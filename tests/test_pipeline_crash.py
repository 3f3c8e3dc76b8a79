"""Crash safety of the pipeline: kill -9 of `doit` mid-session, then `doit` completes cleanly.

The killed unit is recorded as a harness failure from the evidence it left; no second session of
it runs, and every JSON file in the round's evidence parses. The pipeline runs up to scoring: the
site is derived from the scored evidence alone (the site tests build it from the golden round).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from dodo import PIPELINE
from records.layout import REPO_ROOT, round_paths

pytestmark = [pytest.mark.slow, pytest.mark.opencode, pytest.mark.browser]

ROUND = "demo-smoke"
STAGES = PIPELINE[: PIPELINE.index("score") + 1]


def in_session(units: Path) -> str | None:
    """The unit whose runner is mid-session: its marker is there and its gateway has a request."""
    for marker in units.glob("*/.running"):
        gateway = marker.parent / "gateway.jsonl"
        if gateway.exists() and gateway.read_text().strip():
            return marker.parent.name
    return None


def wait_for(
    process: subprocess.Popen[bytes], observed: Callable[[], str | None], what: str, limit: float
) -> str:
    """Poll until `observed()` names something; fail if `process` ends or `limit` s pass first."""
    deadline = time.monotonic() + limit
    while (found := observed()) is None:
        assert process.poll() is None, f"doit ended first: {what}"
        assert time.monotonic() < deadline, f"{what} within {limit:.0f} s"
        time.sleep(0.2)
    return found


def test_kill_minus_nine_mid_session_then_doit_completes(tmp_path: Path) -> None:
    evidence = tmp_path / "evidence"
    env = dict(os.environ, SITEOS_EVIDENCE_DIR=str(evidence), SITEOS_ROUND=ROUND)
    units = round_paths(ROUND, evidence).units_dir
    first = subprocess.Popen(
        [sys.executable, "-m", "doit", *STAGES],
        cwd=REPO_ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:  # kill mid-session: once a session's first model request is in its gateway log (the
        # stages before it take minutes on a loaded machine: the deadline only catches a hang)
        killed = wait_for(first, lambda: in_session(units), "no session reached the model", 3600)
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        killed_at = time.time()
        first.wait()

    second = subprocess.run(
        [sys.executable, "-m", "doit", *STAGES],
        cwd=REPO_ROOT,
        env=env,
        text=True,
        capture_output=True,
        timeout=3600,
    )
    assert second.returncode == 0, second.stdout[-4000:] + second.stderr[-4000:]

    session = json.loads((units / killed / "session.json").read_text())
    assert session["stop_status"] == "crashed"
    assert session["failure_class"] == "harness"
    assert not [r for r in session["invalid_reasons"] if r.startswith("prompt/starter")]
    assert session["worktree_archive_sha256"]
    started = datetime.fromisoformat(session["started_at"]).timestamp()  # whole seconds
    assert 0 < session["elapsed_seconds"] <= killed_at - started + 1  # not the recovery's writes
    assert not (units / killed / ".running").exists()
    for path in evidence.rglob("*.json"):
        json.loads(path.read_text())  # no half-written record anywhere
    board = json.loads(round_paths(ROUND, evidence).leaderboard.read_text())
    row = next(u for u in board["units"] if u["unit"] == killed)
    assert row["status"] == "harness_failure"
