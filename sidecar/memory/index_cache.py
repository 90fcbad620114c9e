"""A process's opened memory indexes, one per space, valid while the space's
memory_version is the one they were read at: a returning customer's turn then pays
neither the read of hundreds of sealed rows nor their decryption.

What is kept is the embeddings only (never contents), bounded by rows in total,
least recently used out first.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable

from ..spaces import Space
from .store import MemoryIndex


class IndexCache:
    def __init__(self, max_rows: int = 50_000):
        self.max_rows = max_rows
        self._items: OrderedDict[tuple, tuple[int, MemoryIndex]] = OrderedDict()
        self._rows = 0
        self._lock = threading.Lock()

    def get(self, space: Space, model: str, load: Callable[[], MemoryIndex]) -> MemoryIndex:
        key = (space.site_id, space.id, model)
        with self._lock:
            hit = self._items.get(key)
            if hit and hit[0] == space.memory_version:
                self._items.move_to_end(key)
                return hit[1]
        index = load()
        with self._lock:
            old = self._items.pop(key, None)
            if old:
                self._rows -= len(old[1].ids)
            if len(index.ids) <= self.max_rows:
                self._items[key] = (space.memory_version, index)
                self._rows += len(index.ids)
            while self._rows > self.max_rows and self._items:
                _, (_, evicted) = self._items.popitem(last=False)
                self._rows -= len(evicted.ids)
        return index
