"""Typed records of the recording proxy: its policy, one `gateway.jsonl` line, the unit summary."""

from __future__ import annotations

import copy
import json
from collections import Counter
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

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


Refusal = Literal["step_ceiling", "budget_ceiling"]




class GatewayPolicy(Record):
    """The frozen request policy the proxy writes into every chat/completions body."""

    reasoning: Literal["high", "default"] = "default"
    allow_fallbacks: bool = False
    require_parameters: bool = True
    include_usage: bool = True

    def apply(self, body: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """The body to forward and a list of what changed (empty if the client already complied)."""
        out = copy.deepcopy(body)
        changes: list[str] = []
        raw = out.get("provider")
        provider: dict[str, Any] = dict(raw) if isinstance(raw, dict) else {}
        wanted = {
            "allow_fallbacks": self.allow_fallbacks,
            "require_parameters": self.require_parameters,
        }
        for key, value in wanted.items():
            if provider.get(key) is not value:
                changes.append(f"provider.{key}={json.dumps(value)}")
        out["provider"] = {**provider, **wanted}
        if self.reasoning == "high" and out.get("reasoning") != {"effort": "high"}:
            changes.append('reasoning={"effort":"high"}')
            out["reasoning"] = {"effort": "high"}
        if self.include_usage and out.get("usage") != {"include": True}:
            changes.append('usage={"include":true}')
            out["usage"] = {"include": True}
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


class ExchangeRecord(Root):
    """One line of `gateway.jsonl`: one request through the proxy and what came back."""

    time: str = Field(description="UTC ISO time the request arrived")
    index: int = Field(description="1-based position among all requests to the proxy")
    kind: Literal["chat", "other"]
    method: str
    path: str
    step: int | None = Field(default=None, description="agent step (chat only; a retry repeats it)")
    retry: bool = Field(default=False, description="messages equal the previous chat request's")
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

    @property
    def cost_usd(self) -> float:
        """Authoritative cost: the generation record's if fetched, else the stream's usage.cost."""
        if self.generation is not None and self.generation.total_cost is not None:
            return self.generation.total_cost
        if self.usage is not None and self.usage.cost_usd is not None:
            return self.usage.cost_usd
        return 0.0


class GatewaySummary(Root):
    """Per-unit totals from `gateway.jsonl`: the only source of steps, tokens and cost."""

    requests: int = 0
    chat_requests: int = 0
    steps: int = 0
    refused: int = 0
    retries: int = 0
    upstream_errors: int = 0
    error_classes: dict[str, int] = Field(default_factory=dict)
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    cost_usd: float = 0.0
    requested_models: list[str] = Field(default_factory=list)
    observed_models: list[str] = Field(default_factory=list)
    observed_providers: list[str] = Field(default_factory=list)
    generation_models: list[str] = Field(default_factory=list)
    step_ceiling_hit: bool = False
    budget_ceiling_hit: bool = False
    missing_usage: int = Field(default=0, description="completed chat responses without usage")


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
    tokens = {"prompt": 0, "completion": 0, "reasoning": 0, "cached": 0}
    for rec in read_exchanges(gateway_jsonl):
        summary.requests += 1
        if rec.kind != "chat":
            continue
        summary.chat_requests += 1
        summary.steps = max(summary.steps, rec.step or 0) if rec.refused is None else summary.steps
        summary.retries += rec.retry
        _add(summary.requested_models, rec.requested_model)
        if rec.refused is not None:
            summary.refused += 1
            summary.step_ceiling_hit |= rec.refused == "step_ceiling"
            summary.budget_ceiling_hit |= rec.refused == "budget_ceiling"
            continue
        if rec.error_class is not None:
            summary.upstream_errors += 1
            classes[rec.error_class.value] += 1
        for model in rec.models_seen or ([rec.model] if rec.model else []):
            _add(summary.observed_models, model)
        _add(summary.observed_providers, rec.provider)
        if rec.generation is not None:
            _add(summary.generation_models, rec.generation.model)
        if rec.usage is not None:
            for key in tokens:
                tokens[key] += getattr(rec.usage, key)
        elif rec.status == 200 and rec.error_class is None:
            summary.missing_usage += 1
        summary.cost_usd += rec.cost_usd
    summary.cost_usd = round(summary.cost_usd, 8)
    summary.tokens = TokenUsage(**tokens, cost_usd=summary.cost_usd)
    summary.error_classes = dict(classes)
    return summary
