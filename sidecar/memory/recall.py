"""Memories shown to the model at the start of a turn.

Only memories within a strict cosine distance of the customer's message are shown:
a marginally related "fact" about a person is wrong, not merely unhelpful. They are
listed one per line as `mN: content`, most important first, within a character
budget, after the prompt's cache boundary (they differ from turn to turn).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .store import Memory, MemoryIndex

BUDGET_CHARS = 1500
MAX_SHOWN = 12


@dataclass
class Recalled:
    """What this turn showed the model: ref -> memory, and each one's distance to the message."""

    refs: dict[str, Memory] = field(default_factory=dict)
    distance: dict[str, float] = field(default_factory=dict)

    def lines(self) -> list[str]:
        return [f"{ref}: {m.content}" for ref, m in self.refs.items()]


def distances(query: np.ndarray, memories: list[Memory]) -> np.ndarray:
    """Cosine distances; every embedding is L2-normalised, so 1 - dot product."""
    if not memories:
        return np.zeros(0, dtype=np.float32)
    matrix = np.vstack([m.embedding for m in memories])
    return 1.0 - matrix @ query


def recall(query: np.ndarray, memories: list[Memory], *, threshold: float, budget: int = BUDGET_CHARS,
           limit: int = MAX_SHOWN) -> Recalled:
    d = distances(query, memories)
    close = [(float(d[i]), m) for i, m in enumerate(memories) if d[i] <= threshold]
    close.sort(key=lambda dm: (-dm[1].importance, dm[0]))
    return shown(close, budget=budget, limit=limit)


def recall_indexed(query: np.ndarray, index: MemoryIndex, fetch: Callable[[list[int]], list[Memory]], *,
                   threshold: float, budget: int = BUDGET_CHARS, limit: int = MAX_SHOWN) -> Recalled:
    """The turn's path: distances over the space's embeddings alone, then only the
    few memories that may be shown are fetched and opened."""
    d = 1.0 - index.matrix @ query
    close = sorted((i for i in range(len(index.ids)) if d[i] <= threshold),
                   key=lambda i: (-index.importance[i], d[i]))[: limit * 2]
    by_id = {m.id: m for m in fetch([index.ids[i] for i in close])}
    return shown([(float(d[i]), by_id[index.ids[i]]) for i in close if index.ids[i] in by_id],
                 budget=budget, limit=limit)


def shown(close: list[tuple[float, Memory]], *, budget: int, limit: int) -> Recalled:
    """Most important first, within the character budget, labelled m1..mN."""
    out, used = Recalled(), 0
    for dist, m in close:
        if len(out.refs) == limit or used + len(m.content) > budget:
            continue
        ref = f"m{len(out.refs) + 1}"
        out.refs[ref] = m
        out.distance[ref] = dist
        used += len(m.content) + len(ref) + 2
    return out
