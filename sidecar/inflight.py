"""Turns in flight: beyond RTAC_MAX_INFLIGHT a turn is answered 503 at once.

A turn spends its 1-2 s waiting for the vendor while holding a server thread. When
more turns arrive than the server may hold, an answer a second later is worth more
than a place in a queue that grows for minutes: the turn beyond the limit gets a
503 with `Retry-After` and `"retryable": true`, decided before anything else is done
for it (no signature check, no database), so refusing costs next to nothing.

Only `POST /v1/chat` counts; health checks and the other routes never do. A slot is
held until the response is closed, so a streamed turn counts until its last event.

The limit is the server's, not each worker process's: under gunicorn with the hooks
of `sidecar.serving`, the workers forked from one master share a table of counts in
shared memory, one slot per worker, and the master zeroes a dead worker's slot, so a
worker killed mid-turn leaks nothing. Without those hooks (another WSGI server, a
test client) the count is the process's own.
"""
from __future__ import annotations

import ctypes
import json
import multiprocessing
import threading

from .errors import OverCapacity

RETRY_AFTER_SECONDS = 1  # a turn lasts 1-2 s: by then a slot has likely come free
_LOCK_WAIT = 0.05  # a shared lock not had by then is a sick server: count without it


class _Table:
    """Per-worker counts in memory shared by the processes forked from the master."""

    def __init__(self, slots: int):
        self.counts = multiprocessing.RawArray(ctypes.c_int, slots)
        self.lock = multiprocessing.Lock()


_table: _Table | None = None
_slot: int | None = None  # this worker's index in the table


def share(slots: int) -> None:
    """In the master, before any worker is forked."""
    global _table
    _table = _Table(slots)


def free_slot(taken: set[int]) -> int | None:
    """The lowest slot no live worker holds (None: the table is full, or not shared)."""
    if _table is None:
        return None
    return next((i for i in range(len(_table.counts)) if i not in taken), None)


def take_slot(slot: int | None) -> None:
    """In a freshly forked worker: the slot its master gave it."""
    global _slot
    _slot = slot
    if _table is not None and slot is not None:
        _table.counts[slot] = 0


def clear_slot(slot: int | None) -> None:
    """In the master, when a worker has exited: whatever it held is free again."""
    if _table is not None and slot is not None:
        _table.counts[slot] = 0


class Gate:
    """Admits at most `limit` turns at once in this server."""

    def __init__(self, limit: int):
        self.limit = limit
        self._mine = 0
        self._local = threading.Lock()

    def in_flight(self) -> int:
        if _table is None or _slot is None:
            return self._mine
        return sum(_table.counts)

    def enter(self) -> bool:
        if _table is None or _slot is None:
            with self._local:
                if self._mine >= self.limit:
                    return False
                self._mine += 1
                return True
        # Count and claim under one lock shared by the workers: two workers racing for
        # the last slot must not both get it, nor both be refused.
        shared = _table.lock.acquire(timeout=_LOCK_WAIT)
        try:
            with self._local:
                if sum(_table.counts) >= self.limit:
                    return False
                self._mine += 1
                _table.counts[_slot] = self._mine
                return True
        finally:
            if shared:
                _table.lock.release()

    def leave(self) -> None:
        with self._local:
            self._mine -= 1
            if _table is not None and _slot is not None:
                _table.counts[_slot] = self._mine


def _is_turn(environ) -> bool:
    return environ.get("REQUEST_METHOD") == "POST" and environ.get("PATH_INFO") == "/v1/chat"


class _Released:
    """The response's body; its turn leaves the gate once, when the body has been sent
    (iterated to its end) or closed, whichever comes first."""

    def __init__(self, body, gate: Gate):
        self._body, self._gate, self._held = body, gate, True

    def __iter__(self):
        try:
            yield from self._body
        finally:
            self._leave()

    def close(self):
        try:
            if hasattr(self._body, "close"):
                self._body.close()
        finally:
            self._leave()

    def _leave(self):
        if self._held:
            self._held = False
            self._gate.leave()


class InflightLimit:
    """WSGI middleware: turns beyond the gate's limit get the over-capacity 503."""

    def __init__(self, app, gate: Gate):
        self.app, self.gate = app, gate
        err = OverCapacity(f"the server is answering as many turns as it can ({gate.limit}); "
                           f"try again in {RETRY_AFTER_SECONDS} s")
        self._refusal = json.dumps(err.to_json()).encode()

    def __call__(self, environ, start_response):
        if not _is_turn(environ):
            return self.app(environ, start_response)
        if not self.gate.enter():
            start_response("503 Service Unavailable", [
                ("Content-Type", "application/json"), ("Content-Length", str(len(self._refusal))),
                ("Retry-After", str(RETRY_AFTER_SECONDS))])
            return [self._refusal]
        try:
            body = self.app(environ, start_response)
        except BaseException:
            self.gate.leave()
            raise
        return _Released(body, self.gate)
