"""Everything a request needs, built once at start-up from the configuration."""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field

from sqlalchemy.engine import Engine

from . import spending
from .config import Config
from .conversations import purge_expired
from .crypto import Keyring
from .db import create_engine, is_conflict, transaction
from .embedders import Embedder, make_embedder
from .embedding_queue import EmbeddingQueue
from .errors import ProviderNotConfigured
from .memory.off import MEMORY_OFF, MemoryOff
from .memory.service import Memory, MemorySettings
from .providers import make_provider
from .providers.base import Provider
from .providers.chain import Link, ProviderChain, RetryPolicy
from .retrieval import Retriever
from .signing import NonceStore
from .sites import SiteRegistry, purge_expired_secrets
from .spaces import PURGE_BATCH, purge_idle

log = logging.getLogger("rtac")


@dataclass
class Services:
    config: Config
    engine: Engine
    keyring: Keyring
    sites: SiteRegistry
    nonces: NonceStore
    chain: ProviderChain
    embedder: Embedder | None = None  # the turn's: one query embedding per turn
    retriever: Retriever = field(default_factory=Retriever)
    indexing: EmbeddingQueue | None = None  # chunk embeddings, off the visitor's clock
    memory: Memory | None = None  # None: RTAC_MEMORY=off
    _last_maintenance: float = 0.0
    _maintenance_lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def build(cls, config: Config, engine: Engine | None = None, *, background: bool = False) -> "Services":
        """`background`: run memory extraction and chunk embedding in worker threads (a
        server); without it, queued work waits for `memory.run_pending()` and
        `indexing.drain()` (tests, the CLI)."""
        engine = engine or create_engine(config.database_url)
        keyring = Keyring(config.master_key, config.previous_master_keys)
        sites = SiteRegistry(engine, keyring)
        chain = build_chain(config)
        hybrid = config.retrieval == "hybrid"
        embedder = make_embedder(config) if config.embeds else None
        retriever = Retriever(embedder.model if hybrid and embedder else None)
        indexing = EmbeddingQueue(engine, make_embedder(config, lane="index"), background=background) \
            if hybrid else None
        memory = None
        if config.memory:
            settings = MemorySettings(recall_distance=config.memory_recall_distance,
                                      forget_distance=config.memory_forget_distance,
                                      dedup_distance=config.memory_dedup_distance, cap=config.memory_cap)
            memory = Memory(engine, sites, keyring, chain, embedder, settings,
                            timeout=config.provider_timeout, background=background,
                            over_budget=lambda conn, site: spending.over_budget(conn, site, config))
        return cls(config=config, engine=engine, keyring=keyring, sites=sites, nonces=NonceStore(engine),
                   chain=chain, embedder=embedder, retriever=retriever, indexing=indexing, memory=memory)

    @property
    def provider(self) -> Provider:
        return self.chain.primary

    @property
    def turn_memory(self) -> Memory | MemoryOff:
        """What a turn recalls from and forgets in, memory on or off."""
        return self.memory if self.memory is not None else MEMORY_OFF

    @property
    def model(self) -> str:
        return self.chain.links[0].model if self.chain.links else self.chain.offline.default_model

    def maybe_maintain(self, every: float = 600.0) -> None:
        """Expired nonces, turns past retention, spaces idle that long with nothing in
        them and signing secrets past their grace period go, at most once per `every`
        seconds per process, in a background thread: never on a visitor's clock."""
        now = time.monotonic()
        if now - self._last_maintenance < every or not self._maintenance_lock.acquire(blocking=False):
            return
        self._last_maintenance = now

        def run():
            days = self.config.retention_days
            try:
                self.nonces.purge()
                transaction(self.engine, lambda conn: purge_expired(conn, days))
                # in batches, each its own short transaction
                while transaction(self.engine, lambda conn: purge_idle(conn, days)) >= PURGE_BATCH:
                    pass
                transaction(self.engine, purge_expired_secrets)
            except Exception as exc:  # maintenance must never take a worker down
                if is_conflict(exc):  # every server purges: another one held the same rows
                    log.warning("maintenance left to the next pass: %s", exc.__class__.__name__)
                else:
                    log.exception("maintenance failed")
            finally:
                self._maintenance_lock.release()

        threading.Thread(target=run, name="rtac-maintenance", daemon=True).start()


def build_chain(config: Config) -> ProviderChain:
    """The primary must be usable (a missing key for it is a configuration error);
    a fallback without its key is left out with a warning, not fatal."""
    primary = make_provider(config.provider, config)
    links = [Link(primary, config.model or primary.default_model)]
    for name in config.fallback_providers:
        if name == config.provider:
            continue
        try:
            fallback = make_provider(name, config)
        except ProviderNotConfigured as exc:
            log.warning("fallback provider left out: %s", exc.message)
            continue
        links.append(Link(fallback, fallback.default_model))
    policy = RetryPolicy(attempts=config.provider_attempts, deadline=config.turn_deadline)
    return ProviderChain(links, policy)
