"""Document retrieval: a lexical half and a half by meaning, fused into the top 8.

- Lexical: MySQL/MariaDB FULLTEXT (natural language mode) finds candidates in the
  visitor's language, then in the site's default language when that yields fewer
  than asked (the question analysed for that language's index, see
  searchtext.query_terms); the candidates are re-scored with BM25 (lexicon.py), so
  a short chunk that answers is not outranked by a long one that repeats a word.
- By meaning: exact cosine over the site's chunk embeddings of every language
  (vectors.py), so a Russian question finds the Estonian page.
- Fused by their scores, each made relative to its own list (BM25 to the best
  lexical candidate, cosine to the span of the nearest vectors), half and half; a
  lexical candidate in another language than the visitor's counts for less (the
  default-language fallback matches names and numbers, rarely meaning). Tuned on
  the tune split of public QA data (bench/RESULTS.md, *Retrieval quality*): it
  beat reciprocal-rank fusion on every language there, most on R@1. `sources` keep
  the fused order, best first.
- Conversation-aware: the previous customer message of the conversation is folded
  in at a lower weight (its terms in BM25, its embedding added to the query's), so a
  follow-up ("and how much is that?") is retrieved with what the conversation is
  about, while the current message still decides.

Each site is ranked in its own FULLTEXT table (fulltext.py): InnoDB scores every
posting of the query's words in an index before the site filter applies, so in one
index for all sites a small site paid for the biggest one's text. A site whose
table is not filled yet (an upgraded database before `rtac init-db`) is ranked in
the shared index of rtac_chunks, as before. The candidates' text for BM25 is read
from the table that ranked them, the winners' content from rtac_chunks by id.

InnoDB's FULLTEXT index only sees committed rows, so documents are always written in
their own committed transaction before use.
"""
from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from sqlalchemy import bindparam, select, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from . import fulltext, lexicon, vectors
from . import tables as t
from .searchtext import query_terms

TOP_K = 8
MODES = ("hybrid", "lexical", "vector")

# Rank ids alone, then read the few winners: selecting the text in the ranking
# statement makes the server sort every match with its text in an on-disk temporary
# table.
_SHARED_RANK = text(
    "SELECT c.id, MATCH(c.search_text) AGAINST(:q IN NATURAL LANGUAGE MODE) AS score"
    " FROM rtac_chunks c"
    " WHERE c.site_id = :site AND c.lang = :lang"
    " AND MATCH(c.search_text) AGAINST(:q IN NATURAL LANGUAGE MODE)"
    " ORDER BY score DESC, c.id LIMIT :k"
)


_C = t.chunks.c
_D = t.documents.c

# Built once, as every statement of a retrieve: constructing one costs about as much
# as its round trip to a local server.
_SHARED_TEXT = select(_C.id, _C.search_text).where(_C.site_id == bindparam("site"),
                                                   _C.id.in_(bindparam("ids", expanding=True)))
_WINNERS = (select(_C.id, _C.content, _C.lang, _D.title, _D.url)
            .join(t.documents, (_D.id == _C.document_id) & (_D.site_id == _C.site_id))
            .where(_C.site_id == bindparam("site"), _C.id.in_(bindparam("ids", expanding=True))))


@lru_cache(maxsize=None)
def _site_statement(table: str, with_terms: bool):
    """The ranking statement in a site's table, with the candidates' text joined back by
    id in the same round trip: the ranking sorts ids and scores only, in a derived
    table, and the text is read for the 40 rows it keeps (rows it has just read).
    `with_terms`: the document frequencies of the terms not held yet come back in the
    same round trip too, as rows of their own (no chunk id)."""
    # `table` is fulltext.table_name()'s: "rtac_ft_" and digits, never a site id.
    ranked = (
        f"SELECT f.chunk_id AS id, f.search_text, NULL AS term, NULL AS df FROM ("
        f"SELECT r.chunk_id, MATCH(r.search_text) AGAINST(:q IN NATURAL LANGUAGE MODE) AS score"
        f" FROM {table} r"
        " WHERE r.site_id = :site AND r.lang = :lang"
        " AND MATCH(r.search_text) AGAINST(:q IN NATURAL LANGUAGE MODE)"
        " ORDER BY score DESC, r.chunk_id LIMIT :k"
        f") ranked JOIN {table} f ON f.chunk_id = ranked.chunk_id"
    )
    if not with_terms:
        return text(ranked)
    return text(ranked + " UNION ALL SELECT NULL, NULL, x.term, x.df FROM rtac_terms x"
                " WHERE x.site_id = :site AND x.term IN :terms").bindparams(bindparam("terms", expanding=True))


def _candidates(conn: Connection, where: fulltext.SiteIndex, params: dict,
                missing: list[str]) -> tuple[list[tuple[int, str]], dict[str, int]]:
    """(chunk id, search text) of the best FULLTEXT matches, unordered; and the document
    frequencies of the `missing` terms that some chunk has."""
    if where.table is not None:
        try:
            rows = conn.execute(_site_statement(where.table, bool(missing)),
                                {**params, "terms": missing} if missing else params).all()
        except DBAPIError as exc:
            # Its table gone (dropped by hand): the shared index holds the same text.
            if not fulltext.is_missing_table(exc):
                raise
        else:
            return ([(r.id, r.search_text) for r in rows if r.id is not None],
                    {r.term: int(r.df) for r in rows if r.id is None})
    dfs = lexicon.document_frequencies(conn, params["site"], missing) if missing else {}
    ids = [r.id for r in conn.execute(_SHARED_RANK, params)]
    if not ids:
        return [], dfs
    return [(r.id, r.search_text) for r in conn.execute(_SHARED_TEXT, {"site": params["site"], "ids": ids})], dfs


@dataclass(frozen=True)
class Chunk:
    id: int
    title: str
    url: str
    content: str
    lang: str
    score: float


@dataclass(frozen=True)
class Query:
    """What one turn searches with. `vector` is the turn's one query embedding (shared
    with memory recall); `previous` and `previous_vector` are the conversation's
    previous customer message and its embedding, when there is one."""

    text: str
    lang: str
    vector: np.ndarray | None = None
    previous: str = ""
    previous_vector: np.ndarray | None = None


@dataclass(frozen=True)
class RetrievalSettings:
    candidates: int = 40  # FULLTEXT rows re-scored per language, and nearest vectors
    lexical_weight: float = 0.5
    vector_weight: float = 0.5
    foreign_lexical: float = 0.3  # a lexical candidate in another language than the visitor's
    previous_terms: float = 0.4  # weight of the previous message's terms in BM25
    previous_vector: float = 0.5  # weight of its embedding in the query vector
    common_share: float | None = 0.05  # terms in more of the site's chunks are not asked of FULLTEXT
    previous_share: float = 0.01  # ... the same for the previous message's own terms
    common_floor: int = 100  # ... and only past this many chunks


@dataclass(frozen=True)
class Hit:
    """A candidate of the lexical half: its chunk, its BM25 and the chunk's language."""

    id: int
    score: float
    lang: str


class Retriever:
    """One per process: holds the opened site matrices and lexical statistics."""

    def __init__(self, model: str | None = None, settings: RetrievalSettings = RetrievalSettings(),
                 matrices: vectors.MatrixCache | None = None):
        self.model = model  # the embedding model of query vectors; None: lexical only
        self.settings = settings
        self.matrices = matrices or vectors.MatrixCache()
        self.stats = lexicon.StatsCache()

    def retrieve(self, conn: Connection, site_id: str, default_lang: str, query: Query, k: int = TOP_K,
                 mode: str = "hybrid", where: fulltext.SiteIndex | None = None) -> list[Chunk]:
        """The top `k`, best first. `where`: the site's SiteIndex when already read in
        this transaction (a turn reads it with the space)."""
        if k <= 0 or mode not in MODES:
            return []
        where = where or fulltext.locate(conn, site_id)
        matrix, v = self._matrix(conn, site_id, query, where.version) if mode != "lexical" else (None, None)
        # The product over the site's matrix runs while the lexical half waits on the
        # database (numpy and the socket both release the GIL): a turn waits for the
        # longer of the two halves, not their sum.
        nearest = _in_parallel(matrix.nearest, v, self.settings.candidates) if matrix is not None else None
        lexical = self.lexical(conn, site_id, default_lang, query, where=where) if mode != "vector" else []
        dense = nearest.result() if nearest is not None else []
        if mode == "lexical" or not dense:
            ranked = [(h.id, h.score) for h in lexical[:k]]
        elif mode == "vector" or not lexical:
            ranked = dense[:k]
        else:
            ranked = self.fuse(lexical, dense, matrix.cosines(v, [h.id for h in lexical]), query.lang)[:k]
        return _fetch(conn, site_id, ranked)

    # --- the lexical half -----------------------------------------------------------

    def lexical(self, conn: Connection, site_id: str, default_lang: str, query: Query,
                version: int | None = None, where: fulltext.SiteIndex | None = None) -> list[Hit]:
        """Candidates in the visitor's language by BM25, best first, then the default
        language's: the visitor language's pages speak to the visitor, and the default
        language's fill in when it has fewer than asked."""
        where = where or fulltext.locate(conn, site_id)
        if version is not None:
            where = fulltext.SiteIndex(version, where.table)
        ranked = [Hit(cid, s, query.lang) for cid, s in self._lexical_in(conn, site_id, query, query.lang, where)]
        if len(ranked) < self.settings.candidates and default_lang != query.lang:
            seen = {h.id for h in ranked}
            ranked += [Hit(cid, s, default_lang)
                       for cid, s in self._lexical_in(conn, site_id, query, default_lang, where) if cid not in seen]
        return ranked

    def _weights(self, query: Query, target_lang: str) -> tuple[dict[str, float], frozenset[str]]:
        """The BM25 weight of every query term, and those of them that come from the
        previous message alone (the conversation's context)."""
        weights = {term: 1.0 for term in query_terms(query.text, query.lang, target_lang)}
        context = []
        if query.previous and self.settings.previous_terms > 0:
            context = [term for term in query_terms(query.previous, query.lang, target_lang) if term not in weights]
            weights.update(dict.fromkeys(context, self.settings.previous_terms))
        return weights, frozenset(context)

    def _lexical_in(self, conn: Connection, site_id: str, query: Query, lang: str,
                    where: fulltext.SiteIndex) -> list[tuple[int, float]]:
        weights, context = self._weights(query, lang)
        if not weights:
            return []
        stats = self.stats.get(conn, site_id, where.version)
        # Terms already held can be left out of the MATCH when common (_asked); the rest
        # are asked, and their frequencies come back with the candidates.
        dfs, missing = self.stats.cached(site_id, where.version, weights)
        found, read = _candidates(conn, where, {"q": " ".join(self._asked(weights, context, dfs, stats)), "site": site_id,
                                                "lang": lang, "k": self.settings.candidates}, missing)
        dfs.update(self.stats.learn(site_id, where.version, missing, read))
        if not found:
            return []
        scored = lexicon.bm25_scores(weights, found, dfs, stats)
        scored.sort(key=lambda s: (-s[1], s[0]))
        return scored

    def _asked(self, weights: dict[str, float], context: frozenset[str], dfs: dict[str, int],
               stats: lexicon.SiteStats) -> list[str]:
        """The terms FULLTEXT is asked for. MATCH scores every posting of every term, so a
        term in a large share of the site's chunks costs the most and picks the fewest
        candidates; BM25 still scores it over the candidates the rarer terms find. The
        previous message's own terms (`context`) are asked only when rarer still, since
        a context word common enough to be on one page in a hundred picks pages about
        the context, not about the question, and costs the MATCH about a third of its
        time in a conversation. When every term is left out,
        the rarest ones are asked. `dfs`: the frequencies held (a term not held yet is
        asked: it is read in the same statement)."""
        s = self.settings
        if s.common_share is None:
            return list(weights)
        cut = max(s.common_floor, s.common_share * stats.chunks)
        context_cut = max(s.common_floor, min(s.common_share, s.previous_share) * stats.chunks)
        asked = [term for term in weights if dfs.get(term, 0) <= (context_cut if term in context else cut)]
        return asked or sorted(weights, key=lambda term: (dfs.get(term, 0), term))[:2]

    # --- the half by meaning -------------------------------------------------------

    def query_vector(self, query: Query) -> np.ndarray | None:
        if query.vector is None:
            return None
        v = np.asarray(query.vector, dtype=np.float32)
        if query.previous_vector is not None and self.settings.previous_vector > 0:
            v = v + self.settings.previous_vector * np.asarray(query.previous_vector, dtype=np.float32)
            v = v / (np.linalg.norm(v) or 1.0)
        return v

    def _matrix(self, conn: Connection, site_id: str, query: Query, version: int):
        """The site's opened matrix and the query vector, or (None, None) when either is missing."""
        v = self.query_vector(query)
        if v is None or not self.model:
            return None, None
        matrix = self.matrices.get(conn, site_id, self.model, version)
        if not len(matrix.ids) or matrix.matrix.shape[1] != v.shape[0]:
            return None, None
        return matrix, v

    def dense(self, conn: Connection, site_id: str, query: Query,
              version: int | None = None) -> list[tuple[int, float]]:
        """(chunk id, cosine) of the nearest chunks in every language, best first."""
        version = vectors.content_version(conn, site_id) if version is None else version
        matrix, v = self._matrix(conn, site_id, query, version)
        return matrix.nearest(v, self.settings.candidates) if matrix is not None else []

    # --- fusion ---------------------------------------------------------------------

    def fuse(self, lexical: list[Hit], dense: list[tuple[int, float]], cosines: dict[int, float],
             lang: str) -> list[tuple[int, float]]:
        """Relative score fusion. BM25 is divided by the best candidate's (so 1 is "the
        best lexical match", whatever the scale); cosine is placed within the span of the
        nearest vectors (1 the nearest, 0 the last of them and below), because small
        models' similarities are compressed into a narrow band that differs query to
        query. `cosines` holds the lexical candidates' similarities, so a chunk found
        by both halves is scored by both."""
        s = self.settings
        top = max((h.score for h in lexical), default=0.0)
        hi, lo = dense[0][1], dense[-1][1]
        span = (hi - lo) or 1.0
        fused: dict[int, float] = {}
        for h in lexical:
            relative = h.score / top if top > 0 else 0.0
            fused[h.id] = s.lexical_weight * relative * (1.0 if h.lang == lang else s.foreign_lexical)
        near = dict(dense)
        for cid in set(fused) | set(near):
            c = near.get(cid, cosines.get(cid))
            if c is not None:
                fused[cid] = fused.get(cid, 0.0) + s.vector_weight * max(0.0, (c - lo) / span)
        order = {h.id: i for i, h in enumerate(lexical)}
        return sorted(fused.items(), key=lambda kv: (-kv[1], order.get(kv[0], len(order)), kv[0]))


_HALVES: ThreadPoolExecutor | None = None
_HALVES_LOCK = threading.Lock()


def _in_parallel(fn, *args) -> Future:
    """`fn(*args)` on the process's small pool for the half by meaning; made on first
    use, so a forking server starts its threads in the worker, not the master."""
    global _HALVES
    if _HALVES is None:
        with _HALVES_LOCK:
            if _HALVES is None:
                _HALVES = ThreadPoolExecutor(max_workers=2, thread_name_prefix="rtac-nearest")
    return _HALVES.submit(fn, *args)


def _fetch(conn: Connection, site_id: str, ranked: list[tuple[int, float]]) -> list[Chunk]:
    if not ranked:
        return []
    rows = {r.id: r for r in conn.execute(_WINNERS, {"site": site_id, "ids": [cid for cid, _ in ranked]})}
    return [Chunk(cid, rows[cid].title, rows[cid].url, rows[cid].content, rows[cid].lang, float(score))
            for cid, score in ranked if cid in rows]


_LEXICAL = Retriever()


def search(conn: Connection, site_id: str, lang: str, question: str, k: int = TOP_K) -> list[Chunk]:
    """The lexical half in one language: FULLTEXT candidates ranked by BM25."""
    if k <= 0:
        return []
    ranked = _LEXICAL._lexical_in(conn, site_id, Query(question, lang), lang, fulltext.locate(conn, site_id))
    return _fetch(conn, site_id, ranked[:k])


def retrieve(conn: Connection, site_id: str, lang: str, default_lang: str, question: str,
             k: int = TOP_K) -> list[Chunk]:
    """Lexical retrieval alone: visitor language first, default-language fill."""
    return _LEXICAL.retrieve(conn, site_id, default_lang, Query(question, lang), k, mode="lexical")
