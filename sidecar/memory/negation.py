"""What a customer negated, for the grounding check.

"I don't have a website yet" must not ground "Has a website", and "it's a café, not
a restaurant" must not ground "Runs a restaurant": the words are the customer's, the
claim is the opposite. So the customer's text is also read without its negated
parts, and a positive fact must rest on what is left. This is kept apart from the
word matching because scope is a matter of grammar, not of words: most languages
negate to the end of a clause, Korean negates the word next to the negation.

The negation words and clause conjunctions are the languages' own (sidecar.lang).
"""
from __future__ import annotations

import re

from .. import lang as languages

# Clauses end at punctuation and at a contrasting conjunction of any supported
# language: a customer's text may mix them ("tengo una tienda, but no website").
_CLAUSE = re.compile(r"[,.;:!?\n()\"«»“”]+|\s[-–—]\s|(?<!\w)(?:"
                     + "|".join(w for lg in languages.LANGS for w in lg.clause_splitters)
                     + r")(?!\w)", re.IGNORECASE)


def negation(lang: str) -> re.Pattern[str]:
    """What marks a negation in `lang` (English's for a language without a module:
    a fact in an unknown language is more often in English than in nothing)."""
    return languages.get(lang).negation


def positive_part(text: str, lang: str) -> str:
    """The customer's text without its negated clauses ("I don't have a website yet")."""
    own = languages.get(lang)
    if own.negates_word_before or own.negates_word_after:
        return _without_negated_words(text, own)
    neg = own.negation
    kept = []
    for clause in _CLAUSE.split(text):
        if not clause:
            continue
        m = neg.search(clause)
        if m:
            # what follows the negation is negated ("we have a website and no shop"), and so is
            # the word just before it ("физлицам не продаём", "kohale ei too")
            clause = re.sub(r"\w+\W*$", "", clause[: m.start()])
        kept.append(clause)
    return " | ".join(kept)


def _without_negated_words(text: str, own: languages.Language) -> str:
    """Word-scoped negation (Korean): "식당이 아니라" negates the word before "아니",
    "배달을 안 해요" the words around "안", "하지 않아요" the verb before "않"."""
    before, after, endings = own.negates_word_before, frozenset(own.negates_word_after), own.negated_endings
    words = text.split()
    negated = set()
    for i, w in enumerate(words):
        if w.startswith(before) and i:
            negated.add(i - 1)
        if w in after and i + 1 < len(words):
            negated.add(i + 1)
            if i:
                negated.add(i - 1)
        if w.endswith(endings) and i + 1 < len(words) and words[i + 1].startswith(before):
            negated.add(i)
    return " ".join(w for i, w in enumerate(words) if i not in negated)
