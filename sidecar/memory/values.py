"""Values a text states, for the grounding check: e-mails, URLs, phones, numbers,
amounts, dates, months, weekdays, currencies, and names.

A value is compared as a value, never as a word: "1 200 €" and "1200€", "four" and
"4", "14.05" and "14 May" are the same, "Friday" and "Saturday" are not however
alike their stems. Getting one wrong is the worst error the check can let through
(a wrong price or phone number read back as a premise), so values are extracted
here, apart from the word matching, and checked exactly before any word is.

Number, month, weekday, scale and currency words are the languages' own (sidecar.lang).
What stays here is how values are written, which does not depend on the customer's
language: a Russian customer writes "€", "10k" and "+372 …" too, so signs, every
language's scale and currency words, phone and date shapes are one grammar for every text.
"""
from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from .. import lang as languages
from .. import money
from .words import HANGUL, WORD, ko_candidates, ko_stem

# --------------------------------------------------------------------------- number words

# Words inside a written-out number ("two hundred and fifty"), in any language's text.
_CONNECTORS = frozenset(w for lg in languages.LANGS for w in lg.number_connectors)
_SCALE = {100, 1000, 10**6}

# Scale words after digits ("10k", "5 тыс.", "3만5천"), every language's: a customer writes
# them in any language's text.
_SCALES = money.Scales({w: n for lg in languages.LANGS for w, n in lg.money_scales.items()})
_SCALE_AFTER = re.compile(r"\s?(" + _SCALES.run + ")")


def _canon(x: Decimal) -> str:
    if x == x.to_integral_value():
        return str(int(x))
    return format(x.normalize(), "f")


_NUM = re.compile(r"(?<![\d])\d+(?:(?:[.,/](?=\d)|[ \u00a0\u202f\u2009](?=\d{3}(?!\d)))\d+)*")
_PHONE = re.compile(r"(?<![\d@])(?:\+\s?)?\d[\d \t().\-/]{5,}\d(?!\d)")
_DATE_LIKE = re.compile(r"^(\d{1,2})[./](\d{1,2})[./](\d{2,4})$|^\d{4}-\d{1,2}-\d{1,2}$|^\d{4}\s?[-/]\s?\d{4}$")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"']+|\b(?:[a-z0-9-]+\.)+(?:com|net|org|info|biz|io|co|eu|ee|ru|es|kr|"
                  r"uk|de|fi|lv|lt|fr|it|shop|store|app|online|site)\b(?:/[^\s<>\"']*)?", re.IGNORECASE)
# "6 m²" (NFKC: "6 m2"), "75 м³": the square or the cube of a length unit after a number is
# part of the unit, not a value of 2 or 3.
_POWER = re.compile(r"(?<=\d)\s?[kcdкдс]?[mм]([23])(?!\w)")
# "7-year-old": the value is the 7; the words around it are not content words to find.
AGE = re.compile(r"(?<=\d)[\s-]*(?:years?|yrs?)[\s-]*old\b", re.IGNORECASE)


def _number_alternatives(s: str, comma_decimals: bool = False) -> tuple[list[frozenset[str]], set[str]]:
    """A number as written -> (what the fact could mean: alternative sets of atoms,
    every atom the customer could be said to have said). The first is the likeliest
    reading: a decimal, unless the text's language writes decimals with a comma
    (`comma_decimals`) and the number is a day and a month written with a dot ("14.03")."""
    parts = re.split(r"([.,/ \u00a0\u202f\u2009])", s)
    groups, seps = parts[0::2], parts[1::2]
    alts: list[frozenset[str]] = []
    if not seps:
        a = _canon(Decimal(s))
        return [frozenset([a])], {a}
    # Thousands and decimal separators, either convention ("1,200.50" / "1.200,50").
    for dec, thou in ((".", ", \u00a0\u202f\u2009"), (",", ". \u00a0\u202f\u2009")):
        if "/" in seps:
            break
        int_groups = groups
        frac = ""
        if seps[-1] == dec:
            int_groups, frac = groups[:-1], groups[-1]
            if any(sp not in thou for sp in seps[:-1]):
                continue
        elif any(sp not in thou for sp in seps):
            continue
        if any(len(g) != 3 for g in int_groups[1:]):
            continue
        try:
            v = Decimal("".join(int_groups) + ("." + frac if frac else ""))
        except InvalidOperation:
            continue
        alts.append(frozenset([_canon(v)]))
    # A date (14.05, 31/08/2025) or a time/ratio: the parts, with the month if one fits.
    if set(seps) <= {".", "/"} and 2 <= len(groups) <= 3:
        ints = [int(g) for g in groups]
        base = {str(i) for i in ints}
        alts.append(frozenset(base))
        if ints[0] <= 31 and 1 <= ints[1] <= 12:
            day_month = frozenset({str(ints[0]), f"M{ints[1]}"} | {str(i) for i in ints[2:]})
            # "14.03" where a decimal is written "14,03": a date before all else
            dotted_date = comma_decimals and seps == ["."] and len(groups[1]) == 2 and ints[0] >= 1
            alts.insert(0 if dotted_date else len(alts), day_month)
        if 1 <= ints[0] <= 12 and ints[1] <= 31:
            alts.append(frozenset({f"M{ints[0]}", str(ints[1])} | {str(i) for i in ints[2:]}))
    atoms = set().union(*alts) if alts else set()
    atoms |= {_canon(Decimal(g)) for g in groups}
    if not alts:
        alts.append(frozenset(_canon(Decimal(g)) for g in groups))
    return alts, atoms


# --------------------------------------------------------------------------- months, weekdays, currency

# Currencies: signs and codes wherever they stand, and every language's currency words: a
# Latin or Cyrillic one as a whole word anywhere ("pays in euros"), a Hangul one right after
# a number or its scale ("5천원"), since "원" alone also starts "원하다" (to want).
_CURRENCY_WORDS = {w.casefold(): code for lg in languages.LANGS for w, code in lg.currency_words.items()}
_WRITTEN = [w for w in _CURRENCY_WORDS if not HANGUL.search(w)]
_GLUED = [w for w in _CURRENCY_WORDS if HANGUL.search(w)]
_GLUED_SCALES = "".join(w for w in _SCALES.values if HANGUL.fullmatch(w))  # "천", "만"
# What a sign, a code or a written word can begin with: looked for first, so that the long
# alternation is tried only where a currency can begin.
_STARTS = ({sign[0] for sign in money.SIGNS} | {code[0] for code in money.CODES}
           | {c for w in _WRITTEN for c in (w[0], w[0].upper())})
_CURRENCY = re.compile(
    "(?=[" + re.escape("".join(sorted(_STARTS))) + "])(?:" + "|".join((
        "(?P<sign>" + "|".join(re.escape(sign) for sign in sorted(money.SIGNS, key=len, reverse=True)) + ")",
        r"(?<![^\W\d_])(?P<code>" + "|".join(money.CODES) + r")(?!\w)",
        r"(?<![^\W\d_])(?P<word>(?i:" + money.words_alternation(_WRITTEN) + "))",
    )) + ")"
    r"|(?<=[\d" + _GLUED_SCALES + r"])\s?(?P<after>" + money.words_alternation(_GLUED) + ")")


def strip_accents(w: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", w) if not unicodedata.combining(c))


class _ValueWords:
    """A language's number, month and weekday words, empty for a language without a
    module (its values are then found in digits only)."""

    def __init__(self, lang: str):
        own = languages.find(lang)
        self.numbers = own.number_words if own else {}
        self.months = own.months if own else {}
        self.capital_months = bool(own) and own.month_names_capitalised
        self.month_after_number = own.month_after_number if own else None
        self.short_year = own.short_year if own else None
        # A numeral that counts only before a counter ("두 대", "세 번째"), not before a scale
        # word, a currency or a unit ("세 월" is not "3 months").
        counted = own.counted_number_words if own else {}
        self.counted_values = counted
        self.counted = re.compile(r"(?<![^\W\d_])(" + "|".join(counted) + r")\s?("
                                  + "|".join(sorted(set(own.counters), key=len, reverse=True)) + ")") \
            if counted else None
        # Where words carry their particles, a weekday is found anywhere in one ("매주월요일에").
        self.weekday_in_word = re.compile("|".join(map(re.escape, own.weekdays))) \
            if own and own.word_endings and own.weekdays else None
        self.month_prefixes = own.month_prefixes if own else ()
        self.day_ordinals = own.day_ordinals if own else {}
        self.day_of = own.day_of if own else ()
        self.weekdays = own.weekdays if own else {}
        self.weekday_prefixes = own.weekday_prefixes if own else ()
        self.fold_accents = own.fold_accents if own else False
        self.comma_decimals = bool(own) and own.decimal_mark == ","

    def key(self, lw: str) -> str:
        return strip_accents(lw) if self.fold_accents else lw

    def weekday(self, lw: str) -> int | None:
        """The weekday (Monday = 1) a lower-case word names, in any of its forms."""
        day = self.weekdays.get(self.key(lw))
        if day is None:
            day = next((n for p, n in self.weekday_prefixes if lw.startswith(p)), None)
        if day is None and self.weekday_in_word:
            found = self.weekday_in_word.search(lw)
            day = self.weekdays[found.group()] if found else None
        return day


@lru_cache(maxsize=64)
def _value_words(lang: str) -> _ValueWords:
    return _ValueWords(lang)


def weekday_of(word: str, lang: str) -> int | None:
    """The weekday (Monday = 1) a word names in `lang`, in any of its forms; None for none."""
    return _value_words(lang).weekday(word.casefold())


# --------------------------------------------------------------------------- values


class Values:
    """Values stated in a text: e-mails, URLs, phones, numbers, months, currencies."""

    def __init__(self, text: str, lang: str, fact: bool):
        self.emails: list[str] = []
        self.urls: list[str] = []
        self.phones: list[str] = []         # digit strings
        self.numbers: list[tuple[str, list[frozenset[str]]]] = []  # (as written, alternatives)
        self.atoms: set[str] = set()        # everything said, for the customer side
        self.currencies: set[str] = set()
        self.spans: list[tuple[int, int]] = []
        self._scan(text, lang, fact)

    def _blank(self, text: str, start: int, end: int) -> str:
        self.spans.append((start, end))
        return text[:start] + " " * (end - start) + text[end:]

    def _scan(self, text: str, lang: str, fact: bool) -> None:
        for m in list(_EMAIL.finditer(text)):
            self.emails.append(m.group().casefold())
            text = self._blank(text, m.start(), m.end())
        for m in list(_URL.finditer(text)):
            u = m.group().rstrip(".,;:!?)").casefold()
            u = re.sub(r"^https?://", "", u)
            u = re.sub(r"^www\.", "", u).rstrip("/")
            self.urls.append(u)
            text = self._blank(text, m.start(), m.start() + len(m.group().rstrip(".,;:!?)")))
        for m in list(_CURRENCY.finditer(text)):
            if m.group("sign"):
                self.currencies.add(money.SIGNS[m.group()])
                continue
            word = m.group("word") or m.group("after")
            self.currencies.add(_CURRENCY_WORDS[word.casefold()] if word else m.group("code"))
            text = self._blank(text, m.start(), m.end())  # a value, not a content word
        for m in list(_PHONE.finditer(text)):
            raw = m.group().strip()
            digits = re.sub(r"\D", "", raw)
            if not 7 <= len(digits) <= 15 or _DATE_LIKE.match(raw):
                continue
            # A long amount ("1 200 000") is the same digits either way.
            if re.fullmatch(r"\d{1,3}(?:[ .,\u00a0]\d{3})+", raw) and not fact:
                self.atoms.add(digits)
            self.phones.append(digits)
            text = self._blank(text, m.start(), m.end())
        for m in list(_POWER.finditer(text)):
            text = self._blank(text, m.start(1), m.end(1))
        own = _value_words(lang)
        for m in list(_NUM.finditer(text)):
            month = own.month_after_number.match(text, m.end()) \
                if own.month_after_number and m.group().isdigit() else None
            if month and 1 <= int(m.group()) <= 12:
                self.numbers.append((text[m.start():month.end()], [frozenset([f"M{int(m.group())}"])]))
                self.atoms.add(f"M{int(m.group())}")
                text = self._blank(text, m.start(), month.end())
                continue
            two_digits = own.short_year and len(m.group()) == 2 and m.group().isdigit()
            year = own.short_year.match(text, m.end()) if two_digits else None
            if year:
                # "98년식" is a car of 1998; no customer speaks of a model year fifty years ahead
                full = str(int(m.group()) + (2000 if int(m.group()) < 50 else 1900))
                self.numbers.append((m.group(), [frozenset([full])]))
                self.atoms.add(full)
                text = self._blank(text, m.start(), m.end())  # "년" left as in "2019년식"
                continue
            alts, atoms = _number_alternatives(m.group(), own.comma_decimals)
            end = m.end()
            mm = _SCALE_AFTER.match(text, end)
            if mm:
                mult = _SCALES.factor(mm.group(1))
                scaled = [frozenset(_canon(Decimal(a) * mult) for a in alt if not a.startswith("M")) for alt in alts
                          if all(not a.startswith("M") for a in alt)]
                if scaled:
                    atoms |= set().union(*scaled)
                    alts = scaled
                end = mm.end()
            self.numbers.append((m.group(), alts))
            self.atoms |= atoms
            text = self._blank(text, m.start(), end)
        if own.counted:
            for m in list(own.counted.finditer(text)):
                v = own.counted_values[m.group(1)]
                if fact and v == 1:
                    continue
                self.numbers.append((m.group(), [frozenset([str(v)])]))
                self.atoms.add(str(v))
                text = self._blank(text, m.start(), m.start() + len(m.group(1)))
        self._words(text, lang, fact)
        self.text = text

    def _words(self, text: str, lang: str, fact: bool) -> None:
        """Number words (combined: "twenty-five", "treinta y cinco") and month names."""
        own = _value_words(lang)
        table = own.numbers
        months = own.months
        prefixes = own.month_prefixes
        run: list[tuple[int, int, int]] = []  # (start, end, value)

        def month_of(w: str) -> int | None:
            lw = w.casefold()
            if own.capital_months:
                return months.get(lw) if w[0].isupper() or not fact else None
            if lang == "ko":  # "삼월에": the month before its particle
                return next((months[c] for c in ko_candidates(lw) if c in months), None)
            found = months.get(own.key(lw))
            return found if found is not None else next((n for p, n in prefixes if lw.startswith(p)), None)

        def day_before_month(i: int) -> int | None:
            """The day tokens[i] says, when it is an ordinal right before a month."""
            day = own.day_ordinals.get(own.key(tokens[i].group().casefold()))
            if day is None:
                return None
            for j in range(i + 1, min(i + 3, len(tokens))):
                if text[tokens[j - 1].end():tokens[j].start()].strip():
                    return None
                if month_of(tokens[j].group()) is not None:
                    return day
                if tokens[j].group().casefold() not in own.day_of:
                    return None
            return None

        def flush(dated: bool = False) -> None:
            """Write the number the run says; `dated`, when it ends in a day said as an
            ordinal before its month."""
            if not run:
                return
            total = current = 0
            for _, _, v in run:
                if v in _SCALE:
                    if v == 100:
                        current = max(current, 1) * 100
                    else:
                        total += max(current, 1) * v
                        current = 0
                else:
                    current += v
            value = total + current
            written = " ".join(text[s:e] for s, e, _ in run)
            singles = {str(v) for _, _, v in run}
            if fact:
                if dated or not (len(run) == 1 and run[0][2] == 1):
                    self.numbers.append((written, [frozenset([str(value)])]))
            else:  # each part too ("twenty five"), but a day's parts are no values ("twenty-first")
                self.atoms |= {str(value)} if dated else singles | {str(value)}
            for s, e, _ in run:
                self.spans.append((s, e))
            run.clear()

        last_end = -1
        tokens = list(WORD.finditer(text))
        for i, m in enumerate(tokens):
            w = m.group()
            lw = w.casefold()
            if lang == "ko":
                v = next((table[c] for c in ko_candidates(lw) if c in table), None)
            else:
                v = table.get(own.key(lw))
                if v == 1 and fact:
                    v = None  # "one": an article or pronoun far more often than a count
            day = day_before_month(i) if v is None else None
            if day is not None or v is not None:
                gap = text[last_end:m.start()] if run else ""
                if run and not re.fullmatch(r"[\s\-]*", gap):
                    flush()
                run.append((m.start(), m.end(), day if day is not None else v))
                last_end = m.end()
                if day is not None:  # "twenty-first", "двадцать пятого": the day ends its number
                    flush(dated=True)
                continue
            if run and lw in _CONNECTORS:
                continue
            flush()
            month = month_of(w)
            if month is not None:
                self.atoms.add(f"M{month}")
                if fact:
                    self.numbers.append((w, [frozenset([f"M{month}"])]))
                self.spans.append((m.start(), m.end()))
                continue
            day = own.weekday(lw)
            if day is not None:
                self.atoms.add(f"D{day}")
                if fact:
                    self.numbers.append((w, [frozenset([f"D{day}"])]))
                self.spans.append((m.start(), m.end()))
        flush()


def blank_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """The text with the given spans (values already checked) blanked out."""
    chars = list(text)
    for s, e in spans:
        for i in range(s, min(e, len(chars))):
            chars[i] = " "
    return "".join(chars)


# --------------------------------------------------------------------------- kinds of value

@lru_cache(maxsize=64)
def _kind_words(lang: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """A language's words that say a text states a value of a kind without the value
    itself being found ("my e-mail", "call me", "moved"): by kind, one pattern each,
    matched at the start of a word."""
    own = languages.find(lang)
    if own is None:
        return ()
    email = tuple(w for w in own.contact_labels.get("email", ()) if w not in own.address_words)
    lists = (("phone", own.contact_labels.get("phone", ())), ("email", email), ("residence", own.residence_words))
    return tuple((kind, languages.word_starts(ws)) for kind, ws in lists if ws)


def atom_kind(atom: str) -> str:
    """The kind of value an atom of `Values` is: "month" ("M5"), "weekday" ("D6"), "year" or "count";
    or "frequency" ("F14"), of dedup's reading of how often (sidecar.memory.frequency)."""
    if atom[:1] == "M":
        return "month"
    if atom[:1] == "D":
        return "weekday"
    if atom[:1] == "F":
        return "frequency"
    if len(atom) == 4 and atom[:2] in ("19", "20"):
        return "year"
    return "count"


def value_kinds(text: str, lang: str) -> frozenset[str]:
    """The kinds of value a text states or speaks of: "count", "year", "month",
    "weekday", "phone", "email", "residence". A customer who corrects a remembered
    value names the new one ("we'll be about 60 now", "I moved to Tartu") and shares no
    word with the memory that holds the old one ("Expects about 90 guests.", "Lives in
    Pärnu."); the kind is what the two have in common (sidecar.memory.recall)."""
    found = Values(unicodedata.normalize("NFKC", text), lang, fact=True)
    kinds = {atom_kind(atom) for _, alts in found.numbers for atom in (alts[0] if alts else ())}
    kinds |= {kind for kind, values in (("email", found.emails), ("phone", found.phones)) if values}
    kinds |= {kind for kind, pattern in _kind_words(lang) if pattern.search(text)}
    return frozenset(kinds)


# --------------------------------------------------------------------------- names

# Sentence ends a capitalised word may follow without being a name: abbreviations
# whose dot does not end a sentence, in any language's text ("Dr.", "ул.").
_ABBREV = frozenset(w for lg in languages.LANGS for w in lg.abbreviations)
_NAMEWORD = re.compile(r"[^\W\d_]+(?:['’\-][^\W\d_]+)*")
_KO = languages.get("ko")
# Korean names have no capitals; they are caught before a title or after "이름은".
_KO_NAME = re.compile(r"(?<![\uac00-\ud7a3])([\uac00-\ud7a3]{2,4}?)\s?(?:" + "|".join(_KO.name_titles) + r")"
                      r"|(?:" + "|".join(_KO.name_intros) + r")[은는이]?\s*:?\s*([\uac00-\ud7a3]{2,4})")
_KO_NOT_NAMES = frozenset(_KO.framing) | frozenset(_KO.function_words)


def _latin_or_cyrillic(ch: str) -> bool:
    name = unicodedata.name(ch, "")
    return name.startswith(("LATIN", "CYRILLIC"))


def capitalised_names(fact: str, spans: list[tuple[int, int]]) -> list[str]:
    """Capitalised Latin/Cyrillic words that do not start a sentence."""
    out: list[str] = []
    for m in _NAMEWORD.finditer(fact):
        w = m.group()
        if not w[0].isupper() or not _latin_or_cyrillic(w[0]) or w == "I":
            continue
        if any(s <= m.start() < e for s, e in spans):
            continue
        before = fact[: m.start()].rstrip().rstrip("\"'«“„‘([{–—-•*")
        before = before.rstrip()
        if not before or before[-1] in "!?…:;\n":
            continue
        if before[-1] == ".":
            prev = re.search(r"(\w+)\.$", before)
            if not prev or prev.group(1).casefold() not in _ABBREV:
                continue
        out.append(w)
    return out


def ko_names(fact: str) -> list[str]:
    """Korean names: a word before a title ("이수진 선생님") or after "이름은", unless
    it is a framing or function word ("고객님")."""
    out: list[str] = []
    for m in _KO_NAME.finditer(fact):
        name = m.group(1) or m.group(2)
        if any(c in _KO_NOT_NAMES for c in ko_candidates(name)):
            continue
        out.append(name)
    return out


def titled_words(fact: str, lang: str) -> list[str]:
    """In a language written without capitals (one with `name_titles`), every word a fact
    puts before a title or after a word introducing a name ("담당 디자이너 수진 쌤"), as
    written; none in any other."""
    own = languages.find(lang)
    return ko_names(fact) if own is not None and own.name_titles else []


def place_words(fact: str, lang: str) -> list[str]:
    """In a language written without capitals (one with `place_endings`), the parts of an
    address: two or more words in a row, each of two syllables or more ending as an
    address's part does once its particle is stripped ("해운대구 우동이다": "해운대구",
    "우동"); none in any other."""
    own = languages.find(lang)
    if own is None or not own.place_endings:
        return []
    out: list[str] = []
    run: list[str] = []
    end = 0
    for m in HANGUL.finditer(fact):
        stem = ko_stem(m.group())
        part = len(stem) >= 2 and stem.endswith(own.place_endings)
        if not part or (run and fact[end:m.start()].strip(" ,")):  # the run ends here
            out.extend(run if len(run) >= 2 else ())
            run = []
        if part:
            run.append(stem)
        end = m.end()
    out.extend(run if len(run) >= 2 else ())
    return out


def titled_names(fact: str, lang: str) -> list[str]:
    """The name of titled_words: of two, the first names the role ("피아노 선생님은 백지호
    선생님", the piano teacher is Baek Jiho), so the last is the name."""
    return titled_words(fact, lang)[-1:]
