"""The sites one sidecar serves, each with its own signing secret and data key."""
from __future__ import annotations

import re
import secrets
import threading
import time
from dataclasses import dataclass, field

from sqlalchemy import insert, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from . import tables as t
from .crypto import Keyring, new_key
from .errors import BadRequest, NotFound
from .langs import normalize_lang

SITE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class Site:
    id: str
    secret: str = field(repr=False)
    key: bytes = field(repr=False)  # seals this site's unanswered questions, keys identity hashes
    default_lang: str = "en"


def secret_aad(site_id: str) -> str:
    return f"rtac/site-secret/{site_id}"


def site_key_aad(site_id: str) -> str:
    return f"rtac/site-key/{site_id}"


def add_site(engine: Engine, keyring: Keyring, site_id: str, *, secret: str | None = None,
             default_lang: str = "en") -> Site:
    if not SITE_ID.match(site_id or ""):
        raise BadRequest("site_id", "use 1-64 letters, digits, '.', '_' or '-'")
    lang = normalize_lang(default_lang)
    if lang is None:
        raise BadRequest("default_lang", f"not a language code: {default_lang!r}")
    if secret is not None and len(secret) < 16:
        raise BadRequest("secret", "must be at least 16 characters")
    secret = secret or secrets.token_urlsafe(32)
    key = new_key()
    row = dict(id=site_id, default_lang=lang, key_id=keyring.key_id,
               secret_enc=keyring.wrap(secret.encode(), secret_aad(site_id)),
               wrapped_key=keyring.wrap(key, site_key_aad(site_id)))
    try:
        with engine.begin() as conn:
            conn.execute(insert(t.sites).values(**row))
    except IntegrityError:
        raise BadRequest("site_id", f"site {site_id!r} already exists", code="conflict") from None
    return Site(site_id, secret, key, lang)


def load_site(conn: Connection, keyring: Keyring, site_id: str) -> Site | None:
    row = conn.execute(select(t.sites).where(t.sites.c.id == site_id)).mappings().first()
    if row is None:
        return None
    secret = keyring.unwrap(row["secret_enc"], secret_aad(site_id)).decode()
    key = keyring.unwrap(row["wrapped_key"], site_key_aad(site_id))
    return Site(row["id"], secret, key, row["default_lang"])


class SiteRegistry:
    """Sites by id, cached briefly per process: a site added by the CLI is served
    within `ttl` seconds, and a turn does not pay for two unwraps."""

    def __init__(self, engine: Engine, keyring: Keyring, ttl: float = 30.0):
        self._engine, self._keyring, self._ttl = engine, keyring, ttl
        self._cache: dict[str, tuple[float, Site | None]] = {}
        self._lock = threading.Lock()

    def get(self, site_id: str) -> Site | None:
        now = time.monotonic()
        with self._lock:
            hit = self._cache.get(site_id)
        if hit and now - hit[0] < self._ttl:
            return hit[1]
        with self._engine.connect() as conn:
            site = load_site(conn, self._keyring, site_id)
        with self._lock:
            if len(self._cache) > 10_000:  # unknown ids are cached too; keep that bounded
                self._cache.clear()
            self._cache[site_id] = (now, site)
        return site

    def require(self, site_id: str) -> Site:
        site = self.get(site_id)
        if site is None:
            raise NotFound(f"unknown site {site_id!r}")
        return site

    def forget(self, site_id: str) -> None:
        with self._lock:
            self._cache.pop(site_id, None)
