"""Plug-ins of one kind (chat providers, embedders), each declared once by a `Spec`.

A spec says what the rest of the sidecar needs to know without loading the plug-in:
its name, its default model and the environment variables of its API key and of
another address for its API. The configuration reads its variables from the specs,
`rtac doctor` names them, and the README's table of plug-ins is checked against them.
The plug-in's own module, and with it its vendor's SDK, is imported only when the
plug-in is used.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Iterable, Iterator

from .errors import ConfigError


@dataclass(frozen=True)
class Spec:
    name: str
    target: str  # "package.module:Class", imported on first use
    default_model: str
    key_env: str = ""  # "" when the plug-in needs no key
    base_url_env: str = ""  # "" when it calls no API

    def load(self) -> type:
        module, _, attr = self.target.partition(":")
        return getattr(import_module(module), attr)


class Registry:
    """The plug-ins of one kind, in the order they are declared. `default` is the one
    used when the configuration names none."""

    def __init__(self, kind: str, specs: Iterable[Spec], default: str):
        self.kind = kind
        self._specs = {spec.name: spec for spec in specs}
        if default not in self._specs:
            raise ValueError(f"the default {kind} {default!r} is not declared")
        self.default = default

    def __iter__(self) -> Iterator[Spec]:
        return iter(self._specs.values())

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __getitem__(self, name: str) -> Spec:
        try:
            return self._specs[name]
        except KeyError:
            raise ConfigError(f"unknown {self.kind} {name!r}") from None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._specs)

    def load(self, name: str) -> type:
        return self[name].load()
