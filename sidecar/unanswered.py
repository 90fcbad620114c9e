"""Questions the site could not answer, grouped and counted, sealed with the site key.

Identical questions (after case, whitespace and end punctuation are normalised)
share one row: the group key is a keyed hash, since the text itself is encrypted.
A question asked again after it was resolved reopens: the fix did not take.

Each asking by a known customer is recorded with the customer's space (no text:
the question is sealed once, on the question's row), so a customer's export lists
what they asked and erasing them takes their askings away. Askings recorded
without a space (and every asking from before askers were recorded) stand for
other customers: no erasure removes them.
"""
from __future__ import annotations

import re

from sqlalchemy import case, delete, func, insert, select, update
from sqlalchemy.dialects.mysql import insert as mysql_insert
from sqlalchemy.engine import Connection

from . import tables as t
from .clock import iso, utcnow
from .crypto import keyed_hash, open_sealed, seal
from .sites import Site
from .spaces import Space

STATUSES = ("open", "resolved", "dismissed")
_TRAILING = re.compile(r"[\s?!.。？！…]+$")

_U = t.unanswered.c


def _upsert(**values):
    """One asking counted in: a new row, or the question's row grouped. LAST_INSERT_ID(id)
    makes the statement report the row's id either way."""
    new = mysql_insert(t.unanswered).values(count=1, status="open", **values)
    return new.on_duplicate_key_update(
        id=func.last_insert_id(_U.id), count=_U.count + 1, last_asked=new.inserted.last_asked,
        page_url=new.inserted.page_url, status=case((_U.status == "resolved", "open"), else_=_U.status))


def normalize_question(question: str) -> str:
    return _TRAILING.sub("", " ".join(question.casefold().split()))


def _aad(site_id: str, question_hash: bytes) -> str:
    return f"rtac/unanswered/{site_id}/{question_hash.hex()}"


def record(conn: Connection, site: Site, question: str, lang: str, page_url: str, *,
           space: Space | None = None) -> None:
    """Count one asking of `question`; `space`: the customer who asked (their export
    lists it, their erasure takes it away)."""
    if space is not None and space.site_id != site.id:
        raise ValueError("the space belongs to another site")
    h = keyed_hash(site.key, "unanswered", normalize_question(question))
    now = utcnow()
    result = conn.execute(_upsert(site_id=site.id, question_hash=h,
                                  question_enc=seal(site.key, question.strip().encode(), _aad(site.id, h)),
                                  lang=lang, page_url=page_url[:2048], first_asked=now, last_asked=now))
    if space is not None:
        conn.execute(insert(t.unanswered_askers).values(site_id=site.id, unanswered_id=result.lastrowid,
                                                        space_id=space.id, lang=lang, asked_at=now))


def asked_by(conn: Connection, site: Site, space: Space) -> list[dict]:
    """The unanswered questions this customer asked, one entry per asking, oldest first."""
    a, u = t.unanswered_askers.c, t.unanswered.c
    rows = conn.execute(
        select(a.asked_at, a.lang, u.question_enc, u.question_hash)
        .join(t.unanswered, (u.site_id == a.site_id) & (u.id == a.unanswered_id))
        .where(a.site_id == site.id, a.space_id == space.id)
        .order_by(a.asked_at, a.id)).all()
    return [{"question": open_sealed(site.key, r.question_enc, _aad(site.id, r.question_hash)).decode(),
             "lang": r.lang, "asked_at": iso(r.asked_at)} for r in rows]


def forget_asker(conn: Connection, site: Site, space: Space) -> int:
    """Take this customer's askings away: a question nobody else asked goes, one that
    others asked too loses this customer's count. Returns the askings removed."""
    a, u = t.unanswered_askers.c, t.unanswered.c
    mine = select(a.unanswered_id).where(a.site_id == site.id, a.space_id == space.id)
    # Questions locked before their askers are counted, in the order record() takes
    # them, so a concurrent asking of the same question is either counted here or waits.
    questions = conn.execute(select(u.id, u.count).where(u.site_id == site.id, u.id.in_(mine))
                             .with_for_update()).all()
    if not questions:
        return 0
    askings = dict(conn.execute(select(a.unanswered_id, func.count()).where(a.site_id == site.id,
                                                                         a.space_id == space.id)
                                .group_by(a.unanswered_id).with_for_update()).all())
    gone = [q.id for q in questions if q.count <= askings.get(q.id, 0)]
    for q in questions:
        if q.id not in gone and askings.get(q.id):
            conn.execute(update(t.unanswered).where(t.unanswered.c.id == q.id)
                         .values(count=t.unanswered.c.count - askings[q.id]))
    if gone:  # their askers rows go with them (foreign key)
        conn.execute(delete(t.unanswered).where(t.unanswered.c.site_id == site.id, t.unanswered.c.id.in_(gone)))
    conn.execute(delete(t.unanswered_askers).where(a.site_id == site.id, a.space_id == space.id))
    return sum(askings.values())


def list_questions(conn: Connection, site: Site, status: str | None, limit: int = 500,
                   lang: str | None = None) -> list[dict]:
    q = select(t.unanswered).where(t.unanswered.c.site_id == site.id)
    if status:
        q = q.where(t.unanswered.c.status == status)
    if lang:
        q = q.where(t.unanswered.c.lang == lang)
    q = q.order_by(t.unanswered.c.count.desc(), t.unanswered.c.last_asked.desc()).limit(limit)
    items = []
    for r in conn.execute(q).mappings():
        question = open_sealed(site.key, r["question_enc"], _aad(site.id, r["question_hash"])).decode()
        items.append({"id": r["id"], "question": question, "lang": r["lang"], "page_url": r["page_url"],
                      "count": r["count"], "first_asked": iso(r["first_asked"]),
                      "last_asked": iso(r["last_asked"]), "status": r["status"]})
    return items


def set_status(conn: Connection, site: Site, question_id: int, status: str) -> bool:
    result = conn.execute(update(t.unanswered)
                          .where(t.unanswered.c.id == question_id, t.unanswered.c.site_id == site.id)
                          .values(status=status))
    return result.rowcount > 0  # matched rows: SQLAlchemy's MySQL dialects set CLIENT.FOUND_ROWS


def open_count(conn: Connection, site_id: str) -> int:
    return conn.execute(select(func.count()).select_from(t.unanswered).where(
        t.unanswered.c.site_id == site_id, t.unanswered.c.status == "open")).scalar_one()
