"""Everything a request needs, built once at start-up from the configuration."""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field

from sqlalchemy.engine import Engine

from .config import Config
from .conversations import purge_expired
from .crypto import Keyring
from .db import create_engine
from .providers import make_provider
from .providers.base import Provider
from .providers.offline import OfflineProvider
from .signing import NonceStore
from .sites import SiteRegistry

log = logging.getLogger("rtac")


@dataclass
class Services:
    config: Config
    engine: Engine
    keyring: Keyring
    sites: SiteRegistry
    nonces: NonceStore
    provider: Provider
    model: str
    offline: OfflineProvider = field(default_factory=OfflineProvider)
    _last_maintenance: float = 0.0
    _maintenance_lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def build(cls, config: Config, engine: Engine | None = None) -> "Services":
        engine = engine or create_engine(config.database_url)
        keyring = Keyring(config.master_key)
        provider = make_provider(config.provider, config)
        return cls(config=config, engine=engine, keyring=keyring, sites=SiteRegistry(engine, keyring),
                   nonces=NonceStore(engine), provider=provider,
                   model=config.model or provider.default_model)

    def maybe_maintain(self, every: float = 600.0) -> None:
        """Expired nonces and turns past retention go, at most once per `every`
        seconds per process, in a background thread: never on a visitor's clock."""
        now = time.monotonic()
        if now - self._last_maintenance < every or not self._maintenance_lock.acquire(blocking=False):
            return
        self._last_maintenance = now

        def run():
            try:
                self.nonces.purge()
                with self.engine.begin() as conn:
                    purge_expired(conn, self.config.retention_days)
            except Exception:  # maintenance must never take a worker down
                log.exception("maintenance failed")
            finally:
                self._maintenance_lock.release()

        threading.Thread(target=run, name="rtac-maintenance", daemon=True).start()
