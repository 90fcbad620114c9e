"""The reply contract (`rtac_reply`): read leniently, then clamp.

The model proposes; the application decides. Whatever comes back is decoded as is,
else with code fences stripped, else taken whole as the reply with no buttons; then
cut to size: at most 3 quick replies of at most 40 characters, a known action or
`none`, `unanswered` a real bool, `forget` only well-formed memory refs.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from .providers.base import Schema

ACTIONS = ("none", "offer_booking", "offer_lead", "show_contact")
MAX_QUICK_REPLIES = 3
MAX_QUICK_REPLY_CHARS = 40
_MEMORY_REF = re.compile(r"^m[1-9]\d{0,3}$")
_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)

REPLY_SCHEMA = Schema(
    name="rtac_reply",
    json_schema={
        "type": "object",
        "properties": {
            "reply": {"type": "string"},
            "quick_replies": {"type": "array", "items": {"type": "string"}},
            "action": {"type": "string", "enum": list(ACTIONS)},
            "unanswered": {"type": "boolean"},
            "forget": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["reply", "quick_replies", "action", "unanswered", "forget"],
        "additionalProperties": False,
    },
)


@dataclass(frozen=True)
class Reply:
    reply: str
    quick_replies: list[str] = field(default_factory=list)
    action: str = "none"
    unanswered: bool = False
    forget: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"reply": self.reply, "quick_replies": list(self.quick_replies), "action": self.action,
                "unanswered": self.unanswered, "forget": list(self.forget)}


def _decode(text: str):
    try:
        return json.loads(text)
    except (ValueError, TypeError):
        pass
    m = _FENCE.match(text)
    if m:
        try:
            return json.loads(m.group(1))
        except ValueError:
            pass
    return None


def _as_bool(value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1")
    return False


def _quick_replies(value) -> list[str]:
    if not isinstance(value, list):
        return []
    out = []
    for item in value:
        if isinstance(item, str) and item.strip():
            out.append(item.strip()[:MAX_QUICK_REPLY_CHARS].rstrip())
        if len(out) == MAX_QUICK_REPLIES:
            break
    return out


def _forget(value) -> list[str]:
    if not isinstance(value, list):
        return []
    return [v.strip() for v in value if isinstance(v, str) and _MEMORY_REF.match(v.strip())]


def parse_reply(text: str) -> Reply:
    text = text or ""
    data = _decode(text.strip())
    if not isinstance(data, dict) or not isinstance(data.get("reply"), str):
        return Reply(reply=text.strip())
    action = data.get("action")
    return Reply(
        reply=data["reply"].strip(),
        quick_replies=_quick_replies(data.get("quick_replies")),
        action=action if action in ACTIONS else "none",
        unanswered=_as_bool(data.get("unanswered")),
        forget=_forget(data.get("forget")),
    )
