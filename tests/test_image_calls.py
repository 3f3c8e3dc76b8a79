"""A tools arm's image calls: the proxy's image route, its metering and refusals, the simulator's
deterministic images and the `siteos-image` command, checked against OpenRouter's published
schemas (`ChatRequest.modalities`, `ChatAssistantImages`, `ChatUsage`) and catalogue snapshot."""

from __future__ import annotations

import hashlib
import json
import struct
import subprocess
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from gateway_support import loopback_only, script, validate

from gateway.budget import Prices
from gateway.proxy import RecordingProxy
from gateway.simulator import Simulator
from gateway.simulator.images import IMAGE_TOKENS, png
from harness.session.image_tool import TOOLS_DIR, install_tool
from harness.session.sandbox import SandboxSpec
from records.evidence.gateway import read_exchanges, summarize
from records.image_tool import ImageRoute, ImageTool, snapshot_image_route
from records.interventions import ArmManifest
from records.tools import NODE_BIN_DIR

ROUTE = "google/gemini-2.5-flash-image"
RECORD = snapshot_image_route(ROUTE)
IMAGE = ImageRoute.from_record(RECORD)
KEY = "sk-or-v1-image-test"
CHAT_MODEL = "lab-i/writer-1"
PRICES = Prices(0.000002, 0.00001, 64000)


def image_body(prompt: str = "a sunlit loft with plants", **extra: Any) -> dict[str, Any]:
    """What `siteos-image` sends."""
    return {"model": ROUTE, "modalities": ["image", "text"], "max_tokens": 2048, "stream": False,
            "messages": [{"role": "user", "content": prompt}], **extra}  # fmt: skip


@pytest.fixture
def sim() -> Iterator[Simulator]:
    chat = script(CHAT_MODEL, [{"text": "done"}])
    with loopback_only(), Simulator([chat], api_key=KEY, image_routes=[RECORD]) as simulator:
        yield simulator


def proxy_for(sim: Simulator, log: Path, budget: float = 5.0, image: bool = True) -> RecordingProxy:
    return RecordingProxy(upstream=sim.base_url, api_key=KEY, log_path=log, budget_usd=budget,
                          prices=PRICES, image_route=IMAGE if image else None)  # fmt: skip


def post(proxy: RecordingProxy, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{proxy.base_url}/chat/completions", json=body, timeout=20)


def decode_png(data: bytes) -> tuple[int, int, bytes]:
    """(width, height, raw scanlines) of an 8-bit RGB PNG, every chunk's CRC checked."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, size = 8, b"", (0, 0)
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, kind
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
            assert body[8:10] == b"\x08\x02"  # 8-bit RGB
        idat += body if kind == b"IDAT" else b""
        pos += 12 + length
    raw = zlib.decompress(idat)
    assert len(raw) == size[1] * (1 + size[0] * 3)
    return size[0], size[1], raw


# -- the simulator ---------------------------------------------------------------------------
def test_the_simulator_answers_an_image_request_as_the_spec_shapes_it(sim: Simulator) -> None:
    body = image_body()
    validate("chat_request", body)
    answer = httpx.post(f"{sim.base_url}/chat/completions", json=body,
                        headers={"Authorization": f"Bearer {KEY}"})  # fmt: skip
    assert answer.status_code == 200
    data = answer.json()
    validate("chat", data)
    url = data["choices"][0]["message"]["images"][0]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    usage = data["usage"]
    assert usage["completion_tokens_details"]["image_tokens"] == IMAGE_TOKENS
    text = usage["completion_tokens"] - IMAGE_TOKENS
    expected = usage["prompt_tokens"] * 0.0000003 + text * 0.0000025 + IMAGE_TOKENS * 0.00003
    assert usage["cost"] == pytest.approx(expected)
    assert 0.0387 < usage["cost"] < 0.0388  # about $0.039 an image, as the live price list says
    listed = httpx.get(f"{sim.base_url}/models").json()
    validate("models", listed)
    image_route = next(m for m in listed["data"] if m["id"] == ROUTE)
    assert image_route["architecture"]["output_modalities"] == ["image", "text"]
    assert image_route["pricing"]["image_output"] == "0.00003"


def test_the_simulator_s_images_are_valid_and_seeded_by_the_prompt() -> None:
    seed = hashlib.sha256(b"a sunlit loft").digest()
    first, again = png(seed), png(hashlib.sha256(b"a sunlit loft").digest())
    other = png(hashlib.sha256(b"a dark hall").digest())
    assert first == again and first != other
    width, height, raw = decode_png(first)
    assert (width, height) == (320, 200)
    assert len(set(raw)) > 10  # a picture, not a flat field


def test_the_simulator_refuses_an_image_route_without_image_output(sim: Simulator) -> None:
    body = {"model": ROUTE, "messages": [{"role": "user", "content": "hi"}]}
    answer = httpx.post(f"{sim.base_url}/chat/completions", json=body,
                        headers={"Authorization": f"Bearer {KEY}"})  # fmt: skip
    assert answer.status_code == 400 and "modalities" in answer.text
    validate("error_400", answer.json())


# -- the proxy -------------------------------------------------------------------------------
def test_an_image_call_is_metered_against_the_unit_budget_but_is_no_step(
    sim: Simulator, tmp_path: Path
) -> None:
    log = tmp_path / "gateway.jsonl"
    with proxy_for(sim, log) as proxy:
        answer = post(proxy, image_body())
        chat = post(proxy, {"model": CHAT_MODEL, "messages": [{"role": "user", "content": "go"}]})
        proxy.drain()  # every exchange accounted (the books close after the last byte)
        state = proxy.state
    assert answer.status_code == 200 and chat.status_code == 200
    validate("chat", answer.json())  # relayed unchanged, base64 and all
    image, text = read_exchanges(log)
    assert (image.kind, image.step, image.refused) == ("image", None, None)
    assert image.image_tokens == IMAGE_TOKENS and len(image.images) == 1
    assert image.images[0].media_type == "image/png" and image.images[0].bytes > 1000
    assert "base64,<" in str(image.response) and len(str(image.response)) < 2000  # not logged
    assert image.request["modalities"] == ["image", "text"]
    assert "provider" not in image.request  # the candidate's provider pin is the chat route's
    cost = answer.json()["usage"]["cost"]
    assert image.cost_usd == pytest.approx(cost) and image.budget_cost_usd == pytest.approx(cost)
    assert text.step == 1 and state.steps == 1 and state.image_requests == 1
    assert state.cost_usd == pytest.approx(cost + (text.cost_usd or 0))
    summary = summarize(log)
    assert (summary.image_requests, summary.images, summary.steps) == (1, 1, 1)
    assert summary.image_cost_usd == pytest.approx(cost)
    assert summary.cost_usd == pytest.approx(cost + (text.cost_usd or 0))
    assert summary.observed_models == [f"{CHAT_MODEL}-20260101"]  # identity: chat only


@pytest.mark.parametrize(
    ("image", "body", "why"),
    [
        (False, image_body(), "no image tool"),
        (True, image_body(model=CHAT_MODEL), f"allowed on {ROUTE} only"),
        (True, image_body(stream=True), "not streamed"),
        (True, {**image_body(), "modalities": ["text"]}, "asks for image output"),
    ],
)
def test_image_output_is_refused_unless_the_arm_allows_it(
    sim: Simulator, tmp_path: Path, image: bool, body: dict[str, Any], why: str
) -> None:
    log = tmp_path / "gateway.jsonl"
    with proxy_for(sim, log, image=image) as proxy:
        answer = post(proxy, body)
        proxy.drain()  # every exchange accounted (the books close after the last byte)
        state = proxy.state
    assert answer.status_code == 400 and why in answer.json()["error"]["message"]
    assert answer.json()["error"]["metadata"]["reason"] == "not_allowed"
    assert sim.requests == []  # never reached the gateway
    (record,) = read_exchanges(log)
    assert (record.kind, record.refused, record.cost_usd) == ("image", "not_allowed", 0.0)
    assert state.steps == 0 and not state.budget_ceiling_hit


def test_an_image_call_whose_worst_case_passes_the_ceiling_is_refused_whole(
    sim: Simulator, tmp_path: Path
) -> None:
    log = tmp_path / "gateway.jsonl"
    worst = 2048 * 0.00003  # max_tokens at the dearer price (image_output), about $0.061
    with proxy_for(sim, log, budget=worst - 0.001) as proxy:
        refused = post(proxy, image_body())
        proxy.drain()  # every exchange accounted (the books close after the last byte)
        state = proxy.state
    assert refused.status_code == 400
    assert refused.json()["error"]["metadata"]["reason"] == "budget_ceiling"
    assert "worst case" in refused.json()["error"]["message"]
    assert sim.requests == []
    (record,) = read_exchanges(log)
    assert record.refused == "budget_ceiling" and record.max_tokens_change is not None
    assert record.max_tokens_change.forwarded is None
    assert not state.budget_ceiling_hit  # the session goes on: chat may still fit
    with proxy_for(sim, tmp_path / "g2.jsonl", budget=worst + 0.01) as proxy:
        assert post(proxy, image_body()).status_code == 200  # it fits: forwarded unchanged
    assert sim.requests[-1]["max_tokens"] == 2048


def test_image_spend_leaves_less_budget_for_chat(sim: Simulator, tmp_path: Path) -> None:
    log = tmp_path / "gateway.jsonl"
    with proxy_for(sim, log, budget=0.0391) as proxy:  # the image's worst case: $0.0390
        assert post(proxy, image_body(max_tokens=1300)).status_code == 200
        chat = post(proxy, {"model": CHAT_MODEL, "max_tokens": 1000,
                            "messages": [{"role": "user", "content": "go"}]})  # fmt: skip
    assert chat.status_code == 200
    # $0.0004 was left after the image's $0.0387: the chat step's limit is cut to fit it
    assert sim.requests[-1]["max_tokens"] < 40
    (_, text) = read_exchanges(log)
    assert text.budget_capped == sim.requests[-1]["max_tokens"]


# -- the command -----------------------------------------------------------------------------
def run_tool(worktree: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    worktree.mkdir(parents=True, exist_ok=True)
    base = {"PATH": f"{TOOLS_DIR}:{NODE_BIN_DIR}:/usr/bin:/bin", "SITEOS_WORKTREE": str(worktree)}
    return subprocess.run(["siteos-image", *args], env={**base, **env}, cwd=worktree,
                          capture_output=True, text=True, timeout=60)  # fmt: skip


def test_the_command_writes_the_route_s_image_and_says_what_it_cost(
    sim: Simulator, tmp_path: Path
) -> None:
    worktree = tmp_path / "wt"
    (worktree / "public" / "media").mkdir(parents=True)
    with proxy_for(sim, tmp_path / "gateway.jsonl") as proxy:
        env = {"SITEOS_IMAGE_BACKEND": "gateway", "SITEOS_IMAGE_ROUTE": ROUTE,
               "SITEOS_GATEWAY_URL": proxy.base_url, "SITEOS_IMAGE_MAX_TOKENS": "2048"}  # fmt: skip
        done = run_tool(worktree, env, "A sunlit loft", "--out", "public/media/hero.png")
        outside = run_tool(worktree, env, "A sunlit loft", "--out", "src/hero.png")
    assert done.returncode == 0, done.stderr
    written = worktree / "public" / "media" / "hero.png"
    (record,) = read_exchanges(tmp_path / "gateway.jsonl")
    assert record.images[0].bytes == written.stat().st_size
    assert f"wrote public/media/hero.png (image/png, {written.stat().st_size} bytes" in done.stdout
    assert f"cost ${record.cost_usd:.4f} ({IMAGE_TOKENS} image tokens)" in done.stdout
    assert decode_png(written.read_bytes())[:2] == (320, 200)
    validate("chat_request", record.request)
    assert outside.returncode == 64 and "under public/media/" in outside.stderr
    assert not (worktree / "src").exists()


def test_the_command_says_clearly_when_the_budget_refuses(sim: Simulator, tmp_path: Path) -> None:
    worktree = tmp_path / "wt"
    with proxy_for(sim, tmp_path / "gateway.jsonl", budget=0.01) as proxy:
        env = {"SITEOS_IMAGE_BACKEND": "gateway", "SITEOS_IMAGE_ROUTE": ROUTE,
               "SITEOS_GATEWAY_URL": proxy.base_url}  # fmt: skip
        refused = run_tool(worktree, env, "A sunlit loft", "--out", "public/media/hero.png")
    assert refused.returncode == 2
    assert "refused: the unit's budget cannot pay for this image" in refused.stderr
    assert not (worktree / "public").exists()


def test_the_placebo_command_draws_a_plain_image_without_any_model(tmp_path: Path) -> None:
    worktree = tmp_path / "wt"
    env = {"SITEOS_IMAGE_BACKEND": "placeholder", "SITEOS_GATEWAY_URL": "http://127.0.0.1:9/x"}
    first = run_tool(worktree, env, "A sunlit loft", "--out", "public/media/hero.png")
    image = (worktree / "public" / "media" / "hero.png").read_bytes()
    second = run_tool(worktree, env, "A dark hall", "--out=public/media/hall.png")
    assert first.returncode == 0 and second.returncode == 0
    assert "a placeholder drawn locally, no model; cost $0.0000" in first.stdout
    assert (worktree / "public" / "media" / "hall.png").read_bytes() == image  # plain, same
    assert len(set(decode_png(image)[2])) <= 4  # one colour (and the filter byte)
    usage = run_tool(worktree, env, "--out", "public/media/x.png")
    assert usage.returncode == 64 and "no prompt" in usage.stderr


def test_the_harness_puts_the_command_first_on_the_agent_s_path(tmp_path: Path) -> None:
    spec = SandboxSpec(worktree=tmp_path / "wt", home=tmp_path / "h",
                       gateway_socket=tmp_path / "gw" / "s.sock")  # fmt: skip
    install_tool(spec, None)
    assert spec.env == {} and spec.ro_binds == {}
    install_tool(spec, ImageTool(backend="gateway", route=ROUTE, max_tokens=2048))
    assert spec.ro_binds["/opt/siteos/tools"] == TOOLS_DIR
    assert spec.env["PATH"].startswith("/opt/siteos/tools:")
    assert spec.env["SITEOS_GATEWAY_URL"] == "http://127.0.0.1:18080/api/v1"  # the proxy's
    assert (spec.env["SITEOS_IMAGE_ROUTE"], spec.env["SITEOS_WORKTREE"]) == (ROUTE, "/workspace")


# -- the arm manifest ------------------------------------------------------------------------
def manifest(**fields: Any) -> dict[str, Any]:
    return {"id": "image-model", "factor": "tools", "title": "t", "adds": "a", "baseline": False,
            "placebo": False, "source": "s", **fields}  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({}, "names its tool"),
        ({"tool": {"backend": "gateway"}}, "names its image-output route"),
        ({"placebo": True, "tool": {"backend": "gateway", "route": ROUTE}}, "placeholder"),
        ({"tool": {"backend": "placeholder"}}, "the placebo's"),
        ({"baseline": True, "tool": {"backend": "placeholder"}}, "adds no tool"),
        ({"factor": "method", "tool": {"backend": "gateway", "route": ROUTE}}, "only a tools"),
        ({"schema_version": 1, "tool": {"backend": "gateway", "route": ROUTE}}, "version 2"),
    ],
)
def test_a_tools_arm_names_the_right_tool(fields: dict[str, Any], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        ArmManifest.model_validate(manifest(**fields))


def test_a_tool_route_must_output_images() -> None:
    text_only = json.loads(json.dumps(RECORD))
    text_only["architecture"]["output_modalities"] = ["text"]
    with pytest.raises(ValueError, match="not an image-output route"):
        ImageRoute.from_record(text_only)
    with pytest.raises(ValueError, match="not an image-output route"):
        snapshot_image_route("ai21/jamba-large-1.7")
