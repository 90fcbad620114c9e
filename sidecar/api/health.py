from __future__ import annotations

from sqlalchemy import literal, select
from sqlalchemy.exc import SQLAlchemyError

from . import bp, services


@bp.get("/healthz")
def healthz():
    svc = services()
    try:
        with svc.engine.connect() as conn:
            conn.execute(select(literal(1)))
        db = "ok"
    except SQLAlchemyError:
        db = "unavailable"
    body = {"status": "ok" if db == "ok" else "degraded", "db": db,
            "provider": svc.provider.name, "embedder": svc.config.embedder}
    return body, 200 if db == "ok" else 503
