"""Transactions that lose to concurrent ones, on one real MariaDB: deadlocks made with
real connections, a taken sequence number, claims that fail with the error a Galera
node answers when another node committed first. Each is decided by running the
transaction again whole (sidecar.db.retrying), never answered 500 or 503."""
from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import func, insert, select, text

from sidecar import tables as t
from sidecar.conversations import seal_content
from sidecar.db import DEADLOCK, transaction
from sidecar.documents import DocumentInput, upsert
from sidecar.embedding_queue import EmbeddingQueue
from sidecar.signing import NonceStore
from sidecar.spaces import find_space, resolve_space
from tests.conftest import chat_payload


def _deadlocking_pair(engine, first, second, calls: list):
    """Two transactions locking the same two rows in opposite orders, each waiting for
    the other's second row: InnoDB rolls one back with 1213."""
    both = threading.Barrier(2)

    def body(a, b):
        def run(conn):
            calls.append(a)
            conn.execute(text("SELECT nonce FROM rtac_nonces WHERE site_id = :s AND nonce = :n FOR UPDATE"),
                         {"s": a[0], "n": a[1]})
            if len(calls) <= 2:
                both.wait(5)
            conn.execute(text("SELECT nonce FROM rtac_nonces WHERE site_id = :s AND nonce = :n FOR UPDATE"),
                         {"s": b[0], "n": b[1]})
            return a
        return run

    return body(first, second), body(second, first)


def test_a_deadlocked_transaction_runs_again_whole_and_both_commit(engine, site):
    store = NonceStore(engine)
    keys = [(site.id, "deadlock-row-a-0001"), (site.id, "deadlock-row-b-0001")]
    for sid, nonce in keys:
        assert store.claim(sid, nonce)
    calls: list = []
    one, two = _deadlocking_pair(engine, keys[0], keys[1], calls)
    results, errors = [], []

    def go(body):
        try:
            results.append(transaction(engine, body))
        except Exception as exc:  # noqa: BLE001 - recorded for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(b,)) for b in (one, two)]
    [th.start() for th in threads]
    [th.join(30) for th in threads]
    assert not errors, errors
    assert sorted(results) == sorted(keys)
    assert len(calls) == 3  # the loser ran once more, from its start


def test_a_nonce_replayed_at_once_is_taken_once_even_when_the_losers_deadlock(engine, site):
    # A first claim holds the nonce's key and rolls back: the two claims waiting on it
    # both get a shared lock and both need the exclusive one, and InnoDB answers one of
    # them 1213. The nonce is taken once: True for one, False (401) for the other.
    nonce = "replayed-nonce-0000001"
    holder = engine.connect()
    holder.begin()
    holder.execute(insert(t.nonces).values(site_id=site.id, nonce=nonce, seen_at=func.now()))
    store, results, errors = NonceStore(engine), [], []

    def claim():
        try:
            results.append(store.claim(site.id, nonce))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=claim) for _ in range(2)]
    [th.start() for th in threads]
    time.sleep(0.5)  # both wait on the holder's key
    holder.rollback()
    holder.close()
    [th.join(30) for th in threads]
    assert not errors, errors
    assert sorted(results) == [False, True]


def test_concurrent_first_turns_of_one_new_visitor_share_one_space(engine, keyring, site):
    failures, spaces = [], {}
    for visitor in range(12):
        barrier = threading.Barrier(6)

        def first_turn():
            try:
                with engine.begin() as conn:
                    barrier.wait(10)
                    space = resolve_space(conn, keyring, site, f"v:first-{visitor}")
                spaces.setdefault(visitor, set()).add((space.id, space.key))
            except Exception as exc:  # noqa: BLE001
                failures.append(repr(exc)[:160])

        threads = [threading.Thread(target=first_turn) for _ in range(6)]
        [th.start() for th in threads]
        [th.join(30) for th in threads]
    assert not failures, sorted(set(failures))
    assert [len(s) for s in spaces.values()] == [1] * 12  # one space and one key per visitor


def _conversation(engine, keyring, site, client, visitor: str):
    first = client.post("/v1/chat", chat_payload("First question", visitor=visitor)).get_json()
    with engine.connect() as conn:
        space = find_space(conn, keyring, site, f"v:{visitor}")
    return first["conversation_id"], space


def _seqs(engine, conversation_id: str) -> list[int]:
    with engine.connect() as conn:
        return conn.execute(select(t.turns.c.seq).where(t.turns.c.conversation_id == conversation_id)
                            .order_by(t.turns.c.seq)).scalars().all()


def test_a_turn_whose_seq_was_taken_is_stored_under_the_next_one(engine, keyring, site, client):
    conversation_id, space = _conversation(engine, keyring, site, client, "seq-taken")
    # A turn stored with seq 2 while the conversation's counter still says 1, as when
    # another node's turn and this node's counter disagree.
    with engine.begin() as conn:
        conn.execute(insert(t.turns).values(
            site_id=site.id, space_id=space.id, conversation_id=conversation_id, seq=2, lang="en",
            content_enc=seal_content(space, conversation_id, 2, {"message": "other node", "reply": "ok"}),
            action="none", provider="offline", model="offline", created_at=func.now(), unanswered=False,
            degraded=False, lead_captured=False, forgot=False))
    r = client.post("/v1/chat", chat_payload("Second question", visitor="seq-taken",
                                             conversation_id=conversation_id))
    assert r.status_code == 200, r.get_json()
    assert _seqs(engine, conversation_id) == [1, 2, 3]
    r = client.post("/v1/chat", chat_payload("Third question", visitor="seq-taken", conversation_id=conversation_id))
    assert r.status_code == 200 and _seqs(engine, conversation_id) == [1, 2, 3, 4]


def test_a_turn_that_loses_a_deadlock_after_the_model_answered_is_stored_once(engine, keyring, site, client,
                                                                              monkeypatch):
    """The turn's write transaction deadlocks with another one (real connections): it
    runs again whole, and the turn is stored once, answered 200."""
    from sidecar import usage as usage_module

    conversation_id, space = _conversation(engine, keyring, site, client, "deadlocked-turn")
    real_record, attempts = usage_module.record, []
    other_done = threading.Event()

    def record_after_a_deadlock(conn, *args, **kwargs):
        attempts.append(1)
        if len(attempts) == 1:
            # Another transaction locks the end of the usage table (where the turn's
            # usage row goes), writes enough to be the one InnoDB keeps, then waits
            # for the conversation row this turn holds.
            other = engine.connect()
            other.begin()
            other.execute(text("SELECT id FROM rtac_usage WHERE id > (SELECT COALESCE(MAX(id), 0) FROM rtac_usage)"
                               " FOR UPDATE"))
            for i in range(30):
                other.execute(insert(t.nonces).values(site_id=site.id, nonce=f"weight-{i:04d}-{conversation_id}",
                                                      seen_at=func.now()))

            def wait_for_the_conversation():
                try:
                    other.execute(text("UPDATE rtac_conversations SET updated_at = NOW() WHERE id = :id"),
                                  {"id": conversation_id})
                    other.commit()
                finally:
                    other.close()
                    other_done.set()

            threading.Thread(target=wait_for_the_conversation).start()
            time.sleep(0.5)
        real_record(conn, *args, **kwargs)  # the first time: waits for the other, which waits for this one

    monkeypatch.setattr(usage_module, "record", record_after_a_deadlock)
    r = client.post("/v1/chat", chat_payload("Second question", visitor="deadlocked-turn",
                                             conversation_id=conversation_id))
    assert other_done.wait(30)
    assert r.status_code == 200, r.get_json()
    assert len(attempts) == 2  # the write transaction ran twice
    assert _seqs(engine, conversation_id) == [1, 2]


@pytest.fixture
def conflict_on_update(engine):
    """A trigger answering an UPDATE of one row with 1213, as a Galera node answers the
    COMMIT of a claim another node's worker made first."""
    made = []

    def make(table: str, key: str, value: int, when: str = "TRUE"):
        name = f"rtac_test_conflict_{table.removeprefix('rtac_')}"
        with engine.begin() as conn:
            conn.execute(text(f"DROP TRIGGER IF EXISTS {name}"))
            conn.execute(text(
                f"CREATE TRIGGER {name} BEFORE UPDATE ON {table} FOR EACH ROW "
                f"IF NEW.{key} = {int(value)} AND {when} THEN SIGNAL SQLSTATE '40001' SET MYSQL_ERRNO = {DEADLOCK}, "
                f"MESSAGE_TEXT = 'Deadlock found when trying to get lock; try restarting transaction'; END IF"))
        made.append(name)

    yield make
    with engine.begin() as conn:
        for name in made:
            conn.execute(text(f"DROP TRIGGER IF EXISTS {name}"))


def _due_memory_jobs(engine, keyring, site, client, visitor: str, n: int) -> list[int]:
    """`n` extraction jobs of one stored turn, due now."""
    conversation_id, space = _conversation(engine, keyring, site, client, visitor)
    with engine.begin() as conn:
        return [conn.execute(insert(t.memory_jobs).values(
            site_id=site.id, space_id=space.id, conversation_id=conversation_id, turn_seq=1, lang="en",
            next_attempt_at=func.now() - text("INTERVAL 1 SECOND"))).inserted_primary_key[0] for _ in range(n)]


def test_a_memory_job_claimed_on_another_node_is_skipped_not_the_pass(engine, keyring, site, client, services,
                                                                     conflict_on_update):
    ids = _due_memory_jobs(engine, keyring, site, client, "memory-claims", 3)
    conflict_on_update("rtac_memory_jobs", "id", ids[0])
    assert services.memory._claim(site.id) == ids[1:]


def test_a_failed_job_whose_retry_keeps_conflicting_does_not_end_the_pass(engine, keyring, site, client, services,
                                                                         conflict_on_update):
    # Extraction fails (the offline provider cannot extract); the first job's retry
    # bookkeeping conflicts on every attempt: it is left to its claim's expiry, and
    # the second job is still taken and counted.
    ids = _due_memory_jobs(engine, keyring, site, client, "memory-retries", 2)
    conflict_on_update("rtac_memory_jobs", "id", ids[0], when="NEW.attempts > OLD.attempts")
    assert services.memory.run_pending(site.id) == 0
    with engine.connect() as conn:
        attempts = dict(conn.execute(select(t.memory_jobs.c.id, t.memory_jobs.c.attempts)
                                     .where(t.memory_jobs.c.id.in_(ids))).all())
    assert attempts == {ids[0]: 0, ids[1]: 1}


def test_a_chunk_job_claimed_on_another_node_is_skipped_not_the_pass(engine, site, conflict_on_update):
    with engine.begin() as conn:
        upsert(conn, site.id, [DocumentInput("wp", f"claims-{i}", "en", f"Page {i}", f"https://example.test/{i}",
                                             f"Opening hours of shop number {i} are ten to seven.")
                               for i in range(3)])
        conn.execute(t.chunk_jobs.update().where(t.chunk_jobs.c.site_id == site.id)
                     .values(next_attempt_at=func.now() - text("INTERVAL 1 SECOND")))
        ids = conn.execute(select(t.chunk_jobs.c.chunk_id).where(t.chunk_jobs.c.site_id == site.id)
                           .order_by(t.chunk_jobs.c.next_attempt_at, t.chunk_jobs.c.chunk_id)).scalars().all()
    assert len(ids) >= 2
    conflict_on_update("rtac_chunk_jobs", "chunk_id", ids[0])
    assert EmbeddingQueue(engine, embedder=None)._claim(site.id) == ids[1:]


def test_maintenance_that_loses_to_another_server_runs_again_and_is_no_error(make_services, monkeypatch, caplog):
    from sidecar import services as services_module
    from sidecar.db import TransactionConflict

    svc = make_services()
    lost = []

    def purge_expired(conn, days):
        if len(lost) < 2:  # another server purged the same rows twice in a row
            lost.append(days)
            raise TransactionConflict("the purge lost to another server")
        return 0

    monkeypatch.setattr(services_module, "purge_expired", purge_expired)
    with caplog.at_level("WARNING"):
        svc.maybe_maintain(every=0)
        for thread in threading.enumerate():
            if thread.name == "rtac-maintenance":
                thread.join(10)
    assert len(lost) == 2  # run again whole, then done
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
