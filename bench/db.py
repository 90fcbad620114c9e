"""A throwaway MariaDB for the bench (scripts/mariadb-local), its databases, the
bulk loader and the FULLTEXT optimisation that settles the index after loading."""
from __future__ import annotations

import math
import multiprocessing
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import zlib
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sqlalchemy import text
from sqlalchemy.engine import Engine

from testbed.mariadb import empty_database
from sidecar import fulltext, lexicon
from sidecar.db import create_engine
from sidecar.embedders.local import DIM as VECTOR_DIM
from sidecar.embedders.local import MODEL as VECTOR_MODEL
from sidecar.migrate import migrate
from sidecar.searchtext import VERSION as SEARCH_VERSION
from sidecar.vectors import bump_content_version, quantize

from .corpus import _worker_batch

ROOT = Path(__file__).resolve().parent.parent
MARIADB_LOCAL = ROOT / "scripts" / "mariadb-local"
BATCH_ROWS = 2000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalMariaDB:
    """Started in a short temporary folder (the unix socket path must fit in 108
    bytes), stopped and removed on exit, also on an exception, Ctrl-C or SIGTERM."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="rtacb-", dir="/tmp"))
        self.port = free_port()
        self.url = f"mysql+pymysql://root@127.0.0.1:{self.port}"
        self._started = False
        self._old_term = None

    def __enter__(self) -> "LocalMariaDB":
        self._old_term = signal.signal(signal.SIGTERM, _raise_exit)
        # The server's tmpdir defaults to $TMPDIR: a private one, so that any on-disk temporary table
        # stays out of the shared /tmp, which other processes on this machine clean.
        tmpdir = self.dir / "tmp"
        tmpdir.mkdir()
        subprocess.run([str(MARIADB_LOCAL), "start", str(self.dir), str(self.port)], check=True,
                       env=dict(os.environ, TMPDIR=str(tmpdir)))
        self._started = True
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
        if self._old_term is not None:
            signal.signal(signal.SIGTERM, self._old_term)

    def stop(self) -> None:
        if self._started:
            subprocess.run([str(MARIADB_LOCAL), "stop", str(self.dir)], check=False)
            self._started = False
        shutil.rmtree(self.dir, ignore_errors=True)

    def create_database(self, name: str) -> str:
        return migrated_database(self.url, name)


def migrated_database(server_url: str, name: str) -> str:
    """A fresh database `name` on the server, migrated: its URL."""
    url = empty_database(server_url, name)
    engine = create_engine(url)
    migrate(engine)
    engine.dispose()
    return url


def _raise_exit(signum, frame):
    raise SystemExit(128 + signum)


def server_info(engine: Engine) -> dict:
    with engine.connect() as conn:
        names = ("version", "innodb_buffer_pool_size", "innodb_ft_cache_size", "innodb_ft_min_token_size",
                 "innodb_flush_log_at_trx_commit", "innodb_ft_enable_stopword", "query_cache_type",
                 "innodb_ft_num_word_optimize", "max_allowed_packet")
        in_list = ",".join(f"'{n}'" for n in names)
        rows = conn.execute(text(f"SHOW GLOBAL VARIABLES WHERE Variable_name IN ({in_list})")).all()
        info = {r[0]: r[1] for r in rows}
        info["default_stopwords"] = conn.execute(text(
            "SELECT COUNT(*) FROM information_schema.INNODB_FT_DEFAULT_STOPWORD")).scalar_one()
    return info


# --- bulk loading ------------------------------------------------------------------------

_DOC_SQL = ("INSERT INTO rtac_documents (id, site_id, source, source_id, lang, title, url, content_hash)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)")
_CHUNK_SQL = ("INSERT INTO rtac_chunks (id, site_id, document_id, lang, seq, content, search_text, term_count,"
              " search_version) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)")
_VECTOR_SQL = "INSERT INTO rtac_chunk_vectors (chunk_id, model, site_id, vec, scale) VALUES (%s, %s, %s, %s, %s)"
# The statement lexicon.add runs per chunk write (df += the batch's count), in bulk.
_TERMS_SQL = ("INSERT INTO rtac_terms (site_id, term, df) VALUES (%s, %s, %s)"
              " ON DUPLICATE KEY UPDATE df = df + VALUES(df)")
TERM_ROWS = 5000


@dataclass
class LoadStats:
    label: str
    chunks: int = 0
    documents: int = 0
    chars: int = 0
    terms: set = field(default_factory=set, repr=False)
    lang_chunks: dict = field(default_factory=dict)
    load_s: float = 0.0
    optimize_s: float = 0.0
    optimize_passes: int = 0
    db_mb: float = 0.0
    nodes_before: tuple | None = None  # (word nodes, words) on disk after the load's cache sync
    nodes_after: tuple | None = None   # the same after the merge
    site_terms: int = 0                # rows of rtac_terms written for the site
    vectors: int = 0                   # rows of rtac_chunk_vectors written for the site
    vector_model: str = ""
    terms_s: float = 0.0               # writing rtac_terms (inside load_s)
    vectors_s: float = 0.0             # making and inserting the vectors (inside load_s)

    @property
    def distinct_terms(self) -> int:
        return len(self.terms)


def random_unit_vectors(rng: np.random.Generator, n: int, dim: int = VECTOR_DIM) -> np.ndarray:
    """n seeded random unit vectors (Gaussian, normalised: uniform on the sphere)."""
    v = rng.standard_normal((n, dim), dtype=np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def load_corpus(engine: Engine, site_id: str, label: str, n_chunks: int, seed: int,
                pool: multiprocessing.pool.Pool, id_offset: int = 0, vectors: bool = True) -> LoadStats:
    """n_chunks chunks for one site: generated (and indexed with the sidecar's
    index_text) in a worker process while this one inserts the previous batch:
    BATCH_ROWS chunks per executemany, one transaction per batch.

    What sidecar.documents.upsert writes beside the text is written too: each chunk's
    term_count and search_version (as documents.chunk_row), the site's document
    frequencies in rtac_terms (lexicon.distinct_terms per chunk, counted over the load
    and written in bulk with the ON DUPLICATE KEY UPDATE df = df + n statement
    lexicon.add runs) and, with `vectors`, one embedding per chunk in
    rtac_chunk_vectors for the local model: a seeded random unit vector of its
    dimension, quantised by sidecar.vectors.quantize (the synthetic text has no
    meaning to embed, and exact cosine costs the same whatever the vectors hold).
    The site's content_version is bumped once at the end, as a write would."""
    stats = LoadStats(label, vector_model=VECTOR_MODEL if vectors else "")
    started = time.perf_counter()
    sizes = [BATCH_ROWS] * (n_chunks // BATCH_ROWS) + ([n_chunks % BATCH_ROWS] if n_chunks % BATCH_ROWS else [])
    jobs = [(seed, label, i, n) for i, n in enumerate(sizes)]
    rng = np.random.default_rng([seed, zlib.crc32(f"vectors-{label}".encode())])
    dfs: Counter = Counter()
    raw = engine.raw_connection()
    try:
        cur = raw.cursor()
        cur.max_stmt_length = 4 * 1024 * 1024  # pymysql folds executemany into multi-row INSERTs
        doc_id = chunk_id = id_offset
        for batch in pool.imap(_worker_batch, jobs):
            doc_rows, chunk_rows, first_doc = [], [], doc_id
            for source, source_id, lang, title, digest in batch.docs:
                doc_id += 1
                doc_rows.append((doc_id, site_id, source, source_id, lang, title,
                                 f"https://{site_id}.example/{lang}/{source}/{source_id}", digest))
            for doc_index, lang, seq, content, search in batch.chunks:
                chunk_id += 1
                chunk_rows.append((chunk_id, site_id, first_doc + 1 + doc_index, lang, seq, content, search,
                                   lexicon.term_count(search), SEARCH_VERSION))
                dfs.update(lexicon.distinct_terms(search))
                stats.lang_chunks[lang] = stats.lang_chunks.get(lang, 0) + 1
            cur.executemany(_DOC_SQL, doc_rows)
            cur.executemany(_CHUNK_SQL, chunk_rows)
            if vectors:
                t = time.perf_counter()
                matrix = random_unit_vectors(rng, len(chunk_rows))
                vector_rows = []
                for row, v in zip(chunk_rows, matrix):
                    blob, scale = quantize(v)
                    vector_rows.append((row[0], VECTOR_MODEL, site_id, blob, scale))
                cur.executemany(_VECTOR_SQL, vector_rows)
                stats.vectors += len(vector_rows)
                stats.vectors_s += time.perf_counter() - t
            raw.commit()
            stats.documents += len(doc_rows)
            stats.chunks += len(chunk_rows)
            stats.chars += batch.chars
            stats.terms |= batch.terms
        t = time.perf_counter()
        rows = [(site_id, term, n) for term, n in sorted(dfs.items())]
        for i in range(0, len(rows), TERM_ROWS):
            cur.executemany(_TERMS_SQL, rows[i:i + TERM_ROWS])
        raw.commit()
        stats.site_terms = len(rows)
        stats.terms_s = time.perf_counter() - t
        cur.close()
    finally:
        raw.close()
    with engine.begin() as conn:
        bump_content_version(conn, site_id)
    fulltext.sync_site(engine, site_id)  # the rows went around documents.upsert: into the site's table too
    stats.load_s = time.perf_counter() - started
    return stats


@contextmanager
def fulltext_optimizing(conn):
    """OPTIMIZE TABLE merging FULLTEXT word nodes only (innodb_optimize_fulltext_only), 10,000
    words a statement, inside the block; the server's settings as they were after it."""
    old_words = conn.execute(text("SELECT @@GLOBAL.innodb_ft_num_word_optimize")).scalar_one()
    conn.execute(text("SET GLOBAL innodb_ft_num_word_optimize = 10000"))
    conn.execute(text("SET GLOBAL innodb_optimize_fulltext_only = ON"))
    try:
        yield
    finally:
        conn.execute(text("SET GLOBAL innodb_optimize_fulltext_only = OFF"))
        conn.execute(text(f"SET GLOBAL innodb_ft_num_word_optimize = {int(old_words)}"))
        conn.execute(text("SET GLOBAL innodb_ft_aux_table = DEFAULT"))


def merge_word_nodes(conn, database: str, table: str, distinct_terms: int) -> int:
    """Inside `fulltext_optimizing`, once the cache is synced and a sentinel row deleted:
    OPTIMIZE `table` until no deleted doc id is left to purge (InnoDB merges only while there
    is one), at most enough passes for `distinct_terms` twice over. The passes, the first
    (sync) one counted."""
    conn.execute(text(f"SET GLOBAL innodb_ft_aux_table = '{database}/{table}'"))
    limit = math.ceil(max(distinct_terms, 1) / 10_000) * 2 + 5
    for n in range(2, limit + 2):
        conn.exec_driver_sql(f"OPTIMIZE TABLE {table}").all()
        pending = conn.execute(text(
            "SELECT (SELECT COUNT(*) FROM information_schema.INNODB_FT_DELETED)"
            " + (SELECT COUNT(*) FROM information_schema.INNODB_FT_BEING_DELETED)")).scalar_one()
        if not pending:
            return n
    raise RuntimeError(f"FULLTEXT optimize of {database}.{table} did not complete in {limit} passes")


def optimize_fulltext(engine: Engine, database: str, stats: LoadStats, count_nodes: bool = False) -> None:
    """Settle the FULLTEXT index the way a production index settles.

    After a bulk load the index is a pile of per-sync fragments (one node list per
    word for every flush of the FTS cache). `OPTIMIZE TABLE` with
    innodb_optimize_fulltext_only=ON syncs the cache and merges the word nodes, at
    most innodb_ft_num_word_optimize words per statement, picking up where the
    last left off. InnoDB merges only while it has deleted doc ids to purge, so one
    sentinel chunk is inserted and deleted after the first (sync-only) pass; the
    run is complete when the DELETED/BEING_DELETED tables are empty again.
    count_nodes: count word nodes after the sync and after the merge (slow on big
    indexes; the count is kept out of optimize_s)."""
    started = time.perf_counter()
    counting = 0.0
    with engine.connect() as conn:
        with fulltext_optimizing(conn):
            conn.exec_driver_sql("OPTIMIZE TABLE rtac_chunks").all()  # syncs the FTS cache; nothing to purge yet
            stats.optimize_passes = 1
            if count_nodes:
                t = time.perf_counter()
                stats.nodes_before = fts_nodes(engine, database)
                counting += time.perf_counter() - t
            conn.execute(text("INSERT INTO rtac_chunks (site_id, document_id, lang, seq, content, search_text)"
                              " SELECT site_id, id, lang, 999999, 'sentinel', 'sentinel' FROM rtac_documents LIMIT 1"))
            conn.commit()
            conn.execute(text("DELETE FROM rtac_chunks WHERE seq = 999999"))
            conn.commit()
            stats.optimize_passes = merge_word_nodes(conn, database, "rtac_chunks", stats.distinct_terms)
        conn.execute(text("ANALYZE TABLE rtac_chunks")).all()
        size = conn.execute(text(
            "SELECT SUM(data_length + index_length) FROM information_schema.TABLES"
            " WHERE table_schema = DATABASE()")).scalar_one()
    stats.db_mb = float(size or 0) / 1e6
    stats.optimize_s = time.perf_counter() - started - counting
    if count_nodes:
        stats.nodes_after = fts_nodes(engine, database)


def fts_nodes(engine: Engine, database: str) -> tuple[int, int] | None:
    """(word nodes, distinct words) of the on-disk FULLTEXT index: a merged index
    has about one node per word. Reads every posting; only for small indexes.
    None when it cannot be counted (it is evidence, not a figure of the bench)."""
    try:
        return _fts_nodes(engine, database)
    except Exception as exc:  # noqa: BLE001
        print(f"[bench] could not count FULLTEXT word nodes: {exc.__class__.__name__}: {str(exc)[:160]}")
        return None


def _fts_nodes(engine: Engine, database: str) -> tuple[int, int]:
    with engine.connect() as conn:
        # In memory: an on-disk temporary table would land in the shared /tmp.
        conn.execute(text("SET SESSION max_heap_table_size = 1073741824, tmp_table_size = 1073741824"))
        conn.execute(text(f"SET GLOBAL innodb_ft_aux_table = '{database}/rtac_chunks'"))
        try:
            row = conn.execute(text(
                "SELECT COUNT(DISTINCT word, first_doc_id), COUNT(DISTINCT word)"
                " FROM information_schema.INNODB_FT_INDEX_TABLE")).one()
        finally:
            conn.execute(text("SET GLOBAL innodb_ft_aux_table = DEFAULT"))
    return int(row[0]), int(row[1])


def make_pool() -> multiprocessing.pool.Pool:
    # One generator process: the other core is MariaDB's, inserting the previous batch.
    return multiprocessing.get_context("fork").Pool(1)


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def mem_total_gb() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    return 0.0


def os_name() -> str:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return os.uname().sysname
