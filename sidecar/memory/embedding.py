"""How a customer's memory is embedded: one vector for the two ways it is compared.

A message looks for the memories it is about: e5's retrieval recipe embeds the
looking side with "query: " and what is looked for with "passage: ". A new fact is
compared with the stored ones for dedup: things said alike compare best both with
"query: ". A memory takes part in both, so with an embedder that has the passage side
(`embed_passages`) its vector is the normalised sum of its query and passage
vectors: its cosine with a message or another memory is, up to one scale per memory,
the mean of the two recipes' cosines.

On LoCoMo (bench/RESULTS.md, *Memory recall on LoCoMo*, which has today's figures) the
recall rule on such vectors showed, when they were chosen, a relevant memory for 0.765 of
questions and 2.01 memories for a question about something never said, against 0.755 and
2.92 on query vectors alone; on the blind
split of bench/memory_natural.jsonl recall went 0.573 / 0.439 -> 0.580 / 0.480
(precision / recall) and changed values replaced 0.65 -> 0.68, for two look-alike pairs
more merged of 75.

Rows are recorded under `model(embedder)`, so vectors of the two recipes never meet:
rows of the query recipe alone are neither recalled nor matched until the memory worker
(reembed.earlier_recipe) or `rtac reembed` moves them.
Messages are always embedded as queries (sidecar.query_embedding); only memories
take this vector. Off the visitor's clock: memories are embedded by extraction and
by `rtac reembed`, never on a turn.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..embedders.base import Embedder

PASSAGE_SIDE = "+passage"  # what a memory row's model name adds when it holds both sides


def _passages(embedder: Embedder):
    """The embedder's passage side (`embed_passages`), or None: it is optional."""
    return getattr(embedder, "embed_passages", None)


def model(embedder: Embedder) -> str:
    """The model name recorded on (and required of) a memory row's vector."""
    return embedder.model + PASSAGE_SIDE if _passages(embedder) else embedder.model


def vectors(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """One L2-normalised row per memory text (raises EmbeddingError as `embed` does)."""
    queries, passages = embedder.embed(texts), _passages(embedder)
    if passages is None or not len(queries):
        return queries
    both = queries + passages(texts)
    return (both / np.linalg.norm(both, axis=1, keepdims=True)).astype(np.float32)
