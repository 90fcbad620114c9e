"""The error model: one rule for what a vendor error may retry, one JSON error body."""
from __future__ import annotations

import pytest

from sidecar.embedders.base import EmbeddingError
from sidecar.errors import (BadRequest, OverCapacity, ProviderError, RtacError, VendorError, error_body,
                            retryable_status)

RETRYABLE = (408, 409, 429, 500, 502, 503, 504, 529)
FINAL = (400, 401, 403, 404, 413, 422, 501, 505, 507, 511)


@pytest.mark.parametrize("status", [*RETRYABLE, None])
def test_timeouts_rate_limits_and_overloads_are_retried_for_every_vendor(status):
    assert retryable_status(status) is True
    assert ProviderError("openai", "x", http_status=status).retryable is True
    assert EmbeddingError("openai", "x", http_status=status).retryable is True


@pytest.mark.parametrize("status", FINAL)
def test_a_status_the_same_request_meets_again_is_final_for_every_vendor(status):
    assert retryable_status(status) is False
    assert ProviderError("gemini", "x", http_status=status).retryable is False
    assert EmbeddingError("gemini", "x", http_status=status).retryable is False


def test_the_raiser_may_overrule_the_status():
    assert ProviderError("openai", "malformed", http_status=500, retryable=False).retryable is False
    assert EmbeddingError("local", "busy", retryable=True).retryable is True


def test_provider_and_embedder_errors_are_vendor_errors_with_their_own_codes():
    provider, embedder = ProviderError("anthropic", "x", http_status=529), EmbeddingError("gemini", "y")
    assert isinstance(provider, VendorError) and isinstance(embedder, VendorError)
    assert (provider.code, provider.status, provider.message) == ("provider_error", 502, "anthropic: x")
    assert (embedder.code, embedder.status, embedder.message) == ("embedding_error", 502, "gemini embedder: y")


def test_every_error_body_has_the_one_shape():
    assert error_body("c", "m", retryable=True) == {"error": {"code": "c", "message": "m", "retryable": True}}
    assert BadRequest("visitor.id", "is required", code="missing_field").to_json() == {"error": {
        "code": "missing_field", "message": "visitor.id: is required", "retryable": False, "field": "visitor.id"}}
    assert OverCapacity("busy").to_json() == error_body("over_capacity", "busy", retryable=True)


def test_an_error_declared_in_one_line_keeps_what_it_does_not_say():
    class Gone(RtacError, status=410, code="gone"):
        pass

    class Expired(Gone, code="expired"):
        pass

    assert (Gone.status, Gone.code, Gone.retryable) == (410, "gone", False)
    assert (Expired.status, Expired.code) == (410, "expired")
    assert Gone("x", code="other").to_json()["error"]["code"] == "other"
