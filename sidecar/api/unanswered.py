from __future__ import annotations

from flask import request

from .. import unanswered
from ..errors import BadRequest, NotFound
from ..langs import normalize_lang
from . import bp, json_body, services, signed_site


@bp.get("/v1/unanswered")
def list_unanswered():
    status = request.args.get("status", "open")
    if status not in (*unanswered.STATUSES, "all"):
        raise BadRequest("status", f"must be one of {', '.join(unanswered.STATUSES)} or all")
    lang = None
    if "lang" in request.args:
        lang = normalize_lang(request.args["lang"])
        if lang is None:
            raise BadRequest("lang", f"not a language code: {request.args['lang'][:40]!r}")
    with services().engine.connect() as conn:
        return {"items": unanswered.list_questions(conn, signed_site(), None if status == "all" else status,
                                                   lang=lang)}


def _set(question_id: int, status: str):
    site = signed_site()
    if request.get_data(cache=True).strip():
        json_body()  # `{}` is the documented body; anything sent must at least be JSON
    with services().engine.begin() as conn:
        if not unanswered.set_status(conn, site, question_id, status):
            raise NotFound(f"no unanswered question {question_id} on this site")
    return {"id": question_id, "status": status}


@bp.post("/v1/unanswered/<int:question_id>/resolve")
def resolve(question_id: int):
    return _set(question_id, "resolved")


@bp.post("/v1/unanswered/<int:question_id>/dismiss")
def dismiss(question_id: int):
    return _set(question_id, "dismissed")
