"""The recording proxy between an agent and an OpenRouter-compatible gateway.

    with RecordingProxy(upstream=url, api_key=key, log_path=unit.gateway, policy=GatewayPolicy(),
                        step_ceiling=40, budget_usd=5.0) as proxy:
        proxy.base_url      # http://127.0.0.1:<port>/api/v1  (give this to the agent)
        proxy.socket_path   # the same API on a Unix socket (bind-mount it into a sandbox)
        proxy.state         # steps, cost, ceiling flags (a snapshot)

Every `/api/v1/*` request is forwarded to `upstream` with the proxy's own key (the agent's
Authorization header is dropped). Requests of a metered protocol (`protocols.py`: chat/completions,
Anthropic messages, OpenAI responses) get the frozen policy and are counted as agent steps; the
proxy's own answers (refusals, a bad body, an unreachable upstream) use the protocol's error shape.
A request that repeats the previous one whole (model, tools, sampling, policy fields, conversation)
from the same sender (User-Agent) keeps its step: after a failure that delivered no completion it
is the agent's transport retry (recorded), after a delivered completion a harness retry
(invalidating).
Steps past the ceiling are refused without reaching upstream; with catalogue `prices`, the hard
budget sets or lowers the output limit only when the request's worst case (its own limit, else the
route's maximum output) does not fit what is left (`budget.py`: `budget_capped`), and refuses the
step when nothing fits. Responses stream back unchanged, with the upstream's headers but hop-by-hop
and credentials (`relayed_headers`), while the proxy reads model, provider,
generation id, usage, keep-alives and errors (in-stream errors classed by their code). A stream
that brings no data for `stall_seconds` (keep-alives only, before its first chunk or after its last
one, or silence once it started) is ended as a provider stall; a stream that ends without a finish
(a `finish_reason`, a `stop_reason`, a final response status) is a truncated stream (an agent
would take it as a whole turn). Both are counted in `state` for the runner, which ends the session
as the provider's failure. A client that hangs up stops the upstream read. With
`fetch_generation`, every exchange with a generation id (errors and cut streams too) gets the
gateway's billed cost. One `ExchangeRecord` per request is appended to `log_path`; the key string
is redacted from every line.

Image calls (`images.py`): a chat/completions request that asks for image output (`modalities`
with "image") or names the `image_route` is a tools arm's image call, not an agent step. It is
allowed only on the unit's `image_route`, unstreamed; it is forwarded with usage on, relayed
unchanged, recorded as kind "image" (the images' sizes and hashes, not their bytes), and its cost
(the gateway's `usage.cost`, else its tokens at the route's prices) counts against the same
budget as chat. Its worst case (prompt + its output limit at the dearer of the completion and
image_output prices) must fit what is left, else it is refused whole (never cut: a cut image call
would bill and bring no image).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socketserver
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from gateway import budget
from gateway.client import OpenRouterClient
from gateway.errors import classify_status, classify_stream_error, error_fields
from gateway.images import image_fields, wants_image
from gateway.protocols import (
    DEFAULT_PROTOCOLS,
    ChatCompletions,
    MeteredProtocol,
    ResponseTranslator,
    openrouter_error_body,
    request_digest,
    translating,
)
from gateway.sse import StreamObservation
from records.evidence.gateway import (
    PROVIDER_ERRORS,
    ErrorClass,
    ExchangeRecord,
    GatewayPolicy,
    GenerationCheck,
    MaxTokensChange,
    Refusal,
    TokenUsage,
)
from records.image_tool import ImageRoute
from records.io import append_jsonl

CHAT = ChatCompletions()  # the image calls' protocol (its output limit and prompt size)
API = "/api/v1"
REDACTED = "[REDACTED]"
MIN_REDACTED_KEY = 8  # shorter keys are placeholders; replacing them would mangle the JSON
# `anthropic-version` and `anthropic-beta` say which Messages API the agent speaks (never a key:
# Anthropic's `x-api-key` is dropped with the Authorization header)
FORWARDED_HEADERS = (
    "user-agent", "http-referer", "x-title", "accept", "anthropic-version", "anthropic-beta",
)  # fmt: skip
# Response headers the proxy does not pass back: hop-by-hop (RFC 9110 7.6.1; the proxy frames its
# own answer, chunked), credentials, and the two every HTTP server writes for itself.
HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
    "te", "trailer", "trailers", "transfer-encoding", "upgrade", "content-length",
})  # fmt: skip
CREDENTIAL_HEADERS = frozenset({"authorization", "x-api-key", "cookie", "set-cookie"})
SERVER_OWN_HEADERS = frozenset({"date", "server"})
MAX_RESPONSE_CHARS = 2_000_000
MAX_IMAGE_RESPONSE_BYTES = 64_000_000  # an image call's whole body is read to measure its images


@dataclass(frozen=True)
class ProxyState:
    requests: int = 0
    steps: int = 0
    cost_usd: float = 0.0  # what the budget counts: known costs + estimates for unknown ones
    refused: int = 0
    retries: int = 0
    transport_retries: int = 0
    upstream_errors: int = 0
    provider_errors: int = 0  # the provider's failures (records.evidence.gateway.PROVIDER_ERRORS)
    stalls: int = 0
    truncated: int = 0
    step_ceiling_hit: bool = False
    budget_ceiling_hit: bool = False
    image_requests: int = 0  # image calls (in `requests` and, once served, in `cost_usd`)

    @property
    def ceiling(self) -> Refusal | None:
        if self.step_ceiling_hit:
            return "step_ceiling"
        return "budget_ceiling" if self.budget_ceiling_hit else None


@dataclass
class Admission:
    """How the proxy admits one metered request."""

    index: int
    step: int
    retry: bool
    transport_retry: bool
    refusal: Refusal | None
    body: dict[str, Any]  # to forward (max_tokens possibly lowered)
    change: MaxTokensChange | None = None
    reserved_usd: float = 0.0
    refusal_reason: str = ""


class RecordingProxy:
    """A threaded HTTP proxy on 127.0.0.1:<ephemeral> and a Unix socket; see the module doc."""

    def __init__(
        self,
        *,
        upstream: str,
        api_key: str,
        log_path: Path,
        policy: GatewayPolicy | None = None,
        step_ceiling: int = 40,
        budget_usd: float | None = None,
        socket_path: Path | None = None,
        fetch_generation: bool = False,
        upstream_read_timeout: float = 300.0,
        on_ceiling: Callable[[Refusal], None] | None = None,
        prices: budget.Prices | None = None,
        stall_seconds: float | None = None,
        protocols: tuple[MeteredProtocol, ...] = DEFAULT_PROTOCOLS,
        image_route: ImageRoute | None = None,
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.api_key = api_key
        self.log_path = log_path
        self.policy = policy or GatewayPolicy()
        self.step_ceiling = step_ceiling
        self.budget_usd = budget_usd
        self.fetch_generation = fetch_generation
        self.on_ceiling = on_ceiling
        self.prices = prices
        self.stall_seconds = stall_seconds
        self.image_route = image_route
        self.protocols = {p.path: p for p in protocols}
        self._fronts = [t for p in protocols if (t := translating(p)) is not None]
        self._lock = threading.Lock()
        self._log_lock = threading.Lock()
        self._state = ProxyState()
        self._last_request: str | None = None
        self._last_delivered: bool | None = None  # None: the last metered request is in flight
        self._last_index = 0  # the last metered request's index
        self._settled: set[int] = set()  # metered requests whose outcome is counted
        self._reserved = 0.0
        self._tokens_per_byte = 0.0
        self._ceiling_called = False
        self.read_timeout = upstream_read_timeout
        self._http = httpx.Client(
            timeout=httpx.Timeout(30.0, read=upstream_read_timeout),
            trust_env=False,
            follow_redirects=False,
        )
        self._tmpdir: str | None = None
        if socket_path is None:
            self._tmpdir = tempfile.mkdtemp(prefix="gwproxy-")
            socket_path = Path(self._tmpdir) / "proxy.sock"
        self.socket_path = socket_path
        self._tcp = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._tcp.daemon_threads = True
        self._tcp.proxy = self  # type: ignore[attr-defined]
        socket_path.unlink(missing_ok=True)
        self._unix = _UnixHTTPServer(str(socket_path), _Handler)
        self._unix.proxy = self  # type: ignore[attr-defined]
        os.chmod(socket_path, 0o666)
        self._threads: list[threading.Thread] = []
        self._in_flight = 0
        self._idle = threading.Condition(self._lock)

    # -- lifecycle -------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return int(self._tcp.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{API}"

    @property
    def state(self) -> ProxyState:
        with self._lock:
            return self._state

    def start(self) -> RecordingProxy:
        for server in (self._tcp, self._unix):
            thread = threading.Thread(
                target=server.serve_forever, args=(0.05,), name="gateway-proxy", daemon=True
            )
            thread.start()
            self._threads.append(thread)
        return self

    def drain(self, timeout: float = 10.0) -> bool:
        """Wait until no exchange is in flight (all records written); False on timeout."""
        with self._idle:
            return self._idle.wait_for(lambda: self._in_flight == 0, timeout)

    def stop(self, drain_timeout: float = 10.0) -> None:
        """Stop serving; in-flight exchanges get `drain_timeout` seconds to finish their records."""
        self.drain(drain_timeout)
        for server in (self._tcp, self._unix):
            server.shutdown()
            server.server_close()
        self._http.close()
        self.socket_path.unlink(missing_ok=True)
        if self._tmpdir:
            shutil.rmtree(self._tmpdir, ignore_errors=True)

    def __enter__(self) -> RecordingProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def in_flight(self) -> int:
        """Requests the proxy is handling right now."""
        with self._lock:
            return self._in_flight

    # -- bookkeeping (called from handler threads) -----------------------------------------------
    def protocol_for(self, route: str) -> MeteredProtocol | None:
        """The protocol that meters `route` (relative to `/api/v1`, no query): an exact path,
        else a translating front end's."""
        found = self.protocols.get(route)
        if found is not None and translating(found) is None:
            return found
        return next((p for p in self._fronts if p.matches(route)), None)

    @contextmanager
    def exchange(self) -> Iterator[None]:
        with self._lock:
            self._in_flight += 1
        try:
            yield
        finally:
            with self._idle:
                self._in_flight -= 1
                self._idle.notify_all()

    def admit(self, protocol: MeteredProtocol, body: dict[str, Any], sender: str = "") -> Admission:
        """Count one metered request (`body` under the policy, `sender` its client's User-Agent):
        its step, retry kind, refusal and budgeted body."""
        digest = request_digest(body, sender)
        with self._lock:
            s = self._state
            repeat = digest == self._last_request
            transport = repeat and self._last_delivered is False
            retry = repeat and not transport
            self._last_request, self._last_delivered = digest, None
            self._last_index = s.requests + 1
            steps = s.steps if repeat else s.steps + 1
            admission = Admission(self._last_index, steps, retry, transport, None, body)
            if steps > self.step_ceiling:
                admission.refusal = "step_ceiling"
                admission.refusal_reason = f"step ceiling of {self.step_ceiling} reached"
            elif self.budget_usd is not None:
                self._budget(protocol, admission, self.budget_usd - s.cost_usd - self._reserved)
            refusal = admission.refusal
            self._reserved += admission.reserved_usd
            self._state = replace(
                s,
                requests=s.requests + 1,
                steps=min(steps, self.step_ceiling),
                retries=s.retries + retry,
                transport_retries=s.transport_retries + transport,
                refused=s.refused + (refusal is not None),
                step_ceiling_hit=s.step_ceiling_hit or refusal == "step_ceiling",
                budget_ceiling_hit=s.budget_ceiling_hit or refusal == "budget_ceiling",
            )
            notify = refusal is not None and not self._ceiling_called
            self._ceiling_called |= notify
        if notify and refusal is not None and self.on_ceiling is not None:
            self.on_ceiling(refusal)
        return admission

    def _budget(self, protocol: MeteredProtocol, admission: Admission, remaining: float) -> None:
        """The hard budget (called with the lock held): refuse, or lower max_tokens to fit."""
        limit = f"budget ceiling of ${self.budget_usd:g} reached"
        if remaining <= 0:
            admission.refusal, admission.refusal_reason = "budget_ceiling", limit
            return
        if self.prices is None:
            return  # no catalogue prices: only the cumulative check above
        body = admission.body
        prompt = budget.estimate_prompt_tokens(protocol.prompt_bytes(body), self._tokens_per_byte)
        requested = protocol.max_tokens(body)
        fit = budget.fit(self.prices, remaining, prompt, requested)
        if fit.capped:
            admission.change = MaxTokensChange(
                requested=requested, forwarded=fit.max_tokens, remaining_usd=round(remaining, 8),
                prompt_tokens_estimate=prompt, worst_case_usd=round(fit.worst_case_usd, 8),
            )  # fmt: skip
        admission.reserved_usd = fit.worst_case_usd
        if fit.refused:
            admission.refusal = "budget_ceiling"
            admission.refusal_reason = (
                f"{limit}: ${remaining:.4f} left cannot pay for this request's prompt "
                f"(about {prompt} tokens) and one completion token"
            )
            admission.reserved_usd = 0.0
            return
        if fit.capped and fit.max_tokens is not None:
            admission.body = protocol.with_max_tokens(body, fit.max_tokens)

    def admit_image(self, body: dict[str, Any], prompt_bytes: int) -> Admission:
        """Count one image call: allowed only on the unit's image route, unstreamed, and only
        when its whole worst case fits what is left of the budget (no step, no retry baseline)."""
        route = self.image_route
        model = str(body.get("model") or "")
        with self._lock:
            s = self._state
            admission = Admission(s.requests + 1, 0, False, False, None, body)
            if route is None:
                admission.refusal = "not_allowed"
                admission.refusal_reason = "this unit's arm has no image tool: image output refused"
            elif model != route.id:
                admission.refusal = "not_allowed"
                admission.refusal_reason = (
                    f"image output is allowed on {route.id} only, not on {model or '(no model)'}"
                )
            elif not wants_image({"modalities": body.get("modalities")}, None):
                admission.refusal = "not_allowed"
                admission.refusal_reason = (
                    f"a call to the image route {route.id} asks for image output "
                    '(modalities ["image", "text"])'
                )
            elif body.get("stream"):
                admission.refusal = "not_allowed"
                admission.refusal_reason = "an image call is not streamed (stream: false)"
            elif self.budget_usd is not None:
                self._image_budget(route, admission, prompt_bytes)
            self._reserved += admission.reserved_usd
            self._state = replace(s, requests=s.requests + 1, image_requests=s.image_requests + 1)
        return admission

    def _image_budget(self, route: ImageRoute, admission: Admission, prompt_bytes: int) -> None:
        """The hard budget for an image call (lock held): its worst case whole, or a refusal."""
        assert self.budget_usd is not None
        remaining = self.budget_usd - self._state.cost_usd - self._reserved
        prompt = budget.estimate_prompt_tokens(prompt_bytes, self._tokens_per_byte)
        requested = CHAT.max_tokens(admission.body)
        wanted = requested if requested is not None else route.max_output
        dearer = max(route.completion, route.image_output)
        prices = budget.Prices(route.prompt, dearer, route.max_output)
        fit = budget.fit(prices, remaining, prompt, requested)
        worst = prices.cost(prompt, wanted or 0) if wanted is not None else fit.worst_case_usd
        if remaining <= 0 or fit.capped or wanted is None:
            admission.refusal = "budget_ceiling"
            admission.refusal_reason = (
                f"budget ceiling of ${self.budget_usd:g}: ${max(remaining, 0.0):.4f} left cannot "
                f"pay for this image call's worst case (${worst:.4f}: about {prompt} prompt "
                f"tokens and {wanted or 'unlimited'} output tokens at ${dearer:g} a token)"
            )
            admission.change = MaxTokensChange(
                requested=requested, forwarded=None, remaining_usd=round(remaining, 8),
                prompt_tokens_estimate=prompt, worst_case_usd=round(worst, 8),
            )  # fmt: skip
            return
        admission.reserved_usd = worst

    def image_cost(self, record: ExchangeRecord, reserved: float) -> float:
        """What the budget counts for a finished image call: its cost, else its tokens at the
        route's prices, else the worst case it reserved."""
        cost = record.cost_usd
        if cost is not None:
            return cost
        if record.usage is not None and self.image_route is not None:
            return self.image_route.cost(
                record.usage.prompt, record.usage.completion, record.image_tokens or 0
            )
        return reserved

    def account_image(self, record: ExchangeRecord, reserved: float) -> None:
        """Close an image call's books: its spend joins the unit's budget."""
        record.budget_cost_usd = round(self.image_cost(record, reserved), 10)
        with self._lock:
            s = self._state
            self._reserved = max(0.0, self._reserved - reserved)
            self._state = replace(s, cost_usd=s.cost_usd + record.budget_cost_usd)

    def budget_cost(self, record: ExchangeRecord, reserved: float) -> float:
        """What the budget counts for a finished exchange: its cost, else an estimate."""
        cost = record.cost_usd
        if cost is not None:
            return cost
        if record.usage is not None and self.prices is not None:
            return self.prices.cost(record.usage.prompt, record.usage.completion)
        return reserved  # nothing reported: assume the worst case the budget allowed

    def learn_tokens(self, prompt_bytes: int, usage: TokenUsage | None) -> None:
        if usage is not None and usage.prompt > 0 and prompt_bytes > 0:
            with self._lock:
                self._tokens_per_byte = max(self._tokens_per_byte, usage.prompt / prompt_bytes)

    def count_other(self) -> int:
        with self._lock:
            self._state = replace(self._state, requests=self._state.requests + 1)
            return self._state.requests

    def settle(self, record: ExchangeRecord) -> None:
        """Count a metered exchange's outcome before the client can read its last byte (once).

        A client that retries at once must find the previous outcome settled: a request that
        repeats an undelivered one is a transport retry, whatever the machine's load (only the
        latest metered request sets that baseline). The runner, which polls `state`, sees a
        failure even when the agent exits the moment the failed response ends."""
        error = record.error_class
        with self._lock:
            if record.index in self._settled:
                return
            self._settled.add(record.index)
            if record.index == self._last_index:
                self._last_delivered = record.delivered
            s = self._state
            self._state = replace(
                s,
                upstream_errors=s.upstream_errors + (error is not None),
                provider_errors=s.provider_errors + (error in PROVIDER_ERRORS),
                stalls=s.stalls + (error == ErrorClass.PROVIDER_STALL),
                truncated=s.truncated + (error == ErrorClass.TRUNCATED_STREAM),
            )

    def account(self, record: ExchangeRecord, reserved: float) -> None:
        """Close a finished metered exchange's books: its budget spend, and the retry baseline
        once more (a client that hung up at the last byte was not delivered to after all)."""
        self.settle(record)
        record.budget_cost_usd = round(self.budget_cost(record, reserved), 10)
        with self._lock:
            s = self._state
            self._reserved = max(0.0, self._reserved - reserved)
            if record.index == self._last_index:
                self._last_delivered = record.delivered
            self._state = replace(s, cost_usd=s.cost_usd + record.budget_cost_usd)

    def redact(self, text: str) -> str:
        if len(self.api_key) < MIN_REDACTED_KEY:
            return text
        return text.replace(self.api_key, REDACTED)

    def write(self, record: ExchangeRecord) -> None:
        line = self.redact(record.model_dump_json())
        with self._log_lock:
            append_jsonl(self.log_path, json.loads(line))

    def generation_check(self, generation_id: str) -> GenerationCheck:
        try:
            with OpenRouterClient(self.upstream, self.api_key, timeout=10) as client:
                gen = client.generation(generation_id)
            return GenerationCheck(
                model=gen.model, provider=gen.provider_name, total_cost=gen.total_cost
            )
        except Exception as exc:  # noqa: BLE001 - recorded, never fatal to the exchange
            return GenerationCheck(error=self.redact(f"{type(exc).__name__}: {exc}"))

    @contextmanager
    def upstream_request(
        self, method: str, path: str, body: bytes | None, headers: dict[str, str]
    ) -> Iterator[httpx.Response]:
        """The upstream response, streamed, with the proxy's key in place of the client's."""
        out = {k: v for k, v in headers.items() if k.lower() in FORWARDED_HEADERS}
        out["Authorization"] = f"Bearer {self.api_key}"
        out["Accept-Encoding"] = "identity"
        if body is not None:
            out["Content-Type"] = "application/json"
        url = self.upstream + path[len(API) :]
        with self._http.stream(method, url, content=body, headers=out) as response:
            yield response


def relayed_headers(headers: httpx.Headers) -> list[tuple[str, str]]:
    """The upstream response's headers the client gets (every one but hop-by-hop, credentials,
    `Date` and `Server`, and the headers the `Connection` header names as hop-by-hop): the
    provider's pacing (`Retry-After`, `X-RateLimit-*`), `X-Generation-Id` and OpenRouter's own."""
    named = {t.strip().lower() for v in headers.get_list("connection") for t in v.split(",")}
    dropped = HOP_BY_HOP | CREDENTIAL_HEADERS | SERVER_OWN_HEADERS | named
    return [(k, v) for k, v in headers.multi_items() if k.lower() not in dropped]


class _UnixHTTPServer(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "siteos-gateway-proxy/1"

    @property
    def proxy(self) -> RecordingProxy:
        return self.server.proxy  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        with self.proxy.exchange():
            self._other("GET", None)

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        route = self.path.split("?")[0].rstrip("/")
        protocol = self.proxy.protocol_for(route[len(API) :]) if route.startswith(API) else None
        with self.proxy.exchange():
            if protocol is not None:
                self._metered(protocol, raw)
            else:
                self._other("POST", raw)

    # -- responses ---------------------------------------------------------------------------
    def _send_json(self, status: int, data: Any) -> bytes:
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return body

    def _error(
        self, status: int, message: str, protocol: MeteredProtocol | None = None, **metadata: Any
    ) -> bytes:
        """The proxy's own error answer, in `protocol`'s error shape (OpenRouter's without one)."""
        meta = {"source": "harness-proxy", **metadata}
        shape = protocol.error_body if protocol is not None else openrouter_error_body
        return self._send_json(status, shape(status, message, meta))

    def _relay(
        self,
        response: httpx.Response,
        tap: Callable[[bytes], None],
        abort: Callable[[], bool] | None = None,
        finish: Callable[[bool], None] | None = None,
        translator: ResponseTranslator | None = None,
    ) -> tuple[bool, float | None]:
        """Stream `response` to the client unchanged, with the upstream's own headers
        (`relayed_headers`); (client disconnected?, first byte ms).

        A client that hangs up ends the relay: the proxy stops reading the upstream (closing the
        response closes its connection, so the gateway stops generating) instead of paying for
        an answer nobody reads. `abort()` is asked after every piece: True stops relaying and
        drops the connection. `finish(disconnected)` runs once the upstream is read (or left),
        before the client's last byte. A `translator` (a front end's) rewrites what is relayed:
        the upstream's bytes still go to `tap` as they came."""
        self.send_response(response.status_code)
        for name, value in relayed_headers(response.headers):
            self.send_header(name, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        disconnected = False
        first: float | None = None
        started = time.monotonic()
        for data in response.iter_raw():
            if not data:
                continue
            if first is None:
                first = (time.monotonic() - started) * 1000
            tap(data)
            pieces = translator.feed(data) if translator is not None else [data]
            disconnected = not self._write_chunks(pieces)
            if disconnected or (abort is not None and abort()):
                self.close_connection = True
                if finish is not None:
                    finish(disconnected)
                return disconnected, first
        if translator is not None:
            disconnected = not self._write_chunks(translator.close())
        if finish is not None:
            finish(disconnected)
        try:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            disconnected = True
            self.close_connection = True
        return disconnected, first

    def _write_chunks(self, pieces: list[bytes]) -> bool:
        """Each piece as one HTTP chunk, flushed; False when the client hung up."""
        try:
            for piece in pieces:
                if piece:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return False
        return True

    # -- metered requests (chat completions, ...) ----------------------------------------------
    def _metered(self, protocol: MeteredProtocol, raw: bytes) -> None:
        proxy = self.proxy
        started = time.monotonic()
        when = _now()
        try:
            body = json.loads(raw)
            assert isinstance(body, dict)
        except (json.JSONDecodeError, UnicodeDecodeError, AssertionError):
            index = proxy.count_other()
            self._error(400, "request body is not a JSON object", protocol)
            proxy.write(ExchangeRecord(time=when, index=index, kind="chat", method="POST",
                                       path=self.path, status=400, latency_ms=0.0,
                                       protocol=protocol.name,
                                       error_class=ErrorClass.BAD_REQUEST,
                                       error_message="client sent a non-JSON body"))  # fmt: skip
            return
        if protocol.name == CHAT.name and wants_image(body, proxy.image_route):
            self._image(protocol, body, started, when)
            return
        front = translating(protocol)
        untranslated: list[str] = []
        if front is not None:
            try:
                body, untranslated = front.translate_request(
                    self.path.split("?")[0][len(API) :], body
                )
            except ValueError as exc:
                index = proxy.count_other()
                self._error(400, f"request not translatable: {exc}", protocol)
                proxy.write(ExchangeRecord(time=when, index=index, kind="chat", method="POST",
                                           path=self.path, status=400, latency_ms=0.0,
                                           protocol=protocol.name,
                                           error_class=ErrorClass.BAD_REQUEST,
                                           error_message=f"not translatable: {exc}"))  # fmt: skip
                return
        policed, changes = protocol.apply_policy(proxy.policy, body)
        changes = [*(f"not translated: {x}" for x in untranslated), *changes]
        sender = self.headers.get("User-Agent", "")
        admission = proxy.admit(protocol, policed, sender)
        forwarded = admission.body
        record = ExchangeRecord(
            time=when, index=admission.index, kind="chat", method="POST", path=self.path,
            step=admission.step, retry=admission.retry, transport_retry=admission.transport_retry,
            protocol=protocol.name, sender=sender or None,
            requested_model=str(body.get("model") or "") or None,
            policy_changes=changes, max_tokens_change=admission.change, request=forwarded,
            budget_capped=admission.change.forwarded if admission.change is not None else None,
            status=0, latency_ms=0.0, streamed=protocol.streaming(forwarded),
        )  # fmt: skip
        if admission.refusal is not None:
            record.status, record.refused = 400, admission.refusal
            proxy.settle(record)
            self._refuse(protocol, record, admission.refusal_reason, started)
            proxy.account(record, 0.0)
            proxy.write(record)
            return
        self._forward(protocol, forwarded, record, started, admission.reserved_usd)

    def _refuse(
        self, protocol: MeteredProtocol, record: ExchangeRecord, reason: str | None, started: float
    ) -> None:
        """Answer a request the harness refused (`record.refused`) with a 400 in the protocol's
        error shape, and put the answer in its record."""
        sent = self._error(
            400,
            f"{reason}: request refused by the benchmark harness",
            protocol,
            reason=record.refused,
        )
        record.response = sent.decode()
        record.error_message = reason
        record.latency_ms = (time.monotonic() - started) * 1000

    def _image(
        self, protocol: MeteredProtocol, body: dict[str, Any], started: float, when: str
    ) -> None:
        """An image call: admitted on the unit's image route only, forwarded unstreamed, its
        images measured (not logged), its cost counted against the unit's budget."""
        proxy = self.proxy
        forwarded, changes = dict(body), []
        if forwarded.get("usage") != {"include": True}:
            forwarded["usage"] = {"include": True}
            changes.append('usage={"include":true}')
        admission = proxy.admit_image(forwarded, protocol.prompt_bytes(forwarded))
        record = ExchangeRecord(
            time=when, index=admission.index, kind="image", method="POST", path=self.path,
            protocol=protocol.name, sender=self.headers.get("User-Agent") or None,
            requested_model=str(body.get("model") or "") or None, policy_changes=changes,
            max_tokens_change=admission.change, request=forwarded, status=0, latency_ms=0.0,
        )  # fmt: skip
        if admission.refusal is not None:
            record.status, record.refused = 400, admission.refusal
            self._refuse(protocol, record, admission.refusal_reason, started)
            proxy.account_image(record, 0.0)
            proxy.write(record)
            return
        captured = bytearray()
        hasher = hashlib.sha256()

        def tap(data: bytes) -> None:
            if len(captured) < MAX_IMAGE_RESPONSE_BYTES:
                captured.extend(data[: MAX_IMAGE_RESPONSE_BYTES - len(captured)])
            else:
                record.response_truncated = True
            record.response_bytes += len(data)
            hasher.update(data)

        try:
            payload = json.dumps(forwarded).encode()
            with proxy.upstream_request("POST", self.path, payload, dict(self.headers)) as response:
                record.status = response.status_code
                record.client_disconnected, record.first_byte_ms = self._relay(response, tap)
                record.generation_id = response.headers.get("x-generation-id")
        except httpx.HTTPError as exc:
            self._upstream_failure(record, exc, protocol)
        raw = bytes(captured)
        if record.status and record.error_class is None:
            self._observe(record, protocol.observe_body(raw), raw)
        found = image_fields(raw)
        record.images, record.image_tokens = found.images, found.image_tokens
        record.response = found.logged_body
        record.response_sha256 = hasher.hexdigest()
        if record.status == 200 and record.error_class is None and not record.images:
            record.error_message = "the image call's response carried no image"
        record.latency_ms = (time.monotonic() - started) * 1000
        if proxy.fetch_generation and record.generation_id:
            record.generation = proxy.generation_check(record.generation_id)
        proxy.account_image(record, admission.reserved_usd)
        proxy.write(record)

    def _forward(
        self,
        protocol: MeteredProtocol,
        forwarded: dict[str, Any],
        record: ExchangeRecord,
        started: float,
        reserved: float,
    ) -> None:
        proxy = self.proxy
        captured = bytearray()
        reader = protocol.stream_reader()
        streaming = False
        hasher = hashlib.sha256()
        sent_at = time.monotonic()
        first_data: list[float] = []
        last_data = [sent_at, 0.0]  # when the last data chunk came, and how many chunks by then

        def tap(data: bytes) -> None:
            if len(captured) < MAX_RESPONSE_CHARS:
                captured.extend(data[: MAX_RESPONSE_CHARS - len(captured)])
            else:
                record.response_truncated = True
            record.response_bytes += len(data)
            hasher.update(data)
            if streaming:
                reader.feed(data)
                chunks = reader.observation.chunks
                if chunks and not first_data:
                    first_data.append(time.monotonic())
                if chunks != last_data[1]:
                    last_data[:] = [time.monotonic(), chunks]

        def stalled() -> bool:
            """Keep-alives but no data for longer than the outage window, before the first chunk
            or after the last: end it as a provider stall."""
            obs = reader.observation
            if not streaming or proxy.stall_seconds is None or obs.done or obs.finish_reason:
                return False
            return obs.comments > 0 and time.monotonic() - last_data[0] > proxy.stall_seconds

        def finish(disconnected: bool) -> None:
            """Judge the whole response, then settle the retry baseline (before its last byte)."""
            record.client_disconnected = record.upstream_abandoned = disconnected
            stall = stalled()
            obs = reader.close() if streaming else protocol.observe_body(bytes(captured))
            self._observe(record, obs, bytes(captured))
            record.keepalives = obs.comments
            if obs.comments:
                waited_until = first_data[0] if first_data else time.monotonic()
                record.keepalive_wait_ms = round((waited_until - sent_at) * 1000, 1)
            if disconnected and record.error_class is None:
                record.error_message = (
                    f"the client hung up after {record.response_bytes} bytes; the proxy stopped "
                    "reading the upstream response (the billed part is the generation's cost)"
                )
            if stall:
                record.keepalive_wait_ms = round((time.monotonic() - last_data[0]) * 1000, 1)
                where = f"after chunk {obs.chunks}" if obs.chunks else "before the first chunk"
                record.error_class = ErrorClass.PROVIDER_STALL
                record.error_message = (
                    f"provider stall: only keep-alive comments, no data, for more than the outage "
                    f"window ({proxy.stall_seconds:g} s) {where}; the proxy ended the request"
                )
            proxy.settle(record)

        try:
            payload = json.dumps(forwarded).encode()
            front = translating(protocol)
            path = API + front.upstream_path if front is not None else self.path
            with proxy.upstream_request("POST", path, payload, dict(self.headers)) as response:
                record.status = response.status_code
                streaming = "event-stream" in response.headers.get("content-type", "")
                if response.status_code >= 400:
                    streaming = False
                translator = (
                    front.response_translator(response.status_code, streaming)
                    if front is not None
                    else None
                )
                record.client_disconnected, record.first_byte_ms = self._relay(
                    response, tap, stalled, finish, translator
                )
                # OpenRouter's generation id, whatever id the API's body carries (`msg_…`,
                # `resp_…`): what `GET /generation` answers for
                record.generation_id = response.headers.get("x-generation-id") or (
                    record.generation_id
                )
        except httpx.HTTPError as exc:
            self._upstream_failure(record, exc, protocol)
        record.response = bytes(captured).decode("utf-8", errors="replace")
        record.response_sha256 = hasher.hexdigest()
        record.latency_ms = (time.monotonic() - started) * 1000
        if proxy.fetch_generation and record.generation_id:  # errors and cut streams are billed
            record.generation = proxy.generation_check(record.generation_id)
        proxy.learn_tokens(protocol.prompt_bytes(forwarded), record.usage)
        proxy.account(record, reserved)
        proxy.write(record)

    def _upstream_failure(
        self, record: ExchangeRecord, exc: httpx.HTTPError, protocol: MeteredProtocol | None = None
    ) -> None:
        record.error_class = ErrorClass.CONNECTION
        record.error_message = self.proxy.redact(f"{type(exc).__name__}: {exc}")
        if record.status:  # failed mid-relay: headers already sent, just drop the connection
            self.close_connection = True
            if record.kind == "chat" and isinstance(exc, httpx.ReadTimeout):
                record.error_class = ErrorClass.PROVIDER_STALL
                record.error_message = (
                    "provider stall: the stream sent nothing for the upstream read timeout "
                    f"({self.proxy.read_timeout:g} s); the proxy ended the request"
                )
            if record.kind == "chat":
                self.proxy.settle(record)
            return
        record.status = 502
        if record.kind == "chat":
            self.proxy.settle(record)
        try:
            self._error(
                502, "upstream gateway unreachable or timed out", protocol, reason="connection"
            )
        except OSError:
            record.client_disconnected = True

    @staticmethod
    def _observe(record: ExchangeRecord, obs: StreamObservation, body: bytes) -> None:
        record.generation_id = obs.generation_id
        record.model = obs.model
        record.models_seen = obs.models
        record.provider = obs.provider
        record.finish_reason = obs.finish_reason
        if obs.usage is not None:
            record.usage = TokenUsage.from_openrouter(obs.usage)
        if record.status >= 400:  # the protocol's reader gives the error in OpenRouter's shape
            message, code, metadata = error_fields({"error": obs.error})
            if obs.error is None and _loads(body) is None:
                message = body[:200].decode("utf-8", errors="replace")
            record.error_class = classify_status(record.status, message, metadata, code)
            record.error_message = message or f"HTTP {record.status}"
        elif obs.error is not None or obs.finish_reason == "error":
            record.error_class = classify_stream_error(obs.error or {})
            code = (obs.error or {}).get("code")
            message = str((obs.error or {}).get("message") or "finish_reason error")
            record.error_message = f"in-stream error (code {code!r}): {message}"
        elif obs.malformed:
            record.error_class = ErrorClass.MALFORMED_RESPONSE
            record.error_message = f"malformed stream: {obs.malformed[:1]}"
        elif record.streamed and not record.client_disconnected and not obs.finish_reason:
            record.error_class = ErrorClass.TRUNCATED_STREAM
            record.error_message = (
                f"truncated stream: it ended ({'with' if obs.done else 'without'} "
                f"{obs.terminator}, "
                f"{'with' if obs.usage else 'without'} usage) before any finish_reason, after "
                f"{obs.chunks} chunks"
            )
        elif record.streamed and not obs.done and not record.client_disconnected:
            record.error_class = ErrorClass.MALFORMED_RESPONSE
            record.error_message = f"unterminated stream: a finish_reason but no {obs.terminator}"

    # -- everything else -----------------------------------------------------------------------
    def _other(self, method: str, raw: bytes | None) -> None:
        proxy = self.proxy
        started, when = time.monotonic(), _now()
        index = proxy.count_other()
        record = ExchangeRecord(time=when, index=index, kind="other", method=method,
                                path=self.path, status=0, latency_ms=0.0)  # fmt: skip
        if not self.path.startswith(API + "/"):
            self._error(404, "not an OpenRouter API path")
            record.status = 404
        else:
            captured = bytearray()

            def tap(data: bytes) -> None:
                record.response_bytes += len(data)
                if len(captured) < 65536:
                    captured.extend(data)

            try:
                with proxy.upstream_request(method, self.path, raw, dict(self.headers)) as response:
                    record.status = response.status_code
                    record.client_disconnected, record.first_byte_ms = self._relay(response, tap)
            except httpx.HTTPError as exc:
                self._upstream_failure(record, exc)
            if record.status >= 400 and record.error_class is None:
                message, _, _ = error_fields(_loads(bytes(captured)))
                record.error_class = classify_status(record.status, message)
                record.error_message = message or f"HTTP {record.status}"
                record.response = bytes(captured).decode("utf-8", errors="replace")
        record.latency_ms = (time.monotonic() - started) * 1000
        proxy.write(record)


def _loads(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
