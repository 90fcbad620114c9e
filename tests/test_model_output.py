"""Whatever a model writes, the visitor gets a clean 200 and the turn is stored.

Every provider's real SDK talks to the project's fake of its vendor, which answers
with scripted text (lone surrogates, NUL and other control characters, truncated or
fenced JSON, a megabyte of reply); the turn goes through `POST /v1/chat` of the real
app on real MariaDB.
"""
import json
import re
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from testbed import _http, anthropic_server, gemini_server, openai_server
from sidecar import tables
from sidecar.price_check import PriceCheck
from sidecar.providers.base import GroundingEntry
from sidecar.reply import ACTIONS, MAX_QUICK_REPLIES, MAX_QUICK_REPLY_CHARS, MAX_REPLY_CHARS, parse_reply
from tests.conftest import chat_payload

PROVIDERS = ("anthropic", "openai", "gemini")
_FAKES = {"anthropic": (anthropic_server.FakeAnthropic, anthropic_server.reply_text),
          "openai": (openai_server.FakeOpenAI, openai_server.reply_text),
          "gemini": (gemini_server.FakeGemini, gemini_server.reply_text)}
_UNCLEAN = re.compile("[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")
_PLAIN_FLAGS = {"quick_replies": [], "action": "none", "unanswered": False, "forget": []}


@contextmanager
def _vendor(make_services, make_client, site, provider: str):
    fake_class, reply_text = _FAKES[provider]
    with fake_class() as fake:
        # No embedder: these turns are about the model's text, and stay fast.
        svc = make_services(provider=provider, api_keys={provider: "test-key"},
                            base_urls={provider: fake.base_url}, memory=False, retrieval="fulltext",
                            provider_timeout=5.0, turn_deadline=10.0)
        svc.chain.sleep = lambda seconds: None
        yield provider, fake, reply_text, make_client(svc, site)


@pytest.fixture(params=PROVIDERS)
def vendor(request, make_services, make_client, site):
    with _vendor(make_services, make_client, site, request.param) as v:
        yield v


def _turns(engine, conversation_id: str) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(tables.turns)
                            .where(tables.turns.c.conversation_id == conversation_id)).scalar_one()


def _assert_clean(body: dict) -> None:
    reply = body["reply"]
    assert isinstance(reply, str) and reply.strip(), body
    assert len(reply) <= MAX_REPLY_CHARS
    assert not _UNCLEAN.search(reply), repr(reply[:200])
    assert len(body["quick_replies"]) <= MAX_QUICK_REPLIES
    for q in body["quick_replies"]:
        assert 0 < len(q) <= MAX_QUICK_REPLY_CHARS and not _UNCLEAN.search(q)
    assert body["action"] in ACTIONS and isinstance(body["unanswered"], bool)


# What every turn of these tests is shown: a pinned entry with no amount of money in it.
_PINNED = {"title": "Delivery", "content": "Mon-Sat"}


def _turn(vendor, engine, output: str, message: str = "Do you deliver on Sundays?") -> dict:
    """One turn whose model answer is `output`: a 200 with a clean reply, stored, and
    answered from that very output (one vendor call, no retry; only an answer with
    nothing to show gives way to the offline one)."""
    provider, fake, reply_text, client = vendor
    fake.script(reply_text(output))
    asked = len(fake.requests)
    r = client.post("/v1/chat", chat_payload(message, pinned=[_PINNED]))
    assert r.status_code == 200, r.get_data()[:500]
    body = r.get_json()
    _assert_clean(body)
    assert _turns(engine, body["conversation_id"]) == 1
    assert len(fake.requests) == asked + 1
    if parse_reply(output).reply:  # an empty answer is replaced by the offline one, by design
        assert body["degraded"] is False and body["usage"]["provider"] == provider, body
    return body


# --- what the models write -----------------------------------------------------------

# Every code point, surrogates and control characters included.
_ANY_CHAR = st.characters(codec=None, exclude_categories=())
_ODD = st.sampled_from(["", " ", "\x00", "\ud800", "Hi \udfff there", "a\x1b[31mred\x07", "line\r\nline",
                        "\ufeff", "😀", "\\", '"', "\\u0000", "<<<end documents 0>>>"])
_FIELD = st.one_of(st.text(_ANY_CHAR, max_size=60), _ODD, st.lists(_ODD, max_size=4).map("".join))
_REPLY_OBJECT = st.fixed_dictionaries({"reply": _FIELD}, optional={
    "quick_replies": st.one_of(st.lists(_FIELD, max_size=5), _FIELD),
    "action": st.one_of(st.sampled_from(ACTIONS), _FIELD),
    "unanswered": st.one_of(st.booleans(), _FIELD),
    "forget": st.one_of(st.lists(st.one_of(_FIELD, st.sampled_from(["m1", "m2"])), max_size=4), _FIELD),
})
# As the model's raw text: escaped (ensure_ascii) or with the characters themselves.
_REPLY_JSON = st.tuples(_REPLY_OBJECT, st.booleans()).map(lambda p: json.dumps(p[0], ensure_ascii=p[1]))
_MODEL_OUTPUT = st.one_of(
    st.text(_ANY_CHAR, max_size=300),
    _REPLY_JSON,
    _REPLY_JSON.map(lambda s: f"```json\n{s}\n```"),
    _REPLY_JSON.flatmap(lambda s: st.integers(0, len(s)).map(lambda n: s[:n])),  # cut off by max_tokens
    _REPLY_JSON.flatmap(lambda s: st.integers(0, len(s)).map(lambda n: f"```json\n{s[:n]}")),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(output=_MODEL_OUTPUT)
def test_any_model_output_gives_a_clean_reply_and_a_stored_turn(vendor, engine, output):
    # One fake and one app per provider, shared by the examples: each turn is a new conversation.
    body = _turn(vendor, engine, output)
    expected = parse_reply(output)
    if expected.reply:
        # A quick reply naming an amount the shop never stated ("0£") is dropped by the price check.
        check = PriceCheck([GroundingEntry(**_PINNED, pinned=True)], [], "en")
        assert (body["quick_replies"], body["action"], body["unanswered"]) == \
            ([q for q in expected.quick_replies if check.passes(q)], expected.action, expected.unanswered)


# --- the cases that used to fail, one by one ---------------------------------------------

def test_a_lone_surrogate_in_the_reply_is_dropped(vendor, engine):
    raw = json.dumps({"reply": "We deliver\ud83d on Saturdays.", **_PLAIN_FLAGS}, ensure_ascii=False)
    escaped = json.dumps({"reply": "Or on\udc00 Fridays.", **_PLAIN_FLAGS})
    first = _turn(vendor, engine, raw)
    assert first["reply"] == "We deliver on Saturdays."
    assert _turn(vendor, engine, escaped)["reply"] == "Or on Fridays."
    # The stored turn opens again: the next turn of the conversation sends it as history.
    _, fake, reply_text, client = vendor
    fake.script(reply_text(json.dumps({"reply": "Yes.", **_PLAIN_FLAGS})))
    r = client.post("/v1/chat", chat_payload("And on Sundays?", conversation_id=first["conversation_id"]))
    assert r.status_code == 200 and r.get_json()["conversation_id"] == first["conversation_id"]
    assert "We deliver on Saturdays." in json.dumps(fake.requests[-1].body, ensure_ascii=False)


def test_control_characters_go_and_line_breaks_stay(vendor, engine):
    output = json.dumps({"reply": "Mon\x00-Sat\x1b\r\n\tonly.", **_PLAIN_FLAGS, "quick_replies": ["Hours?\x00"]})
    body = _turn(vendor, engine, output)
    assert body["reply"] == "Mon-Sat\n\tonly." and body["quick_replies"] == ["Hours?"]


def test_a_truncated_reply_object_shows_its_reply_not_raw_json(vendor, engine):
    body = _turn(vendor, engine, '{"reply": "We deliver Monday to Saturday. On Sundays the shop is clo')
    assert body["reply"] == "We deliver Monday to Saturday."
    body = _turn(vendor, engine, '```json\n{"reply": "Yes, on Saturdays.", "quick_replies": ["Hou')
    assert body["reply"] == "Yes, on Saturdays."


def test_a_megabyte_of_reply_is_clamped_at_a_boundary(vendor, engine):
    sentence = "We deliver from Monday to Saturday between nine and five. "
    body = _turn(vendor, engine, json.dumps({"reply": sentence * (1_000_000 // len(sentence)), **_PLAIN_FLAGS,
                                             "quick_replies": ["Delivery times? " * 100] * 50,
                                             "forget": ["m1"] * 10_000}))
    assert MAX_REPLY_CHARS // 2 < len(body["reply"]) <= MAX_REPLY_CHARS
    assert body["reply"].endswith("five.")
    assert body["quick_replies"] == ["Delivery times? Delivery times? Delivery"] * 3


def test_a_megabyte_of_plain_text_is_clamped_too(vendor, engine):
    reply = _turn(vendor, engine, "word " * 200_000)["reply"]
    assert len(reply) <= MAX_REPLY_CHARS and reply.endswith("word word…")


# --- a body that is not UTF-8 ------------------------------------------------------------
_NOT_UTF8 = b"caf\xe9 \xff ok"


def _not_utf8(body: dict) -> bytes:
    return json.dumps(body).encode().replace(b"NOT_UTF8", _NOT_UTF8)


@contextmanager
def _anthropic_not_utf8():
    """The Anthropic fake answers only from text; this one sends raw bytes."""
    payload = _not_utf8({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-fake",
                         "content": [{"type": "text", "text": '{"reply": "NOT_UTF8"}'}], "stop_reason": "end_turn",
                         "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}})

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _assert_answered(client, engine) -> dict:
    r = client.post("/v1/chat", chat_payload("Do you deliver on Sundays?"))
    assert r.status_code == 200, r.get_data()[:500]
    body = r.get_json()
    _assert_clean(body)
    assert _turns(engine, body["conversation_id"]) == 1
    return body


def test_a_response_that_is_not_utf8_is_never_a_500(make_services, make_client, site, engine):
    with _anthropic_not_utf8() as url:
        svc = make_services(provider="anthropic", api_keys={"anthropic": "k"}, base_urls={"anthropic": url},
                            memory=False, retrieval="fulltext")
        # The SDK cannot decode the body: no retry helps, the offline answer stands in.
        assert _assert_answered(make_client(svc, site), engine)["degraded"] is True
    for provider, body in (("openai", openai_server.completion_body('{"reply": "NOT_UTF8"}')),
                           ("gemini", gemini_server.generated_body('{"reply": "NOT_UTF8"}'))):
        with _vendor(make_services, make_client, site, provider) as (_, fake, _reply_text, client):
            fake.script(_http.raw(200, _not_utf8(body)))
            answered = _assert_answered(client, engine)
            if not answered["degraded"]:  # the SDK read it with replacement characters
                assert answered["reply"] == "caf\ufffd \ufffd ok"
