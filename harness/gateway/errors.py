"""One error vocabulary for everything that talks to an OpenRouter-compatible gateway.

`ErrorClass` values are stored in evidence (`gateway.jsonl`, preflight and session records), so
the enum lives with the records (`records.evidence.gateway`): add members, never rename them.
"""

from __future__ import annotations

from typing import Any

from records.evidence.gateway import ErrorClass


class GatewayError(Exception):
    """Base of every gateway failure; `error_class` says which kind."""

    error_class: ErrorClass = ErrorClass.MALFORMED_RESPONSE

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: int | str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.metadata = metadata or {}


class AuthError(GatewayError):
    error_class = ErrorClass.AUTH


class CreditsError(GatewayError):
    error_class = ErrorClass.CREDITS


class RateLimitError(GatewayError):
    error_class = ErrorClass.RATE_LIMIT


class NoEndpointError(GatewayError):
    error_class = ErrorClass.NO_ENDPOINT


class NotFoundError(GatewayError):
    error_class = ErrorClass.NOT_FOUND


class BadRequestError(GatewayError):
    error_class = ErrorClass.BAD_REQUEST


class UpstreamError(GatewayError):
    error_class = ErrorClass.UPSTREAM_5XX


class MidstreamError(GatewayError):
    error_class = ErrorClass.MIDSTREAM_ERROR


class MalformedResponseError(GatewayError):
    error_class = ErrorClass.MALFORMED_RESPONSE


class GatewayConnectionError(GatewayError):
    error_class = ErrorClass.CONNECTION


_BY_CLASS: dict[ErrorClass, type[GatewayError]] = {
    cls.error_class: cls
    for cls in (
        AuthError,
        CreditsError,
        RateLimitError,
        NoEndpointError,
        NotFoundError,
        BadRequestError,
        UpstreamError,
        MidstreamError,
        MalformedResponseError,
        GatewayConnectionError,
    )
}


def classify_status(status: int, message: str = "") -> ErrorClass | None:
    """The error class of an HTTP status (None for success)."""
    if status < 400:
        return None
    if status in (401, 403):
        return ErrorClass.AUTH
    if status == 402:
        return ErrorClass.CREDITS
    if status == 429:
        return ErrorClass.RATE_LIMIT
    if status == 404:
        return (
            ErrorClass.NO_ENDPOINT
            if "no endpoints found" in message.lower()
            else ErrorClass.NOT_FOUND
        )
    if status >= 500:
        return ErrorClass.UPSTREAM_5XX
    return ErrorClass.BAD_REQUEST


def error_fields(body: Any) -> tuple[str, int | str | None, dict[str, Any]]:
    """(message, code, metadata) of an OpenRouter error body `{error: {code, message, ...}}`."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return "", None, {}
    message = error.get("message")
    metadata = error.get("metadata")
    return (
        message if isinstance(message, str) else "",
        error.get("code"),
        metadata if isinstance(metadata, dict) else {},
    )


def error_for(status: int, body: Any, fallback: str = "") -> GatewayError:
    """The exception for an HTTP error response with an (optional) OpenRouter error body."""
    message, code, metadata = error_fields(body)
    message = message or fallback or f"HTTP {status}"
    error_class = classify_status(status, message) or ErrorClass.MALFORMED_RESPONSE
    return _BY_CLASS[error_class](message, status=status, code=code, metadata=metadata)


def exception_class(error_class: ErrorClass) -> type[GatewayError]:
    return _BY_CLASS[error_class]
