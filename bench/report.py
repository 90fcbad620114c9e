"""bench/RESULTS.md, rewritten on every run from what that run measured."""
from __future__ import annotations

from pathlib import Path

from .chat import LENGTHS
from .corpus import CORPUS_MIX, DEFAULT_LANG, VISITOR_MIX

TARGET_P50_MS = 15.0
TARGET_P99_MS = 50.0


def _f(x: float, nd: int = 2) -> str:
    return f"{x:.{nd}f}"


def _verdict(value: float, target: float) -> str:
    return "**met**" if value <= target else "**not met**"


def write_report(path: Path, run: dict, dbs: dict, queries: dict, chat: dict,
                 whatif_results: dict | None = None) -> None:
    m = run["machine"]
    srv = run["server"]
    s_all = chat["summaries"]["all turns"]
    bd = chat["breakdown"]
    n = len(chat["records"])
    tps = n / chat["wall"]
    stage = {label.strip(): ms for label, ms, _ in bd.stage_rows()}
    db_rows = bd.db_rows()
    db_ms = sum(r[3] for r in db_rows)
    db_trips = sum(r[1] for r in db_rows)
    req_ms = bd.request_total * 1000.0 / bd.turns
    L: list[str] = []
    w = L.append

    w("# rtac sidecar benchmark")
    w("")
    w(f"Written by `{run['argv']}`" + (" (via `make bench`)" if run["via_make"] else "")
      + f" on {run['started_at'].strftime('%Y-%m-%d %H:%M UTC')}, commit `{run['commit'] or '?'}`"
      + (" with uncommitted changes" if run["dirty"] else "") + f"; the whole run took {run['runtime_s']:.0f} s."
      + (" **Quick smoke run: small corpora, few turns; not the figures of record.**" if run["quick"] else ""))
    if run.get("source_note"):
        w(f"Sidecar code: {run['source_note']}.")
    w("Every figure below was measured by this run; the file is overwritten on each run.")
    w("")
    w("## Targets")
    w("")
    w("| spec target (10k chunks, 2 cores) | measured | verdict |")
    w("|---|---:|---|")
    w(f"| sidecar overhead per turn p50 ≤ {TARGET_P50_MS:.0f} ms | {_f(s_all.p50)} ms | {_verdict(s_all.p50, TARGET_P50_MS)} |")
    w(f"| sidecar overhead per turn p99 ≤ {TARGET_P99_MS:.0f} ms | {_f(s_all.p99)} ms | {_verdict(s_all.p99, TARGET_P99_MS)} |")
    w("")
    w(f"Measured on {m['cores']} cores with the bench's MariaDB on the same machine, single-threaded "
      f"({_f(tps, 0)} turns/s). CPU during the measured turns: {chat['cpu']}"
      + (" — other processes (other engineers' runs) shared the 2 cores, so these figures, the tail above all, "
         "are pessimistic." if chat["cpu_others"] >= 0.15 else "."))
    w("")
    w("## Summary")
    w("")
    for line in findings(run, dbs, queries, chat, stage, db_rows, req_ms):
        w(f"- {line}")
    w("")
    w("## Machine")
    w("")
    w(f"- CPU: {m['cpu']}, {m['cores']} cores; RAM {m['ram_gb']:.1f} GB; {m['os']} (kernel {m['kernel']})")
    w(f"- Python {m['python']}; " + ", ".join(f"{k} {v}" for k, v in m["packages"].items()))
    w(f"- MariaDB {srv.get('version', '?')}, a throwaway server started by `scripts/mariadb-local` "
      f"(innodb_buffer_pool_size {int(srv.get('innodb_buffer_pool_size', 0)) // 2**20} MB, "
      f"innodb_flush_log_at_trx_commit {srv.get('innodb_flush_log_at_trx_commit')}, "
      f"innodb_ft_min_token_size {srv.get('innodb_ft_min_token_size')}, "
      f"innodb_ft_cache_size {int(srv.get('innodb_ft_cache_size', 0)) // 10**6} MB, "
      f"query_cache_type {srv.get('query_cache_type')}), TCP on 127.0.0.1")
    w(f"- Load average at start {run['loadavg_start']}, at end {run['loadavg_end']}")
    w("")
    w("## Method")
    w("")
    w(f"- **Corpus.** Deterministic (seed {run['seed']}): per language (et, en, ru, es, ko) a vocabulary of "
      "function words at the head of a Zipf–Mandelbrot curve (s = 1.05), a few hundred real business-site "
      "words and several thousand generated words that look like the language; inflected forms (Estonian "
      "cases, Russian endings, Korean particles, plurals) share their lemma's weight. Sentences of 8–20 words, "
      "some with a shared product code or a price/time/number; chunks of ~500–900 characters; 1–6 chunks per "
      "titled document. Language mix of the site (default language "
      f"`{DEFAULT_LANG}`): " + ", ".join(f"{k} {v:.0%}" for k, v in CORPUS_MIX.items()) + ".")
    w("- **Loading.** One database per corpus size (InnoDB's FULLTEXT index is table-wide, so sizes in one "
      "table would disturb each other; one extra small site shares the big table on purpose, see below), one "
      "site in each, "
      "`sidecar.migrate.migrate` and `sidecar.sites.add_site`. Rows go straight into `rtac_documents` / "
      "`rtac_chunks`, 2,000 chunks per `executemany`, one transaction per batch, generated in a worker "
      "process while the previous batch is inserted. `search_text` is `sidecar.searchtext.index_text(title + "
      "\"\\n\" + content, lang)` (memoised per whitespace-separated piece, which gives the identical string; "
      "checked against `index_text` itself for one chunk per batch).")
    w("- **Settling the index.** After loading: `SET GLOBAL innodb_optimize_fulltext_only=ON`, "
      "`OPTIMIZE TABLE rtac_chunks` repeatedly (innodb_ft_num_word_optimize 10000 words per pass) until done, "
      "then `OFF`. InnoDB only merges word nodes when it has deleted doc ids to purge, so a sentinel chunk is "
      "inserted and deleted first; completion = `INNODB_FT_DELETED` and `INNODB_FT_BEING_DELETED` empty again. "
      "Then `ANALYZE TABLE`. Where it is cheap to count (≤ 10k), the word-node counts before/after are shown.")
    w(f"- **Chat turn.** `Services.build` on the {chat['size']} database, then `services.provider` = an in-bench "
      "provider (`name=\"instant\"`) returning a valid `rtac_reply` JSON at once (usage 100/20 tokens; 5 % of "
      "replies `unanswered`, so the unanswered log is written too). Each turn is a signed `POST /v1/chat` "
      "through `app.test_client()`; the body is built and signed before the clock starts, the timer wraps "
      "only the request. Every request pins a price list of "
      f"{chat['pinned_chars']:,} characters. Visitors' languages: "
      + ", ".join(f"{k} {v:.0%}" for k, v in VISITOR_MIX.items())
      + "; conversation lengths " + ", ".join(f"{n} turn{'s' if n > 1 else ''} {p:.0%}" for n, p in LENGTHS)
      + f", 6 conversations interleaved, 20 % of new conversations from returning visitors, 10 % logged-in. "
      f"{run['turns']['warmup']} warm-up turns, then {run['turns']['measured']} measured "
      f"({chat['conversations']} conversations, {chat['visitors']} visitors by the end of the run). "
      f"Then {run['turns']['instrumented']} more turns with timers wrapped around the sidecar's functions and "
      f"PyMySQL's round trips (the breakdown), and {run['turns']['profiled']} under cProfile.")
    w(f"- **FULLTEXT query.** `sidecar.retrieval.retrieve(conn, site_id, lang, '{DEFAULT_LANG}', question)` on "
      f"one connection (top 8, visitor language first, default-language fallback), {run['queries']['warmup']} "
      f"warm-up then {run['queries']['measured']} measured questions per kind and size. Each candidate question "
      "is timed once and classified from what came back (the visitor-language query only returns chunks in "
      "that language): *fills 8* — an et/en/ru/es visitor asking 1–4 ordinary words of their language, where "
      "the visitor-language query alone returns 8 (one SQL query); *fallback* — an en/ru/es/ko visitor who "
      "types the question in the site's default language (Estonian words), so the visitor-language query "
      "finds fewer than 8 and the default-language query runs too (two SQL queries); *mixed* — the chat "
      "bench's question mix, nothing rejected.")
    w(f"- **What-if.** The same retrieval through alternative query forms written in the bench (the "
      f"sidecar is unchanged), on {', '.join(f'{n} mixed questions at {k}' for k, n in run['whatif_sizes'].items())}; "
      f"and {run['turns']['whatif']} chat turns for each of current / two-step / two-step + stopwords, with "
      "`sidecar.turn.retrieve` swapped in the bench process, interleaved in blocks of 10. See *Bottlenecks* below.")
    w("")

    w("## Corpus as loaded")
    w("")
    w("| size | chunks | documents | chunks by language | mean chunk chars | distinct index terms | load s | "
      "OPTIMIZE passes / s | word nodes before → after | data+index MB |")
    w("|---|---:|---:|---|---:|---:|---:|---:|---|---:|")
    for label, d in dbs.items():
        st = d["stats"]
        nodes = (f"{d['nodes_before'][0]:,} → {d['nodes_after'][0]:,} ({d['nodes_after'][1]:,} words)"
                 if d["nodes_after"] and d["nodes_before"] else "not counted")
        langs = " ".join(f"{k} {v:,}" for k, v in sorted(st.lang_chunks.items(), key=lambda kv: -kv[1]))
        w(f"| {label} | {st.chunks:,} | {st.documents:,} | {langs} | {st.chars / st.chunks:.0f} | "
          f"{st.distinct_terms:,} | {st.load_s:.1f} | {st.optimize_passes} / {st.optimize_s:.1f} | {nodes} | "
          f"{st.db_mb:.0f} |")
        sh = d.get("shared")
        if sh:
            x = sh["stats"]
            langs = " ".join(f"{k} {v:,}" for k, v in sorted(x.lang_chunks.items(), key=lambda kv: -kv[1]))
            w(f"| + {x.chunks // 1000}k, second site in the {label} table | {x.chunks:,} | {x.documents:,} | {langs} | "
              f"{x.chars / x.chunks:.0f} | (in the {label} figure) | {x.load_s:.1f} | (with {label}) | | |")
    w("")

    w(f"## Sidecar overhead per chat turn ({chat['chunks']:,} chunks)")
    w("")
    w("| turns | n | p50 ms | p90 ms | p99 ms | mean ms | max ms |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    for k, s in chat["summaries"].items():
        w(f"| {k} | {s.n} | {_f(s.p50)} | {_f(s.p90)} | {_f(s.p99)} | {_f(s.mean)} | {_f(s.max)} |")
    w("")
    w(f"Throughput single-threaded: **{tps:.0f} turns/s** ({n} turns in {chat['wall']:.1f} s wall; the bench "
      f"process used {chat['cpu_s'] / n * 1000:.2f} ms CPU per turn, test client included). "
      f"Failed turns: {len(chat['errors'])}.")
    w("")

    w("### Where the time goes")
    w("")
    w(f"Per turn, mean over {bd.turns} instrumented turns (timers wrapped around the sidecar functions; "
      f"indented rows are inside the row above them). Request total {req_ms:.2f} ms.")
    w("")
    w("| stage | ms / turn | share of request | calls / turn |")
    w("|---|---:|---:|---:|")
    covered = stage.get("signature check (HMAC, site, nonce)", 0) + stage.get("JSON decode", 0) \
        + stage.get("validation (parse_chat)", 0) + stage.get("chat_turn (all of it)", 0)
    for label, ms, calls in bd.stage_rows():
        name = label.strip()
        shown = ("&nbsp;&nbsp;&nbsp;&nbsp;" if label.startswith("  ") else "") + name
        w(f"| {shown} | {_f(ms)} | {ms / req_ms:.0%} | {calls:.2f} |" if calls else
          f"| {shown} | {_f(ms)} | {ms / req_ms:.0%} | |")
    w(f"| Flask / Werkzeug / test client (rest of the request) | {_f(req_ms - covered)} | "
      f"{(req_ms - covered) / req_ms:.0%} | |")
    w("")
    w(f"Database round trips per turn: **{db_trips:.1f}**, {db_ms:.2f} ms of the {req_ms:.2f} ms "
      f"({db_ms / req_ms:.0%}; client-side wait for MariaDB over TCP, measured in PyMySQL):")
    w("")
    w("| statement | per turn | mean ms | ms / turn |")
    w("|---|---:|---:|---:|")
    for kind, per, mean, ms in db_rows:
        w(f"| {kind} | {per:.2f} | {mean:.3f} | {ms:.2f} |")
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

    w("## FULLTEXT query time (`retrieve`, top 8)")
    w("")
    w("| chunks | kind | n | p50 ms | p90 ms | p99 ms | mean ms | avg chunks returned | needed fallback | "
      "visitor languages |")
    w("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for label, results in queries.items():
        for r in results:
            s = r.summary
            w(f"| {dbs[label]['stats'].chunks:,} | {r.kind} | {s.n} | {_f(s.p50)} | {_f(s.p90)} | {_f(s.p99)} | "
              f"{_f(s.mean)} | {r.avg_chunks:.2f} | {r.fallback_share:.0%} | {r.langs} |")
        sh = dbs[label].get("shared")
        if sh and sh.get("result"):
            r, s = sh["result"], sh["result"].summary
            total = dbs[label]["stats"].chunks + sh["stats"].chunks
            w(f"| {sh['stats'].chunks:,} (a second site in the {total:,}-chunk table) | {r.kind} | {s.n} | "
              f"{_f(s.p50)} | {_f(s.p90)} | {_f(s.p99)} | {_f(s.mean)} | {r.avg_chunks:.2f} | "
              f"{r.fallback_share:.0%} | {r.langs} |")
    w("")
    shared = [(label, d) for label, d in dbs.items() if d.get("shared")]
    if shared:
        label, d = shared[0]
        w(f"The {label} database also holds a second site of {d['shared']['stats'].chunks:,} chunks (its own "
          f"documents, same languages) in the same `rtac_chunks` table, loaded before the index was settled; "
          f"the {label} rows are for site `{d['site'].id}` in that table.")
        w("")
    w("Machine load while querying: " + "; ".join(f"{label}: {d['query_cpu']}" for label, d in dbs.items()) + ".")
    w("")

    if whatif_results:
        w("## What-if: alternative retrieval queries (measured, sidecar unchanged)")
        w("")
        w("*two-step*: the ranking query selects only `(id, score)` and the 8 winners' content/title/url are "
          "fetched by id afterwards — the same MATCH, filters and ORDER BY, so the same result. *+ query "
          "stopwords*: two-step, with `sidecar.searchtext.stopwords(lang)` removed from the FULLTEXT query "
          "(changes the ranking; relevance was not judged). *COUNT(\\*)*: only counts the chunks the "
          "visitor-language MATCH touches, with the same site and language filter, returning no rows.")
        w("")
        w("| chunks | variant | n | p50 ms | p90 ms | p99 ms | mean ms | same top-8 as current | overlap with "
          "current top 8 | on-disk temp tables per retrieve |")
        w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for label, rows in whatif_results.items():
            for r in rows:
                x = r.summary
                same = "—" if r.same_as_current is None else f"{r.same_as_current:.0%}"
                overlap = (f"(matches {r.mean_matches:,.0f} chunks on average)" if r.mean_matches is not None
                           else f"{r.overlap:.0%}")
                w(f"| {dbs[label]['stats'].chunks:,} | {r.variant} | {x.n} | {_f(x.p50)} | {_f(x.p90)} | "
                  f"{_f(x.p99)} | {_f(x.mean)} | {same} | {overlap} | {r.disk_tmp_per_query:.2f} |")
        w("")
        if chat.get("whatif_turns"):
            w(f"Chat turns at {chat['chunks']:,} chunks with each variant as `sidecar.turn.retrieve` "
              f"({run['turns']['whatif']} turns each, in interleaved blocks of 10, "
              "continuing the same stream of conversations):")
            w("")
            w("| retrieval | n | p50 ms | p90 ms | p99 ms | mean ms |")
            w("|---|---:|---:|---:|---:|---:|")
            for name, x in chat["whatif_turns"].items():
                w(f"| {name} | {x.n} | {_f(x.p50)} | {_f(x.p90)} | {_f(x.p99)} | {_f(x.mean)} |")
            w("")

    emb = chat.get("embed")
    if emb:
        x = emb["summary"]
        w("## Memory recall: the embedding the measured turns did not pay")
        w("")
        recall_ms = stage.get("memory recall")
        w("Memory is on (the configuration's default), but in the bench no memory is ever extracted (the "
          "instant provider's replies are never mined: `Services.build(background=False)` runs no extraction "
          "worker), so no customer has memories and `Memory.recall` never embeds"
          + (f" (it costs {recall_ms:.2f} ms per turn in the breakdown above)" if recall_ms is not None else "")
          + ". A customer *with* memories also has the message embedded on the turn. Measured here with "
          f"the configured embedder `{emb['model']}` on {x.n} chat messages (mean {emb['chars']:.0f}, max "
          f"{emb['max_chars']} characters), one call each, after a first call of {emb['first_s'] * 1000:.0f} ms "
          "(model load):")
        w("")
        w("| embed one message | n | p50 ms | p90 ms | p99 ms | mean ms |")
        w("|---|---:|---:|---:|---:|---:|")
        w(f"| {emb['model']} | {x.n} | {_f(x.p50)} | {_f(x.p90)} | {_f(x.p99)} | {_f(x.mean)} |")
        w("")
        w("These milliseconds come on top of the overhead above for every turn of a returning customer who "
          "has memories; they are not part of the target figures, which this bench measured without them.")
        w("")

    w("## Bottlenecks and what would fix them")
    w("")
    for line in bottlenecks(run, dbs, queries, chat, stage, db_rows, req_ms, whatif_results):
        w(f"- {line}")
    w("")

    path.write_text("\n".join(L) + "\n", encoding="utf-8")


def findings(run, dbs, queries, chat, stage, db_rows, req_ms) -> list[str]:
    s = chat["summaries"]["all turns"]
    out = []
    met = s.p50 <= TARGET_P50_MS and s.p99 <= TARGET_P99_MS
    out.append(f"Overhead targets **{'met' if met else 'not met'}**: p50 {s.p50:.2f} ms (target ≤ {TARGET_P50_MS:.0f}), "
               f"p99 {s.p99:.2f} ms (target ≤ {TARGET_P99_MS:.0f}) at {chat['chunks']:,} chunks"
               + (f", with other processes using {chat['cpu_others']:.2f} of the 2 cores meanwhile"
                  if chat["cpu_others"] >= 0.15 else "") + ".")
    leaves = {k: v for k, v in stage.items() if k not in ("chat_turn (all of it)",
                                                          "signature check (HMAC, site, nonce)")}
    top = sorted(leaves.items(), key=lambda kv: -kv[1])[:4]
    out.append("Largest stages per turn: " + ", ".join(f"{k} {v:.2f} ms ({v / req_ms:.0%})" for k, v in top) + ".")
    db_ms = sum(r[3] for r in db_rows)
    trips = sum(r[1] for r in db_rows)
    out.append(f"{trips:.1f} database round trips per turn take {db_ms:.2f} ms ({db_ms / req_ms:.0%} of the request, "
               "FULLTEXT included); the rest is Python in the sidecar, Flask and the test client.")
    growth = [(dbs[k]["stats"].chunks, _q(queries, k, "mixed")) for k in queries]
    if all(r for _, r in growth):
        out.append("FULLTEXT retrieval time grows with the corpus (mixed questions, p50 / p99): "
                   + ", ".join(f"{n:,} chunks {r.summary.p50:.1f} / {r.summary.p99:.1f} ms" for n, r in growth) + ".")
    wt = chat.get("whatif_turns") or {}
    if "current retrieve()" in wt:
        c = wt["current retrieve()"]
        parts = [f"{name}: p50 {x.p50:.1f} ms, p99 {x.p99:.1f} ms" for name, x in wt.items()
                 if name != "current retrieve()"]
        out.append(f"Measured what-if turns (interleaved; current p50 {c.p50:.1f} ms, p99 {c.p99:.1f} ms): "
                   + "; ".join(parts) + ". See *Bottlenecks*.")
    shared = next((d for d in dbs.values() if d.get("shared", {}).get("result")), None)
    own = _q(queries, "1k", "mixed")
    if shared and own:
        sh = shared["shared"]
        out.append(f"The FULLTEXT index is table-wide: a {sh['stats'].chunks:,}-chunk site sharing `rtac_chunks` with "
                   f"{shared['stats'].chunks:,} chunks of another site: p50 {own.summary.p50:.1f} → "
                   f"{sh['result'].summary.p50:.1f} ms per retrieve.")
    emb = chat.get("embed")
    if emb:
        out.append(f"Not in the figures above: a customer with stored memories also has the message embedded on the "
                   f"turn, p50 {emb['summary'].p50:.1f} ms / p99 {emb['summary'].p99:.1f} ms here ({emb['model']}).")
    return out


def _q(queries: dict, label: str, kind: str):
    return next((r for r in queries.get(label, []) if r.kind == kind), None)


def bottlenecks(run, dbs, queries, chat, stage, db_rows, req_ms, whatif_results) -> list[str]:
    out = []
    retrieve_ms = stage.get("retrieve (FULLTEXT)", 0.0)
    ft = next((r for r in db_rows if r[0] == "SELECT rtac_chunks FULLTEXT"), None)
    sizes = [(dbs[k]["stats"].chunks, _q(queries, k, "mixed")) for k in queries]
    growth = ", ".join(f"{n:,} chunks p50 {r.summary.p50:.1f} / p99 {r.summary.p99:.1f} ms" for n, r in sizes if r)
    out.append(
        f"**`sidecar.retrieval.retrieve` dominates the turn**: {retrieve_ms:.2f} of {req_ms:.2f} ms per turn "
        f"({retrieve_ms / req_ms:.0%})" + (f", {ft[2]:.2f} ms per FULLTEXT statement" if ft else "")
        + f". Its cost grows with the corpus (mixed questions: {growth}): natural-language MATCH scores every "
        "chunk that contains any query term, so the time follows the posting lists of the query's terms, not "
        "the 8 rows returned.")
    wi = {r.variant: r for r in (whatif_results or {}).get("10k", [])}
    cur, two, stop = (wi.get("current retrieve()"), wi.get("two-step (ids, then fetch)"),
                      wi.get("two-step + query stopwords"))
    wt = chat.get("whatif_turns", {})
    if cur and two:
        line = (f"**Cause 1 — the TEXT columns ride through the sort.** `_SEARCH` selects `c.content` "
                "(MEDIUMTEXT) and the joined title/url in the same statement that orders *all* matches by score "
                "(`Using temporary; Using filesort`); MariaDB cannot keep TEXT in a memory temporary table, so "
                f"every retrieve writes an on-disk one ({cur.disk_tmp_per_query:.2f} `Created_tmp_disk_tables` per "
                "retrieve, measured). **Fix** (no change in results): rank ids only — `SELECT c.id, MATCH(...) AS "
                "score FROM rtac_chunks c WHERE c.site_id=:site AND c.lang=:lang AND MATCH(...) ORDER BY score "
                "DESC, c.id LIMIT :k` — then fetch the ≤ 8 rows with the join by `c.id IN (...)`. Measured at "
                f"{dbs['10k']['stats'].chunks:,} chunks: p50 {cur.summary.p50:.2f} → {two.summary.p50:.2f} ms, "
                f"p99 {cur.summary.p99:.2f} → {two.summary.p99:.2f} ms, identical top 8 for "
                f"{two.same_as_current:.0%} of questions")
        big = {r.variant: r for r in (whatif_results or {}).get("100k", [])}
        if big.get("current retrieve()") and big.get("two-step (ids, then fetch)"):
            line += (f"; at {dbs['100k']['stats'].chunks:,}: p50 {big['current retrieve()'].summary.p50:.1f} → "
                     f"{big['two-step (ids, then fetch)'].summary.p50:.1f} ms")
        if "two-step (ids, then fetch)" in wt:
            x, c = wt["two-step (ids, then fetch)"], wt.get("current retrieve()")
            line += (f"; whole turn p50 {c.p50:.2f} → {x.p50:.2f} ms, p99 {c.p99:.2f} → {x.p99:.2f} ms "
                     "(interleaved what-if turns)" if c else f"; whole turn p50 {x.p50:.2f} ms, p99 {x.p99:.2f} ms")
        out.append(line + ".")
    cnt = wi.get("COUNT(*) of the visitor-language MATCH")
    count_txt = ""
    if cnt and two:
        count_txt = (f": a visitor-language query touches {cnt.mean_matches:,.0f} of the "
                     f"{dbs['10k']['stats'].chunks:,} chunks on average to return 8, and merely counting them takes "
                     f"p50 {cnt.summary.p50:.2f} ms of the two-step search's {two.summary.p50:.2f} ms")
    if stop:
        line = ("**Cause 2 — every query term is searched, however common.** InnoDB's built-in stopword list is "
                f"{run['server'].get('default_stopwords', '36')} English words; the question words and fillers of et/ru/es/ko ('kui palju', 'сколько', 'you "
                "have') stay in the query, and their posting lists cover much of the site" + count_txt + ". "
                "**Fix**: "
                "leave `sidecar.searchtext.stopwords(lang)` (already used by the offline provider) out of "
                "`query_text` for FULLTEXT, keeping the full question when nothing else is left. Measured with "
                f"two-step: p50 {stop.summary.p50:.2f} ms, p99 {stop.summary.p99:.2f} ms at "
                f"{dbs['10k']['stats'].chunks:,} chunks")
        big = {r.variant: r for r in (whatif_results or {}).get("100k", [])}
        if big.get("two-step + query stopwords"):
            line += f", p50 {big['two-step + query stopwords'].summary.p50:.1f} ms at {dbs['100k']['stats'].chunks:,}"
        if "two-step + query stopwords" in wt:
            x, c = wt["two-step + query stopwords"], wt.get("current retrieve()")
            line += (f"; whole turn p50 {c.p50:.2f} → {x.p50:.2f} ms, p99 {c.p99:.2f} → {x.p99:.2f} ms"
                     if c else f"; whole turn p50 {x.p50:.2f} ms, p99 {x.p99:.2f} ms")
        line += (f". It changes the ranking (same top 8 for {stop.same_as_current:.0%} of questions, "
                 f"{stop.overlap:.0%} overlap): check relevance on real site content before adopting it.")
        out.append(line)
    shared = next((d for d in dbs.values() if d.get("shared", {}).get("result")), None)
    own = _q(queries, "1k", "mixed")
    if shared and own:
        sh = shared["shared"]
        total = shared["stats"].chunks + sh["stats"].chunks
        out.append(f"**The FULLTEXT index is table-wide.** `rtac_chunks` holds every site's chunks in one index and "
                   "`site_id`/`lang` filter only after MATCH, so a site pays for the postings of every site in the "
                   f"table. Measured: the same kind of questions on a {sh['stats'].chunks:,}-chunk site take p50 "
                   f"{own.summary.p50:.1f} ms alone in its table and {sh['result'].summary.p50:.1f} ms (p99 "
                   f"{own.summary.p99:.1f} → {sh['result'].summary.p99:.1f} ms) when it shares the table with "
                   f"{total - sh['stats'].chunks:,} chunks of another site. A sidecar serving many sites should size "
                   "for its total chunk count, or keep big sites' chunks apart (a table, or a database, per site).")
    pings = next((r for r in db_rows if r[0].startswith("ping")), None)
    rollbacks = next((r for r in db_rows if r[0] == "ROLLBACK"), None)
    nonce = stage.get("nonce INSERT + COMMIT", 0.0)
    trips = sum(r[1] for r in db_rows)
    fixed = []
    if pings:
        fixed.append(f"{pings[1]:.0f} pool pre-pings ({pings[3]:.2f} ms)")
    if rollbacks:
        fixed.append(f"{rollbacks[1]:.0f} reset-on-return ROLLBACKs after already-committed transactions "
                     f"({rollbacks[3]:.2f} ms)")
    emb = chat.get("embed")
    if emb:
        out.append(f"**Memory recall embeds on the visitor's clock.** For a customer with memories, "
                   f"`Memory.recall` embeds the message in the turn: p50 {emb['summary'].p50:.1f} ms, p99 "
                   f"{emb['summary'].p99:.1f} ms with `{emb['model']}` here — alone "
                   f"{'above' if emb['summary'].p50 > TARGET_P50_MS else 'a large part of'} the {TARGET_P50_MS:.0f} ms "
                   "p50 budget. Options: embed only when the space has memories close enough to matter (a cheap "
                   "lexical prefilter), cap the embedded text shorter, or start the embedding concurrently with "
                   "the FULLTEXT query (it runs on its own worker thread already) instead of after it.")
    out.append(f"**The rest is round trips, each small.** {trips:.1f} per turn; of them "
               + ", ".join(fixed) + f", and the nonce's own transaction ({nonce:.2f} ms). Together about "
               f"{(pings[3] if pings else 0) + (rollbacks[3] if rollbacks else 0) + nonce:.1f} ms: worth trimming "
               "only after retrieval (e.g. `pool_reset_on_return=None` is safe only if every checkout ends "
               "its own transaction, which `SiteRegistry.get`'s `engine.connect()` does not).")
    return out
