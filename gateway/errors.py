"""One error vocabulary for everything that talks to an OpenRouter-compatible gateway.

`ErrorClass` values are stored in evidence (`gateway.jsonl`, preflight and session records), so
the enum lives with the records (`records.evidence.gateway`): add members, never rename them.
"""

from __future__ import annotations

import re
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


class ContextLengthError(GatewayError):
    error_class = ErrorClass.CONTEXT_LENGTH


class RefusalError(GatewayError):
    error_class = ErrorClass.REFUSAL


class ModerationError(GatewayError):
    error_class = ErrorClass.MODERATION


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
        ContextLengthError,
        RefusalError,
        ModerationError,
    )
}


# OpenRouter's `ApiErrorType` values the model's own conversation causes (not our request, key
# or route, not the provider's health): the context grew past the window, the model refused, the
# input was flagged by moderation. `max_tokens_exceeded` is not here: max_tokens is the harness's.
MODEL_ERROR_TYPES = {
    "context_length_exceeded": ErrorClass.CONTEXT_LENGTH,
    "token_limit_exceeded": ErrorClass.CONTEXT_LENGTH,
    "refusal": ErrorClass.REFUSAL,
    "content_policy_violation": ErrorClass.MODERATION,
}
# Providers' own wording of a context overflow, relayed in `error.message` (OpenAI-style
# "maximum context length is N tokens", Anthropic "prompt is too long", "context window").
CONTEXT_MESSAGE = re.compile(
    r"maximum context length|context[ _]length[ _]exceeded|context window|prompt is too long"
    r"|exceeds? the (?:model's )?context",
    re.IGNORECASE,
)
# OpenRouter's documented 403: "Your chosen model requires moderation and your input was flagged"
# with `metadata: {reasons, flagged_input, provider_name, model_slug}`.
MODERATION_MESSAGE = re.compile(r"requires moderation|input was flagged|flagged by", re.IGNORECASE)


def model_error_class(
    status: int, message: str = "", metadata: dict[str, Any] | None = None, code: Any = None
) -> ErrorClass | None:
    """The model-caused class of a 4xx (or an in-stream error standing for one), else None:
    the spec's `metadata.error_type` (or a string `code`) first, then the documented moderation
    403 shape, then a provider's context-length message on a 400/413."""
    metadata = metadata or {}
    for kind in (metadata.get("error_type"), code):
        if isinstance(kind, str) and kind.lower() in MODEL_ERROR_TYPES:
            return MODEL_ERROR_TYPES[kind.lower()]
    if status == 403 and (
        {"reasons", "flagged_input"} & set(metadata) or MODERATION_MESSAGE.search(message)
    ):
        return ErrorClass.MODERATION
    if status in (400, 413) and CONTEXT_MESSAGE.search(message):
        return ErrorClass.CONTEXT_LENGTH
    return None


def classify_status(
    status: int, message: str = "", metadata: dict[str, Any] | None = None, code: Any = None
) -> ErrorClass | None:
    """The error class of an HTTP status (None for success); `message`, `metadata` and `code`
    of the error body tell a model-caused 4xx (`model_error_class`) from our own bad request."""
    if status < 400:
        return None
    if 400 <= status < 500 and (found := model_error_class(status, message, metadata, code)):
        return found
    if status in (401, 403):
        return ErrorClass.AUTH
    if status == 402:
        return ErrorClass.CREDITS
    if status == 429:
        return ErrorClass.RATE_LIMIT
    if status == 404:  # no endpoint takes the parameters, or none of the pinned providers serves
        lower = message.lower()
        routing = "no endpoints found" in lower or "no allowed providers" in lower
        return ErrorClass.NO_ENDPOINT if routing else ErrorClass.NOT_FOUND
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


# Anthropic's `error.type` (the Messages API's error shape, which OpenRouter's /messages speaks)
# -> the HTTP status it stands for; and the type the proxy and the simulator answer a status with
# (within the types OpenRouter's spec lists: no `request_too_large`)
ANTHROPIC_ERROR_STATUS = {
    "invalid_request_error": 400, "authentication_error": 401, "billing_error": 402,
    "permission_error": 403, "not_found_error": 404, "request_too_large": 413,
    "rate_limit_error": 429, "api_error": 500, "timeout_error": 504, "overloaded_error": 529,
}  # fmt: skip
ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error", 401: "authentication_error", 402: "billing_error",
    403: "permission_error", 404: "not_found_error", 408: "timeout_error",
    413: "invalid_request_error", 429: "rate_limit_error", 503: "overloaded_error",
    504: "timeout_error", 529: "overloaded_error",
}  # fmt: skip


def anthropic_error_type(status: int) -> str:
    """The Anthropic `error.type` for an HTTP status."""
    fallback = "api_error" if status >= 500 else "invalid_request_error"
    return ANTHROPIC_ERROR_TYPES.get(status, fallback)


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
    metadata = error.get("metadata")
    if status is None:
        return ErrorClass.MIDSTREAM_ERROR
    return classify_status(
        status,
        message if isinstance(message, str) else "",
        metadata if isinstance(metadata, dict) else None,
        error.get("code"),
    ) or (ErrorClass.MIDSTREAM_ERROR)


def error_for(status: int, body: Any, fallback: str = "") -> GatewayError:
    """The exception for an HTTP error response with an (optional) OpenRouter error body."""
    message, code, metadata = error_fields(body)
    message = message or fallback or f"HTTP {status}"
    error_class = classify_status(status, message, metadata, code) or (
        ErrorClass.MALFORMED_RESPONSE
    )
    return _BY_CLASS[error_class](message, status=status, code=code, metadata=metadata)


def exception_class(error_class: ErrorClass) -> type[GatewayError]:
    return _BY_CLASS[error_class]
