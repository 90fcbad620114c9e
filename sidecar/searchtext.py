"""What FULLTEXT indexes and what it is asked: the same normalisation on both sides.

InnoDB's built-in parser splits on non-word characters, matches whole tokens only
and ignores tokens shorter than innodb_ft_min_token_size (3). Shared hosting never
lets a site change that, so the text is prepared instead:
- lower-cased and stemmed with Snowball in its language, so "hinnakirja" finds
  "hinnakiri" and "цены" finds "цена" (Estonian and Russian inflect heavily);
- Hangul, kana and Han runs become overlapping character bigrams (as MySQL's
  ngram parser would), so "가격은" still finds "가격";
- tokens below the minimum length that carry meaning (digits, CJK bigrams) are
  padded with "_" (a word character to InnoDB); other short tokens are function
  words in the languages served and are dropped.
"""
from __future__ import annotations

import re
import threading
from functools import lru_cache

import Stemmer

MIN_TOKEN = 3
_PAD = "_"
_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")

# ISO 639-1 -> Snowball algorithm name.
_SNOWBALL = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech", "da": "danish",
    "nl": "dutch", "en": "english", "eo": "esperanto", "et": "estonian", "fi": "finnish", "fr": "french",
    "de": "german", "el": "greek", "hi": "hindi", "hu": "hungarian", "id": "indonesian", "ga": "irish",
    "it": "italian", "lt": "lithuanian", "ne": "nepali", "no": "norwegian", "nb": "norwegian",
    "nn": "norwegian", "fa": "persian", "pl": "polish", "pt": "portuguese", "ro": "romanian",
    "ru": "russian", "sr": "serbian", "es": "spanish", "sv": "swedish", "ta": "tamil", "tr": "turkish",
    "yi": "yiddish",
}
_available = set(Stemmer.algorithms())
_local = threading.local()  # PyStemmer stemmers are not thread-safe


def _stemmer(lang: str):
    algo = _SNOWBALL.get(lang)
    if algo not in _available:
        return None
    cache = getattr(_local, "stemmers", None)
    if cache is None:
        cache = _local.stemmers = {}
    if algo not in cache:
        cache[algo] = Stemmer.Stemmer(algo)
    return cache[algo]


def _cjk_tokens(run: str) -> list[str]:
    if len(run) == 1:
        return [run + _PAD * 2]
    return [run[i:i + 2] + _PAD for i in range(len(run) - 1)]


@lru_cache(maxsize=4096)
def _stem_word(lang: str, word: str) -> str:
    stemmer = _stemmer(lang)
    return stemmer.stemWord(word) if stemmer else word


def tokens(text: str, lang: str) -> list[str]:
    out: list[str] = []
    for word in _WORD.findall(text.casefold()):
        if _CJK.search(word):
            # A word may mix scripts ("ktx가격"): split the CJK runs from the rest.
            pos = 0
            for m in _CJK.finditer(word):
                out.extend(_plain_tokens(word[pos:m.start()], lang))
                out.extend(_cjk_tokens(m.group()))
                pos = m.end()
            out.extend(_plain_tokens(word[pos:], lang))
        else:
            out.extend(_plain_tokens(word, lang))
    return out


def _plain_tokens(word: str, lang: str) -> list[str]:
    word = word.strip("_")
    if not word:
        return []
    if any(ch.isdigit() for ch in word):
        return [word.ljust(MIN_TOKEN, _PAD)]
    if len(word) < MIN_TOKEN:
        return []
    stem = _stem_word(lang, word)
    return [stem if len(stem) >= MIN_TOKEN else stem.ljust(MIN_TOKEN, _PAD)]


def index_text(text: str, lang: str) -> str:
    return " ".join(tokens(text, lang))


def query_text(text: str, lang: str, max_terms: int = 48) -> str:
    """Distinct terms of a question, in order, bounded: a 4,000-character message
    must not turn into a query that scans the whole index. Question words and
    fillers ("kui palju", "сколько", "do you have") are left out: InnoDB's stopword
    list is English-only, and each such word makes the server score a large share of
    the index for nothing. A question made of nothing else is searched as it is."""
    terms = tokens(text, lang)
    stop = stopwords(lang)
    topical = [t for t in terms if t not in stop] or terms
    seen: dict[str, None] = {}
    for tok in topical:
        if tok not in seen:
            seen[tok] = None
            if len(seen) >= max_terms:
                break
    return " ".join(seen)


# Question words and fillers that carry no topic: left out of FULLTEXT queries and of
# the offline provider's line matching, where a handful of shared words decides.
_STOPWORDS = {
    "en": "what which who whom whose when where why how much many does did doing have has had having "
          "you your yours are was were been being can could would should will shall may might must "
          "the and for with from about into this that these those there here our ours they them their "
          "please tell know want need like any some all just also very get got hello thanks thank",
    "et": "mis mida mille kes kus kuhu kust millal miks kuidas kui palju kas teil teie sina teie "
          "mina meie nad see seda need selle ning ning aga või ka ju siis veel väga palun tere aitäh "
          "olen oled oleme olete nad on ole saab saan saate tahan tahaksin soovin",
    "ru": "что как какой какая какие где когда почему сколько кто чей ваш ваша ваши вы мы они это "
          "этот эта эти есть был была были быть можно могу можете нужно хочу хотел пожалуйста "
          "здравствуйте спасибо привет для или тоже также очень там тут",
    "es": "qué que cuál cuáles quién dónde donde cuándo cuando por porqué cómo como cuánto cuánta "
          "cuántos cuántas ustedes usted tienen tiene tengo hay son está están ser estar puedo pueden "
          "para con los las una unos unas del este esta estos estas eso por favor hola gracias quiero",
    "ko": "",
}


@lru_cache(maxsize=64)
def stopwords(lang: str) -> frozenset[str]:
    return frozenset(tokens(_STOPWORDS.get(lang, _STOPWORDS["en"]), lang))


def content_terms(text: str, lang: str) -> set[str]:
    return set(tokens(text, lang)) - stopwords(lang)
