"""A small multilingual demo business of the project's own: Rattakoda, a bicycle
workshop in Tallinn. Its price list is pinned (sent on every turn, as the plugin
does); its pages in Estonian, English and Russian are indexed, including an old
blog post with outdated prices, which must never win over the price list."""
from __future__ import annotations

import json
from importlib import resources


def _load(name: str) -> dict:
    return json.loads(resources.files(__package__).joinpath(name).read_text(encoding="utf-8"))


def documents() -> list[dict]:
    return _load("documents.json")["documents"]


def pinned(lang: str) -> list[dict]:
    data = _load("pinned.json")
    by_lang = data["pinned"]
    return by_lang.get(lang) or by_lang[data["default_lang"]]


def default_lang() -> str:
    return _load("pinned.json")["default_lang"]
