"""Real words per language for the synthetic corpus: function words (the head of
the Zipf curve) and a few hundred business-site content words. The rest of each
vocabulary is generated (bench.corpus) from syllables that look like the language."""

FUNCTION = {
    "en": """the and for with from about into this that your our you are was can will have has not all any
        more most other some such only also than then when where what which who how why there here each every
        very just over after before under between during without within they their its been would should
        could may must our these those both same""",
    "et": """ja ning et kui see seda need mis kes kus kuidas miks millal ka ei on oli olla saab saate meie
        teie oma iga kõik palju vähe rohkem ainult juba veel siis nüüd alati kohe pärast enne ilma koos
        vahel kuni üle alla sest aga või nagu selle mida mille kellele tuleb võib peab""",
    "ru": """и в не на что как где когда почему кто это этот эта эти для или но уже еще только очень все
        каждый можно нужно есть был была будет наш ваш свой после перед без вместе между около также
        тоже там здесь если чтобы потому который которая при про через под над""",
    "es": """el la los las un una y o de del en con por para sin sobre entre desde hasta que como cuando
        donde quien cual muy más menos también ya todo cada nuestro su sus este esta puede hay es son fue
        será pero si porque durante antes después mismo otro otra""",
    "ko": """그리고 또는 그러나 이 그 저 어디 언제 무엇 어떻게 왜 얼마 있나요 있습니다 합니다 입니다
        주세요 가능한가요 해요 모든 각 매우 그냥 이미 아직 다시 함께 부터 까지""",
}

CONTENT = {
    "en": """price prices service services booking appointment delivery shipping order orders payment
        invoice discount offer product products warranty return returns refund account customer customers
        support contact phone email address office store shop opening hours weekend monday tuesday
        wednesday thursday friday saturday sunday holiday season summer winter spring autumn morning
        evening week month year today tomorrow repair installation maintenance cleaning consultation
        package packages plan plans subscription monthly annual free standard premium basic extra option
        options size sizes color colors model models brand quality material wood metal glass steel leather
        cotton paper stone kitchen bathroom garden window door floor roof wall heating water electricity
        energy solar battery car tire tires wheel engine oil brake team staff manager expert technician
        specialist driver courier warehouse stock available reserve cancel change confirm schedule visit
        trip tour ticket tickets room rooms hotel guest guests breakfast dinner lunch menu table restaurant
        coffee wine beer cake bread fresh local organic healthy children adults family group groups student
        students senior card cash transfer deposit fee fees cost total tax included minimum maximum duration
        minutes hour day days distance location city center parking entrance building street map route
        train bus airport harbour sauna massage hairdresser manicure treatment doctor dentist school course
        training teacher book language insurance contract terms privacy policy cookie newsletter gift
        voucher membership loyalty points catalogue collection sale clearance bundle accessories spare
        parts tools equipment rental lease trial demo quote estimate measurement design project renovation
        construction painting plumbing electrician carpentry furniture sofa chair bed mattress lamp
        curtain carpet tiles insulation ventilation boiler pump filter cleaning""",
    "et": """hind hinnad hinnakiri teenus teenused broneering broneerimine aeg tarne kohaletoimetamine
        tellimus tellimused makse arve allahindlus pakkumine toode tooted garantii tagastus raha konto
        klient kliendid tugi kontakt telefon aadress kontor pood kauplus lahtiolekuajad nädalavahetus
        esmaspäev teisipäev kolmapäev neljapäev reede laupäev pühapäev puhkus hooaeg suvi talv kevad
        sügis hommik õhtu nädal kuu aasta täna homme remont paigaldus hooldus puhastus konsultatsioon
        pakett paketid plaan igakuine aastane tasuta standardne lisa valik valikud suurus suurused värv
        värvid mudel mudelid kaubamärk kvaliteet materjal puit metall klaas teras nahk puuvill paber kivi
        köök vannituba aed aken uks põrand katus sein küte vesi elekter energia päike aku auto rehv rehvid
        ratas mootor õli pidur meeskond töötaja juhataja ekspert tehnik spetsialist juht kuller ladu laos
        saadaval reserveerida tühistada muuta kinnitada ajakava külastus reis ekskursioon pilet piletid
        tuba toad hotell külaline külalised hommikusöök õhtusöök lõuna menüü laud restoran kohv vein õlu
        kook leib värske kohalik mahe tervislik lapsed täiskasvanud pere grupp grupid õpilane üliõpilane
        pensionär kaart sularaha ülekanne sissemakse tasu tasud kulu kokku maks sisaldab minimaalne
        maksimaalne kestus minut minutit tund tundi päev päeva kaugus asukoht linn kesklinn parkimine
        sissepääs korrus hoone tänav marsruut rong buss lennujaam sadam saun massaaž juuksur maniküür spaa
        protseduur arst hambaarst visiit kool kursus koolitus õpetaja raamat keel kindlustus leping
        tingimused privaatsus uudiskiri kinkekaart liikmesus boonus kataloog kollektsioon soodusmüük
        tarvikud varuosad tööriistad seadmed rent liising proov pakkumus mõõtmine kujundus projekt
        renoveerimine ehitus värvimine torutööd elektrik mööbel diivan tool voodi madrats lamp kardin
        vaip plaadid soojustus ventilatsioon katel pump filter""",
    "ru": """цена цены прайс услуга услуги бронирование запись время доставка заказ заказы оплата счёт
        скидка предложение товар товары гарантия возврат деньги аккаунт клиент клиенты поддержка контакт
        телефон почта адрес офис магазин часы выходные понедельник вторник среда четверг пятница суббота
        воскресенье отпуск сезон лето зима весна осень утро вечер неделя месяц год сегодня завтра ремонт
        установка обслуживание уборка консультация пакет тариф подписка ежемесячный годовой бесплатно
        стандартный дополнительный выбор размер цвет модель марка качество материал дерево металл стекло
        сталь кожа хлопок бумага камень кухня ванная сад окно дверь пол крыша стена отопление вода
        электричество энергия батарея машина шина колесо двигатель масло тормоз команда сотрудник
        менеджер эксперт техник специалист водитель курьер склад наличие резерв отменить изменить
        подтвердить расписание визит поездка экскурсия билет комната номер гостиница гость завтрак ужин
        обед меню стол ресторан кофе вино пиво торт хлеб свежий местный органический дети взрослые семья
        группа студент пенсионер карта наличные перевод депозит плата стоимость итого налог включено
        минимум максимум продолжительность минута час день расстояние место город центр парковка вход
        этаж здание улица маршрут поезд автобус аэропорт порт сауна массаж парикмахер маникюр процедура
        врач стоматолог школа курс обучение учитель книга язык страховка договор условия
        конфиденциальность рассылка сертификат членство бонус каталог коллекция распродажа аксессуары
        запчасти инструменты оборудование аренда лизинг пробный замер дизайн проект строительство
        покраска сантехника электрик мебель диван стул кровать матрас лампа штора ковер плитка утепление
        вентиляция котел насос фильтр""",
    "es": """precio precios tarifa servicio servicios reserva cita horario entrega envío pedido pedidos
        pago factura descuento oferta producto productos garantía devolución reembolso cuenta cliente
        clientes soporte contacto teléfono correo dirección oficina tienda apertura semana lunes martes
        miércoles jueves viernes sábado domingo vacaciones temporada verano invierno primavera otoño
        mañana tarde noche mes año hoy reparación instalación mantenimiento limpieza consulta paquete plan
        suscripción mensual anual gratis estándar básico extra opción tamaño color modelo marca calidad
        material madera metal vidrio acero cuero algodón papel piedra cocina baño jardín ventana puerta
        suelo techo pared calefacción agua electricidad energía batería coche neumático rueda motor aceite
        freno equipo personal gerente experto técnico especialista conductor mensajero almacén disponible
        cancelar cambiar confirmar calendario visita viaje excursión billete entrada habitación hotel
        huésped desayuno cena almuerzo menú mesa restaurante café vino cerveza pastel pan fresco local
        orgánico saludable niños adultos familia grupo estudiante jubilado tarjeta efectivo transferencia
        depósito cuota coste total impuesto incluido mínimo máximo duración minuto hora día distancia
        ubicación ciudad centro aparcamiento edificio calle mapa ruta tren autobús aeropuerto puerto sauna
        masaje peluquería manicura tratamiento médico dentista escuela curso formación profesor libro
        idioma seguro contrato condiciones privacidad boletín regalo vale socio puntos catálogo colección
        rebajas accesorios repuestos herramientas alquiler prueba presupuesto medición diseño proyecto
        reforma construcción pintura fontanería electricista muebles sofá silla cama colchón lámpara
        cortina alfombra azulejos aislamiento ventilación caldera bomba filtro""",
    "ko": """가격 요금 서비스 예약 시간 배송 주문 결제 영수증 할인 제안 제품 상품 보증 반품 환불 계정 고객
        지원 연락처 전화 이메일 주소 사무실 매장 가게 영업시간 주말 월요일 화요일 수요일 목요일 금요일
        토요일 일요일 휴가 시즌 여름 겨울 봄 가을 아침 저녁 오늘 내일 수리 설치 유지보수 청소 상담
        패키지 요금제 구독 월간 연간 무료 표준 기본 추가 옵션 크기 색상 모델 브랜드 품질 재료 나무 금속
        유리 강철 가죽 종이 주방 욕실 정원 창문 바닥 지붕 난방 전기 에너지 배터리 자동차 타이어 바퀴
        엔진 오일 브레이크 직원 관리자 전문가 기술자 운전사 택배 창고 재고 가능 취소 변경 확인 일정
        방문 여행 투어 티켓 객실 호텔 손님 조식 저녁식사 점심 메뉴 테이블 식당 커피 와인 맥주 케이크
        신선한 지역 유기농 건강 어린이 성인 가족 그룹 학생 카드 현금 송금 보증금 수수료 비용 합계 세금
        포함 최소 최대 기간 거리 위치 도시 중심 주차 입구 건물 지도 경로 기차 버스 공항 항구 사우나
        마사지 미용실 치료 의사 치과 학교 강좌 교육 선생님 언어 보험 계약 조건 개인정보 뉴스레터
        상품권 회원 포인트 카탈로그 컬렉션 세일 액세서리 부품 공구 장비 대여 체험 견적 측정 디자인
        프로젝트 리모델링 공사 페인트 배관 전기기사 가구 소파 의자 침대 매트리스 조명 커튼 카펫 타일
        단열 환기 보일러 펌프 필터""",
}

# The first words of a question, per language.
QUESTION = {
    "en": ["what is the", "how much does", "do you have", "can I", "where is the", "when is the",
           "is there a", "how long does the", "which", "do you offer"],
    "et": ["kui palju maksab", "kas teil on", "kus asub", "millal on", "kas saab", "mis on", "kuidas saab",
           "kas pakute", "kui kaua kestab", "milline"],
    "ru": ["сколько стоит", "есть ли у вас", "где находится", "когда", "можно ли", "что такое", "как",
           "вы предлагаете", "как долго", "какой"],
    "es": ["cuánto cuesta", "tienen", "dónde está", "cuándo es", "puedo", "qué es", "cómo", "ofrecen",
           "cuánto dura", "cuál es"],
    "ko": ["얼마예요", "있나요", "어디에 있나요", "언제", "가능한가요", "무엇인가요", "어떻게", "제공하나요",
           "얼마나 걸리나요", "어떤"],
}


def words(table: dict, lang: str) -> list[str]:
    return list(dict.fromkeys(table[lang].split()))
