"""Read a WordPress WXR export (Tools > Export) as a stream of documents.

Yields one dict per published content item, in the document contract's shape:
{source, source_id, lang, title, url, content, modified}. `content` is the raw
post HTML; converting it to text is the caller's job.

The file is parsed incrementally, so a large export never sits in memory, which
also means a file that turns out to be broken halfway raises WxrError after the
items before the damage have been yielded. Callers that need all-or-nothing
must collect the items before storing them.
"""
from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from datetime import datetime
from typing import IO, Iterator
from xml.parsers import expat

from sidecar.errors import RtacError

__all__ = ["WxrError", "parse_wxr", "NON_CONTENT_TYPES"]


class WxrError(RtacError):
    """The uploaded file is not a usable WXR export."""

    status = 400
    code = "invalid_wxr"


# Every WXR version so far (1.0 .. 1.2) uses its own URI; accept any of them,
# but not look-alikes such as the .../excerpt/ namespace or a hijacked prefix.
_WP_NS = re.compile(r"^https?://wordpress\.org/export/\d+(?:\.\d+)*/$")
_CONTENT_NS = "http://purl.org/rss/1.0/modules/content/"

NON_CONTENT_TYPES = frozenset({
    "attachment", "nav_menu_item", "revision", "custom_css", "customize_changeset",
    "oembed_cache", "wp_block", "wp_template", "wp_template_part", "wp_global_styles",
    "wp_navigation", "user_request", "wp_font_family", "wp_font_face",
})
_LANGUAGE_DOMAINS = ("language", "wpml_language")  # Polylang, WPML
_LANGUAGE_META_KEYS = ("_wpml_language", "_icl_lang_code")  # WPML
_LANG_TAG = re.compile(r"^([a-z]{2,3})(?:[-_][a-z0-9]+)*$")


def normalise_lang(value: str | None) -> str | None:
    """'et_EE', 'et-EE', 'ET' -> 'et'; anything that is not a language tag -> None."""
    m = _LANG_TAG.match((value or "").strip().lower())
    return m.group(1) if m else None


def _split(tag: str) -> tuple[str, str]:
    if tag.startswith("{"):
        ns, _, local = tag[1:].partition("}")
        return ns, local
    return "", tag


def _is_wp(ns: str) -> bool:
    return bool(_WP_NS.match(ns))


class _EntityGuard:
    """File wrapper that refuses DTD entity declarations before ElementTree sees them.

    ElementTree expands internal entities (billion laughs, quadratic blow-up) and
    offers no hook to stop it, so every chunk first goes through a bare expat
    parser that only watches the prolog; it stops at the root element, after
    which no DTD can follow.
    """

    def __init__(self, raw: IO, name: str):
        self._raw = raw
        self._name = name
        self.head = b""  # the first bytes and whether anything but whitespace came,
        self.blank = True  # to explain a parse failure
        self._watching = True
        self._watcher = expat.ParserCreate()
        self._watcher.EntityDeclHandler = self._on_entity
        self._watcher.StartElementHandler = self._on_root

    def _on_entity(self, name, *_):
        raise WxrError(f"{self._name}: the DOCTYPE declares the entity '{name}'; WXR exports never "
                       "do, and entity declarations allow entity-expansion attacks — file refused")

    def _on_root(self, *_):
        self._watching = False

    def read(self, size: int = -1):
        data = self._raw.read(size)
        if not self.head and data:
            self.head = data[:8] if isinstance(data, bytes) else data[:8].encode()
        if self.blank and data.strip():
            self.blank = False
        if self._watching and data:
            try:
                self._watcher.Parse(data, False)
            except expat.ExpatError:
                self._watching = False  # the real parser reports the same error with context
        return data


def _text(elem: ET.Element) -> str:
    return (elem.text or "").strip()


def _iso_utc(value: str) -> str | None:
    try:
        return datetime.strptime(value, "%Y-%m-%d %H:%M:%S").strftime("%Y-%m-%dT%H:%M:%SZ")
    except ValueError:  # empty, or WordPress's "0000-00-00 00:00:00" for never-saved drafts
        return None


def _item_document(item: ET.Element, default_lang: str | None) -> dict | None:
    wp: dict[str, str] = {}
    title = link = content = ""
    lang = meta_lang = None
    for child in item:
        ns, local = _split(child.tag)
        if _is_wp(ns):
            if local == "postmeta":
                key = value = ""
                for part in child:
                    pns, plocal = _split(part.tag)
                    if _is_wp(pns) and plocal == "meta_key":
                        key = _text(part)
                    elif _is_wp(pns) and plocal == "meta_value":
                        value = _text(part)
                if key in _LANGUAGE_META_KEYS and meta_lang is None:
                    meta_lang = normalise_lang(value)
            else:
                wp.setdefault(local, child.text or "")  # the first wins, as in WordPress's importer
        elif ns == _CONTENT_NS and local == "encoded":
            content = child.text or ""
        elif ns == "" and local == "title":
            title = _text(child)
        elif ns == "" and local == "link":
            link = _text(child)
        elif ns == "" and local == "category" and child.get("domain") in _LANGUAGE_DOMAINS and lang is None:
            lang = normalise_lang(child.get("nicename") or child.text)

    post_type = wp.get("post_type", "").strip()
    post_id = wp.get("post_id", "").strip()
    if (not post_type or post_type in NON_CONTENT_TYPES or not post_id
            or wp.get("status", "").strip() != "publish" or wp.get("post_password", "").strip()):
        return None
    return {
        "source": post_type,
        "source_id": post_id,
        "lang": lang or meta_lang or default_lang,
        "title": title,
        "url": link,
        "content": content,
        "modified": _iso_utc(wp.get("post_modified_gmt", "").strip()),
    }


_MAGIC = {b"\x1f\x8b": "gzip-compressed", b"PK\x03\x04": "a ZIP archive", b"%PDF": "a PDF"}
_TRUNCATION_CODES = {expat.errors.codes[e] for e in (
    expat.errors.XML_ERROR_NO_ELEMENTS, expat.errors.XML_ERROR_UNCLOSED_TOKEN,
    expat.errors.XML_ERROR_UNCLOSED_CDATA_SECTION, expat.errors.XML_ERROR_PARTIAL_CHAR)}


def _describe(err: ET.ParseError, name: str, source: _EntityGuard) -> str:
    if source.blank:
        return f"{name}: the file is empty"
    for magic, what in _MAGIC.items():
        if source.head.startswith(magic):
            return f"{name}: the file is {what}, not XML; upload the plain .xml export"
    line, column = err.position
    reason = str(err).split(": line ")[0]
    if err.code in _TRUNCATION_CODES:
        reason += " (the file ends too early: truncated upload or export?)"
    elif (line, column) == (1, 0):
        reason += " (the file does not start like XML; is it really a WordPress export?)"
    return f"{name}: not well-formed XML at line {line}, column {column + 1}: {reason}"


def parse_wxr(path_or_file: str | os.PathLike | IO[bytes], default_lang: str | None = None
              ) -> Iterator[dict]:
    """Published content items of a WXR export, one document dict each.

    `lang` comes from the item's Polylang or WPML language when present, else
    `default_lang`, else the channel's <language>; None when nothing says.
    Items are read lazily: WxrError, for anything that is not a well-formed
    WXR file, is raised while iterating.
    """
    fallback_lang = normalise_lang(default_lang)
    if default_lang is not None and fallback_lang is None:
        raise ValueError(f"default_lang {default_lang!r} is not a language tag")
    return _documents(path_or_file, fallback_lang)


def _documents(path_or_file, default_lang: str | None) -> Iterator[dict]:
    if hasattr(path_or_file, "read"):
        raw, name, owned = path_or_file, str(getattr(path_or_file, "name", "<stream>")), False
    else:
        name = os.fspath(path_or_file)
        raw, owned = open(name, "rb"), True
    try:
        yield from _parse(_EntityGuard(raw, name), name, default_lang)
    finally:
        if owned:
            raw.close()


def _parse(source: _EntityGuard, name: str, default_lang: str | None) -> Iterator[dict]:
    depth = 0
    channel: ET.Element | None = None
    channel_lang: str | None = None
    saw_wp = False
    try:
        for event, elem in ET.iterparse(source, events=("start", "end")):
            if event == "start":
                depth += 1
                if depth == 1 and elem.tag != "rss":
                    raise WxrError(f"{name}: not a WordPress export: the root element is <{elem.tag}>, "
                                   "expected <rss>")
                if depth == 2 and elem.tag == "channel" and channel is None:
                    channel = elem
                if not saw_wp and _is_wp(_split(elem.tag)[0]):
                    saw_wp = True
                continue
            depth -= 1
            if depth != 2 or channel is None or elem not in channel:
                continue
            # A direct child of <channel> is complete: use it, then drop it so
            # memory stays flat however many items the export holds.
            if elem.tag == "language":
                channel_lang = normalise_lang(elem.text)
            elif elem.tag == "item":
                doc = _item_document(elem, default_lang or channel_lang)
                if doc is not None:
                    yield doc
            channel.remove(elem)
    except ET.ParseError as err:
        raise WxrError(_describe(err, name, source)) from None
    if channel is None:
        raise WxrError(f"{name}: not a WordPress export: <rss> has no <channel> element")
    if not saw_wp:
        raise WxrError(f"{name}: an RSS feed, not a WordPress export: no element in the WXR namespace "
                       "(http://wordpress.org/export/1.x/)")
