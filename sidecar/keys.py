"""Master key rotation: every wrapped key is re-wrapped, no sealed row is touched.

Each row names the master key that wrapped it (`key_id`) and is unwrapped with that
key, so rotation never has to be atomic across the database: rows move to the new
key a batch at a time while sidecars that hold both keys serve every row, and a
rotation cut short is finished by running it again. See sidecar/config.py for the
procedure (RTAC_MASTER_KEY, RTAC_MASTER_KEY_PREVIOUS).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import func, select, update
from sqlalchemy.engine import Engine

from . import tables as t
from .crypto import Keyring
from .sites import previous_secret_aad, secret_aad, site_key_aad
from .spaces import space_key_aad


@dataclass
class Rewrapped:
    sites: int = 0
    spaces: int = 0
    # Rows left as they were, by the hex id of a master key this keyring does not hold.
    unavailable: Counter = field(default_factory=Counter)

    def as_dict(self) -> dict:
        return {"sites": self.sites, "spaces": self.spaces, "unavailable": dict(self.unavailable)}


def rewrap(engine: Engine, keyring: Keyring, batch: int = 500) -> Rewrapped:
    """Re-wrap every key not wrapped by the keyring's current master key, opening it
    with the key its row names. Idempotent; each batch is its own short transaction,
    its rows locked only while they are re-wrapped."""
    done = Rewrapped()
    current = keyring.key_id
    with engine.begin() as conn:
        for row in conn.execute(select(t.sites).where(t.sites.c.key_id != current)
                                .with_for_update()).mappings().all():
            sid, kid = row["id"], row["key_id"]
            if not keyring.holds(kid):
                done.unavailable[bytes(kid).hex()] += 1
                continue
            values = dict(
                secret_enc=keyring.wrap(keyring.unwrap(row["secret_enc"], secret_aad(sid), kid), secret_aad(sid)),
                wrapped_key=keyring.wrap(keyring.unwrap(row["wrapped_key"], site_key_aad(sid), kid),
                                         site_key_aad(sid)),
                key_id=current)
            if row["previous_secret_enc"] is not None:
                values["previous_secret_enc"] = keyring.wrap(
                    keyring.unwrap(row["previous_secret_enc"], previous_secret_aad(sid), kid), previous_secret_aad(sid))
            conn.execute(update(t.sites).where(t.sites.c.id == sid).values(**values))
            done.sites += 1

    s = t.spaces.c
    with engine.connect() as conn:
        old_ids = [bytes(k) for k in conn.execute(select(s.key_id).where(s.key_id != current).distinct()).scalars()]
    for kid in old_ids:
        if not keyring.holds(kid):
            with engine.connect() as conn:
                done.unavailable[kid.hex()] += conn.execute(
                    select(func.count()).select_from(t.spaces).where(s.key_id == kid)).scalar_one()
            continue
        while True:
            with engine.begin() as conn:
                rows = conn.execute(select(s.id, s.site_id, s.identity_hash, s.wrapped_key)
                                    .where(s.key_id == kid).order_by(s.id).limit(batch).with_for_update()).all()
                for r in rows:
                    aad = space_key_aad(r.site_id, r.identity_hash)
                    conn.execute(update(t.spaces).where(t.spaces.c.id == r.id).values(
                        wrapped_key=keyring.wrap(keyring.unwrap(r.wrapped_key, aad, kid), aad), key_id=current))
                done.spaces += len(rows)
            if len(rows) < batch:
                break
    return done


def remaining(engine: Engine, keyring: Keyring) -> int:
    """Rows whose key is still wrapped by a master key other than the current one:
    until this is 0, no sidecar may drop the previous key."""
    with engine.connect() as conn:
        return sum(conn.execute(select(func.count()).select_from(table).where(table.c.key_id != keyring.key_id))
                   .scalar_one() for table in (t.sites, t.spaces))


def rotate_master_key(engine: Engine, old: Keyring, new: Keyring) -> dict:
    """Move every key wrapped by `old` to `new`'s current master key."""
    return rewrap(engine, new.accepting(old)).as_dict()
