"""The price check: no amount of money reaches a visitor unless the business stated it.

    check = PriceCheck(pinned, retrieved, lang)      # once per turn
    checked = check.check(reply_text)                # a whole reply
    checked.text, checked.corrections

    splitter = SentenceSplitter()                    # a streamed reply
    for piece in pieces:
        for sentence in splitter.feed(piece):
            send(check.sentence(sentence).text)
    send(check.sentence(splitter.rest()).text)

The model is told the price rule; this is where the application enforces it. Every
amount and range of money in the reply (sidecar.money) is looked up in what the
business said:
- an amount passes when the pinned knowledge states that value in that currency,
  whatever the format ("1 200 €" stated, "1200 EUR" said). The ends of a stated range
  are stated amounts too ("from 20 €" is true of "20–40 €");
- a range passes only when one source states that very range: two prices of two
  lines are not a range of the business's, however close their services are;
- a number written bare in a pinned line is an amount in the currency that line names
  on its own ("Prices in €: basic 45, full 89"), or, when the line names none and
  writes no currency by any number, in the one named on its own by the heading above
  it: the nearest line above without numbers that names one (a table's header,
  "Service | Price (€)"), else the entry's title ("Price list (EUR)"). Only a single
  currency lends: a line or heading naming two lends none;
- an amount the price list states for another thing is not vouched for by it: when a
  sentence shares STRONG content words with a price line (it is about that line) and
  none with any line stating its amount, the amount was borrowed or computed ("a tyre
  change for two wheels is 30 €" beside "Tyre change (one wheel): 15 €" and "E-bike
  diagnostics: 30 €");
- only when the pinned knowledge states no price at all does an amount or a range a
  retrieved document states pass: a price list beats every page, however recent.
Anything else (invented, computed, blended, stale, in another currency) is repaired
sentence by sentence: the sentence is replaced by the pinned line(s) it is about (the
price lines sharing the most content words with it, up to MAX_LINES of them tied),
or, when none is about it, taken out, the first one taken out leaving the language's
offer to contact the business in its place. The rest of the reply is kept as it was,
byte for byte, and numbers that are not money are never touched.

A streamed reply is checked sentence by sentence as it arrives, and the whole reply
sentence by sentence too, with the same sentences (SentenceSplitter), so the two
agree exactly. One PriceCheck serves one turn: `sentence()` remembers, for the reply
being streamed, which lines it already quoted and whether it offered contact.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from typing import Sequence

from . import lang as languages
from . import money
from .memory.words import Words, content_words
from .providers.base import GroundingEntry
from .searchtext import stopwords, tokens

MAX_LINES = 3
"""A sentence about several lines equally ("basic and full service together …") is
answered with all of them, up to this many; about more, it is about none of them."""

STRONG = 2
"""Content words a sentence shares with a price line for it to be about that line: one
word alone ("service") is shared by too many lines to tell which thing is meant."""

_Amounts = frozenset[tuple[Decimal, str]]
_Ranges = frozenset[tuple[Decimal, Decimal, str]]


@dataclass(frozen=True)
class Checked:
    text: str  # the reply as the visitor may see it
    corrections: int  # sentences repaired or removed (0: text is exactly the input)


# --- sentences ----------------------------------------------------------------------

# A full stop, a question or exclamation mark or an ellipsis (closing quotes, brackets
# and Markdown emphasis after it) and the whitespace after; or a line break. Matched
# only once the next visible character has arrived: what follows decides, and a
# sentence is never cut before its whitespace is complete. Tried only where a run of
# stops or of spaces begins: tried inside a long run, each try would read to its end.
_END = re.compile(r"(?<![.!?…])[.!?…]+[\"'”’»)\]*_]*\s+(?=\S)|(?<![^\S\n])[^\S\n]*\n\s*(?=\S)")
_VISIBLE_AFTER_SPACE = re.compile(r"\s\S")
_TRAILING = frozenset(".!?…\"'”’»)]*_") | frozenset(" \t\r\n\f\v\u00a0\u202f\u2009")
_OPENERS = "(\"'«“„[*_"
_ABBREVIATIONS = frozenset(w.casefold() for lg in languages.LANGS for w in lg.abbreviations)
_BULLET_ONLY = re.compile(r"\s*(?:[-*•·▪–]\s*)?")


def _dot_ends_sentence(text: str, stop: int, after: int) -> bool:
    """Whether the full stop at `stop` ends a sentence, `after` being the index of the
    next visible character."""
    nxt = text[after]
    if nxt.islower() or nxt.isdigit():  # "jne. ja", "approx. 45 €", "т. е. это"
        return False
    i = stop
    while i > 0 and not text[i - 1].isspace():
        i -= 1
    word = text[i:stop].lstrip(_OPENERS)
    if not word:
        return True
    if word.casefold() in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
        return False  # "Dr. Tamm", "J. Smith"
    if "." in word and any(ch.isalpha() for ch in word):
        return False  # "e.g. The", "т.е. Это", an address "www.example.ee."
    if word.isdigit():  # a numbered list ("1. Basic service"), not "costs 45. Then"
        line_start = text.rfind("\n", 0, i) + 1
        return not _BULLET_ONLY.fullmatch(text, line_start, i)
    return True


def _is_boundary(text: str, m: re.Match) -> bool:
    piece = m.group()
    if "\n" in piece:
        return True
    stops = piece.rstrip().rstrip("\"'”’»)]*_")
    if "?" in stops or "!" in stops:
        return True
    if stops == ".":
        return _dot_ends_sentence(text, m.start(), m.end())
    nxt = text[m.end()]
    return not (nxt.islower() or nxt.isdigit())  # "…" / "..." go on in lower case


class SentenceSplitter:
    """Cuts a reply into sentences as it arrives: feed it the reply piece by piece
    (each piece the text that follows the last), and it gives back every sentence
    that is complete, each with the whitespace after it. A sentence ends with a
    full stop, question or exclamation mark or ellipsis followed by whitespace, or
    with a line break; it is given out only once the next visible character has
    arrived, so the same text gives the same sentences however it is cut into pieces,
    and an amount is never cut ("costs 1" waits for " 200 €", "1.200,50", "10.30",
    "e.g." and "Dr." do not end a sentence)."""

    def __init__(self) -> None:
        self._buf = ""
        self._start = 0  # where the sentence being read begins
        self._scan = 0  # where the next sentence end may begin

    def feed(self, text: str) -> list[str]:
        old = len(self._buf)
        self._buf += text
        buf = self._buf
        out: list[str] = []
        resume = self._scan
        # An end is complete at a visible character after whitespace; a piece without
        # one completes none (a stream of spaces or of dots is not read again and again).
        if _VISIBLE_AFTER_SPACE.search(buf, max(old - 1, 0)):
            for m in _END.finditer(buf, self._scan):
                resume = m.end()
                if _is_boundary(buf, m):
                    out.append(buf[self._start:m.end()])
                    self._start = m.end()
        # An end may still be arriving in the stops and spaces the text ends with. Only
        # the new piece is walked: if it is all stops and spaces, the run it continues
        # began before `resume` already (the last scan stopped at that run's start).
        k, floor = len(buf), max(resume, len(buf) - len(text))
        while k > floor and buf[k - 1] in _TRAILING:
            k -= 1
        self._scan = resume if k == floor else k
        return out

    def rest(self) -> str:
        """The text after the last complete sentence: the end of the reply."""
        return self._buf[self._start:]


def sentences(text: str) -> list[str]:
    """The sentences of a whole text, the last one without its end if it has none;
    they join to the text."""
    splitter = SentenceSplitter()
    out = splitter.feed(text)
    rest = splitter.rest()
    return out + [rest] if rest else out


# --- what the business stated ------------------------------------------------------

@dataclass(frozen=True)
class _Line:
    """A sentence of a pinned line that states a price, and the prices it states."""

    text: str
    amounts: _Amounts
    ranges: _Ranges

    def states(self, m: money.Money) -> bool:
        if isinstance(m, money.Range):
            return (m.low, m.high, m.currency) in self.ranges
        return (m.value, m.currency) in self.amounts


@dataclass(frozen=True)
class _Stated:
    amounts: _Amounts
    ranges: _Ranges
    lines: tuple[_Line, ...] = ()

    @property
    def any(self) -> bool:
        return bool(self.amounts or self.ranges)


def _stated(figures: list[money.Figure], currency_for_bare: str | None = None) -> tuple[_Amounts, _Ranges]:
    amounts, ranges = set(), set()
    for f in figures:
        currency = f.currency or currency_for_bare
        if currency is None:
            continue
        if f.is_range:
            ranges.add((f.low, f.high, currency))
        amounts.add((f.low, currency))
        amounts.add((f.high, currency))
    return frozenset(amounts), frozenset(ranges)


def _one(currencies: set[str]) -> str | None:
    return next(iter(currencies)) if len(currencies) == 1 else None


# Pinned entries are the same turn after turn: read each once per content. A price
# changed in wp-admin is new content, read anew.
@lru_cache(maxsize=512)
def _read_pinned(title: str, content: str, lang: str) -> _Stated:
    grammar = money.grammar(lang)
    # The currency a heading names on its own: the title's, then a line's that has no
    # numbers (a table's header, "Service | Price (€)"), for the lines below it.
    heading = _one(grammar.free_currencies(title, grammar.figures(title)))
    lines: list[_Line] = []
    for line in content.splitlines():
        figures = grammar.figures(line)
        named = grammar.free_currencies(line, figures)
        if not figures:
            if named:
                heading = _one(named)
            continue
        lent = _one(named)
        if lent is None and not named and all(f.currency is None for f in figures):
            lent = heading
        pos = 0
        for sentence in sentences(line):
            end = pos + len(sentence)
            amounts, ranges = _stated([f for f in figures if pos <= f.start < end], lent)
            if amounts and sentence.strip():
                lines.append(_Line(sentence.strip(), amounts, ranges))
            pos = end
    return _Stated(frozenset().union(*(ln.amounts for ln in lines)),
                   frozenset().union(*(ln.ranges for ln in lines)), tuple(lines))


@lru_cache(maxsize=512)
def _read_document(content: str, lang: str) -> _Stated:
    return _Stated(*_stated(money.figures(content, lang)))


class _LineIndex:
    """Which price lines a content word is found in, with the tolerance the memory
    checks use (sidecar.memory.words): worked out once per word and price list, and
    kept while the price list lasts, since replies reuse the same words."""

    MAX_WORDS = 20_000  # then start again: the index must not grow without end

    def __init__(self, lines: tuple[str, ...], lang: str):
        self._lang = lang
        self._words = [Words(line.casefold(), lang) for line in lines]
        self._found: dict[str, tuple[int, ...]] = {}

    def lines_with(self, stem: str) -> tuple[int, ...]:
        found = self._found.get(stem)
        if found is None:
            if len(self._found) >= self.MAX_WORDS:
                self._found = {}
            found = self._found[stem] = tuple(i for i, words in enumerate(self._words)
                                              if words.has(stem, self._lang))
        return found


@lru_cache(maxsize=64)
def _exempt(lang: str) -> frozenset[str]:
    # As sidecar.memory.words counts content words: a language without a module has no
    # framing or function words to leave out.
    own = languages.find(lang)
    if own is None:
        return stopwords(lang)
    return stopwords(lang) | frozenset(tokens(" ".join(own.framing + own.function_words), lang))


_WORD = re.compile(r"\w+")


@lru_cache(maxsize=16384)
def _ko_word(word: str) -> tuple[str, ...]:
    # Stripping a Korean word's endings tries every ending: once per word is enough.
    return tuple(stem for stem, _ in content_words(word, "ko"))


def _content_stems(text: str, lang: str) -> set[str]:
    """The content words of a sentence as the lines are indexed (stems of the folded
    text), numbers left out; Korean words as sidecar.memory.words strips them."""
    if lang == "ko":
        return {stem for word in _WORD.findall(text.casefold()) for stem in _ko_word(word)}
    exempt = _exempt(lang)
    return {t for t in tokens(text.casefold(), lang) if t not in exempt and not money.has_digit(t)}


@lru_cache(maxsize=64)
def _line_index(lines: tuple[str, ...], lang: str) -> _LineIndex:
    return _LineIndex(lines, lang)


# --- the check ---------------------------------------------------------------------

@dataclass
class _Reply:
    """What a repair needs to know of the reply so far."""

    quoted: set[str] = field(default_factory=set)
    offered: bool = False


_EDGES = re.compile(r"(\s*(?:[-*•·▪–]\s+|\d{1,2}[.)]\s+)?)(.*?)(\s*)", re.DOTALL)
_ENDS_STATEMENT = re.compile(r"[.!?…][\"'”’»)\]*_]*$")


class PriceCheck:
    def __init__(self, pinned: Sequence[GroundingEntry], retrieved: Sequence[GroundingEntry], lang: str):
        self._lang = lang
        self._grammar = money.grammar(lang)
        entries = [_read_pinned(e.title, e.content, e.lang or lang) for e in pinned]
        lines: dict[str, _Line] = {}
        for entry in entries:
            for line in entry.lines:
                lines.setdefault(line.text, line)
        stated = _Stated(frozenset().union(*(e.amounts for e in entries)),
                         frozenset().union(*(e.ranges for e in entries)), tuple(lines.values()))
        if not stated.any:
            documents = [_read_document(d.content, d.lang or lang) for d in retrieved]
            stated = _Stated(frozenset().union(*(d.amounts for d in documents)),
                             frozenset().union(*(d.ranges for d in documents)))
        self._amounts = stated.amounts
        self._ranges = stated.ranges
        self._lines = stated.lines
        self._line_texts = tuple(line.text for line in stated.lines)
        self._offer = languages.get(lang).contact_offer
        self._stream = _Reply()

    def check(self, text: str) -> Checked:
        """A whole reply, checked and repaired."""
        if not money.has_digit(text):
            return Checked(text, 0)
        reply = _Reply()
        parts, corrections = [], 0
        for s in sentences(text):
            checked, corrected = self._sentence(s, reply)
            parts.append(checked)
            corrections += corrected
        return Checked("".join(parts) if corrections else text, corrections)

    def sentence(self, sentence: str) -> Checked:
        """One complete sentence of the reply being streamed (SentenceSplitter's), or
        the rest at its end; in the reply's order."""
        text, corrected = self._sentence(sentence, self._stream)
        return Checked(text, corrected)

    def passes(self, text: str) -> bool:
        """Whether every amount of money in `text` is vouched for: for a text that is
        dropped rather than repaired (a quick reply's label)."""
        found = self._money(text)
        return not found or self._vouched(text, found)[0]

    # --- one sentence ---

    def _money(self, text: str) -> list[money.Money]:
        return [m for f in self._grammar.figures(text) if (m := f.money()) is not None]

    def _is_stated(self, m: money.Money) -> bool:
        if isinstance(m, money.Range):
            return (m.low, m.high, m.currency) in self._ranges
        return (m.value, m.currency) in self._amounts

    def _vouched(self, sentence: str, found: list[money.Money]) -> tuple[bool, list[int] | None]:
        """Whether every amount passes, and the sentence's scores against the price lines
        when they were needed to decide."""
        if not all(self._is_stated(m) for m in found):
            return False, None
        if not self._lines:
            return True, None
        scores = self._scores(sentence, found)
        if max(scores) < STRONG:
            return True, scores
        for m in found:  # about a price line: is each amount its, or a line's it names?
            if not any(score and line.states(m) for line, score in zip(self._lines, scores)):
                return False, scores
        return True, scores

    def _sentence(self, sentence: str, reply: _Reply) -> tuple[str, int]:
        found = self._money(sentence)
        if not found:
            return sentence, 0
        ok, scores = self._vouched(sentence, found)
        if ok:
            return sentence, 0
        return self._repair(sentence, found, scores, reply), 1

    def _repair(self, sentence: str, found: list[money.Money], scores: list[int] | None, reply: _Reply) -> str:
        prefix, body, trailing = _EDGES.fullmatch(sentence).groups()
        about = self._lines_about(scores if scores is not None else self._scores(sentence, found))
        fresh = [line for line in about if line not in reply.quoted]
        if fresh:
            reply.quoted.update(fresh)
            text = "; ".join(fresh)
            if _ENDS_STATEMENT.search(body) and not _ENDS_STATEMENT.search(text):
                text += "."
            return prefix + text + trailing
        if about or reply.offered:  # its line is already in the reply, or so is the offer
            return ""
        reply.offered = True
        return prefix + self._offer + trailing

    def _scores(self, sentence: str, found: list[money.Money]) -> list[int]:
        """For each price line, how many content words of the sentence it shares (the
        sentence's amounts, with their currency and scale words, left out)."""
        if not self._lines:
            return []
        chars = list(sentence)
        for m in found:
            start, end = m.span
            chars[start:end] = " " * (end - start)
        scores = [0] * len(self._lines)
        index = _line_index(self._line_texts, self._lang)
        for stem in _content_stems("".join(chars), self._lang):
            for i in index.lines_with(stem):
                scores[i] += 1
        return scores

    def _lines_about(self, scores: list[int]) -> list[str]:
        """The price lines sharing the most content words with the sentence: [] when
        none shares one, or when more than MAX_LINES share as many."""
        best = max(scores, default=0)
        tied = [line.text for line, score in zip(self._lines, scores) if score == best]
        return tied if best and len(tied) <= MAX_LINES else []
