"""What the provider tests share: the reply schema and a chat request the sidecar would send,
and the fixtures pairing a vendor's fake with its provider."""
from __future__ import annotations

from typing import Callable

import pytest

from sidecar.providers.base import ChatRequest, Message, Schema

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


# A conversation the widget could send: the customer, the agent, the customer again.
CONVERSATION = [Message("user", "Hi"), Message("assistant", "Hello!"), Message("user", "Do you ship to Canada?")]


def next_turn(first: ChatRequest) -> ChatRequest:
    """The turn after `first`: its answer and the customer's next question on the same (long,
    cacheable) system prompt, so the two share a prefix."""
    return make_request(system=first.system, messages=[
        *first.messages, Message("assistant", '{"reply": "first"}'), Message("user", "And to Mexico?")])


def vendor_fixtures(*vendors: tuple[type, Callable[[str], object]]):
    """The `fake` and `provider` fixtures of a provider's tests: `fake, provider =
    vendor_fixtures((FakeX, lambda url: XProvider(key, base_url=url)), ...)`. `fake` is a running
    fake server, `provider` the provider made for its URL; given several vendors, every test
    that uses them runs against each."""
    make = dict(vendors)
    several = len(make) > 1

    @pytest.fixture(params=list(make) if several else None, ids=[c.__name__ for c in make] if several else None)
    def fake(request):
        with (request.param if several else next(iter(make)))() as server:
            yield server

    @pytest.fixture
    def provider(fake):
        return make[type(fake)](fake.base_url)

    return fake, provider
