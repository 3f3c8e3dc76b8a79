"""The gates (the task's contract.md; the methodology's six for atlas-rooms). Any failed gate
makes the submission ineligible for the craft ranking; scoring caps its total at
`records.rubric.GATE_CAP` from `hard_gate_failed`.

Every task has `install-build` and `core-journey`; the others are the task's own: a gate its
checks package decides by a probe (`PROBES`) or by a check's run (`CHECK_GATES`). They are
reported in the order `evaluator.check_set.CheckSet.gate_ids` gives (the package's `GATE_ORDER`,
else install-build, the probes' gates, core-journey, the checks' gates)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from records.evidence.evaluation import CheckResult, GateResult
from records.rubric import GATE_CAP

OVERFLOW_LIMIT_PX = 16
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
    probe_gates: Sequence[str],
    check_gates: Mapping[str, str],
    order: Sequence[str] = (),
) -> list[GateResult]:
    """The task's gates: `install-build`, `core-journey` (its `journeys`), the gates its probes
    decide (`probe_gates`) and those a check decides (`check_gates`: gate -> check), in `order`
    (then any other in the order above). A gate our
    own code could not measure (a crashed probe, a check that did not run) has status
    `evaluator_error`: not failed, and never counted against the model."""
    by_id = {c.id: c for c in checks}
    built = install_ok and build_ok

    def probe_gate(gate_id: str) -> GateResult:
        if not built:
            return _verdict(gate_id, True, "not run: nothing was built")
        probe = probes.get(gate_id)
        if probe is None:
            return _evaluator_error(gate_id, "not run: the browser phase ended early")
        if probe.get("evaluator_error"):
            return _evaluator_error(gate_id, f"the probe itself failed: {probe.get('reason', '')}")
        return _verdict(gate_id, bool(probe["failed"]), probe.get("reason", ""))

    reason = build_reason if not built else ""
    found = {"install-build": _verdict("install-build", not built, reason)}
    for gate_id in probe_gates:
        found[gate_id] = probe_gate(gate_id)

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
        found["core-journey"] = _verdict(
            "core-journey", True, "journeys not completed: " + ", ".join(blocked)
        )
    elif unmeasured:
        found["core-journey"] = _evaluator_error(
            "core-journey", "not measured: " + ", ".join(unmeasured)
        )
    else:
        found["core-journey"] = _verdict("core-journey", False)

    for gate_id, check_id in check_gates.items():
        check = by_id.get(check_id)
        if not built:
            found[gate_id] = _verdict(gate_id, True, "not measured: nothing was built")
        elif check is None or not check.executed:
            found[gate_id] = _evaluator_error(
                gate_id, f"not measured: the {check_id} check did not run"
            )
        else:
            found[gate_id] = _check_gate(gate_id, check, max_overflow)
    first = [g for g in order if g in found]
    return [found[g] for g in first + [g for g in found if g not in first]]


def _check_gate(gate_id: str, check: CheckResult, max_overflow: dict[str, Any]) -> GateResult:
    """A gate its check measured: the overflow it recorded, the axe violations it found, or
    (any other gate) whether the check passed."""
    if gate_id == "horizontal-overflow":
        px = int(max_overflow.get("px", 0) or 0)
        where = (
            f"{max_overflow.get('url')} {max_overflow.get('state')}"
            f" @ {max_overflow.get('viewport')}"
        )
        too_wide = px > OVERFLOW_LIMIT_PX
        return _verdict(
            gate_id,
            too_wide,
            f"{px}px of horizontal overflow (limit {OVERFLOW_LIMIT_PX}px) at {where}"
            if too_wide
            else (f"largest overflow {px}px" if px else ""),
        )
    if gate_id == "axe-serious":
        rules = sorted({d.seen.split(" ", 1)[0] for d in check.diagnostics})
        return _verdict(
            gate_id,
            not check.passed,
            ("serious/critical axe violations: " + ", ".join(rules)) if rules else "",
        )
    seen = check.diagnostics[0].seen if check.diagnostics else ""
    return _verdict(gate_id, not check.passed, f"{check.id}: {seen}" if seen else "")


def capped(score: int, hard_gate_failed: bool) -> int:
    return min(score, SCORE_CAP) if hard_gate_failed else score
