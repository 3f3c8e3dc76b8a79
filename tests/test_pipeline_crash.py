"""Crash safety of the pipeline: kill -9 of `doit` mid-session, then `doit` completes cleanly.

The round is a copy of the golden round with its last two units not yet run (their folders
taken away: the state of a round whose sessions are under way), so doit starts at the first of
them. It is killed once that session's first model request is in its gateway log; the second
`doit` records the killed unit as a harness failure from the evidence it left, runs no second
session of it, runs the unit after it, and scores the round. Every JSON file in the round's
evidence parses. The pipeline runs up to scoring: the site is derived from the scored evidence
alone (the site tests build it from the golden round).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest
from demo_build import DemoBuild, stages_through_scoring

from records.evidence.round import OrderRecord
from records.evidence.session import SessionRecord
from records.io import read_record
from records.layout import REPO_ROOT, round_paths

pytestmark = [pytest.mark.slow, pytest.mark.opencode, pytest.mark.browser]

ROUND = "demo"
STAGES = stages_through_scoring()


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


def test_kill_minus_nine_mid_session_then_doit_completes(
    tmp_path: Path, demo_round: DemoBuild
) -> None:
    evidence = tmp_path / "evidence"
    shutil.copytree(demo_round.pristine, evidence)
    paths = round_paths(ROUND, evidence)
    first_of_them, last = read_record(paths.order, OrderRecord).order[-2:]
    for unit in (first_of_them, last):
        shutil.rmtree(paths.unit(unit).root)
    env = dict(os.environ, SITEOS_EVIDENCE_DIR=str(evidence), SITEOS_ROUND=ROUND)
    first = subprocess.Popen(
        [sys.executable, "-m", "doit", *STAGES],
        cwd=REPO_ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:  # kill mid-session, once its first model request is in its gateway log (the deadline
        # only catches a hang on a loaded machine)
        killed = wait_for(first, lambda: in_session(paths.units_dir), "no session began", 1800)
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        killed_at = time.time()
        first.wait()
    assert killed == first_of_them
    requests = len(paths.unit(killed).gateway.read_text().splitlines())

    second = subprocess.run(
        [sys.executable, "-m", "doit", *STAGES],
        cwd=REPO_ROOT,
        env=env,
        text=True,
        capture_output=True,
        timeout=1800,
    )
    assert second.returncode == 0, second.stdout[-4000:] + second.stderr[-4000:]

    session = read_record(paths.unit(killed).session, SessionRecord)
    assert (session.stop_status, session.failure_class) == ("crashed", "harness")
    assert not [r for r in session.invalid_reasons if r.startswith("prompt/starter")]
    assert session.worktree_archive_sha256
    started = datetime.fromisoformat(session.started_at).timestamp()  # whole seconds
    assert 0 < session.elapsed_seconds <= killed_at - started + 1  # not the recovery's writes
    assert not paths.unit(killed).running_marker.exists()
    assert len(paths.unit(killed).gateway.read_text().splitlines()) == requests  # no second run
    assert read_record(paths.unit(last).session, SessionRecord).stop_status == "completed"
    for path in evidence.rglob("*.json"):
        json.loads(path.read_text())  # no half-written record anywhere
    board = json.loads(paths.leaderboard.read_text())
    statuses = {row["unit"]: row["status"] for row in board["units"]}
    assert statuses[killed] == "harness_failure"
    assert statuses[last] != "harness_failure"
