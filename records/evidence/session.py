"""Typed evidence records of the run side: session.json, preflight.json, order.json, replacements.

These are part of the evidence format read by the evaluator and the publisher: add fields with
defaults, never rename them.
"""

from __future__ import annotations

from records.base import Record

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from records.evidence.gateway import GatewaySummary

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
# The agent runs in its own session (no controlling TTY); its stdin is closed after the prompt.
HUMAN_INTERVENTION_BASIS = "none possible (no TTY, stdin closed)"
IdentityVerdict = Literal["consistent", "contradicts", "unobserved"]




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
    human_intervention_basis: str = Field(
        default=HUMAN_INTERVENTION_BASIS,
        description="why no human can intervene: it holds by construction, it is not measured",
    )
    harness_retries: int = 0
    commands: int = 0
    evidence_files: list[str] = Field(default_factory=list)
    started_at: str
    finished_at: str

    @property
    def scored(self) -> bool:
        return self.validity == "valid"


class RunningMarker(BaseModel):
    """`units/<unit>/.running`: who runs the unit and where its scratch files are."""

    model_config = ConfigDict(extra="forbid")

    unit: str
    runner_pid: int
    runner_start: str | None
    agent_pgid: int | None = None
    scratch: str
    worktree: str
    base_commit: str | None = None
    started_at: str
    prompt_sha256: str | None = None
    starter_tree_sha256: str | None = None
    isolated: bool | None = None
