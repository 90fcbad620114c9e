"""The one module that reads and writes memory rows. It cannot be built without a
space, and every statement it runs is bound to that space's (site, space) pair; the
schema's composite foreign key makes the same guarantee in the database.

Content, topic name and embedding are sealed with the space key, bound to the
row's random uid, so a row copied into another space — or its embedding pasted
onto another row — does not open.
"""
from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection

from .. import tables as t
from ..clock import utcnow
from ..crypto import keyed_hash
from ..spaces import Space

KINDS = ("fact", "topic")
_M = t.memories.c


@dataclass
class StoredMemory:
    id: int
    uid: bytes
    kind: str
    content: str
    topic: str | None
    importance: int
    embedding: np.ndarray | None
    embed_model: str
    conversation_id: str | None
    turn_seq: int | None
    created_at: datetime
    updated_at: datetime


@dataclass
class MemoryIndex:
    """A space's embeddings of one model, opened: what a turn's recall scans."""

    ids: list[int]
    importance: list[int]
    matrix: np.ndarray  # (n, dim), unit rows


def normalize_topic(name: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split()).strip(" .,!?;:")


class MemoryStore:
    def __init__(self, conn: Connection, space: Space):
        if not isinstance(space, Space):
            raise TypeError("MemoryStore needs the customer's Space")
        self.conn, self.space = conn, space

    # --- sealing ------------------------------------------------------------------

    def _aad(self, uid: bytes, field: str) -> str:
        return f"rtac/memory/{self.space.site_id}/{self.space.id}/{uid.hex()}/{field}"

    def _seal(self, uid: bytes, field: str, data: bytes) -> bytes:
        return self.space.seal(data, self._aad(uid, field))

    def _open(self, uid: bytes, field: str, blob: bytes) -> bytes:
        return self.space.open(blob, self._aad(uid, field))

    def topic_hash(self, topic: str) -> bytes:
        return keyed_hash(self.space.key, "topic", normalize_topic(topic))

    def _scope(self):
        return (_M.site_id == self.space.site_id, _M.space_id == self.space.id)

    def _changed(self) -> None:
        """Every write bumps the space's memory version in the same transaction, so a
        cached index of this space is known stale by whoever reads the space next."""
        self.conn.execute(update(t.spaces).where(t.spaces.c.id == self.space.id)
                          .values(memory_version=t.spaces.c.memory_version + 1))

    def _row(self, r, with_embedding: bool) -> StoredMemory:
        uid = r.uid
        embedding = None
        if with_embedding:
            embedding = np.frombuffer(self._open(uid, "embedding", r.embedding_enc), dtype=np.float32)
        return StoredMemory(
            id=r.id, uid=uid, kind=r.kind, content=self._open(uid, "content", r.content_enc).decode(),
            topic=self._open(uid, "topic", r.topic_enc).decode() if r.topic_enc is not None else None,
            importance=r.importance, embedding=embedding, embed_model=r.embed_model,
            conversation_id=r.conversation_id, turn_seq=r.turn_seq, created_at=r.created_at,
            updated_at=r.updated_at)

    # --- reads --------------------------------------------------------------------

    def all(self, *, kind: str | None = None, with_embeddings: bool = True) -> list[StoredMemory]:
        cols = [_M.id, _M.uid, _M.kind, _M.content_enc, _M.topic_enc, _M.importance, _M.embed_model,
                _M.conversation_id, _M.turn_seq, _M.created_at, _M.updated_at]
        if with_embeddings:
            cols.append(_M.embedding_enc)
        q = select(*cols).where(*self._scope())
        if kind:
            q = q.where(_M.kind == kind)
        return [self._row(r, with_embeddings) for r in self.conn.execute(q.order_by(_M.id))]

    def index(self, embed_model: str) -> MemoryIndex:
        rows = self.conn.execute(select(_M.id, _M.uid, _M.importance, _M.embedding_enc)
                                 .where(*self._scope(), _M.embed_model == embed_model).order_by(_M.id)).all()
        if not rows:
            return MemoryIndex([], [], np.zeros((0, 0), dtype=np.float32))
        matrix = np.vstack([np.frombuffer(self._open(r.uid, "embedding", r.embedding_enc), dtype=np.float32)
                            for r in rows])
        return MemoryIndex([r.id for r in rows], [r.importance for r in rows], matrix)

    def get(self, ids: list[int]) -> list[StoredMemory]:
        """These memories of this space, opened without their embeddings."""
        if not ids:
            return []
        cols = [_M.id, _M.uid, _M.kind, _M.content_enc, _M.topic_enc, _M.importance, _M.embed_model,
                _M.conversation_id, _M.turn_seq, _M.created_at, _M.updated_at]
        return [self._row(r, False) for r in self.conn.execute(select(*cols).where(*self._scope(), _M.id.in_(ids)))]

    def count(self) -> int:
        return self.conn.execute(select(func.count()).select_from(t.memories).where(*self._scope())).scalar_one()

    def find_topic(self, topic: str) -> StoredMemory | None:
        row = self.conn.execute(select(t.memories).where(
            *self._scope(), _M.kind == "topic", _M.topic_hash == self.topic_hash(topic))).first()
        return self._row(row, with_embedding=True) if row else None

    # --- writes -------------------------------------------------------------------

    def insert(self, *, kind: str, content: str, topic: str | None, importance: int, embedding: np.ndarray,
               embed_model: str, conversation_id: str | None, turn_seq: int | None) -> StoredMemory:
        assert kind in KINDS
        uid = os.urandom(16)
        now = utcnow()
        new_id = self.conn.execute(insert(t.memories).values(
            site_id=self.space.site_id, space_id=self.space.id, uid=uid, kind=kind,
            topic_hash=self.topic_hash(topic) if kind == "topic" and topic else None,
            content_enc=self._seal(uid, "content", content.encode()),
            topic_enc=self._seal(uid, "topic", topic.encode()) if topic else None,
            embedding_enc=self._seal(uid, "embedding", np.asarray(embedding, dtype=np.float32).tobytes()),
            embed_model=embed_model, importance=importance, conversation_id=conversation_id,
            turn_seq=turn_seq, created_at=now, updated_at=now)).inserted_primary_key[0]
        self._changed()
        return StoredMemory(new_id, uid, kind, content, topic, importance, np.asarray(embedding, dtype=np.float32),
                      embed_model, conversation_id, turn_seq, now, now)

    def replace(self, memory: StoredMemory, *, content: str, importance: int, embedding: np.ndarray, embed_model: str,
                conversation_id: str | None, turn_seq: int | None) -> None:
        """Update in place: content and embedding replaced, importance raised to the
        max of both, re-pointed to the latest session and message."""
        self.conn.execute(update(t.memories).where(*self._scope(), _M.id == memory.id).values(
            content_enc=self._seal(memory.uid, "content", content.encode()),
            embedding_enc=self._seal(memory.uid, "embedding", np.asarray(embedding, dtype=np.float32).tobytes()),
            embed_model=embed_model, importance=max(importance, memory.importance),
            conversation_id=conversation_id, turn_seq=turn_seq, updated_at=utcnow()))
        self._changed()

    def set_embedding(self, memory: StoredMemory, embedding: np.ndarray, embed_model: str) -> None:
        self.conn.execute(update(t.memories).where(*self._scope(), _M.id == memory.id).values(
            embedding_enc=self._seal(memory.uid, "embedding", np.asarray(embedding, dtype=np.float32).tobytes()),
            embed_model=embed_model))
        self._changed()

    def delete(self, ids: list[int]) -> int:
        """Permanent: no archive, no history row, no soft delete."""
        if not ids:
            return 0
        n = self.conn.execute(delete(t.memories).where(*self._scope(), _M.id.in_(ids))).rowcount
        if n:
            self._changed()
        return n

    def evict_over(self, cap: int) -> int:
        """Keep at most `cap` memories: the least important go first, and among equals
        the ones not restated for longest (updated_at), so what the customer keeps
        coming back to stays."""
        excess = self.count() - cap
        if excess <= 0:
            return 0
        victims = self.conn.execute(select(_M.id).where(*self._scope())
                                    .order_by(_M.importance, _M.updated_at, _M.id).limit(excess)).scalars().all()
        return self.delete(list(victims))
