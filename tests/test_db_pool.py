"""The pool's connections on a real MariaDB: the ROLLBACK every returned connection
gets is skipped only when nothing was sent since the last COMMIT or ROLLBACK; the
ping on checkout only when the server has just answered, and a transaction whose
connection was lost before its COMMIT runs again on a new one."""
from __future__ import annotations

import time
import uuid

import pytest
from pymysql.constants import COMMAND
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, ProgrammingError

from sidecar.db import TrackedConnection, create_engine, lost_before_commit, transaction


@pytest.fixture
def one_connection(database_url):
    """An engine whose pool holds a single connection, so every checkout gets the same one."""
    eng = create_engine(database_url, pool_size=1, max_overflow=0)
    yield eng
    eng.dispose()


def _record_commands(dbapi_connection) -> list[str]:
    sent: list[str] = []
    real = dbapi_connection._execute_command

    def recording(command, sql):
        if command == COMMAND.COM_PING:
            sent.append("PING")
        else:
            sent.append(sql if isinstance(sql, str) else sql.decode())
        return real(command, sql)

    dbapi_connection._execute_command = recording
    return sent


def test_a_connection_returned_after_its_commit_sends_no_rollback(one_connection):
    with one_connection.begin() as conn:
        dbapi = conn.connection.dbapi_connection
        assert isinstance(dbapi, TrackedConnection)
        sent = _record_commands(dbapi)
        conn.execute(text("SELECT 1"))
    assert sent == ["SELECT 1", "COMMIT"]  # the pool's reset on return cost no trip

    with one_connection.connect() as conn:  # the same connection, a statement, no commit
        assert conn.connection.dbapi_connection is dbapi
        conn.execute(text("SELECT 2"))
    assert sent[2:] == ["SELECT 2", "ROLLBACK"]  # nor a ping: the server answered just now

    with pytest.raises(ProgrammingError):  # a transaction that fails is rolled back for real
        with one_connection.begin() as conn:
            conn.execute(text("SELECT * FROM no_such_table_here"))
    assert sent[-2:] == ["SELECT * FROM no_such_table_here", "ROLLBACK"]


def test_a_read_left_open_is_rolled_back_so_the_next_checkout_sees_later_commits(one_connection, engine):
    table = f"pool_seen_{uuid.uuid4().hex[:8]}"
    with engine.begin() as conn:
        conn.execute(text(f"CREATE TABLE {table} (id INT PRIMARY KEY) ENGINE=InnoDB"))
    try:
        # A read opens a snapshot (REPEATABLE READ); the connection goes back to the pool
        # without a COMMIT, through the raw DB-API connection the pool hands out.
        raw = one_connection.raw_connection()
        cursor = raw.cursor()
        cursor.execute(f"SELECT COUNT(*) FROM {table}")
        assert cursor.fetchone()[0] == 0
        cursor.close()
        raw.close()
        with engine.begin() as conn:  # another connection commits a row meanwhile
            conn.execute(text(f"INSERT INTO {table} VALUES (1)"))
        with one_connection.connect() as conn:
            assert conn.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar_one() == 1
    finally:
        with engine.begin() as conn:
            conn.execute(text(f"DROP TABLE {table}"))


def test_a_connection_idle_for_a_moment_is_pinged_before_use(one_connection, monkeypatch):
    monkeypatch.setattr(TrackedConnection, "PING_AFTER", 0.2)
    with one_connection.begin() as conn:
        sent = _record_commands(conn.connection.dbapi_connection)
        conn.execute(text("SELECT 1"))
    with one_connection.begin() as conn:
        conn.execute(text("SELECT 2"))
    time.sleep(0.3)
    with one_connection.begin() as conn:
        conn.execute(text("SELECT 3"))
    assert sent == ["SELECT 1", "COMMIT", "SELECT 2", "COMMIT", "PING", "SELECT 3", "COMMIT"]


def test_a_transaction_whose_connection_was_killed_runs_again_on_a_new_one(one_connection, engine, caplog):
    first = transaction(one_connection, lambda conn: conn.execute(text("SELECT CONNECTION_ID()")).scalar_one())
    with engine.begin() as conn:  # the server drops it, as a restart or a lost cluster node would
        conn.execute(text(f"KILL CONNECTION {int(first)}"))
    attempts = []

    def body(conn):
        attempts.append(1)
        return conn.execute(text("SELECT CONNECTION_ID()")).scalar_one()

    second = transaction(one_connection, body)
    assert second != first
    assert len(attempts) == 2  # the first met the dead connection (no ping: it had just answered)
    # Logged as what it was: the operator reads a lost connection, not a conflict.
    assert [r.getMessage().split(" in ")[0] for r in caplog.records if "running it again" in r.getMessage()] == [
        "connection lost"]


def _lost(statement):
    import pymysql
    return DBAPIError.instance(statement, None, pymysql.err.OperationalError(2013, "Lost connection"),
                               pymysql.err.Error, connection_invalidated=True)


def test_only_a_connection_lost_before_the_commit_is_run_again():
    assert lost_before_commit(_lost("UPDATE rtac_conversations SET turn_count = turn_count + 1"))
    assert not lost_before_commit(_lost(None))  # SQLAlchemy's COMMIT: it may have been applied
    assert not lost_before_commit(_lost("COMMIT"))
    error = _lost("SELECT 1")
    error.connection_invalidated = False  # a statement's error on a live connection
    assert not lost_before_commit(error)
