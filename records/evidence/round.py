"""Round-level evidence: round.json (frozen inputs), preflight, order.json, replacements."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from records.base import Record, Root
from records.interventions import Factor
from records.task import TaskRef
from records.evidence.agent import AgentInfo
from records.evidence.session import (
    FailureClass,
    IdentityVerdict,
    Isolation,
    StopStatus,
)

NotTestableClass = Literal["catalogue", "route_provider", "adapter_unstable"]


class ProbeRecord(Root):
    """One isolated file-edit + shell probe (`probe-<n>/probe.json`)."""

    probe: int
    passed: bool
    file_edited: bool
    command_ran: bool
    stop_status: StopStatus
    exit_code: int | None
    elapsed_seconds: float
    steps: int
    identity_verdict: IdentityVerdict
    observed_models: list[str] = Field(default_factory=list)
    upstream_errors: int = 0
    error_classes: list[str] = Field(default_factory=list)
    cost_usd: float = 0.0
    detail: str = ""


class CatalogueCheck(Record):
    route: str
    expected_slug: str
    present: bool
    canonical_slug: str | None = None
    slug_matches: bool = False
    supported_parameters: list[str] = Field(default_factory=list)
    tools_supported: bool = False
    passed: bool = False
    detail: str = ""


class PreflightRecord(Root):
    """`evidence/<round>/preflight/<model>/preflight.json`: the route's qualification.

    Schema 2: every probe runs (a route that fails one probe in three is recorded as 2/3, not
    stopped at its first failure) and `probes_passed` says how many passed; schema 1 lacks it.
    """

    schema_version: int = 2
    round_id: str
    model_key: str
    route: str
    expected_slug: str
    agent: AgentInfo
    gateway_kind: Literal["simulator", "openrouter"]
    isolation: Isolation
    catalogue: CatalogueCheck
    probes: list[ProbeRecord] = Field(default_factory=list)
    probes_required: int
    probes_passed: int | None = Field(default=None, description="None in schema 1 files")
    qualified: bool
    verdict: Literal["qualified", "not_testable"]
    reason_class: NotTestableClass | None = None
    reason: str = ""
    cost_usd: float = 0.0
    started_at: str
    finished_at: str

    @property
    def passed_fraction(self) -> str:
        """The real probe fraction, e.g. '2/3' ('0/3' when the catalogue check stopped it)."""
        passed = self.probes_passed
        if passed is None:
            passed = sum(p.passed for p in self.probes)
        return f"{passed}/{self.probes_required}"


class OrderRecord(Root):
    """`evidence/<round>/order.json`: the frozen run order of qualified routes.

    Schema 2 writes the rotation beside the order: the seeded `base_order` (model keys), each
    repetition's `shifts` and the `rule` in words. Schema 1 files (no rotation recorded) load with
    them empty.
    """

    schema_version: int = 2
    round_id: str
    seed: int
    drawn_at: str
    qualified: list[str]
    not_testable: list[str]
    order: list[str] = Field(description="unit ids in run order")
    base_order: list[str] = Field(
        default_factory=list, description="model keys after the seeded shuffle (repetition 1)"
    )
    shifts: list[int] = Field(
        default_factory=list, description="repetition r runs base_order rotated left by shifts[r-1]"
    )
    rule: str = Field(default="", description="the rotation rule, in words")


class ReplacementRecord(Root):
    """`units/<replacement>/replacement.json`: why a failed unit got one replacement."""

    round_id: str
    replaced_unit: str
    replacement_unit: str
    failure_class: FailureClass | Literal["evaluator"] = Field(
        description="the session's failure class, or 'evaluator' for an evaluator failure"
    )
    reason: str
    created_at: str
    created_by: str


class FrozenInputs(Record):
    prompt_sha256: str
    starter_tree_sha256: str
    cohort_sha256: str
    settings_sha256: str
    arms_sha256: dict[str, str] = Field(
        default_factory=dict,
        description="schema 4: arm id -> tree hash of its folder "
        "(benchmark/interventions/<factor>/<arm>/), an intervention round's arms; empty: none "
        "(or older files)",
    )


class RoundRecord(Root):
    """`evidence/<round>/round.json`. Schema 2 added `scoring_sha256` (absent in schema 1);
    schema 3 names the task (id, version, title; None before); schema 4 freezes an intervention
    round's arm folders (`factor`, `inputs.arms_sha256`; older files load with none)."""

    schema_version: int = 4
    round_id: str
    frozen_at: str
    seed: int
    cohort_file: str
    inputs: FrozenInputs
    task: TaskRef | None = Field(default=None, description="None in files before schema 3")
    factor: Factor | None = Field(
        default=None, description="schema 4: the factor the round varies (None: none, or older)"
    )
    evaluator_sha256: str
    scoring_sha256: str | None = None
    tool_versions: dict[str, str | None]

    @model_validator(mode="before")
    @classmethod
    def _legacy_version(cls, data: Any) -> Any:
        """Files written before `schema_version` existed: 2 if they hash scoring, else 1 (a
        record built in code names its task: the current schema)."""
        if isinstance(data, dict) and "schema_version" not in data:
            legacy = 2 if data.get("scoring_sha256") else 1
            current = cls.model_fields["schema_version"].default
            return {**data, "schema_version": current if "task" in data else legacy}
        return data
