"""Wire compatibility: the official `openai` and `anthropic` SDKs (pinned dev dependencies) through
the recording proxy to the simulator on 127.0.0.1, on chat/completions, Responses and Messages,
every body and event the SDK received (the proxy's record of it, byte for byte) checked against
OpenRouter's OpenAPI schemas. The proxy changes nothing it should not: it writes no output limit
the agent did not ask for unless the budget cannot pay for the route's maximum output, it meters
what a cut or abandoned stream was billed, it passes the provider's pacing headers on, and a
harness retry is the same whole request from the same client after a delivered answer.
No browser: part of the default and fast tiers."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest
from gateway_support import loopback_only, script, sse_payloads, system_prompt, validate

from gateway.proxy import RecordingProxy, relayed_headers
from gateway.simulator import Simulator
from harness.reconcile import key_usage, key_usage_after, reconcile
from harness.session.upstream import Upstream, catalogue_prices, list_catalogue
from records.evidence.gateway import ErrorClass, ExchangeRecord, read_exchanges, summarize

KEY = "sk-or-v1-wire-test-key"
CLAUDE = {"provider_name": "Anthropic"}  # /messages reports a provider of the spec's enum
LONG = 32_508  # an answer longer than the 32,000 the proxy used to write into every request
PACED = {"kind": "http", "status": 429, "message": "Rate limit exceeded", "times": 1,
         "retry_after_seconds": 2}  # fmt: skip
WRITE = {"name": "write", "arguments": {"filePath": "{workdir}/a.txt", "content": "a\n"}}
TOOLS = [{"type": "function", "function": {"name": "write", "parameters": {"type": "object"}}}]
OUTPUT_LIMITS = ("max_tokens", "max_completion_tokens", "max_output_tokens")
SCHEMA_KIND = {"chat/completions": "chat", "messages": "messages", "responses": "responses"}
STREAM_KIND = {"messages": "messages_event", "responses": "responses_event"}


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    scripts = [
        script("lab-w/long-1", [{"text": "a long answer", "usage": {"completion_tokens": LONG}}],
               catalogue=CLAUDE),
        script("lab-w/tools-1", [{"text": "writing", "tool_calls": [WRITE]}, {"text": "done"}],
               catalogue=CLAUDE),
        script("lab-w/other-1", [{"text": "another route"}], catalogue=CLAUDE),
        script("lab-w/cut-1", [{"text": "half an answer", "error": {"kind": "truncate"}}],
               catalogue=CLAUDE),
        script("lab-w/slow-1", [{"error": {"kind": "stall", "partial_text": "thinking",
                                           "hang_seconds": 30, "keepalive_seconds": 0.2}}],
               catalogue=CLAUDE),
        script("lab-w/paced-1", [{"text": "paced", "error": PACED}], catalogue=CLAUDE),
    ]  # fmt: skip
    with loopback_only(), Simulator(scripts, api_key=KEY) as simulator:
        yield simulator


def upstream(sim: Simulator) -> Upstream:
    return Upstream("simulator", sim.base_url, KEY)


@contextmanager
def wire_proxy(
    sim: Simulator, log: Path, model: str, budget_usd: float = 5.0
) -> Iterator[RecordingProxy]:
    """The proxy as a paid round's unit runs it: the route's catalogue prices and maximum output
    (`catalogue_prices`), the hard budget, and a generation lookup for every exchange."""
    prices = catalogue_prices(model, list_catalogue(upstream(sim)))
    with RecordingProxy(
        upstream=sim.base_url, api_key=KEY, log_path=log, budget_usd=budget_usd, prices=prices,
        fetch_generation=True, stall_seconds=20,
    ) as proxy:  # fmt: skip
        yield proxy


def validate_exchange(record: ExchangeRecord) -> int:
    """Every body or event the client got in `record` against the spec's schema for its API;
    returns how many were checked."""
    raw, api = record.response or "", str(record.protocol)
    assert not record.response_truncated
    if record.status >= 400:
        kind = "messages_error" if api == "messages" else f"error_{record.status}"
        validate(kind, json.loads(raw))
        return 1
    if not record.streamed:
        validate(SCHEMA_KIND[api], json.loads(raw))
        return 1
    if api == "chat/completions":
        events = [json.loads(b[6:]) for b in raw.split("\n\n") if b.startswith("data: {")]
    else:
        events = sse_payloads(raw)
    for event in events:
        validate(STREAM_KIND.get(api, "chat_chunk"), event)
    return len(events)


def validate_log(log: Path) -> list[ExchangeRecord]:
    records = read_exchanges(log)
    assert records and all(validate_exchange(r) for r in records)
    return records


def openai_client(proxy: RecordingProxy, retries: int = 0) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.base_url, api_key="sk-agent", max_retries=retries)


def anthropic_client(proxy: RecordingProxy, retries: int = 0) -> anthropic.Anthropic:
    base = proxy.base_url.removesuffix("/v1")  # the SDK posts to {base}/v1/messages
    return anthropic.Anthropic(base_url=base, api_key="sk-ant-agent", max_retries=retries)


def chat_call(proxy: RecordingProxy, model: str, workdir: str, retries: int = 0, **kw: Any) -> Any:
    messages = [{"role": "system", "content": system_prompt(workdir)},
                {"role": "user", "content": "go"}]  # fmt: skip
    client = openai_client(proxy, retries).chat.completions
    create = client.with_raw_response.create if kw.pop("raw", False) else client.create
    return create(model=model, messages=messages, **kw)  # type: ignore[call-overload]


def responses_call(
    proxy: RecordingProxy, model: str, workdir: str, retries: int = 0, **kw: Any
) -> Any:
    client = openai_client(proxy, retries).responses
    create = client.with_raw_response.create if kw.pop("raw", False) else client.create
    return create(model=model, instructions=system_prompt(workdir), input="go", **kw)


def messages_call(
    proxy: RecordingProxy, model: str, workdir: str, retries: int = 0, **kw: Any
) -> Any:
    client = anthropic_client(proxy, retries).messages
    create = client.with_raw_response.create if kw.pop("raw", False) else client.create
    messages = [{"role": "user", "content": "go"}]
    kw.setdefault("max_tokens", 1000)  # required by the Messages API
    return create(model=model, system=system_prompt(workdir), messages=messages, **kw)


CALLS: dict[str, Callable[..., Any]] = {
    "chat/completions": chat_call, "responses": responses_call, "messages": messages_call,
}  # fmt: skip
RATE_LIMITED = {
    "chat/completions": openai.RateLimitError, "responses": openai.RateLimitError,
    "messages": anthropic.RateLimitError,
}  # fmt: skip


def received(sim: Simulator, model: str) -> list[dict[str, Any]]:
    """The bodies the simulator received for `model` (what the proxy forwarded)."""
    return [body for body in sim.requests if body.get("model") == model]


# -- no invented output limit ---------------------------------------------------------------------
def test_a_request_without_an_output_limit_goes_upstream_without_one(
    sim: Simulator, tmp_path: Path
) -> None:
    """$5 covers the route's maximum output (64,000 x $0.00001): nothing is written in, and an
    answer longer than 32,000 tokens comes back whole, through both OpenAI APIs."""
    log = tmp_path / "gateway.jsonl"
    with wire_proxy(sim, log, "lab-w/long-1") as proxy:
        result = responses_call(proxy, "lab-w/long-1", "/long")
        chat = chat_call(proxy, "lab-w/long-1", "/long")
        own = responses_call(proxy, "lab-w/long-1", "/long", max_output_tokens=100)
    assert (result.status, result.usage.output_tokens) == ("completed", LONG)
    assert (chat.choices[0].finish_reason, chat.usage.completion_tokens) == ("stop", LONG)
    assert (own.status, own.incomplete_details.reason) == ("incomplete", "max_output_tokens")
    sent = received(sim, "lab-w/long-1")[-3:]
    assert [[k for k in OUTPUT_LIMITS if k in body] for body in sent] == [
        [], [], ["max_output_tokens"]]  # fmt: skip
    assert sent[-1]["max_output_tokens"] == 100  # the agent's own limit, as it sent it
    records = validate_log(log)
    assert [(r.budget_capped, r.max_tokens_change) for r in records] == [(None, None)] * 3
    # cut at the agent's own limit: not a budget cut, so never a budget_ceiling stop
    assert not summarize(log).ended_on_budget_cut


def test_a_budget_short_of_the_route_maximum_sets_a_recorded_cap(
    sim: Simulator, tmp_path: Path
) -> None:
    """$0.30 left cannot pay for 64,000 output tokens at $0.00001: the proxy sets the cap the
    budget allows, records it, and the answer cut there is the unit's budget cut."""
    log = tmp_path / "gateway.jsonl"
    with wire_proxy(sim, log, "lab-w/long-1", budget_usd=0.30) as proxy:
        result = responses_call(proxy, "lab-w/long-1", "/capped")
    (record,) = validate_log(log)
    cap = record.budget_capped
    assert cap is not None and 29_000 < cap < 30_000
    assert received(sim, "lab-w/long-1")[-1]["max_output_tokens"] == cap
    assert record.max_tokens_change is not None and record.max_tokens_change.requested is None
    assert (result.status, result.usage.output_tokens) == ("incomplete", cap)
    summary = summarize(log)
    assert summary.ended_on_budget_cut and summary.max_tokens_changes == [record.max_tokens_change]


# -- every billed token metered -------------------------------------------------------------------
def consume(api: str, proxy: RecordingProxy, model: str, workdir: str) -> None:
    """Read a streamed answer to its end with the API's SDK."""
    if api == "messages":
        with anthropic_client(proxy).messages.stream(
            model=model, max_tokens=1000, system=system_prompt(workdir),
            messages=[{"role": "user", "content": "go"}],
        ) as stream:  # fmt: skip
            list(stream)
        return
    list(CALLS[api](proxy, model, workdir, stream=True))


@pytest.mark.parametrize("api", sorted(CALLS))
def test_a_cut_stream_is_metered_at_its_bill_with_no_reconciliation_gap(
    sim: Simulator, tmp_path: Path, api: str
) -> None:
    """A stream cut before its finish is billed upstream: the proxy looks its generation up, so
    the unit's cost, the hard budget and the key's usage agree to the cent."""
    log = tmp_path / "gateway.jsonl"
    before = key_usage(upstream(sim))
    with wire_proxy(sim, log, "lab-w/cut-1") as proxy:
        consume(api, proxy, "lab-w/cut-1", f"/cut-{api}")
    (record,) = validate_log(log)
    assert record.error_class is ErrorClass.TRUNCATED_STREAM
    assert record.usage is None or record.usage.cost_usd is None  # no final usage: the cut
    assert record.generation is not None and record.generation.total_cost
    billed = record.generation.total_cost
    summary = summarize(log)
    after = key_usage_after(upstream(sim), before, summary.cost_usd)
    assert record.cost_usd == summary.cost_usd == billed == pytest.approx(proxy.state.cost_usd)
    check = reconcile(metered=summary.cost_usd, before=before, after=after, shared=False)
    assert check.billed_usd == pytest.approx(billed) and check.gap_usd == 0 and not check.flagged


def test_a_client_that_hangs_up_stops_the_upstream_read(sim: Simulator, tmp_path: Path) -> None:
    """The SDK closes a stream after its first event while the provider is still working: the
    proxy stops reading (the generation is cancelled, nothing more is billed) and says so,
    instead of reading the 30 s answer to its end and paying for it."""
    log = tmp_path / "gateway.jsonl"
    before = key_usage(upstream(sim))
    with wire_proxy(sim, log, "lab-w/slow-1") as proxy:
        started = time.monotonic()
        stream = chat_call(proxy, "lab-w/slow-1", "/hang-up", stream=True)
        text = next(c.choices[0].delta.content for c in stream if c.choices[0].delta.content)
        stream.close()
        assert proxy.drain(15), "the proxy is still reading the abandoned stream"
        took = time.monotonic() - started
    assert text == "thinking" and took < 15
    (record,) = validate_log(log)
    assert record.client_disconnected and record.upstream_abandoned
    assert "stopped reading the upstream" in str(record.error_message)
    assert record.generation_id in sim.hung_up
    assert record.generation is not None and record.generation.total_cost == 0.0
    assert record.cost_usd == 0.0 and key_usage(upstream(sim)) == before


# -- the provider's headers -----------------------------------------------------------------------
@pytest.mark.parametrize("api", sorted(CALLS))
def test_the_providers_pacing_reaches_the_sdk(sim: Simulator, tmp_path: Path, api: str) -> None:
    """A 429's `Retry-After` and `X-RateLimit-*` come through the proxy: the SDK waits the 2 s
    the gateway asked for (not its own 0.4-0.7 s backoff) and its retry is recorded as the
    agent's own; a served answer's `X-Generation-Id` reaches it too."""
    log = tmp_path / "gateway.jsonl"
    call = CALLS[api]
    with wire_proxy(sim, log, "lab-w/paced-1") as proxy:
        with pytest.raises(RATE_LIMITED[api]) as limited:
            call(proxy, "lab-w/paced-1", f"/paced-a-{api}")
        served = call(proxy, "lab-w/paced-1", f"/paced-a-{api}", raw=True)
        call(proxy, "lab-w/paced-1", f"/paced-b-{api}", retries=1)  # 429, then served
    headers = limited.value.response.headers
    assert headers["retry-after"] == "2"
    assert (headers["x-ratelimit-limit"], headers["x-ratelimit-remaining"]) == ("50", "0")
    records = validate_log(log)
    asked_at = datetime.fromisoformat(records[0].time).timestamp() * 1000
    assert int(headers["x-ratelimit-reset"]) >= asked_at + 1500  # epoch ms, 2 s ahead
    assert served.headers["x-generation-id"] == records[1].generation_id
    refused, retried = records[2:]
    waited = datetime.fromisoformat(retried.time) - datetime.fromisoformat(refused.time)
    assert waited.total_seconds() >= 1.9, waited
    assert refused.error_class is ErrorClass.RATE_LIMIT
    assert (retried.status, retried.transport_retry, retried.retry) == (200, True, False)


def test_every_upstream_header_passes_but_hop_by_hop_and_credentials() -> None:
    upstream_headers = httpx.Headers([
        ("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"),
        ("Connection", "keep-alive, X-Hop"), ("X-Hop", "1"), ("Keep-Alive", "timeout=5"),
        ("Transfer-Encoding", "chunked"), ("Content-Length", "9"), ("Set-Cookie", "s=1"),
        ("Date", "Mon, 07 Dec 2026 03:00:00 GMT"), ("Server", "cloudflare"),
        ("Retry-After", "3"), ("X-RateLimit-Limit", "50"), ("X-RateLimit-Remaining", "0"),
        ("X-RateLimit-Reset", "1796612400000"), ("X-Generation-Id", "gen-1"),
        ("X-OpenRouter-Region", "iad"),
    ])  # fmt: skip
    assert [k for k, _ in relayed_headers(upstream_headers)] == [
        "content-type", "cache-control", "retry-after", "x-ratelimit-limit",
        "x-ratelimit-remaining", "x-ratelimit-reset", "x-generation-id", "x-openrouter-region",
    ]  # fmt: skip


def test_the_unmetered_api_passes_the_upstream_headers(sim: Simulator, tmp_path: Path) -> None:
    """`GET /models`, `/key`, `/generation` are relayed with the upstream's headers as well."""
    with wire_proxy(sim, tmp_path / "gateway.jsonl", "lab-w/tools-1") as proxy:
        direct = httpx.get(f"{sim.base_url}/models")
        relayed = httpx.get(f"{proxy.base_url}/models")
    assert relayed.json() == direct.json()
    validate("models", relayed.json())
    dropped = {"date", "server", "content-length", "transfer-encoding"}
    assert {k: v for k, v in direct.headers.items() if k not in dropped} == {
        k: v for k, v in relayed.headers.items() if k not in dropped
    }


# -- a harness retry is the same whole request from the same client -------------------------------
def test_a_retry_is_the_whole_request_from_the_same_client(sim: Simulator, tmp_path: Path) -> None:
    """The same messages to another model or with another tool_choice are new steps; the same
    request from another client is a new step; only the same client sending the same whole
    request again after it was answered is a harness retry."""
    log = tmp_path / "gateway.jsonl"
    with wire_proxy(sim, log, "lab-w/tools-1") as proxy:
        chat_call(proxy, "lab-w/tools-1", "/retry", tools=TOOLS)
        chat_call(proxy, "lab-w/other-1", "/retry", tools=TOOLS)
        chat_call(proxy, "lab-w/tools-1", "/retry", tools=TOOLS, tool_choice="none")
        chat_call(proxy, "lab-w/tools-1", "/retry", tools=TOOLS, tool_choice="none")
        proxy.drain()
        again = read_exchanges(log)[-1]
        other_client = {"User-Agent": "another-client/1"}
        response = httpx.post(f"{proxy.base_url}/chat/completions", json=again.request,
                              headers=other_client)  # fmt: skip
        assert response.status_code == 200
    records = validate_log(log)
    assert [(r.step, r.retry, r.transport_retry) for r in records] == [
        (1, False, False), (2, False, False), (3, False, False), (3, True, False),
        (4, False, False)]  # fmt: skip
    assert records[0].sender and records[0].sender.startswith("OpenAI/Python")
    assert records[-1].sender == "another-client/1"
    assert summarize(log).retries == 1
