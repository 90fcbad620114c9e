"""GeminiProvider through the real google-genai SDK against a local fake of the API.

The tests every provider on the generic fakes passes alike are in test_provider_common.py."""
from __future__ import annotations

import pytest

from testbed._http import drain
from testbed.gemini_server import FakeGemini, generated_body, raw, reply_json, streamed, tokens
from sidecar.errors import ProviderError, StreamBroken
from sidecar.providers.gemini import GeminiProvider
from tests.provider_cases import CONVERSATION, LONG_SYSTEM, RTAC_SCHEMA, make_request, next_turn, vendor_fixtures

fake, provider = vendor_fixtures((FakeGemini, lambda url: GeminiProvider("g-test", base_url=url)))


def test_request_shape(fake, provider):
    result = provider.chat(make_request(messages=CONVERSATION))

    [sent] = fake.requests  # one request, no retry
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


def test_usage_maps_cached_prefix_and_thoughts():
    with FakeGemini(thoughts_tokens=30) as fake:
        provider = GeminiProvider("g-test", base_url=fake.base_url)
        fake.script(reply_json({"reply": "first"}), reply_json({"reply": "second"}))
        first = make_request(system=LONG_SYSTEM)
        r1 = provider.chat(first)
        r2 = provider.chat(next_turn(first))

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


def test_retry_after_header_wins(fake, provider):
    fake.script(raw(429, {"error": {"code": 429, "message": "slow down",
                                    "status": "RESOURCE_EXHAUSTED"}}, {"retry-after": "7"}))
    with pytest.raises(ProviderError) as info:
        provider.chat(make_request())
    assert info.value.retry_after == 7.0


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
