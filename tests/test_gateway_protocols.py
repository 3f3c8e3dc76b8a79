"""The proxy meters any protocol through a `MeteredProtocol` adapter: a fake non-streaming one
(a Messages-like shape on `/fake/messages`) gets steps, retries, the hard budget and cost."""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from gateway_support import loopback_only

from gateway.budget import Prices
from gateway.protocols import DEFAULT_PROTOCOLS, MeteredProtocol, StreamReader
from gateway.proxy import RecordingProxy
from gateway.sse import SSEReader, StreamObservation
from records.evidence.gateway import GatewayPolicy, read_exchanges, summarize


class FakeMessages:
    """`{"model", "system", "turns": [...], "limit": n}` in; `{"id", "model", "usage": {
    "input_tokens", "output_tokens", "cost_usd"}}` out."""

    name = "fake/messages"
    path = "/fake/messages"

    def apply_policy(
        self, policy: GatewayPolicy, body: dict[str, Any]
    ) -> tuple[dict[str, Any], list[str]]:
        return copy.deepcopy(body), []

    def prompt_bytes(self, body: dict[str, Any]) -> int:
        return len(json.dumps([body.get("system"), body.get("turns")]).encode())

    def max_tokens(self, body: dict[str, Any]) -> int | None:
        limit = body.get("limit")
        return limit if isinstance(limit, int) else None

    def with_max_tokens(self, body: dict[str, Any], max_tokens: int) -> dict[str, Any]:
        return {**body, "limit": max_tokens}

    def streaming(self, body: dict[str, Any]) -> bool:
        return False

    def stream_reader(self) -> StreamReader:
        return SSEReader()  # never used: this protocol does not stream

    def observe_body(self, body: bytes) -> StreamObservation:
        data = json.loads(body)
        obs = StreamObservation(generation_id=data.get("id"), models=[data["model"]])
        usage = data.get("usage") or {}
        obs.usage = {"prompt_tokens": usage.get("input_tokens"),
                     "completion_tokens": usage.get("output_tokens"),
                     "cost": usage.get("cost_usd")}  # fmt: skip
        obs.finish_reason = data.get("stop_reason")
        return obs

    def error_body(self, status: int, message: str, metadata: dict[str, Any]) -> dict[str, Any]:
        return {"failure": {"status": status, "text": message, **metadata}}


class _Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    bodies: list[dict[str, Any]] = []

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Upstream.bodies.append(body)
        out = min(body["limit"], 2000)
        answer = {"id": f"msg-{len(_Upstream.bodies)}", "model": body["model"],
                  "stop_reason": "max_tokens" if out < 2000 else "end_turn",
                  "usage": {"input_tokens": 100, "output_tokens": out,
                            "cost_usd": round(100 * 1e-5 + out * 1e-4, 8)}}  # fmt: skip
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture()
def upstream() -> Iterator[str]:
    _Upstream.bodies = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    with loopback_only():
        thread.start()
        yield f"http://127.0.0.1:{server.server_address[1]}/api/v1"
        server.shutdown()
        server.server_close()


def test_the_fake_protocol_satisfies_the_interface() -> None:
    adapters: list[MeteredProtocol] = [*DEFAULT_PROTOCOLS, FakeMessages()]
    assert [a.path for a in adapters] == [
        "/chat/completions", "/messages", "/responses", "/gemini/v1beta", "/fake/messages",
    ]  # fmt: skip


def test_a_second_protocol_is_metered_like_chat(upstream: str, tmp_path: Path) -> None:
    log = tmp_path / "gateway.jsonl"
    protocols = (*DEFAULT_PROTOCOLS, FakeMessages())
    prices = Prices(prompt=1e-5, completion=1e-4)
    with RecordingProxy(upstream=upstream, api_key="k", log_path=log, budget_usd=0.5,
                        prices=prices, protocols=protocols) as proxy:  # fmt: skip
        url = f"{proxy.base_url}/fake/messages"
        turns: list[str] = []
        responses = []
        for n in range(4):
            turns.append(f"turn {n}")
            body = {"model": "lab/fake-1", "system": "s", "turns": list(turns), "limit": 4000}
            responses.append(httpx.post(url, json=body))
            if n == 0:  # the same conversation again after a delivered answer
                responses.append(httpx.post(url, json=body))
        state = proxy.state
    assert [r.status_code for r in responses] == [200, 200, 200, 400, 400]
    refusal = responses[-1].json()["failure"]  # the proxy answers in the protocol's error shape
    assert refusal["status"] == 400 and refusal["reason"] == "budget_ceiling"
    assert refusal["source"] == "harness-proxy" and "budget ceiling" in refusal["text"]
    records = read_exchanges(log)
    assert {r.protocol for r in records} == {"fake/messages"}
    assert [r.step for r in records] == [1, 1, 2, 3, 4]
    assert [r.retry for r in records] == [False, True, False, False, False]
    assert _Upstream.bodies[0]["limit"] == 4000  # $0.40 worst case fits $0.50
    assert 0 < _Upstream.bodies[2]["limit"] < 1000  # lowered to what is left
    assert records[-1].refused == "budget_ceiling" and records[-2].refused == "budget_ceiling"
    summary = summarize(log)
    assert summary.steps == 2 and summary.cost_usd is not None and summary.cost_usd <= 0.5
    assert summary.tokens.prompt == 300 and summary.budget_ceiling_hit and summary.retries == 1
    assert state.cost_usd == pytest.approx(summary.cost_usd)
    assert summary.observed_models == ["lab/fake-1"]
