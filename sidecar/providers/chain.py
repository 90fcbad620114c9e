"""Retries and failover: the one retry policy in the system.

Vendor SDK retries are off, so every request counted here is a request sent. For
each provider in the chain (primary, then RTAC_FALLBACK_PROVIDERS): retry retryable
errors with exponential backoff and jitter, honouring Retry-After, while the turn's
overall deadline allows; a non-retryable error moves on at once. When every vendor
has failed, the offline provider answers from the site's own knowledge.

A streamed answer is retried the same way until its first piece; a failure after
that is StreamBroken and never retried, since the visitor has seen part of it.
"""
from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator, Sequence, TypeVar

from ..errors import ProviderError, StreamBroken
from .base import ChatRequest, ChatResult, ChatStream, Provider
from .offline import OfflineProvider

log = logging.getLogger("rtac.providers")
T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 3  # per provider, first try included
    base_delay: float = 0.5
    max_delay: float = 8.0
    deadline: float = 40.0  # the whole turn, every provider and every wait included
    min_attempt_time: float = 1.0  # no point starting a call with less time than this left


@dataclass(frozen=True)
class Link:
    """One provider of the chain and the model it is asked for."""

    provider: Provider
    model: str


@dataclass
class Attempt:
    provider: str
    error: ProviderError | None = None


@dataclass
class ChainOutcome:
    result: ChatResult
    failed_over: bool  # the primary did not answer
    attempts: list[Attempt] = field(default_factory=list)


class ProviderChain:
    def __init__(self, links: Sequence[Link | tuple[Provider, str]], policy: RetryPolicy = RetryPolicy(),
                 offline: OfflineProvider | None = None, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic, jitter: Callable[[], float] = random.random):
        """`links`: primary first; a (provider, model) pair is read as a Link."""
        self.links = [link if isinstance(link, Link) else Link(*link) for link in links]
        self.policy = policy
        self.offline = offline or OfflineProvider()
        self.sleep, self.clock, self.jitter = sleep, clock, jitter

    @property
    def primary(self) -> Provider:
        return self.links[0].provider if self.links else self.offline

    def backoff(self, attempt: int, error: ProviderError) -> float:
        """Seconds before retry number `attempt` (1-based): exponential with equal
        jitter, or the vendor's Retry-After when that is longer. A Retry-After of 0
        or a few milliseconds still waits: back-to-back retries against a vendor that
        is struggling only add to its load."""
        ceiling = min(self.policy.max_delay, self.policy.base_delay * 2 ** (attempt - 1))
        jittered = ceiling / 2 + self.jitter() * ceiling / 2
        if error.retry_after is not None:
            # Asked to wait longer than the turn allows: the caller moves on.
            return max(error.retry_after, jittered)
        return jittered

    def chat(self, request: ChatRequest) -> ChainOutcome:
        attempts: list[Attempt] = []
        found = self._first_answer(request, lambda provider, req: provider.chat(req), attempts)
        if found is None:
            return ChainOutcome(self.offline.chat(request), failed_over=True, attempts=attempts)
        result, index = found
        return ChainOutcome(result, failed_over=index > 0, attempts=attempts)

    def stream(self, request: ChatRequest) -> "ChainStream":
        """The answer streamed: retries and failover as in `chat()` until a vendor
        yields its first piece; after that a failure raises StreamBroken."""
        return ChainStream(self, request)

    def _first_answer(self, request: ChatRequest, call: Callable[[Provider, ChatRequest], T],
                      attempts: list[Attempt]) -> tuple[T, int] | None:
        """`call` on each provider in turn, retried, within the deadline: what the first
        success returned and the provider's index, or None when every one failed."""
        start = self.clock()
        for index, link in enumerate(self.links):
            provider = link.provider
            if provider.name == "offline":
                break
            for n in range(1, self.policy.attempts + 1):
                left = self.policy.deadline - (self.clock() - start)
                if left < self.policy.min_attempt_time:
                    break
                try:
                    answer = call(provider, replace(request, model=link.model, timeout=min(request.timeout, left)))
                except ProviderError as exc:
                    attempts.append(Attempt(provider.name, exc))
                    log.warning("%s attempt %d failed: %s (status=%s, retryable=%s)",
                                provider.name, n, exc.message, exc.http_status, exc.retryable)
                    if not exc.retryable or n == self.policy.attempts:
                        break
                    wait = self.backoff(n, exc)
                    if self.clock() - start + wait + self.policy.min_attempt_time > self.policy.deadline:
                        break  # waiting would spend the turn: move on to the next provider
                    self.sleep(wait)
                else:
                    attempts.append(Attempt(provider.name))
                    return answer, index
        return None


class ChainStream:
    """The chain's answer as it arrives (a ChatStream). The first vendor piece is
    awaited inside the retry loop, so a vendor failing before it is retried or failed
    over like in `chat()`, and when every vendor fails the offline answer is streamed
    (`result.degraded`). Once read, `failed_over`, `attempts` and `outcome` tell what
    happened, as `chat()`'s ChainOutcome does."""

    def __init__(self, chain: ProviderChain, request: ChatRequest):
        self.result = ChatResult("")
        self.failed_over = False
        self.attempts: list[Attempt] = []
        self._chain, self._request = chain, request
        self._vendor: ChatStream | None = None
        self._run = self._iterate()

    def __iter__(self) -> Iterator[str]:
        return self._run

    @property
    def outcome(self) -> ChainOutcome:
        return ChainOutcome(self.result, self.failed_over, self.attempts)

    def _iterate(self) -> Iterator[str]:
        try:
            found = self._chain._first_answer(self._request, self._open, self.attempts)
            if found is None:
                self.failed_over = True
                self._vendor = self._chain.offline.stream(self._request)
                self.result = self._vendor.result
                yield from self._vendor
                return
            (vendor, pieces, first), index = found
            self.failed_over = index > 0
            if first is None:  # the vendor answered with no text at all
                return
            yield first
            try:
                yield from pieces
            except ProviderError as exc:
                broken = exc if isinstance(exc, StreamBroken) else StreamBroken(exc, vendor.result.text)
                self.attempts[-1].error = broken  # the attempt that had begun to answer
                log.warning("%s failed mid-stream: %s", broken.provider, broken.message)
                if broken is exc:
                    raise
                raise broken from exc
        finally:
            if self._vendor is not None:
                self._vendor.close()

    def _open(self, provider: Provider, request: ChatRequest) -> tuple[ChatStream, Iterator[str], str | None]:
        """Start the vendor's stream and wait for its first piece (None: it ended
        without any); a failure up to there is an ordinary ProviderError."""
        vendor = provider.stream(request)
        pieces = iter(vendor)
        try:
            first = next(pieces, None)
        except BaseException:
            vendor.close()
            raise
        self._vendor = vendor
        self.result = vendor.result
        return vendor, pieces, first

    def close(self) -> None:
        self._run.close()
        if self._vendor is not None:
            self._vendor.close()
