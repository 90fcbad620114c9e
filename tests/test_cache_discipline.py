"""Prompt-cache discipline on the wire: the stable system part is byte-identical for
every visitor and turn with the same pinned content, and on Anthropic each turn
reads everything before this turn's retrieved context except the newest exchange,
which it writes once."""
import pytest

from tests.conftest import chat_payload
from tests.fakes import _http
from tests.fakes.anthropic_server import FakeAnthropic, estimate_tokens
from tests.fakes.openai_server import FakeOpenAI

PRICE_LIST = "\n".join(f"Service {i}: {10 + i} €" for i in range(800))  # well above 1,024 tokens


def pinned(price_list=PRICE_LIST):
    return [{"title": "Price list", "content": price_list}, {"title": "Opening hours", "content": "Mon-Fri 10-19"}]


@pytest.fixture
def anthropic_client(make_services, make_client, site):
    with FakeAnthropic() as fake:
        svc = make_services(provider="anthropic", api_keys={"anthropic": "k"}, base_urls={"anthropic": fake.base_url},
                            context_chars=60000)
        yield make_client(svc, site), fake


def converse(client, visitor, messages, price_list=PRICE_LIST):
    conversation, usages = None, []
    for m in messages:
        body = client.post("/v1/chat", chat_payload(m, visitor=visitor, pinned=pinned(price_list),
                                                    conversation_id=conversation)).get_json()
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
