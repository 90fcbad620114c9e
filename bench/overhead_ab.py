"""The sidecar overhead per chat turn of whichever checkout is first on PYTHONPATH, at 10k
chunks: for side-by-side runs of two releases in one sitting (bench/RESULTS.md).

    PYTHONPATH=<checkout> python bench/overhead_ab.py [CHUNKS] [TURNS]
"""
import hashlib, random, sys, statistics
from bench.corpus import DEFAULT_LANG, SEED, Corpus
from bench.db import LocalMariaDB, load_corpus, make_pool, optimize_fulltext
from bench import chat
from sidecar.crypto import Keyring
from sidecar.db import create_engine
from sidecar.sites import add_site

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
turns = int(sys.argv[2]) if len(sys.argv) > 2 else 600
master_key = hashlib.sha256(f"rtac-bench-{SEED}".encode()).digest()
keyring = Keyring(master_key)
corpus = Corpus(SEED)
with LocalMariaDB() as mdb:
    url = mdb.create_database("rtac_ab")
    engine = create_engine(url)
    site = add_site(engine, keyring, "bench-ab", default_lang=DEFAULT_LANG)
    pool = make_pool()
    stats = load_corpus(engine, site.id, "ab", n, SEED, pool)
    pool.close(); pool.join()
    optimize_fulltext(engine, "rtac_ab", stats)
    try:
        from sidecar import fulltext
        from bench.isolation import settle_site_table
        with engine.connect() as conn:
            table = fulltext.locate(conn, site.id).table
        if table:
            settle_site_table(engine, "rtac_ab", table, stats.distinct_terms)
    except ImportError:
        pass
    pinned = [{"title": "Hinnakiri", "content": corpus.price_list(random.Random(f"pinned-{SEED}"))}]
    bench = chat.ChatBench(url, master_key, site, corpus, SEED, pinned)
    bench.run(50)
    records, wall, cpu = bench.run(turns)
    ms = sorted(r.seconds * 1000 for r in records)
    q = lambda p: ms[min(len(ms) - 1, int(p * len(ms)))]
    print(f"turns {turns}: p50 {q(0.5):.2f} ms, p90 {q(0.9):.2f}, p99 {q(0.99):.2f}, mean {statistics.mean(ms):.2f}; cpu/turn {cpu/turns*1000:.2f} ms")
    bench.services.engine.dispose()
