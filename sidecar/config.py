"""Configuration, read once at start-up into a typed, immutable object.

Sources, later wins: built-in defaults < the INI file named by RTAC_CONFIG
(section [rtac], keys are the env names lower-cased or not) < the environment.

Master keys: RTAC_MASTER_KEY is the current one: every key wrapped from now on
is wrapped with it. RTAC_MASTER_KEY_PREVIOUS (optional, a comma list of base64
keys) names keys that are still accepted for unwrapping, never for wrapping.
Each wrapped key's row records which master key wrapped it (`key_id`), so a
sidecar opens it with that key or answers a clear, retryable 503. Rotation:
1. on every sidecar set RTAC_MASTER_KEY to the new key and
   RTAC_MASTER_KEY_PREVIOUS to the old one, and restart them;
2. run `rtac rotate-master-key` (re-wraps whatever the old key still wraps);
3. when it reports nothing left under a previous key, drop RTAC_MASTER_KEY_PREVIOUS.
"""
from __future__ import annotations

import base64
import binascii
import configparser
import os
from dataclasses import dataclass, field
from typing import Mapping

from .embedders import EMBEDDERS
from .errors import ConfigError
from .providers import PROVIDERS

# Every plug-in's API key and address variables, as the plug-ins declare them; one
# vendor's provider and embedder share theirs, so each is read once.
_PLUGINS = (*PROVIDERS, *EMBEDDERS)
KEY_ENV = {spec.name: spec.key_env for spec in _PLUGINS if spec.key_env}
BASE_URL_ENV = {spec.name: spec.base_url_env for spec in _PLUGINS if spec.base_url_env}

_KEYS = (
    "RTAC_DATABASE_URL", "RTAC_MASTER_KEY", "RTAC_PROVIDER", "RTAC_MODEL", "RTAC_FALLBACK_PROVIDERS",
    "RTAC_EMBEDDER", "RTAC_EMBEDDING_MODEL", "RTAC_EMBEDDING_BASE_URL",
    *KEY_ENV.values(), *BASE_URL_ENV.values(),
    "RTAC_CONTEXT_CHARS", "RTAC_HISTORY_TURNS", "RTAC_RETENTION_DAYS", "RTAC_MAX_TOKENS",
    "RTAC_PROVIDER_TIMEOUT", "RTAC_MAX_BODY_BYTES", "RTAC_TURN_DEADLINE", "RTAC_PROVIDER_ATTEMPTS",
    "RTAC_MAX_INFLIGHT",
    "RTAC_MEMORY", "RTAC_MEMORY_RECALL_DISTANCE", "RTAC_MEMORY_FORGET_DISTANCE", "RTAC_MEMORY_DEDUP_DISTANCE",
    "RTAC_MEMORY_CAP", "RTAC_RETRIEVAL", "RTAC_MASTER_KEY_PREVIOUS", "RTAC_DAILY_BUDGET_USD",
)
RETRIEVALS = ("hybrid", "fulltext")


@dataclass(frozen=True)
class Config:
    """The settings; a field's default is its setting's, the one `load` falls back to."""

    database_url: str
    master_key: bytes = field(repr=False)
    # Master keys still accepted for unwrapping during a rotation (see the module's notes).
    previous_master_keys: tuple[bytes, ...] = field(default=(), repr=False)
    provider: str = PROVIDERS.default
    model: str = ""  # "" : the provider's default model
    fallback_providers: tuple[str, ...] = ()
    embedder: str = EMBEDDERS.default
    embedding_model: str = ""
    embedding_base_url: str = ""
    api_keys: Mapping[str, str] = field(default_factory=dict, repr=False)
    base_urls: Mapping[str, str] = field(default_factory=dict)
    # Characters of knowledge per turn: pinned entries first, retrieved chunks fill the rest.
    context_chars: int = 24000
    history_turns: int = 6
    retention_days: int = 30
    max_tokens: int = 1024
    provider_timeout: float = 30.0
    # The whole turn's time for vendors, retries and failover included; the plugin's
    # HTTP timeout must be longer.
    turn_deadline: float = 40.0
    provider_attempts: int = 3
    max_body_bytes: int = 2 * 1024 * 1024
    # Turns in flight at once in one server (all its worker processes); beyond it a turn
    # is answered 503 at once (retryable), never queued.
    max_inflight: int = 128
    memory: bool = True
    memory_recall_distance: float = 0.120
    memory_forget_distance: float = 0.125
    memory_dedup_distance: float = 0.12
    memory_cap: int = 1000
    # hybrid: FULLTEXT and the embedder's vectors fused; fulltext: the lexical half alone
    # (no chunk embeddings, no query embedding unless memory needs one).
    retrieval: str = "hybrid"
    # Every site's daily spending cap in USD unless the site has its own; None: no cap.
    daily_budget_usd: float | None = None

    @property
    def embeds(self) -> bool:
        """Whether turns embed the customer's message: for hybrid retrieval or for memory."""
        return self.retrieval == "hybrid" or self.memory

    def api_key(self, provider: str) -> str:
        return self.api_keys.get(provider, "")


def _read_ini(path: str) -> dict[str, str]:
    parser = configparser.ConfigParser()
    parser.optionxform = str.upper  # type: ignore[assignment]
    if not parser.read(path, encoding="utf-8"):
        raise ConfigError(f"RTAC_CONFIG names {path!r}, which cannot be read")
    section = parser["rtac"] if parser.has_section("rtac") else parser[parser.default_section]
    return {k.upper(): v for k, v in section.items()}


def _int(values: Mapping[str, str], key: str, default: int, minimum: int = 0) -> int:
    raw = values.get(key, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{key} must be an integer, got {raw!r}") from None
    if value < minimum:
        raise ConfigError(f"{key} must be at least {minimum}, got {value}")
    return value


def _switch(values: Mapping[str, str], key: str, default: bool) -> bool:
    raw = values.get(key, "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "on", "true", "yes"):
        return True
    if raw in ("0", "off", "false", "no"):
        return False
    raise ConfigError(f"{key} must be on or off, got {raw!r}")


def _positive(values: Mapping[str, str], key: str, default: float) -> float:
    """A positive number (seconds, or a distance)."""
    raw = values.get(key, "").strip()
    try:
        value = float(raw) if raw else default
    except ValueError:
        raise ConfigError(f"{key} must be a number, got {raw!r}") from None
    if value <= 0:
        raise ConfigError(f"{key} must be positive")
    return value


def decode_master_key(raw: str, name: str = "RTAC_MASTER_KEY") -> bytes:
    try:
        key = base64.b64decode(raw.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise ConfigError(f"{name} must be base64 of 32 bytes (try: openssl rand -base64 32)") from None
    if len(key) != 32:
        raise ConfigError(f"{name} must decode to 32 bytes, got {len(key)}")
    return key


def _previous_master_keys(values: Mapping[str, str], current: bytes) -> tuple[bytes, ...]:
    keys = []
    for raw in values.get("RTAC_MASTER_KEY_PREVIOUS", "").split(","):
        if raw.strip():
            key = decode_master_key(raw, "RTAC_MASTER_KEY_PREVIOUS")
            if key != current and key not in keys:
                keys.append(key)
    return tuple(keys)


def _money(values: Mapping[str, str], key: str) -> float | None:
    """An amount in USD, zero or more; unset is None."""
    raw = values.get(key, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{key} must be an amount in US dollars, got {raw!r}") from None
    if not 0 <= value < float("inf"):
        raise ConfigError(f"{key} must be a finite amount, zero or more, got {raw!r}")
    return value


def load(environ: Mapping[str, str] | None = None) -> Config:
    env = dict(os.environ if environ is None else environ)
    values: dict[str, str] = {}
    if env.get("RTAC_CONFIG"):
        values.update(_read_ini(env["RTAC_CONFIG"]))
    values.update({k: v for k, v in env.items() if k in _KEYS})

    database_url = values.get("RTAC_DATABASE_URL", "").strip()
    if not database_url:
        raise ConfigError("RTAC_DATABASE_URL is not set (mysql+pymysql://user:pass@host:port/db)")
    if not values.get("RTAC_MASTER_KEY", "").strip():
        raise ConfigError("RTAC_MASTER_KEY is not set (base64 of 32 bytes; try: openssl rand -base64 32)")
    master_key = decode_master_key(values["RTAC_MASTER_KEY"])

    api_keys = _by_plugin(values, KEY_ENV)
    provider = values.get("RTAC_PROVIDER", "").strip().lower() or default_provider(api_keys)
    if provider not in PROVIDERS:
        raise ConfigError(f"RTAC_PROVIDER must be one of {', '.join(PROVIDERS.names)}, got {provider!r}")
    fallbacks = tuple(p.strip().lower() for p in values.get("RTAC_FALLBACK_PROVIDERS", "").split(",") if p.strip())
    for p in fallbacks:
        if p not in PROVIDERS:
            raise ConfigError(f"RTAC_FALLBACK_PROVIDERS: unknown provider {p!r}")
    embedder = values.get("RTAC_EMBEDDER", "").strip().lower() or EMBEDDERS.default
    if embedder not in EMBEDDERS:
        raise ConfigError(f"RTAC_EMBEDDER must be one of {', '.join(EMBEDDERS.names)}, got {embedder!r}")

    retrieval = values.get("RTAC_RETRIEVAL", "").strip().lower() or Config.retrieval
    if retrieval not in RETRIEVALS:
        raise ConfigError(f"RTAC_RETRIEVAL must be one of {', '.join(RETRIEVALS)}, got {retrieval!r}")

    base_urls = _by_plugin(values, BASE_URL_ENV)
    timeout = _positive(values, "RTAC_PROVIDER_TIMEOUT", Config.provider_timeout)
    deadline = _positive(values, "RTAC_TURN_DEADLINE", Config.turn_deadline)

    return Config(
        database_url=database_url,
        master_key=master_key,
        previous_master_keys=_previous_master_keys(values, master_key),
        provider=provider,
        model=values.get("RTAC_MODEL", "").strip(),
        fallback_providers=fallbacks,
        embedder=embedder,
        embedding_model=values.get("RTAC_EMBEDDING_MODEL", "").strip(),
        embedding_base_url=values.get("RTAC_EMBEDDING_BASE_URL", "").strip(),
        api_keys=api_keys,
        base_urls=base_urls,
        context_chars=_int(values, "RTAC_CONTEXT_CHARS", Config.context_chars, minimum=1000),
        history_turns=_int(values, "RTAC_HISTORY_TURNS", Config.history_turns),
        retention_days=_int(values, "RTAC_RETENTION_DAYS", Config.retention_days, minimum=1),
        max_tokens=_int(values, "RTAC_MAX_TOKENS", Config.max_tokens, minimum=64),
        provider_timeout=timeout,
        turn_deadline=deadline,
        provider_attempts=_int(values, "RTAC_PROVIDER_ATTEMPTS", Config.provider_attempts, minimum=1),
        max_body_bytes=_int(values, "RTAC_MAX_BODY_BYTES", Config.max_body_bytes, minimum=64 * 1024),
        max_inflight=_int(values, "RTAC_MAX_INFLIGHT", Config.max_inflight, minimum=1),
        memory=_switch(values, "RTAC_MEMORY", Config.memory),
        memory_recall_distance=_positive(values, "RTAC_MEMORY_RECALL_DISTANCE", Config.memory_recall_distance),
        memory_forget_distance=_positive(values, "RTAC_MEMORY_FORGET_DISTANCE", Config.memory_forget_distance),
        memory_dedup_distance=_positive(values, "RTAC_MEMORY_DEDUP_DISTANCE", Config.memory_dedup_distance),
        memory_cap=_int(values, "RTAC_MEMORY_CAP", Config.memory_cap, minimum=10),
        retrieval=retrieval,
        daily_budget_usd=_money(values, "RTAC_DAILY_BUDGET_USD"),
    )


def _by_plugin(values: Mapping[str, str], env: Mapping[str, str]) -> dict[str, str]:
    """Plug-in name -> the value of its variable in `env`, for the variables set."""
    return {name: values[key].strip() for name, key in env.items() if values.get(key, "").strip()}


def default_provider(api_keys: Mapping[str, str]) -> str:
    """With no RTAC_PROVIDER: the first vendor (in the registry's order) whose key is
    present, else the offline provider."""
    return next((spec.name for spec in PROVIDERS if spec.key_env and api_keys.get(spec.name)), PROVIDERS.default)
