"""Language knowledge of the sidecar: one module per supported language.

    from sidecar import lang
    lang.get("et").framing      # Estonian framing words
    lang.LANGS                  # every supported language

Each module (en.py, et.py, ru.py, es.py, ko.py) defines `LANGUAGE`, a
base.Language with the same fields. To add a language: write its module (copy one
whose script and grammar are closest) and add its code to _CODES below;
tests/test_lang.py then checks that every field is filled, and a field the language
has nothing for is listed there with its reason. A language written in a Latin or
Cyrillic script with a Snowball stemmer needs nothing more: search, grounding, dedup,
forget, the value and price readers and the offline answer read it from its module.
One read as Korean is (FULLTEXT bigrams, endings stripped without a stemmer, no
capitals: ko.py) also goes through the code paths that test for "ko".

Lookups are by exact code, as the callers pass it (they normalise tags with
sidecar.langs.normalize_lang where a tag comes from outside).
"""
from __future__ import annotations

from importlib import import_module

from .base import Language, as_written, word_starts

# One line per language module. Order is the order the languages are listed in.
_CODES = (
    "en",
    "et",
    "ru",
    "es",
    "ko",
)

LANGS: tuple[Language, ...] = tuple(import_module(f"{__name__}.{code}").LANGUAGE for code in _CODES)
_BY_CODE = {language.code: language for language in LANGS}
ENGLISH = _BY_CODE["en"]


def get(code: str | None) -> Language:
    """The language of `code`, English for a code without a module: stopwords, the
    negation pattern and texts shown to a customer need some language, and English
    is what the sidecar answers in when it knows no better."""
    return _BY_CODE.get(code, ENGLISH)


def find(code: str | None) -> Language | None:
    """The language of `code`, None for a code without a module. For the memory
    checks, where borrowing English word lists would be wrong rather than merely
    unhelpful: a language without a module gets no framing or value words, so its
    facts are checked more strictly, never more loosely."""
    return _BY_CODE.get(code)


__all__ = ["ENGLISH", "LANGS", "Language", "as_written", "find", "get", "word_starts"]
