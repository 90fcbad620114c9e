"""Conversations and their turns, sealed with the customer's space key.

A turn row holds the visitor's message and the reply, sealed together; the row's
identity (site, space, conversation, seq) is the associated data, so a sealed turn
moved to another conversation or space does not open.
"""
from __future__ import annotations

import base64
import json
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import numpy as np

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection

from . import tables as t
from .spaces import Space
from .vectors import dequantize, quantize

_ID = re.compile(r"^[0-9a-f]{32}$")


def new_conversation_id() -> str:
    return secrets.token_hex(16)


def _aad(space: Space, conversation_id: str, seq: int) -> str:
    return f"rtac/turn/{space.site_id}/{space.id}/{conversation_id}/{seq}"


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def find_conversation(conn: Connection, space: Space, conversation_id: str | None) -> str | None:
    """The id when it belongs to this space; anything else starts a new conversation."""
    if not conversation_id or not _ID.match(conversation_id):
        return None
    row = conn.execute(select(t.conversations.c.id).where(
        t.conversations.c.id == conversation_id, t.conversations.c.site_id == space.site_id,
        t.conversations.c.space_id == space.id)).first()
    return row.id if row else None


@dataclass(frozen=True)
class QueryVector:
    """A turn's query embedding, sealed with its turn: the next turn of the conversation
    folds it into its own query (conversation-aware retrieval) without embedding the
    previous message again. Derived from the customer's words, so sealed like them."""

    model: str
    vector: np.ndarray

    def dump(self) -> dict:
        blob, scale = quantize(self.vector)
        return {"model": self.model, "v": base64.b64encode(blob).decode(), "s": scale}

    @classmethod
    def load(cls, data) -> "QueryVector | None":
        try:
            return cls(str(data["model"]), dequantize(base64.b64decode(data["v"]), float(data["s"])))
        except (KeyError, TypeError, ValueError):
            return None


@dataclass(frozen=True)
class PastTurn:
    message: str
    reply: str
    query: QueryVector | None = None


def history(conn: Connection, space: Space, conversation_id: str, limit: int,
            retention_days: int) -> list[tuple[str, str]]:
    """The last `limit` (message, reply) pairs within retention, oldest first."""
    return [(p.message, p.reply) for p in history_turns(conn, space, conversation_id, limit, retention_days)]


def history_turns(conn: Connection, space: Space, conversation_id: str, limit: int,
                  retention_days: int) -> list[PastTurn]:
    """The last `limit` turns within retention, oldest first; at least the last one
    even when `limit` is 0 (retrieval reads the previous message)."""
    limit = max(limit, 1)
    since = utcnow() - timedelta(days=retention_days)
    rows = conn.execute(
        select(t.turns.c.seq, t.turns.c.content_enc)
        .where(t.turns.c.conversation_id == conversation_id, t.turns.c.site_id == space.site_id,
               t.turns.c.space_id == space.id, t.turns.c.created_at >= since)
        .order_by(t.turns.c.seq.desc()).limit(limit)).all()
    turns = []
    for r in reversed(rows):
        data = json.loads(space.open(r.content_enc, _aad(space, conversation_id, r.seq)))
        query = QueryVector.load(data["query"]) if data.get("query") else None
        turns.append(PastTurn(data["message"], data["reply"], query))
    return turns


@dataclass(frozen=True)
class StoredTurn:
    id: int
    conversation_id: str
    seq: int


def append_turn(conn: Connection, space: Space, conversation_id: str, is_new: bool, *, lang: str,
                message: str, reply: str, action: str, unanswered: bool, degraded: bool,
                provider: str, model: str, query: QueryVector | None = None) -> StoredTurn:
    """Call inside the turn's write transaction: the conversation row is locked so
    two concurrent turns of one conversation get consecutive seq numbers."""
    now = utcnow()
    if is_new:
        conn.execute(insert(t.conversations).values(id=conversation_id, site_id=space.site_id,
                                                    space_id=space.id, created_at=now, updated_at=now))
    else:
        conn.execute(select(t.conversations.c.id).where(t.conversations.c.id == conversation_id)
                     .with_for_update())
        conn.execute(update(t.conversations).where(t.conversations.c.id == conversation_id)
                     .values(updated_at=now))
    seq = conn.execute(select(func.coalesce(func.max(t.turns.c.seq), 0))
                       .where(t.turns.c.conversation_id == conversation_id)).scalar_one() + 1
    content = {"message": message, "reply": reply}
    if query is not None:
        content["query"] = query.dump()
    sealed = space.seal(json.dumps(content, ensure_ascii=False).encode(), _aad(space, conversation_id, seq))
    result = conn.execute(insert(t.turns).values(
        site_id=space.site_id, space_id=space.id, conversation_id=conversation_id, seq=seq, lang=lang,
        content_enc=sealed, action=action, unanswered=unanswered, degraded=degraded,
        provider=provider, model=model, created_at=now))
    return StoredTurn(result.inserted_primary_key[0], conversation_id, seq)


def purge_expired(conn: Connection, retention_days: int) -> int:
    """Delete turns past retention, then conversations left empty."""
    cutoff = utcnow() - timedelta(days=retention_days)
    n = conn.execute(delete(t.turns).where(t.turns.c.created_at < cutoff)).rowcount
    conn.execute(delete(t.conversations).where(
        t.conversations.c.updated_at < cutoff,
        ~select(t.turns.c.id).where(t.turns.c.conversation_id == t.conversations.c.id).exists()))
    return n


def customer_messages(conn: Connection, space: Space, conversation_id: str, up_to_seq: int,
                      limit: int) -> list[str]:
    """What the customer said in the last `limit` turns up to `up_to_seq`, oldest
    first: the only text memory extraction is ever shown."""
    rows = conn.execute(
        select(t.turns.c.seq, t.turns.c.content_enc)
        .where(t.turns.c.conversation_id == conversation_id, t.turns.c.site_id == space.site_id,
               t.turns.c.space_id == space.id, t.turns.c.seq <= up_to_seq)
        .order_by(t.turns.c.seq.desc()).limit(limit)).all()
    return [json.loads(space.open(r.content_enc, _aad(space, conversation_id, r.seq)))["message"]
            for r in reversed(rows)]
