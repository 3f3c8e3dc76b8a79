"""OpenAI Responses (`/responses`, Codex CLI's API on OpenRouter) through the real simulator, the
real recording proxy and the `openai` SDK: metered exactly like chat/completions (steps, the
step ceiling, the hard budget, stalls, cut streams, error classes, records)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from gateway_support import (
    drive_responses,
    front_end_scripts,
    loopback_only,
    resend,
    sse_payloads,
    system_prompt,
)

from gateway.budget import Prices
from gateway.errors import ErrorClass
from gateway.protocols import OpenAIResponses
from gateway.proxy import RecordingProxy, _Handler
from gateway.simulator import Simulator
from records.evidence.gateway import ExchangeRecord, GatewayPolicy, read_exchanges, summarize

KEY = "sk-or-v1-responses-test-key"


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    scripts = front_end_scripts("lab-r")
    with loopback_only(), Simulator(scripts, api_key=KEY, generation_lag_seconds=0.0) as s:
        yield s


def proxy(sim: Simulator, log: Path, **kwargs: Any) -> RecordingProxy:
    return RecordingProxy(upstream=sim.base_url, api_key=KEY, log_path=log, **kwargs)


def post(base_url: str, model: str, stream: bool = True, **extra: Any) -> httpx.Response:
    body = {"model": model, "max_output_tokens": 1000, "stream": stream, "input": "go",
            "instructions": system_prompt("/w"), **extra}  # fmt: skip
    return httpx.post(f"{base_url}/responses", json=body, timeout=20)


def test_a_session_through_the_sdk_is_metered_step_by_step(sim: Simulator, tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    with proxy(sim, log, fetch_generation=True) as p:
        streamed, error = drive_responses(p.base_url, "lab-r/tools-1", "go", workdir="/w")
        assert error is None
        plain, error = drive_responses(p.base_url, "lab-r/tools-1", "again", stream=False)
        assert error is None
    state = p.state  # once stopped: the last handler may still be closing its books
    for items in (streamed, plain):
        calls = [i for i in items if i["type"] == "function_call"]
        assert [c["name"] for c in calls] == ["write", "bash"]
        assert items[-1]["content"][0]["text"] == "All done."
    first_call = next(i for i in streamed if i["type"] == "function_call")
    assert '"/w/a.txt"' in first_call["arguments"]  # the workdir from the instructions
    records = read_exchanges(log)
    assert [(r.protocol, r.step, r.streamed, r.finish_reason) for r in records] == [
        ("responses", 1, True, "tool_calls"), ("responses", 2, True, "stop"),
        ("responses", 3, False, "tool_calls"), ("responses", 4, False, "stop")]  # fmt: skip
    generations = {gid: rec for gid, (_, rec) in sim.generations.items()}
    for record in records:
        assert record.error_class is None and record.usage is not None
        truth = generations[record.generation_id or ""]
        assert record.usage.cost_usd == truth["total_cost"] == record.cost_usd > 0
        counts = (truth["tokens_prompt"], truth["tokens_completion"], truth["native_tokens_cached"])
        assert (record.usage.prompt, record.usage.completion, record.usage.cached) == counts
        assert (record.model, record.provider) == ("lab-r/tools-1-20260101", "Demo Cloud")
    summary = summarize(log)
    assert summary.cost_usd == pytest.approx(sum(g["total_cost"] for g in generations.values()))
    assert (summary.steps, summary.retries, summary.missing_usage) == (4, 0, 0)
    assert state.steps == 4 and state.cost_usd == pytest.approx(summary.cost_usd)


def test_the_step_ceiling_refuses_in_openrouters_error_shape(
    sim: Simulator, tmp_path: Path
) -> None:
    log = tmp_path / "g.jsonl"
    before = len(sim.requests)
    with proxy(sim, log, step_ceiling=3) as p:
        items, error = drive_responses(p.base_url, "lab-r/burner-1", "burn")
    state = p.state
    assert isinstance(error, openai.BadRequestError)
    assert error.body == {
        "code": 400,
        "message": "step ceiling of 3 reached: request refused by the benchmark harness",
        "metadata": {"source": "harness-proxy", "reason": "step_ceiling"},
    }
    assert len(sim.requests) - before == 3 and len(items) == 1 + 3 * 2
    assert state.step_ceiling_hit and state.steps == 3
    last = read_exchanges(log)[-1]
    assert (last.step, last.refused, last.status, last.protocol) == (
        4, "step_ceiling", 400, "responses")  # fmt: skip


def test_a_transient_503_is_a_transport_retry(sim: Simulator, tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    with proxy(sim, log) as p:
        _, error = drive_responses(p.base_url, "lab-r/flaky-1", "go", workdir="/flaky")
        assert isinstance(error, openai.InternalServerError)
        p.drain()
        again = resend(p.base_url, read_exchanges(log)[-1])  # the agent's retry, as it was
    assert again.status_code == 200
    assert sse_payloads(again.text)[-1]["type"] == "response.completed"
    records = read_exchanges(log)
    assert [(r.step, r.status, r.retry, r.transport_retry) for r in records] == [
        (1, 200, False, False), (2, 503, False, False), (2, 200, False, True)]  # fmt: skip
    assert records[1].error_class is ErrorClass.UPSTREAM_5XX
    assert summarize(log).transport_retry_classes == {"upstream_5xx": 1}


def test_the_hard_budget_lowers_max_output_tokens_then_refuses(
    sim: Simulator, tmp_path: Path
) -> None:
    log = tmp_path / "g.jsonl"
    before = len(sim.requests)
    prices = Prices(prompt=0.00001, completion=0.0001)  # each step: 3000 completion tokens = $0.30
    with proxy(sim, log, budget_usd=1.0, prices=prices) as p:
        client = openai.OpenAI(base_url=p.base_url, api_key="x", max_retries=0)
        statuses = []
        with pytest.raises(openai.BadRequestError) as refused:
            for n in range(8):
                result = client.responses.create(model="lab-r/burn-1", input="x" * (400 + n),
                                                 max_output_tokens=32000)  # fmt: skip
                statuses.append(result.status)
    assert "budget ceiling of $1 reached" in str(refused.value)
    assert statuses == ["completed"] * 3 + ["incomplete"]  # the last one cut at its max tokens
    limits = [body["max_output_tokens"] for body in sim.requests[before:]]
    assert limits == sorted(limits, reverse=True) and len(limits) == 4 and limits[-1] < 3000
    records = read_exchanges(log)
    cut = records[3]
    assert cut.finish_reason == "length" and cut.usage is not None
    assert cut.usage.completion == limits[-1] == cut.request["max_output_tokens"]
    assert records[-1].refused == "budget_ceiling" and len(records) == 5
    summary = summarize(log)
    assert summary.cost_usd is not None and summary.cost_usd <= 1.0
    assert summary.budget_ceiling_hit and summary.ended_on_budget_cut
    assert [c.requested for c in summary.max_tokens_changes] == [32000] * 5


def test_the_policy_routes_and_raises_the_effort_keeping_the_rest(
    sim: Simulator, tmp_path: Path
) -> None:
    log = tmp_path / "g.jsonl"
    with proxy(sim, log, policy=GatewayPolicy(reasoning="high")) as p:
        response = post(p.base_url, "lab-r/tools-1", reasoning={"effort": "low", "summary": "auto"})
    assert response.status_code == 200
    sent = sim.requests[-1]
    assert sent["reasoning"] == {"effort": "high", "summary": "auto"}
    assert sent["provider"] == {"allow_fallbacks": False, "require_parameters": True}
    assert "usage" not in sent
    (record,) = read_exchanges(log)
    assert record.policy_changes == [
        "provider.allow_fallbacks=false", "provider.require_parameters=true",
        'reasoning.effort="high"']  # fmt: skip


def test_a_failed_response_in_the_stream_is_classed_by_its_error(
    sim: Simulator, tmp_path: Path
) -> None:
    with proxy(sim, tmp_path / "g.jsonl") as p:
        raw = post(p.base_url, "lab-r/r429-1").text
        body = post(p.base_url, "lab-r/r429-1", stream=False, input="other")
    state = p.state
    events = sse_payloads(raw)
    assert events[-1]["type"] == "response.failed" and "Wri" in raw
    assert events[-1]["response"]["error"] == {"code": "rate_limit_exceeded",
                                               "message": "Rate limit exceeded"}  # fmt: skip
    assert body.status_code == 200 and body.json()["status"] == "failed"
    streamed, plain = read_exchanges(tmp_path / "g.jsonl")
    for record in (streamed, plain):
        assert (record.status, record.error_class, record.finish_reason) == (
            200, ErrorClass.RATE_LIMIT, "error")  # fmt: skip
        assert record.cost_usd == 0.0 and not record.delivered
    assert "(code 429): Rate limit exceeded" in (streamed.error_message or "")
    assert state.upstream_errors == 2 and state.provider_errors == 2


def test_a_stream_without_its_terminal_event_is_truncated(sim: Simulator, tmp_path: Path) -> None:
    with proxy(sim, tmp_path / "g.jsonl") as p:
        raw = post(p.base_url, "lab-r/cut-1").text
    state = p.state
    assert "I will now write" in raw and sse_payloads(raw)[-1]["type"].endswith(".delta")
    (record,) = read_exchanges(tmp_path / "g.jsonl")
    assert (record.status, record.error_class) == (200, ErrorClass.TRUNCATED_STREAM)
    assert "without response.completed" in (record.error_message or "")
    assert state.truncated == 1 and not record.delivered


def test_a_stall_after_the_last_byte_is_a_provider_stall(sim: Simulator, tmp_path: Path) -> None:
    started = time.monotonic()
    # the proxy drops the stream it ended
    with proxy(sim, tmp_path / "g.jsonl", stall_seconds=1.0) as p, pytest.raises(httpx.HTTPError):
        post(p.base_url, "lab-r/stall-1").raise_for_status().read()
    state = p.state
    assert time.monotonic() - started < 10
    (record,) = read_exchanges(tmp_path / "g.jsonl")
    assert (record.status, record.error_class) == (200, ErrorClass.PROVIDER_STALL)
    assert "Writing the page" in (record.response or "") and record.keepalives >= 3
    assert "after chunk" in (record.error_message or "") and state.stalls == 1


def test_bad_input_is_answered_clearly(sim: Simulator, tmp_path: Path) -> None:
    with proxy(sim, tmp_path / "g.jsonl") as p:
        response = httpx.post(f"{p.base_url}/responses", json={"model": "lab-r/tools-1"})
        broken = httpx.post(f"{p.base_url}/responses", content=b"{not json")
    assert response.status_code == 400
    assert response.json()["error"]["message"] == (
        "Invalid request: input: expected a string or a list of items"
    )
    assert broken.status_code == 400 and broken.json()["error"]["metadata"]["source"] == (
        "harness-proxy")  # fmt: skip
    records = read_exchanges(tmp_path / "g.jsonl")
    assert [(r.protocol, r.error_class) for r in records] == [
        ("responses", ErrorClass.BAD_REQUEST), ("responses", ErrorClass.BAD_REQUEST)]  # fmt: skip


@pytest.mark.parametrize(
    ("tail", "expected"),
    [
        (b"", ErrorClass.TRUNCATED_STREAM),  # no terminal event
        (b"data: [DONE]\n\n", ErrorClass.TRUNCATED_STREAM),
        (b'data: {"type": "error", "code": "rate_limit_exceeded", "message": "slow down", '
         b'"param": null, "sequence_number": 3}\n\n', ErrorClass.RATE_LIMIT),
        (b'data: {"type": "response.incomplete", "response": {"id": "r1", "status": '
         b'"incomplete", "incomplete_details": {"reason": "max_output_tokens"}, "output": []}}'
         b"\n\n", None),
        (b'data: {"type": "response.completed", "response": {"id": "r1", "status": '
         b'"completed", "output": [], "usage": {"input_tokens": 9, "output_tokens": 2}}}\n\n',
         None),
    ],
)  # fmt: skip
def test_how_a_responses_stream_ends_decides_its_class(
    tail: bytes, expected: ErrorClass | None
) -> None:
    head = (
        b'event: response.created\ndata: {"type": "response.created", "response": '
        b'{"id": "r1", "model": "lab/x", "status": "in_progress", "output": []}}\n\n'
        b": OPENROUTER PROCESSING\n\n"
        b'data: {"type": "response.output_text.delta", "item_id": "m", "delta": "half"}\n\n'
    )
    reader = OpenAIResponses().stream_reader()
    for byte in range(len(head + tail)):  # any fragmentation
        reader.feed((head + tail)[byte : byte + 1])
    obs = reader.close()
    assert (obs.generation_id, obs.model, obs.content, obs.comments) == ("r1", "lab/x", "half", 1)
    record = ExchangeRecord(time="t", index=1, kind="chat", method="POST", path="/x", status=200,
                            latency_ms=1.0, streamed=True)  # fmt: skip
    _Handler._observe(record, obs, b"")
    assert record.error_class == expected
    if b"incomplete" in tail:
        assert record.finish_reason == "length"
