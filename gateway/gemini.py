"""The Gemini API on OpenRouter's chat/completions: the translation both ways (Gemini CLI's wire).

OpenRouter serves no Gemini-native endpoint, so the proxy's Gemini front end
(`protocols.GeminiGenerateContent`) turns `POST .../v1beta/models/{model}:generateContent` and
`:streamGenerateContent?alt=sse` into a chat/completions request for the same route, meters it
as chat/completions, and writes the answer back in the Gemini API's shape:

- request: `systemInstruction` → a system message; `contents` (roles `user`/`model`) → messages:
  `text` parts, `functionCall` parts → `tool_calls` (arguments as JSON), `functionResponse`
  parts → `tool` messages (ids matched, or paired by name in order when the client sent none),
  `inlineData` → image parts; thought parts are dropped (Gemini does not resend them either);
  `tools[].functionDeclarations` → function tools (`parametersJsonSchema` as is, an OpenAPI
  `parameters` schema with its type names lower-cased); `toolConfig.functionCallingConfig.mode`
  → `tool_choice`; `generationConfig` → `max_tokens`, `temperature`, `top_p`, `stop`, `seed`,
  penalties, `response_format`, `reasoning` (thinking budget or level).
- response: each chat chunk's text (and `reasoning`, as a `thought` part) as it arrives; the tool
  calls, whole, with the finish reason and `usageMetadata` in the last chunk; SSE comments
  (keep-alives) become empty chunks (`data: {}`: Google's SDK cannot parse a comment); an
  in-stream error becomes Google's error object sent as its own chunk, as the Gemini API does;
  an HTTP error body becomes `{"error": {"code", "message", "status"}}`.

The model's `reasoning_details` (OpenRouter's reasoning blocks, which some routes need back with
tool results) ride in the `thoughtSignature` of the turn's first function call, which Gemini CLI
keeps and sends back with that part: `to_chat` restores them on the assistant message
(`SIGNATURE_PREFIX`). A turn without a function call carries none back.

What cannot be carried over is listed by `to_chat` (recorded as the exchange's policy changes):
`topK` (chat routes rarely take it and `require_parameters` would refuse the route),
`candidateCount`, built-in tools (`googleSearch`, `codeExecution`, ...), cached contents,
`fileData` URIs.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any
from urllib.parse import unquote

from gateway.errors import stream_error_status

MODEL_PATH = re.compile(
    r"^/models/(?P<model>.+):(?P<method>generateContent|streamGenerateContent)$"
)
# Google's canonical status names (google.rpc.Code) for the HTTP statuses an API answers with
STATUS_NAMES = {
    400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 402: "RESOURCE_EXHAUSTED",
    403: "PERMISSION_DENIED", 404: "NOT_FOUND", 408: "DEADLINE_EXCEEDED", 409: "ABORTED",
    413: "INVALID_ARGUMENT", 422: "INVALID_ARGUMENT", 429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED", 500: "INTERNAL", 501: "UNIMPLEMENTED", 502: "UNAVAILABLE",
    503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED", 529: "UNAVAILABLE",
}  # fmt: skip
FINISH_REASONS = {
    "stop": "STOP", "tool_calls": "STOP", "function_call": "STOP", "length": "MAX_TOKENS",
    "content_filter": "SAFETY", "error": "OTHER",
}  # fmt: skip
TOOL_CHOICE = {"AUTO": "auto", "ANY": "required", "NONE": "none", "VALIDATED": "auto"}
GENERATION_FIELDS = {  # generationConfig -> chat/completions, carried as they are
    "maxOutputTokens": "max_tokens", "temperature": "temperature", "topP": "top_p",
    "seed": "seed", "presencePenalty": "presence_penalty", "frequencyPenalty": "frequency_penalty",
}  # fmt: skip


SIGNATURE_PREFIX = "siteos-reasoning-details:"
"""A `thoughtSignature` the front end wrote: base64 of the turn's `reasoning_details` (JSON)."""


class GeminiRequestError(ValueError):
    """The request is not a Gemini `generateContent` request the translation can read."""


def parse_path(route: str) -> tuple[str, bool]:
    """(model, streaming) from the part after `/v1beta` (`/models/{model}:{method}`)."""
    match = MODEL_PATH.match(route)
    if match is None:
        raise GeminiRequestError(f"not a generateContent path: {route}")
    return unquote(match.group("model")), match.group("method") == "streamGenerateContent"


def google_error(status: int, message: str) -> dict[str, Any]:
    """Google's error shape, which the Gemini SDK reads (`code`, `message`, `status`)."""
    name = STATUS_NAMES.get(status, "INTERNAL" if status >= 500 else "INVALID_ARGUMENT")
    return {"error": {"code": status, "message": message, "status": name}}


# -- request: Gemini -> chat/completions -----------------------------------------------------------
def to_chat(model: str, stream: bool, body: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The chat/completions body for a Gemini request, and what it could not carry over."""
    dropped: list[str] = []
    messages: list[dict[str, Any]] = []
    system = _texts(body.get("systemInstruction"))
    if system:
        messages.append({"role": "system", "content": system})
    pending: list[tuple[str, str]] = []  # (name, id) of calls not yet answered
    contents = body.get("contents")
    if not isinstance(contents, list):
        raise GeminiRequestError("`contents` must be a list")
    for n, content in enumerate(contents):
        if not isinstance(content, dict):
            raise GeminiRequestError(f"contents[{n}] is not an object")
        if content.get("role") == "model":
            messages.append(_assistant(content, n, pending))
        else:
            messages.extend(_user(content, pending, dropped))
    out: dict[str, Any] = {"model": model, "messages": messages}
    if stream:
        out["stream"] = True
    tools = _tools(body.get("tools"), dropped)
    if tools:
        out["tools"] = tools
    choice = _tool_choice(body.get("toolConfig"))
    if choice is not None:
        out["tool_choice"] = choice
    _generation(body.get("generationConfig"), out, dropped)
    for key in ("cachedContent", "safetySettings"):
        if body.get(key):
            dropped.append(key)
    return out, dropped


def _texts(value: Any) -> str:
    if isinstance(value, str):
        return value
    parts = value.get("parts") if isinstance(value, dict) else None
    return "\n".join(
        str(p["text"])
        for p in parts or []
        if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")
    )


def _assistant(content: dict[str, Any], n: int, pending: list[tuple[str, str]]) -> dict[str, Any]:
    text: list[str] = []
    calls: list[dict[str, Any]] = []
    details: list[Any] | None = None
    for part in content.get("parts") or []:
        if not isinstance(part, dict):
            continue
        details = (
            details if details is not None else reasoning_details(part.get("thoughtSignature"))
        )
        if part.get("thought"):
            continue
        if isinstance(part.get("text"), str):
            text.append(part["text"])
        call = part.get("functionCall")
        if isinstance(call, dict):
            name = str(call.get("name") or "")
            call_id = str(call.get("id") or f"call_{n}_{len(calls)}")
            pending.append((name, call_id))
            arguments = json.dumps(call.get("args") or {}, ensure_ascii=False)
            calls.append({"id": call_id, "type": "function",
                          "function": {"name": name, "arguments": arguments}})  # fmt: skip
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text) or None}
    if calls:
        message["tool_calls"] = calls
    if details:
        message["reasoning_details"] = details
    return message


def signature(details: list[Any]) -> str:
    """The `thoughtSignature` that carries a turn's `reasoning_details` through the agent."""
    blob = json.dumps(details, ensure_ascii=False, separators=(",", ":")).encode()
    return SIGNATURE_PREFIX + base64.b64encode(blob).decode()


def reasoning_details(value: Any) -> list[Any] | None:
    """The `reasoning_details` a `thoughtSignature` written by `signature` carries, else None
    (another client's signature, or Gemini CLI's own placeholder, means nothing upstream)."""
    if not isinstance(value, str) or not value.startswith(SIGNATURE_PREFIX):
        return None
    try:
        details = json.loads(base64.b64decode(value[len(SIGNATURE_PREFIX) :], validate=True))
    except (binascii.Error, ValueError):
        return None
    return details if isinstance(details, list) else None


def _user(
    content: dict[str, Any], pending: list[tuple[str, str]], dropped: list[str]
) -> list[dict[str, Any]]:
    """Tool results first (they answer the assistant message before), then the user's text."""
    tools: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for part in content.get("parts") or []:
        if not isinstance(part, dict) or part.get("thought"):
            continue
        answer = part.get("functionResponse")
        if isinstance(answer, dict):
            tools.append(_tool_result(answer, pending))
        elif isinstance(part.get("text"), str):
            parts.append({"type": "text", "text": part["text"]})
        elif isinstance(part.get("inlineData"), dict):
            data = part["inlineData"]
            url = f"data:{data.get('mimeType', '')};base64,{data.get('data', '')}"
            parts.append({"type": "image_url", "image_url": {"url": url}})
        elif part.get("fileData"):
            dropped.append("fileData")
    out = list(tools)
    if parts:
        if all(p["type"] == "text" for p in parts):
            out.append({"role": "user", "content": "\n".join(p["text"] for p in parts)})
        else:
            out.append({"role": "user", "content": parts})
    return out


def _tool_result(answer: dict[str, Any], pending: list[tuple[str, str]]) -> dict[str, Any]:
    name = str(answer.get("name") or "")
    call_id = answer.get("id")
    if not call_id:  # paired with the oldest unanswered call of that name
        match = next((p for p in pending if p[0] == name), None)
        call_id = match[1] if match else f"call_{name}"
    pending[:] = [p for p in pending if p[1] != call_id]
    response = answer.get("response")
    if isinstance(response, dict) and set(response) == {"output"}:
        text = response["output"]
        output = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    else:
        output = json.dumps(response, ensure_ascii=False)
    return {"role": "tool", "tool_call_id": str(call_id), "content": output}


def _tools(tools: Any, dropped: list[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict):
            continue
        for key in tool:
            if key != "functionDeclarations":
                dropped.append(f"tools.{key}")
        for decl in tool.get("functionDeclarations") or []:
            if not isinstance(decl, dict):
                continue
            schema = decl.get("parametersJsonSchema")
            if schema is None and decl.get("parameters") is not None:
                schema = _json_schema(decl["parameters"])
            function: dict[str, Any] = {"name": decl.get("name", "")}
            if decl.get("description"):
                function["description"] = decl["description"]
            function["parameters"] = schema if schema is not None else {"type": "object"}
            out.append({"type": "function", "function": function})
    return out


def _json_schema(schema: Any) -> Any:
    """An OpenAPI `Schema` (type names like `OBJECT`) as JSON Schema (`object`)."""
    if isinstance(schema, list):
        return [_json_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _json_schema(v) for k, v in schema.items()}
    if isinstance(out.get("type"), str):
        out["type"] = out["type"].lower()
    return out


def _tool_choice(config: Any) -> Any:
    calling = config.get("functionCallingConfig") if isinstance(config, dict) else None
    if not isinstance(calling, dict) or not isinstance(calling.get("mode"), str):
        return None
    mode = calling["mode"].upper()
    names = calling.get("allowedFunctionNames") or []
    if mode == "ANY" and isinstance(names, list) and len(names) == 1:
        return {"type": "function", "function": {"name": names[0]}}
    return TOOL_CHOICE.get(mode)


def _generation(config: Any, out: dict[str, Any], dropped: list[str]) -> None:
    if not isinstance(config, dict):
        return
    for key, value in config.items():
        if key in GENERATION_FIELDS:
            out[GENERATION_FIELDS[key]] = value
        elif key == "stopSequences" and value:
            out["stop"] = value
        elif key == "responseMimeType":
            if value == "application/json" and not (
                config.get("responseJsonSchema") or config.get("responseSchema")
            ):
                out["response_format"] = {"type": "json_object"}
        elif key in ("responseJsonSchema", "responseSchema"):
            schema = value if key == "responseJsonSchema" else _json_schema(value)
            out["response_format"] = {
                "type": "json_schema", "json_schema": {"name": "response", "schema": schema},
            }  # fmt: skip
        elif key == "thinkingConfig" and isinstance(value, dict):
            reasoning = _reasoning(value)
            if reasoning:
                out["reasoning"] = reasoning
        elif value is not None:
            dropped.append(f"generationConfig.{key}={json.dumps(value)}")


def _reasoning(thinking: dict[str, Any]) -> dict[str, Any]:
    budget = thinking.get("thinkingBudget")
    level = thinking.get("thinkingLevel")
    out: dict[str, Any] = {}
    if isinstance(budget, int) and budget > 0:
        out["max_tokens"] = budget
    elif isinstance(level, str) and level.upper() in ("MINIMAL", "LOW", "MEDIUM", "HIGH"):
        out["effort"] = level.lower()
    if thinking.get("includeThoughts") is False:
        out["exclude"] = True
    return out


# -- response: chat/completions -> Gemini ----------------------------------------------------------
def usage_metadata(usage: dict[str, Any]) -> dict[str, Any]:
    """OpenRouter's usage in Gemini's terms (candidates exclude thoughts, as Gemini counts)."""
    prompt = _count(usage.get("prompt_tokens"))
    completion = _count(usage.get("completion_tokens"))
    details = usage.get("completion_tokens_details")
    reasoning = _count(details.get("reasoning_tokens")) if isinstance(details, dict) else 0
    cached_details = usage.get("prompt_tokens_details")
    cached = _count(cached_details.get("cached_tokens")) if isinstance(cached_details, dict) else 0
    out = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": max(0, completion - reasoning),
        "totalTokenCount": _count(usage.get("total_tokens")) or prompt + completion,
    }
    if reasoning:
        out["thoughtsTokenCount"] = reasoning
    if cached:
        out["cachedContentTokenCount"] = cached
    return out


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _call_parts(
    calls: list[dict[str, Any]], details: list[Any] | None = None
) -> tuple[list[dict[str, Any]], bool]:
    """Whole tool calls as `functionCall` parts, the first one carrying the turn's reasoning
    details as its `thoughtSignature`; False when one's arguments are not JSON."""
    parts: list[dict[str, Any]] = []
    whole = True
    for call in calls:
        try:
            args = json.loads(call.get("arguments") or "{}")
        except json.JSONDecodeError:
            whole = False
            continue
        fn: dict[str, Any] = {"name": call.get("name") or "", "args": args}
        if call.get("id"):
            fn["id"] = call["id"]
        parts.append({"functionCall": fn})
    if parts and details:
        parts[0]["thoughtSignature"] = signature(details)
    return parts, whole


def merge_details(into: list[dict[str, Any]], pieces: Any) -> None:
    """Streamed `reasoning_details` pieces joined into whole blocks: a piece with the `index`
    (and type) of a block already begun extends its text, summary or data; its other fields
    (signature, id, format) are kept as last sent."""
    for piece in pieces if isinstance(pieces, list) else []:
        if not isinstance(piece, dict):
            continue
        index = piece.get("index")
        block = next(
            (b for b in into if index is not None and b.get("index") == index
             and b.get("type") == piece.get("type")), None,
        )  # fmt: skip
        if block is None:
            into.append(dict(piece))
            continue
        for key, value in piece.items():
            if key in ("text", "summary", "data") and isinstance(value, str):
                block[key] = str(block.get(key) or "") + value
            elif value is not None:
                block[key] = value


def _candidate(parts: list[dict[str, Any]], finish: str | None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    return candidate


def gemini_body(chat: Any) -> dict[str, Any]:
    """A non-streamed chat/completions answer (or its 200 error body) as a Gemini response."""
    if not isinstance(chat, dict):
        return google_error(502, "the upstream answer is not a JSON object")
    if isinstance(chat.get("error"), dict):
        error = chat["error"]
        status = stream_error_status(error) or 500
        return google_error(status, str(error.get("message") or "upstream error"))
    parts: list[dict[str, Any]] = []
    finish: str | None = None
    for choice in chat.get("choices") or []:
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            continue
        if isinstance(message.get("reasoning"), str) and message["reasoning"]:
            parts.append({"text": message["reasoning"], "thought": True})
        if isinstance(message.get("content"), str) and message["content"]:
            parts.append({"text": message["content"]})
        calls = [
            {"id": c.get("id"), "name": (c.get("function") or {}).get("name"),
             "arguments": (c.get("function") or {}).get("arguments")}
            for c in message.get("tool_calls") or [] if isinstance(c, dict)
        ]  # fmt: skip
        details = message.get("reasoning_details")
        call_parts, whole = _call_parts(calls, details if isinstance(details, list) else None)
        parts.extend(call_parts)
        reason = choice.get("finish_reason")
        finish = "MALFORMED_FUNCTION_CALL" if not whole else FINISH_REASONS.get(reason, "OTHER")
        break
    out: dict[str, Any] = {"candidates": [_candidate(parts, finish)]}
    if isinstance(chat.get("usage"), dict):
        out["usageMetadata"] = usage_metadata(chat["usage"])
    out |= _identity(chat)
    return out


def _identity(chunk: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(chunk.get("model"), str):
        out["modelVersion"] = chunk["model"]
    if isinstance(chunk.get("id"), str):
        out["responseId"] = chunk["id"]
    return out


KEEPALIVE = b"data: {}\r\n\r\n"
"""An SSE comment (OpenRouter's `: OPENROUTER PROCESSING`) as the agent gets it: an empty
response chunk. Google's SDK cannot skip a comment line (its parser would wait behind it for
ever), and dropping it would leave the agent's HTTP client a silent stream whose idle timeout
(Node's fetch: 300 s) races the proxy's outage window; an empty chunk carries no candidate, so
the CLI takes nothing from it."""


def _data(obj: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(obj, ensure_ascii=False).encode() + b"\r\n\r\n"


class ResponseTranslator:
    """The upstream's chat/completions answer, fed as it arrives, as the Gemini answer the agent
    reads: `feed(bytes)` and `close()` give the pieces to relay (each one a write)."""

    def __init__(self, status: int, streaming: bool) -> None:
        self.status, self.streaming = status, streaming
        self._buffer = b""
        self._calls: list[dict[str, Any]] = []
        self._details: list[dict[str, Any]] = []
        self._finish: str | None = None
        self._usage: dict[str, Any] | None = None
        self._identity: dict[str, Any] = {}
        self._ended = False  # the last chunk (or an error) was sent: nothing more goes out

    def feed(self, data: bytes) -> list[bytes]:
        self._buffer += data
        if not self.streaming:
            return []
        out: list[bytes] = []
        while (cut := self._buffer.find(b"\n")) >= 0:
            line, self._buffer = self._buffer[:cut], self._buffer[cut + 1 :]
            out.extend(self._line(line.rstrip(b"\r").decode("utf-8", errors="replace")))
        return out

    def close(self) -> list[bytes]:
        if not self.streaming:
            return [self._whole()]
        out = self._line(self._buffer.decode("utf-8", errors="replace")) if self._buffer else []
        self._buffer = b""
        if self._finish is not None and not self._ended:  # a finish without [DONE] after it
            out.append(self._last())
        return out

    def _whole(self) -> bytes:
        try:
            body = json.loads(self._buffer)
        except (json.JSONDecodeError, UnicodeDecodeError):
            body = None
        if self.status >= 400:
            message = ""
            if isinstance(body, dict) and isinstance(body.get("error"), dict):
                message = str(body["error"].get("message") or "")
            text = message or self._buffer[:200].decode("utf-8", errors="replace")
            return json.dumps(google_error(self.status, text or f"HTTP {self.status}")).encode()
        return json.dumps(gemini_body(body), ensure_ascii=False).encode()

    def _line(self, line: str) -> list[bytes]:
        if line.startswith(":") and not self._ended:
            return [KEEPALIVE]  # the agent's client hears that the stream is alive, as others do
        if not line.startswith("data:") or self._ended:
            return []  # `event:` lines, blank lines
        payload = line[5:].strip()
        if payload == "[DONE]":
            return [self._last()] if self._finish is not None else []
        try:
            chunk = json.loads(payload)
        except json.JSONDecodeError:
            return []  # the proxy's reader records it as malformed
        return self._chunk(chunk) if isinstance(chunk, dict) else []

    def _chunk(self, chunk: dict[str, Any]) -> list[bytes]:
        self._identity |= _identity(chunk) if not self._identity else {}
        if isinstance(chunk.get("error"), dict):
            error = chunk["error"]
            status = stream_error_status(error) or 500
            self._ended = True  # Google's SDK reads a bare error object as its own chunk
            text = str(error.get("message") or "upstream error")
            return [json.dumps(google_error(status, text)).encode()]
        if isinstance(chunk.get("usage"), dict):
            self._usage = chunk["usage"]
        parts: list[dict[str, Any]] = []
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta") or {}
            if isinstance(delta.get("reasoning"), str) and delta["reasoning"]:
                parts.append({"text": delta["reasoning"], "thought": True})
            if isinstance(delta.get("content"), str) and delta["content"]:
                parts.append({"text": delta["content"]})
            for call in delta.get("tool_calls") or []:
                self._call(call)
            merge_details(self._details, delta.get("reasoning_details"))
            if choice.get("finish_reason"):
                self._finish = str(choice["finish_reason"])
        out = [_data({"candidates": [_candidate(parts, None)], **self._identity})] if parts else []
        if self._finish is not None and self._usage is not None:
            out.append(self._last())
        return out

    def _call(self, call: Any) -> None:
        if not isinstance(call, dict):
            return
        fn = call.get("function") or {}
        index = call.get("index")
        known = (
            next((c for c in self._calls if c["index"] == index), None)
            if index is not None
            else None
        )
        if known is None and (call.get("id") or not self._calls):
            self._calls.append({"index": index, "id": call.get("id"), "name": fn.get("name"),
                                "arguments": fn.get("arguments") or ""})  # fmt: skip
            return
        target = known or self._calls[-1]
        target["name"] = target["name"] or fn.get("name")
        target["arguments"] += fn.get("arguments") or ""

    def _last(self) -> bytes:
        """The closing chunk: the whole tool calls, the finish reason and the usage."""
        self._ended = True
        parts, whole = _call_parts(self._calls, self._details)
        reason = self._finish or "stop"
        finish = "MALFORMED_FUNCTION_CALL" if not whole else FINISH_REASONS.get(reason, "OTHER")
        out: dict[str, Any] = {"candidates": [_candidate(parts, finish)]}
        if self._usage is not None:
            out["usageMetadata"] = usage_metadata(self._usage)
        return _data(out | self._identity)
