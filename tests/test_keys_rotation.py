"""Master keys by id (sidecar/config.py, "Master keys"): every wrapped key is opened
with the master key its row names; a sidecar holding the new key and the previous one
serves every row while `rtac rotate-master-key` re-wraps them; a sidecar that cannot
open a key answers a retryable 503 naming the key, never a 500."""
from __future__ import annotations

import base64
import logging
import os
import secrets

import pytest
from sqlalchemy import select

from sidecar import config as config_module
from sidecar import tables
from sidecar.crypto import DecryptionError, Keyring, KeyUnavailable, key_id
from sidecar.errors import ConfigError
from sidecar.keys import remaining, rewrap, rotate_master_key
from sidecar.sites import add_site, load_site, remove_site
from sidecar.spaces import find_space, resolve_space
from tests.conftest import chat_payload

NEW = os.urandom(32)


def b64(key: bytes) -> str:
    return base64.b64encode(key).decode()


def space_key_id(engine, space_id: int) -> bytes:
    with engine.connect() as conn:
        return bytes(conn.execute(select(tables.spaces.c.key_id).where(tables.spaces.c.id == space_id)).scalar_one())


def assert_key_unavailable(resp, kid: bytes):
    assert resp.status_code == 503, resp.get_data(as_text=True)
    err = resp.get_json()["error"]
    assert err["code"] == "key_unavailable" and err["retryable"] is True
    assert kid.hex() in err["message"]


@pytest.fixture
def moved_to_new(engine, master_key):
    """The whole database re-wrapped to NEW (as `rtac rotate-master-key` does), and
    back afterwards: other tests share the database."""
    def move():
        return rewrap(engine, Keyring(NEW, [master_key]))
    yield move
    rewrap(engine, Keyring(master_key, [NEW]))


# --- the keyring -----------------------------------------------------------------------

def test_unwrap_uses_the_master_key_the_row_names():
    old, new = os.urandom(32), os.urandom(32)
    wrapped = Keyring(old).wrap(b"k" * 32, "rtac/space-key/s/ab")
    both = Keyring(new, [old])
    assert both.key_id == key_id(new) and both.holds(key_id(old))
    assert both.unwrap(wrapped, "rtac/space-key/s/ab", key_id(old)) == b"k" * 32
    assert Keyring(new, [old]).wrap(b"k" * 32, "x") != wrapped
    assert both.unwrap(both.wrap(b"j" * 32, "x"), "x", key_id(new)) == b"j" * 32  # wraps with the current key


def test_a_key_wrapped_by_a_master_key_not_held_is_a_retryable_503_logged_with_its_id(caplog):
    old, new = os.urandom(32), os.urandom(32)
    wrapped = Keyring(old).wrap(b"k" * 32, "rtac/space-key/s/ab")
    with caplog.at_level(logging.ERROR, logger="rtac.keys"):
        with pytest.raises(KeyUnavailable) as err:
            Keyring(new).unwrap(wrapped, "rtac/space-key/s/ab", key_id(old))
    assert err.value.status == 503 and err.value.retryable is True
    assert isinstance(err.value, DecryptionError)
    assert key_id(old).hex() in err.value.message
    assert key_id(old).hex() in caplog.text and "rtac/space-key/s" in caplog.text
    assert "/ab" not in caplog.text  # the row's hashed identity stays out of the log


def test_a_row_whose_key_does_not_open_with_the_key_it_names_is_unavailable_too(caplog):
    a, b = os.urandom(32), os.urandom(32)
    wrapped = Keyring(a).wrap(b"k" * 32, "aad")
    with caplog.at_level(logging.ERROR, logger="rtac.keys"):
        with pytest.raises(KeyUnavailable):
            Keyring(a, [b]).unwrap(wrapped, "aad", key_id(b))
    assert key_id(b).hex() in caplog.text


def test_previous_master_keys_are_configured_beside_the_current_one():
    cur, old1, old2 = os.urandom(32), os.urandom(32), os.urandom(32)
    base = {"RTAC_DATABASE_URL": "mysql+pymysql://u@h/db", "RTAC_MASTER_KEY": b64(cur)}
    assert config_module.load(base).previous_master_keys == ()
    cfg = config_module.load(base | {"RTAC_MASTER_KEY_PREVIOUS": f"{b64(old1)}, {b64(old2)},{b64(cur)}"})
    assert cfg.previous_master_keys == (old1, old2)  # the current key is not a previous one
    assert b64(old1) not in repr(cfg) and repr(old1) not in repr(cfg)
    with pytest.raises(ConfigError, match="RTAC_MASTER_KEY_PREVIOUS"):
        config_module.load(base | {"RTAC_MASTER_KEY_PREVIOUS": "not-base64!"})
    with pytest.raises(ConfigError, match="RTAC_MASTER_KEY_PREVIOUS"):
        config_module.load(base | {"RTAC_MASTER_KEY_PREVIOUS": b64(b"short")})


def test_the_services_keyring_holds_the_previous_keys(make_services, master_key):
    svc = make_services(master_key=NEW, previous_master_keys=(master_key,))
    assert svc.keyring.key_id == key_id(NEW) and svc.keyring.holds(key_id(master_key))


# --- the race: sidecars and a rotation ------------------------------------------------------

def test_a_sidecar_with_only_the_old_key_meets_a_rewrapped_space(make_services, make_client, master_key, site,
                                                                 moved_to_new, caplog):
    old_only = make_client(make_services(), site)
    first = old_only.post("/v1/chat", chat_payload("Hello", visitor="racer"))
    assert first.status_code == 200  # the site is cached by this sidecar now
    moved = moved_to_new()
    assert moved.sites >= 1 and moved.spaces >= 1
    with caplog.at_level(logging.ERROR, logger="rtac.keys"):
        assert_key_unavailable(old_only.post("/v1/chat", chat_payload("Again", visitor="racer")), key_id(NEW))
        assert_key_unavailable(old_only.post("/v1/privacy/export", {"visitor": {"id": "racer"}}), key_id(NEW))
    assert key_id(NEW).hex() in caplog.text
    # A sidecar that has not even loaded the site yet: the same clear answer, not a 401 or a 500.
    assert_key_unavailable(make_client(make_services(), site).get("/v1/stats"), key_id(NEW))
    # Deployed as the procedure says (new key, old one still accepted): served.
    both = make_client(make_services(master_key=NEW, previous_master_keys=(master_key,)), site)
    conversation_id = first.get_json()["conversation_id"]
    again = both.post("/v1/chat", chat_payload("Again", visitor="racer", conversation_id=conversation_id))
    assert again.status_code == 200 and again.get_json()["conversation_id"] == conversation_id


def test_a_sidecar_with_only_the_new_key_meets_a_row_not_rewrapped_yet(make_services, make_client, engine,
                                                                      master_key, site):
    old_only = make_client(make_services(), site)
    assert old_only.post("/v1/chat", chat_payload("Hello", visitor="early")).status_code == 200
    new_only = make_client(make_services(master_key=NEW), site)
    assert_key_unavailable(new_only.get("/v1/stats"), key_id(master_key))
    # With the old key still accepted, the new sidecar serves old rows and wraps new ones with the new key.
    both_svc = make_services(master_key=NEW, previous_master_keys=(master_key,))
    both = make_client(both_svc, site)
    assert both.post("/v1/chat", chat_payload("Back", visitor="early")).status_code == 200
    assert both.post("/v1/chat", chat_payload("First time", visitor="newcomer")).status_code == 200
    with engine.connect() as conn:
        early = find_space(conn, both_svc.keyring, site, "v:early")
        newcomer = find_space(conn, both_svc.keyring, site, "v:newcomer")
    assert space_key_id(engine, early.id) == key_id(master_key)
    assert space_key_id(engine, newcomer.id) == key_id(NEW)
    # ...and a sidecar still on the old key alone meets the newcomer's space: 503, not 500.
    assert_key_unavailable(old_only.post("/v1/privacy/export", {"visitor": {"id": "newcomer"}}), key_id(NEW))
    # Re-wrapping everything to the old key again (this test's clean-up) is what rotation does.
    rewrap(engine, Keyring(master_key, [NEW]))
    assert old_only.post("/v1/privacy/export", {"visitor": {"id": "newcomer"}}).status_code == 200


# --- re-wrapping ------------------------------------------------------------------------------

def test_rewrap_moves_every_key_in_batches_and_is_idempotent(engine, keyring, master_key, site):
    with engine.begin() as conn:
        spaces = [resolve_space(conn, keyring, site, f"v:batch-{i}") for i in range(5)]
    both = Keyring(NEW, [master_key])
    try:
        done = rewrap(engine, both, batch=2)
        assert done.sites >= 1 and done.spaces >= 5 and not done.unavailable
        assert {space_key_id(engine, s.id) for s in spaces} == {key_id(NEW)}
        assert remaining(engine, both) == 0
        again = rewrap(engine, both, batch=2)
        assert (again.sites, again.spaces) == (0, 0)
        with engine.connect() as conn:
            site_now = load_site(conn, Keyring(NEW), site.id)
            assert (site_now.secret, site_now.key) == (site.secret, site.key)
            assert [find_space(conn, Keyring(NEW), site_now, f"v:batch-{i}").key for i in range(5)] == \
                [s.key for s in spaces]
    finally:
        rewrap(engine, Keyring(master_key, [NEW]))


def test_keys_under_a_master_key_not_held_are_left_alone_and_reported(engine, keyring, master_key):
    stranger_key = os.urandom(32)
    stranger = add_site(engine, Keyring(stranger_key), "t-" + secrets.token_hex(6))
    with engine.begin() as conn:
        resolve_space(conn, Keyring(stranger_key), stranger, "v:x")
    try:
        done = rewrap(engine, keyring)
        assert done.unavailable == {key_id(stranger_key).hex(): 2}
        assert remaining(engine, keyring) == 2
        with engine.connect() as conn:
            assert load_site(conn, Keyring(stranger_key), stranger.id).secret == stranger.secret  # untouched
        done = rewrap(engine, keyring.accepting(Keyring(stranger_key)))
        assert (done.sites, done.spaces) == (1, 1) and remaining(engine, keyring) == 0
    finally:
        remove_site(engine, stranger.id)


def test_rotate_master_key_keeps_its_old_call(engine, keyring, site):
    new = Keyring(NEW)
    counts = rotate_master_key(engine, keyring, new)
    try:
        assert counts["sites"] >= 1
        with engine.connect() as conn:
            assert load_site(conn, new, site.id).secret == site.secret
            with pytest.raises(KeyUnavailable):
                load_site(conn, keyring, site.id)
    finally:
        rotate_master_key(engine, new, keyring)
