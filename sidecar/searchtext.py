"""What FULLTEXT indexes and what it is asked: the same normalisation on both sides.

InnoDB's built-in parser splits on non-word characters, matches whole tokens only
and ignores tokens shorter than innodb_ft_min_token_size (3). Shared hosting never
lets a site change that, so the text is prepared instead:
- lower-cased and stemmed with Snowball in its language, so "hinnakirja" finds
  "hinnakiri" and "цены" finds "цена" (Estonian and Russian inflect heavily);
- Hangul, kana and Han runs become overlapping character bigrams (as MySQL's
  ngram parser would), so "가격은" still finds "가격";
- tokens below the minimum length that carry meaning are padded with "_" (a word
  character to InnoDB): digits ("45_"), CJK bigrams ("가격_") and two-letter
  acronyms written in capitals ("HD", "EU", "ТВ" -> "hd_", "eu_", "тв_") unless
  the pair is a function word of the language shouted in capitals ("OPEN ON
  SUNDAYS"). Other short tokens are function words in the languages served and
  are dropped, and so is a listed stopword whose stem falls below the minimum
  ("its" -> "it"), which would otherwise pose as the acronym "IT";
- in compounding languages (et, fi, de, nl, sv, da, no, hu) a long word also
  yields the stems of at most two guessed heads, so "rattahooldus" (bike service)
  finds "põhihooldus" (basic service) through "hooldus" (see _heads). Those are
  index_tokens() only: tokens(), which the offline provider and the memory checks
  match word for word, keeps one token per word.

Queries (query_terms) leave out question words and fillers, in Korean by removing
whole question words and question endings before the bigrams are made, and can be
analysed for chunks in another language than the question's: a Spanish question
against English pages is stemmed the English way, without the Spanish "los" that
would otherwise find "Los Angeles".

The word lists (stopwords, Korean question words and endings, compound suffixes)
are the languages' own, in sidecar.lang; this module holds how they are applied.

VERSION changes whenever index_text's output for the same input changes.
"""
from __future__ import annotations

import re
import threading
from functools import lru_cache

import Stemmer

from . import lang as languages

VERSION = 2
"""Bump whenever index_text's output for the same input changes, so stored search
text (chunks written under an older version) can be found and refreshed."""

MIN_TOKEN = 3
_PAD = "_"
_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
_HANGUL_WORD = re.compile(r"[\uac00-\ud7a3]+")

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
    """One token per word that survives: the stem, a padded number or acronym, or
    the bigrams of a CJK run. What the offline provider and the memory checks match."""
    return _tokens(text, lang, False)


def index_tokens(text: str, lang: str) -> list[str]:
    """tokens() plus the guessed heads of long compounds (see _heads): what FULLTEXT
    indexes and is asked. Kept out of tokens(), where each token must be found in the
    customer's words and a head would count as a second word to find."""
    return _tokens(text, lang, True)


def _tokens(text: str, lang: str, compounds: bool) -> list[str]:
    # Words are taken from the text as written: whether "HD" was in capitals decides
    # whether it is kept, so case is folded per word, not before.
    out: list[str] = []
    for word in _WORD.findall(text):
        out.extend(_word_tokens(word, lang, compounds))
    return out


# Per written word, not per text: index_text of a whole chunk stays the tokens of its
# words joined (bench/corpus.py memoises on that), and a chunk repeats most words.
@lru_cache(maxsize=16384)
def _word_tokens(word: str, lang: str, compounds: bool) -> tuple[str, ...]:
    if not _CJK.search(word):
        return tuple(_plain_tokens(word, lang, compounds))
    # A word may mix scripts ("ktx가격"): split the CJK runs from the rest. CJK
    # characters have no case, so the runs are the same before and after folding.
    out: list[str] = []
    pos = 0
    for m in _CJK.finditer(word):
        out.extend(_plain_tokens(word[pos:m.start()], lang, compounds))
        out.extend(_cjk_tokens(m.group()))
        pos = m.end()
    out.extend(_plain_tokens(word[pos:], lang, compounds))
    return tuple(out)


def _is_acronym(word: str) -> bool:
    """Two capital letters, Latin or Cyrillic: "HD", "EU", "ТВ" (not "Of", "of")."""
    return len(word) == 2 and all(
        ch.isupper() and (ch <= "\u024f" or "\u0400" <= ch <= "\u04ff") for ch in word
    ) and len(word.casefold()) == 2


def _plain_tokens(written: str, lang: str, compounds: bool) -> list[str]:
    core = written.strip("_")
    if _is_acronym(core):
        folded = core.casefold()
        return [] if folded in _raw_stopwords(lang) else [folded + _PAD]
    out: list[str] = []
    # Folding can split a word ("İ" -> "i" + a combining dot): re-split as before.
    for word in _WORD.findall(written.casefold()):
        out.extend(_folded_tokens(word, lang, compounds))
    return out


def _folded_tokens(word: str, lang: str, compounds: bool) -> list[str]:
    word = word.strip("_")
    if not word:
        return []
    if any(ch.isdigit() for ch in word):
        return [word.ljust(MIN_TOKEN, _PAD)]
    if len(word) < MIN_TOKEN:
        return []
    stem = _stem_word(lang, word)
    if len(stem) < MIN_TOKEN:
        if word in _raw_stopwords(lang):
            return []
        stem = stem.ljust(MIN_TOKEN, _PAD)
    out = [stem]
    for head in _heads(word, lang) if compounds else ():
        h = _stem_word(lang, head)
        # A head the stemmer treats otherwise than the word's ending, or all but
        # strips, is a cut through the inflection ("ratta|desse"), not a word.
        if len(h) > MIN_TOKEN and stem.endswith(h) and h not in out:
            out.append(h)
    return out


# --- compounds ------------------------------------------------------------------------
# These languages write compounds as one word, and the head (the last part) says what
# the thing is: "rattahooldus" and "põhihooldus" are both a "hooldus". There is no
# lexicon here to find the real boundary, so it is guessed from the shape of words,
# and the guess is the surface head, stemmed alone: the stemmer works on a word's
# ending, so the same head gives the same token in every compound and on its own.
# - Only words of >= 9 letters; the head starts with one consonant then a vowel (a
#   syllable onset), after a modifier of >= 3 letters, and has >= 5 letters: shorter
#   "heads" are mostly case endings ("-sele", "-dega"), so "hinna|kiri" is missed
#   while "hinna|kirja" is found. A head whose stem is not the end of the whole
#   word's stem is a cut through the inflection and is dropped ("ratta|desse"), as
#   is a cut before a derivational suffix ("vaja|dusel", "telli|misel").
# - Finnic (et, fi): the usual link is a genitive modifier, which ends in a vowel and
#   has >= 2 syllables ("ratta|hooldus", "talve|rehvid"; not "käi|guvahetaja").
#   Only when there is no such cut, one after a consonant ("jalg|rattarent"), never
#   inside a double consonant, which in these languages is within a stem ("rat|ta").
# - Germanic and Hungarian: after a consonant only ("winter|reifen",
#   "fahrrad|reparatur"); cuts after a vowel would land inside almost every
#   Latinate stem ("repa|ratur"). Hungarian digraphs (sz, gy, ...) are one sound.
# Of the remaining cuts the first and the last are taken, so a word gains at most two
# tokens: the first finds the head of a two-part compound whose head has inner
# onsets ("lisa|varustus"), the last the head of a compound of three parts or whose
# modifier has them ("mootorratta|hooldus"). On 57 real Estonian compounds 38 heads
# are found. Cost on a paragraph of Estonian shop text (tests/test_searchtext.py):
# 70 words, 61 tokens before, 80 after (+31%); 11 of the 19 added are real heads, the
# rest are fragments of long non-compounds ("kont|rolli"), which match little.
# The supported languages say how they compound in sidecar.lang (compound_kind); the
# others listed here are indexed with their Snowball stemmer only, without a module.
_COMPOUNDING = {"fi": "finnic", "de": "germanic", "nl": "germanic", "sv": "germanic",
                "da": "germanic", "no": "germanic", "nb": "germanic", "nn": "germanic", "hu": "hungarian",
                **{lg.code: lg.compound_kind for lg in languages.LANGS if lg.compound_kind}}
_MIN_COMPOUND = 9
_MIN_MODIFIER = 3
_MIN_HEAD = 5
_VOWELS = frozenset("aeiouyäöüõåæøáéíóúőűàèìòùâêîôûëï")
_HU_DIGRAPHS = frozenset(("cs", "dz", "gy", "ly", "ny", "sz", "ty", "zs"))
# Derivational suffixes that begin with an onset: a cut before one leaves the suffix
# and its case ending ("vaja|dusel", "telli|misel"), shared by thousands of words.
_SUFFIXES = {"fi": ("mine", "mise"),
             **{lg.code: lg.compound_suffixes for lg in languages.LANGS if lg.compound_suffixes}}


def _heads(word: str, lang: str) -> tuple[str, ...]:
    kind = _COMPOUNDING.get(lang)
    if kind is None or len(word) < _MIN_COMPOUND or not word.isalpha():
        return ()
    span = range(_MIN_MODIFIER, len(word) - _MIN_HEAD + 1)
    suffixes = _SUFFIXES.get(lang, ())
    cuts = [i for i in span if _is_cut(word, i, kind) and not word.startswith(suffixes, i)]
    if kind == "finnic":
        linked = [i for i in cuts if word[i - 1] in _VOWELS and _syllables(word[:i]) >= 2]
        cuts = linked or [i for i in cuts if word[i - 1] not in _VOWELS]
    if not cuts:
        return ()
    return tuple(word[i:] for i in sorted({cuts[0], cuts[-1]}))


def _syllables(part: str) -> int:
    """Vowel groups: "ratta" 2, "käi" 1."""
    return sum(1 for j, ch in enumerate(part) if ch in _VOWELS and (j == 0 or part[j - 1] not in _VOWELS))


def _is_cut(word: str, i: int, kind: str) -> bool:
    before, first = word[i - 1], word[i]
    if first in _VOWELS:
        return False
    if kind == "hungarian":
        if word[i - 1:i + 1] in _HU_DIGRAPHS:
            return False
        onset = 2 if word[i:i + 2] in _HU_DIGRAPHS else 1
        return before not in _VOWELS and word[i + onset:i + onset + 1] in _VOWELS
    if word[i + 1] not in _VOWELS:
        return False
    if kind == "finnic":
        return before in _VOWELS or before != first
    return before not in _VOWELS


def index_text(text: str, lang: str) -> str:
    return " ".join(index_tokens(text, lang))


# --- queries --------------------------------------------------------------------------
def query_terms(text: str, lang: str, target_lang: str | None = None, max_terms: int = 48) -> list[str]:
    """Distinct terms, in order, bounded, to search chunks written in target_lang
    (default: lang) for a question written in lang: a 4,000-character message must
    not turn into a query that scans the whole index. Question words and fillers
    ("kui palju", "сколько", "do you have", "몇", "언제인가요") are left out: InnoDB's
    stopword list is English-only, and each such word makes the server score a large
    share of the index for nothing. A question made of nothing else is searched as
    it is.

    Across languages (a Spanish visitor, the site's English pages) each word is
    analysed as the chunks were, with target_lang's stemmer, and also with lang's
    when that differs (a name or a loanword may have been stemmed either way). A
    stopword of either language is dropped as a word, before any stemming: "los"
    is nothing in Spanish but would find "Los Angeles" in English."""
    target = target_lang or lang
    asked = _ko_without_questions(text) if lang == "ko" else text
    if target == lang:
        stop = stopwords(lang)
        topical = [t for t in index_tokens(asked, lang) if t not in stop] or index_tokens(text, lang)
    else:
        topical = _cross_terms(asked, lang, target) or index_tokens(text, target)
    seen: dict[str, None] = {}
    for tok in topical:
        if tok not in seen:
            seen[tok] = None
            if len(seen) >= max_terms:
                break
    return list(seen)


def query_text(text: str, lang: str, max_terms: int = 48, target_lang: str | None = None) -> str:
    """query_terms as the string given to MATCH ... AGAINST."""
    return " ".join(query_terms(text, lang, target_lang, max_terms))


def _cross_terms(text: str, lang: str, target: str) -> list[str]:
    raw = _raw_stopwords(lang) | _raw_stopwords(target)
    stop_lang, stop_target = stopwords(lang), stopwords(target)
    both = _SNOWBALL.get(lang) != _SNOWBALL.get(target)
    out: list[str] = []
    for word in _WORD.findall(text):
        if word.casefold() in raw:
            continue
        as_target = _word_tokens(word, target, True)
        as_lang = _word_tokens(word, lang, True) if both else as_target
        # An inflected stopword ("puedes", "doing") is known by its stem only.
        if as_lang and all(t in stop_lang for t in as_lang):
            continue
        out.extend(t for t in as_target if t not in stop_target)
        if both:
            out.extend(t for t in as_lang if t not in stop_lang and t not in stop_target)
    return out


# Question words and fillers that carry no topic (sidecar.lang: `stopwords`): left out
# of FULLTEXT queries and of the offline provider's line matching, where a handful of
# shared words decides. A language without a module uses English's, as it always has.
def _stopword_text(lang: str) -> str:
    return " ".join(languages.get(lang).stopwords)


@lru_cache(maxsize=64)
def _raw_stopwords(lang: str) -> frozenset[str]:
    return frozenset(_stopword_text(lang).casefold().split())


@lru_cache(maxsize=64)
def stopwords(lang: str) -> frozenset[str]:
    """The stopwords as tokens: stemmed in lang, as tokens() gives them."""
    return frozenset(tokens(_stopword_text(lang), lang))


def content_terms(text: str, lang: str) -> set[str]:
    """The topical terms of a text: its tokens minus stopwords (in Korean, without
    its question words and endings)."""
    if lang == "ko":
        text = _ko_without_questions(text)
    return set(tokens(text, lang)) - stopwords(lang)


# --- Korean questions -----------------------------------------------------------------
# Bigrams of "얼마예요", "언제인가요" or "설립되었나요" match every page that states a
# price, a date or a past event, so question words and question endings are taken out
# of the question before the bigrams are made. Whole words only (Hangul runs): a
# question word with a particle or a copula ending goes ("어디에서", "무엇인가요"); a
# question or polite ending goes from a longer word when >= 2 syllables remain
# ("설립되었나요" -> "설립", "예약하나요" -> "예약"), so a one-syllable verb stem ("가나요")
# is never reduced to a bare syllable. Index text is untouched.
# The word lists are Korean's question_words, question_particles, question_fillers and
# question_endings in sidecar.lang.ko.
_KO = languages.get("ko")
_KO_FILLERS = frozenset(_KO.question_fillers)
_KO_ENDINGS = sorted(set(_KO.question_endings), key=len, reverse=True)
_KO_QUESTION_WORD = re.compile(
    "(?:" + "|".join(sorted(_KO.question_words, key=len, reverse=True)) + ")"
    "(?:" + "|".join(sorted(set(_KO.question_particles), key=len, reverse=True)) + ")?")


def _ko_without_questions(text: str) -> str:
    return _HANGUL_WORD.sub(_ko_word, text)


def _ko_word(m: re.Match) -> str:
    w = m.group()
    if w in _KO_FILLERS or _KO_QUESTION_WORD.fullmatch(w):
        return " "
    if w[0] == "몇" and len(w) > 1 and w[1] != "몇":  # "몇년에", "몇시": the counter stays
        w = w[1:]
    for end in _KO_ENDINGS:
        if w.endswith(end) and len(w) - len(end) >= 2:
            return w[: -len(end)]
    return w
