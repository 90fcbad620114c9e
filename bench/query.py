"""FULLTEXT query time: sidecar.retrieval.retrieve() on one connection, per question.

Question sets (seeded), each screened once untimed with sidecar.retrieval.search()
in the visitor's language so that every timed question is of its kind:
- fills 8:  visitor language et/en/ru/es, 1-4 ordinary words (sometimes a product
            code); the visitor-language query alone returns 8 chunks (one query);
- fallback: a ko/es/ru visitor asking about long-tail words and a rarely mentioned
            product code; fewer than 8 in the visitor's language, so retrieve() runs
            the default-language (et) query too (two queries);
- mixed:    the chat bench's questions as they come (not screened).
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass

from sqlalchemy.engine import Engine

from sidecar.retrieval import TOP_K, retrieve, search

from .chat import VISITOR_MIX
from .corpus import DEFAULT_LANG, Corpus
from .stats import Summary

FILL_LANGS = {"et": 0.45, "en": 0.25, "ru": 0.18, "es": 0.12}
FALLBACK_LANGS = {"ko": 0.5, "es": 0.25, "ru": 0.25}


@dataclass
class QueryResult:
    kind: str
    summary: Summary
    avg_chunks: float
    fallback_share: float      # questions that needed the default-language query
    screened: int              # candidates generated to find the timed ones
    langs: str


def _candidates(corpus: Corpus, rng: random.Random, kind: str):
    while True:
        if kind == "fills 8":
            lang = rng.choices(list(FILL_LANGS), list(FILL_LANGS.values()))[0]
            yield lang, corpus.question(rng, lang)
        elif kind == "fallback":
            lang = rng.choices(list(FALLBACK_LANGS), list(FALLBACK_LANGS.values()))[0]
            yield lang, corpus.rare_question(rng, lang)
        else:
            lang = rng.choices(list(VISITOR_MIX), list(VISITOR_MIX.values()))[0]
            yield lang, corpus.question(rng, lang, words_max=rng.choice((3, 4, 6, 8)))


def select_questions(engine: Engine, site_id: str, corpus: Corpus, kind: str, n: int,
                     seed: int) -> tuple[list[tuple[str, str, bool]], int]:
    """n (lang, question, needs fallback) of this kind, and how many candidates it took."""
    rng = random.Random(f"questions-{seed}-{kind}")
    out, tried = [], 0
    with engine.connect() as conn:
        for lang, q in _candidates(corpus, rng, kind):
            tried += 1
            first = len(search(conn, site_id, lang, q, TOP_K))
            needs_fallback = first < TOP_K and lang != DEFAULT_LANG
            if kind == "fills 8" and first < TOP_K:
                continue
            if kind == "fallback" and not needs_fallback:
                continue
            out.append((lang, q, needs_fallback))
            if len(out) >= n:
                break
            if tried > n * 40:
                raise RuntimeError(f"could not find {n} '{kind}' questions ({len(out)} of {tried})")
    return out, tried


def time_queries(engine: Engine, site_id: str, questions: list[tuple[str, str, bool]],
                 warmup: int) -> tuple[list[float], list[int]]:
    seconds, counts = [], []
    with engine.connect() as conn:
        for i, (lang, q, _) in enumerate(questions):
            t = time.perf_counter()
            found = retrieve(conn, site_id, lang, DEFAULT_LANG, q)
            elapsed = time.perf_counter() - t
            conn.rollback()  # each question its own read, as in a turn
            if i >= warmup:
                seconds.append(elapsed)
                counts.append(len(found))
    return seconds, counts


def run(engine: Engine, site_id: str, corpus: Corpus, seed: int, n: int = 300, warmup: int = 30) -> list[QueryResult]:
    results = []
    for kind in ("fills 8", "fallback", "mixed"):
        questions, tried = select_questions(engine, site_id, corpus, kind, n + warmup, seed)
        seconds, counts = time_queries(engine, site_id, questions, warmup)
        measured = questions[warmup:]
        langs = {}
        for lang, _, _ in measured:
            langs[lang] = langs.get(lang, 0) + 1
        results.append(QueryResult(
            kind, Summary.of(seconds), sum(counts) / len(counts),
            sum(1 for _, _, fb in measured if fb) / len(measured), tried,
            ", ".join(f"{k} {v}" for k, v in sorted(langs.items(), key=lambda kv: -kv[1]))))
    return results
