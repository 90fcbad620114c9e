"""How often a fact says a thing happens, read as one value.

Customers say one frequency many ways: "every two weeks", "fortnightly", "every
fortnight"; "раз в полгода" and "каждые шесть месяцев"; "una vez al mes" and
"mensual"; "kaks korda nädalas"; "2주마다". Read word by word, those are a number
and a thing ("week"), or a value word, different in each wording, and dedup kept
two facts saying the same thing at the same frequency apart ("Has the car washed
every fortnight." / "… every two weeks."), and could not tell a changed frequency
("every six months" / "once a year") from a different thing. Here each becomes one
value, the period in days between two occurrences ("F14", "F182.6"), and its words
are taken out of the fact's thing words: two facts differing only in how often
state one value changed.

The words are the language's (sidecar.lang: period_units, period_words, every_words,
every_after, times_words, per_words, period_counts); the rule is one for every language:
- a word that alone says how often ("weekly", "ежегодно", "매주");
- a period ("week", "6 weeks") with a word for "every" before it ("every", "каждые",
  "cada", "iga") or after it (Estonian "tagant", Korean "-마다");
- a period with a count of times before or after it ("twice a week", "два раза в
  неделю", "una vez al mes", "nädalas kaks korda", "주 2회", "하루 세 번");
- a period after an amount and a per word ("50 mg a day", "50 mg al día"): so much
  each period.
A period said with none of these ("for six weeks", "in three months") is no frequency.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

from .. import lang as languages
from ..lang.base import MONTH, WEEK, WHOLE, YEAR
from .values import strip_accents, weekday_of

_TOKEN = re.compile(r"\d+(?:[.,]\d+)?|[^\W\d_]+")
GLUED = "-"  # before an every_after item: the end of the period's own word ("주마다")
PREFIX = "F"  # of a frequency's value atom
# Periods people round to: a period within _SNAP of one is that one ("cada quince días",
# every fifteen days, is the Spanish fortnight; "раз в полтора месяца", every month and a
# half, is every six weeks; "every 4 weeks" is monthly).
_COMMON = (1.0, WEEK, 2 * WEEK, 3 * WEEK, MONTH, 6 * WEEK, 2 * MONTH, YEAR / 4, YEAR / 2, YEAR)
_SNAP = 0.1
_AMOUNT = 4  # at most this many words back from a per word to the amount it is of
_BETWEEN = 2  # at most this many `per_words` between a count of times or an "every" and its period


@dataclass(frozen=True)
class Frequencies:
    atoms: frozenset[str]  # "F7", "F182.6": the period in days between two occurrences
    spans: tuple[tuple[int, int], ...]  # where they are said, to be blanked from the thing words


class _Words:
    """A language's frequency words, folded as the tokens are."""

    def __init__(self, own: languages.Language):
        self.fold_accents = own.fold_accents
        self.units = _items(own.period_units, self.fold)
        self.words = _items(own.period_words, self.fold)
        self.every = _items(dict.fromkeys(own.every_words, 1), self.fold)
        self.after = _items({w: 1 for w in own.every_after if not w.startswith(GLUED)}, self.fold)
        self.glued = tuple(self.fold(w[len(GLUED):]) for w in own.every_after if w.startswith(GLUED))
        self.times = _items(own.times_words, self.fold)
        self.per = _items(dict.fromkeys(own.per_words, 1), self.fold)
        self.numbers = {self.fold(w): n for w, n in {**own.number_words, **own.counted_number_words}.items()}
        self.counts = _items(own.period_counts, self.fold)
        self.connectors = frozenset(self.fold(w) for w in own.number_connectors)
        self.lang = own.code

    def fold(self, word: str) -> str:
        word = word.casefold()
        return strip_accents(word) if self.fold_accents else word


def _items(mapping: Mapping[str, float], fold) -> tuple[tuple[str, bool, float], ...]:
    """(folded item, whole word only, its value), longest first: the first that matches is taken."""
    out = [(fold(languages.as_written(w)), w.endswith(WHOLE), float(v)) for w, v in mapping.items()]
    return tuple(sorted(out, key=lambda x: len(x[0]), reverse=True))


def _lookup(token: str, items: tuple[tuple[str, bool, float], ...]) -> float | None:
    for item, whole, value in items:
        if token == item or (not whole and token.startswith(item)):
            return value
    return None


@lru_cache(maxsize=16)
def _words_of(lang: str) -> _Words | None:
    own = languages.find(lang)
    return _Words(own) if own is not None else None


def atom(days: float) -> str:
    for common in _COMMON:
        if abs(days - common) <= _SNAP * common:
            days = common
            break
    return f"{PREFIX}{round(days, 1):g}"


class _Token:
    """A word or a number of the text, read once for every role it may play in a frequency."""

    def __init__(self, text: str, start: int, end: int, words: _Words):
        self.start, self.end = start, end
        folded = words.fold(text)
        self.glued = next((g for g in words.glued if folded.endswith(g) and len(folded) > len(g)), None)
        stem = folded[:-len(self.glued)] if self.glued else folded
        self.count_word = _lookup(folded, words.counts)  # "half", "other": a count only inside a frequency
        self.number = _number(folded, words) if self.count_word is None else self.count_word
        self.connector = folded in words.connectors
        self.unit = _lookup(stem, words.units)
        # A weekday is a week's period after "every" ("every other Friday"), and stays a value.
        self.weekday = self.unit is None and weekday_of(text, words.lang) is not None
        self.word = _lookup(folded, words.words)
        self.every = _lookup(folded, words.every) is not None
        self.after = _lookup(folded, words.after) is not None
        self.times = _lookup(folded, words.times)
        self.per = _lookup(folded, words.per) is not None


def _number(token: str, words: _Words) -> float | None:
    if token[:1].isdigit():
        try:
            return float(token.replace(",", "."))
        except ValueError:
            return None
    n = words.numbers.get(token)
    return float(n) if n is not None else None


def read(text: str, lang: str) -> Frequencies:
    """The frequencies `text` states, and where."""
    words = _words_of(lang)
    if words is None:
        return Frequencies(frozenset(), ())
    tokens = [_Token(m.group(), m.start(), m.end(), words) for m in _TOKEN.finditer(text)]
    found: list[tuple[float, int, int]] = []  # (days, first token, last token)
    used: set[int] = set()
    for i, t in enumerate(tokens):
        if i in used:
            continue
        if t.word is not None:
            found.append((t.word, i, i))
            used.add(i)
            continue
        if t.weekday:
            got = _every_weekday(tokens, i)
        elif t.unit is None or (t.number is not None and i + 1 < len(tokens) and tokens[i + 1].unit is not None):
            continue  # "kuue nädala": "kuue" (six) is the count of the period after it, not a month
        else:
            got = _around(tokens, i)
        if got is not None:
            found.append(got)
            used.update(range(got[1], got[2] + 1))
    return Frequencies(frozenset(atom(days) for days, _, _ in found),
                       tuple((tokens[a].start, tokens[b].end) for _, a, b in found))


def _skip_per(tokens: list[_Token], k: int, step: int) -> int:
    """From k, past up to _BETWEEN per words in the direction of `step`."""
    for _ in range(_BETWEEN):
        if 0 <= k < len(tokens) and tokens[k].per:
            k += step
    return k


def _every_weekday(tokens: list[_Token], i: int) -> tuple[float, int, int] | None:
    """The frequency a weekday at token i makes with "every" before it, a count between
    ("every Friday", "every other Friday", "igal teisel reedel"); its span leaves the
    weekday, a value of its own, out."""
    count, first = 1.0, i
    if i > 0 and tokens[i - 1].number is not None:
        count, first = tokens[i - 1].number, i - 1
    if first == 0 or not tokens[first - 1].every or count <= 0:
        return None
    return count * WEEK, first - 1, i - 1


def _around(tokens: list[_Token], i: int) -> tuple[float, int, int] | None:
    """The frequency the period at token i makes with the words around it, if any."""
    unit = tokens[i]
    count, first, last = 1.0, i, i
    if i > 0 and tokens[i - 1].number is not None:
        count, first = tokens[i - 1].number, i - 1  # "six weeks", "한 달"
    times, frequent = 1.0, unit.glued is not None
    k = _skip_per(tokens, first - 1, -1)
    if 0 <= k and tokens[k].every:
        frequent, first = True, k
    elif 0 <= k and tokens[k].times is not None:  # "twice a week", "два раза в неделю"
        times, first = tokens[k].times, k
        if k > 0 and tokens[k - 1].number is not None:
            times, first = tokens[k - 1].number * tokens[k].times, k - 1
        frequent = True
    elif first > 0 and tokens[first - 1].per and any(
            tokens[j].number is not None for j in range(max(0, first - 1 - _AMOUNT), first - 1)):
        frequent, first = True, first - 1  # so much a period: "50 mg a day", "50 mg de levotiroxina al día"
    k = _skip_per(tokens, i + 2, 1)
    if i + 1 < len(tokens) and tokens[i + 1].connector and k < len(tokens) and (tokens[k].count_word or 1) < 1:
        count, last = count + tokens[k].count_word, k  # "mes y medio", "a week and a half"
    if last + 1 < len(tokens) and tokens[last + 1].after:
        frequent, last = True, last + 1  # "iga kuue nädala tagant"
    elif times == 1.0:  # "nädalas kaks korda", "주 2회", "하루 세 번"
        k = _skip_per(tokens, last + 1, 1)
        if k + 1 < len(tokens) and tokens[k].number is not None and tokens[k + 1].times is not None:
            times, last, frequent = tokens[k].number * tokens[k + 1].times, k + 1, True
        elif k < len(tokens) and tokens[k].times is not None and tokens[k].number is None:
            times, last, frequent = tokens[k].times, k, True  # "하루 한 번": the count of times after the period
    if not frequent or times <= 0 or count <= 0:
        return None
    return count * unit.unit / times, first, last
