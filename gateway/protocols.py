"""Per-protocol metering: how the proxy reads one model API's requests and responses.

The proxy counts steps, enforces the step ceiling and the budget, detects stalls and truncated
streams, classes errors and records usage through a `MeteredProtocol`, so each agent API is one
adapter, not a second proxy. `DEFAULT_PROTOCOLS` meters three of OpenRouter's APIs:

- `ChatCompletions`, `POST /chat/completions` (OpenCode): the policy as `GatewayPolicy.apply`
  writes it; `max_tokens` (or `max_completion_tokens`); SSE chunks ending in `[DONE]`.
- `AnthropicMessages`, `POST /messages` (Claude Code, base URL `.../api`): the provider routing,
  `output_config.effort` for a `high` reasoning policy; `max_tokens` (a `thinking.budget_tokens`
  the budget's lower `max_tokens` no longer fits is lowered with it); Anthropic's SSE events
  (`messages_stream.py`); its refusals in Anthropic's error shape.
- `OpenAIResponses`, `POST /responses` (Codex CLI, `wire_api = "responses"`): the provider
  routing, `reasoning.effort` (other reasoning fields kept); `max_output_tokens`; the Responses
  events (`responses_stream.py`).
- `GeminiGenerateContent`, `POST /gemini/v1beta/models/{model}:generateContent` and
  `:streamGenerateContent` (Gemini CLI): a `TranslatingProtocol`. OpenRouter has no Gemini
  endpoint, so the request is translated to chat/completions for the same route (`gemini.py`),
  metered and forwarded as chat/completions, and the answer is translated back as it streams.

Every reader gives the same `StreamObservation` in chat/completions terms (usage keys, finish
reasons, OpenRouter error objects), so the records, the budget and the summaries are the same
for every protocol. `usage: {include: true}` is chat/completions' alone (the other APIs always
report usage). `tests/test_gateway_protocols.py` also meters a fake non-streaming protocol.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any, Protocol

from gateway import gemini, messages_stream, responses_stream
from gateway.errors import anthropic_error_type
from gateway.messages_stream import MessagesObserver
from gateway.responses_stream import ResponsesObserver
from gateway.sse import (
    SSEReader,
    StreamObservation,
    TypedEventReader,
    observe_json,
    observe_typed_body,
)
from records.evidence.gateway import GatewayPolicy


class StreamReader(Protocol):
    """Incremental reader of a streamed response: bytes in any fragmentation, then the result."""

    @property
    def observation(self) -> StreamObservation: ...

    def feed(self, data: bytes) -> None: ...

    def close(self) -> StreamObservation: ...


class MeteredProtocol(Protocol):
    """One model API the proxy meters (paths are relative to `/api/v1`)."""

    name: str  # recorded in gateway.jsonl as `protocol`
    path: str  # e.g. "/chat/completions"

    def apply_policy(
        self, policy: GatewayPolicy, body: dict[str, Any]
    ) -> tuple[dict[str, Any], list[str]]:
        """The body to forward under the frozen policy, and what changed."""
        ...

    def prompt_bytes(self, body: dict[str, Any]) -> int:
        """UTF-8 size of everything that is billed as prompt (for the budget's token estimate)."""
        ...

    def max_tokens(self, body: dict[str, Any]) -> int | None: ...

    def with_max_tokens(self, body: dict[str, Any], max_tokens: int) -> dict[str, Any]: ...

    def streaming(self, body: dict[str, Any]) -> bool: ...

    def stream_reader(self) -> StreamReader: ...

    def observe_body(self, body: bytes) -> StreamObservation:
        """The observation of a non-streamed response body (usage in chat/completions keys)."""
        ...

    def error_body(self, status: int, message: str, metadata: dict[str, Any]) -> dict[str, Any]:
        """The proxy's own error answer (a refused step, a bad body, an unreachable upstream)
        in this API's error shape, so the agent's client reads it as it reads the gateway's."""
        ...


class ResponseTranslator(Protocol):
    """Rewrites the upstream's answer for the agent, as it arrives: each returned piece is one
    write to the client (an empty list: nothing to send yet)."""

    def feed(self, data: bytes) -> list[bytes]: ...

    def close(self) -> list[bytes]: ...


class TranslatingProtocol(MeteredProtocol, Protocol):
    """A front end for an API OpenRouter does not serve: the agent's request (at any path under
    `path`) is translated to another metered API's body, forwarded to `upstream_path`, and the
    answer is rewritten back. Everything the proxy meters is the upstream's side (the request as
    forwarded, the upstream's response), so records read as the upstream protocol's."""

    upstream_path: str

    def matches(self, route: str) -> bool:
        """Whether `route` (relative to `/api/v1`, no query) is one of this front end's paths."""
        ...

    def translate_request(
        self, route: str, body: dict[str, Any]
    ) -> tuple[dict[str, Any], list[str]]:
        """The upstream body and what could not be carried over (raises ValueError)."""
        ...

    def response_translator(self, status: int, streaming: bool) -> ResponseTranslator: ...


def request_digest(body: dict[str, Any], sender: str) -> str:
    """Who sent which request: the whole body (model, tools, tool_choice, sampling and policy
    fields, the conversation) and the sender (its `User-Agent`). Equal digests = the same request
    asked again by the same client: a repeat, which keeps its step."""
    return hashlib.sha256(json.dumps([sender, body], sort_keys=True).encode()).hexdigest()


def _size(*values: Any) -> int:
    return sum(len(json.dumps(v, ensure_ascii=False).encode()) for v in values if v is not None)


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def openrouter_error_body(status: int, message: str, metadata: dict[str, Any]) -> dict[str, Any]:
    """OpenRouter's error shape: `{"error": {"code", "message", "metadata"}}`."""
    return {"error": {"code": status, "message": message, "metadata": metadata}}


class ChatCompletions:
    """OpenAI-compatible `POST /chat/completions` as OpenRouter serves it (SSE or JSON)."""

    name = "chat/completions"
    path = "/chat/completions"

    def apply_policy(
        self, policy: GatewayPolicy, body: dict[str, Any]
    ) -> tuple[dict[str, Any], list[str]]:
        return policy.apply(body)

    def prompt_bytes(self, body: dict[str, Any]) -> int:
        return _size(body.get("messages"), body.get("tools"))

    def max_tokens(self, body: dict[str, Any]) -> int | None:
        for key in ("max_tokens", "max_completion_tokens"):
            if (value := _positive(body.get(key))) is not None:
                return value
        return None

    def with_max_tokens(self, body: dict[str, Any], max_tokens: int) -> dict[str, Any]:
        out = copy.deepcopy(body)
        out.pop("max_completion_tokens", None)
        out["max_tokens"] = max_tokens
        return out

    def streaming(self, body: dict[str, Any]) -> bool:
        return bool(body.get("stream"))

    def stream_reader(self) -> StreamReader:
        return SSEReader()

    def observe_body(self, body: bytes) -> StreamObservation:
        return observe_json(body)

    def error_body(self, status: int, message: str, metadata: dict[str, Any]) -> dict[str, Any]:
        return openrouter_error_body(status, message, metadata)


THINKING_MIN_BUDGET = 1024  # Anthropic's smallest `thinking.budget_tokens`


def _routed_with_effort(
    policy: GatewayPolicy, body: dict[str, Any], field: str
) -> tuple[dict[str, Any], list[str]]:
    """The policy's routing, and `<field>.effort` set to "high" when the policy asks for it (the
    Messages and Responses protocols name the object differently)."""
    out, changes = policy.route(body)
    raw = out.get(field)
    settings: dict[str, Any] = dict(raw) if isinstance(raw, dict) else {}
    if policy.reasoning == "high" and settings.get("effort") != "high":
        changes.append(f'{field}.effort="high"')
        out[field] = {**settings, "effort": "high"}
    return out, changes


class AnthropicMessages:
    """Anthropic's `POST /messages` as OpenRouter serves it (SSE events or a JSON message)."""

    name = "messages"
    path = "/messages"

    def apply_policy(
        self, policy: GatewayPolicy, body: dict[str, Any]
    ) -> tuple[dict[str, Any], list[str]]:
        return _routed_with_effort(policy, body, "output_config")

    def prompt_bytes(self, body: dict[str, Any]) -> int:
        return _size(body.get("system"), body.get("messages"), body.get("tools"))

    def max_tokens(self, body: dict[str, Any]) -> int | None:
        return _positive(body.get("max_tokens"))

    def with_max_tokens(self, body: dict[str, Any], max_tokens: int) -> dict[str, Any]:
        """`max_tokens` lowered; a thinking budget that no longer fits under it is lowered too
        (Anthropic refuses `budget_tokens >= max_tokens`), and thinking is turned off when what
        is left is under Anthropic's minimum budget."""
        out = copy.deepcopy(body)
        out["max_tokens"] = max_tokens
        thinking = out.get("thinking")
        budget = _positive(thinking.get("budget_tokens")) if isinstance(thinking, dict) else None
        if isinstance(thinking, dict) and budget is not None and budget >= max_tokens:
            if max_tokens - 1 < THINKING_MIN_BUDGET:
                out["thinking"] = {"type": "disabled"}
            else:
                out["thinking"] = {**thinking, "budget_tokens": max_tokens - 1}
        return out

    def streaming(self, body: dict[str, Any]) -> bool:
        return bool(body.get("stream"))

    def stream_reader(self) -> StreamReader:
        return TypedEventReader(MessagesObserver)

    def observe_body(self, body: bytes) -> StreamObservation:
        return observe_typed_body(body, MessagesObserver, messages_stream.TERMINATOR)

    def error_body(self, status: int, message: str, metadata: dict[str, Any]) -> dict[str, Any]:
        error = {"type": anthropic_error_type(status), "message": message}
        return {"type": "error", "error": error, "request_id": None, "metadata": metadata}


class OpenAIResponses:
    """OpenAI's `POST /responses` as OpenRouter serves it (stateless; SSE events or JSON)."""

    name = "responses"
    path = "/responses"

    def apply_policy(
        self, policy: GatewayPolicy, body: dict[str, Any]
    ) -> tuple[dict[str, Any], list[str]]:
        return _routed_with_effort(policy, body, "reasoning")

    def prompt_bytes(self, body: dict[str, Any]) -> int:
        return _size(body.get("instructions"), body.get("input"), body.get("tools"))

    def max_tokens(self, body: dict[str, Any]) -> int | None:
        return _positive(body.get("max_output_tokens"))

    def with_max_tokens(self, body: dict[str, Any], max_tokens: int) -> dict[str, Any]:
        out = copy.deepcopy(body)
        out["max_output_tokens"] = max_tokens
        return out

    def streaming(self, body: dict[str, Any]) -> bool:
        return bool(body.get("stream"))

    def stream_reader(self) -> StreamReader:
        return TypedEventReader(ResponsesObserver)

    def observe_body(self, body: bytes) -> StreamObservation:
        return observe_typed_body(body, ResponsesObserver, responses_stream.TERMINATOR)

    def error_body(self, status: int, message: str, metadata: dict[str, Any]) -> dict[str, Any]:
        return openrouter_error_body(status, message, metadata)


class GeminiGenerateContent(ChatCompletions):
    """Google's Gemini API (`generateContent`, `streamGenerateContent?alt=sse`) in front of
    OpenRouter's chat/completions (`gemini.py`): metered as chat/completions (policy, output
    limit, stream reading), its own refusals and errors in Google's error shape."""

    name = "gemini"
    path = "/gemini/v1beta"  # the base URL the agent is given is `.../api/v1/gemini`
    upstream_path = "/chat/completions"

    def matches(self, route: str) -> bool:
        return (
            route.startswith(self.path + "/models/")
            and gemini.MODEL_PATH.match(route[len(self.path) :]) is not None
        )

    def translate_request(
        self, route: str, body: dict[str, Any]
    ) -> tuple[dict[str, Any], list[str]]:
        model, stream = gemini.parse_path(route[len(self.path) :])
        return gemini.to_chat(model, stream, body)

    def response_translator(self, status: int, streaming: bool) -> ResponseTranslator:
        return gemini.ResponseTranslator(status, streaming)

    def error_body(self, status: int, message: str, metadata: dict[str, Any]) -> dict[str, Any]:
        """Google's shape; the proxy's own reason as a `google.rpc.ErrorInfo` detail."""
        out = gemini.google_error(status, message)
        info = {str(k): str(v) for k, v in metadata.items() if k not in ("source", "reason")}
        out["error"]["details"] = [{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": str(metadata.get("reason") or "harness_proxy"),
            "domain": str(metadata.get("source") or "harness-proxy"), "metadata": info,
        }]  # fmt: skip
        return out


def translating(protocol: MeteredProtocol) -> TranslatingProtocol | None:
    """`protocol` as a translating front end, if it is one."""
    if hasattr(protocol, "translate_request") and hasattr(protocol, "matches"):
        return protocol  # type: ignore[return-value]
    return None


DEFAULT_PROTOCOLS: tuple[MeteredProtocol, ...] = (
    ChatCompletions(),
    AnthropicMessages(),
    OpenAIResponses(),
    GeminiGenerateContent(),
)
