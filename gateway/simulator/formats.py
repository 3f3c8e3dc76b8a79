"""The APIs the simulator serves a scripted reply in, one `WireFormat` per path.

Every format answers from the same scripted turns: `request` reads its body as the
chat/completions fields `turns.materialise` reads (`messages` with roles and text, `tools`,
`max_tokens`), and a `ReplyRenderer` writes the reply, its usage and cost, and its scripted
failures in the format's own wire shape. Tool calls are rendered as scripted (OpenCode's tool
names), whatever the API.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Protocol

from gateway.simulator import render
from gateway.simulator.turns import Reply

# chat/completions parameters `require_parameters` checks against the catalogue
PARAMETERS = {
    "tools", "tool_choice", "reasoning", "include_reasoning", "max_tokens", "temperature",
    "top_p", "top_k", "stop", "seed", "response_format", "structured_outputs",
    "frequency_penalty", "presence_penalty", "repetition_penalty", "logprobs", "top_logprobs",
}  # fmt: skip


class BadRequest(ValueError):
    """The body is not a request of the format (answered 400 with the message)."""


class ReplyRenderer(Protocol):
    """One reply in one format: a stream (its opening with some text first, for a stall after
    the last byte), a JSON body, or the 200 error body of a failure after routing."""

    def opening(self, text: str) -> Iterator[bytes]: ...

    def events(self) -> Iterator[bytes]:
        """The whole stream, or its rest after `opening`; a scripted `midstream` or `truncate`
        error ends it as that failure."""
        ...

    def json_body(self) -> dict[str, Any]: ...

    def body_error(self) -> dict[str, Any]: ...


class WireFormat(Protocol):
    """One API the simulator serves (stateless); `renderer` writes one reply in it."""

    path: str  # relative to /api/v1

    def request(self, body: dict[str, Any]) -> dict[str, Any]:
        """The body as chat/completions fields (raises `BadRequest`)."""
        ...

    def parameters(self, body: dict[str, Any]) -> set[str]:
        """The catalogue's parameter names (`supported_parameters`) the body uses."""
        ...

    def error_body(self, status: int, message: str, metadata: dict[str, Any] | None) -> bytes:
        """An HTTP error's body in the API's error shape."""
        ...

    def renderer(self, reply: Reply, generation_id: str, created: int) -> ReplyRenderer: ...


class ChatRenderer:
    def __init__(self, reply: Reply, generation_id: str, created: int) -> None:
        self.reply, self.generation_id, self.created = reply, generation_id, created

    def opening(self, text: str) -> Iterator[bytes]:
        return render.text_events(self.reply, self.generation_id, self.created, text)

    def events(self) -> Iterator[bytes]:
        return render.sse_events(self.reply, self.generation_id, self.created)

    def json_body(self) -> dict[str, Any]:
        return render.json_body(self.reply, self.generation_id, self.created)

    def body_error(self) -> dict[str, Any]:
        assert self.reply.error is not None
        return render.body_error(self.reply.error)


class ChatFormat:
    """OpenAI-compatible chat/completions, as OpenRouter serves it (OpenCode)."""

    path = "/chat/completions"

    def request(self, body: dict[str, Any]) -> dict[str, Any]:
        return body

    def parameters(self, body: dict[str, Any]) -> set[str]:
        return {k for k in body if k in PARAMETERS}

    def error_body(self, status: int, message: str, metadata: dict[str, Any] | None) -> bytes:
        return render.error_body(status, message, metadata)

    def renderer(self, reply: Reply, generation_id: str, created: int) -> ReplyRenderer:
        return ChatRenderer(reply, generation_id, created)


def text_of(content: Any) -> str:
    """The text of a content value: a string, or a list of parts/blocks with `text`."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    return ""


def used(body: dict[str, Any], names: dict[str, str]) -> set[str]:
    """The catalogue names (`names`: body key -> parameter) of the keys `body` sets."""
    return {names[k] for k, v in body.items() if k in names and v is not None}


def dumps(value: Any) -> bytes:
    return json.dumps(value).encode()
