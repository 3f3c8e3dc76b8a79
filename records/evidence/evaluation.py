"""The evaluator's output record, `result.json`. Other tools rely on these field names.

Required names: automated_score, max_automated, checks[] {id, dimension, points, max_points,
executed, passed, diagnostics[] {expected, seen, url, viewport, selector}}, gates[] {id, failed,
reason}, hard_gate_failed, core_journeys {<journey>: passed|failed} (the task's journeys, for
atlas-rooms {filter, detail, enquiry}), timings, tool_versions.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from records.base import Record, Root
from records.rubric import MAX_AUTOMATED

Dimension = Literal["functional", "responsive", "accessibility"]
JourneyStatus = Literal["passed", "failed"]
GateStatus = Literal["passed", "failed", "evaluator_error"]

RESULT_SCHEMA_VERSION = 3
"""2: gates carry a `status` (an `evaluator_error` gate is not failed), diagnostics say whether
they are `journey_critical`, and `evaluator_errors` lists the evaluator's own failures. Schema-1
files load: a gate's status follows its `failed`, diagnostics are not journey-critical. 3:
`core_journeys` maps the task's own journeys (task.json) to their status; the atlas-rooms task's
are the three keys every earlier file has, so earlier files load unchanged."""




class Diagnostic(Record):
    """One observed problem: what the contract expects, what was seen, and where."""

    expected: str
    seen: str
    url: str | None = None
    viewport: str | None = Field(default=None, description="e.g. '360x800'")
    selector: str | None = Field(
        default=None, description="how the element was found: role/name/label, never a class"
    )
    journey_critical: bool = Field(
        default=False,
        description="the visitor cannot complete the check's core journey (fails core-journey)",
    )


class CheckResult(Record):
    id: str
    dimension: Dimension
    points: int = Field(ge=0)
    max_points: int = Field(ge=1)
    executed: bool = Field(description="false only when the check itself could not run")
    passed: bool
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    proves: str = Field(default="", description="what the check proves (its docstring summary)")
    duration_s: float = 0.0


class GateResult(Record):
    id: str
    failed: bool
    reason: str = ""
    status: GateStatus = Field(
        default="passed",
        description="evaluator_error: our own code failed measuring it (not failed, not passed)",
    )

    @model_validator(mode="before")
    @classmethod
    def _status_from_failed(cls, data: object) -> object:
        """Schema 1 had no status: it follows `failed`."""
        if isinstance(data, dict) and "status" not in data:
            return {**data, "status": "failed" if data.get("failed") else "passed"}
        return data


class StepLog(Record):
    """One install/check/build step run in the sandbox."""

    name: str
    command: str
    exit_code: int | None
    ok: bool
    timed_out: bool = False
    output_capped: bool = False
    duration_s: float
    log: str = Field(description="log file, relative to the output folder")
    summary: str


class Screenshot(Record):
    page: str
    state: str
    viewport: str
    path: str = Field(description="relative to the output folder")
    url: str


class MetaTag(Record):
    name: str = Field(description="the name, property or http-equiv attribute ('' when none)")
    content: str


class PageText(Record):
    """The text one screenshot's page carried: what a reviewer may read in the image."""

    screenshot: str = Field(description="the screenshot's path, as in result.json")
    page: str
    state: str
    viewport: str
    url: str
    title: str = Field(description="document.title")
    visible_text: str = Field(description="document.body.innerText, capped")
    alt_texts: list[str] = Field(default_factory=list)
    aria_labels: list[str] = Field(default_factory=list)
    title_attributes: list[str] = Field(default_factory=list)
    placeholders: list[str] = Field(default_factory=list)
    meta: list[MetaTag] = Field(default_factory=list)


class PageTextRecord(Record):
    """`evaluation/page-text.json`, written by the browser phase beside the screenshots; the
    packet stage scans it for identity (a name in a screenshot is caught from its DOM)."""

    schema_version: int = 1
    pages: list[PageText] = Field(default_factory=list)


class Timings(Record):
    copy_s: float = 0.0
    install_s: float = 0.0
    check_s: float = 0.0
    build_s: float = 0.0
    browser_s: float = 0.0
    checks_s: float = 0.0
    evidence_s: float = Field(default=0.0, description="screenshots (part of checks_s)")
    total_s: float = 0.0


class PhaseFacts(Record):
    max_overflow: dict[str, Any] = Field(
        default_factory=lambda: {"px": 0}, description="widest overflow: px, url, state, viewport"
    )
    unsettled: list[str] = Field(default_factory=list)


class PhaseRecord(Root):
    """`.phase.json`: what the browser phase hands back to `evaluate` (rewritten after every
    check, so a killed phase still leaves its partial results)."""

    complete: bool = False
    error: str | None = None
    checks: list[CheckResult] = Field(default_factory=list)
    probes: dict[str, dict[str, Any]] = Field(default_factory=dict, description="gate probes")
    screenshots: list[Screenshot] = Field(default_factory=list)
    video: str | None = None
    trace: str | None = None
    axe: str | None = None
    versions: dict[str, str | None] = Field(default_factory=dict)
    timings: dict[str, float] = Field(default_factory=dict)
    facts: PhaseFacts = Field(default_factory=PhaseFacts)
    blocked_requests: list[str] = Field(default_factory=list)


class EvaluationResult(Root):
    schema_version: int = RESULT_SCHEMA_VERSION
    app_dir: str
    automated_score: int = Field(ge=0, le=MAX_AUTOMATED)
    max_automated: int = MAX_AUTOMATED
    capped_score: int = Field(
        ge=0, le=MAX_AUTOMATED, description="automated_score, capped at 49 when a gate failed"
    )
    checks: list[CheckResult]
    gates: list[GateResult]
    hard_gate_failed: bool
    core_journeys: dict[str, JourneyStatus] = Field(
        description="each of the task's core journeys (task.json) -> passed or failed"
    )
    checks_executed: int
    evaluator_error: str | None = Field(
        default=None,
        description="set when the evaluator (not the submission) failed; the result is then "
        "not a valid measurement",
    )
    evaluator_errors: list[str] = Field(
        default_factory=list,
        description="each failure of the evaluator's own code (browser phase, gate probe, check); "
        "never counted against the submission",
    )
    install_ok: bool
    check_ok: bool
    build_ok: bool
    steps: list[StepLog] = Field(default_factory=list)
    timings: Timings
    tool_versions: dict[str, str | None]
    screenshots: list[Screenshot] = Field(default_factory=list)
    video: str | None = None
    axe_report: str | None = None
    trace: str | None = None
    blocked_requests: list[str] = Field(
        default_factory=list, description="non-loopback requests the page tried (all aborted)"
    )
    unsettled: list[str] = Field(
        default_factory=list, description="pages whose animations did not settle in time"
    )

    def check(self, check_id: str) -> CheckResult:
        for item in self.checks:
            if item.id == check_id:
                return item
        raise KeyError(check_id)

    @property
    def failed_checks(self) -> list[str]:
        return [c.id for c in self.checks if not c.passed]

    @property
    def evaluation_failures(self) -> list[str]:
        """Why this is not a valid measurement (empty when it is): the evaluator's error, a gate
        probe's own failure, or a check not executed on a submission that installed and built.

        The one rule of "evaluation failed" (the leaderboard's status, the replacement command's
        evaluator failure). A failed install or build leaves nothing to check: that is the
        model's own failure (the install-build gate), not the evaluator's.
        """
        reasons = []
        if self.evaluator_error:
            reasons.append(f"evaluator error: {self.evaluator_error}")
        probes = [g.id for g in self.gates if g.status == "evaluator_error"]
        if probes and not self.evaluator_error:
            reasons.append(f"gate probe evaluator error: {', '.join(probes)}")
        not_run = self.checks_not_executed
        if not_run:
            reasons.append(f"checks not executed: {', '.join(not_run)}")
        return reasons

    @property
    def checks_not_executed(self) -> list[str]:
        """Checks the evaluator did not run on a submission that installed and built."""
        if not (self.install_ok and self.build_ok):
            return []
        return [c.id for c in self.checks if not c.executed]


CALIBRATION_SCHEMA_VERSION = 3
"""2: `evaluator_sha256`, the digest of the evaluator's sources that made the calibration (the
paid stages refuse a calibration made by another evaluator). Schema-1 files load without it.
3: `checks_total` and `journeys`, the task's own (earlier files were all atlas-rooms': 15 checks,
journeys filter, detail and enquiry, which they load with)."""
ATLAS_ROOMS_CALIBRATION = {"checks_total": 15, "journeys": ["filter", "detail", "enquiry"]}
"""What a calibration.json before schema 3 calibrated: the one task there was."""


class Calibration(Root):
    """`evidence/<round>/calibration.json`: the starter's evaluation against its expectation."""

    schema_version: int = CALIBRATION_SCHEMA_VERSION
    round_id: str
    evaluator_sha256: str | None = Field(
        default=None,
        description="records.layout.evaluator_sha256() when the calibration ran (None: schema 1)",
    )
    passed: bool
    automated_score: int
    expected_score: int = Field(description="the task's calibration score (task.json)")
    checks_executed: int
    checks_total: int = Field(ge=1, description="how many checks the task has")
    hard_gate_failed: bool
    journeys: list[str] = Field(description="the task's core journeys: all must be missing")
    missing_core_journeys: list[str]
    install_ok: bool
    build_ok: bool
    failed_checks: list[str]
    expected_failed_checks: list[str]
    reasons: list[str]
    result: str
    duration_s: float

    @model_validator(mode="before")
    @classmethod
    def _before_schema_3(cls, data: Any) -> Any:
        if isinstance(data, dict) and int(data.get("schema_version", 1)) < 3:
            return {**ATLAS_ROOMS_CALIBRATION, **data}
        return data
