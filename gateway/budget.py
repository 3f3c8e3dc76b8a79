"""The hard budget: a request's worst case must fit what is left of the unit's budget.

Worst case = estimated prompt tokens x the catalogue's prompt price + the output limit x its
completion price. The output limit is the request's own (`max_tokens`, `max_output_tokens`) or,
when it names none, the route's maximum output (`Prices.max_output`). The proxy lowers (or, for a
request without one, sets) the output limit only when that worst case does not fit, to the
largest limit that does, and refuses the step when not even one completion token fits; a request
whose worst case fits is forwarded unchanged. Prompt tokens are estimated conservatively: the
billed request bytes x the larger of 1/3 token per byte and the highest tokens-per-byte ratio this
unit's responses have reported (so a tokenizer denser than 3 bytes a token is learnt after one
step).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MIN_TOKENS_PER_BYTE = 1 / 3


@dataclass(frozen=True)
class Prices:
    """USD per token from the catalogue (`pricing.prompt`, `pricing.completion`), the route's
    maximum output in tokens (`top_provider.max_completion_tokens`, else its context length;
    None when the catalogue gives neither) and its context window (`context_length`)."""

    prompt: float
    completion: float
    max_output: int | None = None
    context_length: int | None = None

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return prompt_tokens * self.prompt + completion_tokens * self.completion


@dataclass(frozen=True)
class Fit:
    """What the budget allows one request.

    `capped`: the budget set or lowered the output limit to `max_tokens`, or refuses the request
    (`max_tokens` None); not capped, the request goes as the agent sent it (`max_tokens` is its
    own limit, None when it named none); `worst_case_usd`: what the request may cost."""

    max_tokens: int | None
    capped: bool
    prompt_tokens: int
    worst_case_usd: float
    remaining_usd: float

    @property
    def refused(self) -> bool:
        return self.capped and self.max_tokens is None


def estimate_prompt_tokens(prompt_bytes: int, tokens_per_byte: float) -> int:
    return math.ceil(prompt_bytes * max(MIN_TOKENS_PER_BYTE, tokens_per_byte))


def fit(prices: Prices, remaining_usd: float, prompt_tokens: int, requested: int | None) -> Fit:
    """The request's output limit (`requested`; None: the route's maximum output) if its worst
    case fits `remaining_usd`, else the largest limit that does (capped), else a refusal.

    A route whose maximum output is unknown cannot be shown to fit: a request naming no limit
    there is capped at what the budget allows."""
    wanted = requested if requested is not None else prices.max_output
    prompt_cost = prompt_tokens * prices.prompt
    if prompt_cost >= remaining_usd:
        return Fit(None, True, prompt_tokens, prompt_cost + prices.completion, remaining_usd)
    if prices.completion <= 0:  # output is free: any limit fits
        worst = prices.cost(prompt_tokens, wanted or 0)
        return Fit(requested, False, prompt_tokens, worst, remaining_usd)
    affordable = math.floor((remaining_usd - prompt_cost) / prices.completion)
    if affordable < 1:
        return Fit(None, True, prompt_tokens, prompt_cost + prices.completion, remaining_usd)
    if wanted is not None and wanted <= affordable:
        return Fit(
            requested, False, prompt_tokens, prices.cost(prompt_tokens, wanted), remaining_usd
        )
    return Fit(
        affordable, True, prompt_tokens, prices.cost(prompt_tokens, affordable), remaining_usd
    )
