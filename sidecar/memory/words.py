"""The words of a fact and of a customer's message, and when two words are the same.

The grounding check (does a fact rest on the customer's words?) and dedup (are two
facts the same fact?) must agree on what "the same word" is, or a fact that was let
through as grounded would be kept as a second fact beside its own paraphrase. So
the word-level tolerance lives here, once: Snowball stems via sidecar.searchtext,
compared exactly, by prefix or by a long shared prefix (stems_match, Words), and
for Korean, which has no stemmer, words stripped of particles and endings
(ko_candidates, ko_stem).

Which words count as content and which only frame a fact is language knowledge,
read from sidecar.lang.
"""
from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache

from .. import lang as languages
from ..searchtext import content_terms, stopwords, tokens

# The tolerance of a stem match, chosen with the content-coverage threshold on
# bench/grounding_eval.jsonl (see grounding.py):
PREFIX_MIN = 5       # one stem a prefix of the other, the shorter this long ...
SHARED_MIN = 6       # ... or a shared prefix this long ...
SHARED_SHARE = 0.75  # ... covering 3/4 of the shorter stem

WORD = re.compile(r"\w+")
HANGUL = re.compile(r"[\uac00-\ud7a3]+")

_KO = languages.get("ko")
# Stripped longest first: "에서는" before "는".
_KO_SUFFIXES = sorted(set(_KO.word_endings), key=len, reverse=True)
KO_STOP = frozenset(_KO.function_words)
KO_FRAMING = frozenset(_KO.framing)
# Counters and units that follow a number ("4대", "9시", "300만 원"): part of the value.
KO_UNITS = frozenset(_KO.counters + _KO.number_units)

# The label of a stated value ("phone", "número", "번호") is exempt whatever the
# language of the fact: customers mix them ("my e-mail", "mi email").
_LABELS = {kind: " ".join(languages.as_written(w) for lg in languages.LANGS
                         for w in lg.contact_labels.get(kind, ()))
           for kind in dict.fromkeys(k for lg in languages.LANGS for k in lg.contact_labels)}


def common_prefix(a: str, b: str) -> str:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return a[:n]


def stems_match(a: str, b: str) -> bool:
    """The tolerance the content check uses: equal stems, one a long enough prefix of
    the other, or a long shared prefix covering most of the shorter stem."""
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    if len(short) >= PREFIX_MIN and long_.startswith(short):
        return True
    shared = len(common_prefix(a, b))
    return shared >= SHARED_MIN and shared >= SHARED_SHARE * len(short)


# A compound read as two words of another text: the shortest word that may be one, and the
# shortest parts.
COMPOUND_MIN = 8
MODIFIER_MIN = 3
HEAD_MIN = 4
ENDING_MAX = 3  # a modifier written inflected in the other text: "puna" / "punane"


@lru_cache(maxsize=8192)
def _stem_of(part: str, lang: str) -> str:
    """A compound's first part as a word of its own stems ("ratta" of "rattahooldus": "rata"),
    an irregular form read as its base."""
    stems = tokens(part, lang)
    return base_stem(stems[0], lang) if len(stems) == 1 else part


def two_words_of(word: str, words: tuple[str, ...], lang: str | None = None) -> tuple[str, str] | None:
    """The two of `words` that `word` is written of, as a compound ("lateksiallergia" of
    "lateksi" and "allergilise"): its first part one of them (the same, or one a prefix of
    the other, at least HEAD_MIN long, the longer by an ending at most: "puna" / "punane"), the
    rest another by stems_match. None when it is no such compound ("kodukindlustuse" beside
    "kodukindlus" is no "kodu" and "kindlustuse"). With `lang`, the first part may also be
    one of them as a word of its own stems ("ratta-hooldus" of "rata"), and the rest is read
    as its base first where it is one of the language's irregular forms ("puna-veini" of
    "vein")."""
    if len(word) < COMPOUND_MIN:
        return None
    for i in range(MODIFIER_MIN, len(word) - HEAD_MIN + 1):
        modifier, head = word[:i], word[i:]
        first = _stem_of(modifier, lang) if lang else modifier
        for x in words:
            if x != modifier and x != first and not (
                    min(len(x), i) >= HEAD_MIN and abs(len(x) - i) <= ENDING_MAX
                    and (x.startswith(modifier) or modifier.startswith(x))):
                continue
            rest = base_stem(head, lang) if lang else head
            for y in words:
                if y != x and (stems_match(head, y) or stems_match(rest, y)):
                    return x, y
    return None


def ko_candidates(word: str) -> list[str]:
    """A Korean word and its successive stems: '빵집에서' -> ['빵집에서', '빵집'], '만듦' -> ['만듦', '만들']."""
    out = [word]
    w = word
    while True:
        for suf in _KO_SUFFIXES:
            if len(w) > len(suf) and w.endswith(suf):
                w = w[: -len(suf)]
                out.append(w)
                break
        else:
            break
    # Nominalised verbs end in a final consonant the stem lacks: 함 -> 하, 씀 -> 쓰, 듦 -> 들.
    last = out[-1][-1]
    code = ord(last) - 0xAC00
    if 0 <= code < 11172:
        jong = code % 28
        if jong == 16:  # ㅁ
            out.append(out[-1][:-1] + chr(ord(last) - 16))
        elif jong == 10:  # ㄻ -> ㄹ
            out.append(out[-1][:-1] + chr(ord(last) - 2))
    return out


def ko_stem(word: str) -> str:
    """A Korean word with its particles and endings stripped ('빵집에서' -> '빵집')."""
    return ko_candidates(word)[-1]


def _irregular(lang: str):
    own = languages.find(lang)
    return own.irregular_forms if own else {}


@lru_cache(maxsize=16)
def _base_stems(lang: str) -> dict[str, str]:
    # An irregular form's stem -> its base word's: the stemmer leaves "tütrele" (to the
    # daughter) as "tütre" beside "tütar", "щенка" as "щенк" beside "щенок", so the form
    # alone would miss its inflections.
    out: dict[str, str] = {}
    for form, base in _irregular(lang).items():
        f, b = tokens(form, lang), tokens(base, lang)
        if len(f) == 1 and len(b) == 1 and f != b:
            out[f[0]] = b[0]
    return out


def base_stem(stem: str, lang: str) -> str:
    """The stem as its base word's, where it is the stem of one of the language's
    `irregular_forms`: every memory check reads a word's stem through this."""
    return _base_stems(lang).get(stem, stem)


def memory_terms(text: str, lang: str) -> set[str]:
    """The content terms of a text (searchtext.content_terms), each an irregular form's
    stem read as its base's. A Korean word is first stripped of its particles and endings,
    and a function word dropped, so its bigrams are its stem's: a particle's ("크가" of
    "브레이크가") or a function word's ("잘", well) are shared by texts about anything."""
    if lang == "ko":
        text = HANGUL.sub(lambda m: _ko_term_stem(m.group()), text)
    return {base_stem(t, lang) for t in content_terms(text, lang)}


@lru_cache(maxsize=8192)
def _ko_term_stem(word: str) -> str:
    """A Korean word's stem of two or more syllables ("아들에게": "아들", not "아", as if "들"
    were the plural), or nothing for a function word."""
    candidates = ko_candidates(word)
    if any(c in KO_STOP for c in candidates):
        return " "
    stem = next((c for c in reversed(candidates) if len(c) >= 2), word)
    # Every weekday ends in "요일": only its first syllable names which ("금요일": "금요").
    return stem[:2] if stem in _KO.weekdays else stem


@lru_cache(maxsize=4096)
def _exempt(lang: str) -> frozenset[str]:
    # A language without a module has no framing or function words: stricter, not looser.
    own = languages.find(lang)
    words = " ".join(own.framing + own.function_words) if own else ""
    return stopwords(lang) | frozenset(tokens(words, lang))


@lru_cache(maxsize=64)
def label_words(kinds: frozenset[str], lang: str) -> frozenset[str]:
    """The labels of the value kinds a fact states, as written and as tokens."""
    words = " ".join(_LABELS[k] for k in kinds)
    return frozenset(words.split()) | frozenset(tokens(words, lang))


def content_words(text: str, lang: str, labels: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """(stem, surface word) for each content word; Korean words as (stem candidates joined, word)."""
    exempt = _exempt(lang) | labels
    out: list[tuple[str, str]] = []
    for w in WORD.findall(text.casefold()):
        if any(ch.isdigit() for ch in w):
            continue
        if lang == "ko" and HANGUL.search(w):
            cand = ko_candidates(w)
            if any(c in KO_STOP or c in KO_FRAMING or c in KO_UNITS or c in labels for c in cand):
                continue
            out.append(("\x00".join(cand), w))
            continue
        for t in tokens(w, lang):
            if t not in exempt:
                out.append((base_stem(t, lang), w))
    return out


class Words:
    """The words of a text, ready for matching: stems, and for Korean the stripped words."""

    def __init__(self, folded: str, lang: str):
        stems = set(tokens(folded, lang))
        # An irregular form as its base too ("sent": "send"); the form itself stays, as written.
        self.stems = frozenset(stems | {base_stem(t, lang) for t in stems})
        self.sorted_stems = sorted(self.stems)
        if lang == "ko":
            ko_words = HANGUL.findall(folded)
            self.ko_blob = " " + " ".join(ko_words) + " "
            self.ko_stems = frozenset(c for w in ko_words for c in ko_candidates(w))

    def has_stem(self, t: str) -> bool:
        if t in self.stems:
            return True
        core = t.rstrip("_")
        if len(core) < PREFIX_MIN:
            return False
        # a customer stem that extends this one ("bake" -> "bakeri")
        i = bisect_left(self.sorted_stems, core)
        if i < len(self.sorted_stems) and self.sorted_stems[i].startswith(core):
            return True
        # a customer stem this one extends ("deliveri" -> "deliv")
        if any(core[:n] in self.stems for n in range(PREFIX_MIN, len(core))):
            return True
        # the same word with a different ending the stemmer did not remove
        # ("отправля"/"отправьт"): a long shared prefix, most of the shorter word
        if len(core) < SHARED_MIN:
            return False
        head = core[:SHARED_MIN]
        i = bisect_left(self.sorted_stems, head)
        while i < len(self.sorted_stems) and self.sorted_stems[i].startswith(head):
            c = self.sorted_stems[i].rstrip("_")
            if len(common_prefix(core, c)) >= SHARED_SHARE * min(len(core), len(c)):
                return True
            i += 1
        return False

    def has_ko(self, candidates: list[str]) -> bool:
        for c in candidates:
            if len(c) >= 2 and c in self.ko_blob:
                return True
            if len(c) == 1 and c in self.ko_stems:
                return True
        return False

    def has(self, term: str, lang: str) -> bool:
        if "\x00" in term or (lang == "ko" and HANGUL.search(term)):
            return self.has_ko(term.split("\x00"))
        return self.has_stem(term)
