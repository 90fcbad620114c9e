"""Retries and failover: the one retry policy in the system.

Vendor SDK retries are off, so every request counted here is a request sent. For
each provider in the chain (primary, then RTAC_FALLBACK_PROVIDERS): retry retryable
errors with exponential backoff and jitter, honouring Retry-After, while the turn's
overall deadline allows; a non-retryable error moves on at once. When every vendor
has failed, the offline provider answers from the site's own knowledge.
"""
from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from ..errors import ProviderError
from .base import ChatRequest, ChatResult, Provider
from .offline import OfflineProvider

log = logging.getLogger("rtac.providers")


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 3  # per provider, first try included
    base_delay: float = 0.5
    max_delay: float = 8.0
    deadline: float = 40.0  # the whole turn, every provider and every wait included
    min_attempt_time: float = 1.0  # no point starting a call with less time than this left


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
    def __init__(self, links: Sequence[tuple[Provider, str]], policy: RetryPolicy = RetryPolicy(),
                 offline: OfflineProvider | None = None, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic, jitter: Callable[[], float] = random.random):
        self.links = list(links)
        self.policy = policy
        self.offline = offline or OfflineProvider()
        self.sleep, self.clock, self.jitter = sleep, clock, jitter

    @property
    def primary(self) -> Provider:
        return self.links[0][0] if self.links else self.offline

    def backoff(self, attempt: int, error: ProviderError) -> float:
        """Seconds before retry number `attempt` (1-based): the vendor's Retry-After
        when it gave one, else exponential with equal jitter."""
        if error.retry_after is not None:
            return error.retry_after  # asked to wait longer than the turn allows: the caller moves on
        ceiling = min(self.policy.max_delay, self.policy.base_delay * 2 ** (attempt - 1))
        return ceiling / 2 + self.jitter() * ceiling / 2

    def chat(self, request: ChatRequest) -> ChainOutcome:
        start = self.clock()
        attempts: list[Attempt] = []
        for index, (provider, model) in enumerate(self.links):
            if provider.name == "offline":
                break
            for n in range(1, self.policy.attempts + 1):
                left = self.policy.deadline - (self.clock() - start)
                if left < self.policy.min_attempt_time:
                    break
                try:
                    result = provider.chat(replace(request, model=model, timeout=min(request.timeout, left)))
                    attempts.append(Attempt(provider.name))
                    return ChainOutcome(result, failed_over=index > 0, attempts=attempts)
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
        return ChainOutcome(self.offline.chat(request), failed_over=True, attempts=attempts)
