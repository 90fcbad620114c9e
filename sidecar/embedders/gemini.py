"""Gemini embeddings (batchEmbedContents) through the official google-genai SDK.

- Default model gemini-embedding-001: Google's GA text embedding model (100+
  languages), which takes `task_type`; rtac asks for SEMANTIC_SIMILARITY (symmetric:
  facts and messages alike) at 768 dimensions, one of the sizes Google recommends
  (768, 1536, 3072). Below 3072 its vectors are not unit length: rows are normalised.
- gemini-embedding-2 (multimodal) takes no `task_type`; its task is written into the
  text instead ("task: sentence similarity | query: ..."), which is done here for it.
- Each text is its own Content: the SDK merges a plain list of strings into ONE
  multi-part content for multimodal models (one vector for the whole batch).
- One request per batch (the API takes up to 100 texts a request); RTAC_GEMINI_BASE_URL
  honoured; SDK retries off; errors become EmbeddingError, retryable by the rule of
  every vendor error (sidecar.errors.retryable_status).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from google.genai import errors as genai_errors
from google.genai import types

from ..providers.gemini import make_client
from ..providers.transport import TRANSPORT_ERRORS  # httpx errors the SDK lets through
from . import EMBEDDERS
from .base import MAX_EMBED_CHARS, EmbeddingError, empty, normalize_rows, prepare

SPEC = EMBEDDERS["gemini"]
DEFAULT_MODEL = SPEC.default_model
DEFAULT_DIM = 768
TASK_TYPE = "SEMANTIC_SIMILARITY"
# gemini-embedding-2's way of saying SEMANTIC_SIMILARITY, symmetric like it.
TASK_PREFIX = "task: sentence similarity | query: "


def takes_task_type(model: str) -> bool:
    """gemini-embedding-001 (and the older text models) take `task_type`; the
    multimodal gemini-embedding-2 family expects the task in the text."""
    model_id = model.rsplit("/", 1)[-1]
    return "gemini" not in model_id or model_id.startswith(("gemini-embedding-001", "gemini-embedding-exp"))


class GeminiEmbedder:
    name = SPEC.name

    def __init__(self, api_key: str, base_url: str | None = None, model: str = "",
                 timeout: float = 10.0, dim: int = DEFAULT_DIM):
        if not api_key:
            raise EmbeddingError(self.name, f"no API key configured ({SPEC.key_env})", retryable=False)
        self.model = model or DEFAULT_MODEL
        self.dim = dim
        self._task_type = takes_task_type(self.model)
        self._client = make_client(api_key, base_url, timeout)

    def embed(self, texts: Sequence[str], *, limit: int = MAX_EMBED_CHARS) -> np.ndarray:
        batch = prepare(self.name, texts, limit)
        if not batch:
            return empty(self.dim)
        if not self._task_type:
            batch = [TASK_PREFIX + text for text in batch]
        config = types.EmbedContentConfig(
            task_type=TASK_TYPE if self._task_type else None,
            output_dimensionality=self.dim,
        )
        contents = [types.Content(role="user", parts=[types.Part(text=text)]) for text in batch]
        try:
            response = self._client.models.embed_content(model=self.model, contents=contents, config=config)
        except genai_errors.APIError as e:  # ClientError and ServerError included
            raise EmbeddingError(self.name, f"HTTP {e.code} {e.status}: {e.message}", http_status=e.code) from e
        except TRANSPORT_ERRORS as e:  # timeouts and connection errors
            raise EmbeddingError(self.name, f"{type(e).__name__}: {e}") from e
        except ValueError as e:  # e.g. a body the SDK cannot parse
            raise EmbeddingError(self.name, f"{type(e).__name__}: {e}", retryable=False) from e

        embeddings = response.embeddings or []
        if len(embeddings) != len(batch):
            raise EmbeddingError(self.name, f"malformed response: {len(embeddings)} embeddings for "
                                 f"{len(batch)} texts", retryable=False)
        return normalize_rows(self.name, [e.values or [] for e in embeddings], expected=self.dim)
