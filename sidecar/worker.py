"""A background thread that drains a queue kept in the database.

Memory extraction and chunk embedding both queue their work in the request's own
transaction and do it off the visitor's clock. The thread is started on first use,
never at import: a forked server worker (gunicorn --preload) does not inherit its
parent's threads, and the parent, which serves nothing, should not work the queue.
A failing pass (the database away) is logged and retried at the next wake-up or
poll; work is never lost, because it stays queued until a pass succeeds.
"""
from __future__ import annotations

import logging
import threading
from typing import Callable

from sqlalchemy.exc import DBAPIError

log = logging.getLogger("rtac")


class Worker:
    def __init__(self, name: str, step: Callable[[], int], *, poll: float):
        """`step` does one batch and returns how much it did (0: nothing left)."""
        self.name, self.step, self.poll = name, step, poll
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._start = threading.Lock()
        self._thread: threading.Thread | None = None

    def ensure_running(self) -> None:
        """Start the thread of this process if it is not running (cheap when it is)."""
        if self._thread is not None and self._thread.is_alive():
            return
        with self._start:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
                self._thread.start()

    def notify(self) -> None:
        """New work is queued: wake the thread now rather than at its next poll."""
        self.ensure_running()
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                while not self._stop.is_set() and self.step():
                    pass
            except DBAPIError as exc:  # the database away or busy: the work stays queued
                log.warning("%s: pass left to the next wake-up, the database failed: %s", self.name,
                            str(exc.orig if exc.orig is not None else exc).splitlines()[0])
            except Exception:  # anything else is a fault worth its traceback
                log.exception("%s", self.name)
            self._wake.wait(timeout=self.poll)
            self._wake.clear()
