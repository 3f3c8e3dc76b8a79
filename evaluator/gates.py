"""The six gates (the task's contract.md). Any failed gate makes the submission ineligible
for the craft ranking; scoring caps its total at `records.rubric.GATE_CAP` from
`hard_gate_failed`."""

from __future__ import annotations

from typing import Any, Literal

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
GATE_CLAUSES: dict[str, tuple[str, ...]] = {
    "install-build": ("gate.install-build", "rules.dependencies", "rules.check-build"),
    "root-page": ("gate.root-page", "route.home", "route.home.h1-link", "gate.evaluator-error"),
    "core-journey": (
        "gate.core-journey",
        "gate.journey-critical",
        "gate.other-problems",
        "gate.evaluator-error",
    ),
    "horizontal-overflow": (
        "gate.horizontal-overflow",
        "shell.overflow",
        "gate.evaluator-error",
    ),
    "keyboard-enquiry": ("gate.keyboard-enquiry", "gate.evaluator-error"),
    "axe-serious": ("gate.axe-serious", "gate.evaluator-error"),
}
"""The contract clauses (`evaluator/contract.py`) each gate owns."""
SCORE_CAP = int(GATE_CAP)


def journey_blockers(check: CheckResult | None) -> list[str]:
    """Why the check's core journey cannot be completed: its journey-critical diagnostics."""
    if check is None:
        return ["not measured"]
    return [d.expected for d in check.diagnostics if d.journey_critical]


def journey_statuses(
    checks: list[CheckResult], journeys: dict[str, str]
) -> dict[str, Literal["passed", "failed"]]:
    """Each core journey (journey -> its check): failed when its check did not run or found a
    journey-critical problem (a check can fail on a detail, e.g. the count's live region, with
    its journey intact)."""
    by_id = {c.id: c for c in checks}
    statuses: dict[str, Literal["passed", "failed"]] = {}
    for journey, check_id in journeys.items():
        check = by_id.get(check_id)
        done = check is not None and check.executed and not journey_blockers(check)
        statuses[journey] = "passed" if done else "failed"
    return statuses


def evaluator_errors(
    phase_error: str | None, gates: list[GateResult], checks: list[CheckResult], built: bool
) -> list[str]:
    """Every failure of the evaluator's own code: the browser phase, a gate probe, a check.
    (Checks not run because the submission did not build are the submission's failure.)"""
    errors = [f"browser phase: {phase_error}"] if phase_error else []
    errors += [f"gate {g.id}: {g.reason}" for g in gates if g.status == "evaluator_error"]
    if built and not phase_error:
        for check in checks:
            if not check.executed:
                seen = check.diagnostics[-1].seen if check.diagnostics else "not run"
                errors.append(f"check {check.id}: {seen}")
    return errors


def _evaluator_error(gate_id: str, reason: str) -> GateResult:
    return GateResult(id=gate_id, failed=False, status="evaluator_error", reason=reason)


def _verdict(gate_id: str, failed: bool, reason: str = "") -> GateResult:
    return GateResult(
        id=gate_id, failed=failed, status="failed" if failed else "passed", reason=reason
    )


def compute_gates(
    *,
    install_ok: bool,
    build_ok: bool,
    build_reason: str,
    probes: dict[str, dict[str, Any]],
    checks: list[CheckResult],
    journeys: dict[str, str],
    max_overflow: dict[str, Any],
) -> list[GateResult]:
    """The six gates. A gate our own code could not measure (a crashed probe, a check that did
    not run) has status `evaluator_error`: not failed, and never counted against the model."""
    by_id = {c.id: c for c in checks}
    built = install_ok and build_ok
    gates: list[GateResult] = [
        _verdict("install-build", not built, build_reason if not built else "")
    ]

    def probe_gate(gate_id: str) -> GateResult:
        if not built:
            return _verdict(gate_id, True, "not run: nothing was built")
        probe = probes.get(gate_id)
        if probe is None:
            return _evaluator_error(gate_id, "not run: the browser phase ended early")
        if probe.get("evaluator_error"):
            return _evaluator_error(gate_id, f"the probe itself failed: {probe.get('reason', '')}")
        return _verdict(gate_id, bool(probe["failed"]), probe.get("reason", ""))

    gates.append(probe_gate("root-page"))

    blocked, unmeasured = [], []
    for journey, check_id in journeys.items():
        check = by_id.get(check_id)
        if not built:
            blocked.append(f"{journey} (nothing was built)")
        elif check is None or not check.executed:
            unmeasured.append(f"{journey} ({check_id} did not run)")
        elif journey_blockers(check):
            blocked.append(f"{journey} ({check_id}: {'; '.join(journey_blockers(check)[:2])})")
    if blocked:
        gates.append(
            _verdict("core-journey", True, "journeys not completed: " + ", ".join(blocked))
        )
    elif unmeasured:
        gates.append(_evaluator_error("core-journey", "not measured: " + ", ".join(unmeasured)))
    else:
        gates.append(_verdict("core-journey", False))

    def check_gate(gate_id: str, check_id: str) -> GateResult | None:
        """The gate's verdict when its check could not measure it; None when it did."""
        check = by_id.get(check_id)
        if not built:
            return _verdict(gate_id, True, "not measured: nothing was built")
        if check is None or not check.executed:
            return _evaluator_error(gate_id, f"not measured: the {check_id} check did not run")
        return None

    px = int(max_overflow.get("px", 0) or 0)
    overflow = check_gate("horizontal-overflow", "no-overflow")
    if overflow is None:
        where = (
            f"{max_overflow.get('url')} {max_overflow.get('state')}"
            f" @ {max_overflow.get('viewport')}"
        )
        too_wide = px > OVERFLOW_LIMIT_PX
        overflow = _verdict(
            "horizontal-overflow",
            too_wide,
            f"{px}px of horizontal overflow (limit {OVERFLOW_LIMIT_PX}px) at {where}"
            if too_wide
            else (f"largest overflow {px}px" if px else ""),
        )
    gates.append(overflow)

    gates.append(probe_gate("keyboard-enquiry"))

    axe_gate = check_gate("axe-serious", "axe")
    if axe_gate is None:
        axe_check = by_id["axe"]
        rules = sorted({d.seen.split(" ", 1)[0] for d in axe_check.diagnostics})
        axe_gate = _verdict(
            "axe-serious",
            not axe_check.passed,
            ("serious/critical axe violations: " + ", ".join(rules)) if rules else "",
        )
    gates.append(axe_gate)
    return gates


def capped(score: int, hard_gate_failed: bool) -> int:
    return min(score, SCORE_CAP) if hard_gate_failed else score
