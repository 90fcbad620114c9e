"""The figures bench/RESULTS.md's summary parts are written from: the targets, and what each
part's result holds, looked up and combined. Plain data in, plain data out; bench/report.py
writes them as markdown."""
from __future__ import annotations

from .chat import FUSION_PARTS, LENGTHS, LEXICAL, QUERY_EMBEDDING, RETRIEVE, VECTOR_PARTS, depth, leaves
from .corpus import CORPUS_MIX, DEFAULT_LANG, VISITOR_MIX

TARGET_P50_MS = 15.0
TARGET_P99_MS = 50.0
# The other sections' targets, as their own modules state them (bench/cache.py, bench/memory_recall.py,
# scripts/widget-size); repeated here only for the side-by-side table.
TARGET_CACHE_RATIO = 0.5
TARGET_MEMORY_P50_MS = 5.0
# Hybrid retrieval (FULLTEXT + BM25 fused with exact cosine), query embedding apart, at 10k chunks.
TARGET_HYBRID_P50_MS = 8.0
TARGET_HYBRID_P99_MS = 25.0
# The turn's query embedding with the local model: CPU per 300-character message.
TARGET_QUERY_EMBED_CPU_MS = 25.0


def vector_model(dbs: dict) -> str:
    """The model the corpora's vectors were stored for ("" when none were)."""
    return next((getattr(x["stats"], "vector_model", "") for x in dbs.values()
                 if getattr(x["stats"], "vector_model", "")), "")


def hybrid_at(d: dict | None, chunks: int, mode: str = "hybrid"):
    """The hybrid-retrieval result of `mode` at the corpus of `chunks` chunks, if measured."""
    if not d or not d.get("hybrid"):
        return None
    for label, x in d["dbs"].items():
        if x["stats"].chunks == chunks:
            return next((r for r in d["hybrid"].get(label, {}).get("results", []) if r.mode == mode), None)
    return None


def query_cost(by: dict, chars: int):
    """*Embedding*'s cost of embedding a query of `chars` characters, if measured."""
    e = result_of(by, "embedding")
    if not e or not e.get("query_cost"):
        return None
    return next((r for r in e["query_cost"] if r["chars"] == chars), None)


def result_of(by: dict, key: str):
    """The result of part `key` (`by`: the run's sections by key) when it was measured."""
    s = by.get(key)
    return s.result if s is not None and s.ok else None


def anthropic(by: dict) -> dict | None:
    """*Prompt caching*'s figures for Anthropic, if measured."""
    res = result_of(by, "cache")
    return next((r for r in res if r["provider"] == "anthropic"), None) if res else None


def query_of(queries: dict, label: str, kind: str):
    """The FULLTEXT query result of `kind` at the corpus `label`, if measured."""
    return next((r for r in queries.get(label, []) if r.kind == kind), None)


def stage_parts(d: dict):
    """The chat turns' breakdown: the Breakdown, ms per turn by stage, the database rows and
    the request's mean ms."""
    bd = d["chat"]["breakdown"]
    stage = {label.strip(): ms for label, ms, _ in bd.stage_rows()}
    req_ms = bd.request_total * 1000.0 / bd.turns
    return bd, stage, bd.db_rows(), req_ms


def inside(rows: list, parent: str) -> set[str]:
    """The stripped labels of the rows inside `parent` (rows as Breakdown.stage_rows)."""
    out, d = set(), None
    for label, _, _ in rows:
        if d is not None:
            if depth(label) <= d:
                break
            out.add(label.strip())
        elif label == parent:
            d = depth(label)
    return out


def method_parameters(run: dict, d: dict) -> dict:
    """What this run measured with, for the Method section (bench/METHOD.md says how)."""
    chat, hybrid = d["chat"], d.get("hybrid")
    first = next(iter(hybrid.values())) if hybrid else None
    return {
        "seed": run["seed"], "default_lang": DEFAULT_LANG, "corpus_mix": dict(CORPUS_MIX),
        "visitor_mix": dict(VISITOR_MIX), "lengths": list(LENGTHS), "vector_model": vector_model(d["dbs"]),
        "chat": {"chunks": chat["chunks"], "pinned_chars": chat["pinned_chars"], "memory": bool(chat["memory"]),
                 "conversations": chat["conversations"], "visitors": chat["visitors"], **run["turns"]},
        "queries": dict(run["queries"]),
        "hybrid": {"warmup": first["warmup"], "measured": first["results"][0].summary.n} if first else None,
    }


def _summary_of(hybrid: dict, label: str, mode: str):
    return next(r.summary for r in hybrid[label]["results"] if r.mode == mode)


def bottleneck_figures(run: dict, d: dict, by: dict) -> dict:
    """What *Where the time goes* is written from, one entry a finding; an entry is None when
    what it needs was not measured in this run."""
    chat, dbs, queries = d["chat"], d["dbs"], d["queries"]
    bd, stage, db_rows, req_ms = stage_parts(d)
    s = chat["summaries"]["all turns"]
    size = chat["size"]
    chunks = dbs[size]["stats"].chunks
    rows = bd.stage_rows()
    retrieve_ms = stage.get(RETRIEVE.strip())
    statement = {r[0]: r for r in db_rows}
    under = inside(rows, RETRIEVE)
    out: dict = {"request_ms": req_ms}

    out["retrieval"] = None
    if retrieve_ms is not None:
        stages = sorted(((label.strip(), ms) for label, ms, _ in rows if depth(label) == 1
                         and not label.strip().startswith("rest of")), key=lambda kv: -kv[1])

        def part(labels):
            found = [stage[x.strip()] for x in labels if x.strip() in stage]
            return sum(found) if found else None
        halves = [("the lexical half", part([LEXICAL])), ("the vector half", part(VECTOR_PARTS)),
                  ("fusion", part(FUSION_PARTS))]
        out["retrieval"] = {
            "ms": retrieve_ms, "rank": [k for k, _ in stages].index(RETRIEVE.strip()) + 1,
            "halves": [(n, v) for n, v in halves if v is not None],
            "inner": sorted(((k, v) for k, v in leaves(rows).items() if k in under), key=lambda kv: -kv[1])[:4],
            "fulltext": statement.get("SELECT FULLTEXT ranking + search text"),
            "bm25": statement.get("SELECT rtac_chunks search text (BM25, shared index)"),
            "fetch": statement.get("SELECT rtac_chunks + rtac_documents (fetch)")}

    hybrid = d.get("hybrid") or {}
    out["hybrid_by_size"] = [
        {"chunks": dbs[k]["stats"].chunks, **{m: _summary_of(hybrid, k, m) for m in ("hybrid", "lexical", "vector")}}
        for k in hybrid] if len(hybrid) > 1 else None

    b = (hybrid.get(size) or {}).get("blas")
    out["vector_blas"] = {
        "chunks": chunks, "default": b["default"], "one": b["one"], "threads": b["default_threads"],
        "slower": b["default"].p50 / b["one"].p50 if b["one"].p50 > 0 else 0.0,
        "cosine_ms": stage.get(VECTOR_PARTS[1].strip())} if b else None

    mixed = [(dbs[k]["stats"].chunks, query_of(queries, k, "mixed")) for k in queries]
    out["growth"] = mixed if all(r for _, r in mixed) and len(mixed) > 1 else None

    fill, fb = query_of(queries, size, "fills 8"), query_of(queries, size, "fallback")
    out["fallback"] = {"chunks": chunks, "fills": fill, "fallback": fb} if fill and fb else None

    tmp = [r.disk_tmp_per_retrieve for k in queries for r in queries[k]]
    out["disk_tmp_worst"] = max(tmp) if tmp else None

    hq = next((r for r in (hybrid.get(size) or {}).get("results", []) if r.mode == "hybrid"), None)
    q = hq or query_of(queries, size, "mixed")
    out["tail"] = None
    if q and retrieve_ms is not None:
        spread_turn, spread_q = s.p99 - s.p50, q.summary.p99 - q.summary.p50
        out["tail"] = {"turn": spread_turn, "retrieve": spread_q, "hybrid": hq is not None, "chunks": chunks,
                       "p50": q.summary.p50, "p99": q.summary.p99,
                       "share": spread_q / spread_turn if spread_turn > 0 else 0.0}

    shared = next((x for x in dbs.values() if x.get("shared", {}).get("result")), None)
    own = query_of(queries, "1k", "mixed")
    out["shared_table"] = None
    if shared and own:
        sh = shared["shared"]
        out["shared_table"] = {"chunks": sh["stats"].chunks, "others": shared["stats"].chunks,
                               "alone": own.summary, "shared": sh["result"].summary}

    out["outside"] = None
    if retrieve_ms is not None:
        outside = sorted(((k, v) for k, v in leaves(rows).items() if k not in under), key=lambda kv: -kv[1])
        out["outside"] = {"ms": req_ms - retrieve_ms, "largest": outside[:4]}

    out["round_trips"] = {"trips": sum(r[1] for r in db_rows),
                          "pings": next((r for r in db_rows if r[0].startswith("ping")), None),
                          "rollbacks": statement.get("ROLLBACK"), "nonce_ms": stage.get("nonce INSERT + COMMIT")}

    out["margins"] = ({"p50": s.p50, "p99": s.p99, "retrieve_ms": retrieve_ms, "rest_ms": req_ms - retrieve_ms}
                      if retrieve_ms is not None and chat["chunks"] == 10_000 else None)  # the targets are for 10k

    cb = chat.get("blas")
    out["turn_blas"] = None
    if cb:
        dflt, one = cb["runs"][cb["default_threads"]], cb["runs"][1]
        out["turn_blas"] = {"cpu_ms": chat["cpu_s"] / len(chat["records"]) * 1000,
                            "wall_ms": chat["wall"] / len(chat["records"]) * 1000, "threads": cb["default_threads"],
                            "default": dflt, "one": one,
                            "spinning": dflt["cpu_ms_per_turn"] > 1.5 * one["cpu_ms_per_turn"]}

    out["shared_cores"] = ({"others": chat["cpu_others"], "ours": chat["cpu_ours"], "cores": run["machine"]["cores"]}
                           if chat["cpu_others"] >= 0.15 else None)

    q50, q300 = query_cost(by, 50), query_cost(by, 300)
    out["query_embedding"] = {
        "q50": q50, "q300": q300, "bench_ms": stage.get(QUERY_EMBEDDING.strip()),
        "largest": q300["wall"].p50 > req_ms, "turn_ms": q300["wall"].p50 + s.p50,
        "cpu_per_token": q300["cpu"].p50 / max(q300["tokens"], 1),
        "of_target": q300["cpu"].p50 / TARGET_QUERY_EMBED_CPU_MS} if q50 and q300 else None

    mr = result_of(by, "memory_recall")
    out["memory"] = ({"recall_ms": stage.get("memory recall"), "cached_p50": mr["cached"]["p50"]}
                     if chat.get("memory") and mr else None)
    return out


def target_figures(run: dict, d: dict | None, by: dict) -> dict:
    """Each target's figures and verdict (`met`); an entry is None when not measured, a
    verdict None when the run measured on another setup than the target's."""
    out: dict = {"overhead": None, "hybrid": None, "hybrid_elsewhere": bool(d and d.get("hybrid"))}
    if d:
        chat = d["chat"]
        s = chat["summaries"]["all turns"]
        judged = chat["chunks"] == 10_000  # a smoke run's smaller corpus is no verdict
        out["overhead"] = {"chunks": chat["chunks"], "cores": run["machine"]["cores"], "p50": s.p50, "p99": s.p99,
                           "p50_met": s.p50 <= TARGET_P50_MS if judged else None,
                           "p99_met": s.p99 <= TARGET_P99_MS if judged else None}
        if h := hybrid_at(d, 10_000):
            out["hybrid"] = {"p50": h.summary.p50, "p99": h.summary.p99,
                             "p50_met": h.summary.p50 <= TARGET_HYBRID_P50_MS,
                             "p99_met": h.summary.p99 <= TARGET_HYBRID_P99_MS}
    qe = query_cost(by, 300)
    out["query_embedding"] = {"cpu": qe["cpu"].p50, "wall": qe["wall"].p50,
                              "met": qe["cpu"].p50 <= TARGET_QUERY_EMBED_CPU_MS} if qe else None
    c = anthropic(by)
    out["cache"] = {"ratio": c["ratio"], "met": c["ratio"] <= TARGET_CACHE_RATIO} if c else None
    mr = result_of(by, "memory_recall")
    out["memory"] = {"p50": mr["cached"]["p50"], "met": mr["cached"]["p50"] <= TARGET_MEMORY_P50_MS} if mr else None
    ws = result_of(by, "widget")
    out["widget"] = ({"total": ws["total"], "budget": ws["budget"], "met": ws["total"] <= ws["budget"]}
                     if ws and ws.get("total") is not None else None)
    return out
