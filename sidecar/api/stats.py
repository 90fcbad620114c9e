from __future__ import annotations

from . import bp, services, signed_site
from ..usage import stats as usage_stats


@bp.get("/v1/stats")
def stats():
    with services().engine.connect() as conn:
        return usage_stats(conn, signed_site().id)
