"""The lexical half's statistics and its score: BM25 over FULLTEXT's candidates.

InnoDB's natural-language relevance has no length normalisation (term frequency
times idf squared, summed), so a long chunk that mentions a word often outranks
the short chunk that answers. FULLTEXT stays the candidate generator (it finds the
rows without reading the table); the candidates are then re-scored with BM25 over
their stored search text, with document frequencies this module keeps per site in
`rtac_terms`, in the same transaction as every chunk write.
"""
from __future__ import annotations

import math
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.dialects.mysql import insert as mysql_insert
from sqlalchemy.engine import Connection

from . import tables as t

K1 = 1.2
B = 0.75
MAX_TERM = 84  # InnoDB's innodb_ft_max_token_size: longer tokens are not indexed either

_T = t.terms.c
# Parameter names apart from the column names, which Core reserves in VALUES and SET.
_new = mysql_insert(t.terms).values(site_id=bindparam("in_site"), term=bindparam("in_term"), df=bindparam("in_n"))
_BUMP = _new.on_duplicate_key_update(df=_T.df + _new.inserted.df)
_DROP = (update(t.terms).where(_T.site_id == bindparam("in_site"), _T.term == bindparam("in_term"))
         .values(df=func.greatest(_T.df, bindparam("in_n")) - bindparam("in_n")))


# Built once: constructing a statement costs about as much as its round trip here.
_FREQUENCIES = select(_T.term, _T.df).where(_T.site_id == bindparam("site"),
                                            _T.term.in_(bindparam("terms", expanding=True)))


def distinct_terms(search_text: str) -> set[str]:
    return {w for w in search_text.split() if len(w) <= MAX_TERM}


def term_count(search_text: str) -> int:
    # Search text is its tokens joined by single spaces (searchtext.index_text).
    return search_text.count(" ") + 1 if search_text else 0


def _apply(conn: Connection, site_id: str, counts: Counter, statement) -> None:
    # Sorted, so two writers of one site lock the same rows in the same order.
    rows = [{"in_site": site_id, "in_term": term, "in_n": n} for term, n in sorted(counts.items()) if n]
    if rows:
        conn.execute(statement, rows)


def add(conn: Connection, site_id: str, search_texts: Iterable[str]) -> None:
    """Count each chunk's distinct terms in; call in the transaction that inserts them."""
    _apply(conn, site_id, Counter(term for s in search_texts for term in distinct_terms(s)), _BUMP)


def remove(conn: Connection, site_id: str, search_texts: Iterable[str]) -> None:
    """Count them out again; call in the transaction that deletes the chunks."""
    _apply(conn, site_id, Counter(term for s in search_texts for term in distinct_terms(s)), _DROP)


def rebuild(conn: Connection, site_id: str) -> None:
    """Recount a site's frequencies from its chunks (after an upgrade refreshed them)."""
    conn.execute(t.terms.delete().where(t.terms.c.site_id == site_id))
    texts = conn.execute(select(t.chunks.c.search_text).where(t.chunks.c.site_id == site_id)).scalars()
    add(conn, site_id, texts)


@dataclass(frozen=True)
class SiteStats:
    chunks: int
    avg_terms: float


def site_stats(conn: Connection, site_id: str) -> SiteStats:
    n, avg = conn.execute(select(func.count(), func.avg(t.chunks.c.term_count))
                          .where(t.chunks.c.site_id == site_id)).one()
    return SiteStats(int(n or 0), float(avg or 0.0) or 1.0)


class StatsCache:
    """A site's chunk count and mean length, and the document frequencies of the terms
    asked for so far, per process, while its content_version holds: reading the
    first costs a scan of the site's rows; frequencies not held are read with a search
    (`cached` names them, `learn` keeps what was read); every write that changes either
    bumps the version in its own transaction.

    Bounded for a sidecar serving many sites: at most `max_terms` frequencies in all
    (~15 MB at the default); past it every site's are dropped and read again."""

    def __init__(self, max_sites: int = 10_000, max_terms: int = 100_000):
        self.max_sites, self.max_terms = max_sites, max_terms
        self._items: dict[str, _SiteEntry] = {}
        self._terms = 0  # frequencies held, every site's together
        self._lock = threading.Lock()

    def _entry(self, site_id: str, version: int) -> "_SiteEntry":
        with self._lock:
            entry = self._items.get(site_id)
            if entry is None or entry.version != version:
                if entry is not None:
                    self._terms -= len(entry.dfs)
                if len(self._items) >= self.max_sites:
                    self._items.clear()
                    self._terms = 0
                entry = self._items[site_id] = _SiteEntry(version)
            return entry

    def get(self, conn: Connection, site_id: str, version: int) -> SiteStats:
        entry = self._entry(site_id, version)
        if entry.stats is None:
            entry.stats = site_stats(conn, site_id)
        return entry.stats

    def cached(self, site_id: str, version: int, terms: Iterable[str]) -> tuple[dict[str, int], list[str]]:
        """(the frequencies held for `terms` at this version, 0 for a term no chunk has;
        the terms not held, to be read and given to learn())."""
        entry = self._entry(site_id, version)
        wanted = {term for term in terms if len(term) <= MAX_TERM}
        with self._lock:
            known = {term: entry.dfs[term] for term in wanted if term in entry.dfs}
        return known, sorted(wanted - known.keys())

    def learn(self, site_id: str, version: int, missing: list[str], found: Mapping[str, int]) -> dict[str, int]:
        """Hold what was read for `missing` (a term not found: no chunk has it); returns it."""
        fresh = {term: int(found.get(term, 0)) for term in missing}
        entry = self._entry(site_id, version)
        with self._lock:
            if self._terms + len(fresh) > self.max_terms:
                for other in self._items.values():
                    other.dfs.clear()
                self._terms = 0
            if self._items.get(site_id) is entry:  # not replaced by a newer version meanwhile
                new = {term: n for term, n in fresh.items() if term not in entry.dfs}
                entry.dfs.update(new)
                self._terms += len(new)
        return fresh

    @property
    def terms_held(self) -> int:
        return self._terms


@dataclass
class _SiteEntry:
    version: int
    stats: SiteStats | None = None
    dfs: dict[str, int] = field(default_factory=dict)  # 0: no chunk has the term


def document_frequencies(conn: Connection, site_id: str, terms: Iterable[str]) -> dict[str, int]:
    wanted = sorted({term for term in terms if len(term) <= MAX_TERM})
    if not wanted:
        return {}
    rows = conn.execute(_FREQUENCIES, {"site": site_id, "terms": wanted})
    return {r.term: int(r.df) for r in rows}


def bm25_scores(weights: Mapping[str, float], candidates: Iterable[tuple[int, str]],
                dfs: Mapping[str, int], stats: SiteStats) -> list[tuple[int, float]]:
    """(id, BM25) of each (id, search text) for weighted query terms (Robertson/Sparck
    Jones idf, kept positive)."""
    n = stats.chunks
    terms = []
    for term, weight in weights.items():
        df = min(dfs.get(term, 1), n)
        terms.append((f" {term} ", weight * math.log(1 + (n - df + 0.5) / (df + 0.5))))
    scored = []
    for cid, search_text in candidates:
        # Counted in C rather than word by word in Python: every token between spaces of
        # its own, so a term repeated side by side is counted each time.
        padded = f" {search_text.replace(' ', '  ')} "
        norm = K1 * (1 - B + B * (term_count(search_text) or 1) / stats.avg_terms)
        score = 0.0
        for key, weight in terms:
            f = padded.count(key)
            if f:
                score += weight * f * (K1 + 1) / (f + norm)
        scored.append((cid, score))
    return scored
