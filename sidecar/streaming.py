"""A streamed turn: the same turn as `turn.chat_turn`, with the reply released to the
visitor sentence by sentence as the model writes it.

The model's raw output is JSON; the `reply` field is read out of it as it grows, cut
into complete sentences, and each sentence is released only after the price check
has passed (or repaired) it, so no unchecked amount is ever sent. The last event is
`done` with the whole response of a plain turn, stored and counted exactly like one;
its `reply` is authoritative. Retries and failover happen before the first piece;
a vendor failing after it ends the stream with the offline answer (`degraded`).

A visitor who closes the connection does not lose the turn: the rest of the answer
is read and the turn is stored all the same.
"""
from __future__ import annotations

import json
import logging
from typing import Iterator

from .errors import RtacError, StreamBroken, error_body
from .price_check import PriceCheck, SentenceSplitter
from .providers.base import ChatResult
from .reply import MAX_REPLY_CHARS, clean_text
from .reply_stream import ReplyFieldReader
from .services import Services
from .sites import Site
from .turn import PreparedTurn, decide, finish, prepare, vendor_allowed
from .validation import ChatInput

log = logging.getLogger("rtac.streaming")

CONTENT_TYPE = "text/event-stream"


def event(name: str, data: dict) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def wants_stream(accept: str | None) -> bool:
    return CONTENT_TYPE in (accept or "").lower()


class Released:
    """The text sent so far, with whitespace at either end held back: the final reply
    is stripped, and the pieces must add up to it exactly."""

    def __init__(self):
        self.sent = ""
        self._held = ""

    def add(self, text: str) -> str:
        if not self.sent:
            text = text.lstrip()
        body = text.rstrip()
        if not body:
            self._held += text if self.sent else ""
            return ""
        piece = self._held + body
        self._held = text[len(body):]
        self.sent += piece
        return piece

    def rest(self, final: str) -> str:
        """What the authoritative reply adds after what was sent (e.g. a forgotten
        memory read back), when it extends it."""
        return final[len(self.sent):] if final.startswith(self.sent) else ""


class StreamedTurn:
    def __init__(self, svc: Services, site: Site, inp: ChatInput):
        self.svc = svc
        # Before the first byte: a bad request or an unknown space is still a plain 4xx.
        self.turn: PreparedTurn = prepare(svc, site, inp)

    def events(self) -> Iterator[str]:
        run = self._run()
        try:
            for piece in run:  # not `yield from`: that would close `run` with this generator
                yield piece
        except GeneratorExit:
            for _ in run:  # the visitor left: the turn still completes and is stored
                pass
            raise

    def _run(self) -> Iterator[str]:
        svc, turn = self.svc, self.turn
        released = Released()
        try:
            result = yield from self._model(released)
            reply, result, corrections = decide(svc, turn, result)
            body = finish(svc, turn, reply, result, corrections)
        except RtacError as exc:
            log.warning("streamed turn failed after it began: %s", exc.message)
            yield event("error", exc.to_json())
            return
        except Exception:
            log.exception("streamed turn failed after it began")
            yield event("error", error_body("internal", "the answer could not be completed", retryable=True))
            return
        tail = released.rest(body["reply"])
        if tail:
            yield event("delta", {"text": tail})
        yield event("done", body)

    def _model(self, released: Released):
        """Yield checked deltas as the model writes; return its whole result."""
        svc, turn = self.svc, self.turn
        if not vendor_allowed(svc, turn):
            return svc.chain.offline.chat(turn.request)
        check = PriceCheck(turn.packed.pinned, turn.packed.retrieved, turn.inp.lang)
        reader, splitter = ReplyFieldReader(), SentenceSplitter()
        stream = svc.chain.stream(turn.request)
        try:
            for piece in stream:
                for sentence in splitter.feed(clean_text(reader.feed(piece))):
                    if len(released.sent) >= MAX_REPLY_CHARS:
                        continue  # past the clamp only `done` tells the rest; read on to the end
                    text = released.add(check.sentence(sentence).text)
                    if text:
                        yield event("delta", {"text": text})
            return stream.result
        except StreamBroken as exc:
            log.warning("vendor failed mid-stream: %s", exc.message)
            return self._offline()
        finally:
            stream.close()

    def _offline(self) -> ChatResult:
        return self.svc.chain.offline.chat(self.turn.request)
