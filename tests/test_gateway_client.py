"""The OpenRouter client: typed records, and every failure mapped to one error class."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from gateway_support import loopback_only, script

from gateway.client import OpenRouterClient
from gateway.errors import ErrorClass, GatewayError
from gateway.simulator import Simulator

BASE = "http://127.0.0.1:9/api/v1"


def mock(status: int, body: object, content_type: str = "application/json") -> OpenRouterClient:
    def handler(request: httpx.Request) -> httpx.Response:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        return httpx.Response(status, content=raw, headers={"Content-Type": content_type})

    return OpenRouterClient(BASE, "sk-test", transport=httpx.MockTransport(handler))


def error(code: int, message: str) -> dict[str, object]:
    return {"error": {"code": code, "message": message, "metadata": {"provider_name": None}}}


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (401, error(401, "No auth credentials found"), ErrorClass.AUTH),
        (402, error(402, "This request requires more credits"), ErrorClass.CREDITS),
        (429, error(429, "Rate limit exceeded: free-models-per-day"), ErrorClass.RATE_LIMIT),
        (404, error(404, "No endpoints found that can handle the requested parameters."),
         ErrorClass.NO_ENDPOINT),
        (404, error(404, "Model x not found"), ErrorClass.NOT_FOUND),
        (400, error(400, "Reasoning is mandatory for this endpoint"), ErrorClass.BAD_REQUEST),
        (502, error(502, "Provider returned error"), ErrorClass.UPSTREAM_5XX),
        (503, b"<html>bad gateway</html>", ErrorClass.UPSTREAM_5XX),
        (200, b"not json", ErrorClass.MALFORMED_RESPONSE),
        (200, {"nodata": []}, ErrorClass.MALFORMED_RESPONSE),
    ],
)  # fmt: skip
def test_http_errors_map_to_classes(status: int, body: object, expected: ErrorClass) -> None:
    with pytest.raises(GatewayError) as caught, mock(status, body) as client:
        client.list_models()
    assert caught.value.error_class is expected
    assert caught.value.status == (status if status >= 400 else caught.value.status)


def test_connection_failure_is_its_own_class() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    client = OpenRouterClient(BASE, "k", transport=httpx.MockTransport(refuse))
    with pytest.raises(GatewayError) as caught:
        client.key_info()
    assert caught.value.error_class is ErrorClass.CONNECTION


def test_generation_retries_the_404_that_follows_a_completion() -> None:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.params["id"])
        if len(calls) < 3:
            return httpx.Response(404, json=error(404, "Generation not found"))
        data = {"id": "gen-1", "model": "lab/m", "provider_name": "P", "total_cost": 0.5}
        return httpx.Response(200, json={"data": data})

    client = OpenRouterClient(BASE, "k", transport=httpx.MockTransport(handler))
    gen = client.generation("gen-1")
    assert (gen.model, gen.total_cost, len(calls)) == ("lab/m", 0.5, 3)
    never = httpx.MockTransport(lambda r: httpx.Response(404))
    short = OpenRouterClient(BASE, "k", generation_retry_seconds=0.0, transport=never)
    with pytest.raises(GatewayError) as caught:
        short.generation("gen-x")
    assert caught.value.error_class is ErrorClass.NOT_FOUND


def _simulated(check: Callable[[OpenRouterClient], None]) -> None:
    scripts = [
        script("lab/ok-1", [{"text": "fine"}]),
        script("lab/mid-1", [{"error": {"kind": "midstream", "code": 502, "message": "boom"}}]),
        script("lab/down-1", [{"error": {"kind": "http", "status": 503}}]),
        script("lab/plain-1", [{"text": "x"}], catalogue={"supported_parameters": ["tools"]}),
    ]
    with (
        loopback_only(),
        Simulator(scripts, generation_lag_seconds=0.05) as sim,
        OpenRouterClient(sim.base_url, "sk-test") as client,
    ):
        check(client)


def test_client_against_the_simulator() -> None:
    def check(client: OpenRouterClient) -> None:
        models = {m.id: m for m in client.list_models()}
        assert models["lab/ok-1"].canonical_slug == "lab/ok-1-20260101"
        assert models["lab/ok-1"].pricing.per_token("prompt") == 0.000002
        assert "tool_choice" in models["lab/ok-1"].supported_parameters
        endpoints = client.endpoints("lab", "ok-1")
        assert endpoints.endpoints[0].provider_name == "Demo Cloud"
        with pytest.raises(GatewayError) as missing:
            client.endpoints("lab", "nope-1")
        assert missing.value.error_class is ErrorClass.NOT_FOUND
        assert client.key_info().limit_remaining is None  # no limit unless one is scripted
        body = {"model": "lab/ok-1", "messages": [{"role": "user", "content": "x"}]}
        obs = client.chat_stream(body)
        assert (obs.content, obs.model, obs.finish_reason) == ("fine", "lab/ok-1-20260101", "stop")
        assert obs.usage is not None and obs.generation_id is not None
        gen = client.generation(obs.generation_id)
        assert gen.total_cost == obs.usage["cost"] and gen.model == "lab/ok-1-20260101"
        assert client.chat(body)["choices"][0]["message"]["content"] == "fine"
        cases: list[tuple[dict[str, Any], ErrorClass]] = [
            ({**body, "model": "lab/mid-1"}, ErrorClass.UPSTREAM_5XX),  # in-stream code 502
            ({**body, "model": "lab/down-1"}, ErrorClass.UPSTREAM_5XX),
            ({**body, "model": "lab/plain-1", "tool_choice": "auto",
              "provider": {"require_parameters": True}}, ErrorClass.NO_ENDPOINT),
        ]  # fmt: skip
        for request, expected in cases:
            with pytest.raises(GatewayError) as caught:
                client.chat_stream(request)
            assert caught.value.error_class is expected, request["model"]

    _simulated(check)
