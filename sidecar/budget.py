"""The character budget of a turn's knowledge: pinned entries first, retrieved
chunks fill what is left. When the budget runs out, what falls away is the least
relevant retrieved text, never the price list."""
from __future__ import annotations

from dataclasses import dataclass

from .providers.base import GroundingEntry
from .retrieval import Chunk

TRUNCATION_MARK = "\n[…]"


@dataclass(frozen=True)
class Packed:
    pinned: tuple[GroundingEntry, ...]
    retrieved: tuple[GroundingEntry, ...]

    def sources(self) -> list[dict]:
        seen, out = set(), []
        for e in self.retrieved:
            if (e.title, e.url) not in seen:
                seen.add((e.title, e.url))
                out.append({"title": e.title, "url": e.url})
        return out


def _cost(entry: GroundingEntry) -> int:
    return len(entry.title) + len(entry.content) + len(entry.url)


def _truncate_lines(content: str, room: int) -> str:
    """Cut at a line boundary: half a price line is worse than none."""
    cut = content[: max(0, room - len(TRUNCATION_MARK))]
    if "\n" in cut:
        cut = cut[: cut.rfind("\n")]
    return cut.rstrip() + TRUNCATION_MARK if cut.strip() else ""


def pack(pinned: list[GroundingEntry], chunks: list[Chunk], budget: int) -> Packed:
    room = budget
    kept_pinned: list[GroundingEntry] = []
    for entry in pinned:
        if room <= 0:
            break
        if _cost(entry) > room:
            content = _truncate_lines(entry.content, room - len(entry.title) - len(entry.url))
            if content:
                entry = GroundingEntry(entry.title, content, entry.url, pinned=True)
                kept_pinned.append(entry)
            room = 0
            break
        kept_pinned.append(entry)
        room -= _cost(entry)
    kept: list[GroundingEntry] = []
    for c in chunks:  # best first; a chunk too big for what is left is skipped, a smaller one may fit
        entry = GroundingEntry(c.title, c.content, c.url, lang=c.lang)
        if _cost(entry) <= room:
            kept.append(entry)
            room -= _cost(entry)
    return Packed(tuple(kept_pinned), tuple(kept))
