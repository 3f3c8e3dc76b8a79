"""Live gateway behaviours (../shared/reference/openrouter/live-behaviour.md §2–5) through the
simulator and the recording proxy: keep-alive stalls, in-stream and body errors, the 402
reservation, transport vs harness retries, the hard budget and unknown cost."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from gateway_support import drive, loopback_only, resend, script

from gateway.budget import Prices
from gateway.client import OpenRouterClient
from gateway.errors import (
    ErrorClass,
    GatewayError,
    RateLimitError,
    UpstreamError,
    classify_stream_error,
)
from gateway.protocols import ChatCompletions
from gateway.proxy import RecordingProxy, _Handler
from gateway.simulator import Simulator
from harness.session.upstream import Upstream
from harness.spend import key_check, max_spend
from records.evidence.gateway import ExchangeRecord, MaxSpend, read_exchanges, summarize
from records.inputs import load_cohort, load_round

KEY = "sk-or-v1-live-behaviour-test"
BASH = {"name": "bash", "arguments": {"command": "echo {turn}", "description": "x"}}
PRICES = {"prompt": "0.00001", "completion": "0.0001"}
FINISH = b'data: {"id": "g", "choices": [{"delta": {}, "finish_reason": "stop"}]}\n\n'


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    scripts = [
        script("lab/stall-1", [{"error": {"kind": "stall", "hang_seconds": 30,
                                          "keepalive_seconds": 0.2}}]),
        script("lab/slow-1", [{"error": {"kind": "stall", "hang_seconds": 0.5,
                                         "keepalive_seconds": 0.1}, "text": "late but fine"}]),
        script("lab/r429-1", [{"error": {"kind": "midstream", "code": 429,
                                         "message": "Rate limit exceeded"}}]),
        script("lab/str-1", [{"error": {"kind": "midstream", "code": "server_error",
                                        "message": "Internal Server Error"}}]),
        script("lab/cut-1", [{"text": "I will now write the page and", "error": {
            "kind": "truncate"}}]),
        script("lab/stall-after-1", [{"error": {"kind": "stall", "hang_seconds": 30,
                                                "keepalive_seconds": 0.2,
                                                "partial_text": "Writing the page"}}]),
        script("lab/silent-after-1", [{"error": {"kind": "stall", "hang_seconds": 30,
                                                 "keepalive_seconds": 30,
                                                 "partial_text": "Writing the page"}}]),
        script("lab/flaky-1", [{"tool_calls": [BASH]},
                               {"error": {"kind": "http", "status": 503, "times": 1}},
                               {"text": "recovered"}]),
        script("lab/burn-1", [{"tool_calls": [BASH]}], session={"after_last": "repeat_last"},
               usage={"completion_tokens": 3000}, catalogue={"pricing": PRICES}),
    ]  # fmt: skip
    with loopback_only(), Simulator(scripts, api_key=KEY, generation_lag_seconds=0.0) as s:
        yield s


def proxy(sim: Simulator, log: Path, **kwargs: Any) -> RecordingProxy:
    return RecordingProxy(upstream=sim.base_url, api_key=KEY, log_path=log, **kwargs)


def chat(base_url: str, model: str, stream: bool = True, **extra: Any) -> httpx.Response:
    body = {"model": model, "stream": stream, "messages": [{"role": "user", "content": "go"}],
            **extra}  # fmt: skip
    return httpx.post(f"{base_url}/chat/completions", json=body, timeout=20)


def test_a_short_stall_sends_keepalives_then_answers(sim: Simulator, tmp_path: Path) -> None:
    with proxy(sim, tmp_path / "g.jsonl", stall_seconds=5) as p:
        response = chat(p.base_url, "lab/slow-1")
    assert response.text.count(": OPENROUTER PROCESSING") >= 4 and "late but fine" in response.text
    (record,) = read_exchanges(tmp_path / "g.jsonl")
    assert record.error_class is None and record.keepalives >= 4
    assert record.keepalive_wait_ms is not None and record.keepalive_wait_ms >= 400
    assert response.headers["X-Generation-Id"] == record.generation_id


def test_a_stall_past_the_outage_window_is_ended_as_a_provider_stall(
    sim: Simulator, tmp_path: Path
) -> None:
    started = time.monotonic()
    with proxy(sim, tmp_path / "g.jsonl", stall_seconds=1.0) as p:
        with pytest.raises(httpx.HTTPError):  # the proxy drops the stream it ended
            chat(p.base_url, "lab/stall-1").raise_for_status().read()
        state = p.state
    assert time.monotonic() - started < 10
    (record,) = read_exchanges(tmp_path / "g.jsonl")
    assert (record.status, record.error_class) == (200, ErrorClass.PROVIDER_STALL)
    assert record.keepalive_wait_ms is not None and record.keepalive_wait_ms >= 1000
    assert state.stalls == 1 and summarize(tmp_path / "g.jsonl").stalls == 1


def test_a_stall_after_the_last_byte_is_a_provider_stall_too(
    sim: Simulator, tmp_path: Path
) -> None:
    """Keep-alives after some text, or silence after it: no data for the window either way."""
    for model in ("lab/stall-after-1", "lab/silent-after-1"):
        log = tmp_path / f"{model.split('/')[1]}.jsonl"
        with proxy(sim, log, stall_seconds=1.0, upstream_read_timeout=1.5) as p:
            with pytest.raises(httpx.HTTPError):
                chat(p.base_url, model).raise_for_status().read()
            state = p.state
        (record,) = read_exchanges(log)
        assert (record.status, record.error_class) == (200, ErrorClass.PROVIDER_STALL), model
        assert "Writing the page" in (record.response or "") and state.stalls == 1
        assert summarize(log).stalls == 1 and not record.delivered


def test_a_stream_cut_before_its_finish_reason_is_a_truncated_stream(
    sim: Simulator, tmp_path: Path
) -> None:
    """Live: a provider's stream can end with `[DONE]` but no finish_reason and no usage chunk;
    OpenCode takes it as a finished turn, so the proxy must not."""
    log = tmp_path / "g.jsonl"
    with proxy(sim, log) as p:
        raw = chat(p.base_url, "lab/cut-1").text
        state = p.state
    assert raw.rstrip().endswith("data: [DONE]") and '"finish_reason": null' in raw
    (record,) = read_exchanges(log)
    assert (record.status, record.error_class) == (200, ErrorClass.TRUNCATED_STREAM)
    assert record.finish_reason is None and record.usage is None and not record.delivered
    assert "with [DONE], without usage" in (record.error_message or "")
    assert state.truncated == 1 and summarize(log).truncated == 1


@pytest.mark.parametrize(
    ("tail", "expected"),
    [
        (b"data: [DONE]\n\n", ErrorClass.TRUNCATED_STREAM),  # no finish_reason
        (b"", ErrorClass.TRUNCATED_STREAM),  # no finish_reason, no [DONE]
        (FINISH, ErrorClass.MALFORMED_RESPONSE),  # a finish_reason but no [DONE]
        (FINISH + b"data: [DONE]\n\n", None),  # whole
    ],
)
def test_how_a_stream_ends_decides_its_class(tail: bytes, expected: ErrorClass | None) -> None:
    reader = ChatCompletions().stream_reader()
    reader.feed(b'data: {"id": "g", "choices": [{"delta": {"content": "half"}}]}\n\n' + tail)
    record = ExchangeRecord(time="t", index=1, kind="chat", method="POST", path="/x", status=200,
                            latency_ms=1.0, streamed=True)  # fmt: skip
    _Handler._observe(record, reader.close(), b"")
    assert record.error_class == expected


@pytest.mark.parametrize(
    ("model", "expected", "done"),
    [("lab/r429-1", ErrorClass.RATE_LIMIT, True), ("lab/str-1", ErrorClass.UPSTREAM_5XX, False)],
)
def test_in_stream_errors_are_classed_by_code(
    sim: Simulator, tmp_path: Path, model: str, expected: ErrorClass, done: bool
) -> None:
    with proxy(sim, tmp_path / "g.jsonl") as p:
        raw = chat(p.base_url, model).text
    assert raw.rstrip().endswith("data: [DONE]") is done  # the docs' string-code shape has none
    (record,) = read_exchanges(tmp_path / "g.jsonl")
    assert (record.status, record.error_class, record.finish_reason) == (200, expected, "error")
    assert record.cost_usd == 0.0 and not record.delivered


def test_errors_in_a_non_streaming_body_are_not_billed_successes(
    sim: Simulator, tmp_path: Path
) -> None:
    with proxy(sim, tmp_path / "g.jsonl") as p:
        response = chat(p.base_url, "lab/r429-1", stream=False)
        with OpenRouterClient(p.base_url, "x") as client, pytest.raises(RateLimitError):
            client.chat({"model": "lab/r429-1", "messages": [{"role": "user", "content": "a"}]})
        with OpenRouterClient(p.base_url, "x") as client, pytest.raises(UpstreamError):
            client.chat_stream({"model": "lab/str-1", "messages": []})
    assert response.status_code == 200 and response.json()["error"]["code"] == 429
    first = read_exchanges(tmp_path / "g.jsonl")[0]
    assert first.error_class is ErrorClass.RATE_LIMIT and first.usage is None


def test_unknown_codes_stay_midstream() -> None:
    assert classify_stream_error({"message": "?"}) is ErrorClass.MIDSTREAM_ERROR
    assert classify_stream_error({"code": "weird"}) is ErrorClass.MIDSTREAM_ERROR
    metadata = {"error_type": "payment_required"}
    assert classify_stream_error({"code": "x", "metadata": metadata}) is ErrorClass.CREDITS


def test_a_transient_503_is_a_transport_retry_not_a_harness_retry(
    sim: Simulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "g.jsonl"
    learn = RecordingProxy.learn_tokens

    def slow_bookkeeping(self: RecordingProxy, *args: Any) -> None:
        time.sleep(0.5)  # as on a loaded machine: the client retries before the proxy's books close
        learn(self, *args)

    monkeypatch.setattr(RecordingProxy, "learn_tokens", slow_bookkeeping)
    with proxy(sim, log) as p:
        _, error = drive(p.base_url, "lab/flaky-1", "go", workdir="/flaky")
        assert isinstance(error, openai.InternalServerError)
        p.drain()
        failed = read_exchanges(log)[-1]
        # the agent sends the failed request again (as OpenCode does), then once more after the
        # answer was delivered: only that second repeat is a harness retry
        assert resend(p.base_url, failed).status_code == 200
        assert resend(p.base_url, failed).status_code == 200
    records = read_exchanges(log)
    assert [(r.step, r.status, r.retry, r.transport_retry) for r in records] == [
        (1, 200, False, False), (2, 503, False, False), (2, 200, False, True),
        (2, 200, True, False)]  # fmt: skip
    summary = summarize(log)
    assert (summary.steps, summary.retries, summary.transport_retries) == (2, 1, 1)
    assert summary.transport_retry_classes == {"upstream_5xx": 1}


def test_the_hard_budget_lowers_max_tokens_then_refuses(sim: Simulator, tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    prices = Prices(prompt=0.00001, completion=0.0001)  # each step: 3000 completion tokens = $0.30
    with proxy(sim, log, budget_usd=1.0, prices=prices) as p:
        client = openai.OpenAI(base_url=p.base_url, api_key="x", max_retries=0)
        with pytest.raises(openai.BadRequestError) as refused:
            for _ in range(8):
                client.chat.completions.create(
                    model="lab/burn-1",
                    max_tokens=32000,
                    messages=[{"role": "user", "content": "x" * 400}],
                )
        state = p.state
    assert "budget ceiling of $1 reached" in str(refused.value)
    records = read_exchanges(log)
    changes = [r.max_tokens_change for r in records if r.max_tokens_change is not None]
    assert all(c.requested == 32000 for c in changes)
    forwarded = [c.forwarded or 0 for c in changes]
    prompt = changes[0].prompt_tokens_estimate * prices.prompt
    assert forwarded[0] == int((1.0 - prompt) / prices.completion)  # the whole budget's worth
    assert forwarded[:-1] == sorted(forwarded[:-1], reverse=True) and len(forwarded) == 5
    assert forwarded[-1] == 0  # None: refused
    assert changes[-1].forwarded is None and records[-1].refused == "budget_ceiling"
    cut = [r for r in records if r.finish_reason == "length"]
    assert cut and cut[0].usage is not None
    assert cut[0].usage.completion == cut[0].request["max_tokens"] < 3000
    summary = summarize(log)
    assert summary.cost_usd is not None and summary.cost_usd <= 1.0
    assert state.cost_usd <= 1.0 and summary.budget_ceiling_hit
    assert len(summary.max_tokens_changes) == len(changes)


def test_unknown_cost_is_none_and_budgeted_by_estimate(tmp_path: Path) -> None:
    record = ExchangeRecord(time="t", index=1, kind="chat", method="POST", path="/x", status=200,
                            latency_ms=1.0, budget_cost_usd=0.25)  # fmt: skip
    assert record.cost_usd is None
    refused = record.model_copy(update={"status": 400, "refused": "budget_ceiling"})
    assert refused.cost_usd == 0.0
    log = tmp_path / "g.jsonl"
    log.write_text(record.model_dump_json() + "\n" + refused.model_dump_json() + "\n")
    summary = summarize(log)
    assert summary.cost_usd is None and summary.unknown_cost_responses == 1
    assert summary.cost_estimate_usd == 0.25 and summary.tokens.cost_usd is None
    old = json.loads(record.model_dump_json())
    for field in ("transport_retry", "protocol", "max_tokens_change", "keepalives",
                  "keepalive_wait_ms", "budget_cost_usd"):  # fmt: skip
        old.pop(field)
    old["schema_version"] = 1
    assert ExchangeRecord.model_validate(old).cost_usd is None  # schema-1 lines still load


def test_a_schema_2_line_keeps_the_cap_it_forwarded(tmp_path: Path) -> None:
    """Schema 2 recorded every output limit the proxy forwarded in place of the agent's, the
    32,000 it wrote into requests that named none included, only as `max_tokens_change`: loaded
    now, that limit is the line's `budget_capped`, so an answer cut there stays a budget cut."""
    change = {"requested": None, "forwarded": 32000, "remaining_usd": 5.0,
              "prompt_tokens_estimate": 10, "worst_case_usd": 0.48}  # fmt: skip
    line = {"schema_version": 2, "time": "t", "index": 1, "kind": "chat", "method": "POST",
            "path": "/api/v1/responses", "status": 200, "latency_ms": 1.0, "step": 1,
            "max_tokens_change": change, "finish_reason": "length"}  # fmt: skip
    untouched = {**line, "index": 2, "step": 2, "max_tokens_change": None}
    log = tmp_path / "g.jsonl"
    log.write_text(json.dumps(line) + "\n")
    (old,) = read_exchanges(log)
    assert (old.schema_version, old.budget_capped) == (2, 32000)
    assert summarize(log).ended_on_budget_cut
    log.write_text(json.dumps(line) + "\n" + json.dumps(untouched) + "\n")
    assert read_exchanges(log)[1].budget_capped is None and not summarize(log).ended_on_budget_cut
    new = ExchangeRecord.model_validate({**line, "schema_version": 3})  # a cap is never inferred
    assert new.budget_capped is None


def test_the_402_reservation_and_the_key(tmp_path: Path) -> None:
    pricey = script("lab/pricey-1", [{"text": "hi"}], catalogue={"pricing": PRICES})
    with loopback_only(), Simulator([pricey], key_limit_usd=1.0) as low:
        with OpenRouterClient(low.base_url, "k") as client:
            key = client.key_info()
            assert (key.limit, key.limit_remaining, key.usage) == (1.0, 1.0, 0.0)
            body = {"model": "lab/pricey-1", "messages": [{"role": "user", "content": "x"}]}
            with pytest.raises(GatewayError) as caught:
                client.chat_stream({**body, "max_tokens": 32000})  # $3.20 reserved > $1
            assert caught.value.error_class is ErrorClass.CREDITS
            assert "can only afford 10000" in caught.value.message
            client.chat_stream({**body, "max_tokens": 5000})
            after = client.key_info()
        assert after.usage is not None and after.usage > 0
        assert after.limit_remaining == pytest.approx(1.0 - after.usage)


@pytest.mark.parametrize(("limit", "verdict"), [(None, "ok"), (10_000.0, "ok"), (20.0, "refused")])
def test_the_key_check_against_the_rounds_maximum_spend(limit: float | None, verdict: str) -> None:
    settings = load_round("showcase")
    cohort = load_cohort(settings.cohort_path)
    with loopback_only(), Simulator.from_cohort(settings.cohort_path, key_limit_usd=limit) as s:
        check = key_check(settings, cohort, Upstream("simulator", s.base_url, "sk-x"))
        assert s.requests == []
    plan = check.max_spend
    routes, budget = len(cohort.candidates), settings.ceilings.budget_usd
    assert plan.probes_usd == routes * settings.probes * budget
    assert plan.units_usd == routes * settings.repetitions * budget
    assert plan.reservation_usd > 0 and plan.total_usd == pytest.approx(
        plan.probes_usd + plan.units_usd + plan.reservation_usd
    )
    assert (check.verdict, check.limit_usd) == (verdict, limit)
    # the sessions at once, derived from /key's rate limit: the simulator answers as the recorded
    # live key does (1000 per 1h, noted as deprecated), which is recorded and not applied
    assert check.parallel is not None and check.parallel.rate_limit_requests == 1000
    assert check.parallel.rate_limit_sessions is None and "deprecated" in check.parallel.basis
    assert check.parallel.sessions == settings.max_parallel_sessions == check.parallel.round_bound


def test_each_session_at_once_holds_its_own_reservation() -> None:
    settings = load_round("showcase")
    cohort = load_cohort(settings.cohort_path)
    one, four = (max_spend(settings, cohort, [1e-5], sessions) for sessions in (1, 4))
    assert (one.reservations, four.reservations) == (1, 4)
    assert one.reservation_usd == pytest.approx(32_000 * 1e-5)
    assert four.reservation_usd == pytest.approx(4 * one.reservation_usd)
    assert four.total_usd - one.total_usd == pytest.approx(3 * one.reservation_usd)
    # key-check.json before schema 3 held one reservation and still loads
    old = one.model_dump()
    del old["reservations"]
    assert MaxSpend.model_validate(old).reservations == 1
