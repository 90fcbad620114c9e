"""The error hierarchy: every error knows its HTTP status and whether a retry may help.

One JSON shape for every error the API returns:
    {"error": {"code": str, "message": str, "retryable": bool}}
"""
from __future__ import annotations


class RtacError(Exception):
    status = 500
    code = "internal_error"
    retryable = False

    def __init__(self, message: str, *, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def to_json(self) -> dict:
        return {"error": {"code": self.code, "message": self.message, "retryable": self.retryable}}


class ConfigError(RtacError):
    code = "config_error"


class BadRequest(RtacError):
    """A request the client must fix; `field` names the offending field."""

    status = 400
    code = "bad_request"

    def __init__(self, field: str, message: str, *, code: str = "invalid_field"):
        super().__init__(f"{field}: {message}", code=code)
        self.field = field

    def to_json(self) -> dict:
        body = super().to_json()
        body["error"]["field"] = self.field
        return body


class PayloadTooLarge(RtacError):
    status = 413
    code = "payload_too_large"


class Unauthorized(RtacError):
    status = 401
    code = "unauthorized"


class NotFound(RtacError):
    status = 404
    code = "not_found"


class DatabaseUnavailable(RtacError):
    status = 503
    code = "database_unavailable"
    retryable = True


class OverCapacity(RtacError):
    """As many turns as the server may hold are in flight (RTAC_MAX_INFLIGHT)."""

    status = 503
    code = "over_capacity"
    retryable = True


class ProviderError(RtacError):
    """A model vendor failed. Carries the vendor's HTTP status (None for timeouts and
    connection errors) and whether the same request may succeed when retried."""

    status = 502
    code = "provider_error"

    RETRYABLE_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})

    def __init__(self, provider: str, message: str, *, http_status: int | None = None,
                 retryable: bool | None = None, retry_after: float | None = None):
        super().__init__(f"{provider}: {message}")
        self.provider = provider
        self.http_status = http_status
        if retryable is None:
            retryable = http_status is None or http_status in self.RETRYABLE_STATUSES
        self.retryable = retryable
        self.retry_after = retry_after


class StreamBroken(ProviderError):
    """A vendor failed after part of its answer had been streamed. That part is out
    already, so the answer is never retried (the turn ends with the offline answer);
    `http_status` is the vendor's and `partial` the text it had sent."""

    code = "provider_stream_broken"

    def __init__(self, cause: ProviderError, partial: str = ""):
        super().__init__(cause.provider, f"broken mid-stream: {cause.message.removeprefix(cause.provider + ': ')}",
                         http_status=cause.http_status, retryable=False)
        self.partial = partial


class ProviderNotConfigured(ProviderError):
    """The provider cannot run at all here (no API key): never retryable."""

    def __init__(self, provider: str, message: str):
        super().__init__(provider, message, http_status=None, retryable=False)
