"""The customer's rights over what the business remembers: export and erase.
An identity the sidecar has never seen (or already erased) exports nothing; no
space is created by asking. Both cover the unanswered questions the customer
asked: their words are in the site's unanswered report too."""
from __future__ import annotations

from sqlalchemy import func, select

from .. import tables as t
from .. import unanswered
from ..clock import iso
from ..memory.store import MemoryStore
from ..spaces import erase_space, find_space, identity_of
from ..validation import parse_visitor
from . import bp, json_body, services, signed_site


@bp.post("/v1/privacy/export")
def export():
    site = signed_site()
    visitor = parse_visitor(json_body())
    svc = services()
    with svc.engine.connect() as conn:
        space = find_space(conn, svc.keyring, site, identity_of(visitor.id, visitor.wp_user_id))
        memories = MemoryStore(conn, space).all(with_embeddings=False) if space else []
        questions = unanswered.asked_by(conn, site, space) if space else []
    return {"memories": [{"kind": m.kind, "content": m.content, "topic": m.topic, "importance": m.importance,
                          "created_at": iso(m.created_at), "updated_at": iso(m.updated_at)} for m in memories],
            "questions": questions}


@bp.post("/v1/privacy/erase")
def erase():
    site = signed_site()
    visitor = parse_visitor(json_body())
    svc = services()
    identity = identity_of(visitor.id, visitor.wp_user_id)
    with svc.engine.begin() as conn:
        space = find_space(conn, svc.keyring, site, identity)
        count = MemoryStore(conn, space).count() if space else 0
        # Beyond the contract's fields: whether conversation history went too, so the
        # site can tell "nothing found" from "history erased".
        turns = conn.execute(select(func.count()).select_from(t.turns).where(
            t.turns.c.site_id == site.id, t.turns.c.space_id == space.id)).scalar_one() if space else 0
        if space:
            # Before the space goes: its askers rows tell which counts to take back.
            unanswered.forget_asker(conn, site, space)
            # The space row holds the only wrapped copy of its key: deleting it destroys
            # the key, and the schema cascades to memories, turns and queued jobs.
            erase_space(conn, site, identity)
    return {"erased": True, "memories": count, "turns": turns}
