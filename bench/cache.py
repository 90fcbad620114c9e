"""Prompt-cache economics per provider, measured through the real SDKs against the
local fake vendors (testbed/), which account tokens the way each vendor's cache
does: Anthropic's explicit breakpoints, OpenAI's and Gemini's automatic prefix caching
with their minimum lengths. Token counts are the fakes' estimate (~4 characters a
token); prices are sidecar.pricing's list prices for each provider's default model.

A realistic site: a pinned price list and business profile of ~3,000 tokens, the top
8 retrieved chunks of ~700 characters each within the character budget, ten-turn
conversations. Reported per provider from turn 2 on: the share of input tokens that
sat in a cacheable prefix, and the estimated cost per turn against sending
everything uncached.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from testbed._http import PrefixCache
from testbed._http import reply_json as generic_reply
from testbed.anthropic_server import FakeAnthropic
from testbed.anthropic_server import reply_json as anthropic_reply
from testbed.gemini_server import FakeGemini
from testbed.openai_server import FakeOpenAI
from sidecar.budget import pack
from sidecar.pricing import cost, min_cacheable_tokens
from sidecar.prompt import build
from sidecar.providers.anthropic import AnthropicProvider
from sidecar.providers.base import ChatRequest, GroundingEntry, Usage
from sidecar.providers.gemini import GeminiProvider
from sidecar.providers.openai import OpenAIProvider
from sidecar.reply import REPLY_SCHEMA
from sidecar.retrieval import Chunk

from .markdown import section, table, verdict

CONVERSATIONS = 12
TURNS = 10
CONTEXT_CHARS = 24_000
SEED = 7

_SERVICES = ["Basic service", "Full service", "Tyre change", "Tube change", "Brake adjustment", "Brake pads",
             "Hydraulic brake bleed", "Gear adjustment", "Chain replacement", "Cassette replacement",
             "Wheel truing", "Spoke replacement", "Bottom bracket service", "Headset service",
             "Suspension fork service", "Rear shock service", "E-bike diagnostics", "E-bike software update",
             "Battery check", "Cable replacement", "Handlebar tape", "Saddle fitting", "Pedal install",
             "Winter storage", "Cleaning and polish"]
_WORDS = ("bike frame wheel brake chain gear tyre tube service repair warranty booking parts price day week "
          "customer electric battery motor road city mountain child trailer helmet lock light pump saddle "
          "handlebar pedal spoke rim hub bearing cable fork shock clean storage winter summer order pickup").split()


def pinned_entries() -> list[GroundingEntry]:
    rng = random.Random(SEED)
    lines = []
    for name in _SERVICES:
        for variant in ("city bike", "road bike", "mountain bike", "e-bike"):
            includes = ", ".join(rng.sample(_WORDS, 6))
            lines.append(f"{name}, {variant}: {rng.randint(10, 150)} € (about {rng.randint(1, 5)} h; "
                         f"includes {includes})")
    profile = ("Rattakoda is a bicycle workshop in Tallinn. We service and repair city, road, mountain and "
               "electric bikes; most work is done within two working days. Spare parts are charged at cost. "
               "Our work comes with a 3-month warranty. ") * 8
    return [GroundingEntry("Price list", "\n".join(lines), pinned=True),
            GroundingEntry("About us", profile, pinned=True),
            GroundingEntry("Opening hours", "Mon–Fri 10:00–19:00\nSat 10:00–16:00\nSun closed", pinned=True),
            GroundingEntry("Contact", "Telliskivi 60a, Tallinn\n+372 5555 0101\ninfo@rattakoda.example", pinned=True)]


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n)).capitalize() + "."


def _chunks(rng: random.Random) -> list[Chunk]:
    out = []
    for i in range(8):
        text = " ".join(_sentence(rng, rng.randint(9, 16)) for _ in range(8))[:700]
        out.append(Chunk(i, f"Page {rng.randint(1, 400)}", f"https://example.test/p{i}", text, "en", 1.0 / (i + 1)))
    return out


@dataclass
class Tally:
    turns: int = 0
    usage: Usage = None  # type: ignore[assignment]
    actual: float = 0.0
    uncached: float = 0.0

    def add(self, u: Usage, model: str) -> None:
        a, un = cost(model, u)
        self.turns += 1
        self.usage = u if self.usage is None else self.usage + u
        self.actual += a
        self.uncached += un


def _measure(name: str, provider, fake, reply, conversations: int = CONVERSATIONS) -> dict:
    rng = random.Random(SEED)
    pinned = pinned_entries()
    model = provider.default_model
    first, later = Tally(), Tally()
    for c in range(conversations):
        history: list[tuple[str, str]] = []
        for turn in range(1, TURNS + 1):
            question = _sentence(rng, rng.randint(8, 16))
            answer = " ".join(_sentence(rng, rng.randint(8, 14)) for _ in range(4))
            fake.script(reply({"reply": answer, "quick_replies": ["Book a service"], "action": "none",
                               "unanswered": False, "forget": []}))
            packed = pack(pinned, _chunks(rng), CONTEXT_CHARS)
            prompt = build(pinned=packed.pinned, retrieved=packed.retrieved, history=history[-6:], message=question,
                           lang="en", page_title="Services", page_url="https://example.test/services",
                           lead_captured=False)
            result = provider.chat(ChatRequest(model=model, system=prompt.system, system_tail=prompt.system_tail,
                                               messages=prompt.messages, max_tokens=1024, schema=REPLY_SCHEMA,
                                               cache_key="rtac-bench"))
            (first if turn == 1 else later).add(result.usage, model)
            history.append((question, answer))
    u = later.usage
    total_in = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens
    return {
        "provider": name, "model": model, "turns": later.turns, "conversations": conversations,
        "pinned_tokens": sum(len(e.title) + len(e.content) for e in pinned) // 4,
        "stable_tokens": len(prompt.system) // 4,
        "min_cacheable": min_cacheable_tokens(name, model),
        "input_per_turn": total_in / later.turns,
        "cacheable_share": (u.cache_read_input_tokens + u.cache_creation_input_tokens) / total_in,
        "read_share": u.cache_read_input_tokens / total_in,
        "cost_per_turn": later.actual / later.turns,
        "uncached_per_turn": later.uncached / later.turns,
        "ratio": later.actual / later.uncached if later.uncached else 0.0,
    }


def run(conversations: int = CONVERSATIONS) -> list[dict]:
    """`conversations` ten-turn conversations per provider (fewer for a smoke run)."""
    results = []
    with FakeAnthropic(min_cacheable_tokens=min_cacheable_tokens("anthropic", AnthropicProvider.default_model)) as f:
        results.append(_measure("anthropic", AnthropicProvider("k", f.base_url), f, anthropic_reply,
                                 conversations))
    with FakeOpenAI() as f:
        f.cache = PrefixCache(min_tokens=min_cacheable_tokens("openai", OpenAIProvider.default_model), step=128)
        results.append(_measure("openai", OpenAIProvider("k", f.base_url), f, generic_reply, conversations))
    with FakeGemini() as f:
        f.cache = PrefixCache(min_tokens=min_cacheable_tokens("gemini", GeminiProvider.default_model))
        results.append(_measure("gemini", GeminiProvider("k", f.base_url), f, generic_reply, conversations))
    return results


def markdown(results: list[dict]) -> str:
    head = ["provider", "model", "pinned (tokens)", "stable prompt (tokens)", "vendor cache minimum",
            "input tokens / turn", "in a cacheable prefix", "read from cache", "cost / turn", "uncached / turn",
            "ratio"]
    rows = [[r["provider"], r["model"], f"{r['pinned_tokens']:,}", f"{r['stable_tokens']:,}", f"{r['min_cacheable']:,}",
             f"{r['input_per_turn']:,.0f}", f"{r['cacheable_share']:.1%}", f"{r['read_share']:.1%}",
             f"${r['cost_per_turn']:.5f}", f"${r['uncached_per_turn']:.5f}", f"{r['ratio']:.1%}"] for r in results]
    anthropic = next(r for r in results if r["provider"] == "anthropic")
    return section(
        "## Prompt caching per provider",
        f"{results[0].get('conversations', CONVERSATIONS)} ten-turn conversations per provider; figures are averages "
        "over turns 2-10. Real SDKs against the local fake vendors, whose token accounting follows each vendor's cache "
        "rules (≈4 characters a token); costs use each default model's list price (sidecar/pricing.py). `ratio` is "
        "the estimated cost per turn against sending the same tokens uncached.",
        table(head, rows, "llrrrrrrrrr"),
        f"Target: on Anthropic, cost per turn from turn 2 at most 50% of uncached — "
        f"**{verdict(anthropic['ratio'] <= 0.5)}** ({anthropic['ratio']:.1%}).")


if __name__ == "__main__":
    print(markdown(run()))
