"""The site's indexed content: upsert by (site, source, source_id), delete.

A batch is written in one transaction, so a failing document leaves no partial
write, and committed before anyone searches (FULLTEXT sees committed rows only).
An unchanged document (same content hash) keeps its chunks untouched.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection

from . import tables as t
from .chunking import chunk_text
from .conversations import utcnow
from .htmltext import html_to_text
from .searchtext import index_text


@dataclass(frozen=True)
class DocumentInput:
    source: str
    source_id: str
    lang: str
    title: str
    url: str
    content: str
    modified: datetime | None = None


def _hash(doc: DocumentInput, text: str) -> bytes:
    h = hashlib.sha256()
    for part in (doc.lang, doc.title, doc.url, text):
        h.update(part.encode("utf-8"))
        h.update(b"\x00")
    return h.digest()


def upsert(conn: Connection, site_id: str, docs: list[DocumentInput]) -> dict:
    upserted = chunks_written = 0
    for doc in docs:
        text = html_to_text(doc.content)
        # WordPress titles carry entities and inline markup too ("Media &amp; Text").
        doc = replace(doc, title=" ".join(html_to_text(doc.title).split()))
        digest = _hash(doc, text)
        existing = conn.execute(
            select(t.documents.c.id, t.documents.c.content_hash).where(
                t.documents.c.site_id == site_id, t.documents.c.source == doc.source,
                t.documents.c.source_id == doc.source_id).with_for_update()).first()
        values = dict(lang=doc.lang, title=doc.title[:512], url=doc.url[:2048], modified=doc.modified,
                      content_hash=digest, updated_at=utcnow())
        if existing is not None and existing.content_hash == digest:
            upserted += 1
            chunks_written += conn.execute(select(func.count()).select_from(t.chunks).where(
                t.chunks.c.document_id == existing.id)).scalar_one()
            continue
        if existing is None:
            doc_id = conn.execute(insert(t.documents).values(
                site_id=site_id, source=doc.source, source_id=doc.source_id, **values)).inserted_primary_key[0]
        else:
            doc_id = existing.id
            conn.execute(update(t.documents).where(t.documents.c.id == doc_id).values(**values))
            conn.execute(delete(t.chunks).where(t.chunks.c.document_id == doc_id))
        pieces = chunk_text(doc.title, text)
        if pieces:
            conn.execute(insert(t.chunks), [
                dict(site_id=site_id, document_id=doc_id, lang=doc.lang, seq=i, content=piece,
                     search_text=index_text(f"{doc.title}\n{piece}", doc.lang))
                for i, piece in enumerate(pieces)])
        upserted += 1
        chunks_written += len(pieces)
    return {"upserted": upserted, "chunks": chunks_written}


def remove(conn: Connection, site_id: str, source: str, source_id: str) -> int:
    result = conn.execute(delete(t.documents).where(
        t.documents.c.site_id == site_id, t.documents.c.source == source,
        t.documents.c.source_id == source_id))
    return result.rowcount
