"""Whole chat turns through the signed API, with the real Anthropic SDK against a
local fake that speaks Anthropic's wire format, on real MariaDB."""

import pytest
from sqlalchemy import func, select

from testbed.anthropic_server import (
    FakeAnthropic,
    delay,
    error,
    reply_json,
    reply_text,
)
from sidecar import tables
from sidecar.providers.anthropic import AnthropicProvider
from tests.conftest import chat_payload

PINNED = [{"title": "Price list", "content": "Basic service: 45 €\nFull service: 89 €"},
          {"title": "Opening hours", "content": "Mon-Fri 10:00-19:00"}]


@pytest.fixture
def fake():
    with FakeAnthropic() as f:
        yield f


@pytest.fixture
def sleeps():
    return []


@pytest.fixture
def claude(make_services, make_client, site, fake, sleeps):
    svc = make_services(provider="anthropic", api_keys={"anthropic": "test-key"},
                        base_urls={"anthropic": fake.base_url}, provider_timeout=1.0, turn_deadline=3.0)
    assert isinstance(svc.provider, AnthropicProvider)
    svc.chain.sleep = sleeps.append  # backoff waits are recorded, not slept
    return make_client(svc, site)


def put_docs(client, *docs):
    r = client.put("/v1/documents", {"documents": list(docs)})
    assert r.status_code == 200, r.get_json()


BLOG = {"source": "post", "source_id": "7", "lang": "en", "title": "Prices 2023", "url": "https://ex.test/blog",
        "content": "<p>In 2023 a basic service cost 35 €.</p>"}


def count(engine, table, site):
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table).where(table.c.site_id == site.id)).scalar_one()


def ask(client, message="How much is a basic service?", **kw):
    kw.setdefault("pinned", PINNED)
    r = client.post("/v1/chat", chat_payload(message, **kw))
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_valid_json_reply_and_what_the_model_was_sent(claude, fake, engine, site):
    put_docs(claude, BLOG)
    fake.script(reply_json({"reply": "A basic service is 45 €.", "quick_replies": ["Book a service"],
                            "action": "offer_booking", "unanswered": False, "forget": []}))
    body = ask(claude)
    assert body["reply"] == "A basic service is 45 €."
    assert body["quick_replies"] == ["Book a service"] and body["action"] == "offer_booking"
    assert body["degraded"] is False and body["usage"]["provider"] == "anthropic"
    assert body["usage"]["input_tokens"] > 0 and body["usage"]["output_tokens"] > 0
    assert body["sources"] == [{"title": "Prices 2023", "url": "https://ex.test/blog"}]
    sent = fake.requests[-1].body
    stable, tail = sent["system"]
    assert "Basic service: 45 €" in stable["text"] and stable["cache_control"] == {"type": "ephemeral"}
    assert tail["cache_control"] == {"type": "ephemeral"} and "Customer language: en" in tail["text"]
    assert "45 €" not in tail["text"]
    assert "35 €" in sent["messages"][-1]["content"][0]["text"]  # retrieved context: after the boundary
    assert sent["output_config"]["format"]["schema"]["title"] == "rtac_reply"
    assert count(engine, tables.turns, site) == 1


def test_fenced_json_plain_text_oversized_buttons_and_unknown_action(claude, fake):
    fake.script(reply_text('```json\n{"reply": "Fenced 45 €", "quick_replies": [], "action": "none", '
                           '"unanswered": false, "forget": []}\n```'))
    assert ask(claude)["reply"] == "Fenced 45 €"
    fake.script(reply_text("We open at ten."))
    body = ask(claude, "When do you open?")
    assert (body["reply"], body["quick_replies"], body["action"]) == ("We open at ten.", [], "none")
    fake.script(reply_json({"reply": "ok", "quick_replies": ["x" * 80, "b", "c", "d"],
                            "action": "transfer_money", "unanswered": False, "forget": []}))
    body = ask(claude, "Anything else?")
    assert body["quick_replies"] == ["x" * 40, "b", "c"] and body["action"] == "none"


@pytest.mark.parametrize("status,kind,requests", [(429, "rate_limit_error", 3), (529, "overloaded_error", 3),
                                                  (500, "api_error", 3), (400, "invalid_request_error", 1)])
def test_vendor_errors_degrade_never_drop_the_turn(claude, fake, engine, site, sleeps, status, kind, requests):
    put_docs(claude, BLOG)
    fake.script(*[error(status, kind, "boom", retry_after=1 if status == 429 else None)] * 3)
    body = ask(claude)
    assert body["degraded"] is True and body["usage"]["provider"] == "offline"
    # The offline answer keeps the price rule: the pinned price, never the old blog's.
    assert "45 €" in body["reply"] and "35 €" not in body["reply"]
    assert body["action"] == "show_contact"
    assert count(engine, tables.turns, site) == 1
    with engine.connect() as conn:
        turn = conn.execute(select(tables.turns).where(tables.turns.c.site_id == site.id)).mappings().one()
    assert turn["degraded"] and turn["provider"] == "offline"
    # Retryable errors are retried by our chain alone (no hidden SDK retries); a 400 is not.
    assert len([r for r in fake.requests if r.path.endswith("/messages")]) == requests
    assert len(sleeps) == requests - 1
    if status == 429:
        assert sleeps == [1.0, 1.0]  # Retry-After honoured


def test_a_transient_error_is_retried_and_answered(claude, fake, engine, site, sleeps):
    fake.script(error(529, "overloaded_error", "busy"), error(503, "api_error", "unavailable"),
                reply_json({"reply": "Basic service is 45 €.", "quick_replies": [], "action": "none",
                            "unanswered": False, "forget": []}))
    body = ask(claude)
    assert body["degraded"] is False and body["reply"] == "Basic service is 45 €."
    assert len(fake.requests) == 3 and len(sleeps) == 2


def test_a_slow_vendor_hits_the_turn_deadline_and_degrades(claude, fake, engine, site):
    late = reply_json({"reply": "late", "quick_replies": [], "action": "none", "unanswered": False, "forget": []})
    fake.script(*[delay(5, late)] * 5)
    body = ask(claude)
    assert body["degraded"] is True and count(engine, tables.turns, site) == 1
    # 1 s per attempt inside a 3 s deadline: never more than three attempts.
    assert 1 <= len(fake.requests) <= 3


def test_conversation_continues_with_history_and_is_sealed_at_rest(claude, fake, engine, site):
    first = ask(claude, "Do you repair e-bikes?", visitor="v-hist")
    fake.script(reply_json({"reply": "Yes, 45 €.", "quick_replies": [], "action": "none",
                            "unanswered": False, "forget": []}))
    second = ask(claude, "How much?", visitor="v-hist", conversation_id=first["conversation_id"])
    assert second["conversation_id"] == first["conversation_id"]
    msgs = fake.requests[-1].body["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert msgs[0]["content"][0]["text"] == "Do you repair e-bikes?"
    assert msgs[1]["content"][0]["text"] == first["reply"]
    assert msgs[0]["content"][-1].get("cache_control") is None
    assert msgs[1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    with engine.connect() as conn:
        blobs = conn.execute(select(tables.turns.c.content_enc).where(tables.turns.c.site_id == site.id)).scalars().all()
    assert len(blobs) == 2
    assert all(b"e-bikes" not in b and "How much".encode() not in b for b in blobs)


def test_another_visitors_conversation_id_starts_a_new_conversation(claude, fake):
    mine = ask(claude, "Hello", visitor="alice")
    theirs = ask(claude, "Hello", visitor="mallory", conversation_id=mine["conversation_id"])
    assert theirs["conversation_id"] != mine["conversation_id"]
    assert [m["role"] for m in fake.requests[-1].body["messages"]] == ["user"]  # alice's turn not leaked


def test_unanswered_is_recorded_and_stats_count_tokens(claude, fake, engine, site):
    for q in ("Do you sell unicycles?", "do you sell  UNICYCLES"):
        fake.script(reply_json({"reply": "I don't know, contact us.", "quick_replies": [],
                                "action": "show_contact", "unanswered": True, "forget": []}))
        ask(claude, q)
    items = claude.get("/v1/unanswered").get_json()["items"]
    assert [(i["question"], i["count"]) for i in items] == [("Do you sell unicycles?", 2)]
    stats = claude.get("/v1/stats").get_json()
    assert stats["turns"] == 2 and stats["open_unanswered"] == 1
    assert stats["input_tokens"] > 0 and stats["output_tokens"] > 0
    assert stats["estimated_cost_usd"] > 0
    assert 0.0 <= stats["cache_read_share"] <= 1.0


def test_prompt_cache_is_read_from_turn_two(claude, fake):
    big = [{"title": "Price list", "content": "\n".join(f"Service {i}: {i} €" for i in range(700))}]
    first = ask(claude, "Hi", visitor="cache-v", pinned=big)
    second = ask(claude, "And?", visitor="cache-v", pinned=big, conversation_id=first["conversation_id"])
    assert first["usage"]["cache_creation_input_tokens"] > 0
    assert second["usage"]["cache_read_input_tokens"] >= first["usage"]["cache_creation_input_tokens"]
    stats = claude.get("/v1/stats").get_json()
    assert stats["cache_read_share"] > 0.3


def test_empty_model_reply_falls_back_to_the_offline_answer(claude, fake):
    fake.script(reply_json({"reply": "   ", "quick_replies": [], "action": "none", "unanswered": False, "forget": []}))
    body = ask(claude, "How much is a full service?")
    assert body["degraded"] is True and "89 €" in body["reply"]
