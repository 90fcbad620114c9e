"""Which memories a message is about: the strict distance, or a shared content word
a little further out among the customer's nearest memories; only those can be forgotten."""
from datetime import datetime

import numpy as np

from sidecar.memory.forget import choose
from sidecar.memory.recall import recall
from sidecar.memory.store import StoredMemory

DIM = 16
Q = np.eye(DIM, dtype=np.float32)[0]


def at(distance: float, axis: int) -> np.ndarray:
    """A unit vector at this cosine distance from Q."""
    c = 1.0 - distance
    v = c * Q + np.sqrt(1 - c * c) * np.eye(DIM, dtype=np.float32)[axis]
    return v.astype(np.float32)


def mem(i: int, content: str, distance: float) -> StoredMemory:
    now = datetime(2026, 1, 1)
    return StoredMemory(i, bytes(16), "fact", content, None, 3, at(distance, i + 1), "m", None, None, now, now)


BOUNDS = dict(threshold=0.13, near=0.18, near_margin=0.02)


def test_a_shared_word_shows_a_memory_beyond_the_strict_bound():
    memories = [mem(0, "Runs a bakery on Rüütli street.", 0.160),
                mem(1, "Has two delivery vans.", 0.165),       # as near, nothing in common
                mem(2, "Prefers invoices by e-mail.", 0.250)]
    shown = recall(Q, memories, message="Can you deliver the flour to my bakery?", lang="en", **BOUNDS)
    assert [m.content for m in shown.refs.values()] == ["Runs a bakery on Rüütli street."]
    assert shown.near == {"m1"}
    # Without the shared-word rule, nothing at this distance would be shown at all.
    assert recall(Q, memories, threshold=0.13).refs == {}


def test_a_shared_word_counts_only_among_the_customers_nearest_memories():
    memories = [mem(0, "Lives in Tartu.", 0.100),
                mem(1, "The bakery is in Tartu old town.", 0.170)]  # shares "Tartu", 0.07 further
    shown = recall(Q, memories, message="Do you deliver in Tartu?", lang="en", **BOUNDS)
    assert [m.content for m in shown.refs.values()] == ["Lives in Tartu."]


def test_a_memory_shown_for_a_shared_word_can_be_forgotten_and_no_other():
    memories = [mem(0, "Owns a sailing boat.", 0.150), mem(1, "Has a dog called Muki.", 0.140)]
    shown = recall(Q, memories, message="We sold the boat, forget it", lang="en", **BOUNDS)
    assert list(shown.refs) == ["m1"] and shown.refs["m1"].content == "Owns a sailing boat."
    assert choose(["m1", "m2"], shown, threshold=0.125) == ["m1"]  # m2 was never shown


def test_a_word_most_nearby_memories_share_does_not_count():
    # The customer's own name in every memory says nothing about which one is meant.
    memories = [mem(i, f"Caroline {thing}.", 0.150 + i * 0.001) for i, thing in enumerate(
        ["went hiking", "painted a sunset", "adopted a cat", "ran a marathon", "moved house", "likes jazz"])]
    shown = recall(Q, memories, message="What did Caroline paint?", lang="en", **BOUNDS)
    assert [m.content for m in shown.refs.values()] == ["Caroline painted a sunset."]


def test_a_message_that_reads_as_a_correction_widens_what_may_be_named():
    from sidecar.memory.forget import reads_as_correction
    from sidecar.memory.service import MemorySettings
    s = MemorySettings()
    memories = [mem(0, "Has a sailing boat.", 0.190)]  # a shared word, beyond the usual 0.18
    correcting = "We don't have the boat any more"
    asking = "Can you store my boat over the winter?"
    assert reads_as_correction("Забудьте это, пожалуйста", "ru") and reads_as_correction(correcting, "en")
    assert not reads_as_correction(asking, "en")
    shown = recall(Q, memories, message=correcting, lang="en", **s.recall_bounds(correcting, "en"))
    assert list(shown.refs) == ["m1"] and choose(["m1"], shown, threshold=s.forget_distance) == ["m1"]
    assert recall(Q, memories, message=asking, lang="en", **s.recall_bounds(asking, "en")).refs == {}
