"""Chunk embeddings, queued in the database and filled in off every visitor's clock.

`PUT /v1/documents` commits the text (FULLTEXT serves it at once) and, in the same
transaction, one job per new chunk. A worker (a thread of every serving process,
or `rtac reembed`) claims due jobs with a conditional UPDATE, so several workers
and hosts share the queue without taking a job twice; a claim expires, so a
crashed worker loses nothing; a failing embedder is retried with backoff while the
chunk stays findable by FULLTEXT.
"""
from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import delete, exists, func, or_, select, update
from sqlalchemy.engine import Connection, Engine

from . import tables as t
from . import vectors
from .clock import utcnow
from .db import claim
from .embedders.base import Embedder
from .worker import Worker

log = logging.getLogger("rtac.embedding")
_J = t.chunk_jobs.c
_C = t.chunks.c
_V = t.chunk_vectors.c

# What a chunk's embedding reads: its title and text, within e5's 512-token window
# (a chunk is at most 1,200 characters; 1,600 with its title is ~300-450 tokens).
PASSAGE_CHARS = 1600
BATCH = 8
MAX_ATTEMPTS = 12
LOCK_SECONDS = 300

def _enqueue(conn: Connection, chunks) -> int:
    """Queue these chunks (a SELECT of chunk id, site id); one already queued stays."""
    return conn.execute(t.chunk_jobs.insert().prefix_with("IGNORE").from_select(["chunk_id", "site_id"], chunks)
                        ).rowcount


def enqueue_document(conn: Connection, site_id: str, document_id: int) -> None:
    _enqueue(conn, select(_C.id, _C.site_id).where(_C.site_id == site_id, _C.document_id == document_id))


def enqueue_missing(conn: Connection, site_id: str, model: str) -> int:
    """Queue every chunk of the site that has no vector of `model` (after a model
    change, or to re-try jobs that ran out of attempts)."""
    missing = select(_C.id, _C.site_id).where(
        _C.site_id == site_id,
        ~exists().where(_V.chunk_id == _C.id, _V.model == model))
    conn.execute(delete(t.chunk_jobs).where(_J.site_id == site_id, _J.attempts >= MAX_ATTEMPTS))
    return _enqueue(conn, missing)


def pending(conn: Connection, site_id: str, model: str) -> int:
    """Chunks of the site that retrieval by meaning does not cover yet."""
    return conn.execute(select(func.count()).select_from(t.chunks).where(
        _C.site_id == site_id, ~exists().where(_V.chunk_id == _C.id, _V.model == model))).scalar_one()


def passage(title: str, content: str) -> str:
    return f"{title}\n{content}" if title else content


class EmbeddingQueue:
    def __init__(self, engine: Engine, embedder: Embedder, *, background: bool = False):
        self.engine, self.embedder, self.background = engine, embedder, background
        self._worker = Worker("rtac-chunk-embedding", self.run_pending, poll=30)

    @property
    def model(self) -> str:
        return self.embedder.model

    def _claim(self, site_id: str | None) -> list[int]:
        now = utcnow()
        due = select(_J.chunk_id).where(_J.next_attempt_at <= now, _J.attempts < MAX_ATTEMPTS,
                                        or_(_J.locked_until.is_(None), _J.locked_until < now))
        if site_id is not None:
            due = due.where(_J.site_id == site_id)
        with self.engine.begin() as conn:
            ids = conn.execute(due.order_by(_J.next_attempt_at, _J.chunk_id).limit(BATCH)).scalars().all()
        claimed = []
        for chunk_id in ids:  # another worker may race us: the conditional update decides
            if claim(self.engine, update(t.chunk_jobs).where(
                    _J.chunk_id == chunk_id, or_(_J.locked_until.is_(None), _J.locked_until < now))
                    .values(locked_until=now + timedelta(seconds=LOCK_SECONDS))):
                claimed.append(chunk_id)
        return claimed

    def run_pending(self, site_id: str | None = None) -> int:
        """Embed one claimed batch of due chunks (of one site, when given); the number embedded."""
        ids = self._claim(site_id)
        if not ids:
            return 0
        with self.engine.connect() as conn:
            rows = conn.execute(select(_C.id, _C.site_id, _C.content, t.documents.c.title)
                                .join(t.documents, (t.documents.c.id == _C.document_id)
                                      & (t.documents.c.site_id == _C.site_id))
                                .where(_C.id.in_(ids)).order_by(_C.id)).all()
        try:
            matrix = self.embedder.embed([passage(r.title, r.content) for r in rows], limit=PASSAGE_CHARS) \
                if rows else []
        except Exception as exc:  # the chunk stays searchable by FULLTEXT; try again later
            log.warning("embedding %d chunks failed: %s", len(ids), exc)
            self._retry_later(ids, exc)
            return 0
        with self.engine.begin() as conn:
            by_site: dict[str, list] = {}
            for r, vec in zip(rows, matrix):
                by_site.setdefault(r.site_id, []).append((r.id, vec))
            for sid, pairs in by_site.items():
                vectors.write(conn, sid, self.model, pairs)
            conn.execute(delete(t.chunk_jobs).where(_J.chunk_id.in_(ids)))
        return len(rows)

    def drain(self, site_id: str | None = None) -> int:
        done = 0
        while True:
            n = self.run_pending(site_id)
            if not n:
                return done
            done += n

    def _retry_later(self, ids: list[int], exc: Exception) -> None:
        with self.engine.begin() as conn:
            for chunk_id in ids:
                attempts = conn.execute(select(_J.attempts).where(_J.chunk_id == chunk_id)).scalar_one_or_none()
                if attempts is None:
                    continue
                conn.execute(update(t.chunk_jobs).where(_J.chunk_id == chunk_id).values(
                    attempts=attempts + 1, locked_until=None,
                    next_attempt_at=utcnow() + timedelta(seconds=min(3600, 5 * 2 ** attempts)),
                    last_error=f"{type(exc).__name__}: {exc}"[:255]))

    # --- the background worker ----------------------------------------------------

    def ensure_running(self) -> None:
        if self.background:
            self._worker.ensure_running()

    def notify(self) -> None:
        """New work is queued: wake the worker now rather than at its next poll."""
        if self.background:
            self._worker.notify()

    def stop(self) -> None:
        self._worker.stop()


def reembed_chunks(engine: Engine, site_id: str, embedder: Embedder, *, prune: bool = False) -> int:
    """`rtac reembed`: queue and embed every chunk of the site that has no vector of
    `embedder`'s model. Vectors of the old model stay until `prune`, so sidecars still
    running the old model keep retrieving by meaning while this runs: no window where
    retrieval breaks, whichever order the switch happens in."""
    with engine.begin() as conn:
        enqueue_missing(conn, site_id, embedder.model)
    done = EmbeddingQueue(engine, embedder).drain(site_id)
    if prune:
        with engine.begin() as conn:
            conn.execute(delete(t.chunk_vectors).where(_V.site_id == site_id, _V.model != embedder.model))
            vectors.bump_content_version(conn, site_id)
    return done
