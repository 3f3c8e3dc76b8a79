"""OpenAI Responses (`POST /responses`, OpenRouter's stateless beta, as Codex CLI uses it): the
request read as chat/completions fields, a `Reply` as Responses SSE events or a response object.

A stream (`data:` lines, each event with its `type` and `sequence_number`): `response.created`,
`response.in_progress`, a message item (`output_item.added`, `content_part.added`,
`output_text.delta`..., `output_text.done`, `content_part.done`, `output_item.done`), one
`function_call` item per call (`function_call_arguments.delta`/`.done`), then
`response.completed` with the whole response and its usage (OpenRouter's `cost`), or
`response.incomplete` when cut at `max_output_tokens`. A scripted `midstream` error ends it with
`response.failed` (`error.code` and OpenRouter's `error_type`); `truncate` stops before the
terminal event. HTTP errors are OpenRouter's own `{"error": {code, message}}`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from gateway.simulator import render
from gateway.simulator.formats import BadRequest, ReplyRenderer, dumps, text_of, used
from gateway.simulator.render_messages import api_id
from gateway.simulator.turns import Reply
from records.simulator_scripts import ErrorSpec

NAMES = {
    "max_output_tokens": "max_tokens", "tools": "tools", "tool_choice": "tool_choice",
    "temperature": "temperature", "top_p": "top_p", "top_k": "top_k", "reasoning": "reasoning",
    "top_logprobs": "top_logprobs",
}  # fmt: skip
ERROR_CODES = {"server_error", "rate_limit_exceeded", "invalid_prompt"}  # of the spec's enum
MODEL_ITEMS = {"function_call", "reasoning", "custom_tool_call"}


def usage(reply: Reply) -> dict[str, Any]:
    """Responses usage (`input_tokens` counts the cached ones), with OpenRouter's cost."""
    out: dict[str, Any] = {
        "input_tokens": reply.prompt_tokens,
        "input_tokens_details": {"cached_tokens": reply.cached_tokens},
        "output_tokens": reply.completion_tokens,
        "output_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        "is_byok": False,
    }
    if reply.report_cost:
        out["cost"] = reply.cost
        out["cost_details"] = {
            "upstream_inference_cost": reply.cost,
            "upstream_inference_input_cost": reply.prompt_cost,
            "upstream_inference_output_cost": reply.completion_cost,
        }
    return out


def error_code(spec: ErrorSpec) -> str:
    """The Responses `error.code` of a scripted failure (the spec's enum is coarse; OpenRouter's
    `error_type` beside it says more)."""
    if isinstance(spec.code, str) and spec.code in ERROR_CODES:
        return spec.code
    status = render.spec_status(spec)
    if status == 429:
        return "rate_limit_exceeded"
    return "invalid_prompt" if 400 <= status < 500 else "server_error"


def output_text(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": []}


class ResponsesRenderer:
    def __init__(self, reply: Reply, generation_id: str, created: int) -> None:
        self.reply, self.generation_id, self.created = reply, generation_id, created
        self._sequence = itertools.count()
        self._opened = False  # `opening` sent the start and an open message item
        self._text = ""  # what the message item has streamed so far
        self._message_id = f"msg_{generation_id}"

    def _event(self, kind: str, **data: Any) -> bytes:
        payload = {"type": kind, "sequence_number": next(self._sequence), **data}
        return b"data: " + dumps(payload) + b"\n\n"

    def response(self, status: str, output: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        """The response object; `usage` only once there is one (the spec has no null usage)."""
        reply = self.reply
        done = status in ("completed", "incomplete", "failed")
        return {
            "id": api_id("resp", self.generation_id), "object": "response",
            "created_at": self.created,
            "completed_at": self.created if done else None, "model": reply.model,
            "provider": reply.provider, "status": status, "output": output, "error": None,
            "incomplete_details": None, "instructions": None, "metadata": None,
            "temperature": None, "top_p": None, "presence_penalty": None,
            "frequency_penalty": None, "tools": [], "tool_choice": "auto",
            "parallel_tool_calls": True, "max_output_tokens": None, **extra,
        }  # fmt: skip

    def _message(self, status: str) -> dict[str, Any]:
        content = [output_text(self._text)] if status == "completed" else []
        return {"type": "message", "id": self._message_id, "role": "assistant",
                "status": status, "content": content}  # fmt: skip

    def _start(self) -> Iterator[bytes]:
        yield self._event("response.created", response=self.response("in_progress", []))
        yield self._event("response.in_progress", response=self.response("in_progress", []))

    def _text_deltas(self, text: str) -> Iterator[bytes]:
        """The message item's text (the item and its part opened first if not yet)."""
        where = {"item_id": self._message_id, "output_index": 0}
        if not self._opened:
            self._opened = True
            yield self._event("response.output_item.added", output_index=0,
                              item=self._message("in_progress"))  # fmt: skip
            yield self._event("response.content_part.added", **where, content_index=0,
                              part=output_text(""))  # fmt: skip
        for piece in render.pieces(text, render.TEXT_FRAGMENT):
            if piece:
                self._text += piece
                yield self._event("response.output_text.delta", **where, content_index=0,
                                  delta=piece, logprobs=[])  # fmt: skip

    def opening(self, text: str) -> Iterator[bytes]:
        yield from self._start()
        yield from self._text_deltas(text)

    def events(self) -> Iterator[bytes]:
        reply, error = self.reply, self.reply.error
        if not self._opened:
            yield from self._start()
        if error is not None and error.kind in ("midstream", "truncate"):
            text = error.partial_text or (reply.text if error.kind == "truncate" else "")
            if text:
                yield from self._text_deltas(text)
            if error.kind == "midstream":
                yield self._event("response.failed", response=self._failed(error))
            return  # truncate: cut before the terminal event
        output: list[dict[str, Any]] = []
        if reply.text or self._opened:
            yield from self._text_deltas(reply.text)
            where = {"item_id": self._message_id, "output_index": 0, "content_index": 0}
            yield self._event("response.output_text.done", **where, text=self._text, logprobs=[])
            yield self._event("response.content_part.done", **where, part=output_text(self._text))
            output.append(self._message("completed"))
            yield self._event("response.output_item.done", output_index=0, item=output[-1])
        for call_id, name, arguments in reply.tool_calls:
            index, item_id = len(output), f"fc_{call_id}"
            item = {"type": "function_call", "id": item_id, "call_id": call_id, "name": name,
                    "arguments": "", "status": "in_progress"}  # fmt: skip
            yield self._event("response.output_item.added", output_index=index, item=item)
            for piece in render.argument_pieces(arguments):
                yield self._event("response.function_call_arguments.delta", item_id=item_id,
                                  output_index=index, delta=piece)  # fmt: skip
            yield self._event("response.function_call_arguments.done", item_id=item_id,
                              output_index=index, name=name, arguments=arguments)  # fmt: skip
            output.append({**item, "arguments": arguments, "status": "completed"})
            yield self._event("response.output_item.done", output_index=index, item=output[-1])
        final = self._final(output)
        kind = "response.incomplete" if reply.truncated else "response.completed"
        yield self._event(kind, response=final)

    def _final(self, output: list[dict[str, Any]]) -> dict[str, Any]:
        if self.reply.truncated:
            return self.response("incomplete", output, usage=usage(self.reply),
                                 incomplete_details={"reason": "max_output_tokens"})  # fmt: skip
        return self.response("completed", output, usage=usage(self.reply))

    def _failed(self, spec: ErrorSpec) -> dict[str, Any]:
        error = {"code": error_code(spec), "message": spec.message}
        return self.response("failed", [], error=error, error_type=render.spec_error_type(spec))

    def json_body(self) -> dict[str, Any]:
        self._text = self.reply.text
        output = [self._message("completed")] if self.reply.text else []
        output += [
            {"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id, "name": name,
             "arguments": arguments, "status": "completed"}
            for call_id, name, arguments in self.reply.tool_calls
        ]  # fmt: skip
        return self._final(output)

    def body_error(self) -> dict[str, Any]:
        assert self.reply.error is not None
        return self._failed(self.reply.error)


class ResponsesFormat:
    """OpenAI's Responses API on OpenRouter (Codex CLI: `wire_api = "responses"`)."""

    path = "/responses"

    def request(self, body: dict[str, Any]) -> dict[str, Any]:
        given = body.get("input")
        if not isinstance(given, str | list):
            raise BadRequest("input: expected a string or a list of items")
        instructions = body.get("instructions")
        if instructions is not None and not isinstance(instructions, str):
            raise BadRequest("instructions: expected a string")
        limit = body.get("max_output_tokens")
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool)):
            raise BadRequest("max_output_tokens: expected an integer")
        messages = [{"role": "system", "content": instructions}] if instructions else []
        items = [{"role": "user", "content": given}] if isinstance(given, str) else given
        for n, item in enumerate(items):
            if not isinstance(item, dict):
                raise BadRequest(f"input[{n}]: expected an item object")
            role, text = _as_chat(item)
            if role == "assistant" and messages and messages[-1]["role"] == "assistant":
                messages[-1]["content"] += "\n" + text  # the model's items of one turn
            elif role is not None:
                messages.append({"role": role, "content": text})
        return {"messages": messages, "tools": body.get("tools"), "max_tokens": limit}

    def parameters(self, body: dict[str, Any]) -> set[str]:
        names = used(body, NAMES)
        text = body.get("text")
        fmt = text.get("format") if isinstance(text, dict) else None
        if isinstance(fmt, dict) and fmt.get("type") not in (None, "text"):
            names.add("response_format")
        return names

    def error_body(self, status: int, message: str, metadata: dict[str, Any] | None) -> bytes:
        return render.error_body(status, message, metadata)

    def renderer(self, reply: Reply, generation_id: str, created: int) -> ReplyRenderer:
        return ResponsesRenderer(reply, generation_id, created)


def _as_chat(item: dict[str, Any]) -> tuple[str | None, str]:
    """The chat role and text of one input item: the model's items (its message, function calls,
    reasoning) are `assistant` (consecutive ones are one turn), a call's output is `tool`, an
    instruction message `system`; None for an item with no place in a chat."""
    kind, role = item.get("type", "message"), item.get("role")
    if kind in MODEL_ITEMS or (kind == "message" and role == "assistant"):
        call = f"{item['name']}({item.get('arguments', '')})" if item.get("name") else ""
        return "assistant", text_of(item.get("content")) or call
    if kind == "function_call_output":
        output = item.get("output")
        return "tool", output if isinstance(output, str) else text_of(output)
    if kind == "message":
        return ("system" if role in ("system", "developer") else str(role or "user")), text_of(
            item.get("content"))  # fmt: skip
    return None, ""
