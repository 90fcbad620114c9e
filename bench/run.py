"""`make bench`: sidecar overhead per chat turn and FULLTEXT query time, written to
bench/RESULTS.md.

    python -m bench.run            # the full run (~5 minutes on 2 cores)
    python -m bench.run --quick    # a smoke run: small corpora, few turns
"""
from __future__ import annotations

import argparse
import hashlib
import os
import platform
import random
import subprocess
import sys
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from sidecar.crypto import Keyring
from sidecar.db import create_engine
from sidecar.retrieval import retrieve as current_retrieve
from sidecar.sites import add_site

from . import chat, query, whatif
from .corpus import DEFAULT_LANG, SEED, Corpus
from .db import (
    LocalMariaDB,
    cpu_model,
    load_corpus,
    make_pool,
    mem_total_gb,
    optimize_fulltext,
    os_name,
    server_info,
)
from .report import write_report
from .stats import CpuMeter, loadavg

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def _log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=Path(__file__).resolve().parent.parent, capture_output=True,
                              text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _mariadbd_pid(mdb: LocalMariaDB) -> int | None:
    try:
        return int((mdb.dir / "mariadb.pid").read_text().strip())
    except (OSError, ValueError):
        return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small corpora and few turns (a smoke run)")
    ap.add_argument("--turns", type=int, default=1000, help="measured chat turns (default 1000)")
    ap.add_argument("--queries", type=int, default=300, help="measured queries per kind and size (default 300)")
    ap.add_argument("--output", type=Path, default=RESULTS)
    args = ap.parse_args(argv)

    started = time.perf_counter()
    started_at = datetime.now(timezone.utc)
    sizes = {"1k": 1_000, "10k": 10_000, "100k": 100_000}
    chat_size = "10k"
    warmup_turns, turns, instrumented_turns, profiled_turns = 50, args.turns, 300, 200
    n_queries, query_warmup = args.queries, 30
    whatif_sizes = {"10k": 300, "100k": 60}
    shared_queries = 150
    whatif_turn_count = 300
    shared_in, shared_size = "100k", ("1k", 1_000)
    if args.quick:
        sizes = {"1k": 1_000, "10k": 4_000}
        turns, instrumented_turns, profiled_turns, n_queries, query_warmup = 100, 50, 30, 40, 5
        whatif_sizes = {"10k": 30}
        whatif_turn_count = 30
        shared_in = "10k"

    run = {
        "started_at": started_at, "argv": " ".join(["python -m bench.run", *(argv if argv is not None else sys.argv[1:])]),
        "via_make": bool(os.environ.get("MAKELEVEL")), "quick": args.quick,
        "commit": _git("rev-parse", "--short", "HEAD"), "dirty": bool(_git("status", "--porcelain")),
        "loadavg_start": loadavg(), "seed": SEED, "source_note": os.environ.get("RTAC_BENCH_SOURCE_NOTE", ""),
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "ram_gb": mem_total_gb(), "os": os_name(),
                    "kernel": platform.release(), "python": platform.python_version(),
                    "packages": {p: _version(p) for p in ("Flask", "Werkzeug", "SQLAlchemy", "PyMySQL",
                                                          "cryptography", "PyStemmer")}},
        "turns": {"warmup": warmup_turns, "measured": turns, "instrumented": instrumented_turns,
                  "profiled": profiled_turns, "whatif": whatif_turn_count},
        "queries": {"measured": n_queries, "warmup": query_warmup},
    }
    _log(f"starting; load average {run['loadavg_start']}")
    master_key = hashlib.sha256(f"rtac-bench-{SEED}".encode()).digest()
    keyring = Keyring(master_key)
    corpus = Corpus(SEED)

    with LocalMariaDB() as mdb:
        _log(f"MariaDB on port {mdb.port} in {mdb.dir}")
        pids = [os.getpid()] + ([p] if (p := _mariadbd_pid(mdb)) else [])
        dbs = {}
        pool = make_pool()
        try:
            for label, n in sizes.items():
                name = f"rtac_bench_{label}"
                url = mdb.create_database(name)
                engine = create_engine(url)
                site = add_site(engine, keyring, f"bench-{label}", default_lang=DEFAULT_LANG)
                stats = load_corpus(engine, site.id, label, n, SEED, pool)
                _log(f"{label}: {stats.chunks} chunks in {stats.documents} documents loaded in {stats.load_s:.1f}s")
                shared = None
                if label == shared_in:
                    # A small second site in the big table: what one FULLTEXT index for all sites costs it.
                    shared_site = add_site(engine, keyring, f"bench-{shared_size[0]}-shared", default_lang=DEFAULT_LANG)
                    shared = load_corpus(engine, shared_site.id, f"{shared_size[0]}-shared", shared_size[1], SEED,
                                         pool, id_offset=10_000_000)
                    stats.terms |= shared.terms
                    _log(f"{label}: + {shared.chunks} chunks of site {shared_site.id} in the same table")
                optimize_fulltext(engine, name, stats, count_nodes=n <= 10_000)
                before, after = stats.nodes_before, stats.nodes_after
                _log(f"{label}: FULLTEXT optimized in {stats.optimize_passes} passes, {stats.optimize_s:.1f}s"
                     + (f"; word nodes {before[0]} -> {after[0]} for {after[1]} words" if after and before else ""))
                dbs[label] = {"url": url, "engine": engine, "site": site, "stats": stats,
                              "nodes_before": before, "nodes_after": after}
                if shared:
                    dbs[label]["shared"] = {"site": shared_site, "stats": shared}
        finally:
            pool.close()
            pool.join()
        run["server"] = server_info(dbs[chat_size]["engine"])

        query_results = {}
        for label, d in dbs.items():
            with CpuMeter(pids) as cpu:
                query_results[label] = query.run(d["engine"], d["site"].id, corpus, SEED, n_queries, query_warmup)
            d["query_cpu"] = cpu.describe()
            for r in query_results[label]:
                _log(f"{label} {r.kind}: p50 {r.summary.p50:.2f} ms, p99 {r.summary.p99:.2f} ms, "
                     f"{r.avg_chunks:.2f} chunks")
            if "shared" in d:
                sh = d["shared"]
                sh["result"] = query.measure(d["engine"], sh["site"].id, corpus, "mixed",
                                             min(n_queries, shared_queries), query_warmup, SEED)
                _log(f"{sh['site'].id} (in the {label} table) mixed: p50 {sh['result'].summary.p50:.2f} ms, "
                     f"p99 {sh['result'].summary.p99:.2f} ms")

        whatif_results = {}
        for label, n_whatif in whatif_sizes.items():
            if label in dbs:
                d = dbs[label]
                whatif_results[label] = whatif.run(d["engine"], d["site"].id, corpus, SEED, n_whatif)
                for r in whatif_results[label]:
                    _log(f"{label} what-if {r.variant}: p50 {r.summary.p50:.2f} ms, p99 {r.summary.p99:.2f} ms")

        d = dbs[chat_size]
        pinned = [{"title": "Hinnakiri", "content": corpus.price_list(random.Random(f"pinned-{SEED}"))}]
        bench = chat.ChatBench(d["url"], master_key, d["site"], corpus, SEED, pinned)
        bench.run(warmup_turns)
        with CpuMeter(pids) as cpu:
            records, wall, cpu_s = bench.run(turns)
        _log(f"chat: {turns} turns in {wall:.1f}s; {cpu.describe()}")
        breakdown = bench.instrumented(instrumented_turns)
        prof_tottime, prof_cumulative = bench.profiled(profiled_turns)
        # Interleaved blocks (current, two-step, two-step + stopwords, repeated) so that drift in the
        # machine's load or the database's size does not favour one variant.
        variants = {"current retrieve()": current_retrieve,
                    "two-step (ids, then fetch)": whatif.two_step_retrieve,
                    "two-step + query stopwords": whatif.two_step_stopwords_retrieve}
        block = 10
        recs_by = {name: [] for name in variants}
        for _ in range(whatif_turn_count // block):
            for name, fn in variants.items():
                recs, _, _ = bench.run_with_retrieve(fn, block)
                recs_by[name] += recs
        whatif_turns = {name: chat.summarize(recs)["all turns"] for name, recs in recs_by.items()}
        for name, x in whatif_turns.items():
            _log(f"chat what-if {name}: p50 {x.p50:.2f} ms, p99 {x.p99:.2f} ms")
        try:
            embed = bench.embed_timing(corpus, SEED, 30 if args.quick else 200)
        except Exception as exc:  # noqa: BLE001 - a side measurement must not sink the run
            _log(f"memory embedder not measured: {exc.__class__.__name__}: {exc}")
            embed = None
        if embed:
            _log(f"memory embedder {embed['model']}: p50 {embed['summary'].p50:.2f} ms, "
                 f"p99 {embed['summary'].p99:.2f} ms")
        chat_result = {
            "records": records, "wall": wall, "cpu_s": cpu_s, "cpu": cpu.describe(),
            "cpu_others": cpu.others_cores, "summaries": chat.summarize(records),
            "breakdown": breakdown, "prof_tottime": prof_tottime, "prof_cumulative": prof_cumulative,
            "errors": bench.errors, "pinned_chars": len(pinned[0]["content"]),
            "conversations": bench.stream.conversations, "visitors": bench.stream.n_visitors,
            "size": chat_size, "chunks": d["stats"].chunks, "whatif_turns": whatif_turns, "embed": embed,
            "memory": getattr(bench.services, "memory", None) is not None,
        }
        for d2 in dbs.values():
            d2["engine"].dispose()
        bench.services.engine.dispose()

    run["loadavg_end"] = loadavg()
    run["runtime_s"] = time.perf_counter() - started
    run["whatif_sizes"] = whatif_sizes
    write_report(args.output, run, dbs, query_results, chat_result, whatif_results)
    s = chat_result["summaries"]["all turns"]
    _log(f"overhead p50 {s.p50:.2f} ms, p90 {s.p90:.2f} ms, p99 {s.p99:.2f} ms, mean {s.mean:.2f} ms; "
         f"{len(records) / wall:.0f} turns/s")
    _log(f"wrote {args.output} in {run['runtime_s']:.0f}s total")
    if chat_result["errors"]:
        _log(f"{len(chat_result['errors'])} failed turns, first: {chat_result['errors'][0]}")
        return 1
    return 0


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
