"""Master key rotation: every wrapped key is re-wrapped, no sealed row is touched."""
from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.engine import Engine

from . import tables as t
from .crypto import Keyring
from .sites import secret_aad, site_key_aad
from .spaces import space_key_aad


def rotate_master_key(engine: Engine, old: Keyring, new: Keyring) -> dict:
    """One transaction: either every key is re-wrapped or none is."""
    counts = {"sites": 0, "spaces": 0}
    with engine.begin() as conn:
        for row in conn.execute(select(t.sites).with_for_update()).mappings().all():
            sid = row["id"]
            secret = old.unwrap(row["secret_enc"], secret_aad(sid))
            key = old.unwrap(row["wrapped_key"], site_key_aad(sid))
            conn.execute(update(t.sites).where(t.sites.c.id == sid).values(
                secret_enc=new.wrap(secret, secret_aad(sid)),
                wrapped_key=new.wrap(key, site_key_aad(sid)), key_id=new.key_id))
            counts["sites"] += 1
        rows = conn.execute(select(t.spaces.c.id, t.spaces.c.site_id, t.spaces.c.identity_hash,
                                   t.spaces.c.wrapped_key).with_for_update()).all()
        for r in rows:
            aad = space_key_aad(r.site_id, r.identity_hash)
            conn.execute(update(t.spaces).where(t.spaces.c.id == r.id).values(
                wrapped_key=new.wrap(old.unwrap(r.wrapped_key, aad), aad), key_id=new.key_id))
            counts["spaces"] += 1
    return counts
