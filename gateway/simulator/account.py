"""The simulator's scripted API key: its credit limit, usage and OpenRouter's 402 reservation.

OpenRouter reserves `max_tokens` at the route's completion price before it calls the provider and
answers 402 when the key's remaining credit cannot cover that; `GET /api/v1/key` reports `limit`,
`limit_remaining` and `usage` (USD). Here the limit is scripted (None = no limit, as live).
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

CREDITS_URL = "https://openrouter.ai/settings/credits"


@dataclass
class ScriptedKey:
    limit_usd: float | None = None
    usage_usd: float = 0.0
    label: str = "sk-or-v1-sim...000"
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def remaining_usd(self) -> float | None:
        with self._lock:
            return None if self.limit_usd is None else max(0.0, self.limit_usd - self.usage_usd)

    def charge(self, cost: float) -> None:
        with self._lock:
            self.usage_usd = round(self.usage_usd + cost, 10)

    def shortfall(self, max_tokens: int, completion_price: float) -> str | None:
        """The 402 message when `max_tokens` at `completion_price` exceeds the remaining credit."""
        remaining = self.remaining_usd
        if remaining is None or max_tokens * completion_price <= remaining:
            return None
        afford = int(remaining / completion_price) if completion_price > 0 else 0
        return (
            f"This request requires more credits, or fewer max_tokens. You requested up to "
            f"{max_tokens} tokens, but can only afford {afford}. To increase, visit {CREDITS_URL} "
            "and upgrade to a paid account"
        )

    def data(self) -> dict[str, Any]:
        """The `data` object of `GET /api/v1/key` (every field the spec requires)."""
        with self._lock:
            usage = round(self.usage_usd, 10)
            remaining = None if self.limit_usd is None else max(0.0, self.limit_usd - usage)
            limit = self.limit_usd
        return {
            "label": self.label,
            "limit": limit,
            "limit_remaining": remaining,
            "limit_reset": None,
            "include_byok_in_limit": False,
            "usage": usage,
            "usage_daily": usage,
            "usage_weekly": usage,
            "usage_monthly": usage,
            "byok_usage": 0.0,
            "byok_usage_daily": 0.0,
            "byok_usage_weekly": 0.0,
            "byok_usage_monthly": 0.0,
            "is_free_tier": False,
            "is_management_key": False,
            "is_provisioning_key": False,
            "expires_at": None,
            "creator_user_id": None,
            "rate_limit": {"requests": 1000, "interval": "1h",
                           "note": "This field is deprecated and safe to ignore."},
        }  # fmt: skip


@dataclass
class TransientFailures:
    """How many times each (model, conversation, turn) has failed, for `error.times`."""

    counts: Counter[tuple[str, ...]] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def fail_now(self, key: tuple[str, ...], times: int | None) -> bool:
        """True while this request should still fail (always, when `times` is None)."""
        if times is None:
            return True
        with self._lock:
            if self.counts[key] >= times:
                return False
            self.counts[key] += 1
            return True
