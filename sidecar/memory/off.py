"""Memory turned off (RTAC_MEMORY=off): what a turn asks of memory, answered with
nothing, so the turn asks the same way whether memory is on or not."""
from __future__ import annotations

from sqlalchemy.engine import Connection

from ..query_embedding import QueryEmbedding
from ..reply import Reply
from ..spaces import Space
from .recall import Recalled


class MemoryOff:
    """Recalls nothing, forgets nothing, queues no extraction."""

    def recall(self, conn: Connection, space: Space, message: str,
               embedding: QueryEmbedding | None = None, lang: str = "en") -> Recalled:
        return Recalled()

    def after_reply(self, conn: Connection, space: Space, reply: Reply, recalled: Recalled,
                    lang: str) -> tuple[Reply, list[str]]:
        return reply, []

    def after_store(self, conn: Connection, space: Space, conversation_id: str, seq: int, lang: str) -> None:
        pass

    def notify(self) -> None:
        pass


MEMORY_OFF = MemoryOff()
