"""The `spend` stage: before the round's first paid call, the key must cover the round's maximum.

    check_spend(rnd) -> KeyCheck   # writes key-check.json; raises SpendRefused when short

An earlier key-check.json is moved to `history/<utc-stamp>/` first, never overwritten.

`GET /api/v1/key` gives the key's remaining credit; the round's maximum spend is every probe and
every unit at its budget ceiling (the proxy's hard budget holds each to it) plus, for each session
the round runs at once, one `max_tokens` reservation at the cohort's highest completion price
(OpenRouter holds that credit before calling a provider and answers 402 when the key cannot cover
it; the ceilings bound what is charged, the reservations are headroom on top). A key with no limit
passes.

The same check derives how many sessions the round runs at once (`harness.slot_plan.
derive_parallel`: the round file's bound, this machine's slots, the key's rate limit), records
the derivation in key-check.json (`parallel`) and prints the round's plan before any spending.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime

from gateway.client import KeyRateLimit, OpenRouterClient
from harness.session.upstream import Upstream, round_gateway
from harness.slot_plan import SlotsRefused, derive_parallel, round_plan
from records.evidence.gateway import KeyCheck, MaxSpend
from records.inputs import Cohort, RoundSettings
from records.io import move_to_history, read_record, write_record
from records.round import Round

RESERVATION_TOKENS = 32_000  # the max_tokens OpenCode 1.17.18 sends on every request


class SpendRefused(RuntimeError):
    """The key's remaining credit does not cover the round's maximum spend."""


def max_spend(
    settings: RoundSettings, cohort: Cohort, completion_prices: list[float], sessions: int = 1
) -> MaxSpend:
    """The round's maximum spend with `sessions` running at once (a reservation each)."""
    routes = len(cohort.candidates) * max(1, len(settings.arm_ids))  # each route in each arm
    budget = settings.ceilings.budget_usd
    probes = routes * settings.probes * budget
    units = routes * settings.repetitions * budget
    reservations = max(1, sessions)
    reservation = reservations * RESERVATION_TOKENS * max(completion_prices, default=0.0)
    return MaxSpend(
        probes_usd=round(probes, 6),
        units_usd=round(units, 6),
        reservation_usd=round(reservation, 6),
        reservation_tokens=RESERVATION_TOKENS,
        reservations=reservations,
        total_usd=round(probes + units + reservation, 6),
    )


def key_check(settings: RoundSettings, cohort: Cohort, upstream: Upstream) -> KeyCheck:
    """Ask the gateway about the key and the cohort's prices (both free calls) and judge."""
    routes = {c.route for c in cohort.candidates}
    with OpenRouterClient(upstream.base_url, upstream.api_key) as client:
        key = client.key_info()
        prices = [m.pricing.per_token("completion") for m in client.list_models() if m.id in routes]
    rate = key.rate_limit or KeyRateLimit()
    parallel = derive_parallel(settings, rate.requests, rate.interval, note=rate.note)
    plan = max_spend(settings, cohort, prices, parallel.sessions)
    remaining = key.limit_remaining
    if key.limit is None and remaining is None:
        verdict = "ok"
        message = f"the key has no credit limit; the round may spend ${plan.total_usd:.2f}"
    elif remaining is not None and remaining >= plan.total_usd:
        verdict = "ok"
        message = f"the key has ${remaining:.2f} left, the round may spend ${plan.total_usd:.2f}"
    else:
        verdict = "refused"
        message = (
            f"round {settings.round_id!r} refused to start: the key has ${remaining or 0:.2f} of "
            f"credit left, below the round's maximum spend of ${plan.total_usd:.2f} "
            f"(probes ${plan.probes_usd:.2f} + units ${plan.units_usd:.2f} + "
            f"{plan.reservations} x {plan.reservation_tokens}-token reservation "
            f"${plan.reservation_usd:.2f}). Add credit "
            "or raise the key's limit; nothing was spent"
        )
    return KeyCheck(
        round_id=settings.round_id,
        checked_at=datetime.now(UTC).isoformat(timespec="seconds"),
        gateway_kind=upstream.kind,
        key_label=key.label or None,
        limit_usd=key.limit,
        limit_remaining_usd=remaining,
        usage_usd=key.usage,
        max_spend=plan,
        verdict=verdict,  # type: ignore[arg-type]
        message=message,
        parallel=parallel,
    )


def check_spend(rnd: Round, upstream: Upstream | None = None) -> KeyCheck:
    """Check the key, record the answer in `key-check.json`, raise `SpendRefused` when short."""
    settings, cohort = rnd.settings, rnd.cohort
    if upstream is None:
        with round_gateway(settings) as gateway:
            record = key_check(settings, cohort, gateway)
    else:
        record = key_check(settings, cohort, upstream)
    paths = rnd.paths
    kept = move_to_history([paths.key_check], paths.history)  # write-once: never replaced
    if kept is not None:
        print(f"spend: the earlier key check is kept in {kept}")
    write_record(paths.key_check, record)
    print(record.message)
    units = len(cohort.candidates) * max(1, len(settings.arm_ids)) * settings.repetitions
    sessions = record.parallel.sessions if record.parallel else None
    print(round_plan(settings, units, record.max_spend.total_usd, sessions))
    if record.verdict == "refused":
        raise SpendRefused(record.message)
    return record


def require_key_check(rnd: Round, paid: bool) -> None:
    """Refuse a paid call when the spend stage has not passed (a refused check always refuses)."""
    path = rnd.paths.key_check
    if not path.exists():
        if paid:
            raise SpendRefused(f"{path} is missing: run the spend stage before any paid call")
        return
    record = read_record(path, KeyCheck)
    if record.verdict != "ok":
        raise SpendRefused(f"{path}: {record.message}")


def spend_stage(rnd: Round) -> int:
    """The doit stage: 0 when the key covers the round, 1 (with the reason printed) when not."""
    try:
        check_spend(rnd)
    except (SpendRefused, SlotsRefused) as exc:
        print(f"spend: {exc}", file=sys.stderr)
        return 1
    return 0
