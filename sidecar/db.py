"""The database engine: SQLAlchemy Core over PyMySQL, one pool per process."""
from __future__ import annotations

from sqlalchemy import create_engine as _create_engine
from sqlalchemy.engine import Engine, make_url

from .errors import ConfigError


def create_engine(database_url: str, **overrides) -> Engine:
    try:
        url = make_url(database_url)
    except Exception as exc:  # sqlalchemy raises ArgumentError with a terse message
        raise ConfigError(f"RTAC_DATABASE_URL is not a database URL: {exc}") from None
    if not url.drivername.startswith("mysql") and not url.drivername.startswith("mariadb"):
        raise ConfigError(f"RTAC_DATABASE_URL must be mysql+pymysql://..., got driver {url.drivername!r}")
    if "charset" not in url.query:
        url = url.update_query_dict({"charset": "utf8mb4"})
    options = dict(
        pool_pre_ping=True,
        # Shared hosts close idle connections early (wait_timeout); recycle before they do.
        pool_recycle=280,
        pool_size=5,
        max_overflow=10,
        connect_args={"connect_timeout": 5},
    )
    options.update(overrides)
    return _create_engine(url, **options)
