"""Validity, identity and failure class of a unit (seed: "Calibration and invalidation").

A unit is invalid (not scored, reasons shown) when the prompt or starter differs from the frozen
round, the routed identity contradicts the freeze, a human intervened, the harness retried, or
required evidence is missing. Who caused the session's end, and so its failure class and whether
it may be replaced, is `harness.attribution` (one table, also in docs/scoring.md): a step/time/
budget stop or a sandbox limit keeps the work and is scored with its stop status.

Retries: a repeat is the same whole request (model, tools, tool_choice, sampling and policy
fields, messages) from the same client. After an error the agent saw (no completion delivered) it
is the agent's transport retry (recorded, same step, not an invalidation); after a delivered
completion it is a harness retry (invalid). A request that got only keep-alives past the outage
window is a provider stall: the unit is a provider outage (replaceable) even if it ran to the time
ceiling.
`UnitFacts` and `INPUTS_CHANGED` live in `harness.attribution` and are re-exported here.

A changed prompt or starter is never a harness failure: the runner refuses to start the session,
and the unit is invalid and not replaceable. Human intervention holds by construction: the agent
runs in its own session (no controlling TTY) and its stdin is closed after the prompt bytes, so
session.json records that basis (`human_intervention_basis`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from harness.attribution import INPUTS_CHANGED, UnitFacts, attribute
from records.evidence.session import (
    FailureClass,
    Identity,
    IdentityVerdict,
    Validity,
)

__all__ = ["INPUTS_CHANGED", "Assessment", "UnitFacts", "assess", "check_identity"]
from records.layout import UnitPaths

REQUIRED_EVIDENCE = tuple(path.name for path in UnitPaths(Path()).required_evidence)
DATE_SUFFIX = re.compile(r"-\d{8}$")


def identity_family(route: str, expected_slug: str) -> set[str]:
    """The names a generation record may use for the frozen model: the route, the slug and their
    plain forms (OpenRouter documents the response `model`, not the generation record's)."""
    names = {route, expected_slug, route.split(":", 1)[0], DATE_SUFFIX.sub("", expected_slug)}
    return {n for n in names if n}


def check_identity(
    route: str,
    expected_slug: str,
    observed: list[str],
    providers: list[str],
    generation: list[str],
    pinned: list[str] | None = None,
) -> Identity:
    """Every response's `model` must be the frozen canonical slug (live OpenRouter answers with the
    route's canonical slug, so a route id or another slug there contradicts the freeze); every
    generation record's `model` must be in the identity family; with a provider pin, every
    response must come from a pinned provider."""
    family = identity_family(route, expected_slug)
    seen = list(dict.fromkeys([*observed, *generation]))
    wrong = [m for m in observed if m != expected_slug]
    wrong = list(dict.fromkeys([*wrong, *(m for m in generation if m not in family)]))
    outside = [p for p in providers if pinned and p not in pinned]
    verdict: IdentityVerdict = (
        "unobserved" if not seen else ("contradicts" if wrong or outside else "consistent")
    )
    return Identity(
        requested_route=route,
        expected_slug=expected_slug,
        observed_models=seen,
        observed_providers=list(providers),
        verdict=verdict,
        contradictions=wrong,
        pinned_providers=list(pinned or []),
        provider_contradictions=outside,
    )


@dataclass
class Assessment:
    validity: Validity
    failure_class: FailureClass
    reasons: list[str] = field(default_factory=list)
    detail: str = ""
    attribution: str = ""  # the row of harness.attribution.TABLE that applied


def assess(facts: UnitFacts) -> Assessment:
    """Validity, failure class and reasons (an empty reason list means valid): the attribution
    row (`harness.attribution`) plus the validity reasons that hold whatever the row."""
    row, detail = attribute(facts)
    failure = row.outcome.failure_class
    reasons = [f"prompt/starter: {p}" for p in facts.hash_problems]
    if detail == INPUTS_CHANGED:
        reasons.append(INPUTS_CHANGED)
    identity = facts.identity
    if identity.verdict == "contradicts" and identity.contradictions:
        reasons.append(
            f"identity contradicts the freeze: observed {identity.contradictions}, requested "
            f"{identity.requested_route} (expected {identity.expected_slug})"
        )
    if identity.provider_contradictions:
        reasons.append(
            f"identity contradicts the freeze: served by {identity.provider_contradictions}, "
            f"outside the pinned providers {identity.pinned_providers}"
        )
    if facts.human_intervention:
        reasons.append("human intervention")
    if facts.gateway.retries:  # transport retries (after an undelivered answer) are not counted
        reasons.append(
            f"harness retry: {facts.gateway.retries} request(s) sent again, whole and by the same "
            "client, after their answer had been delivered (gateway.jsonl)"
        )
    missing = [name for name in REQUIRED_EVIDENCE if name not in facts.evidence_present]
    if missing:
        reasons.append(f"required evidence missing: {', '.join(missing)}")
    if failure == "provider_outage":
        reasons.append(f"provider outage (not a model failure): {detail}")
    elif failure == "harness":
        reasons.append(f"harness failure (not a model failure): {detail}")
    validity: Validity = "invalid" if reasons or row.outcome.validity == "invalid" else "valid"
    return Assessment(validity, failure, reasons, detail, row.name)
