"""Conversations and their turns, sealed with the customer's space key.

A turn row holds the visitor's message, the reply and the sources shown to the
model, sealed together; the row's identity (site, space, conversation, seq) is the
associated data, so a sealed turn moved to another conversation or space does not
open. What holds no customer words stays plain: the action, the flags and the
turn's grounding class, which the owner's statistics count.

The conversation row keeps the owner's log summary (language, turn count, flags
OR-ed over its turns), written under the row's lock in the turn's transaction, so
the log lists conversations without opening or scanning a single turn.
"""
from __future__ import annotations

import base64
import json
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

import numpy as np

from sqlalchemy import and_, bindparam, delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from . import tables as t
from .clock import iso, utcnow
from .crypto import Keyring
from .db import TransactionConflict, is_duplicate
from .langs import normalize_lang
from .sites import Site
from .spaces import Space, space_by_id
from .vectors import dequantize, quantize

_ID = re.compile(r"^[0-9a-f]{32}$")

# own: documents in the visitor's language were shown; other: only another
# language's; none: nothing but the pinned entries.
GROUNDINGS = ("own", "other", "none")
# The log's flag filters, by the name the API takes.
LOG_FLAGS = {"unanswered": "unanswered", "degraded": "degraded", "lead": "lead_captured", "forgot": "forgot"}


def is_conversation_id(value: str) -> bool:
    return bool(_ID.match(value or ""))


def new_conversation_id() -> str:
    return secrets.token_hex(16)


def _aad(space: Space, conversation_id: str, seq: int) -> str:
    return f"rtac/turn/{space.site_id}/{space.id}/{conversation_id}/{seq}"


# The statements of every turn are built once: constructing one costs about as much
# as its round trip to a local server.
_C = t.conversations.c
_FIND = select(_C.id).where(_C.id == bindparam("conv"), _C.site_id == bindparam("site"),
                            _C.space_id == bindparam("space"))
_INSERT_CONVERSATION = insert(t.conversations)
_INSERT_TURN = insert(t.turns)
# The highest seq stored for the conversation, read by the statement that takes the
# next one. Correlated with the row updated, so it runs once that row is locked: a
# subquery of constants would run first, and its shared locks on the conversation's
# turns deadlock with the turn holding the row, which inserts among them.
_STORED_SEQ = (select(func.coalesce(func.max(t.turns.c.seq), 0))
               .where(t.turns.c.conversation_id == _C.id).correlate(t.conversations).scalar_subquery())


@lru_cache(maxsize=None)
def _continue_statement(flags: frozenset[str]):
    """The conversation's summary updated by a turn that sets `flags`."""
    return (update(t.conversations)
            .where(_C.id == bindparam("conv"), _C.site_id == bindparam("site"), _C.space_id == bindparam("space"))
            .values(updated_at=bindparam("now"), turn_count=_C.turn_count + 1,
                    # The seq of the turn being stored, returned as the statement's insert id
                    # (LAST_INSERT_ID(expr)): one past the counter, or past the conversation's
                    # last stored turn when that is further (a counter behind the turns must
                    # not hand out a seq that is taken). The conversation row is locked by this
                    # update, so the row read is the latest, whatever the transaction read before.
                    last_seq=func.last_insert_id(func.greatest(_C.last_seq, _STORED_SEQ) + 1),
                    **{k: True for k in sorted(flags)}))


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


def resume(conn: Connection, space: Space, conversation_id: str | None,
           rows: list) -> tuple[str | None, list[PastTurn]]:
    """The conversation's id when it belongs to this space (anything else starts a new
    conversation: None), with its last turns opened. `rows`: those turns of the space's
    within retention (seq, content_enc), as spaces.resolve_space_with reads them with the
    space; one of them says the conversation is there, so only an id without any is
    looked up."""
    if not is_conversation_id(conversation_id or ""):
        return None, []
    if rows:
        return conversation_id, _opened(space, conversation_id, rows)
    found = conn.execute(_FIND, {"conv": conversation_id, "site": space.site_id, "space": space.id}).first()
    return (conversation_id if found else None), []


def history_since(retention_days: int) -> datetime:
    """The oldest a turn shown as history may be."""
    return utcnow() - timedelta(days=retention_days)


def _opened(space: Space, conversation_id: str, rows) -> list[PastTurn]:
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


def seal_content(space: Space, conversation_id: str, seq: int, content: dict) -> bytes:
    """A turn's sealed content: the JSON of what it holds, bound to the turn's identity."""
    return space.seal(json.dumps(content, ensure_ascii=False).encode(), _aad(space, conversation_id, seq))


def grounding_class(lang: str, retrieved_langs: Iterable[str]) -> str:
    """Which pages a turn's answer could rest on: `own` when a document in the visitor's
    language was shown to the model, `other` when only another language's, `none`
    when nothing but the pinned entries. `retrieved_langs`: the languages of the
    retrieved entries the model was shown (after the budget), not of every candidate."""
    shown = {_primary(x) for x in retrieved_langs if x}
    if not shown:
        return "none"
    return "own" if _primary(lang) in shown else "other"


def _primary(lang: str) -> str:
    return normalize_lang(lang) or lang.strip().lower()


def _sources(sources: Iterable[Mapping]) -> list[dict]:
    return [{"title": str(s.get("title") or ""), "url": str(s.get("url") or "")} for s in sources]


def append_turn(conn: Connection, space: Space, conversation_id: str, is_new: bool, *, lang: str,
                message: str, reply: str, action: str, unanswered: bool, degraded: bool,
                provider: str, model: str, query: QueryVector | None = None,
                sources: Sequence[Mapping] = (), lead_captured: bool = False, forgot: bool = False,
                grounding: str | None = None) -> StoredTurn:
    """Call inside the turn's write transaction, run with db.retrying. The conversation
    row is locked by its update, so concurrent turns of one conversation get
    consecutive seq numbers (the row's last_seq) and each adds its count and flags to
    the summary. That lock is one node's: two nodes of a cluster may hand out the same
    seq, and the loser's transaction fails (a certification failure at COMMIT, or the
    unique (conversation, seq) key here) and runs again with a fresh one.
    `sources`: the documents shown to the model ({title, url}), sealed with the turn;
    `lead_captured`: the visitor had left contacts; `forgot`: memories were forgotten
    this turn; `grounding`: grounding_class() of the turn, None when unknown."""
    if grounding is not None and grounding not in GROUNDINGS:
        raise ValueError(f"grounding must be one of {', '.join(GROUNDINGS)} or None, got {grounding!r}")
    now = utcnow()
    flags = {"unanswered": bool(unanswered), "degraded": bool(degraded), "lead_captured": bool(lead_captured),
             "forgot": bool(forgot)}
    if not is_new:
        updated = conn.execute(_continue_statement(frozenset(k for k, v in flags.items() if v)),
                               {"conv": conversation_id, "site": space.site_id, "space": space.id, "now": now})
        # Matched rows (FOUND_ROWS): none when maintenance removed the expired
        # conversation since it was found; the turn then starts it again.
        is_new = updated.rowcount == 0
        if not is_new:
            seq = int(updated.lastrowid)
    if is_new:
        conn.execute(_INSERT_CONVERSATION, dict(id=conversation_id, site_id=space.site_id, space_id=space.id,
                                                created_at=now, updated_at=now, lang=lang, turn_count=1,
                                                last_seq=1, **flags))
        seq = 1
    content = {"message": message, "reply": reply}
    if query is not None:
        content["query"] = query.dump()
    if sources:
        content["sources"] = _sources(sources)
    sealed = seal_content(space, conversation_id, seq, content)
    try:
        result = conn.execute(_INSERT_TURN, dict(
            site_id=space.site_id, space_id=space.id, conversation_id=conversation_id, seq=seq, lang=lang,
            content_enc=sealed, action=action, provider=provider, model=model, created_at=now, grounding=grounding,
            **flags))
    except IntegrityError as exc:
        if not is_duplicate(exc):
            raise
        # Another turn of the conversation took this seq (on another node of a cluster):
        # the transaction runs again whole and allocates past it.
        raise TransactionConflict(f"turn {seq} of a conversation was stored concurrently") from exc
    return StoredTurn(result.inserted_primary_key[0], conversation_id, seq)


def purge_expired(conn: Connection, retention_days: int) -> int:
    """Delete turns past retention, then conversations left empty. A conversation
    that keeps some turns gets its summary recounted from them first."""
    cutoff = utcnow() - timedelta(days=retention_days)
    partly = conn.execute(
        select(t.turns.c.conversation_id).distinct()
        .join(t.conversations, t.conversations.c.id == t.turns.c.conversation_id)
        .where(t.turns.c.created_at < cutoff, t.conversations.c.updated_at >= cutoff)).scalars().all()
    for conversation_id in sorted(partly):
        _recount(conn, conversation_id, cutoff)
    # By primary key, in batches, from a plain (non-locking) read: a range delete over the
    # whole table would lock every turn it scans and deadlock with a concurrent purge.
    n = _delete_by_id(conn, t.turns, t.turns.c.created_at < cutoff)
    _delete_by_id(conn, t.conversations, t.conversations.c.updated_at < cutoff,
                  ~select(t.turns.c.id).where(t.turns.c.conversation_id == t.conversations.c.id).exists())
    return n


def _delete_by_id(conn: Connection, table, *where, batch: int = 500) -> int:
    deleted = 0
    while True:
        ids = conn.execute(select(table.c.id).where(*where).limit(batch)).scalars().all()
        if not ids:
            return deleted
        gone = conn.execute(delete(table).where(table.c.id.in_(ids), *where)).rowcount
        deleted += gone
        if len(ids) < batch or not gone:  # not gone: changed since this snapshot; next purge decides
            return deleted


def _recount(conn: Connection, conversation_id: str, cutoff: datetime) -> None:
    """The summary from the turns kept. The conversation row is locked first, as a
    turn locks it, and the turns are read as committed, not as first seen."""
    c, tc = t.conversations.c, t.turns.c
    if conn.execute(select(c.id).where(c.id == conversation_id).with_for_update()).first() is None:
        return
    kept = conn.execute(
        select(func.count().label("n"),
               *[func.coalesce(func.max(tc[f]), 0).label(f) for f in LOG_FLAGS.values()])
        .where(tc.conversation_id == conversation_id, tc.created_at >= cutoff).with_for_update(read=True)).one()
    if not kept.n:
        return  # nothing kept: the conversation goes with its turns
    conn.execute(update(t.conversations).where(c.id == conversation_id).values(
        turn_count=kept.n, **{f: bool(getattr(kept, f)) for f in LOG_FLAGS.values()}))


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


# --- the owner's log -------------------------------------------------------------------------

@dataclass(frozen=True)
class LogPosition:
    """A conversation's place in the log: newest start first, then id. A start never
    changes, so pages cut at a position neither repeat nor skip a conversation while
    turns are added or conversations started."""

    started_at: datetime
    id: str


def list_conversations(conn: Connection, site_id: str, retention_days: int, *, limit: int,
                       before: LogPosition | None = None, lang: str | None = None,
                       flags: Sequence[str] = ()) -> tuple[list[dict], LogPosition | None]:
    """One page of the site's conversations within retention, newest first, and the
    position to continue from (None on the last page). `flags`: LOG_FLAGS names, all
    of which must hold."""
    c = t.conversations.c
    # The page's ids from the log index alone (every condition is on its columns),
    # then those rows: a filter on a column outside the index would make the server
    # walk the site's conversations from the newest, however deep the page.
    page = select(c.id).where(c.site_id == site_id, c.updated_at >= utcnow() - timedelta(days=retention_days))
    if lang:
        page = page.where(c.lang == lang)
    for name in flags:
        page = page.where(c[LOG_FLAGS[name]].is_(True))
    if before is not None:
        page = page.where(or_(c.created_at < before.started_at,
                              and_(c.created_at == before.started_at, c.id < before.id)))
    page = page.order_by(c.created_at.desc(), c.id.desc()).limit(limit + 1).subquery("page")
    rows = conn.execute(
        select(c.id, c.lang, c.created_at, c.updated_at, c.turn_count, c.degraded, c.unanswered,
               c.lead_captured, c.forgot)
        .join_from(t.conversations, page, page.c.id == c.id)
        .order_by(c.created_at.desc(), c.id.desc())).all()
    items = [{"id": r.id, "lang": r.lang, "started_at": iso(r.created_at), "last_at": iso(r.updated_at),
              "turns": int(r.turn_count), "degraded": bool(r.degraded), "unanswered": bool(r.unanswered),
              "lead_captured": bool(r.lead_captured), "forgot": bool(r.forgot)} for r in rows[:limit]]
    last = rows[limit - 1] if len(rows) > limit else None
    return items, (LogPosition(last.created_at, last.id) if last is not None else None)


def read_conversation(conn: Connection, keyring: Keyring, site: Site, conversation_id: str,
                      retention_days: int) -> dict | None:
    """The conversation's turns within retention, opened with its space key; None when
    it is not this site's, is erased or expired."""
    if not is_conversation_id(conversation_id):
        return None
    since = utcnow() - timedelta(days=retention_days)
    c, tc = t.conversations.c, t.turns.c
    conv = conn.execute(select(c.space_id, c.lang).where(
        c.id == conversation_id, c.site_id == site.id, c.updated_at >= since)).first()
    space = space_by_id(conn, keyring, site, conv.space_id) if conv else None
    if space is None:
        return None
    rows = conn.execute(
        select(tc.seq, tc.created_at, tc.content_enc, tc.action, tc.unanswered, tc.degraded)
        .where(tc.conversation_id == conversation_id, tc.site_id == site.id, tc.space_id == space.id,
               tc.created_at >= since)
        .order_by(tc.seq)).all()
    if not rows:
        return None
    turns = []
    for r in rows:
        data = json.loads(space.open(r.content_enc, _aad(space, conversation_id, r.seq)))
        turns.append({"seq": r.seq, "at": iso(r.created_at), "message": data["message"], "reply": data["reply"],
                      "action": r.action, "unanswered": bool(r.unanswered), "degraded": bool(r.degraded),
                      "sources": _sources(data.get("sources", ()))})
    return {"id": conversation_id, "lang": conv.lang, "turns": turns}


def language_grounding(conn: Connection, site_id: str, retention_days: int) -> dict[str, dict]:
    """Per visitor language, the turns within retention by what their answer could rest
    on (see grounding_class): where `other` or `none` is large, the site lacks pages in
    that language. `unrecorded`: turns stored before grounding was recorded."""
    tc = t.turns.c
    rows = conn.execute(
        select(tc.lang, tc.grounding, func.count().label("n"), func.sum(tc.unanswered).label("unanswered"))
        .where(tc.site_id == site_id, tc.created_at >= utcnow() - timedelta(days=retention_days))
        .group_by(tc.lang, tc.grounding)).all()
    out: dict[str, dict] = {}
    for r in rows:
        entry = out.setdefault(r.lang, {"turns": 0, **{g: 0 for g in GROUNDINGS}, "unrecorded": 0,
                                        "unanswered": 0})
        entry["turns"] += r.n
        entry[r.grounding if r.grounding in GROUNDINGS else "unrecorded"] += r.n
        entry["unanswered"] += int(r.unanswered or 0)
    return dict(sorted(out.items(), key=lambda kv: (-kv[1]["turns"], kv[0])))
