"""Spaces: one customer of one site. Identity -> space, with a per-space data key.

Identity is `wp:<user id>` for logged-in WordPress users (their memory follows
them across devices) and the opaque cookie id otherwise. It is stored only as a
keyed hash under the site key. Erasing a space deletes its row and with it the
wrapped key, so anything sealed under that key is unreadable from then on.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from sqlalchemy import delete, select, update
from sqlalchemy.dialects.mysql import insert as mysql_insert
from sqlalchemy.engine import Connection
from sqlalchemy.sql import func

from . import tables as t
from .crypto import Keyring, Sealer, keyed_hash, new_key
from .sites import Site


@dataclass(frozen=True)
class Space:
    id: int
    site_id: str
    key: bytes = field(repr=False)
    memory_version: int = 0  # as read with the space; see MemoryStore

    @cached_property
    def _sealer(self) -> Sealer:
        return Sealer(self.key)

    def seal(self, plaintext: bytes, aad: str) -> bytes:
        return self._sealer.seal(plaintext, aad)

    def open(self, blob: bytes, aad: str) -> bytes:
        return self._sealer.open(blob, aad)


def identity_of(visitor_id: str, wp_user_id: int | None) -> str:
    return f"wp:{wp_user_id}" if wp_user_id else f"v:{visitor_id}"


def _identity_hash(site: Site, identity: str) -> bytes:
    return keyed_hash(site.key, "identity", identity)


def space_key_aad(site_id: str, identity_hash: bytes) -> str:
    return f"rtac/space-key/{site_id}/{identity_hash.hex()}"


def find_space(conn: Connection, keyring: Keyring, site: Site, identity: str) -> Space | None:
    ih = _identity_hash(site, identity)
    row = conn.execute(
        select(t.spaces.c.id, t.spaces.c.wrapped_key, t.spaces.c.memory_version)
        .where(t.spaces.c.site_id == site.id, t.spaces.c.identity_hash == ih)
    ).first()
    if row is None:
        return None
    return Space(row.id, site.id, keyring.unwrap(row.wrapped_key, space_key_aad(site.id, ih)), row.memory_version)


def resolve_space(conn: Connection, keyring: Keyring, site: Site, identity: str) -> Space:
    """The customer's space, created on first contact. Safe under concurrent first
    turns: the unique (site, identity_hash) key decides which insert wins."""
    space = find_space(conn, keyring, site, identity)
    if space is not None:
        return space
    ih = _identity_hash(site, identity)
    conn.execute(
        mysql_insert(t.spaces)
        .values(site_id=site.id, identity_hash=ih, key_id=keyring.key_id,
                wrapped_key=keyring.wrap(new_key(), space_key_aad(site.id, ih)))
        .prefix_with("IGNORE")
    )
    space = find_space(conn, keyring, site, identity)
    assert space is not None
    return space


def touch(conn: Connection, space: Space) -> None:
    conn.execute(update(t.spaces).where(t.spaces.c.id == space.id).values(last_seen_at=func.now()))


def erase_space(conn: Connection, site: Site, identity: str) -> bool:
    """Destroy the space and its key; rows sealed under it cascade away with it."""
    ih = _identity_hash(site, identity)
    result = conn.execute(delete(t.spaces).where(t.spaces.c.site_id == site.id, t.spaces.c.identity_hash == ih))
    return result.rowcount > 0


def space_by_id(conn: Connection, keyring: Keyring, site: Site, space_id: int) -> Space | None:
    row = conn.execute(select(t.spaces.c.identity_hash, t.spaces.c.wrapped_key, t.spaces.c.memory_version)
                       .where(t.spaces.c.site_id == site.id, t.spaces.c.id == space_id)).first()
    if row is None:
        return None
    return Space(space_id, site.id, keyring.unwrap(row.wrapped_key, space_key_aad(site.id, row.identity_hash)),
                 row.memory_version)
