"""Spaces: one customer of one site. Identity -> space, with a per-space data key.

Identity is `wp:<user id>` for logged-in WordPress users (their memory follows
them across devices) and the opaque cookie id otherwise. It is stored only as a
keyed hash under the site key. Erasing a space deletes its row and with it the
wrapped key, so anything sealed under that key is unreadable from then on.

A space that never came to hold anything (no memories, conversations, queued
work or unanswered questions asked) is purged once it has been idle for the
retention period: every new visitor creates one.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

from sqlalchemy import bindparam, delete, literal, literal_column, null, select, union_all, update
from sqlalchemy.dialects.mysql import insert as mysql_insert
from sqlalchemy.engine import Connection
from sqlalchemy.sql import func

from . import tables as t
from .crypto import Keyring, Sealer, keyed_hash, new_key
from .db import TransactionConflict
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


# A space last seen longer ago than this is marked seen again when a turn resolves
# it, under a row lock, before the turn writes anything: the purge of idle spaces
# (idle for at least a day) then cannot take a space a turn is using. That is the
# only mark: last_seen_at decides nothing but that purge, which spares every space
# holding a conversation, so a mark per turn would only be a write per turn.
_REFRESH_SEEN_AFTER_SECONDS = 3600


def _space_columns() -> tuple:
    s = t.spaces.c
    stale = s.last_seen_at < func.now() - literal_column(f"INTERVAL {_REFRESH_SEEN_AFTER_SECONDS} SECOND")
    return s.id, s.wrapped_key, s.key_id, s.memory_version, stale.label("stale")


def _space_statement(lock: bool):
    s = t.spaces.c
    q = select(*_space_columns()).where(s.site_id == bindparam("site"), s.identity_hash == bindparam("ih"))
    return q.with_for_update() if lock else q


# Built once: every turn reads its space, and constructing a statement costs about
# as much as its round trip to a local server.
_SPACE_ROW = {lock: _space_statement(lock) for lock in (False, True)}
_SEEN = update(t.spaces).where(t.spaces.c.id == bindparam("space")).values(last_seen_at=func.now())


def _space_row(conn: Connection, site: Site, ih: bytes, *, lock: bool = False):
    return conn.execute(_SPACE_ROW[lock], {"site": site.id, "ih": ih}).first()


@functools.cache  # built once per set of columns, as the statements above
def _space_and_site_statement(site_columns: tuple[str, ...], with_turns: bool = False):
    """The space's row and some of its site's, in one statement: the site's row left
    joined to the space, so a visitor with no space yet still gets the site's. With
    `with_turns`, the conversation's last turns of the space's follow as rows of their
    own (seq, content_enc; the other columns NULL), by the (conversation, seq) index:
    joined to the site's row instead, they were sorted with their sealed content in an
    on-disk temporary table on every turn."""
    s, sites = t.spaces.c, t.sites.c
    joined = t.sites.outerjoin(t.spaces, (s.site_id == sites.id) & (s.identity_hash == bindparam("ih")))
    columns = [*(sites[name] for name in site_columns), *_space_columns()]
    if not with_turns:
        return select(*columns).select_from(joined).where(sites.id == bindparam("site"))
    tc = t.turns.c
    head = select(*columns, null().label("seq"), null().label("content_enc")).select_from(joined) \
        .where(sites.id == bindparam("site"))
    last = (select(*(null() for _ in columns), tc.seq, tc.content_enc)
            .join_from(t.turns, t.spaces, (s.id == tc.space_id) & (s.site_id == bindparam("site"))
                       & (s.identity_hash == bindparam("ih")))
            .where(tc.conversation_id == bindparam("conv"), tc.site_id == bindparam("site"),
                   tc.created_at >= bindparam("since"))
            .order_by(tc.seq.desc()).limit(bindparam("turns")))
    return union_all(head, last)


@dataclass(frozen=True)
class TurnsWanted:
    """The turns of a conversation a turn's first read brings along (conversations.resume
    takes them): the last `limit` stored since `since`."""

    conversation_id: str
    limit: int
    since: datetime


def _open(keyring: Keyring, site: Site, ih: bytes, row) -> Space:
    return Space(row.id, site.id, keyring.unwrap(row.wrapped_key, space_key_aad(site.id, ih), row.key_id),
                 row.memory_version)


def find_space(conn: Connection, keyring: Keyring, site: Site, identity: str) -> Space | None:
    ih = _identity_hash(site, identity)
    row = _space_row(conn, site, ih)
    return _open(keyring, site, ih, row) if row is not None else None


def resolve_space(conn: Connection, keyring: Keyring, site: Site, identity: str) -> Space:
    """The customer's space, created on first contact. Safe under concurrent first
    turns: the unique (site, identity_hash) key decides which insert wins; and
    against the purge of idle spaces: see _REFRESH_SEEN_AFTER_SECONDS. Call it in a
    transaction run with db.retrying: a concurrent first turn on another node of a
    cluster (a certification failure at COMMIT) or a deadlock lost here is decided by
    running the whole transaction again."""
    ih = _identity_hash(site, identity)
    return _resolve(conn, keyring, site, ih, _space_row(conn, site, ih))


def resolve_space_with(conn: Connection, keyring: Keyring, site: Site, identity: str,
                       site_columns: tuple[str, ...], turns: TurnsWanted | None = None
                       ) -> tuple[Space, object, list]:
    """resolve_space, with `site_columns` of the site's row read in the same statement
    (a turn's first read: one round trip fewer), and the `turns` wanted of the
    customer's conversation (another one fewer). Returns the space, the row holding
    the site's columns (None each when the site's row has gone) and the turns' rows
    (seq, content_enc; newest first, none for a new space)."""
    ih = _identity_hash(site, identity)
    params = {"site": site.id, "ih": ih}
    if turns is not None:
        params.update(conv=turns.conversation_id, since=turns.since, turns=max(turns.limit, 1))
    rows = conn.execute(_space_and_site_statement(site_columns, turns is not None), params).all()
    first = next((r for r in rows if turns is None or r.seq is None), None)
    row = first if first is not None and first.id is not None else None
    space = _resolve(conn, keyring, site, ih, row)
    # The turns are those of the space read here. A stale one is read again under a lock,
    # and is another space when an erase took it in between: then it holds none of them.
    if turns is None or row is None or space.id != row.id:
        return space, first, []
    return space, first, sorted((r for r in rows if r.seq is not None), key=lambda r: -r.seq)


def _resolve(conn: Connection, keyring: Keyring, site: Site, ih: bytes, row) -> Space:
    if row is not None and not row.stale:
        return _open(keyring, site, ih, row)
    # Locking reads from here: they see rows committed since this transaction began
    # (a concurrent first turn's insert, a purge's delete), which a plain read would not.
    if row is not None:
        row = _space_row(conn, site, ih, lock=True)
        if row is not None:
            conn.execute(_SEEN, {"space": row.id})
            return _open(keyring, site, ih, row)
    # Insert first, then read: the insert waits for a concurrent first turn's insert of
    # the same identity and then only marks the row seen. That takes the row's exclusive
    # lock at once: INSERT IGNORE took a shared one, and two turns holding it both
    # waited to upgrade it for the read (a deadlock in most concurrent first turns).
    ins = mysql_insert(t.spaces).values(site_id=site.id, identity_hash=ih, key_id=keyring.key_id,
                                        wrapped_key=keyring.wrap(new_key(), space_key_aad(site.id, ih)))
    conn.execute(ins.on_duplicate_key_update(last_seen_at=func.now()))
    row = _space_row(conn, site, ih, lock=True)
    if row is None:  # taken away between the two (a purge); a fresh transaction decides
        raise TransactionConflict(f"space of site {site.id} vanished while it was created")
    return _open(keyring, site, ih, row)


def erase_space(conn: Connection, site: Site, identity: str) -> bool:
    """Destroy the space and its key; rows sealed under it cascade away with it."""
    ih = _identity_hash(site, identity)
    result = conn.execute(delete(t.spaces).where(t.spaces.c.site_id == site.id, t.spaces.c.identity_hash == ih))
    return result.rowcount > 0


def space_by_id(conn: Connection, keyring: Keyring, site: Site, space_id: int) -> Space | None:
    row = conn.execute(select(t.spaces.c.identity_hash, t.spaces.c.wrapped_key, t.spaces.c.key_id,
                              t.spaces.c.memory_version)
                       .where(t.spaces.c.site_id == site.id, t.spaces.c.id == space_id)).first()
    if row is None:
        return None
    return Space(space_id, site.id,
                 keyring.unwrap(row.wrapped_key, space_key_aad(site.id, row.identity_hash), row.key_id),
                 row.memory_version)


# Everything that makes a space worth keeping: a row in any of these, of the space.
SPACE_DATA = (t.memories, t.conversations, t.memory_jobs, t.unanswered_askers)


PURGE_BATCH = 500


def purge_idle(conn: Connection, idle_days: int, batch: int = PURGE_BATCH) -> int:
    """Delete spaces that hold nothing and were last seen more than `idle_days` ago,
    at most `batch` of them. One conditional statement: idleness and emptiness are
    checked by the delete itself on the rows it locks. A turn marks a space seen
    (resolve_space, under the same row lock) before it writes anything there, so
    either the turn comes first and the space is no longer idle, or the purge comes
    first and the turn, finding no space, creates a fresh one."""
    s = t.spaces
    stmt = delete(s).where(s.c.last_seen_at < func.now() - literal_column(f"INTERVAL {int(idle_days)} DAY"))
    for table in SPACE_DATA:
        stmt = stmt.where(~select(literal(1)).where(table.c.site_id == s.c.site_id,
                                                    table.c.space_id == s.c.id).exists())
    return conn.execute(stmt.with_dialect_options(mysql_limit=batch)).rowcount
