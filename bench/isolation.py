"""Site isolation: a small site's lexical retrieval alone, and next to a big site.

    python -m bench.isolation [--quick] [--rounds N] [--queries N]   # prints `## Site isolation`

One FULLTEXT index for every site's chunks made a small site pay for the biggest
one's text: InnoDB's natural-language ranking reads and scores every posting of the
query's words before the site filter applies. Each site now has a FULLTEXT table of
its own (sidecar/fulltext.py). Measured here, in the bench's MariaDB:

- two databases, migrated: *alone* holds a 1,000-chunk site; *shared* holds the same
  site (the same seeded chunks) and a 100,000-chunk site. The chunks are the bench's
  synthetic five-language corpus (bench/corpus.py), written straight into
  rtac_chunks the way releases before per-site tables stored them (bench/db.py's
  load_corpus), then moved into each site's table by `sidecar.fulltext.sync_site`
  (what `rtac init-db` runs after the upgrade); every FULLTEXT index (the shared one
  and each site's) is then settled as bench/db.py settles one (OPTIMIZE until merged).
- `sidecar.retrieval.retrieve(conn, site, lang, 'et', question)`, the lexical half
  alone (FULLTEXT candidates re-scored with BM25, top 8), on bench/query.py's mixed
  questions, timed per call: **after**, the site ranked in its own table; **before**,
  the same call with the site's `ft_ready` cleared, so it is ranked in rtac_chunks'
  shared index by the statement releases before used (the same code path otherwise).
- The four cases are measured in rounds, rotating their order, and each figure is
  the median over rounds of that round's p50 (p99): the machine's other load (2
  shared cores) moves between rounds, and a case measured in one go would take it
  all. The machine's load is reported with them.
- With `--site-token`, the alternative that keeps one table: each chunk's search text
  carries a token of its site, required in BOOLEAN MODE (`+tok words`); only the
  ranking statement is timed, beside the same statement in the site's own table and
  in the shared index.

Target: next to the big site, within 1.5x of the time alone.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import random
import statistics
import time

from sqlalchemy import text, update
from sqlalchemy.engine import Engine

from sidecar import fulltext
from sidecar import tables as t
from sidecar.db import create_engine
from sidecar.searchtext import query_terms
from sidecar.sites import add_site

from . import query
from .corpus import DEFAULT_LANG, SEED, VISITOR_MIX, Corpus
from .db import LoadStats, fulltext_optimizing, load_corpus, make_pool, merge_word_nodes, optimize_fulltext
from .stats import CpuMeter, Summary, loadavg

HEADING = "## Site isolation"
SMALL, BIG = 1_000, 100_000
QUICK_SMALL, QUICK_BIG = 1_000, 10_000
SMALL_LABEL = "1k-shared"  # the same seeded chunks in both databases, with run.py's shared site's ids
SMALL_ID_OFFSET = 10_000_000
TARGET = 1.5


def settle_site_table(engine: Engine, database: str, name: str, distinct_terms: int) -> int:
    """OPTIMIZE a site's FULLTEXT table until its word nodes are merged, as
    bench/db.optimize_fulltext does for rtac_chunks: InnoDB merges only while it has
    deleted doc ids to purge, so one sentinel chunk is written and deleted first (its
    row here goes with it by the foreign key). Returns the passes."""
    ft = fulltext.table(int(name.rsplit("_", 1)[1]))
    with engine.connect() as conn:
        with fulltext_optimizing(conn):
            conn.exec_driver_sql(f"OPTIMIZE TABLE {name}").all()  # syncs the FTS cache
            site, doc = conn.execute(text("SELECT site_id, document_id FROM rtac_chunks WHERE id ="
                                          f" (SELECT MIN(chunk_id) FROM {name})")).one()
            chunk = conn.execute(t.chunks.insert().values(site_id=site, document_id=doc, lang="et", seq=999999,
                                                          content="sentinel", search_text="sentinel")
                                 ).inserted_primary_key[0]
            conn.execute(ft.insert().values(chunk_id=chunk, site_id=site, lang="et", search_text="sentinel"))
            conn.commit()
            conn.execute(t.chunks.delete().where(t.chunks.c.id == chunk))
            conn.commit()
            passes = merge_word_nodes(conn, database, name, distinct_terms)
        conn.execute(text(f"ANALYZE TABLE {name}")).all()
    return passes


def _load(mdb, keyring, database: str, sites: list[tuple[str, str, int, int]], pool) -> tuple[Engine, dict]:
    """Sites (id, corpus label, chunks, id offset) loaded the old way (load_corpus then
    moves them into their own tables); the biggest site's table is emptied and filled
    again by `fulltext.sync_site` on the clock, as `rtac init-db` fills it after the
    upgrade; then every index is settled."""
    engine = create_engine(mdb.create_database(database))
    loaded = {}
    for site_id, label, n, offset in sites:
        site = add_site(engine, keyring, site_id, default_lang=DEFAULT_LANG)
        stats = load_corpus(engine, site.id, label, n, SEED, pool, id_offset=offset, vectors=False)
        with engine.connect() as conn:
            name = fulltext.locate(conn, site.id).table
        loaded[site.id] = {"stats": stats, "table": name}
    biggest = max(loaded, key=lambda k: loaded[k]["stats"].chunks)
    with engine.begin() as conn:
        conn.execute(text(f"TRUNCATE TABLE {loaded[biggest]['table']}"))
    _set_ready(engine, biggest, False)
    t0 = time.perf_counter()
    synced = fulltext.sync_site(engine, biggest)
    sync_s = time.perf_counter() - t0
    for site_id, d in loaded.items():
        with engine.connect() as conn:
            held = conn.execute(text(f"SELECT COUNT(*) FROM {d['table']}")).scalar_one()
            ready = fulltext.locate(conn, site_id).table == d["table"]
        if held != d["stats"].chunks or not ready:
            raise RuntimeError(f"{d['table']} holds {held} of {d['stats'].chunks} chunks of {site_id}")
    all_terms = LoadStats("all", terms=set().union(*(d["stats"].terms for d in loaded.values())))
    t0 = time.perf_counter()
    optimize_fulltext(engine, database, all_terms)
    for d in loaded.values():
        d["settle_passes"] = settle_site_table(engine, database, d["table"], d["stats"].distinct_terms)
    return engine, {"sites": loaded, "settle_s": time.perf_counter() - t0, "sync_s": sync_s,
                    "synced": synced.copied, "biggest": biggest}


def _mariadbd_pid(mdb) -> int | None:
    try:
        return int((mdb.dir / "mariadb.pid").read_text().strip())
    except (OSError, ValueError):
        return None


def _set_ready(engine: Engine, site_id: str, ready: bool) -> None:
    with engine.begin() as conn:
        conn.execute(update(t.sites).where(t.sites.c.id == site_id).values(ft_ready=ready))


def _measure(engine: Engine, site_id: str, own_table: bool, corpus: Corpus, n: int, warmup: int) -> Summary:
    _set_ready(engine, site_id, own_table)
    return query.measure(engine, site_id, corpus, "mixed", n, warmup, SEED).summary


# --- the alternative: one table, a site token required in BOOLEAN MODE ------------------------

TOKEN_TABLE = "bench_site_token"


def _site_token(site_id: str) -> str:
    return "zzsite" + hashlib.sha256(site_id.encode()).hexdigest()[:10]


def _build_token_table(engine: Engine, database: str) -> float:
    t0 = time.perf_counter()
    with engine.begin() as conn:
        conn.execute(text(f"DROP TABLE IF EXISTS {TOKEN_TABLE}"))
        conn.execute(text(f"CREATE TABLE {TOKEN_TABLE} (id BIGINT UNSIGNED NOT NULL PRIMARY KEY,"
                          " site_id VARCHAR(64) NOT NULL, lang VARCHAR(16) NOT NULL, search_text MEDIUMTEXT NOT NULL,"
                          " FULLTEXT KEY ft (search_text)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"))
        site_ids = conn.execute(text("SELECT DISTINCT site_id FROM rtac_chunks")).scalars().all()
    for site_id in site_ids:
        last = 0
        while True:
            with engine.begin() as conn:
                upto = conn.execute(text("SELECT MAX(id) FROM (SELECT id FROM rtac_chunks WHERE site_id = :s"
                                         " AND id > :last ORDER BY id LIMIT 5000) x"),
                                    {"s": site_id, "last": last}).scalar_one()
                if upto is None:
                    break
                conn.execute(text(f"INSERT INTO {TOKEN_TABLE} SELECT id, site_id, lang,"
                                  " CONCAT(search_text, ' ', :tok) FROM rtac_chunks"
                                  " WHERE site_id = :s AND id > :last AND id <= :upto"),
                             {"tok": _site_token(site_id), "s": site_id, "last": last, "upto": upto})
            last = upto
    with engine.connect() as conn:
        conn.execute(text("SET GLOBAL innodb_optimize_fulltext_only = ON"))
        try:
            conn.exec_driver_sql(f"OPTIMIZE TABLE {TOKEN_TABLE}").all()
        finally:
            conn.execute(text("SET GLOBAL innodb_optimize_fulltext_only = OFF"))
        conn.execute(text(f"ANALYZE TABLE {TOKEN_TABLE}")).all()
    return time.perf_counter() - t0


def _rank_statements(site_table: str) -> dict[str, str]:
    nl = "MATCH(c.search_text) AGAINST(:q IN NATURAL LANGUAGE MODE)"
    return {
        "shared index, natural language": (
            f"SELECT c.id, {nl} AS score FROM rtac_chunks c WHERE c.site_id = :site AND c.lang = :lang"
            f" AND {nl} ORDER BY score DESC, c.id LIMIT 40"),
        "shared index, site token required (BOOLEAN MODE)": (
            f"SELECT c.id, MATCH(c.search_text) AGAINST(:bq IN BOOLEAN MODE) AS score FROM {TOKEN_TABLE} c"
            " WHERE c.site_id = :site AND c.lang = :lang AND MATCH(c.search_text) AGAINST(:bq IN BOOLEAN MODE)"
            " ORDER BY score DESC, c.id LIMIT 40"),
        "the site's own table, natural language": (
            f"SELECT c.chunk_id AS id, {nl} AS score FROM {site_table} c WHERE c.site_id = :site"
            f" AND c.lang = :lang AND {nl} ORDER BY score DESC, c.chunk_id LIMIT 40"),
    }


def _rank_times(engine: Engine, site_id: str, site_table: str, n: int, warmup: int, rounds: int) -> dict:
    rng = random.Random(f"questions-{SEED}-mixed")
    corpus = Corpus(SEED)
    questions = []
    while len(questions) < n + warmup:
        lang = rng.choices(list(VISITOR_MIX), list(VISITOR_MIX.values()))[0]
        terms = query_terms(corpus.question(rng, lang, words_max=rng.choice((3, 4, 6, 8))), lang, lang)
        if terms:
            questions.append((lang, terms))
    statements = {k: text(v) for k, v in _rank_statements(site_table).items()}
    per_round = {k: [] for k in statements}
    token = _site_token(site_id)
    with engine.connect() as conn:
        for r in range(rounds):
            order = list(statements)[r % len(statements):] + list(statements)[:r % len(statements)]
            for kind in order:
                seconds = []
                for i, (lang, terms) in enumerate(questions):
                    params = {"q": " ".join(terms), "bq": f"+{token} " + " ".join(terms), "site": site_id,
                              "lang": lang}
                    t0 = time.perf_counter()
                    conn.execute(statements[kind], params).all()
                    elapsed = time.perf_counter() - t0
                    conn.rollback()
                    if i >= warmup:
                        seconds.append(elapsed)
                per_round[kind].append(Summary.of(seconds))
    return {k: {"p50": statistics.median(s.p50 for s in v), "p99": statistics.median(s.p99 for s in v)}
            for k, v in per_round.items()}


# --- the run ----------------------------------------------------------------------------------

CASES = (("alone", True), ("alone", False), ("shared", True), ("shared", False))


def run(mdb, keyring, quick: bool = False, rounds: int | None = None, queries: int | None = None,
        site_token: bool = False) -> dict:
    """mdb: the bench's LocalMariaDB (two databases of its own are created in it)."""
    small, big = (QUICK_SMALL, QUICK_BIG) if quick else (SMALL, BIG)
    rounds = rounds or (2 if quick else 5)
    n = queries or (40 if quick else 200)
    warmup = 5 if quick else 20
    corpus = Corpus(SEED)
    small_id, big_id = "bench-small", "bench-big"
    load_started = time.perf_counter()
    pool = make_pool()
    try:
        alone, alone_info = _load(mdb, keyring, "rtac_bench_iso_alone",
                                     [(small_id, SMALL_LABEL, small, SMALL_ID_OFFSET)], pool)
        shared, shared_info = _load(mdb, keyring, "rtac_bench_iso_shared",
                                       [(big_id, f"{big // 1000}k", big, 0),
                                        (small_id, SMALL_LABEL, small, SMALL_ID_OFFSET)], pool)
    finally:
        pool.close()
        pool.join()
    load_s = time.perf_counter() - load_started
    engines = {"alone": alone, "shared": shared}
    samples = {case: [] for case in CASES}
    big_samples = {True: [], False: []}
    cpu_notes, others = [], []
    pids = [os.getpid()] + ([p] if (p := _mariadbd_pid(mdb)) else [])
    with alone.connect() as conn:
        pool_mb = int(conn.execute(text("SELECT @@GLOBAL.innodb_buffer_pool_size")).scalar_one()) / 2**20
    load_before = loadavg()
    try:
        for r in range(rounds):
            order = CASES[r % len(CASES):] + CASES[:r % len(CASES)]
            with CpuMeter(pids) as cpu:
                for where, own in order:
                    samples[(where, own)].append(_measure(engines[where], small_id, own, corpus, n, warmup))
                for own in ((True, False) if r % 2 == 0 else (False, True)):
                    big_samples[own].append(_measure(shared, big_id, own, corpus, max(20, n // 4), warmup))
            cpu_notes.append(f"round {r + 1}: {cpu.describe()}")
            others.append(cpu.others_cores)
            print(f"[isolation] round {r + 1}/{rounds}: " + ", ".join(
                f"{w} {'own' if o else 'shared'} p50 {samples[(w, o)][-1].p50:.2f} ms" for w, o in order)
                + f"; big own p50 {big_samples[True][-1].p50:.2f} ms, big shared p50 "
                f"{big_samples[False][-1].p50:.2f} ms; {cpu_notes[-1]}", flush=True)
        big_cases = {own: {"p50": statistics.median(s.p50 for s in v), "p99": statistics.median(s.p99 for s in v),
                           "n": v[0].n} for own, v in big_samples.items()}
        _set_ready(shared, big_id, True)
        _set_ready(shared, small_id, True)
        token = None
        if site_token:
            build_s = _build_token_table(shared, "rtac_bench_iso_shared")
            token = {"build_s": build_s,
                     "times": _rank_times(shared, small_id, shared_info["sites"][small_id]["table"], n, warmup,
                                          rounds)}
    finally:
        for e in engines.values():
            e.dispose()
    load_after = loadavg()
    disk = {name: sum(f.stat().st_size for f in (mdb.dir / "data" / name).iterdir()) / 1e6
            for name in ("rtac_bench_iso_alone", "rtac_bench_iso_shared") if (mdb.dir / "data" / name).is_dir()}
    figures = {f"{w}/{'own' if o else 'shared'}": {
        "p50": statistics.median(s.p50 for s in samples[(w, o)]),
        "p99": statistics.median(s.p99 for s in samples[(w, o)]),
        "p50_rounds": [s.p50 for s in samples[(w, o)]]} for w, o in CASES}
    ratio_after = figures["shared/own"]["p50"] / figures["alone/own"]["p50"]
    ratio_before = figures["shared/shared"]["p50"] / figures["alone/own"]["p50"]
    return {
        "small": small, "big": big, "rounds": rounds, "queries": n, "warmup": warmup, "figures": figures,
        "ratio_after": ratio_after, "ratio_before": ratio_before, "met": ratio_after <= TARGET,
        "big_own": big_cases[True], "big_shared": big_cases[False], "load_s": load_s,
        "sync_s": shared_info["sync_s"], "synced": shared_info["synced"], "settle_s": alone_info["settle_s"] + shared_info["settle_s"],
        "tables": {k: v["table"] for k, v in shared_info["sites"].items()},
        "load_before": load_before, "load_after": load_after, "cpu": cpu_notes,
        "disk_mb": disk, "buffer_pool_mb": pool_mb, "others_min": min(others), "others_max": max(others), "token": token, "quick": quick,
    }


def markdown(r: dict) -> str:
    f = r["figures"]
    L = [HEADING, ""]
    w = L.append
    w(f"A {r['small']:,}-chunk site's lexical retrieval (`sidecar.retrieval.retrieve`: FULLTEXT candidates "
      "re-scored with BM25, top 8, bench/query.py's mixed questions) alone in its database, and next to a "
      f"{r['big']:,}-chunk site in the same database; **before**: ranked in `rtac_chunks`' one FULLTEXT index "
      "for every site (the statement releases before per-site tables used: the site's `ft_ready` cleared), "
      "**after**: ranked in its own table (`sidecar/fulltext.py`). Synthetic five-language corpus "
      "(bench/corpus.py), loaded the old way and moved into the site tables by `fulltext.sync_site` (what "
      "`rtac init-db` runs), every FULLTEXT index settled by OPTIMIZE. "
      f"{r['rounds']} rounds of the four cases in rotating order, {r['queries']} timed questions each after "
      f"{r['warmup']} of warm-up; each figure is the median over rounds of the round's p50 (p99).")
    w("")
    w(f"| the {r['small']:,}-chunk site | ranked in | p50 ms | p99 ms | p50 per round |")
    w("|---|---|---:|---:|---|")
    for key, where, idx in (("alone/shared", "alone", "the shared index (before)"),
                            ("alone/own", "alone", "its own table (after)"),
                            ("shared/shared", f"next to {r['big']:,} chunks", "the shared index (before)"),
                            ("shared/own", f"next to {r['big']:,} chunks", "its own table (after)")):
        x = f[key]
        w(f"| {where} | {idx} | {x['p50']:.2f} | {x['p99']:.2f} | "
          + " ".join(f"{p:.2f}" for p in x["p50_rounds"]) + " |")
    w("")
    w(f"Next to the big site the small site takes **{r['ratio_after']:.2f}x** its time alone in its own table "
      f"(target ≤ {TARGET}x: **{'met' if r['met'] else 'not met'}**), against {r['ratio_before']:.2f}x in the "
      f"shared index. The big site itself ({r['big_own']['n']} questions a round, in the same rounds): p50 "
      f"{r['big_own']['p50']:.2f} ms in its own table, {r['big_shared']['p50']:.2f} ms in the shared index "
      f"(p99 {r['big_own']['p99']:.2f} / {r['big_shared']['p99']:.2f} ms).")
    w("")
    if r["token"]:
        tok = r["token"]
        w("The alternative that keeps one table: a token of the site in every chunk's search text, required in "
          f"BOOLEAN MODE (`+token words`), in a copy of the shared table (built in {tok['build_s']:.0f} s). "
          "The ranking statement alone (40 candidates), the small site's questions, median over rounds:")
        w("")
        w("| ranking statement | p50 ms | p99 ms |")
        w("|---|---:|---:|")
        for kind, x in tok["times"].items():
            w(f"| {kind} | {x['p50']:.2f} | {x['p99']:.2f} |")
        w("")
    w("On disk (every table and FULLTEXT auxiliary table of the database, the site-token copy included when "
      "measured): " + ", ".join(f"`{k}` {v:,.0f} MB" for k, v in r["disk_mb"].items())
      + f"; InnoDB buffer pool {r['buffer_pool_mb']:,.0f} MiB.")
    w("")
    w(f"Loading both databases took {r['load_s']:.0f} s; of it, `fulltext.sync_site` copied the big site's "
      f"{r['synced']:,} chunks into its emptied table in {r['sync_s']:.0f} s (what `rtac init-db` does for such a "
      f"site after the upgrade), and settling every index took {r['settle_s']:.0f} s. Load average {r['load_before']} "
      f"before the rounds, {r['load_after']} after; other processes than the bench and its MariaDB took "
      f"{r['others_min']:.2f}-{r['others_max']:.2f} of the 2 cores during the rounds ({'; '.join(r['cpu'])}).")
    w("")
    return "\n".join(L)


if __name__ == "__main__":
    from sidecar.crypto import Keyring

    from .db import LocalMariaDB

    ap = argparse.ArgumentParser(prog="python -m bench.isolation")
    ap.add_argument("--quick", action="store_true", help="a 10,000-chunk big site, fewer questions and rounds")
    ap.add_argument("--rounds", type=int, help="rounds of the four cases (default 5, quick 2)")
    ap.add_argument("--queries", type=int, help="timed questions per case and round (default 200, quick 40)")
    ap.add_argument("--site-token", action="store_true",
                    help="also time the one-table alternative: a site token required in BOOLEAN MODE")
    args = ap.parse_args()
    with LocalMariaDB() as mdb:
        print(markdown(run(mdb, Keyring(hashlib.sha256(b"rtac-bench-isolation").digest()), quick=args.quick,
                           rounds=args.rounds, queries=args.queries, site_token=args.site_token)))
