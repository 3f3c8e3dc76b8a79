"""Rendering a `Reply` as chat/completions SSE bytes or a non-streaming JSON body (the other APIs:
`render_messages.py`, `render_responses.py`), and what every format shares."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from gateway.errors import ERROR_TYPE_STATUS
from gateway.simulator.turns import Reply
from records.simulator_scripts import ErrorSpec

ARG_FRAGMENT = 4000  # characters of tool-call arguments per SSE chunk
TEXT_FRAGMENT = 400


def usage_object(reply: Reply) -> dict[str, Any]:
    usage = _usage(reply)
    if not reply.report_cost:
        del usage["cost"], usage["cost_details"]
    return usage


def _usage(reply: Reply) -> dict[str, Any]:
    return {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        "cost": reply.cost,
        "is_byok": False,
        "prompt_tokens_details": {"cached_tokens": reply.cached_tokens},
        "completion_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
        "cost_details": {
            "upstream_inference_cost": reply.cost,  # as in the recorded live streams
            "upstream_inference_prompt_cost": reply.prompt_cost,
            "upstream_inference_completions_cost": reply.completion_cost,
        },
    }


KEEPALIVE = b": OPENROUTER PROCESSING\n\n"
ERROR_TYPES = {400: "invalid_request", 401: "authentication", 402: "payment_required",
               403: "permission_denied", 404: "not_found", 408: "timeout",
               429: "rate_limit_exceeded", 502: "provider_unavailable",
               503: "provider_unavailable", 529: "provider_overloaded"}  # fmt: skip


def error_type(code: int) -> str:
    """The spec's `ApiErrorType` for an HTTP-like code."""
    return ERROR_TYPES.get(code, "server" if code >= 500 else "invalid_request")


def spec_status(spec: ErrorSpec) -> int:
    """The HTTP status a scripted in-stream error stands for: its integer code, the status the
    type its string code names, else its `status`."""
    if isinstance(spec.code, int):
        return spec.code
    if isinstance(spec.code, str):
        return ERROR_TYPE_STATUS.get(spec.code.lower(), spec.status)
    return spec.status


def spec_error_type(spec: ErrorSpec) -> str:
    """The spec's `ApiErrorType` of a scripted error (`metadata.error_type` when scripted)."""
    scripted = spec.metadata.get("error_type")
    return scripted if isinstance(scripted, str) else error_type(spec_status(spec))


def stream_error(spec: ErrorSpec) -> dict[str, Any]:
    """The `error` object of an in-stream failure, in the shape the spec (int) or docs (str) use."""
    code = spec.code if spec.code is not None else spec.status
    error: dict[str, Any] = {"code": code, "message": spec.message}
    if isinstance(code, int):
        error["metadata"] = {"error_type": error_type(code), **spec.metadata}
    elif spec.metadata:
        error["metadata"] = dict(spec.metadata)
    return error


def body_error(spec: ErrorSpec) -> dict[str, Any]:
    """A non-streaming request's failure after routing: HTTP 200 with an error body."""
    return {"error": stream_error(spec), "user_id": "user_simulator"}


def error_body(status: int, message: str, metadata: dict[str, Any] | None = None) -> bytes:
    error: dict[str, Any] = {"code": status, "message": message}
    if metadata:
        error["metadata"] = metadata
    return json.dumps({"error": error}).encode()


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def argument_pieces(arguments: str) -> list[str]:
    """Arguments in fragments the way providers stream them: one top-level key per fragment."""
    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict) or not parsed or json.dumps(parsed) != arguments:
        return pieces(arguments, ARG_FRAGMENT)
    keys = [
        ("{" if i == 0 else ", ") + json.dumps(k) + ": " + json.dumps(v)
        for i, (k, v) in enumerate(parsed.items())
    ]
    keys[-1] += "}"
    return [piece for key in keys for piece in pieces(key, ARG_FRAGMENT)]


def _chunk(reply: Reply, generation_id: str, created: int, choices: list[dict[str, Any]],
           **extra: Any) -> bytes:  # fmt: skip
    head = {
        "id": generation_id,
        "provider": reply.provider,
        "model": reply.model,
        "object": "chat.completion.chunk",
        "created": created,
    }
    return b"data: " + json.dumps({**head, "choices": choices, **extra}).encode() + b"\n\n"


def text_events(reply: Reply, generation_id: str, created: int, text: str) -> Iterator[bytes]:
    """The opening of a streamed answer: the role delta, then `text` in fragments."""
    for d in [{"role": "assistant", "content": ""}] + [
        {"content": piece} for piece in pieces(text, TEXT_FRAGMENT) if piece
    ]:
        choice = {"index": 0, "delta": d, "finish_reason": None, "native_finish_reason": None}
        yield _chunk(reply, generation_id, created, [choice])


def sse_events(reply: Reply, generation_id: str, created: int) -> Iterator[bytes]:
    """The SSE body, event by event (each ends in a blank line)."""

    def chunk(choices: list[dict[str, Any]], **extra: Any) -> bytes:
        return _chunk(reply, generation_id, created, choices, **extra)

    def finish_choice(finish: str | None, native: str | None) -> list[dict[str, Any]]:
        return [{"index": 0, "delta": {"content": "", "role": "assistant"},
                 "finish_reason": finish, "native_finish_reason": native}]  # fmt: skip

    def delta(d: dict[str, Any]) -> bytes:
        return chunk(
            [{"index": 0, "delta": d, "finish_reason": None, "native_finish_reason": None}]
        )

    yield KEEPALIVE
    if reply.error is not None and reply.error.kind == "truncate":
        yield from text_events(
            reply, generation_id, created, reply.error.partial_text or reply.text
        )
        yield b"data: [DONE]\n\n"  # no finish_reason, no usage: cut upstream
        return
    yield delta({"role": "assistant", "content": ""})
    if reply.error is not None and reply.error.kind == "midstream":
        if reply.error.partial_text:
            yield delta({"content": reply.error.partial_text})
        error = stream_error(reply.error)
        yield chunk(finish_choice("error", "error"), error=error)
        if isinstance(error["code"], int):  # the docs' string-code example has no [DONE]
            yield b"data: [DONE]\n\n"
        return
    if reply.text:
        for piece in pieces(reply.text, TEXT_FRAGMENT):
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
    finish = finish_choice(reply.finish_reason, reply.native_finish_reason)
    yield chunk(finish)
    yield chunk(finish, usage=usage_object(reply))  # live: the usage chunk repeats the finish
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
                "native_finish_reason": reply.native_finish_reason,
                "message": message,
            }
        ],
        "usage": usage_object(reply),
    }


def generation_record(
    reply: Reply, generation_id: str, created_at: str, streamed: bool
) -> dict[str, Any]:
    """`GET /generation` data with every field the spec requires."""
    latency = int(reply.delay_seconds * 1000) + 5
    return {
        "id": generation_id,
        "upstream_id": f"sim-{generation_id}",
        "request_id": None,
        "model": reply.model,
        "provider_name": reply.provider,
        "router": None,
        "api_type": "completions",
        "app_id": None,
        "created_at": created_at,
        "streamed": streamed,
        "cancelled": False,
        "is_byok": False,
        "total_cost": reply.billed,
        "usage": reply.billed,
        "upstream_inference_cost": reply.billed,
        "cache_discount": None,
        "latency": latency,
        "moderation_latency": None,
        "generation_time": latency - 1,
        "finish_reason": reply.finish_reason,
        "native_finish_reason": reply.native_finish_reason,
        "service_tier": None,
        "tokens_prompt": reply.prompt_tokens,
        "tokens_completion": reply.completion_tokens,
        "native_tokens_prompt": reply.prompt_tokens,
        "native_tokens_completion": reply.completion_tokens,
        "native_tokens_completion_images": None,
        "native_tokens_reasoning": reply.reasoning_tokens,
        "native_tokens_cached": reply.cached_tokens,
        "num_media_prompt": None,
        "num_input_audio_prompt": None,
        "num_media_completion": None,
        "num_search_results": None,
        "num_fetches": None,
        "web_search_engine": None,
        "origin": "",
        "external_user": None,
        "preset_id": None,
        "user_agent": None,
        "http_referer": None,
        "data_region": "global",
        "workspace_id": None,
        # the spec's provider_responses[].provider_name is an enum of real providers; the demo's
        # are fictional, so the list is null (allowed) rather than invalid
        "provider_responses": None,
    }
