"""GeminiProvider through the real google-genai SDK against a local fake of the API."""
from __future__ import annotations

import json
import time

import pytest

from sidecar.errors import ProviderError, ProviderNotConfigured, StreamBroken
from sidecar.providers.base import ChatRequest, Message, Schema
from sidecar.providers.gemini import GeminiProvider
from tests.fakes._http import drain
from tests.fakes.gemini_server import (
    FakeGemini,
    delay,
    error,
    generated_body,
    raw,
    refused_url,
    reply_json,
    reply_text,
    streamed,
    tokens,
)

RTAC_SCHEMA = Schema("rtac_reply", {
    "type": "object",
    "properties": {
        "reply": {"type": "string"},
        "quick_replies": {"type": "array", "items": {"type": "string"}},
        "action": {"type": "string", "enum": ["none", "handoff", "contact_form"]},
        "unanswered": {"type": "boolean"},
        "forget": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["reply", "quick_replies", "action", "unanswered", "forget"],
    "additionalProperties": False,
})
LONG_SYSTEM = "You answer questions about the Example Shop. " * 150  # ~1700 tokens


def make_request(**overrides) -> ChatRequest:
    fields = dict(model="", system="STABLE SYSTEM", system_tail="TAIL: today is Monday",
                  messages=[Message("user", "Do you ship to Canada?")], max_tokens=400,
                  schema=RTAC_SCHEMA, cache_key="site-abc", timeout=5.0)
    fields.update(overrides)
    return ChatRequest(**fields)


@pytest.fixture
def fake():
    with FakeGemini() as server:
        yield server


@pytest.fixture
def provider(fake):
    return GeminiProvider("g-test", base_url=fake.base_url)


def test_empty_key_is_not_configured():
    with pytest.raises(ProviderNotConfigured) as info:
        GeminiProvider("")
    assert info.value.retryable is False


def test_request_shape(fake, provider):
    conversation = [Message("user", "Hi"), Message("assistant", "Hello!"),
                    Message("user", "Do you ship to Canada?")]
    result = provider.chat(make_request(messages=conversation))

    assert len(fake.requests) == 1
    sent = fake.requests[0]
    assert sent.path == f"/v1beta/models/{GeminiProvider.default_model}:generateContent"
    assert sent.headers["x-goog-api-key"] == "g-test"
    body = sent.body
    # Stable system first so implicit prefix caching covers it; the tail after it.
    assert [p["text"] for p in body["systemInstruction"]["parts"]] == [
        "STABLE SYSTEM", "TAIL: today is Monday"]
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "Hi"}]},
        {"role": "model", "parts": [{"text": "Hello!"}]},
        {"role": "user", "parts": [{"text": "Do you ship to Canada?"}]},
    ]
    config = body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"] == {**RTAC_SCHEMA.json_schema, "title": "rtac_reply"}
    assert config["maxOutputTokens"] == 400
    assert "LOW" in config["thinkingConfig"].values()
    assert sent.headers["x-server-timeout"] == "5"  # request.timeout reaches the call
    assert result.provider == "gemini" and result.model == GeminiProvider.default_model


def test_optional_parts_are_left_out(fake, provider):
    provider.chat(make_request(system_tail="", model="gemini-2.5-flash"))
    sent = fake.requests[0]
    assert sent.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert [p["text"] for p in sent.body["systemInstruction"]["parts"]] == ["STABLE SYSTEM"]
    assert "thinkingConfig" not in sent.body["generationConfig"]  # no thinking level there


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


def test_usage_maps_cached_prefix_and_thoughts():
    with FakeGemini(thoughts_tokens=30) as fake:
        provider = GeminiProvider("g-test", base_url=fake.base_url)
        fake.script(reply_json({"reply": "first"}), reply_json({"reply": "second"}))
        first = make_request(system=LONG_SYSTEM)
        r1 = provider.chat(first)
        second = make_request(system=LONG_SYSTEM, messages=[
            *first.messages, Message("assistant", '{"reply": "first"}'),
            Message("user", "And to Mexico?")])
        r2 = provider.chat(second)

        def prompt_tokens(n):
            body = fake.requests[n].body
            parts = body["systemInstruction"]["parts"] + [
                p for c in body["contents"] for p in c["parts"]]
            return sum(tokens(p["text"]) for p in parts)

    assert r1.usage.cache_read_input_tokens == 0
    assert r1.usage.input_tokens == prompt_tokens(0)
    assert r1.usage.output_tokens == tokens('{"reply": "first"}') + 30  # thoughts are output
    # The second turn reads the shared prefix from cache: fresh input is the rest.
    cached = r2.usage.cache_read_input_tokens
    assert cached >= 1024
    assert r2.usage.input_tokens == prompt_tokens(1) - cached
    assert r2.usage.cache_creation_input_tokens == 0


def test_rate_limit_is_retryable_with_retry_after(fake, provider):
    fake.script(error(429, "Resource has been exhausted", retry_after=2.5))
    with pytest.raises(ProviderError) as info:
        provider.chat(make_request())
    e = info.value
    assert (e.provider, e.http_status, e.retryable, e.retry_after) == ("gemini", 429, True, 2.5)
    assert "Resource has been exhausted" in str(e)
    assert len(fake.requests) == 1  # no SDK retry


def test_retry_after_header_wins(fake, provider):
    fake.script(raw(429, {"error": {"code": 429, "message": "slow down",
                                    "status": "RESOURCE_EXHAUSTED"}}, {"retry-after": "7"}))
    with pytest.raises(ProviderError) as info:
        provider.chat(make_request())
    assert info.value.retry_after == 7.0


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


def test_connection_refused_is_retryable():
    provider = GeminiProvider("g-test", base_url=refused_url())
    with pytest.raises(ProviderError) as info:
        provider.chat(make_request())
    assert info.value.http_status is None and info.value.retryable is True


def test_blocked_answer_is_not_retryable(fake, provider):
    fake.script(raw(200, {"promptFeedback": {"blockReason": "SAFETY"},
                          "usageMetadata": {"promptTokenCount": 12, "totalTokenCount": 12}}))
    with pytest.raises(ProviderError) as info:
        provider.chat(make_request())
    assert info.value.retryable is False and "SAFETY" in str(info.value)


def test_continuation_is_not_followed(fake, provider):
    body = generated_body('{"reply": "Hal', finish_reason="CONTINUATION")
    body["candidates"][0]["continuationToken"] = "Y29udGludWU="
    fake.script(raw(200, body))
    with pytest.raises(ProviderError) as info:
        provider.chat(make_request())
    assert info.value.retryable is True
    assert len(fake.requests) == 1  # one HTTP request per chat(), within its timeout


def test_malformed_success_body_is_a_provider_error(fake, provider):
    fake.script(raw(200, b"not json"))
    with pytest.raises(ProviderError) as info:
        provider.chat(make_request())
    assert info.value.retryable is False


# --- streaming: streamGenerateContent?alt=sse with the same body ------------------------

def test_stream_sends_the_chat_request_to_the_streaming_method(fake, provider):
    provider.chat(make_request())
    drain(provider.stream(make_request()))
    whole, streamed_request = fake.requests
    assert streamed_request.path == f"/v1beta/models/{GeminiProvider.default_model}:streamGenerateContent?alt=sse"
    assert streamed_request.body == whole.body  # same schema (titled rtac_reply), thinking and system
    assert streamed_request.headers["x-server-timeout"] == "5"


def test_streamed_usage_comes_from_the_last_chunk_thoughts_included():
    with FakeGemini(thoughts_tokens=30) as server:
        server.script(streamed({"reply": "first"}, chunk_chars=3))
        stream = GeminiProvider("g-test", base_url=server.base_url).stream(make_request())
        pieces, failure = drain(stream)
    assert failure is None and len(pieces) > 1
    assert stream.result.usage.output_tokens == tokens('{"reply": "first"}') + 30
    assert stream.result.usage.input_tokens > 0


def test_a_blocked_prompt_in_a_stream_fails_before_any_piece_for_good(fake, provider):
    fake.script(raw(200, {"promptFeedback": {"blockReason": "SAFETY"},
                          "usageMetadata": {"promptTokenCount": 12, "totalTokenCount": 12}}))
    pieces, failure = drain(provider.stream(make_request()))
    assert pieces == [] and type(failure) is ProviderError
    assert failure.retryable is False and "SAFETY" in str(failure)


def test_a_streamed_continuation_is_not_followed(fake, provider):
    body = generated_body('{"reply": "Hal', finish_reason="CONTINUATION")
    body["candidates"][0]["continuationToken"] = "Y29udGludWU="
    fake.script(raw(200, body))
    pieces, failure = drain(provider.stream(make_request()))
    # The piece is out already, so the cut-off answer is a broken stream.
    assert pieces == ['{"reply": "Hal'] and isinstance(failure, StreamBroken)
    assert len(fake.requests) == 1
