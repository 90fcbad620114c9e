"""What a turn asks of memory, on and off: recall, the step after the reply (forgetting
and its read-back), the extraction job after the turn is stored."""
from __future__ import annotations

from sqlalchemy import func, select

from sidecar import tables
from sidecar.memory.off import MEMORY_OFF
from sidecar.memory.recall import Recalled
from sidecar.memory import embedding as memory_embedding
from sidecar.memory.store import MemoryStore
from sidecar.reply import Reply
from sidecar.spaces import resolve_space

FACT = "I run a bakery in Tartu."


def remembered(svc, engine, site, identity):
    """A space holding FACT, and what recalling FACT shows of it."""
    with engine.begin() as conn:
        space = resolve_space(conn, svc.keyring, site, identity)
        MemoryStore(conn, space).insert(kind="fact", content=FACT, topic=None, importance=3,
                                        embedding=memory_embedding.vectors(svc.embedder, [FACT])[0],
                                        embed_model=memory_embedding.model(svc.embedder),
                                        conversation_id=None, turn_seq=None)
        recalled = svc.turn_memory.recall(conn, space, FACT, lang="en")
    return space, recalled


def memories(engine, space) -> list[str]:
    with engine.connect() as conn:
        return [m.content for m in MemoryStore(conn, space).all(with_embeddings=False)]


def test_the_turn_calls_the_memory_when_it_is_on_and_memory_off_when_it_is_off(make_services):
    on = make_services()
    assert on.memory is not None and on.turn_memory is on.memory
    assert make_services(memory=False).turn_memory is MEMORY_OFF


def test_memory_off_recalls_forgets_and_queues_nothing(make_services, engine, site):
    svc = make_services(memory=False)
    reply = Reply("Done.", forget=["m1"])
    recalled = Recalled(refs={"m1": object()}, distance={"m1": 0.0})  # type: ignore[dict-item]
    with engine.begin() as conn:
        space = resolve_space(conn, svc.keyring, site, "v:off")
        assert svc.turn_memory.recall(conn, space, FACT).refs == {}
        assert svc.turn_memory.after_reply(conn, space, reply, recalled, "en") == (reply, [])
        svc.turn_memory.after_store(conn, space, "c" * 32, 1, "en")
        jobs = conn.execute(select(func.count()).select_from(tables.memory_jobs)
                            .where(tables.memory_jobs.c.site_id == site.id)).scalar_one()
    assert jobs == 0


def test_after_reply_forgets_what_the_reply_names_and_reads_it_back(make_services, engine, site):
    svc = make_services()
    space, recalled = remembered(svc, engine, site, "v:forgets")
    assert list(recalled.refs) == ["m1"]
    reply = Reply("Done.", quick_replies=["Thanks"], action="none", forget=["m1"])
    with engine.begin() as conn:
        stored, forgotten = svc.turn_memory.after_reply(conn, space, reply, recalled, "en")
    assert forgotten == [FACT]
    assert stored.reply.startswith("Done.\n\nI have forgotten this:") and FACT in stored.reply
    assert (stored.quick_replies, stored.action, stored.forget) == (["Thanks"], "none", ["m1"])
    assert memories(engine, space) == []


def test_after_reply_leaves_a_reply_that_forgets_nothing_as_it_is(make_services, engine, site):
    svc = make_services()
    space, recalled = remembered(svc, engine, site, "v:keeps")
    reply = Reply("Noted.")
    with engine.begin() as conn:
        assert svc.turn_memory.after_reply(conn, space, reply, recalled, "en") == (reply, [])
        # A ref the turn never showed forgets nothing either.
        assert svc.turn_memory.after_reply(conn, space, Reply("Done.", forget=["m7"]), recalled, "en") \
            == (Reply("Done.", forget=["m7"]), [])
    assert memories(engine, space) == [FACT]
