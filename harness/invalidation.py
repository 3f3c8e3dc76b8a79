"""Validity, identity and failure class of a unit (seed: "Calibration and invalidation").

A unit is invalid (not scored, reasons shown) when the prompt or starter differs from the frozen
round, the routed identity contradicts the freeze, a human intervened, the harness retried, or
required evidence is missing. Provider outages and harness failures are reported apart from model
failures. A step/time/budget stop keeps the work and is scored with its stop status.

Retries: the agent repeating a request after an upstream error that delivered no completion is its
transport retry (recorded, same step, not an invalidation); a repeat after a delivered completion
is a harness retry (invalid). A request that got only keep-alives past the outage window is a
provider stall: the unit is a provider outage (replaceable) even if it ran to the time ceiling.

A changed prompt or starter is never a harness failure: the runner refuses to start the session,
and the unit is invalid and not replaceable. Human intervention holds by construction: the agent
runs in its own session (no controlling TTY) and its stdin is closed after the prompt bytes, so
session.json records that basis (`human_intervention_basis`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from records.evidence.gateway import GatewaySummary
from records.evidence.session import (
    FailureClass,
    Identity,
    IdentityVerdict,
    StopStatus,
    Validity,
)
from records.layout import UnitPaths

REQUIRED_EVIDENCE = tuple(path.name for path in UnitPaths(Path()).required_evidence)
OUTAGE_CLASSES = {"upstream_5xx", "midstream_error", "connection", "rate_limit", "no_endpoint",
                  "provider_stall"}  # fmt: skip
HARNESS_CLASSES = {"auth", "credits", "bad_request", "malformed_response", "not_found"}
DATE_SUFFIX = re.compile(r"-\d{8}$")


def identity_family(route: str, expected_slug: str) -> set[str]:
    """The names a generation record may use for the frozen model: the route, the slug and their
    plain forms (OpenRouter documents the response `model`, not the generation record's)."""
    names = {route, expected_slug, route.split(":", 1)[0], DATE_SUFFIX.sub("", expected_slug)}
    return {n for n in names if n}


def check_identity(
    route: str, expected_slug: str, observed: list[str], providers: list[str], generation: list[str]
) -> Identity:
    """Every response's `model` must be the frozen canonical slug (live OpenRouter answers with the
    route's canonical slug, so a route id or another slug there contradicts the freeze); every
    generation record's `model` must be in the identity family."""
    family = identity_family(route, expected_slug)
    seen = list(dict.fromkeys([*observed, *generation]))
    wrong = [m for m in observed if m != expected_slug]
    wrong = list(dict.fromkeys([*wrong, *(m for m in generation if m not in family)]))
    verdict: IdentityVerdict = (
        "unobserved" if not seen else ("contradicts" if wrong else "consistent")
    )
    return Identity(
        requested_route=route,
        expected_slug=expected_slug,
        observed_models=seen,
        observed_providers=list(providers),
        verdict=verdict,
        contradictions=wrong,
    )


@dataclass
class Assessment:
    validity: Validity
    failure_class: FailureClass
    reasons: list[str] = field(default_factory=list)
    detail: str = ""


@dataclass
class UnitFacts:
    """Everything the verdict depends on, gathered by the runner."""

    stop_status: StopStatus
    exit_code: int | None
    hash_problems: list[str]
    identity: Identity
    gateway: GatewaySummary
    evidence_present: list[str]
    agent_errors: list[str] = field(default_factory=list)
    finished_normally: bool = False
    human_intervention: bool = False
    harness_error: str = ""


INPUTS_CHANGED = (
    "refused to start: the prompt or starter differs from the frozen round, so no session ran. "
    "Invalid and not replaceable (our inputs changed, not the model or the provider): restore "
    "the frozen inputs or create a new round"
)


def _failure(facts: UnitFacts) -> tuple[FailureClass, str]:
    gw = facts.gateway
    classes = set(gw.error_classes)
    if facts.harness_error:
        return "harness", facts.harness_error
    if facts.hash_problems and facts.stop_status == "not_started":
        return "none", INPUTS_CHANGED  # invalid by its hash reasons; never a harness failure
    if gw.stalls and facts.stop_status != "completed":
        wait = (gw.longest_keepalive_wait_ms or 0) / 1000
        return "provider_outage", (
            f"provider stall: a request got only keep-alive comments for {wait:.0f} s, past the "
            f"round's outage window; gateway errors {gw.error_classes}"
        )
    if facts.stop_status == "provider_outage":
        return "provider_outage", f"the gateway kept failing: {gw.error_classes}"
    if facts.stop_status in ("crashed", "not_started"):
        return "harness", "the runner or the agent process failed before the session could finish"
    if classes & HARNESS_CLASSES:
        return (
            "harness",
            f"gateway errors caused by the harness: {sorted(classes & HARNESS_CLASSES)}",
        )
    if gw.chat_requests == 0:
        return "harness", "the agent made no model request"
    healthy = gw.chat_requests - gw.refused - gw.upstream_errors
    if classes & OUTAGE_CLASSES and (facts.stop_status != "completed" or healthy == 0):
        return "provider_outage", f"upstream errors: {gw.error_classes}"
    if facts.stop_status in ("step_ceiling", "time_ceiling", "budget_ceiling"):
        return "model", f"stopped at the {facts.stop_status.replace('_', ' ')}"
    if facts.exit_code not in (0, None) or facts.agent_errors:
        return "model", f"agent exit {facts.exit_code}; errors: {facts.agent_errors[:2]}"
    return "none", ""


def assess(facts: UnitFacts) -> Assessment:
    """Validity, failure class and reasons (an empty reason list means valid)."""
    failure, detail = _failure(facts)
    reasons = [f"prompt/starter: {p}" for p in facts.hash_problems]
    if detail == INPUTS_CHANGED:
        reasons.append(INPUTS_CHANGED)
    if facts.identity.verdict == "contradicts":
        reasons.append(
            f"identity contradicts the freeze: observed {facts.identity.contradictions}, requested "
            f"{facts.identity.requested_route} (expected {facts.identity.expected_slug})"
        )
    if facts.human_intervention:
        reasons.append("human intervention")
    if facts.gateway.retries:  # transport retries (after an undelivered answer) are not counted
        reasons.append(
            f"harness retry: {facts.gateway.retries} request(s) repeated a conversation whose "
            "answer had been delivered (gateway.jsonl)"
        )
    missing = [name for name in REQUIRED_EVIDENCE if name not in facts.evidence_present]
    if missing:
        reasons.append(f"required evidence missing: {', '.join(missing)}")
    if failure == "provider_outage":
        reasons.append(f"provider outage (not a model failure): {detail}")
    elif failure == "harness":
        reasons.append(f"harness failure (not a model failure): {detail}")
    return Assessment("invalid" if reasons else "valid", failure, reasons, detail)
