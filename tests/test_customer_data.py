"""Customer data at rest: spaces, per-space keys wrapped by the master key, row
identity as associated data, erasure by key destruction, master key rotation."""
import os
import secrets

import pytest
from sqlalchemy import func, select, update

from sidecar import tables
from sidecar.crypto import DecryptionError, Keyring, keyed_hash, open_sealed, seal
from sidecar.keys import rotate_master_key
from sidecar.sites import SiteRegistry, add_site, load_site
from sidecar.spaces import erase_space, find_space, identity_of, resolve_space
from tests.conftest import chat_payload, past_turns


def test_seal_binds_key_and_identity():
    key = os.urandom(32)
    blob = seal(key, b"my phone is 5551234", "rtac/turn/s/1/c/1")
    assert b"5551234" not in blob
    assert open_sealed(key, blob, "rtac/turn/s/1/c/1") == b"my phone is 5551234"
    with pytest.raises(DecryptionError):
        open_sealed(key, blob, "rtac/turn/s/2/c/1")  # same bytes, another row's identity
    with pytest.raises(DecryptionError):
        open_sealed(os.urandom(32), blob, "rtac/turn/s/1/c/1")
    with pytest.raises(DecryptionError):
        open_sealed(key, blob[:-1] + bytes([blob[-1] ^ 1]), "rtac/turn/s/1/c/1")


def test_identity_mapping():
    assert identity_of("cookie-abc", None) == "v:cookie-abc"
    assert identity_of("cookie-abc", 42) == identity_of("other-device", 42) == "wp:42"
    assert keyed_hash(b"k" * 32, "identity", "wp:42") != keyed_hash(b"j" * 32, "identity", "wp:42")


def test_space_per_site_and_identity_with_hashed_identity(engine, keyring, site):
    with engine.begin() as conn:
        a = resolve_space(conn, keyring, site, "v:alice")
        again = resolve_space(conn, keyring, site, "v:alice")
        b = resolve_space(conn, keyring, site, "v:bob")
        row = conn.execute(select(tables.spaces).where(tables.spaces.c.id == a.id)).mappings().one()
    assert a.id == again.id and a.key == again.key
    assert b.id != a.id and b.key != a.key
    assert b"alice" not in row["identity_hash"] and len(row["identity_hash"]) == 32
    assert a.key not in row["wrapped_key"]


def test_logged_in_user_keeps_the_conversation_space_across_devices(client, engine, site):
    first = client.post("/v1/chat", chat_payload("hi", visitor="phone-cookie", wp_user_id=None) |
                        {"visitor": {"id": "phone-cookie", "wp_user_id": 7}}).get_json()
    second = client.post("/v1/chat", chat_payload("again", conversation_id=first["conversation_id"]) |
                         {"visitor": {"id": "laptop-cookie", "wp_user_id": 7}}).get_json()
    assert second["conversation_id"] == first["conversation_id"]
    with engine.connect() as conn:
        n = conn.execute(select(func.count()).select_from(tables.spaces).where(tables.spaces.c.site_id == site.id)).scalar_one()
    assert n == 1


def test_a_turn_copied_into_another_space_does_not_open(client, engine, keyring, site):
    client.post("/v1/chat", chat_payload("my secret question", visitor="victim"))
    with engine.begin() as conn:
        victim = find_space(conn, keyring, site, "v:victim")
        attacker = resolve_space(conn, keyring, site, "v:attacker")
        turn = conn.execute(select(tables.turns).where(tables.turns.c.space_id == victim.id)).mappings().one()
        # Even a copy that keeps the row identity fails: it is sealed under the victim's key.
        with pytest.raises(DecryptionError):
            attacker.open(turn["content_enc"], f"rtac/turn/{site.id}/{victim.id}/{turn['conversation_id']}/1")
        assert past_turns(conn, keyring, site, "v:victim", turn["conversation_id"])[0].message == "my secret question"


def test_erasing_a_space_destroys_its_key_and_turns(client, engine, keyring, site):
    body = client.post("/v1/chat", chat_payload("remember me", visitor="leaver")).get_json()
    with engine.begin() as conn:
        assert erase_space(conn, site, "v:leaver") is True
        assert find_space(conn, keyring, site, "v:leaver") is None
        left = conn.execute(select(func.count()).select_from(tables.turns).where(
            tables.turns.c.conversation_id == body["conversation_id"])).scalar_one()
        usage_rows = conn.execute(select(func.count()).select_from(tables.usage).where(
            tables.usage.c.site_id == site.id)).scalar_one()
    assert left == 0
    assert usage_rows == 1  # the owner's cost figures survive, with no link to the person
    # Coming back later starts from nothing: a new space, a new key, a new conversation.
    again = client.post("/v1/chat", chat_payload("hello", visitor="leaver",
                                                 conversation_id=body["conversation_id"])).get_json()
    assert again["conversation_id"] != body["conversation_id"]


def test_master_key_rotation_rewraps_keys_without_touching_rows(client, engine, keyring, site):
    client.post("/v1/chat", chat_payload("before rotation", visitor="rot"))
    with engine.connect() as conn:
        before = conn.execute(select(tables.turns.c.content_enc).where(tables.turns.c.site_id == site.id)).scalars().all()
    new = Keyring(os.urandom(32))
    counts = rotate_master_key(engine, keyring, new)
    try:
        assert counts["sites"] >= 1 and counts["spaces"] >= 1
        with engine.connect() as conn:
            after = conn.execute(select(tables.turns.c.content_enc).where(tables.turns.c.site_id == site.id)).scalars().all()
            assert after == before  # rows untouched
            reloaded = load_site(conn, new, site.id)
            assert reloaded.secret == site.secret and reloaded.key == site.key
            space = find_space(conn, new, reloaded, "v:rot")
            conv = conn.execute(select(tables.turns.c.conversation_id).where(tables.turns.c.space_id == space.id)).scalar_one()
            assert [p.message for p in past_turns(conn, new, reloaded, "v:rot", conv)] == ["before rotation"]
            with pytest.raises(DecryptionError):
                load_site(conn, keyring, site.id)  # the old master key no longer opens anything
    finally:
        rotate_master_key(engine, new, keyring)  # other tests share this database


def test_turns_past_retention_are_not_replayed_and_are_purged(client, engine, keyring, site):
    from datetime import timedelta

    from sidecar.clock import utcnow
    from sidecar.conversations import purge_expired
    first = client.post("/v1/chat", chat_payload("old question", visitor="ret")).get_json()
    with engine.begin() as conn:
        conn.execute(update(tables.turns).where(tables.turns.c.conversation_id == first["conversation_id"])
                     .values(created_at=utcnow() - timedelta(days=31)))
        assert past_turns(conn, keyring, site, "v:ret", first["conversation_id"]) == []
        conn.execute(update(tables.conversations).where(tables.conversations.c.id == first["conversation_id"])
                     .values(updated_at=utcnow() - timedelta(days=31)))
        assert purge_expired(conn, 30) >= 1
        assert conn.execute(select(func.count()).select_from(tables.conversations).where(
            tables.conversations.c.id == first["conversation_id"])).scalar_one() == 0


def test_sites_have_their_own_secret_and_key(engine, keyring):
    a = add_site(engine, keyring, "own-a-" + secrets.token_hex(4))
    b = add_site(engine, keyring, "own-b-" + secrets.token_hex(4), secret="s" * 20, default_lang="et-EE")
    assert a.secret != b.secret and a.key != b.key and b.default_lang == "et"
    with engine.connect() as conn:
        row = conn.execute(select(tables.sites).where(tables.sites.c.id == b.id)).mappings().one()
    assert b"s" * 20 not in row["secret_enc"]
    assert SiteRegistry(engine, keyring).require(b.id).secret == "s" * 20


# --- idle spaces ----------------------------------------------------------------------------

def _age(engine, space_id: int, days: int) -> None:
    from sqlalchemy import text
    with engine.begin() as conn:
        conn.execute(text("UPDATE rtac_spaces SET last_seen_at = NOW() - INTERVAL :d DAY WHERE id = :i"),
                     {"d": days, "i": space_id})


def _exists(engine, space_id: int) -> bool:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(tables.spaces)
                            .where(tables.spaces.c.id == space_id)).scalar_one() == 1


def test_idle_spaces_holding_nothing_are_purged_and_the_rest_kept(engine, keyring, site):
    import numpy as np

    from sidecar import unanswered
    from sidecar.conversations import append_turn, new_conversation_id
    from sidecar.memory.store import MemoryStore
    from sidecar.spaces import purge_idle
    with engine.begin() as conn:
        s = {name: resolve_space(conn, keyring, site, f"v:idle-{name}")
             for name in ("empty", "recent", "memory", "conversation", "job", "asker")}
        MemoryStore(conn, s["memory"]).insert(kind="fact", content="Rides a tandem.", topic=None, importance=2,
                                              embedding=np.ones(8, dtype=np.float32), embed_model="m",
                                              conversation_id=None, turn_seq=None)
        turn = append_turn(conn, s["conversation"], new_conversation_id(), True, lang="en", message="hi",
                           reply="hello", action="none", unanswered=False, degraded=False, provider="offline",
                           model="offline")
        conn.execute(tables.memory_jobs.insert().values(site_id=site.id, space_id=s["job"].id,
                                                        conversation_id=turn.conversation_id,
                                                        turn_seq=turn.seq, lang="en"))
        unanswered.record(conn, site, "Do you deliver on Sundays?", "en", "", space=s["asker"])
    for name, space in s.items():
        if name != "recent":
            _age(engine, space.id, 31)
    _age(engine, s["recent"].id, 29)
    with engine.begin() as conn:
        assert purge_idle(conn, 30) >= 1
    assert {name for name, space in s.items() if _exists(engine, space.id)} == \
        {"recent", "memory", "conversation", "job", "asker"}


def test_a_turn_marks_an_idle_space_seen_so_the_purge_spares_it(engine, keyring, site):
    from sidecar.spaces import purge_idle
    with engine.begin() as conn:
        space = resolve_space(conn, keyring, site, "v:back-after-a-while")
    _age(engine, space.id, 40)
    with engine.begin() as conn:
        again = resolve_space(conn, keyring, site, "v:back-after-a-while")
    assert again.id == space.id and again.key == space.key
    with engine.begin() as conn:
        purge_idle(conn, 30)
    assert _exists(engine, space.id)


def test_the_purge_waits_for_a_turn_using_the_space_and_then_spares_it(engine, keyring, site):
    """The turn's transaction locks and marks the space; the purge's single conditional
    delete waits on that lock and re-checks the condition."""
    import threading
    import time

    from sidecar.spaces import purge_idle
    with engine.begin() as conn:
        space = resolve_space(conn, keyring, site, "v:concurrent")
    _age(engine, space.id, 40)
    purged = []
    with engine.begin() as turn:
        assert resolve_space(turn, keyring, site, "v:concurrent").id == space.id

        def purge():
            with engine.begin() as conn:
                purged.append(purge_idle(conn, 30))
        worker = threading.Thread(target=purge)
        worker.start()
        time.sleep(0.5)
        assert worker.is_alive()  # waiting on the turn's row lock
    worker.join(timeout=30)
    assert not worker.is_alive()
    assert _exists(engine, space.id)


def test_a_customer_whose_idle_space_was_purged_starts_afresh(client, engine, keyring, site):
    from sidecar.spaces import purge_idle
    with engine.begin() as conn:
        old = resolve_space(conn, keyring, site, "v:gone-quiet")
    _age(engine, old.id, 40)
    with engine.begin() as conn:
        purge_idle(conn, 30)
    assert not _exists(engine, old.id)
    assert client.post("/v1/chat", chat_payload("Hello again", visitor="gone-quiet")).status_code == 200
    with engine.connect() as conn:
        assert find_space(conn, keyring, site, "v:gone-quiet").id != old.id


def test_maintenance_purges_idle_empty_spaces(services, engine, keyring, site):
    import threading
    with engine.begin() as conn:
        space = resolve_space(conn, keyring, site, "v:one-visit")
    _age(engine, space.id, services.config.retention_days + 1)
    services.maybe_maintain(every=0)
    for thread in threading.enumerate():
        if thread.name == "rtac-maintenance":
            thread.join(timeout=30)
    assert not _exists(engine, space.id)


def test_concurrent_first_turns_of_one_customer_share_one_space(engine, keyring, site):
    """The second first turn waits for the first one's insert and then reads its row."""
    import threading
    import time
    found = []
    with engine.begin() as first:
        mine = resolve_space(first, keyring, site, "v:two-tabs")

        def second_tab():
            with engine.begin() as conn:
                found.append(resolve_space(conn, keyring, site, "v:two-tabs"))
        worker = threading.Thread(target=second_tab)
        worker.start()
        time.sleep(0.5)
        assert worker.is_alive()  # its insert waits on ours
    worker.join(timeout=30)
    assert [s.id for s in found] == [mine.id] and found[0].key == mine.key
