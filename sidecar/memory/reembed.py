"""Re-embedding a site's memories: `rtac reembed` after an embedding-model change, and
in the background the rows an earlier release embedded as queries alone.

Until then, rows embedded by another model (or another recipe, memory.embedding) are
neither recalled nor matched for dedup: vectors of two models do not share a space."""
from __future__ import annotations

from typing import Callable

from sqlalchemy import Select, select
from sqlalchemy.engine import Engine

from .. import tables as t
from ..crypto import Keyring
from ..embedders.base import Embedder
from ..sites import Site, SiteRegistry
from ..spaces import space_by_id
from . import embedding as memory_embedding
from .store import MemoryStore, StoredMemory

BATCH = 64
_M = t.memories.c


def reembed_space(engine: Engine, keyring: Keyring, site: Site, space_id: int, embedder: Embedder,
                  stale: Callable[[StoredMemory], bool]) -> int:
    """The space's `stale` memories embedded again, in one transaction (a crash leaves
    whole spaces done); how many."""
    rows_of = memory_embedding.model(embedder)
    with engine.begin() as conn:
        space = space_by_id(conn, keyring, site, space_id)
        if space is None:
            return 0
        store = MemoryStore(conn, space)
        todo = [m for m in store.all(with_embeddings=False) if stale(m)]
        for start in range(0, len(todo), BATCH):
            batch = todo[start:start + BATCH]
            for memory, vector in zip(batch, memory_embedding.vectors(embedder, [m.content for m in batch])):
                store.set_embedding(memory, vector, rows_of)
    return len(todo)


def reembed_site(engine: Engine, keyring: Keyring, site: Site, embedder: Embedder, *, everything: bool = False) -> int:
    with engine.connect() as conn:
        space_ids = conn.execute(select(t.spaces.c.id).where(t.spaces.c.site_id == site.id)).scalars().all()
    rows_of = memory_embedding.model(embedder)
    return sum(reembed_space(engine, keyring, site, space_id, embedder,
                             lambda m: everything or m.embed_model != rows_of) for space_id in space_ids)


def spaces_holding(model: str, limit: int) -> Select:
    """A few spaces with rows of `model`, read from ix_memory_model alone (sweeps ask it
    pass after pass)."""
    return select(_M.site_id, _M.space_id).where(_M.embed_model == model) \
        .group_by(_M.site_id, _M.space_id).limit(limit)


def earlier_recipe(engine: Engine, keyring: Keyring, sites: SiteRegistry, embedder: Embedder,
                   spaces: int = 8) -> int | None:
    """A few spaces' memories that this model embedded as queries alone, moved to its
    memory vectors; None when no such row is left (the caller stops looking).

    Only that one recipe, never another model's rows: during a change of model, sidecars
    of the old and the new configuration must not move the same rows back and forth
    (that stays `rtac reembed`'s, run by the operator)."""
    earlier = embedder.model
    if memory_embedding.model(embedder) == earlier:
        return None  # this embedder has a single recipe
    with engine.connect() as conn:
        found = conn.execute(spaces_holding(earlier, spaces)).all()
    if not found:
        return None
    done = 0
    for site_id, space_id in found:
        site = sites.get(site_id)
        if site is not None:
            done += reembed_space(engine, keyring, site, space_id, embedder, lambda m: m.embed_model == earlier)
    return done or None  # only rows no site or space opens any more: nothing to do for them
