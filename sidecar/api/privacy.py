"""POST /v1/privacy/export and /erase: the customer's rights (sidecar/privacy.py)."""
from __future__ import annotations

from .. import privacy
from ..spaces import identity_of
from ..validation import parse_visitor
from . import bp, json_body, services, signed_site


@bp.post("/v1/privacy/export")
def export():
    site = signed_site()
    visitor = parse_visitor(json_body())
    svc = services()
    with svc.engine.connect() as conn:
        found = privacy.export(conn, svc.keyring, site, identity_of(visitor.id, visitor.wp_user_id))
    return found


@bp.post("/v1/privacy/erase")
def erase():
    site = signed_site()
    visitor = parse_visitor(json_body())
    svc = services()
    with svc.engine.begin() as conn:
        erased = privacy.erase(conn, svc.keyring, site, identity_of(visitor.id, visitor.wp_user_id))
    return erased  # after the commit: what the site is told went has gone
