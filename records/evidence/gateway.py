"""Typed records of the recording proxy: its policy, one `gateway.jsonl` line, the unit summary."""

from __future__ import annotations

import copy
import json
from collections import Counter
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from records.base import Record, Root
from records.io import RecordError


class ErrorClass(StrEnum):
    """The gateway error vocabulary, stored in evidence: add members, never rename them."""

    AUTH = "auth"  # 401/403: missing, invalid or disabled key
    CREDITS = "credits"  # 402: not enough credits
    RATE_LIMIT = "rate_limit"  # 429
    NO_ENDPOINT = "no_endpoint"  # 404 "No endpoints found ..." (e.g. require_parameters)
    NOT_FOUND = "not_found"  # 404 for anything else (unknown model, unknown generation)
    BAD_REQUEST = "bad_request"  # other 4xx
    UPSTREAM_5XX = "upstream_5xx"  # 5xx from the gateway or its provider
    MIDSTREAM_ERROR = "midstream_error"  # HTTP 200 stream with an `error` chunk
    MALFORMED_RESPONSE = "malformed_response"  # not the JSON/SSE shape we expect
    CONNECTION = "connection"  # connect failure, reset, timeout
    PROVIDER_STALL = "provider_stall"  # no data for longer than the outage window (keep-alives
    # only, before the first chunk or after the last one, or silence once the stream started)
    TRUNCATED_STREAM = "truncated_stream"  # a 200 stream that ended without a finish_reason
    # What the model's own conversation caused (OpenRouter's `error.metadata.error_type`, its
    # documented 403 moderation error, or the provider's context-length message):
    CONTEXT_LENGTH = "context_length"  # 400 context_length_exceeded / token_limit_exceeded
    REFUSAL = "refusal"  # the provider reported the model's refusal as an error
    MODERATION = "moderation"  # 403 content_policy_violation: the input was flagged


# The provider's failures (not the model's, not ours): attribution and the proxy's outage rule.
PROVIDER_ERRORS = frozenset({
    ErrorClass.RATE_LIMIT, ErrorClass.UPSTREAM_5XX, ErrorClass.MIDSTREAM_ERROR,
    ErrorClass.CONNECTION, ErrorClass.NO_ENDPOINT, ErrorClass.MALFORMED_RESPONSE,
    ErrorClass.PROVIDER_STALL, ErrorClass.TRUNCATED_STREAM,
})  # fmt: skip

Refusal = Literal["step_ceiling", "budget_ceiling", "not_allowed"]
"""Why the proxy refused a request: a ceiling, or (`not_allowed`) an image request the unit's arm
does not allow (no image tool, another route, a streamed image request)."""




class GatewayPolicy(Record):
    """The frozen request policy the proxy writes into every metered body (`apply`: the
    chat/completions form; `harness/gateway/protocols.py` gives each other API its equivalent)."""

    reasoning: Literal["high", "default"] = "default"
    allow_fallbacks: bool = False
    require_parameters: bool = True
    include_usage: bool = True
    only: list[str] = Field(default_factory=list, description="the pinned providers (none: any)")
    quantizations: list[str] = Field(default_factory=list)

    def apply(self, body: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """The body to forward and a list of what changed (empty if the client already complied)."""
        out, changes = self.route(body)
        if self.reasoning == "high" and out.get("reasoning") != {"effort": "high"}:
            changes.append('reasoning={"effort":"high"}')
            out["reasoning"] = {"effort": "high"}
        if self.include_usage and out.get("usage") != {"include": True}:
            changes.append('usage={"include":true}')
            out["usage"] = {"include": True}
        return out, changes

    def route(self, body: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """A copy of `body` with the pinned `provider` preferences (OpenRouter's routing, the
        same field in every API it serves), and what changed."""
        out = copy.deepcopy(body)
        changes: list[str] = []
        raw = out.get("provider")
        provider: dict[str, Any] = dict(raw) if isinstance(raw, dict) else {}
        wanted: dict[str, Any] = {
            "allow_fallbacks": self.allow_fallbacks,
            "require_parameters": self.require_parameters,
        }
        if self.only:
            wanted |= {"only": list(self.only), "order": list(self.only)}
        if self.quantizations:
            wanted["quantizations"] = list(self.quantizations)
        for key, value in wanted.items():
            if provider.get(key) != value or type(provider.get(key)) is not type(value):
                changes.append(f"provider.{key}={json.dumps(value)}")
        out["provider"] = {**provider, **wanted}
        return out, changes


class Tokens(Record):
    """Token counts (session.json, leaderboard rows): the one definition of the four fields."""

    prompt: int = 0
    completion: int = 0
    reasoning: int = 0
    cached: int = 0

    @property
    def total(self) -> int:
        return self.prompt + self.completion


class TokenUsage(Tokens):
    """Usage as the gateway reports it: the counts plus the cost it charged (`usage.cost`).

    Kept apart from `Tokens` because session.json records the cost once, as `cost_usd`, from the
    generation records, not beside the counts."""

    cost_usd: float | None = None

    def counts(self) -> Tokens:
        return Tokens(**self.model_dump(exclude={"cost_usd"}))

    @classmethod
    def from_openrouter(cls, usage: dict[str, Any]) -> TokenUsage:
        def num(value: Any) -> int:
            return int(value) if isinstance(value, int | float) else 0

        prompt_details = usage.get("prompt_tokens_details") or {}
        completion_details = usage.get("completion_tokens_details") or {}
        cost = usage.get("cost")
        return cls(
            prompt=num(usage.get("prompt_tokens")),
            completion=num(usage.get("completion_tokens")),
            reasoning=num(completion_details.get("reasoning_tokens")),
            cached=num(prompt_details.get("cached_tokens")),
            cost_usd=float(cost) if isinstance(cost, int | float) else None,
        )


class GenerationCheck(Record):
    """The gateway's own generation record for a completion (`GET /generation?id=`)."""

    model: str | None = None
    provider: str | None = None
    total_cost: float | None = None
    error: str | None = None


class MaxTokensChange(Record):
    """The hard budget lowered a request's `max_tokens` (or refused it: `forwarded` None)."""

    requested: int | None = Field(description="max_tokens as the agent sent it (None: unset)")
    forwarded: int | None = Field(description="max_tokens as forwarded (None: step refused)")
    remaining_usd: float = Field(description="budget left before this request")
    prompt_tokens_estimate: int = Field(description="conservative prompt-token estimate")
    worst_case_usd: float = Field(description="prompt + forwarded max_tokens at catalogue prices")


class ImageOutput(Record):
    """One image a response carried (`choices[0].message.images[]`): its size, never its bytes."""

    media_type: str = Field(description="from the data URL, e.g. image/png")
    bytes: int = Field(description="decoded size in bytes")
    sha256: str = Field(description="SHA-256 of the decoded bytes")


class ExchangeRecord(Root):
    """One line of `gateway.jsonl`: one request through the proxy and what came back.

    Schema 2 adds the transport-retry, keep-alive, hard-budget and protocol fields; `cost_usd`
    is None when neither `usage.cost` nor `/generation` gave a cost (schema 1 files load).
    Schema 3: `budget_capped` (the output limit the hard budget set or lowered; older lines take
    it from `max_tokens_change`, whose every change was forwarded), `upstream_abandoned`, `sender`,
    and a repeat is the whole request from the same sender (older lines: the same conversation); a generation is looked up for errors
    and cut streams too, so their billed cost is their `cost_usd`.
    Schema 4: `kind` "image" (a tools arm's image call: chat/completions with image output on the
    arm's route, metered against the unit's budget but no agent step), its `images` (sizes and
    hashes; the logged response has each data URL's base64 cut out) and `image_tokens`.
    """

    schema_version: int = 4
    time: str = Field(description="UTC ISO time the request arrived")
    index: int = Field(description="1-based position among all requests to the proxy")
    kind: Literal["chat", "other", "image"]
    method: str
    path: str
    step: int | None = Field(default=None, description="agent step (chat only; a retry repeats it)")
    retry: bool = Field(
        default=False,
        description="harness retry: the whole request (model, tools, tool_choice, sampling and "
        "policy fields, conversation) from the same sender equals the previous request, which had "
        "delivered a completion",
    )
    transport_retry: bool = Field(
        default=False,
        description="the same request from the same sender after one that failed without "
        "delivering a completion (an error the agent saw): the agent's own retry (same step, "
        "recorded, not an invalidation)",
    )
    protocol: str | None = Field(
        default=None, description="metering adapter: chat/completions, messages or responses"
    )
    sender: str | None = Field(
        default=None, description="the client's User-Agent: who sent the request (a repeat is "
        "the same request from the same sender)",
    )
    max_tokens_change: MaxTokensChange | None = None
    budget_capped: int | None = Field(
        default=None,
        description="the output limit the hard budget set (the request named none) or lowered "
        "this request to, because its worst case did not fit what was left; None: forwarded "
        "with the agent's own limit, or none",
    )
    keepalives: int = Field(default=0, description="SSE comment lines (`: OPENROUTER PROCESSING`)")
    keepalive_wait_ms: float | None = Field(
        default=None,
        description="time with only keep-alive comments before the first data event (or the end)",
    )
    budget_cost_usd: float = Field(
        default=0.0,
        description="what the budget counted: the cost, or tokens x catalogue prices when unknown",
    )
    requested_model: str | None = None
    policy_changes: list[str] = Field(default_factory=list)
    request: Any = Field(default=None, description="the body as forwarded, key redacted")
    status: int
    refused: Refusal | None = None
    streamed: bool = False
    generation_id: str | None = None
    model: str | None = Field(default=None, description="the `model` the response reported")
    provider: str | None = None
    models_seen: list[str] = Field(default_factory=list)
    finish_reason: str | None = None
    usage: TokenUsage | None = None
    images: list[ImageOutput] = Field(
        default_factory=list, description="image calls: the images the response carried"
    )
    image_tokens: int | None = Field(
        default=None,
        description="image calls: usage.completion_tokens_details.image_tokens (part of the "
        "completion tokens, priced at the route's image_output)",
    )
    generation: GenerationCheck | None = None
    error_class: ErrorClass | None = None
    error_message: str | None = None
    latency_ms: float
    first_byte_ms: float | None = None
    response_bytes: int = 0
    response_sha256: str | None = None
    response: str | None = Field(default=None, description="raw response body (capped)")
    response_truncated: bool = False
    client_disconnected: bool = False
    upstream_abandoned: bool = Field(
        default=False,
        description="the client hung up and the proxy stopped reading the upstream response "
        "(closing it, so the gateway stops generating); the billed part is the generation's cost",
    )

    @model_validator(mode="before")
    @classmethod
    def _budget_cap_of_older_lines(cls, data: Any) -> Any:
        """Schema <= 2 recorded every change of the output limit it forwarded (including the
        32,000 it wrote into requests that named none) only as `max_tokens_change`."""
        if isinstance(data, dict) and int(data.get("schema_version", 3)) < 3:
            change = data.get("max_tokens_change")
            if isinstance(change, dict) and change.get("forwarded") is not None:
                data = {**data, "budget_capped": change["forwarded"]}
        return data

    @property
    def cost_usd(self) -> float | None:
        """Authoritative cost: the generation record's if fetched, else the stream's usage.cost;
        0 for a failure that reported no usage (an HTTP or in-stream error, a refusal: nothing
        billed is known); None when a served response's cost is unknown."""
        if self.generation is not None and self.generation.total_cost is not None:
            return self.generation.total_cost
        if self.usage is not None and self.usage.cost_usd is not None:
            return self.usage.cost_usd
        if self.refused is not None or self.error_class is not None or self.status >= 400:
            return 0.0
        return None

    @property
    def delivered(self) -> bool:
        """A completion reached the agent: a clean 200 response it read to the end."""
        return (
            self.status == 200
            and self.error_class is None
            and self.refused is None
            and not self.client_disconnected
        )


class GatewaySummary(Root):
    """Per-unit totals from `gateway.jsonl`: the only source of steps, tokens and cost.

    Schema 2: `cost_usd` is None when any served response's cost is unknown (its budget estimate
    is in `cost_estimate_usd`); transport retries, stalls and max_tokens changes are counted.
    Schema 3: truncated streams are counted (`truncated`; 0 in older files, which classed a stream
    that ended without `[DONE]` as malformed and one with `[DONE]` but no finish_reason as clean),
    and the responses per provider that served them (`provider_requests`: the provider mix).
    Schema 4: a tools arm's image calls (`image_requests`, `images`, `image_tokens`,
    `image_cost_usd`); `cost_usd` and `cost_estimate_usd` include them (older files had none),
    while `tokens` and the step, identity and provider fields count the agent's chat steps only.
    """

    schema_version: int = 4
    requests: int = 0
    chat_requests: int = 0
    image_requests: int = Field(default=0, description="image calls (not agent steps)")
    image_refused: int = Field(default=0, description="image calls the proxy refused")
    images: int = Field(default=0, description="images the image calls brought back")
    image_tokens: int = 0
    image_cost_usd: float = Field(
        default=0.0, description="what the image calls cost (included in cost_usd)"
    )
    steps: int = 0
    refused: int = 0
    retries: int = Field(default=0, description="harness retries (invalidate the unit)")
    transport_retries: int = Field(
        default=0, description="the agent's repeats after an upstream error (recorded only)"
    )
    transport_retry_classes: dict[str, int] = Field(
        default_factory=dict, description="error classes of the failures that were retried"
    )
    upstream_errors: int = 0
    error_classes: dict[str, int] = Field(default_factory=dict)
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    cost_usd: float | None = 0.0
    cost_estimate_usd: float = Field(
        default=0.0, description="what the hard budget counted (known costs + estimates)"
    )
    unknown_cost_responses: int = 0
    stalls: int = Field(default=0, description="requests ended after no data for the outage window")
    truncated: int = Field(
        default=0, description="200 streams that ended without a finish_reason (cut upstream)"
    )
    longest_keepalive_wait_ms: float | None = None
    max_tokens_changes: list[MaxTokensChange] = Field(default_factory=list)
    ended_on_budget_cut: bool = Field(
        default=False,
        description="the last served answer was cut at an output limit the hard budget set or "
        "lowered (its `budget_capped`)",
    )
    requested_models: list[str] = Field(default_factory=list)
    observed_models: list[str] = Field(default_factory=list)
    observed_providers: list[str] = Field(default_factory=list)
    provider_requests: dict[str, int] = Field(
        default_factory=dict, description="responses per provider that served them (the mix)"
    )
    generation_models: list[str] = Field(default_factory=list)
    step_ceiling_hit: bool = False
    budget_ceiling_hit: bool = False
    missing_usage: int = Field(default=0, description="completed chat responses without usage")


class MaxSpend(Record):
    """The most a round can spend: every probe and unit at its budget ceiling, plus the
    `max_tokens` reservation OpenRouter holds for each request in flight (one a session at once).

    The units' ceilings already bound what is charged (the proxy admits a request only when its
    worst case fits the unit's remaining budget); the reservations are credit OpenRouter holds
    before it calls a provider and frees after, so they are headroom the key needs on top."""

    probes_usd: float = Field(description="routes x probes x budget ceiling")
    units_usd: float = Field(description="routes x repetitions x budget ceiling")
    reservation_usd: float = Field(
        description="reservations x max_tokens x the cohort's highest completion price"
    )
    reservation_tokens: int
    reservations: int = Field(
        default=1, description="requests in flight at once: the sessions the round runs at once"
    )
    total_usd: float


class ParallelDerivation(Record):
    """How many scored sessions a round runs at once, and why (`harness.slot_plan.derive_parallel`):
    the least of the round file's bound, the slots this machine holds and what the key's rate limit
    allows."""

    round_bound: int = Field(description="max_parallel_sessions in the round file (an upper bound)")
    machine_slots: int = Field(description="slots of the round's shape this machine holds")
    rate_limit_requests: int | None = Field(
        description="the key's rate_limit.requests per interval (None, or -1: no limit stated)"
    )
    rate_limit_interval_seconds: float | None = None
    rate_limit_sessions: int | None = Field(
        description="sessions the rate limit allows at one request per second each (None: any)"
    )
    sessions: int = Field(ge=1, description="the sessions run at once: the least of the above")
    basis: str = Field(description="the derivation in words")


class KeyCheck(Root):
    """`key-check.json`: `GET /api/v1/key` before the round's first paid call, and the verdict.

    Schema 2 adds `parallel`: how many sessions run at once and why; a schema 1 file loads with
    None (the round file's max_parallel_sessions was used as it stood). Schema 3 holds one
    reservation for each session at once (`max_spend.reservations`); older files load with one."""

    schema_version: int = 3
    round_id: str
    checked_at: str
    gateway_kind: str
    key_label: str | None = None
    limit_usd: float | None = Field(description="the key's credit limit (None: no limit)")
    limit_remaining_usd: float | None = None
    usage_usd: float | None = None
    max_spend: MaxSpend
    verdict: Literal["ok", "refused"]
    message: str
    parallel: ParallelDerivation | None = None


def read_exchanges(path: Path) -> list[ExchangeRecord]:
    """The records of a `gateway.jsonl`, in request order (lines are appended at completion)."""
    if not path.exists():
        return []
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(ExchangeRecord.model_validate_json(line))
        except ValueError as exc:
            raise RecordError(f"{path}: line {number}: {exc}") from exc
    return sorted(records, key=lambda r: r.index)


def _add(seen: list[str], value: str | None) -> None:
    if value and value not in seen:
        seen.append(value)


def summarize(gateway_jsonl: Path) -> GatewaySummary:
    """Totals of one unit's `gateway.jsonl` (a missing file is an empty summary)."""
    summary = GatewaySummary()
    classes: Counter[str] = Counter()
    retried: Counter[str] = Counter()
    providers: Counter[str] = Counter()
    last_failure: str | None = None
    known = estimate = 0.0
    tokens = {"prompt": 0, "completion": 0, "reasoning": 0, "cached": 0}
    for rec in read_exchanges(gateway_jsonl):
        summary.requests += 1
        if rec.kind == "image":
            summary.image_requests += 1
            summary.image_refused += rec.refused is not None
            summary.images += len(rec.images)
            summary.image_tokens += rec.image_tokens or 0
            image_cost = rec.cost_usd
            summary.image_cost_usd += image_cost or 0.0
            estimate += rec.budget_cost_usd
            if image_cost is None:
                summary.unknown_cost_responses += 1
            else:
                known += image_cost
            continue
        if rec.kind != "chat":
            continue
        summary.chat_requests += 1
        summary.steps = max(summary.steps, rec.step or 0) if rec.refused is None else summary.steps
        summary.retries += rec.retry
        summary.transport_retries += rec.transport_retry
        if rec.transport_retry and last_failure is not None:
            retried[last_failure] += 1
        last_failure = rec.error_class.value if rec.error_class is not None else None
        if rec.max_tokens_change is not None:
            summary.max_tokens_changes.append(rec.max_tokens_change)
        if rec.refused is None:
            summary.ended_on_budget_cut = (
                rec.budget_capped is not None and rec.finish_reason == "length"
            )
        if rec.keepalive_wait_ms is not None:
            summary.longest_keepalive_wait_ms = max(
                summary.longest_keepalive_wait_ms or 0.0, rec.keepalive_wait_ms
            )
        _add(summary.requested_models, rec.requested_model)
        if rec.refused is not None:
            summary.refused += 1
            summary.step_ceiling_hit |= rec.refused == "step_ceiling"
            summary.budget_ceiling_hit |= rec.refused == "budget_ceiling"
            continue
        if rec.error_class is not None:
            summary.upstream_errors += 1
            classes[rec.error_class.value] += 1
            summary.stalls += rec.error_class == ErrorClass.PROVIDER_STALL
            summary.truncated += rec.error_class == ErrorClass.TRUNCATED_STREAM
        for model in rec.models_seen or ([rec.model] if rec.model else []):
            _add(summary.observed_models, model)
        _add(summary.observed_providers, rec.provider)
        if rec.provider:
            providers[rec.provider] += 1
        if rec.generation is not None:
            _add(summary.generation_models, rec.generation.model)
        if rec.usage is not None:
            for key in tokens:
                tokens[key] += getattr(rec.usage, key)
        elif rec.status == 200 and rec.error_class is None:
            summary.missing_usage += 1
        cost = rec.cost_usd
        estimate += rec.budget_cost_usd if rec.schema_version >= 2 else (cost or 0.0)
        if cost is None:
            summary.unknown_cost_responses += 1
        else:
            known += cost
    summary.cost_usd = None if summary.unknown_cost_responses else round(known, 8)
    summary.cost_estimate_usd = round(estimate, 8)
    summary.image_cost_usd = round(summary.image_cost_usd, 8)
    summary.tokens = TokenUsage(**tokens, cost_usd=summary.cost_usd)
    summary.error_classes = dict(classes)
    summary.transport_retry_classes = dict(retried)
    summary.provider_requests = dict(providers)
    return summary
