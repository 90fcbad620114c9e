"""A deterministic synthetic site corpus in five languages, and questions about it.

Each language has a vocabulary: its function words at the head of a Zipf curve,
then a few hundred real business-site words mixed into several thousand generated
words that look like the language (syllables, letters, endings). Inflected forms
(Estonian cases, Russian endings, Korean particles, plurals) are separate entries
sharing their lemma's weight, so the stemmer in sidecar.searchtext has work to do.
Shared product codes and brand names appear in every language.

Everything is seeded: the same seed gives the same corpus, byte for byte.
"""
from __future__ import annotations

import hashlib
import itertools
import random
from dataclasses import dataclass, field

from sidecar.searchtext import index_text, index_tokens

from .words import CONTENT, FUNCTION, QUESTION, words

SEED = 20250101
LANGS = ("et", "en", "ru", "es", "ko")
# Share of the site's chunks per language: an Estonian business (default language
# et) with English and Russian versions, some Spanish and very little Korean.
CORPUS_MIX = {"et": 0.45, "en": 0.25, "ru": 0.15, "es": 0.12, "ko": 0.03}
DEFAULT_LANG = "et"
# Visitors' languages (the chat bench and the "mixed" query kind).
VISITOR_MIX = {"et": 0.40, "en": 0.25, "ru": 0.20, "es": 0.10, "ko": 0.05}
GENERATED_WORDS = {"et": 7000, "en": 7000, "ru": 7000, "es": 6000, "ko": 3000}
ZIPF_S = 1.05
ZIPF_Q = 2.7  # Zipf-Mandelbrot offset: the head is a little flatter than pure Zipf

_SYLLABLES = {
    "en": (["b", "br", "c", "ch", "cl", "d", "dr", "f", "fl", "g", "gr", "h", "j", "k", "l", "m", "n", "p",
            "pl", "pr", "r", "s", "sh", "sk", "st", "t", "tr", "v", "w"],
           ["a", "e", "i", "o", "u", "ea", "ou", "ai", "oo"],
           ["", "", "n", "r", "s", "t", "l", "nd", "st", "ck", "m"],
           ["", "", "", "ing", "er", "ion", "ly", "ment", "ness", "able"]),
    "et": (["k", "l", "m", "n", "p", "r", "s", "t", "v", "h", "j", "", "kr", "pr", "st"],
           ["a", "e", "i", "o", "u", "õ", "ä", "ö", "ü", "aa", "ee", "ii", "uu", "ei", "ai", "äe"],
           ["", "", "l", "n", "s", "t", "k", "r", "m", "ll", "tt", "kk"],
           ["", "", "ne", "us", "ja", "mine", "ik", "lik", "la", "ke", "tus"]),
    "ru": (["б", "в", "г", "д", "ж", "з", "к", "л", "м", "н", "п", "р", "с", "т", "ф", "х", "ч", "ш", "ст",
            "пр", "кр", "гр", "тр"],
           ["а", "е", "и", "о", "у", "я", "ы", "ю", "ё"],
           ["", "", "н", "р", "л", "с", "т", "к", "м"],
           ["", "", "ость", "ение", "ка", "ный", "ник", "ство", "ать", "ица", "ский"]),
    "es": (["b", "c", "d", "f", "g", "l", "m", "n", "p", "r", "s", "t", "v", "ch", "br", "tr", "pl", "gr"],
           ["a", "e", "i", "o", "u", "ia", "ue", "io", "ie"],
           ["", "", "", "n", "r", "s", "l"],
           ["", "", "ción", "dad", "ero", "ista", "mente", "ado", "ante", "oso", "ía"]),
}
_FORMS = {
    "et": ["", "", "", "s", "st", "le", "lt", "ga", "ks", "d", "de", "ta", "sse"],
    "es": ["", "", "", "s"],
    "en": ["", "", "", "s"],
    "ko": ["", "", "은", "는", "을", "를", "이", "가", "에", "에서", "의", "도", "으로"],
}
_RU_VOWEL_END = "аяоеиыуь"


def _ru_forms(word: str) -> list[str]:
    if word[-1] in _RU_VOWEL_END:
        stem = word[:-1]
        return [word, word, stem + "ы", stem + "у", stem + "ой", stem + "е", stem + "ами"]
    return [word, word, word + "а", word + "у", word + "ом", word + "е", word + "ы", word + "ах"]


def _forms(lang: str, word: str) -> list[str]:
    if lang == "ru":
        return _ru_forms(word)
    return [word + suffix for suffix in _FORMS[lang]]


def _generated_word(rng: random.Random, lang: str) -> str:
    if lang == "ko":
        n = rng.choice((2, 2, 2, 3, 3, 4))
        out = []
        for _ in range(n):
            initial = rng.choice((0, 2, 3, 5, 6, 7, 9, 11, 11, 12, 14, 15, 16, 17, 18))  # no tense consonants
            medial = rng.choice((0, 4, 8, 13, 18, 20, 1, 6, 12))  # a, eo, o, u, eu, i, ae, e, yo
            final = rng.choice((0, 0, 0, 4, 8, 16, 21, 1))       # -, n, l, m, ng, k
            out.append(chr(0xAC00 + (initial * 21 + medial) * 28 + final))
        return "".join(out)
    onsets, vowels, codas, suffixes = _SYLLABLES[lang]
    n = rng.choice((1, 2, 2, 2, 2, 3))
    word = "".join(rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas) for _ in range(n))
    if n < 3:
        word += rng.choice(suffixes)
    return word if len(word) >= 4 else word + rng.choice(vowels) + rng.choice(onsets[:8]) + rng.choice(vowels)


@dataclass
class Vocabulary:
    lang: str
    items: list[str]          # every form, for text
    cum: list[float]          # cumulative weights over items
    content: list[str]        # content lemmas by rank (no function words)
    content_cum: list[float]  # Zipf over content lemmas, for questions
    _ranges: dict = field(default_factory=dict, repr=False)

    def sample(self, rng: random.Random, k: int) -> list[str]:
        return rng.choices(self.items, cum_weights=self.cum, k=k)

    def content_words(self, rng: random.Random, k: int, lo: int = 0, hi: int | None = None) -> list[str]:
        """k content lemmas by Zipf weight, restricted to ranks [lo, hi)."""
        hi = hi or len(self.content)
        if (lo, hi) not in self._ranges:
            base = self.content_cum[lo - 1] if lo else 0.0
            self._ranges[(lo, hi)] = (self.content[lo:hi], [c - base for c in self.content_cum[lo:hi]])
        pool, cum = self._ranges[(lo, hi)]
        return rng.choices(pool, cum_weights=cum, k=k)


def _zipf(rank: int) -> float:
    return 1.0 / (rank + ZIPF_Q) ** ZIPF_S


def build_vocabulary(lang: str, seed: int = SEED) -> Vocabulary:
    rng = random.Random(f"vocab-{seed}-{lang}")
    function = words(FUNCTION, lang)
    rng.shuffle(function)
    real = words(CONTENT, lang)
    generated: list[str] = []
    seen = set(function) | set(real)
    while len(generated) < GENERATED_WORDS[lang]:
        w = _generated_word(rng, lang)
        if w not in seen:
            seen.add(w)
            generated.append(w)
    content = generated[:]
    # Real words land among the first ~1,500 ranks: a site talks about its business.
    for w in rng.sample(real, len(real)):
        content.insert(rng.randrange(0, min(1500, len(content))), w)
    items, weights = [], []
    for rank, w in enumerate(function + content, start=1):
        forms = [w] if rank <= len(function) else _forms(lang, w)
        for f in forms:
            items.append(f)
            weights.append(_zipf(rank) / len(forms))
    content_weights = [_zipf(r) for r in range(1, len(content) + 1)]
    return Vocabulary(lang, items, list(itertools.accumulate(weights)), content,
                      list(itertools.accumulate(content_weights)))


def build_codes(seed: int = SEED) -> tuple[list[str], list[float]]:
    """Product codes and brand names shared by every language, Zipf-weighted."""
    rng = random.Random(f"codes-{seed}")
    letters = "ABCDEFGHJKLMNPRSTVXZ"
    codes: list[str] = []
    for i in range(400):
        if i % 3 == 2:
            codes.append(rng.choice(["Nord", "Vel", "Aur", "Sol", "Bal", "Kal", "Mar", "Tal", "Lum", "Rix"])
                         + rng.choice(["ika", "ora", "ex", "ia", "on", "eon", "ta", "ix"]))
        else:
            codes.append("".join(rng.choices(letters, k=rng.choice((1, 2, 2, 3)))) + str(rng.randrange(2, 990)))
    codes = list(dict.fromkeys(codes))
    return codes, list(itertools.accumulate(_zipf(r) for r in range(1, len(codes) + 1)))


class Corpus:
    """Vocabularies and generators; cheap to rebuild in a worker process."""

    def __init__(self, seed: int = SEED):
        self.seed = seed
        self.vocab = {lang: build_vocabulary(lang, seed) for lang in LANGS}
        self.codes, self.codes_cum = build_codes(seed)
        self._piece_tokens: dict[str, dict[str, str]] = {lang: {} for lang in LANGS}

    def index_text(self, text: str, lang: str) -> str:
        """Exactly sidecar.searchtext.index_text(text, lang), memoised per
        whitespace-separated piece: `\\w+` runs never cross whitespace and casefold works
        character by character, so tokenising piece by piece gives the same tokens.
        The loader checks one chunk per batch against index_text itself."""
        memo = self._piece_tokens[lang]
        out = []
        for piece in text.split():
            toks = memo.get(piece)
            if toks is None:
                toks = memo[piece] = " ".join(index_tokens(piece, lang))
            if toks:
                out.append(toks)
        return " ".join(out)

    # --- text -------------------------------------------------------------------------
    def _code(self, rng: random.Random) -> str:
        return rng.choices(self.codes, cum_weights=self.codes_cum)[0]

    def _number(self, rng: random.Random, lang: str) -> str:
        kind = rng.randrange(4)
        if kind == 0:
            return f"{rng.randrange(5, 400)} €" if lang != "ko" else f"{rng.randrange(5, 400) * 1000}원"
        if kind == 1:
            return f"{rng.randrange(7, 21)}:{rng.choice(('00', '30'))}"
        if kind == 2:
            return str(rng.randrange(2015, 2027))
        return f"{rng.randrange(1, 60)}"

    def sentence(self, rng: random.Random, lang: str, pool: list[str]) -> str:
        n = rng.randint(8, 20)
        if len(pool) < n:
            pool.extend(self.vocab[lang].sample(rng, 200))
        ws = pool[-n:]
        del pool[-n:]
        if rng.random() < 0.2:
            ws.insert(rng.randrange(len(ws) + 1), self._code(rng))
        if rng.random() < 0.15:
            ws.insert(rng.randrange(len(ws) + 1), self._number(rng, lang))
        s = " ".join(ws)
        return s[:1].upper() + s[1:] + "."

    def chunk(self, rng: random.Random, lang: str, pool: list[str]) -> str:
        target = rng.randint(430, 760)  # the last sentence runs past it: chunks of ~500-900 characters
        parts, size = [], 0
        while size < target:
            s = self.sentence(rng, lang, pool)
            parts.append(s)
            size += len(s) + 1
        return " ".join(parts)

    def title(self, rng: random.Random, lang: str) -> str:
        ws = self.vocab[lang].content_words(rng, rng.randint(2, 6), 0, 3000)
        if rng.random() < 0.25:
            ws.append(self._code(rng))
        t = " ".join(ws)
        return t[:1].upper() + t[1:]

    def reply_text(self, rng: random.Random, lang: str) -> str:
        pool: list[str] = []
        return " ".join(self.sentence(rng, lang, pool) for _ in range(rng.randint(2, 4)))

    # --- documents --------------------------------------------------------------------
    def batch(self, label: str, batch_no: int, n_chunks: int) -> "Batch":
        """Documents with exactly n_chunks chunks in all: rows without ids (the loader
        numbers them), plus the distinct index terms of the batch."""
        rng = random.Random(f"batch-{self.seed}-{label}-{batch_no}")
        langs, weights = list(CORPUS_MIX), list(CORPUS_MIX.values())
        pools = {lang: [] for lang in LANGS}
        docs, chunks, terms = [], [], set()
        chars = 0
        while len(chunks) < n_chunks:
            lang = rng.choices(langs, weights)[0]
            title = self.title(rng, lang)
            n = min(rng.choice((1, 1, 2, 2, 3, 3, 4, 5, 6)), n_chunks - len(chunks))
            body = [self.chunk(rng, lang, pools[lang]) for _ in range(n)]
            doc_index = len(docs)
            source = rng.choice(("page", "post", "post", "product"))
            digest = hashlib.sha256("\x00".join([lang, title, *body]).encode()).digest()
            docs.append((source, f"{label}-{batch_no}-{doc_index}", lang, title, digest))
            for seq, content in enumerate(body):
                search = self.index_text(f"{title}\n{content}", lang)
                if seq == 0 and doc_index == 0:  # the memoised form must equal sidecar's own
                    assert search == index_text(f"{title}\n{content}", lang), "index_text mismatch"
                terms.update(search.split())
                chunks.append((doc_index, lang, seq, content, search))
                chars += len(content)
        return Batch(docs, chunks, terms, chars)

    # --- questions --------------------------------------------------------------------
    def question(self, rng: random.Random, lang: str, *, lo: int = 0, hi: int = 2500,
                 words_min: int = 1, words_max: int = 4, code: float = 0.15) -> str:
        ws = self.vocab[lang].content_words(rng, rng.randint(words_min, words_max), lo, hi)
        ws = [rng.choice(_forms(lang, w)) if lang != "ru" or rng.random() < 0.5 else w for w in ws]
        if rng.random() < code:
            ws.insert(rng.randrange(len(ws) + 1), self._code(rng))
        q = f"{rng.choice(QUESTION[lang])} {' '.join(ws)}?"
        return q[:1].upper() + q[1:]

    def rare_question(self, rng: random.Random, lang: str) -> str:
        """Words from the long tail and a product code from the tail of the code list:
        few chunks in the visitor's language match, so the default language must fill."""
        ws = self.vocab[lang].content_words(rng, rng.randint(1, 2), 1500, None)
        code = self.codes[rng.randrange(60, len(self.codes))]
        return f"{rng.choice(QUESTION[lang])} {' '.join(ws)} {code}?"

    def price_list(self, rng: random.Random, lang: str = DEFAULT_LANG, chars: int = 3000) -> str:
        lines, size = [], 0
        while size < chars:
            name = " ".join(self.vocab[lang].content_words(rng, rng.randint(2, 4), 0, 1500))
            extra = f" ({self._code(rng)})" if rng.random() < 0.3 else ""
            line = f"{name[:1].upper()}{name[1:]}{extra} — {rng.randrange(9, 480)} €"
            if rng.random() < 0.3:
                line += f" / {rng.choice(('tund', 'kuu', 'kord', 'tk'))}"
            lines.append(line)
            size += len(line) + 1
        return "\n".join(lines)


@dataclass
class Batch:
    docs: list[tuple]     # (source, source_id, lang, title, content_hash)
    chunks: list[tuple]   # (doc_index, lang, seq, content, search_text)
    terms: set[str]
    chars: int


_WORKER: Corpus | None = None


def _worker_batch(args: tuple[int, str, int, int]) -> Batch:
    """multiprocessing entry point: one Corpus per worker process, same seed."""
    global _WORKER
    seed, label, batch_no, n = args
    if _WORKER is None or _WORKER.seed != seed:
        _WORKER = Corpus(seed)
    return _WORKER.batch(label, batch_no, n)
