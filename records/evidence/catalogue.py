"""`evidence/<round>/catalogue.json`: the cohort checked against the gateway's catalogue before
spending (written by `harness.catalogue`; the check itself is `harness/catalogue/check.py`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from records.base import Frozen
from records.inputs import CatalogueRef

Policy = Literal["high", "default"]
MismatchField = Literal[
    "present",
    "canonical_slug",
    "tools",
    "tool_choice",
    "reasoning",
    "catalogue",
    "provider",
    "image_route",
]


class CatalogueSource(Frozen):
    """Which catalogue was checked: a snapshot file (with its hash) or the live API."""

    kind: Literal["snapshot", "live"]
    location: str = Field(description="snapshot file (relative to the repository) or base URL")
    sha256: str | None = Field(default=None, description="snapshot file bytes")
    captured_at: str | None = None
    routes: int
    listed: int


class Mismatch(Frozen):
    key: str
    route: str
    field: MismatchField
    kind: Literal["route", "input", "disclosed"]
    expected: str
    found: str
    detail: str

    def __str__(self) -> str:
        return f"{self.key} ({self.route}): {self.field}: {self.detail}"


class ReasoningCheck(Frozen):
    documented: Literal["effort", "toggle", "none"] = Field(
        description="effort: the route lists reasoning efforts; toggle: reasoning on/off only"
    )
    mandatory: bool | None = None
    default_enabled: bool | None = None
    supported_efforts: list[str] = Field(default_factory=list)
    default_effort: str | None = None
    policy: Policy = Field(description="the cohort's frozen reasoning policy")
    expected_policy: Policy = Field(description="high where the route supports it, else default")
    sends: str = Field(description="what the harness puts in every request for this policy")
    effect: str = Field(description="what the route then does, as its catalogue record says")


class RouteCheck(Frozen):
    key: str
    company: str
    display_name: str
    route: str
    expected_canonical_slug: str
    policy: Policy = Field(description="the cohort's frozen reasoning policy")
    present: bool = Field(description="listed in the catalogue")
    record_found: bool = Field(description="a record exists (a snapshot keeps delisted ones)")
    last_seen: str | None = None
    seen_in: str | None = None
    canonical_slug: str | None = None
    slug_matches: bool = False
    tools: bool = False
    tool_choice: bool = False
    supported_parameters: list[str] = Field(default_factory=list)
    reasoning: ReasoningCheck | None = None
    name: str = ""
    created: str | None = None
    prompt_usd_per_mtok: float | None = None
    completion_usd_per_mtok: float | None = None
    context_length: int | None = None
    max_completion_tokens: int | None = None
    reservation_usd: float | None = Field(
        default=None,
        description="credit live reserves per request: OpenCode's max_tokens x completion price",
    )
    warnings: list[str] = Field(default_factory=list)
    mismatches: list[Mismatch] = Field(default_factory=list)

    @property
    def gate_passed(self) -> bool:
        """The methodology's catalogue gate: no `route` mismatch and no disclosed gap."""
        return all(m.kind == "input" for m in self.mismatches)

    @property
    def passed(self) -> bool:
        """Nothing wrong in the cohort file (a disclosed gap is not wrong)."""
        return all(m.kind == "disclosed" for m in self.mismatches)

    def detail(self) -> str:
        return "; ".join(f"{m.field}: {m.detail}" for m in self.mismatches)


class CatalogueReport(Frozen):
    schema_version: Literal[1, 2, 3] = Field(
        default=3,
        description="2: mismatches of kind `disclosed` (a cohort's `unlisted` route); 3: of field "
        "`image_route` (a tools arm's image route, keyed by the arm)",
    )
    round_id: str | None = None
    cohort_id: str
    cohort_file: str | None = None
    cohort_sha256: str | None = None
    catalogue: CatalogueSource
    recorded_catalogue: CatalogueRef | None = Field(
        default=None, description="the snapshot the cohort file says it was checked against"
    )
    checked_at: str
    routes: list[RouteCheck]
    mismatches: list[Mismatch]
    notes: list[str] = Field(default_factory=list)
    passed: bool

    def route(self, key: str) -> RouteCheck:
        for route in self.routes:
            if route.key == key:
                return route
        raise KeyError(f"no route with key {key!r} in the catalogue report")


