"""The error hierarchy: every error knows its HTTP status and whether a retry may help.

One JSON shape for every error the API returns, built by `error_body` alone:
    {"error": {"code": str, "message": str, "retryable": bool}}
(a 400 adds "field"). The command line prints an error's message and exits 2.
"""
from __future__ import annotations


def error_body(code: str, message: str, retryable: bool, **extra) -> dict:
    return {"error": {"code": code, "message": message, "retryable": retryable, **extra}}


class RtacError(Exception):
    status = 500
    code = "internal_error"
    retryable = False

    def __init_subclass__(cls, *, status: int | None = None, code: str | None = None,
                          retryable: bool | None = None, **kw):
        # `class NotFound(RtacError, status=404, code="not_found")`: an error's whole
        # declaration in one line.
        super().__init_subclass__(**kw)
        for name, value in (("status", status), ("code", code), ("retryable", retryable)):
            if value is not None:
                setattr(cls, name, value)

    def __init__(self, message: str, *, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def to_json(self) -> dict:
        return error_body(self.code, self.message, self.retryable)


class ConfigError(RtacError, code="config_error"):
    """A setting that cannot be used: the sidecar does not start."""


class UsageError(RtacError, code="usage_error"):
    """Something typed on the command line that must be fixed. Only `rtac` raises it,
    and answers it with its message and exit status 2; the API never does."""


class BadRequest(RtacError, status=400, code="bad_request"):
    """A request the client must fix; `field` names the offending field."""

    def __init__(self, field: str, message: str, *, code: str = "invalid_field"):
        super().__init__(f"{field}: {message}", code=code)
        self.field = field

    def to_json(self) -> dict:
        return error_body(self.code, self.message, self.retryable, field=self.field)


class PayloadTooLarge(RtacError, status=413, code="payload_too_large"):
    """A body larger than RTAC_MAX_BODY_BYTES."""


class Unauthorized(RtacError, status=401, code="unauthorized"):
    """A request whose signature does not hold."""


class NotFound(RtacError, status=404, code="not_found"):
    """No such thing on this site."""


class DatabaseUnavailable(RtacError, status=503, code="database_unavailable", retryable=True):
    """The database does not answer, or every pooled connection stayed busy."""


class OverCapacity(RtacError, status=503, code="over_capacity", retryable=True):
    """As many turns as the server may hold are in flight (RTAC_MAX_INFLIGHT)."""


# What a vendor answers when the same request may succeed later: a request timeout,
# a conflict, a rate limit, a server error of the kind an overloaded or restarting
# server gives, and Anthropic's 529 "overloaded". Other 5xx (501 Not Implemented, 505
# HTTP Version Not Supported, ...) meet the same request again.
RETRYABLE_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


def retryable_status(http_status: int | None) -> bool:
    """The one rule for every vendor, chat provider and embedder alike. No status at
    all is a timeout or a broken connection: retryable."""
    return http_status is None or http_status in RETRYABLE_STATUSES


class VendorError(RtacError, status=502, code="vendor_error"):
    """A model vendor's API failed. Carries the vendor's HTTP status (None for
    timeouts, connection errors and failures before any call) and whether the same
    call may succeed when retried: by `retryable_status` unless the raiser knows
    better (a malformed answer is not retried, whatever its status)."""

    def __init__(self, message: str, *, http_status: int | None = None, retryable: bool | None = None):
        super().__init__(message)
        self.http_status = http_status
        self.retryable = retryable_status(http_status) if retryable is None else retryable


class ProviderError(VendorError, code="provider_error"):
    """A chat provider failed; `retry_after` is the delay the vendor asked for, if any."""

    def __init__(self, provider: str, message: str, *, http_status: int | None = None,
                 retryable: bool | None = None, retry_after: float | None = None):
        super().__init__(f"{provider}: {message}", http_status=http_status, retryable=retryable)
        self.provider = provider
        self.retry_after = retry_after


class StreamBroken(ProviderError, code="provider_stream_broken"):
    """A vendor failed after part of its answer had been streamed. That part is out
    already, so the answer is never retried (the turn ends with the offline answer);
    `http_status` is the vendor's and `partial` the text it had sent."""

    def __init__(self, cause: ProviderError, partial: str = ""):
        super().__init__(cause.provider, f"broken mid-stream: {cause.message.removeprefix(cause.provider + ': ')}",
                         http_status=cause.http_status, retryable=False)
        self.partial = partial


class ProviderNotConfigured(ProviderError):
    """The provider cannot run at all here (no API key): never retryable."""

    def __init__(self, provider: str, message: str):
        super().__init__(provider, message, http_status=None, retryable=False)
