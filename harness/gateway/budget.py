"""The hard budget: a request's worst case must fit what is left of the unit's budget.

Worst case = estimated prompt tokens x the catalogue's prompt price + `max_tokens` x its
completion price. The proxy lowers `max_tokens` until the worst case fits, and refuses the step
when not even one completion token does. Prompt tokens are estimated conservatively: the billed
request bytes x the larger of 1/3 token per byte and the highest tokens-per-byte ratio this unit's
responses have reported (so a tokenizer denser than 3 bytes a token is learnt after one step).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MIN_TOKENS_PER_BYTE = 1 / 3


@dataclass(frozen=True)
class Prices:
    """USD per token from the catalogue (`pricing.prompt`, `pricing.completion`)."""

    prompt: float
    completion: float

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return prompt_tokens * self.prompt + completion_tokens * self.completion


@dataclass(frozen=True)
class Fit:
    """What the budget allows one request: `max_tokens` (None: refuse) and its worst case."""

    max_tokens: int | None
    prompt_tokens: int
    worst_case_usd: float
    remaining_usd: float


def estimate_prompt_tokens(prompt_bytes: int, tokens_per_byte: float) -> int:
    return math.ceil(prompt_bytes * max(MIN_TOKENS_PER_BYTE, tokens_per_byte))


def fit(
    prices: Prices, remaining_usd: float, prompt_tokens: int, requested: int | None, default: int
) -> Fit:
    """The largest `max_tokens` <= requested (or `default`) whose worst case fits the budget."""
    wanted = requested or default
    prompt_cost = prompt_tokens * prices.prompt
    if prices.completion > 0:
        affordable = math.floor((remaining_usd - prompt_cost) / prices.completion)
    else:
        affordable = wanted if remaining_usd >= prompt_cost else 0
    allowed = min(wanted, affordable)
    if allowed < 1:
        return Fit(None, prompt_tokens, prompt_cost + prices.completion, remaining_usd)
    return Fit(allowed, prompt_tokens, prices.cost(prompt_tokens, allowed), remaining_usd)
