"""Site secrets: rotated with a grace period for the replaced one, refused after it;
sites removed with everything of them."""
from __future__ import annotations

import os
import secrets
import time
from datetime import timedelta

import pytest
from sqlalchemy import func, inspect, select, text, update

from sidecar import tables, unanswered, usage
from sidecar.clock import utcnow
from sidecar.crypto import Keyring
from sidecar.errors import BadRequest, NotFound, Unauthorized
from sidecar.keys import rewrap
from sidecar.providers.base import Usage
from sidecar.signing import NonceStore, sign_headers, verify
from sidecar.sites import (SECRET_GRACE_SECONDS, SiteRegistry, add_site, load_site, purge_expired_secrets,
                           remove_site, rotate_secret)
from sidecar.spaces import resolve_space
from tests.conftest import chat_payload


def signed_as(site_id: str, secret: str, now: float | None = None) -> dict:
    return sign_headers(site_id, secret, "GET", "/v1/stats", b"", now=now)


def check(engine, keyring, site_id: str, secret: str, *, now: float | None = None, registry=None, **kw):
    registry = registry or SiteRegistry(engine, keyring)
    return verify(signed_as(site_id, secret, now), "GET", "/v1/stats", b"", registry.get, NonceStore(engine),
                  now=now, **kw)


def accepted(engine, keyring, site_id: str, secret: str, **kw) -> bool:
    try:
        check(engine, keyring, site_id, secret, **kw)
    except Unauthorized:
        return False
    return True


def test_the_default_grace_period_is_a_day():
    assert SECRET_GRACE_SECONDS == 86400


def test_after_rotation_both_secrets_sign_during_the_grace_period(engine, keyring, site):
    rotated = rotate_secret(engine, keyring, site.id)
    assert rotated.secret != site.secret and len(rotated.secret) >= 32
    assert rotated.previous_valid_until - utcnow() > timedelta(hours=23, minutes=59)
    assert accepted(engine, keyring, site.id, rotated.secret)
    assert accepted(engine, keyring, site.id, site.secret)
    assert not accepted(engine, keyring, site.id, "never-the-secret-" + secrets.token_hex(8))


def test_the_replaced_secret_is_refused_once_its_grace_period_is_over(engine, keyring, site):
    rotate_secret(engine, keyring, site.id, grace=60)
    later = time.time() + 61
    assert not accepted(engine, keyring, site.id, site.secret, now=later)
    assert accepted(engine, keyring, site.id, site.secret, now=time.time() + 50)
    # ...and once the row says it has expired, it is not even loaded.
    with engine.begin() as conn:
        conn.execute(update(tables.sites).where(tables.sites.c.id == site.id)
                     .values(previous_secret_expires_at=utcnow() - timedelta(seconds=1)))
        assert load_site(conn, keyring, site.id).previous_secret is None
    assert not accepted(engine, keyring, site.id, site.secret)


def test_grace_zero_refuses_the_old_secret_at_once(engine, keyring, site):
    rotated = rotate_secret(engine, keyring, site.id, grace=0)
    assert rotated.previous_valid_until is None
    assert not accepted(engine, keyring, site.id, site.secret)
    assert accepted(engine, keyring, site.id, rotated.secret)
    with engine.connect() as conn:
        row = conn.execute(select(tables.sites).where(tables.sites.c.id == site.id)).mappings().one()
    assert row["previous_secret_enc"] is None and row["previous_secret_expires_at"] is None


def test_rotating_again_keeps_only_the_secret_just_replaced(engine, keyring, site):
    first = rotate_secret(engine, keyring, site.id)
    second = rotate_secret(engine, keyring, site.id)
    assert not accepted(engine, keyring, site.id, site.secret)
    assert accepted(engine, keyring, site.id, first.secret)
    assert accepted(engine, keyring, site.id, second.secret)


def test_the_replaced_secret_is_sealed_like_the_current_one(engine, keyring, site):
    rotate_secret(engine, keyring, site.id)
    with engine.connect() as conn:
        row = conn.execute(select(tables.sites).where(tables.sites.c.id == site.id)).mappings().one()
    assert site.secret.encode() not in row["previous_secret_enc"]


@pytest.mark.parametrize("grace", [-1, 1.5, "60"])
def test_a_bad_grace_names_the_field_and_changes_nothing(engine, keyring, site, grace):
    with pytest.raises(BadRequest) as err:
        rotate_secret(engine, keyring, site.id, grace=grace)
    assert err.value.field == "grace"
    assert accepted(engine, keyring, site.id, site.secret)


def test_rotating_an_unknown_site_is_not_found(engine, keyring):
    with pytest.raises(NotFound):
        rotate_secret(engine, keyring, "no-such-" + secrets.token_hex(4))


def test_a_new_secret_works_at_once_on_a_sidecar_that_cached_the_site(engine, keyring, site):
    registry = SiteRegistry(engine, keyring)
    assert registry.get(site.id).secret == site.secret  # cached
    rotated = rotate_secret(engine, keyring, site.id)
    with pytest.raises(Unauthorized):
        check(engine, keyring, site.id, rotated.secret, registry=registry)
    signed = check(engine, keyring, site.id, rotated.secret, registry=registry,
                   refresh_site=lambda sid: registry.refresh(sid, min_age=0))
    assert signed.secret == rotated.secret


def test_a_refresh_reloads_a_site_at_most_once_per_min_age(engine, keyring, site, monkeypatch):
    import sidecar.sites as sites_module
    loads = []
    real = sites_module.load_site
    monkeypatch.setattr(sites_module, "load_site", lambda *a: loads.append(a[2]) or real(*a))
    registry = SiteRegistry(engine, keyring)
    registry.get(site.id)
    for _ in range(5):
        registry.refresh(site.id, min_age=60)
    assert len(loads) == 1
    registry.refresh(site.id, min_age=0)
    assert len(loads) == 2


def test_the_app_accepts_both_secrets_during_the_grace_period(make_services, make_client, engine, keyring, site):
    from dataclasses import replace
    rotated = rotate_secret(engine, keyring, site.id)
    client = make_client(make_services(), site)
    assert client.get("/v1/stats").status_code == 200  # signed with the old secret
    assert client.get("/v1/stats", site=replace(site, secret=rotated.secret)).status_code == 200


def test_maintenance_drops_replaced_secrets_past_their_grace(engine, keyring, site):
    rotate_secret(engine, keyring, site.id, grace=3600)
    with engine.begin() as conn:
        purge_expired_secrets(conn)
        kept = conn.execute(select(tables.sites.c.previous_secret_enc).where(tables.sites.c.id == site.id)).scalar()
        assert kept is not None  # still in its grace period
        conn.execute(update(tables.sites).where(tables.sites.c.id == site.id)
                     .values(previous_secret_expires_at=utcnow() - timedelta(seconds=1)))
        purge_expired_secrets(conn)
        row = conn.execute(select(tables.sites).where(tables.sites.c.id == site.id)).mappings().one()
    assert row["previous_secret_enc"] is None and row["previous_secret_expires_at"] is None


def test_master_key_rotation_carries_the_replaced_secret_along(engine, keyring, master_key, site):
    rotated = rotate_secret(engine, keyring, site.id)
    new = os.urandom(32)
    rewrap(engine, Keyring(new, [master_key]))
    try:
        with engine.connect() as conn:
            moved = load_site(conn, Keyring(new), site.id)
        assert (moved.secret, moved.previous_secret) == (rotated.secret, site.secret)
    finally:
        rewrap(engine, Keyring(master_key, [new]))


# --- removing a site ---------------------------------------------------------------------------

def _rows_of(engine, site_id: str) -> dict[str, int]:
    counts = {}
    with engine.connect() as conn:
        for name in inspect(engine).get_table_names():
            if name.startswith("rtac_") and "site_id" in {c["name"] for c in inspect(engine).get_columns(name)}:
                counts[name] = conn.execute(text(f"SELECT COUNT(*) FROM {name} WHERE site_id = :s"),
                                            {"s": site_id}).scalar_one()
        counts["rtac_sites"] = conn.execute(text("SELECT COUNT(*) FROM rtac_sites WHERE id = :s"),
                                            {"s": site_id}).scalar_one()
    return counts


def site_shard(engine, site_id: str) -> int:
    with engine.connect() as conn:
        return conn.execute(select(tables.sites.c.ft_shard).where(tables.sites.c.id == site_id)).scalar_one()


def test_removing_a_site_deletes_everything_of_it(make_services, make_client, engine, keyring, site):
    other = add_site(engine, keyring, "t-" + secrets.token_hex(6))
    for s in (site, other):
        client = make_client(make_services(), s)
        put = client.put("/v1/documents", {"documents": [{"source": "page", "source_id": "1", "lang": "en",
                                                          "title": "Hours", "url": "https://x.test/h",
                                                          "content": "We are open 9 to 5."}]})
        assert put.status_code == 200, put.get_data(as_text=True)
        assert client.post("/v1/chat", chat_payload("When are you open?", visitor="ann")).status_code == 200
        with engine.begin() as conn:
            space = resolve_space(conn, keyring, s, "v:ann")
            unanswered.record(conn, s, "Do you open on holidays?", "en", "https://x.test/", space=space)
            usage.record(conn, s.id, None, "anthropic", "claude-sonnet-4-6", Usage(10, 10))
    before = _rows_of(engine, site.id)
    assert all(before[name] for name in ("rtac_sites", "rtac_spaces", "rtac_documents", "rtac_chunks",
                                         "rtac_turns", "rtac_conversations", "rtac_unanswered",
                                         "rtac_unanswered_askers", "rtac_usage", "rtac_nonces"))
    other_before = _rows_of(engine, other.id)
    other_before.pop(f"rtac_ft_{site_shard(engine, site.id)}")  # the site's own FULLTEXT table, dropped with it
    assert remove_site(engine, site.id) is True
    assert set(_rows_of(engine, site.id).values()) == {0}
    assert _rows_of(engine, other.id) == other_before
    assert remove_site(engine, site.id) is False
    # A sidecar that loads it now knows no such site.
    assert make_client(make_services(), site).get("/v1/stats").status_code == 401
