"""The thin provider interface: one `chat()` and one `stream()` for every vendor.

It unifies the request shape and the error handling, not the capabilities: each
provider maps `system` (stable, cacheable) and `system_tail` (short, dynamic) and the
schema onto its own vendor's caching and schema-enforcement mechanisms.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator, Protocol, Sequence


@dataclass(frozen=True)
class Message:
    role: str  # "user" | "assistant"
    content: str


@dataclass(frozen=True)
class Schema:
    """A JSON schema the vendor must enforce; `name` appears in the request body."""

    name: str
    json_schema: dict


@dataclass(frozen=True)
class GroundingEntry:
    title: str
    content: str
    url: str = ""
    pinned: bool = False
    lang: str = ""  # a retrieved chunk's language ("" for pinned entries: the visitor's)


@dataclass(frozen=True)
class Grounding:
    """The structured knowledge behind a prompt. Model providers ignore it (they read the
    prompt); the offline provider answers from it without a model."""

    question: str
    lang: str
    pinned: Sequence[GroundingEntry] = ()
    retrieved: Sequence[GroundingEntry] = ()
    # Cosine similarity of texts to the question by the turn's query embedding (None
    # when there is none): lets the offline answer match meaning, in any language.
    similarity: Callable[[Sequence[str]], object] | None = None


@dataclass(frozen=True)
class ChatRequest:
    model: str
    system: str
    system_tail: str
    # Earlier turns first, the current user message last. Everything before the last
    # message is identical to the previous turn's prompt, so providers may cache it.
    messages: Sequence[Message]
    max_tokens: int
    schema: Schema
    grounding: Grounding | None = None
    # Stable per site; lets vendors with key-based prefix caching route to a warm cache.
    cache_key: str = ""
    timeout: float = 30.0


@dataclass
class Usage:
    input_tokens: int = 0  # fresh (uncached) input tokens
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
        )


@dataclass
class ChatResult:
    text: str  # the raw reply text; parsed leniently by sidecar.reply, never by an SDK
    usage: Usage = field(default_factory=Usage)
    provider: str = ""
    model: str = ""
    degraded: bool = False


class ChatStream(Protocol):
    """A vendor's answer as it arrives. Iterating yields the raw text of the model's
    output piece by piece (the same text `chat()` returns, cut anywhere). Nothing is
    sent before iteration begins; a failure raises sidecar.errors.ProviderError, or
    StreamBroken once a piece has been yielded. `result` is complete when iteration
    ends (text = the pieces joined, usage, provider, model); after a failure it holds
    the partial text and the usage the vendor had reported."""

    result: ChatResult

    def __iter__(self) -> Iterator[str]: ...

    def close(self) -> None:
        """Stop early and release the HTTP connection; harmless when already finished."""
        ...


class Provider(Protocol):
    name: str
    default_model: str

    def chat(self, request: ChatRequest) -> ChatResult:
        """Return the vendor's answer or raise sidecar.errors.ProviderError."""
        ...

    def stream(self, request: ChatRequest) -> ChatStream:
        """The same answer as `chat()`, streamed."""
        ...
