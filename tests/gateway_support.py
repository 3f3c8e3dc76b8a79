"""Helpers for the gateway tests: quick scripts, a loopback guard and a minimal agent loop."""

from __future__ import annotations

import ipaddress
import json
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import openai

from records.evidence.gateway import ExchangeRecord
from records.simulator_scripts import ScriptedModel

PARAMS = ["max_tokens", "temperature", "tools", "tool_choice", "reasoning"]
SPEC_DATA = Path(__file__).parent / "data" / "openrouter"
# OpenRouter's response schemas, extracted from its OpenAPI spec (tests/test_gateway_spec_schemas)
SCHEMAS = json.loads((SPEC_DATA / "schemas.json").read_text(encoding="utf-8"))


def validate(kind: str, payload: Any) -> None:
    """`payload` against the spec's schema of `kind` (a key of `SCHEMAS["roots"]`)."""
    schema = {"$defs": SCHEMAS["$defs"], "$ref": f"#/$defs/{SCHEMAS['roots'][kind]}"}
    jsonschema.Draft202012Validator(schema).validate(payload)


def script(model_id: str, turns: list[dict[str, Any]], **extra: Any) -> ScriptedModel:
    """A scripted model with a small catalogue entry (`id` != `canonical_slug`)."""
    catalogue = {
        "id": model_id,
        "canonical_slug": f"{model_id}-20260101",
        "name": model_id,
        "pricing": {"prompt": "0.000002", "completion": "0.00001"},
        "supported_parameters": PARAMS,
        "reasoning": {"supported_efforts": ["high"], "default_effort": "high"},
        **extra.pop("catalogue", {}),
    }
    session = {"turns": turns, **extra.pop("session", {})}
    return ScriptedModel.model_validate(
        {"description": "test", "catalogue": catalogue, "session": session, **extra}
    )


@contextmanager
def loopback_only() -> Iterator[list[Any]]:
    """Fail any socket connect outside 127.0.0.0/8 (or a Unix socket) while active."""
    original = socket.socket.connect
    seen: list[Any] = []

    def guarded(self: socket.socket, address: Any) -> Any:
        seen.append(address)
        if self.family == socket.AF_UNIX:
            return original(self, address)
        host = address[0]
        if host == "localhost" or ipaddress.ip_address(host).is_loopback:
            return original(self, address)
        raise AssertionError(f"connection outside loopback attempted: {address!r}")

    socket.socket.connect = guarded  # type: ignore[method-assign,assignment]
    try:
        yield seen
    finally:
        socket.socket.connect = original  # type: ignore[method-assign]


def system_prompt(workdir: str) -> str:
    return f"You are a coding agent.\n<env>\n  Working directory: {workdir}\n</env>"


def drive(
    base_url: str,
    model: str,
    prompt: str,
    *,
    workdir: str = "/tmp/wt",
    max_requests: int = 60,
    api_key: str = "sk-placeholder",
    stream: bool = True,
    max_tokens: int = 1000,
) -> tuple[list[dict[str, Any]], Exception | None]:
    """A toy agent: answers every tool call with "ok" until the model stops or an error.

    Returns the conversation and the error that ended it (None on a normal stop).
    """
    client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=20)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system_prompt(workdir)},
        {"role": "user", "content": prompt},
    ]
    tools = [
        {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
        for n in ("bash", "read", "write", "edit")
    ]
    for _ in range(max_requests):
        try:
            kwargs: dict[str, Any] = {"model": model, "messages": messages, "tools": tools,
                                      "tool_choice": "auto", "max_tokens": max_tokens}  # fmt: skip
            if stream:
                text, calls = "", dict[int, dict[str, str]]()
                for chunk in client.chat.completions.create(**kwargs, stream=True):
                    for choice in chunk.choices:
                        text += choice.delta.content or ""
                        for call in choice.delta.tool_calls or []:
                            slot = calls.setdefault(call.index, {"id": "", "name": "", "args": ""})
                            slot["id"] = call.id or slot["id"]
                            if call.function:
                                slot["name"] = call.function.name or slot["name"]
                                slot["args"] += call.function.arguments or ""
                tool_calls = [calls[i] for i in sorted(calls)]
            else:
                reply = client.chat.completions.create(**kwargs).choices[0].message
                text = reply.content or ""
                tool_calls = [
                    {"id": c.id, "name": c.function.name, "args": c.function.arguments}
                    for c in reply.tool_calls or []
                    if c.type == "function"
                ]
        except openai.OpenAIError as exc:
            return messages, exc
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if tool_calls:
            message["tool_calls"] = [
                {"id": c["id"], "type": "function",
                 "function": {"name": c["name"], "arguments": c["args"]}}
                for c in tool_calls
            ]  # fmt: skip
        messages.append(message)
        if not tool_calls:
            return messages, None
        for c in tool_calls:
            json.loads(c["args"])  # arguments must be complete JSON
            messages.append({"role": "tool", "tool_call_id": c["id"], "content": "ok"})
    return messages, None


def files_containing(root: Path, needle: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


TOOL_NAMES = ("bash", "read", "write", "edit")


def sse_payloads(raw: str) -> list[dict[str, Any]]:
    """The JSON `data:` payloads of an SSE body in order (comments and `[DONE]` left out); an
    `event:` line must name its payload's `type`."""
    payloads = []
    for block in raw.split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in block.split("\n") if ": " in line and line[0] != ":"
        )
        if "data" not in fields or fields["data"] == "[DONE]":
            continue
        data = json.loads(fields["data"])
        assert fields.get("event", data["type"]) == data["type"], block
        payloads.append(data)
    return payloads


def message_content(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The content blocks an Anthropic Messages stream built (tool inputs parsed)."""
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    for event in events:
        index = event.get("index", -1)
        if event["type"] == "content_block_start":
            blocks[index] = dict(event["content_block"])
        elif event["type"] == "content_block_delta" and event["delta"]["type"] == "text_delta":
            blocks[index]["text"] += event["delta"]["text"]
        elif event["type"] == "content_block_delta":
            partial[index] = partial.get(index, "") + event["delta"]["partial_json"]
        elif event["type"] == "content_block_stop" and index in partial:
            blocks[index]["input"] = json.loads(partial[index])
    return [blocks[i] for i in sorted(blocks)]


def drive_messages(
    base_url: str,
    model: str,
    prompt: str,
    *,
    workdir: str = "/tmp/wt",
    max_requests: int = 60,
    stream: bool = True,
    max_tokens: int = 1000,
    **extra: Any,
) -> tuple[list[dict[str, Any]], httpx.Response | None]:
    """A toy agent on Anthropic Messages (as Claude Code calls OpenRouter): answers every
    `tool_use` with "ok" until the model stops; returns the conversation and the HTTP error
    response that ended it (None on a normal stop)."""
    first = {"role": "user", "content": [{"type": "text", "text": prompt}]}
    messages: list[dict[str, Any]] = [first]
    tools = [{"name": n, "input_schema": {"type": "object"}} for n in TOOL_NAMES]
    headers = {"anthropic-version": "2023-06-01", "x-api-key": "sk-ant-placeholder"}
    for _ in range(max_requests):
        body = {"model": model, "system": system_prompt(workdir), "messages": messages,
                "tools": tools, "max_tokens": max_tokens, "stream": stream, **extra}  # fmt: skip
        response = httpx.post(f"{base_url}/messages", json=body, headers=headers, timeout=20)
        if response.status_code != 200:
            return messages, response
        content = (
            message_content(sse_payloads(response.text)) if stream else response.json()["content"]
        )
        messages.append({"role": "assistant", "content": content})
        calls = [block for block in content if block["type"] == "tool_use"]
        if not calls:
            return messages, None
        results = [{"type": "tool_result", "tool_use_id": c["id"], "content": "ok"} for c in calls]
        messages.append({"role": "user", "content": results})
    return messages, None


def drive_responses(
    base_url: str,
    model: str,
    prompt: str,
    *,
    workdir: str = "/tmp/wt",
    max_requests: int = 60,
    stream: bool = True,
    max_output_tokens: int = 1000,
) -> tuple[list[dict[str, Any]], Exception | None]:
    """A toy agent on the Responses API through the `openai` SDK (as Codex CLI calls OpenRouter,
    stateless: the whole input every time): answers every function call with "ok" until the
    model stops; returns the input items and the error that ended it (None on a normal stop)."""
    client = openai.OpenAI(base_url=base_url, api_key="sk-placeholder", max_retries=0, timeout=20)
    items: list[dict[str, Any]] = [{"type": "message", "role": "user", "content": prompt}]
    tools = [{"type": "function", "name": n, "parameters": {"type": "object"}} for n in TOOL_NAMES]
    for _ in range(max_requests):
        kwargs: dict[str, Any] = {"model": model, "instructions": system_prompt(workdir),
                                  "input": items, "tools": tools,
                                  "max_output_tokens": max_output_tokens}  # fmt: skip
        try:
            if stream:
                output = [
                    event.item.model_dump(exclude_none=True)
                    for event in client.responses.create(**kwargs, stream=True)
                    if event.type == "response.output_item.done"
                ]
            else:
                result = client.responses.create(**kwargs)
                output = [item.model_dump(exclude_none=True) for item in result.output]
        except openai.OpenAIError as exc:
            return items, exc
        items.extend(output)
        calls = [item for item in output if item["type"] == "function_call"]
        if not calls:
            return items, None
        for call in calls:
            json.loads(call["arguments"])  # arguments must be complete JSON
            result = {"type": "function_call_output", "call_id": call["call_id"], "output": "ok"}
            items.append(result)
    return items, None


def resend(base_url: str, record: ExchangeRecord) -> httpx.Response:
    """The agent sending a recorded request again, as it was: the same body (the policy leaves a
    body it already wrote unchanged) from the same sender (its User-Agent)."""
    path = record.path.removeprefix("/api/v1")
    headers = {"User-Agent": record.sender or ""}
    return httpx.post(f"{base_url}{path}", json=record.request, headers=headers, timeout=20)


WRITE = {"name": "write", "arguments": {"filePath": "{workdir}/a.txt", "content": "a\n"}}
BASH = {"name": "bash", "arguments": {"command": "echo {turn}", "description": "x"}}
PRICES = {"prompt": "0.00001", "completion": "0.0001"}


def front_end_scripts(lab: str) -> list[ScriptedModel]:
    """The behaviours every protocol front end's tests drive (`<lab>/<name>-1`): a tool-using
    build, a step burner (cheap and expensive), an in-stream 429, one 503 then recovery, a cut
    stream and a stall past the outage window behind keep-alives."""
    return [
        script(f"{lab}/tools-1", [{"text": "Writing a.txt", "tool_calls": [WRITE, BASH]},
                                  {"text": "All done."}]),
        script(f"{lab}/burner-1", [{"tool_calls": [BASH]}],
               session={"after_last": "repeat_last"}),
        script(f"{lab}/burn-1", [{"tool_calls": [BASH]}], session={"after_last": "repeat_last"},
               usage={"completion_tokens": 3000}, catalogue={"pricing": PRICES}),
        script(f"{lab}/r429-1", [{"error": {"kind": "midstream", "code": 429,
                                            "partial_text": "Wri",
                                            "message": "Rate limit exceeded"}}]),
        script(f"{lab}/flaky-1", [{"tool_calls": [BASH]},
                                  {"error": {"kind": "http", "status": 503, "times": 1}},
                                  {"text": "recovered"}]),
        script(f"{lab}/cut-1", [{"text": "I will now write the page and",
                                 "error": {"kind": "truncate"}}]),
        script(f"{lab}/stall-1", [{"error": {"kind": "stall", "hang_seconds": 30,
                                             "keepalive_seconds": 0.2,
                                             "partial_text": "Writing the page"}}]),
    ]  # fmt: skip
