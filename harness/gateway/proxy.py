"""The recording proxy between an agent and an OpenRouter-compatible gateway.

    with RecordingProxy(upstream=url, api_key=key, log_path=unit.gateway, policy=GatewayPolicy(),
                        step_ceiling=40, budget_usd=5.0) as proxy:
        proxy.base_url      # http://127.0.0.1:<port>/api/v1  (give this to the agent)
        proxy.socket_path   # the same API on a Unix socket (bind-mount it into a sandbox)
        proxy.state         # steps, cost, ceiling flags (a snapshot)

Every `/api/v1/*` request is forwarded to `upstream` with the proxy's own key (the agent's
Authorization header is dropped). Chat completions get the frozen policy, are counted as agent
steps (a request whose messages equal the previous one's is a retry: same step, marked), are
refused past the step ceiling or the budget without reaching upstream, and stream back unchanged
while the proxy reads model, provider, generation id, usage and errors from them. One
`ExchangeRecord` per request is appended to `log_path`; the key string is redacted from every line.
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

from harness.gateway.client import OpenRouterClient
from harness.gateway.errors import ErrorClass, classify_status, error_fields
from harness.gateway.sse import SSEReader, StreamObservation, observe_json
from records.evidence.gateway import (
    ExchangeRecord,
    GatewayPolicy,
    GenerationCheck,
    Refusal,
    TokenUsage,
)
from records.io import append_jsonl

API = "/api/v1"
REDACTED = "[REDACTED]"
MIN_REDACTED_KEY = 8  # shorter keys are placeholders; replacing them would mangle the JSON
FORWARDED_HEADERS = ("user-agent", "http-referer", "x-title", "accept")
MAX_RESPONSE_CHARS = 2_000_000


@dataclass(frozen=True)
class ProxyState:
    requests: int = 0
    steps: int = 0
    cost_usd: float = 0.0
    refused: int = 0
    retries: int = 0
    upstream_errors: int = 0
    step_ceiling_hit: bool = False
    budget_ceiling_hit: bool = False

    @property
    def ceiling(self) -> Refusal | None:
        if self.step_ceiling_hit:
            return "step_ceiling"
        return "budget_ceiling" if self.budget_ceiling_hit else None


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
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.api_key = api_key
        self.log_path = log_path
        self.policy = policy or GatewayPolicy()
        self.step_ceiling = step_ceiling
        self.budget_usd = budget_usd
        self.fetch_generation = fetch_generation
        self.on_ceiling = on_ceiling
        self._lock = threading.Lock()
        self._log_lock = threading.Lock()
        self._state = ProxyState()
        self._last_messages: str | None = None
        self._ceiling_called = False
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

    # -- bookkeeping (called from handler threads) -----------------------------------------------
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

    def admit(self, body: dict[str, Any]) -> tuple[int, int, bool, Refusal | None]:
        """(request index, step, retry?, refusal) for a chat request; counts it."""
        digest = hashlib.sha256(
            json.dumps(body.get("messages"), sort_keys=True).encode()
        ).hexdigest()
        with self._lock:
            s = self._state
            retry = digest == self._last_messages
            self._last_messages = digest
            steps = s.steps if retry else s.steps + 1
            refusal: Refusal | None = None
            if steps > self.step_ceiling:
                refusal = "step_ceiling"
            elif self.budget_usd is not None and s.cost_usd >= self.budget_usd:
                refusal = "budget_ceiling"
            self._state = replace(
                s,
                requests=s.requests + 1,
                steps=min(steps, self.step_ceiling),
                retries=s.retries + retry,
                refused=s.refused + (refusal is not None),
                step_ceiling_hit=s.step_ceiling_hit or refusal == "step_ceiling",
                budget_ceiling_hit=s.budget_ceiling_hit or refusal == "budget_ceiling",
            )
            notify = refusal is not None and not self._ceiling_called
            self._ceiling_called |= notify
            index = self._state.requests
        if notify and refusal is not None and self.on_ceiling is not None:
            self.on_ceiling(refusal)
        return index, steps, retry, refusal

    def count_other(self) -> int:
        with self._lock:
            self._state = replace(self._state, requests=self._state.requests + 1)
            return self._state.requests

    def account(self, cost: float, error: bool) -> None:
        with self._lock:
            s = self._state
            self._state = replace(
                s, cost_usd=s.cost_usd + cost, upstream_errors=s.upstream_errors + error
            )

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
        with self.proxy.exchange():
            if self.path.split("?")[0].rstrip("/") == f"{API}/chat/completions":
                self._chat(raw)
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

    def _error(self, status: int, message: str, **metadata: Any) -> bytes:
        error = {
            "code": status,
            "message": message,
            "metadata": {"source": "harness-proxy", **metadata},
        }
        return self._send_json(status, {"error": error})

    def _relay(
        self, response: httpx.Response, tap: Callable[[bytes], None]
    ) -> tuple[bool, float | None]:
        """Stream `response` to the client unchanged; (client disconnected?, first byte ms)."""
        self.send_response(response.status_code)
        ctype = response.headers.get("content-type", "application/octet-stream")
        self.send_header("Content-Type", ctype)
        if "event-stream" in ctype:
            self.send_header("Cache-Control", "no-cache")
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
            if disconnected:
                continue  # keep reading so the record is complete
            try:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                disconnected = True
        if not disconnected:
            try:
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                disconnected = True
        if disconnected:
            self.close_connection = True
        return disconnected, first

    # -- chat completions ----------------------------------------------------------------------
    def _chat(self, raw: bytes) -> None:
        proxy = self.proxy
        started = time.monotonic()
        when = _now()
        try:
            body = json.loads(raw)
            assert isinstance(body, dict)
        except (json.JSONDecodeError, UnicodeDecodeError, AssertionError):
            index = proxy.count_other()
            self._error(400, "request body is not a JSON object")
            proxy.write(ExchangeRecord(time=when, index=index, kind="chat", method="POST",
                                       path=self.path, status=400, latency_ms=0.0,
                                       error_class=ErrorClass.BAD_REQUEST,
                                       error_message="client sent a non-JSON body"))  # fmt: skip
            return
        index, step, retry, refusal = proxy.admit(body)
        forwarded, changes = proxy.policy.apply(body)
        record = ExchangeRecord(
            time=when, index=index, kind="chat", method="POST", path=self.path, step=step,
            retry=retry, requested_model=str(body.get("model") or "") or None,
            policy_changes=changes, request=forwarded, status=0, latency_ms=0.0,
            streamed=bool(forwarded.get("stream")),
        )  # fmt: skip
        if refusal is not None:
            limit = (
                f"step ceiling of {proxy.step_ceiling} reached"
                if refusal == "step_ceiling"
                else f"budget ceiling of ${proxy.budget_usd:g} reached"
            )
            sent = self._error(
                400, f"{limit}: request refused by the benchmark harness", reason=refusal
            )
            record.status, record.refused, record.response = 400, refusal, sent.decode()
            record.error_message = limit
            record.latency_ms = (time.monotonic() - started) * 1000
            proxy.write(record)
            return
        self._forward_chat(json.dumps(forwarded).encode(), record, started)

    def _forward_chat(self, payload: bytes, record: ExchangeRecord, started: float) -> None:
        proxy = self.proxy
        captured = bytearray()
        reader = SSEReader()
        obs: StreamObservation | None = None

        def tap(data: bytes) -> None:
            if len(captured) < MAX_RESPONSE_CHARS:
                captured.extend(data[: MAX_RESPONSE_CHARS - len(captured)])
            else:
                record.response_truncated = True
            record.response_bytes += len(data)
            hasher.update(data)
            if streaming:
                reader.feed(data)

        hasher = hashlib.sha256()
        streaming = False
        try:
            with proxy.upstream_request("POST", self.path, payload, dict(self.headers)) as response:
                record.status = response.status_code
                streaming = "event-stream" in response.headers.get("content-type", "")
                if response.status_code >= 400:
                    streaming = False
                record.client_disconnected, record.first_byte_ms = self._relay(response, tap)
        except httpx.HTTPError as exc:
            self._upstream_failure(record, exc)
        else:
            obs = reader.close() if streaming else observe_json(bytes(captured))
            self._observe(record, obs, bytes(captured))
        record.response = bytes(captured).decode("utf-8", errors="replace")
        record.response_sha256 = hasher.hexdigest()
        record.latency_ms = (time.monotonic() - started) * 1000
        cost = record.usage.cost_usd if record.usage and record.usage.cost_usd else 0.0
        proxy.account(cost, record.error_class is not None)
        if proxy.fetch_generation and record.generation_id and record.error_class is None:
            record.generation = proxy.generation_check(record.generation_id)
            if record.generation.total_cost is not None:
                proxy.account(record.generation.total_cost - cost, False)
        proxy.write(record)

    def _upstream_failure(self, record: ExchangeRecord, exc: httpx.HTTPError) -> None:
        record.error_class = ErrorClass.CONNECTION
        record.error_message = self.proxy.redact(f"{type(exc).__name__}: {exc}")
        if record.status:  # failed mid-relay: headers already sent, just drop the connection
            self.close_connection = True
            return
        record.status = 502
        try:
            self._error(502, "upstream gateway unreachable or timed out", reason="connection")
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
        if record.status >= 400:
            try:
                message, _, _ = error_fields(json.loads(body))
            except (json.JSONDecodeError, UnicodeDecodeError):
                message = body[:200].decode("utf-8", errors="replace")
            record.error_class = classify_status(record.status, message)
            record.error_message = message or f"HTTP {record.status}"
        elif obs.error is not None or obs.finish_reason == "error":
            record.error_class = ErrorClass.MIDSTREAM_ERROR
            record.error_message = str((obs.error or {}).get("message") or "finish_reason error")
        elif obs.malformed or (record.streamed and not obs.done and not record.client_disconnected):
            record.error_class = ErrorClass.MALFORMED_RESPONSE
            record.error_message = f"malformed or unterminated stream: {obs.malformed[:1]}"

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
