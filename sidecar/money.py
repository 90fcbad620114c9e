"""Amounts of money in text: a number with a currency sign, code or word.

    find_money("Täishooldus maksab 1 200,50 eurot", "et")
    -> [Amount(Decimal("1200.50"), "EUR", (19, 33))]
    find_money("от 40 до 60 евро", "ru")  -> [Range(Decimal(40), Decimal(60), "EUR", (3, 16))]

What counts as money:
- a number in any of the usual formats: "1200", "1 200" (space, no-break or narrow
  no-break space between thousands), "1.200,50", "1,200.50", "45,-". A separator
  followed by exactly three digits groups thousands, one followed by one or two
  digits is the decimal mark: prices are not written with three decimals, so
  "1.200" is twelve hundred in every language;
- optionally scaled ("1.5k", "5 тыс.", "4만", "3만5천", "1억 2천만"), the scale words
  being the language's (sidecar.lang money_scales);
- with a currency: a sign or a code before or after it (€45, 45 €, EUR 45, 45EUR,
  ₩12,000), or a currency word of the language after it (45 eurot, 45 евро, 12,000원);
- two such numbers joined by a dash or a tilde, or by the language's range words
  ("from … to", "от … до", "… kuni", "4만 원에서 6만 원"), with one currency, are one
  range; the currency may be written once ("40–60 €", "€40–60").

A number without a currency is not money, and neither is a number that is part of a
time ("10:00", "10.30" is money only with a currency), a date ("1.03.2026", "1/3"),
a phone number ("+372 5555 0101"), a code glued to letters ("M8100", "XT-8100") or a
percentage.

Without a module for its language, text is read with the signs and codes alone.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Mapping

from . import lang as languages

# Signs stand for one currency wherever they are written. "¥" and "kr" are left out:
# each is several currencies.
SIGNS = {"€": "EUR", "US$": "USD", "$": "USD", "£": "GBP", "₽": "RUB", "₩": "KRW", "￦": "KRW"}
# Codes count in capitals only: in lower case several are words ("sek" is an Estonian
# second). A language that writes a code in lower case lists it as a currency word.
CODES = tuple("EUR USD GBP RUB KRW CHF SEK NOK DKK PLN CZK HUF UAH JPY CNY CAD AUD".split())

_SPACE = "[^\\S\\r\\n]?"  # at most one space, never a line break
_GROUP = "[ \u00a0\u202f\u2009'’.,]"
_HANGUL = "\uac00-\ud7a3"
# Not letters (of any script but Hangul: Korean glues numbers to words, "총3만원"),
# not inside a decimal, time, date or phone number, not a code like "XT-8100".
_NUMBER_START = f"(?<![^\\W{_HANGUL}])(?<![.,:/+])(?<![^\\W\\d_]-)"
_NUMBER = (
    f"(?P<num>(?:\\d{{1,3}}(?P<g>{_GROUP})\\d{{3}}(?:(?P=g)\\d{{3}})*|\\d+)"
    "(?:[.,](?:\\d{1,2}(?!\\d)|[-–](?![-–\\d])))?)"
    "(?![.,:/]?\\d)"
)
_DECIMALS = re.compile(r"[.,](\d{1,2})$")
_DIGIT = re.compile(r"\d")
_NOT_DIGITS = re.compile(r"\D+")
_DASHES = "[-–—~〜～]"
# A Latin or Cyrillic word ends here; Korean particles may follow ("45 KRW입니다").
_NOT_AFTER_WORD = f"(?![^\\W\\d_{_HANGUL}])"


@dataclass(frozen=True)
class Amount:
    value: Decimal
    currency: str  # ISO 4217 code
    span: tuple[int, int]


@dataclass(frozen=True)
class Range:
    low: Decimal
    high: Decimal
    currency: str
    span: tuple[int, int]


Money = Amount | Range


@dataclass(frozen=True)
class Figure:
    """A number or a range as read, currency or not: what the price check's own
    knowledge is read as (a bare number there may take a currency from its line)."""

    low: Decimal
    high: Decimal
    currency: str | None
    start: int
    end: int

    @property
    def is_range(self) -> bool:
        return self.low != self.high

    def money(self) -> Money | None:
        if self.currency is None:
            return None
        if self.is_range:
            return Range(self.low, self.high, self.currency, (self.start, self.end))
        return Amount(self.low, self.currency, (self.start, self.end))


@dataclass
class _Read:
    """One number as matched, before scales are combined and ranges are joined."""

    value: Decimal
    scale: int  # 1 without a scale word
    pre: str | None
    post: str | None
    start: int
    end: int

    @property
    def currency(self) -> str | None:
        return self.pre or self.post


def _alternation(items) -> str:
    return "|".join(re.escape(i) for i in sorted(items, key=len, reverse=True))


def words_alternation(items) -> str:
    """Words as whole words, for a pattern: a Latin or Cyrillic word must end where it
    ends; a Hangul one may carry particles ("원입니다")."""
    parts = []
    for item in sorted(items, key=len, reverse=True):
        glued = bool(re.search(f"[{_HANGUL}]$", item))
        parts.append(re.escape(item) + ("" if glued or not item[-1].isalpha() else _NOT_AFTER_WORD))
    return "|".join(parts)


class Scales:
    """Scale words after a number ("1.5k", "5 тыс.", "3만5천"): written one after another
    they multiply ("2천만" = 2 × 1000 × 10 000)."""

    def __init__(self, scales: Mapping[str, int]):
        self.values = {w.casefold(): n for w, n in scales.items()}
        one = f"(?i:{words_alternation(self.values)})"
        # One or more scale words in a row, as pattern text ("" without any).
        self.run = f"{one}+" if self.values else ""
        self._word = re.compile(one) if self.values else None

    def factor(self, run: str) -> int:
        """What the scale words of `run` (as `self.run` matched it) multiply by."""
        factor = 1
        for word in self._word.findall(run) if self._word else ():
            factor *= self.values[word.casefold()]
        return factor


class Grammar:
    """The patterns of one language (or of none: signs and codes only)."""

    def __init__(self, language: languages.Language | None):
        words = {w.casefold(): code for w, code in (language.currency_words if language else {}).items()}
        self.words = words
        self.scales = Scales(language.money_scales if language else {})
        codes = _alternation(CODES)
        signs = _alternation(SIGNS)
        pre = f"(?P<pre>{signs}|(?<![^\\W\\d_])(?:{codes})(?!\\w))"
        post_words = f"|(?i:{words_alternation(words)})" if words else ""
        post = f"(?P<post>{signs}|(?:{codes}){_NOT_AFTER_WORD}{post_words})"
        scale = f"(?:{_SPACE}(?P<scale>{self.scales.run}))?" if self.scales.run else ""
        # The lookahead first: the whole pattern is tried only where a figure can begin.
        self.figure = re.compile(
            f"(?=[\\d{''.join(re.escape(c) for c in SIGNS if len(c) == 1)}A-Z])"
            f"(?:{pre}{_SPACE}|{_NUMBER_START}){_NUMBER}{scale}(?:{_SPACE}{post})?")
        # A currency standing on its own ("Hind (€)", "hinnad eurodes"): for a price
        # list whose numbers are written bare.
        free_words = "|".join(
            (f"(?<![{_HANGUL}])" if re.search(f"[{_HANGUL}]", w) else "(?<![^\\W\\d_])")
            + f"(?:{words_alternation([w])})" for w in words)
        self.free_currency = re.compile(f"(?P<sign>{signs})|(?<![^\\W\\d_])(?P<code>{codes})(?!\\w)"
                                        + (f"|(?P<word>(?i:{free_words}))" if words else ""))
        joiners, paired = [_DASHES], []
        for pattern in (language.range_words if language else ()):
            opener, _, joiner = (p.strip() for p in pattern.partition("…"))
            if opener:
                paired.append((re.compile(f"(?<!\\w)(?i:{re.escape(opener)}){_SPACE}$"),
                               re.compile(f"{_SPACE}(?i:{re.escape(joiner)}){_SPACE}")))
            else:
                joiners.append(f"(?i:{re.escape(joiner)})")
        self.joiner = re.compile(f"{_SPACE}(?:{'|'.join(joiners)}){_SPACE}")
        self.paired = tuple(paired)

    def currency_of(self, sign_or_word: str) -> str:
        if sign_or_word in SIGNS:
            return SIGNS[sign_or_word]
        if sign_or_word in CODES:
            return sign_or_word
        return self.words[sign_or_word.casefold()]

    def _read(self, m: re.Match) -> _Read:
        raw = m.group("num")
        if raw[-1] in "-–":  # "45,-": no cents
            raw = raw[:-2]
        decimals = _DECIMALS.search(raw)
        whole = raw[:decimals.start()] if decimals else raw
        value = Decimal(_NOT_DIGITS.sub("", whole) + ("." + decimals.group(1) if decimals else ""))
        scale = self.scales.factor(m.group("scale")) if self.scales.run and m.group("scale") else 1
        pre, post = m.group("pre"), m.group("post")
        return _Read(value * scale, scale, self.currency_of(pre) if pre else None,
                     self.currency_of(post) if post else None, m.start(), m.end())

    def figures(self, text: str) -> list[Figure]:
        if not _DIGIT.search(text):
            return []
        reads = _combine_scales(text, [self._read(m) for m in self.figure.finditer(text)])
        return self._ranges(text, reads)

    def _ranges(self, text: str, reads: list[_Read]) -> list[Figure]:
        out: list[Figure] = []
        i = 0
        while i < len(reads):
            a = reads[i]
            b = reads[i + 1] if i + 1 < len(reads) else None
            if b is not None and self._joined(text, a, b):
                low = a.value
                if a.scale == 1 and b.scale > 1 and a.value * b.scale < b.value:
                    low = a.value * b.scale  # "4~6만 원", "$1-2k": the scale is written once
                currency = a.currency or b.currency
                if (a.currency is None or b.currency is None or a.currency == b.currency) and low < b.value:
                    out.append(Figure(low, b.value, currency, a.start, b.end))
                    i += 2
                    continue
            out.append(Figure(a.value, a.value, a.currency, a.start, a.end))
            i += 1
        return out

    def _joined(self, text: str, a: _Read, b: _Read) -> bool:
        if a.pre is None and a.post is not None and b.pre is not None:
            return False  # "45 € – €60" is two prices written two ways, not one range
        gap = text[a.end:b.start]
        if self.joiner.fullmatch(gap):
            return True
        before = text[max(0, a.start - 24):a.start]
        return any(j.fullmatch(gap) and o.search(before) for o, j in self.paired)

    def free_currencies(self, text: str, taken: list[Figure]) -> set[str]:
        """Currencies named in text outside any of the figures `taken` from it."""
        out = set()
        for m in self.free_currency.finditer(text):
            if any(f.start <= m.start() < f.end for f in taken):
                continue
            out.add(self.currency_of(m.group()))
        return out


def _combine_scales(text: str, reads: list[_Read]) -> list[_Read]:
    """Join the parts of one scaled number: "3만5천원" is "3만" then "5천원", "1억 2천만"
    is "1억" then "2천만". A part joins the one before when that one has a scale and no
    currency after it, the part is smaller than that scale and follows it glued, or
    after one space when it has a scale of its own."""
    out: list[_Read] = []
    for r in reads:
        prev = out[-1] if out else None
        if prev is not None and prev.scale > 1 and prev.post is None and r.pre is None and r.value < prev.scale:
            gap = text[prev.end:r.start]
            if gap == "" or (gap == " " and r.scale > 1):
                out[-1] = _Read(prev.value + r.value, r.scale, prev.pre, r.post, prev.start, r.end)
                continue
        out.append(r)
    return out


@lru_cache(maxsize=None)
def grammar(lang: str | None) -> Grammar:
    return Grammar(languages.find(lang))


def has_digit(text: str) -> bool:
    return _DIGIT.search(text) is not None


def figures(text: str, lang: str | None) -> list[Figure]:
    """Every number and range of `text`, currency or not, in order."""
    return grammar(lang).figures(text)


def find_money(text: str, lang: str | None) -> list[Money]:
    """The amounts and ranges of money in `text`, in order."""
    return [m for f in grammar(lang).figures(text) if (m := f.money()) is not None]
