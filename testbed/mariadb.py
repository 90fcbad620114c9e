"""A fresh database on a running MariaDB server, for the tests and the benchmarks."""
from __future__ import annotations

from sqlalchemy import text

from sidecar.db import create_engine


def empty_database(server_url: str, name: str) -> str:
    """`name` dropped if it exists and created empty, in the character set and collation the
    migrations expect; its URL. `server_url` names the server only (no database)."""
    admin = create_engine(server_url + "/mysql")
    with admin.begin() as conn:
        conn.execute(text(f"DROP DATABASE IF EXISTS `{name}`"))
        conn.execute(text(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"))
    admin.dispose()
    return f"{server_url}/{name}"
