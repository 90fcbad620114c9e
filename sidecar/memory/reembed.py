"""`rtac reembed`: after an embedding-model change, re-embed a site's memories.
Until then, rows embedded by another model (or another recipe, memory.embedding) are
neither recalled nor matched for dedup: vectors of two models do not share a space."""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.engine import Engine

from .. import tables as t
from ..crypto import Keyring
from ..embedders.base import Embedder
from ..sites import Site
from ..spaces import space_by_id
from . import embedding as memory_embedding
from .store import MemoryStore

BATCH = 64


def reembed_site(engine: Engine, keyring: Keyring, site: Site, embedder: Embedder, *, everything: bool = False) -> int:
    with engine.connect() as conn:
        space_ids = conn.execute(select(t.spaces.c.id).where(t.spaces.c.site_id == site.id)).scalars().all()
    done = 0
    for space_id in space_ids:  # one transaction per space: a crash leaves whole spaces done
        with engine.begin() as conn:
            space = space_by_id(conn, keyring, site, space_id)
            if space is None:
                continue
            store = MemoryStore(conn, space)
            rows_of = memory_embedding.model(embedder)
            stale = [m for m in store.all(with_embeddings=False) if everything or m.embed_model != rows_of]
            for start in range(0, len(stale), BATCH):
                batch = stale[start:start + BATCH]
                for memory, vector in zip(batch, memory_embedding.vectors(embedder, [m.content for m in batch])):
                    store.set_embedding(memory, vector, rows_of)
            done += len(stale)
    return done
