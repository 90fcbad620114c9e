from __future__ import annotations

from ..conversations import language_grounding
from ..embedding_queue import pending
from ..spending import budget_status
from ..usage import stats as usage_stats
from . import bp, services, signed_site


@bp.get("/v1/stats")
def stats():
    svc = services()
    site_id = signed_site().id
    with svc.engine.connect() as conn:
        out = usage_stats(conn, site_id)
        # Chunks that retrieval by meaning does not cover yet (0 with RTAC_RETRIEVAL=fulltext).
        out["pending_embeddings"] = pending(conn, site_id, svc.indexing.model) if svc.indexing else 0
        # Language gaps: per visitor language, answers from its own pages, another
        # language's, or none (the turns within retention).
        out["languages"] = language_grounding(conn, site_id, svc.config.retention_days)
        # The daily spending cap (null when none) and what today has cost so far.
        out.update(budget_status(conn, signed_site(), svc.config))
        return out
