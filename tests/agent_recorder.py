"""A scripted stand-in for the recording proxy's Unix socket, for real Claude Code, Codex, Gemini
CLI and Copilot CLI runs in the session sandbox: it keeps every request (method, path, headers,
JSON body) and answers Anthropic Messages (`…/messages`), OpenAI Responses (`…/responses`), the
Gemini API (`…:streamGenerateContent`) or OpenAI chat/completions (`…/chat/completions`) as a
stream, turn by turn.

A turn is `{"reasoning": str, "text": str, "calls": [{"name": str, "input": dict}]}` (each key
optional); the turn a request gets is the number of model turns already in its conversation, so a
retried request gets the same answer. With `refuse_from`, that request and every later one are
answered 400 (as the proxy refuses a step past its ceiling).
"""

from __future__ import annotations

import itertools
import json
import os
import socketserver
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from harness.agents.base import Agent
from harness.session.process import run_process
from harness.session.sandbox import SandboxSpec
from harness.session.worktree import git_init

ROUTE = "lab-x/editor-1"
REFUSAL = "siteos gateway: step ceiling reached"
PROMPT = 'Create notes.txt with a greeting, then run a command. Ünïcödé ✓ "quotes" $HOME\n'
"""The prompt the agents' tests send: non-ASCII, quotes and a shell variable, passed unchanged."""


def spec(tmp_path: Path, isolated: bool = True) -> SandboxSpec:
    """A sandbox spec for `prepare` alone (nothing started; the proxy at a fixed port)."""
    return SandboxSpec(
        worktree=tmp_path / "wt", home=tmp_path / "home", gateway_socket=tmp_path / "gw" / "p.sock",
        gateway_port=4321, isolated=isolated,
    )  # fmt: skip


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def messages_stream(turn: dict[str, Any], model: str, n: int) -> Iterator[bytes]:
    """One Anthropic Messages answer: thinking, text and tool_use blocks, then the stop."""
    usage = {"input_tokens": 100 + n, "output_tokens": 1, "cache_read_input_tokens": 7,
             "cache_creation_input_tokens": 0}  # fmt: skip
    yield _sse("message_start", {"type": "message_start", "message": {
        "id": f"msg_rec{n:04d}", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}})  # fmt: skip
    blocks: list[tuple[dict[str, Any], dict[str, Any]]] = []
    if turn.get("reasoning"):
        blocks.append(({"type": "thinking", "thinking": "", "signature": ""},
                       {"type": "thinking_delta", "thinking": turn["reasoning"]}))  # fmt: skip
    if turn.get("text"):
        blocks.append(({"type": "text", "text": ""}, {"type": "text_delta", "text": turn["text"]}))
    for k, call in enumerate(turn.get("calls", [])):
        start = {"type": "tool_use", "id": f"toolu_rec{n:03d}{k}", "name": call["name"]}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(call["input"])}
        blocks.append(({**start, "input": {}}, delta))
    for index, (start, delta) in enumerate(blocks):
        yield _sse("content_block_start", {"type": "content_block_start", "index": index,
                                           "content_block": start})  # fmt: skip
        yield _sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                           "delta": delta})  # fmt: skip
        if start["type"] == "thinking":
            signature = {"type": "signature_delta", "signature": "c2ln"}
            yield _sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                               "delta": signature})  # fmt: skip
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
    stop = "tool_use" if turn.get("calls") else "end_turn"
    yield _sse("message_delta", {"type": "message_delta",
                                 "delta": {"stop_reason": stop, "stop_sequence": None},
                                 "usage": {**usage, "output_tokens": 20 + n}})  # fmt: skip
    yield _sse("message_stop", {"type": "message_stop"})


def responses_stream(turn: dict[str, Any], model: str, n: int) -> Iterator[bytes]:
    """One OpenAI Responses answer: a reasoning summary, a message and function calls."""
    seq = itertools.count()
    response = {"id": f"resp_rec{n:04d}", "object": "response", "created_at": 1796500000,
                "model": model, "status": "in_progress", "output": []}  # fmt: skip
    yield _sse("response.created", {"type": "response.created", "sequence_number": next(seq),
                                    "response": response})  # fmt: skip
    items: list[dict[str, Any]] = []
    if turn.get("reasoning"):
        summary = [{"type": "summary_text", "text": turn["reasoning"]}]
        items.append({"id": f"rs_rec{n:04d}", "type": "reasoning", "summary": summary})
    if turn.get("text"):
        text = {"type": "output_text", "text": turn["text"], "annotations": []}
        items.append({"id": f"msg_rec{n:04d}", "type": "message", "role": "assistant",
                      "status": "completed", "content": [text]})  # fmt: skip
    for k, call in enumerate(turn.get("calls", [])):
        items.append({"id": f"fc_rec{n:03d}{k}", "type": "function_call", "status": "completed",
                      "call_id": f"call_rec{n:03d}{k}", "name": call["name"],
                      "arguments": json.dumps(call["input"])})  # fmt: skip
    for index, item in enumerate(items):
        for kind in ("response.output_item.added", "response.output_item.done"):
            yield _sse(kind, {"type": kind, "sequence_number": next(seq), "output_index": index,
                              "item": item})  # fmt: skip
    usage = {"input_tokens": 100 + n, "input_tokens_details": {"cached_tokens": 7},
             "output_tokens": 20 + n, "output_tokens_details": {"reasoning_tokens": 5},
             "total_tokens": 120 + 2 * n}  # fmt: skip
    done = {**response, "status": "completed", "output": items, "usage": usage}
    yield _sse("response.completed", {"type": "response.completed", "sequence_number": next(seq),
                                      "response": done})  # fmt: skip


def gemini_stream(turn: dict[str, Any], model: str, n: int) -> Iterator[bytes]:
    """One Gemini API answer (`alt=sse`): a thought, text, then the function calls with the
    finish reason and usage, as the proxy's Gemini front end writes them."""
    identity = {"modelVersion": model, "responseId": f"gen-rec{n:04d}"}

    def chunk(parts: list[dict[str, Any]], **extra: Any) -> bytes:
        candidate = {"content": {"role": "model", "parts": parts}, "index": 0, **extra}
        return f"data: {json.dumps({'candidates': [candidate], **identity})}\r\n\r\n".encode()

    if turn.get("reasoning"):
        yield chunk([{"text": turn["reasoning"], "thought": True}])
    if turn.get("text"):
        yield chunk([{"text": turn["text"]}])
    calls = [{"functionCall": {"id": f"call_rec{n:03d}{k}", "name": c["name"], "args": c["input"]}}
             for k, c in enumerate(turn.get("calls", []))]  # fmt: skip
    usage = {"promptTokenCount": 100 + n, "candidatesTokenCount": 15 + n, "thoughtsTokenCount": 5,
             "cachedContentTokenCount": 7, "totalTokenCount": 120 + 2 * n}  # fmt: skip
    candidate = {"content": {"role": "model", "parts": calls}, "index": 0, "finishReason": "STOP"}
    last = {"candidates": [candidate], "usageMetadata": usage, **identity}
    yield f"data: {json.dumps(last)}\r\n\r\n".encode()


def chat_stream(turn: dict[str, Any], model: str, n: int) -> Iterator[bytes]:
    """One chat/completions answer as OpenRouter streams it: reasoning, text, the tool calls, then
    the finish reason with the usage, and `[DONE]`."""
    base = {"id": f"gen-rec{n:04d}", "object": "chat.completion.chunk", "created": 1,
            "model": model, "provider": "Recorder"}  # fmt: skip

    def chunk(delta: dict[str, Any], **extra: Any) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": None, **extra}
        return f"data: {json.dumps({**base, 'choices': [choice]})}\n\n".encode()

    if turn.get("reasoning"):
        yield chunk({"role": "assistant", "content": "", "reasoning": turn["reasoning"]})
    if turn.get("text"):
        yield chunk({"role": "assistant", "content": turn["text"]})
    for k, call in enumerate(turn.get("calls", [])):
        function = {"name": call["name"], "arguments": json.dumps(call["input"])}
        yield chunk({"tool_calls": [{"index": k, "id": f"call_rec{n:03d}{k}", "type": "function",
                                     "function": function}]})  # fmt: skip
    usage = {"prompt_tokens": 100 + n, "completion_tokens": 15 + n, "total_tokens": 115 + 2 * n,
             "prompt_tokens_details": {"cached_tokens": 7}}  # fmt: skip
    finish = "tool_calls" if turn.get("calls") else "stop"
    yield chunk({}, finish_reason=finish)
    yield f"data: {json.dumps({**base, 'choices': [], 'usage': usage})}\n\n".encode()
    yield b"data: [DONE]\n\n"


def turns_done(path: str, body: dict[str, Any]) -> int:
    """How many model turns the request's conversation already holds."""
    if path.endswith(("generateContent", "GenerateContent")):
        return sum(1 for c in body.get("contents") or [] if c.get("role") == "model")
    if path.endswith(("/messages", "/chat/completions")):
        return sum(1 for m in body.get("messages") or [] if m.get("role") == "assistant")
    calls = [str(i.get("type", "")).endswith("_call") for i in body.get("input") or []]
    return sum(1 for k, call in enumerate(calls) if call and (k == 0 or not calls[k - 1]))


class Recorder:
    """Serves `turns` on `socket_path` (a context manager); `requests` is what arrived."""

    def __init__(
        self, socket_path: Path, turns: list[dict[str, Any]], refuse_from: int = 0
    ) -> None:
        self.socket_path, self.turns, self.refuse_from = socket_path, turns, refuse_from
        self.requests: list[dict[str, Any]] = []
        self.answered = itertools.count(1)
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def address_string(self) -> str:
                return "unix"

            def do_HEAD(self) -> None:
                recorder.requests.append({"method": "HEAD", "path": self.path, "body": None})
                self._json(404, {"error": {"message": "no such path"}})

            do_GET = do_HEAD

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                body = json.loads(raw) if raw else {}
                headers = {k.lower(): v for k, v in self.headers.items()}
                recorder.requests.append(
                    {"method": "POST", "path": self.path, "headers": headers, "body": body}
                )
                path = self.path.split("?")[0]
                gemini = path.endswith(":streamGenerateContent")
                chat = path.endswith("/chat/completions")
                if not (gemini or chat or path.endswith(("/messages", "/responses"))):
                    return self._json(404, {"error": {"message": "no such path"}})
                n = next(recorder.answered)
                if recorder.refuse_from and n >= recorder.refuse_from:
                    if gemini:  # the proxy's refusal in Google's shape
                        error = {"code": 400, "message": REFUSAL, "status": "INVALID_ARGUMENT"}
                        return self._json(400, {"error": error})
                    if chat:  # OpenRouter's error shape, as the proxy refuses a chat request
                        return self._json(400, {"error": {"code": 400, "message": REFUSAL}})
                    error = {"type": "invalid_request_error", "message": REFUSAL}
                    return self._json(400, {"type": "error", "error": error})
                turn = recorder.turns[min(turns_done(path, body), len(recorder.turns) - 1)]
                render = (
                    gemini_stream if gemini else chat_stream if chat
                    else messages_stream if path.endswith("/messages") else responses_stream
                )  # fmt: skip
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                model = (
                    path.rsplit("/models/", 1)[-1].split(":")[0] if gemini else body.get("model")
                )
                for chunk in render(turn, str(model or ""), n):
                    self.wfile.write(chunk)
                self.close_connection = True

            def _json(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
            daemon_threads = True

        self.server = Server(str(socket_path), Handler)
        os.chmod(socket_path, 0o666)  # the sandbox's uid connects through the bound folder

    def __enter__(self) -> Recorder:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def paths(self) -> list[str]:
        return [f"{r['method']} {r['path']}" for r in self.requests]


@dataclass
class AgentRun:
    """A real agent run in the session sandbox against a `Recorder`."""

    exit_code: int | None
    events: Path
    stderr: str
    requests: list[dict[str, Any]]
    worktree: Path
    home: Path


def run_agent(
    agent: Agent, tmp_path: Path, turns: list[dict[str, Any]], prompt: bytes, refuse_from: int = 0
) -> AgentRun:
    """`agent` prepared as a session prepares it (route `ROUTE`, reasoning high), run in its
    sandbox (loopback-only network, the recorder behind the socket forwarder) on a git worktree
    holding hello.txt; its stdout is the native log."""
    for sub in ("wt", "home", "gw"):
        (tmp_path / sub).mkdir()
    (tmp_path / "wt" / "hello.txt").write_text("hello world\n")
    git_init(tmp_path / "wt")
    spec = SandboxSpec(
        worktree=tmp_path / "wt", home=tmp_path / "home", gateway_socket=tmp_path / "gw" / "p.sock"
    )
    events, stderr = tmp_path / "events.jsonl", tmp_path / "agent.stderr.log"
    with Recorder(spec.gateway_socket, turns, refuse_from) as recorder:
        launch = agent.prepare(spec, route=ROUTE, reasoning="high", title="unit-1", prompt=prompt)
        with spec.launch(launch.command) as argv:
            outcome = run_process(
                argv, env={"PATH": "/usr/bin:/bin"}, stdin=launch.stdin, stdout=events,
                stderr=stderr, wall_clock_seconds=90, ceiling_hit=lambda: None,
                limits=spec.limits, tmp_size=spec.tmp_size, writable=spec.writable, label="agent",
            )  # fmt: skip
    return AgentRun(
        outcome.exit_code, events, stderr.read_text(errors="replace"), recorder.requests,
        spec.worktree, spec.home,
    )  # fmt: skip
