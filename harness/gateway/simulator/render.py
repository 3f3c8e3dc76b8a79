"""Rendering a `Reply` as OpenRouter SSE bytes or a non-streaming JSON body."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from harness.gateway.simulator.turns import Reply

ARG_FRAGMENT = 4000  # characters of tool-call arguments per SSE chunk
TEXT_FRAGMENT = 400


def usage_object(reply: Reply) -> dict[str, Any]:
    return {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        "cost": reply.cost,
        "is_byok": False,
        "prompt_tokens_details": {"cached_tokens": reply.cached_tokens},
        "completion_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
        "cost_details": {"upstream_inference_cost": None},
    }


def error_body(status: int, message: str, metadata: dict[str, Any] | None = None) -> bytes:
    error: dict[str, Any] = {"code": status, "message": message}
    if metadata:
        error["metadata"] = metadata
    return json.dumps({"error": error}).encode()


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def argument_pieces(arguments: str) -> list[str]:
    """Arguments in fragments the way providers stream them: one top-level key per fragment."""
    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict) or not parsed or json.dumps(parsed) != arguments:
        return _pieces(arguments, ARG_FRAGMENT)
    keys = [
        ("{" if i == 0 else ", ") + json.dumps(k) + ": " + json.dumps(v)
        for i, (k, v) in enumerate(parsed.items())
    ]
    keys[-1] += "}"
    return [piece for key in keys for piece in _pieces(key, ARG_FRAGMENT)]


def sse_events(reply: Reply, generation_id: str, created: int) -> Iterator[bytes]:
    """The SSE body, event by event (each ends in a blank line)."""
    head = {
        "id": generation_id,
        "provider": reply.provider,
        "model": reply.model,
        "object": "chat.completion.chunk",
        "created": created,
    }

    def chunk(choices: list[dict[str, Any]], **extra: Any) -> bytes:
        return b"data: " + json.dumps({**head, "choices": choices, **extra}).encode() + b"\n\n"

    def delta(d: dict[str, Any], finish: str | None = None) -> bytes:
        return chunk(
            [{"index": 0, "delta": d, "finish_reason": finish, "native_finish_reason": finish}]
        )

    yield b": OPENROUTER PROCESSING\n\n"
    yield delta({"role": "assistant", "content": ""})
    if reply.error is not None and reply.error.kind == "midstream":
        if reply.error.partial_text:
            yield delta({"content": reply.error.partial_text})
        error = {"code": reply.error.code or reply.error.status, "message": reply.error.message}
        if reply.error.metadata:
            error["metadata"] = reply.error.metadata
        yield chunk([{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}], error=error)
        yield b"data: [DONE]\n\n"
        return
    if reply.text:
        for piece in _pieces(reply.text, TEXT_FRAGMENT):
            yield delta({"content": piece})
    for index, (call_id, name, arguments) in enumerate(reply.tool_calls):
        first = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        yield delta({"tool_calls": [first]})
        for piece in argument_pieces(arguments):
            yield delta({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield delta({}, reply.finish_reason)
    yield chunk([], usage=usage_object(reply))
    yield b"data: [DONE]\n\n"


def json_body(reply: Reply, generation_id: str, created: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}
            for cid, name, args in reply.tool_calls
        ]
    return {
        "id": generation_id,
        "provider": reply.provider,
        "model": reply.model,
        "object": "chat.completion",
        "created": created,
        "system_fingerprint": None,
        "choices": [
            {
                "index": 0,
                "logprobs": None,
                "finish_reason": reply.finish_reason,
                "native_finish_reason": reply.finish_reason,
                "message": message,
            }
        ],
        "usage": usage_object(reply),
    }


def generation_record(
    reply: Reply, generation_id: str, created_at: str, streamed: bool
) -> dict[str, Any]:
    return {
        "id": generation_id,
        "model": reply.model,
        "provider_name": reply.provider,
        "api_type": "completions",
        "created_at": created_at,
        "streamed": streamed,
        "cancelled": False,
        "is_byok": False,
        "total_cost": reply.cost,
        "usage": reply.cost,
        "latency": int(reply.delay_seconds * 1000) + 5,
        "generation_time": int(reply.delay_seconds * 1000) + 4,
        "finish_reason": reply.finish_reason,
        "native_finish_reason": reply.finish_reason,
        "tokens_prompt": reply.prompt_tokens,
        "tokens_completion": reply.completion_tokens,
        "native_tokens_prompt": reply.prompt_tokens,
        "native_tokens_completion": reply.completion_tokens,
        "native_tokens_reasoning": reply.reasoning_tokens,
        "native_tokens_cached": reply.cached_tokens,
        "provider_responses": [
            {"provider_name": reply.provider, "model_permaslug": reply.model, "status": 200}
        ],
    }
