"""Reading OpenAI Responses results (OpenRouter's `/responses`) into a `StreamObservation`.

A stream is `response.created` / `response.in_progress` (id, model), output items
(`response.output_item.added`/`.done`, `response.output_text.delta`,
`response.function_call_arguments.delta`/`.done`), then one terminal event carrying the whole
response with its `usage` (OpenRouter adds `cost`): `response.completed`, `response.incomplete`
or `response.failed`; an `error` event is an in-stream error. Translated into chat/completions
terms: the finish reason from the status (`completed` -> `stop`, or `tool_calls` when the output
has a function call; `incomplete` for `max_output_tokens` -> `length`; `failed` -> `error`), the
usage keys, the error as `{code, message, metadata: {error_type}}`.
"""

from __future__ import annotations

from typing import Any

from gateway.errors import ERROR_TYPE_STATUS
from gateway.sse import StreamObservation, count

TERMINATOR = "response.completed"
TERMINAL = ("response.completed", "response.incomplete", "response.failed")
INCOMPLETE = {"max_output_tokens": "length", "content_filter": "content_filter"}


def chat_usage(usage: dict[str, Any]) -> dict[str, Any]:
    """Responses usage in chat/completions keys (`input_tokens` already counts cached tokens);
    OpenRouter's `cost`, `cost_details` and `is_byok` are kept."""
    inputs = usage.get("input_tokens_details")
    outputs = usage.get("output_tokens_details")
    prompt, completion = count(usage.get("input_tokens")), count(usage.get("output_tokens"))
    out: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": count(usage.get("total_tokens")) or prompt + completion,
        "prompt_tokens_details": {
            "cached_tokens": count(inputs.get("cached_tokens")) if isinstance(inputs, dict) else 0
        },
        "completion_tokens_details": {
            "reasoning_tokens": (
                count(outputs.get("reasoning_tokens")) if isinstance(outputs, dict) else 0
            )
        },
    }
    return out | {k: usage[k] for k in ("cost", "cost_details", "is_byok") if k in usage}


def openrouter_error(error: dict[str, Any], error_type: Any = None) -> dict[str, Any]:
    """A Responses error (an `error` event, or a failed response's `error` with OpenRouter's
    `error_type`) as OpenRouter's `{code, message, metadata}`: the code is the HTTP status the
    `error_type` stands for, else the Responses code (`rate_limit_exceeded`, `server_error`,
    ...), which `errors.classify_stream_error` maps to a status."""
    status = ERROR_TYPE_STATUS.get(error_type) if isinstance(error_type, str) else None
    message = error.get("message")
    out: dict[str, Any] = {
        "code": status if status is not None else error.get("code"),
        "message": message if isinstance(message, str) else "response failed",
    }
    if isinstance(error_type, str):
        out["metadata"] = {"error_type": error_type}
    return out


def finish_reason(response: dict[str, Any]) -> str | None:
    """The chat/completions finish reason of a finished response (None while in progress)."""
    status = response.get("status")
    if status == "completed":
        calls = [i for i in response.get("output") or [] if isinstance(i, dict)]
        return "tool_calls" if any(i.get("type") == "function_call" for i in calls) else "stop"
    if status == "incomplete":
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        return INCOMPLETE.get(str(reason), "length")
    if status in ("failed", "cancelled"):
        return "error"
    return None


class ResponsesObserver:
    """Takes in the events of one response (or the whole response object, or an error body)
    and keeps `obs` current: the proxy reads it while the stream is still coming."""

    def __init__(self, obs: StreamObservation) -> None:
        self.obs = obs
        obs.terminator = TERMINATOR
        self._calls: dict[Any, dict[str, Any]] = {}  # output item id -> its tool call
        self._streamed_text = False

    def take(self, obj: Any) -> None:
        obs = self.obs
        if not isinstance(obj, dict):
            obs.malformed.append(f"not an object: {str(obj)[:80]}")
            return
        kind = obj.get("type")
        obs.chunks += 1
        if obj.get("object") == "response":  # a non-streaming body
            self._response(obj, whole=True)
        elif kind in ("response.created", "response.in_progress"):
            self._response(obj.get("response"), whole=False)
        elif kind in TERMINAL:
            self._response(obj.get("response"), whole=not self._streamed_text)
            obs.done = True
        elif kind in ("response.output_item.added", "response.output_item.done"):
            self._item(obj.get("item"))
        elif kind == "response.output_text.delta" and isinstance(obj.get("delta"), str):
            obs.content += obj["delta"]
            self._streamed_text = True
        elif kind == "response.function_call_arguments.delta":
            call = self._calls.get(obj.get("item_id"))
            if call is None:
                obs.malformed.append(f"arguments for no function_call item {obj.get('item_id')!r}")
            elif isinstance(obj.get("delta"), str):
                call["arguments"] += obj["delta"]
        elif kind == "response.function_call_arguments.done":
            call = self._calls.get(obj.get("item_id"))
            if call is not None and isinstance(obj.get("arguments"), str):
                call["arguments"] = obj["arguments"]
        elif kind == "error":
            error = obj["error"] if isinstance(obj.get("error"), dict) else obj
            obs.error = openrouter_error(error, obj.get("error_type"))
        elif isinstance(obj.get("error"), dict) and kind is None:  # an OpenRouter error body
            obs.error = obj["error"]
        elif kind is None:
            obs.malformed.append(f"no event type: {str(obj)[:80]}")

    def _response(self, response: Any, whole: bool) -> None:
        obs = self.obs
        if not isinstance(response, dict):
            obs.malformed.append("a response event without its response")
            return
        obs.identify(response)
        if isinstance(response.get("usage"), dict):
            obs.usage = chat_usage(response["usage"])
        if isinstance(response.get("error"), dict):
            obs.error = openrouter_error(response["error"], response.get("error_type"))
        obs.finish_reason = finish_reason(response) or obs.finish_reason
        if whole:
            for item in response.get("output") or []:
                self._item(item, text=True)

    def _item(self, item: Any, text: bool = False) -> None:
        if not isinstance(item, dict):
            return
        if item.get("type") == "function_call":
            key = item.get("id") or item.get("call_id")
            call = self._calls.get(key)
            if call is None:
                call = {"id": item.get("call_id"), "name": item.get("name"), "arguments": ""}
                self._calls[key] = call
                self.obs.tool_calls.append(call)
            if isinstance(item.get("arguments"), str) and item["arguments"]:
                call["arguments"] = item["arguments"]
        elif item.get("type") == "message" and text:
            for part in item.get("content") or []:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    self.obs.content += part["text"]
