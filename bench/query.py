"""FULLTEXT query time: sidecar.retrieval.retrieve() on one connection, per question.

Question kinds (seeded). Each candidate is timed once; it is classified from what
retrieve() returned (the visitor-language query returns only chunks in the
visitor's language, the default-language query only chunks in the default one),
and kept when it is of the kind being measured:
- fills 8:  an et/en/ru/es visitor asking 1-4 ordinary words of their language
            (sometimes a product code); the visitor-language query alone returns 8
            (one SQL query);
- fallback: an en/ru/es/ko visitor typing the question in the site's default
            language (et) words, as on a site whose main content is Estonian; the
            visitor-language query finds fewer than 8, so the default-language
            query runs too (two SQL queries);
- mixed:    the chat bench's question mix as it comes (nothing rejected).
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

from sidecar.retrieval import TOP_K, retrieve

from .corpus import DEFAULT_LANG, VISITOR_MIX, Corpus
from .stats import Summary

FILL_LANGS = {"et": 0.45, "en": 0.25, "ru": 0.18, "es": 0.12}
FALLBACK_LANGS = {"en": 0.4, "ru": 0.3, "es": 0.2, "ko": 0.1}


@dataclass
class QueryResult:
    kind: str
    summary: Summary
    avg_chunks: float
    fallback_share: float      # questions that needed the default-language query
    screened: int              # candidates timed to find warm-up + measured ones of this kind
    langs: str
    disk_tmp_per_retrieve: float = 0.0  # Created_tmp_disk_tables per retrieve() (every candidate timed)
    statements_per_retrieve: float = 0.0  # SQL statements per retrieve() (Questions status counter)


def _status(conn: Connection) -> tuple[int, int]:
    rows = dict(conn.execute(text("SHOW SESSION STATUS WHERE Variable_name IN"
                                  " ('Created_tmp_disk_tables', 'Questions')")).all())
    return int(rows.get("Created_tmp_disk_tables", 0)), int(rows.get("Questions", 0))


def _candidates(corpus: Corpus, rng: random.Random, kind: str):
    while True:
        if kind == "fills 8":
            lang = rng.choices(list(FILL_LANGS), list(FILL_LANGS.values()))[0]
            yield lang, corpus.question(rng, lang)
        elif kind == "fallback":
            lang = rng.choices(list(FALLBACK_LANGS), list(FALLBACK_LANGS.values()))[0]
            yield lang, corpus.question(rng, DEFAULT_LANG, code=0.0)
        else:
            lang = rng.choices(list(VISITOR_MIX), list(VISITOR_MIX.values()))[0]
            yield lang, corpus.question(rng, lang, words_max=rng.choice((3, 4, 6, 8)))


def measure(engine: Engine, site_id: str, corpus: Corpus, kind: str, n: int, warmup: int,
            seed: int) -> QueryResult:
    rng = random.Random(f"questions-{seed}-{kind}")
    seconds, counts, fallbacks, langs = [], [], 0, {}
    kept = tried = 0
    with engine.connect() as conn:
        tmp0, questions0 = _status(conn)
        for lang, q in _candidates(corpus, rng, kind):
            tried += 1
            t = time.perf_counter()
            found = retrieve(conn, site_id, lang, DEFAULT_LANG, q)
            elapsed = time.perf_counter() - t
            conn.rollback()  # each question its own read, as in a turn
            first = sum(1 for c in found if c.lang == lang)  # what the visitor-language query returned
            needs_fallback = first < TOP_K and lang != DEFAULT_LANG
            if kind == "fills 8" and first < TOP_K:
                continue
            if kind == "fallback" and not needs_fallback:
                continue
            kept += 1
            if kept <= warmup:
                continue
            seconds.append(elapsed)
            counts.append(len(found))
            fallbacks += needs_fallback
            langs[lang] = langs.get(lang, 0) + 1
            if len(seconds) >= n:
                break
            if tried > (n + warmup) * 20:
                raise RuntimeError(f"could not find {n} '{kind}' questions ({kept} of {tried})")
        tmp1, questions1 = _status(conn)
    # Questions also counts each question's ROLLBACK and the first status read: left out here.
    statements = (questions1 - questions0 - 1 - tried) / tried
    return QueryResult(kind, Summary.of(seconds), sum(counts) / len(counts), fallbacks / len(seconds), tried,
                       ", ".join(f"{k} {v}" for k, v in sorted(langs.items(), key=lambda kv: -kv[1])),
                       (tmp1 - tmp0) / tried, statements)


def run(engine: Engine, site_id: str, corpus: Corpus, seed: int, n: int = 300, warmup: int = 30) -> list[QueryResult]:
    return [measure(engine, site_id, corpus, kind, n, warmup, seed) for kind in ("fills 8", "fallback", "mixed")]
