"""A real catalogue for the simulator: a rehearsal serves a snapshot's routes, scripted behaviour.

A rehearsal round (`simulation` in its round file) names a catalogue snapshot and, per candidate,
a scripted-model file. Each script keeps its behaviour but its `catalogue` entry is replaced by the
snapshot's record of the candidate's route (id, canonical slug, supported parameters, pricing,
reasoning), so the preflight, the proxy's cost and every identity check meet real values. `/models`
answers the snapshot's listed records as they are (minus the snapshot's own `_provenance`). A route
the snapshot does not list (absent, or delisted before its newest capture) stays out of `/models`
and gets "not a valid model ID", as on the live gateway.
"""

from __future__ import annotations

from typing import Any

from records.catalogue import Catalogue, load_snapshot
from records.inputs import RoundSettings, load_cohort
from records.io import RecordError
from records.layout import BENCHMARK_DIR
from records.simulator_scripts import (
    CatalogueEntry,
    ReasoningSpec,
    ScriptedModel,
    load_script,
)

PROVIDER = "Rehearsal simulator"


def entry_from_record(record: dict[str, Any], *, listed: bool) -> CatalogueEntry:
    """The script-format catalogue entry of one snapshot record."""
    pricing = {k: v for k, v in (record.get("pricing") or {}).items() if isinstance(v, str)}
    top = record.get("top_provider") or {}
    context = int(record.get("context_length") or 0) or 128000
    fields = record.get("reasoning") or None
    reasoning = None
    if fields is not None:
        reasoning = ReasoningSpec(
            supported_efforts=list(fields.get("supported_efforts") or []),
            default_effort=fields.get("default_effort"),
            mandatory=bool(fields.get("mandatory")),
        )
    created = record.get("created_unix", record.get("created"))
    return CatalogueEntry(
        id=record["id"],
        canonical_slug=record.get("canonical_slug") or record["id"],
        name=record.get("name") or record["id"],
        listed=listed,
        created=created
        if isinstance(created, int)
        else CatalogueEntry.model_fields["created"].default,
        context_length=context,
        max_completion_tokens=int(top.get("max_completion_tokens") or context),
        pricing=pricing,
        supported_parameters=list(record.get("supported_parameters") or []),
        reasoning=reasoning,
        provider_name=PROVIDER,
    )


def absent_entry(route: str, slug: str) -> CatalogueEntry:
    """A route the catalogue lacks: the script is loaded but never listed or served."""
    return CatalogueEntry(
        id=route, canonical_slug=slug, name=route, listed=False, pricing={},
        supported_parameters=[], provider_name=PROVIDER,
    )  # fmt: skip


def bind(script: ScriptedModel, catalogue: Catalogue, route: str, slug: str) -> ScriptedModel:
    """`script`'s behaviour on `route`, with the catalogue's record (or absent)."""
    found = catalogue.get(route)
    if found is None:
        entry = absent_entry(route, slug)
    else:
        entry = entry_from_record(catalogue.raw[route], listed=found.listed)
    return script.model_copy(update={"catalogue": entry})


def live_shape(record: dict[str, Any]) -> dict[str, Any]:
    """A snapshot record as `/models` sends it: `created` in unix seconds, no `_provenance`."""
    out = {k: v for k, v in record.items() if k not in ("_provenance", "created_unix")}
    if isinstance(record.get("created_unix"), int):
        out["created"] = record["created_unix"]
    return out


def served_records(catalogue: Catalogue) -> list[dict[str, Any]]:
    """What `/models` answers: the catalogue's listed records, in the live shape."""
    return [live_shape(record) for record in catalogue.listed_records()]


def rehearsal_models(settings: RoundSettings) -> tuple[list[ScriptedModel], Catalogue]:
    """The scripts of a rehearsal round, each bound to its candidate's route, and the catalogue."""
    simulation = settings.simulation
    if simulation is None:
        raise RecordError(f"round {settings.round_id!r}: no simulation (not a rehearsal)")
    catalogue = load_snapshot(simulation.catalogue_path)
    cohort = load_cohort(settings.cohort_path)
    keys = {c.key for c in cohort.candidates}
    unknown = sorted(set(simulation.scripts) - keys)
    missing = sorted(keys - set(simulation.scripts))
    if unknown or missing:
        raise RecordError(
            f"round {settings.round_id!r}: field simulation.scripts: "
            + "; ".join(
                part
                for part in (
                    f"no candidate {', '.join(unknown)} in {settings.cohort}" if unknown else "",
                    f"no script for {', '.join(missing)}" if missing else "",
                )
                if part
            )
        )
    scripts = [
        bind(
            load_script(BENCHMARK_DIR / simulation.scripts[c.key]),
            catalogue,
            c.route,
            c.expected_canonical_slug,
        )
        for c in cohort.candidates
    ]
    return scripts, catalogue
