"""Typed round inputs: the cohort file (`benchmark/models.json`) and round settings.

Every loader raises `RecordError` whose message names the file, the field and what is wrong.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from records.io import RecordError, read_record
from records.layout import BENCHMARK_DIR

ROUTE_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._:-]*$")
KEY_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Substitution(Strict):
    """A disclosed pre-freeze substitution: this entry replaces another candidate."""

    replaces: str = Field(description="display name of the candidate that was replaced")
    reason: str


class Candidate(Strict):
    key: str
    company: str
    display_name: str
    route: str = Field(description="OpenRouter model id, e.g. 'anthropic/claude-opus-4.5'")
    expected_canonical_slug: str
    reasoning: Literal["high", "default"]
    notes: str = ""
    substitution: Substitution | None = None
    scripted_model: str | None = Field(
        default=None,
        description="demo rounds only: the simulator script file under benchmark/demo/",
    )

    @field_validator("key")
    @classmethod
    def _key(cls, value: str) -> str:
        if not KEY_PATTERN.match(value):
            raise ValueError(f"key {value!r} must be lowercase letters, digits and hyphens")
        return value

    @field_validator("route", "expected_canonical_slug")
    @classmethod
    def _route(cls, value: str) -> str:
        if "/" not in value:
            raise ValueError(f"{value!r} has no slash: expected 'author/model'")
        if not ROUTE_PATTERN.match(value):
            raise ValueError(f"{value!r} is not a lowercase 'author/model' id")
        return value


class Cohort(Strict):
    cohort_id: str
    description: str
    candidates: list[Candidate]

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


class Gateway(Strict):
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


class Ceilings(Strict):
    steps: int = Field(ge=1, le=200)
    wall_clock_minutes: float = Field(gt=0, le=240)
    budget_usd: float = Field(gt=0)
    outage_seconds: float = Field(
        default=300,
        gt=0,
        description="no good upstream answer for this long (with upstream errors): provider outage",
    )


class RoundSettings(Strict):
    round_id: str
    title: str
    cohort: str = Field(description="cohort file, relative to benchmark/")
    gateway: Gateway
    ceilings: Ceilings
    node_version: str
    opencode_version: str
    seed: int
    probes: int = Field(default=3, ge=1)
    repetitions: int = Field(default=1, ge=1)
    requires_api_key: bool
    notes: str = ""

    @field_validator("round_id")
    @classmethod
    def _round_id(cls, value: str) -> str:
        if not KEY_PATTERN.match(value):
            raise ValueError(f"round_id {value!r} must be lowercase letters, digits and hyphens")
        return value

    @property
    def cohort_path(self) -> Path:
        return BENCHMARK_DIR / self.cohort


def load_cohort(path: Path) -> Cohort:
    return read_record(path, Cohort)


def rounds_dir() -> Path:
    return BENCHMARK_DIR / "rounds"


def round_settings_path(round_id: str) -> Path:
    return rounds_dir() / f"{round_id}.json"


def load_round(round_id: str) -> RoundSettings:
    path = round_settings_path(round_id)
    if not path.exists():
        known = sorted(p.stem for p in rounds_dir().glob("*.json"))
        raise RecordError(f"{path}: no such round {round_id!r}; known rounds: {', '.join(known)}")
    settings = read_record(path, RoundSettings)
    if settings.round_id != round_id:
        raise RecordError(
            f"{path}: field round_id: {settings.round_id!r} does not match the file name"
        )
    return settings
