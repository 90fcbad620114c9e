"""The reply contract (`rtac_reply`): read leniently, scrub, then clamp.

The model proposes; the application decides. Whatever comes back is decoded as is,
else with code fences stripped, else, when it is a `{"reply": ...` object cut off
(the answer ran into max_tokens), its reply is recovered up to where it stops; else
the whole text is the reply with no buttons. Every string is then scrubbed
(`clean_text`) and cut to size: a reply of at most MAX_REPLY_CHARS ending at a
sentence or word, at most 3 quick replies of at most 40 characters, a known action or
`none`, `unanswered` a real bool, `forget` only well-formed memory refs.

Nothing here raises on any input: odd model output must never cost the visitor an
error after the tokens were spent.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from .memory.refs import as_ref
from .providers.base import Schema

ACTIONS = ("none", "offer_booking", "offer_lead", "show_contact")
MAX_QUICK_REPLIES = 3
MAX_QUICK_REPLY_CHARS = 40
# A chat reply a visitor reads in the widget: about what 1,000 output tokens say, as long
# as the longest message a visitor may send. Beyond it the model is rambling or looping.
MAX_REPLY_CHARS = 4000
# Far more memory refs than one turn ever shows the model; a longer list is noise.
MAX_FORGET_REFS = 20

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


# --- scrubbing ------------------------------------------------------------------------
# C0 controls but tab and newline (a lone CR goes: "\r\n" becomes "\n"), DEL, and
# surrogates, which no UTF-8 encoder, database or JSON response will take.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(value: str | bytes | None) -> str:
    """Text that can be stored, sealed, sent as JSON and shown as it is.

    Bytes are read as UTF-8, an invalid sequence becoming U+FFFD; the two halves of one
    character that arrived apart (two text blocks of an answer) are joined again; a
    half alone, NUL and the other control characters but tab and newline are dropped.
    Works on each piece of a streamed reply alike; a character whose halves come in two
    pieces is then dropped from the pieces (the final reply, read whole, keeps it).
    """
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "replace")
    elif not isinstance(value, str):
        value = str(value)
    if _SURROGATE.search(value):
        value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return _UNSAFE.sub("", value)


# --- cutting at a boundary ----------------------------------------------------------------
# A sentence ends at . ! ? … followed by whitespace (or a closing quote or bracket first);
# the CJK full stops need no space after them.
_SENTENCE_END = re.compile(r"[.!?…][\"'”’»)\]]*(?=\s)|[。！？][\"'”’」』)\]]*")
_ENDS_SENTENCE = re.compile(r"[.!?…。！？][\"'”’»」』)\]]*\Z")
_ELLIPSIS = "…"


def _cut(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, ended where a sentence ends (in the second
    half of the room), else after a whole word with an ellipsis, else hard."""
    if len(text) <= limit:
        return text
    room = text[:limit + 1]  # one more: whether a sentence end at the limit is followed by a space
    ends = [m.end() for m in _SENTENCE_END.finditer(room, limit // 2) if m.end() <= limit]
    if ends:
        return text[:ends[-1]].rstrip()
    words = text[:limit - len(_ELLIPSIS) + 1]
    space = max(words.rfind(" "), words.rfind("\n"), words.rfind("\t"))
    if space > limit // 2:
        return words[:space].rstrip() + _ELLIPSIS
    return text[:limit - len(_ELLIPSIS)].rstrip() + _ELLIPSIS


def _unfinished(text: str) -> str:
    """A reply the answer broke off in: up to its last whole sentence when that keeps
    most of it, else up to its last whole word, marked with an ellipsis."""
    word_done = text[-1:].isspace()
    text = text.rstrip()
    if not text or _ENDS_SENTENCE.search(text[-8:]):
        return text
    ends = [m.end() for m in _SENTENCE_END.finditer(text, len(text) // 2)]
    if ends:
        return text[:ends[-1]]
    if not word_done:
        space = max(text.rfind(" "), text.rfind("\n"), text.rfind("\t"))
        text = text[:space].rstrip() if space > 0 else text
    return text + _ELLIPSIS


# --- decoding -------------------------------------------------------------------------
_FENCE_TAG = re.compile(r"[A-Za-z0-9_-]*")


def _loads(text: str):
    try:
        # strict=False: a raw newline or tab inside a string is the model's, not an error.
        return json.loads(text, strict=False)
    except (ValueError, RecursionError):  # RecursionError: "[[[[..." nested past the stack
        return None


def _fenced(text: str) -> str | None:
    """What a ```json … ``` fence encloses, or None when `text` is not fenced."""
    if len(text) < 6 or not (text.startswith("```") and text.endswith("```")):
        return None
    inner = text[3:-3]
    return inner[_FENCE_TAG.match(inner).end():]


def _decode(text: str):
    data = _loads(text)
    if data is None:
        inner = _fenced(text)
        if inner is not None:
            data = _loads(inner)
    return data


# One JSON string from its opening quote: the content is taken possessively
# (`(?=(x))\1`), so a string that never closes is read once, not backtracked over;
# group 2 is the closing quote, missing when the text was cut inside the string.
_JSON_STRING = re.compile(r'"(?=([^"\\]*(?:\\.[^"\\]*)*))\1(")?', re.DOTALL)
_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_JSON_SCALAR = re.compile(r"[^,}\]\s]+")  # a number, true, false or null: checked by nobody here
_JSON_NESTED = re.compile(r'[\[\]{}"]')


def _string_content(raw: str) -> str | None:
    """The decoded content of a JSON string (without its quotes), which may have been cut
    off in the middle of an escape: the broken escape is dropped. None: not JSON."""
    for drop in range(6):  # "\u12" is the longest escape a cut can leave half-written
        value = _loads(f'"{raw[:len(raw) - drop]}"')
        if isinstance(value, str):
            return value
    return None


def _skip_value(text: str, pos: int) -> int | None:
    """Where the JSON value at `pos` ends; None when the text ends first, -1 when no value is there."""
    if pos >= len(text):
        return None
    if text[pos] == '"':
        m = _JSON_STRING.match(text, pos)
        return m.end() if m.group(2) else None
    if text[pos] not in "[{":
        m = _JSON_SCALAR.match(text, pos)
        if m is None:
            return -1
        return None if m.end() == len(text) else m.end()
    depth = 0
    while True:
        m = _JSON_NESTED.search(text, pos)
        if m is None:
            return None
        if m.group() == '"':
            s = _JSON_STRING.match(text, m.start())
            if not s.group(2):
                return None
            pos = s.end()
            continue
        depth += 1 if m.group() in "[{" else -1
        pos = m.end()
        if depth == 0:
            return pos


def _cut_off_reply(text: str) -> tuple[str, bool] | None:
    """The `reply` of a top-level JSON object that does not decode, read as far as it
    goes, and whether it is complete. An object cut off before its reply says nothing
    ("", False); None when the text is not such an object at all."""
    if text.startswith("```"):  # an opening fence whose closing one never came
        newline = text.find("\n")
        text = text[newline + 1:] if newline >= 0 else ""
    if not text.startswith("{"):
        return None
    cut_off = ("", False)
    pos = 1
    while True:
        pos = _JSON_SPACE.match(text, pos).end()
        if pos >= len(text):
            return cut_off
        key = _JSON_STRING.match(text, pos)
        if key is None:
            return None
        if not key.group(2):
            return cut_off
        pos = _JSON_SPACE.match(text, key.end()).end()
        if pos >= len(text):
            return cut_off
        if text[pos] != ":":
            return None
        pos = _JSON_SPACE.match(text, pos + 1).end()
        if pos >= len(text):
            return cut_off
        if _string_content(key.group(1)) == "reply":
            value = _JSON_STRING.match(text, pos)
            content = _string_content(value.group(1)) if value else None
            return None if content is None else (content, bool(value.group(2)))
        end = _skip_value(text, pos)
        if end is None:
            return cut_off
        if end < 0:
            return None
        pos = _JSON_SPACE.match(text, end).end()
        if pos >= len(text):
            return cut_off
        if text[pos] != ",":
            return None
        pos += 1


# --- clamping -------------------------------------------------------------------------

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
        if isinstance(item, str):
            label = " ".join(clean_text(item).split())  # a button is one line
            if label:
                out.append(label[:MAX_QUICK_REPLY_CHARS].rstrip())
        if len(out) == MAX_QUICK_REPLIES:
            break
    return out


def _forget(value) -> list[str]:
    if not isinstance(value, list):
        return []
    refs: list[str] = []
    for v in value:
        name = as_ref(v)
        if name is not None and name not in refs:
            refs.append(name)
            if len(refs) == MAX_FORGET_REFS:
                break
    return refs


def _reply_text(text: str) -> str:
    return _cut(clean_text(text).strip(), MAX_REPLY_CHARS)


def parse_reply(text: str | bytes | None) -> Reply:
    text = clean_text(text).strip()
    data = _decode(text)
    if isinstance(data, dict) and isinstance(data.get("reply"), str):
        action = data.get("action")
        return Reply(
            reply=_reply_text(data["reply"]),
            quick_replies=_quick_replies(data.get("quick_replies")),
            action=action if action in ACTIONS else "none",
            unanswered=_as_bool(data.get("unanswered")),
            forget=_forget(data.get("forget")),
        )
    if data is None:
        recovered = _cut_off_reply(text)
        if recovered is not None:
            reply, complete = recovered
            return Reply(reply=_reply_text(reply if complete else _unfinished(clean_text(reply))))
    return Reply(reply=_cut(text, MAX_REPLY_CHARS))
