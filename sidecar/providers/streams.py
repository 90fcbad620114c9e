"""One `ChatStream` implementation for every provider.

A provider supplies a generator that talks to its vendor: it yields the raw text
pieces, fills in the result's usage and model as the vendor reports them, and raises
ProviderError. This class adds what is the same for all of them: the text joined into
`result`, nothing sent before iteration begins, a failure after the first piece turned
into StreamBroken, and `close()`.
"""
from __future__ import annotations

from typing import Callable, Iterator

from ..errors import ProviderError, StreamBroken
from .base import ChatResult

Pieces = Callable[[ChatResult], Iterator[str]]


class VendorStream:
    def __init__(self, result: ChatResult, pieces: Pieces):
        self.result = result
        # A generator: calling it sends nothing until the first next().
        self._pieces = pieces(result)
        self._run = self._iterate()
        self.started = False  # a piece has been yielded

    def __iter__(self) -> Iterator[str]:
        return self._run

    def _iterate(self) -> Iterator[str]:
        parts: list[str] = []
        try:
            for piece in self._pieces:
                if not piece:
                    continue
                parts.append(piece)
                self.started = True
                yield piece
        except StreamBroken:
            raise
        except ProviderError as exc:
            if not self.started:
                raise
            raise StreamBroken(exc, "".join(parts)) from exc
        finally:
            self.result.text = "".join(parts)
            self._pieces.close()  # left early: the vendor's response is closed with it

    def close(self) -> None:
        self._run.close()
        self._pieces.close()  # when iteration never began, the line above runs nothing


def whole(result: ChatResult) -> VendorStream:
    """An answer that exists in full already, streamed as one piece."""
    text = result.text

    def pieces(_: ChatResult) -> Iterator[str]:
        yield text

    return VendorStream(ChatResult("", result.usage, result.provider, result.model, result.degraded), pieces)
