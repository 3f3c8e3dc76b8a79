"""Parallel sessions: N = 4 real OpenCode sessions on the simulator, started in frozen order."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from session_support import demo_round

from harness.parallel import (
    ParallelRefused,
    Schedule,
    require_started_before,
    run_parallel,
    run_round,
)
from harness.parallel import scheduled as scheduled_units
from harness.session.sandbox import bwrap_available
from harness.unit import run_unit
from records.evidence.gateway import ExchangeRecord
from records.evidence.round import OrderRecord
from records.evidence.session import RunningMarker, SessionRecord
from records.io import read_record, write_record
from records.layout import round_paths
from records.round import Round
from records.tools import OPENCODE

pytestmark = [
    pytest.mark.opencode,
    pytest.mark.slow,
    pytest.mark.skipif(not OPENCODE.exists(), reason="OpenCode missing: run scripts/setup"),
    pytest.mark.skipif(not bwrap_available(), reason="bubblewrap missing: run scripts/setup"),
]
UNITS = [f"idle-r{r}" for r in range(1, 7)]
KILLED = "idle-r2"


@pytest.fixture(scope="module")
def evidence(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with demo_round(tmp_path_factory) as ev:
        write_record(
            round_paths("showcase", ev).order,
            OrderRecord(round_id="showcase", seed=1, drawn_at="t", qualified=["idle"],
                        not_testable=[], order=UNITS),
        )  # fmt: skip
        yield ev


def test_a_unit_refuses_to_start_before_an_earlier_one(evidence: Path, tmp_path: Path) -> None:
    paths = round_paths("showcase", tmp_path)
    with pytest.raises(ParallelRefused, match="after 'idle-r1'"):
        require_started_before(paths, UNITS, "idle-r2")
    require_started_before(paths, UNITS, "idle-r1")
    with pytest.raises(ParallelRefused, match="as its round file says"):
        run_round(Round.load("round-0", tmp_path), 4)


def test_four_at_once_in_frozen_order_each_isolated_and_a_kill_spares_the_others(
    evidence: Path,
) -> None:
    paths = round_paths("showcase", evidence)
    schedule: list[Schedule] = []
    runner = threading.Thread(
        target=lambda: schedule.append(
            run_parallel(
                Round.load("showcase", evidence),
                scheduled_units(Round.load("showcase", evidence)),
                4,
                log=False,
            )
        )
    )
    runner.start()
    marker = paths.unit(KILLED).running_marker
    deadline = time.monotonic() + 300
    while not (marker.exists() and read_record(marker, RunningMarker).agent_pgid):
        assert runner.is_alive() and time.monotonic() < deadline, f"{KILLED} never started"
        time.sleep(0.1)
    # kill that unit's runner process group mid-session (agent included), as a crash would
    pgid = os.getpgid(read_record(marker, RunningMarker).runner_pid)
    os.killpg(pgid, signal.SIGKILL)
    agent = read_record(marker, RunningMarker).agent_pgid
    if agent:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(agent, signal.SIGKILL)
    runner.join(timeout=900)
    assert not runner.is_alive()
    (done,) = schedule
    assert done.start_order == UNITS  # unit k+1 never started before unit k
    assert done.most_at_once == 4
    launched = {x.unit: x for x in done.launches}
    assert launched[KILLED].returncode == -signal.SIGKILL
    others = [u for u in UNITS if u != KILLED]
    records = {u: read_record(paths.unit(u).session, SessionRecord) for u in others}
    for unit, record in records.items():
        assert launched[unit].returncode == 0, unit
        assert record.failure_class == "none" and record.stop_status == "completed", unit
        files = paths.unit(unit)
        for required in files.required_evidence:
            assert required.exists(), f"{unit}: {required.name} missing"
        # its own budget: the proxy's log holds only its own requests, metered from zero
        lines = files.gateway.read_text().splitlines()
        assert lines and all(ExchangeRecord.model_validate_json(x) for x in lines)
        assert record.gateway.steps == record.steps
        # its slot of the round's shape (the demo round's: unpinned, shared CPUs) and its machine
        assert record.slot is not None and record.slot.shape.pinned is False, unit
        assert record.slot.cpus == [] and 0 <= record.slot.index < 4, unit
        assert record.slot.machine.cpu_count >= 1, unit
    assert not paths.unit(KILLED).session.exists()
    # no two sessions shared a worktree or a runner process (each its own proxy and budget)
    worktrees = [x.worktree for x in done.launches]
    assert None not in worktrees and len(set(worktrees)) == len(UNITS)
    assert len({x.runner_pid for x in done.launches}) == len(UNITS)
    # each child held a slot while it ran; every slot is free again at the end
    assert all(x.slot is None for x in done.launches)
    # the killed unit is recorded as a harness failure from its marker, never run again
    recovered = run_unit(Round.load("showcase", evidence), "idle", 2, check_order=False)
    assert recovered.failure_class == "harness" and "killed" in recovered.failure_detail
