"""No customer ever gets another customer's memory: a property over many spaces
and random operations, across two sites."""
from __future__ import annotations

import secrets

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from sidecar.keys import rotate_master_key
from sidecar.memory.recall import recall
from sidecar.memory.reembed import reembed_site
from sidecar.memory.store import MemoryStore
from sidecar.sites import add_site
from sidecar.spaces import find_space, resolve_space
from tests.conftest import chat_payload
from tests.hash_embedder import HashEmbedder

EMB = HashEmbedder()
ops = st.lists(st.tuples(st.sampled_from(["remember", "recall", "export", "forget"]),
                         st.integers(0, 5), st.integers(0, 3)), min_size=1, max_size=25)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations=ops)
def test_memories_never_cross_spaces(engine, keyring, operations):
    sites = [add_site(engine, keyring, "p-" + secrets.token_hex(5)) for _ in range(2)]
    customers = [(sites[i % 2], f"v:cust{i}") for i in range(6)]  # cust0 on site A and cust1 on B, ...
    for op, who, k in operations:
        site, identity = customers[who]
        marker = f"{site.id}-{identity}"
        with engine.begin() as conn:
            store = MemoryStore(conn, resolve_space(conn, keyring, site, identity))
            if op == "remember":
                text = f"shared words bikes bakery {marker} fact{k}"
                store.insert(kind="fact", content=text, topic=None, importance=k + 1, embedding=EMB.embed([text])[0],
                             embed_model=EMB.model, conversation_id=None, turn_seq=None)
            elif op == "recall":
                # The same words every customer uses: only the scope keeps them apart.
                shown = recall(EMB.embed(["shared words bikes bakery"])[0], store.all(), threshold=2.0)
                assert all(marker in m.content for m in shown.refs.values())
            elif op == "export":
                assert all(marker in m.content for m in store.all(with_embeddings=False))
            else:
                mine = store.all()
                store.delete([m.id for m in mine][:1])
    # Finally: every row opens only in its own space, and all of them carry its marker.
    with engine.connect() as conn:
        for site, identity in customers:
            space = find_space(conn, keyring, site, identity)
            if space:
                assert all(f"{site.id}-{identity}" in m.content for m in MemoryStore(conn, space).all())


def test_a_store_cannot_be_built_without_a_space(engine):
    import pytest
    with engine.connect() as conn:
        with pytest.raises(TypeError):
            MemoryStore(conn, None)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            MemoryStore(conn, 42)  # type: ignore[arg-type]


def test_reembed_and_key_rotation_keep_memories(engine, keyring, site):
    import os
    from sidecar.crypto import Keyring
    with engine.begin() as conn:
        store = MemoryStore(conn, resolve_space(conn, keyring, site, "v:re"))
        store.insert(kind="fact", content="Runs a bakery in Tartu.", topic=None, importance=3,
                     embedding=np.ones(8, dtype=np.float32) / np.sqrt(8), embed_model="old-model",
                     conversation_id=None, turn_seq=None)
    assert reembed_site(engine, keyring, site, EMB) == 1
    assert reembed_site(engine, keyring, site, EMB) == 0  # nothing stale left
    new = Keyring(os.urandom(32))
    rotate_master_key(engine, keyring, new)
    try:
        with engine.connect() as conn:
            from sidecar.sites import load_site
            reloaded = load_site(conn, new, site.id)
            [m] = MemoryStore(conn, find_space(conn, new, reloaded, "v:re")).all()
        assert m.content == "Runs a bakery in Tartu." and m.embed_model == EMB.model
        assert np.allclose(m.embedding, EMB.embed(["Runs a bakery in Tartu."])[0])
    finally:
        rotate_master_key(engine, new, keyring)


def test_memory_off_recalls_and_queues_nothing(make_services, make_client, site, engine):
    from sqlalchemy import func, select
    from sidecar import tables
    svc = make_services(memory=False)
    assert svc.memory is None
    client = make_client(svc, site)
    assert client.post("/v1/chat", chat_payload("I run a bakery")).status_code == 200
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(tables.memory_jobs)
                            .where(tables.memory_jobs.c.site_id == site.id)).scalar_one() == 0


def test_the_index_cache_reloads_when_the_space_changes(engine, keyring, site):
    from sidecar.memory.index_cache import IndexCache
    cache, loads = IndexCache(max_rows=10), []

    def space():
        with engine.connect() as conn:
            return find_space(conn, keyring, site, "v:cache")

    def index(sp):
        with engine.connect() as conn:
            store = MemoryStore(conn, sp)
            return cache.get(sp, EMB.model, lambda: (loads.append(1), store.index(EMB.model))[1])

    def remember(text):
        with engine.begin() as conn:
            store = MemoryStore(conn, resolve_space(conn, keyring, site, "v:cache"))
            store.insert(kind="fact", content=text, topic=None, importance=1, embedding=EMB.embed([text])[0],
                         embed_model=EMB.model, conversation_id=None, turn_seq=None)

    remember("first fact")
    assert len(index(space()).ids) == 1 and len(index(space()).ids) == 1 and len(loads) == 1  # second: cached
    remember("second fact")
    assert len(index(space()).ids) == 2 and len(loads) == 2  # the write bumped the version
    with engine.begin() as conn:
        MemoryStore(conn, space()).delete([index(space()).ids[0]])
    assert len(index(space()).ids) == 1 and len(loads) == 3
    for i in range(11):  # beyond max_rows: not kept
        remember(f"fact {i}")
    index(space()), index(space())
    assert len(loads) == 5
