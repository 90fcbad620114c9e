"""Each site's FULLTEXT index of its own, so a site's retrieval cost follows its own size.

InnoDB's natural-language ranking reads and scores every posting of the query's
words in the whole index before a `WHERE site_id = ...` applies: in one index
shared by every site, a 1,000-chunk site's lexical retrieval took about 9 times as
long next to a 100,000-chunk site as alone (bench/isolation.py). InnoDB FULLTEXT
cannot be partitioned, and a site token required in BOOLEAN MODE helps only in
part: the server still reads every posting of the other words (the ranking
statement next to 100,000 chunks: ~37 ms shared, ~11 ms with the token, ~1 ms in
the site's own table).

So each site's search text is also kept in a table of its own, `rtac_ft_<n>`
(chunk_id, site_id, lang, search_text) with its own FULLTEXT index:
- `n` is the site's `ft_shard`, a number the server gives the site row
  (AUTO_INCREMENT, unique): a table name is never made from a site id, whatever
  characters it holds. The tables are not in tables.metadata: they come and go
  with sites.
- `rtac_chunks` keeps everything (content, search text, term counts); retrieval
  ranks in the site's table, re-scores the candidates with BM25 from the text
  there (the rows the ranking has just read: the site's own pages), then reads the
  winners back from `rtac_chunks` by id (retrieval.py).
- In step in the transaction of every chunk write: documents.upsert copies a page's
  new chunks (INSERT ... SELECT from rtac_chunks), refresh_search_text rewrites
  their text, and a foreign key to the chunk (ON DELETE CASCADE) takes a row away
  with its chunk however the chunk goes: a page replaced or deleted, a document's
  cascade, the site removed. FULLTEXT sees committed rows only; pages are written
  in their own committed transactions, as before.
- MySQL commits DDL implicitly, so a table is created before any write needs it, on
  a connection of its own, IF NOT EXISTS (a concurrent creator waits for the
  first's metadata lock and finds the table there): when a site is added, for
  every site at `rtac init-db`, and at a site's first write in a process when the
  table is missing.
- `ft_ready` says the table holds every chunk of the site: set when a site is added
  (it has none yet) and by `rtac init-db` once the chunks stored before this design
  are copied (sync_site: batched, idempotent, resumable). Until then the site is
  searched in `rtac_chunks`' shared index, which is kept: the same text, for sites
  not migrated yet (and the benchmark's "before").
- A site removed loses its rows in the removal's transaction (the cascade); its
  table is dropped after the commit, so one left behind by a failed drop is empty,
  and `rtac init-db` drops tables no site names.

Cost: each table is about a dozen InnoDB files (the FULLTEXT index's auxiliary
tables), ~0.8 MB when empty, and the search text is stored twice (here and in
rtac_chunks). The database user needs the CREATE and DROP privileges at run time.
"""
from __future__ import annotations

import re
import threading
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import BigInteger, Column, MetaData, String, Table, Text, bindparam, column, func, select, text, update
from sqlalchemy import table as sa_table
from sqlalchemy.dialects.mysql import insert as mysql_insert
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError

from . import tables as t
from .db import mysql_errno
from .errors import RtacError

PREFIX = "rtac_ft_"
_NAME = re.compile(r"^rtac_ft_([1-9][0-9]{0,9})$")
FILL_BATCH = 2000
DDL_LOCK_WAIT = 10  # seconds a CREATE or DROP waits for a metadata lock before it gives up
_NO_SUCH_TABLE = 1146
_TABLE_EXISTS = 1050

_DDL = """CREATE TABLE IF NOT EXISTS {name} (
  chunk_id     BIGINT UNSIGNED NOT NULL,
  site_id      VARCHAR(64)     NOT NULL,
  lang         VARCHAR(16)     NOT NULL,
  search_text  MEDIUMTEXT      NOT NULL,
  PRIMARY KEY (chunk_id),
  KEY ix_ft_site_chunk (site_id, chunk_id),
  FULLTEXT KEY ft_search (search_text),
  CONSTRAINT fk_{name}_chunk FOREIGN KEY (site_id, chunk_id)
    REFERENCES rtac_chunks (site_id, id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci"""

_C = t.chunks.c


class SearchTableError(RtacError):
    """A site's FULLTEXT table could not be created, written or dropped."""

    status = 503
    code = "search_table_unavailable"
    retryable = True


def table_name(shard: int) -> str:
    if isinstance(shard, bool) or not isinstance(shard, int) or shard <= 0:
        raise ValueError(f"not a search table number: {shard!r}")
    return f"{PREFIX}{shard}"


_metadata = MetaData()  # not tables.metadata: these tables come and go with sites
_lock = threading.Lock()
_existing: set[tuple] = set()  # (server, database, table) this process has seen or created


def _key(engine: Engine, name: str) -> tuple:
    url = engine.url
    return (url.host, url.port, url.query.get("unix_socket"), url.database, name)


def table(shard: int) -> Table:
    name = table_name(shard)
    with _lock:
        found = _metadata.tables.get(name)
        if found is None:
            found = Table(name, _metadata,
                          Column("chunk_id", BigInteger, primary_key=True),
                          Column("site_id", String(64)),
                          Column("lang", String(16)),
                          Column("search_text", Text))
    return found


def is_missing_table(exc: DBAPIError) -> bool:
    return mysql_errno(exc) == _NO_SUCH_TABLE


# --- where a site is searched ---------------------------------------------------------

@dataclass(frozen=True)
class SiteIndex:
    """What a retrieval reads first: the site's content_version, and the FULLTEXT table
    holding all its chunks (None: the shared index of rtac_chunks)."""

    version: int
    table: str | None


# The columns of a site's row a SiteIndex is made of: a turn reads them with its space
# (spaces.resolve_space_with), anything else with locate().
LOCATE_COLUMNS = ("content_version", "ft_shard", "ft_ready")
_LOCATE = select(*(t.sites.c[name] for name in LOCATE_COLUMNS)).where(
    t.sites.c.id == bindparam("site"))  # built once: every retrieve reads it


def site_index(row) -> SiteIndex:
    """The SiteIndex of a row holding LOCATE_COLUMNS (None, or all NULL: no such site)."""
    if row is None or row.ft_shard is None:
        return SiteIndex(0, None)
    return SiteIndex(int(row.content_version or 0), table_name(int(row.ft_shard)) if row.ft_ready else None)


def locate(conn: Connection, site_id: str) -> SiteIndex:
    return site_index(conn.execute(_LOCATE, {"site": site_id}).first())


# --- creating and dropping tables ---------------------------------------------------------

def _ddl(engine: Engine, statement: str) -> None:
    with engine.connect() as conn:
        conn.execute(text(f"SET SESSION lock_wait_timeout = {DDL_LOCK_WAIT}"))
        try:
            conn.execute(text(statement))
        finally:
            conn.execute(text("SET SESSION lock_wait_timeout = DEFAULT"))  # the connection goes back to the pool
        conn.commit()


def ensure_table(engine: Engine, shard: int) -> Table:
    """The table, created when missing, on a connection of its own (a DDL statement
    would commit the caller's transaction)."""
    name = table_name(shard)
    try:
        _ddl(engine, _DDL.format(name=name))
    except DBAPIError as exc:
        if mysql_errno(exc) != _TABLE_EXISTS:  # a concurrent creator won: the table is there
            raise SearchTableError(f"the search table {name} could not be created ({exc.orig}); "
                                   "`rtac init-db` creates it") from None
    with _lock:
        _existing.add(_key(engine, name))
    return table(shard)


def drop_table(engine: Engine, shard: int) -> None:
    name = table_name(shard)
    with _lock:
        _existing.discard(_key(engine, name))
    try:
        _ddl(engine, f"DROP TABLE IF EXISTS {name}")
    except DBAPIError as exc:
        raise SearchTableError(f"the search table {name} could not be dropped ({exc.orig}); "
                               "`rtac init-db` drops it") from None


_SCHEMA_TABLES = sa_table("TABLES", column("table_schema"), column("table_name"), schema="information_schema")
_IN_THIS_DATABASE = _SCHEMA_TABLES.c.table_schema == func.database()


def _tables(conn: Connection) -> dict[str, int]:
    # LIKE's "_" matches any character (escaping it depends on the SQL mode): the
    # pattern only narrows, the expression decides.
    names = conn.execute(select(_SCHEMA_TABLES.c.table_name)
                         .where(_IN_THIS_DATABASE, _SCHEMA_TABLES.c.table_name.like("rtac_ft_%"))).scalars()
    return {name: int(m.group(1)) for name in names if (m := _NAME.match(name))}


def _exists(conn: Connection, name: str) -> bool:
    return conn.execute(select(func.count()).select_from(_SCHEMA_TABLES)
                        .where(_IN_THIS_DATABASE, _SCHEMA_TABLES.c.table_name == name)).scalar_one() > 0


def writable(conn: Connection, site_id: str) -> Table | None:
    """The site's table for a write in `conn`'s transaction, created first when it
    is missing (None: no such site). Call before the transaction writes anything."""
    shard = conn.execute(select(t.sites.c.ft_shard).where(t.sites.c.id == site_id)).scalar_one_or_none()
    if shard is None:
        return None
    shard = int(shard)
    name = table_name(shard)
    with _lock:
        known = _key(conn.engine, name) in _existing
    if not known:
        if _exists(conn, name):
            with _lock:
                _existing.add(_key(conn.engine, name))
        else:
            _recreate(conn.engine, site_id, shard)
    return table(shard)


def _recreate(engine: Engine, site_id: str, shard: int) -> None:
    """A missing table (a site added while it could not be created, or dropped by
    hand), created for a write. If the site has chunks already, it is searched in
    the shared index until `rtac init-db` has copied them: filling a big site's
    table here would hold the write for minutes."""
    with engine.connect() as conn:
        has_chunks = conn.execute(select(_C.id).where(_C.site_id == site_id).limit(1)).first() is not None
    if has_chunks:
        _mark(engine, site_id, False)
    ensure_table(engine, shard)


# --- keeping a table in step --------------------------------------------------------------

@contextmanager
def _writing(conn: Connection, ft: Table):
    """A write to a table that has gone (dropped by hand, or its site removed meanwhile)
    becomes a retryable error, and the next write creates the table again."""
    try:
        yield
    except DBAPIError as exc:
        if not is_missing_table(exc):
            raise
        with _lock:
            _existing.discard(_key(conn.engine, ft.name))
        raise SearchTableError(f"the search table {ft.name} is missing; try again") from None


def copy_documents(conn: Connection, ft: Table | None, site_id: str, document_ids: list[int]) -> None:
    """Copy the chunks these documents have now (just inserted in this transaction)."""
    if ft is None or not document_ids:
        return
    rows = select(_C.id, _C.site_id, _C.lang, _C.search_text).where(
        _C.site_id == site_id, _C.document_id.in_(document_ids))
    with _writing(conn, ft):
        conn.execute(ft.insert().from_select(["chunk_id", "site_id", "lang", "search_text"], rows))


def rewrite(conn: Connection, ft: Table | None, rows: list[dict]) -> None:
    """New search text of chunks, each {chunk_id, lang, search_text}; a chunk the
    table does not hold yet is left to sync_site."""
    if ft is None or not rows:
        return
    statement = update(ft).where(ft.c.chunk_id == bindparam("b_id")).values(
        lang=bindparam("b_lang"), search_text=bindparam("b_text"))
    with _writing(conn, ft):
        conn.execute(statement, [{"b_id": r["chunk_id"], "b_lang": r["lang"], "b_text": r["search_text"]}
                                 for r in rows])


# --- filling tables (rtac init-db) ----------------------------------------------------------

@dataclass(frozen=True)
class Synced:
    site_id: str
    table: str
    chunks: int   # the rows the table holds now: every chunk of the site
    copied: int   # of them copied by this run (0: it was complete)


def sync_site(engine: Engine, site_id: str, batch: int = FILL_BATCH) -> Synced | None:
    """Make the site's table hold every chunk of the site, creating it if missing,
    then mark the site ready (searched in its table from now on). A table that had
    gone is created again with the site searched in the shared index until it is
    filled. Idempotent: a complete table is only counted (the foreign key keeps the
    table a subset of the site's chunks, so equal counts mean the same rows)."""
    with engine.connect() as conn:
        row = conn.execute(select(t.sites.c.ft_shard, t.sites.c.ft_ready)
                           .where(t.sites.c.id == site_id)).first()
        present = row is not None and _exists(conn, table_name(int(row.ft_shard)))
    if row is None:
        return None
    ready = bool(row.ft_ready)
    if not present and ready:
        _mark(engine, site_id, False)
        ready = False
    ft = ensure_table(engine, int(row.ft_shard))
    with engine.connect() as conn:
        chunks = conn.execute(select(func.count()).select_from(t.chunks).where(_C.site_id == site_id)).scalar_one()
        held = conn.execute(select(func.count()).select_from(ft).where(ft.c.site_id == site_id)).scalar_one()
    if ready and chunks == held:
        return Synced(site_id, ft.name, int(held), 0)
    _fill(engine, ft, site_id, batch)
    _mark(engine, site_id, True)
    with engine.connect() as conn:
        now = conn.execute(select(func.count()).select_from(ft).where(ft.c.site_id == site_id)).scalar_one()
    return Synced(site_id, ft.name, int(now), max(0, int(now) - int(held)))


def _mark(engine: Engine, site_id: str, ready: bool) -> None:
    with engine.begin() as conn:
        conn.execute(update(t.sites).where(t.sites.c.id == site_id).values(ft_ready=ready))


def _fill(engine: Engine, ft: Table, site_id: str, batch: int) -> None:
    """Copy the site's chunks in id order, a batch per transaction, each batch's
    chunks locked while they are copied, so a concurrent edit of one waits for the
    copy or is copied as it left it. A row already there is corrected if its text
    differs, and left untouched if not."""
    last = 0
    while True:
        with engine.begin() as conn:
            ids = conn.execute(select(_C.id).where(_C.site_id == site_id, _C.id > last)
                               .order_by(_C.id).limit(batch).with_for_update()).scalars().all()
            if not ids:
                return
            rows = select(_C.id, _C.site_id, _C.lang, _C.search_text).where(
                _C.site_id == site_id, _C.id >= ids[0], _C.id <= ids[-1])
            statement = mysql_insert(ft).from_select(["chunk_id", "site_id", "lang", "search_text"], rows)
            conn.execute(statement.on_duplicate_key_update(lang=statement.inserted.lang,
                                                           search_text=statement.inserted.search_text))
        last = ids[-1]
        if len(ids) < batch:
            return


@dataclass(frozen=True)
class SyncReport:
    sites: list[Synced]
    dropped: list[str]  # tables no site names any more


def drop_orphans(engine: Engine) -> list[str]:
    """Drop the tables no site names (a removed site's, when its drop failed). The
    tables are listed before the sites: a table is created after its site row was
    committed, so a table listed belongs to a site listed afterwards, or to none."""
    with engine.connect() as conn:
        present = _tables(conn)
        named = {int(s) for s in conn.execute(select(t.sites.c.ft_shard)).scalars()}
    dropped = []
    for name, shard in sorted(present.items(), key=lambda kv: kv[1]):
        if shard not in named:
            drop_table(engine, shard)
            dropped.append(name)
    return dropped


def sync_all(engine: Engine) -> SyncReport:
    """`rtac init-db`: every site's table complete, the removed sites' tables gone."""
    dropped = drop_orphans(engine)
    with engine.connect() as conn:
        site_ids = conn.execute(select(t.sites.c.id).order_by(t.sites.c.id)).scalars().all()
    synced = [s for s in (sync_site(engine, site_id) for site_id in site_ids) if s is not None]
    return SyncReport(synced, dropped)
