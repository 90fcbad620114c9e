"""sidecar.lang: every supported language fills every field, and every module is registered."""
from __future__ import annotations

import dataclasses
import pkgutil
import re

import pytest

import sidecar.lang
from sidecar.lang import LANGS, Language, find, get

# The only fields a language may leave empty, each for the reason its module gives.
# A new gap must be listed here, so none is left empty by oversight.
_SNOWBALL_ONLY = {"question_words", "question_particles", "question_fillers", "question_endings",
                  "word_endings", "counted_number_words", "counters", "number_units", "name_titles",
                  "name_intros", "place_endings", "negates_word_before", "negates_word_after", "negated_endings"}
# Verbal nouns with an ending the stemmer leaves (Estonian "kolimine"): see et.py.
_NO_VERBAL_NOUNS = {"verbal_noun_endings", "verbal_noun_links", "verbal_noun_lookalikes"}
# A month is a name, not a number with a suffix, and a year is written in full.
_NAMED_MONTHS = {"month_after_number", "short_year"}
# "Every" stands before a period ("every six weeks"), never after it.
_EVERY_BEFORE = {"every_after"}
# A period takes a case or a particle where others put a word ("kord nädalas", "일주일에 두 번").
_NO_PER_WORDS = {"per_words"}
# The attribute a fact names ends at a dash: "Адрес доставки — …".
_NO_COPULA = {"label_ends"}
INTENTIONALLY_EMPTY = {
    # bigrams, no stemmer, no capitals, word-scoped negation (see ko.py)
    "ko": _NO_VERBAL_NOUNS | {"stopwords", "compound_kind", "compound_suffixes", "irregular_forms",
                              "number_connectors", "month_names_capitalised", "month_prefixes", "day_ordinals",
                              "day_of", "weekday_prefixes", "fold_accents", "abbreviations", "clause_splitters",
                              "keep_whole"} | _NO_PER_WORDS,
    "en": _SNOWBALL_ONLY | _NO_VERBAL_NOUNS | _NAMED_MONTHS | _EVERY_BEFORE | {"compound_kind", "compound_suffixes", "month_prefixes",
                                                              "weekday_prefixes", "fold_accents"},
    # and month names are written in lower case
    "et": _SNOWBALL_ONLY | _NAMED_MONTHS | _NO_PER_WORDS | {"month_names_capitalised", "number_connectors",
                                            "day_of", "weekdays", "fold_accents", "keep_whole"},
    "ru": _SNOWBALL_ONLY | _NO_VERBAL_NOUNS | _NAMED_MONTHS | _EVERY_BEFORE | _NO_COPULA | {"month_names_capitalised", "compound_kind",
                                                              "compound_suffixes", "day_of",
                                                              "fold_accents", "keep_whole"},
    "es": _SNOWBALL_ONLY | _NO_VERBAL_NOUNS | _NAMED_MONTHS | _EVERY_BEFORE | {"month_names_capitalised", "compound_kind",
                                                              "compound_suffixes", "irregular_forms",
                                                              "month_prefixes", "weekday_prefixes"},
}
OFFLINE_KEYS = {"pinned", "found", "source", "none", "note"}


def _filled(value) -> bool:
    if isinstance(value, re.Pattern):
        return bool(value.pattern)
    return bool(value)


def _ids(langs):
    return [lg.code for lg in langs]


@pytest.mark.parametrize("language", LANGS, ids=_ids(LANGS))
def test_every_field_is_filled_unless_listed_as_intentionally_empty(language: Language):
    allowed = INTENTIONALLY_EMPTY[language.code]
    fields = {f.name for f in dataclasses.fields(Language)}
    assert allowed <= fields, allowed - fields  # the list names real fields
    empty = {name for name in fields if not _filled(getattr(language, name))}
    assert empty == allowed, {"unexpectedly empty": empty - allowed, "listed but filled": allowed - empty}


@pytest.mark.parametrize("language", LANGS, ids=_ids(LANGS))
def test_fields_have_the_declared_shapes(language: Language):
    for f in dataclasses.fields(Language):
        value = getattr(language, f.name)
        if f.type in ("tuple[str, ...]",):
            assert isinstance(value, tuple) and all(isinstance(w, str) and w for w in value), f.name
    assert set(language.offline_texts) == OFFLINE_KEYS
    assert set(language.contact_labels) == {"phone", "email", "url", "name"}
    assert all(isinstance(v, int) for v in language.number_words.values())
    assert all(1 <= n <= 12 for n in language.months.values())
    assert all(1 <= n <= 7 for n in language.weekdays.values())
    assert language.readback.endswith(":")


def test_every_module_of_the_package_is_registered():
    modules = {m.name for m in pkgutil.iter_modules(sidecar.lang.__path__)} - {"base"}
    assert modules == {lg.code for lg in LANGS}
    for name in modules:
        module = __import__(f"sidecar.lang.{name}", fromlist=["LANGUAGE"])
        assert module.LANGUAGE is get(name) and module.LANGUAGE.code == name


def test_the_five_languages_and_the_english_fallback():
    assert [lg.code for lg in LANGS] == ["en", "et", "ru", "es", "ko"]
    assert get("xx") is get("en") and get(None) is get("en")
    assert find("xx") is None and find("ko") is get("ko")


def test_a_language_cannot_be_changed():
    with pytest.raises(dataclasses.FrozenInstanceError):
        get("en").readback = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        get("en").offline_texts["none"] = "x"  # type: ignore[index]


# The fields read only through word_starts, which alone understands the whole-word mark, or
# as whole words through lang.as_written, which drops it.
READ_AS_WORD_STARTS = {"change_cues", "correction_cues", "relatives", "animals", "contrasts", "new_words",
                       "residence_words", "channel_words", "contact_owners", "contact_labels", "numbered_things",
                       "every_words", "every_after", "per_words", "label_ends"}


@pytest.mark.parametrize("language", LANGS, ids=_ids(LANGS))
def test_the_whole_word_mark_is_used_only_where_word_starts_reads_it(language: Language):
    from sidecar.lang.base import WHOLE

    def items(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, (tuple, list)):
            for v in value:
                yield from items(v)
        elif hasattr(value, "values") and not hasattr(value, "pattern"):
            for v in value.values():
                yield from items(v)
    for f in dataclasses.fields(Language):
        marked = [w for w in items(getattr(language, f.name)) if WHOLE in w]
        if f.name not in READ_AS_WORD_STARTS:
            assert not marked, (f.name, marked)
        assert all(w.endswith(WHOLE) and w.count(WHOLE) == 1 for w in marked), (f.name, marked)


def test_a_list_item_marked_whole_stands_only_as_a_whole_word():
    from sidecar.lang import word_starts
    pattern = word_starts(("enam$", "müü"))
    assert [bool(pattern.search(t)) for t in ("ei joo enam", "enam?", "Enam, ei", "enamasti", "müüdud")] == [
        True, True, True, False, True]


@pytest.mark.parametrize("language", LANGS, ids=_ids(LANGS))
def test_every_irregular_form_stems_apart_from_its_base(language: Language):
    # A form the stemmer already brings to its base's stem would be a dead entry (a base that
    # is a stopword, "went" -> "go", makes the form one too).
    from sidecar.searchtext import tokens
    for form, base in language.irregular_forms.items():
        assert tokens(form, language.code) and tokens(form, language.code) != tokens(base, language.code), (form, base)
