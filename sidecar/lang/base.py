"""What the sidecar knows about one language, declared once for every language.

Each module of this package (en.py, et.py, …) fills one `Language`; the code that
reads text (sidecar.searchtext, sidecar.memory.*, the offline provider, the
forget read-back) takes its word lists from there instead of keeping its own copy,
so a language is added, reviewed and corrected in one file.

Every field is filled in every language. Where a language has nothing for a field,
the module sets it to an empty value with a comment saying why (Korean has no
stopwords because its question words are removed before bigramming; Estonian
writes "kakskümmend viis" without a connector), and tests/test_lang.py lists those
gaps explicitly, so a field is never left empty by oversight.

Words are written in their surface forms: the code that uses a list stems or folds
it the way it folds the text it compares with (searchtext's Snowball stemming,
grounding's Korean ending stripping), so a list never goes stale when a stemmer
changes. Most lists are matched at the start of a word, so that a stem takes its
endings; in those lists an item ending in "$" (`WHOLE`) stands only as a whole word.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping


def words(text: str) -> tuple[str, ...]:
    """Word lists are written as text, one place to read them in any script."""
    return tuple(text.split())


def sides(text: str) -> tuple[tuple[str, str], ...]:
    """Contrasts are written as text too, each as its two sides: "left/right upper/lower"."""
    return tuple((one, other) for one, other in (pair.split("/", 1) for pair in text.split()))


def groups(text: str) -> tuple[tuple[str, ...], ...]:
    """Synonyms are written as text too, one group per line: "kids children"."""
    return tuple(tuple(line.split()) for line in text.strip().splitlines() if line.strip())


def frozen(mapping: Mapping) -> Mapping:
    """A read-only view: a Language is shared by every request and must not change."""
    return MappingProxyType(dict(mapping))


# Lengths of the periods a frequency is said in, in days (period_units, period_words).
WEEK = 7.0
YEAR = 365.25
MONTH = YEAR / 12

WHOLE = "$"  # after a list item: the item stands as a whole word, not as a stem


def as_written(item: str) -> str:
    """A list item as its word is written, without the whole-word mark: for the readers
    that compare whole words anyway (a value's label)."""
    return item[:-len(WHOLE)] if item.endswith(WHOLE) else item


def word_starts(items: tuple[str, ...]) -> re.Pattern[str]:
    """A case-insensitive pattern for any of `items` (plain text, escaped here) at the
    start of a word, longest first, so that a stem takes its endings ("продал" finds
    "продали"). An item ending in `WHOLE` stands only as a whole word: Estonian "enam$"
    (any more) is not the start of "enamasti" (mostly)."""
    def one(item: str) -> str:
        if item.endswith(WHOLE):
            return re.escape(item[:-len(WHOLE)]) + r"(?!\w)"
        return re.escape(item)
    alternatives = "|".join(one(w) for w in sorted(items, key=lambda w: len(w.rstrip(WHOLE)), reverse=True))
    return re.compile(r"(?<!\w)(?:" + alternatives + ")", re.IGNORECASE)


def whole_words(items: tuple[str, ...]) -> re.Pattern[str]:
    """A case-insensitive pattern for any of `items` standing as a whole word.

    Written with lookarounds rather than \\b so that it holds for words of any
    script, including those that end in a non-word character."""
    return re.compile(r"(?<![\w])(?:" + "|".join(items) + r")(?![\w])", re.IGNORECASE)


# eq=False: languages are singletons compared by identity, and the mapping fields
# (dicts behind read-only views) are not hashable, which a generated __hash__ needs.
@dataclass(frozen=True, eq=False)
class Language:
    code: str  # ISO 639-1, as sidecar.langs.normalize_lang gives it

    # --- searchtext: what a question is searched for -------------------------------
    stopwords: tuple[str, ...]
    """Question words and fillers left out of FULLTEXT queries and of the offline
    provider's line matching ("kui palju", "сколько", "do you have"). Two-letter
    words are listed too: they never become tokens in lower case, but shouted ("OPEN
    ON SUNDAYS") they would be taken for acronyms."""
    question_words: tuple[str, ...]
    """For a language indexed as character bigrams: whole question words removed from
    the question text before the bigrams are made ("몇", "언제")."""
    question_particles: tuple[str, ...]
    """Particles and copulas that may follow a question word and go with it ("어디에서")."""
    question_fillers: tuple[str, ...]
    """Whole words of a bigrammed language that only frame a question ("있나요", "혹시")."""
    question_endings: tuple[str, ...]
    """Question and polite endings cut from a longer word ("설립되었나요" -> "설립")."""
    compound_kind: str
    """How the language writes compounds as one word ("finnic", "germanic",
    "hungarian"): the rules searchtext uses to guess a compound's head."""
    compound_suffixes: tuple[str, ...]
    """Derivational suffixes that begin like a compound's head and must not be cut
    off as one ("vaja|dusel")."""

    # --- memory: content words ------------------------------------------------------
    framing: tuple[str, ...]
    """Words that say how a fact is phrased, not what it is about (customer, wants,
    has, prefers, runs): exempt from the grounding content check, ignored by dedup."""
    light_words: tuple[str, ...]
    """Words that frame a thing without naming one of their own ("takes" and "dose" of a
    medicine, "holds" a pass): ignored by dedup, as framing is ("Takes 50 mg of sertraline
    daily." / "Daily sertraline dose is 50 mg."), but checked by grounding, where "cash we
    don't take" denies taking cash."""
    function_words: tuple[str, ...]
    """Function and negation words the stopwords leave out, also exempt from the
    grounding content check (a negation has its own rule); dedup counts none of them
    but the negations among the things a fact names ("only", "только")."""
    irregular_forms: Mapping[str, str]
    """Inflected forms the stemmer cannot bring to their base ("sent" -> "send", "tütre" ->
    "tütar", "щенка" -> "щенок"). The memory checks read the form's stem as the base's
    wherever it stands (words.base_stem), so one form stands for every form that stems
    alike ("tütrele", "tütrel")."""
    verbal_noun_endings: tuple[str, ...]
    """Endings that make a noun of a verb, as the stemmer leaves them: "kolimine" and
    "kolimise" stem to "kolimise", which less "mise" is "koli", the stem of "kolib" (moves).
    Dedup reads such a noun as its verb, so "Kolib 15. juunil." and "Kolimine on 15.
    juunil." name one thing; the verb's stem is often too short for the prefix tolerance."""
    verbal_noun_links: tuple[str, ...]
    """The form a verbal noun takes leading a compound ("kolimis|kuupäev", the date of
    moving): dedup reads the compound as the verb and the head ("koli", "kuupäev")."""
    verbal_noun_lookalikes: tuple[str, ...]
    """Words with a verbal noun's ending that are none ("eelmine", previous; "ülemine",
    upper): dedup keeps them whole."""
    word_endings: tuple[str, ...]
    """For a language without a Snowball stemmer: particles and endings stripped from
    a word, longest first ("빵집에서" -> "빵집")."""

    # --- memory: values a fact states ----------------------------------------------
    contact_labels: Mapping[str, tuple[str, ...]]
    """By kind ("phone", "email", "url", "name"): the words that label such a value
    ("phone", "número", "번호"), exempt when the fact states that value."""
    address_words: tuple[str, ...]
    """The labels of contact_labels that say "address" ("address", "адрес", "주소"): they label
    an e-mail ("Email address: …") but alone say no kind of value, since a postal address
    is no e-mail ("Delivery address: 12 Elm Street.")."""
    number_words: Mapping[str, int]
    """Number words and their value, in every inflected form ("четырьмя" -> 4)."""
    number_connectors: tuple[str, ...]
    """Words inside a written-out number ("twenty and five", "treinta y cinco")."""
    counted_number_words: Mapping[str, int]
    """Numerals that count only before a counter ("두 대" -> 2)."""
    counters: tuple[str, ...]
    """Counters that follow a number or a counted numeral ("4대", "두 명")."""
    number_units: tuple[str, ...]
    """Scale words, currency and other units that follow digits but not a counted
    numeral ("300만 원", "5월"): part of the value, not content words."""
    months: Mapping[str, int]
    """Month names, as written, and their number."""
    month_names_capitalised: bool
    """Whether month names are written with a capital: in a fact, one in lower case is
    then another word ("may", "march")."""
    month_after_number: re.Pattern[str] | None
    """What follows a number to make it a month, with the rest of its word ("3월에" is
    March, not a count of 3), in a language that writes months so; None in one that does not."""
    short_year: re.Pattern[str] | None
    """What follows two digits to make them a year ("19년식", a model year; "27년 8월"), in a
    language that writes years so; None in one that does not."""
    month_prefixes: tuple[tuple[str, int], ...]
    """Stems of inflected month names and their number ("сентябр" -> 9)."""
    day_ordinals: Mapping[str, int]
    """Ordinal words a day of the month is said with, in every form, and their number:
    read as that day only right before a month ("четырнадцатого марта", "the fourteenth
    of June"; "twenty-first", "двадцать пятого": the number word before adds)."""
    day_of: tuple[str, ...]
    """Words between such a day and its month ("of", "de")."""
    weekdays: Mapping[str, int]
    """Weekday names, as written, and their number (Monday = 1). In a language whose words
    carry their particles (`word_endings`), found anywhere in a word ("매주월요일에")."""
    weekday_prefixes: tuple[tuple[str, int], ...]
    """Stems of inflected weekday names and their number ("пятниц" -> 5)."""
    fold_accents: bool
    """Whether number, month and weekday names are looked up without accents:
    customers often leave them out ("miercoles", "sabado")."""
    decimal_mark: str
    """How the language writes a decimal: "," ("2,5 kg") or ".". Where it is a comma, a
    number written with a dot and two digits after it that name a month ("14.03", "1.10")
    is read first as a day and its month: that is how such a language writes a date.
    Either mark is still read both ways, so "2.5" and "2,5" stay a decimal everywhere."""
    abbreviations: tuple[str, ...]
    """Abbreviations whose dot does not end a sentence ("Dr.", "ул."): the capitalised
    word after them is still a name to check."""
    name_titles: tuple[str, ...]
    """For a script without capitals: titles written after a name ("선생님"), longer
    forms first (the first that matches is taken)."""
    name_intros: tuple[str, ...]
    """For a script without capitals: words a name follows ("이름은 …")."""
    place_endings: tuple[str, ...]
    """For a script without capitals: the endings of an address's parts ("구", district;
    "동", neighbourhood): two or more such words in a row name a place ("해운대구 우동"),
    as a capitalised place name does elsewhere."""

    # --- memory: negation and correction -------------------------------------------
    negation: re.Pattern[str]
    """What marks a negated fact or clause ("does not", "не", "ei", "않")."""
    clause_splitters: tuple[str, ...]
    """Conjunctions that end a negated clause ("but", "но", "pero", "aga")."""
    negates_word_before: tuple[str, ...]
    """Word-scoped negation: words starting so negate the word before ("식당이 아니라")."""
    negates_word_after: tuple[str, ...]
    """Word-scoped negation: these words negate the word after and the one before
    ("배달을 안 해요")."""
    negated_endings: tuple[str, ...]
    """Word-scoped negation: a word ending so is negated by a negating word after it
    ("하지 않아요")."""
    correction_cues: tuple[str, ...]
    """Words and phrases a customer uses to say a remembered thing is wrong or should
    be forgotten ("forget", "no longer", "забудь"), found at the start of a word. With
    change_cues and the negation they tell sidecar.memory.forget that a message may be
    a correction, which widens the memories the model is shown and may name."""
    change_cues: tuple[str, ...]
    """Words and stems a customer uses to say a remembered thing has changed ("now",
    "sold", "moved", "теперь"): found at the start of a word, so a stem takes its
    endings ("продал" finds "продали"). Wording that often says "what you know is no
    longer so" without a negation ("we moved offices", "ahora estoy en la E"). They
    also tell sidecar.memory.dedup that a new fact replaces one ("Moved to Cardiff."),
    so a word that corrects in a message but not in a fact ("instead", "раньше")
    belongs in correction_cues."""
    residence_words: tuple[str, ...]
    """Words and stems that say where a customer lives or that they moved ("lives",
    "moved", "живёт", "переехал", "이사"), found at the start of a word like the change
    cues. A correction that says the customer moved is about the memory of where they
    live though the two share no word and lie apart ("kolisin Mustamäele" / "Elab
    Lasnamäel."): sidecar.memory.values.value_kinds names both "residence"."""
    channel_words: tuple[str, ...]
    """Words and stems naming a way the customer is reached or reaching them (an e-mail, a
    text, a call, WhatsApp; "contacted", "связь"), found at the start of a word like the
    change cues, and taken whole. Two facts that say nothing else speak of how to reach
    the customer, so a fact saying that changed replaces the stored one though they share
    no word ("Предпочитает связь по телефону." / "Теперь просит писать только на почту.";
    sidecar.memory.dedup.speaks_of)."""

    # --- memory: dedup --------------------------------------------------------------
    new_words: tuple[str, ...]
    """Words and stems that call a phone or an e-mail a new one ("new", "новый", "uus"),
    found at the start of a word: a fact stating a contact so says it replaces the old
    one ("New phone number: …"). Dedup only: a message about "a new appointment" is no
    correction."""
    relatives: tuple[str, ...]
    """Words and stems naming a member of the customer's family ("daughter", "муж",
    "hija", "abikaasa", "남편"), found at the start of a word: a fact naming one is about
    that person, so it never restates or replaces a fact naming none, the customer's
    own, however alike ("Her daughter is allergic to penicillin." / "Allergic to
    penicillin."). A word that also starts another ("son" in "Sony") only keeps two
    facts apart."""
    contact_owners: tuple[str, ...]
    """Words and stems saying whose or which line a contact is ("work", "personal",
    "mobile", "second", "рабоч", "основн", "trabajo", "töö", "회사", "예전"), found at the
    start of a word: two phones or e-mails labelled with different ones are two ("Work
    phone: …" / "Personal mobile: …"), where one labelled beside one not is the same
    changed ("Phone: …" / "New mobile: …"), and two labelled alike or not at all are one
    line whose number or address changed (dedup.one_contact).
    One word for each line: two synonyms ("cell", "mobile") would read as two lines."""
    contrasts: tuple[tuple[str, str], ...]
    """The two sides of one contrast ("left"/"right", "upper"/"lower", "front"/"rear",
    "older"/"younger", "morning"/"evening"; "верхн"/"нижн", "izquierd"/"derech"), words and
    stems found at the start of a word: two facts naming the two sides, each one only, are
    two things however alike ("Crown on the upper right molar." / "Crown on the lower right
    molar.", "Старший сын в карате." / "Младший сын в карате.", 0.006 apart), unless the
    new one says it changed. Only words that name a side wherever they stand: a side that
    also starts a common word of the language (Korean "위", above, starts "위해", for) is
    left out, unless that word names a thing no fact of the other side restates (Korean
    "딸", daughter, starts "딸기", strawberry). The members of a family are sides too
    ("Su padre tiene cita …" / "Su madre tiene cita …", 0.013 apart)."""
    synonyms: tuple[tuple[str, ...], ...]
    """Words interchangeable in a customer's facts, a group to a line, in their dictionary
    forms ("kids children", "installed fitted"): dedup reads each as its group's first, so
    two facts saying one thing in these words name the same things ("Has two kids." / "Has
    two children."). Never two things of one kind (those are `contrasts`), a general word
    with a specific one, or a word whose other sense is common in facts ("gets")."""
    numbered_things: tuple[str, ...]
    """Words for a thing told apart by its number ("tooth", "room", "order", "№"), found at
    the start of a word: a number right after one ("Room 204", "Зуб 36", "tellimus nr
    4512"), or right before one when marked as an ordinal or written onto it ("26-го зуба",
    "36. hammas", "204호", "36번 치아"), says which thing the fact is about: "Filling on
    tooth 36." / "Filling on tooth 46." are two teeth, not one value changed. A plain
    number before a word is a count ("8 tuba", eight rooms) and is not read so."""
    animals: tuple[str, ...]
    """Words and stems naming a kind of animal a customer keeps ("dog", "кошк", "perr",
    "kass", a breed), found at the start of a word: a name right after one, or after a
    word of `relatives`, is whom the fact is about ("Dog Archie is allergic to beef." /
    "Dog Rosie …" are two dogs, where "Usually books with stylist Priya." / "… Hannah."
    is one stylist changed)."""
    value_labels: tuple[str, ...]
    """Words naming the value an attribute takes (months, weekdays, times of day,
    contact channels): two facts that differ only in these state a changed value.
    Matched by stem, with a short ending, so inflected forms count ("июне", "märtsis") and
    words that only begin alike do not ("marido" / "marzo")."""
    keep_whole: tuple[str, ...]
    """Words the stemmer folds together although they name different people
    ("hija"/"hijo" -> "hij"), or folds into a word that names a thing ("weekly" ->
    "week"): compared unstemmed."""

    label_ends: tuple[str, ...]
    """Words ending the attribute a fact names before the value it gives it, beside a colon
    or a dash ("is" in "Delivery address is 22 Mill Lane.", "es", "on"); one starting with
    "-" ends the attribute's last word, in a language that writes it on (Korean topic "-은",
    "-는": "배달 주소는 …"). Two facts giving one attribute, named alike, values that share
    nothing, state it changed (dedup.relabelled)."""

    # --- memory: how often (sidecar.memory.frequency) --------------------------------
    period_units: Mapping[str, float]
    """Words and stems naming a stretch of time, and its length in days ("week": 7,
    "недел": 7, "fortnight": 14, "полгода": YEAR / 2): a frequency only with a word of
    every_words or every_after, or a count of times ("every six weeks", "раз в неделю",
    "kaks korda kuus"); alone, a duration ("for six weeks"). Matched at the start of a
    word, or whole (`WHOLE`)."""
    period_words: Mapping[str, float]
    """Words that alone say how often, and the period in days ("weekly": 7, "ежегодн":
    YEAR, "quincenal": 14, "매주": 7), matched at the start of a word, or whole."""
    every_words: tuple[str, ...]
    """Words saying "every" before a period, a number and up to two per_words between
    ("every", "каждые", "cada", "todos los", "iga"), matched at the start of a word, or whole."""
    every_after: tuple[str, ...]
    """Words saying "every" after a period ("iga kuue nädala tagant"); one starting with
    "-" is the end of the period's own word, in a language that writes it on (Korean
    "2주마다")."""
    times_words: Mapping[str, int]
    """Words counting times, and the count they say alone ("once": 1, "twice": 2,
    "times": 1, "раза": 1, "veces": 1, "korda": 1, "번": 1); a number before one counts
    ("three times", "два раза")."""
    per_words: tuple[str, ...]
    """Words between a count of times, or an amount, and its period ("twice a week", "50 mg
    a day"; "per", "в", "al", "por", "la"), matched at the start of a word, or whole."""

    period_counts: Mapping[str, float]
    """Words counting periods only inside a frequency, and the count they say: a half
    ("half": 0.5, "полтора": 1.5, "poole": 0.5), before the period ("раз в полтора месяца",
    "iga poole aasta tagant") or, joined by a number connector, after it ("cada mes y
    medio", "a week and a half"); and every other ("other": 2, "вторую": 2, "teise": 2),
    before the period or a weekday ("every other week", "каждую вторую пятницу", "igal
    teisel reedel"). Matched at the start of a word, or whole."""

    # --- price check: amounts of money in a reply ------------------------------------
    currency_words: Mapping[str, str]
    """Words naming a currency after a number, in every written form, and the currency
    code they stand for ("eurot" -> "EUR", "рублей" -> "RUB"). Signs and codes (€, $,
    EUR, USD) are known to sidecar.money for every language; these are the words."""
    money_scales: Mapping[str, int]
    """Scale words a number of money may carry ("1.5k", "5 тыс.", "4만"), lower case.
    Written one after another they multiply ("2천만" = 2 × 1000 × 10 000)."""
    range_words: tuple[str, ...]
    """How a price range is written with words: "…" stands for the first amount, the
    word after it joins the second ("from … to", "от … до", "… kuni"). A dash or a
    tilde between two numbers is a range in every language."""
    contact_offer: str
    """The sentence that stands where a price the check could not vouch for was taken
    out of a reply: an offer to contact the business."""

    # --- replies worded by code ----------------------------------------------------
    offline_texts: Mapping[str, str]
    """What the offline provider says around its quotes: "pinned", "found", "source",
    "none", "note"."""
    readback: str
    """The heading above memories just forgotten, read back to the customer."""
