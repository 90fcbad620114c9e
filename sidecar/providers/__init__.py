"""The provider registry: a name from RTAC_PROVIDER to a configured provider."""
from __future__ import annotations

from importlib import import_module

from ..config import Config
from ..errors import ConfigError
from .base import Provider

_CLASSES = {
    "anthropic": ("sidecar.providers.anthropic", "AnthropicProvider"),
    "openai": ("sidecar.providers.openai", "OpenAIProvider"),
    "gemini": ("sidecar.providers.gemini", "GeminiProvider"),
    "offline": ("sidecar.providers.offline", "OfflineProvider"),
}


def provider_class(name: str):
    try:
        module, cls = _CLASSES[name]
    except KeyError:
        raise ConfigError(f"unknown provider {name!r}") from None
    return getattr(import_module(module), cls)


def make_provider(name: str, config: Config) -> Provider:
    """Vendor SDKs are imported only for the providers in use."""
    cls = provider_class(name)
    if name == "offline":
        return cls()
    return cls(api_key=config.api_key(name), base_url=config.base_urls.get(name), timeout=config.provider_timeout)
