"""Memory retrieval overhead per turn with 500 memories in the customer's space,
excluding the query embedding. Measured from the point the turn has read its space
(which it does anyway): the space's embeddings (opened, or from the process's index
cache while the space's memory_version is unchanged), cosine distances, then only
the memories that may be shown are read, opened, chosen and formatted. A third row
times the turn's own bounds for a message that reads as a correction: the word rule
runs over the full 24 candidates, for the facts and for what it offers apart."""
from __future__ import annotations

import statistics
import time

import numpy as np

from sidecar.memory.index_cache import IndexCache
from sidecar.memory.recall import recall_indexed
from sidecar.memory.service import MemorySettings
from sidecar.memory.store import MemoryStore
from sidecar.spaces import find_space, resolve_space

from .markdown import section, table, verdict

MEMORIES = 500
RUNS = 300
WARMUP = 20
NEAR = 30  # memories about one thing, all near the correcting message: more than the 24 candidates
CORRECTION = "We sold the boat last month, so please forget about it."


def _fill(engine, keyring, site) -> None:
    rng, anchor = np.random.default_rng(5), _anchor()
    with engine.begin() as conn:
        store = MemoryStore(conn, resolve_space(conn, keyring, site, "v:bench-memory"))
        for i in range(MEMORIES):
            v = rng.standard_normal(384).astype(np.float32)
            content = f"Customer fact number {i}: " + "detail " * 8
            if i >= MEMORIES - NEAR:  # within the correction's reach of the anchor, sharing its words
                v = anchor + rng.uniform(0.4, 0.75) * v / np.linalg.norm(v)  # 0.07 to 0.20 from it
                content = f"Keeps boat number {i} at the marina; last serviced in May, " + "detail " * 4
            store.insert(kind="fact" if i % 5 else "topic", content=content,
                         topic=None if i % 5 else f"topic {i}", importance=int(rng.integers(1, 6)),
                         embedding=v / np.linalg.norm(v), embed_model="bench", conversation_id=None, turn_seq=None)


def _anchor() -> np.ndarray:
    v = np.random.default_rng(7).standard_normal(384).astype(np.float32)
    return v / np.linalg.norm(v)


def _stats(times: list[float]) -> dict:
    times = sorted(times)
    return {"p50": statistics.median(times), "p90": times[int(0.9 * len(times))],
            "p99": times[int(0.99 * len(times))]}


def run(engine, keyring, site, runs: int = RUNS) -> dict:
    _fill(engine, keyring, site)
    query = np.random.default_rng(6).standard_normal(384).astype(np.float32)
    query /= np.linalg.norm(query)
    cache = IndexCache()

    correcting, seen, anchor = MemorySettings().recall_bounds(CORRECTION, "en"), {}, _anchor()

    def turn(cached: bool, corrects: bool = False) -> float:
        with engine.connect() as conn:
            space = find_space(conn, keyring, site, "v:bench-memory")
            start = time.perf_counter()
            store = MemoryStore(conn, space)
            load = lambda: store.index("bench")  # noqa: E731
            index = cache.get(space, "bench", load) if cached else load()
            if corrects:
                shown = recall_indexed(anchor, index, store.get, message=CORRECTION, lang="en", **correcting)
                shown.lines(), shown.forget_lines()
                seen.update(facts=len(shown.facts()), offered=len(shown.to_forget))
            else:
                recall_indexed(query, index, store.get, threshold=0.9).lines()  # a full set of 12 is shown
            return (time.perf_counter() - start) * 1000

    out = {"memories": MEMORIES, "runs": runs}
    for label, cached, corrects in (("cold", False, False), ("cached", True, False), ("correcting", True, True)):
        for _ in range(WARMUP):
            turn(cached, corrects)
        out[label] = _stats([turn(cached, corrects) for _ in range(runs)])
    out["correcting"].update(seen)
    return out


def markdown(r: dict) -> str:
    warm, cold, fix = r["cached"], r["cold"], r.get("correcting")
    met = warm["p50"] <= 5.0 and (fix is None or fix["p50"] <= 5.0)
    return section(
        "## Memory retrieval overhead",
        f"{r['memories']} memories in one customer's space (contents, topics and 384-dimension embeddings "
        "sealed with AES-256-GCM); the query already embedded. From the point the turn has read its space: "
        "the space's embeddings, cosine distances, then only the memories that may be shown (a full set of "
        f"12 here) read, opened, chosen and formatted. {r['runs']} runs after {WARMUP} warm-up runs each.",
        table(["", "p50", "p90", "p99"], [
            ["index cached in the process (the space unchanged since its last turn)",
             *(f"{warm[p]:.2f} ms" for p in ("p50", "p90", "p99"))],
            [f"cold: all {r['memories']} embeddings read and opened",
             *(f"{cold[p]:.2f} ms" for p in ("p50", "p90", "p99"))],
        ] + ([[f"index cached, a message that reads as a correction (\"{CORRECTION}\"): {NEAR} memories "
               f"0.07-0.20 from it sharing its words, the word rule over the candidates for the facts and for "
               f"what it offers apart ({fix['facts']} shown, {fix['offered']} offered apart)",
               *(f"{fix[p]:.2f} ms" for p in ("p50", "p90", "p99"))]] if fix else [])),
        f"Target p50 ≤ 5 ms — **{verdict(met)}** for a returning customer's turn with the index "
        "cached; the first turn after a memory write pays the cold figure once.")
