"""The provider chain's links: each a provider and the model it is asked for."""
from __future__ import annotations

from sidecar.config import Config
from sidecar.errors import ProviderError
from sidecar.providers.base import ChatRequest, ChatResult, Message
from sidecar.providers.chain import Link, ProviderChain, RetryPolicy
from sidecar.services import build_chain

CONFIG = Config(database_url="mysql+pymysql://unused/rtac", master_key=b"k" * 32, provider="anthropic",
                model="claude-chosen", fallback_providers=("openai", "gemini"),
                api_keys={"anthropic": "a-key", "openai": "o-key"})  # gemini has no key: left out


class Refusing:
    """A provider that records the model it was asked for and refuses, or answers."""

    def __init__(self, name: str, answers: bool):
        self.name, self.default_model, self.answers = name, f"{name}-default", answers
        self.asked: list[str] = []

    def chat(self, request: ChatRequest) -> ChatResult:
        self.asked.append(request.model)
        if not self.answers:
            raise ProviderError(self.name, "HTTP 400", http_status=400)
        return ChatResult('{"reply": "ok"}', provider=self.name, model=request.model)


def test_the_chain_is_built_of_links_primary_first_with_the_configured_model():
    chain = build_chain(CONFIG)
    assert all(isinstance(link, Link) for link in chain.links)
    fallback = chain.links[1].provider
    assert [(link.provider.name, link.model) for link in chain.links] == \
        [("anthropic", "claude-chosen"), ("openai", fallback.default_model)]
    assert chain.primary is chain.links[0].provider


def test_each_provider_is_asked_for_its_own_links_model():
    first, second = Refusing("first", answers=False), Refusing("second", answers=True)
    chain = ProviderChain([Link(first, "model-a"), (second, "model-b")], RetryPolicy(attempts=1),
                          sleep=lambda seconds: None)
    assert chain.links[1] == Link(second, "model-b")  # a (provider, model) pair is read as a link
    request = ChatRequest(model="", system="s", system_tail="", messages=(Message("user", "hi"),),
                          max_tokens=10, schema=None)  # type: ignore[arg-type]
    outcome = chain.chat(request)
    assert (first.asked, second.asked) == (["model-a"], ["model-b"])
    assert outcome.result.model == "model-b" and outcome.failed_over
