"""A small typed client for the OpenRouter API (or the simulator: only base URL and key differ).

Every failure is raised as a `gateway.errors.GatewayError` subclass carrying its
`ErrorClass`.
"""

from __future__ import annotations

import json
import time
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, Field, ValidationError

from gateway.errors import (
    GatewayConnectionError,
    GatewayError,
    MalformedResponseError,
    NotFoundError,
    classify_stream_error,
    error_for,
    exception_class,
)
from gateway.sse import SSEReader, StreamObservation
from records.base import Loose

T = TypeVar("T", bound=BaseModel)


class Pricing(Loose):
    """USD per token, as decimal strings."""

    prompt: str = "0"
    completion: str = "0"
    request: str | None = None
    input_cache_read: str | None = None
    internal_reasoning: str | None = None

    def per_token(self, field: str) -> float:
        value = getattr(self, field, None)
        return float(value) if value not in (None, "") else 0.0


class ReasoningInfo(Loose):
    mandatory: bool | None = None
    supported_efforts: list[str] | None = None
    default_effort: str | None = None


class ModelInfo(Loose):
    id: str
    canonical_slug: str | None = None
    name: str = ""
    created: int | None = None
    context_length: int | None = None
    pricing: Pricing = Field(default_factory=Pricing)
    supported_parameters: list[str] = Field(default_factory=list)
    reasoning: ReasoningInfo | None = None
    top_provider: dict[str, Any] | None = None


class Endpoint(Loose):
    name: str = ""
    model_id: str | None = None
    provider_name: str = ""
    tag: str | None = None
    context_length: int | None = None
    pricing: Pricing = Field(default_factory=Pricing)
    supported_parameters: list[str] = Field(default_factory=list)
    status: int | str | None = None


class ModelEndpoints(Loose):
    id: str
    name: str = ""
    endpoints: list[Endpoint] = Field(default_factory=list)


class Generation(Loose):
    id: str
    model: str
    provider_name: str | None = None
    total_cost: float | None = None
    tokens_prompt: int | None = None
    tokens_completion: int | None = None
    native_tokens_reasoning: int | None = None
    native_tokens_cached: int | None = None
    latency: float | None = None
    generation_time: float | None = None
    finish_reason: str | None = None
    streamed: bool | None = None


class KeyRateLimit(Loose):
    """`rate_limit` of `GET /key`: `requests` per `interval` (e.g. "10s"); live OpenRouter
    answers -1 and notes the field is deprecated."""

    requests: int | None = None
    interval: str | None = None
    note: str | None = None  # live: "This field is deprecated and safe to ignore."

    @property
    def deprecated(self) -> bool:
        return says_deprecated(self.note)


def says_deprecated(note: str | None) -> bool:
    """A `rate_limit.note` in which the gateway calls the limit deprecated."""
    return "deprecated" in (note or "").lower()


class KeyInfo(Loose):
    label: str = ""
    limit: float | None = None
    limit_remaining: float | None = None
    usage: float | None = None
    is_free_tier: bool | None = None
    rate_limit: KeyRateLimit | None = None


class OpenRouterClient:
    """`OpenRouterClient(base_url, api_key)`, base_url ending in `/api/v1`; a context manager."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 30.0,
        generation_retry_seconds: float = 3.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.generation_retry_seconds = generation_retry_seconds
        self._http = httpx.Client(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {api_key}", "X-Title": "siteos-bench"},
            timeout=timeout,
            transport=transport,
            trust_env=False,
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> OpenRouterClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- catalogue ---------------------------------------------------------------------------
    def list_models(self) -> list[ModelInfo]:
        data = self._get_json("/models")
        return [self._parse(ModelInfo, item, "/models entry") for item in self._data(data, list)]

    def endpoints(self, author: str, slug: str) -> ModelEndpoints:
        data = self._get_json(f"/models/{author}/{slug}/endpoints")
        return self._parse(ModelEndpoints, self._data(data, dict), "endpoints")

    # -- accounting --------------------------------------------------------------------------
    def generation(self, generation_id: str) -> Generation:
        """The generation record; retried on 404 for `generation_retry_seconds` (it lags)."""
        deadline = time.monotonic() + self.generation_retry_seconds
        delay = 0.1
        while True:
            try:
                data = self._get_json("/generation", params={"id": generation_id})
                return self._parse(Generation, self._data(data, dict), "generation")
            except NotFoundError:
                if time.monotonic() + delay > deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 1.0)

    def key_info(self) -> KeyInfo:
        return self._parse(KeyInfo, self._data(self._get_json("/key"), dict), "key")

    # -- completions -------------------------------------------------------------------------
    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        """A non-streaming completion; returns the response JSON."""
        response = self._request("POST", "/chat/completions", json={**body, "stream": False})
        data = self._json(response)
        if not isinstance(data, dict) or "choices" not in data:
            if isinstance(data, dict) and isinstance(data.get("error"), dict):
                raise stream_error(data["error"])  # HTTP 200 with an error body
            raise MalformedResponseError(
                "chat response has no choices", status=response.status_code
            )
        return data

    def chat_stream(self, body: dict[str, Any]) -> StreamObservation:
        """A streaming completion, read to the end; an error chunk raises the `GatewayError` of its
        code (429 -> `RateLimitError`, ...; `MidstreamError` when it names none)."""
        reader = SSEReader()
        try:
            with self._http.stream(
                "POST", "/chat/completions", json={**body, "stream": True}
            ) as resp:
                if resp.status_code >= 400:
                    raise error_for(resp.status_code, _maybe_json(resp.read()))
                for chunk in resp.iter_bytes():
                    reader.feed(chunk)
        except httpx.TransportError as exc:
            raise GatewayConnectionError(f"{type(exc).__name__}: {exc}") from exc
        obs = reader.close()
        if obs.error is not None or obs.finish_reason == "error":
            raise stream_error(obs.error or {})
        if obs.malformed or not obs.done:
            raise MalformedResponseError(
                f"stream malformed or unterminated: {obs.malformed[:1] or 'no [DONE]'}", status=200
            )
        return obs

    # -- plumbing ----------------------------------------------------------------------------
    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.TransportError as exc:
            raise GatewayConnectionError(f"{type(exc).__name__}: {exc}") from exc
        if response.status_code >= 400:
            raise error_for(response.status_code, _maybe_json(response.content))
        return response

    def _get_json(self, path: str, params: dict[str, str] | None = None) -> Any:
        return self._json(self._request("GET", path, params=params))

    @staticmethod
    def _json(response: httpx.Response) -> Any:
        try:
            return response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise MalformedResponseError(
                f"{response.request.url.path}: not JSON: {response.text[:120]!r}",
                status=response.status_code,
            ) from exc

    @staticmethod
    def _data(payload: Any, kind: type) -> Any:
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, kind):
            raise MalformedResponseError(f"expected `data` to be a {kind.__name__}")
        return data

    @staticmethod
    def _parse(model: type[T], data: Any, what: str) -> T:
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise MalformedResponseError(f"{what}: {exc.errors()[0]['msg']}") from exc


def stream_error(error: dict[str, Any]) -> GatewayError:
    """The exception for an `error` object inside a 200 response (stream chunk or JSON body)."""
    code = error.get("code")
    metadata = error.get("metadata")
    return exception_class(classify_stream_error(error))(
        str(error.get("message") or "stream ended with finish_reason error"),
        status=200,
        code=code if isinstance(code, int | str) else None,
        metadata=metadata if isinstance(metadata, dict) else None,
    )


def _maybe_json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


__all__ = [
    "Endpoint",
    "GatewayError",
    "Generation",
    "KeyInfo",
    "ModelEndpoints",
    "ModelInfo",
    "OpenRouterClient",
    "Pricing",
    "ReasoningInfo",
]
