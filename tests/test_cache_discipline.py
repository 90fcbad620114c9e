"""Prompt-cache discipline on the wire: the stable system part is byte-identical for
every visitor and turn with the same pinned content, and on Anthropic each turn
reads everything before this turn's retrieved context except the newest exchange,
which it writes once."""
import json

import pytest
from sqlalchemy import select

from testbed import _http
from testbed.anthropic_server import FakeAnthropic, estimate_tokens, reply_json
from testbed.openai_server import FakeOpenAI
from sidecar import tables
from tests.conftest import chat_payload

PRICE_LIST = "\n".join(f"Service {i}: {10 + i} €" for i in range(800))  # well above 1,024 tokens


def pinned(price_list=PRICE_LIST):
    return [{"title": "Price list", "content": price_list}, {"title": "Opening hours", "content": "Mon-Fri 10-19"}]


@pytest.fixture
def anthropic_client(make_services, make_client, site):
    with FakeAnthropic() as fake:
        svc = make_services(provider="anthropic", api_keys={"anthropic": "k"}, base_urls={"anthropic": fake.base_url},
                            context_chars=60000)
        yield make_client(svc, site), fake


def converse(client, visitor, messages, price_list=PRICE_LIST, page=None):
    conversation, usages = None, []
    for m in messages:
        extra = {"page": page} if page else {}
        body = client.post("/v1/chat", chat_payload(m, visitor=visitor, pinned=pinned(price_list),
                                                    conversation_id=conversation, **extra)).get_json()
        conversation = body["conversation_id"]
        usages.append(body["usage"])
    return usages


def test_stable_part_is_byte_identical_across_visitors_and_turns(anthropic_client):
    client, fake = anthropic_client
    converse(client, "alice", ["Hello", "Prices?"])
    converse(client, "bob", ["Tere", "Hinnad?"])
    stable = {r.body["system"][0]["text"].encode() for r in fake.requests}
    assert len(stable) == 1
    converse(client, "carol", ["Hello"], price_list=PRICE_LIST.replace("Service 7: 17 €", "Service 7: 19 €"))
    changed = fake.requests[-1].body["system"][0]["text"]
    assert changed.encode() not in stable and "Service 7: 19 €" in changed


def test_from_turn_two_only_the_newest_exchange_and_this_turn_are_not_read(anthropic_client):
    client, fake = anthropic_client
    u = converse(client, "dora", ["Do you fix e-bikes?", "How long does it take?", "And the price?"])
    t = estimate_tokens
    bodies = [r.body for r in fake.requests]
    stable, tail = (b["text"] for b in bodies[0]["system"])
    m = [[blk["text"] for blk in msg["content"]] for msg in bodies[2]["messages"]]
    q1, a1, q2, a2, current3 = m[0][0], m[1][0], m[2][0], m[3][0], m[4][0]
    current2 = bodies[1]["messages"][-1]["content"][0]["text"]

    assert u[0]["cache_creation_input_tokens"] == t(stable) + t(tail)
    # Turn 2: the whole system prompt is read; turn 1's exchange is written once; only
    # this turn's retrieved context and question are fresh input.
    assert u[1]["cache_read_input_tokens"] == t(stable) + t(tail)
    assert u[1]["cache_creation_input_tokens"] == t(q1) + t(a1)
    assert u[1]["input_tokens"] == t(current2)
    # Turn 3 and on: everything before the newest exchange is read.
    assert u[2]["cache_read_input_tokens"] == t(stable) + t(tail) + t(q1) + t(a1)
    assert u[2]["cache_creation_input_tokens"] == t(q2) + t(a2)
    assert u[2]["input_tokens"] == t(current3)
    # This turn's retrieved context sits in the fresh part, never before a breakpoint.
    assert "Customer message:" in current3 and all("cache_control" not in b
                                                   for b in bodies[2]["messages"][-1]["content"])


def test_openai_gets_the_same_stable_prefix_and_a_stable_cache_key(make_services, make_client, site):
    with FakeOpenAI() as fake:
        svc = make_services(provider="openai", api_keys={"openai": "k"}, base_urls={"openai": fake.base_url},
                            context_chars=60000)
        client = make_client(svc, site)
        fake.script(*[_http.reply_json({"reply": "ok", "quick_replies": [], "action": "none",
                                        "unanswered": False, "forget": []})] * 4)
        converse(client, "erin", ["Hi", "Prices?"])
        converse(client, "finn", ["Hello"])
        first_messages = {r.body["messages"][0]["content"] for r in fake.requests}
        keys = {r.body["prompt_cache_key"] for r in fake.requests}
    assert len(first_messages) == 1 and len(keys) == 1 and site.id in keys.pop()


def test_visitors_on_different_pages_share_a_byte_identical_system_and_tail(anthropic_client):
    client, fake = anthropic_client
    converse(client, "gus", ["Hello"], page={"url": "https://example.test/", "title": "Home"})
    converse(client, "hana", ["Hello"], page={"url": "https://example.test/shop/blue-bike/", "title": "Blue bike"})
    systems = {json.dumps(r.body["system"]).encode() for r in fake.requests}
    assert len(systems) == 1  # both system blocks, cache markers included
    tail = fake.requests[-1].body["system"][1]["text"]
    assert "Blue bike" not in tail and "blue-bike" not in tail
    current = fake.requests[-1].body["messages"][-1]["content"][0]["text"]
    assert "<<<page " in current and "url: https://example.test/shop/blue-bike/" in current
    assert "title: Blue bike" in current


def test_a_query_string_or_fragment_never_reaches_the_vendor_or_the_database(anthropic_client, engine, site):
    client, fake = anthropic_client
    fake.script(reply_json({"reply": "I cannot see your order here.", "quick_replies": [], "action": "show_contact",
                            "unanswered": True, "forget": []}))
    page = {"url": "https://shop.test/checkout/order-received/123/?key=wc_order_x#token=frag_y",
            "title": "Order received"}
    body = client.post("/v1/chat", chat_payload("Where is my order?", visitor="ida", pinned=pinned(),
                                                page=page)).get_json()
    assert body["unanswered"] is True
    sent = json.dumps([r.body for r in fake.requests])
    assert "https://shop.test/checkout/order-received/123/" in sent
    assert "wc_order_x" not in sent and "frag_y" not in sent and "?key" not in sent
    with engine.connect() as conn:
        asked = conn.execute(select(tables.unanswered.c.page_url)
                             .where(tables.unanswered.c.site_id == site.id)).scalars().all()
        assert asked == ["https://shop.test/checkout/order-received/123/"]
        for table in tables.metadata.sorted_tables:
            if "site_id" in table.c:
                rows = conn.execute(select(table).where(table.c.site_id == site.id)).all()
                assert "wc_order_x" not in repr(rows) and "frag_y" not in repr(rows), table.name
