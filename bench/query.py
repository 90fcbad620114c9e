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

Hybrid retrieval (run_hybrid): `Retriever(model=MODEL).retrieve(..., mode=...)` on the
mixed questions, each with a precomputed seeded random unit vector as its query
embedding (no model on the clock), the three modes taken in turn for every question
(hybrid, lexical = FULLTEXT candidates re-scored with BM25, vector = exact cosine over
the site's cached matrix), with the retriever's matrix and statistics caches warm.
Plus the cold cost of opening a site's matrix (`load_matrix`) and what the opened
matrix takes in a process (matrix_memory: measured in a fresh child process).
"""
from __future__ import annotations

import gc
import json
import random
import subprocess
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

from sidecar.embedders.local import MODEL
from sidecar.retrieval import MODES, TOP_K, Query, Retriever, retrieve
from sidecar.vectors import load_matrix

from .corpus import DEFAULT_LANG, VISITOR_MIX, Corpus
from .db import random_unit_vectors
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


# --- hybrid retrieval -------------------------------------------------------------------

@dataclass
class HybridResult:
    mode: str
    summary: Summary
    avg_chunks: float
    statements_per_retrieve: float  # SQL statements per retrieve() (Questions status counter)
    langs: str


@dataclass
class MatrixLoad:
    """Opening a site's matrix: load_matrix timed cold (nothing cached in the retriever;
    MariaDB's buffer pool warm after the first run), and its memory in a process."""
    rows: int
    dim: int
    nbytes: int
    summary: Summary
    min_ms: float
    memory: dict  # from matrix_memory(): rss_before_kb, rss_after_kb, peak_kb, nbytes, seconds


def query_vectors(seed: int, label: str, n: int) -> np.ndarray:
    """The questions' query embeddings: seeded random unit vectors, one per question."""
    return random_unit_vectors(np.random.default_rng([seed, zlib.crc32(f"queries-{label}".encode())]), n)


def run_hybrid(engine: Engine, site_id: str, corpus: Corpus, seed: int, n: int = 300, warmup: int = 30,
               label: str = "") -> list[HybridResult]:
    """Every mode on the same mixed questions, modes rotating question by question so
    load drift hits all three alike; one retriever per size, caches warm."""
    rng = random.Random(f"questions-{seed}-mixed")  # the FULLTEXT table's mixed questions
    questions = []
    for lang, q in _candidates(corpus, rng, "mixed"):
        questions.append((lang, q))
        if len(questions) >= n + warmup:
            break
    vecs = query_vectors(seed, label or site_id, len(questions))
    retriever = Retriever(model=MODEL)
    seconds = {m: [] for m in MODES}
    counts = {m: [] for m in MODES}
    statements = {m: 0 for m in MODES}
    langs: dict[str, int] = {}
    with engine.connect() as conn:
        for i, ((lang, q), v) in enumerate(zip(questions, vecs)):
            query = Query(q, lang, v)
            for j in range(len(MODES)):
                mode = MODES[(i + j) % len(MODES)]
                q0 = _status(conn)[1]
                t = time.perf_counter()
                found = retriever.retrieve(conn, site_id, DEFAULT_LANG, query, mode=mode)
                elapsed = time.perf_counter() - t
                q1 = _status(conn)[1]
                conn.rollback()  # each question its own read, as in a turn
                if i < warmup:
                    continue
                seconds[mode].append(elapsed)
                counts[mode].append(len(found))
                statements[mode] += q1 - q0 - 1  # the second status read counts itself
            if i >= warmup:
                langs[lang] = langs.get(lang, 0) + 1
    lang_text = ", ".join(f"{k} {v}" for k, v in sorted(langs.items(), key=lambda kv: -kv[1]))
    return [HybridResult(m, Summary.of(seconds[m]), sum(counts[m]) / len(counts[m]),
                         statements[m] / len(seconds[m]), lang_text) for m in MODES]


def _openblas():
    """(get, set) of the OpenBLAS numpy was built with (its thread count is process-wide),
    or None when it cannot be found (another BLAS, another build)."""
    import ctypes
    import glob
    import os

    here = os.path.dirname(np.__file__)
    for path in glob.glob(os.path.join(here, os.pardir, "numpy.libs", "lib*openblas*.so*")):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for get, put in (("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
                         ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
                         ("openblas_get_num_threads", "openblas_set_num_threads")):
            if hasattr(lib, get) and hasattr(lib, put):
                return getattr(lib, get), getattr(lib, put)
    return None


def blas_threads(engine: Engine, site_id: str, seed: int, label: str, runs: int) -> dict | None:
    """A diagnostic, not a figure of the sidecar as shipped: `SiteMatrix.nearest` alone
    (numpy's matrix-vector product over the site's matrix, then the top 40) with
    OpenBLAS's own thread count (numpy's default: one per core) and with one thread,
    alternating call by call, 5 ms apart (as between turns, so BLAS's workers go idle)."""
    funcs = _openblas()
    if funcs is None:
        return None
    get, put = funcs
    if int(get()) <= 1:
        return None
    with engine.connect() as conn:
        matrix = load_matrix(conn, site_id, MODEL)
    vecs = query_vectors(seed, f"blas-{label}", runs)
    default = int(get())
    seconds = {default: [], 1: []}
    try:
        for i, v in enumerate(vecs):
            for n in ((default, 1) if i % 2 == 0 else (1, default)):
                put(n)
                time.sleep(0.005)
                t = time.perf_counter()
                matrix.nearest(v, 40)
                seconds[n].append(time.perf_counter() - t)
    finally:
        put(default)
    return {"default_threads": default, "default": Summary.of(seconds[default]), "one": Summary.of(seconds[1])}


def matrix_load(engine: Engine, site_id: str, runs: int) -> MatrixLoad:
    """load_matrix timed `runs` times, each in its own read; then its memory in a child."""
    seconds, matrix = [], None
    with engine.connect() as conn:
        for _ in range(runs):
            matrix = None
            gc.collect()
            t = time.perf_counter()
            matrix = load_matrix(conn, site_id, MODEL)
            seconds.append(time.perf_counter() - t)
            conn.rollback()
    rows, dim = matrix.matrix.shape if matrix.matrix.ndim == 2 else (0, 0)
    nbytes = matrix.nbytes
    del matrix
    gc.collect()
    memory = matrix_memory(engine.url.render_as_string(hide_password=False), site_id)
    return MatrixLoad(rows, dim, nbytes, Summary.of(seconds), min(seconds) * 1000.0, memory)


def matrix_memory(url: str, site_id: str) -> dict:
    """A fresh Python process opens the site's matrix through the sidecar's MatrixCache
    (as a serving process does on its first turn of the site): its VmRSS before and
    after (what the process keeps), and its peak (VmHWM, reset just before the load)."""
    out = subprocess.run([sys.executable, "-m", "bench.query", "--matrix-memory", url, site_id],
                         cwd=Path(__file__).resolve().parent.parent, capture_output=True, text=True,
                         timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"matrix memory child failed ({out.returncode}): {out.stderr.strip()[-400:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _vm(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _child_matrix_memory(url: str, site_id: str) -> None:
    from sidecar.db import create_engine
    from sidecar.vectors import MatrixCache, content_version

    engine = create_engine(url)
    cache = MatrixCache()
    with engine.connect() as conn:
        version = content_version(conn, site_id)  # the connection and its buffers exist before
        conn.rollback()
        gc.collect()
        before = _vm("VmRSS")
        try:  # reset the peak to the current RSS (Linux: clear_refs 5), so the peak is the load's
            Path("/proc/self/clear_refs").write_text("5")
            peak_ok = True
        except OSError:
            peak_ok = False
        t = time.perf_counter()
        matrix = cache.get(conn, site_id, MODEL, version)
        seconds = time.perf_counter() - t
        conn.rollback()
        gc.collect()
        after = _vm("VmRSS")
        peak = _vm("VmHWM") if peak_ok else 0
    print(json.dumps({"rows": int(len(matrix.ids)), "nbytes": int(matrix.nbytes), "cache_bytes": cache.nbytes,
                      "rss_before_kb": before, "rss_after_kb": after, "peak_kb": peak, "seconds": seconds}))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--matrix-memory":
        _child_matrix_memory(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: python -m bench.query --matrix-memory URL SITE_ID (used by bench.run)")
