"""The sites one sidecar serves, each with its own signing secret and data key.

A secret is replaced by `rtac site rotate-secret`: the replaced one stays valid
for a grace period (SECRET_GRACE_SECONDS unless told otherwise), so the plugin
can be given the new one without a window of refused requests.
"""
from __future__ import annotations

import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from . import fulltext
from . import tables as t
from .clock import utcnow
from .crypto import Keyring, new_key
from .errors import BadRequest, NotFound
from .langs import normalize_lang

SITE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
SECRET_GRACE_SECONDS = 24 * 3600


@dataclass(frozen=True)
class Site:
    id: str
    secret: str = field(repr=False)
    key: bytes = field(repr=False)  # seals this site's unanswered questions, keys identity hashes
    default_lang: str = "en"
    previous_secret: str | None = field(default=None, repr=False)
    previous_secret_expires: float | None = None  # unix time
    daily_budget_usd: float | None = None  # None: the sidecar's default cap

    def accepted_secrets(self, now: float) -> tuple[str, ...]:
        """The current secret, and the replaced one while its grace period lasts."""
        if self.previous_secret and self.previous_secret_expires is not None and now < self.previous_secret_expires:
            return (self.secret, self.previous_secret)
        return (self.secret,)


def secret_aad(site_id: str) -> str:
    return f"rtac/site-secret/{site_id}"


def previous_secret_aad(site_id: str) -> str:
    return f"rtac/site-previous-secret/{site_id}"


def site_key_aad(site_id: str) -> str:
    return f"rtac/site-key/{site_id}"


def _unix(dt: datetime) -> float:
    return dt.replace(tzinfo=timezone.utc).timestamp()


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
            # Ready: a new site has no chunks its FULLTEXT table could lack.
            conn.execute(insert(t.sites).values(**row, ft_ready=True))
            shard = conn.execute(select(t.sites.c.ft_shard).where(t.sites.c.id == site_id)).scalar_one()
    except IntegrityError:
        raise BadRequest("site_id", f"site {site_id!r} already exists", code="conflict") from None
    fulltext.ensure_table(engine, int(shard))  # after the row: its number is the server's
    return Site(site_id, secret, key, lang)


def load_site(conn: Connection, keyring: Keyring, site_id: str) -> Site | None:
    row = conn.execute(select(t.sites).where(t.sites.c.id == site_id)).mappings().first()
    if row is None:
        # The work of a found site's two unwraps: an unknown id answers no faster.
        keyring.decoy_unwrap()
        keyring.decoy_unwrap()
        return None
    kid = row["key_id"]
    secret = keyring.unwrap(row["secret_enc"], secret_aad(site_id), kid).decode()
    key = keyring.unwrap(row["wrapped_key"], site_key_aad(site_id), kid)
    previous, expires = None, row["previous_secret_expires_at"]
    if row["previous_secret_enc"] is not None and expires is not None and expires > utcnow():
        previous = keyring.unwrap(row["previous_secret_enc"], previous_secret_aad(site_id), kid).decode()
    budget = row["daily_budget_usd"]
    return Site(row["id"], secret, key, row["default_lang"], previous,
                _unix(expires) if previous is not None else None,
                float(budget) if budget is not None else None)


@dataclass(frozen=True)
class RotatedSecret:
    secret: str = field(repr=False)
    previous_valid_until: datetime | None  # UTC; None: the old secret is refused at once


def rotate_secret(engine: Engine, keyring: Keyring, site_id: str, *,
                  grace: int = SECRET_GRACE_SECONDS) -> RotatedSecret:
    """A new random secret for the site; the current one stays valid for `grace`
    seconds (0: refused at once). A secret still in its grace period from an earlier
    rotation is refused from now on: only the one being replaced is kept."""
    if isinstance(grace, bool) or not isinstance(grace, int) or grace < 0:
        raise BadRequest("grace", "must be a whole number of seconds, zero or more")
    new = secrets.token_urlsafe(32)
    with engine.begin() as conn:
        row = conn.execute(select(t.sites).where(t.sites.c.id == site_id).with_for_update()).mappings().first()
        if row is None:
            raise NotFound(f"unknown site {site_id!r}")
        kid = row["key_id"]
        current = keyring.unwrap(row["secret_enc"], secret_aad(site_id), kid)
        key = keyring.unwrap(row["wrapped_key"], site_key_aad(site_id), kid)
        until = utcnow().replace(microsecond=0) + timedelta(seconds=grace) if grace else None
        # Every sealed value of the row under one master key, the one key_id names.
        conn.execute(update(t.sites).where(t.sites.c.id == site_id).values(
            secret_enc=keyring.wrap(new.encode(), secret_aad(site_id)),
            wrapped_key=keyring.wrap(key, site_key_aad(site_id)), key_id=keyring.key_id,
            previous_secret_enc=keyring.wrap(current, previous_secret_aad(site_id)) if until else None,
            previous_secret_expires_at=until))
    return RotatedSecret(new, until)


def purge_expired_secrets(conn: Connection) -> int:
    """Replaced secrets past their grace period: refused already, now gone too."""
    return conn.execute(update(t.sites).where(t.sites.c.previous_secret_expires_at <= utcnow())
                        .values(previous_secret_enc=None, previous_secret_expires_at=None)).rowcount


def remove_site(engine: Engine, site_id: str) -> bool:
    """Delete the site and everything of it: its pages (and its FULLTEXT table),
    customers' spaces (and with them memories, conversations, turns), unanswered
    questions, usage and nonces."""
    with engine.begin() as conn:
        shard = conn.execute(select(t.sites.c.ft_shard).where(t.sites.c.id == site_id)
                             .with_for_update()).scalar_one_or_none()
        found = conn.execute(delete(t.sites).where(t.sites.c.id == site_id)).rowcount > 0
        if found:
            # The schema's cascades did the work (its FULLTEXT table's rows went with
            # its chunks); a table added without one still loses this site's rows.
            for table in reversed(t.metadata.sorted_tables):
                if table is not t.sites and "site_id" in table.c:
                    conn.execute(delete(table).where(table.c.site_id == site_id))
    if found:
        fulltext.drop_table(engine, int(shard))  # DDL commits: after the rows are gone
    return found


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

    def refresh(self, site_id: str, min_age: float = 2.0) -> Site | None:
        """The site as the database has it now, unless the cached copy is younger than
        `min_age` seconds: a secret rotated a moment ago works at once, and a flood of
        bad signatures costs at most one lookup per site id every `min_age` seconds."""
        with self._lock:
            hit = self._cache.get(site_id)
        if hit and time.monotonic() - hit[0] < min_age:
            return hit[1]
        with self._lock:
            self._cache.pop(site_id, None)
        return self.get(site_id)

    def require(self, site_id: str) -> Site:
        site = self.get(site_id)
        if site is None:
            raise NotFound(f"unknown site {site_id!r}")
        return site

    def forget(self, site_id: str) -> None:
        with self._lock:
            self._cache.pop(site_id, None)
