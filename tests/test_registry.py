"""The plug-in registries: each provider and embedder declared once, and the
configuration, the factories and the documentation read from the declarations."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from sidecar import config
from sidecar.config import Config
from sidecar.embedders import EMBEDDERS
from sidecar.errors import ConfigError, ProviderNotConfigured
from sidecar.providers import PROVIDERS, make_provider
from sidecar.registry import Registry, Spec

ROOT = Path(__file__).resolve().parent.parent
REGISTRIES = {"provider": PROVIDERS, "embedder": EMBEDDERS}
MASTER_KEY = "A" * 43 + "="
_ROW = re.compile(r"^\| (provider|embedder) \| `([^`]+)` \| `([^`]+)` \| (?:`([A-Z0-9_]+)`|—) \| (?:`([A-Z0-9_]+)`|—) \|$",
                  re.M)


def declared() -> list[tuple[str, str, str, str, str]]:
    return [(kind, s.name, s.default_model, s.key_env, s.base_url_env)
            for kind, registry in REGISTRIES.items() for s in registry]


def load(**env) -> Config:
    return config.load({"RTAC_DATABASE_URL": "mysql+pymysql://u@h/db", "RTAC_MASTER_KEY": MASTER_KEY, **env})


# --- the generic registry -----------------------------------------------------------------

def registry() -> Registry:
    return Registry("widget", [Spec("plain", "sidecar.errors:ConfigError", "m1"),
                               Spec("keyed", "sidecar.errors:NotFound", "m2", key_env="K", base_url_env="U")],
                    default="plain")


def test_a_registry_keeps_the_declared_order_and_loads_a_plug_in_by_name():
    widgets = registry()
    assert widgets.names == ("plain", "keyed") and widgets.default == "plain"
    assert "keyed" in widgets and "other" not in widgets
    from sidecar.errors import NotFound
    assert widgets.load("keyed") is NotFound


def test_an_unknown_name_is_a_configuration_error_naming_the_kind():
    with pytest.raises(ConfigError, match="unknown widget 'other'"):
        registry()["other"]


def test_a_default_that_is_not_declared_is_refused():
    with pytest.raises(ValueError):
        Registry("widget", [Spec("plain", "sidecar.errors:ConfigError", "m1")], default="other")


# --- every plug-in as it declares itself ----------------------------------------------------

@pytest.mark.parametrize("kind,name", [(k, s.name) for k, r in REGISTRIES.items() for s in r])
def test_each_plug_in_class_carries_its_declaration(kind, name):
    spec = REGISTRIES[kind][name]
    cls = spec.load()
    assert cls.name == name
    if kind == "provider":
        assert cls.default_model == spec.default_model


def test_the_registries_name_the_defaults_the_configuration_falls_back_to():
    cfg = load()
    assert (cfg.provider, cfg.embedder) == (PROVIDERS.default, EMBEDDERS.default) == ("offline", "local")


@pytest.mark.parametrize("spec", [s for r in REGISTRIES.values() for s in r if s.key_env], ids=lambda s: s.name)
def test_the_configuration_reads_each_declared_variable(spec):
    cfg = load(**{spec.key_env: "the-key", spec.base_url_env: "http://vendor.test"})
    assert cfg.api_key(spec.name) == "the-key"
    assert cfg.base_urls[spec.name] == "http://vendor.test"
    assert {spec.key_env, spec.base_url_env} <= set(config._KEYS)


def test_with_no_provider_named_the_first_declared_vendor_with_a_key_is_chosen():
    vendors = [s for s in PROVIDERS if s.key_env]
    everyone = {s.key_env: "k" for s in vendors}
    assert load(**everyone).provider == vendors[0].name
    assert load(**{vendors[-1].key_env: "k"}).provider == vendors[-1].name


def test_a_provider_without_its_key_names_the_variable_to_set():
    spec = PROVIDERS["anthropic"]
    with pytest.raises(ProviderNotConfigured, match=spec.key_env):
        make_provider(spec.name, load())


def test_a_provider_that_needs_no_key_is_built_without_one():
    assert make_provider(PROVIDERS.default, load()).name == PROVIDERS.default


# --- the documentation's table ------------------------------------------------------------

@pytest.mark.parametrize("page", ["README.md", "docs/configuration.md"])
def test_the_documented_table_of_providers_and_embedders_is_the_registry(page):
    rows = [tuple(cell or "" for cell in row) for row in _ROW.findall((ROOT / page).read_text(encoding="utf-8"))]
    assert rows == declared()


def test_the_table_reader_sees_a_wrong_default_model():
    text = "| provider | `anthropic` | `claude-old` | `ANTHROPIC_API_KEY` | `ANTHROPIC_BASE_URL` |\n"
    assert _ROW.findall(text) == [("provider", "anthropic", "claude-old", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")]
    assert _ROW.findall(text)[0] not in declared()
