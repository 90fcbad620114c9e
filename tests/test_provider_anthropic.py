"""AnthropicProvider through the real SDK against a local fake of the Messages API."""
from __future__ import annotations

import email.utils
import json
import socket
import time
import urllib.error
import urllib.request

import pytest

from testbed._http import drain
from testbed.anthropic_server import (
    DEFAULT_REPLY,
    FakeAnthropic,
    delay,
    error,
    estimate_tokens,
    reply_json,
    reply_text,
    streamed,
)
from sidecar.errors import ProviderError, ProviderNotConfigured
from sidecar.providers.anthropic import AnthropicProvider
from sidecar.providers.base import ChatRequest, Message, Schema
from tests.provider_cases import vendor_fixtures

SCHEMA = Schema("rtac_reply", {
    "type": "object",
    "properties": {"reply": {"type": "string"}, "quick_replies": {"type": "array", "items": {"type": "string"}}},
    "required": ["reply", "quick_replies"],
    "additionalProperties": False,
})
# Over the fake's 1024-token minimum, so the system block is cacheable on its own.
SYSTEM = "You answer questions about the Example Shop. " * 120
TAIL = "Today is Monday. The visitor is on /checkout."


def make_request(messages, *, system=SYSTEM, tail=TAIL, timeout=10.0, model="claude-haiku-5-5"):
    return ChatRequest(model=model, system=system, system_tail=tail,
                       messages=[Message(role, text) for role, text in messages],
                       max_tokens=512, schema=SCHEMA, timeout=timeout)


fake, provider = vendor_fixtures((FakeAnthropic, lambda url: AnthropicProvider("test-key", base_url=url)))


def test_empty_api_key_is_not_configured():
    with pytest.raises(ProviderNotConfigured) as info:
        AnthropicProvider("")
    assert info.value.retryable is False


def test_default_model_is_current():
    from anthropic._data import DEPRECATED_MODELS

    assert AnthropicProvider.default_model not in DEPRECATED_MODELS


def test_request_body_carries_cache_breakpoints_and_schema(fake, provider):
    provider.chat(make_request([("user", "Do you ship to Norway?"), ("assistant", "Yes."),
                                ("user", "Context: shipping.md\n\nHow long does it take?")]))

    [sent] = fake.requests
    assert sent.path.startswith("/v1/messages")
    assert "test-key" in (sent.headers.get("x-api-key"), sent.headers.get("authorization", "").removeprefix("Bearer "))
    body = sent.body
    assert body["model"] == "claude-haiku-5-5"
    assert body["max_tokens"] == 512
    assert body["system"] == [
        {"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": TAIL, "cache_control": {"type": "ephemeral"}},
    ]
    first, earlier, final = body["messages"]
    assert first == {"role": "user", "content": [{"type": "text", "text": "Do you ship to Norway?"}]}
    assert earlier == {"role": "assistant", "content": [
        {"type": "text", "text": "Yes.", "cache_control": {"type": "ephemeral"}}]}
    assert final["role"] == "user"
    assert all("cache_control" not in block for block in final["content"])
    assert body["output_config"] == {"format": {
        "type": "json_schema", "schema": {**SCHEMA.json_schema, "title": "rtac_reply"}}}


def test_single_message_has_no_message_breakpoint_and_no_empty_tail(fake, provider):
    provider.chat(make_request([("user", "Hi")], tail=""))

    body = fake.requests[0].body
    assert body["system"] == [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]


def test_empty_model_falls_back_to_default(fake, provider):
    result = provider.chat(make_request([("user", "Hi")], model=""))

    assert fake.requests[0].body["model"] == AnthropicProvider.default_model
    assert result.model == AnthropicProvider.default_model


def test_reply_text_and_usage_are_mapped(fake, provider):
    fake.script(reply_json({"reply": "We ship in 3 days.", "quick_replies": []}))

    result = provider.chat(make_request([("user", "Hi")]))

    assert json.loads(result.text) == {"reply": "We ship in 3 days.", "quick_replies": []}
    assert result.provider == "anthropic"
    assert result.model == "claude-haiku-5-5"
    assert result.usage.output_tokens == estimate_tokens(result.text)
    assert result.usage.cache_creation_input_tokens == estimate_tokens(SYSTEM) + estimate_tokens(TAIL)
    assert result.usage.cache_read_input_tokens == 0
    assert result.usage.input_tokens == estimate_tokens("Hi")


def test_three_turn_conversation_reads_earlier_turns_from_cache(provider):
    t = estimate_tokens
    u1, a1, u2, a2, u3 = "Do you ship to Norway?", "Yes, we do.", "How long?", "3 days.", "Price?"

    turn1 = provider.chat(make_request([("user", u1)])).usage
    turn2 = provider.chat(make_request([("user", u1), ("assistant", a1), ("user", u2)])).usage
    turn3 = provider.chat(make_request([("user", u1), ("assistant", a1), ("user", u2),
                                        ("assistant", a2), ("user", u3)])).usage

    assert (turn1.cache_read_input_tokens, turn1.cache_creation_input_tokens) == (0, t(SYSTEM) + t(TAIL))
    # Turn 2: the whole system prompt is read; turn 1 is written behind it.
    assert turn2.cache_read_input_tokens == t(SYSTEM) + t(TAIL)
    assert turn2.cache_creation_input_tokens == t(u1) + t(a1)
    assert turn2.input_tokens == t(u2)
    # Turn 3: everything turn 2 cached is read; only the current message is fresh.
    assert turn3.cache_read_input_tokens == t(SYSTEM) + t(TAIL) + t(u1) + t(a1)
    assert turn3.cache_creation_input_tokens == t(u2) + t(a2)
    assert turn3.input_tokens == t(u3)


@pytest.mark.parametrize("status, kind", [
    (429, "rate_limit_error"), (500, "api_error"), (503, "api_error"), (529, "overloaded_error"),
])
def test_retryable_statuses_make_one_request_and_a_retryable_error(fake, provider, status, kind):
    fake.script(error(status, kind, "try later"))

    with pytest.raises(ProviderError) as info:
        provider.chat(make_request([("user", "Hi")]))

    assert len(fake.requests) == 1  # the SDK's own retries are off
    assert info.value.provider == "anthropic"
    assert info.value.http_status == status
    assert info.value.retryable is True
    assert kind in info.value.message


def test_rate_limit_retry_after_seconds_is_parsed(fake, provider):
    fake.script(error(429, "rate_limit_error", "Number of request tokens has exceeded your rate limit",
                      retry_after=7))

    with pytest.raises(ProviderError) as info:
        provider.chat(make_request([("user", "Hi")]))

    assert info.value.retryable is True
    assert info.value.retry_after == 7.0


def test_retry_after_http_date_is_parsed(fake, provider):
    fake.script(error(529, "overloaded_error", "Overloaded",
                      retry_after=email.utils.formatdate(time.time() + 30, usegmt=True)))

    with pytest.raises(ProviderError) as info:
        provider.chat(make_request([("user", "Hi")]))

    assert 25 <= info.value.retry_after <= 31


def test_bad_request_is_not_retryable(fake, provider):
    fake.script(error(400, "invalid_request_error", "messages: text content blocks must be non-empty"))

    with pytest.raises(ProviderError) as info:
        provider.chat(make_request([("user", "Hi")]))

    assert info.value.http_status == 400
    assert info.value.retryable is False
    assert info.value.retry_after is None
    assert "text content blocks must be non-empty" in info.value.message


def test_timeout_is_per_request_and_retryable(fake, provider):
    fake.script(delay(5))

    started = time.monotonic()
    with pytest.raises(ProviderError) as info:
        provider.chat(make_request([("user", "Hi")], timeout=0.3))

    assert time.monotonic() - started < 3  # request.timeout, not the client's 30 s
    assert info.value.http_status is None
    assert info.value.retryable is True
    assert len(fake.requests) == 1


def test_connection_refused_is_retryable():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    provider = AnthropicProvider("test-key", base_url=f"http://127.0.0.1:{port}")

    with pytest.raises(ProviderError) as info:
        provider.chat(make_request([("user", "Hi")], timeout=2))

    assert info.value.http_status is None
    assert info.value.retryable is True


@pytest.mark.parametrize("text", [
    '```json\n{"reply": "Hi", "quick_replies": []}\n```',
    "Sorry, I can only answer in prose today.",
])
def test_reply_text_is_returned_verbatim(fake, provider, text):
    fake.script(reply_text(text))

    assert provider.chat(make_request([("user", "Hi")])).text == text


def test_thinking_blocks_are_not_part_of_the_text(fake, provider):
    fake.script(reply_json(DEFAULT_REPLY, thinking="The visitor greets me; greet back."))

    assert json.loads(provider.chat(make_request([("user", "Hi")])).text) == DEFAULT_REPLY


# The fake itself: the behaviour of the real API that the tests above rely on.

def _post(url, body):
    request = urllib.request.Request(url + "/v1/messages", data=json.dumps(body).encode(),
                                     headers={"x-api-key": "k", "content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.mark.parametrize("missing", ["model", "max_tokens", "messages"])
def test_fake_rejects_missing_required_fields(fake, missing):
    body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "Hi"}]}
    del body[missing]

    status, payload = _post(fake.base_url, body)

    assert status == 400
    assert payload["type"] == "error"
    assert payload["error"]["type"] == "invalid_request_error"
    assert missing in payload["error"]["message"]


def test_fake_caches_nothing_below_the_minimum():
    with FakeAnthropic(min_cacheable_tokens=10_000) as server:
        provider = AnthropicProvider("test-key", base_url=server.base_url)
        usages = [provider.chat(make_request([("user", "Hi")])).usage for _ in range(2)]

    assert all(u.cache_read_input_tokens == u.cache_creation_input_tokens == 0 for u in usages)
    assert usages[1].input_tokens == estimate_tokens(SYSTEM) + estimate_tokens(TAIL) + estimate_tokens("Hi")


def test_fake_emits_a_real_529_status_line(fake):
    fake.script(error(529, "overloaded_error", "Overloaded"))
    host, port = fake.base_url.removeprefix("http://").split(":")
    body = json.dumps({"model": "m", "max_tokens": 1, "messages": []}).encode()

    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: k\r\n"
                     b"content-type: application/json\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
        status_line = sock.makefile("rb").readline()

    assert status_line.startswith(b"HTTP/1.1 529 ")


# Streaming: the same request with "stream": true, read through messages.stream().

def test_stream_sends_the_chat_request_with_stream_on(fake, provider):
    request = make_request([("user", "Hi"), ("assistant", "Hello."), ("user", "Open today?")])
    provider.chat(request)
    drain(provider.stream(request))

    whole, streamed_body = fake.requests[0].body, fake.requests[1].body
    assert streamed_body.pop("stream") is True
    assert streamed_body == whole  # cache breakpoints and schema included


def test_streamed_thinking_is_not_part_of_the_text(fake, provider):
    fake.script(reply_json(DEFAULT_REPLY, thinking="The visitor greets me; greet back."))

    stream = provider.stream(make_request([("user", "Hi")]))
    pieces, error = drain(stream)

    assert error is None and json.loads("".join(pieces)) == DEFAULT_REPLY
    assert stream.result.usage.output_tokens == (estimate_tokens(stream.result.text)
                                                 + estimate_tokens("The visitor greets me; greet back."))


def test_streamed_usage_reads_the_cache_on_the_second_turn(provider):
    t = estimate_tokens
    first = provider.stream(make_request([("user", "Hi")]))
    drain(first)
    second = provider.stream(make_request([("user", "Hi"), ("assistant", "Hello."), ("user", "Price?")]))
    drain(second)

    assert first.result.usage.cache_creation_input_tokens == t(SYSTEM) + t(TAIL)
    assert second.result.usage.cache_read_input_tokens == t(SYSTEM) + t(TAIL)
    assert second.result.usage.input_tokens == t("Price?")
    assert second.result.model == "claude-haiku-5-5"


@pytest.mark.parametrize("kind, status, retryable", [
    ("overloaded_error", 529, True), ("rate_limit_error", 429, True), ("api_error", 500, True),
    ("invalid_request_error", 400, False), ("a_kind_not_known_yet", 500, True),
])
def test_an_error_event_in_a_200_stream_gets_its_type_s_status(fake, provider, kind, status, retryable):
    fake.script(streamed(DEFAULT_REPLY, cut_after=0, cut=error(200, kind, "went wrong")))

    pieces, failure = drain(provider.stream(make_request([("user", "Hi")])))

    assert pieces == []
    assert (failure.http_status, failure.retryable) == (status, retryable)
    assert kind in failure.message
