"""An OpenRouter-compatible HTTP server on 127.0.0.1 that serves scripted models.

The same scripted turns answer `POST /chat/completions`, `/messages` (Anthropic) and
`/responses` (OpenAI), each in its own wire format (`formats.py`): routing, `require_parameters`,
the 402 reservation, delays, scripted errors, stalls and cut streams work alike in all three.
Image routes (`image_routes`: catalogue records of image-output routes, a tools round's) are
listed by `/models` as the catalogue has them and answer image requests on chat/completions with
a deterministic image (`images.py`), billed to the key and kept for `GET /generation`.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from gateway.simulator import render
from gateway.simulator.account import ScriptedKey, TransientFailures
from gateway.simulator.catalogue import live_shape, rehearsal_models, served_records
from gateway.simulator.formats import (
    BadRequest,
    ChatFormat,
    ReplyRenderer,
    WireFormat,
)
from gateway.simulator.images import ImageRequestError, image_answer
from gateway.simulator.render_messages import MessagesFormat
from gateway.simulator.render_responses import ResponsesFormat
from gateway.simulator.turns import Reply, ScriptError, materialise
from records.catalogue import Catalogue
from records.image_tool import ImageRoute
from records.inputs import RoundSettings, load_cohort
from records.io import RecordError
from records.layout import BENCHMARK_DIR, REPO_ROOT
from records.simulator_scripts import (
    ErrorSpec,
    ScriptedModel,
    load_script,
    load_scripts,
    vary,
)

API = "/api/v1"
CHAT = ChatFormat()
FORMATS: dict[str, WireFormat] = {f.path: f for f in (CHAT, MessagesFormat(), ResponsesFormat())}
NO_ENDPOINTS = "No endpoints found that can handle the requested parameters."
NO_ALLOWED = "No allowed providers are available for the selected model."
IMAGE_PROVIDER = "Google AI Studio"  # a real provider name (the spec's enum) for image routes


def _tag(provider_name: str) -> str:
    """A provider's slug as its endpoint's `tag` gives it (what provider.only takes)."""
    return provider_name.lower().replace(" ", "-")


def varied(
    keys: list[str],
    scripts: list[ScriptedModel],
    variations: dict[str, str] | None,
    source: Path,
) -> list[ScriptedModel]:
    """`scripts` (one per candidate key, in order) with each varied candidate's script given the
    session behaviour of its variation file (relative to benchmark/)."""
    variations = variations or {}
    unknown = sorted(set(variations) - set(keys))
    if unknown:
        raise RecordError(f"{source}: no candidate {', '.join(unknown)} to vary")
    return [
        vary(script, load_script(BENCHMARK_DIR / variations[key])) if key in variations else script
        for key, script in zip(keys, scripts, strict=True)
    ]


class Simulator:
    """`with Simulator(scripts) as sim: sim.base_url` — a threaded server on 127.0.0.1."""

    def __init__(
        self,
        scripts: list[ScriptedModel],
        *,
        port: int = 0,
        repo_root: Path = REPO_ROOT,
        api_key: str | None = None,
        generation_lag_seconds: float = 0.1,
        catalogue: Catalogue | None = None,
        key_limit_usd: float | None = None,
        image_routes: list[dict[str, Any]] | None = None,
    ) -> None:
        self.models = {s.catalogue.id: s for s in scripts}
        # route -> its catalogue record (image output), answered by `images.image_answer`
        self.image_routes = {str(r["id"]): r for r in image_routes or []}
        self.catalogue = catalogue  # a rehearsal's snapshot: /models answers its records
        self.key = ScriptedKey(limit_usd=key_limit_usd)
        self.transient = TransientFailures()
        self.repo_root = repo_root
        self.api_key = api_key
        self.generation_lag_seconds = generation_lag_seconds
        self.generations: dict[str, tuple[float, dict[str, Any]]] = {}
        self.requests: list[dict[str, Any]] = []  # model request bodies received, for tests
        self.hung_up: list[str] = []  # generation ids of streams whose client hung up
        self.stopping = threading.Event()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self._server.daemon_threads = True
        self._server.simulator = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    @classmethod
    def from_dir(cls, models_dir: Path, **kwargs: Any) -> Simulator:
        return cls(load_scripts(models_dir), **kwargs)

    @classmethod
    def from_cohort(
        cls, cohort_path: Path, variations: dict[str, str] | None = None, **kwargs: Any
    ) -> Simulator:
        """Every candidate's `scripted_model` (relative to benchmark/); `variations` (candidate
        key -> script file) gives a candidate that script's session behaviour instead."""
        cohort = load_cohort(cohort_path)
        scripted = [c for c in cohort.candidates if c.scripted_model]
        scripts = [load_script(BENCHMARK_DIR / str(c.scripted_model)) for c in scripted]
        keys = [c.key for c in scripted]
        return cls(varied(keys, scripts, variations, cohort_path), **kwargs)

    @classmethod
    def from_rehearsal(
        cls, settings: RoundSettings, variations: dict[str, str] | None = None, **kwargs: Any
    ) -> Simulator:
        """A rehearsal round: the snapshot's catalogue, each candidate's route with its script
        (`variations` as for `from_cohort`)."""
        scripts, catalogue = rehearsal_models(settings)
        keys = [c.key for c in load_cohort(settings.cohort_path).candidates]
        scripts = varied(keys, scripts, variations, settings.cohort_path)
        return cls(scripts, catalogue=catalogue, **kwargs)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{API}"

    def start(self) -> Simulator:
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="simulator", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> Simulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def next_generation_id(self) -> str:
        return f"gen-{int(time.time())}-{next(self._ids):06d}"

    def remember(
        self, generation_id: str, reply: Reply, streamed: bool, cancelled: bool = False
    ) -> None:
        """The generation record `GET /generation` answers; a `cancelled` one (the client hung
        up before the reply was generated) billed nothing."""
        created = datetime.now(UTC).isoformat()
        record = render.generation_record(reply, generation_id, created, streamed)
        if cancelled:
            record |= {"cancelled": True, "total_cost": 0.0, "usage": 0.0,
                       "upstream_inference_cost": 0.0, "tokens_completion": 0,
                       "native_tokens_completion": 0, "native_tokens_reasoning": 0}  # fmt: skip
        with self._lock:
            self.generations[generation_id] = (time.monotonic(), record)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "openrouter-simulator/1"

    @property
    def sim(self) -> Simulator:
        return self.server.simulator  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    # -- plumbing ------------------------------------------------------------------------------
    def _send(
        self,
        status: int,
        body: bytes,
        content_type: str = "application/json",
        generation_id: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if generation_id is not None:
            self.send_header("X-Generation-Id", generation_id)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data).encode())

    def _error(
        self,
        status: int,
        message: str,
        metadata: dict[str, Any] | None = None,
        fmt: WireFormat = CHAT,
    ) -> None:
        self._send(status, fmt.error_body(status, message, metadata))

    def _authorised(self, fmt: WireFormat = CHAT) -> bool:
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Bearer ") or not auth[7:].strip():
            self._error(401, "No auth credentials found", fmt=fmt)
            return False
        if self.sim.api_key is not None and auth[7:].strip() != self.sim.api_key:
            self._error(401, "User not found.", fmt=fmt)
            return False
        return True

    # -- routes --------------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        url = urlsplit(self.path)
        path = url.path.rstrip("/")
        if not path.startswith(API):
            return self._error(404, "Not Found")
        route = path[len(API) :]
        if route == "/models":
            return self._models(parse_qs(url.query))
        if route.startswith("/models/") and route.endswith("/endpoints"):
            return self._endpoints(route[len("/models/") : -len("/endpoints")])
        if not self._authorised():
            return None
        if route == "/generation":
            return self._generation(parse_qs(url.query).get("id", [""])[0])
        if route == "/key":
            return self._json(200, {"data": self.sim.key.data()})
        return self._error(404, "Not Found")

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = urlsplit(self.path).path.rstrip("/")
        fmt = FORMATS.get(path[len(API) :]) if path.startswith(API) else None
        if fmt is None:
            return self._error(404, "Not Found")
        if not self._authorised(fmt):
            return None
        try:
            body = json.loads(raw)
            assert isinstance(body, dict)
        except (json.JSONDecodeError, AssertionError, UnicodeDecodeError):
            return self._error(400, "Invalid JSON body", fmt=fmt)
        with self.sim._lock:
            self.sim.requests.append(body)
        return self._serve(fmt, body)

    def _models(self, query: dict[str, list[str]]) -> None:
        wanted = [p for v in query.get("supported_parameters", []) for p in v.split(",") if p]
        if self.sim.catalogue is not None:  # a rehearsal: the snapshot's records as they are
            entries = [
                r
                for r in served_records(self.sim.catalogue)
                if all(p in (r.get("supported_parameters") or []) for p in wanted)
            ]
        else:
            entries = [
                _catalogue_entry(s)
                for s in self.sim.models.values()
                if s.catalogue.listed and all(p in s.catalogue.supported_parameters for p in wanted)
            ]
            entries += [
                _image_entry(r)
                for rid, r in self.sim.image_routes.items()
                if rid not in self.sim.models
                and all(p in (r.get("supported_parameters") or []) for p in wanted)
            ]
        self._json(200, {"data": entries, "total_count": len(entries), "links": {"next": None}})

    def _endpoints(self, model_id: str) -> None:
        script = self.sim.models.get(model_id)
        if script is None or not script.catalogue.listed:
            return self._error(404, f"Model {model_id} not found")
        cat = script.catalogue
        endpoint = {
            "name": f"{cat.provider_name} | {cat.id}",
            "model_id": cat.id,
            "model_name": cat.name,
            "context_length": cat.context_length,
            "pricing": cat.pricing,
            "provider_name": cat.provider_name,
            "tag": _tag(cat.provider_name),
            "quantization": "unknown",
            "max_completion_tokens": cat.max_completion_tokens,
            "max_prompt_tokens": None,
            "supported_parameters": cat.supported_parameters,
            "status": 0,
            "uptime_last_30m": 100,
        }
        data = {"id": cat.id, "name": cat.name, "created": cat.created, "description": "",
                "architecture": _ARCHITECTURE, "endpoints": [endpoint]}  # fmt: skip
        self._json(200, {"data": data})

    def _generation(self, generation_id: str) -> None:
        with self.sim._lock:
            entry = self.sim.generations.get(generation_id)
        if entry is None or time.monotonic() - entry[0] < self.sim.generation_lag_seconds:
            return self._error(404, f"Generation {generation_id} not found")
        return self._json(200, {"data": entry[1]})

    def _serve(self, fmt: WireFormat, body: dict[str, Any]) -> None:
        """Answer one model request in `fmt` from the script of its model."""
        try:
            request = fmt.request(body)  # as chat/completions fields
        except BadRequest as exc:
            return self._error(400, f"Invalid request: {exc}", fmt=fmt)
        model_id = str(body.get("model") or "")
        if model_id in self.sim.image_routes and model_id not in self.sim.models:
            return self._image(fmt, model_id, body)
        script = self.sim.models.get(model_id)
        if script is None or not script.catalogue.listed:
            return self._error(400, f"{model_id} is not a valid model ID", fmt=fmt)
        raw = body.get("provider")
        provider: dict[str, Any] = raw if isinstance(raw, dict) else {}
        serving = _tag(script.catalogue.provider_name)
        only = provider.get("only") if isinstance(provider.get("only"), list) else None
        if only is not None and serving not in only:  # live: 404 naming both lists
            meta = {"available_providers": [serving], "requested_providers": only}
            return self._error(404, NO_ALLOWED, meta, fmt)
        if provider and provider.get("require_parameters"):
            supported = script.catalogue.supported_parameters
            missing = sorted(p for p in fmt.parameters(body) if p not in supported)
            if missing:
                return self._error(404, NO_ENDPOINTS, {"missing_parameters": missing}, fmt)
        shortfall = self._reservation(script, request)
        if shortfall is not None:
            return self._error(402, shortfall, {"provider_name": None}, fmt)
        generation_id = self.sim.next_generation_id()
        try:
            reply = materialise(script, request, self.sim.repo_root, f"call_{generation_id[-6:]}")
        except ScriptError as exc:  # 400, not 5xx: agents retry 5xx forever
            message = f"scripted model {model_id}: {exc}"
            return self._error(400, message, {"simulator": "script"}, fmt)
        out = fmt.renderer(reply, generation_id, int(time.time()))
        if reply.delay_seconds and self.sim.stopping.wait(reply.delay_seconds):
            return None
        error = reply.error
        if error is not None and not self.sim.transient.fail_now(
            (model_id, str(reply.probe), reply.workdir, str(reply.turn_number)), error.times
        ):
            error = reply.error = None
        if error is not None and error.kind == "stall" and body.get("stream"):
            return self._stream(out, reply, generation_id, stall=error)
        if error is not None and error.kind == "stall":
            if self.sim.stopping.wait(error.hang_seconds):
                return None
            error = reply.error = None
        if error is not None and error.kind == "hang":
            self.sim.stopping.wait(error.hang_seconds)
            self.close_connection = True
            return None
        if error is not None and error.kind == "http":
            meta = error.metadata or {"provider_name": reply.provider}
            code = error.code if isinstance(error.code, int) else error.status
            pacing = rate_limit_headers(error.retry_after_seconds) if error.status == 429 else {}
            if pacing:  # live repeats the rate-limit headers in the body's metadata
                meta = {**meta, "headers": {k: v for k, v in pacing.items() if k != "Retry-After"}}
            return self._send(
                error.status, fmt.error_body(code, error.message, meta), headers=pacing
            )
        if body.get("stream"):
            return self._stream(out, reply, generation_id)
        if error is not None and error.kind != "truncate":  # after routing: a 200 error body
            return self._send(200, json.dumps(out.body_error()).encode(),
                              generation_id=generation_id)  # fmt: skip
        self._served(generation_id, reply, streamed=False)
        return self._send(200, json.dumps(out.json_body()).encode(), generation_id=generation_id)

    def _image(self, fmt: WireFormat, model_id: str, body: dict[str, Any]) -> None:
        """An image route's answer: one deterministic image, billed at the catalogue's prices."""
        if fmt is not CHAT:
            return self._error(
                400, f"{model_id} generates images on chat/completions only", fmt=fmt
            )
        route = ImageRoute.from_record(self.sim.image_routes[model_id])
        generation_id = self.sim.next_generation_id()
        provider = IMAGE_PROVIDER
        try:
            answer, numbers, cost = image_answer(
                route, body, generation_id, int(time.time()), provider
            )
        except ImageRequestError as exc:
            return self._error(400, f"Invalid request: {exc}", {"provider_name": provider})
        reservation = self.sim.key.shortfall(
            int(body.get("max_tokens") or route.max_output or 0),
            max(route.completion, route.image_output),
        )
        if reservation is not None:
            return self._error(402, reservation, {"provider_name": None})
        reply = Reply(
            text=answer["choices"][0]["message"]["content"], model=route.id, provider=provider,
            prompt_tokens=numbers["prompt_tokens"],
            completion_tokens=numbers["completion_tokens"], cost=cost, billed=cost,
        )  # fmt: skip
        self._served(generation_id, reply, streamed=False)
        with self.sim._lock:  # the generation record counts the image
            self.sim.generations[generation_id][1].update(
                native_tokens_completion_images=numbers["image_tokens"], num_media_completion=1
            )
        return self._send(200, json.dumps(answer).encode(), generation_id=generation_id)

    def _reservation(self, script: ScriptedModel, request: dict[str, Any]) -> str | None:
        """OpenRouter's 402: `max_tokens` at the completion price beyond the key's credit."""
        requested = request.get("max_tokens")
        max_tokens = requested if isinstance(requested, int) and requested > 0 else None
        price = float(script.catalogue.pricing.get("completion", "0"))
        return self.sim.key.shortfall(max_tokens or script.catalogue.max_completion_tokens, price)

    def _served(self, generation_id: str, reply: Reply, streamed: bool) -> None:
        self.sim.remember(generation_id, reply, streamed)
        self.sim.key.charge(reply.billed)

    def _stream(
        self,
        out: ReplyRenderer,
        reply: Reply,
        generation_id: str,
        stall: ErrorSpec | None = None,
    ) -> None:
        """HTTP 200 SSE: keep-alives through a scripted stall, then the reply's events."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Generation-Id", generation_id)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        served = False

        def send(event: bytes) -> None:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            self.wfile.flush()

        try:
            if stall is not None and stall.partial_text:  # a stall after the last byte
                for event in out.opening(stall.partial_text):
                    send(event)
            if stall is not None:
                deadline = time.monotonic() + stall.hang_seconds
                while time.monotonic() < deadline:
                    send(render.KEEPALIVE)
                    pause = min(stall.keepalive_seconds, deadline - time.monotonic())
                    if self.sim.stopping.wait(max(pause, 0.0)):
                        return None
                reply.error = None
            if reply.error is None or reply.error.kind == "truncate":  # a cut stream is billed
                self._served(generation_id, reply, streamed=True)
                served = True
            for event in out.events():
                send(event)
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):  # the client hung up
            self.close_connection = True
            if not served:  # before the reply: the generation stopped, nothing billed
                self.sim.remember(generation_id, reply, streamed=True, cancelled=True)
            with self.sim._lock:
                self.sim.hung_up.append(generation_id)
        return None


def rate_limit_headers(retry_after_seconds: int, limit: int = 50) -> dict[str, str]:
    """What live OpenRouter sends with a 429: `X-RateLimit-Limit`, `-Remaining` (0) and `-Reset`
    (epoch milliseconds), and the `Retry-After` (seconds) clients pace their retries by."""
    reset_ms = int((time.time() + retry_after_seconds) * 1000)
    return {
        "Retry-After": str(retry_after_seconds),
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": str(reset_ms),
    }


_ARCHITECTURE = {
    "modality": "text->text",
    "input_modalities": ["text"],
    "output_modalities": ["text"],
    "tokenizer": "Other",
    "instruct_type": None,
}


def _image_entry(record: dict[str, Any]) -> dict[str, Any]:
    """An image route's snapshot record as `/models` lists it: a null `reasoning` (the snapshot
    keeps it, the spec's `ModelReasoning` does not allow it) left out, `supported_voices` (newer
    than the snapshot, required by the spec) null."""
    entry = live_shape(record)
    if entry.get("reasoning") is None:
        entry.pop("reasoning", None)
    entry.setdefault("supported_voices", None)
    return entry


def _catalogue_entry(script: ScriptedModel) -> dict[str, Any]:
    cat = script.catalogue
    entry: dict[str, Any] = {
        "id": cat.id,
        "canonical_slug": cat.canonical_slug,
        "name": cat.name,
        "created": cat.created,
        "description": script.description,
        "context_length": cat.context_length,
        "architecture": _ARCHITECTURE,
        "pricing": {"request": "0", "image": "0", **cat.pricing},
        "top_provider": {
            "context_length": cat.context_length,
            "max_completion_tokens": cat.max_completion_tokens,
            "is_moderated": False,
        },
        "per_request_limits": None,
        "default_parameters": None,
        "supported_voices": None,
        "supported_parameters": cat.supported_parameters,
        "links": {"details": f"{API}/models/{cat.id}/endpoints"},
    }
    if cat.reasoning is not None:
        entry["reasoning"] = cat.reasoning.model_dump()
    return entry
