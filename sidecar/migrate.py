"""Ordered, idempotent migrations: sql/NNN_name.sql applied once each, in order.

MySQL commits DDL implicitly, so a migration cannot be rolled back; a migration is
recorded only after all of its statements succeeded, and re-running one that was cut
short must work: tables are created IF NOT EXISTS, and an ALTER that finds its
column or index already there (MySQL has no ADD COLUMN IF NOT EXISTS) is taken as
done.
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from sqlalchemy import insert, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from . import tables as t
from .db import mysql_errno
from .errors import ConfigError

_MIGRATION = re.compile(r"^(\d{3,})_[\w-]+\.sql$")
# Duplicate column, duplicate key name, duplicate foreign key: the change is already there.
_ALREADY_DONE = {1060, 1061, 1826}


def sql_dir() -> Path:
    candidates = [os.environ.get("RTAC_SQL_DIR", ""),
                  Path(__file__).resolve().parent.parent / "sql",
                  Path(sys.prefix) / "share" / "rtac" / "sql"]
    for c in candidates:
        if c and Path(c).is_dir():
            return Path(c)
    raise ConfigError("the sql/ migrations folder was not found (set RTAC_SQL_DIR)")


def migrations(directory: Path | None = None) -> list[tuple[str, Path]]:
    directory = directory or sql_dir()
    found = sorted((m.group(1), p) for p in directory.iterdir() if (m := _MIGRATION.match(p.name)))
    return [(f"{p.stem}", p) for _, p in found]


def split_statements(sql: str) -> list[str]:
    """Statements end with `;` at the end of a line; `--` comment lines are dropped."""
    lines = [ln for ln in sql.splitlines() if not ln.lstrip().startswith("--")]
    statements, current = [], []
    for line in lines:
        current.append(line)
        if line.rstrip().endswith(";"):
            statements.append("\n".join(current).strip().rstrip(";"))
            current = []
    tail = "\n".join(current).strip()
    if tail:
        statements.append(tail)
    return [s for s in statements if s]


def migrate(engine: Engine, directory: Path | None = None) -> list[str]:
    """Apply what is missing; return the names applied now."""
    applied_now = []
    with engine.begin() as conn:
        conn.execute(text(
            "CREATE TABLE IF NOT EXISTS rtac_schema_migrations ("
            " version VARCHAR(128) NOT NULL PRIMARY KEY,"
            " applied_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP"
            ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"))
        done = set(conn.execute(select(t.schema_migrations.c.version)).scalars())
    for name, path in migrations(directory):
        if name in done:
            continue
        with engine.begin() as conn:
            for statement in split_statements(path.read_text(encoding="utf-8")):
                try:
                    conn.execute(text(statement))
                except OperationalError as exc:
                    if mysql_errno(exc) not in _ALREADY_DONE:
                        raise
            conn.execute(insert(t.schema_migrations).values(version=name))
        applied_now.append(name)
    return applied_now
