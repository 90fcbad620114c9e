"""The sidecar's HTTP API (docs/api.md): every route but /healthz is signed."""
from __future__ import annotations

from flask import Blueprint, current_app, g, request

from ..services import Services
from ..signing import verify
from ..sites import Site
from ..validation import parse_json

bp = Blueprint("api", __name__)


def services() -> Services:
    return current_app.extensions["rtac"]


def signed_site() -> Site:
    """Verify the request signature over the exact body bytes; the signed site."""
    if "rtac_site" not in g:
        svc = services()
        g.rtac_site = verify(request.headers, request.method, request.script_root + request.path,
                             request.get_data(cache=True), svc.sites.get, svc.nonces,
                             refresh_site=svc.sites.refresh)
    return g.rtac_site


def json_body() -> dict:
    return parse_json(request.get_data(cache=True))


@bp.before_request
def _require_signature():
    if request.endpoint != "api.healthz":
        signed_site()


from . import chat, documents, health, privacy, stats, unanswered  # noqa: E402,F401  (routes register on bp)
from . import conversations  # noqa: E402,F401
