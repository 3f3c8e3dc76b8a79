"""What a crashed unit records, what the unit stage demands before it spends, and the worktree
archive's hash: real runners (`run_unit` in a child process) killed with SIGKILL at a known point.

The child runs the real runner with one stage made to hang (the fault injected): after the
worktree was created but before the runner recorded the starter's hash, or where the agent session
would start. The parent kills it there and records the unit, as the next `doit` would.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from session_support import freeze_demo, pass_preconditions

from evaluator.unit_evaluation import ArchiveMismatch, check_archive, evaluate_unit
from harness.preconditions import PreconditionFailed
from harness.preflight import run_preflight
from harness.replacement import create_replacement
from harness.session.sandbox import bwrap_available, isolation_for
from harness.spend import check_spend
from harness.unit import UnitRefused, run_unit
from records.evidence.evaluation import Calibration
from records.evidence.round import RoundRecord
from records.evidence.session import SessionRecord
from records.hashing import file_sha256
from records.io import read_record, write_record
from records.layout import round_paths
from records.round import Round
from records.tools import OPENCODE

pytestmark = [
    pytest.mark.opencode,
    pytest.mark.skipif(not OPENCODE.exists(), reason="OpenCode missing: run scripts/setup"),
]

CHILD = """
import sys, time
from pathlib import Path
import harness.unit
from records.round import Round
evidence, hang, reached = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
repetition, replacement = int(sys.argv[4]), int(sys.argv[5])
real_worktree = harness.unit.create_worktree
def worktree_then_hang(*args, **kwargs):
    result = real_worktree(*args, **kwargs)  # the worktree exists; its hash is not recorded yet
    Path(reached).touch()
    time.sleep(3600)
def session_hangs(**kwargs):
    Path(reached).touch()
    time.sleep(3600)
if hang == "worktree":
    harness.unit.create_worktree = worktree_then_hang
else:
    harness.unit.run_session = session_hangs
harness.unit.run_unit(Round.load("showcase", evidence), "idle", repetition, check_order=False,
                      replacement=replacement)
"""


@pytest.fixture(scope="module")
def evidence(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as mp:
        ev = tmp_path_factory.mktemp("evidence")
        mp.setenv("SITEOS_SCRATCH", str(tmp_path_factory.mktemp("scratch")))
        freeze_demo(ev)
        pass_preconditions(ev)
        yield ev


def kill_runner_at(
    evidence: Path, tmp_path: Path, hang: str, repetition: int = 1, replacement: int = 0
) -> None:
    """Start the runner in a child, wait until it reaches the hanging stage, SIGKILL it."""
    script, reached = tmp_path / "child.py", tmp_path / f"reached-{hang}-{repetition}-{replacement}"
    script.write_text(CHILD)
    args = [str(evidence), hang, str(reached), str(repetition), str(replacement)]
    child = subprocess.Popen(
        [sys.executable, str(script), *args],
        stderr=subprocess.PIPE,
        env=dict(os.environ),
    )
    deadline = time.monotonic() + 600  # a loaded machine: wait on the condition, not a clock
    while not reached.exists():
        if child.poll() is not None:
            assert child.stderr is not None
            pytest.fail(f"the runner ended early: {child.stderr.read().decode()[-2000:]}")
        if time.monotonic() > deadline:
            child.kill()
            pytest.fail(f"the runner never reached the {hang} stage")
        time.sleep(0.1)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()


def test_a_crash_records_what_was_measured_and_a_crashed_replacement_keeps_its_origin(
    evidence: Path, tmp_path: Path
) -> None:
    prompt = read_record(
        round_paths("showcase", evidence).round_json, RoundRecord
    ).inputs.prompt_sha256
    began = time.time()
    kill_runner_at(evidence, tmp_path, "worktree")
    record = run_unit(Round.load("showcase", evidence), "idle", check_order=False)
    assert (record.stop_status, record.failure_class, record.validity) == (
        "crashed", "harness", "invalid")  # fmt: skip
    assert record.prompt_sha256 == prompt  # hashed before the marker's first write
    assert record.starter_tree_sha256 is None  # not measured when the runner died
    assert not any("prompt/starter" in r or "None" in r for r in record.invalid_reasons)
    assert record.isolation == isolation_for(bwrap_available())  # what the runner chose
    assert 0.0 < record.elapsed_seconds <= time.time() - began + 1.0  # up to the last write
    assert record.replacement_of is None

    create_replacement("showcase", "idle-r1", "the runner was killed", evidence_dir=evidence)
    kill_runner_at(evidence, tmp_path, "session", replacement=1)
    again = run_unit(Round.load("showcase", evidence), "idle", check_order=False, replacement=1)
    assert (again.unit, again.stop_status, again.replacement_of) == (
        "idle-r1-x1", "crashed", "idle-r1")  # fmt: skip
    assert again.starter_tree_sha256 == again.frozen_starter_tree_sha256
    assert not any("prompt/starter" in r for r in again.invalid_reasons)


def test_session_json_holds_the_archive_hash_and_the_evaluator_refuses_another_archive(
    evidence: Path, tmp_path: Path
) -> None:
    began = time.time()
    kill_runner_at(evidence, tmp_path, "session", repetition=2)
    killed = time.time()
    time.sleep(3.0)  # the next doit comes later: its own writes are not the session's
    record = run_unit(Round.load("showcase", evidence), "idle", 2, check_order=False)
    assert 0.0 < record.elapsed_seconds <= killed - began + 1.0  # start_at has whole seconds
    paths = round_paths("showcase", evidence).unit("idle-r2")
    assert read_record(paths.session, SessionRecord).schema_version >= 3  # the archive hash
    assert record.worktree_archive_sha256 == file_sha256(paths.archive)
    check_archive(paths)  # the archive as recorded: accepted
    with paths.archive.open("ab") as handle:
        handle.write(b"\0")  # altered after the session
    with pytest.raises(ArchiveMismatch, match=r"worktree\.tar\.gz: SHA-256 .* differs"):
        evaluate_unit(Round.load("showcase", evidence), "idle-r2")
    assert not paths.result.exists()  # refused before anything was evaluated


def test_the_unit_stage_refuses_without_a_passing_key_check_and_calibration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ev = tmp_path / "evidence"
    freeze_demo(ev)
    unit_dir = round_paths("showcase", ev).unit("idle-r1").root
    with pytest.raises(UnitRefused, match=r"key-check\.json is missing"):
        run_unit(Round.load("showcase", ev), "idle", check_order=False)
    check_spend(Round.load("showcase", ev))
    with pytest.raises(UnitRefused, match=r"calibration\.json is missing: run the calibration"):
        run_unit(Round.load("showcase", ev), "idle", check_order=False)
    failed = Calibration(
        round_id="showcase", passed=False, automated_score=31, expected_score=26,
        checks_executed=15, hard_gate_failed=True, missing_core_journeys=[], install_ok=True,
        build_ok=True, failed_checks=[], expected_failed_checks=[], duration_s=1.0,
        reasons=["automated score 31/60, expected exactly 26/60"], result="calibration/r.json",
    )  # fmt: skip
    write_record(round_paths("showcase", ev).calibration, failed)
    with pytest.raises(UnitRefused, match="calibration did not pass .*31/60"):
        run_unit(Round.load("showcase", ev), "idle", check_order=False)
    assert not unit_dir.exists()  # nothing started, nothing spent


def test_the_preflight_probes_refuse_without_a_passing_key_check_and_calibration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ev = tmp_path / "evidence"
    freeze_demo(ev)
    with pytest.raises(PreconditionFailed, match=r"key-check\.json is missing"):
        run_preflight(Round.load("showcase", ev), "idle")
    check_spend(Round.load("showcase", ev))
    with pytest.raises(PreconditionFailed, match=r"calibration\.json is missing"):
        run_preflight(Round.load("showcase", ev), "idle")
    assert not round_paths("showcase", ev).preflight_dir.exists()  # no probe ran, nothing spent
