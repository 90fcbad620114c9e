"""The database engine: SQLAlchemy Core over PyMySQL, one pool per process."""
from __future__ import annotations

import functools
import logging
import random
import time
from dataclasses import dataclass
from typing import Callable, TypeVar

import pymysql
from sqlalchemy import create_engine as _create_engine
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import DBAPIError

from .config import Config
from .errors import ConfigError, DatabaseUnavailable

log = logging.getLogger("rtac.db")
T = TypeVar("T")

# A turn holds a connection only around its short transactions (a few ms each, the
# vendor call outside them), so a process holding ~100 turns needs far fewer connections
# than threads; but a thread holding one may wait for the CPU meanwhile (the GIL, a busy
# host): bench/load.py saw 40-80 in use across two workers at 96-200 visitors on a busy
# 2-core host. 20 stay open, so the common case opens none; 20 more open under a spike.
POOL_SIZE = 20
POOL_OVERFLOW = 20


@dataclass(frozen=True)
class Waits:
    """How long a server waits on the database, in seconds: for a connection from
    the pool, for a new connection's handshake, for each read and write on it, and
    for a row lock. A database that stops answering (frozen, overloaded, cut off)
    costs a request at most `pool + read + connect` (a checkout, a failed ping, a
    failed reconnect) before it is answered 503 `database_unavailable`."""

    pool: float
    connect: float
    read: float
    write: float
    lock: int

    @classmethod
    def for_deadline(cls, turn_deadline: float) -> "Waits":
        """A quarter of the turn's deadline (10 s of the default 40), at least 4 s and
        at most 15 s: a turn is refused while the deadline still leaves time to say
        so, and no legitimate statement of a turn (milliseconds) comes near it."""
        bound = min(max(turn_deadline / 4, 4.0), 15.0)
        read = round(bound * 0.5, 2)
        return cls(pool=round(bound * 0.2, 2), connect=round(bound * 0.3, 2), read=read, write=read,
                   # a lock wait ends as an error before the read timeout drops the connection
                   lock=max(1, int(read) - 1))

    @property
    def bound(self) -> float:
        return self.pool + self.read + self.connect


def create_engine(database_url: str, *, waits: Waits | None = None, **overrides) -> Engine:
    """The engine; with `waits`, every wait on the server is bounded (a server's
    engine). Without it reads may take as long as a statement takes: the CLI's
    migrations and bulk work must not be cut off."""
    try:
        url = make_url(database_url)
    except Exception as exc:  # sqlalchemy raises ArgumentError with a terse message
        raise ConfigError(f"RTAC_DATABASE_URL is not a database URL: {exc}") from None
    if not url.drivername.startswith("mysql") and not url.drivername.startswith("mariadb"):
        raise ConfigError(f"RTAC_DATABASE_URL must be mysql+pymysql://..., got driver {url.drivername!r}")
    if "charset" not in url.query:
        url = url.update_query_dict({"charset": "utf8mb4"})
    connect_args: dict = {"connect_timeout": 5}
    if _on_this_host(url) and not any(k.startswith("ssl") for k in url.query):
        # PyMySQL negotiates TLS whenever the server offers it and builds a new TLS
        # context for every connection (the system's CA bundle read again: ~20 ms of
        # CPU): on the loopback that buys nothing and costs every new connection.
        connect_args["ssl_disabled"] = True
    options = dict(
        pool_pre_ping=True,
        # Shared hosts close idle connections early (wait_timeout); recycle before they do.
        pool_recycle=280,
        pool_size=POOL_SIZE,
        max_overflow=POOL_OVERFLOW,
        connect_args=connect_args,
    )
    if waits is not None:
        connect_args.update(connect_timeout=waits.connect, read_timeout=waits.read, write_timeout=waits.write,
                            init_command=f"SET SESSION innodb_lock_wait_timeout = {waits.lock}")
        options["pool_timeout"] = waits.pool
    options.update(overrides)
    engine = _create_engine(url, **options)
    event.listen(engine, "do_connect", _tracked_connect)
    return engine


class TrackedConnection(pymysql.connections.Connection):
    """A PyMySQL connection that spares two round trips the pool makes around every
    transaction (a turn has three):
    - ROLLBACK on return, when nothing was sent since the last COMMIT or ROLLBACK:
      with autocommit off the server begins a transaction at the next statement, so
      after a COMMIT none is open.
    - The ping on checkout, when the server answered on this connection in the last
      PING_AFTER seconds. A connection that died in that moment (a server restart, a
      cluster node lost) fails at its first statement instead, and `retrying` runs
      that transaction again on a new connection."""

    PING_AFTER = 1.0
    _settled = False
    _answered_at = float("-inf")

    def query(self, sql, unbuffered=False):
        self._settled = False
        result = super().query(sql, unbuffered)
        self._answered_at = time.monotonic()
        return result

    def begin(self):
        self._settled = False
        super().begin()

    def commit(self):
        self._settled = False  # a COMMIT that fails leaves the transaction to a real ROLLBACK
        super().commit()
        self._settled = True
        self._answered_at = time.monotonic()

    def rollback(self):
        if self._settled:
            return
        super().rollback()
        self._settled = True
        self._answered_at = time.monotonic()

    def ping(self, reconnect=False):
        if self._sock is not None and time.monotonic() - self._answered_at < self.PING_AFTER:
            return
        super().ping(reconnect)
        self._answered_at = time.monotonic()


def _tracked_connect(dialect, connection_record, cargs, cparams):
    return TrackedConnection(*cargs, **cparams)


def _on_this_host(url) -> bool:
    return (url.host or "localhost") in ("localhost", "127.0.0.1", "::1") or "unix_socket" in url.query


def serving_engine(config: Config, **overrides) -> Engine:
    """The engine of a process that serves requests: waits sized from RTAC_TURN_DEADLINE."""
    return create_engine(config.database_url, waits=Waits.for_deadline(config.turn_deadline), **overrides)


# --- transactions that lose to a concurrent one ----------------------------------------------

# MySQL errors after which the same transaction, run again from its start, may succeed.
# 1213: an InnoDB deadlock; on a Galera cluster also a certification failure (another
# node committed a write to the same row first: the COMMIT fails) and a brute-force
# abort (a write replicated from another node took a row this transaction held).
# 1020: "record has changed since last read" (InnoDB snapshot isolation).
# 1205: a lock wait timeout; retried once only, as it has cost a whole lock wait already.
DEADLOCK = 1213
RECORD_CHANGED = 1020
LOCK_WAIT_TIMEOUT = 1205
DUPLICATE_KEY = 1062
_CONFLICTS = frozenset({DEADLOCK, RECORD_CHANGED})
ATTEMPTS = 6
# Pauses between attempts: random up to 20, 40, 80, 160, 320 ms (the jitter keeps two
# losers from meeting again at once); at most ~0.6 s over all attempts.
_PAUSE_BASE = 0.02


class TransactionConflict(DatabaseUnavailable):
    """Raised inside a transaction that must be run again whole, in a fresh one: it
    read something a concurrent transaction has since changed (a row it cannot see in
    its snapshot, a sequence number taken meanwhile). A `retrying` function runs
    again on it; escaping every attempt it is answered like the database being away:
    503, retryable."""

    def __init__(self, message: str = "the database kept answering with conflicting writes; try again"):
        super().__init__(message)


def mysql_errno(exc: BaseException) -> int | None:
    """The server's error number of a DBAPI error, None for anything else."""
    orig = getattr(exc, "orig", None) if isinstance(exc, DBAPIError) else None
    args = getattr(orig, "args", ())
    return args[0] if args and isinstance(args[0], int) else None


def is_conflict(exc: BaseException) -> bool:
    """The transaction lost to a concurrent one: running it again whole may succeed."""
    return isinstance(exc, TransactionConflict) or mysql_errno(exc) in _CONFLICTS


def lost_before_commit(exc: BaseException) -> bool:
    """The connection was lost (and the pool has dropped it) while a statement ran,
    not during a COMMIT: the server rolls back what the transaction did, so running
    it again whole on a new connection is safe. A COMMIT whose connection was lost
    may have been applied, and is never run again."""
    return isinstance(exc, DBAPIError) and exc.connection_invalidated and exc.statement not in (None, "COMMIT")


def is_duplicate(exc: BaseException) -> bool:
    return mysql_errno(exc) == DUPLICATE_KEY


def retrying(fn: Callable[..., T]) -> Callable[..., T]:
    """`fn` run again whole, after a short random pause, when its transaction loses to
    a concurrent one (is_conflict; a lock wait timeout once) or its connection is lost
    before the COMMIT (once: lost_before_commit), up to ATTEMPTS times.
    Only for a function whose database work is its own transactions, with nothing
    before them that must not happen twice: each attempt starts from the function's
    arguments, and a failed attempt's transaction is rolled back whole."""

    @functools.wraps(fn)
    def run(*args, **kwargs) -> T:
        timeouts = losses = 0
        for attempt in range(1, ATTEMPTS + 1):
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                errno = mysql_errno(exc)
                timeouts += errno == LOCK_WAIT_TIMEOUT
                lost = lost_before_commit(exc)
                losses += lost
                if attempt == ATTEMPTS or not (is_conflict(exc) or (errno == LOCK_WAIT_TIMEOUT and timeouts == 1)
                                               or (lost and losses == 1)):
                    raise
                why = "connection lost" if lost else "lock wait timeout" if errno == LOCK_WAIT_TIMEOUT \
                    else "transaction conflict"
                log.warning("%s in %s (%s), running it again (attempt %d of %d)",
                            why, fn.__qualname__, errno or type(exc).__name__, attempt + 1, ATTEMPTS)
            time.sleep(random.uniform(0, _PAUSE_BASE * 2 ** (attempt - 1)))
        raise AssertionError("unreachable")

    return run


def transaction(engine: Engine, body: Callable[[Connection], T]) -> T:
    """`body(conn)` in one transaction, committed; run again whole in a fresh one
    when it loses to a concurrent transaction (see `retrying`)."""

    def attempt() -> T:
        with engine.begin() as conn:
            return body(conn)

    attempt.__qualname__ = getattr(body, "__qualname__", "transaction")
    return retrying(attempt)()


def claim(engine: Engine, statement) -> bool:
    """A conditional UPDATE that claims a queued job for this worker, in a transaction
    of its own: True when it took the row. Losing it to a worker on another node of a
    cluster (a certification failure at COMMIT) is a lost claim like any other: the
    job is skipped, never the rest of the pass."""
    try:
        with engine.begin() as conn:
            return conn.execute(statement).rowcount > 0
    except DBAPIError as exc:
        if is_conflict(exc):
            return False
        raise
