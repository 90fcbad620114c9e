"""Words that only frame when a customer can come are framing in every language: a fact
saying so rests on the customer's own words about the time, not on the verb."""
import pytest

from sidecar.memory.grounding import check


@pytest.mark.parametrize("fact, said, lang", [
    ("Is only available on Thursdays.", "Could you book me in? I'm only free on Thursdays.", "en"),
    ("Может приходить только утром.", "Записывайте меня только на утро.", "ru"),
    ("Solo puede acudir por la mañana.", "Solo puedo venir por las mañanas.", "es"),
    ("Saab käia ainult hommikuti.", "Saan tulla ainult hommikuti.", "et"),
    ("오전에만 방문 가능함.", "오전에만 갈 수 있어요.", "ko"),
])
def test_a_fact_about_when_the_customer_can_come_is_grounded(fact, said, lang):
    assert check(fact, said, lang).ok, check(fact, said, lang)



@pytest.mark.parametrize("fact, said, lang", [
    ("Poeg käib ujumas.", "Pojaga käime ujumas igal laupäeval.", "et"),
    ("Tütar õpib klaverit.", "Mu tütrel on klaveritunnid, ta õpib klaverit.", "et"),
    ("Щенок боится грозы.", "Нашего щенка пугает гроза, он боится грозы.", "ru"),
    ("Kass on allergiline kanale.", "Meie kassil on allergia, ta on allergiline kanale.", "et"),
])
def test_a_noun_whose_stem_changes_as_it_inflects_is_the_customers_word(fact, said, lang):
    # The stemmer leaves "poja" beside "poeg", "щенк" beside "щенок": the language's
    # irregular forms read them as one word.
    assert check(fact, said, lang).ok


@pytest.mark.parametrize("fact, said", [
    ("Went to Paris in May.", "We were in Paris in May, lovely city."),
    ("Cat is gone.", "Our cat had kittens last spring."),
])
def test_a_form_whose_base_is_a_stopword_is_still_a_word_the_customer_must_have_said(fact, said):
    # "went" and "gone" read as "go", a word too common to count; the fact's own form
    # still names what happened, so the customer must have said it.
    assert not check(fact, said, "en").ok
    assert check(fact, said.replace("were in", "went to").replace("had kittens", "is gone"), "en").ok


@pytest.mark.parametrize("fact, said, lang", [
    ("Квартира 75 м².", "У меня квартира 75 квадратных метров.", "ru"),
    ("Alquila un trastero de 6 m².", "Alquilo un trastero de seis metros cuadrados.", "es"),
    ("Has a 2 m2 shed.", "I have a shed, about 2 square metres.", "en"),
])
def test_the_square_of_a_unit_is_part_of_the_unit_not_a_value(fact, said, lang):
    assert check(fact, said, lang).ok


def test_a_number_glued_to_a_name_stays_a_value():
    assert check("Drives a BMW M2.", "I drive a BMW M3.", "en").reason == "number"
