"""Typed evidence records of the run side: session.json, preflight.json, order.json, replacements.

These are part of the evidence format read by the evaluator and the publisher: add fields with
defaults, never rename them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.gateway_records import GatewaySummary

StopStatus = Literal[
    "completed",
    "step_ceiling",
    "time_ceiling",
    "budget_ceiling",
    "provider_outage",
    "crashed",
    "not_started",
]
FailureClass = Literal["none", "model", "provider_outage", "harness"]
Validity = Literal["valid", "invalid"]
IdentityVerdict = Literal["consistent", "contradicts", "unobserved"]
NotTestableClass = Literal["catalogue", "route_provider", "adapter_unstable"]


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AgentInfo(Record):
    name: str
    version: str


class Isolation(Record):
    """How the session was confined; `level` is one word, `details` the mechanisms in force."""

    level: Literal["bwrap-loopback-proxy", "unsandboxed"]
    details: list[str] = Field(default_factory=list)


class Tokens(Record):
    prompt: int = 0
    completion: int = 0
    reasoning: int = 0
    cached: int = 0

    @property
    def total(self) -> int:
        return self.prompt + self.completion


class Ceilings(Record):
    steps: int
    wall_clock_seconds: float
    budget_usd: float


class Identity(Record):
    """Requested route vs every identity the gateway reported for this unit."""

    requested_route: str
    expected_slug: str
    observed_models: list[str] = Field(default_factory=list)
    observed_providers: list[str] = Field(default_factory=list)
    verdict: IdentityVerdict = "unobserved"
    contradictions: list[str] = Field(default_factory=list)


class SessionRecord(Record):
    """`evidence/<round>/units/<unit>/session.json`: one experimental unit, run once."""

    schema_version: int = 1
    unit: str
    round_id: str
    model_key: str
    repetition: int
    replacement_of: str | None = None
    agent: AgentInfo
    gateway_kind: Literal["simulator", "openrouter"]
    requested_route: str
    expected_slug: str
    identity: Identity
    steps: int
    stop_status: StopStatus
    exit_code: int | None
    elapsed_seconds: float
    tokens: Tokens
    cost_usd: float | None = Field(description="from the gateway record, not the agent's estimate")
    gateway: GatewaySummary
    ceilings: Ceilings
    isolation: Isolation
    validity: Validity
    invalid_reasons: list[str] = Field(default_factory=list)
    failure_class: FailureClass
    failure_detail: str = ""
    prompt_sha256: str | None
    starter_tree_sha256: str | None
    frozen_prompt_sha256: str | None
    frozen_starter_tree_sha256: str | None
    human_intervention: bool = False
    harness_retries: int = 0
    commands: int = 0
    evidence_files: list[str] = Field(default_factory=list)
    started_at: str
    finished_at: str

    @property
    def scored(self) -> bool:
        return self.validity == "valid"


class ProbeRecord(Record):
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


class PreflightRecord(Record):
    """`evidence/<round>/preflight/<model>/preflight.json`: the route's qualification."""

    schema_version: int = 1
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
    qualified: bool
    verdict: Literal["qualified", "not_testable"]
    reason_class: NotTestableClass | None = None
    reason: str = ""
    cost_usd: float = 0.0
    started_at: str
    finished_at: str


class OrderRecord(Record):
    """`evidence/<round>/order.json`: the frozen run order of qualified routes."""

    round_id: str
    seed: int
    drawn_at: str
    qualified: list[str]
    not_testable: list[str]
    order: list[str] = Field(description="unit ids in run order")


class ReplacementRecord(Record):
    """`units/<replacement>/replacement.json`: why a failed unit got one replacement."""

    round_id: str
    replaced_unit: str
    replacement_unit: str
    failure_class: FailureClass
    reason: str
    created_at: str
    created_by: str
