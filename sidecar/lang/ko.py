"""Korean.

Korean differs from the other languages in three ways the code has to know, and
this module carries the word lists for each:
- FULLTEXT indexes Hangul as character bigrams, so whole stopwords cannot be taken
  out of its tokens: question words and endings are removed from the question text
  before bigramming (question_*), and `stopwords` is empty;
- there is no Snowball stemmer: particles and endings are stripped by hand
  (word_endings), longest first;
- there are no capitals, so a name is found before a title or after "이름"
  (name_titles, name_intros), and negation is scoped by word, not by clause.
"""
from __future__ import annotations

import re

from .base import MONTH, WEEK, YEAR, Language, frozen, groups, sides, words

# Standalone negating adverbs ("배달을 안 해요") and negating verb parts, found inside
# words ("않아요", "없어요", "아니라").
_NEGATING_WORDS = ("안", "못")
_NEGATING_PARTS = words("않 없 아니 말고 말아 마세요 말라 마십시오 못하")

# Native numerals: the ones, and the tens, which join the ones into one word ("스물다섯",
# 25; "서른두", 32 before a counter). "열" (also heat, a row) and "쉰" (also gone sour)
# count alone only before a counter.
_ONES = {"하나": 1, "둘": 2, "셋": 3, "넷": 4, "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9}
_COUNTED_ONES = {"한": 1, "두": 2, "세": 3, "네": 4, "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9}
_TENS = {"열": 10, "스물": 20, "서른": 30, "마흔": 40, "쉰": 50, "예순": 60, "일흔": 70, "여든": 80, "아흔": 90}


def _native_numerals(ones: dict[str, int], alone: dict[str, int]) -> dict[str, int]:
    """The ones, the tens in `alone`, and every ten joined to a one."""
    return {**ones, **alone, **{ten + one: t + o for ten, t in _TENS.items() for one, o in ones.items()}}


LANGUAGE = Language(
    code="ko",
    # Korean is indexed as bigrams, so whole words cannot be matched against its
    # tokens: its question words are removed from the question text instead.
    stopwords=(),
    question_words=words("몇 무엇 뭐 뭔 뭘 무슨 어디 언제 누구 누가 누군 왜 어떻게 어떤 어느 얼마 얼마나 어때 어떠한"),
    question_particles=words("""
        은 는 이 가 을 를 에 에서 에게 의 도 로 으로 까지 부터 나 든지 요 죠 이죠 야 이야
        인가요 인가 인지 입니까 이에요 예요 에요 일까요 인데요 가요 나요 니까 까요
    """),
    question_fillers=words("""
        있나요 있습니까 있어요 있을까요 있는지 없나요 없습니까 없어요 없을까요 됩니까 되나요 됐나요 되었나요
        될까요 돼요 되요 합니까 하나요 했나요 했습니까 할까요 해요 인가요 입니까 인가 인지 뭔가요 뭐예요 뭐죠
        알려주세요 알려 주세요 알려줘요 알려줘 알고 싶어요 싶습니다 궁금합니다 궁금해요 궁금한데요 가능한가요
        가능합니까 가능해요 가능할까요 부탁드립니다 안녕하세요 감사합니다 혹시 좀 그럼 이 그 저 할 수
    """),
    question_endings=words("""
        되었나요 되었습니까 되었어요 되었는지 되었을까요 됐나요 됐어요 됐습니까 되나요 됩니까 될까요 되는지
        했나요 했습니까 했어요 했는지 했을까요 하나요 합니까 할까요 하는지 하죠 하세요
        였나요 었나요 았나요 였습니까 었습니까 았습니까 였어요 었어요 았어요 었을까요 았을까요
        인가요 입니까 인지 이에요 예요 이죠 인데요 나요 니까 까요
    """),
    # Bigrams already match inside compounds ("가구" in "중고가구점"): no head to guess.
    compound_kind="",
    compound_suffixes=(),
    framing=words("""
        고객 고객님 손님 사용자 이용자 회원 구매자 방문자 본인 그 그녀 그들 이분 해당
        방문
        원 원하 필요 선호 희망 요청 문의 관심 계획 예정 생각 고려 있 가지 보유 소유 좋아 운영
        관리 경영 사용 이용 언급 말 현재 또한 주로 보통 대부분 자주 함께 같이 정도 약 대략
        직업
    """),
    # Compared with a word once its particles and endings are stripped.
    # Buying and picking up ("구매", "구입", "픽업") name no thing a customer gets; "주문"
    # (order) is left a thing, as it is also the noun ("정기 주문", a standing order).
    light_words=words("구매 구입 픽업"),
    function_words=words("""
        그리고 그런데 하지만 그래서 및 등 것 수 때 좀 정말 아주 매우 너무 혹시 저희 우리 제 저 나 내 너
        안녕하세요 감사합니다 하 되 이 있 없 않 못 안 위해 위한 대한 관련 통해 경우 중 모두 다 또 또는 가능
        잘 더 꼭 그냥 이미 아직 곧 항상 거 게 데
    """),
    # No stemmer maps forms to a base: word_endings are stripped instead, and a
    # nominalised verb regains its stem by rule ("만듦" -> "만들").
    irregular_forms=frozen({}),
    verbal_noun_endings=(),  # nominalised verbs lose their ending in ko_candidates ("이사함" -> "이사하")
    verbal_noun_links=(),
    verbal_noun_lookalikes=(),
    word_endings=words("""
        하겠습니다 하였습니다 했습니다 합니다 하십니다 하세요 하셨어요 했어요 해요 해서 하는데 하지만 하려고
        하려는 하면서 하며 하고 하는 하기를 하기 하면 한다 했다 하다 하여 하길 해 했 함 한 할
        되었습니다 되었어요 됐어요 됩니다 돼요 되어 되는 되고 되면 됨 된 될
        입니다 이에요 예요 이었어요 였어요 이고 이며 이라고 이라는 라고 라는 인데 이다 임 이라 라
        었습니다 았습니다 겠습니다 습니다 었어요 았어요 어요 아요 워요 와요 여요 세요 셨어요 셨다 을게요 ㄹ게요 게요
        는데 은데 지만 으려고 려고 으면 면 어서 아서 고 며 으며 음 기를 기 길 다 요 게 지 죠 까요 을까요
        을 를 은 는 이 가 에서 에게 께서 한테 으로 로 와 과 랑 이랑 하고 도 만 의 까지 부터 보다 처럼 마다
        에 께 님 들 씩 이나 나 뿐 밖에 조차 든지 에는 에서는 으로는 로는 에도 에서도 까지는 부터는 만큼
        과만 와만 하고만 이라도 라도 움 운 울
    """),
    contact_labels=frozen({
        "phone": words("전화 전화번호 번호 휴대폰 핸드폰 연락처"),
        "email": words("이메일 메일 주소"),
        "url": words("홈페이지 웹사이트 사이트 주소"),
        "name": words("이름 성함 성명"),
    }),
    address_words=("주소",),
    # Native numerals standing alone ("아이가 셋인데", "스물다섯"); the scale words that
    # follow digits ("300만") are number_units.
    number_words=frozen(_native_numerals(_ONES, {k: v for k, v in _TENS.items() if k not in ("열", "쉰")})),
    # Korean numerals are not joined by a connecting word.
    number_connectors=(),
    # The prenominal forms count only before a counter ("두 대", "세 번째", "스물한 살");
    # "스물" alone is "스무" there ("스무 살").
    counted_number_words=frozen(_native_numerals(_COUNTED_ONES, {**_TENS, "스무": 20})),
    counters=words("""
        대 명 개 곳 번 번째 시 시간 분 초 살 마리 잔 권 장 채 주 달 개월 년 가지 벌 병 층 박 군데 건 통
        팀 줄 판 송이 상자 봉지 켤레 쌍 평 퍼센트 프로 년식 인분
    """),
    number_units=words("세 월 일 인 만 천 백 억 원 kg 킬로"),
    # Months are mostly written "5월": a number before its suffix. A month written out in
    # Sino-Korean numerals is a word of its own (June and October drop a sound).
    months=frozen({"일월": 1, "이월": 2, "삼월": 3, "사월": 4, "오월": 5, "유월": 6, "칠월": 7, "팔월": 8,
                   "구월": 9, "시월": 10, "십일월": 11, "십이월": 12}),
    month_names_capitalised=False,  # Hangul has no capitals
    # "3월에", but not "3 월요일" (Monday).
    month_after_number=re.compile(r"\s?월(?!요일)[\uac00-\ud7a3]*"),
    # A model year ("19년식", "19년형") or a year before its month ("27년 8월"); "30년 된"
    # (thirty years old) stays a count.
    short_year=re.compile(r"\s?년\s?(?:식|형|\d{1,2}\s?월)"),
    month_prefixes=(),
    day_ordinals=frozen({}),  # days are numerals with 일 ("14일")
    day_of=(),
    weekdays=frozen({day + "요일": i + 1 for i, day in enumerate("월화수목금토일")}),
    weekday_prefixes=(),
    fold_accents=False,  # Hangul has no accents
    decimal_mark=".",
    # Hangul has no capitals, so there is no sentence-start rule to make exceptions to.
    abbreviations=(),
    name_titles=words("""
        씨 님 쌤 선생님 대표님 대표 사장님 사장 원장님 원장 실장님 실장 팀장님 팀장 과장님 과장 부장님 부장
        교수님 교수 기사님 기사 매니저님 매니저 담당자님 담당자
    """),
    name_intros=("이름",),
    # 시 city, 도 province, 구 district, 군 county, 동 neighbourhood, 읍 / 면 / 리 towns and villages, 로 / 길 streets.
    place_endings=words("시 도 구 군 동 읍 면 리 로 길"),
    negation=re.compile(r"(?:^|\s)(?:" + "|".join(_NEGATING_WORDS) + r")\s|" + "|".join(_NEGATING_PARTS)),
    # Negation is scoped by word (negates_word_*), not to the end of a clause.
    clause_splitters=(),
    negates_word_before=words("아니 않 없 못하 말고 말아 마세요 말라"),
    negates_word_after=_NEGATING_WORDS,
    negated_endings=("지",),  # "하지 않아요": the verb before 않 is what is denied
    correction_cues=(
        # A couple parted: "여자친구랑 헤어졌어요".
        "헤어졌", "이혼했",
        # A trip over: "페루랑 칠레 잘 다녀왔어요".
        "다녀왔",
        # A plan about to change: "신행지 바꾸려구요".
        "바꾸려",
        # A locker or a rental handed back: "사물함 반납할게요".
        "반납",
        "잊어", "잊어 주세요", "잊어주세요", "잊어버려", "지워", "지워 주세요", "지워주세요", "삭제", "삭제해 주세요", "빼 주세요", "빼주세요",
        "더 이상", "이제 아니", "아니에요", "사실이 아니", "틀렸", "잘못", "착각",
        # 실제로 고쳐 달라는 말: "고쳐 주세요", "번호 바뀌었어요", "옛날 주소".
        "고쳐", "수정", "정정", "업데이트", "바꿔 주세요", "바꿔주세요", "도난", "잃어버", "옛날", "새 번호", "새 주소", "장례", "빼도 돼", "빼셔도",
        # 저장된 사실을 끝낸 일: "초코가 무지개다리를 건넜어요", "어머니가 돌아가셨어요".
        "무지개다리", "돌아가셨", "세상을 떠났", "하늘나라",
        # 출산은 임신을 끝내고, 폐차·처분·넘긴 것은 소유를 끝낸다: "아기가 태어났어요", "K5 폐차했어요".
        "태어났", "출산", "낳았", "폐차", "넘겼", "빼고", "안락사",
        # 끊은 것: "담배 끊은지 1년 넘었어요".
        "끊",
        # "그건 지우셔도 되구요": 지우다 in its polite forms (not "지우" alone, a given name).
        "지우셔", "지우세요", "지우시",
        # 다 나은 것: "무릎 다 나았어요", "완치됐어요".
        "나았", "완치", "회복했", "회복됐",
        # In a message these correct; in a fact they state a preference, a time or the past
        # ("어머니 당뇨약도 대신 받아 감.", "예전에 은행에서 일했다."), so they are no change cues.
        "대신", "예전", "전에는",
    ),
    change_cues=(
        # "Actually" in a fact says the value it states replaces one ("사실은 통로 쪽 좌석을 선호한다.").
        "사실은",
        # "아반떼를 처분하고 …", "3개월 간격으로 받기로 했다".
        "처분", "기로 했",
        "이제", "요즘", "지금은", "바꿨", "바꿈", "바뀌", "바뀜", "바뀐", "그만", "팔았", "이사", "보냈", "끝났",
        "없어졌", "취소", "퇴사",
        "더는", "그만뒀", "정리했", "폐업", "나았",
        # How a fact says it changed: "6월로 옮겼다", "로사르탄으로 변경됐다", "판교로 옮김". Not
        # "교체", which is also a routine ("6개월마다 엔진오일을 교체함").
        "변경", "옮겼", "옮김", "옮겨", "전환", "바꿔", "늘렸", "늘림", "늘었", "줄였", "줄임", "올라갔", "올랐", "이전했", "미뤄", "미뤘", "현재", "최근",
        "업그레이드",
        # A value gone down or raised: "4.6kg으로 줄었다", "회비를 올렸다".
        "줄었", "올렸", "내렸", "내려갔", "낮췄", "높였",
    ),
    residence_words=words("거주 이사 살고 살아 살며 삽니다 사는 살았 이주 삶$"),
    channel_words=words("이메일 메일 전화 통화 문자 카톡 카카오톡 텔레그램 왓츠앱 연락"),
    new_words=("새 ", "새로운", "새번호"),
    # "딸" (daughter) as a word with its particles only: it begins "딸기" (strawberry).
    relatives=words("""
        딸$ 딸이 딸은 딸을 딸의 딸에게 딸한테 딸과 딸도 딸만 딸이랑 딸하고 딸들 딸아이 딸내미 딸래미 딸네
        아들 남편 아내 와이프 부인 엄마 어머니 아빠 아버지 언니 누나 오빠 동생 아기 자녀 손자 손녀 할머니 할아버지 조카 시어머니 장모
        부모 모친 부친 따님 아드님 자식 조모 조부 집사람
    """),
    # One word for each line ("휴대폰", not also "핸드폰").
    contact_owners=words("회사 직장 사무실 업무 개인 집 휴대폰 유선 메인 세컨 예전 기존"),
    contrasts=sides("""
        왼쪽/오른쪽 위쪽/아래쪽 윗/아랫 상악/하악 앞바퀴/뒷바퀴 오전/오후 아침/저녁 첫째/둘째 큰아들/작은아들 큰딸/작은딸
        아들/딸 엄마/아빠 어머니/아버지 모친/부친 남편/아내 할머니/할아버지
        앞$/뒤$ 위$/아래$
    """),
    synonyms=groups("""
        초급 기초
        아이 애 자녀 자식
        아내 와이프 집사람
        어머니 엄마 모친
        아버지 아빠 부친
        딸 따님
        아들 아드님
        부모 부모님
        할머니 조모
        할아버지 조부
        남자친구 남친
        여자친구 여친
        아기 아가 애기
        노인 어르신
        반려동물 애완동물 펫
        반려견 애견 강아지
        반려묘 애묘 고양이 냥이
        오토바이 모터사이클
        휴대폰 핸드폰 휴대전화 폰
        이메일 메일 전자우편
        알레르기 알러지
        치아 이빨
        당뇨 당뇨병
        채식주의자 채식인
        예방접종 접종
        중성화 중성화수술
        수리하다 고치다 수선하다
        수리 수선
        취소하다 캔슬하다
        취소 캔슬
        매일 날마다
        매달 매월 다달이
        매년 매해 해마다
        항상 늘 언제나
        가끔 때때로 이따금 간혹
        오늘 금일
        올해 금년
        작년 지난해
        배달 배송
        배달하다 배송하다
        사다 구매하다 구입하다
        구매 구입
        주문하다 시키다
        생일 생신
        결혼식 웨딩 예식
        결혼하다 혼인하다
        결혼 혼인
        현금 현찰
        계좌이체 이체
        지불하다 결제하다
        결제 지불
        이름 성함
        나이 연세 연령
        일하다 근무하다
        수업 레슨 강습
        숙제 과제
        대학 대학교
        만기 만료 유효기간
        해지하다 해약하다
        해지 해약
        살다 거주하다
        세입자 임차인
        민감 예민
        원데이 하루용
    """),
    # The number comes first, written onto the word: "204호", "36번 치아".
    numbered_things=("호$", "호실$", "호점$", "번 치아", "번치아"),
    animals=words("""
        반려동물 강아지 고양이 반려견 반려묘 토끼 햄스터 앵무새 거북이 말티즈 푸들 비숑 진돗개 시바
        리트리버 닥스훈트 포메라니안 웰시코기 치와와 페르시안
    """),
    value_labels=words("월요일 화요일 수요일 목요일 금요일 토요일 일요일 주말 평일 오전 오후 저녁 이메일 메일 전화 문자 카톡 매일 매주 격주 매달 매월 격월 매년"),
    # Words are compared with their endings stripped, not stemmed together: nothing
    # folds two people into one word.
    keep_whole=(),
    # Written right after the number or its scale ("12,000원", "4만 원"), particles and
    # the copula glued on ("원입니다", "원부터").
    label_ends=words("-은 -는"),
    # Whole, with the particles a period takes: "일" (day) and "주" (week) start other words.
    period_units=frozen({**dict.fromkeys(words("하루$ 하루에$ 일$ 일에$"), 1),
                         **dict.fromkeys(words("주$ 주에$ 주일에$ 일주일$ 일주일에$"), WEEK),
                         **dict.fromkeys(words("달$ 달에$ 개월$ 개월에$"), MONTH), "분기$": YEAR / 4,
                         **dict.fromkeys(words("년$ 년에$ 해$ 해에$"), YEAR),
                         **dict.fromkeys(words("반년$ 반년에$"), YEAR / 2)}),
    period_words=frozen({"매일": 1, "매주": WEEK, "격주": 14, "매달": MONTH, "매월": MONTH, "격월": 2 * MONTH,
                         "매년": YEAR, "매해": YEAR}),
    every_words=words("매$"),
    every_after=words("-마다 마다$"),
    times_words=frozen({"번$": 1, "번씩$": 1, "회$": 1, "회씩$": 1, "차례$": 1}),
    per_words=(),  # the period takes a particle instead ("일주일에 두 번")
    period_counts=frozen({"반$": 0.5}),
    currency_words=frozen({"원": "KRW", "달러": "USD", "유로": "EUR", "루블": "RUB"}),
    # Scales follow the digits and combine: "3만5천원" = 35 000, "1억 2천만 원" = 120 000 000.
    money_scales=frozen({"십": 10, "백": 100, "천": 1000, "만": 10**4, "억": 10**8}),
    range_words=("… 에서", "… 부터"),  # "4만 원에서 6만 원", "4만 원부터 6만 원까지"
    contact_offer="정확한 가격은 문의해 주시면 안내해 드리겠습니다.",
    offline_texts=frozen({
        "pinned": "안내된 정보는 다음과 같습니다:",
        "found": "웹사이트에서 찾은 내용입니다:",
        "source": "출처",
        "none": "죄송합니다. 해당 정보가 없습니다. 문의해 주시면 도와드리겠습니다.",
        "note": "(저희 정보에서 인용한 자동 답변입니다.)",
    }),
    readback="다음 내용을 잊었습니다:",
)
