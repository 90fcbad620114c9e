"""Every provider streaming through its real SDK against its local fake: the request asks
for a stream under the same schema, pieces arrive as the fake sends them and join to
the text, usage comes from the stream, failures before the first piece are retried
or failed over, failures after it are StreamBroken, and close() lets go at once."""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Callable

import pytest

from testbed import _http
from testbed import anthropic_server as anthropic_fake
from testbed._http import drain
from testbed.anthropic_server import FakeAnthropic
from testbed.gemini_server import FakeGemini
from testbed.openai_server import FakeOpenAI
from sidecar.errors import ProviderError, StreamBroken
from sidecar.providers.anthropic import AnthropicProvider
from sidecar.providers.base import ChatRequest, Grounding, GroundingEntry, Message
from sidecar.providers.chain import ProviderChain, RetryPolicy
from sidecar.providers.gemini import GeminiProvider
from sidecar.providers.openai import OpenAIProvider
from sidecar.reply import REPLY_SCHEMA

OK = {"reply": "We open at 9 and close at 18. Basic service: 45 €.", "quick_replies": ["Book"],
      "action": "none", "unanswered": False, "forget": []}
TEXT = json.dumps(OK)


@dataclass(frozen=True)
class Vendor:
    name: str
    fake: type
    provider: type
    overloaded: Callable[[], object]  # the fake's error item for "busy, try again"
    rejected: Callable[[], object]  # the fake's error item for a request that will never pass

    def asked_for_a_stream(self, recorded) -> bool:
        if self.name == "gemini":
            return recorded.path.endswith(":streamGenerateContent?alt=sse")
        return recorded.body.get("stream") is True


VENDORS = [
    Vendor("anthropic", FakeAnthropic, AnthropicProvider,
           lambda: anthropic_fake.error(529, "overloaded_error", "Overloaded"),
           lambda: anthropic_fake.error(400, "invalid_request_error", "max_tokens: too large")),
    Vendor("openai", FakeOpenAI, OpenAIProvider,
           lambda: _http.error(503, "The server is overloaded"), lambda: _http.error(400, "Invalid schema")),
    Vendor("gemini", FakeGemini, GeminiProvider,
           lambda: _http.error(503, "The model is overloaded"), lambda: _http.error(400, "Invalid schema")),
]


def make_request(timeout: float = 5.0) -> ChatRequest:
    return ChatRequest(model="", system="You answer for the Example Shop.", system_tail="Today is Monday.",
                       messages=[Message("user", "When do you open?")], max_tokens=300, schema=REPLY_SCHEMA,
                       cache_key="site-1", timeout=timeout,
                       grounding=Grounding("How much is a basic service?", "en",
                                           (GroundingEntry("Price list", "Basic service: 45 €", pinned=True),)))


@pytest.fixture(params=VENDORS, ids=lambda v: v.name)
def vendor(request) -> Vendor:
    return request.param


@pytest.fixture
def fake(vendor):
    with vendor.fake() as server:
        yield server


@pytest.fixture
def provider(vendor, fake):
    return vendor.provider("test-key", base_url=fake.base_url)


def test_the_request_asks_for_a_stream_under_the_reply_schema(vendor, fake, provider):
    drain(provider.stream(make_request()))
    [sent] = fake.requests
    assert vendor.asked_for_a_stream(sent)
    assert '"rtac_reply"' in json.dumps(sent.body)


def test_pieces_arrive_as_sent_and_join_to_the_text(fake, provider):
    fake.script(_http.streamed(OK, chunk_chars=5))
    stream = provider.stream(make_request())
    pieces, error = drain(stream)
    assert error is None
    assert pieces == [TEXT[i:i + 5] for i in range(0, len(TEXT), 5)]
    assert stream.result.text == "".join(pieces) == TEXT


def test_usage_and_model_are_read_from_the_stream(vendor, fake, provider):
    fake.script(_http.streamed(OK, chunk_chars=7))
    stream = provider.stream(make_request())
    drain(stream)
    usage = stream.result.usage
    assert usage.input_tokens > 0
    assert usage.output_tokens == _http.tokens(TEXT)
    assert stream.result.provider == vendor.name
    assert stream.result.model == vendor.provider.default_model


def test_a_stream_matches_the_whole_answer(fake, provider):
    fake.script(_http.reply_json(OK), _http.streamed(OK, chunk_chars=3))
    whole = provider.chat(make_request())
    stream = provider.stream(make_request())
    drain(stream)
    assert stream.result.text == whole.text
    assert stream.result.usage.output_tokens == whole.usage.output_tokens


def test_nothing_is_sent_before_the_stream_is_read(fake, provider):
    stream = provider.stream(make_request())
    assert fake.requests == []
    stream.close()
    assert fake.requests == []


def test_the_first_piece_comes_before_the_last_is_sent(fake, provider):
    fake.script(_http.streamed(OK, first_delay=0.2, chunk_chars=40, interval=0.15))  # 4 chunks
    started = time.monotonic()
    stream = provider.stream(make_request())
    first = next(iter(stream))
    first_at = time.monotonic() - started
    pieces, error = drain(stream)
    done_at = time.monotonic() - started
    assert error is None and first + "".join(pieces) == TEXT and len(pieces) == 3
    assert first_at >= 0.2  # the model's delay, as the fake was told
    assert done_at - first_at >= 0.3  # the first piece did not wait for the rest


@pytest.mark.parametrize("kind", ["overloaded", "rejected"])
def test_an_http_error_comes_before_any_piece_as_a_plain_provider_error(vendor, fake, provider, kind):
    fake.script(getattr(vendor, kind)())
    pieces, error = drain(provider.stream(make_request()))
    assert pieces == [] and type(error) is ProviderError
    assert error.retryable is (kind == "overloaded")
    assert error.http_status == (400 if kind == "rejected" else 529 if vendor.name == "anthropic" else 503)
    assert len(fake.requests) == 1  # the SDK's own retries are off


def test_an_error_event_before_the_first_piece_is_retryable(vendor, fake, provider):
    fake.script(_http.streamed(OK, cut_after=0, cut=vendor.overloaded()))
    pieces, error = drain(provider.stream(make_request()))
    assert pieces == [] and type(error) is ProviderError and error.retryable


def test_a_slow_first_piece_times_out_as_a_retryable_error(fake, provider):
    fake.script(_http.streamed(OK, first_delay=3.0))
    started = time.monotonic()
    pieces, error = drain(provider.stream(make_request(timeout=0.3)))
    assert time.monotonic() - started < 2.0
    assert pieces == [] and type(error) is ProviderError
    assert error.retryable and error.http_status is None


@pytest.mark.parametrize("cut", ["event", "drop"])
def test_a_failure_after_the_first_piece_is_stream_broken(vendor, fake, provider, cut):
    fake.script(_http.streamed(OK, chunk_chars=6, cut_after=2,
                               cut=vendor.overloaded() if cut == "event" else _http.DROP))
    stream = provider.stream(make_request())
    pieces, error = drain(stream)
    assert pieces == [TEXT[:6], TEXT[6:12]]
    assert isinstance(error, StreamBroken) and error.retryable is False
    assert error.partial == stream.result.text == TEXT[:12]
    if cut == "event" and vendor.name != "openai":  # OpenAI's error event carries no status
        assert error.http_status == (529 if vendor.name == "anthropic" else 503)


def test_close_releases_the_connection_early(fake, provider):
    fake.script(_http.streamed({"reply": "x" * 400}, chunk_chars=4, interval=0.02))  # 2 s in all
    stream = provider.stream(make_request())
    first = next(iter(stream))
    stream.close()
    [sent] = fake.streams
    assert sent.ended.wait(1.0), "the fake is still sending"
    assert sent.outcome == "client_closed"
    assert stream.result.text == first


def test_leaving_the_loop_and_closing_is_enough(fake, provider):
    fake.script(_http.streamed({"reply": "x" * 400}, chunk_chars=4, interval=0.02))
    stream = provider.stream(make_request())
    for _ in stream:
        break
    stream.close()
    assert fake.streams[0].ended.wait(1.0) and fake.streams[0].outcome == "client_closed"
    stream.close()  # twice is harmless


# --- the chain streaming through real SDKs -------------------------------------------------

def make_chain(*links, sleeps: list | None = None) -> ProviderChain:
    waits = sleeps if sleeps is not None else []
    return ProviderChain([(p, p.default_model) for p in links], RetryPolicy(attempts=3, deadline=20.0),
                         sleep=waits.append, jitter=lambda: 1.0)


def test_the_chain_retries_a_vendor_that_fails_before_its_first_piece(vendor, fake, provider):
    fake.script(vendor.overloaded(), _http.streamed(OK, cut_after=0, cut=vendor.overloaded()),
                _http.streamed(OK, chunk_chars=9))
    sleeps: list[float] = []
    stream = make_chain(provider, sleeps=sleeps).stream(make_request())
    pieces, error = drain(stream)
    assert error is None and "".join(pieces) == TEXT == stream.result.text
    assert len(fake.requests) == 3 and len(sleeps) == 2 and all(s > 0 for s in sleeps)
    assert not stream.failed_over and stream.result.provider == vendor.name


def test_the_chain_fails_over_to_the_next_vendor_before_any_piece(vendor, fake, provider):
    other = VENDORS[(VENDORS.index(vendor) + 1) % len(VENDORS)]
    with other.fake() as other_fake:
        fake.script(vendor.rejected())
        other_fake.script(_http.streamed(OK))
        fallback = other.provider("test-key", base_url=other_fake.base_url)
        stream = make_chain(provider, fallback).stream(make_request())
        pieces, error = drain(stream)
        assert error is None and "".join(pieces) == TEXT
        assert stream.failed_over and stream.result.provider == other.name
        assert len(fake.requests) == 1 and len(other_fake.requests) == 1  # a rejected request is not retried
        assert other.asked_for_a_stream(other_fake.requests[0])


def test_the_chain_streams_the_offline_answer_when_every_vendor_fails(vendor, fake, provider):
    fake.script(*[vendor.overloaded()] * 3)
    stream = make_chain(provider).stream(make_request())
    pieces, error = drain(stream)
    assert error is None and len(fake.requests) == 3
    assert stream.result.degraded and stream.result.provider == "offline"
    assert json.loads("".join(pieces))["reply"].count("45 €") == 1


def test_the_chain_does_not_retry_a_vendor_that_broke_mid_stream(vendor, fake, provider):
    fake.script(_http.streamed(OK, chunk_chars=6, cut_after=3, cut=vendor.overloaded()), _http.streamed(OK))
    stream = make_chain(provider).stream(make_request())
    pieces, error = drain(stream)
    assert isinstance(error, StreamBroken) and "".join(pieces) == TEXT[:18] == error.partial
    assert len(fake.requests) == 1
    assert stream.attempts[-1].error is error and not stream.result.degraded


# --- the fakes themselves: the wire shapes the SDKs are tested against ---------------------

def _raw_stream(url: str, path: str, body: dict, headers: dict) -> tuple[str, bytes]:
    import urllib.request

    request = urllib.request.Request(url + path, data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json", **headers})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.headers["content-type"], response.read()


def test_the_anthropic_fake_sends_the_api_s_event_sequence():
    with FakeAnthropic() as fake:
        fake.script(_http.streamed({"reply": "Hi"}, chunk_chars=4))
        kind, data = _raw_stream(fake.base_url, "/v1/messages",
                                 {"model": "m", "max_tokens": 10, "stream": True,
                                  "messages": [{"role": "user", "content": "Hi"}]}, {"x-api-key": "k"})
    events = [block.split("\n") for block in data.decode().strip().split("\n\n")]
    names = [lines[0].removeprefix("event: ") for lines in events]
    assert kind.startswith("text/event-stream")
    assert names == ["message_start", "content_block_start", "ping", *["content_block_delta"] * 4,
                     "content_block_stop", "message_delta", "message_stop"]
    payloads = [json.loads(lines[1].removeprefix("data: ")) for lines in events]
    assert all(p["type"] == n for p, n in zip(payloads, names))
    assert set(payloads[0]["message"]["usage"]) >= {"input_tokens", "cache_read_input_tokens",
                                                    "cache_creation_input_tokens", "output_tokens"}
    assert payloads[-2]["delta"]["stop_reason"] == "end_turn" and payloads[-2]["usage"]["output_tokens"] > 0


def test_the_openai_fake_ends_with_a_usage_chunk_and_done():
    with FakeOpenAI() as fake:
        fake.script(_http.streamed({"reply": "Hi"}, chunk_chars=4))
        kind, data = _raw_stream(fake.base_url, "/chat/completions",
                                 {"model": "m", "stream": True, "stream_options": {"include_usage": True},
                                  "messages": [{"role": "user", "content": "Hi"}]}, {"authorization": "Bearer k"})
    lines = data.decode().strip().split("\n\n")
    assert kind.startswith("text/event-stream") and lines[-1] == "data: [DONE]"
    chunks = [json.loads(line.removeprefix("data: ")) for line in lines[:-1]]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["prompt_tokens"] > 0
    assert all(c["usage"] is None for c in chunks[:-1])


def test_the_gemini_fake_frames_events_with_crlf_and_finishes_the_last():
    with FakeGemini() as fake:
        fake.script(_http.streamed({"reply": "Hi"}, chunk_chars=4))
        kind, data = _raw_stream(fake.base_url, "/v1beta/models/g:streamGenerateContent?alt=sse",
                                 {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]},
                                 {"x-goog-api-key": "k"})
    events = data.decode().split("\r\n\r\n")
    assert kind.startswith("text/event-stream") and events[-1] == ""
    chunks = [json.loads(e.removeprefix("data: ")) for e in events[:-1]]
    assert [("finishReason" in c["candidates"][0]) for c in chunks] == [False] * (len(chunks) - 1) + [True]
    assert "candidatesTokenCount" in chunks[-1]["usageMetadata"]
    assert "candidatesTokenCount" not in chunks[0]["usageMetadata"]
