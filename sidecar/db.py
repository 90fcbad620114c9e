"""The database engine: SQLAlchemy Core over PyMySQL, one pool per process."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import create_engine as _create_engine
from sqlalchemy.engine import Engine, make_url

from .config import Config
from .errors import ConfigError

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
    return _create_engine(url, **options)


def _on_this_host(url) -> bool:
    return (url.host or "localhost") in ("localhost", "127.0.0.1", "::1") or "unix_socket" in url.query


def serving_engine(config: Config, **overrides) -> Engine:
    """The engine of a process that serves requests: waits sized from RTAC_TURN_DEADLINE."""
    return create_engine(config.database_url, waits=Waits.for_deadline(config.turn_deadline), **overrides)
