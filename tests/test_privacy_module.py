"""sidecar/privacy.py on its own: export and erase of one identity, inside the caller's
transaction, without the HTTP route around them."""
from __future__ import annotations

import numpy as np
from sqlalchemy import func, select

from sidecar import privacy, tables, unanswered
from sidecar.memory.store import MemoryStore
from sidecar.spaces import find_space, resolve_space


def spaces_of(conn, site) -> int:
    return conn.execute(select(func.count()).select_from(tables.spaces)
                        .where(tables.spaces.c.site_id == site.id)).scalar_one()


def test_an_unknown_identity_exports_and_erases_nothing_and_gets_no_space(engine, keyring, site):
    with engine.begin() as conn:
        assert privacy.export(conn, keyring, site, "v:nobody") == {"memories": [], "questions": []}
        assert privacy.erase(conn, keyring, site, "v:nobody") == {"erased": True, "memories": 0, "turns": 0}
        assert spaces_of(conn, site) == 0


def test_export_then_erase_one_customer(engine, keyring, site):
    with engine.begin() as conn:
        ann = resolve_space(conn, keyring, site, "v:ann")
        MemoryStore(conn, ann).insert(kind="fact", content="Rides a tandem.", topic=None, importance=2,
                                      embedding=np.ones(4, dtype=np.float32) / 2, embed_model="m",
                                      conversation_id=None, turn_seq=None)
        unanswered.record(conn, site, "Do you fix tandems?", "en", "https://example.test/", space=ann)
        resolve_space(conn, keyring, site, "v:bob")
    with engine.begin() as conn:
        found = privacy.export(conn, keyring, site, "v:ann")
        assert [(m["kind"], m["content"]) for m in found["memories"]] == [("fact", "Rides a tandem.")]
        assert [q["question"] for q in found["questions"]] == ["Do you fix tandems?"]
        assert privacy.erase(conn, keyring, site, "v:ann") == {"erased": True, "memories": 1, "turns": 0}
    with engine.connect() as conn:
        assert find_space(conn, keyring, site, "v:ann") is None
        assert find_space(conn, keyring, site, "v:bob") is not None
        assert unanswered.asked_by(conn, site, find_space(conn, keyring, site, "v:bob")) == []
