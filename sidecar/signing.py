"""Request signatures between the plugin and the sidecar.

    X-Rtac-Signature = hex(HMAC-SHA256(site_secret,
        ts + "\\n" + METHOD + "\\n" + path + "\\n" + nonce + "\\n" + hex(sha256(body))))

A request is accepted once: its nonce is stored in the database (so every worker
and host agrees) and its timestamp must be within five minutes of ours.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from datetime import datetime, timedelta, timezone
from typing import Callable, Mapping

from sqlalchemy import delete, insert
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from . import tables as t
from .errors import Unauthorized
from .sites import Site

MAX_SKEW = 300
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


class NonceStore:
    def __init__(self, engine: Engine):
        self._engine = engine

    def claim(self, site_id: str, nonce: str) -> bool:
        """True the first time a (site, nonce) is seen, by any worker on any host."""
        try:
            with self._engine.begin() as conn:
                conn.execute(insert(t.nonces).values(site_id=site_id, nonce=nonce,
                                                     seen_at=datetime.now(timezone.utc).replace(tzinfo=None)))
        except IntegrityError:
            return False
        return True

    def purge(self) -> int:
        # Past twice the allowed skew a replay fails on its timestamp alone.
        cutoff = datetime.now(timezone.utc).replace(tzinfo=None) - timedelta(seconds=2 * MAX_SKEW)
        with self._engine.begin() as conn:
            return conn.execute(delete(t.nonces).where(t.nonces.c.seen_at < cutoff)).rowcount


def verify(headers: Mapping[str, str], method: str, path: str, body: bytes,
           find_site: Callable[[str], Site | None], nonces: NonceStore,
           now: float | None = None) -> Site:
    site_id = headers.get("X-Rtac-Site", "")
    ts = headers.get("X-Rtac-Timestamp", "")
    nonce = headers.get("X-Rtac-Nonce", "")
    sig = headers.get("X-Rtac-Signature", "")
    if not (site_id and ts and nonce and sig):
        raise Unauthorized("missing signature headers (X-Rtac-Site, -Timestamp, -Nonce, -Signature)",
                           code="missing_signature")
    if not _TIMESTAMP.fullmatch(ts) or abs((time.time() if now is None else now) - int(ts)) > MAX_SKEW:
        raise Unauthorized("timestamp is more than 300 seconds off; check the clocks", code="stale_timestamp")
    if not _NONCE.fullmatch(nonce):
        raise Unauthorized("nonce must be 16-128 characters of [A-Za-z0-9_-]", code="bad_nonce")
    site = find_site(site_id)
    # The same answer for an unknown site and a bad signature: no probing for site ids.
    # Compared as bytes: compare_digest raises TypeError on a non-ASCII str header.
    if site is None or not hmac.compare_digest(signature(site.secret, ts, method, path, nonce, body).encode(),
                                               sig.lower().encode("utf-8", "replace")):
        raise Unauthorized("signature does not match", code="bad_signature")
    if not nonces.claim(site.id, nonce):
        raise Unauthorized("nonce was already used", code="replayed_nonce")
    return site
