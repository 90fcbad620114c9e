"""Retries, backoff, deadline and failover — our one retry policy — and the same
chat turn through every provider, with the real SDKs against local fakes."""
from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from testbed import _http
from testbed._http import drain
from testbed.anthropic_server import FakeAnthropic
from testbed.anthropic_server import error as anthropic_error
from testbed.anthropic_server import reply_json as anthropic_reply
from testbed.gemini_server import FakeGemini
from testbed.openai_server import FakeOpenAI
from sidecar import tables
from sidecar.errors import ProviderError, StreamBroken
from sidecar.providers.base import (
    ChatRequest,
    ChatResult,
    Grounding,
    GroundingEntry,
    Message,
    Usage,
)
from sidecar.providers.chain import ProviderChain, RetryPolicy
from sidecar.providers.streams import VendorStream
from tests.conftest import chat_payload

OK = {"reply": "Basic service: 45 €.", "quick_replies": [], "action": "none", "unanswered": False, "forget": []}
PINNED = [{"title": "Price list", "content": "Basic service: 45 €\nFull service: 89 €"}]


class Clock:
    def __init__(self):
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class Cut:
    """A streamed answer that breaks with `status` after `pieces` pieces."""

    def __init__(self, pieces: int, status: int):
        self.pieces, self.status = pieces, status


class Scripted:
    """A provider that fails or answers as scripted, spending `cost` seconds a call;
    it streams its answer three characters a piece."""

    def __init__(self, name: str, script: list, clock: Clock, cost: float = 0.1):
        self.name, self.default_model = name, f"{name}-model"
        self.script, self.clock, self.cost = list(script), clock, cost
        self.calls: list[ChatRequest] = []
        self.closed_streams = 0

    @property
    def text(self) -> str:
        return '{"reply": "from %s"}' % self.name

    def _step(self, request: ChatRequest):
        self.calls.append(request)
        self.clock.now += min(self.cost, request.timeout)  # a slow call ends at its timeout
        step = self.script.pop(0) if self.script else 200
        if isinstance(step, ProviderError):
            raise step
        if step != 200 and not isinstance(step, Cut):
            raise ProviderError(self.name, f"HTTP {step}", http_status=step)
        return step

    def chat(self, request: ChatRequest) -> ChatResult:
        self._step(request)
        return ChatResult(text=self.text, usage=Usage(10, 2), provider=self.name, model=request.model)

    def stream(self, request: ChatRequest) -> VendorStream:
        def pieces(result: ChatResult):
            try:
                step = self._step(request)
                chunks = [self.text[i:i + 3] for i in range(0, len(self.text), 3)]
                for n, chunk in enumerate(chunks):
                    if isinstance(step, Cut) and n == step.pieces:
                        raise ProviderError(self.name, f"HTTP {step.status}", http_status=step.status)
                    yield chunk
                result.usage = Usage(10, 2)
            finally:
                self.closed_streams += 1

        return VendorStream(ChatResult("", provider=self.name, model=request.model), pieces)


REQUEST = ChatRequest(model="", system="s", system_tail="t", messages=(Message("user", "How much?"),),
                      max_tokens=100, schema=None, timeout=30.0,  # type: ignore[arg-type]
                      grounding=Grounding("How much is a basic service?", "en",
                                          (GroundingEntry("Price list", "Basic service: 45 €", pinned=True),)))


def chain(*links, clock, policy=RetryPolicy(attempts=3, base_delay=0.5, max_delay=8.0, deadline=40.0)):
    return ProviderChain([(p, p.default_model) for p in links], policy, sleep=clock.sleep, clock=clock,
                         jitter=lambda: 1.0)


def test_529_then_503_then_success_counts_three_requests():
    clock = Clock()
    primary = Scripted("anthropic", [529, 503, 200], clock)
    out = chain(primary, clock=clock).chat(REQUEST)
    assert out.result.text == '{"reply": "from anthropic"}' and not out.failed_over
    assert len(primary.calls) == 3
    assert clock.sleeps == [0.5, 1.0]  # exponential: base, 2 x base (jitter at its top)
    assert primary.calls[0].model == "anthropic-model"


def test_backoff_has_jitter_within_bounds():
    clock = Clock()
    c = ProviderChain([], RetryPolicy(base_delay=1.0, max_delay=8.0), sleep=clock.sleep, clock=clock,
                      jitter=lambda: 0.0)
    err = ProviderError("x", "503", http_status=503)
    assert [c.backoff(n, err) for n in (1, 2, 3, 4, 5)] == [0.5, 1.0, 2.0, 4.0, 4.0]
    c.jitter = lambda: 1.0
    assert [c.backoff(n, err) for n in (1, 2, 3, 4, 5)] == [1.0, 2.0, 4.0, 8.0, 8.0]


def test_retry_after_is_honoured():
    clock = Clock()
    primary = Scripted("anthropic", [ProviderError("anthropic", "429", http_status=429, retry_after=7.0), 200], clock)
    chain(primary, clock=clock).chat(REQUEST)
    assert clock.sleeps == [7.0] and len(primary.calls) == 2


def test_a_400_is_not_retried_and_the_fallback_answers():
    clock = Clock()
    primary, fallback = Scripted("anthropic", [400], clock), Scripted("openai", [200], clock)
    out = chain(primary, fallback, clock=clock).chat(REQUEST)
    assert len(primary.calls) == 1 and len(fallback.calls) == 1 and clock.sleeps == []
    assert out.failed_over and out.result.provider == "openai"
    assert fallback.calls[0].model == "openai-model"


def test_primary_down_for_good_fails_over_then_all_down_answers_offline():
    clock = Clock()
    primary, fallback = Scripted("anthropic", [503] * 9, clock), Scripted("gemini", [500] * 9, clock)
    out = chain(primary, fallback, clock=clock).chat(REQUEST)
    assert len(primary.calls) == 3 and len(fallback.calls) == 3
    assert out.failed_over and out.result.degraded and out.result.provider == "offline"
    assert "45 €" in out.result.text
    assert [a.provider for a in out.attempts] == ["anthropic"] * 3 + ["gemini"] * 3


def test_a_slow_provider_hits_the_deadline():
    clock = Clock()
    timeout = ProviderError("anthropic", "timed out")  # no status: retryable
    slow = Scripted("anthropic", [timeout] * 9, clock, cost=100.0)
    fallback = Scripted("openai", [200], clock)
    policy = RetryPolicy(attempts=5, base_delay=0.5, deadline=30.0)
    out = chain(slow, fallback, clock=clock, policy=policy).chat(replace(REQUEST, timeout=12.0))
    # 12 s, wait 0.5 s, 12 s, wait 1 s, then only 4.5 s are left: the last call gets just that.
    assert [c.timeout for c in slow.calls] == [12.0, 12.0, 4.5]
    assert clock.now <= 30.0
    assert out.result.provider == "offline" and out.result.degraded  # no time left for the fallback


def test_waiting_longer_than_the_deadline_moves_on_at_once():
    clock = Clock()
    primary = Scripted("anthropic", [ProviderError("anthropic", "429", http_status=429, retry_after=60.0)], clock)
    fallback = Scripted("openai", [200], clock)
    out = chain(primary, fallback, clock=clock).chat(REQUEST)
    assert clock.sleeps == [] and out.result.provider == "openai"


def test_a_zero_or_tiny_retry_after_still_backs_off_with_jitter():
    clock = Clock()
    c = ProviderChain([], RetryPolicy(base_delay=1.0, max_delay=8.0), sleep=clock.sleep, clock=clock,
                      jitter=lambda: 0.0)
    for asked in (0.0, 0.001, 0.2):
        err = ProviderError("x", "429", http_status=429, retry_after=asked)
        assert [c.backoff(n, err) for n in (1, 2, 3)] == [0.5, 1.0, 2.0]
    c.jitter = lambda: 1.0
    err = ProviderError("x", "429", http_status=429, retry_after=0.0)
    assert [c.backoff(n, err) for n in (1, 2, 3)] == [1.0, 2.0, 4.0]
    # A wait longer than the backoff is the vendor's to ask for.
    assert c.backoff(1, ProviderError("x", "429", http_status=429, retry_after=3.0)) == 3.0


def test_retry_after_zero_does_not_mean_back_to_back_attempts():
    clock = Clock()
    busy = ProviderError("anthropic", "429", http_status=429, retry_after=0.0)
    primary = Scripted("anthropic", [busy, busy, 200], clock)
    chain(primary, clock=clock).chat(REQUEST)
    assert clock.sleeps == [0.5, 1.0] and len(primary.calls) == 3


def test_retry_after_zero_from_a_real_vendor_backs_off():
    from sidecar.providers.openai import OpenAIProvider
    from sidecar.reply import REPLY_SCHEMA

    with FakeOpenAI() as fake:
        fake.script(_http.error(429, "slow down", retry_after=0), _http.reply_json(OK))
        clock = Clock()
        out = chain(OpenAIProvider("sk-test", base_url=fake.base_url), clock=clock).chat(
            replace(REQUEST, schema=REPLY_SCHEMA))
    assert out.attempts[0].error.retry_after == 0.0  # the vendor said "retry-after: 0"
    assert clock.sleeps == [0.5]  # base delay, jitter at its top: not 0
    assert out.result.provider == "openai" and len(fake.requests) == 2


# --- streamed answers ---------------------------------------------------------------------

def read(stream) -> tuple[str, Exception | None]:
    pieces, error = drain(stream)
    return "".join(pieces), error


def test_a_stream_is_retried_like_a_chat_before_its_first_piece():
    clock = Clock()
    primary = Scripted("anthropic", [529, 503, 200], clock)
    stream = chain(primary, clock=clock).stream(REQUEST)
    text, error = read(stream)
    assert error is None and text == primary.text == stream.result.text
    assert len(primary.calls) == 3 and clock.sleeps == [0.5, 1.0]
    assert stream.result.provider == "anthropic" and stream.result.usage == Usage(10, 2)
    assert not stream.failed_over and [a.error is None for a in stream.attempts] == [False, False, True]


def test_a_stream_fails_over_before_its_first_piece():
    clock = Clock()
    primary, fallback = Scripted("anthropic", [400], clock), Scripted("openai", [200], clock)
    stream = chain(primary, fallback, clock=clock).stream(REQUEST)
    text, error = read(stream)
    assert error is None and text == fallback.text
    assert stream.failed_over and stream.outcome.result.provider == "openai"
    assert fallback.calls[0].model == "openai-model"


def test_every_vendor_down_streams_the_offline_answer_degraded():
    clock = Clock()
    primary, fallback = Scripted("anthropic", [503] * 9, clock), Scripted("gemini", [500] * 9, clock)
    stream = chain(primary, fallback, clock=clock).stream(REQUEST)
    text, error = read(stream)
    assert error is None and "45 €" in text
    assert stream.result.degraded and stream.result.provider == "offline" and stream.result.text == text
    assert stream.failed_over and len(primary.calls) == 3 and len(fallback.calls) == 3
    assert primary.closed_streams == 3  # every failed attempt let go of its stream


def test_a_stream_broken_after_its_first_piece_is_not_retried():
    clock = Clock()
    primary, fallback = Scripted("anthropic", [Cut(2, 529)], clock), Scripted("openai", [200], clock)
    stream = chain(primary, fallback, clock=clock).stream(REQUEST)
    text, error = read(stream)
    assert isinstance(error, StreamBroken)
    assert error.http_status == 529 and error.retryable is False and error.provider == "anthropic"
    assert text == error.partial == stream.result.text == primary.text[:6]
    assert len(primary.calls) == 1 and fallback.calls == [] and clock.sleeps == []
    assert [a.error for a in stream.attempts] == [error]


def test_a_stream_that_broke_is_still_a_provider_error():
    # Callers that handle ProviderError keep working; StreamBroken is the narrower case.
    assert issubclass(StreamBroken, ProviderError)
    broken = StreamBroken(ProviderError("openai", "boom", http_status=500), "{\"re")
    assert broken.to_json()["error"]["code"] == "provider_stream_broken"
    assert broken.partial == '{"re' and broken.retryable is False


def test_closing_a_chain_stream_closes_the_vendor_stream():
    clock = Clock()
    primary = Scripted("anthropic", [200], clock)
    stream = chain(primary, clock=clock).stream(REQUEST)
    first = next(iter(stream))
    stream.close()
    assert primary.closed_streams == 1
    assert stream.result.text == first
    assert list(stream) == []  # a closed stream yields nothing more


def test_a_chain_stream_sends_nothing_before_it_is_read():
    clock = Clock()
    primary = Scripted("anthropic", [200], clock)
    stream = chain(primary, clock=clock).stream(REQUEST)
    assert primary.calls == []
    stream.close()
    assert primary.calls == []


# --- the same turn through every provider, real SDKs against the fakes --------------------

@pytest.fixture
def fakes():
    with FakeAnthropic() as a, FakeOpenAI() as o, FakeGemini() as g:
        yield {"anthropic": a, "openai": o, "gemini": g}


def vendor_services(make_services, fakes, provider, fallbacks=()):
    svc = make_services(provider=provider, fallback_providers=tuple(fallbacks),
                        api_keys={n: "test-key" for n in fakes},
                        base_urls={n: f.base_url for n, f in fakes.items()},
                        provider_timeout=2.0, turn_deadline=6.0)
    svc.chain.sleep = lambda s: None
    return svc


def stored_turns(engine, site):
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(tables.turns)
                            .where(tables.turns.c.site_id == site.id)).scalar_one()


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini", "offline"])
def test_the_same_turn_works_with_every_provider(make_services, make_client, fakes, site, engine, provider):
    fakes["anthropic"].script(anthropic_reply(OK))
    fakes["openai"].script(_http.reply_json(OK))
    fakes["gemini"].script(_http.reply_json(OK))
    client = make_client(vendor_services(make_services, fakes, provider), site)
    r = client.post("/v1/chat", chat_payload("How much is a basic service?", pinned=PINNED))
    body = r.get_json()
    assert r.status_code == 200 and body["usage"]["provider"] == provider
    assert "45 €" in body["reply"]
    assert body["degraded"] is (provider == "offline")
    usage = body["usage"]
    assert set(usage) == {"provider", "model", "input_tokens", "output_tokens", "cache_read_input_tokens",
                          "cache_creation_input_tokens"}
    if provider != "offline":
        assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
        assert len(fakes[provider].requests) == 1
    assert stored_turns(engine, site) == 1


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_cache_read_tokens_are_reported_by_every_provider(make_services, make_client, fakes, site, provider):
    client = make_client(vendor_services(make_services, fakes, provider), site)
    big = [{"title": "Price list", "content": "\n".join(f"Service number {i}: {i} €" for i in range(900))}]
    first = client.post("/v1/chat", chat_payload("Hi", pinned=big, visitor="c")).get_json()
    second = client.post("/v1/chat", chat_payload("And?", pinned=big, visitor="c",
                                                  conversation_id=first["conversation_id"])).get_json()
    assert second["usage"]["cache_read_input_tokens"] > 0
    assert client.get("/v1/stats").get_json()["cache_read_share"] > 0


def test_primary_down_for_good_the_fallback_answers(make_services, make_client, fakes, site, engine):
    fakes["anthropic"].script(*[anthropic_error(503, "api_error", "down")] * 10)
    fakes["openai"].script(_http.reply_json(OK))
    client = make_client(vendor_services(make_services, fakes, "anthropic", ["openai"]), site)
    body = client.post("/v1/chat", chat_payload("How much is a basic service?", pinned=PINNED)).get_json()
    assert body["usage"]["provider"] == "openai" and body["degraded"] is False
    assert len(fakes["anthropic"].requests) == 3 and len(fakes["openai"].requests) == 1
    assert stored_turns(engine, site) == 1


def test_all_down_offline_answers_with_the_contact_card(make_services, make_client, fakes, site, engine):
    fakes["anthropic"].script(*[anthropic_error(529, "overloaded_error", "busy")] * 10)
    fakes["gemini"].script(*[_http.error(503, "unavailable")] * 10)
    client = make_client(vendor_services(make_services, fakes, "anthropic", ["gemini"]), site)
    body = client.post("/v1/chat", chat_payload("How much is a basic service?", pinned=PINNED)).get_json()
    assert body["degraded"] is True and body["action"] == "show_contact" and "45 €" in body["reply"]
    assert len(fakes["anthropic"].requests) == 3 and len(fakes["gemini"].requests) == 3
    assert stored_turns(engine, site) == 1


FAULTS = st.sampled_from([200, 200, 400, 401, 404, 429, 500, 502, 503, 529])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(primary=st.lists(FAULTS, min_size=1, max_size=5), fallback=st.lists(FAULTS, min_size=1, max_size=5))
def test_any_fault_sequence_gives_a_200_and_a_stored_turn(make_services, make_client, fakes, site, engine,
                                                          primary, fallback):
    a, o = fakes["anthropic"], fakes["openai"]
    for fake in (a, o):  # one server for all examples: start each from an empty script
        fake.requests.clear()
    a._queue.clear()
    o._script.clear()
    a.script(*[anthropic_reply(OK) if s == 200 else anthropic_error(s, "api_error", "x") for s in primary])
    o.script(*[_http.reply_json(OK) if s == 200 else _http.error(s, "x") for s in fallback])
    before = stored_turns(engine, site)
    client = make_client(vendor_services(make_services, fakes, "anthropic", ["openai"]), site)
    r = client.post("/v1/chat", chat_payload("How much is a basic service?", pinned=PINNED))
    assert r.status_code == 200
    assert stored_turns(engine, site) == before + 1
    body = r.get_json()
    assert body["reply"]
    if body["degraded"]:  # every vendor failed: the offline answer, still grounded
        assert "45 €" in body["reply"] and body["action"] == "show_contact"
    assert 1 <= len(a.requests) <= 3
    if primary[0] in (400, 401, 404):
        assert len(a.requests) == 1
