"""What the customer said, analysed once per message for the grounding check.

The facts extracted from one turn are all checked against the same customer text,
which may be 4,000 characters long: its values, stems, words and negated parts are
worked out once (an LRU cache keyed by the text) and every fact is then a matter
of look-ups. The lookups are lenient where the customer's wording varies and a fact
restates it: a name in another case ("Анной" for "Анна"), a phone with or without
its country code, a URL with or without a path.
"""
from __future__ import annotations

import unicodedata
from bisect import bisect_left
from functools import lru_cache

from .negation import negation, positive_part
from .values import Values
from .words import WORD, Words, common_prefix, ko_candidates


class Said:
    def __init__(self, text: str, lang: str):
        text = unicodedata.normalize("NFKC", text)
        self.values = Values(text, lang, fact=False)
        self.phones = set(self.values.phones) | {a for a in self.values.atoms if a.isdigit() and len(a) >= 7}
        folded = text.casefold()
        self.said = Words(folded, lang)
        self.words = frozenset(WORD.findall(folded))
        self.sorted_words = sorted(self.words)
        self.negated = bool(negation(lang).search(text))
        # what the customer said without negating it; None when nothing was negated
        self.affirmed = Words(positive_part(folded, lang), lang) if self.negated else None

    def has_name(self, name: str) -> bool:
        n = name.casefold()
        if n in self.words:
            return True
        p = max(3, len(n) - 1)
        if len(n) < 3:
            return False
        i = bisect_left(self.sorted_words, n[:p])
        while i < len(self.sorted_words) and self.sorted_words[i].startswith(n[:p]):
            w = self.sorted_words[i]
            common = len(common_prefix(n, w))
            if common >= max(3, min(len(n), len(w)) - 1):
                return True
            i += 1
        # an inflected customer form shorter than the fact's ("Анна" said, "Анной" written)
        for k in range(3, len(n)):
            if n[:k] in self.words and k >= len(n) - 2:
                return True
        return False

    def has_ko_name(self, name: str) -> bool:
        """A Korean name, or its stem of two or more syllables, inside the customer's words."""
        return any(len(cand) >= 2 and cand in self.said.ko_blob for cand in ko_candidates(name))

    def has_phone(self, d: str) -> bool:
        for s in self.phones:
            if s == d:
                return True
            if min(len(s), len(d)) >= 7 and (s.endswith(d) or d.endswith(s)):
                return True
            if len(s) >= 10 and len(d) >= 10 and s[-10:] == d[-10:]:
                return True
        return False

    def has_url(self, u: str) -> bool:
        return any(c == u or c.startswith(u + "/") for c in self.values.urls)


@lru_cache(maxsize=32)
def said(text: str, lang: str) -> Said:
    return Said(text, lang)
