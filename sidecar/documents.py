"""The site's indexed content: upsert by (site, source, source_id), delete.

A batch is written in one transaction, so a failing document leaves no partial
write, and committed before anyone searches (FULLTEXT sees committed rows only).
An unchanged document (same content hash) keeps its chunks untouched.

The same transaction keeps the site's term statistics in step (lexicon), copies the
new chunks' search text into the site's FULLTEXT table (fulltext; a deleted chunk's
row goes with it by its foreign key) and queues each new chunk's embedding
(embedding_queue): the text is searchable by FULLTEXT the moment it commits, and by
meaning once a worker has embedded it. The site's FULLTEXT table is made sure of
before the transaction writes anything: creating one commits implicitly.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection

from . import embedding_queue, fulltext, lexicon
from . import tables as t
from .chunking import chunk_text
from .clock import utcnow
from .htmltext import html_to_text
from .searchtext import VERSION as SEARCH_VERSION
from .searchtext import index_text
from .vectors import bump_content_version


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
    ft = fulltext.writable(conn, site_id)
    upserted = chunks_written = 0
    written: list[int] = []  # documents given new chunks
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
            _drop_chunks(conn, site_id, doc_id)
        pieces = chunk_text(doc.title, text)
        if pieces:
            rows = [chunk_row(site_id, doc_id, doc.lang, i, doc.title, piece) for i, piece in enumerate(pieces)]
            conn.execute(insert(t.chunks), rows)
            written.append(doc_id)
            lexicon.add(conn, site_id, (r["search_text"] for r in rows))
            embedding_queue.enqueue_document(conn, site_id, doc_id)
        bump_content_version(conn, site_id)
        upserted += 1
        chunks_written += len(pieces)
    fulltext.copy_documents(conn, ft, site_id, written)
    return {"upserted": upserted, "chunks": chunks_written}


def chunk_row(site_id: str, doc_id: int, lang: str, seq: int, title: str, piece: str) -> dict:
    search_text = index_text(f"{title}\n{piece}", lang)
    return dict(site_id=site_id, document_id=doc_id, lang=lang, seq=seq, content=piece, search_text=search_text,
                term_count=lexicon.term_count(search_text), search_version=SEARCH_VERSION)


def _drop_chunks(conn: Connection, site_id: str, doc_id: int) -> None:
    # Their rows in the site's FULLTEXT table go with them (ON DELETE CASCADE).
    old = conn.execute(select(t.chunks.c.search_text).where(
        t.chunks.c.site_id == site_id, t.chunks.c.document_id == doc_id).with_for_update()).scalars().all()
    lexicon.remove(conn, site_id, old)
    conn.execute(delete(t.chunks).where(t.chunks.c.site_id == site_id, t.chunks.c.document_id == doc_id))


def remove(conn: Connection, site_id: str, source: str, source_id: str) -> int:
    doc_id = conn.execute(select(t.documents.c.id).where(
        t.documents.c.site_id == site_id, t.documents.c.source == source,
        t.documents.c.source_id == source_id).with_for_update()).scalar_one_or_none()
    if doc_id is None:
        return 0
    _drop_chunks(conn, site_id, doc_id)
    conn.execute(delete(t.documents).where(t.documents.c.site_id == site_id, t.documents.c.id == doc_id))
    bump_content_version(conn, site_id)
    return 1


def refresh_search_text(engine, site_id: str, batch: int = 500) -> int:
    """After an upgrade that changed how text is prepared (searchtext.VERSION): rewrite
    the site's older chunks' search text and term counts, then recount its term
    statistics. Batches commit on their own; a cut-short run resumes where it stopped.
    The site's FULLTEXT table gets the new text in the same transactions."""
    with engine.connect() as conn:
        ft = fulltext.writable(conn, site_id)
    done = 0
    while True:
        with engine.begin() as conn:
            rows = conn.execute(
                select(t.chunks.c.id, t.chunks.c.lang, t.chunks.c.content, t.documents.c.title)
                .join(t.documents, (t.documents.c.id == t.chunks.c.document_id)
                      & (t.documents.c.site_id == t.chunks.c.site_id))
                .where(t.chunks.c.site_id == site_id, t.chunks.c.search_version < SEARCH_VERSION)
                .order_by(t.chunks.c.id).limit(batch).with_for_update()).all()
            texts = []
            for r in rows:
                search_text = index_text(f"{r.title}\n{r.content}", r.lang)
                conn.execute(update(t.chunks).where(t.chunks.c.id == r.id).values(
                    search_text=search_text, term_count=lexicon.term_count(search_text),
                    search_version=SEARCH_VERSION))
                texts.append({"chunk_id": r.id, "lang": r.lang, "search_text": search_text})
            fulltext.rewrite(conn, ft, texts)
            if rows:
                bump_content_version(conn, site_id)
        done += len(rows)
        if len(rows) < batch:
            break
    stale_terms = done > 0
    if not stale_terms:
        with engine.connect() as conn:
            has_chunks = conn.execute(select(t.chunks.c.id).where(t.chunks.c.site_id == site_id).limit(1)).first()
            has_terms = conn.execute(select(t.terms.c.term).where(t.terms.c.site_id == site_id).limit(1)).first()
        stale_terms = bool(has_chunks) and not has_terms
    if stale_terms:
        with engine.begin() as conn:
            lexicon.rebuild(conn, site_id)
            bump_content_version(conn, site_id)  # processes cache frequencies per version
    return done
