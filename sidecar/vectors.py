"""Chunk embeddings in MySQL, and a site's opened matrix per process.

Stored compactly: int8 components and one float scale per vector (symmetric
quantisation by the largest component). A unit vector keeps its direction to a
cosine of 0.998 or better (tests/test_hybrid_retrieval.py), for a quarter of
float32's bytes.

A process keeps one matrix per (site, model) while the site's content_version is
the one it was read at; any chunk or vector write bumps that version, so every
worker and host sees a change. While a site is being (re-)indexed the version moves
every few seconds, and re-reading a 10k-chunk matrix costs ~90 ms: a changed matrix
is therefore re-read at most once per `max_staleness` seconds. A stale matrix is
harmless: a deleted chunk it still names is dropped when the winners are fetched,
and a chunk it does not know yet is still found by FULLTEXT.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from sqlalchemy import select, update
from sqlalchemy.dialects.mysql import insert as mysql_insert
from sqlalchemy.engine import Connection

from . import tables as t

_V = t.chunk_vectors.c


def quantize(vector: np.ndarray) -> tuple[bytes, float]:
    v = np.asarray(vector, dtype=np.float32)
    peak = float(np.max(np.abs(v))) if v.size else 0.0
    scale = peak / 127.0 if peak > 0 else 1.0
    return np.clip(np.rint(v / scale), -127, 127).astype(np.int8).tobytes(), scale


def dequantize(blob: bytes, scale: float) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.int8).astype(np.float32) * np.float32(scale)


def bump_content_version(conn: Connection, site_id: str) -> None:
    conn.execute(update(t.sites).where(t.sites.c.id == site_id)
                 .values(content_version=t.sites.c.content_version + 1))


def content_version(conn: Connection, site_id: str) -> int:
    return conn.execute(select(t.sites.c.content_version).where(t.sites.c.id == site_id)).scalar_one_or_none() or 0


def write(conn: Connection, site_id: str, model: str, rows: list[tuple[int, np.ndarray]]) -> int:
    """Store (chunk id, vector) pairs for `model`; a chunk deleted meanwhile is skipped
    (its foreign key would refuse the row), so a worker racing an edit stays harmless."""
    if not rows:
        return 0
    live = set(conn.execute(select(t.chunks.c.id).where(
        t.chunks.c.site_id == site_id, t.chunks.c.id.in_([cid for cid, _ in rows]))).scalars())
    values = []
    for chunk_id, vector in rows:
        if chunk_id in live:
            blob, scale = quantize(vector)
            values.append(dict(chunk_id=chunk_id, model=model, site_id=site_id, vec=blob, scale=scale))
    if values:
        stmt = mysql_insert(t.chunk_vectors).values(values)
        conn.execute(stmt.on_duplicate_key_update(vec=stmt.inserted.vec, scale=stmt.inserted.scale))
        bump_content_version(conn, site_id)
    return len(values)


@dataclass(frozen=True)
class SiteMatrix:
    """One site's chunk embeddings of one model: row i is chunk ids[i]."""

    ids: np.ndarray  # int64
    matrix: np.ndarray  # float32, (n, dim)

    @property
    def nbytes(self) -> int:
        return self.ids.nbytes + self.matrix.nbytes

    def nearest(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The k chunks closest to `query` by cosine similarity, best first (exact)."""
        if not len(self.ids) or k <= 0:
            return []
        scores = self.matrix @ np.asarray(query, dtype=np.float32)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((self.ids[top], -scores[top]))]
        return [(int(self.ids[i]), float(scores[i])) for i in top]


    def cosines(self, query: np.ndarray, chunk_ids: list[int]) -> dict[int, float]:
        """Similarity of these chunks to `query` (those that have a vector; ids are sorted)."""
        if not chunk_ids or not len(self.ids):
            return {}
        wanted = np.asarray(chunk_ids, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.ids, wanted), len(self.ids) - 1)
        found = self.ids[at] == wanted
        scores = self.matrix[at[found]] @ np.asarray(query, dtype=np.float32)
        return {int(cid): float(sc) for cid, sc in zip(wanted[found], scores)}


EMPTY = SiteMatrix(np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32))


def load_matrix(conn: Connection, site_id: str, model: str) -> SiteMatrix:
    rows = conn.execute(select(_V.chunk_id, _V.vec, _V.scale)
                        .where(_V.site_id == site_id, _V.model == model).order_by(_V.chunk_id)).all()
    if not rows:
        return EMPTY
    ids = np.fromiter((r.chunk_id for r in rows), dtype=np.int64, count=len(rows))
    dim = len(rows[0].vec)
    q = np.frombuffer(b"".join(r.vec for r in rows), dtype=np.int8).reshape(len(rows), dim)
    scales = np.fromiter((r.scale for r in rows), dtype=np.float32, count=len(rows))
    return SiteMatrix(ids, q.astype(np.float32) * scales[:, None])


class MatrixCache:
    """Opened site matrices of this process, least recently used out first, bounded
    by bytes (100,000 chunks of e5-small take ~154 MB as float32)."""

    def __init__(self, max_bytes: int = 512 * 1024 * 1024, max_staleness: float = 10.0):
        self.max_bytes, self.max_staleness = max_bytes, max_staleness
        self._items: OrderedDict[tuple[str, str], tuple[int, float, SiteMatrix]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, conn: Connection, site_id: str, model: str, version: int) -> SiteMatrix:
        key = (site_id, model)
        now = time.monotonic()
        with self._lock:
            hit = self._items.get(key)
            if hit and (hit[0] == version or now - hit[1] < self.max_staleness):
                self._items.move_to_end(key)
                return hit[2]
        matrix = load_matrix(conn, site_id, model)
        with self._lock:
            old = self._items.pop(key, None)
            if old:
                self._bytes -= old[2].nbytes
            if matrix.nbytes <= self.max_bytes:
                self._items[key] = (version, now, matrix)
                self._bytes += matrix.nbytes
            while self._bytes > self.max_bytes and self._items:
                _, (_, _, evicted) = self._items.popitem(last=False)
                self._bytes -= evicted.nbytes
        return matrix

    @property
    def nbytes(self) -> int:
        return self._bytes
