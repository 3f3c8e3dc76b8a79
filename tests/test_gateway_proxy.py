"""The recording proxy: policy, step and budget ceilings, redaction, records and summaries."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
from gateway_support import drive, files_containing, loopback_only, resend, script

from gateway.errors import ErrorClass
from gateway.proxy import RecordingProxy
from gateway.simulator import Simulator
from records.evidence.gateway import GatewayPolicy, read_exchanges, summarize

FAKE_KEY = "sk-or-v1-FAKEKEY-0123456789abcdef-DO-NOT-LEAK"
SWAPPED = "lab/cheaper-0"


@pytest.fixture()
def sim() -> Iterator[Simulator]:
    bash = {"name": "bash", "arguments": {"command": "echo {turn}", "description": "burn"}}
    scripts = [
        script("lab/burner-1", [{"tool_calls": [bash]}], session={"after_last": "repeat_last"}),
        script("lab/two-1", [{"tool_calls": [bash]}, {"text": "done"}]),
        script("lab/swap-1", [{"tool_calls": [bash]}, {"text": "done", "model": SWAPPED}]),
        script("lab/outage-1", [{"tool_calls": [bash]}, {"error": {"kind": "http", "status": 503}}],
               session={"after_last": "repeat_last"}),
        script("lab/hang-1", [{"error": {"kind": "hang", "hang_seconds": 30}}]),
        script("lab/mid-1", [{"error": {"kind": "midstream", "message": "provider died"}}]),
        script("lab/pricey-1", [{"tool_calls": [bash]}], session={"after_last": "repeat_last"},
               usage={"prompt_tokens": 100000, "completion_tokens": 1000}),
    ]  # fmt: skip
    with loopback_only(), Simulator(scripts, api_key=FAKE_KEY, generation_lag_seconds=0.05) as s:
        yield s


def proxy_for(sim: Simulator, tmp_path: Path, **kwargs: object) -> RecordingProxy:
    options: dict[str, object] = {"policy": GatewayPolicy(), "step_ceiling": 40, **kwargs}
    return RecordingProxy(upstream=sim.base_url, api_key=FAKE_KEY,
                          log_path=tmp_path / "unit" / "gateway.jsonl", **options)  # type: ignore[arg-type]  # fmt: skip


def test_step_41_is_refused_without_reaching_upstream(sim: Simulator, tmp_path: Path) -> None:
    hits: list[str] = []
    with proxy_for(sim, tmp_path, on_ceiling=hits.append) as proxy:
        messages, error = drive(proxy.base_url, "lab/burner-1", "burn", max_requests=60)
        state = proxy.state
    assert isinstance(error, openai.BadRequestError)
    assert "step ceiling of 40 reached" in str(error)
    assert len([m for m in messages if m["role"] == "assistant"]) == 40
    assert len(sim.requests) == 40
    assert state.step_ceiling_hit and state.steps == 40 and hits == ["step_ceiling"]
    summary = summarize(tmp_path / "unit" / "gateway.jsonl")
    assert (summary.steps, summary.refused, summary.step_ceiling_hit) == (40, 1, True)
    last = read_exchanges(tmp_path / "unit" / "gateway.jsonl")[-1]
    assert (last.step, last.refused, last.status) == (41, "step_ceiling", 400)


def test_policy_is_injected(sim: Simulator, tmp_path: Path) -> None:
    with proxy_for(sim, tmp_path, policy=GatewayPolicy(reasoning="high")) as proxy:
        drive(proxy.base_url, "lab/two-1", "go")
    sent = sim.requests[-1]
    assert sent["provider"] == {"allow_fallbacks": False, "require_parameters": True}
    assert sent["reasoning"] == {"effort": "high"}
    record = read_exchanges(tmp_path / "unit" / "gateway.jsonl")[0]
    assert "provider.require_parameters=true" in record.policy_changes
    assert record.request["provider"]["allow_fallbacks"] is False
    with proxy_for(sim, tmp_path / "b", policy=GatewayPolicy(reasoning="default")) as proxy:
        client = openai.OpenAI(base_url=proxy.base_url, api_key="x", max_retries=0)
        client.chat.completions.create(
            model="lab/two-1",
            messages=[{"role": "user", "content": "a"}],
            extra_body={"provider": {"order": ["p"]}},
        )
        assert "reasoning" not in sim.requests[-1]
        assert sim.requests[-1]["provider"]["order"] == ["p"]
        client.chat.completions.create(
            model="lab/two-1",
            messages=[{"role": "user", "content": "b"}],
            extra_body={"reasoning": {"effort": "low"}},
        )
        assert sim.requests[-1]["reasoning"] == {"effort": "low"}


def test_a_provider_pin_is_sent_and_a_provider_outside_it_is_refused(
    sim: Simulator, tmp_path: Path
) -> None:
    """The pin goes out as provider.only and provider.order; a route that none of the pinned
    providers serves answers 404 as live does, classed no_endpoint (the route, not our key)."""
    with proxy_for(sim, tmp_path, policy=GatewayPolicy(only=["demo-cloud"])) as proxy:
        drive(proxy.base_url, "lab/two-1", "go")
    sent = sim.requests[-1]["provider"]
    assert (sent["only"], sent["order"], sent["allow_fallbacks"]) == (["demo-cloud"],) * 2 + (
        False,)  # fmt: skip
    assert 'provider.only=["demo-cloud"]' in read_exchanges(tmp_path / "unit" / "gateway.jsonl")[
        0].policy_changes  # fmt: skip
    with proxy_for(sim, tmp_path / "b", policy=GatewayPolicy(only=["elsewhere"])) as proxy:
        _, error = drive(proxy.base_url, "lab/two-1", "go")
    assert isinstance(error, openai.NotFoundError)
    (record,) = read_exchanges(tmp_path / "b" / "unit" / "gateway.jsonl")
    assert (record.status, record.error_class) == (404, ErrorClass.NO_ENDPOINT)
    assert "No allowed providers" in (record.error_message or "")
    body = json.loads(record.response or "{}")
    assert body["error"]["metadata"]["requested_providers"] == ["elsewhere"]


def test_key_is_redacted_everywhere(sim: Simulator, tmp_path: Path) -> None:
    with proxy_for(sim, tmp_path, fetch_generation=True) as proxy:
        # the agent holds only a placeholder; the proxy adds the real key (the simulator checks it)
        _, error = drive(proxy.base_url, "lab/two-1", f"my key is {FAKE_KEY}", api_key="sk-dummy")
        assert error is None
        _, error = drive(proxy.base_url, "lab/two-1", "again", api_key=FAKE_KEY)
        assert error is None
        httpx.get(f"{proxy.base_url}/models", headers={"Authorization": f"Bearer {FAKE_KEY}"})
    records = read_exchanges(tmp_path / "unit" / "gateway.jsonl")
    assert len(records) == 5 and all(r.status == 200 for r in records)
    assert "[REDACTED]" in (tmp_path / "unit" / "gateway.jsonl").read_text()
    assert files_containing(tmp_path, FAKE_KEY) == []
    assert files_containing(tmp_path, "Authorization") == []


def test_a_short_placeholder_key_does_not_mangle_records(sim: Simulator, tmp_path: Path) -> None:
    with RecordingProxy(upstream=sim.base_url, api_key="k", log_path=tmp_path / "g.jsonl") as proxy:
        httpx.get(f"{proxy.base_url}/models")
    assert read_exchanges(tmp_path / "g.jsonl")[0].kind == "other"


def test_cost_and_tokens_come_from_usage(sim: Simulator, tmp_path: Path) -> None:
    with proxy_for(sim, tmp_path, fetch_generation=True) as proxy:
        drive(proxy.base_url, "lab/two-1", "go")
        assert proxy.drain()
        state = proxy.state
    records = read_exchanges(tmp_path / "unit" / "gateway.jsonl")
    generations = {gid: rec for gid, (_, rec) in sim.generations.items()}
    assert len(records) == 2
    for record in records:
        assert record.usage is not None and record.generation is not None
        truth = generations[record.generation_id or ""]
        assert record.usage.cost_usd == truth["total_cost"] == record.generation.total_cost
        assert record.usage.prompt == truth["tokens_prompt"]
        assert record.generation.model == "lab/two-1-20260101"
    summary = summarize(tmp_path / "unit" / "gateway.jsonl")
    expected = sum(g["total_cost"] for g in generations.values())
    assert summary.cost_usd == pytest.approx(expected) == pytest.approx(state.cost_usd)
    assert summary.tokens.prompt == sum(g["tokens_prompt"] for g in generations.values())
    assert summary.tokens.cached == records[1].usage.cached > 0  # type: ignore[union-attr]
    assert (summary.steps, summary.requests, summary.retries, summary.missing_usage) == (2, 2, 0, 0)
    assert summary.observed_models == ["lab/two-1-20260101"] == summary.generation_models
    assert summary.observed_providers == ["Demo Cloud"]


def test_identity_swap_is_observable(sim: Simulator, tmp_path: Path) -> None:
    with proxy_for(sim, tmp_path) as proxy:
        drive(proxy.base_url, "lab/swap-1", "go")
    summary = summarize(tmp_path / "unit" / "gateway.jsonl")
    assert summary.requested_models == ["lab/swap-1"]
    assert summary.observed_models == ["lab/swap-1-20260101", SWAPPED]
    assert [r.model for r in read_exchanges(tmp_path / "unit" / "gateway.jsonl")] == [
        "lab/swap-1-20260101",
        SWAPPED,
    ]


def test_outage_and_retries_are_observable(sim: Simulator, tmp_path: Path) -> None:
    with proxy_for(sim, tmp_path) as proxy:
        _, error = drive(proxy.base_url, "lab/outage-1", "go")
        assert isinstance(error, openai.InternalServerError)
        proxy.drain()
        failed = read_exchanges(tmp_path / "unit" / "gateway.jsonl")[-1]
        for _ in range(2):  # a client retrying the same request, as OpenCode does on 5xx
            assert resend(proxy.base_url, failed).status_code == 503
    state = proxy.state  # read once the proxy has stopped: its last handler may still be counting
    records = read_exchanges(tmp_path / "unit" / "gateway.jsonl")
    # repeats after an upstream error that delivered nothing: the agent's transport retries
    assert [(r.step, r.retry, r.transport_retry, r.status) for r in records] == [
        (1, False, False, 200), (2, False, False, 503), (2, False, True, 503),
        (2, False, True, 503)]  # fmt: skip
    assert records[1].error_class is ErrorClass.UPSTREAM_5XX
    summary = summarize(tmp_path / "unit" / "gateway.jsonl")
    assert (summary.steps, summary.retries, summary.upstream_errors) == (2, 0, 3)
    assert (summary.transport_retries, summary.transport_retry_classes) == (2, {"upstream_5xx": 2})
    assert summary.error_classes == {"upstream_5xx": 3}
    assert (state.steps, state.retries, state.transport_retries) == (2, 0, 2)
    assert (state.upstream_errors, state.provider_errors) == (3, 3)  # the outage watch's count


def test_hang_and_midstream_errors_are_classified(sim: Simulator, tmp_path: Path) -> None:
    with proxy_for(sim, tmp_path, upstream_read_timeout=0.5) as proxy:
        _, error = drive(proxy.base_url, "lab/hang-1", "go")
        assert isinstance(error, openai.InternalServerError)
        _, error = drive(proxy.base_url, "lab/mid-1", "go")
        assert isinstance(error, openai.APIError)
    hang, mid = read_exchanges(tmp_path / "unit" / "gateway.jsonl")
    assert (hang.status, hang.error_class) == (502, ErrorClass.CONNECTION)
    # classed by its in-stream code (502)
    assert (mid.status, mid.error_class, mid.finish_reason) == (
        200, ErrorClass.UPSTREAM_5XX, "error")  # fmt: skip
    assert mid.error_message == "in-stream error (code 502): provider died"


def test_budget_ceiling_without_prices(sim: Simulator, tmp_path: Path) -> None:
    """Without catalogue prices only the cumulative check applies: the step that crosses the
    budget runs in full (the hard budget with prices: tests/test_gateway_live.py)."""
    # each step: 100k prompt tokens at $2/M (70% cached at the same price) + completion: ~$0.21
    with proxy_for(sim, tmp_path, budget_usd=1.0) as proxy:
        _, error = drive(proxy.base_url, "lab/pricey-1", "go")
        state = proxy.state
    assert isinstance(error, openai.BadRequestError) and "budget ceiling of $1" in str(error)
    summary = summarize(tmp_path / "unit" / "gateway.jsonl")
    assert summary.budget_ceiling_hit and not summary.step_ceiling_hit
    assert summary.cost_usd is not None and 1.0 <= summary.cost_usd < 1.25
    assert state.budget_ceiling_hit and summary.steps == len(sim.requests) == 5


def test_stream_bytes_pass_through_unchanged_over_tcp_and_unix_socket(
    sim: Simulator, tmp_path: Path
) -> None:
    body = {"model": "lab/two-1", "stream": True, "messages": [{"role": "user", "content": "x"}]}
    with proxy_for(sim, tmp_path) as proxy:
        via_tcp = httpx.post(f"{proxy.base_url}/chat/completions", json=body).content
        unix = httpx.Client(transport=httpx.HTTPTransport(uds=str(proxy.socket_path)))
        via_unix = unix.post("http://proxy/api/v1/chat/completions", json=body).content
        models = unix.get("http://proxy/api/v1/models").json()
    first, second, listing = read_exchanges(tmp_path / "unit" / "gateway.jsonl")
    assert first.response is not None and first.response.encode() == via_tcp
    assert first.response_sha256 == hashlib.sha256(via_tcp).hexdigest()
    assert second.response is not None and second.response.encode() == via_unix
    assert via_unix.startswith(b": OPENROUTER PROCESSING") and via_unix.endswith(b"[DONE]\n\n")
    assert second.retry and second.step == 1  # same messages after a delivered completion
    assert listing.kind == "other" and {m["id"] for m in models["data"]} >= {"lab/two-1"}
    assert json.loads(first.response.split("data: ")[-2])["usage"]["cost"] > 0
