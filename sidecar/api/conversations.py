"""The owner's conversation log: the site's conversations newest first, and one
conversation's turns opened with its customer's space key."""
from __future__ import annotations

import base64
import binascii
import re
from datetime import datetime

from flask import request

from .. import conversations
from ..conversations import LOG_FLAGS, LogPosition
from ..errors import BadRequest, NotFound
from ..langs import normalize_lang
from . import bp, services, signed_site

DEFAULT_LIMIT = 50
MAX_LIMIT = 100
_LIMIT = re.compile(r"^[0-9]{1,4}$")
_CURSOR = re.compile(r"^[A-Za-z0-9_-]{1,200}={0,2}$")
_POSITION = re.compile(r"^([0-9]{14})\.([0-9a-f]{32})$")


def encode_cursor(position: LogPosition) -> str:
    raw = f"{position.started_at:%Y%m%d%H%M%S}.{position.id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(value: str) -> LogPosition:
    bad = BadRequest("before", "is not a cursor this log returned as `next`")
    if not _CURSOR.match(value):
        raise bad
    try:
        raw = base64.urlsafe_b64decode(value.rstrip("=") + "=" * (-len(value.rstrip("=")) % 4)).decode("ascii")
    except (binascii.Error, ValueError):
        raise bad from None
    m = _POSITION.match(raw)
    if not m:
        raise bad
    try:
        started_at = datetime.strptime(m.group(1), "%Y%m%d%H%M%S")
    except ValueError:
        raise bad from None
    return LogPosition(started_at, m.group(2))


def _limit(raw: str | None) -> int:
    if raw is None:
        return DEFAULT_LIMIT
    if not _LIMIT.match(raw) or not 1 <= int(raw) <= MAX_LIMIT:
        raise BadRequest("limit", f"must be a whole number from 1 to {MAX_LIMIT}")
    return int(raw)


def _lang(raw: str | None) -> str | None:
    if raw is None:
        return None
    lang = normalize_lang(raw)
    if lang is None:
        raise BadRequest("lang", f"not a language code: {raw[:40]!r}")
    return lang


def _flags(raw: list[str]) -> list[str]:
    for name in raw:
        if name not in LOG_FLAGS:
            raise BadRequest("flag", f"must be one of {', '.join(LOG_FLAGS)}")
    return raw


@bp.get("/v1/conversations")
def list_conversations():
    site = signed_site()
    args = request.args
    limit, lang, flags = _limit(args.get("limit")), _lang(args.get("lang")), _flags(args.getlist("flag"))
    before = decode_cursor(args["before"]) if "before" in args else None
    svc = services()
    with svc.engine.connect() as conn:
        items, last = conversations.list_conversations(conn, site.id, svc.config.retention_days, limit=limit,
                                                       before=before, lang=lang, flags=flags)
    return {"items": items, "next": encode_cursor(last) if last else None}


@bp.get("/v1/conversations/<conversation_id>")
def read_conversation(conversation_id: str):
    site = signed_site()
    svc = services()
    with svc.engine.connect() as conn:
        found = conversations.read_conversation(conn, svc.keyring, site, conversation_id, svc.config.retention_days)
    if found is None:
        raise NotFound("no such conversation on this site")
    return found
