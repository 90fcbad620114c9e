"""What-if: the same questions through alternative forms of the retrieval query,
written here in the bench (the sidecar is not changed), to show what a fix buys.

- current:      sidecar.retrieval.retrieve() as it is;
- two-step:     the same MATCH, but the ranking query selects only (id, score), so
                no TEXT column goes through the sort (the current query copies every
                matching chunk's content into an on-disk temporary table); the 8
                winners' content/title/url are fetched by id afterwards. Same
                result by construction; checked here id for id;
- two-step + stopwords: as two-step, with sidecar.searchtext.stopwords(lang) (the
                question words and fillers the offline provider already ignores)
                left out of the FULLTEXT query. Changes ranking: overlap with the
                current top 8 is reported, relevance was not judged.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass

from sqlalchemy import bindparam, text
from sqlalchemy.engine import Connection, Engine

from sidecar.retrieval import TOP_K, Chunk, retrieve
from sidecar.searchtext import query_text, stopwords

from .corpus import DEFAULT_LANG, VISITOR_MIX, Corpus
from .stats import Summary

_IDS = text(
    "SELECT c.id, MATCH(c.search_text) AGAINST(:q IN NATURAL LANGUAGE MODE) AS score FROM rtac_chunks c"
    " WHERE c.site_id = :site AND c.lang = :lang AND MATCH(c.search_text) AGAINST(:q IN NATURAL LANGUAGE MODE)"
    " ORDER BY score DESC, c.id LIMIT :k")
_FETCH = text(
    "SELECT c.id, c.content, c.lang, d.title, d.url, d.source, d.source_id FROM rtac_chunks c"
    " JOIN rtac_documents d ON d.id = c.document_id AND d.site_id = c.site_id"
    " WHERE c.site_id = :site AND c.id IN :ids").bindparams(bindparam("ids", expanding=True))


def _two_step_search(conn: Connection, site: str, lang: str, question: str, k: int,
                     drop_stopwords: bool) -> list[Chunk]:
    q = query_text(question, lang)
    if drop_stopwords:
        stop = stopwords(lang)
        q = " ".join(t for t in q.split() if t not in stop) or q
    if not q or k <= 0:
        return []
    ranked = conn.execute(_IDS, {"q": q, "site": site, "lang": lang, "k": k}).all()
    if not ranked:
        return []
    rows = {r.id: r for r in conn.execute(_FETCH, {"site": site, "ids": [r.id for r in ranked]})}
    return [Chunk(r.id, rows[r.id].title, rows[r.id].url, rows[r.id].content, rows[r.id].lang, float(r.score))
            for r in ranked if r.id in rows]


def two_step_retrieve(conn: Connection, site_id: str, lang: str, default_lang: str, question: str,
                      k: int = TOP_K, drop_stopwords: bool = False) -> list[Chunk]:
    """Drop-in for sidecar.retrieval.retrieve (same arguments, same result)."""
    found = _two_step_search(conn, site_id, lang, question, k, drop_stopwords)
    if len(found) < k and default_lang != lang:
        found += _two_step_search(conn, site_id, default_lang, question, k - len(found), drop_stopwords)
    return found


_COUNT = text(
    "SELECT COUNT(*) FROM rtac_chunks c WHERE c.site_id = :site AND c.lang = :lang"
    " AND MATCH(c.search_text) AGAINST(:q IN NATURAL LANGUAGE MODE)")


def count_matches(conn: Connection, site_id: str, lang: str, question: str) -> int:
    """How many of the site's chunks in this language the visitor-language MATCH touches."""
    q = query_text(question, lang)
    return int(conn.execute(_COUNT, {"q": q, "site": site_id, "lang": lang}).scalar_one()) if q else 0


def two_step_stopwords_retrieve(conn: Connection, site_id: str, lang: str, default_lang: str, question: str,
                                k: int = TOP_K) -> list[Chunk]:
    return two_step_retrieve(conn, site_id, lang, default_lang, question, k, drop_stopwords=True)


@dataclass
class WhatIf:
    variant: str
    summary: Summary
    same_as_current: float | None  # share of questions with the identical top-8 id list
    overlap: float | None          # mean |top8 ∩ current top8| / |current top8|
    disk_tmp_per_query: float      # Created_tmp_disk_tables per retrieve()
    mean_matches: float | None = None  # COUNT(*) variant: chunks matched per visitor-language query


def _disk_tmp(conn: Connection) -> int:
    return int(conn.execute(text("SHOW SESSION STATUS LIKE 'Created_tmp_disk_tables'")).one()[1])


def run(engine: Engine, site_id: str, corpus: Corpus, seed: int, n: int, warmup: int = 10) -> list[WhatIf]:
    rng = random.Random(f"whatif-{seed}")
    questions = []
    for _ in range(n + warmup):
        lang = rng.choices(list(VISITOR_MIX), list(VISITOR_MIX.values()))[0]
        questions.append((lang, corpus.question(rng, lang, words_max=rng.choice((3, 4, 6, 8)))))
    variants = {
        "current retrieve()": lambda c, l, q: [x.id for x in retrieve(c, site_id, l, DEFAULT_LANG, q)],
        "two-step (ids, then fetch)": lambda c, l, q: [x.id for x in two_step_retrieve(
            c, site_id, l, DEFAULT_LANG, q)],
        "two-step + query stopwords": lambda c, l, q: [x.id for x in two_step_stopwords_retrieve(
            c, site_id, l, DEFAULT_LANG, q)],
        "COUNT(*) of the visitor-language MATCH": lambda c, l, q: count_matches(c, site_id, l, q),
    }
    results, reference = [], None
    with engine.connect() as conn:
        for name, fn in variants.items():
            seconds, ids = [], []
            tmp0 = None
            for i, (lang, q) in enumerate(questions):
                if i == warmup:
                    tmp0 = _disk_tmp(conn)
                t = time.perf_counter()
                got = fn(conn, lang, q)
                elapsed = time.perf_counter() - t
                conn.rollback()
                if i >= warmup:
                    seconds.append(elapsed)
                    ids.append(got)
            tmp = (_disk_tmp(conn) - tmp0) / n
            if name.startswith("COUNT"):
                results.append(WhatIf(name, Summary.of(seconds), None, None, tmp, sum(ids) / n))
                continue
            if reference is None:
                reference = ids
            same = sum(1 for a, b in zip(ids, reference) if a == b) / n
            overlap = sum(len(set(a) & set(b)) / len(b) if b else 1.0 for a, b in zip(ids, reference)) / n
            results.append(WhatIf(name, Summary.of(seconds), same, overlap, tmp))
    return results
