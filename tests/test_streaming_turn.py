"""Streamed turns through the signed API (`Accept: text/event-stream`): the real SDK of
each vendor against its local fake streaming in the vendor's wire format, on real
MariaDB. Deltas come before done and add up to its reply; no unchecked price is ever
streamed; failures before the first delta are retried, after it the offline answer
ends the stream; a visitor who hangs up does not lose the turn."""
from __future__ import annotations

import json
import time

import pytest
from sqlalchemy import func, select

from testbed import _http
from testbed import anthropic_server as anthropic_fake
from testbed._http import streamed
from testbed.anthropic_server import FakeAnthropic
from testbed.gemini_server import FakeGemini
from testbed.openai_server import FakeOpenAI
from sidecar import tables
from tests.conftest import chat_payload

PINNED = [{"title": "Price list", "content": "Basic service: 45 €\nFull service: 89 €"},
          {"title": "Opening hours", "content": "Mon-Fri 10:00-19:00"}]
SSE = {"Accept": "text/event-stream"}

FAKES = {"anthropic": FakeAnthropic, "openai": FakeOpenAI, "gemini": FakeGemini}
OVERLOADED = {"anthropic": lambda: anthropic_fake.error(529, "overloaded_error", "Overloaded"),
              "openai": lambda: _http.error(503, "The server is overloaded"),
              "gemini": lambda: _http.error(503, "The model is overloaded")}


def answer(reply: str, **extra) -> dict:
    return {"reply": reply, "quick_replies": extra.get("quick_replies", []), "action": extra.get("action", "none"),
            "unanswered": False, "forget": []}


@pytest.fixture(params=sorted(FAKES))
def vendor(request) -> str:
    return request.param


@pytest.fixture
def fake(vendor):
    with FAKES[vendor]() as server:
        yield server


@pytest.fixture
def sidecar(vendor, fake, make_services, make_client, site):
    svc = make_services(provider=vendor, api_keys={vendor: "test-key"}, base_urls={vendor: fake.base_url},
                        provider_timeout=2.0, turn_deadline=6.0)
    svc.chain.sleep = lambda seconds: None  # backoff is not slept in tests
    return make_client(svc, site)


def parse_events(raw: str) -> list[tuple[str, dict]]:
    events = []
    for block in raw.split("\n\n"):
        if not block.strip():
            continue
        lines = dict(line.split(": ", 1) for line in block.split("\n"))
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def stream_chat(client, message="How much is a full service?", **kw):
    kw.setdefault("pinned", PINNED)
    r = client.post("/v1/chat", chat_payload(message, **kw), headers=SSE)
    assert r.status_code == 200, r.data
    assert r.mimetype == "text/event-stream"
    assert r.headers["Cache-Control"] == "no-store" and r.headers["X-Accel-Buffering"] == "no"
    return parse_events(r.get_data(as_text=True))


def turns_of(engine, site) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(tables.turns)
                            .where(tables.turns.c.site_id == site.id)).scalar_one()


def test_deltas_come_first_and_add_up_to_the_reply_of_done(sidecar, fake, engine, site):
    text = ("A full service is 89 €. It takes about two hours, and we wash the car too. "
            "You can book it online any weekday.")
    fake.script(streamed(answer(text, quick_replies=["Book"]), chunk_chars=5))
    events = stream_chat(sidecar)
    names = [name for name, _ in events]
    assert names[-1] == "done" and set(names[:-1]) == {"delta"} and len(names) >= 3
    done = events[-1][1]
    assert "".join(data["text"] for _, data in events[:-1]) == done["reply"] == text
    assert done["quick_replies"] == ["Book"] and done["degraded"] is False
    assert set(done) >= {"conversation_id", "reply", "quick_replies", "action", "unanswered", "forgotten",
                         "sources", "usage", "degraded"}
    assert fake.requests[-1].body.get("stream") is True or fake.requests[-1].path.endswith("alt=sse")
    assert turns_of(engine, site) == 1  # stored exactly like a plain turn


def test_an_invented_price_in_the_middle_is_never_streamed(sidecar, fake, site):
    text = ("Thanks for asking! A full service is 120 € this month. "
            "We are open on weekdays from ten to seven. See you soon.")
    fake.script(streamed(answer(text), chunk_chars=3))
    events = stream_chat(sidecar)
    streamed_text = "".join(data["text"] for name, data in events if name == "delta")
    assert "120" not in streamed_text
    done = events[-1][1]
    assert "120" not in done["reply"] and "89 €" in done["reply"]
    assert done["reply"].startswith(streamed_text)
    stats = sidecar.get("/v1/stats").get_json()
    assert stats["price_corrections"] == 1


def test_a_failure_before_the_first_delta_is_retried(sidecar, fake, vendor, engine, site):
    text = "A full service is 89 €."
    fake.script(OVERLOADED[vendor](), streamed(answer(text)))
    events = stream_chat(sidecar)
    assert events[-1][0] == "done" and events[-1][1]["reply"] == text and events[-1][1]["degraded"] is False
    assert len(fake.requests) == 2


def test_a_vendor_failing_after_the_first_delta_ends_with_the_offline_answer(sidecar, fake, engine, site):
    text = "A full service is 89 €. " + "It is our most thorough offer, with every part checked. " * 4
    fake.script(streamed(answer(text), chunk_chars=6, cut_after=12))
    events = stream_chat(sidecar)
    assert [n for n, _ in events].count("delta") >= 1
    name, done = events[-1]
    assert name == "done" and done["degraded"] is True and done["usage"]["provider"] == "offline"
    assert done["action"] == "show_contact"
    assert turns_of(engine, site) == 1  # the turn is stored, degraded


def test_a_visitor_who_hangs_up_does_not_lose_the_turn(sidecar, fake, engine, site):
    text = "A full service is 89 €. " + "Every part is checked and the car is washed. " * 6
    fake.script(streamed(answer(text), chunk_chars=4, interval=0.01))
    r = sidecar.http.open("/v1/chat", method="POST", buffered=False, **_signed(sidecar, chat_payload(
        "How much is a full service?", pinned=PINNED)))
    body = iter(r.response)
    first = next(body)
    assert b"event: delta" in first
    r.close()  # the visitor leaves after the first piece
    deadline = time.monotonic() + 10
    while turns_of(engine, site) == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert turns_of(engine, site) == 1


def _signed(client, payload) -> dict:
    from sidecar.signing import sign_headers
    body = json.dumps(payload).encode()
    headers = sign_headers(client.site.id, client.site.secret, "POST", "/v1/chat", body)
    headers.update(SSE)
    return {"data": body, "headers": headers, "content_type": "application/json"}


def test_bad_input_is_a_plain_json_400_before_any_stream(sidecar):
    r = sidecar.post("/v1/chat", chat_payload(""), headers=SSE)
    assert r.status_code == 400 and r.mimetype == "application/json"
    assert r.get_json()["error"]["code"]


def test_prose_instead_of_json_still_ends_in_done_with_the_whole_reply(sidecar, fake):
    fake.script(streamed("We are open Mon-Fri 10:00-19:00.", chunk_chars=4))
    events = stream_chat(sidecar, "When are you open?")
    assert events[-1][0] == "done" and events[-1][1]["reply"] == "We are open Mon-Fri 10:00-19:00."
    assert "".join(d["text"] for n, d in events if n == "delta") == events[-1][1]["reply"]
