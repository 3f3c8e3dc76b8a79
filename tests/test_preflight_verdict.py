"""The preflight verdict of a probe series: only 3/3 qualifies, and the record says the fraction."""

from __future__ import annotations

import pytest

from harness.preflight import probes_verdict
from records.evidence.round import ProbeRecord


def probe(n: int, passed: bool, **extra: object) -> ProbeRecord:
    return ProbeRecord.model_validate(
        {
            "probe": n, "passed": passed, "file_edited": passed, "command_ran": passed,
            "stop_status": "completed", "exit_code": 0, "elapsed_seconds": 1.0, "steps": 2,
            "identity_verdict": "consistent", "detail": "" if passed else "no tool used",
            **extra,
        }
    )  # fmt: skip


def test_three_of_three_qualifies() -> None:
    assert probes_verdict([probe(1, True), probe(2, True), probe(3, True)], 3) == (None, "")


@pytest.mark.parametrize("failed", [1, 2, 3])
def test_two_of_three_is_insufficient_whichever_probe_fails(failed: int) -> None:
    probes = [probe(n, n != failed) for n in (1, 2, 3)]
    reason_class, reason = probes_verdict(probes, 3)
    assert reason_class == "adapter_unstable"
    assert reason == f"2/3 probes passed (3/3 required); probe {failed}: no tool used"


def test_gateway_errors_in_any_failed_probe_make_it_route_provider() -> None:
    probes = [probe(1, False), probe(2, True), probe(3, False, error_classes=["upstream_5xx"])]
    reason_class, reason = probes_verdict(probes, 3)
    assert reason_class == "route_provider" and reason.startswith("1/3 probes passed")


def test_missing_probes_never_qualify() -> None:
    assert probes_verdict([probe(1, True), probe(2, True)], 3) == (
        "adapter_unstable",
        "2/3 probes passed (3/3 required)",
    )
