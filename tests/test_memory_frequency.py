"""sidecar.memory.frequency: how often a fact says a thing happens, one value however it is said."""
import pytest

from sidecar.memory.dedup import pair
from sidecar.memory.frequency import read


@pytest.mark.parametrize("lang, text, atom, said", [
    ("en", "Has a dental check-up every six months.", "F182.6", "every six months"),
    ("en", "Gets the car washed every fortnight.", "F14", "every fortnight"),
    ("en", "Comes in for a wash every two weeks.", "F14", "every two weeks"),
    ("en", "Picks up regular meds once a month.", "F30.4", "once a month"),
    ("en", "Collects repeat prescription monthly.", "F30.4", "monthly"),
    ("en", "Carer visits twice a day.", "F0.5", "twice a day"),
    ("en", "Takes 50 mg a day.", "F1", "a day"),
    ("ru", "Визит к стоматологу раз в полгода.", "F182.6", "раз в полгода"),
    ("ru", "Профгигиена каждые шесть месяцев.", "F182.6", "каждые шесть месяцев"),
    ("ru", "Ходит два раза в неделю.", "F3.5", "два раза в неделю"),
    ("ru", "Ежегодно в марте берёт торт.", "F365.2", "Ежегодно"),
    ("es", "Encarga el pienso una vez al mes.", "F30.4", "una vez al mes"),
    ("es", "Hace el pedido de pienso cada mes.", "F30.4", "cada mes"),
    ("es", "Le limpian el piso cada quince días.", "F14", "cada quince días"),  # the Spanish fortnight
    ("es", "Todos los años viene en agosto.", "F365.2", "Todos los años"),
    ("et", "Käib juukselõikusel iga kuue nädala järel.", "F42", "iga kuue nädala järel"),
    ("et", "Laseb juukseid lõigata iga 6 nädala tagant.", "F42", "iga 6 nädala tagant"),
    ("et", "Vajab nädalas kaks korda koosolekuruumi.", "F3.5", "nädalas kaks korda"),
    ("et", "Käib nüüd lõikusel kord kuus.", "F30.4", "kord kuus"),
    ("et", "Treenib 3x nädalas.", "F2.3", "3x nädalas"),
    ("ko", "2주마다 방문.", "F14", "2주마다"),
    ("ko", "일주일에 두 번 운동.", "F3.5", "일주일에 두 번"),
    ("ko", "한 달에 한 번 방문.", "F30.4", "한 달에 한 번"),
    ("ko", "주 2회 수업.", "F3.5", "주 2회"),
    ("ko", "해마다 11월이면 스노타이어로 갈아 끼움.", "F365.2", "해마다"),
    # A half, before the period or after it, and the periods people round to: a month and a
    # half is six weeks, four weeks a month.
    ("ru", "Раз в полтора месяца подстригает концы.", "F42", "Раз в полтора месяца"),
    ("es", "Se hace el tinte cada mes y medio.", "F42", "cada mes y medio"),
    ("et", "Tellib korstnapühkija iga poole aasta tagant.", "F182.6", "iga poole aasta tagant"),
    ("et", "Juuksurisse tuleb umbes iga poolteist kuud.", "F42", "iga poolteist kuud"),
    ("ko", "반년에 한 번씩 치석 제거함.", "F182.6", "반년에 한 번씩"),
    ("en", "Gets his haircut every 4 weeks.", "F30.4", "every 4 weeks"),
    ("en", "Comes every week and a half.", "F10.5", "every week and a half"),
    # Every other, and a weekday after "every": a week's period, the weekday left a value.
    ("en", "Cleaner comes every other week.", "F14", "every other week"),
    ("en", "Cleaner visits every second Friday.", "F14", "every second"),
    ("ru", "Уборка каждую вторую пятницу.", "F14", "каждую вторую"),
    ("et", "Koristus igal teisel reedel.", "F14", "igal teisel"),
    ("es", "Cada martes viene.", "F7", "Cada"),
])
def test_one_frequency_however_it_is_said(lang, text, atom, said):
    found = read(text, lang)
    assert found.atoms == {atom}
    assert [text[a:b] for a, b in found.spans] == [said]


@pytest.mark.parametrize("lang, text", [
    ("en", "Was off work for six weeks."),
    ("en", "Takes a week off in August."),
    ("ru", "Родился в 2020 году."),
    ("et", "Tal on kuus last."),  # "kuus" is six here, not "in a month"
    ("ko", "일요일에 온다."),  # "일" (day) starts Sunday
    ("ko", "매달 1일에 먹임."),  # the 1st of the month is no second frequency
    ("xx", "every week"),  # a language without a module has no frequency words
    ("en", "Comes on Fridays."),  # a weekday alone is a value, not a frequency
    ("en", "Has a second car."),
])
def test_a_period_said_without_every_or_a_count_of_times_is_no_frequency(lang, text):
    found = read(text, lang)
    assert len(found.atoms) == (1 if "매달" in text else 0)


def test_its_words_and_numbers_are_not_the_facts_other_values_and_things():
    a, b = pair("Has a dental check-up every six months.", "Has a dental check-up once a year.", "en")
    assert (a.values, b.values) == ({"F182.6"}, {"F365.2"})
    assert a.words == b.words == ("check", "dental")


def test_a_frequency_a_date_implies_is_no_value_the_other_fact_lacks():
    # Weekly by the weekday, yearly by the month: "매주 토요일" / "토요일마다" (every Saturday).
    a, b = pair("토요일마다 통밀빵 픽업.", "매주 토요일 통밀빵 픽업.", "ko")
    assert a.values == b.values == {"D6"}
    a, b = pair("Charters a yacht every August.", "Charters a yacht each year in August.", "en")
    assert a.values == b.values == {"M8"}
    # Not by another date of its kind: two policies renewed in two months stay two values apart.
    a, b = pair("주택화재보험은 11월에 갱신한다.", "자동차 보험은 매년 4월에 갱신한다.", "ko")
    assert b.values == {"M4", "F365.2"}
    # A frequency no date implies stays a value said: "every six months" is no "in May".
    a, b = pair("Check-up in May.", "Check-up every six months, in May.", "en")
    assert b.values == {"M5", "F182.6"}
