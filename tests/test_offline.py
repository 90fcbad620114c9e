"""The offline provider: grounded answers without a model, keeping the price rule."""
import json

from sidecar.providers.base import ChatRequest, Grounding, GroundingEntry, Message
from sidecar.providers.offline import OfflineProvider, answer
from sidecar.reply import REPLY_SCHEMA, parse_reply

PRICES_EN = GroundingEntry("Price list", "Basic service: 45 €\nFull service: 89 €\nWinter storage: 60 €", pinned=True)
HOURS_EN = GroundingEntry("Opening hours", "Mon–Fri 10:00–19:00\nSat 10:00–16:00", pinned=True)
BLOG_EN = GroundingEntry("Season prices 2023", "In the 2023 season a basic service cost 35 €. Winter storage was 50 €.",
                         "https://ex.test/blog")
TERMS_EN = GroundingEntry("Warranty", "Our work comes with a 3-month warranty. We store a finished bike for 7 days.",
                          "https://ex.test/terms")


def ask(question, lang="en", pinned=(PRICES_EN, HOURS_EN), retrieved=(BLOG_EN, TERMS_EN)):
    return answer(Grounding(question=question, lang=lang, pinned=pinned, retrieved=retrieved))


def test_pinned_price_wins_over_an_old_article():
    a = ask("How much does a basic service cost?")
    assert "Basic service: 45 €" in a["reply"]
    assert "35" not in a["reply"] and "2023" not in a["reply"]  # no conflicting retrieved text
    assert a["unanswered"] is False


def test_question_naming_the_price_list_quotes_it():
    a = ask("What are your prices?")
    assert "45 €" in a["reply"] and "89 €" in a["reply"] and "35 €" not in a["reply"]


def test_retrieved_passage_is_quoted_with_its_source_when_nothing_pinned_answers():
    a = ask("Is there a warranty?")
    assert "3-month warranty" in a["reply"] and "Warranty" in a["reply"] and "https://ex.test/terms" in a["reply"]
    assert a["action"] == "none"


def test_nothing_known_means_unanswered_and_the_contact_card():
    a = ask("Do you sell unicycles?", retrieved=())
    assert a["unanswered"] is True and a["action"] == "show_contact"


def test_answers_are_localised_by_code():
    et = GroundingEntry("Hinnakiri", "Põhihooldus: 45 €\nTäishooldus: 89 €", pinned=True)
    a = ask("Kui palju maksab põhihooldus?", lang="et", pinned=(et,), retrieved=())
    assert a["reply"].startswith("Meie andmetes on kirjas:") and "Põhihooldus: 45 €" in a["reply"]
    ru = GroundingEntry("Прайс-лист", "Базовое обслуживание: 45 €\nПолное обслуживание: 89 €", pinned=True)
    a = ask("Сколько стоит полное обслуживание?", lang="ru", pinned=(ru,), retrieved=())
    assert "Полное обслуживание: 89 €" in a["reply"]
    a = ask("¿Venden monociclos?", lang="es", pinned=(), retrieved=())
    assert a["reply"].startswith("Lo siento")


def test_provider_returns_parseable_degraded_result():
    req = ChatRequest(model="", system="", system_tail="", messages=(Message("user", "x"),), max_tokens=10,
                      schema=REPLY_SCHEMA, grounding=Grounding("What are the opening hours?", "en", (PRICES_EN, HOURS_EN)))
    result = OfflineProvider().chat(req)
    assert result.degraded and result.provider == "offline"
    assert "Mon–Fri 10:00–19:00" in parse_reply(result.text).reply
    assert json.loads(result.text)["action"] == "none"


def test_a_pinned_title_match_alone_yields_to_a_better_retrieved_passage():
    hours = GroundingEntry("Часы работы", "Пн–Пт 10:00–19:00", pinned=True)
    warranty = GroundingEntry("Гарантия", "На выполненные работы мы даём гарантию 3 месяца.", "/ru/garantiya")
    a = ask("Какая гарантия на работы?", lang="ru", pinned=(hours,), retrieved=(warranty,))
    assert "гарантию 3 месяца" in a["reply"] and "10:00" not in a["reply"]
    # Asked about the hours themselves, the pinned entry answers.
    a = ask("Часы работы?", lang="ru", pinned=(hours,), retrieved=(warranty,))
    assert "10:00–19:00" in a["reply"]


def _scripted(scores):
    """Similarity as the turn's query embedding gives it: here by text, the rest far."""
    import numpy as np
    return lambda texts: np.array([scores.get(t, 0.70) for t in texts], dtype=np.float32)


PRICES_RU = GroundingEntry("Прайс-лист", "Официальный прайс-лист:\nБазовое обслуживание: 45 €\nПолное обслуживание: 89 €\n"
                           "Замена покрышки: 15 €\nРегулировка тормозов: 20 €\nЗамена цепи: 35 €\nДиагностика: 30 €",
                           pinned=True)
WARRANTY_RU = GroundingEntry("Гарантия", "На выполненные работы мы даём гарантию 3 месяца. Готовый велосипед храним 7 дней.",
                             "https://ex.test/ru/garantiya")
NEAR_PRICES = {"Прайс-лист: Полное обслуживание: 89 €": 0.822, "Прайс-лист: Базовое обслуживание: 45 €": 0.819}


def test_a_retrieved_passage_closer_in_meaning_than_the_nearest_pinned_lines_answers():
    # Nothing pinned shares the question's words; two price lines stand out by meaning,
    # but the warranty page shares the words and its sentence is closer still.
    closer = dict(NEAR_PRICES, **{"На выполненные работы мы даём гарантию 3 месяца.": 0.864})
    a = answer(Grounding("Какая гарантия на работы?", "ru", (PRICES_RU,), (WARRANTY_RU,), similarity=_scripted(closer)))
    assert "гарантию 3 месяца" in a["reply"] and "€" not in a["reply"]
    # The same lines standing out, the passage further: the pinned entry closest in meaning answers.
    further = dict(NEAR_PRICES, **{"На выполненные работы мы даём гарантию 3 месяца.": 0.80})
    a = answer(Grounding("Какая гарантия на работы?", "ru", (PRICES_RU,), (WARRANTY_RU,), similarity=_scripted(further)))
    assert "Полное обслуживание: 89 €" in a["reply"] and "гарантию" not in a["reply"]


def test_the_warranty_asked_in_russian_is_answered_from_the_warranty_page_with_the_local_model():
    from sidecar.embedders.local import LocalEmbedder
    from sidecar.query_embedding import QueryEmbedding
    question = "Какая гарантия на работы?"
    hours = GroundingEntry("Часы работы", "Пн–Пт 10:00–19:00\nСб 10:00–16:00\nВс выходной", pinned=True)
    g = Grounding(question, "ru", (PRICES_RU, hours), (WARRANTY_RU,),
                  similarity=QueryEmbedding(LocalEmbedder(lane="turn"), question).similarity)
    assert "гарантию 3 месяца" in answer(g)["reply"]
