"""Catalogues to check a cohort against: a committed snapshot file, or a live `/models` payload.

Both become one `Catalogue`: every route as a typed `CatalogueRoute` (the fields the check reads)
plus its raw record. A snapshot's `supplementary_partial[]` is kept apart and labelled: it is never
catalogue truth, and nothing in `Catalogue.routes` comes from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from records.base import Lenient
from records.evidence.catalogue import CatalogueSource
from records.hashing import file_sha256
from records.io import RecordError, read_json
from records.layout import BENCHMARK_DIR, REPO_ROOT

CATALOGUE_DIR = BENCHMARK_DIR / "catalogue"
DEFAULT_SNAPSHOT = CATALOGUE_DIR / "openrouter-2026-08-22.json"
SUPPLEMENTARY_LABEL = (
    "supplementary_partial: secondary, partial records (many fields null); never catalogue truth"
)


class ReasoningFields(Lenient):
    """The `reasoning` object of a `/models` record (absent or null: the route documents none)."""

    mandatory: bool | None = None
    default_enabled: bool | None = None
    supported_efforts: list[str] | None = None
    default_effort: str | None = None
    supports_max_tokens: bool | None = None


class CatalogueRoute(Lenient):
    """What the check reads from one catalogue record."""

    id: str
    canonical_slug: str | None = None
    name: str = ""
    created: str | None = Field(default=None, description="ISO 8601 UTC")
    prompt_price: str | None = Field(default=None, description="USD per prompt token")
    completion_price: str | None = Field(default=None, description="USD per completion token")
    context_length: int | None = None
    max_completion_tokens: int | None = None
    supported_parameters: list[str] = Field(default_factory=list)
    reasoning: ReasoningFields | None = None
    listed: bool = Field(
        default=True,
        description="listed in the catalogue's newest capture (a live catalogue lists all)",
    )
    last_seen: str | None = Field(default=None, description="snapshot: newest capture with it")
    seen_in: str | None = Field(default=None, description="snapshot: which captures list it")


@dataclass(frozen=True)
class Catalogue:
    source: CatalogueSource
    routes: dict[str, CatalogueRoute]
    raw: dict[str, dict[str, Any]] = field(repr=False)
    supplementary_partial: list[dict[str, Any]] = field(default_factory=list, repr=False)
    supplementary_label: str = SUPPLEMENTARY_LABEL
    # route -> its endpoints (`GET /models/{id}/endpoints`), read for pinned routes from a live
    # gateway; None for a snapshot, which has no endpoint lists
    endpoints: dict[str, list[dict[str, Any]]] | None = field(default=None, repr=False)

    def get(self, route: str) -> CatalogueRoute | None:
        return self.routes.get(route)

    def listed_records(self) -> list[dict[str, Any]]:
        """Raw records of the listed routes: what `/models` answered at the catalogue's date."""
        return [self.raw[rid] for rid, route in self.routes.items() if route.listed]


def _iso(created: Any, created_unix: Any = None) -> str | None:
    if isinstance(created, str) and created:
        return created
    stamp = created if isinstance(created, int | float) else created_unix
    if isinstance(stamp, int | float) and not isinstance(stamp, bool):
        return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return None


def _text(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def route_from_record(record: Mapping[str, Any], *, listed: bool | None = None) -> CatalogueRoute:
    """Typed view of one `/models` record (snapshot or live); raises ValidationError if malformed.

    `listed` defaults to the snapshot's `_provenance.in_latest_capture`, else True (live)."""
    pricing = record.get("pricing") or {}
    top = record.get("top_provider") or {}
    provenance = record.get("_provenance") or {}
    if listed is None:
        listed = provenance.get("in_latest_capture", True) is not False
    return CatalogueRoute.model_validate(
        {
            "id": record.get("id"),
            "canonical_slug": record.get("canonical_slug"),
            "name": record.get("name") or "",
            "created": _iso(record.get("created"), record.get("created_unix")),
            "prompt_price": _text(pricing.get("prompt")) if isinstance(pricing, dict) else None,
            "completion_price": (
                _text(pricing.get("completion")) if isinstance(pricing, dict) else None
            ),
            "context_length": record.get("context_length"),
            "max_completion_tokens": top.get("max_completion_tokens")
            if isinstance(top, dict)
            else None,
            "supported_parameters": record.get("supported_parameters") or [],
            "reasoning": record.get("reasoning"),
            "listed": listed,
            "last_seen": _text(provenance.get("capture_date")),
            "seen_in": _text(provenance.get("present_in_captures")),
        }
    )


def _routes(
    where: str, records: Iterable[Any], *, listed: bool | None
) -> tuple[dict[str, CatalogueRoute], dict[str, dict[str, Any]]]:
    routes: dict[str, CatalogueRoute] = {}
    raw: dict[str, dict[str, Any]] = {}
    for n, record in enumerate(records):
        if not isinstance(record, dict) or not isinstance(record.get("id"), str):
            raise RecordError(f"{where}: data[{n}] is not a model record with a string id")
        try:
            route = route_from_record(record, listed=listed)
        except ValidationError as exc:
            fields = "; ".join(
                f"field {'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
            )
            raise RecordError(f"{where}: data[{n}] ({record['id']}): {fields}") from exc
        if route.id in routes:
            raise RecordError(f"{where}: data[{n}]: duplicate route id {route.id!r}")
        routes[route.id] = route
        raw[route.id] = record
    return routes, raw


def display_path(path: Path) -> str:
    resolved = path.resolve()
    try:
        return resolved.relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return str(resolved)


def load_snapshot(path: Path = DEFAULT_SNAPSHOT) -> Catalogue:
    """A committed snapshot: `data[]` is the catalogue; `supplementary_partial[]` is kept apart."""
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise RecordError(f"{path}: expected an object with a data[] list of model records")
    routes, raw = _routes(str(path), data["data"], listed=None)
    captured = None
    for block in data.get("source") or []:
        if isinstance(block, dict) and block.get("latest_capture_ts"):
            captured = str(block["latest_capture_ts"])
            break
    supplementary = data.get("supplementary_partial") or []
    return Catalogue(
        source=CatalogueSource(
            kind="snapshot",
            location=display_path(path),
            sha256=file_sha256(path),
            captured_at=captured,
            routes=len(routes),
            listed=sum(r.listed for r in routes.values()),
        ),
        routes=routes,
        raw=raw,
        supplementary_partial=[r for r in supplementary if isinstance(r, dict)],
    )


def catalogue_from_models(
    records: Iterable[Mapping[str, Any]], *, base_url: str, captured_at: str | None = None
) -> Catalogue:
    """A live `/models` answer (its `data[]` records): every route in it is listed."""
    routes, raw = _routes(f"{base_url}/models", [dict(r) for r in records], listed=True)
    return Catalogue(
        source=CatalogueSource(
            kind="live",
            location=base_url,
            captured_at=captured_at or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            routes=len(routes),
            listed=len(routes),
        ),
        routes=routes,
        raw=raw,
    )
