"""What every provider on the generic fakes (testbed._http: OpenAI's and Gemini's) does alike,
run against each: no key refused, replies passed on verbatim; errors, timeouts, a server that is not
there and a body that is no answer translated."""
from __future__ import annotations

import json
import time
from typing import NamedTuple

import pytest

from testbed._http import delay, error, raw, refused_url, reply_text
from testbed.gemini_server import FakeGemini
from testbed.openai_server import FakeOpenAI
from sidecar.errors import ProviderError, ProviderNotConfigured
from sidecar.providers.gemini import GeminiProvider
from sidecar.providers.openai import OpenAIProvider
from tests.provider_cases import make_request, vendor_fixtures

class Vendor(NamedTuple):
    name: str
    server: type
    provider: type
    key: str
    api_root: str       # what the provider's base URL adds to the server's
    rate_limited: str   # the vendor's words for a 429


VENDORS = {v.server: v for v in (
    Vendor("gemini", FakeGemini, GeminiProvider, "g-test", "", "Resource has been exhausted"),
    Vendor("openai", FakeOpenAI, OpenAIProvider, "sk-test", "/v1", "Rate limit reached"))}
fake, provider = vendor_fixtures(*((v.server, lambda url, v=v: v.provider(v.key, base_url=url))
                                   for v in VENDORS.values()))
each_vendor = pytest.mark.parametrize("vendor", VENDORS.values(), ids=lambda v: v.name)


@each_vendor
def test_empty_key_is_not_configured(vendor):
    with pytest.raises(ProviderNotConfigured) as info:
        vendor.provider("")
    assert info.value.retryable is False


@each_vendor
def test_connection_refused_is_retryable(vendor):
    provider = vendor.provider(vendor.key, base_url=refused_url() + vendor.api_root)
    with pytest.raises(ProviderError) as info:
        provider.chat(make_request())
    assert info.value.http_status is None and info.value.retryable is True


def test_rate_limit_is_retryable_with_retry_after(fake, provider):
    vendor = VENDORS[type(fake)]
    fake.script(error(429, vendor.rate_limited, retry_after=2.5))
    with pytest.raises(ProviderError) as info:
        provider.chat(make_request())
    e = info.value
    assert (e.provider, e.http_status, e.retryable, e.retry_after) == (vendor.name, 429, True, 2.5)
    assert vendor.rate_limited in str(e)
    assert len(fake.requests) == 1  # no SDK retry


@pytest.mark.parametrize("text", [
    '```json\n{"reply": "Yes", "quick_replies": [], "action": "none", '
    '"unanswered": false, "forget": []}\n```',
    "Sorry, I can only answer in plain text today.",
    json.dumps({"reply": "Calling a human", "quick_replies": [], "action": "teleport",
                "unanswered": False, "forget": []}),
])
def test_text_is_returned_verbatim(fake, provider, text):
    fake.script(reply_text(text))
    assert provider.chat(make_request()).text == text


def test_default_fake_answer_is_a_valid_reply(provider):
    reply = json.loads(provider.chat(make_request()).text)
    assert reply == {"reply": "Hello from the fake", "quick_replies": [], "action": "none",
                     "unanswered": False, "forget": []}


@pytest.mark.parametrize("status,retryable", [
    (500, True), (503, True), (400, False), (401, False), (404, False)])
def test_http_errors_are_translated(fake, provider, status, retryable):
    fake.script(error(status, f"failure {status}"))
    with pytest.raises(ProviderError) as info:
        provider.chat(make_request())
    assert info.value.http_status == status
    assert info.value.retryable is retryable
    assert info.value.retry_after is None
    assert len(fake.requests) == 1


def test_timeout_is_retryable_without_status(fake, provider):
    fake.script(delay(3.0))
    started = time.monotonic()
    with pytest.raises(ProviderError) as info:
        provider.chat(make_request(timeout=0.3))
    assert time.monotonic() - started < 2.0  # request.timeout applies per call
    assert info.value.http_status is None and info.value.retryable is True
    assert len(fake.requests) == 1


def test_malformed_success_body_is_a_provider_error(fake, provider):
    fake.script(raw(200, b"not json"))
    with pytest.raises(ProviderError) as info:
        provider.chat(make_request())
    assert info.value.retryable is False
