"""The six gates (docs/acceptance-contract.md). Any failed gate makes the submission ineligible
for the craft ranking; scoring caps its total at `records.rubric.GATE_CAP` from
`hard_gate_failed`."""

from __future__ import annotations

from typing import Any

from evaluator.checks import CORE_JOURNEYS
from records.evidence.evaluation import CheckResult, GateResult
from records.rubric import GATE_CAP

GATE_IDS = [
    "install-build",
    "root-page",
    "core-journey",
    "horizontal-overflow",
    "keyboard-enquiry",
    "axe-serious",
]
OVERFLOW_LIMIT_PX = 16
SCORE_CAP = int(GATE_CAP)


def compute_gates(
    *,
    install_ok: bool,
    build_ok: bool,
    build_reason: str,
    probes: dict[str, dict[str, Any]],
    checks: list[CheckResult],
    max_overflow: dict[str, Any],
) -> list[GateResult]:
    by_id = {c.id: c for c in checks}
    gates: list[GateResult] = []

    if not install_ok or not build_ok:
        gates.append(GateResult(id="install-build", failed=True, reason=build_reason))
    else:
        gates.append(GateResult(id="install-build", failed=False))

    def probe_gate(gate_id: str) -> GateResult:
        if not build_ok or not install_ok:
            return GateResult(id=gate_id, failed=True, reason="not run: nothing was built")
        probe = probes.get(gate_id)
        if probe is None:
            return GateResult(
                id=gate_id, failed=True, reason="not run: the browser phase ended early"
            )
        return GateResult(id=gate_id, failed=bool(probe["failed"]), reason=probe.get("reason", ""))

    gates.append(probe_gate("root-page"))

    failed_core = []
    for journey, check_id in CORE_JOURNEYS.items():
        check = by_id.get(check_id)
        if check is None or not check.passed:
            failed_core.append(f"{journey} ({check_id})")
    gates.append(
        GateResult(
            id="core-journey",
            failed=bool(failed_core),
            reason=("failed core journeys: " + ", ".join(failed_core)) if failed_core else "",
        )
    )

    px = int(max_overflow.get("px", 0) or 0)
    overflow_check = by_id.get("no-overflow")
    if overflow_check is None or not overflow_check.executed:
        gates.append(
            GateResult(
                id="horizontal-overflow",
                failed=True,
                reason="not measured: the no-overflow check did not run",
            )
        )
    elif px > OVERFLOW_LIMIT_PX:
        where = (
            f"{max_overflow.get('url')} {max_overflow.get('state')}"
            f" @ {max_overflow.get('viewport')}"
        )
        gates.append(
            GateResult(
                id="horizontal-overflow",
                failed=True,
                reason=f"{px}px of horizontal overflow (limit {OVERFLOW_LIMIT_PX}px) at {where}",
            )
        )
    else:
        gates.append(
            GateResult(
                id="horizontal-overflow",
                failed=False,
                reason=f"largest overflow {px}px" if px else "",
            )
        )

    gates.append(probe_gate("keyboard-enquiry"))

    axe_check = by_id.get("axe")
    if axe_check is None or not axe_check.executed:
        gates.append(
            GateResult(
                id="axe-serious", failed=True, reason="not measured: the axe check did not run"
            )
        )
    else:
        rules = sorted({d.seen.split(" ", 1)[0] for d in axe_check.diagnostics})
        gates.append(
            GateResult(
                id="axe-serious",
                failed=not axe_check.passed,
                reason=("serious/critical axe violations: " + ", ".join(rules)) if rules else "",
            )
        )
    return gates


def capped(score: int, hard_gate_failed: bool) -> int:
    return min(score, SCORE_CAP) if hard_gate_failed else score
