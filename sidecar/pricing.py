"""List prices in USD per million tokens: (input, output, cache write, cache read).

Used for the owner's cost estimates in /v1/stats, never for billing. A dated model id
("claude-sonnet-4-5-20250929") is priced by its longest matching prefix.
"""
from __future__ import annotations

from dataclasses import dataclass

from .providers.base import Usage


@dataclass(frozen=True)
class Price:
    input: float
    output: float
    cache_write: float
    cache_read: float


PRICES: dict[str, Price] = {
    # Anthropic: cache writes (5 min) cost 1.25x input, cache reads 0.1x.
    "claude-opus-4": Price(15.0, 75.0, 18.75, 1.50),
    "claude-opus-4-1": Price(15.0, 75.0, 18.75, 1.50),
    "claude-opus-4-5": Price(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-6": Price(5.0, 25.0, 6.25, 0.50),
    "claude-sonnet-4": Price(3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4-5": Price(3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4-6": Price(3.0, 15.0, 3.75, 0.30),
    "claude-haiku-4-5": Price(1.0, 5.0, 1.25, 0.10),
    "claude-opus-5-5": Price(4.0, 20.0, 5.0, 0.20),
    "claude-3-5-haiku": Price(0.80, 4.0, 1.0, 0.08),
    # OpenAI: automatic caching, no write surcharge.
    "gpt-4.1": Price(2.0, 8.0, 2.0, 0.50),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.40, 0.10),
    "gpt-4.1-nano": Price(0.10, 0.40, 0.10, 0.025),
    "gpt-4o": Price(2.50, 10.0, 2.50, 1.25),
    "gpt-4o-mini": Price(0.15, 0.60, 0.15, 0.075),
    "gpt-5": Price(1.25, 10.0, 1.25, 0.125),
    "gpt-5-mini": Price(0.25, 2.0, 0.25, 0.025),
    "gpt-5-nano": Price(0.05, 0.40, 0.05, 0.005),
    # The GPT-6 generation bills cache writes at 1.25x input when they are reported.
    "gpt-6-sol": Price(2.0, 10.0, 2.50, 0.20),
    "gpt-6-luna": Price(0.10, 0.50, 0.125, 0.01),
    # Gemini: implicit caching, cached input billed at a quarter.
    "gemini-2.5-flash": Price(0.30, 2.50, 0.30, 0.075),
    "gemini-2.5-flash-lite": Price(0.10, 0.40, 0.10, 0.025),
    "gemini-2.5-pro": Price(1.25, 10.0, 1.25, 0.31),
    # List price as of November 2026 (Google's introductory rate, set to double in 2027).
    "gemini-3.8-flash": Price(0.75, 3.75, 0.75, 0.075),
    "offline": Price(0.0, 0.0, 0.0, 0.0),
}


def price_of(model: str) -> Price | None:
    best = None
    for name in PRICES:
        if model == name or model.startswith(name + "-"):
            if best is None or len(name) > len(best):
                best = name
    return PRICES[best] if best else None


def cost(model: str, usage: Usage) -> tuple[float, float]:
    """(estimated cost, what the same tokens would cost with no caching at all)."""
    p = price_of(model)
    if p is None:
        return 0.0, 0.0
    per = 1_000_000
    actual = (usage.input_tokens * p.input + usage.output_tokens * p.output
              + usage.cache_creation_input_tokens * p.cache_write
              + usage.cache_read_input_tokens * p.cache_read) / per
    all_input = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens
    uncached = (all_input * p.input + usage.output_tokens * p.output) / per
    return actual, uncached


# The shortest prompt prefix each vendor will cache, in tokens: below it a cache
# breakpoint silently does nothing, which `rtac doctor` warns about.
MIN_CACHEABLE = {
    "claude-opus-4-5": 4096, "claude-opus-4-6": 4096, "claude-haiku-4-5": 4096, "claude-opus-4-7": 2048,
    "claude-3-5-haiku": 2048, "claude-3-haiku": 2048,
    "claude": 1024,  # Sonnet and the Opus 4 / 4.1 generation
    "gpt": 1024, "o": 1024,
    "gemini-2.5-pro": 4096, "gemini-3.8-flash": 4096, "gemini": 1024,
}


def min_cacheable_tokens(provider: str, model: str) -> int | None:
    if provider == "offline":
        return None
    best = None
    for prefix in MIN_CACHEABLE:
        if model.startswith(prefix) and (best is None or len(prefix) > len(best)):
            best = prefix
    return MIN_CACHEABLE[best] if best else 1024
