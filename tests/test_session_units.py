"""Scored units through real OpenCode against the simulator, inside the loopback-only sandbox."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from session_support import demo_round, freeze_demo
from task_support import copy_real_task

import records.task
from harness import order as run_order
from harness.agents import Launch, OpenCodeAgent
from harness.replacement import ReplacementRefused, create_replacement
from harness.session import run as session_run
from harness.session.process import process_alive
from harness.session.sandbox import SandboxSpec, bwrap_available
from harness.unit import UnitRefused, run_unit
from records.evidence.agent import AgentTrace
from records.evidence.round import PreflightRecord
from records.io import read_record, write_record
from records.layout import round_paths
from records.round import Round
from records.task import DEFAULT_TASK, load_task
from records.tools import OPENCODE
from scoring.efficiency import score_efficiency

pytestmark = [
    pytest.mark.opencode,
    pytest.mark.slow,
    pytest.mark.skipif(not OPENCODE.exists(), reason="OpenCode missing: run scripts/setup"),
    pytest.mark.skipif(not bwrap_available(), reason="bubblewrap missing: run scripts/setup"),
]


@pytest.fixture(scope="module")
def evidence(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with demo_round(tmp_path_factory) as ev:
        yield ev


def unit_files(evidence: Path, unit: str) -> set[str]:
    return {p.name for p in round_paths("showcase", evidence).unit(unit).root.iterdir()}


def test_time_ceiling_stop_is_scored_with_status(evidence: Path) -> None:
    # a slow worker under a short wall clock (120 s: long enough for OpenCode to start and run a
    # first command on a machine at load 20, where 90 s once ended before the first command ran;
    # the round's 30 minutes would be too slow for a test)
    record = run_unit(
        Round.load("showcase", evidence), "slow-lite", 2, check_order=False, wall_clock_seconds=120
    )
    assert (record.stop_status, record.validity, record.failure_class) == (
        "time_ceiling", "valid", "model")  # fmt: skip
    assert 120 <= record.elapsed_seconds < 150 and record.steps >= 1
    diff = round_paths("showcase", evidence).unit("slow-lite-r2").diff.read_text()
    assert "+working" in diff  # the work up to the ceiling is kept


def test_a_sandbox_limit_kill_is_its_own_disclosed_stop(evidence: Path) -> None:
    """Issue 29 (4): the host stopping the sandbox at its process limit was recorded as
    `completed`, failure class model, 2 completion points, disclosed nowhere."""
    record = run_unit(Round.load("showcase", evidence), "process-storm", check_order=False)
    assert (record.stop_status, record.validity, record.failure_class, record.attribution) == (
        "resource_limit", "valid", "model", "resource-limit")  # fmt: skip
    assert record.resource_limit and record.resource_limit.startswith("nproc: ")
    assert "`opencode run` exceeded the process limit (1024 processes and threads" in (
        record.resource_limit
    )  # the agent's name, not its path inside the sandbox (the unit page shows it)
    assert record.failure_detail.startswith("stopped at a sandbox limit: nproc: ")
    assert record.elapsed_seconds < 120 and record.steps == 1
    efficiency = {c.name: c.points for c in score_efficiency(record).components}
    assert (efficiency["completion"], efficiency["clean_exit"]) == (0, 0)
    stderr = round_paths("showcase", evidence).unit("process-storm-r1").agent_stderr.read_text()
    assert "sandbox: `" in stderr and "exceeded the process limit" in stderr


def test_contradicting_identity_invalidates(evidence: Path) -> None:
    record = run_unit(Round.load("showcase", evidence), "swap-lite", check_order=False)
    assert record.validity == "invalid" and record.identity.verdict == "contradicts"
    assert record.identity.contradictions == ["demo-mirror/cheaper-0"]
    assert any("identity contradicts" in r for r in record.invalid_reasons)


def test_provider_outage_is_reported_apart_and_replaceable(evidence: Path) -> None:
    record = run_unit(
        Round.load("showcase", evidence), "outage-lite", check_order=False, outage_seconds=4
    )
    assert (record.stop_status, record.failure_class, record.validity) == (
        "provider_outage", "provider_outage", "invalid")  # fmt: skip
    assert record.gateway.error_classes.get("upstream_5xx", 0) >= 2
    replacement = create_replacement(
        "showcase", "outage-lite-r1", "provider returned 503 for minutes", evidence_dir=evidence
    )
    assert replacement.replacement_unit == "outage-lite-r1-x1"
    with pytest.raises(ReplacementRefused, match="one replacement"):
        create_replacement("showcase", "outage-lite-r1", "again", evidence_dir=evidence)
    with pytest.raises(ReplacementRefused, match="without replacement.json"):
        run_unit(Round.load("showcase", evidence), "swap-lite", replacement=1)


def test_a_truncated_stream_is_the_providers_never_a_completed_turn(evidence: Path) -> None:
    """OpenCode takes a stream cut before its finish_reason as a finished turn and exits 0."""
    record = run_unit(Round.load("showcase", evidence), "cut-stream", check_order=False)
    assert (record.failure_class, record.validity, record.attribution) == (
        "provider_outage", "invalid", "provider-truncated")  # fmt: skip
    assert record.gateway.truncated == 1 and "truncated stream" in record.failure_detail
    replacement = create_replacement(
        "showcase", "cut-stream-r1", "the provider cut a stream", evidence_dir=evidence
    )
    assert replacement.replacement_unit == "cut-stream-r1-x1"


def test_a_stall_after_the_first_words_ends_the_session_as_an_outage(evidence: Path) -> None:
    started = time.monotonic()
    record = run_unit(
        Round.load("showcase", evidence), "midway-stall", check_order=False, outage_seconds=4
    )
    # not the 600 s stall (a loaded CI machine makes one OpenCode session take 10x its quiet 8 s)
    assert time.monotonic() - started < 400
    assert (record.stop_status, record.failure_class, record.validity) == (
        "provider_outage", "provider_outage", "invalid")  # fmt: skip
    assert record.gateway.stalls >= 1 and "no data" in record.failure_detail


class LingeringOpenCode(OpenCodeAgent):
    """OpenCode whose process stays after its run is over, as the binary of upstream issue 44901
    does after logging its final `step_finish` (reason stop)."""

    def prepare(self, spec: SandboxSpec, **kwargs: Any) -> Launch:
        launch = super().prepare(spec, **kwargs)
        linger = ["/bin/sh", "-c", '"$@"; exec sleep 600', "opencode"]
        return Launch(command=[*linger, *launch.command], stdin=launch.stdin)


def test_an_agent_that_finished_but_does_not_exit_completed_without_a_clean_exit(
    evidence: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session_run, "LINGER_SECONDS", 3.0)
    started = time.monotonic()
    showcase = Round.load("showcase", evidence)
    record = run_unit(showcase, "quick-lite", check_order=False, agent=LingeringOpenCode())
    # not the 10-minute linger (a loaded CI machine makes one OpenCode session take 100 s)
    assert time.monotonic() - started < 400
    assert (record.stop_status, record.validity, record.failure_class, record.attribution) == (
        "completed", "valid", "none", "agent-lingered")  # fmt: skip
    assert record.lingered_seconds is not None and 3.0 <= record.lingered_seconds < 60
    assert record.exit_code != 0 and "did not exit after its final step" in record.failure_detail
    parts = {c.name: c.points for c in score_efficiency(record).components}
    assert (parts["completion"], parts["clean_exit"]) == (2.0, 0.0)
    bill = record.cost_reconciliation  # an ordinary provider: the bill is the metered cost
    assert bill is not None and bill.billed_usd == record.cost_usd and not bill.flagged


def test_a_bill_above_the_metered_cost_is_flagged_beside_it(evidence: Path) -> None:
    """The showcase's under-reporter: its streams report a tenth of what the key is charged."""
    record = run_unit(Round.load("showcase", evidence), "under-reporter", check_order=False)
    bill = record.cost_reconciliation
    assert bill is not None and record.cost_usd is not None and record.validity == "valid"
    assert (bill.metered_usd, bill.shared_key, bill.flagged) == (record.cost_usd, False, True)
    assert bill.billed_usd == pytest.approx(10 * record.cost_usd)
    assert bill.key_usage_before_usd == 0.0  # each simulated unit has its own gateway and key


def test_an_answer_from_outside_the_pinned_providers_invalidates(evidence: Path) -> None:
    record = run_unit(Round.load("showcase", evidence), "provider-drift", check_order=False)
    assert (record.validity, record.identity.verdict) == ("invalid", "contradicts")
    assert record.identity.pinned_providers == ["Demo Cloud"]
    assert record.identity.provider_contradictions == ["Auto Cloud"]
    assert record.gateway.provider_requests.get("Auto Cloud", 0) >= 1  # the mix, per provider
    assert record.gateway.provider_requests.get("Demo Cloud", 0) >= 1
    assert any("outside the pinned providers" in r for r in record.invalid_reasons)
    sent = [
        json.loads(line)["request"]["provider"]
        for line in (round_paths("showcase", evidence).unit("provider-drift-r1").gateway).open()
    ]
    assert all(p["only"] == p["order"] == ["demo-cloud"] for p in sent)


def test_changed_prompt_means_invalid_and_no_session(
    evidence: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = load_task(DEFAULT_TASK)
    copy = copy_real_task(tmp_path / "tasks")
    (copy / "prompt.md").write_bytes(real.prompt.read_bytes() + b"one more line\n")
    monkeypatch.setattr(records.task, "TASKS_DIR", tmp_path / "tasks")
    record = run_unit(Round.load("showcase", evidence), "partial-builder", check_order=False)
    assert (record.stop_status, record.validity) == ("not_started", "invalid")
    assert any(r.startswith("prompt/starter: prompt sha256") for r in record.invalid_reasons)
    assert "events.jsonl" not in unit_files(evidence, "partial-builder-r1")
    # our inputs changed, not the model or the provider: invalid, not a harness failure, and
    # not replaceable (the runner refused to start it)
    assert record.failure_class == "none" and "refused to start" in record.failure_detail
    with pytest.raises(ReplacementRefused, match="prompt or starter differs"):
        create_replacement(
            "showcase", "partial-builder-r1", "inputs changed", evidence_dir=evidence
        )


def test_frozen_order_is_drawn_once_and_enforced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    evidence = tmp_path / "evidence"
    freeze_demo(evidence)
    cohort = [c.key for c in Round.load("showcase").cohort.candidates]
    for key in cohort:
        write_record(
            round_paths("showcase", evidence).preflight(key), preflight(key, key != "idle")
        )
    frozen = run_order.freeze_order(Round.load("showcase", evidence))
    assert sorted(frozen.qualified) == sorted(k for k in cohort if k != "idle")
    assert frozen.order == run_order.draw(frozen.qualified, frozen.seed)
    assert run_order.freeze_order(Round.load("showcase", evidence)) == frozen
    write_record(round_paths("showcase", evidence).preflight("idle"), preflight("idle", True))
    with pytest.raises(run_order.OrderError, match="never redrawn"):
        run_order.freeze_order(Round.load("showcase", evidence))
    second = frozen.order[1].removesuffix("-r1")
    with pytest.raises(UnitRefused, match="run that one first"):
        run_unit(Round.load("showcase", evidence), second)


def preflight(key: str, qualified: bool) -> PreflightRecord:
    data = {
        "round_id": "showcase", "model_key": key, "route": "a/b", "expected_slug": "a/b",
        "agent": {"name": "opencode", "version": "1.17.18"}, "gateway_kind": "simulator",
        "isolation": {"level": "bwrap-loopback-proxy"},
        "catalogue": {"route": "a/b", "expected_slug": "a/b", "present": True},
        "probes_required": 3, "qualified": qualified,
        "verdict": "qualified" if qualified else "not_testable",
        "started_at": "t", "finished_at": "t",
    }  # fmt: skip
    return PreflightRecord.model_validate(data)


def test_draw_rotates_per_repetition() -> None:
    units = run_order.draw(["a", "b", "c"], seed=7, repetitions=3)
    first = [u.removesuffix("-r1") for u in units[:3]]
    assert [u.removesuffix("-r2") for u in units[3:6]] == first[1:] + first[:1]
    assert [u.removesuffix("-r3") for u in units[6:]] == first[2:] + first[:2]
    assert units[:3] == run_order.draw(["a", "b", "c"], seed=7)


def test_escape_attempts_get_nothing_and_are_visible(evidence: Path) -> None:
    record = run_unit(Round.load("showcase", evidence), "escape-artist", check_order=False)
    assert record.stop_status == "completed" and record.isolation.level == "bwrap-loopback-proxy"
    paths = round_paths("showcase", evidence).unit("escape-artist-r1")
    trace = read_record(paths.trace, AgentTrace)
    commands = trace.commands
    assert not paths.commands.exists()  # the trajectory holds them: no commands.json any more
    costs = [s.metrics.cost_usd for s in trace.steps if s.source == "agent" and s.metrics]
    assert len(costs) == trace.turns == record.steps  # each turn priced by the gateway's meter
    assert record.cost_usd is not None and sum(c or 0 for c in costs) == pytest.approx(
        record.cost_usd
    )
    output = "\n".join(c.output for c in commands)
    lines = {line.split(" ", 1)[0]: line for line in output.splitlines() if " " in line}
    root = lines["ROOT-LISTING"]
    for hidden in ("'work'", "'root'", "'srv'", "'var'", "'mnt'"):
        assert hidden not in root
    assert "'workspace'" in root
    assert lines["PARENT-LISTING"] == lines["ROOT-LISTING"].replace("ROOT", "PARENT")
    assert lines["EVALUATOR-FOUND"] == "EVALUATOR-FOUND []"
    assert lines["HOST-ROOT-EXISTS"] == "HOST-ROOT-EXISTS False"
    assert lines["API-KEY"] == "API-KEY sk-siteos-proxy"  # the real key stays in the proxy
    assert lines["ROUTES"] == "ROUTES 1"  # header line only: no route anywhere
    assert lines["INTERFACES"] == "INTERFACES ['lo']"
    assert lines["WRITE-USR-DENIED"].startswith("WRITE-USR-DENIED")
    assert "DNS-FAILED" in output
    assert not Path("/usr/siteos-escape.txt").exists() and not Path("/siteos-escape.txt").exists()
    assert lines["WRITE-TOP-DENIED"].startswith("WRITE-TOP-DENIED")
    listing = next(c for c in commands if c.command.startswith("ls -la ../ /root"))
    assert listing.exit_code != 0 and "/root': No such file or directory" in listing.output
    assert "workspace" in listing.output and "work\n" not in listing.output
    tools = [(t.tool, t.status) for t in read_record(paths.trace, AgentTrace).tool_calls]
    assert ("read", "error") in tools  # /root/.bashrc: external_directory denied by OpenCode
    assert ("invalid", "completed") in tools  # webfetch is not offered at all
    assert "/root/.bashrc" in paths.events.read_text()
    assert "escape-report.txt" in paths.diff.read_text()


CHILD = """
import sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from session_support import freeze_demo, install
from harness.unit import run_unit
from records.round import Round
evidence = Path(sys.argv[1])
freeze_demo(evidence)
install(Path(sys.argv[2]), setattr)
run_unit(Round.load("showcase", evidence), "slow-lite", check_order=False)
"""


def test_killed_runner_becomes_a_harness_failure_not_a_second_session(
    evidence: Path, tmp_path: Path
) -> None:
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(tests=str(Path(__file__).parent)))
    paths = round_paths("showcase", evidence).unit("slow-lite-r1")
    child = subprocess.Popen(
        [sys.executable, str(script), str(evidence), str(tmp_path / "scripts")],
        stderr=subprocess.DEVNULL,
    )
    # wait on what is observed, not on a clock: on a loaded machine OpenCode alone took 90 s to
    # send its first request, so the deadline only catches a runner that is stuck
    deadline = time.monotonic() + 900
    while not (paths.gateway.exists() and len(paths.gateway.read_text().splitlines()) >= 2):
        if child.poll() is not None or time.monotonic() > deadline:
            child.kill()
            pytest.fail(f"the unit never reached its second request (runner {child.returncode})")
        time.sleep(0.2)
    marker = json.loads(paths.running_marker.read_text())
    os.kill(child.pid, signal.SIGKILL)
    child.wait()

    def sandbox_left() -> list[int]:
        alive = [int(p.name) for p in Path("/proc").glob("[0-9]*")]
        return [pid for pid in alive if process_alive(pid, "slow-lite-r1")]

    # bwrap --die-with-parent takes the sandbox down with the runner: wait until it is gone (a
    # loaded host can take seconds to reap it); a sandbox that outlives the runner fails
    deadline = time.monotonic() + 60
    while (process_alive(marker["agent_pgid"]) or sandbox_left()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not process_alive(marker["agent_pgid"])
    assert not sandbox_left()
    requests = len(paths.gateway.read_text().splitlines())
    record = run_unit(Round.load("showcase", evidence), "slow-lite", check_order=False)
    assert (record.stop_status, record.failure_class, record.validity) == (
        "crashed", "harness", "invalid")  # fmt: skip
    assert any("killed mid-session" in r for r in record.invalid_reasons)
    assert len(paths.gateway.read_text().splitlines()) == requests  # no second session
    assert not paths.running_marker.exists()
    assert {"events.jsonl", "gateway.jsonl", "worktree.diff"} <= unit_files(
        evidence, "slow-lite-r1"
    )
    assert not Path(marker["scratch"]).exists()
    with pytest.raises(UnitRefused):
        run_unit(Round.load("showcase", evidence), "slow-lite", check_order=False)
