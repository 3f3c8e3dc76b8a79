"""Anthropic Messages (`POST /messages`, as OpenRouter serves it to Claude Code): the request read
as chat/completions fields, a `Reply` as Anthropic SSE events or a JSON message.

A stream: `message_start` (id, model, OpenRouter's `provider`, input usage), `ping`, a text
block, one `tool_use` block per call (arguments as `input_json_delta`), `message_delta`
(`stop_reason`, the whole usage with OpenRouter's `cost`), `message_stop`. A scripted
`midstream` error ends it with an `error` event; `truncate` stops after the text, before
`message_delta`. Errors are Anthropic's `{"type": "error", "error": {type, message}}` with
OpenRouter's `error_type` (and `metadata` beside it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from gateway.errors import anthropic_error_type
from gateway.simulator import render
from gateway.simulator.formats import BadRequest, ReplyRenderer, dumps, used
from gateway.simulator.turns import Reply
from records.simulator_scripts import ErrorSpec

NAMES = {
    "max_tokens": "max_tokens", "tools": "tools", "tool_choice": "tool_choice",
    "temperature": "temperature", "top_p": "top_p", "top_k": "top_k", "stop_sequences": "stop",
    "thinking": "reasoning",
}  # fmt: skip
TEXT_BLOCK = {"type": "text", "text": "", "citations": None}


def api_id(prefix: str, generation_id: str) -> str:
    """The API's own id of a result (`msg_…`, `resp_…`, as OpenRouter's spec shows them); the
    generation id travels in the `X-Generation-Id` header."""
    return f"{prefix}_{generation_id.removeprefix('gen-')}"


def event(kind: str, **data: Any) -> bytes:
    return b"event: " + kind.encode() + b"\ndata: " + dumps({"type": kind, **data}) + b"\n\n"


def usage(reply: Reply, final: bool = True) -> dict[str, Any]:
    """Anthropic's usage (input tokens without the cache reads), with OpenRouter's cost when
    `final` and the script reports it (message_start's usage has no output yet)."""
    out: dict[str, Any] = {
        "input_tokens": reply.prompt_tokens - reply.cached_tokens,
        "output_tokens": reply.completion_tokens if final else 0,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": reply.cached_tokens,
        "cache_creation": None,
        "inference_geo": None,
        "server_tool_use": None,
        "service_tier": "standard",
        "output_tokens_details": {"thinking_tokens": reply.reasoning_tokens if final else 0},
    }
    if final:
        chat = render.usage_object(reply)
        out |= {k: chat[k] for k in ("cost", "cost_details", "is_byok") if k in chat}
    return out


def error_object(status: int, message: str, error_type: str | None = None) -> dict[str, Any]:
    return {
        "type": anthropic_error_type(status),
        "message": message,
        "error_type": error_type or render.error_type(status),
    }


def scripted_error(spec: ErrorSpec) -> dict[str, Any]:
    return error_object(render.spec_status(spec), spec.message, render.spec_error_type(spec))


class MessagesRenderer:
    def __init__(self, reply: Reply, generation_id: str, created: int) -> None:
        self.reply, self.generation_id = reply, generation_id
        self._opened = False  # `opening` sent the start and an open text block

    def _message(self, content: list[dict[str, Any]], final: bool) -> dict[str, Any]:
        reply = self.reply
        return {
            "id": api_id("msg", self.generation_id), "type": "message", "role": "assistant",
            "model": reply.model, "provider": reply.provider, "content": content,
            "container": None, "stop_reason": reply.native_finish_reason if final else None,
            "stop_sequence": None, "stop_details": None, "usage": usage(reply, final),
        }  # fmt: skip

    def _start(self) -> Iterator[bytes]:
        yield event("message_start", message=self._message([], final=False))
        yield event("ping")

    def _text(self, text: str, started: bool) -> Iterator[bytes]:
        if not started:
            yield event("content_block_start", index=0, content_block=TEXT_BLOCK)
        for piece in render.pieces(text, render.TEXT_FRAGMENT):
            if piece:
                delta = {"type": "text_delta", "text": piece}
                yield event("content_block_delta", index=0, delta=delta)

    def opening(self, text: str) -> Iterator[bytes]:
        self._opened = True
        yield from self._start()
        yield from self._text(text, started=False)

    def events(self) -> Iterator[bytes]:
        reply, error = self.reply, self.reply.error
        if not self._opened:
            yield from self._start()
        if error is not None and error.kind in ("midstream", "truncate"):
            text = error.partial_text or (reply.text if error.kind == "truncate" else "")
            if text:
                yield from self._text(text, started=self._opened)
            if error.kind == "midstream":
                yield event("error", error=scripted_error(error))
            return  # truncate: cut before message_delta and message_stop
        index = 0
        if reply.text or self._opened:
            yield from self._text(reply.text, started=self._opened)
            yield event("content_block_stop", index=0)
            index = 1
        for call_id, name, arguments in reply.tool_calls:
            block = {"type": "tool_use", "id": call_id, "name": name, "input": {},
                     "caller": {"type": "direct"}}  # fmt: skip
            yield event("content_block_start", index=index, content_block=block)
            for piece in render.argument_pieces(arguments):
                json_delta = {"type": "input_json_delta", "partial_json": piece}
                yield event("content_block_delta", index=index, delta=json_delta)
            yield event("content_block_stop", index=index)
            index += 1
        stop: dict[str, Any] = {"stop_reason": reply.native_finish_reason, "stop_sequence": None,
                                "container": None, "stop_details": None}  # fmt: skip
        yield event("message_delta", delta=stop, usage=usage(reply))
        yield event("message_stop")

    def json_body(self) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if self.reply.text:
            content.append({**TEXT_BLOCK, "text": self.reply.text})
        for call_id, name, arguments in self.reply.tool_calls:
            block = {"type": "tool_use", "id": call_id, "name": name,
                     "input": json.loads(arguments), "caller": {"type": "direct"}}  # fmt: skip
            content.append(block)
        return self._message(content, final=True)

    def body_error(self) -> dict[str, Any]:
        assert self.reply.error is not None
        error = scripted_error(self.reply.error)
        return {"type": "error", "error": error, "request_id": self.generation_id}


class MessagesFormat:
    """Anthropic's Messages API on OpenRouter (Claude Code: base URL `.../api`)."""

    path = "/messages"

    def request(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages")
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            raise BadRequest("messages: expected a list of message objects")
        limit = body.get("max_tokens")
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool)):
            raise BadRequest("max_tokens: expected an integer")
        system = body.get("system")
        if system is not None and not isinstance(system, str | list):
            raise BadRequest("system: expected a string or a list of text blocks")
        head = [{"role": "system", "content": system}] if system else []
        return {"messages": head + messages, "tools": body.get("tools"), "max_tokens": limit}

    def parameters(self, body: dict[str, Any]) -> set[str]:
        names = used(body, NAMES)
        config = body.get("output_config")
        if isinstance(config, dict) and config.get("effort") is not None:
            names.add("reasoning")
        if isinstance(config, dict) and config.get("format") is not None:
            names.add("structured_outputs")
        return names

    def error_body(self, status: int, message: str, metadata: dict[str, Any] | None) -> bytes:
        meta = dict(metadata or {})
        kind = meta.get("error_type")
        error = error_object(status, message, kind if isinstance(kind, str) else None)
        body: dict[str, Any] = {"type": "error", "error": error, "request_id": None}
        return dumps(body | ({"metadata": meta} if meta else {}))

    def renderer(self, reply: Reply, generation_id: str, created: int) -> ReplyRenderer:
        return MessagesRenderer(reply, generation_id, created)
