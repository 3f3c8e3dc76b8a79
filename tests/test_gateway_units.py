"""Live gateway behaviours end to end: real OpenCode in the sandbox, through the recording proxy,
against the simulator, run by the unit runner (short outage windows keep these quick)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import session_support
from session_support import demo_round, freeze_demo

from gateway.simulator import Simulator
from harness.replacement import create_replacement
from harness.session.sandbox import bwrap_available
from harness.session.upstream import Upstream
from harness.spend import SpendRefused, check_spend
from harness.unit import UnitRefused, run_unit
from publish.views import fmt_cost
from records.evidence.agent import AgentTrace
from records.evidence.gateway import KeyCheck
from records.inputs import load_round
from records.io import read_record, write_json
from records.layout import round_paths
from records.round import Round
from records.tools import OPENCODE
from scoring.efficiency import cost_points

pytestmark = [
    pytest.mark.opencode,
    pytest.mark.slow,
    pytest.mark.skipif(not OPENCODE.exists(), reason="OpenCode missing: run scripts/setup"),
    pytest.mark.skipif(not bwrap_available(), reason="bubblewrap missing: run scripts/setup"),
]
WRITE = {"name": "write", "arguments": {"filePath": "{workdir}/notes.txt", "content": "hi\n"}}
NO_COST = {
    "schema_version": 1,
    "description": "A gateway that reports tokens but no cost.",
    "catalogue": {"id": "demo-hush/quiet-1", "canonical_slug": "demo-hush/quiet-1",
                  "name": "Hush quiet", **session_support.CATALOGUE},
    "usage": {"report_cost": False},
    "session": {"turns": [{"tool_calls": [WRITE]}, {"text": "Done."}]},
}  # fmt: skip


@pytest.fixture(scope="module")
def evidence(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(session_support.EXTRA, "cost-unknown", NO_COST)
        with demo_round(tmp_path_factory) as ev:
            yield ev


def test_a_keepalive_stall_past_the_window_is_a_replaceable_provider_outage(
    evidence: Path,
) -> None:
    record = run_unit(
        Round.load("showcase", evidence), "keepalive-stall", check_order=False, outage_seconds=3
    )
    assert (record.stop_status, record.failure_class, record.validity) == (
        "provider_outage", "provider_outage", "invalid")  # fmt: skip
    gw = record.gateway
    assert gw.stalls >= 1 and gw.error_classes.get("provider_stall", 0) >= 1
    assert gw.longest_keepalive_wait_ms is not None and gw.longest_keepalive_wait_ms >= 3000
    assert any("provider stall" in reason for reason in record.invalid_reasons)
    replacement = create_replacement(
        "showcase",
        "keepalive-stall-r1",
        "provider stalled behind keep-alives",
        evidence_dir=evidence,
    )
    assert replacement.replacement_unit == "keepalive-stall-r1-x1"


def test_an_in_stream_429_is_classed_rate_limit(evidence: Path) -> None:
    record = run_unit(
        Round.load("showcase", evidence), "rate-limited", check_order=False, outage_seconds=3
    )
    assert record.gateway.error_classes.get("rate_limit", 0) >= 1
    assert "midstream_error" not in record.gateway.error_classes
    assert record.failure_class == "provider_outage", record.failure_detail


def test_unknown_cost_stays_unknown(evidence: Path) -> None:
    record = run_unit(Round.load("showcase", evidence), "cost-unknown", check_order=False)
    assert record.stop_status == "completed" and record.steps == 2
    assert record.cost_usd is None and record.gateway.unknown_cost_responses == 2
    assert record.gateway.cost_estimate_usd > 0  # the budget counted tokens x catalogue price
    assert fmt_cost(record.cost_usd) == "unknown" and cost_points(record.cost_usd) == 0.0
    trace = read_record(round_paths("showcase", evidence).unit("cost-unknown-r1").trace, AgentTrace)
    assert [s.metrics.cost_usd for s in trace.steps if s.metrics] == [None, None]


def test_a_low_credit_key_refuses_the_round_before_any_spending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    evidence = tmp_path / "evidence"
    freeze_demo(evidence)
    cohort = load_round("showcase").cohort_path
    with Simulator.from_cohort(cohort, key_limit_usd=20.0) as low:
        with pytest.raises(SpendRefused, match="refused to start") as refused:
            check_spend(
                Round.load("showcase", evidence), Upstream("simulator", low.base_url, "sk-low")
            )
        assert low.requests == []  # nothing was spent: no chat request reached the gateway
    assert "$20.00 of credit left" in str(refused.value)
    check = read_record(round_paths("showcase", evidence).key_check, KeyCheck)
    assert check.verdict == "refused" and check.limit_remaining_usd == 20.0
    assert check.schema_version == 3 and check.parallel is not None
    legacy = check.model_dump(mode="json", exclude={"parallel"}) | {"schema_version": 1}
    older = tmp_path / "key-check-1.json"
    write_json(older, legacy)  # a schema 1 file (no derivation) still loads
    assert read_record(older, KeyCheck).parallel is None
    assert check.max_spend.total_usd > 20.0 and check.max_spend.reservation_tokens == 32000
    assert check.max_spend.reservations == check.parallel.sessions  # one a session at once
    with pytest.raises(UnitRefused, match="refused to start"):
        run_unit(Round.load("showcase", evidence), "idle", check_order=False)
    assert not round_paths("showcase", evidence).unit("idle-r1").root.exists()
