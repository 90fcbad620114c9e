"""A memory's vector holds both of e5's recipes (sidecar.memory.embedding); messages stay queries."""
from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest
from sqlalchemy import text

from sidecar.embedders.local import LocalEmbedder
from sidecar.memory import embedding as memory_embedding
from sidecar.memory.recall import recall
from sidecar.memory import reembed
from sidecar.memory.reembed import reembed_site
from sidecar.memory.service import MemorySettings
from sidecar.memory.store import MemoryStore, StoredMemory
from sidecar.spaces import identity_of, resolve_space

from tests.hash_embedder import HashEmbedder

S = MemorySettings()
# en tune split of bench/memory_natural.jsonl: a question in other words than the fact.
FACTS = ["Drives a 2019 Nissan Leaf.", "Wife drives a 2012 Honda Jazz.",
         "The Leaf's battery is under warranty until 2027.", "Lives 20 miles out of town and needs a courtesy car.",
         "Prefers Saturday appointments."]
MESSAGE = "will i get a loan car while its in? i'm out in the sticks"


@pytest.fixture(scope="module")
def local():
    return LocalEmbedder()


def stored(vectors: np.ndarray) -> list[StoredMemory]:
    now = datetime(2026, 1, 1)
    return [StoredMemory(i, bytes(16), "fact", text, None, 3, v, "m", None, None, now, now)
            for i, (text, v) in enumerate(zip(FACTS, vectors))]


def shown(memories: list[StoredMemory], query: np.ndarray) -> list[str]:
    return [m.content for m in recall(query, memories, message=MESSAGE, lang="en",
                                      **S.recall_bounds(MESSAGE, "en")).facts().values()]


def test_rows_of_the_local_model_carry_their_own_model_name_and_others_the_embedders():
    assert memory_embedding.model(LocalEmbedder()) == LocalEmbedder.model + "+passage"
    assert memory_embedding.model(HashEmbedder()) == HashEmbedder().model


def test_a_memory_vector_is_unit_length_and_lies_between_the_two_recipes(local):
    both = memory_embedding.vectors(local, FACTS)
    queries, passages = local.embed(FACTS), local.embed_passages(FACTS)
    assert both.dtype == np.float32 and np.allclose(np.linalg.norm(both, axis=1), 1.0, atol=1e-5)
    for b, q, p in zip(both, queries, passages):
        assert b @ q > q @ p and b @ p > q @ p  # nearer to each recipe than they are to each other
    assert memory_embedding.vectors(local, []).shape == (0, local.dim)


def test_a_question_in_other_words_finds_the_memory_it_is_about(local):
    query = local.embed([MESSAGE])[0]
    assert shown(stored(memory_embedding.vectors(local, FACTS)), query) == [
        "Lives 20 miles out of town and needs a courtesy car."]
    assert shown(stored(local.embed(FACTS)), query) == []  # memories as queries alone: nothing


def test_an_embedder_without_a_passage_side_embeds_memories_as_it_embeds_anything():
    emb = HashEmbedder()
    assert np.array_equal(memory_embedding.vectors(emb, FACTS), emb.embed(FACTS))


def test_reembed_moves_rows_of_the_query_recipe_to_the_memory_vectors(engine, keyring, site, local):
    with engine.begin() as conn:  # as stored before memories held both recipes
        space = resolve_space(conn, keyring, site, identity_of("v:recipe", None))
        store = MemoryStore(conn, space)
        for fact, vector in zip(FACTS, local.embed(FACTS)):
            store.insert(kind="fact", content=fact, topic=None, importance=3, embedding=vector,
                         embed_model=local.model, conversation_id=None, turn_seq=None)
        assert store.index(memory_embedding.model(local)).ids == []  # not recalled until re-embedded
    assert reembed_site(engine, keyring, site, local) == len(FACTS)
    with engine.connect() as conn:
        store = MemoryStore(conn, space)
        rows = store.all()
        assert {m.embed_model for m in rows} == {memory_embedding.model(local)}
        by_text = dict(zip(FACTS, memory_embedding.vectors(local, FACTS)))
        assert all(np.allclose(m.embedding, by_text[m.content], atol=1e-3) for m in rows)
        assert len(store.index(memory_embedding.model(local)).ids) == len(FACTS)
    assert reembed_site(engine, keyring, site, local) == 0  # nothing stale left


def store_as(engine, keyring, site, identity, facts, vectors, model):
    with engine.begin() as conn:
        space = resolve_space(conn, keyring, site, identity_of(identity, None))
        store = MemoryStore(conn, space)
        for fact, vector in zip(facts, vectors):
            store.insert(kind="fact", content=fact, topic=None, importance=3, embedding=vector,
                         embed_model=model, conversation_id=None, turn_seq=None)
    return space


def models(engine, space) -> list[str]:
    with engine.connect() as conn:
        return sorted(m.embed_model for m in MemoryStore(conn, space).all(with_embeddings=False))


def test_the_background_moves_rows_of_the_query_recipe_and_leaves_other_models_to_reembed(make_services, engine,
                                                                                            keyring, site, local):
    svc = make_services()
    spaces = [store_as(engine, keyring, site, f"v:earlier{i}", FACTS[i::2], local.embed(FACTS[i::2]), local.model)
              for i in range(2)]
    other = store_as(engine, keyring, site, "v:other-model", FACTS[:1], HashEmbedder().embed(FACTS[:1]), "hash-64")
    moved = 0
    while (n := reembed.earlier_recipe(engine, keyring, svc.sites, local, spaces=1)) is not None:
        moved += n
    assert moved >= len(FACTS)  # other tests' rows of that recipe may be moved too
    assert models(engine, spaces[0]) == [memory_embedding.model(local)] * 3
    assert models(engine, spaces[1]) == [memory_embedding.model(local)] * 2
    assert models(engine, other) == ["hash-64"]  # another model's rows: `rtac reembed`'s
    assert reembed.earlier_recipe(engine, keyring, svc.sites, local) is None


def test_the_sweep_finds_its_spaces_in_an_index_alone(engine):
    """Asked at every worker pass while such rows remain: a range of one index, no
    table rows read, however many memories other sites hold."""
    query = reembed.spaces_holding("some-model", 8).compile(engine, compile_kwargs={"literal_binds": True})
    with engine.connect() as conn:
        plan = conn.execute(text(f"EXPLAIN {query}")).mappings().one()
    assert plan["key"] == "ix_memory_model"
    assert plan["type"] in ("ref", "range") and "Using index" in (plan["Extra"] or "")


def test_the_memory_workers_pass_moves_them_until_none_is_left(make_services, engine, keyring, site, local):
    svc = make_services()
    space = store_as(engine, keyring, site, "v:upgrade", FACTS, local.embed(FACTS), local.model)
    with engine.connect() as conn:
        assert not svc.memory.recall(conn, resolve_space(conn, keyring, site, identity_of("v:upgrade", None)),
                                     MESSAGE, lang="en").refs  # rows of the earlier recipe: not recalled
    while svc.memory._background_pass():
        pass
    assert models(engine, space) == [memory_embedding.model(local)] * len(FACTS)
    with engine.connect() as conn:
        shown = svc.memory.recall(conn, resolve_space(conn, keyring, site, identity_of("v:upgrade", None)),
                                  MESSAGE, lang="en")
    assert [m.content for m in shown.facts().values()] == ["Lives 20 miles out of town and needs a courtesy car."]
    assert svc.memory._earlier_left is False  # the worker stops looking
