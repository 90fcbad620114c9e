"""Questions the site could not answer, grouped and counted, sealed with the site key.

Identical questions (after case, whitespace and end punctuation are normalised)
share one row: the group key is a keyed hash, since the text itself is encrypted.
A question asked again after it was resolved reopens: the fix did not take.
"""
from __future__ import annotations

import re

from sqlalchemy import func, select, text, update
from sqlalchemy.engine import Connection

from . import tables as t
from .conversations import utcnow
from .crypto import keyed_hash, open_sealed, seal
from .sites import Site

STATUSES = ("open", "resolved", "dismissed")
_TRAILING = re.compile(r"[\s?!.。？！…]+$")

_UPSERT = text(
    "INSERT INTO rtac_unanswered (site_id, question_hash, question_enc, lang, page_url, count,"
    " first_asked, last_asked, status) VALUES (:site, :hash, :enc, :lang, :url, 1, :now, :now, 'open')"
    " ON DUPLICATE KEY UPDATE count = count + 1, last_asked = VALUES(last_asked),"
    " page_url = VALUES(page_url), status = IF(status = 'resolved', 'open', status)"
)


def normalize_question(question: str) -> str:
    return _TRAILING.sub("", " ".join(question.casefold().split()))


def _aad(site_id: str, question_hash: bytes) -> str:
    return f"rtac/unanswered/{site_id}/{question_hash.hex()}"


def record(conn: Connection, site: Site, question: str, lang: str, page_url: str) -> None:
    h = keyed_hash(site.key, "unanswered", normalize_question(question))
    conn.execute(_UPSERT, {"site": site.id, "hash": h, "enc": seal(site.key, question.strip().encode(), _aad(site.id, h)),
                           "lang": lang, "url": page_url[:2048], "now": utcnow()})


def _iso(dt) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def list_questions(conn: Connection, site: Site, status: str | None, limit: int = 500) -> list[dict]:
    q = select(t.unanswered).where(t.unanswered.c.site_id == site.id)
    if status:
        q = q.where(t.unanswered.c.status == status)
    q = q.order_by(t.unanswered.c.count.desc(), t.unanswered.c.last_asked.desc()).limit(limit)
    items = []
    for r in conn.execute(q).mappings():
        question = open_sealed(site.key, r["question_enc"], _aad(site.id, r["question_hash"])).decode()
        items.append({"id": r["id"], "question": question, "lang": r["lang"], "page_url": r["page_url"],
                      "count": r["count"], "first_asked": _iso(r["first_asked"]),
                      "last_asked": _iso(r["last_asked"]), "status": r["status"]})
    return items


def set_status(conn: Connection, site: Site, question_id: int, status: str) -> bool:
    result = conn.execute(update(t.unanswered)
                          .where(t.unanswered.c.id == question_id, t.unanswered.c.site_id == site.id)
                          .values(status=status))
    return result.rowcount > 0  # matched rows: SQLAlchemy's MySQL dialects set CLIENT.FOUND_ROWS


def open_count(conn: Connection, site_id: str) -> int:
    return conn.execute(select(func.count()).select_from(t.unanswered).where(
        t.unanswered.c.site_id == site_id, t.unanswered.c.status == "open")).scalar_one()
