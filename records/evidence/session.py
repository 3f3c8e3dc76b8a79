"""Typed evidence records of a unit: session.json and the `.running` marker.

These are part of the evidence format read by the evaluator and the publisher: add fields with
defaults, never rename them. session.json schema 2 records the round's ceilings as the round file
states them (`wall_clock_minutes`); schema 1 files (`wall_clock_seconds`) still load. Schema 3
adds `worktree_archive_sha256` (the evaluator refuses an archive that no longer matches it); older
files load without it (None: nothing to check). Schema 4 adds the stop status `resource_limit`
(a sandbox limit ended the session), `resource_limit` (the limit's one-line description) and
`attribution` (the row of `harness.attribution.TABLE` that decided the failure class); older files
load without them. Schema 5 adds `lingered_seconds` (an agent that logged its final step and did
not exit, ended by the runner), `cost_reconciliation` (the metered cost beside the gateway's
bill) and the identity's `pinned_providers` and `provider_contradictions` (the cohort's provider
pin and the providers that served outside it); older files load with None or empty: no runner
ended a lingering agent, nothing was reconciled, no route was pinned. Schema 6 adds `slot`: the
slot's shape, its index, the CPUs the session was pinned to and the machine it ran on
(`records/slots.py`); older files load with None (not recorded: the session shared the machine).
Schema 7 adds `arm`: the unit's arm of an intervention round's factor (factor, arm, the arm
folder's hash then and as frozen, the files it added before the worktree's base commit); older
files and rounds of one arm load with None.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from records.base import Record, Root
from records.evidence.agent import AgentInfo
from records.evidence.gateway import GatewaySummary, Tokens
from records.inputs import Ceilings
from records.interventions import ArmRecord
from records.slots import SlotRecord

__all__ = ["AgentInfo", "Ceilings", "Tokens"]  # re-exported: session.json's parts in one place

StopStatus = Literal[
    "completed",
    "step_ceiling",
    "time_ceiling",
    "budget_ceiling",
    "resource_limit",  # a sandbox limit (memory, processes, disk, /tmp, file size) ended it
    "provider_outage",
    "crashed",
    "not_started",
]
FailureClass = Literal["none", "model", "provider_outage", "harness"]
Validity = Literal["valid", "invalid"]
# The agent runs in its own session (no controlling TTY); its stdin is closed after the prompt.
HUMAN_INTERVENTION_BASIS = "none possible (no TTY, stdin closed)"
IdentityVerdict = Literal["consistent", "contradicts", "unobserved"]


class Isolation(Record):
    """How the session was confined; `level` is one word, `details` the mechanisms in force."""

    level: Literal["bwrap-loopback-proxy", "unsandboxed"]
    details: list[str] = Field(default_factory=list)


class Identity(Record):
    """Requested route vs every identity the gateway reported for this unit."""

    requested_route: str
    expected_slug: str
    observed_models: list[str] = Field(default_factory=list)
    observed_providers: list[str] = Field(default_factory=list)
    verdict: IdentityVerdict = "unobserved"
    contradictions: list[str] = Field(default_factory=list)
    pinned_providers: list[str] = Field(
        default_factory=list, description="schema 5: the cohort's provider pin (empty: none)"
    )
    provider_contradictions: list[str] = Field(
        default_factory=list, description="schema 5: providers that served outside the pin"
    )


class CostReconciliation(Record):
    """The unit's metered cost set beside what the gateway says it billed (`harness/reconcile.py`).

    The key's usage (`GET /api/v1/key`) is read before and after the session; its difference is
    the unit's bill when no other unit spent on the key meanwhile (`shared_key` false; otherwise
    no bill can be told apart). `gap_usd` is the bill minus the metered cost; `flagged` when it
    exceeds `threshold_usd`."""

    metered_usd: float | None = Field(description="session.cost_usd: what the proxy metered")
    key_usage_before_usd: float | None = None
    key_usage_after_usd: float | None = None
    shared_key: bool = Field(
        default=False, description="another unit of the round ran on the same key meanwhile"
    )
    billed_usd: float | None = Field(
        description="the key's usage difference: the gateway's account of the unit's cost (None: "
        "not measurable, the key shared or its usage unknown)"
    )
    gap_usd: float | None = Field(description="billed minus metered (None: not measurable)")
    threshold_usd: float
    flagged: bool


class SessionRecord(Root):
    """`evidence/<round>/units/<unit>/session.json`: one experimental unit, run once."""

    schema_version: int = 7
    unit: str
    round_id: str
    model_key: str
    repetition: int
    replacement_of: str | None = None
    agent: AgentInfo
    arm: ArmRecord | None = Field(
        default=None,
        description="schema 7: the unit's arm (factor, arm, hash); None: a round of one arm",
    )
    gateway_kind: Literal["simulator", "openrouter"]
    requested_route: str
    expected_slug: str
    identity: Identity
    steps: int
    stop_status: StopStatus
    resource_limit: str | None = Field(
        default=None,
        description="stop_status resource_limit: which sandbox limit (nproc, memory, fsize, "
        "nofile, tmp, disk) and what the host saw",
    )
    exit_code: int | None
    elapsed_seconds: float
    lingered_seconds: float | None = Field(
        default=None,
        description="schema 5: the agent logged its final step (reason stop) but did not exit; "
        "the runner ended it this many seconds later (the stop is completed, the time is counted "
        "to the final step, the clean-exit point is withheld). None: no linger (or older files)",
    )
    tokens: Tokens
    cost_usd: float | None = Field(description="from the gateway record, not the agent's estimate")
    cost_reconciliation: CostReconciliation | None = Field(
        default=None, description="schema 5: the metered cost beside the gateway's bill"
    )
    gateway: GatewaySummary
    ceilings: Ceilings
    isolation: Isolation
    slot: SlotRecord | None = Field(
        default=None,
        description="schema 6: the slot the session ran in and the machine (None: not recorded)",
    )
    validity: Validity
    invalid_reasons: list[str] = Field(default_factory=list)
    failure_class: FailureClass
    failure_detail: str = ""
    attribution: str = Field(
        default="", description="the row of harness.attribution.TABLE that decided failure_class"
    )
    prompt_sha256: str | None
    starter_tree_sha256: str | None
    frozen_prompt_sha256: str | None
    frozen_starter_tree_sha256: str | None
    worktree_archive_sha256: str | None = Field(
        default=None, description="SHA-256 of worktree.tar.gz as the runner wrote it"
    )
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


class RunningMarker(Root):
    """`units/<unit>/.running`: who runs the unit and where its scratch files are."""

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
    slot: SlotRecord | None = None
    arm_sha256: str | None = Field(
        default=None, description="the unit's arm folder's hash when its files were copied"
    )
