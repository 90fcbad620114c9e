"""Request bodies -> typed inputs. Every failure names the field that is wrong."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone

from .documents import DocumentInput
from .errors import BadRequest
from .langs import normalize_lang

MAX_MESSAGE = 4000
MAX_PINNED = 50
MAX_DOCUMENTS = 500
_SOURCE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def parse_json(body: bytes) -> dict:
    try:
        data = json.loads(body.decode("utf-8")) if body else None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # RecursionError: nested too deep
        raise BadRequest("body", f"invalid JSON ({exc.__class__.__name__})", code="invalid_json") from None
    if not isinstance(data, dict):
        raise BadRequest("body", "must be a JSON object", code="invalid_json")
    return data


def _str(data: dict, field: str, name: str, *, required: bool = True, max_len: int = 2048,
         min_len: int = 0, default: str = "") -> str:
    if field not in data or data[field] is None:
        if required:
            raise BadRequest(name, "is required", code="missing_field")
        return default
    value = data[field]
    if not isinstance(value, str):
        raise BadRequest(name, f"must be a string, got {type(value).__name__}")
    if len(value) > max_len:
        raise BadRequest(name, f"must be at most {max_len} characters, got {len(value)}")
    try:
        value.encode("utf-8")  # JSON may carry lone surrogates ("\ud800"): not text we can store
    except UnicodeEncodeError:
        raise BadRequest(name, "must be valid Unicode text (no lone surrogates)") from None
    if len(value.strip()) < min_len:
        raise BadRequest(name, "must not be empty")
    return value


def _obj(data: dict, field: str, name: str, *, required: bool) -> dict:
    if field not in data or data[field] is None:
        if required:
            raise BadRequest(name, "is required", code="missing_field")
        return {}
    if not isinstance(data[field], dict):
        raise BadRequest(name, f"must be an object, got {type(data[field]).__name__}")
    return data[field]


def _lang(data: dict, name: str, *, required: bool = True, default: str = "") -> str:
    raw = _str(data, "lang", name, required=required, max_len=35)
    if not raw and not required:
        return default
    lang = normalize_lang(raw)
    if lang is None:
        raise BadRequest(name, f"must be a language code such as 'et' or 'en-US', got {raw!r}")
    return lang


@dataclass(frozen=True)
class Visitor:
    id: str
    wp_user_id: int | None


def parse_visitor(data: dict) -> Visitor:
    v = _obj(data, "visitor", "visitor", required=True)
    vid = _str(v, "id", "visitor.id", max_len=128, min_len=1)
    wp = v.get("wp_user_id")
    if wp is not None:
        # ASCII digits only: str.isdigit() accepts '²', which int() rejects.
        if isinstance(wp, bool) or not isinstance(wp, (int, str)) or not re.fullmatch(r"[0-9]{1,20}", str(wp)) \
                or int(wp) <= 0:
            raise BadRequest("visitor.wp_user_id", "must be a positive integer")
        wp = int(wp)
    return Visitor(vid.strip(), wp)


@dataclass(frozen=True)
class PinnedInput:
    title: str
    content: str


def page_address(url: str) -> str:
    """The page URL without its query string and fragment. Both come from the visitor's
    browser and may carry what is theirs alone (`?key=wc_order_…`, `#access_token=…`):
    cut here, once, so neither the prompt nor the unanswered report ever sees them."""
    return url.strip().split("#", 1)[0].split("?", 1)[0]


@dataclass(frozen=True)
class ChatInput:
    visitor: Visitor
    message: str
    lang: str
    conversation_id: str | None
    page_url: str  # without query string and fragment (page_address)
    page_title: str
    lead_captured: bool
    pinned: tuple[PinnedInput, ...]


def parse_chat(data: dict) -> ChatInput:
    conversation_id = _str(data, "conversation_id", "conversation_id", required=False, max_len=64) or None
    visitor = parse_visitor(data)
    message = _str(data, "message", "message", max_len=MAX_MESSAGE, min_len=1).strip()
    lang = _lang(data, "lang")
    page = _obj(data, "page", "page", required=False)
    page_url = page_address(_str(page, "url", "page.url", required=False, max_len=2048))
    page_title = _str(page, "title", "page.title", required=False, max_len=512)
    lead = data.get("lead_captured", False)
    if lead is None:
        lead = False
    if not isinstance(lead, bool):
        raise BadRequest("lead_captured", "must be true or false")
    raw_pinned = data.get("pinned")
    if raw_pinned is None:
        raw_pinned = []
    if not isinstance(raw_pinned, list):
        raise BadRequest("pinned", "must be a list of {title, content}")
    if len(raw_pinned) > MAX_PINNED:
        raise BadRequest("pinned", f"at most {MAX_PINNED} entries")
    pinned = []
    for i, entry in enumerate(raw_pinned):
        if not isinstance(entry, dict):
            raise BadRequest(f"pinned[{i}]", "must be an object {title, content}")
        title = _str(entry, "title", f"pinned[{i}].title", max_len=512)
        content = _str(entry, "content", f"pinned[{i}].content", max_len=100_000)
        if content.strip():
            pinned.append(PinnedInput(title.strip(), content.strip()))
    return ChatInput(visitor, message, lang, conversation_id, page_url, page_title.strip(),
                     lead, tuple(pinned))


def _modified(raw: str, name: str) -> datetime | None:
    if not raw:
        return None
    try:
        dt = datetime.fromisoformat(raw.replace("Z", "+00:00"))
        if dt.tzinfo is not None:
            dt = dt.astimezone(timezone.utc).replace(tzinfo=None)  # OverflowError near year 1 / 9999
    except (ValueError, OverflowError):
        raise BadRequest(name, f"must be ISO-8601, got {raw!r}") from None
    return dt


def _source_pair(data: dict, prefix: str) -> tuple[str, str]:
    source = _str(data, "source", f"{prefix}source", max_len=64, min_len=1).strip()
    if not _SOURCE.match(source):
        raise BadRequest(f"{prefix}source", "must be a post type: letters, digits, '_' or '-'")
    source_id = data.get("source_id")
    if isinstance(source_id, int) and not isinstance(source_id, bool):
        source_id = str(source_id)  # a post ID sent as a number is still that post
    source_id = _str({"source_id": source_id}, "source_id", f"{prefix}source_id", max_len=64, min_len=1).strip()
    return source, source_id


def parse_documents(data: dict, default_lang: str) -> list[DocumentInput]:
    docs = data.get("documents")
    if docs is None:
        raise BadRequest("documents", "is required", code="missing_field")
    if not isinstance(docs, list):
        raise BadRequest("documents", "must be a list")
    if len(docs) > MAX_DOCUMENTS:
        raise BadRequest("documents", f"at most {MAX_DOCUMENTS} per request")
    out = []
    for i, d in enumerate(docs):
        p = f"documents[{i}]."
        if not isinstance(d, dict):
            raise BadRequest(f"documents[{i}]", "must be an object")
        source, source_id = _source_pair(d, p)
        out.append(DocumentInput(
            source=source, source_id=source_id,
            lang=_lang(d, f"{p}lang", required=False, default=default_lang),
            title=_str(d, "title", f"{p}title", max_len=512).strip(),
            url=_str(d, "url", f"{p}url", required=False, max_len=2048).strip(),
            content=_str(d, "content", f"{p}content", max_len=2_000_000),
            modified=_modified(_str(d, "modified", f"{p}modified", required=False, max_len=40), f"{p}modified"),
        ))
    return out


def parse_document_ref(data: dict) -> tuple[str, str]:
    return _source_pair(data, "")
