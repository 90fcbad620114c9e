"""The price check: every amount of money in a reply is vouched for by what the business
stated, in en, et, ru, es and ko; a streamed reply and a whole one come out the same."""
from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidecar import lang as languages
from sidecar.money import Amount, Range, find_money
from sidecar.price_check import PriceCheck, SentenceSplitter, sentences
from sidecar.providers.base import GroundingEntry


def pinned(title: str, *lines: str) -> GroundingEntry:
    return GroundingEntry(title, "\n".join(lines), pinned=True)


def page(title: str, text: str, lang: str) -> GroundingEntry:
    return GroundingEntry(title, text, f"https://rattakoda.example/{lang}/blog", lang=lang)


# --- what the business stated, per language --------------------------------------
# A price list, hours and contacts pinned; an old blog post with other prices retrieved.

PRICE_LISTS = {
    "en": pinned("Price list", "Official price list (valid from 1 March 2026):", "Basic service: 45 €",
                 "Full service: 89 €", "Tyre change (one wheel): 15 €", "Brake adjustment: 20 €",
                 "Chain replacement incl. chain: 35 €", "E-bike diagnostics: 30 €", "Wheel truing: 20–40 €",
                 "Winter storage (November–March): 60 €", "Frame repaint: 1 200 €"),
    "et": pinned("Hinnakiri", "Ametlik hinnakiri (kehtib alates 1. märtsist 2026):", "Põhihooldus: 45 €",
                 "Täishooldus: 89 €", "Kummi vahetus (üks ratas): 15 €", "Pidurite reguleerimine: 20 €",
                 "Ketivahetus koos ketiga: 35 €", "Elektrijalgratta diagnostika: 30 €",
                 "Velje õgvendamine: 20–40 €", "Talvehoiustus (november–märts): 60 €", "Raami värvimine: 1 200 €"),
    "ru": pinned("Прайс-лист", "Прайс-лист (действует с 1 марта 2026):", "Базовое обслуживание: 3 500 ₽",
                 "Полное обслуживание: 7 900 ₽", "Замена покрышки (одно колесо): 1 200 ₽",
                 "Регулировка тормозов: 1 500 ₽", "Замена цепи вместе с цепью: 2 800 ₽",
                 "Диагностика электровелосипеда: 2 000 ₽", "Правка колеса: от 1 000 до 2 500 ₽",
                 "Зимнее хранение (ноябрь–март): 5 000 ₽"),
    "es": pinned("Tarifas", "Tarifas oficiales (desde el 1 de marzo de 2026):", "Revisión básica: 45 €",
                 "Revisión completa: 89 €", "Cambio de cubierta (una rueda): 15 €", "Ajuste de frenos: 20 €",
                 "Cambio de cadena con cadena incluida: 35 €", "Diagnóstico de bicicleta eléctrica: 30 €",
                 "Centrado de rueda: de 20 a 40 €", "Guardado de invierno (noviembre–marzo): 60 €",
                 "Pintura del cuadro: 1.200 €"),
    "ko": pinned("가격표", "가격표 (2026년 3월 1일부터 적용):", "기본 정비: 45,000원", "종합 정비: 89,000원",
                 "타이어 교체 (바퀴 1개): 15,000원", "브레이크 조정: 2만 원", "체인 교체 (체인 포함): 3만5천원",
                 "전기자전거 진단: 30,000원", "휠 정렬: 2만~4만 원", "겨울 보관 (11월~3월): 60,000원"),
}
HOURS = {
    "en": pinned("Opening hours", "Mon–Fri 10:00–19:00", "Sat 10:00–16:00", "Sun closed"),
    "et": pinned("Lahtiolekuajad", "E–R 10:00–19:00", "L 10:00–16:00", "P suletud"),
    "ru": pinned("Часы работы", "Пн–Пт 10:00–19:00", "Сб 10:00–16:00", "Вс выходной"),
    "es": pinned("Horario", "Lun–Vie 10:00–19:00", "Sáb 10:00–16:00", "Dom cerrado"),
    "ko": pinned("영업시간", "월–금 10:00–19:00", "토 10:00–16:00", "일 휴무"),
}
CONTACT = pinned("Contact", "Address: Telliskivi 60a, Tallinn", "Phone: +372 5555 0101",
                 "Booking: https://rattakoda.example/book")
BLOGS = {
    "en": page("Season prices 2023", "In the 2023 season a basic service cost 35 €. A full service was 75 € and "
               "winter storage 50 €. Wheel truing was 25–45 €.", "en"),
    "et": page("Hooaja hinnad 2023", "2023. aasta hooajal maksis põhihooldus 35 eurot ja täishooldus 75 eurot. "
               "Velje õgvendamine maksis 25–45 eurot.", "et"),
    "ru": page("Цены сезона 2023", "В сезоне 2023 года базовое обслуживание стоило 2 900 рублей, а полное — "
               "6 500 рублей. Правка колеса — от 1 200 до 2 800 руб.", "ru"),
    "es": page("Precios de la temporada 2023", "En la temporada 2023 la revisión básica costaba 35 € y la "
               "completa 75 €. El centrado de rueda costaba de 25 a 45 €.", "es"),
    "ko": page("2023년 시즌 가격", "2023년 시즌에는 기본 정비가 35,000원, 종합 정비가 75,000원이었습니다. "
               "휠 정렬은 2만5천~4만5천 원이었습니다.", "ko"),
}
# A site whose pinned knowledge states no price: its pages' prices are all there is.
SERVICES_PAGES = {
    "en": page("Services", "A basic service costs 39 €. Wheel truing costs 25–45 €.", "en"),
    "et": page("Teenused", "Põhihooldus maksab 39 eurot. Velje õgvendamine maksab 25–45 eurot.", "et"),
    "ru": page("Услуги", "Базовое обслуживание стоит 3 200 ₽. Правка колеса — 1 000–2 000 ₽.", "ru"),
    "es": page("Servicios", "La revisión básica cuesta 39 €. El centrado de rueda cuesta de 25 a 45 €.", "es"),
    "ko": page("서비스", "기본 정비는 39,000원입니다. 휠 정렬은 2만5천~4만5천 원입니다.", "ko"),
}
LANGS = ("en", "et", "ru", "es", "ko")


def site(lang: str, scenario: str = "list") -> PriceCheck:
    if scenario == "list":
        return PriceCheck([HOURS[lang], PRICE_LISTS[lang], CONTACT], [BLOGS[lang]], lang)
    assert scenario == "pages"
    return PriceCheck([HOURS[lang], CONTACT], [SERVICES_PAGES[lang], BLOGS[lang]], lang)


def offer(lang: str) -> str:
    return languages.get(lang).contact_offer


# --- traps: (lang, scenario, reply, the reply the visitor sees) -------------------
# "{offer}" stands for the language's offer to contact the business.

TRAPS = [
    # English
    ("en", "list", "A full service is 99 €.", "Full service: 89 €."),
    ("en", "list", "The basic service costs 35 €, as our blog says.", "Basic service: 45 €."),
    ("en", "list", "Gift cards cost 25 €.", "{offer}"),
    ("en", "list", "A service costs 45–89 €.", "Basic service: 45 €; Full service: 89 €."),
    ("en", "list", "Basic service is 35–45 €.", "Basic service: 45 €."),
    ("en", "list", "A basic service and a tyre change together come to 60 €.",
     "Basic service: 45 €; Tyre change (one wheel): 15 €."),
    ("en", "list", "Changing the tyres on both wheels is 30 €.", "Tyre change (one wheel): 15 €."),
    ("en", "list", "With our 10% discount, the full service is 80.10 €.", "Full service: 89 €."),
    ("en", "list", "The full service costs $89.", "Full service: 89 €."),
    ("en", "list", "The full service costs 89 USD.", "Full service: 89 €."),
    ("en", "list", "Wheel truing costs 20–45 €.", "Wheel truing: 20–40 €."),
    ("en", "list", "Wheel truing is 25–45 €.", "Wheel truing: 20–40 €."),
    ("en", "list", "A frame repaint is 1 250 €.", "Frame repaint: 1 200 €."),
    ("en", "list", "A frame repaint is about $1.2k.", "Frame repaint: 1 200 €."),
    ("en", "list", "Winter storage is 50 € per season.", "Winter storage (November–March): 60 €."),
    ("en", "list", "The full service is 99 €. The full service really is 99 €.", "Full service: 89 €. "),
    ("en", "list", "Gift cards cost 25 €. Vouchers are 55 €. See you!", "{offer} See you!"),
    ("en", "list", "Hi! We are open Mon–Fri 10:00–19:00. A full service is 95 euros. Call +372 5555 0101 to book.",
     "Hi! We are open Mon–Fri 10:00–19:00. Full service: 89 €. Call +372 5555 0101 to book."),
    ("en", "list", "Our prices:\n- Basic service: 45 €\n- Full service: 99 €\n- Brake adjustment: 25 €\n",
     "Our prices:\n- Basic service: 45 €\n- Full service: 89 €\n- Brake adjustment: 20 €\n"),
    ("en", "list", "Total for a basic service plus a brake adjustment: 65 €.",
     "Basic service: 45 €; Brake adjustment: 20 €."),
    ("en", "list", "E-bike diagnostics costs 15 € per half hour.", "E-bike diagnostics: 30 €."),
    ("en", "pages", "A basic service costs 40 €.", "{offer}"),
    ("en", "pages", "A basic service costs 35–39 €.", "{offer}"),
    # Estonian
    ("et", "list", "Täishooldus maksab 99 eurot.", "Täishooldus: 89 €."),
    ("et", "list", "Põhihooldus maksab 39 eurot.", "Põhihooldus: 45 €."),
    ("et", "list", "Kinkekaart maksab 25 eurot.", "{offer}"),
    ("et", "list", "Põhihooldus maksab 35–45 eurot.", "Põhihooldus: 45 €."),
    ("et", "list", "Põhihooldus ja kummi vahetus maksavad kokku 70 eurot.", "Kummi vahetus (üks ratas): 15 €."),
    ("et", "list", "Kummi vahetus mõlemale rattale maksab 30 eurot.", "Kummi vahetus (üks ratas): 15 €."),
    ("et", "list", "10% allahindlusega maksab täishooldus 80,10 €.", "Täishooldus: 89 €."),
    ("et", "list", "Täishooldus maksab 89 dollarit.", "Täishooldus: 89 €."),
    ("et", "list", "Velje õgvendamine maksab 25–45 eurot.", "Velje õgvendamine: 20–40 €."),
    ("et", "list", "Raami värvimine maksab 1 250 eurot.", "Raami värvimine: 1 200 €."),
    ("et", "list", "Talvehoiustus maksab 50 eurot.", "Talvehoiustus (november–märts): 60 €."),
    ("et", "list", "Tere! Täishooldus maksab 95 €.\nBroneerida saab kodulehel.",
     "Tere! Täishooldus: 89 €.\nBroneerida saab kodulehel."),
    ("et", "list", "Velje õgvendamine maksab 20 kuni 45 eurot.", "Velje õgvendamine: 20–40 €."),
    ("et", "pages", "Põhihooldus maksab 42 eurot.", "{offer}"),
    # Russian
    ("ru", "list", "Полное обслуживание стоит 9 900 ₽.", "Полное обслуживание: 7 900 ₽."),
    ("ru", "list", "Базовое обслуживание стоит 2 900 рублей.", "Базовое обслуживание: 3 500 ₽."),
    ("ru", "list", "Подарочный сертификат стоит 3 000 ₽.", "{offer}"),
    ("ru", "list", "Обслуживание стоит от 3 500 до 7 900 ₽.",
     "Базовое обслуживание: 3 500 ₽; Полное обслуживание: 7 900 ₽."),
    ("ru", "list", "Базовое обслуживание и регулировка тормозов вместе обойдутся в 5 000 рублей.",
     "Базовое обслуживание: 3 500 ₽; Регулировка тормозов: 1 500 ₽."),
    ("ru", "list", "Замена покрышек на обоих колёсах — 2 400 ₽.", "Замена покрышки (одно колесо): 1 200 ₽."),
    ("ru", "list", "Со скидкой 10% полное обслуживание стоит 7 110 ₽.", "Полное обслуживание: 7 900 ₽."),
    ("ru", "list", "Полное обслуживание стоит 7 900 евро.", "Полное обслуживание: 7 900 ₽."),
    ("ru", "list", "Правка колеса стоит от 1 200 до 2 800 рублей.", "Правка колеса: от 1 000 до 2 500 ₽."),
    ("ru", "list", "Зимнее хранение — 4,5 тыс. руб.", "Зимнее хранение (ноябрь–март): 5 000 ₽."),
    ("ru", "list", "Диагностика электровелосипеда — 2 000 $.", "Диагностика электровелосипеда: 2 000 ₽."),
    ("ru", "list", "1. Базовое обслуживание — 3 500 ₽\n2. Полное обслуживание — 8 900 ₽\n",
     "1. Базовое обслуживание — 3 500 ₽\n2. Полное обслуживание: 7 900 ₽\n"),
    ("ru", "pages", "Правка колеса — 1 000–2 800 ₽.", "{offer}"),
    # Spanish
    ("es", "list", "La revisión completa cuesta 99 €.", "Revisión completa: 89 €."),
    ("es", "list", "La revisión básica cuesta 35 euros.", "Revisión básica: 45 €."),
    ("es", "list", "La tarjeta regalo cuesta 25 €.", "{offer}"),
    ("es", "list", "Una revisión cuesta entre 45 y 89 €.", "Revisión básica: 45 €; Revisión completa: 89 €."),
    ("es", "list", "La revisión básica y el ajuste de frenos juntos cuestan 65 €.",
     "Revisión básica: 45 €; Ajuste de frenos: 20 €."),
    ("es", "list", "Cambiar la cubierta de las dos ruedas cuesta 30 €.", "Cambio de cubierta (una rueda): 15 €."),
    ("es", "list", "Con un 10 % de descuento, la revisión completa sale por 80,10 €.", "Revisión completa: 89 €."),
    ("es", "list", "La revisión completa cuesta 89 dólares.", "Revisión completa: 89 €."),
    ("es", "list", "El centrado de rueda cuesta de 25 a 45 €.", "Centrado de rueda: de 20 a 40 €."),
    ("es", "list", "La pintura del cuadro cuesta 1.250 €.", "Pintura del cuadro: 1.200 €."),
    ("es", "list", "El guardado de invierno cuesta 50 €.", "Guardado de invierno (noviembre–marzo): 60 €."),
    ("es", "list", "¡Hola! La revisión completa cuesta 95 €. ¿Quiere reservar?",
     "¡Hola! Revisión completa: 89 €. ¿Quiere reservar?"),
    ("es", "pages", "La revisión básica cuesta 42 €.", "{offer}"),
    # Korean
    ("ko", "list", "종합 정비는 99,000원입니다.", "종합 정비: 89,000원."),
    ("ko", "list", "기본 정비는 35,000원입니다.", "기본 정비: 45,000원."),
    ("ko", "list", "기프트 카드는 25,000원입니다.", "{offer}"),
    ("ko", "list", "정비 비용은 45,000원에서 89,000원입니다.", "기본 정비: 45,000원; 종합 정비: 89,000원."),
    ("ko", "list", "기본 정비와 브레이크 조정을 합치면 6만 원입니다.", "기본 정비: 45,000원; 브레이크 조정: 2만 원."),
    ("ko", "list", "타이어 두 개 교체는 30,000원입니다.", "타이어 교체 (바퀴 1개): 15,000원."),
    ("ko", "list", "10% 할인하면 종합 정비는 80,100원입니다.", "종합 정비: 89,000원."),
    ("ko", "list", "종합 정비는 89달러입니다.", "종합 정비: 89,000원."),
    ("ko", "list", "휠 정렬은 2만5천~4만5천 원입니다.", "휠 정렬: 2만~4만 원."),
    ("ko", "list", "겨울 보관은 5만 원입니다.", "겨울 보관 (11월~3월): 60,000원."),
    ("ko", "list", "안녕하세요! 종합 정비는 9만 9천 원입니다. 예약하시겠어요?",
     "안녕하세요! 종합 정비: 89,000원. 예약하시겠어요?"),
    ("ko", "pages", "기본 정비는 42,000원입니다.", "{offer}"),
]

# --- correct quotes, in every format: (lang, scenario, reply), passed untouched -----

QUOTES = [
    ("en", "list", "A basic service costs 45 €."),
    ("en", "list", "The full service is 89 EUR."),
    ("en", "list", "A full service costs 89 euros."),
    ("en", "list", "Basic service: €45."),
    ("en", "list", "The basic service is €45.00."),
    ("en", "list", "Tyre change (one wheel) costs 15,00 €."),
    ("en", "list", "A frame repaint is 1200 €."),
    ("en", "list", "A frame repaint is 1\u00a0200 €."),
    ("en", "list", "A frame repaint is 1\u202f200\u00a0€."),
    ("en", "list", "Frame repaint: 1,200 EUR."),
    ("en", "list", "Frame repaint: €1,200.00."),
    ("en", "list", "A frame repaint comes to about €1.2k."),
    ("en", "list", "Wheel truing costs 20–40 €."),
    ("en", "list", "Wheel truing costs 20-40 €."),
    ("en", "list", "Wheel truing is from €20 to €40, depending on the damage."),
    ("en", "list", "Wheel truing costs between 20 and 40 euros."),
    ("en", "list", "Wheel truing starts at 20 €."),
    ("en", "list", "A basic service is 45 €, and a tyre change for one wheel costs 15 €."),
    ("en", "list", "For e-bikes we recommend the diagnostics (30 €) before the full service (89 €)."),
    ("en", "list", "Winter storage (November–March) is 60 € and we are open Mon–Fri 10:00–19:00."),
    ("en", "list", "Here are our prices:\n- Basic service: **45 €**\n- Full service: 89 €\n\n"
                   "Book at https://rattakoda.example/book."),
    ("en", "pages", "A basic service costs 39 €, and wheel truing costs 25–45 €."),
    ("en", "pages", "Wheel truing was 25–45 € in 2023."),
    ("et", "list", "Põhihooldus maksab 45 eurot."),
    ("et", "list", "Täishooldus maksab 89 €."),
    ("et", "list", "Täishooldus on 89 EUR."),
    ("et", "list", "Raami värvimine maksab 1200 eurot."),
    ("et", "list", "Raami värvimine maksab 1 200 €."),
    ("et", "list", "Raami värvimine on 1.200,00 €."),
    ("et", "list", "Velje õgvendamine maksab 20 kuni 40 eurot."),
    ("et", "list", "Velje õgvendamine maksab 20–40 €."),
    ("et", "list", "Velje õgvendamine maksab alates 20 eurost."),
    ("et", "list", "Kummi vahetus maksab 15 eurot ratta kohta."),
    ("et", "list", "Talvehoiustus (november–märts) maksab 60 €, töö tehakse 2 tööpäeva jooksul."),
    ("et", "list", "Pidurite reguleerimine maksab 20,- €."),
    ("et", "list", "Elektrijalgratta diagnostika maksab 30 eur."),
    ("et", "pages", "Põhihooldus maksab 39 eurot."),
    ("ru", "list", "Базовое обслуживание стоит 3 500 ₽."),
    ("ru", "list", "Базовое обслуживание стоит 3500 руб."),
    ("ru", "list", "Базовое обслуживание — 3 500 рублей."),
    ("ru", "list", "Полное обслуживание стоит 7\u00a0900 ₽."),
    ("ru", "list", "Полное обслуживание — 7900 ₽."),
    ("ru", "list", "Правка колеса стоит от 1 000 до 2 500 ₽."),
    ("ru", "list", "Правка колеса — 1000–2500 руб."),
    ("ru", "list", "Правка колеса — от 1 000 ₽."),
    ("ru", "list", "Зимнее хранение обойдётся в 5 тыс. руб. за сезон."),
    ("ru", "list", "Замена покрышки стоит 1 200 ₽ за одно колесо."),
    ("ru", "list", "Регулировка тормозов стоит 1 500 ₽, диагностика электровелосипеда — 2 000 ₽."),
    ("ru", "list", "Полное обслуживание стоит 7 900 RUB."),
    ("ru", "list", "Полное обслуживание стоит 7 900,00 ₽."),
    ("ru", "pages", "Базовое обслуживание стоит 3 200 рублей."),
    ("es", "list", "La revisión básica cuesta 45 €."),
    ("es", "list", "La revisión básica cuesta 45 euros."),
    ("es", "list", "La revisión completa cuesta 89 EUR."),
    ("es", "list", "La revisión completa cuesta 89,00 €."),
    ("es", "list", "La pintura del cuadro cuesta 1.200 €."),
    ("es", "list", "La pintura del cuadro cuesta 1200 €."),
    ("es", "list", "La pintura del cuadro cuesta 1 200 €."),
    ("es", "list", "El centrado de rueda cuesta de 20 a 40 €."),
    ("es", "list", "El centrado de rueda cuesta entre 20 y 40 euros."),
    ("es", "list", "El centrado de rueda cuesta 20-40 €."),
    ("es", "list", "El centrado de rueda cuesta desde 20 €."),
    ("es", "list", "El ajuste de frenos cuesta 20 € y el cambio de cadena, 35 €."),
    ("es", "list", "El guardado de invierno (noviembre–marzo) cuesta 60 €."),
    ("es", "pages", "El centrado de rueda cuesta de 25 a 45 €."),
    ("ko", "list", "기본 정비는 45,000원입니다."),
    ("ko", "list", "기본 정비는 4만5천 원입니다."),
    ("ko", "list", "기본 정비는 4.5만 원입니다."),
    ("ko", "list", "기본 정비는 ₩45,000입니다."),
    ("ko", "list", "기본 정비는 45000 KRW입니다."),
    ("ko", "list", "브레이크 조정은 20,000원입니다."),
    ("ko", "list", "브레이크 조정은 2만 원입니다."),
    ("ko", "list", "체인 교체는 35,000원입니다."),
    ("ko", "list", "체인 교체는 3만5천원입니다."),
    ("ko", "list", "휠 정렬은 2만~4만 원입니다."),
    ("ko", "list", "휠 정렬은 2~4만 원입니다."),
    ("ko", "list", "휠 정렬은 2만 원에서 4만 원입니다."),
    ("ko", "list", "휠 정렬은 2만 원부터 4만 원까지입니다."),
    ("ko", "list", "겨울 보관(11월~3월)은 6만 원이고, 영업시간은 10:00–19:00입니다."),
    ("ko", "pages", "기본 정비는 39,000원입니다."),
]

# --- numbers that are not money, left alone though nobody stated them ---------------

NOT_MONEY = [
    ("en", "We are open Mon–Fri 10:00–19:00 and Sat 10:00–16:00."),
    ("en", "Call us at +372 5555 0101."),
    ("en", "The new prices apply from 1.03.2026."),
    ("en", "Work is usually done within 2 working days."),
    ("en", "Members get 20 % off, students 15%."),
    ("en", "We service Shimano XT M8100 and SRAM GX 12-speed groupsets."),
    ("en", "We are at Telliskivi 60a, and the booking page works 24/7."),
    ("en", "Come at 10.30 or 14.45."),
    ("en", "Our warranty lasts 3 months, 12 months for frames."),
    ("en", "The full service is 99."),  # no currency: not an amount of money
    ("et", "Töö tehakse üldjuhul 2 tööpäeva jooksul, E–R 10–19."),
    ("et", "Hinnakiri kehtib alates 1. märtsist 2026."),
    ("ru", "Мы работаем с 10:00 до 19:00, тел. +372 5555 0101."),
    ("ru", "Гарантия — 3 месяца, на раму — 12 месяцев."),
    ("es", "Abrimos de lunes a viernes de 10 a 19 h, el 24/7 es solo en línea."),
    ("es", "La garantía es de 3 meses."),
    ("ko", "영업시간은 오전 10시부터 오후 7시까지이며, 수리는 2~3일 정도 걸립니다."),
    ("ko", "회원 10명 이상 단체 예약이 가능합니다."),
]


def _trap_id(case) -> str:
    return f"{case[0]}-{case[1]}-{case[2][:40]}"


@pytest.mark.parametrize("case", TRAPS, ids=[_trap_id(c) for c in TRAPS])
def test_a_price_the_business_did_not_state_never_reaches_the_visitor(case):
    lang, scenario, reply, expected = case
    checked = site(lang, scenario).check(reply)
    assert checked.text == expected.format(offer=offer(lang))
    assert checked.corrections >= 1
    # What is left is vouched for: checked again, nothing changes.
    again = site(lang, scenario).check(checked.text)
    assert (again.text, again.corrections) == (checked.text, 0)


@pytest.mark.parametrize("case", QUOTES, ids=[_trap_id(c) for c in QUOTES])
def test_a_price_the_business_stated_passes_in_any_format(case):
    lang, scenario, reply = case
    assert find_money(reply, lang), "each quote states a price"
    checked = site(lang, scenario).check(reply)
    assert (checked.text, checked.corrections) == (reply, 0)


@pytest.mark.parametrize("case", NOT_MONEY, ids=[f"{c[0]}-{c[1][:40]}" for c in NOT_MONEY])
def test_numbers_that_are_not_money_are_left_alone(case):
    lang, reply = case
    assert find_money(reply, lang) == []
    checked = site(lang).check(reply)
    assert (checked.text, checked.corrections) == (reply, 0)


def test_there_are_enough_traps_and_quotes_in_every_language():
    assert len(TRAPS) >= 60 and len(QUOTES) >= len(TRAPS)
    for code in LANGS:
        assert sum(c[0] == code for c in TRAPS) >= 10
        assert sum(c[0] == code for c in QUOTES) >= 10


# --- reading amounts ---------------------------------------------------------------

E, R, U, K = "EUR", "RUB", "USD", "KRW"
AMOUNTS = [
    ("en", "It is 1 200 € in total", [("1200", E, "1 200 €")]),
    ("en", "It is 1\u00a0200\u00a0€", [("1200", E, "1\u00a0200\u00a0€")]),
    ("en", "It is 1\u202f200,50 €", [("1200.50", E, "1\u202f200,50 €")]),
    ("es", "Son 1.200,50 € en total", [("1200.50", E, "1.200,50 €")]),
    ("en", "That is $1,200.50 now", [("1200.50", U, "$1,200.50")]),
    ("en", "45€ or €45 or EUR 45 or 45 EUR", [("45", E, "45€"), ("45", E, "€45"), ("45", E, "EUR 45"),
                                             ("45", E, "45 EUR")]),
    ("ru", "стоит 45 евро", [("45", E, "45 евро")]),
    ("et", "maksab 45 eurot", [("45", E, "45 eurot")]),
    ("et", "maksab 45,- €", [("45", E, "45,- €")]),
    ("ru", "5 тыс. руб. или 300 р. в час", [("5000", R, "5 тыс. руб."), ("300", R, "300 р.")]),
    ("ko", "4만 원입니다", [("40000", K, "4만 원")]),
    ("ko", "3만5천원입니다", [("35000", K, "3만5천원")]),
    ("ko", "12,000원입니다", [("12000", K, "12,000원")]),
    ("ko", "1억 2천만 원", [("120000000", K, "1억 2천만 원")]),
    ("ko", "₩12,000입니다", [("12000", K, "₩12,000")]),
    ("en", "only $1.5k", [("1500", U, "$1.5k")]),
    ("xx", "45 € and 45 eurot", [("45", E, "45 €")]),  # no module: signs and codes only
]
RANGES = [
    ("en", "costs 40–60 € now", ("40", "60", E, "40–60 €")),
    ("en", "costs 40-60 € now", ("40", "60", E, "40-60 €")),
    ("en", "costs €40–60 now", ("40", "60", E, "€40–60")),
    ("en", "costs from €40 to €60 now", ("40", "60", E, "€40 to €60")),
    ("en", "costs between $40 and $60", ("40", "60", U, "$40 and $60")),
    ("en", "costs $1-2k", ("1000", "2000", U, "$1-2k")),
    ("ru", "стоит от 40 до 60 евро", ("40", "60", E, "40 до 60 евро")),
    ("es", "cuesta de 40 a 60 €", ("40", "60", E, "40 a 60 €")),
    ("es", "cuesta entre 40 € y 60 €", ("40", "60", E, "40 € y 60 €")),
    ("et", "maksab 40 kuni 60 eurot", ("40", "60", E, "40 kuni 60 eurot")),
    ("ko", "4만~6만 원입니다", ("40000", "60000", K, "4만~6만 원")),
    ("ko", "4~6만 원입니다", ("40000", "60000", K, "4~6만 원")),
    ("ko", "4만 원에서 6만 원입니다", ("40000", "60000", K, "4만 원에서 6만 원")),
]


@pytest.mark.parametrize("lang,text,expected", AMOUNTS, ids=[a[1] for a in AMOUNTS])
def test_amounts_are_read_with_their_value_currency_and_place(lang, text, expected):
    found = find_money(text, lang)
    assert [(m.value, m.currency, text[m.span[0]:m.span[1]]) for m in found] == \
        [(Decimal(v), c, s) for v, c, s in expected]
    assert all(isinstance(m, Amount) for m in found)


@pytest.mark.parametrize("lang,text,expected", RANGES, ids=[r[1] for r in RANGES])
def test_ranges_are_read_as_one_range(lang, text, expected):
    low, high, currency, written = expected
    [found] = find_money(text, lang)
    assert isinstance(found, Range)
    assert (found.low, found.high, found.currency, text[found.span[0]:found.span[1]]) == \
        (Decimal(low), Decimal(high), currency, written)


def test_two_prices_in_two_currencies_are_not_one_range():
    assert [type(m) for m in find_money("45 € – $60", "en")] == [Amount, Amount]
    assert find_money("до 60 евро", "ru") == [Amount(Decimal(60), E, (3, 10))]  # "up to", not a range


# --- prices written bare in the price list ------------------------------------------

def test_a_bare_number_takes_the_currency_its_line_names():
    check = PriceCheck([pinned("Prices", "Prices in €: basic service 45, full service 89")], [], "en")
    assert check.check("A basic service is 45 €.").corrections == 0
    assert check.check("A full service is 89 EUR.").corrections == 0
    assert check.check("A full service is $89.").text == "Prices in €: basic service 45, full service 89."


def test_a_bare_number_takes_the_currency_the_entry_title_names():
    check = PriceCheck([pinned("Price list (EUR)", "Basic service 45", "Full service 89")], [], "en")
    assert check.check("A basic service is 45 €.").corrections == 0
    assert check.check("A full service is 99 €.").text == "Full service 89."


def test_a_bare_number_takes_the_currency_of_the_table_header_above_it():
    check = PriceCheck([pinned("Hinnakiri", "Teenus | Hind (€)", "Põhihooldus | 45", "Täishooldus | 89",
                               "Rent | Hind ($)", "Jalgratas päevaks | 25")], [], "et")
    assert check.check("Täishooldus maksab 89 eurot.").corrections == 0
    assert check.check("Jalgratas päevaks maksab 25 $.").corrections == 0
    assert check.check("Jalgratas päevaks maksab 25 €.").text == "Jalgratas päevaks | 25."


def test_a_line_naming_two_currencies_or_pricing_its_numbers_lends_none():
    two = PriceCheck([pinned("Prices", "Paid in € or $: basic service 45")], [], "en")
    assert two.check("A basic service is 45 €.").corrections == 1
    priced = PriceCheck([pinned("Prices (€)", "Express service (2 days): 45 €")], [], "en")
    assert priced.check("Express service is 45 €.").corrections == 0
    assert priced.check("Express service is 2 €.").corrections == 1


def test_with_no_price_pinned_a_retrieved_page_vouches_but_no_blend_of_pages():
    check = site("en", "pages")
    assert check.check("A basic service costs 39 €; in 2023 it was 35 €.").corrections == 0
    assert check.check("A basic service costs 35–39 €.").text == offer("en")


def test_with_a_price_list_an_old_page_vouches_for_nothing():
    check = site("en")
    assert check.check("Winter storage was 50 € in 2023.").text == "Winter storage (November–March): 60 €."


# --- the reply around a repair -----------------------------------------------------

def test_the_offer_to_contact_is_made_once_and_a_quoted_line_is_not_repeated():
    reply = "Gift cards cost 25 €. A full service is 99 €. Vouchers are 55 €. The full service is really 99 €. Bye!"
    checked = site("en").check(reply)
    assert checked.text == f"{offer('en')} Full service: 89 €. Bye!"
    assert checked.corrections == 4


def test_a_quick_reply_label_is_judged_whole():
    check = site("en")
    assert check.passes("Book a full service (89 €)")
    assert not check.passes("Full service for 79 €")
    assert check.passes("Opening hours")


def test_without_a_module_the_language_is_read_with_signs_and_codes_and_offered_contact_in_english():
    check = PriceCheck([pinned("Tarifs", "Révision complète : 89 €")], [], "fr")
    assert check.check("La révision complète coûte 89 EUR.").corrections == 0
    assert check.check("La révision complète coûte 99 €.").text == "Révision complète : 89 €."
    assert check.check("Une carte cadeau coûte 25 €.").text == offer("en")


# --- sentences and streaming ---------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("Hello. World.", ["Hello. ", "World."]),
    ("It costs 1.200,50 €. Next", ["It costs 1.200,50 €. ", "Next"]),
    ("We open at 10.30 today. Welcome", ["We open at 10.30 today. ", "Welcome"]),
    ("Ask e.g. Tallinn staff. Or not", ["Ask e.g. Tallinn staff. ", "Or not"]),
    ("Ask Dr. Tamm. Or not", ["Ask Dr. Tamm. ", "Or not"]),
    ("Umbes 45 eurot jne. ja muud. Aitäh", ["Umbes 45 eurot jne. ja muud. ", "Aitäh"]),
    ("Prices:\n1. Basic: 45 €\n2. Full: 89 €", ["Prices:\n", "1. Basic: 45 €\n", "2. Full: 89 €"]),
    ("Really?! Yes.\n\n- one\n- two", ["Really?! ", "Yes.\n\n", "- one\n", "- two"]),
    ("It is **45 €.** Then", ["It is **45 €.** ", "Then"]),
    ("Стоит 5 тыс. руб. в месяц. Да", ["Стоит 5 тыс. руб. в месяц. ", "Да"]),
    ("가격은 45,000원입니다. 감사합니다", ["가격은 45,000원입니다. ", "감사합니다"]),
])
def test_sentences_end_where_a_reader_would_end_them(text, expected):
    assert sentences(text) == expected


def test_a_sentence_is_held_back_while_its_amount_may_still_grow():
    splitter = SentenceSplitter()
    assert splitter.feed("It costs 1") == []
    assert splitter.feed(" 200") == []
    assert splitter.feed(" €.") == []
    assert splitter.feed(" ") == []  # the next sentence may still be an abbreviation's tail
    assert splitter.feed("Next one") == ["It costs 1 200 €. "]
    assert splitter.rest() == "Next one"


def _stream(check: PriceCheck, pieces: list[str]) -> str:
    splitter = SentenceSplitter()
    out = []
    for piece in pieces:
        out.extend(check.sentence(s).text for s in splitter.feed(piece))
    out.append(check.sentence(splitter.rest()).text)
    return "".join(out)


def _cut(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)])]


@pytest.mark.parametrize("case", TRAPS[:12] + TRAPS[40:46], ids=[_trap_id(c) for c in TRAPS[:12] + TRAPS[40:46]])
def test_a_streamed_reply_is_repaired_exactly_like_a_whole_one(case):
    lang, scenario, reply, _ = case
    check = site(lang, scenario)
    streamed = _stream(check, list(reply))  # one character at a time
    assert streamed == check.check(reply).text  # the same PriceCheck: the whole-reply check keeps its own state


# Text made of what matters to sentence ends and amounts: digits, separators, stops,
# currency signs and words, range words, spaces of every kind and line breaks.
_ALPHABET = st.sampled_from(list("0123456789 .,!?…:-–~\n\u00a0\u202f€$₽원만천") +
                            ["e.g.", "Dr.", "EUR", " euro", " eurot", " евро", " to ", " kuni ", "Full service",
                             "Basic ", "wheel", "Aa", "b", "**", "\"", ")", "- ", "1. ", "45", "89 €", "1 200"])
_TEXT = st.lists(_ALPHABET, max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=_TEXT, cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8))
def test_sentences_do_not_depend_on_how_the_text_arrives(text, cuts):
    whole = SentenceSplitter()
    expected = whole.feed(text)
    splitter = SentenceSplitter()
    got = [s for piece in _cut(text, cuts) for s in splitter.feed(piece)]
    assert got == expected
    assert splitter.rest() == whole.rest()
    assert "".join(got) + splitter.rest() == text
    assert all(s[-1].isspace() for s in got)


@settings(max_examples=300, deadline=None)
@given(text=_TEXT, cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
       lang=st.sampled_from(LANGS))
def test_a_streamed_reply_and_a_whole_one_agree_and_an_unrepaired_one_is_untouched(text, cuts, lang):
    check = site(lang)
    whole = check.check(text)
    assert _stream(site(lang), _cut(text, cuts)) == whole.text
    if whole.corrections == 0:
        assert whole.text == text
    assert check.check(whole.text).corrections == 0  # a repaired reply needs no second repair
