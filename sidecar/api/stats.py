from __future__ import annotations

from ..usage import stats as usage_stats
from . import bp, services, signed_site


@bp.get("/v1/stats")
def stats():
    with services().engine.connect() as conn:
        return usage_stats(conn, signed_site().id)
