"""The provider registry: every chat provider's declaration, and a name from
RTAC_PROVIDER (or RTAC_FALLBACK_PROVIDERS) to a configured provider."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..registry import Registry, Spec
from .base import Provider

if TYPE_CHECKING:
    from ..config import Config

PROVIDERS = Registry("provider", [
    # Not on the SDK's deprecation list (anthropic/_data/deprecated_models.py); answers
    # without extended thinking eating into max_tokens; caches from 1,024 tokens, so a
    # small business's pinned knowledge is cacheable; and its list price is published.
    Spec("anthropic", "sidecar.providers.anthropic:AnthropicProvider", "claude-sonnet-4-6",
         key_env="ANTHROPIC_API_KEY", base_url_env="ANTHROPIC_BASE_URL"),
    # The current cost tier for high-volume, well-scoped work (a chat widget is exactly
    # that); not on the deprecation list of the SDK's ChatModel literal.
    Spec("openai", "sidecar.providers.openai:OpenAIProvider", "gpt-6-luna",
         key_env="OPENAI_API_KEY", base_url_env="OPENAI_BASE_URL"),
    # The SDK's own reference model and a GA Flash: the fast, cheap tier a chat needs.
    Spec("gemini", "sidecar.providers.gemini:GeminiProvider", "gemini-3.8-flash",
         key_env="GEMINI_API_KEY", base_url_env="RTAC_GEMINI_BASE_URL"),
    # No model: answers are quoted from the site's own knowledge.
    Spec("offline", "sidecar.providers.offline:OfflineProvider", "offline"),
], default="offline")


def make_provider(name: str, config: Config) -> Provider:
    """Vendor SDKs are imported only for the providers in use."""
    spec = PROVIDERS[name]
    cls = spec.load()
    if not spec.key_env:
        return cls()
    return cls(api_key=config.api_key(name), base_url=config.base_urls.get(name), timeout=config.provider_timeout)
