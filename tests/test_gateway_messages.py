"""Anthropic Messages (`/messages`, Claude Code's API on OpenRouter) through the real simulator
and the real recording proxy: metered exactly like chat/completions (steps, the step ceiling, the
hard budget, stalls, cut streams, error classes, records), answered in Anthropic's shapes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from gateway_support import drive_messages, loopback_only, script, sse_payloads, system_prompt

from gateway.budget import Prices
from gateway.errors import ErrorClass
from gateway.protocols import AnthropicMessages
from gateway.proxy import RecordingProxy, _Handler
from gateway.simulator import Simulator
from records.evidence.gateway import ExchangeRecord, GatewayPolicy, read_exchanges, summarize

KEY = "sk-or-v1-messages-test-key"
WRITE = {"name": "write", "arguments": {"filePath": "{workdir}/a.txt", "content": "a\n"}}
BASH = {"name": "bash", "arguments": {"command": "echo {turn}", "description": "x"}}
PRICES = {"prompt": "0.00001", "completion": "0.0001"}


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    scripts = [
        script("lab-m/tools-1", [{"text": "Writing a.txt", "tool_calls": [WRITE]},
                                 {"text": "All done."}]),
        script("lab-m/burner-1", [{"tool_calls": [BASH]}], session={"after_last": "repeat_last"}),
        script("lab-m/burn-1", [{"tool_calls": [BASH]}], session={"after_last": "repeat_last"},
               usage={"completion_tokens": 3000}, catalogue={"pricing": PRICES}),
        script("lab-m/r429-1", [{"error": {"kind": "midstream", "code": 429,
                                           "message": "Rate limit exceeded"}}]),
        script("lab-m/overflow-1", [{"error": {"kind": "midstream", "code": 400,
                                               "message": "prompt too big", "metadata": {
                                                   "error_type": "context_length_exceeded"}}}]),
        script("lab-m/busy-1", [{"error": {"kind": "http", "status": 503}}]),
        script("lab-m/cut-1", [{"text": "I will now write the page and",
                                "error": {"kind": "truncate"}}]),
        script("lab-m/stall-1", [{"error": {"kind": "stall", "hang_seconds": 30,
                                            "keepalive_seconds": 0.2}}]),
        script("lab-m/slow-1", [{"text": "late but whole", "error": {
            "kind": "stall", "hang_seconds": 0.6, "keepalive_seconds": 0.1}}]),
    ]  # fmt: skip
    with loopback_only(), Simulator(scripts, api_key=KEY, generation_lag_seconds=0.0) as s:
        yield s


def proxy(sim: Simulator, log: Path, **kwargs: Any) -> RecordingProxy:
    return RecordingProxy(upstream=sim.base_url, api_key=KEY, log_path=log, **kwargs)


def post(base_url: str, model: str, stream: bool = True, **extra: Any) -> httpx.Response:
    body = {"model": model, "max_tokens": 1000, "stream": stream, "system": system_prompt("/w"),
            "messages": [{"role": "user", "content": "go"}], **extra}  # fmt: skip
    return httpx.post(f"{base_url}/messages", json=body, timeout=20)


def test_a_session_is_metered_step_by_step_streamed_or_not(sim: Simulator, tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    with proxy(sim, log, fetch_generation=True) as p:
        streamed, error = drive_messages(p.base_url, "lab-m/tools-1", "go", workdir="/w")
        assert error is None
        plain, error = drive_messages(p.base_url, "lab-m/tools-1", "again", stream=False)
        assert error is None
    state = p.state  # once stopped: the last handler may still be closing its books
    for conversation in (streamed, plain):
        first, last = conversation[1]["content"], conversation[-1]["content"]
        assert [b["type"] for b in first] == ["text", "tool_use"]
        assert first[1]["name"] == "write" and first[1]["input"]["content"] == "a\n"
        assert last == [{"type": "text", "text": "All done.", "citations": None}]
    assert streamed[1]["content"][1]["input"]["filePath"] == "/w/a.txt"  # from the system prompt
    records = read_exchanges(log)
    assert [(r.protocol, r.step, r.streamed, r.finish_reason) for r in records] == [
        ("messages", 1, True, "tool_calls"), ("messages", 2, True, "stop"),
        ("messages", 3, False, "tool_calls"), ("messages", 4, False, "stop")]  # fmt: skip
    generations = {gid: rec for gid, (_, rec) in sim.generations.items()}
    for record in records:
        assert record.error_class is None and record.usage is not None
        truth = generations[record.generation_id or ""]
        assert record.usage.cost_usd == truth["total_cost"] == record.cost_usd > 0
        assert (record.usage.prompt, record.usage.completion) == (
            truth["tokens_prompt"], truth["tokens_completion"])  # fmt: skip
        assert record.usage.cached == truth["native_tokens_cached"]
        assert (record.model, record.provider) == ("lab-m/tools-1-20260101", "Demo Cloud")
    assert records[1].usage is not None and records[1].usage.cached > 0  # a later turn's cache
    assert records[0].keepalives == 1  # Anthropic's `ping`
    summary = summarize(log)
    assert summary.cost_usd == pytest.approx(sum(g["total_cost"] for g in generations.values()))
    assert (summary.steps, summary.retries, summary.missing_usage) == (4, 0, 0)
    assert state.steps == 4 and state.cost_usd == pytest.approx(summary.cost_usd)


def test_the_step_ceiling_refuses_in_anthropics_error_shape(sim: Simulator, tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    before = len(sim.requests)
    with proxy(sim, log, step_ceiling=3) as p:
        messages, refused = drive_messages(p.base_url, "lab-m/burner-1", "burn")
        state = p.state
    assert refused is not None and refused.status_code == 400
    assert refused.json() == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "step ceiling of 3 reached: "
                  "request refused by the benchmark harness"},
        "request_id": None,
        "metadata": {"source": "harness-proxy", "reason": "step_ceiling"},
    }  # fmt: skip
    assert len(sim.requests) - before == 3 and len(messages) == 1 + 3 * 2
    assert state.step_ceiling_hit and state.steps == 3
    last = read_exchanges(log)[-1]
    assert (last.step, last.refused, last.status, last.protocol) == (4, "step_ceiling", 400,
                                                                     "messages")  # fmt: skip
    assert summarize(log).steps == 3


def test_a_repeated_conversation_keeps_its_step(sim: Simulator, tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    with proxy(sim, log) as p:
        first = post(p.base_url, "lab-m/busy-1")
        again = post(p.base_url, "lab-m/busy-1")  # the agent's retry of a failed request
        other = [{"role": "user", "content": "another task"}]
        delivered = post(p.base_url, "lab-m/tools-1", messages=other)
        repeat = post(p.base_url, "lab-m/tools-1", messages=other)  # again after an answer
    assert [r.status_code for r in (first, again, delivered, repeat)] == [503, 503, 200, 200]
    assert first.json()["error"]["type"] == "overloaded_error"
    records = read_exchanges(log)
    assert [(r.step, r.retry, r.transport_retry) for r in records] == [
        (1, False, False), (1, False, True), (2, False, False), (2, True, False)]  # fmt: skip
    assert (records[0].error_class, records[0].status) == (ErrorClass.UPSTREAM_5XX, 503)


def test_the_hard_budget_lowers_max_tokens_and_the_thinking_budget(
    sim: Simulator, tmp_path: Path
) -> None:
    log = tmp_path / "g.jsonl"
    before = len(sim.requests)
    prices = Prices(prompt=0.00001, completion=0.0001)  # each step: 3000 completion tokens = $0.30
    thinking = {"type": "enabled", "budget_tokens": 16000}
    with proxy(sim, log, budget_usd=1.0, prices=prices) as p:
        _, stopped = drive_messages(p.base_url, "lab-m/burn-1", "go", max_tokens=32000,
                                    thinking=thinking)  # fmt: skip
        assert stopped is None  # the answer cut at max_tokens has no tool call: the agent stops
        _, refused = drive_messages(p.base_url, "lab-m/burn-1", "go on", max_tokens=32000,
                                    thinking=thinking)  # fmt: skip
    state = p.state
    assert refused is not None and refused.status_code == 400
    assert refused.json()["metadata"]["reason"] == "budget_ceiling"
    assert "budget ceiling of $1 reached" in refused.json()["error"]["message"]
    sent = sim.requests[before:]
    limits = [body["max_tokens"] for body in sent]
    assert limits == sorted(limits, reverse=True) and 9000 < limits[0] < 10000
    assert [b["thinking"].get("budget_tokens") for b in sent] == [m - 1 for m in limits[:-1]] + [
        None]  # fmt: skip
    assert sent[-1]["thinking"] == {"type": "disabled"}  # under Anthropic's 1024 minimum
    assert limits[-1] < 1025
    records = read_exchanges(log)
    cut = records[len(sent) - 1]
    assert cut.finish_reason == "length" and cut.usage is not None  # stop_reason max_tokens
    assert cut.usage.completion == limits[-1] < 3000
    assert all(r.max_tokens_change is not None for r in records)
    assert records[-1].refused == "budget_ceiling" and records[-1].max_tokens_change is not None
    assert records[-1].max_tokens_change.forwarded is None
    summary = summarize(log)
    assert summary.cost_usd is not None and summary.cost_usd <= 1.0 and summary.budget_ceiling_hit
    assert summary.ended_on_budget_cut and state.cost_usd <= 1.0


def test_the_policy_routes_and_asks_for_high_effort(sim: Simulator, tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    policy = GatewayPolicy(reasoning="high", only=["demo-cloud"])
    with proxy(sim, log, policy=policy) as p:
        response = post(p.base_url, "lab-m/tools-1", output_config={"effort": "low"})
    assert response.status_code == 200
    sent = sim.requests[-1]
    assert sent["provider"] == {"allow_fallbacks": False, "require_parameters": True,
                                "only": ["demo-cloud"], "order": ["demo-cloud"]}  # fmt: skip
    assert sent["output_config"] == {"effort": "high"} and "usage" not in sent
    (record,) = read_exchanges(log)
    assert 'output_config.effort="high"' in record.policy_changes
    assert 'provider.only=["demo-cloud"]' in record.policy_changes


@pytest.mark.parametrize(
    ("model", "expected", "code"),
    [("lab-m/r429-1", ErrorClass.RATE_LIMIT, 429),
     ("lab-m/overflow-1", ErrorClass.CONTEXT_LENGTH, 400)],
)  # fmt: skip
def test_an_in_stream_error_event_is_classed_by_its_type(
    sim: Simulator, tmp_path: Path, model: str, expected: ErrorClass, code: int
) -> None:
    with proxy(sim, tmp_path / "g.jsonl") as p:
        raw = post(p.base_url, model).text
        body = post(p.base_url, model, stream=False, messages=[{"role": "user", "content": "b"}])
    state = p.state
    events = sse_payloads(raw)
    assert [e["type"] for e in events] == ["message_start", "ping", "error"]
    assert body.status_code == 200 and body.json()["type"] == "error"  # a failure after routing
    for record in read_exchanges(tmp_path / "g.jsonl"):
        assert (record.status, record.error_class) == (200, expected)
        assert record.error_message is not None and f"(code {code})" in record.error_message
        assert record.cost_usd == 0.0 and not record.delivered
    assert state.upstream_errors == 2


def test_a_stream_cut_before_its_stop_reason_is_a_truncated_stream(
    sim: Simulator, tmp_path: Path
) -> None:
    with proxy(sim, tmp_path / "g.jsonl") as p:
        raw = post(p.base_url, "lab-m/cut-1").text
        state = p.state
    types = [e["type"] for e in sse_payloads(raw)]
    assert "I will now write" in raw and "message_delta" not in types
    assert types[-1] == "content_block_delta"
    (record,) = read_exchanges(tmp_path / "g.jsonl")
    assert (record.status, record.error_class) == (200, ErrorClass.TRUNCATED_STREAM)
    assert "without message_stop" in (record.error_message or "") and record.finish_reason is None
    assert state.truncated == 1 and summarize(tmp_path / "g.jsonl").truncated == 1


def test_keepalives_then_an_answer_or_a_stall(sim: Simulator, tmp_path: Path) -> None:
    with proxy(sim, tmp_path / "slow.jsonl", stall_seconds=5) as p:
        raw = post(p.base_url, "lab-m/slow-1").text
    assert raw.startswith(": OPENROUTER PROCESSING") and "late but whole" in raw
    (slow,) = read_exchanges(tmp_path / "slow.jsonl")
    assert slow.error_class is None and slow.keepalives >= 5  # comments and the `ping`
    assert slow.keepalive_wait_ms is not None and slow.keepalive_wait_ms >= 500
    started = time.monotonic()
    with proxy(sim, tmp_path / "stall.jsonl", stall_seconds=1.0) as p:
        with pytest.raises(httpx.HTTPError):  # the proxy drops the stream it ended
            post(p.base_url, "lab-m/stall-1").raise_for_status().read()
        state = p.state
    assert time.monotonic() - started < 10
    (stall,) = read_exchanges(tmp_path / "stall.jsonl")
    assert (stall.status, stall.error_class, stall.protocol) == (
        200, ErrorClass.PROVIDER_STALL, "messages")  # fmt: skip
    assert state.stalls == 1 and summarize(tmp_path / "stall.jsonl").stalls == 1


def test_http_errors_are_classed_from_anthropics_shape(sim: Simulator, tmp_path: Path) -> None:
    with proxy(sim, tmp_path / "g.jsonl", policy=GatewayPolicy(only=["elsewhere"])) as p:
        pinned = post(p.base_url, "lab-m/tools-1")
        unknown = post(p.base_url, "lab-m/none")
        bad = httpx.post(f"{p.base_url}/messages", json={"model": "lab-m/tools-1"})
    assert pinned.json()["error"]["type"] == "not_found_error"
    assert unknown.json()["error"]["type"] == "invalid_request_error"
    assert pinned.json()["metadata"]["requested_providers"] == ["elsewhere"]
    assert bad.status_code == 400 and "messages: expected a list" in bad.json()["error"]["message"]
    records = read_exchanges(tmp_path / "g.jsonl")
    assert [(r.status, r.error_class) for r in records] == [
        (404, ErrorClass.NO_ENDPOINT), (400, ErrorClass.BAD_REQUEST),
        (400, ErrorClass.BAD_REQUEST)]  # fmt: skip
    assert "is not a valid model ID" in (records[1].error_message or "")


@pytest.mark.parametrize(
    ("tail", "expected"),
    [
        (b"", ErrorClass.TRUNCATED_STREAM),  # no stop_reason
        (b'event: message_stop\ndata: {"type": "message_stop"}\n\n', ErrorClass.TRUNCATED_STREAM),
        (b'data: {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}\n\n',
         ErrorClass.MALFORMED_RESPONSE),  # a stop_reason but no message_stop
        (b'data: {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}\n\n'
         b'data: {"type": "message_stop"}\n\n', None),  # whole
    ],
)  # fmt: skip
def test_how_a_messages_stream_ends_decides_its_class(
    tail: bytes, expected: ErrorClass | None
) -> None:
    head = (b'event: message_start\ndata: {"type": "message_start", "message": {"id": "m1", '
            b'"model": "lab/x", "usage": {"input_tokens": 5, "output_tokens": 0}}}\n\n'
            b'event: ping\ndata: {"type": "ping"}\n\n'
            b'data: {"type": "content_block_start", "index": 0, "content_block": '
            b'{"type": "text", "text": ""}}\n\n'
            b'data: {"type": "content_block_delta", "index": 0, "delta": '
            b'{"type": "text_delta", "text": "half"}}\n\n')  # fmt: skip
    reader = AnthropicMessages().stream_reader()
    for byte in range(len(head + tail)):  # any fragmentation
        reader.feed((head + tail)[byte : byte + 1])
    obs = reader.close()
    assert (obs.generation_id, obs.model, obs.content, obs.comments) == ("m1", "lab/x", "half", 1)
    record = ExchangeRecord(time="t", index=1, kind="chat", method="POST", path="/x", status=200,
                            latency_ms=1.0, streamed=True)  # fmt: skip
    _Handler._observe(record, obs, b"")
    assert record.error_class == expected


def test_usage_counts_cache_reads_and_writes_as_prompt() -> None:
    body = (b'{"type": "message", "id": "m", "model": "x", "content": [{"type": "thinking", '
            b'"thinking": "hm", "signature": "s"}, {"type": "tool_use", "id": "t", "name": '
            b'"bash", "input": {"command": "ls"}}], "stop_reason": "tool_use", "usage": '
            b'{"input_tokens": 10, "cache_read_input_tokens": 70, "cache_creation_input_tokens":'
            b' 20, "output_tokens": 30, "output_tokens_details": {"thinking_tokens": 12}, '
            b'"cost": 0.5}}')  # fmt: skip
    obs = AnthropicMessages().observe_body(body)
    assert obs.usage is not None and obs.finish_reason == "tool_calls" and obs.done
    record = ExchangeRecord(time="t", index=1, kind="chat", method="POST", path="/x", status=200,
                            latency_ms=1.0)  # fmt: skip
    _Handler._observe(record, obs, body)
    assert record.usage is not None and record.error_class is None
    assert (record.usage.prompt, record.usage.cached, record.usage.completion) == (100, 70, 30)
    assert (record.usage.reasoning, record.usage.cost_usd) == (12, 0.5)
    assert obs.tool_calls == [{"id": "t", "name": "bash", "arguments": '{"command": "ls"}'}]
