"""The simulator's responses validate against OpenRouter's published OpenAPI schemas.

The schemas are extracted into `tests/data/openrouter/schemas.json` by the script beside it; a
test checks the extraction against the spec itself (`openapi.json` beside it, a copy of
`../shared/reference/openrouter/openapi.json`).
"""

from __future__ import annotations

import importlib.util
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import jsonschema
import pytest
from gateway_support import (
    SCHEMAS,
    SPEC_DATA,
    loopback_only,
    script,
    sse_payloads,
    system_prompt,
    validate,
)

from gateway.simulator import Simulator

# A copy of ../shared/reference/openrouter/openapi.json (OpenRouter's published spec).
SPEC = SPEC_DATA / "openapi.json"
KEY = "sk-or-v1-schema-test"
AUTH = {"Authorization": f"Bearer {KEY}"}
WRITE = {"name": "write", "arguments": {"filePath": "{workdir}/a.txt", "content": "a\n"}}


def data_events(raw: str) -> list[dict[str, Any]]:
    return [json.loads(e[6:]) for e in raw.split("\n\n") if e.startswith("data: {")]


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    scripts = [
        script("lab-s/tools-1", [{"text": "writing", "tool_calls": [WRITE]}, {"text": "done"}],
               catalogue={"reasoning": {"supported_efforts": ["high"]}}),
        script("lab-s/errors-1", [{"error": {"kind": "midstream", "code": 429,
                                             "message": "Rate limit exceeded"}}]),
        script("lab-s/busy-1", [{"error": {"kind": "http", "status": 503}}]),
        script("lab-s/cut-1", [{"text": "half an answer", "error": {"kind": "truncate"}}]),
        script("lab-s/billed-1", [{"text": "done"}], usage={"billed_factor": 10.0}),
        # /messages reports `provider` in the spec's enum of real providers
        script("lab-s/claude-1", [{"text": "writing", "tool_calls": [WRITE]}, {"text": "done"}],
               catalogue={"provider_name": "Anthropic"}),
        script("lab-s/claude-err-1", [{"error": {"kind": "midstream", "code": 529,
                                                 "message": "Overloaded", "partial_text": "ha"}}],
               catalogue={"provider_name": "Anthropic"}),
        script("lab-s/claude-cut-1", [{"text": "half an answer", "error": {"kind": "truncate"}}],
               catalogue={"provider_name": "Anthropic"}),
    ]  # fmt: skip
    with loopback_only(), Simulator(scripts, api_key=KEY, key_limit_usd=1.0) as simulator:
        yield simulator


def chat(sim: Simulator, model: str, stream: bool, **extra: Any) -> httpx.Response:
    body = {"model": model, "stream": stream, "max_tokens": 1000,
            "messages": [{"role": "user", "content": "go"}], **extra}  # fmt: skip
    return httpx.post(f"{sim.base_url}/chat/completions", json=body, headers=AUTH)


def messages(sim: Simulator, model: str, stream: bool, **extra: Any) -> httpx.Response:
    body = {"model": model, "stream": stream, "max_tokens": 1000, "system": system_prompt("/w"),
            "messages": [{"role": "user", "content": [{"type": "text", "text": "go"}]}],
            **extra}  # fmt: skip
    return httpx.post(f"{sim.base_url}/messages", json=body, headers=AUTH)


def responses(sim: Simulator, model: str, stream: bool, **extra: Any) -> httpx.Response:
    body = {"model": model, "stream": stream, "max_output_tokens": 1000,
            "instructions": system_prompt("/w"), "input": "go", **extra}  # fmt: skip
    return httpx.post(f"{sim.base_url}/responses", json=body, headers=AUTH)


def test_extraction_matches_the_spec() -> None:
    loader = importlib.util.spec_from_file_location("extract", SPEC_DATA / "extract_schemas.py")
    assert loader is not None and loader.loader is not None
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    assert module.extract(json.loads(SPEC.read_text(encoding="utf-8"))) == SCHEMAS


def test_models_and_key_validate(sim: Simulator) -> None:
    models = httpx.get(f"{sim.base_url}/models").json()
    validate("models", models)
    key = httpx.get(f"{sim.base_url}/key", headers=AUTH).json()
    validate("key", key)
    assert (key["data"]["limit"], key["data"]["usage"]) == (1.0, 0.0)


def test_chat_json_and_generation_validate(sim: Simulator) -> None:
    response = chat(sim, "lab-s/tools-1", stream=False)
    body = response.json()
    validate("chat", body)
    assert response.headers["X-Generation-Id"] == body["id"]
    time.sleep(sim.generation_lag_seconds + 0.05)
    generation = httpx.get(f"{sim.base_url}/generation", params={"id": body["id"]}, headers=AUTH)
    validate("generation", generation.json())
    assert generation.json()["data"]["total_cost"] == body["usage"]["cost"]


def test_every_stream_chunk_validates(sim: Simulator) -> None:
    events = data_events(chat(sim, "lab-s/tools-1", stream=True).text)
    assert len(events) >= 4
    for event in events:
        validate("chat_chunk", event)
    assert events[-1]["usage"]["cost_details"]["upstream_inference_prompt_cost"] > 0


def test_in_stream_error_in_the_spec_shape_validates(sim: Simulator) -> None:
    events = data_events(chat(sim, "lab-s/errors-1", stream=True).text)
    for event in events:
        validate("chat_chunk", event)
    error = events[-1]["error"]
    assert error == {"code": 429, "message": "Rate limit exceeded",
                     "metadata": {"error_type": "rate_limit_exceeded"}}  # fmt: skip


def test_a_cut_stream_and_an_under_reported_bill_keep_the_spec_shapes(sim: Simulator) -> None:
    """The live behaviours the simulator adds still speak OpenRouter's shapes: a stream cut
    before its finish_reason, a generation record that bills more than the usage chunk said."""
    raw = chat(sim, "lab-s/cut-1", stream=True).text
    events = data_events(raw)
    assert events and raw.rstrip().endswith("data: [DONE]")
    for event in events:
        validate("chat_chunk", event)
    assert all(c["finish_reason"] is None for e in events for c in e["choices"])
    assert not any("usage" in e for e in events)
    body = chat(sim, "lab-s/billed-1", stream=False).json()
    time.sleep(sim.generation_lag_seconds + 0.05)
    generation = httpx.get(f"{sim.base_url}/generation", params={"id": body["id"]}, headers=AUTH)
    validate("generation", generation.json())
    assert generation.json()["data"]["total_cost"] == pytest.approx(10 * body["usage"]["cost"])


def test_error_bodies_validate(sim: Simulator) -> None:
    validate("error_503", chat(sim, "lab-s/busy-1", stream=True).json())
    validate("error_400", chat(sim, "lab-s/none", stream=True).json())
    validate("error_401", httpx.get(f"{sim.base_url}/key").json())
    missing = httpx.get(f"{sim.base_url}/generation", params={"id": "gen-x"}, headers=AUTH)
    validate("error_404", missing.json())
    pinned = chat(sim, "lab-s/tools-1", stream=True, provider={"only": ["elsewhere"]})
    assert pinned.status_code == 404 and "No allowed providers" in pinned.text
    validate("error_404", pinned.json())
    too_much = chat(sim, "lab-s/tools-1", stream=True, max_tokens=200_000)
    assert too_much.status_code == 402
    validate("error_402", too_much.json())
    with pytest.raises(jsonschema.ValidationError):  # the validator does reject a wrong shape
        validate("error_402", {"error": {"message": "no code"}})


def test_messages_results_and_stream_events_validate(sim: Simulator) -> None:
    result = messages(sim, "lab-s/claude-1", stream=False).json()
    validate("messages", result)
    assert [b["type"] for b in result["content"]] == ["text", "tool_use"]
    assert result["usage"]["cost"] > 0 and result["provider"] == "Anthropic"
    for model, last in (("lab-s/claude-1", "message_stop"), ("lab-s/claude-err-1", "error"),
                        ("lab-s/claude-cut-1", "content_block_delta")):  # fmt: skip
        events = sse_payloads(messages(sim, model, stream=True).text)  # `event:` = data type
        for event in events:
            validate("messages_event", event)
        assert events[0]["type"] == "message_start" and events[-1]["type"] == last
    assert events[-1]["delta"] == {"type": "text_delta", "text": "half an answer"}
    cut = messages(sim, "lab-s/claude-1", stream=True, max_tokens=5).text
    delta = next(e for e in sse_payloads(cut) if e["type"] == "message_delta")
    assert delta["delta"]["stop_reason"] == "max_tokens" and delta["usage"]["output_tokens"] == 5
    with pytest.raises(jsonschema.ValidationError):  # a message_delta must carry its usage
        validate("messages_event", {"type": "message_delta", "delta": delta["delta"]})


def test_messages_errors_validate_in_anthropics_shape(sim: Simulator) -> None:
    failed = sse_payloads(messages(sim, "lab-s/claude-err-1", stream=True).text)[-1]["error"]
    assert failed == {"type": "overloaded_error", "message": "Overloaded",
                      "error_type": "provider_overloaded"}  # fmt: skip
    body = messages(sim, "lab-s/claude-err-1", stream=False)  # a failure after routing
    assert body.status_code == 200
    validate("messages_error", body.json())
    kinds = {}
    for response in (
        messages(sim, "lab-s/busy-1", stream=True),
        messages(sim, "lab-s/none", stream=True),
        httpx.post(f"{sim.base_url}/messages", json={"model": "lab-s/claude-1", "messages": []}),
        messages(sim, "lab-s/claude-1", stream=True, provider={"only": ["elsewhere"]}),
        messages(sim, "lab-s/claude-1", stream=True, max_tokens=200_000),
        messages(sim, "lab-s/claude-1", stream=True, messages="go"),
    ):
        validate("messages_error", response.json())
        kinds[response.status_code] = response.json()["error"]["type"]
    assert kinds == {503: "overloaded_error", 400: "invalid_request_error",
                     401: "authentication_error", 404: "not_found_error",
                     402: "billing_error"}  # fmt: skip
    with pytest.raises(jsonschema.ValidationError):  # the validator does reject a wrong shape
        validate("messages_error", {"error": {"code": 400, "message": "OpenRouter's shape"}})


def test_responses_results_and_stream_events_validate(sim: Simulator) -> None:
    result = responses(sim, "lab-s/tools-1", stream=False).json()
    validate("responses", result)
    assert [i["type"] for i in result["output"]] == ["message", "function_call"]
    assert result["usage"]["cost"] > 0 and result["status"] == "completed"
    cut = responses(sim, "lab-s/tools-1", stream=False, max_output_tokens=3).json()
    validate("responses", cut)
    assert (cut["status"], cut["incomplete_details"]) == (
        "incomplete", {"reason": "max_output_tokens"})  # fmt: skip
    ends = (("lab-s/tools-1", "response.completed"), ("lab-s/errors-1", "response.failed"),
            ("lab-s/cut-1", "response.output_text.delta"))  # fmt: skip
    for model, last in ends:
        events = sse_payloads(responses(sim, model, stream=True).text)
        for event in events:
            validate("responses_event", event)
        assert [e["sequence_number"] for e in events] == list(range(len(events)))
        assert events[0]["type"] == "response.created" and events[-1]["type"] == last
    with pytest.raises(jsonschema.ValidationError):  # a terminal event carries its response
        validate("responses_event", {"type": "response.completed", "sequence_number": 1})


def test_responses_errors_validate(sim: Simulator) -> None:
    failed = responses(sim, "lab-s/errors-1", stream=False)
    assert failed.status_code == 200
    validate("responses", failed.json())
    assert failed.json()["error"] == {"code": "rate_limit_exceeded",
                                      "message": "Rate limit exceeded"}  # fmt: skip
    assert failed.json()["error_type"] == "rate_limit_exceeded"
    validate("error_503", responses(sim, "lab-s/busy-1", stream=True).json())
    validate("error_400", responses(sim, "lab-s/none", stream=True).json())
    validate("error_400", responses(sim, "lab-s/tools-1", stream=True, input=7).json())
    validate("error_402", responses(sim, "lab-s/tools-1", stream=True,
                                    max_output_tokens=200_000).json())  # fmt: skip
    unauthorised = httpx.post(f"{sim.base_url}/responses", json={"model": "x", "input": "go"})
    validate("error_401", unauthorised.json())
