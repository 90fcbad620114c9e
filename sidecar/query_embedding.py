"""The turn's one embedding of the customer's message, shared by document retrieval,
memory recall and the offline answer, and made only when one of them needs it."""
from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Sequence

import numpy as np

from .embedders.base import Embedder, bound_text
from .errors import RtacError

log = logging.getLogger("rtac.turn")


class QueryEmbedding:
    def __init__(self, embedder: Embedder | None, text: str):
        self.embedder, self.text = embedder, text
        self._done = False
        self._vector: np.ndarray | None = None

    @property
    def model(self) -> str:
        return self.embedder.model if self.embedder is not None else ""

    @property
    def made(self) -> bool:
        return self._vector is not None

    def get(self) -> np.ndarray | None:
        """The unit vector, or None when there is no embedder or it failed: an embedder
        outage costs retrieval by meaning and memories, never the turn."""
        if not self._done:
            self._done = True
            if self.embedder is not None and self.text.strip():
                try:
                    self._vector = self.embedder.embed([bound_text(self.text)])[0]
                except RtacError as exc:
                    log.warning("query embedding skipped: %s", exc)
        return self._vector

    def similarity(self, texts: Sequence[str]) -> np.ndarray | None:
        """Cosine similarity of each text to the message, or None without an embedding.
        The texts are pinned lines, the same on every turn of a site: their embeddings
        are kept per process, so only a changed line costs an embedding."""
        query = self.get()
        if query is None or not texts:
            return None
        try:
            matrix = _TEXTS.embed(self.embedder, list(texts))
        except RtacError as exc:
            log.warning("pinned-line embedding skipped: %s", exc)
            return None
        return matrix @ query


class _TextVectors:
    def __init__(self, max_items: int = 8192):
        self.max_items = max_items
        self._items: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, embedder: Embedder, texts: list[str]) -> np.ndarray:
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for text in texts:
                hit = self._items.get((embedder.model, text))
                if hit is not None:
                    self._items.move_to_end((embedder.model, text))
                    found[text] = hit
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            found.update(zip(missing, embedder.embed(missing)))
            with self._lock:
                for text in missing:
                    self._items[(embedder.model, text)] = found[text]
                while len(self._items) > self.max_items:
                    self._items.popitem(last=False)
        return np.vstack([found[t] for t in texts])


_TEXTS = _TextVectors()
