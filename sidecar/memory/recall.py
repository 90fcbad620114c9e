"""Memories shown to the model at the start of a turn.

A memory is shown when the customer's message is about it: within a strict cosine
distance, or, a little further out, when it shares a content word (stemmed, in the
customer's language) with the message and is among the customer's own nearest
memories (within `near_margin` of the nearest). One absolute bound on a small
model's distances cannot separate "about this" from "near this" (a question about
delivery "to my shop" lies 0.15-0.19 from "Runs a bakery on Rüütli 5"); a shared
word, ranked within the customer's own space, can. A marginally related "fact"
about a person is wrong, not merely unhelpful, so nothing is shown on distance
alone beyond the strict bound. Measured on bench/memory_natural.jsonl (tune split):
see bench/RESULTS.md, *Memory on natural speech*.

Shown memories are listed one per line as `mN: content`, most important first,
within a character budget, after the prompt's cache boundary. Only a shown memory
can be forgotten (forget.py), within the same bounds.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..searchtext import content_terms
from .store import StoredMemory, MemoryIndex

BUDGET_CHARS = 1500
MAX_SHOWN = 12


@dataclass
class Recalled:
    """What this turn showed the model: ref -> memory, and each one's distance to the message."""

    refs: dict[str, StoredMemory] = field(default_factory=dict)
    distance: dict[str, float] = field(default_factory=dict)
    near: set[str] = field(default_factory=set)  # shown for a shared word beyond the strict bound

    def lines(self) -> list[str]:
        return [f"{ref}: {m.content}" for ref, m in self.refs.items()]


def distances(query: np.ndarray, memories: list[StoredMemory]) -> np.ndarray:
    """Cosine distances; every embedding is L2-normalised, so 1 - dot product."""
    if not memories:
        return np.zeros(0, dtype=np.float32)
    matrix = np.vstack([m.embedding for m in memories])
    return 1.0 - matrix @ query


@dataclass(frozen=True)
class Bounds:
    strict: float  # shown on distance alone
    near: float  # shown with a shared content word, up to this distance
    near_margin: float  # ... and within this much of the customer's nearest memory


def _about(d: np.ndarray, contents: dict[int, str], message: str, lang: str, b: Bounds) -> dict[int, bool]:
    """Row -> shown for a shared word (True) or on distance (False), for the rows shown."""
    if not len(d):
        return {}
    nearest = float(d.min())
    words = content_terms(message, lang) if message else set()
    terms = {i: content_terms(text, lang) & words for i, text in contents.items()} if words else {}
    # A word most of the customer's nearby memories share (their own name, their
    # company's) says nothing about which one the message means: it counts only when
    # few of the candidates have it.
    df: dict[str, int] = {}
    for shared in terms.values():
        for w in shared:
            df[w] = df.get(w, 0) + 1
    common = max(2, -(-len(contents) // 3))
    out: dict[int, bool] = {}
    for i in contents:
        if d[i] <= b.strict:
            out[i] = False
        elif d[i] <= min(b.near, nearest + b.near_margin) and any(df[w] <= common for w in terms.get(i, ())):
            out[i] = True
    return out


def recall(query: np.ndarray, memories: list[StoredMemory], *, threshold: float, budget: int = BUDGET_CHARS,
           limit: int = MAX_SHOWN, message: str = "", lang: str = "en", near: float = 0.0,
           near_margin: float = 0.0) -> Recalled:
    d = distances(query, memories)
    about = _about(d, {i: m.content for i, m in enumerate(memories)}, message, lang,
                   Bounds(threshold, near, near_margin))
    close = [(float(d[i]), memories[i], by_word) for i, by_word in about.items()]
    close.sort(key=lambda dm: (-dm[1].importance, dm[0]))
    return shown(close, budget=budget, limit=limit)


def recall_indexed(query: np.ndarray, index: MemoryIndex, fetch: Callable[[list[int]], list[StoredMemory]], *,
                   threshold: float, budget: int = BUDGET_CHARS, limit: int = MAX_SHOWN, message: str = "",
                   lang: str = "en", near: float = 0.0, near_margin: float = 0.0) -> Recalled:
    """The turn's path: distances over the space's embeddings alone, then only the
    few memories that may be shown are fetched and opened."""
    d = 1.0 - index.matrix @ query
    reach = max(threshold, near)
    candidates = sorted((i for i in range(len(index.ids)) if d[i] <= reach), key=lambda i: d[i])[: limit * 2]
    by_id = {m.id: m for m in fetch([index.ids[i] for i in candidates])}
    contents = {i: by_id[index.ids[i]].content for i in candidates if index.ids[i] in by_id}
    about = _about(d, contents, message, lang, Bounds(threshold, near, near_margin))
    close = [(float(d[i]), by_id[index.ids[i]], by_word) for i, by_word in about.items()]
    close.sort(key=lambda dm: (-dm[1].importance, dm[0]))
    return shown(close, budget=budget, limit=limit)


def shown(close: list[tuple], *, budget: int, limit: int) -> Recalled:
    """Most important first, within the character budget, labelled m1..mN."""
    out, used = Recalled(), 0
    for dist, m, *by_word in close:
        if len(out.refs) == limit or used + len(m.content) > budget:
            continue
        ref = f"m{len(out.refs) + 1}"
        out.refs[ref] = m
        out.distance[ref] = dist
        if by_word and by_word[0]:
            out.near.add(ref)
        used += len(m.content) + len(ref) + 2
    return out
