"""Cost reconciliation: a unit's metered cost beside what the gateway says it billed.

The proxy meters each response's cost (the generation record's `total_cost` on a paid round,
else the final usage chunk's `cost`: `session.cost_usd`); an agent's own cost log is never used
(OpenCode's has been reported far below the bill). The bill is the key's usage
(`GET /api/v1/key`), read before and after the session. On a live round whose units run in
parallel on one key, another unit's spending falls inside the same window (`shared_key`) and no
bill can be told apart: it is recorded as not measurable, never guessed. A simulated round gives
every unit its own simulator, so its key is never shared. A gap above `THRESHOLD_USD` (or
`THRESHOLD_SHARE` of the metered cost, when larger) is flagged on the unit page; the leaderboard
shows the metered cost and the bill beside it.
"""

from __future__ import annotations

import time

from gateway.client import OpenRouterClient
from harness.session.upstream import Upstream
from records.evidence.session import CostReconciliation, SessionRecord
from records.io import RecordError, read_record
from records.layout import RoundPaths

THRESHOLD_USD = 0.01
THRESHOLD_SHARE = 0.05
SETTLE_SECONDS = 10.0  # the key's usage is updated asynchronously: re-read while it lags


def key_usage(upstream: Upstream) -> float | None:
    """The key's cumulative usage in USD, or None when the gateway does not say."""
    try:
        with OpenRouterClient(upstream.base_url, upstream.api_key, timeout=10) as client:
            return client.key_info().usage
    except Exception:  # noqa: BLE001 - not measurable is recorded as None, never fatal
        return None


def key_usage_after(
    upstream: Upstream,
    before: float | None,
    metered: float | None,
    settle_seconds: float = SETTLE_SECONDS,
) -> float | None:
    """The key's usage after the session, re-read for up to `settle_seconds` while it still
    shows less than was metered (the gateway's books close a moment after the last answer)."""
    deadline = time.monotonic() + settle_seconds
    while True:
        after = key_usage(upstream)
        # the metered cost is rounded to 1e-8 USD: a key that charged it exactly may read less
        caught_up = after is None or before is None or after - before >= (metered or 0.0) - 1e-8
        if caught_up or time.monotonic() >= deadline:
            return after
        time.sleep(1.0)


def others_ran(rpaths: RoundPaths, unit: str, started_at: str, finished_at: str) -> bool:
    """Whether another unit of the round ran while this one did: it is running now (its
    `.running` marker), or its session.json says it ran within this one's window."""
    for other in rpaths.unit_folders():
        if other == unit:
            continue
        files = rpaths.unit(other)
        if files.running_marker.exists():
            return True
        try:
            session = read_record(files.session, SessionRecord)
        except (OSError, RecordError):  # no session.json yet, or one that does not read
            continue
        if session.started_at <= finished_at and session.finished_at >= started_at:  # ISO times
            return True
    return False


def reconcile(
    *, metered: float | None, before: float | None, after: float | None, shared: bool
) -> CostReconciliation:
    """Set the metered cost beside the bill: the key's usage difference over the session."""
    billed = None
    if after is not None and before is not None and not shared:
        billed = round(after - before, 8)
    gap = round(billed - metered, 8) if billed is not None and metered is not None else None
    threshold = round(max(THRESHOLD_USD, THRESHOLD_SHARE * (metered or 0.0)), 8)
    return CostReconciliation(
        metered_usd=metered, key_usage_before_usd=before, key_usage_after_usd=after,
        shared_key=shared, billed_usd=billed, gap_usd=gap, threshold_usd=threshold,
        flagged=gap is not None and abs(gap) > threshold,
    )  # fmt: skip
