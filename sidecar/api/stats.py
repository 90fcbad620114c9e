from __future__ import annotations

from ..embedding_queue import pending
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
        return out
