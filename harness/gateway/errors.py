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


# the spec's `ApiErrorType` (and the docs' string codes) -> the HTTP status they stand for
ERROR_TYPE_STATUS = {
    "authentication": 401, "permission_denied": 403, "payment_required": 402,
    "rate_limit_exceeded": 429, "not_found": 404, "provider_overloaded": 529,
    "provider_unavailable": 503, "server": 500, "server_error": 500, "timeout": 504,
    "context_length_exceeded": 400, "max_tokens_exceeded": 400, "token_limit_exceeded": 400,
    "invalid_request": 400, "invalid_prompt": 400, "payload_too_large": 413,
    "unprocessable": 422, "content_policy_violation": 403, "refusal": 400,
}  # fmt: skip


def stream_error_status(error: dict[str, Any]) -> int | None:
    """The HTTP status an in-stream (or 200-body) `error` object stands for, if it says.

    An integer `code` is the status (the spec's shape); a string `code` (the docs' example,
    `"server_error"`) or `metadata.error_type` names a type.
    """
    code = error.get("code")
    if isinstance(code, int) and not isinstance(code, bool) and code >= 400:
        return code
    metadata = error.get("metadata")
    kinds = [code, metadata.get("error_type") if isinstance(metadata, dict) else None]
    for kind in kinds:
        if isinstance(kind, str) and kind.lower() in ERROR_TYPE_STATUS:
            return ERROR_TYPE_STATUS[kind.lower()]
    return None


def classify_stream_error(error: dict[str, Any]) -> ErrorClass:
    """An error inside a 200 response, classed by its code exactly as an HTTP error would be;
    `midstream_error` only when it names no code or type we know."""
    status = stream_error_status(error)
    message = error.get("message")
    if status is None:
        return ErrorClass.MIDSTREAM_ERROR
    return classify_status(status, message if isinstance(message, str) else "") or (
        ErrorClass.MIDSTREAM_ERROR
    )


def error_for(status: int, body: Any, fallback: str = "") -> GatewayError:
    """The exception for an HTTP error response with an (optional) OpenRouter error body."""
    message, code, metadata = error_fields(body)
    message = message or fallback or f"HTTP {status}"
    error_class = classify_status(status, message) or ErrorClass.MALFORMED_RESPONSE
    return _BY_CLASS[error_class](message, status=status, code=code, metadata=metadata)


def exception_class(error_class: ErrorClass) -> type[GatewayError]:
    return _BY_CLASS[error_class]
