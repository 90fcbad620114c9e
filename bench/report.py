"""bench/RESULTS.md, rewritten on every run from what that run measured: the markdown alone.
The figures it is written from are bench/figures.py's; how each part is measured is
bench/METHOD.md, which it links to and never writes."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .chat import depth, leaves
from .corpus import DEFAULT_LANG
from .figures import (
    TARGET_CACHE_RATIO,
    TARGET_HYBRID_P50_MS,
    TARGET_HYBRID_P99_MS,
    TARGET_MEMORY_P50_MS,
    TARGET_P50_MS,
    TARGET_P99_MS,
    TARGET_QUERY_EMBED_CPU_MS,
    anthropic,
    bottleneck_figures,
    hybrid_at,
    method_parameters,
    query_cost,
    query_of,
    result_of,
    stage_parts,
    target_figures,
)
from .markdown import table


@dataclass
class Section:
    """One part of the run: its result and markdown, or why it was not measured."""
    key: str
    heading: str
    result: object = None
    markdown: str = ""
    error: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.error

    def text(self) -> str:
        if self.error:
            return f"{self.heading}\n\nNot measured: {self.error}\n"
        md = self.markdown.strip("\n")
        if not md.lstrip().startswith("## "):
            md = f"{self.heading}\n\n{md}"
        return md + "\n"


def _f(x: float, nd: int = 2) -> str:
    return f"{x:.{nd}f}"


def _times(s) -> list:
    """A Summary's n, p50, p90, p99 and mean as table cells."""
    return [s.n, _f(s.p50), _f(s.p90), _f(s.p99), _f(s.mean)]


def _table(w, head: list[str], rows, align: str = "") -> None:
    for line in table(head, rows, align):
        w(line)


def _verdict(ok: bool) -> str:
    return "**met**" if ok else "**not met**"


def write_report(path: Path, run: dict, main: Section, sections: list[Section]) -> None:
    by_key = {s.key: s for s in sections}
    L: list[str] = []
    w = L.append
    m = run["machine"]

    w("# rtac sidecar benchmark")
    w("")
    w(f"Written by `{run['argv']}`" + (" (via `make bench`)" if run["via_make"] else "")
      + f" on {run['started_at'].strftime('%Y-%m-%d %H:%M UTC')}, commit `{run['commit'] or '?'}`"
      + (" with uncommitted changes" if run["dirty"] else "")
      + f", on {m['cpu']} ({m['cores']} cores, {m['ram_gb']:.1f} GB RAM, {m['os']})"
      + f"; the whole run took {run['runtime_s']:.0f} s ("
      + ", ".join(f"{label} {s:.0f} s" for label, s in run["timings"]) + ")."
      + (" **Quick smoke run: small corpora, few turns and runs; not the figures of record.**"
         if run["quick"] else ""))
    if run.get("source_note"):
        w(f"Sidecar code: {run['source_note']}.")
    w("Every figure below was measured by this run (targets and the specification's reference figures "
      "excepted, and labelled as such); the file is overwritten on each run. A part that failed says "
      "*not measured* and why.")
    w("")
    d = main.result if main.ok else None
    parts = (["Targets", "Summary", "Machine"]
             + (["Method", "Corpus as loaded", "Sidecar overhead per chat turn", "FULLTEXT query time",
                 "Hybrid retrieval time", "Where the time goes: bottlenecks"] if d
                else ["Sidecar overhead per chat turn"])
             + [s.heading.lstrip("# ") for s in sections])
    w("Contents: " + ", ".join(f"[{h}](#{_anchor(h)})" for h in parts) + ".")
    w("")

    w("## Targets")
    w("")
    w("| target | measured | verdict |")
    w("|---|---:|---|")
    for row in _targets(target_figures(run, d, by_key)):
        w(row)
    w("")
    if d:
        chat = d["chat"]
        n = len(chat["records"])
        w(f"Overhead measured on {m['cores']} cores at {chat['chunks']:,} chunks with the bench's MariaDB on "
          f"the same machine, one request at a time ({n / chat['wall']:.0f} turns/s). CPU during the measured "
          f"turns: {chat['cpu']}"
          + (" — other processes shared the cores, so these figures, the tail above all, are pessimistic."
             if chat["cpu_others"] >= 0.15 else "."))
        w("")
    w("## Summary")
    w("")
    for line in findings(run, d, by_key, main):
        w(f"- {line}")
    w("")
    w("## Machine")
    w("")
    w(f"- CPU: {m['cpu']}, {m['cores']} cores; RAM {m['ram_gb']:.1f} GB; {m['os']} (kernel {m['kernel']})")
    w(f"- Python {m['python']}; " + ", ".join(f"{k} {v}" for k, v in m["packages"].items()))
    srv = (d or {}).get("server") or {}
    if srv:
        w(f"- MariaDB {srv.get('version', '?')}, a throwaway server started by `scripts/mariadb-local` "
          f"(innodb_buffer_pool_size {int(srv.get('innodb_buffer_pool_size', 0)) // 2**20} MB, "
          f"innodb_flush_log_at_trx_commit {srv.get('innodb_flush_log_at_trx_commit')}, "
          f"innodb_ft_min_token_size {srv.get('innodb_ft_min_token_size')}, "
          f"innodb_ft_cache_size {int(srv.get('innodb_ft_cache_size', 0)) // 10**6} MB, "
          f"query_cache_type {srv.get('query_cache_type')}), TCP on 127.0.0.1")
    w(f"- Load average at start {run['loadavg_start']}, at end {run['loadavg_end']}")
    w("")

    if not d:
        w("## Sidecar overhead per chat turn")
        w("")
        w(f"Not measured: {main.error}")
        w("")
    else:
        _main_sections(w, run, d)
        w("## Where the time goes: bottlenecks")
        w("")
        for line in bottlenecks(run, d, by_key):
            w(f"- {line}")
        w("")

    for s in sections:
        L.append(s.text())
    path.write_text("\n".join(L).rstrip("\n") + "\n", encoding="utf-8")


def _anchor(heading: str) -> str:
    out = []
    for ch in heading.lower():
        if ch.isalnum() or ch in "-_":
            out.append(ch)
        elif ch == " ":
            out.append("-")
    return "".join(out)


def _targets(t: dict) -> list[str]:
    """The Targets table's rows, from figures.target_figures."""
    def verdict(met: bool | None, unjudged: str) -> str:
        return _verdict(met) if met is not None else unjudged

    rows = []
    if o := t["overhead"]:
        where = f"{o['chunks']:,} chunks, {o['cores']} cores"
        for p, limit in (("p50", TARGET_P50_MS), ("p99", TARGET_P99_MS)):
            rows.append(f"| sidecar overhead per turn {p} ≤ {limit:.0f} ms (10k chunks, 2 cores) | {_f(o[p])} ms "
                        f"({where}) | {verdict(o[p + '_met'], 'not judged (not 10k chunks)')} |")
    else:
        rows.append(f"| sidecar overhead per turn p50 ≤ {TARGET_P50_MS:.0f} ms, p99 ≤ {TARGET_P99_MS:.0f} ms "
                    "(10k chunks, 2 cores) | not measured | — |")
    if h := t["hybrid"]:
        for p, limit in (("p50", TARGET_HYBRID_P50_MS), ("p99", TARGET_HYBRID_P99_MS)):
            rows.append(f"| hybrid retrieval {p} ≤ {limit:.0f} ms (10k chunks, query embedding apart) | "
                        f"{_f(h[p])} ms | {_verdict(h[p + '_met'])} |")
    else:
        why = "not judged (no 10k corpus in this run)" if t["hybrid_elsewhere"] else "not measured"
        rows.append(f"| hybrid retrieval p50 ≤ {TARGET_HYBRID_P50_MS:.0f} ms, p99 ≤ {TARGET_HYBRID_P99_MS:.0f} ms "
                    f"(10k chunks, query embedding apart) | {why} | — |")
    qe = t["query_embedding"]
    rows.append(f"| query embedding ≤ {TARGET_QUERY_EMBED_CPU_MS:.0f} ms CPU for a 300-character message (local "
                "model, 1 thread; every hybrid turn pays it) | "
                + (f"{qe['cpu']:.1f} ms CPU p50 ({qe['wall']:.1f} ms wall) | {_verdict(qe['met'])} |" if qe else
                   "not measured | — |"))
    c = t["cache"]
    rows.append(f"| Anthropic: cost per turn from turn 2 ≤ {TARGET_CACHE_RATIO:.0%} of uncached | "
                + (f"{c['ratio']:.1%} | {_verdict(c['met'])} |" if c else "not measured | — |"))
    mr = t["memory"]
    rows.append(f"| memory retrieval overhead p50 ≤ {TARGET_MEMORY_P50_MS:.0f} ms (500 memories, index cached) | "
                + (f"{mr['p50']:.2f} ms | {_verdict(mr['met'])} |" if mr else "not measured | — |"))
    if ws := t["widget"]:
        rows.append(f"| chat widget ≤ {ws['budget']:,} B gzipped (widget.js + widget.css) | {ws['total']:,} B | "
                    f"{_verdict(ws['met'])} |")
    else:
        rows.append("| chat widget ≤ 15,360 B gzipped | not measured | — |")
    return rows


def method(p: dict) -> list[str]:
    """The Method section: a link to how each part is measured (bench/METHOD.md, written by
    hand) and this run's parameters (figures.method_parameters)."""
    def mix(shares: dict) -> str:
        return ", ".join(f"{k} {v:.0%}" for k, v in shares.items())

    lengths = ", ".join(f"{n} turn{'s' if n > 1 else ''} {share:.0%}" for n, share in p["lengths"])
    c, q = p["chat"], p["queries"]
    lines = ["## Method", "",
             "How each part is measured: [METHOD.md](METHOD.md). This run's parameters:", "",
             f"- **Corpus**: seed {p['seed']}; the site's default language `{p['default_lang']}`; language mix "
             f"{mix(p['corpus_mix'])}; one seeded random unit vector per chunk for the local model "
             f"(`{p['vector_model'] or '?'}`), not an embedding.",
             f"- **Chat turns**: on the {c['chunks']:,}-chunk database; a pinned price list of "
             f"{c['pinned_chars']:,} characters; visitors' languages {mix(p['visitor_mix'])}; conversation "
             f"lengths {lengths}; {c['warmup']} warm-up turns, then {c['measured']} measured "
             f"({c['conversations']} conversations, {c['visitors']} visitors by the end of all the chat passes), "
             f"{c['instrumented']} instrumented (the breakdown) and {c['profiled']} under cProfile; "
             + ("memory on, no customer with memories." if c["memory"] else "memory off in this configuration."),
             f"- **FULLTEXT queries**: {q['warmup']} warm-up then {q['measured']} measured questions per kind and "
             "size."]
    if p["hybrid"]:
        lines.append(f"- **Hybrid retrieval**: {p['hybrid']['warmup']} warm-up questions, then "
                     f"{p['hybrid']['measured']} measured per mode and size.")
    return lines


def _main_sections(w, run: dict, d: dict) -> None:
    dbs, queries, chat = d["dbs"], d["queries"], d["chat"]
    bd = chat["breakdown"]
    n = len(chat["records"])
    tps = n / chat["wall"]
    stage = {label.strip(): ms for label, ms, _ in bd.stage_rows()}
    db_rows = bd.db_rows()
    db_ms = sum(r[3] for r in db_rows)
    db_trips = sum(r[1] for r in db_rows)
    req_ms = bd.request_total * 1000.0 / bd.turns

    for line in method(method_parameters(run, d)):
        w(line)
    w("")

    w("## Corpus as loaded")
    w("")
    w("| size | chunks | documents | chunks by language | mean chunk chars | distinct index terms | "
      "rtac_terms rows | vectors (random) | load s (terms / vectors) | "
      "OPTIMIZE passes / s | word nodes before → after | data+index MB |")
    w("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for label, x in dbs.items():
        st = x["stats"]
        nodes = (f"{x['nodes_before'][0]:,} → {x['nodes_after'][0]:,} ({x['nodes_after'][1]:,} words)"
                 if x["nodes_after"] and x["nodes_before"] else "not counted")
        langs = " ".join(f"{k} {v:,}" for k, v in sorted(st.lang_chunks.items(), key=lambda kv: -kv[1]))
        w(f"| {label} | {st.chunks:,} | {st.documents:,} | {langs} | {st.chars / st.chunks:.0f} | "
          f"{st.distinct_terms:,} | {getattr(st, 'site_terms', 0):,} | {getattr(st, 'vectors', 0):,} | "
          f"{st.load_s:.1f} ({getattr(st, 'terms_s', 0.0):.1f} / {getattr(st, 'vectors_s', 0.0):.1f}) | "
          f"{st.optimize_passes} / {st.optimize_s:.1f} | {nodes} | {st.db_mb:.0f} |")
        sh = x.get("shared")
        if sh:
            y = sh["stats"]
            langs = " ".join(f"{k} {v:,}" for k, v in sorted(y.lang_chunks.items(), key=lambda kv: -kv[1]))
            w(f"| + {y.chunks:,} chunks, second site in the {label} table | {y.chunks:,} | {y.documents:,} | "
              f"{langs} | {y.chars / y.chunks:.0f} | (in the {label} figure) | {getattr(y, 'site_terms', 0):,} | "
              f"{getattr(y, 'vectors', 0):,} | {y.load_s:.1f} | (with {label}) | | |")
    w("")

    w("## Sidecar overhead per chat turn")
    w("")
    w(f"At {chat['chunks']:,} chunks: the signed `POST /v1/chat` through the Flask app, milliseconds per request.")
    w("")
    _table(w, ["turns", "n", "p50 ms", "p90 ms", "p99 ms", "mean ms", "max ms"],
           ([k, *_times(s), _f(s.max)] for k, s in chat["summaries"].items()))
    w("")
    w(f"Throughput, one request at a time: **{tps:.0f} turns/s** ({n} turns in {chat['wall']:.1f} s wall; the "
      f"bench process used {chat['cpu_s'] / n * 1000:.2f} ms CPU per turn, test client included). "
      f"Failed turns: {len(chat['errors'])}.")
    w("")
    b = chat.get("blas")
    if b:
        dflt, one = b["runs"][b["default_threads"]], b["runs"][1]
        w(f"A diagnostic, not the sidecar as shipped: {b['turns']} more turns with numpy's OpenBLAS on its default "
          f"{b['default_threads']} threads (as shipped) and {b['turns']} with it set to 1 thread through its own "
          f"API, in alternating blocks of {b['block']} turns:")
        w("")
        _table(w, ["OpenBLAS threads", "n", "p50 ms", "p90 ms", "p99 ms", "mean ms", "bench process CPU ms / turn"],
               ([label, *_times(r["summary"]), f"{r['cpu_ms_per_turn']:.2f}"]
                for label, r in ((f"{b['default_threads']} (default, as shipped)", dflt), ("1", one))))
        w("")

    w("### Per stage")
    w("")
    w(f"Per turn, mean over {bd.turns} instrumented turns (timers wrapped around the sidecar functions; "
      f"indented rows are inside the row above them). Request total {req_ms:.2f} ms, against a mean of "
      f"{chat['summaries']['all turns'].mean:.2f} ms for the measured turns: the wrappers cost time of their "
      "own and the two passes ran at different moments of the machine's load, so read the shares rather "
      "than the absolute milliseconds.")
    w("")
    w("| stage | ms / turn | share of request | calls / turn |")
    w("|---|---:|---:|---:|")
    covered = stage.get("signature check (HMAC, site, nonce)", 0) + stage.get("JSON decode", 0) \
        + stage.get("validation (parse_chat)", 0) + stage.get("chat_turn (all of it)", 0)
    for label, ms, calls in bd.stage_rows():
        name = label.strip()
        shown = "&nbsp;&nbsp;&nbsp;&nbsp;" * depth(label) + name
        w(f"| {shown} | {_f(ms)} | {ms / req_ms:.0%} | {calls:.2f} |" if calls else
          f"| {shown} | {_f(ms)} | {ms / req_ms:.0%} | |")
    w(f"| Flask / Werkzeug / test client (rest of the request) | {_f(req_ms - covered)} | "
      f"{(req_ms - covered) / req_ms:.0%} | |")
    w("")
    w(f"Database round trips per turn: **{db_trips:.1f}**, {db_ms:.2f} ms of the {req_ms:.2f} ms "
      f"({db_ms / req_ms:.0%}; client-side wait for MariaDB over TCP, measured in PyMySQL). "
      "`SELECT FULLTEXT ranking + search text` is the lexical half's ranking statement (the candidates, "
      "their search text joined back for BM25, and the document frequencies of the terms not cached yet), "
      "`SELECT rtac_sites` the site's row joined to the customer's space (the site's `content_version`, "
      "which keys the cached matrix and statistics, and its FULLTEXT table), "
      "`SELECT rtac_sites + rtac_spaces + rtac_turns` the same with a continuing conversation's last turns "
      "as rows of their own (UNION ALL), "
      "the SELECT joining rtac_chunks and rtac_documents the fetch of the winners by id:")
    w("")
    _table(w, ["statement", "per turn", "mean ms", "ms / turn"],
           ([kind, f"{per:.2f}", f"{mean:.3f}", f"{ms:.2f}"] for kind, per, mean, ms in db_rows))
    w("")
    w("cProfile (the profiler inflates pure-Python time; use it for ranking, the table above for ms):")
    w("")
    w("<details><summary>top functions by own time</summary>")
    w("")
    w("```")
    w(chat["prof_tottime"])
    w("```")
    w("</details>")
    w("")
    w("<details><summary>top functions by cumulative time</summary>")
    w("")
    w("```")
    w(chat["prof_cumulative"])
    w("```")
    w("</details>")
    w("")

    w("## FULLTEXT query time")
    w("")
    w("`sidecar.retrieval.retrieve` (the lexical half alone: FULLTEXT candidates re-scored with BM25), top 8, "
      "milliseconds per call:")
    w("")
    w("| chunks | kind | n | p50 ms | p90 ms | p99 ms | mean ms | avg chunks returned | needed fallback | "
      "SQL statements / retrieve | on-disk temp tables / retrieve | visitor languages |")
    w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for label, results in queries.items():
        for r in results:
            s = r.summary
            w(f"| {dbs[label]['stats'].chunks:,} | {r.kind} | {s.n} | {_f(s.p50)} | {_f(s.p90)} | {_f(s.p99)} | "
              f"{_f(s.mean)} | {r.avg_chunks:.2f} | {r.fallback_share:.0%} | {r.statements_per_retrieve:.2f} | "
              f"{r.disk_tmp_per_retrieve:.2f} | {r.langs} |")
        sh = dbs[label].get("shared")
        if sh and sh.get("result"):
            r, s = sh["result"], sh["result"].summary
            total = dbs[label]["stats"].chunks + sh["stats"].chunks
            w(f"| {sh['stats'].chunks:,} (a second site in the {total:,}-chunk table) | {r.kind} | {s.n} | "
              f"{_f(s.p50)} | {_f(s.p90)} | {_f(s.p99)} | {_f(s.mean)} | {r.avg_chunks:.2f} | "
              f"{r.fallback_share:.0%} | {r.statements_per_retrieve:.2f} | {r.disk_tmp_per_retrieve:.2f} | "
              f"{r.langs} |")
    w("")
    w("A retrieve reads the site's `content_version` (one statement), then per language searched ranks the "
      "FULLTEXT candidates and reads their search text back by id for BM25 in one statement (the ranking sorts "
      "ids and scores only, in a derived table), in which the document frequencies (`rtac_terms`) of the "
      "query's terms this process has not read at this `content_version` come back too (cached per site and "
      "version; a term already known to be in more than 5% of a site's chunks, and more than 100, is left out "
      "of the MATCH and still scored by BM25), then fetches the winners: three statements when the "
      "visitor's language yields all 40 candidates; the default language's search runs when the visitor's "
      "yields fewer. *needed fallback* counts the questions whose "
      "visitor-language search returned fewer than 8 chunks. The site's chunk count and mean length are read "
      "once per `content_version` (cached).")
    shared = [(label, x) for label, x in dbs.items() if x.get("shared")]
    if shared:
        label, x = shared[0]
        w(f"The {label} database also holds a second site of {x['shared']['stats'].chunks:,} chunks (its own "
          f"documents, same languages) in the same `rtac_chunks` table, loaded before the index was settled; "
          f"the {label} rows are for site `{x['site'].id}` in that table.")
    w("")
    w("Machine load while querying: " + "; ".join(f"{label}: {x['query_cpu']}" for label, x in dbs.items()) + ".")
    w("")
    _hybrid_section(w, d)


def _hybrid_section(w, d: dict) -> None:
    dbs, hybrid = d["dbs"], d.get("hybrid") or {}
    w("## Hybrid retrieval time")
    w("")
    if not hybrid:
        w("Not measured in this run.")
        w("")
        return
    w("`Retriever(model=MODEL).retrieve(..., mode=...)`, top 8, milliseconds per call; the query embedding is "
      "precomputed (not timed: see *Embedding*), the site's matrix and statistics cached (warm). *lexical* is "
      "the BM25-rescored FULLTEXT half, *vector* exact cosine over every chunk vector of the site, *hybrid* "
      "both fused (`Retriever.fuse`), then one fetch of the winners:")
    w("")
    _table(w, ["chunks", "mode", "n", "p50 ms", "p90 ms", "p99 ms", "mean ms", "max ms", "avg chunks returned",
               "SQL statements / retrieve"],
           ([f"{dbs[label]['stats'].chunks:,}", f"**{r.mode}**" if r.mode == "hybrid" else r.mode, *_times(r.summary),
             _f(r.summary.max), f"{r.avg_chunks:.2f}", f"{r.statements_per_retrieve:.2f}"]
            for label, h in hybrid.items() for r in h["results"]), "ll" + "r" * 8)
    w("")
    langs = next(iter(hybrid.values()))["results"][0].langs
    w(f"Visitor languages of the measured questions: {langs}. Target at 10k chunks: p50 ≤ "
      f"{TARGET_HYBRID_P50_MS:.0f} ms, p99 ≤ {TARGET_HYBRID_P99_MS:.0f} ms (*Targets*). "
      "Machine load while querying: "
      + "; ".join(f"{label}: {h['cpu']}" for label, h in hybrid.items()) + ".")
    w("")
    w("### Opening a site's matrix")
    w("")
    w("The first turn of a site in a process (or the first after any write to the site's chunks or vectors, "
      "which bumps its `content_version`) reads all its vectors: `load_matrix`, timed cold; then what the opened "
      "matrix takes in a process (float32, so 4× the stored int8 bytes):")
    w("")
    w("| chunks | vectors | load_matrix p50 ms | min ms | max ms | runs | `SiteMatrix.nbytes` MB | "
      "VmRSS growth kept MB | VmRSS peak during the load MB | first load in a fresh process ms |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, h in hybrid.items():
        m = h.get("matrix")
        if m is None:
            continue
        mem, s = m.memory, m.summary
        peak = (f"{(mem['peak_kb'] - mem['rss_before_kb']) / 1024:.1f}" if mem.get("peak_kb") else "n/a")
        w(f"| {dbs[label]['stats'].chunks:,} | {m.rows:,} | {_f(s.p50, 1)} | "
          f"{_f(m.min_ms, 1)} | {_f(s.max, 1)} | {s.n} | "
          f"{m.nbytes / 2**20:.1f} | {(mem['rss_after_kb'] - mem['rss_before_kb']) / 1024:.1f} | {peak} | "
          f"{mem['seconds'] * 1000:.0f} |")
    w("")
    blas = [(label, h["blas"]) for label, h in hybrid.items() if h.get("blas")]
    if blas:
        n = blas[0][1]["default_threads"]
        w("A diagnostic (not the sidecar as shipped): the vector half's own computation, `SiteMatrix.nearest` "
          f"alone (numpy's matrix-vector product, then the top 40), with OpenBLAS's default {n} threads — what "
          "the sidecar runs with, as it sets no BLAS thread count — and with 1 thread, alternating call by call, "
          "5 ms apart so that BLAS's worker threads go idle between calls as they do between turns:")
        w("")
        _table(w, ["chunks", "runs", f"{n} threads p50 ms", "p99 ms", "1 thread p50 ms", "p99 ms"],
               ([f"{dbs[label]['stats'].chunks:,}", b["default"].n, _f(b["default"].p50, 3), _f(b["default"].p99, 3),
                 _f(b["one"].p50, 3), _f(b["one"].p99, 3)] for label, b in blas))
        w("")
    w("MB = 2^20 bytes. *Kept* is the resident memory the process still holds after the load (the matrix, "
      "plus what the allocator keeps of the load's transient rows); *peak* is the high-water mark over the "
      "resident memory before the load (the rows as fetched, the int8 bytes and the float32 matrix at once). "
      "Each serving process holds its own copy of every site matrix it has opened, up to `MatrixCache`'s "
      "512 MiB bound.")
    w("")


def findings(run: dict, d: dict | None, by: dict, main: Section | None = None) -> list[str]:
    out = []
    if d:
        chat = d["chat"]
        s = chat["summaries"]["all turns"]
        met = s.p50 <= TARGET_P50_MS and s.p99 <= TARGET_P99_MS
        head = (f"Overhead targets **{'met' if met else 'not met'}**" if chat["chunks"] == 10_000 else
                "Overhead (smoke run; the targets are for 10k chunks, so no verdict)")
        out.append(f"{head} at {chat['chunks']:,} chunks: p50 "
                   f"{s.p50:.2f} ms (target ≤ {TARGET_P50_MS:.0f}: {'met' if s.p50 <= TARGET_P50_MS else 'not met'}), "
                   f"p99 {s.p99:.2f} ms (target ≤ {TARGET_P99_MS:.0f}: "
                   f"{'met' if s.p99 <= TARGET_P99_MS else 'not met'}); mean {s.mean:.2f} ms"
                   + (f", with other processes using {chat['cpu_others']:.2f} of the {run['machine']['cores']} "
                      "cores meanwhile" if chat["cpu_others"] >= 0.15 else "") + ".")
        sums = chat["summaries"]
        first, cont = sums.get("first turn of a new visitor"), sums.get("continuing turns (2-10)")
        if first and cont:
            out.append(f"First turn of a new visitor p50 {first.p50:.2f} / p99 {first.p99:.2f} ms; continuing "
                       f"turns p50 {cont.p50:.2f} / p99 {cont.p99:.2f} ms.")
        bd, stage, db_rows, req_ms = stage_parts(d)
        top = sorted(leaves(bd.stage_rows()).items(), key=lambda kv: -kv[1])[:4]
        out.append("Largest stages per turn (instrumented mean, innermost timed stages): "
                   + ", ".join(f"{k} {v:.2f} ms ({v / req_ms:.0%})" for k, v in top) + ".")
        db_ms = sum(r[3] for r in db_rows)
        trips = sum(r[1] for r in db_rows)
        out.append(f"{trips:.1f} database round trips per turn take {db_ms:.2f} ms ({db_ms / req_ms:.0%} of the "
                   "request, FULLTEXT included); the rest is Python in the sidecar, Flask and the test client.")
        queries, dbs = d["queries"], d["dbs"]
        growth = [(dbs[k]["stats"].chunks, query_of(queries, k, "mixed")) for k in queries]
        if all(r for _, r in growth):
            out.append("FULLTEXT `retrieve` (lexical half alone, BM25-rescored; mixed questions, p50 / p99): "
                       + ", ".join(f"{n:,} chunks {r.summary.p50:.1f} / {r.summary.p99:.1f} ms"
                                   for n, r in growth) + ".")
        hybrid = d.get("hybrid") or {}
        if hybrid:
            parts = []
            for label, h in hybrid.items():
                r = {x.mode: x.summary for x in h["results"]}
                parts.append(f"{dbs[label]['stats'].chunks:,} chunks {r['hybrid'].p50:.1f} / {r['hybrid'].p99:.1f} ms "
                             f"(lexical half {r['lexical'].p50:.1f}, vector half {r['vector'].p50:.1f} ms p50)")
            h10 = hybrid_at(d, 10_000)
            verdict = ""
            if h10:
                ok = h10.summary.p50 <= TARGET_HYBRID_P50_MS and h10.summary.p99 <= TARGET_HYBRID_P99_MS
                verdict = (f" Target at 10k chunks (p50 ≤ {TARGET_HYBRID_P50_MS:.0f}, p99 ≤ "
                           f"{TARGET_HYBRID_P99_MS:.0f} ms): **{'met' if ok else 'not met'}**.")
            out.append("Hybrid retrieval, query embedding apart (mixed questions, p50 / p99): " + ", ".join(parts)
                       + "." + verdict)
        shared = next((x for x in dbs.values() if x.get("shared", {}).get("result")), None)
        own = query_of(queries, "1k", "mixed")
        if shared and own:
            sh = shared["shared"]
            out.append(f"Each site is ranked in a FULLTEXT table of its own: a {sh['stats'].chunks:,}-chunk site takes "
                       f"p50 {own.summary.p50:.1f} ms per retrieve in a database of its own, and "
                       f"{sh['result'].summary.p50:.1f} ms beside a {shared['stats'].chunks:,}-chunk site.")
    c = anthropic(by)
    if c:
        out.append(f"Prompt caching: on Anthropic a turn from turn 2 costs {c['ratio']:.1%} of sending it uncached "
                   f"({c['read_share']:.1%} of input tokens read from cache).")
    mr = result_of(by, "memory_recall")
    q50, q300 = query_cost(by, 50), query_cost(by, 300)
    if q50 and q300:
        ok = q300["cpu"].p50 <= TARGET_QUERY_EMBED_CPU_MS
        out.append(f"Not in the overhead figures: every hybrid turn embeds the customer's message once with the "
                   f"local model, p50 {q300['cpu'].p50:.1f} ms CPU ({q300['wall'].p50:.1f} ms wall) for 300 "
                   f"characters and {q50['cpu'].p50:.1f} ms CPU ({q50['wall'].p50:.1f} ms wall) for 50, on one "
                   f"thread (target ≤ {TARGET_QUERY_EMBED_CPU_MS:.0f} ms CPU at 300 characters: "
                   f"**{'met' if ok else 'not met'}**, {q300['cpu'].p50 / TARGET_QUERY_EMBED_CPU_MS:.1f}× it; "
                   f"{q300['cpu'].p50 / max(q300['tokens'], 1):.1f} ms CPU per token).")
    if mr:
        out.append(f"Also not in them: a customer with stored memories pays reading and choosing them (p50 "
                   f"{mr['cached']['p50']:.2f} ms with the index cached, {mr['cold']['p50']:.2f} ms cold, 500 "
                   "memories); the query embedding is the turn's one, shared.")
    ix = result_of(by, "indexing")
    if ix:
        out.append(f"Indexing: `EmbeddingQueue.drain` embeds {ix['chunks_per_s']:.2f} chunks/s on one thread "
                   f"({ix['ms_per_chunk']:,.0f} ms a chunk of {ix['mean_chars']:.0f} characters; "
                   f"{ix['source_short']}), so a 10,000-chunk site takes "
                   f"{10_000 / ix['chunks_per_s'] / 3600:.1f} h to become searchable by meaning (FULLTEXT serves it "
                   "at once).")
    g = result_of(by, "grounding")
    if g:
        o = g["overall"]
        out.append(f"Memory grounding check: precision {o['precision']:.3f}, recall {o['recall']:.3f} on "
                   f"{o['n']} hand-written cases.")
    wp = (result_of(by, "wp_turn") or {}).get("result") or {}
    if isinstance(wp.get("plugin"), dict) and "p50" in wp["plugin"]:
        out.append(f"WordPress plugin time per chat turn (sidecar excluded): p50 {wp['plugin']['p50']:.1f} / p99 "
                   f"{wp['plugin'].get('p99', float('nan')):.1f} ms.")
    ws = result_of(by, "widget")
    if ws and ws.get("total") is not None:
        out.append(f"Chat widget: {ws['total']:,} B gzipped (budget {ws['budget']:,} B).")
    missing = [s.heading.lstrip("# ") for s in ([main] if main else []) + list(by.values()) if not s.ok]
    if missing:
        out.append("Not measured in this run: " + "; ".join(missing) + " (reasons in each section).")
    return out


def bottlenecks(run: dict, d: dict, by: dict) -> list[str]:
    """*Where the time goes*, a line a finding, from figures.bottleneck_figures."""
    f = bottleneck_figures(run, d, by)
    req_ms, out = f["request_ms"], []
    if r := f["retrieval"]:
        where = "the largest stage" if r["rank"] == 1 else f"stage no. {r['rank']}"
        line = (f"**Retrieval** is {where} of chat_turn: hybrid `retrieve` takes {r['ms']:.2f} of {req_ms:.2f} ms "
                f"per instrumented turn ({r['ms'] / req_ms:.0%})")
        if r["halves"]:
            line += ": " + ", ".join(f"{n} {v:.2f} ms" for n, v in r["halves"])
        if r["inner"]:
            line += "; inside it the largest parts are " + ", ".join(f"{k} {v:.2f} ms" for k, v in r["inner"])
        if rank := r["fulltext"]:
            line += (f". Its FULLTEXT ranking statement ran {rank[1]:.2f} times per turn at {rank[2]:.2f} ms mean "
                     f"({rank[3]:.2f} ms per turn)")
        if terms := r["bm25"]:
            line += f", the candidates' search text for BM25 {terms[1]:.2f} times at {terms[2]:.2f} ms"
        if fetch := r["fetch"]:
            line += f", the fetch of the winners {fetch[1]:.2f} times at {fetch[2]:.2f} ms"
        out.append(line + ".")
    if sizes := f["hybrid_by_size"]:
        out.append("**Hybrid retrieval by corpus size** (p50 / p99, query embedding apart): "
                   + "; ".join(f"{x['chunks']:,} chunks: hybrid {x['hybrid'].p50:.1f} / {x['hybrid'].p99:.1f} ms, "
                               f"lexical half {x['lexical'].p50:.1f} / {x['lexical'].p99:.1f}, vector half "
                               f"{x['vector'].p50:.1f} / {x['vector'].p99:.1f}" for x in sizes)
                   + ". The vector half reads every vector of the site (exact cosine: one matrix-vector product "
                   "over n × 384 float32, then a partial sort), so it grows linearly with the site and with the "
                   "matrix's size against the CPU caches; the lexical half follows FULLTEXT's posting lists.")
    if b := f["vector_blas"]:
        out.append(f"**numpy's BLAS threads and the vector half.** At {b['chunks']:,} chunks "
                   f"`SiteMatrix.nearest` alone takes p50 {b['default'].p50:.2f} / p99 {b['default'].p99:.2f} ms with "
                   f"OpenBLAS's default {b['threads']} threads (what the sidecar runs with) and "
                   f"{b['one'].p50:.2f} / {b['one'].p99:.2f} ms with 1 thread"
                   + (f" ({b['slower']:.0f}× slower with the default)" if b["slower"] >= 2 else "")
                   + (f"; in the instrumented turns it took {b['cosine_ms']:.2f} ms per turn"
                      if b["cosine_ms"] is not None else "")
                   + (". A matrix-vector product this small is bound by memory, and on 2 shared cores the BLAS "
                      "worker thread must be woken and scheduled on a core that MariaDB or another process "
                      "holds: the sidecar would do better with BLAS limited to one thread in serving processes "
                      "(e.g. OPENBLAS_NUM_THREADS=1 before numpy loads, or threadpoolctl). Not changed here: the "
                      "figures above are the sidecar as shipped." if b["slower"] >= 2 else "."))
    if mixed := f["growth"]:
        (n0, r0), (n1, r1) = mixed[0], mixed[-1]
        out.append(
            "**It grows with the corpus.** Mixed questions: "
            + ", ".join(f"{n:,} chunks p50 {r.summary.p50:.1f} / p99 {r.summary.p99:.1f} ms" for n, r in mixed)
            + f" — {n1 / n0:.0f}× the chunks, {r1.summary.p50 / r0.summary.p50:.1f}× the median time. "
            "Natural-language MATCH scores every chunk of the table that holds a query term before the site and "
            "language filters and the top 8 apply, so the time follows the query terms' posting lists, not the "
            "8 rows returned.")
    if fb := f["fallback"]:
        fill, back = fb["fills"], fb["fallback"]
        out.append(f"**The default-language fallback adds a search.** At {fb['chunks']:,} "
                   f"chunks a question the visitor's language answers costs p50 {fill.summary.p50:.1f} / p99 "
                   f"{fill.summary.p99:.1f} ms ({fill.statements_per_retrieve:.2f} statements); one that falls "
                   f"back to `{DEFAULT_LANG}` p50 {back.summary.p50:.1f} / p99 {back.summary.p99:.1f} ms "
                   f"({back.statements_per_retrieve:.2f} statements).")
    if (worst := f["disk_tmp_worst"]) is not None:
        if worst < 0.01:
            out.append("**Sorting stays in memory**: no on-disk temporary tables for any size or kind "
                       f"({worst:.2f} per `retrieve` at most; the ranking statement sorts ids and scores only).")
        else:
            out.append(f"**On-disk temporary tables**: up to {worst:.2f} per `retrieve` (by size and kind in the "
                       "FULLTEXT table above).")
    if t := f["tail"]:
        out.append(f"**The tail.** The turn's p99 − p50 is {t['turn']:.1f} ms; "
                   + ("hybrid " if t["hybrid"] else "") + f"`retrieve`'s alone, on the same "
                   f"{t['chunks']:,} chunks with the same question mix, is {t['retrieve']:.1f} ms (p50 "
                   f"{t['p50']:.1f}, p99 {t['p99']:.1f} ms), "
                   + (f"{t['share']:.0%} of the turn's: retrieval carries most of the tail." if t["share"] >= 0.6 else
                      f"{t['share']:.0%} of the turn's: a large part of the tail is outside retrieval."))
    if sh := f["shared_table"]:
        out.append(f"**A big site beside a small one.** Each site is ranked in a FULLTEXT table of its own "
                   "(MATCH scores every posting of an index before the site filter applies, so one index for all "
                   f"sites made a small site pay for the biggest): a {sh['chunks']:,}-chunk site takes p50 "
                   f"{sh['alone'].p50:.1f} ms in a database of its own and {sh['shared'].p50:.1f} ms (p99 "
                   f"{sh['alone'].p99:.1f} → {sh['shared'].p99:.1f} ms) beside {sh['others']:,} chunks of another "
                   "site; *Site isolation* measures the same against the shared index.")
    if o := f["outside"]:
        out.append(f"**Everything but retrieval** is {o['ms']:.2f} ms per instrumented turn; the largest parts: "
                   + ", ".join(f"{k} {v:.2f} ms" for k, v in o["largest"]) + ".")
    rt = f["round_trips"]
    fixed = []
    if pings := rt["pings"]:
        fixed.append(f"{pings[1]:.1f} pool pre-pings ({pings[3]:.2f} ms)")
    if rollbacks := rt["rollbacks"]:
        fixed.append(f"{rollbacks[1]:.1f} reset-on-return ROLLBACKs ({rollbacks[3]:.2f} ms)")
    if rt["nonce_ms"] is not None:
        fixed.append(f"the nonce's own INSERT + COMMIT ({rt['nonce_ms']:.2f} ms)")
    if fixed:
        out.append(f"**Round trips**: {rt['trips']:.1f} per turn, each small; of them " + ", ".join(fixed) + ".")
    if m := f["margins"]:
        def margin(name: str, value: float, target: float) -> str:
            if value > target:
                return f"{name} misses its {target:.0f} ms by {value - target:.2f} ms"
            return f"{name} is {target - value:.2f} ms under its {target:.0f} ms ({(target - value) / target:.0%} to spare)"
        out.append(f"**Against the targets**: {margin('p50', m['p50'], TARGET_P50_MS)}, "
                   f"{margin('p99', m['p99'], TARGET_P99_MS)}; of an instrumented turn, retrieval takes "
                   f"{m['retrieve_ms']:.1f} ms and the rest {m['rest_ms']:.1f} ms (means).")
    if tb := f["turn_blas"]:
        dflt, one = tb["default"], tb["one"]
        out.append(f"**CPU per turn and numpy's BLAS threads.** The measured turns cost the bench process "
                   f"{tb['cpu_ms']:.1f} ms of CPU per {tb['wall_ms']:.1f} ms of wall time"
                   + (" — more than one core while serving one request at a time" if tb["cpu_ms"] > tb["wall_ms"]
                      else "")
                   + f". With OpenBLAS set to 1 thread (the diagnostic under *Sidecar overhead per chat turn*) the "
                   f"same kind of turns cost {one['cpu_ms_per_turn']:.1f} ms CPU and p50 {one['summary'].p50:.2f} / "
                   f"p99 {one['summary'].p99:.2f} ms, against {dflt['cpu_ms_per_turn']:.1f} ms CPU and p50 "
                   f"{dflt['summary'].p50:.2f} / p99 {dflt['summary'].p99:.2f} ms on the default "
                   f"{tb['threads']} threads"
                   + (": OpenBLAS's worker thread keeps spinning after each matrix-vector product of the vector "
                      "half and takes the core that MariaDB and the rest of the turn need. Limiting BLAS to one "
                      "thread in serving processes (OPENBLAS_NUM_THREADS=1 before numpy loads, or threadpoolctl) "
                      "is the sidecar's fix, not the bench's." if tb["spinning"] else "."))
    if c := f["shared_cores"]:
        out.append(f"**Shared cores**: other processes used {c['others']:.2f} of the "
                   f"{c['cores']} cores during the measured turns, beside the bench and its MariaDB's "
                   f"{c['ours']:.2f}, so the figures, the tail above all, include contention for the cores.")
    if qe := f["query_embedding"]:
        q50, q300, embed_ms = qe["q50"], qe["q300"], qe["bench_ms"]
        out.append(("**The query embedding is the turn's largest cost, outside these figures.** " if qe["largest"]
                    else "**The query embedding, outside these figures.** ") + "Hybrid retrieval "
                   "embeds every customer message before the turn opens a transaction; the bench's embedder "
                   + (f"costs {embed_ms:.2f} ms per turn here, " if embed_ms is not None else "")
                   + f"the local model p50 {q50['cpu'].p50:.1f} ms CPU / {q50['wall'].p50:.1f} ms wall for a "
                   f"50-character message and {q300['cpu'].p50:.1f} ms CPU / {q300['wall'].p50:.1f} ms wall for a "
                   f"300-character one ({q300['tokens']} tokens, {qe['cpu_per_token']:.1f} ms "
                   "CPU a token on one thread; *Embedding*). A turn of a 300-character message thus costs about "
                   f"{qe['turn_ms']:.0f} ms of sidecar time at the median, "
                   f"{qe['of_target']:.1f}× the {TARGET_QUERY_EMBED_CPU_MS:.0f} ms CPU "
                   "target for the embedding alone; a remote embedder moves that cost to a network round trip, and "
                   "`RTAC_RETRIEVAL=fulltext` removes it (and retrieval by meaning) for customers without memories.")
    if mem := f["memory"]:
        recall_ms = mem["recall_ms"]
        out.append("**Memory for a customer who has some** adds to the figures above (whose customers have none"
                   + (f"; recall cost {recall_ms:.2f} ms per turn there" if recall_ms is not None else "")
                   + f"): reading and choosing memories, p50 {mem['cached_p50']:.2f} ms with the index cached "
                   f"(*Memory retrieval overhead*); the query embedding is the one the turn already made.")
    return out
