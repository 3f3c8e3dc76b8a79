"""The Gemini API front end (Gemini CLI's wire): `generateContent` and `streamGenerateContent`
translated to OpenRouter's chat/completions both ways, through the real simulator and the real
recording proxy, and metered exactly like the other protocols (steps, the step ceiling, the hard
budget, transport retries, in-stream errors, cut streams, stalls, records).

The client here reads a stream as Google's JS SDK (`@google/genai`, bundled in Gemini CLI 0.61.0)
does: `data: <json>` events ended by a blank line, and a chunk that is a bare `{"error": …}` object
thrown as an API error."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from gateway_support import front_end_scripts, loopback_only, script

from gateway import gemini
from gateway.budget import Prices
from gateway.errors import ErrorClass
from gateway.protocols import GeminiGenerateContent
from gateway.proxy import RecordingProxy
from gateway.simulator import Simulator
from records.evidence.gateway import GatewayPolicy, read_exchanges, summarize

KEY = "sk-or-v1-gemini-test-key"
SDK_EVENT = re.compile(r"^data: (.*)(?:\n\n|\r\r|\r\n\r\n)")  # @google/genai's responseLineRE
SYSTEM = "You are an agent.\n- **Workspace Directories:**\n  - /g\n"
TOOLS = [{"functionDeclarations": [
    {"name": n, "description": n, "parametersJsonSchema": {"type": "object"}}
    for n in ("bash", "read", "write", "edit")]}]  # fmt: skip


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    scripts = front_end_scripts("lab-g")
    scripts.append(
        script("lab-g/slow-1", [{"text": "Done.", "error": {"kind": "stall", "hang_seconds": 1.5,
                                                            "keepalive_seconds": 0.2}}])
    )  # fmt: skip
    with loopback_only(), Simulator(scripts, api_key=KEY, generation_lag_seconds=0.0) as s:
        yield s


def proxy(sim: Simulator, log: Path, **kwargs: Any) -> RecordingProxy:
    return RecordingProxy(upstream=sim.base_url, api_key=KEY, log_path=log, **kwargs)


def url(base_url: str, model: str, stream: bool = True) -> str:
    method = "streamGenerateContent?alt=sse" if stream else "generateContent"
    return f"{base_url}/gemini/v1beta/models/{model}:{method}"


def request(contents: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"systemInstruction": {"parts": [{"text": SYSTEM}]}, "contents": contents,
            "tools": TOOLS, "generationConfig": {"maxOutputTokens": 1000}, **extra}  # fmt: skip


class GeminiApiError(Exception):
    def __init__(self, status: int, body: Any) -> None:
        super().__init__(f"{status}: {body}")
        self.status, self.body = status, body


def generate(base_url: str, model: str, body: dict[str, Any], stream: bool = True) -> list[dict]:
    """One call as Google's SDK makes it: the response chunks, or `GeminiApiError`."""
    headers = {"x-goog-api-key": "dummy", "User-Agent": "GeminiCLI/0.61.0/test"}
    with httpx.stream("POST", url(base_url, model, stream), json=body, headers=headers,
                      timeout=20) as response:  # fmt: skip
        if response.status_code >= 400:
            raise GeminiApiError(response.status_code, json.loads(response.read()))
        if not stream:
            return [json.loads(response.read())]
        chunks, buffer = [], ""
        for piece in response.iter_raw():
            text = piece.decode()
            try:
                whole = json.loads(text)
            except json.JSONDecodeError:
                whole = None
            if isinstance(whole, dict) and "error" in whole:
                raise GeminiApiError(whole["error"]["code"], whole)
            buffer += text
            while match := SDK_EVENT.match(buffer):
                chunks.append(json.loads(match.group(1)))
                buffer = buffer[match.end() :]
        assert not buffer.strip(), f"incomplete JSON segment at the end: {buffer[:80]!r}"
        return chunks


def parts(chunks: list[dict]) -> list[dict[str, Any]]:
    return [p for c in chunks for cand in c.get("candidates", []) for p in cand["content"]["parts"]]


def run_session(base_url: str, model: str, prompt: str, stream: bool = True) -> list[dict]:
    """A toy Gemini CLI: answers every function call with "ok" until the model stops."""
    contents: list[dict[str, Any]] = [{"role": "user", "parts": [{"text": prompt}]}]
    for _ in range(10):
        answer = parts(generate(base_url, model, request(contents), stream))
        contents.append({"role": "model", "parts": answer})
        calls = [p["functionCall"] for p in answer if "functionCall" in p]
        if not calls:
            return contents
        contents.append({"role": "user", "parts": [
            {"functionResponse": {"id": c["id"], "name": c["name"], "response": {"output": "ok"}}}
            for c in calls]})  # fmt: skip
    return contents


# -- the translation, both ways -------------------------------------------------------------------
def test_a_gemini_request_becomes_the_chat_request_for_the_same_route() -> None:
    body = {
        "systemInstruction": {"role": "user", "parts": [{"text": "Be brief."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "<ctx>"}, {"text": "Write a.txt"}]},
            {"role": "model", "parts": [
                {"text": "thinking...", "thought": True}, {"text": "On it."},
                {"functionCall": {"name": "write_file", "args": {"file_path": "a.txt"}},
                 "thoughtSignature": "sig"},
                {"functionCall": {"id": "c2", "name": "run_shell_command",
                                  "args": {"command": "ls"}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "write_file", "response": {"output": "done"}}},
                {"functionResponse": {"id": "c2", "name": "run_shell_command",
                                      "response": {"error": "exit 1"}}},
                {"inlineData": {"mimeType": "image/png", "data": "iVBO"}}]},
        ],
        "tools": [{"functionDeclarations": [
            {"name": "write_file", "description": "Writes.",
             "parametersJsonSchema": {"type": "object", "required": ["file_path"]}},
            {"name": "legacy", "parameters": {"type": "OBJECT", "properties": {
                "n": {"type": "INTEGER"}, "xs": {"type": "ARRAY", "items": {"type": "STRING"}}}}}]},
            {"googleSearch": {}}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY",
                                                 "allowedFunctionNames": ["legacy"]}},
        "generationConfig": {"temperature": 1, "topP": 0.95, "topK": 64, "maxOutputTokens": 900,
                             "stopSequences": ["END"], "candidateCount": 1,
                             "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 512}},
    }  # fmt: skip
    chat, dropped = gemini.to_chat("lab/x-1", True, body)
    assert chat["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "<ctx>\nWrite a.txt"},
        {"role": "assistant", "content": "On it.", "tool_calls": [
            {"id": "call_1_0", "type": "function",
             "function": {"name": "write_file", "arguments": '{"file_path": "a.txt"}'}},
            {"id": "c2", "type": "function",
             "function": {"name": "run_shell_command", "arguments": '{"command": "ls"}'}}]},
        {"role": "tool", "tool_call_id": "call_1_0", "content": "done"},
        {"role": "tool", "tool_call_id": "c2", "content": '{"error": "exit 1"}'},
        {"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}}]},
    ]  # fmt: skip
    assert chat["tools"] == [
        {"type": "function", "function": {"name": "write_file", "description": "Writes.",
                                          "parameters": {"type": "object",
                                                         "required": ["file_path"]}}},
        {"type": "function", "function": {"name": "legacy", "parameters": {
            "type": "object", "properties": {"n": {"type": "integer"}, "xs": {
                "type": "array", "items": {"type": "string"}}}}}},
    ]  # fmt: skip
    assert chat["tool_choice"] == {"type": "function", "function": {"name": "legacy"}}
    assert {k: chat[k] for k in ("model", "stream", "temperature", "top_p", "max_tokens", "stop",
                                 "reasoning")} == {
        "model": "lab/x-1", "stream": True, "temperature": 1, "top_p": 0.95, "max_tokens": 900,
        "stop": ["END"], "reasoning": {"max_tokens": 512}}  # fmt: skip
    assert dropped == ["tools.googleSearch", "generationConfig.topK=64",
                       "generationConfig.candidateCount=1"]  # fmt: skip
    assert gemini.parse_path("/models/lab/x-1:generateContent") == ("lab/x-1", False)
    with pytest.raises(gemini.GeminiRequestError):
        gemini.parse_path("/models/lab/x-1:countTokens")


def stream_bytes(*chunks: dict[str, Any] | str) -> bytes:
    return b"".join(
        (c if isinstance(c, str) else f"data: {json.dumps(c)}\n\n").encode() for c in chunks
    )


def translate(raw: bytes, status: int = 200, streaming: bool = True, step: int = 1) -> list[bytes]:
    translator = gemini.ResponseTranslator(status, streaming)
    out: list[bytes] = []
    for k in range(0, len(raw), step):  # any fragmentation
        out.extend(translator.feed(raw[k : k + step]))
    return out + translator.close()


def sdk_chunks(pieces: list[bytes]) -> list[dict[str, Any]]:
    text = b"".join(pieces).decode()
    chunks = []
    while match := SDK_EVENT.match(text):
        chunks.append(json.loads(match.group(1)))
        text = text[match.end() :]
    assert text == ""
    return chunks


def test_a_chat_stream_becomes_gemini_chunks_the_sdk_parses() -> None:
    head = {"id": "gen-1", "model": "lab/x-1-2026", "provider": "Demo Cloud"}
    usage = {"prompt_tokens": 100, "completion_tokens": 30, "total_tokens": 130,
             "prompt_tokens_details": {"cached_tokens": 70},
             "completion_tokens_details": {"reasoning_tokens": 10}, "cost": 0.001}  # fmt: skip
    raw = stream_bytes(
        ": OPENROUTER PROCESSING\n\n",
        {**head, "choices": [{"index": 0, "delta": {"role": "assistant", "reasoning": "hm"}}]},
        {**head, "choices": [{"index": 0, "delta": {"content": "Writing"}}]},
        {**head, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_a",
         "type": "function", "function": {"name": "write_file", "arguments": '{"file_'}}]}}]},
        {**head, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {
         "arguments": 'path": "a.txt"}'}}]}}]},
        {**head, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1, "id": "call_b",
         "type": "function", "function": {"name": "run_shell_command",
                                          "arguments": '{"command": "ls"}'}}]}}]},
        {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
         "usage": usage},
        "data: [DONE]\n\n",
    )  # fmt: skip
    for step in (1, 7, len(raw)):
        keepalive, *chunks = sdk_chunks(translate(raw, step=step))
        assert keepalive == {}  # the comment, as an empty chunk the SDK parses and skips
        assert [c["candidates"][0]["content"]["parts"] for c in chunks] == [
            [{"text": "hm", "thought": True}], [{"text": "Writing"}],
            [{"functionCall": {"name": "write_file", "args": {"file_path": "a.txt"},
                               "id": "call_a"}},
             {"functionCall": {"name": "run_shell_command", "args": {"command": "ls"},
                               "id": "call_b"}}]]  # fmt: skip
        last = chunks[-1]
        assert last["candidates"][0]["finishReason"] == "STOP"
        assert last["usageMetadata"] == {
            "promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 130,
            "thoughtsTokenCount": 10, "cachedContentTokenCount": 70}  # fmt: skip
        assert (last["modelVersion"], last["responseId"]) == ("lab/x-1-2026", "gen-1")
        assert all("finishReason" not in c["candidates"][0] for c in chunks[:-1])


def test_reasoning_details_ride_in_the_signature_and_come_back_upstream() -> None:
    """OpenRouter's reasoning blocks, streamed in pieces, come back whole on the assistant
    message of the next request, through the `thoughtSignature` Gemini CLI keeps."""
    head = {"id": "gen-3", "model": "lab/x-1"}
    pieces = [
        [{"type": "reasoning.text", "text": "Let me ", "index": 0, "format": "fmt-1"}],
        [{"type": "reasoning.text", "text": "think.", "index": 0, "signature": "c2ln"}],
        [{"type": "reasoning.encrypted", "data": "QUJD", "index": 1, "format": "fmt-1"}],
    ]
    raw = stream_bytes(
        *({**head, "choices": [{"index": 0, "delta": {"reasoning_details": p}}]} for p in pieces),
        {**head, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c1",
         "type": "function", "function": {"name": "glob", "arguments": "{}"}}]}}]},
        {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
         "usage": {"prompt_tokens": 5, "completion_tokens": 5}},
    )  # fmt: skip
    whole = [
        {"type": "reasoning.text", "text": "Let me think.", "index": 0, "format": "fmt-1",
         "signature": "c2ln"},
        {"type": "reasoning.encrypted", "data": "QUJD", "index": 1, "format": "fmt-1"},
    ]  # fmt: skip
    for step in (1, 9):
        (call,) = sdk_chunks(translate(raw, step=step))[-1]["candidates"][0]["content"]["parts"]
        assert call["functionCall"]["name"] == "glob"
        assert gemini.reasoning_details(call["thoughtSignature"]) == whole
    answer = {"functionResponse": {"id": "c1", "name": "glob", "response": {"output": "a.ts"}}}
    body = {"contents": [{"role": "user", "parts": [{"text": "go"}]},
                         {"role": "model", "parts": [call]},
                         {"role": "user", "parts": [answer]}]}  # fmt: skip
    chat, _ = gemini.to_chat("lab/x-1", True, body)
    assert chat["messages"][1]["reasoning_details"] == whole
    glob = {"id": "c1", "type": "function", "function": {"name": "glob", "arguments": "{}"}}
    message = {"role": "assistant", "content": None, "reasoning_details": whole,
               "tool_calls": [glob]}  # fmt: skip
    plain = {"choices": [{"message": message, "finish_reason": "tool_calls"}]}
    (part,) = gemini.gemini_body(plain)["candidates"][0]["content"]["parts"]
    assert gemini.reasoning_details(part["thoughtSignature"]) == whole
    assert gemini.reasoning_details("skip_thought_signature_validator") is None


def test_errors_become_googles_error_shape() -> None:
    head = {"id": "gen-2", "model": "lab/x-1"}
    raw = stream_bytes(
        {**head, "choices": [{"index": 0, "delta": {"content": "Wri"}}]},
        {**head, "error": {"code": 429, "message": "Rate limit exceeded",
                           "metadata": {"error_type": "rate_limit_exceeded"}},
         "choices": [{"index": 0, "delta": {}, "finish_reason": "error"}]},
        "data: [DONE]\n\n",
    )  # fmt: skip
    pieces = translate(raw, step=5)
    assert json.loads(pieces[-1]) == {"error": {"code": 429, "message": "Rate limit exceeded",
                                                "status": "RESOURCE_EXHAUSTED"}}  # fmt: skip
    assert sdk_chunks(pieces[:-1])[0]["candidates"][0]["content"]["parts"] == [{"text": "Wri"}]
    http = json.dumps({"error": {"code": 503, "message": "Provider down"}}).encode()
    assert json.loads(b"".join(translate(http, status=503, streaming=False))) == {
        "error": {"code": 503, "message": "Provider down", "status": "UNAVAILABLE"}}  # fmt: skip
    in_body = json.dumps({"error": {"code": "server_error", "message": "boom"}}).encode()
    assert json.loads(b"".join(translate(in_body, streaming=False)))["error"] == {
        "code": 500, "message": "boom", "status": "INTERNAL"}  # fmt: skip


def test_a_cut_stream_reaches_the_agent_without_a_finish_reason() -> None:
    raw = stream_bytes({"id": "g", "choices": [{"index": 0, "delta": {"content": "half"}}]},
                       "data: [DONE]\n\n")  # fmt: skip
    chunks = sdk_chunks(translate(raw))
    assert len(chunks) == 1 and "finishReason" not in chunks[0]["candidates"][0]


# -- through the simulator and the proxy ---------------------------------------------------------
@pytest.mark.parametrize("stream", [True, False])
def test_a_session_is_metered_step_by_step(sim: Simulator, tmp_path: Path, stream: bool) -> None:
    log = tmp_path / "g.jsonl"
    with proxy(sim, log, policy=GatewayPolicy(reasoning="high")) as p:
        contents = run_session(p.base_url, "lab-g/tools-1", "go", stream)
    state = p.state
    calls = [x["functionCall"] for x in contents[1]["parts"] if "functionCall" in x]
    assert [c["name"] for c in calls] == ["write", "bash"]
    assert calls[0]["args"]["filePath"] == "/g/a.txt"  # the workdir from Gemini CLI's prompt
    assert contents[-1]["parts"][-1] == {"text": "All done."}
    records = read_exchanges(log)
    path = "/api/v1/gemini/v1beta/models/lab-g/tools-1:" + (
        "streamGenerateContent?alt=sse" if stream else "generateContent")  # fmt: skip
    assert [(r.protocol, r.path, r.step, r.streamed, r.finish_reason) for r in records] == [
        ("gemini", path, 1, stream, "tool_calls"), ("gemini", path, 2, stream, "stop")]  # fmt: skip
    upstream = sim.requests[-1]
    assert upstream["model"] == "lab-g/tools-1" and upstream["reasoning"] == {"effort": "high"}
    assert [m["role"] for m in upstream["messages"]] == [
        "system", "user", "assistant", "tool", "tool"]  # fmt: skip
    generations = {gid: rec for gid, (_, rec) in sim.generations.items()}
    for record in records:
        assert record.error_class is None and record.usage is not None
        assert record.request["model"] == record.requested_model == "lab-g/tools-1"
        truth = generations[record.generation_id or ""]
        assert record.usage.cost_usd == truth["total_cost"] == record.cost_usd > 0
        assert (record.model, record.provider) == ("lab-g/tools-1-20260101", "Demo Cloud")
    assert state.steps == 2 and summarize(log).missing_usage == 0


def test_the_step_ceiling_refuses_in_googles_error_shape(sim: Simulator, tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    before = len(sim.requests)
    with proxy(sim, log, step_ceiling=3) as p, pytest.raises(GeminiApiError) as refused:
        run_session(p.base_url, "lab-g/burner-1", "burn")
    assert refused.value.status == 400
    assert refused.value.body == {"error": {
        "code": 400, "status": "INVALID_ARGUMENT",
        "message": "step ceiling of 3 reached: request refused by the benchmark harness",
        "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "step_ceiling",
                     "domain": "harness-proxy", "metadata": {}}]}}  # fmt: skip
    assert len(sim.requests) - before == 3 and p.state.step_ceiling_hit
    last = read_exchanges(log)[-1]
    assert (last.step, last.refused, last.status, last.protocol) == (
        4, "step_ceiling", 400, "gemini")  # fmt: skip


def test_a_transient_503_is_a_transport_retry(sim: Simulator, tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    contents: list[dict[str, Any]] = [{"role": "user", "parts": [{"text": "go"}]}]
    with proxy(sim, log) as p:
        first = parts(generate(p.base_url, "lab-g/flaky-1", request(contents)))
        call = first[0]["functionCall"]
        contents += [
            {"role": "model", "parts": first},
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": call["id"],
                            "name": "bash",
                            "response": {"output": "1"},
                        }
                    }
                ],
            },
        ]
        with pytest.raises(GeminiApiError) as failed:
            generate(p.base_url, "lab-g/flaky-1", request(contents))
        p.drain()
        again = generate(p.base_url, "lab-g/flaky-1", request(contents))  # its retry, served
    assert failed.value.status == 503 and failed.value.body["error"]["status"] == "UNAVAILABLE"
    assert again[-1]["candidates"][0]["finishReason"] == "STOP"
    records = read_exchanges(log)
    assert [(r.step, r.status, r.retry, r.transport_retry) for r in records] == [
        (1, 200, False, False), (2, 503, False, False), (2, 200, False, True)]  # fmt: skip
    assert records[1].error_class is ErrorClass.UPSTREAM_5XX


def test_the_hard_budget_lowers_max_output_tokens_then_refuses(
    sim: Simulator, tmp_path: Path
) -> None:
    log = tmp_path / "g.jsonl"
    before = len(sim.requests)
    prices = Prices(prompt=0.00001, completion=0.0001)  # each step: 3000 completion tokens = $0.30
    finishes = []
    with proxy(sim, log, budget_usd=1.0, prices=prices) as p, pytest.raises(GeminiApiError) as e:
        for n in range(8):
            body = request([{"role": "user", "parts": [{"text": "x" * (400 + n)}]}],
                           generationConfig={"maxOutputTokens": 32000})  # fmt: skip
            chunks = generate(p.base_url, "lab-g/burn-1", body)
            finishes.append(chunks[-1]["candidates"][0]["finishReason"])
    assert "budget ceiling of $1 reached" in e.value.body["error"]["message"]
    assert finishes == ["STOP"] * 3 + ["MAX_TOKENS"]  # the last one cut at its lowered limit
    limits = [body["max_tokens"] for body in sim.requests[before:]]
    assert limits == sorted(limits, reverse=True) and len(limits) == 4 and limits[-1] < 3000
    summary = summarize(log)
    assert summary.budget_ceiling_hit and summary.ended_on_budget_cut
    assert summary.cost_usd is not None and summary.cost_usd <= 1.0


def test_an_in_stream_error_is_classed_and_thrown_by_the_sdk(
    sim: Simulator, tmp_path: Path
) -> None:
    with proxy(sim, tmp_path / "g.jsonl") as p, pytest.raises(GeminiApiError) as error:
        generate(p.base_url, "lab-g/r429-1", request([{"role": "user", "parts": [{"text": "x"}]}]))
    assert error.value.body["error"]["status"] == "RESOURCE_EXHAUSTED"
    (record,) = read_exchanges(tmp_path / "g.jsonl")
    assert (record.status, record.error_class, record.protocol) == (
        200, ErrorClass.RATE_LIMIT, "gemini")  # fmt: skip
    assert p.state.provider_errors == 1 and not record.delivered


def test_a_cut_stream_is_truncated(sim: Simulator, tmp_path: Path) -> None:
    with proxy(sim, tmp_path / "g.jsonl") as p:
        body = request([{"role": "user", "parts": [{"text": "x"}]}])
        chunks = generate(p.base_url, "lab-g/cut-1", body)
    assert "I will now write" in json.dumps(chunks)
    assert all("finishReason" not in c["candidates"][0] for c in chunks if c)
    (record,) = read_exchanges(tmp_path / "g.jsonl")
    assert (record.status, record.error_class) == (200, ErrorClass.TRUNCATED_STREAM)
    assert p.state.truncated == 1


def test_a_stall_is_ended_as_a_provider_stall(sim: Simulator, tmp_path: Path) -> None:
    started = time.monotonic()
    body = request([{"role": "user", "parts": [{"text": "x"}]}])
    with proxy(sim, tmp_path / "g.jsonl", stall_seconds=1.0) as p, pytest.raises(httpx.HTTPError):
        generate(p.base_url, "lab-g/stall-1", body)
    assert time.monotonic() - started < 10
    (record,) = read_exchanges(tmp_path / "g.jsonl")
    assert (record.status, record.error_class) == (200, ErrorClass.PROVIDER_STALL)
    assert record.keepalives >= 3 and p.state.stalls == 1


def test_keepalives_reach_the_agent_as_empty_chunks(sim: Simulator, tmp_path: Path) -> None:
    """Within the outage window the agent's client hears the stream is alive (its own idle
    timeout would otherwise race the proxy's), and the answer comes whole after them."""
    body = request([{"role": "user", "parts": [{"text": "x"}]}])
    with proxy(sim, tmp_path / "g.jsonl") as p:
        chunks = generate(p.base_url, "lab-g/slow-1", body)
    empty = [c for c in chunks if c == {}]
    (record,) = read_exchanges(tmp_path / "g.jsonl")
    assert len(empty) == record.keepalives >= 3 and record.error_class is None
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP" and "Done." in json.dumps(chunks)


def test_a_body_that_is_not_a_gemini_request_is_answered_in_googles_shape(
    sim: Simulator, tmp_path: Path
) -> None:
    with proxy(sim, tmp_path / "g.jsonl") as p:
        response = httpx.post(url(p.base_url, "lab-g/tools-1"), json={"contents": "hi"})
        other = httpx.post(f"{p.base_url}/gemini/v1beta/models/lab-g/tools-1:countTokens", json={})
    assert response.status_code == 400
    assert response.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert "`contents` must be a list" in response.json()["error"]["message"]
    assert other.status_code >= 400  # not a metered path: relayed upstream as is
    records = read_exchanges(tmp_path / "g.jsonl")
    assert [(r.kind, r.protocol) for r in records] == [("chat", "gemini"), ("other", None)]
    assert GeminiGenerateContent().matches("/gemini/v1beta/models/a/b:generateContent")
