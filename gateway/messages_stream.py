"""Reading Anthropic Messages responses (OpenRouter's `/messages`) into a `StreamObservation`.

A stream is `message_start` (id, model, provider, input usage), content blocks (`text_delta`,
`input_json_delta`, `thinking_delta`, `signature_delta`), `message_delta` (`stop_reason`, the
final usage with OpenRouter's `cost`), `message_stop`; `ping` events are keep-alives like SSE
comments, an `error` event is an in-stream error. Everything is translated into chat/completions
terms: `usage` keys, the finish reason (`end_turn` -> `stop`, `tool_use` -> `tool_calls`,
`max_tokens` -> `length`), the error as `{code: <status>, message, metadata: {error_type}}`.
"""

from __future__ import annotations

import json
from typing import Any

from gateway.errors import ANTHROPIC_ERROR_STATUS, ERROR_TYPE_STATUS
from gateway.sse import StreamObservation, count

TERMINATOR = "message_stop"
STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}


def chat_usage(usage: dict[str, Any]) -> dict[str, Any]:
    """Anthropic usage in chat/completions keys: the prompt counts cache reads and writes (which
    Anthropic's `input_tokens` leaves out), reasoning is `output_tokens_details.thinking_tokens`;
    OpenRouter's `cost`, `cost_details` and `is_byok` are kept."""
    cached = count(usage.get("cache_read_input_tokens"))
    prompt = count(usage.get("input_tokens")) + cached
    prompt += count(usage.get("cache_creation_input_tokens"))
    completion = count(usage.get("output_tokens"))
    details = usage.get("output_tokens_details")
    thinking = count(details.get("thinking_tokens")) if isinstance(details, dict) else 0
    out: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
        "completion_tokens_details": {"reasoning_tokens": thinking},
    }
    return out | {k: usage[k] for k in ("cost", "cost_details", "is_byok") if k in usage}


def openrouter_error(error: dict[str, Any], metadata: Any = None) -> dict[str, Any]:
    """An Anthropic `error` object as OpenRouter's `{code, message, metadata}`: the code is the
    HTTP status its OpenRouter `error_type` or its Anthropic `type` stands for (None if neither
    is known), `metadata.error_type` the OpenRouter type when given."""
    kind, error_type = error.get("type"), error.get("error_type")
    status = ERROR_TYPE_STATUS.get(error_type) if isinstance(error_type, str) else None
    if status is None and isinstance(kind, str):
        status = ANTHROPIC_ERROR_STATUS.get(kind)
    meta = dict(metadata) if isinstance(metadata, dict) else {}
    if isinstance(error_type, str):
        meta["error_type"] = error_type
    message = error.get("message")
    out: dict[str, Any] = {
        "code": status,
        "message": message if isinstance(message, str) else str(kind or "error"),
    }
    return out | ({"metadata": meta} if meta else {})


class MessagesObserver:
    """Takes in the events of one response (or its whole message, or an error body) and keeps
    `obs` current: the proxy reads it while the stream is still coming."""

    def __init__(self, obs: StreamObservation) -> None:
        self.obs = obs
        obs.terminator = TERMINATOR
        self._usage: dict[str, Any] = {}  # Anthropic's usage so far (message_delta adds to it)
        self._calls: dict[Any, dict[str, Any]] = {}  # content block index -> its tool call

    def take(self, obj: Any) -> None:
        obs = self.obs
        if not isinstance(obj, dict):
            obs.malformed.append(f"not an object: {str(obj)[:80]}")
            return
        kind = obj.get("type")
        if kind == "ping":
            obs.comments += 1  # Anthropic's keep-alive
            return
        if not isinstance(kind, str):
            obs.malformed.append(f"no event type: {json.dumps(obj)[:80]}")
            return
        obs.chunks += 1
        if kind == "message_start":
            self._message(obj.get("message"), whole=False)
        elif kind == "message":
            self._message(obj, whole=True)
            obs.done = True
        elif kind == "content_block_start":
            self._block(obj.get("content_block"), obj.get("index"))
        elif kind == "content_block_delta":
            self._delta(obj.get("delta"), obj.get("index"))
        elif kind == "message_delta":
            delta = obj.get("delta")
            if isinstance(delta, dict):
                self._stop(delta.get("stop_reason"))
            self._add_usage(obj.get("usage"))
        elif kind == "message_stop":
            obs.done = True
        elif kind == "error" and isinstance(obj.get("error"), dict):
            obs.error = openrouter_error(obj["error"], obj.get("metadata"))

    def _message(self, message: Any, whole: bool) -> None:
        obs = self.obs
        if not isinstance(message, dict):
            obs.malformed.append("message_start without a message")
            return
        obs.identify(message)
        self._add_usage(message.get("usage"))
        if whole:
            for index, block in enumerate(message.get("content") or []):
                self._block(block, index)
            self._stop(message.get("stop_reason"))

    def _stop(self, reason: Any) -> None:
        if isinstance(reason, str):
            self.obs.finish_reason = STOP_REASONS.get(reason, reason)

    def _add_usage(self, usage: Any) -> None:
        """Later non-null values win: message_delta's final counts over message_start's."""
        if isinstance(usage, dict):
            self._usage |= {k: v for k, v in usage.items() if v is not None}
            self.obs.usage = chat_usage(self._usage)

    def _block(self, block: Any, index: Any) -> None:
        if not isinstance(block, dict):
            return
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            self.obs.content += block["text"]
        elif block.get("type") == "tool_use":
            given = block.get("input")
            call = {"id": block.get("id"), "name": block.get("name"),
                    "arguments": json.dumps(given) if given not in (None, {}) else ""}  # fmt: skip
            self.obs.tool_calls.append(call)
            self._calls[index] = call

    def _delta(self, delta: Any, index: Any) -> None:
        if not isinstance(delta, dict):
            return
        kind = delta.get("type")
        if kind == "text_delta" and isinstance(delta.get("text"), str):
            self.obs.content += delta["text"]
        elif kind == "input_json_delta" and isinstance(delta.get("partial_json"), str):
            call = self._calls.get(index)
            if call is None:
                self.obs.malformed.append(f"input_json_delta for no tool_use block ({index!r})")
            else:
                call["arguments"] += delta["partial_json"]
        # thinking_delta, signature_delta, citations_delta: nothing the proxy records
