"""Estonian."""
from __future__ import annotations

from .base import MONTH, WEEK, YEAR, Language, frozen, groups, sides, whole_words, words

# Numerals inflect in 14 cases on the genitive stem: "kolm" / "kolme" + "-ks", "-ga" …
_CASE = "|t|d|l|le|lt|s|st|sse|ks|ni|na|ta|ga|de"


def _endings(stems: str, ends: str = _CASE) -> list[str]:
    return [s + e for s in stems.split() for e in ends.split("|")]


def _number_words() -> dict[str, int]:
    out: dict[str, int] = {}
    for value, (nominative, genitive) in enumerate([
            ("null", "nulli"), ("üks üht ühte", "ühe"), ("kaks kaht kahte", "kahe"), ("kolm", "kolme"),
            ("neli", "nelja"), ("viis viit", "viie"), ("kuus kuut", "kuue"), ("seitse seitset", "seitsme"),
            ("kaheksa", "kaheksa"), ("üheksa", "üheksa")]):
        out.update(dict.fromkeys(nominative.split() + _endings(genitive), value))
        if value:
            first = nominative.split()[0]
            # "kolmteist" / "kolmeteistkümne…" (13), "kolmkümmend" / "kolmekümne…" (30)
            out.update(dict.fromkeys([first + "teist"] + _endings(genitive + "teistkümne"), 10 + value))
            if value > 1:
                out.update(dict.fromkeys([first + "kümmend"] + _endings(genitive + "kümne"), 10 * value))
                # "viissada" / "viiesaja…" (500), written as one word as the tens are
                out.update(dict.fromkeys([first + "sada"] + _endings(genitive + "saja"), 100 * value))
    out.update(dict.fromkeys(["kümme", "kümmet"] + _endings("kümne"), 10))
    out.update(dict.fromkeys(["sada", "sadat"] + _endings("saja"), 100))
    out.update(dict.fromkeys(["tuhat"] + _endings("tuhande"), 1000))
    out.update(dict.fromkeys(["miljon", "miljonit"] + _endings("miljoni"), 10**6))
    return out


def _day_ordinals() -> dict[str, int]:
    """A day of the month as an ordinal: nominative, genitive, adessive and translative
    ("viies märts", "viienda märtsi", "viiendal märtsil", "viiendaks märtsiks")."""
    out: dict[str, int] = {}
    ones = [("esimene", "esimese"), ("teine", "teise"), ("kolmas", "kolmanda"), ("neljas", "neljanda"),
            ("viies", "viienda"), ("kuues", "kuuenda"), ("seitsmes", "seitsmenda"), ("kaheksas", "kaheksanda"),
            ("üheksas", "üheksanda")]
    for day, (nominative, genitive) in enumerate(ones, start=1):
        out.update(dict.fromkeys([nominative] + _endings(genitive, "|l|ks"), day))
    for day, stem in enumerate(("ühe", "kahe", "kolme", "nelja", "viie", "kuue", "seitsme", "kaheksa", "üheksa"),
                               start=11):
        out.update(dict.fromkeys([stem + "teistkümnes"] + _endings(stem + "teistkümnenda", "|l|ks"), day))
    for day, stem in ((10, ""), (20, "kahe"), (30, "kolme")):
        out.update(dict.fromkeys([stem + "kümnes"] + _endings(stem + "kümnenda", "|l|ks"), day))
    return out


LANGUAGE = Language(
    code="et",
    stopwords=words("""
        mis mida mille kes kus kuhu kust millal miks kuidas kui palju kas teil teie sina teie
        mina meie nad see seda need selle ning ning aga või ka ju siis veel väga palun tere aitäh
        olen oled oleme olete nad on ole saab saan saate tahan tahaksin soovin
        ja ei et ta te me ma sa
    """),
    # Estonian is indexed as words: its question words are stopwords, matched whole.
    question_words=(),
    question_particles=(),
    question_fillers=(),
    question_endings=(),
    compound_kind="finnic",  # "ratta|hooldus": a genitive modifier and a head, one word
    compound_suffixes=words("dus tus mine mise lik"),
    framing=words("""
        klient kliendi klienti kliendil kliendile kliendid klientide klientideks kasutaja külastaja ostja
        tema temal temale ta tal talle nad neil nende
        käia käib käivad
        soovib soovis sooviks soovivad tahab tahtis tahaks vajab vajas vajavad vaja eelistab
        eelistas eelistavad eelistus eelistatult küsib küsis küsinud palub palus on oli olid
        omab omanik omanikuna huvitub huvitatud huvi huvitab plaanib plaanis kavatseb kavatses
        kavandab kaalub meeldib meeldivad juhib haldab peab pidada töötab töötavad kasutab
        kasutavad teatas ütleb ütles mainis märkis rääkis
        praegu tavaliselt samuti peamiselt enamasti umbes ligikaudu koos
        elukutse elukutselt amet ametilt ametis pere peres perekond perekonnas
    """),
    # Taking a medicine and its dose; and ordering or buying what the business sells ("Tellib
    # igal reedel 20 pirukat." / "Võtab reedeti kakskümmend pirukat.").
    light_words=words("võtab võtma võtta annus annuse annust tellib tellima tellis ostab ostma ostis"),
    function_words=words("""
        oma see seda selle need nende kes mis mida mille ning ja ka ju veel ainult väga kõik iga sest
        kuna et siis pole polnud mitte ilma ega ära ärge ärgu
    """),
    # Snowball's Estonian stemmer strips case endings but leaves a stem that changes
    # ("tütar" / "tütre-le", "laps" / "lapse-ga", "pood" / "poe-s"): one form of each such
    # stem (its other forms stem alike).
    irregular_forms=frozen({
        "lapse": "laps", "lapsi": "laps", "last": "laps", "mehe": "mees", "mehi": "mees", "naise": "naine",
        "naisi": "naine", "naist": "naine", "tütre": "tütar", "tütarde": "tütar", "poja": "poeg", "poega": "poeg",
        "poegi": "poeg", "venna": "vend", "venda": "vend", "vendi": "vend", "õed": "õde", "õega": "õde",
        "õel": "õde", "õele": "õde", "poe": "pood", "poed": "pood", "poele": "pood", "poes": "pood",
        "poode": "pood", "poodi": "pood", "aja": "aeg", "aega": "aeg", "aegu": "aeg", "leiva": "leib",
        "leiba": "leib", "leibu": "leib", "jala": "jalg", "jalga": "jalg", "jalgu": "jalg", "käe": "käsi",
        "käed": "käsi", "käele": "käsi", "käte": "käsi", "kätt": "käsi", "toa": "tuba", "toad": "tuba",
        "toas": "tuba", "tube": "tuba", "tuppa": "tuba", "paadi": "paat", "paate": "paat", "paati": "paat",
        "hamba": "hammas", "hammaste": "hammas", "ukse": "uks", "uksi": "uks", "ust": "uks", "sõbra": "sõber",
        "sõpra": "sõber", "sõpru": "sõber", "koera": "koer", "koeri": "koer", "rea": "rida", "read": "rida",
        "ridu": "rida", "keele": "keel", "keeli": "keel", "küüne": "küüs", "küünt": "küüs", "küüsi": "küüs",
        "selja": "selg", "selga": "selg", "nime": "nimi", "hinna": "hind", "hinda": "hind",
        "hindu": "hind", "rohu": "rohi", "rohtu": "rohi", "tunni": "tund", "tundi": "tund", "tunde": "tund",
        "lille": "lill", "lilli": "lill", "koogi": "kook", "kooke": "kook", "kooki": "kook", "tordi": "tort",
        "torti": "tort", "õlle": "õlu", "õlut": "õlu", "prille": "prillid", "läätse": "lääts", "läätsi": "lääts",
        "naha": "nahk", "nahka": "nahk", "laua": "laud", "lauad": "laud", "lauda": "laud", "kapi": "kapp",
        "akna": "aken", "hobuse": "hobune", "hobu": "hobune", "jänese": "jänes",
        "pruudi": "pruut", "pruuti": "pruut", "põlve": "põlv", "põlvi": "põlv", "pulmi": "pulm",
        # A genitive or partitive the stemmer leaves a vowel longer than a short stem ("kass" / "kassi-le").
        "kassi": "kass", "kasse": "kass", "arsti": "arst", "linna": "linn", "panga": "pank", "panka": "pank",
        "aia": "aed", "aias": "aed", "aeda": "aed", "kirja": "kiri", "kirju": "kiri", "laeva": "laev",
        "tooli": "tool", "sõrme": "sõrm", "silma": "silm", "silmi": "silm", "kõrva": "kõrv", "õla": "õlg",
        "õlga": "õlg", "naabri": "naaber", "bussi": "buss", "rongi": "rong", "vanni": "vann", "sauna": "saun",
        "katuse": "katus", "seina": "sein", "lambi": "lamp", "kella": "kell", "kaardi": "kaart", "pileti": "pilet",
        "reisi": "reis", "apteegi": "apteek", "salongi": "salong", "veini": "vein", "veine": "vein", "kohvi": "kohv",
        "suhkru": "suhkur", "õuna": "õun", "õunu": "õun", "roosi": "roos", "roose": "roos", "tulbi": "tulp",
        "kimbu": "kimp", "kimpu": "kimp", "palga": "palk", "palka": "palk", "maksu": "maks", "laenu": "laen",
        "kooli": "kool", "kaela": "kael", "köögi": "köök", "lampi": "lamp", "soola": "sool", "tulpe": "tulp",
        # More everyday nouns the stemmer splits the same way ("nädal" / "nädalas", "grupp" / "grupis");
        # "kingi" is left out, a form of "king" (shoe) and of "kink" (gift).
        "nädala": "nädal", "nädalat": "nädal", "süsti": "süst", "kausta": "kaust", "grupi": "grupp",
        "gruppi": "grupp", "kaarti": "kaart", "akent": "aken", "kõhu": "kõht", "kõhtu": "kõht",
        "südant": "süda", "vere": "veri", "verd": "veri", "pildi": "pilt", "pilti": "pilt",
        "kleidi": "kleit", "kinga": "king", "mütsi": "müts", "särgi": "särk", "särki": "särk", "koti": "kott",
        "kotti": "kott", "võtme": "võti", "numbri": "number", "numbrit": "number", "ranna": "rand",
        "randa": "rand", "mere": "meri", "merd": "meri", "järve": "järv", "turu": "turg", "turgu": "turg",
        "pulma": "pulm", "mäe": "mägi", "mäge": "mägi", "jõe": "jõgi", "jõge": "jõgi", "lõnga": "lõng",
        "lamba": "lammas", "paki": "pakk", "pakki": "pakk", "kasti": "kast", "pudeli": "pudel",
        "pudelit": "pudel", "tassi": "tass", "noa": "nuga",
    }),
    verbal_noun_endings=words("mise mine"),  # "kolimine" (moving), "tellimise" (of ordering)
    verbal_noun_links=words("mis"),
    verbal_noun_lookalikes=words("eelmine järgmine ülejärgmine alumine ülemine peamine sisemine välimine tagumine "
                                 "keskmine"),
    word_endings=(),
    contact_labels=frozen({
        "phone": words("telefon telefoni number numbri mobiil mobiili"),
        "email": words("e-post e-posti meili aadress"),  # "meil" alone is mostly "we have", "meile" "to us"
        "url": words("koduleht kodulehe veebileht veebilehe"),
        "name": words("nimi nime nimega perekonnanimi"),
    }),
    address_words=("aadress",),
    number_words=frozen(_number_words()),
    # Estonian writes a compound numeral without a connector ("kakskümmend viis").
    number_connectors=(),
    # Estonian numerals count on their own; units are words of their own, checked as
    # content words.
    counted_number_words=frozen({}),
    counters=(),
    number_units=(),
    # Only "mai" is listed whole (its stem is too short to be a safe prefix); the
    # other months are found by their stems.
    months=frozen({"mai": 5, "mail": 5, "mais": 5, "maist": 5, "maini": 5, "maiks": 5}),
    month_names_capitalised=False,  # "mais"
    month_after_number=None,  # months are names, not numbers with a suffix
    short_year=None,  # a year is written in full
    month_prefixes=(("jaanuar", 1), ("veebruar", 2), ("märts", 3), ("aprill", 4), ("juuni", 6), ("juuli", 7),
                    ("august", 8), ("septemb", 9), ("oktoob", 10), ("novemb", 11), ("detsemb", 12)),
    day_ordinals=frozen(_day_ordinals()),
    day_of=(),
    # Every weekday is found by its stem (weekday_prefixes).
    weekdays=frozen({}),
    weekday_prefixes=(("esmaspäev", 1), ("teisipäev", 2), ("kolmapäev", 3), ("neljapäev", 4), ("reede", 5),
                      ("laupäev", 6), ("pühapäev", 7)),
    fold_accents=False,  # ä, ö, ü, õ are letters of their own, not accents
    decimal_mark=",",  # "2,5 kg"; a date is written "14.03"
    abbreviations=words("hr pr nr"),
    # Latin script has capitals: a name is a capitalised word, wherever it stands.
    name_titles=(),
    name_intros=(),
    place_endings=(),
    negation=whole_words(words("ei pole polnud mitte ilma ega ära ärge ärgu ärme")),
    clause_splitters=words("aga kuid vaid ent"),
    # Negation scope runs from the negation to the end of its clause (clause_splitters).
    negates_word_before=(),
    negates_word_after=(),
    negated_endings=(),
    correction_cues=(
        # A habit given up: "olen juba kolm kuud suitsuvaba" (three months smoke-free now).
        "suitsuvaba", "suitsetamisest loobunud", "suitsetamise maha",
        # A couple parted: "Anna ja mina läksime lahku".
        "läksime lahku", "läksin lahku", "lahku läinud", "lahutasime", "lahutasin",
        # A trip over: "tulime Peruust tagasi".
        "tulime tagasi", "tulin tagasi", "jõudsime tagasi", "jõudsin tagasi",
        # The old one thrown away: "vana visake minema".
        "visake minema", "viska minema", "visata minema",
        "unusta", "unustage", "unusta ära", "kustuta", "kustutage", "eemalda", "enam ei", "ei ole enam",
        "pole enam", "see pole õige", "see ei ole õige", "see pole tõsi", "vale", "valesti", "ei vasta tõele",
        "aegunud",
        # Kuidas päriselt palutakse: "parandage", "hoopis", "vana number".
        "paranda", "uuenda", "muutke", "hoopis", "polegi", "vana number", "vana aadress", "uus number",
        "uus aadress", "varastati", "varastasid", "eemaldada", "matsime", "maeti",
        # Sündmus, millega salvestatu lõppes: "Muri lahkus meie hulgast".
        "lahkus meie hulgast", "lahkus meie juurest", "jättis meid maha",
        # Sünd lõpetab raseduse; auto läks romuks, anti ära; loom jäi igaveseks magama.
        "sündis", "on sündinud", "sünnitasin", "beebi on käes", "romu", "lammutusse", "andsime ära",
        "andsin ära", "jäi magama", "igaveseks magama", "magama panna", "magama pane",
        # What finally changed: "mees on lõpuks nõus pildile tulema".
        "lõpuks",
        # Given away as a gift: "kinkisin oma metsaratta vennale".
        "kinkisin", "kinkisime",
        # "reedestest leibadest loobun", "reedesed leivad palun lõpetage": what the customer gives up.
        "loobu", "lõpeta",
        # A condition that healed: "põlv on paranenud", "sai terveks".
        "paranes", "paranenud", "terveks",
        # What the customer left half done: "ujumise pidin pooleli jätma", "jätsin kitarri pooleli".
        "pooleli",
        # In a message these correct; in a fact they state a preference, a time or the past
        # ("Tahab kohvi asemel teed.", "Töötas varem pangas."), so they are no change cues.
        "asemel", "varem",
    ),
    change_cues=(
        # "Actually" in a fact says the value it states replaces one ("Lemmikvärv on tegelikult roheline.").
        "tegelikult",
        # "From now on" and a value grown or put off: "Maksab edaspidi arve alusel", "Külaliste arv kasvas 120-ni".
        "edaspidi", "kasvas", "üle viidud", "lükkus",
        # "enam" (any more) as a word of its own, not the start of "enamasti" (mostly).
        "nüüd", "enam$", "müüsi", "müüdud", "vahetasi", "vahetasime", "lõpetasi",
        "kolis", "loobusi", "jääb ära", "jäi ära", "suri", "tõin tagasi", "toome tagasi",
        "endine", "sulgesi", "paranes", "tervenes", "kaotasi", "loobus",
        # How a fact says it changed: "Vahetas luku …", "Aeg lükati maikuusse", "Läks üle …".
        "vahetas", "lükati", "lükkas", "tõsteti", "läks üle", "viis üle", "viidi üle", "andis üle", "pikendas", "praegu", "jäi katki", "jäid katki",
        # A value gone up or down: "Kuukaardi hind tõusis 49 eurole.".
        "tõusis", "langes", "kallines", "odavnes", "pikendati",
    ),
    residence_words=words("elab elan elame elavad elas elasin elasime kolis kolin kolime kolima elukoh"),
    channel_words=words("e-post e-kiri meili sms tekstisõnum sõnum whatsapp telegram viber helista kõne telefon suhtlus suhtle suhel ühendust kirjuta"),
    # Whole words: "uue" also begins "uueneb" (renews).
    new_words=words("uus$ uue$ uut$ uued$ uute$ uusi$"),
    relatives=words("""
        tütar tütre poeg poja pojad naine naise abikaasa ema$ emal emale emaga isa$ isal isale isaga õde õe vend
        venna laps lapse lapsed laste vanaema vanaisa elukaaslane elukaaslase pruut peigmees
    """),
    contact_owners=words("töö firma kontori isiklik kodu mobiil lauatelefon põhi teine teise vana$"),
    # "ema" (mother) only as a word of its own or inflected, never as the start of "email".
    contrasts=sides("""
        parem/vasak ülemi/alumi vanem/noorem hommiku/õhtu kuum/külm
        poeg/tütar poja/tütre vend/õde venna/õe vanaema/vanaisa
        ema$/isa$ emal/isal emaga/isaga emani/isani emaks/isaks
    """),
    synonyms=groups("""
        mikrogramm mcg
        mobiil mobiiltelefon
        kolimine ümberkolimine
        uuenema uuendama
        paigaldama installima
        arst doktor
        hambaarst stomatoloog
        loomaarst veterinaar
        juuksur frisöör
        visiit külastus
        broneerima reserveerima
        broneering reserveering
        tarne kohaletoimetamine kättetoimetamine
        ennelõuna hommikupoolik
        tihti sageli
        praegu hetkel
        hiljuti hiljaaegu
        ettevõte firma
        üliõpilane tudeng
        kindlustuspoliis poliis
        leping kontrakt
        torumees santehnik
        pildistama fotografeerima
        diabeet suhkruhaigus
        diabeetik suhkruhaige
        rase lapseootel
        kuuldeaparaat kuulmisaparaat
        mootorratas tsikkel
        sms tekstisõnum lühisõnum
        nädalavahetus nädalalõpp
        tühistama annulleerima
        ostma soetama
        soodustus allahindlus
        ülemus boss
        kolleeg töökaaslane
        trenn treening treenima
        liikmesus liikmelisus
        kuutasu kuumaks
        lillekimp bukett
        diivan sohva
        külmkapp külmik
        suvila suvemaja
        umbes ligikaudu umbkaudu
        ainult vaid üksnes
        ka samuti
        soovima tahtma
        beebi imik
        kiip mikrokiip
        kohtumine kokkusaamine
        palk töötasu
        koduleht kodulehekülg
        mõnikord vahetevahel
        tavaliselt harilikult
        regulaarselt korrapäraselt
        rääkima kõnelema
        kodutöö koduülesanne
        koristus koristamine
        varem varasemalt
        makse maksab maksma maksmine tasumine
        hoiul hoiab hoida
        suhtlus suhelda suhtleb
        kontaktlääts lääts
    """),
    numbered_things=words("""
        nr hammas$ hamba$ tuba$ toa$ tellimus$ tellimuse$ laud$ laua$ kapp$ kapi$ korter$ korteri$ boks$ boksi$
        koht$ koha$ arve$ kabinet$ kabineti$ palat$ palati$
    """),
    animals=words("""
        lemmikloom koer koera kutsik kass kassi kiisu kassipoeg küülik hamster papagoi viirpapagoi
        kanaarilind merisiga merisea kilpkonn hobune hobuse poni tuhkur taks$ taksi$ taksile taksiga taksikoer labrador retriiver
        spanjel terjer puudel kolli bigl buldog mops haski lambakoer
    """),
    value_labels=words("""
        jaanuar veebruar märts aprill mai juuni juuli august september oktoober november detsember
        esmaspäev teisipäev kolmapäev neljapäev reede laupäev pühapäev hommik õhtu
        e-post e-kiri meil telefon helista kõne sõnum
        igapäevaselt iganädalaselt igakuiselt igaaastaselt kord
    """),
    # Snowball keeps "tütar" and "poeg" apart: nothing to compare unstemmed.
    keep_whole=(),
    label_ends=words("on$"),
    # "kuus" is also six: before a period it is the count ("kuus nädalat"), frequency reads so.
    period_units=frozen({"päev": 1, "ööpäev": 1, "nädal": WEEK,
                         **dict.fromkeys(words("kuu$ kuus$ kuud$ kuul$ kuuks$ kuust$"), MONTH),
                         "aasta": YEAR, "poolaasta": YEAR / 2, "kvartal": YEAR / 4}),
    period_words=frozen({"igapäev": 1, "iganädal": WEEK, "igakuu": MONTH, "igaaast": YEAR}),
    every_words=words("iga$ igal$ igas$ igat$"),
    every_after=words("tagant$ järel$"),
    times_words=frozen({"kord$": 1, "korda$": 1, "korra$": 1, "x$": 1}),
    per_words=(),  # the period takes a case instead ("kord nädalas", once a week)
    period_counts=frozen({"pool$": 0.5, "poole$": 0.5, "poolteist$": 1.5, "poolteise$": 1.5, "teise$": 2, "teisel$": 2}),
    currency_words=frozen({**dict.fromkeys(words("euro eurot eurost euroni euroga eurole eurolt eurosse eurodes "
                                                 "eurode eurosid eur"), "EUR"),
                           **dict.fromkeys(words("dollar dollarit dollari dollarist dollarini"), "USD")}),
    money_scales=frozen({**dict.fromkeys(words("tuhat tuh tuh. tuhande tuhandet tuhandes tuhandest tuhandeni "
                                               "tuhandele tuhandega"), 1000),
                         **dict.fromkeys(words("miljon miljonit miljoni miljonis miljonist miljonini miljonile "
                                               "miljoniga miljoneid mln"), 10**6)}),
    range_words=("… kuni",),  # "40 kuni 60 eurot", also after "alates"
    contact_offer="Täpse hinna saamiseks võtke palun meiega ühendust, aitame hea meelega.",
    offline_texts=frozen({
        "pinned": "Meie andmetes on kirjas:",
        "found": "Leidsin meie kodulehelt:",
        "source": "Allikas",
        "none": "Vabandust, mul ei ole selle kohta infot. Palun võtke meiega ühendust, aitame hea meelega.",
        "note": "(Automaatne vastus, tsiteeritud meie andmetest.)",
    }),
    readback="Unustasin selle:",
)
