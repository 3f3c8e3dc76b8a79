"""Typed round inputs: the cohort file (`benchmark/models.json`) and round settings.

Every loader raises `RecordError` whose message names the file, the field and what is wrong.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from records import fixed_controls
from records.base import Frozen
from records.evidence.agent import AgentInfo
from records.fixed_controls import ControlDifference
from records.interventions import Arm, Factor, InterventionSpec, load_arms
from records.io import RecordError, read_record
from records.layout import BENCHMARK_DIR
from records.slots import REAL_SLOT, SHARED_SLOT, SlotShape
from records.task import DEFAULT_TASK, Task, load_task

ROUTE_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._:-]*$")
KEY_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")
SHA256_PATTERN = re.compile(r"^[0-9a-f]{64}$")
DATE_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}$")
COHORT_SCHEMA_VERSION = 4
"""2: `catalogue`, the snapshot checked against; 3: `advanced_from`; 4: a candidate's `unlisted`."""
RoundKind = Literal["demo", "rehearsal", "real"]
DEFAULT_AGENT = AgentInfo(name="opencode", version="1.17.18")  # round files that name none


class Substitution(Frozen):
    """A disclosed pre-freeze substitution: this entry replaces another candidate."""

    replaces: str = Field(description="display name of the candidate that was replaced")
    reason: str


class Unlisted(Frozen):
    """A disclosed gap: the cohort names this route although the catalogue it was checked against
    no longer lists it. The catalogue check then reports the gap as disclosed, not as a mistake in
    the cohort file; the preflight still records the route as not testable (catalogue)."""

    last_listed: str = Field(description="date of the newest capture that lists the route")
    reason: str = Field(description="why the route stays in the cohort")

    @field_validator("last_listed")
    @classmethod
    def _date(cls, value: str) -> str:
        if not DATE_PATTERN.match(value):
            raise ValueError(f"last_listed {value!r} is not a date (YYYY-MM-DD)")
        return value


class PinnedProvider(Frozen):
    """One provider of a route, as its endpoint lists it (`GET /models/{id}/endpoints`)."""

    slug: str = Field(description="the endpoint's `tag`, what provider.only and order take")
    name: str = Field(description="the endpoint's `provider_name`, what a response reports")


class ProviderPin(Frozen):
    """The providers a route may be served by, frozen with the cohort.

    OpenRouter reorders a route's providers per request (Auto Exacto on tool-calling requests), so
    without a pin one unit's requests can be served by different providers and quantizations. The
    proxy sends `provider.only` and `provider.order` (the slugs) with `allow_fallbacks: false` and
    `require_parameters: true` (and `quantizations`, when given); a response that names any other
    provider contradicts the frozen identity and invalidates the unit."""

    only: list[PinnedProvider] = Field(min_length=1, description="in order of preference")
    quantizations: list[str] = Field(default_factory=list)


class Candidate(Frozen):
    key: str
    company: str
    display_name: str
    route: str = Field(description="OpenRouter model id, e.g. 'anthropic/claude-opus-4.5'")
    expected_canonical_slug: str
    reasoning: Literal["high", "default"]
    notes: str = ""
    substitution: Substitution | None = None
    unlisted: Unlisted | None = None
    provider: ProviderPin | None = Field(
        default=None, description="the frozen provider policy (None: the gateway's routing)"
    )
    scripted_model: str | None = Field(
        default=None,
        description="demo rounds only: the simulator script file under benchmark/demo/",
    )

    @field_validator("key")
    @classmethod
    def _key(cls, value: str) -> str:
        if not KEY_PATTERN.match(value):
            raise ValueError(f"key {value!r} must be lowercase letters, digits and hyphens")
        if "-via-" in value:
            raise ValueError(f"key {value!r}: '-via-' names an agent arm in unit ids")
        return value

    @field_validator("route", "expected_canonical_slug")
    @classmethod
    def _route(cls, value: str) -> str:
        if "/" not in value:
            raise ValueError(f"{value!r} has no slash: expected 'author/model'")
        if not ROUTE_PATTERN.match(value):
            raise ValueError(f"{value!r} is not a lowercase 'author/model' id")
        return value


class CatalogueRef(Frozen):
    """The catalogue snapshot a cohort's routes and slugs were checked against."""

    file: str = Field(description="snapshot file, relative to benchmark/")
    sha256: str = Field(description="SHA-256 of the snapshot file's bytes")

    @field_validator("sha256")
    @classmethod
    def _sha(cls, value: str) -> str:
        if not SHA256_PATTERN.match(value):
            raise ValueError(f"{value!r} is not a lowercase hex SHA-256")
        return value

    @property
    def path(self) -> Path:
        return BENCHMARK_DIR / self.file


class AdvancedFrom(Frozen):
    """Provenance of a cohort written by `python -m harness.advance` from a round's leaderboard."""

    round_id: str = Field(description="the source round")
    leaderboard: str = Field(description="the source leaderboard.json, relative to the repository")
    leaderboard_sha256: str
    standing: Literal["provisional", "final"]
    allow_provisional: bool = Field(
        description="true only when the operator advanced on a provisional (projected) standing"
    )
    advancing: list[str] = Field(description="the leaderboard's advancing candidate codes")
    source_cohort: str = Field(description="the source round's cohort file, relative to benchmark/")
    source_cohort_sha256: str
    tag: str | None = Field(description="the source round's git tag (round/<round>), if tagged")
    tag_commit: str | None = None
    advanced_at: str


class Cohort(Frozen):
    schema_version: int = Field(
        default=1,
        description="1: no catalogue reference (older files); 2: with `catalogue`; "
        "3: with `advanced_from`; 4: with a candidate's `unlisted`",
    )
    cohort_id: str
    description: str
    candidates: list[Candidate]
    catalogue: CatalogueRef | None = None
    advanced_from: AdvancedFrom | None = None

    @field_validator("schema_version")
    @classmethod
    def _version(cls, value: int) -> int:
        if not 1 <= value <= COHORT_SCHEMA_VERSION:
            raise ValueError(
                f"schema_version {value} is not one this checkout reads "
                f"(1 to {COHORT_SCHEMA_VERSION})"
            )
        return value

    @model_validator(mode="after")
    def _catalogue_needs_v2(self) -> Cohort:
        if self.catalogue is not None and self.schema_version < 2:
            raise ValueError("catalogue needs schema_version 2")
        if self.advanced_from is not None and self.schema_version < 3:
            raise ValueError("advanced_from needs schema_version 3")
        if self.schema_version < 4:
            for candidate in self.candidates:
                if candidate.unlisted is not None:
                    raise ValueError(
                        f"candidate {candidate.key!r}: unlisted needs schema_version 4"
                    )
        return self

    @model_validator(mode="after")
    def _unique(self) -> Cohort:
        for attr in ("key", "company", "route"):
            seen: set[str] = set()
            for candidate in self.candidates:
                value = getattr(candidate, attr)
                if value in seen:
                    raise ValueError(
                        f"duplicate {attr} {value!r}: each candidate needs its own {attr}"
                    )
                seen.add(value)
        return self

    def by_key(self, key: str) -> Candidate:
        for candidate in self.candidates:
            if candidate.key == key:
                return candidate
        raise KeyError(f"no candidate with key {key!r} in cohort {self.cohort_id!r}")


class Gateway(Frozen):
    kind: Literal["simulator", "openrouter"]
    base_url: str = Field(description="OpenRouter-compatible API root, ending in /api/v1")

    @field_validator("base_url")
    @classmethod
    def _base(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")) or not value.rstrip("/").endswith(
            "/api/v1"
        ):
            raise ValueError(f"{value!r} must be an http(s) URL ending in /api/v1")
        return value.rstrip("/")


class Ceilings(Frozen):
    """A round's ceilings, as the round file states them (session.json records the same)."""

    steps: int = Field(ge=1, le=200)
    wall_clock_minutes: float = Field(gt=0, le=240)
    budget_usd: float = Field(gt=0)
    outage_seconds: float = Field(
        default=300,
        gt=0,
        description="no good upstream answer for this long (with upstream errors): provider outage",
    )

    @model_validator(mode="before")
    @classmethod
    def _from_seconds(cls, data: Any) -> Any:
        """session.json of schema 1 recorded `wall_clock_seconds`."""
        if isinstance(data, dict) and "wall_clock_seconds" in data:
            data = dict(data)
            data.setdefault("wall_clock_minutes", data.pop("wall_clock_seconds") / 60)
            data.pop("wall_clock_seconds", None)
        return data

    @property
    def wall_clock_seconds(self) -> float:
        return self.wall_clock_minutes * 60


class Simulation(Frozen):
    """A rehearsal: the simulator serves a real catalogue snapshot, one script per candidate."""

    catalogue: str = Field(description="catalogue snapshot file, relative to benchmark/")
    scripts: dict[str, str] = Field(
        description="candidate key -> scripted-model file (relative to benchmark/) whose "
        "behaviour that route gets; its own catalogue entry is replaced by the snapshot's record"
    )

    @property
    def catalogue_path(self) -> Path:
        return BENCHMARK_DIR / self.catalogue


class RoundSettings(Frozen):
    round_id: str
    title: str
    kind: RoundKind = Field(
        description="demo: scripted fictional models; rehearsal: a real cohort served by the "
        "simulator; real: the paid gateway (default from gateway.kind)"
    )
    cohort: str = Field(description="cohort file, relative to benchmark/")
    task: str = Field(
        default=DEFAULT_TASK,
        description="the task every session gets: a folder of benchmark/tasks/ (records/task.py)",
    )
    gateway: Gateway
    simulation: Simulation | None = None
    ceilings: Ceilings
    node_version: str
    agent: AgentInfo = Field(
        default=DEFAULT_AGENT,
        description="the agent every session runs (name and exact version); in an intervention "
        "round, the baseline (the first of `agents`)",
    )
    agents: list[AgentInfo] = Field(
        default_factory=list,
        description="an intervention round: every model runs with each of these agents (the "
        "first is the baseline the others are compared with); empty: one agent, `agent`",
    )
    intervention: InterventionSpec | None = Field(
        default=None,
        description="an intervention round on a factor other than the agent: every model runs "
        "with `agent` in each arm (`benchmark/interventions/<factor>/<arm>/`, the baseline first)",
    )
    opencode_version: str | None = Field(
        default=None, description="older round files name the agent only by this; see `agent`"
    )
    seed: int
    probes: int = Field(default=3, ge=1)
    repetitions: int = Field(default=1, ge=1)
    advances_from: str | None = Field(
        default=None,
        description="the round whose final leaderboard writes this round's cohort file "
        "(python -m harness.advance <source> --to <round>)",
    )
    max_parallel_sessions: int = Field(
        default=1,
        ge=1,
        le=8,
        description="scored sessions at once, started in frozen order (harness/parallel.py); "
        "real rounds keep 1 unless the gateway's rate limits allow more",
    )
    slot: SlotShape | None = Field(
        default=None,
        description="the shape of the slot every unit runs in (records/slots.py); None: a real "
        "round's 2 pinned CPUs and 8 GiB, a simulated round's shared CPUs and 8 GiB",
    )
    repetition_scripts: dict[str, dict[int, str]] = Field(
        default_factory=dict,
        description="simulated rounds only: candidate key -> repetition -> scripted-model file "
        "(relative to benchmark/) whose session behaviour that candidate's route has in that "
        "repetition (its catalogue entry, identity and prices stay its own): a flaky model",
    )
    requires_api_key: bool
    notes: str = ""

    @model_validator(mode="before")
    @classmethod
    def _default_kind(cls, data: Any) -> Any:
        if isinstance(data, dict) and "kind" not in data and isinstance(data.get("gateway"), dict):
            gateway = data["gateway"].get("kind")
            return {**data, "kind": "real" if gateway == "openrouter" else "demo"}
        return data

    @field_validator("round_id")
    @classmethod
    def _round_id(cls, value: str) -> str:
        if not KEY_PATTERN.match(value):
            raise ValueError(f"round_id {value!r} must be lowercase letters, digits and hyphens")
        return value

    @model_validator(mode="before")
    @classmethod
    def _agent_from_opencode_version(cls, data: Any) -> Any:
        if isinstance(data, dict) and "agent" not in data and data.get("opencode_version"):
            return {**data, "agent": {"name": "opencode", "version": data["opencode_version"]}}
        return data

    @model_validator(mode="before")
    @classmethod
    def _baseline_agent(cls, data: Any) -> Any:
        if isinstance(data, dict) and "agent" not in data and data.get("agents"):
            return {**data, "agent": data["agents"][0]}
        return data

    @model_validator(mode="after")
    def _intervention_arms(self) -> RoundSettings:
        if self.agents and self.intervention is not None:
            raise ValueError(
                f"intervention: a round varies one factor only; it lists agents (the agent "
                f"factor) and declares the {self.intervention.factor} factor"
            )
        if not self.agents:
            return self
        names = [a.name for a in self.agents]
        if len(names) < 2 or len(set(names)) != len(names):
            raise ValueError(
                f"agents: an intervention round lists two or more agents, each once ({names})"
            )
        if self.agents[0] != self.agent:
            raise ValueError(
                f"agent: {self.agent.name} {self.agent.version} is not the baseline, the first of "
                f"agents ({self.agents[0].name} {self.agents[0].version})"
            )
        return self

    @property
    def slot_shape(self) -> SlotShape:
        """The slot every unit runs in: the file's `slot`, or the default for the round's kind."""
        if self.slot is not None:
            return self.slot
        return REAL_SLOT if self.kind == "real" else SHARED_SLOT

    @model_validator(mode="after")
    def _real_round_is_pinned(self) -> RoundSettings:
        if self.kind == "real" and not self.slot_shape.pinned:
            raise ValueError(
                "slot.pinned: a real round's units run on CPUs of their own (pinned true); only a "
                "demo or rehearsal round may share them"
            )
        return self

    @property
    def agents_run(self) -> list[AgentInfo]:
        """The agents the round's sessions run: each of `agents`, or the one `agent`."""
        return list(self.agents) or [self.agent]

    @property
    def is_intervention(self) -> bool:
        """The round varies one factor (its agents, or its `intervention`'s arms)."""
        return bool(self.agents) or self.intervention is not None

    @property
    def factor(self) -> Factor | None:
        """The factor the round varies (None: a round of one arm)."""
        if self.agents:
            return "agent"
        return self.intervention.factor if self.intervention is not None else None

    @property
    def arm_ids(self) -> list[str]:
        """The arms' ids, the baseline first (the `-via-<arm>` of entrant keys; empty: none)."""
        if self.agents:
            return [a.name for a in self.agents]
        return list(self.intervention.arms) if self.intervention is not None else []

    def load_arms(self) -> list[Arm]:
        """The `intervention`'s arm folders, checked (empty for the agent factor or none)."""
        return load_arms(self.intervention) if self.intervention is not None else []

    @model_validator(mode="after")
    def _one_agent_version(self) -> RoundSettings:
        named = self.opencode_version
        if named is not None and self.agent.name == "opencode" and named != self.agent.version:
            raise ValueError(
                f"opencode_version {named!r} differs from agent.version {self.agent.version!r}: "
                "name the agent once"
            )
        return self

    @model_validator(mode="after")
    def _kind_matches_gateway(self) -> RoundSettings:
        simulated = self.gateway.kind == "simulator"
        if (self.kind == "real") == simulated:
            raise ValueError(
                f"kind {self.kind!r} does not fit gateway {self.gateway.kind!r}: a real round uses "
                "openrouter, a demo or rehearsal the simulator"
            )
        if self.simulation is not None and not simulated:
            raise ValueError("simulation needs the simulator gateway")
        if self.repetition_scripts and not simulated:
            raise ValueError("repetition_scripts needs the simulator gateway (scripted models)")
        for key, by_repetition in self.repetition_scripts.items():
            beyond = sorted(r for r in by_repetition if not 1 <= r <= self.repetitions)
            if beyond:
                raise ValueError(
                    f"repetition_scripts[{key!r}]: repetitions {beyond} outside "
                    f"1..{self.repetitions}"
                )
        if (self.kind == "rehearsal") != (self.simulation is not None):
            raise ValueError("a rehearsal round needs simulation (and only a rehearsal has one)")
        return self

    @property
    def control_differences(self) -> list[ControlDifference]:
        """The methodology's fixed controls this round sets otherwise (records/fixed_controls.py):
        none in a real round (refused at load); disclosed on a demo or rehearsal round's pages."""
        return fixed_controls.differences(
            steps=self.ceilings.steps,
            wall_clock_minutes=self.ceilings.wall_clock_minutes,
            probes=self.probes,
            node_version=self.node_version,
            agent_name=self.agent.name,
            agent_version=self.agent.version,
        )

    @model_validator(mode="after")
    def _real_round_keeps_the_fixed_controls(self) -> RoundSettings:
        if self.kind == "real" and (found := self.control_differences):
            raise ValueError(
                "a real round must keep the methodology's fixed controls; only a demo or "
                f"rehearsal round may differ: {'; '.join(str(d) for d in found)}"
            )
        return self

    @property
    def cohort_path(self) -> Path:
        return BENCHMARK_DIR / self.cohort

    def load_task(self) -> Task:
        """The round's task folder (a missing or broken one raises RecordError naming it)."""
        return load_task(self.task)


def load_cohort(path: Path) -> Cohort:
    return read_record(path, Cohort)


def rounds_dir() -> Path:
    return BENCHMARK_DIR / "rounds"


def round_settings_path(round_id: str) -> Path:
    return rounds_dir() / f"{round_id}.json"


def load_round(round_id: str, require_cohort: bool = True) -> RoundSettings:
    """The round file; an advanced round whose cohort is not written yet says how to write it."""
    path = round_settings_path(round_id)
    if not path.exists():
        known = sorted(p.stem for p in rounds_dir().glob("*.json"))
        raise RecordError(f"{path}: no such round {round_id!r}; known rounds: {', '.join(known)}")
    settings = read_record(path, RoundSettings)
    settings.load_arms()  # a missing or broken arm folder names its arm.json and field
    if settings.round_id != round_id:
        raise RecordError(
            f"{path}: field round_id: {settings.round_id!r} does not match the file name"
        )
    source = settings.advances_from
    if require_cohort and source is not None and not settings.cohort_path.exists():
        raise RecordError(
            f"{path}: field cohort: {settings.cohort_path} does not exist yet: run "
            f"python -m harness.advance {source} --to {round_id} first"
        )
    return settings
