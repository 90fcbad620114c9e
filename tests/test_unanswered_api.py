"""Unanswered questions and owner statistics through the API (docs/api.md: `GET
/v1/unanswered`, resolve/dismiss, `GET /v1/stats`; questions sealed with a site key)."""
from __future__ import annotations

import json
import secrets
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import text

from sidecar.providers.base import ChatResult, Usage
from sidecar.sites import add_site

from .conftest import chat_payload

PAGE = "https://example.test/shipping"


# --- helpers ---------------------------------------------------------------------------

def ask(client, message: str, *, lang: str = "en", url: str = PAGE, visitor: str = "visitor-1", **kw) -> dict:
    body = chat_payload(message, lang=lang, visitor=visitor, **kw)
    body["page"]["url"] = url
    resp = client.post("/v1/chat", body)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()


def listed(client, status: str | None = None) -> list[dict]:
    path = "/v1/unanswered" + (f"?status={status}" if status else "")
    resp = client.get(path)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()["items"]


def by_question(items: list[dict]) -> dict[str, dict]:
    return {item["question"]: item for item in items}


def set_status(client, question_id, action: str):
    return client.post(f"/v1/unanswered/{question_id}/{action}", {})


def parse_utc(value: str) -> datetime:
    dt = datetime.fromisoformat(value)
    assert dt.tzinfo is not None and dt.utcoffset() == timedelta(0), f"not ISO-8601 UTC: {value!r}"
    return dt


def assert_recent(value: str):
    now = datetime.now(timezone.utc)
    assert now - timedelta(minutes=5) <= parse_utc(value) <= now + timedelta(minutes=5), value


def stats(client) -> dict:
    resp = client.get("/v1/stats")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()


# --- recording -------------------------------------------------------------------------

def test_unanswerable_question_is_listed_with_its_details(client):
    reply = ask(client, "Do you ship to Mars?")
    assert reply["unanswered"] is True

    items = listed(client)
    assert len(items) == 1
    item = items[0]
    assert isinstance(item["id"], int)
    assert item["question"] == "Do you ship to Mars?"
    assert item["count"] == 1
    assert item["lang"] == "en"
    assert item["page_url"] == PAGE
    assert item["status"] == "open"
    assert_recent(item["first_asked"])
    assert_recent(item["last_asked"])
    assert item["first_asked"] == item["last_asked"]


def test_default_listing_is_the_open_one(client):
    ask(client, "Do you ship to Mars?")
    assert listed(client) == listed(client, "open")


def test_lang_is_the_normalized_request_lang(client):
    ask(client, "Kas te saadate Marsile?", lang="et-EE")
    assert listed(client)[0]["lang"] == "et"


def test_answered_question_is_not_recorded(client):
    pinned = [{"title": "Shipping", "content": "We ship to Estonia, Latvia and Finland."}]
    reply = ask(client, "Do you ship to Finland?", pinned=pinned)
    assert reply["unanswered"] is False
    assert listed(client, "all") == []


def test_same_question_again_increments_count(client):
    ask(client, "Do you ship to Mars?")
    ask(client, "  do YOU   ship to\tmars ??", visitor="someone-else")
    ask(client, "DO YOU SHIP TO MARS", url="https://example.test/faq")

    items = listed(client)
    assert len(items) == 1
    item = items[0]
    assert item["count"] == 3
    assert item["question"].casefold().startswith("do you ship to")
    assert parse_utc(item["last_asked"]) >= parse_utc(item["first_asked"])


def test_different_question_adds_a_row(client):
    ask(client, "Do you ship to Mars?")
    ask(client, "Do you ship to Venus?")
    ask(client, "Do you ship to Venus?")
    counts = {q: item["count"] for q, item in by_question(listed(client)).items()}
    assert counts == {"Do you ship to Mars?": 1, "Do you ship to Venus?": 2}


# --- status changes --------------------------------------------------------------------

def test_resolve_and_dismiss_change_status(client):
    ask(client, "Do you ship to Mars?")
    ask(client, "Can I pay in seashells?")
    ids = {q: item["id"] for q, item in by_question(listed(client)).items()}
    mars, shells = ids["Do you ship to Mars?"], ids["Can I pay in seashells?"]

    resp = set_status(client, mars, "resolve")
    assert resp.status_code == 200 and resp.get_json() == {"id": mars, "status": "resolved"}
    resp = set_status(client, shells, "dismiss")
    assert resp.status_code == 200 and resp.get_json() == {"id": shells, "status": "dismissed"}

    assert listed(client) == []
    assert [i["id"] for i in listed(client, "resolved")] == [mars]
    assert [i["id"] for i in listed(client, "dismissed")] == [shells]
    everything = {i["id"]: i["status"] for i in listed(client, "all")}
    assert everything == {mars: "resolved", shells: "dismissed"}


def test_resolve_accepts_an_empty_body(client):
    ask(client, "Do you ship to Mars?")
    qid = listed(client)[0]["id"]
    assert client.post(f"/v1/unanswered/{qid}/resolve", raw=b"").status_code == 200
    assert listed(client, "resolved")[0]["id"] == qid


def test_resolve_with_a_non_json_body_is_400(client):
    ask(client, "Do you ship to Mars?")
    qid = listed(client)[0]["id"]
    resp = client.post(f"/v1/unanswered/{qid}/resolve", raw=b"resolve it")
    assert resp.status_code == 400 and resp.get_json()["error"]["field"] == "body"
    assert listed(client)[0]["status"] == "open"


@pytest.mark.parametrize("status", ["bogus", "OPEN", ""])
def test_unknown_status_filter_is_400_naming_status(client, status):
    resp = client.get(f"/v1/unanswered?status={status}")
    assert resp.status_code == 400, resp.get_data(as_text=True)
    err = resp.get_json()["error"]
    assert err["field"] == "status" and err["retryable"] is False
    assert isinstance(err["code"], str) and isinstance(err["message"], str)


@pytest.mark.parametrize("action", ["resolve", "dismiss"])
def test_question_of_another_site_is_404_and_unchanged(client, services, make_client, engine, keyring, action):
    other = make_client(services, add_site(engine, keyring, "t-" + secrets.token_hex(6)))
    ask(other, "Do you ship to Mars?")
    theirs = listed(other)[0]["id"]

    resp = set_status(client, theirs, action)
    assert resp.status_code == 404, resp.get_data(as_text=True)
    err = resp.get_json()["error"]
    assert err["code"] and err["message"] and err["retryable"] is False

    assert [(i["id"], i["status"]) for i in listed(other, "all")] == [(theirs, "open")]
    assert listed(client, "all") == []  # and it does not show up on this site either


def test_unknown_question_id_is_404(client):
    assert set_status(client, 2 ** 62, "resolve").status_code == 404


def test_resolved_question_asked_again_reopens(client):
    ask(client, "Do you ship to Mars?")
    qid = listed(client)[0]["id"]
    assert set_status(client, qid, "resolve").status_code == 200
    assert listed(client) == []

    ask(client, "do you ship to mars")
    items = listed(client)
    assert [(i["id"], i["status"], i["count"]) for i in items] == [(qid, "open", 2)]


# --- sealed at rest --------------------------------------------------------------------

def test_question_text_is_not_stored_in_plaintext(client, engine, site):
    message = "Can I pay with Zorblax tokens at the Quuxville store?"
    ask(client, message)
    assert listed(client)[0]["question"] == message  # readable through the API...

    with engine.connect() as conn:
        rows = conn.execute(text("SELECT * FROM rtac_unanswered WHERE site_id = :s"), {"s": site.id}).mappings().all()
    assert len(rows) == 1
    sealed = bytes(rows[0]["question_enc"])
    assert sealed
    for needle in (message, message.casefold(), "Zorblax", "zorblax", "Quuxville"):
        for encoding in ("utf-8", "utf-16-le"):
            assert needle.encode(encoding) not in sealed
    # ...and in no other column of the row either.
    for column, value in rows[0].items():
        if isinstance(value, (bytes, bytearray, str)):
            raw = value if isinstance(value, (bytes, bytearray)) else value.encode()
            assert b"Zorblax" not in raw and b"zorblax" not in raw, column


# --- statistics ------------------------------------------------------------------------

def test_stats_of_a_new_site_are_zero(client):
    s = stats(client)
    assert s["turns"] == 0
    assert s["input_tokens"] == s["output_tokens"] == s["cache_read_input_tokens"] == 0
    assert s["cache_read_share"] == 0
    assert s["estimated_cost_usd"] == 0
    assert s["open_unanswered"] == 0


def test_stats_with_the_offline_provider(client):
    pinned = [{"title": "Shipping", "content": "We ship to Estonia, Latvia and Finland."}]
    ask(client, "Do you ship to Finland?", pinned=pinned)   # answered
    ask(client, "Do you ship to Mars?")                     # unanswered
    ask(client, "do you ship to mars")                      # the same one again
    ask(client, "Can I pay in seashells?")                  # another unanswered

    s = stats(client)
    assert s["turns"] == 4
    assert s["input_tokens"] == s["output_tokens"] == s["cache_read_input_tokens"] == 0
    assert s["cache_read_share"] == 0
    assert s["estimated_cost_usd"] == 0
    assert s["open_unanswered"] == 2

    qid = by_question(listed(client))["Do you ship to Mars?"]["id"]
    assert set_status(client, qid, "resolve").status_code == 200
    assert stats(client)["open_unanswered"] == 1


def test_stats_are_per_site(client, services, make_client, engine, keyring):
    ask(client, "Do you ship to Mars?")
    other = make_client(services, add_site(engine, keyring, "t-" + secrets.token_hex(6)))
    s = stats(other)
    assert s["turns"] == 0 and s["open_unanswered"] == 0
    assert stats(client)["turns"] == 1


class MeteredProvider:
    """A provider that bills every call the same known usage on a priced model."""

    name = "anthropic"
    default_model = "claude-haiku-4-5"
    USAGE = dict(input_tokens=1000, output_tokens=200, cache_read_input_tokens=3000, cache_creation_input_tokens=500)
    # claude-haiku-4-5 list prices per million: input 1.00, output 5.00, cache write 1.25, cache read 0.10
    COST_PER_CALL = (1000 * 1.00 + 200 * 5.00 + 500 * 1.25 + 3000 * 0.10) / 1_000_000

    def __init__(self, unanswered: list[bool]):
        self.unanswered = list(unanswered)
        self.calls = 0

    def chat(self, request) -> ChatResult:
        self.calls += 1
        if request.schema.name == "rtac_reply":
            body = {"reply": "A grounded answer.", "quick_replies": [], "action": "none",
                    "unanswered": self.unanswered.pop(0), "forget": []}
        else:  # e.g. memory extraction: nothing to remember
            body = {"entries": []}
        return ChatResult(text=json.dumps(body), usage=Usage(**self.USAGE), provider=self.name,
                          model=self.default_model, degraded=False)


def use_provider(services, provider) -> None:
    """Make `provider` the one every turn asks (through the provider chain when there is one)."""
    if hasattr(services, "chain"):
        from sidecar.providers.chain import ProviderChain
        services.chain = ProviderChain([(provider, provider.default_model)])
    else:
        services.provider = provider
        services.model = provider.default_model


def test_stats_add_up_tokens_share_and_cost(make_services, make_client, site):
    services = make_services()
    provider = MeteredProvider(unanswered=[False, True])
    use_provider(services, provider)
    client = make_client(services, site)

    assert ask(client, "What does coffee cost?")["usage"]["cache_read_input_tokens"] == 3000
    assert ask(client, "Do you ship to Mars?")["unanswered"] is True

    s = stats(client)
    n = provider.calls
    u = MeteredProvider.USAGE
    assert s["turns"] == 2
    assert s["input_tokens"] == n * (u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"])
    assert s["output_tokens"] == n * u["output_tokens"]
    assert s["cache_read_input_tokens"] == n * u["cache_read_input_tokens"]
    assert s["cache_read_share"] == pytest.approx(3000 / 4500, abs=1e-3)
    assert s["estimated_cost_usd"] == pytest.approx(n * MeteredProvider.COST_PER_CALL, rel=1e-3)
    assert s["open_unanswered"] == 1
    assert [i["question"] for i in listed(client)] == ["Do you ship to Mars?"]
