"""sidecar.searchtext: what FULLTEXT indexes and what it is asked. Pure Python."""
import re

import pytest

from sidecar import searchtext
from sidecar.searchtext import (VERSION, content_terms, index_text, index_tokens, query_terms, query_text,
                                stopwords, tokens)


def test_version_marks_the_index_text_format():
    assert isinstance(VERSION, int) and VERSION == 2


# --- two-letter acronyms ----------------------------------------------------------------
def test_two_letter_capitals_are_kept_as_acronyms():
    assert tokens("HD TV, 4K screens, US or EU plugs", "en") == ["hd_", "tv_", "4k_", "screen", "us_", "eu_", "plug"]
    assert index_text("Цена ТВ в РФ", "ru") == "цен тв_ рф_"
    assert index_text("Ühendus ÜV kaudu", "et").split()[1] == "üv_"


def test_lowercase_and_capitalised_two_letter_words_stay_dropped():
    assert tokens("of el la на hd tv Of Tv", "en") == []
    assert tokens("el precio de la bicicleta", "es") == tokens("precio bicicleta", "es")


def test_shouted_function_words_are_not_acronyms():
    assert index_text("OPEN ON SUNDAYS", "en") == "open sunday"
    assert index_text("NO TE LO PIERDAS", "es") == index_text("pierdas", "es")
    assert index_text("ЦЕНЫ НА РЕМОНТ", "ru") == index_text("цены ремонт", "ru")
    # ...while a pair that is not a function word of the language is an acronym.
    assert "it_" in tokens("IT support", "en") and "us_" in tokens("CONTACT US", "en")


def test_acronym_next_to_hangul_is_kept():
    assert tokens("TV가격은", "ko") == ["tv_", "가격_", "격은_"]


def test_acronyms_are_searched():
    assert query_text("Do you have HD TV?", "en") == "hd_ tv_"
    assert query_terms("IT support", "en") == ["it_", "support"]


def test_possessive_its_does_not_pose_as_it():
    # Snowball stems "its" to "it", which padded would be the acronym "IT".
    assert "it_" not in index_text("The shop and its IT-free workshop", "en").split()[:3]
    assert index_text("its price", "en") == "price"
    assert "it_" not in stopwords("en")


# --- English stopwords -----------------------------------------------------------------
def test_its_and_other_fillers_are_english_stopwords():
    assert query_text("What are its opening hours?", "en") == "open hour"
    assert query_text("What's the price of it's frame?", "en") == "price frame"  # "s" and "it" are short
    assert query_text("Does anyone know whether something like this exists?", "en") == "exist"
    assert query_text("Hey, why isn't it open?", "en") == "open"


# --- Korean questions --------------------------------------------------------------------
@pytest.mark.parametrize("question, expected", [
    ("몇 년에 설립되었나요?", ["년에_", "설립_"]),
    ("몇년에 개최되었나요", ["년에_", "개최_"]),
    ("누가 한글을 창제했나요?", ["한글_", "글을_", "창제_"]),
    ("어떻게 예약하나요?", ["예약_"]),
    ("수리 가격이 얼마예요?", ["수리_", "가격_", "격이_"]),
    ("주차장이 어디에 있어요?", ["주차_", "차장_", "장이_"]),
    ("배송비는 얼마예요? 알려 주세요", ["배송_", "송비_", "비는_"]),
    ("어떤 회사가 이 제품을 만들었나요?", ["회사_", "사가_", "제품_", "품을_", "만들_"]),
])
def test_korean_question_words_and_endings_are_not_searched(question, expected):
    assert query_terms(question, "ko") == expected


@pytest.mark.parametrize("question, content, question_only", [
    ("대한민국의 수도는 어디인가요?", "대한민국의 수도는", "어디인가요"),
    ("이순신 장군이 전사한 해는 언제입니까?", "이순신 장군이 전사한 해는", "언제입니까"),
    ("에베레스트 산의 높이는 얼마나 됩니까?", "에베레스트 산의 높이는", "얼마나 됩니까"),
    ("세종대왕이 만든 문자는 무엇인가?", "세종대왕이 만든 문자는", "무엇인가"),
    ("1950년에 발발한 전쟁의 이름은 무엇인가?", "1950년에 발발한 전쟁의 이름은", "무엇인가"),
])
def test_korquad_style_questions_keep_their_content(question, content, question_only):
    terms = query_terms(question, "ko")
    assert terms == index_text(content, "ko").split()
    assert not set(terms) & set(index_text(question_only, "ko").split())


def test_korean_content_is_not_taken_for_a_question_word():
    # "왜곡" starts with "왜" (why); a one-syllable verb stem keeps its ending.
    assert query_terms("왜곡된 정보를 누가 퍼뜨렸나요?", "ko")[:2] == ["왜곡_", "곡된_"]
    assert query_terms("가나요?", "ko") == ["가나_", "나요_"]


def test_korean_question_of_nothing_else_is_searched_as_it_is():
    assert query_terms("무엇인가요?", "ko") == index_text("무엇인가요", "ko").split()


def test_korean_index_text_is_unchanged():
    assert index_text("몇 년에 설립되었나요?", "ko") == "몇__ 년에_ 설립_ 립되_ 되었_ 었나_ 나요_"
    assert "가격_" in index_text("가격은", "ko").split()


def test_korean_content_terms_leave_question_words_out():
    assert content_terms("수리 가격이 얼마예요?", "ko") == {"수리_", "가격_", "격이_"}


# --- across languages -----------------------------------------------------------------
def test_same_language_query_terms_are_query_text():
    for text, lang in [("Kui palju maksab teie hooldus?", "et"), ("Сколько стоит ремонт?", "ru"),
                       ("price price PRICE of a tyre", "en"), ("¿Cuántos cascos tienen?", "es")]:
        assert query_terms(text, lang) == query_terms(text, lang, lang) == query_text(text, lang).split()
    assert query_text("Kui palju maksab teie hooldus?", "et") == index_text("maksab hooldus", "et")
    assert len(query_terms(" ".join(f"word{i}" for i in range(500)), "en")) == 48
    assert len(query_terms(" ".join(f"word{i}" for i in range(500)), "en", max_terms=5)) == 5


def test_visitor_stopwords_never_reach_the_other_language():
    terms = query_terms("¿Tienen tiendas en Los Angeles?", "es", "en")
    assert "los" not in terms and "tienen" not in terms
    assert "angel" in terms  # English stem, as the English pages were indexed
    # Today's behaviour for comparison: Spanish analysis keeps "los" for an English index.
    assert "los" in index_text("Los Angeles", "en").split()


def test_cross_language_terms_use_both_stemmers():
    terms = query_terms("¿Cuántos precios tienen los cascos?", "es", "en")
    assert terms == ["precio", "preci", "casco", "casc"]  # English stems first, then Spanish
    assert query_text("¿Cuántos precios tienen los cascos?", "es", target_lang="en") == " ".join(terms)


def test_cross_language_drops_stopwords_of_both_and_inflected_ones():
    assert query_terms("what is the price", "es", "en") == ["price", "pric"]
    assert "pued" not in query_terms("¿Puedes reparar mi bicicleta?", "es", "en")  # "puedes": stem of "puedo"
    assert query_terms("EL PRECIO DEL CASCO", "es", "en") == ["precio", "preci", "casco", "casc"]


def test_cross_language_keeps_numbers_acronyms_and_cjk():
    terms = query_terms("¿Precio de la TV 4K de 55 pulgadas?", "es", "en")
    assert {"tv_", "4k_", "55_"} <= set(terms) and "la_" not in terms
    assert query_terms("KTX 가격은 얼마예요?", "ko", "en") == ["ktx", "가격_", "격은_"]


def test_cross_language_into_a_compounding_language():
    assert query_terms("How much is rattahooldus?", "en", "et")[:2] == ["rattahool", "hool"]


def test_cross_language_question_of_nothing_else_is_searched_as_it_is():
    assert query_terms("¿Qué es esto?", "es", "en") == index_text("¿Qué es esto?", "en").split()


def test_stopwords_are_stems_and_raw_words_are_kept_apart():
    assert searchtext._stem_word("es", "cuántos") in stopwords("es")
    assert "qué" in searchtext._raw_stopwords("es") and "los" in searchtext._raw_stopwords("es")
    assert stopwords("ko") == frozenset()


# --- compounds ------------------------------------------------------------------------
def _share(a: str, b: str, lang: str) -> set[str]:
    return set(index_text(a, lang).split()) & set(index_text(b, lang).split())


@pytest.mark.parametrize("compound, other", [
    ("rattahooldus", "Põhihooldus"),
    ("rattahooldus", "hooldus"),
    ("Talverehvid", "rehvid"),
    ("jalgrattarent", "rattarent"),
    ("hinnakirjas", "kirjas"),
    ("mootorrattahooldus", "täishooldus"),
    ("lisavarustus", "turvavarustus"),
    ("elektrijalgratas", "jalgratas"),
])
def test_estonian_compounds_share_their_head(compound, other):
    assert _share(compound, other, "et")
    assert not set(tokens(compound, "et")) & set(tokens(other, "et"))  # tokens() alone: no match


@pytest.mark.parametrize("compound, other, lang", [
    ("Winterreifen", "Reifen", "de"),
    ("Fahrradreparatur", "Reparatur", "de"),
    ("polkupyörähuolto", "huolto", "fi"),
    ("cykelservice", "service", "sv"),
    ("fietsenmaker", "maker", "nl"),
    ("kerékpárszerviz", "szerviz", "hu"),
])
def test_other_compounding_languages(compound, other, lang):
    assert _share(compound, other, lang)


def test_short_heads_are_not_guessed():
    # "kiri", "rent" are four letters: as long as most case endings, so not split off.
    assert index_tokens("hinnakiri", "et") == tokens("hinnakiri", "et")
    assert not _share("jalgrattarent", "rent", "et")


def test_full_stem_comes_first_and_at_most_two_heads():
    words = re.findall(r"\w+", ESTONIAN_PARAGRAPH)
    for w in words:
        full = tokens(w, "et")
        indexed = index_tokens(w, "et")
        assert indexed[:len(full)] == full
        assert len(indexed) - len(full) <= 2


def test_cuts_through_endings_and_suffixes_are_not_heads():
    assert index_tokens("rattadesse", "et") == tokens("rattadesse", "et")  # ratta|desse: illative plural
    assert index_tokens("tellimisel", "et") == tokens("tellimisel", "et")  # telli|misel: -mine
    assert index_tokens("vajadusel", "et") == tokens("vajadusel", "et")  # vaja|dusel: -dus


def test_no_decompounding_outside_compounding_languages_or_in_tokens():
    assert index_tokens("motorcycleservice", "en") == tokens("motorcycleservice", "en")
    assert tokens("rattahooldus", "et") == ["rattahool"]


def test_questions_search_the_head_too():
    assert query_terms("Kui palju maksab rattahooldus?", "et") == ["maksa", "rattahool", "hool"]


ESTONIAN_PARAGRAPH = (
    "Meie rattapoes pakume jalgrataste põhihooldust, täishooldust ja talvist hoiustamist. "
    "Põhihoolduse hind on 45 eurot ja see sisaldab käiguvahetaja reguleerimist, pidurite kontrolli "
    "ning keti puhastamist. Täishoolduse käigus vahetame vajadusel kulunud varuosad, tsentreerime "
    "rattad ja kontrollime laagrid. Elektrijalgrataste hooldus ja akude diagnostika on eraldi "
    "hinnakirjas. Talverehvid paigaldame kohapeal, broneerimine toimub telefoni teel või e-posti "
    "kaudu. Jalgrattarent on avatud igal nädalavahetusel, rattarendi hinnad leiad kodulehelt. "
    "Tellimisel palume märkida soovitud kuupäeva ja kellaaja.")

# (compound, its head alone): ad-hoc shop vocabulary, the figure quoted in searchtext.
ESTONIAN_COMPOUNDS = """
rattahooldus hooldus  põhihooldus hooldus  täishooldus hooldus  talverehvid rehvid  suverehvid rehvid
jalgrattarent rattarent  lisavarustus varustus  käiguvahetaja vahetaja  nädalavahetusel vahetusel
elektrijalgratas jalgratas  kodulehelt lehelt  hinnakirjas kirjas  mootorrattahooldus hooldus
kasutustingimused tingimused  müügitingimused tingimused  kohaletoimetamine toimetamine
garantiiremont remont  rattaremont remont  kiirremont remont  autoremont remont  pidurivedelik vedelik
rattalukud lukud  turvavarustus varustus  lasteistmed istmed  jalgrattakiiver kiiver
jalgrattakiivrid kiivrid  kliendikaart kaart  kinkekaart kaart  sooduskood kood  telefoninumber number
tööpäeviti päeviti  lahtiolekuajad ajad  hinnakiri kiri  rattapood pood  spordipood pood
kinkekaardid kaardid  sõiduvalmis valmis  ülevaatus vaatus  rehvivahetus vahetus  õlivahetus vahetus
ketivahetus vahetus  piduriklotsid klotsid  rattarehvid rehvid  elektriratas ratas  maastikuratas ratas
linnaratas ratas  lasteratas ratas  kaubamärgid märgid  sõidukogemus kogemus  ostutšekk tšekk
kassatšekk tšekk  tagastustingimused tingimused  hooldusraamat raamat  turvalisusnõuded nõuded
rattasadulad sadulad  käsipumbad pumbad  pesuvahend vahend
""".split()


def test_estonian_heads_found_and_cost():
    pairs = list(zip(ESTONIAN_COMPOUNDS[::2], ESTONIAN_COMPOUNDS[1::2]))
    found = sum(1 for compound, head in pairs if tokens(head, "et")[0] in index_tokens(compound, "et")[1:])
    assert (len(pairs), found) == (57, 38)
    before, after = len(tokens(ESTONIAN_PARAGRAPH, "et")), len(index_tokens(ESTONIAN_PARAGRAPH, "et"))
    assert (len(re.findall(r"\w+", ESTONIAN_PARAGRAPH)), before, after) == (70, 61, 80)


def test_index_text_is_the_tokens_of_its_pieces():
    # bench/corpus.py memoises index_text per whitespace-separated piece.
    text = "Põhihooldus 45 € — HD TV, rattahooldus! KTX가격은 " + ESTONIAN_PARAGRAPH
    for lang in ("et", "en", "ko"):
        pieces = [" ".join(index_tokens(p, lang)) for p in text.split()]
        assert index_text(text, lang) == " ".join(p for p in pieces if p)
