"""The catalogue check: a cohort's frozen expectations against an OpenRouter catalogue.

    check_candidate(candidate, catalogue) -> RouteCheck
    check_cohort(cohort, catalogue, round_id=..., cohort_path=...) -> CatalogueReport

Pure: no network, no clock except the report's `checked_at`. The same function serves the CLI
(`python -m harness.catalogue check`) and the preflight's catalogue step, so they cannot disagree.

Every mismatch names the candidate, the route and the field, and has a kind:

- `route`: the methodology's catalogue gate (present, canonical slug equals the frozen one,
  `tools` and `tool_choice` advertised). At preflight such a route is "not testable", class
  `catalogue`; it is never silently replaced.
- `input`: the cohort file disagrees with what the route documents (the frozen reasoning policy is
  not "high where the route supports it, otherwise the documented default", or a disclosed gap
  that the catalogue contradicts). That is an error in the frozen inputs, to be fixed before the
  round is frozen; it says nothing about the model.
- `disclosed`: a route the cohort names although the catalogue no longer lists it, disclosed in
  the cohort file (`unlisted`: the date of the newest capture that lists it, and why it stays).
  Still a failed catalogue gate (not testable at preflight), but not a mistake in the cohort:
  the check passes with it. Only a route some capture listed can be disclosed; a route no
  capture ever listed is a `route` mismatch whatever the cohort says.

A tools round's image routes (each gateway arm's `tool.route`) are checked too, as field
`image_route` (keyed by the arm): listed, with image output. Such a mismatch refuses the catalogue
stage: the arm could not make a single image, and nothing has been spent yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Literal

from records.catalogue import Catalogue, CatalogueRoute, display_path
from records.evidence.catalogue import (
    CatalogueReport,
    Mismatch,
    Policy,
    ReasoningCheck,
    RouteCheck,
)
from records.hashing import file_sha256
from records.image_tool import ImageRoute
from records.inputs import Candidate, Cohort
from records.interventions import Arm
from records.io import RecordError

OPENCODE_MAX_TOKENS = 32_000  # OpenCode 1.17.18 sends max_tokens 32000 on every request

REQUIRED: tuple[Literal["tools", "tool_choice"], ...] = ("tools", "tool_choice")


def per_mtok(price: str | None) -> float | None:
    if price is None:
        return None
    try:
        return float(Decimal(price) * 1_000_000)
    except (InvalidOperation, ValueError):
        return None


def _reservation(price: str | None) -> float | None:
    if price is None:
        return None
    try:
        return float(Decimal(price) * OPENCODE_MAX_TOKENS)
    except (InvalidOperation, ValueError):
        return None


def reasoning_check(route: CatalogueRoute, policy: Policy) -> ReasoningCheck:
    """What the route documents about reasoning, and what the frozen policy makes of it."""
    fields = route.reasoning
    params = set(route.supported_parameters)
    efforts = list(fields.supported_efforts or []) if fields else []
    if efforts or "reasoning_effort" in params:
        documented: Literal["effort", "toggle", "none"] = "effort"
    elif "reasoning" in params or fields is not None:
        documented = "toggle"
    else:
        documented = "none"
    high_ok = documented == "effort" and (not efforts or "high" in efforts)
    expected: Policy = "high" if high_ok else "default"
    mandatory = fields.mandatory if fields else None
    enabled = fields.default_enabled if fields else None
    default_effort = fields.default_effort if fields else None
    if policy == "high":
        sends = 'reasoning {"effort": "high"}'
        effect = "effort high" if high_ok else "effort high requested; the route documents none"
    else:
        sends = "no reasoning parameter"
        if documented == "none":
            effect = "no reasoning"
        elif mandatory:
            effect = "reasoning always on (mandatory)" + (
                f", default effort {default_effort}" if default_effort else ""
            )
        elif enabled is True:
            effect = "reasoning on by default" + (
                f", default effort {default_effort}" if default_effort else ""
            )
        elif enabled is False:
            effect = "reasoning off unless requested"
        else:
            effect = "the route's default (the catalogue does not say whether it reasons)"
    return ReasoningCheck(
        documented=documented, mandatory=mandatory, default_enabled=enabled,
        supported_efforts=efforts, default_effort=default_effort, policy=policy,
        expected_policy=expected, sends=sends, effect=effect,
    )  # fmt: skip


def _presence(
    candidate: Candidate, route: CatalogueRoute | None, catalogue: Catalogue
) -> Mismatch | None:
    """The `present` field: listed, or a gap the cohort discloses truthfully, or a mismatch."""
    key, rid, told = candidate.key, candidate.route, candidate.unlisted
    where = catalogue.source.captured_at or catalogue.source.location

    def miss(
        kind: Literal["route", "input", "disclosed"], expected: str, found: str, detail: str
    ) -> Mismatch:
        return Mismatch(
            key=key,
            route=rid,
            field="present",
            kind=kind,
            expected=expected,
            found=found,
            detail=detail,
        )

    if route is not None and route.listed:
        if told is None:
            return None
        return miss(
            "input",
            f"unlisted since {told.last_listed}",
            "listed",
            f"the cohort discloses {rid} as unlisted (last listed {told.last_listed}) but "
            f"the catalogue ({where}) lists it: remove `unlisted` from the cohort file",
        )
    if route is None:
        if told is not None and catalogue.source.kind == "live":
            return miss(
                "disclosed",
                "listed",
                "absent",
                f"{rid} is not in the live /models ({catalogue.source.location}), as the "
                f"cohort discloses (last listed {told.last_listed}: {told.reason})",
            )
        never = " in any capture; only a route a capture listed can be disclosed" if told else ""
        return miss(
            "route",
            "listed",
            "absent",
            f"{rid} is not in /models ({catalogue.source.location}){never}",
        )
    newest = (
        f"its newest record is from {route.last_seen or 'an older source'} "
        f"(captures: {route.seen_in or 'none'})"
    )
    if told is None:
        return miss(
            "route",
            "listed",
            "delisted",
            f"{rid} is not listed in the catalogue's newest capture ({where}); {newest}",
        )
    if route.last_seen != told.last_listed:
        return miss(
            "input",
            f"last listed {told.last_listed}",
            f"last listed {route.last_seen}",
            f"the cohort discloses {rid} as last listed {told.last_listed}, but {newest}",
        )
    return miss(
        "disclosed",
        "listed",
        "delisted",
        f"{rid} is not listed in the catalogue's newest capture ({where}); {newest}; "
        f"disclosed by the cohort: {told.reason}",
    )


def _pin_mismatches(candidate: Candidate, catalogue: Catalogue) -> list[Mismatch]:
    """Each pinned provider must have an endpoint for the route (`tag` = the pinned slug) that
    takes `tools` and `tool_choice`, under the name the cohort gives it."""
    pin, listed = candidate.provider, catalogue.endpoints
    if pin is None or listed is None:
        return []
    endpoints = listed.get(candidate.route, [])
    tags = ", ".join(str(e.get("tag")) for e in endpoints) or "no endpoints"
    found: list[Mismatch] = []

    def mismatch(kind: Literal["route", "input"], expected: str, seen: str, why: str) -> None:
        found.append(Mismatch(key=candidate.key, route=candidate.route, field="provider",
                              kind=kind, expected=expected, found=seen, detail=why))  # fmt: skip

    for p in pin.only:
        endpoint = next((e for e in endpoints if e.get("tag") == p.slug), None)
        if endpoint is None:
            mismatch(
                "route",
                f"an endpoint tagged {p.slug!r}",
                tags,
                f"pinned provider {p.name} ({p.slug}) has no endpoint for the route",
            )
            continue
        params = endpoint.get("supported_parameters") or []
        lacking = [name for name in REQUIRED if name not in params]
        if lacking:
            mismatch(
                "route",
                "tools and tool_choice",
                ", ".join(params) or "none",
                f"pinned provider {p.name}'s endpoint does not take {', '.join(lacking)}",
            )
        if endpoint.get("provider_name") != p.name:
            mismatch(
                "input",
                p.name,
                str(endpoint.get("provider_name")),
                f"the endpoint tagged {p.slug!r} is {endpoint.get('provider_name')!r}, not "
                f"{p.name!r}: a response names the provider_name, so fix the cohort's name",
            )
    return found


def check_candidate(candidate: Candidate, catalogue: Catalogue) -> RouteCheck:
    """One route of the cohort against the catalogue."""
    key, rid = candidate.key, candidate.route
    base = RouteCheck(
        key=key, company=candidate.company, display_name=candidate.display_name, route=rid,
        expected_canonical_slug=candidate.expected_canonical_slug, policy=candidate.reasoning,
        present=False, record_found=False,
    )  # fmt: skip
    route = catalogue.get(rid)
    presence = _presence(candidate, route, catalogue)
    if route is None:
        return base.model_copy(update={"mismatches": [presence] if presence else []})
    mismatches: list[Mismatch] = [presence] if presence else []
    params = list(route.supported_parameters)
    slug_ok = route.canonical_slug == candidate.expected_canonical_slug
    if not slug_ok:
        mismatches.append(
            Mismatch(
                key=key,
                route=rid,
                field="canonical_slug",
                kind="route",
                expected=candidate.expected_canonical_slug,
                found=str(route.canonical_slug),
                detail=(
                    f"canonical_slug {route.canonical_slug!r} != expected "
                    f"{candidate.expected_canonical_slug!r}"
                ),
            )  # fmt: skip
        )
    for name in REQUIRED:
        if name not in params:
            mismatches.append(
                Mismatch(
                    key=key,
                    route=rid,
                    field=name,
                    kind="route",
                    expected="advertised",
                    found="not advertised",
                    detail=f"supported_parameters does not advertise {name!r}",
                )  # fmt: skip
            )
    reasoning = reasoning_check(route, candidate.reasoning)
    if reasoning.policy != reasoning.expected_policy:
        if reasoning.expected_policy == "high":
            why = (
                f"frozen reasoning 'default' but the route documents effort 'high' "
                f"(efforts: {', '.join(reasoning.supported_efforts) or 'reasoning_effort'}); "
                "the methodology sends high where the route supports it"
            )
        else:
            listed = ", ".join(reasoning.supported_efforts)
            why = (
                f"frozen reasoning 'high' but the route documents no effort 'high' "
                f"({reasoning.documented}{': ' + listed if listed else ''}); "
                "the methodology uses the documented default there"
            )
        mismatches.append(
            Mismatch(
                key=key,
                route=rid,
                field="reasoning",
                kind="input",
                expected=reasoning.expected_policy,
                found=reasoning.policy,
                detail=why,
            )  # fmt: skip
        )
    mismatches += _pin_mismatches(candidate, catalogue)
    warnings: list[str] = []
    if candidate.provider and catalogue.endpoints is None:
        warnings.append("provider pin not verified here: a snapshot has no endpoint lists")
    limit = route.max_completion_tokens
    if limit is not None and limit < OPENCODE_MAX_TOKENS:
        warnings.append(
            f"max_completion_tokens {limit} < the max_tokens {OPENCODE_MAX_TOKENS} OpenCode sends"
        )
    return base.model_copy(
        update={
            "present": route.listed, "record_found": True, "last_seen": route.last_seen,
            "seen_in": route.seen_in, "canonical_slug": route.canonical_slug,
            "slug_matches": slug_ok, "tools": "tools" in params,
            "tool_choice": "tool_choice" in params, "supported_parameters": params,
            "reasoning": reasoning, "name": route.name, "created": route.created,
            "prompt_usd_per_mtok": per_mtok(route.prompt_price),
            "completion_usd_per_mtok": per_mtok(route.completion_price),
            "context_length": route.context_length,
            "max_completion_tokens": route.max_completion_tokens,
            "reservation_usd": _reservation(route.completion_price),
            "warnings": warnings, "mismatches": mismatches,
        }
    )  # fmt: skip


def check_image_routes(arms: Sequence[Arm], catalogue: Catalogue) -> list[Mismatch]:
    """Each tools arm's image route (a gateway backend's `tool.route`) against the catalogue:
    listed, and its record outputs images. One mismatch per arm that could not run."""
    found: list[Mismatch] = []
    for arm in arms:
        tool = arm.manifest.tool
        if tool is None or tool.route is None:
            continue
        route, where = catalogue.get(tool.route), catalogue.source.location
        if route is None or not route.listed:
            seen = "absent" if route is None else "delisted"
            why = f"{tool.route} is {seen} in the gateway's catalogue ({where})"
        else:
            try:
                ImageRoute.from_record(catalogue.raw[tool.route])
                continue
            except RecordError as exc:
                seen, why = "no image output", str(exc)
        found.append(
            Mismatch(
                key=arm.id,
                route=tool.route,
                field="image_route",
                kind="route",
                expected="listed, with image output",
                found=seen,
                detail=f"the tools arm {arm.id!r} cannot make an image: {why}",
            )  # fmt: skip
        )
    return found


def check_cohort(
    cohort: Cohort,
    catalogue: Catalogue,
    *,
    round_id: str | None = None,
    cohort_path: Path | None = None,
    arms: Sequence[Arm] = (),
) -> CatalogueReport:
    """Every route of the cohort, in cohort order, then the `arms`' image routes; `passed` when
    nothing mismatches but the gaps the cohort discloses."""
    routes = [check_candidate(c, catalogue) for c in cohort.candidates]
    cohort_file = display_path(cohort_path) if cohort_path else None
    mismatches, notes = _recorded_catalogue(cohort, catalogue, cohort_file)
    mismatches += [m for r in routes for m in r.mismatches]
    mismatches += check_image_routes(arms, catalogue)
    return CatalogueReport(
        round_id=round_id,
        cohort_id=cohort.cohort_id,
        cohort_file=cohort_file,
        cohort_sha256=file_sha256(cohort_path) if cohort_path else None,
        catalogue=catalogue.source,
        recorded_catalogue=cohort.catalogue,
        checked_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        routes=routes,
        mismatches=mismatches,
        notes=notes,
        passed=all(m.kind == "disclosed" for m in mismatches),
    )


def _recorded_catalogue(
    cohort: Cohort, catalogue: Catalogue, cohort_file: str | None
) -> tuple[list[Mismatch], list[str]]:
    """The snapshot the cohort records: a mismatch only when that very file changed since."""
    ref, source = cohort.catalogue, catalogue.source
    if ref is None:
        return [], ["the cohort file records no catalogue snapshot (cohort schema 1)"]
    recorded = display_path(ref.path)
    if source.kind != "snapshot" or source.location != recorded:
        return [], [f"the cohort records {recorded} (sha256 {ref.sha256[:12]}); checked here "
                    f"against the {source.kind} catalogue {source.location}"]  # fmt: skip
    if source.sha256 == ref.sha256:
        return [], []
    miss = Mismatch(
        key="cohort", route=cohort_file or cohort.cohort_id, field="catalogue", kind="input",
        expected=ref.sha256, found=str(source.sha256),
        detail=f"{recorded} has sha256 {source.sha256} but the cohort records {ref.sha256}",
    )  # fmt: skip
    return [miss], []


def _money(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _count(value: int | None) -> str:
    if value is None:
        return "-"
    return f"{value // 1000}k" if value >= 1000 else str(value)


def _yes(value: bool, known: bool) -> str:
    return ("yes" if value else "NO") if known else "-"


def render_table(report: CatalogueReport) -> str:
    """A fixed-width table of the report, then every mismatch and warning on its own line."""
    head = (
        "key", "route", "listed", "slug", "tools", "tool_choice", "reasoning (frozen/route)",
        "$/M in", "$/M out", "context", "max out", "created",
    )  # fmt: skip
    rows: list[tuple[str, ...]] = [head]
    for r in report.routes:
        doc = "-"
        if r.reasoning is not None:
            doc = r.reasoning.documented + (", mandatory" if r.reasoning.mandatory else "")
        reasoning = f"{r.policy} / {doc}"
        listed = "yes" if r.present else ("DELISTED" if r.record_found else "ABSENT")
        rows.append(
            (
                r.key, r.route, listed,
                ("ok" if r.slug_matches else "DIFFERS") if r.record_found else "-",
                _yes(r.tools, r.record_found), _yes(r.tool_choice, r.record_found), reasoning,
                _money(r.prompt_usd_per_mtok), _money(r.completion_usd_per_mtok),
                _count(r.context_length), _count(r.max_completion_tokens),
                (r.created or "-")[:10],
            )
        )  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    source = report.catalogue
    title = (
        f"cohort {report.cohort_id}"
        + (f" (round {report.round_id})" if report.round_id else "")
        + f" against {source.kind} catalogue {source.location}"
        + (f" sha256 {source.sha256[:12]}" if source.sha256 else "")
        + (f", captured {source.captured_at}" if source.captured_at else "")
        + f": {source.listed} routes listed"
    )
    out = [title, "", *(line.rstrip() for line in lines), ""]
    out.extend(f"note: {note}" for note in report.notes)
    wrong = [m for m in report.mismatches if m.kind != "disclosed"]
    disclosed = [m for m in report.mismatches if m.kind == "disclosed"]
    if wrong:
        out.append(f"{len(wrong)} mismatch(es):")
        out.extend(f"  [{m.kind}] {m}" for m in wrong)
    else:
        out.append("no mismatches")
    if disclosed:
        out.append(
            f"{len(disclosed)} disclosed gap(s) (the cohort file names them; the preflight records "
            "them as not testable, class catalogue):"
        )
        out.extend(f"  {m}" for m in disclosed)
    warnings = [(r, w) for r in report.routes for w in r.warnings]
    if warnings:
        out.append("warnings:")
        out.extend(f"  {r.key} ({r.route}): {w}" for r, w in warnings)
    return "\n".join(out) + "\n"
