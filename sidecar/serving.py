"""How the sidecar is served: gunicorn's settings for turns that mostly wait.

    rtac serve                                                   # these settings, in process
    gunicorn -c python:sidecar.serving 'sidecar.app:create_app()'  # the same, as a config module

A turn spends 1-2 s waiting for the model vendor and a few ms of CPU, so a server
holds turns by the hundred with threads, not processes: one worker process per core
(the GIL), each with enough threads for every turn the server admits
(RTAC_MAX_INFLIGHT, 128 by default) plus a few for health checks and the other
routes, so an admitted turn never waits for a thread, whichever worker accepted it,
and a turn beyond the limit is refused at once (sidecar/inflight.py) instead of
queueing. Threads start as they are needed; a turn in flight adds ~0.5 MB (bench/load.py).

Threads rather than gevent or asyncio: the query embedding is CPU-bound native code
on its own worker threads (sidecar/embedders/local.py), which an event loop would
stall, and a thread waiting for the vendor costs no CPU.

The worker class reads each request in full in its event loop before a thread sees
it (sidecar/buffered_worker.py), so clients that trickle their requests hold no
thread. On the internet put nginx in front (docs/deploying.md): TLS, and request
buffering on the edge too.

Settings given on gunicorn's command line (`-w 4`, `--threads 64`, `-b :9000`) win
over these. The master shares the in-flight table with the workers it forks
(the hooks below), so RTAC_MAX_INFLIGHT holds for the whole server.
"""
from __future__ import annotations

import functools
import logging
import math

from . import inflight
from . import config as config_module
from .config import Config
from .db import Waits

log = logging.getLogger(__name__)

HOST, PORT = "127.0.0.1", 8787
WORKERS = 2  # one per core of the 2-core hosts rtac is sized for
SPARE_THREADS = 16  # per worker, beyond the admitted turns: health checks, documents, stats
KEEPALIVE = 5  # seconds an idle client connection stays open (nginx's upstream keepalive is shorter)
SLOTS = 256  # worker slots in the in-flight table: far more than any worker count


def threads_for(cfg: Config) -> int:
    return cfg.max_inflight + SPARE_THREADS


def settings(cfg: Config, *, bind: str | None = None, workers: int | None = None, threads: int | None = None,
             access_log: bool = False) -> dict:
    """gunicorn settings (names as in its documentation) for this configuration."""
    # A stopping worker lets its turns finish: the vendor's deadline, then the database's.
    grace = math.ceil(cfg.turn_deadline + Waits.for_deadline(cfg.turn_deadline).bound) + 5
    return {
        "bind": [bind or f"{HOST}:{PORT}"],
        "workers": workers or WORKERS,
        "worker_class": "sidecar.buffered_worker.BufferedThreadWorker",
        "threads": threads or threads_for(cfg),
        # Slow clients wait in the event loop, each holding only a socket.
        "worker_connections": 1000,
        "keepalive": KEEPALIVE,
        # The heartbeat of a worker's event loop, which never waits on a turn.
        "timeout": 60,
        "graceful_timeout": grace,
        "preload_app": True,
        # gunicorn's control socket has one default path per user: several sidecars on a
        # host (or a sidecar and any other gunicorn) would take it from each other.
        "control_socket_disable": True,
        "accesslog": "-" if access_log else None,
        "on_starting": functools.partial(on_starting, config=cfg),
        "pre_fork": pre_fork,
        "post_fork": functools.partial(post_fork, config=cfg),
        "child_exit": child_exit,
    }


# -- hooks: the in-flight table shared by the workers of one master, the engine built --

def on_starting(server, config: Config | None = None) -> None:
    inflight.share(SLOTS)
    if config is not None:
        prepare_local_engine(config)


def _embeds_locally(config: Config) -> bool:
    return config.embedder == "local" and config.embeds


def prepare_local_engine(config: Config) -> None:
    """Build the local model's fast engine in the master, before any worker embeds: a
    compile (once per machine, ~1-2 s) is no visitor's first turn then. Only a file is
    made here: no model is loaded and no thread started, so forking stays safe."""
    if _embeds_locally(config):
        from .embedders import fast_engine
        fast_engine.library()


def pre_fork(server, worker) -> None:
    taken = {getattr(w, "rtac_slot", None) for w in server.WORKERS.values()}
    worker.rtac_slot = inflight.free_slot(taken)


def post_fork(server, worker, config: Config | None = None) -> None:
    inflight.take_slot(getattr(worker, "rtac_slot", None))
    if config is not None and _embeds_locally(config):
        warm_local_embedder()


def warm_local_embedder() -> None:
    """In a new worker, before its first request: load the local model and pick its engine
    (the fast engine's check against the wheel's takes ~0.1 s), off any visitor's turn. A
    failure is left for the turns to meet, as they would have without this."""
    from .embedders.base import EmbeddingError
    from .embedders.local import LocalEmbedder
    try:
        LocalEmbedder().warm_up()
    except EmbeddingError as e:
        log.warning("the local embedder could not warm up: %s", e)


def child_exit(server, worker) -> None:
    inflight.clear_slot(getattr(worker, "rtac_slot", None))


# -- as a gunicorn config module: `gunicorn -c python:sidecar.serving ...` -------------
# gunicorn reads the settings as this module's names; `rtac serve` passes its options
# to settings() instead. The configuration is read here once, at import.
CONFIG = config_module.load()
globals().update(settings(CONFIG))
