"""The customer's rights over what the business remembers: export and erase.

An identity the sidecar has never seen (or already erased) exports nothing and
erases nothing; no space is created by asking. Both cover the unanswered questions
the customer asked: their words are in the site's unanswered report too."""
from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from . import tables as t
from . import unanswered
from .clock import iso
from .crypto import Keyring
from .memory.store import MemoryStore
from .sites import Site
from .spaces import erase_space, find_space


def export(conn: Connection, keyring: Keyring, site: Site, identity: str) -> dict:
    """Everything remembered about the customer, opened with their space key."""
    space = find_space(conn, keyring, site, identity)
    memories = MemoryStore(conn, space).all(with_embeddings=False) if space else []
    questions = unanswered.asked_by(conn, site, space) if space else []
    return {"memories": [{"kind": m.kind, "content": m.content, "topic": m.topic, "importance": m.importance,
                          "created_at": iso(m.created_at), "updated_at": iso(m.updated_at)} for m in memories],
            "questions": questions}


def erase(conn: Connection, keyring: Keyring, site: Site, identity: str) -> dict:
    """The customer's space and everything in it gone; the counts of what went."""
    space = find_space(conn, keyring, site, identity)
    if space is None:
        return {"erased": True, "memories": 0, "turns": 0}
    count = MemoryStore(conn, space).count()
    # Beyond the contract's fields: whether conversation history went too, so the
    # site can tell "nothing found" from "history erased".
    turns = conn.execute(select(func.count()).select_from(t.turns).where(
        t.turns.c.site_id == site.id, t.turns.c.space_id == space.id)).scalar_one()
    # Before the space goes: its askers rows tell which counts to take back.
    unanswered.forget_asker(conn, site, space)
    # The space row holds the only wrapped copy of its key: deleting it destroys
    # the key, and the schema cascades to memories, turns and queued jobs.
    erase_space(conn, site, identity)
    return {"erased": True, "memories": count, "turns": turns}
