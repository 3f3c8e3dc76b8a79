"""Incremental reading of OpenRouter's SSE streams: what the proxy and the client observe in them.

`SSEParser` splits the bytes into lines (any fragmentation), counts comment lines as keep-alives
and hands each `data:` payload to its subclass; `SSEReader` reads chat/completions chunks. The
readers of the other protocols (`messages_stream.py`, `responses_stream.py`) fill the same
`StreamObservation`, in chat/completions terms (usage keys, finish reasons, error objects).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass
class StreamObservation:
    """What one streamed (or plain JSON) chat completion said about itself.

    Readers of other protocols translate into these terms: `usage` in chat/completions keys,
    `finish_reason` in its vocabulary, `error` as OpenRouter's `{code, message, metadata}`."""

    generation_id: str | None = None
    models: list[str] = field(default_factory=list)  # every distinct `model` seen, in order
    providers: list[str] = field(default_factory=list)
    usage: dict[str, Any] | None = None
    finish_reason: str | None = None
    error: dict[str, Any] | None = None  # a mid-stream `error` object
    content: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    chunks: int = 0
    comments: int = 0
    done: bool = False  # the stream's terminator seen
    malformed: list[str] = field(default_factory=list)
    terminator: str = "[DONE]"  # what ends a whole stream in this protocol (for messages)

    @property
    def model(self) -> str | None:
        return self.models[-1] if self.models else None

    @property
    def provider(self) -> str | None:
        return self.providers[-1] if self.providers else None

    def observe_object(self, obj: Any) -> None:
        """Take in one chunk (streaming) or one whole response (non-streaming)."""
        if not isinstance(obj, dict):
            self.malformed.append(f"not an object: {str(obj)[:80]}")
            return
        self.chunks += 1
        self.identify(obj)
        if isinstance(obj.get("usage"), dict):
            self.usage = obj["usage"]
        if isinstance(obj.get("error"), dict):
            self.error = obj["error"]
        for choice in obj.get("choices") or []:
            if not isinstance(choice, dict):
                continue
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
            part = choice.get("delta") or choice.get("message") or {}
            if isinstance(part.get("content"), str):
                self.content += part["content"]
            for call in part.get("tool_calls") or []:
                self._tool_call(call, whole="message" in choice)

    def identify(self, source: dict[str, Any]) -> None:
        """Take the first `id` as the generation id, and every new `model` and `provider`."""
        if isinstance(source.get("id"), str) and self.generation_id is None:
            self.generation_id = source["id"]
        for key, seen in (("model", self.models), ("provider", self.providers)):
            value = source.get(key)
            if isinstance(value, str) and value and value not in seen:
                seen.append(value)

    def _tool_call(self, call: dict[str, Any], whole: bool) -> None:
        fn = call.get("function") or {}
        if whole or call.get("id"):
            self.tool_calls.append(
                {
                    "id": call.get("id"),
                    "name": fn.get("name"),
                    "arguments": fn.get("arguments") or "",
                }
            )
        elif self.tool_calls:
            index = call.get("index")
            target = (
                self.tool_calls[index]
                if isinstance(index, int) and index < len(self.tool_calls)
                else self.tool_calls[-1]
            )
            target["arguments"] += fn.get("arguments") or ""


def count(value: Any) -> int:
    """A token count as reported (an int), else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class SSEParser:
    """Feed raw bytes in any fragmentation; `on_data` gets each `data:` payload, parsed as JSON.

    Comment lines (`: OPENROUTER PROCESSING`) are counted as keep-alives, `data: [DONE]` ends the
    stream (where `done_sentinel`; elsewhere it is ignored: the protocol's own event ends it), a
    payload that is not JSON is noted as malformed; `event:`, `id:` and `retry:` lines carry
    nothing the readers use (every payload names its own `type`)."""

    done_sentinel = True

    def __init__(self) -> None:
        self.observation = StreamObservation()
        self._buffer = b""

    def feed(self, data: bytes) -> None:
        self._buffer += data
        while True:
            cut = self._buffer.find(b"\n")
            if cut < 0:
                return
            line, self._buffer = self._buffer[:cut], self._buffer[cut + 1 :]
            self._line(line.rstrip(b"\r").decode("utf-8", errors="replace"))

    def close(self) -> StreamObservation:
        if self._buffer.strip():
            self._line(self._buffer.decode("utf-8", errors="replace"))
        self._buffer = b""
        return self.observation

    def on_data(self, obj: Any) -> None:
        raise NotImplementedError

    def _line(self, line: str) -> None:
        obs = self.observation
        if not line:
            return
        if line.startswith(":"):
            obs.comments += 1
            return
        if not line.startswith("data:"):
            return
        payload = line[5:].strip()
        if payload == "[DONE]":
            obs.done = obs.done or self.done_sentinel
            return
        try:
            obj = json.loads(payload)
        except json.JSONDecodeError:
            obs.malformed.append(payload[:120])
            return
        self.on_data(obj)


class SSEReader(SSEParser):
    """A chat/completions stream: every `data:` chunk goes to `StreamObservation.observe_object`."""

    def on_data(self, obj: Any) -> None:
        self.observation.observe_object(obj)


def observe_body(
    body: bytes, observe: Callable[[StreamObservation, Any], None]
) -> StreamObservation:
    """Observation of a non-streaming JSON response body, read by `observe(observation, obj)`."""
    obs = StreamObservation()
    try:
        obj = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        obs.malformed.append(body[:120].decode("utf-8", errors="replace"))
        return obs
    observe(obs, obj)
    return obs


def observe_json(body: bytes) -> StreamObservation:
    """Observation of a non-streaming chat/completions JSON response body."""
    return observe_body(body, StreamObservation.observe_object)


class EventObserver(Protocol):
    """A protocol's reader of its typed events (`messages_stream`, `responses_stream`)."""

    def take(self, obj: Any) -> None: ...


class TypedEventReader(SSEParser):
    """An SSE stream whose payloads name their own `type` (Anthropic Messages, OpenAI Responses),
    read by the protocol's observer; `event:` lines are ignored, and OpenRouter's `[DONE]`, if
    sent, is not the protocol's end (its own last event is)."""

    done_sentinel = False

    def __init__(self, observer: Callable[[StreamObservation], EventObserver]) -> None:
        super().__init__()
        self._observer = observer(self.observation)

    def on_data(self, obj: Any) -> None:
        self._observer.take(obj)


def observe_typed_body(
    body: bytes, observer: Callable[[StreamObservation], EventObserver], terminator: str
) -> StreamObservation:
    """Observation of a non-streamed result (or error body) of a typed-event protocol."""
    obs = observe_body(body, lambda o, obj: observer(o).take(obj))
    obs.terminator = terminator
    return obs
