"""Galera: the sidecar on a 3-node MariaDB Galera cluster behind HAProxy.

scripts/galera-local starts three nodes and HAProxy on the loopback (testbed/galera.py);
three `rtac serve` processes (one per node, as an app server per database host would
run) each reach the database through HAProxy, which spreads their connections over the
nodes, so consecutive turns of one conversation land on different nodes. The
Anthropic SDK talks to a fake vendor answering every call after 1.5 s (bench/load.py's,
a process of its own); closed-loop visitors as in bench/load.py, spread over the three
sidecars, on a site of 500 chunks with a 3,000-character pinned price list, embedder
off (RTAC_RETRIEVAL=fulltext, RTAC_MEMORY=off: the cluster, not the embedding, is
measured).

Two phases at one concurrency: a steady window (turns/s, latency minus the model,
transactions run again after a conflict, responses >= 500), then a node killed with
SIGKILL under the same load and rejoined (`--wsrep-recover`, then IST) while it runs:
the rejoin's time, and what the visitors got meanwhile. *Turns lost*: turns answered
200 that are not stored (the site's stored turns counted on every node after the run).

    python -m bench.galera               # 48 visitors, a 30 s window, then the kill
    python -m bench.galera --quick       # a smoke run
"""
from __future__ import annotations

import argparse
import hashlib
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path

MODEL_DELAY = 1.5
CONCURRENCY = 48
WARMUP_S = 8.0
WINDOW_S = 30.0
KILL_AFTER_S = 5.0     # into the second phase
DOWN_S = 8.0           # the node stays down this long under load
AFTER_REJOIN_S = 8.0
CHUNKS = 500
SITE = "bench-galera"
KILLED = 3
_CONFLICT = re.compile(r"(?:transaction conflict|lock wait timeout|connection lost) in (\S+) \((\w+)\)")


def conflicts(logs: list[Path]) -> dict[str, int]:
    """Transactions the sidecars ran again (a conflict, a lock wait timeout, a lost
    connection), by function and MySQL error."""
    counts: Counter = Counter()
    for log in logs:
        for m in _CONFLICT.finditer(log.read_text(errors="replace") if log.exists() else ""):
            counts[f"{m.group(1)} ({m.group(2)})"] += 1
    return dict(counts.most_common())


def _summary(records, t0: float, t1: float) -> dict:
    """The responses that came back within [t0, t1]; `answered_total`: every 200 of the
    phase, warm-up and wind-down included (what must be stored)."""
    from .load import _summary_ms
    inside = [r for r in records if t0 <= r.end <= t1]
    ok = [r for r in inside if r.status == 200]
    by_status = Counter(f"{r.status} {r.code}".strip() for r in inside if r.status != 200)
    return {"answered": len(ok), "answered_total": sum(1 for r in records if r.status == 200),
            "turns_per_s": len(ok) / (t1 - t0),
            "over_model_ms": _summary_ms([r.end - r.start - MODEL_DELAY for r in ok]),
            "ge_500": sum(1 for r in inside if r.status >= 500), "other": dict(by_status)}


def run(quick: bool = False, concurrency: int = CONCURRENCY, seconds: float | None = None, log=print) -> dict:
    from sqlalchemy import func, select

    from sidecar import tables as t
    from sidecar.crypto import Keyring
    from sidecar.db import create_engine
    from sidecar.migrate import migrate
    from sidecar.sites import add_site
    from testbed import galera

    from .corpus import DEFAULT_LANG, SEED, Corpus
    from .db import load_corpus, make_pool
    from .load import FakeVendor, Messages, Sidecar, Visitors, _env
    from .stats import loadavg

    window = seconds or (10.0 if quick else WINDOW_S)
    warm = 3.0 if quick else WARMUP_S
    concurrency = min(concurrency, 18) if quick else concurrency
    master_key = hashlib.sha256(f"rtac-bench-galera-{SEED}".encode()).digest()
    corpus = Corpus(SEED)
    out = {"concurrency": concurrency, "window_s": window, "warmup_s": warm, "chunks": CHUNKS,
           "model_delay_s": MODEL_DELAY, "loadavg_start": loadavg()}
    t_start = time.perf_counter()
    cluster = galera.start("rtac_bench_galera")
    out["cluster_start_s"] = time.perf_counter() - t_start
    log(f"cluster up in {out['cluster_start_s']:.0f} s: {cluster.ports}")
    sidecars: list = []
    crowds: list = []  # every crowd started, stopped however the run ends
    vendor = None
    try:
        url = cluster.url("haproxy", "rtac_bench_galera")
        engine = create_engine(url)
        migrate(engine)
        site = add_site(engine, Keyring(master_key), SITE, default_lang=DEFAULT_LANG)
        pool = make_pool()
        try:
            load_corpus(engine, site.id, "galera", CHUNKS, SEED, pool, vectors=False)
        finally:
            pool.close()
            pool.join()
        pinned = [{"title": "Hinnakiri", "content": corpus.price_list(random.Random(f"pinned-{SEED}"))}]
        vendor = FakeVendor(MODEL_DELAY)
        env = _env(url, master_key, vendor.url, "off")  # the embedder off, as bench.load's "off"
        for n in galera.NODES:
            sidecars.append(Sidecar(env, cluster.dir / f"sidecar-{n}.log", ["--workers", "1"]))
        out["banner"] = sidecars[0].banner
        messages = Messages(corpus, SEED)
        per = [concurrency // 3 + (1 if i < concurrency % 3 else 0) for i in range(3)]

        def visitors(tag: str) -> list:
            crowd = [Visitors(s.port, site.id, site.secret, messages, pinned, f"{tag}-{i}")
                     for i, s in enumerate(sidecars)]
            crowds.extend(crowd)
            for v, n in zip(crowd, per):
                v.start(n)
            return crowd

        # --- steady ---
        crowd = visitors("steady")
        time.sleep(warm)
        t0 = time.perf_counter()
        time.sleep(window)
        t1 = time.perf_counter()
        for v in crowd:
            v.stop()
        out["steady"] = _summary([r for v in crowd for r in v.records], t0, t1)
        out["steady"]["errors"] = [e for v in crowd for e in v.errors][:5]
        out["steady"]["conflicts"] = conflicts([s.log_path for s in sidecars])
        st = out["steady"]
        log(f"steady: {st['turns_per_s']:.1f} turns/s, over model p50 {st['over_model_ms']['p50']:.0f} "
            f"p99 {st['over_model_ms']['p99']:.0f} ms, >= 500: {st['ge_500']}, conflicts {st['conflicts']}")

        # --- a node killed and rejoined under load ---
        before = conflicts([s.log_path for s in sidecars])
        crowd = visitors("kill")
        time.sleep(warm)
        k0 = time.perf_counter()
        time.sleep(KILL_AFTER_S)
        cluster.kill(KILLED)
        killed_at = time.perf_counter()
        time.sleep(DOWN_S)
        r0 = time.perf_counter()
        cluster.rejoin(KILLED)
        rejoin_s = time.perf_counter() - r0
        time.sleep(AFTER_REJOIN_S)
        k1 = time.perf_counter()
        for v in crowd:
            v.stop()
        records = [r for v in crowd for r in v.records]
        kill = _summary(records, k0, k1)
        kill.update(rejoin_s=rejoin_s, down_s=r0 - killed_at, ist="IST received" in cluster.error_log(KILLED),
                    errors=[e for v in crowd for e in v.errors][:5])
        after = conflicts([s.log_path for s in sidecars])
        kill["conflicts"] = {k: n - before.get(k, 0) for k, n in after.items() if n - before.get(k, 0)}
        out["kill"] = kill
        log(f"kill + rejoin: {kill['turns_per_s']:.1f} turns/s, >= 500: {kill['ge_500']} {kill['other']}, "
            f"rejoined by IST in {rejoin_s:.1f} s")

        # --- every answered turn stored, on every node ---
        for s in sidecars:
            s.stop()
        stored = {}
        for n in galera.NODES:
            with create_engine(cluster.url(f"node{n}", "rtac_bench_galera")).connect() as conn:
                stored[n] = conn.execute(select(func.count()).select_from(t.turns)
                                         .where(t.turns.c.site_id == site.id)).scalar_one()
        out["stored_turns"] = stored
        engine.dispose()
    finally:
        # A crowd left running (a rejoin that failed) would load every later section
        # of the bench from this process's threads.
        for v in crowds:
            v.stop()
        for s in sidecars:
            s.stop()
        if vendor is not None:
            vendor.close()
        galera.remove(cluster)
    out["loadavg_end"] = loadavg()
    return out


def markdown(result: dict) -> str:
    L = ["## Galera: three nodes behind HAProxy", ""]
    w = L.append
    st, kill = result["steady"], result["kill"]
    w(f"scripts/galera-local: three MariaDB Galera nodes (galera-4, rsync SST, IST on rejoin) and HAProxy "
      f"on the loopback, up in {result['cluster_start_s']:.0f} s; three `rtac serve --workers 1` (one per "
      f"node), each through HAProxy (leastconn over the nodes); a site of {result['chunks']} chunks and a "
      f"3,000-character pinned price list; the Anthropic SDK against a fake vendor answering after "
      f"{result['model_delay_s']:g} s; {result['concurrency']} closed-loop visitors spread over the sidecars "
      f"(bench/load.py's); embedder off. Warm-up {result['warmup_s']:g} s, then a {result['window_s']:g} s "
      f"window; then under the same load node {KILLED} is killed (SIGKILL) and, {DOWN_S:g} s later, rejoined "
      f"(`--wsrep-recover`, restart, IST). Load average {result['loadavg_start']} before, "
      f"{result['loadavg_end']} after. `{result.get('banner', '')}`")
    w("")
    w("| phase | turns/s | over model p50 / p90 / p99 / max (ms) | responses ≥ 500 | other non-200 "
      "| transactions run again after a conflict |")
    w("|---|---:|---|---:|---|---|")
    for name, ph in (("steady", st), (f"node {KILLED} killed and rejoined", kill)):
        om = ph["over_model_ms"]
        other = ", ".join(f"{n} × {k}" for k, n in ph["other"].items()) or "none"
        retried = ", ".join(f"{n} × {k}" for k, n in ph["conflicts"].items()) or "none"
        w(f"| {name} | **{ph['turns_per_s']:.1f}** | {om['p50']:.0f} / {om['p90']:.0f} / **{om['p99']:.0f}** / "
          f"{om['max']:.0f} | {ph['ge_500']} | {other} | {retried} |")
    w("")
    answered = st["answered_total"] + kill["answered_total"]
    stored = result["stored_turns"]
    lost = max(0, answered - min(stored.values()))
    w(f"Node {KILLED} rejoined by {'IST' if kill['ist'] else 'SST'} in **{kill['rejoin_s']:.1f} s** "
      f"(`--wsrep-recover` and restart until Synced) after {kill['down_s']:.0f} s down. Turns answered 200 over "
      f"both phases: {answered}; stored, counted on each node: "
      f"{', '.join(f'node {n} {c}' for n, c in stored.items())}; **turns lost: {lost}**.")
    errors = st["errors"] + kill["errors"]
    if errors:
        w(f"First error a visitor got: {errors[0]}")
    w("")
    return "\n".join(L)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.galera", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--concurrency", type=int, default=CONCURRENCY)
    ap.add_argument("--seconds", type=float, help=f"the steady window (default {WINDOW_S:g})")
    args = ap.parse_args(argv)
    print(markdown(run(quick=args.quick, concurrency=args.concurrency, seconds=args.seconds,
                       log=lambda m: print(f"[galera {time.strftime('%H:%M:%S')}] {m}", file=sys.stderr,
                                           flush=True))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
