"""The OpenRouter simulator, checked by an independent client (`openai`) and raw HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
from gateway_support import drive, loopback_only, script

from gateway.simulator import Simulator, load_scripts
from records.layout import BENCHMARK_DIR, REPO_ROOT

# SSE bytes OpenCode 1.17.18 accepted for a streamed tool call (recorded against a local stub)
ACCEPTED_SSE = Path(__file__).parent / "data" / "opencode-1.17.18-sse-toolcall.txt"
# a live OpenRouter stream (recorded 2026-05-06, see ../shared/reference/openrouter/)
LIVE_SSE = Path(__file__).parent / "data" / "openrouter" / "live-stream-tool-call.json"
KEY = "sk-or-v1-simulator-test"


@pytest.fixture()
def sim() -> Iterator[Simulator]:
    scripts = [
        script(
            "lab-a/writer-1",
            [
                {"tool_calls": [{"name": "write", "arguments": {
                    "filePath": "{workdir}/hello.txt", "content": "hello from stub\n"}}]},
                {"text": "All done at turn {turn}."},
            ],
        ),  # fmt: skip
        script("lab-a/plain-1", [{"text": "hi"}],
               catalogue={"supported_parameters": ["max_tokens", "tools"]}),
        script("lab-a/hidden-1", [{"text": "hi"}], catalogue={"listed": False}),
        script("lab-a/midstream-1", [{"error": {"kind": "midstream", "code": 429,
               "message": "Rate limit exceeded", "partial_text": "Work"}}]),
        script("lab-a/content-1", [{"tool_calls": [{"name": "write", "arguments": {
            "filePath": "{workdir}/package.json",
            "content": {"content_from": "app-starter/package.json"}}}]}]),
    ]  # fmt: skip
    with loopback_only(), Simulator(scripts, generation_lag_seconds=3.0) as simulator:
        yield simulator


def client(sim: Simulator) -> openai.OpenAI:
    return openai.OpenAI(base_url=sim.base_url, api_key=KEY, max_retries=0)


def test_openai_parses_streamed_tool_calls_and_text(sim: Simulator) -> None:
    messages, error = drive(sim.base_url, "lab-a/writer-1", "go", workdir="/wt/x")
    assert error is None
    call = messages[2]["tool_calls"][0]
    assert call["function"]["name"] == "write"
    assert json.loads(call["function"]["arguments"]) == {
        "filePath": "/wt/x/hello.txt",
        "content": "hello from stub\n",
    }
    assert messages[-1] == {"role": "assistant", "content": "All done at turn 2."}


def test_openai_parses_non_streaming_answers(sim: Simulator) -> None:
    messages, error = drive(sim.base_url, "lab-a/writer-1", "go", stream=False)
    assert error is None and messages[-1]["content"] == "All done at turn 2."
    reply = client(sim).chat.completions.create(
        model="lab-a/writer-1", messages=[{"role": "user", "content": "x"}]
    )
    assert reply.choices[0].finish_reason == "tool_calls"
    assert reply.model == "lab-a/writer-1-20260101"  # the canonical slug, as live answers
    assert reply.usage is not None and reply.usage.model_extra is not None
    assert reply.usage.model_extra["cost"] > 0


def _data_events(raw: str) -> list[dict]:
    return [json.loads(e[6:]) for e in raw.split("\n\n") if e.startswith("data: {")]


def test_sse_bytes_follow_the_recorded_live_shape(sim: Simulator) -> None:
    """Tool-call deltas as OpenCode accepted them; the ending as recorded from live OpenRouter:
    a finish chunk, then the usage chunk repeating the finish choice, then `[DONE]`."""
    system = {"role": "system", "content": "Working directory: /worktree"}
    body = {"model": "lab-a/writer-1", "stream": True, "messages": [system]}
    response = httpx.post(f"{sim.base_url}/chat/completions", json=body,
                          headers={"Authorization": f"Bearer {KEY}"})  # fmt: skip
    raw = response.text
    assert raw.startswith(": OPENROUTER PROCESSING\n\n") and raw.endswith("data: [DONE]\n\n")
    ours = _data_events(raw)
    assert response.headers["X-Generation-Id"] == ours[0]["id"]
    accepted = _data_events(ACCEPTED_SSE.read_text())
    deltas = [c["choices"][0]["delta"] for c in ours if c["choices"][0]["finish_reason"] is None]
    for mine, ref in zip(deltas, accepted[: len(deltas)], strict=True):
        theirs = ref["choices"][0]["delta"]
        for call in [*mine.get("tool_calls", []), *theirs.get("tool_calls", [])]:
            call.pop("id", None)
        assert mine == ref["choices"][0]["delta"]
    live = _data_events(json.loads(LIVE_SSE.read_text())["interactions"][0]["response"]["body"])
    for stream in (ours, live):
        finish, usage = stream[-2], stream[-1]
        assert finish["choices"] == usage["choices"] and "usage" not in finish
        assert finish["choices"][0]["finish_reason"] == "tool_calls"
        assert finish["choices"][0]["delta"] == {"content": "", "role": "assistant"}
    assert ours[-1]["usage"].keys() >= live[-1]["usage"].keys() - {"completion_tokens_details"}
    assert ours[-1]["usage"]["cost_details"].keys() == live[-1]["usage"]["cost_details"].keys()
    details = ours[-1]["usage"]["cost_details"]
    assert details["upstream_inference_prompt_cost"] + details[
        "upstream_inference_completions_cost"
    ] == pytest.approx(ours[-1]["usage"]["cost"])
    assert all(c["provider"] == "Demo Cloud" for c in ours)


def test_catalogue_endpoints_key_and_generation(sim: Simulator) -> None:
    auth = {"Authorization": f"Bearer {KEY}"}
    models = httpx.get(f"{sim.base_url}/models").json()["data"]
    ids = {m["id"] for m in models}
    assert "lab-a/writer-1" in ids and "lab-a/hidden-1" not in ids
    entry = next(m for m in models if m["id"] == "lab-a/writer-1")
    assert entry["canonical_slug"] != entry["id"]
    assert (
        isinstance(entry["pricing"]["prompt"], str)
        and "tool_choice" in entry["supported_parameters"]
    )
    assert entry["reasoning"]["supported_efforts"] == ["high"]
    filtered = httpx.get(f"{sim.base_url}/models?supported_parameters=tool_choice").json()["data"]
    assert "lab-a/plain-1" not in {m["id"] for m in filtered}
    ok = httpx.get(f"{sim.base_url}/models/lab-a/writer-1/endpoints")
    assert (
        ok.json()["data"]["endpoints"][0]["supported_parameters"] == entry["supported_parameters"]
    )
    assert httpx.get(f"{sim.base_url}/models/lab-a/hidden-1/endpoints").status_code == 404
    assert httpx.get(f"{sim.base_url}/models/nobody/none/endpoints").status_code == 404
    key = httpx.get(f"{sim.base_url}/key", headers=auth).json()["data"]
    assert key["limit"] is None and key["limit_remaining"] is None  # no limit unless scripted
    assert httpx.get(f"{sim.base_url}/key").status_code == 401
    reply = client(sim).chat.completions.create(
        model="lab-a/writer-1", messages=[{"role": "user", "content": "x"}]
    )
    first = httpx.get(f"{sim.base_url}/generation", params={"id": reply.id}, headers=auth)
    assert first.status_code == 404  # lags right after the completion, like OpenRouter (3 s
    time.sleep(3.05)  # here, so that a loaded machine's slow client still asks within the lag)
    gen = httpx.get(f"{sim.base_url}/generation", params={"id": reply.id}, headers=auth).json()
    assert gen["data"]["model"] == "lab-a/writer-1-20260101"
    assert reply.usage is not None and reply.usage.model_extra is not None
    assert gen["data"]["total_cost"] == reply.usage.model_extra["cost"]


def test_errors_have_openrouter_shapes(sim: Simulator) -> None:
    base = {"messages": [{"role": "user", "content": "x"}], "tools": [], "tool_choice": "auto"}
    strict = {**base, "provider": {"require_parameters": True}}
    auth = {"Authorization": f"Bearer {KEY}"}
    url = f"{sim.base_url}/chat/completions"
    no_endpoint = httpx.post(url, json={**strict, "model": "lab-a/plain-1"}, headers=auth)
    assert no_endpoint.status_code == 404
    assert no_endpoint.json()["error"]["message"] == (
        "No endpoints found that can handle the requested parameters."
    )
    lenient = httpx.post(url, json={**base, "model": "lab-a/plain-1"}, headers=auth)
    assert lenient.status_code == 200
    hidden = httpx.post(url, json={**base, "model": "lab-a/hidden-1"}, headers=auth)
    assert hidden.status_code == 400 and "not a valid model ID" in hidden.json()["error"]["message"]
    assert httpx.post(url, json={**base, "model": "lab-a/plain-1"}).status_code == 401
    with pytest.raises(openai.APIError) as caught:
        for _ in client(sim).chat.completions.create(
            model="lab-a/midstream-1", messages=[{"role": "user", "content": "x"}], stream=True
        ):
            pass
    assert "Rate limit exceeded" in str(caught.value)


def test_content_from_reads_repo_files(sim: Simulator) -> None:
    messages, error = drive(sim.base_url, "lab-a/content-1", "go", workdir="/wt")
    assert error is None
    args = json.loads(messages[2]["tool_calls"][0]["function"]["arguments"])
    assert args["content"] == (REPO_ROOT / "app-starter/package.json").read_text()


def test_probe_marker_and_flaky_probe() -> None:
    flaky = load_scripts(BENCHMARK_DIR / "demo" / "models")
    with loopback_only(), Simulator(flaky) as sim:
        for n in (1, 2, 3):
            prompt = f"PREFLIGHT PROBE {n} of 3\nPROBE FILE: notes/probe.txt\nEdit and run."
            messages, error = drive(sim.base_url, "demo-wobble/flaky-1", prompt, workdir="/p")
            assert error is None
            calls = [m for m in messages if m.get("tool_calls")]
            if n == 2:
                assert calls == []
            else:
                write, bash = (
                    json.loads(c["tool_calls"][0]["function"]["arguments"]) for c in calls
                )
                assert write == {"filePath": "/p/notes/probe.txt", "content": f"probe {n} ok\n"}
                assert bash["command"] == "cat notes/probe.txt"


def test_command_line_server_starts() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "gateway.simulator", "--port", "0",
         "--models-dir", str(BENCHMARK_DIR / "demo" / "models")],
        stdout=subprocess.PIPE, text=True, cwd=REPO_ROOT,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        base = line.rsplit(" ", 1)[-1].strip()
        assert base.startswith("http://127.0.0.1:") and base.endswith("/api/v1")
        ids = {m["id"] for m in httpx.get(f"{base}/models").json()["data"]}
        assert "demo-northwind/builder-1" in ids and "demo-absent/ghost-1" not in ids
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_tree_globs_cover_top_level_files() -> None:
    from gateway.simulator.turns import tree_files
    from records.simulator_scripts import TreeCalls

    every = tree_files(TreeCalls(source="app-starter/src"), REPO_ROOT)
    assert "main.tsx" in every and any("/" in f for f in every)
    some = TreeCalls(
        source="app-starter/src",
        include=["**/*.tsx"],
        exclude=["components/*"],
    )
    chosen = tree_files(some, REPO_ROOT)
    assert "main.tsx" in chosen and all(f.endswith(".tsx") for f in chosen)
    assert not any(f.startswith("components/") for f in chosen)
