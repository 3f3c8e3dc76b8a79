"""Per-protocol metering: how the proxy reads one model API's requests and responses.

The proxy counts steps, enforces the budget and records usage through a `MeteredProtocol`, so a
second agent API (Anthropic Messages, OpenAI Responses) is one more adapter, not a second proxy.
Only `ChatCompletions` exists today; `tests/test_gateway_protocols.py` meters a fake second one.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any, Protocol

from harness.gateway.sse import SSEReader, StreamObservation, observe_json
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

    def conversation(self, body: dict[str, Any]) -> str:
        """A digest of the conversation so far: equal digests = the same step asked again."""
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


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def _size(*values: Any) -> int:
    return sum(len(json.dumps(v, ensure_ascii=False).encode()) for v in values if v is not None)


class ChatCompletions:
    """OpenAI-compatible `POST /chat/completions` as OpenRouter serves it (SSE or JSON)."""

    name = "chat/completions"
    path = "/chat/completions"

    def apply_policy(
        self, policy: GatewayPolicy, body: dict[str, Any]
    ) -> tuple[dict[str, Any], list[str]]:
        return policy.apply(body)

    def conversation(self, body: dict[str, Any]) -> str:
        return _digest(body.get("messages"))

    def prompt_bytes(self, body: dict[str, Any]) -> int:
        return _size(body.get("messages"), body.get("tools"))

    def max_tokens(self, body: dict[str, Any]) -> int | None:
        for key in ("max_tokens", "max_completion_tokens"):
            value = body.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
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


DEFAULT_PROTOCOLS: tuple[MeteredProtocol, ...] = (ChatCompletions(),)
