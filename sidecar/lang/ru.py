"""Russian."""
from __future__ import annotations

from .base import Language, frozen, whole_words, words

# Numerals inflect: every case form is listed with its value ("четырьмя" -> 4).
_NUMBER_FORMS = {
    1: "один одна одно одного одной одному одним одну", 2: "два две двух двум двумя двое",
    3: "три трёх трех трём трем тремя трое", 4: "четыре четырёх четырех четырём четырем четырьмя четверо",
    5: "пять пяти пятью пятеро", 6: "шесть шести шестью шестеро", 7: "семь семи",
    8: "восемь восьми восемью", 9: "девять девяти девятью", 10: "десять десяти десятью",
    11: "одиннадцать одиннадцати", 12: "двенадцать двенадцати", 13: "тринадцать тринадцати",
    14: "четырнадцать четырнадцати", 15: "пятнадцать пятнадцати", 16: "шестнадцать шестнадцати",
    17: "семнадцать семнадцати", 18: "восемнадцать восемнадцати", 19: "девятнадцать девятнадцати",
    20: "двадцать двадцати", 30: "тридцать тридцати", 40: "сорок сорока", 50: "пятьдесят пятидесяти",
    60: "шестьдесят шестидесяти", 70: "семьдесят семидесяти", 80: "восемьдесят восьмидесяти",
    90: "девяносто девяноста", 100: "сто ста", 200: "двести двухсот", 300: "триста трехсот трёхсот",
    400: "четыреста", 500: "пятьсот пятисот", 1000: "тысяча тысячи тысяч тысячу тысячей",
    10**6: "миллион миллиона миллионов",
}

LANGUAGE = Language(
    code="ru",
    stopwords=words("""
        что как какой какая какие где когда почему сколько кто чей ваш ваша ваши вы мы они это
        этот эта эти есть был была были быть можно могу можете нужно хочу хотел пожалуйста
        здравствуйте спасибо привет для или тоже также очень там тут
        на не но за из от до по во ко со же ли бы он то да уж ни их ей им её ее
    """),
    # Russian is indexed as words: its question words are stopwords, matched whole.
    question_words=(),
    question_particles=(),
    question_fillers=(),
    question_endings=(),
    # Russian writes few one-word compounds; searchtext guesses heads only for
    # Finnic, Germanic and Hungarian.
    compound_kind="",
    compound_suffixes=(),
    framing=words("""
        клиент клиентка клиентку клиентке клиентки клиенткой клиента клиенту клиентом клиенте клиенты клиентов пользователь пользователя
        покупатель покупателя посетитель посетителя он она они его её ее их ему ей им него нее неё них
        хочет хотят хотел хотела хотели хотелось хочется желает желают нужен нужна нужно нужны
        нуждается требуется предпочитает предпочитают предпочёл предпочел предпочла предпочтение
        просит просят попросил попросила спрашивает спросил спросила интересуется интересует
        интерес заинтересован заинтересована заинтересованы планирует планируют собирается
        собираются намерен намерена имеет имеют есть является являются был была было были будет
        любит нравится нравятся владеет владеют управляет руководит работает работают
        использует используют пользуется ведёт ведет держит содержит сообщил сообщила говорит
        сказал сказала упомянул упомянула указал указала считает думает рассматривает
        также обычно сейчас часто чаще основном главным образом около примерно вместе
        свой своя своё свое свои своего своей своих свою который которая которое которые которых
    """),
    function_words=words("""
        при под над про его это всё все всех весь вся уже ещё еще лишь чтобы потому поэтому так
        как нет никогда ничего нельзя
    """),
    # Snowball's Russian stemmer brings the inflected forms to one stem.
    irregular_forms=frozen({}),
    word_endings=(),
    contact_labels=frozen({
        "phone": words("телефон телефона номер номера мобильный"),
        "email": words("почта почты адрес"),
        "url": words("сайт сайта страница"),
        "name": words("имя зовут звать фамилия"),
    }),
    number_words=frozen({form: value for value, forms in _NUMBER_FORMS.items() for form in forms.split()}),
    number_connectors=("и",),  # "тысяча и одна"
    # Russian numerals count on their own; units are words of their own, checked as
    # content words.
    counted_number_words=frozen({}),
    counters=(),
    number_units=(),
    # Only "май" is listed whole (its stem "ма" would be prefix of half the
    # language); the other months are found by their stems.
    months=frozen({"май": 5, "мая": 5, "мае": 5, "маем": 5}),
    month_prefixes=(("январ", 1), ("феврал", 2), ("март", 3), ("апрел", 4), ("июн", 6), ("июл", 7),
                    ("август", 8), ("сентябр", 9), ("октябр", 10), ("ноябр", 11), ("декабр", 12)),
    # "среда" is listed form by form: the prefix "сред" would also find "среди" and
    # "средний". The other weekdays are found by their stems.
    weekdays=frozen(dict.fromkeys(words("среда среду среды среде средам средами средах"), 3)),
    weekday_prefixes=(("понедельник", 1), ("вторник", 2), ("четверг", 4), ("пятниц", 5), ("суббот", 6),
                      ("воскресен", 7)),
    fold_accents=False,  # Russian is written without accents; "ё" is a letter of its own
    abbreviations=words("г ул д"),
    # Cyrillic script has capitals: a name is a capitalised word, wherever it stands.
    name_titles=(),
    name_intros=(),
    negation=whole_words(words("не нет ни без никогда ничего нельзя")),
    clause_splitters=words("а но однако зато"),
    # Negation scope runs from the negation to the end of its clause (clause_splitters).
    negates_word_before=(),
    negates_word_after=(),
    negated_endings=(),
    correction_cues=(
        "забудь", "забудьте", "удали", "удалите", "сотри", "сотрите", "уже неправда", "это неправда",
        "больше не", "уже не", "это не так", "неверно", "ошибка", "вы ошибаетесь", "устарело",
        "вы меня с кем-то путаете",
    ),
    value_labels=words("""
        январ феврал март апрел ма июн июл август сентябр октябр ноябр декабр
        понедельник вторник сред четверг пятниц суббот воскресень утр вечер
        почт email телефон звон смс сообщени
    """),
    # Snowball keeps "сын" and "дочь" apart: nothing to compare unstemmed.
    keep_whole=(),
    currency_words=frozen({"евро": "EUR",
                           **dict.fromkeys(words("руб руб. рубль рубля рублей рублям рублями рублях р."), "RUB"),
                           **dict.fromkeys(words("доллар доллара долларов долларах долл."), "USD")}),
    # "тыс." with its dot, so that the currency after it ("5 тыс. руб.") still belongs
    # to the amount.
    money_scales=frozen({**dict.fromkeys(words("тыс тыс. тысяча тысячи тысяч тысячу"), 1000),
                         **dict.fromkeys(words("млн млн. миллион миллиона миллионов"), 10**6)}),
    range_words=("от … до",),  # "до 60 евро" alone is "up to", not a range
    contact_offer="Чтобы узнать точную цену, пожалуйста, свяжитесь с нами — мы с радостью поможем.",
    offline_texts=frozen({
        "pinned": "Вот что указано в наших данных:",
        "found": "Вот что я нашёл на нашем сайте:",
        "source": "Источник",
        "none": "К сожалению, у меня нет этой информации. Пожалуйста, свяжитесь с нами, и мы поможем.",
        "note": "(Автоматический ответ, цитата из наших данных.)",
    }),
    readback="Я забыл это:",
)
