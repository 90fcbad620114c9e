"""The kinds of value a text states or speaks of, in every language: what a correction
and the memory it corrects have in common when they share no word."""
import pytest

from sidecar.memory.values import Values, value_kinds


@pytest.mark.parametrize("text, lang, kinds", [
    ("Expects about 90 guests.", "en", {"count"}),
    ("Drives a 2018 Ford Focus.", "en", {"year"}),
    ("Insurance renews in May.", "en", {"month"}),
    ("Los pedidos le llegan cada lunes.", "es", {"weekday"}),
    ("Write to anna@example.com", "en", {"email"}),
    ("Eelistab suhelda e-posti teel.", "et", {"email"}),
    ("Мой новый номер +7 912 345 67 89", "ru", {"phone"}),
    ("I moved to Leeds last month", "en", {"residence"}),
    ("Живёт в Химках.", "ru", {"residence"}),
    ("me he mudado a Madrid", "es", {"residence"}),
    ("Elab Lasnamäel.", "et", {"residence"}),
    ("분당에 거주.", "ko", {"residence"}),
    # "삶", living, as a fact ends on it; "삶은 달걀" is a boiled egg.
    ("지금은 파주 운정에 삶.", "ko", {"residence"}),
    ("삶은 달걀을 좋아함.", "ko", set()),
    ("수업은 화요일 저녁 7시.", "ko", {"weekday", "count"}),
    ("보험은 3월에 갱신.", "ko", {"month"}),
    ("보험은 삼월에 갱신.", "ko", {"month"}),
    ("보험 갱신까지 3개월.", "ko", {"count"}),
    ("Has a golden retriever called Honey.", "en", set()),
    # A label that begins other words is written whole: "tel" is not "telling", "cell" not
    # "cellar"; Estonian "meil" alone is mostly "we have", so the label is "meili".
    ("Keeps his wine in the cellar, telling everyone.", "en", set()),
    ("New cell and new tel, same cellphone.", "en", {"phone"}),
    ("Meil on koer, tulge meile.", "et", set()),
    # "Address" labels an e-mail ("email address"), but alone a postal address is no e-mail.
    ("Delivery address: 12 Elm Street, Leeds.", "en", {"count"}),
    ("Адрес доставки: Садовая улица.", "ru", set()),
    ("집 주소: 마포구 합정동.", "ko", set()),
    ("My email address changed", "en", {"email"}),
    ("Uus meiliaadress tuleb homme.", "et", {"email"}),
])
def test_the_kinds_a_text_states(text, lang, kinds):
    assert value_kinds(text, lang) == kinds


def days(text: str, lang: str) -> list[str]:
    return sorted(a for a in Values(text, lang, fact=True).atoms if a.startswith("D"))


def test_a_weekday_written_short_is_a_weekday_but_for_words_that_are_other_things():
    assert days("Уроки английского — вт и чт.", "ru") == ["D2", "D4"]
    assert days("can I bring it in thurs? or tues", "en") == ["D2", "D4"]
    assert days("Viene los lun y los jue.", "es") == ["D1", "D4"]
    assert days("Sat by the window in the sun.", "en") == []
    assert days("Vive en Viña del Mar.", "es") == []


def test_a_language_without_a_module_has_only_the_values_written_in_digits():
    assert value_kinds("Ma 12 ans", "fr") == {"count"}
    assert value_kinds("habite à Lyon", "fr") == frozenset()


def amounts(text: str, lang: str) -> tuple[list[set[str]], set[str]]:
    found = Values(text, lang, fact=True)
    return [set(alts[0]) for _, alts in found.numbers], found.currencies


def test_scale_and_currency_words_are_the_languages_own_in_any_text():
    # The forms a customer inflects ("тысячами", "tuhande") are the price check's too.
    assert amounts("Бюджет в пределах 5 тысячами не ограничен.", "ru")[0] == [{"5000"}]
    assert amounts("Eelarve on 5 tuhande euro piires.", "et") == ([{"5000"}], {"EUR"})
    assert amounts("Budget 10k, in euros.", "ru") == ([{"10000"}], {"EUR"})
    # A Korean currency word right after its amount, glued or not; "원" alone starts "to want".
    assert amounts("숙소 예산 1박 15만 원.", "ko") == ([{"1"}, {"150000"}], {"KRW"})
    assert amounts("3만5천원", "ko") == ([{"30000"}, {"5000"}], {"KRW"})
    assert amounts("원하는 날에 배송.", "ko") == ([], set())
    # Any ISO code the price check knows, in capitals, and a currency word in capitals too.
    assert amounts("Pays 40 CHF a month, or 45 EUROS.", "en") == ([{"40"}, {"45"}], {"CHF", "EUR"})


def test_numerals_written_as_one_word_are_read_whole():
    # Estonian hundreds join as its tens do; Korean tens join the ones ("스물다섯", 25),
    # before a counter in their prenominal form ("열두 대", "스물한 살").
    assert amounts("Vajab viissada visiitkaarti.", "et")[0] == [{"500"}]
    assert amounts("Kahesajale külalisele.", "et")[0] == [{"200"}]
    assert amounts("손님은 스물다섯 명.", "ko")[0] == [{"25"}]
    assert amounts("사무실 컴퓨터 열두 대.", "ko")[0] == [{"12"}]
    assert amounts("딸이 스물한 살.", "ko")[0] == [{"21"}]
    # "열" alone is heat as often as ten, and counts only before a counter.
    assert amounts("열이 많이 남.", "ko")[0] == []
