"""Request signatures between the plugin and the sidecar.

    X-Rtac-Signature = hex(HMAC-SHA256(site_secret,
        ts + "\\n" + METHOD + "\\n" + path + "\\n" + nonce + "\\n" + hex(sha256(body))))

A request is accepted once: its nonce is stored in the database (so every worker
and host agrees) and its timestamp must be within five minutes of ours. During a
secret's grace period after `rtac site rotate-secret` either secret signs.

An unknown site id is refused after the same work as a known one's bad signature
(a lookup, then the same number of HMACs and comparisons, against a secret nobody
knows), so response times do not tell which site ids exist.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from datetime import timedelta
from typing import Callable, Mapping

from sqlalchemy import delete, insert
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, IntegrityError

from . import tables as t
from .clock import utcnow
from .db import is_conflict, transaction
from .errors import Unauthorized
from .sites import Site

MAX_SKEW = 300
# Secrets a signature is checked against, always this many: the current one and the
# one in its grace period, or a decoy in its place.
_CANDIDATES = 2
_DECOY_SECRET = secrets.token_urlsafe(32)  # per process: it signs nothing anyone sent
_NONCE = re.compile(r"^[A-Za-z0-9_-]{16,128}$")
# ASCII digits only: str.isdigit() accepts '²' and other digits int() rejects.
_TIMESTAMP = re.compile(r"^[0-9]{1,15}$")


def signature(secret: str, timestamp: str, method: str, path: str, nonce: str, body: bytes) -> str:
    message = "\n".join([timestamp, method.upper(), path, nonce, hashlib.sha256(body).hexdigest()])
    return hmac.new(secret.encode("utf-8"), message.encode("utf-8"), hashlib.sha256).hexdigest()


def sign_headers(site_id: str, secret: str, method: str, path: str, body: bytes,
                 now: float | None = None) -> dict[str, str]:
    ts = str(int(time.time() if now is None else now))
    nonce = secrets.token_urlsafe(18)
    return {"X-Rtac-Site": site_id, "X-Rtac-Timestamp": ts, "X-Rtac-Nonce": nonce,
            "X-Rtac-Signature": signature(secret, ts, method, path, nonce, body)}


_INSERT_NONCE = insert(t.nonces)  # built once: every signed request claims a nonce


class NonceStore:
    def __init__(self, engine: Engine):
        self._engine = engine

    def claim(self, site_id: str, nonce: str) -> bool:
        """True the first time a (site, nonce) is seen, by any worker on any host, on
        any node of a cluster. A duplicate key means it was taken; so does a conflict
        that persists through every attempt: on Galera the claim that lost on another
        node fails at COMMIT (a certification failure, 1213) until the winner's row is
        applied here, and then as a duplicate."""
        def insert_nonce(conn) -> None:
            conn.execute(_INSERT_NONCE, {"site_id": site_id, "nonce": nonce, "seen_at": utcnow()})

        try:
            transaction(self._engine, insert_nonce)
        except IntegrityError:
            return False
        except DBAPIError as exc:
            if is_conflict(exc):
                return False
            raise
        return True

    def purge(self) -> int:
        # Past twice the allowed skew a replay fails on its timestamp alone.
        cutoff = utcnow() - timedelta(seconds=2 * MAX_SKEW)
        return transaction(self._engine, lambda conn: conn.execute(
            delete(t.nonces).where(t.nonces.c.seen_at < cutoff)).rowcount)


def _matches(site: Site | None, given: bytes, ts: str, method: str, path: str, nonce: str, body: bytes,
             now: float) -> bool:
    accepted = list(site.accepted_secrets(now)) if site is not None else []
    candidates = (accepted + [_DECOY_SECRET] * _CANDIDATES)[:_CANDIDATES]
    ok = False
    for secret in candidates:  # no early exit: every candidate costs the same
        ok |= hmac.compare_digest(signature(secret, ts, method, path, nonce, body).encode(), given)
    return ok and site is not None


def verify(headers: Mapping[str, str], method: str, path: str, body: bytes,
           find_site: Callable[[str], Site | None], nonces: NonceStore,
           now: float | None = None, refresh_site: Callable[[str], Site | None] | None = None) -> Site:
    """The signed site, or Unauthorized. `refresh_site` (e.g. SiteRegistry.refresh),
    when given, is asked once more after a mismatch: a site whose secret was just
    rotated, or that was just added, is served at once despite a cached copy."""
    site_id = headers.get("X-Rtac-Site", "")
    ts = headers.get("X-Rtac-Timestamp", "")
    nonce = headers.get("X-Rtac-Nonce", "")
    sig = headers.get("X-Rtac-Signature", "")
    if not (site_id and ts and nonce and sig):
        raise Unauthorized("missing signature headers (X-Rtac-Site, -Timestamp, -Nonce, -Signature)",
                           code="missing_signature")
    now = time.time() if now is None else now
    if not _TIMESTAMP.fullmatch(ts) or abs(now - int(ts)) > MAX_SKEW:
        raise Unauthorized("timestamp is more than 300 seconds off; check the clocks", code="stale_timestamp")
    if not _NONCE.fullmatch(nonce):
        raise Unauthorized("nonce must be 16-128 characters of [A-Za-z0-9_-]", code="bad_nonce")
    # Compared as bytes: compare_digest raises TypeError on a non-ASCII str header.
    given = sig.lower().encode("utf-8", "replace")
    site = find_site(site_id)
    ok = _matches(site, given, ts, method, path, nonce, body, now)
    if not ok and refresh_site is not None:
        site = refresh_site(site_id)
        ok = _matches(site, given, ts, method, path, nonce, body, now)
    # The same answer for an unknown site and a bad signature: no probing for site ids.
    if not ok:
        raise Unauthorized("signature does not match", code="bad_signature")
    if not nonces.claim(site.id, nonce):
        raise Unauthorized("nonce was already used", code="replayed_nonce")
    return site
