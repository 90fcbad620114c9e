"""English. Also the fallback for a language code the sidecar has no module for."""
from __future__ import annotations

import re

from .base import MONTH, WEEK, YEAR, Language, frozen, groups, sides, words

_MONTHS = words("january february march april may june july august september october november december")
_WEEKDAYS = words("monday tuesday wednesday thursday friday saturday sunday")
_NUMBERS = words("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                 "fifteen sixteen seventeen eighteen nineteen twenty")

LANGUAGE = Language(
    code="en",
    # The two-letter ones never become tokens in lower case; they are listed so that
    # shouted ("OPEN ON SUNDAYS") they are not taken for acronyms, and so that a
    # visitor's "EL" is not searched in another language's chunks.
    stopwords=words("""
        what which who whom whose when where why how much many does did doing have has had having
        you your yours are was were been being can could would should will shall may might must
        the and for with from about into this that these those there here our ours they them their
        please tell know want need like any some all just also very get got hello thanks thank
        its whats whether than then hey okay anyone anybody someone somebody anything something
        doesn isn aren wasn weren hasn didn couldn wouldn shouldn
        of to in on at is be by or an as do if me my no so up we he am ok oh hi
    """),
    # English is indexed as words: its question words are stopwords, matched whole.
    question_words=(),
    question_particles=(),
    question_fillers=(),
    question_endings=(),
    # English writes compounds as separate words ("bike service"): no head to guess.
    compound_kind="",
    compound_suffixes=(),
    framing=words("""
        customer customers client clients user users visitor person they them their theirs
        available availability
        he him his she her hers themselves himself herself
        want wants wanted wanting wish wishes would needs need needed requires require
        prefer prefers preferred preference rather ask asks asked asking request requests requested
        has have had having own owns owned owner run runs running operate operates operating
        manage manages managing work works working use uses used using
        like likes liked love loves enjoy enjoys interested interest interests
        plan plans planned planning intend intends intending going looking look looks seeks seek
        considering consider considers thinking think thinks
        is are was were be been being am mention mentions mentioned say says said stated states
        told tells note notes noted reports reported explains explained
        currently also usually often mostly mainly generally typically normally
        around approximately roughly together
        profession occupation regularly
    """),
    # Taking a medicine, its dose, holding; and buying or getting what the business sells: a
    # standing order is about what and when ("Buys a sourdough loaf every Friday." / "Gets a
    # sourdough each Friday."). "Order" stays a thing (also the noun: "Friday order"), and so
    # do "collect" and "pick up", where picking up is not returning ("Picks up cars at …").
    light_words=words("""
        take takes taking took dose doses dosage hold holds holding
        buy buys bought purchase purchases purchased get gets got
    """),
    function_words=words("""
        its per via than then who which whom also only just one ones don doesn didn isn aren wasn
        weren won can couldn wouldn shouldn haven hasn hadn over both each every because since so
        not never none without nobody nothing neither nor cannot
    """),
    # Forms Snowball cannot bring to one stem ("sent"/"send", "children"/"child").
    irregular_forms=frozen({
        "sent": "send", "made": "make", "bought": "buy", "sold": "sell", "paid": "pay", "kept": "keep",
        "left": "leave", "brought": "bring", "took": "take", "taken": "take", "went": "go", "gone": "go",
        "came": "come", "told": "tell", "built": "build", "spent": "spend", "found": "find", "got": "get",
        "gotten": "get", "held": "hold", "ran": "run", "grew": "grow", "grown": "grow", "drove": "drive",
        "driven": "drive", "wrote": "write", "written": "write", "began": "begin", "begun": "begin",
        "broke": "break", "broken": "break", "chose": "choose", "chosen": "choose", "flew": "fly",
        "flown": "fly", "forgot": "forget", "forgotten": "forget", "lost": "lose", "met": "meet",
        "rode": "ride", "ridden": "ride", "saw": "see", "seen": "see",
        "spoke": "speak", "spoken": "speak", "stole": "steal", "stolen": "steal", "taught": "teach",
        "thought": "think", "understood": "understand", "woke": "wake", "wore": "wear", "worn": "wear",
        "children": "child", "people": "person", "men": "man", "women": "woman", "teeth": "tooth",
        "feet": "foot", "mice": "mouse", "geese": "goose", "knives": "knife", "wives": "wife",
        "shelves": "shelf",
    }),
    # Snowball stems English; nothing is stripped by hand.
    verbal_noun_endings=(),  # the stemmer brings a verbal noun to its verb already ("moving" -> "move")
    verbal_noun_links=(),
    verbal_noun_lookalikes=(),
    word_endings=(),
    contact_labels=frozen({
        "phone": words("phone telephone tel$ mobile cell$ cellphone number landline"),  # not "telling", "cellar"
        "email": words("email e-mail mail address inbox"),
        "url": words("website site web page homepage url"),
        "name": words("name named called surname"),
    }),
    address_words=("address",),
    number_words=frozen({w: i for i, w in enumerate(_NUMBERS)}
                        | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
                           "ninety": 90, "hundred": 100, "thousand": 1000, "million": 10**6}),
    number_connectors=("and",),  # "two hundred and fifty"
    # English numerals count on their own, and units are words of their own, which
    # the content check compares like any other word.
    counted_number_words=frozen({}),
    counters=(),
    number_units=(),
    months=frozen({m: i + 1 for i, m in enumerate(_MONTHS)}
                  | {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
                     "oct": 10, "nov": 11, "dec": 12}),
    month_names_capitalised=True,  # "May"; in lower case "may" and "march" are verbs
    month_after_number=None,  # months are names, not numbers with a suffix
    short_year=None,  # a year is written in full
    # English month and weekday names do not inflect: every form is listed whole.
    month_prefixes=(),
    day_ordinals=frozen({w: i + 1 for i, w in enumerate(words(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
        "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"))} | {"thirtieth": 30}),
    day_of=("of",),
    # Abbreviated too ("can I bring it in thurs?"), but for "sat" and "sun", which are other words.
    weekdays=frozen({d + s: i + 1 for i, d in enumerate(_WEEKDAYS) for s in ("", "s")}
                    | {w: i + 1 for i, short in enumerate(("mon", "tue tues", "wed weds", "thu thur thurs", "fri"))
                       for w in short.split()}),
    weekday_prefixes=(),
    fold_accents=False,  # English is written without accents
    decimal_mark=".",
    abbreviations=words("dr mr mrs ms prof st jr"),
    # Latin script has capitals: a name is a capitalised word, wherever it stands.
    name_titles=(),
    name_intros=(),
    place_endings=(),
    negation=re.compile(r"n['’]t\b|\b(?:not|no|never|none|without|nobody|nothing|neither|nor|cannot)\b",
                        re.IGNORECASE),
    clause_splitters=words("but however"),
    # Negation scope runs from the negation to the end of its clause (clause_splitters).
    negates_word_before=(),
    negates_word_after=(),
    negated_endings=(),
    correction_cues=(
        # A habit given up: "I've been smoke-free for three months".
        "smoke-free", "smoke free",
        # Who pays changed: "my company has cut the training budget, so I'll be paying out of my own pocket".
        "own pocket", "has cut", "have cut", "'ve cut",
        # A couple parted: "Anna and I split up, so scrap the valentine's reminder".
        "split up", "broke up", "broken up", "divorced", "scrap the",
        # A pet put to sleep, a thing given up for good: "we had to let Tigger go", "shaved the beard off for good".
        "had to let", "let him go", "let her go", "for good",
        # A trip or a stay over: "we got back from Lisbon", "just back from Peru".
        "got back from", "just back from", "we're back from", "came back from",
        "forget", "forget that", "forget what", "delete", "delete that", "remove", "erase",
        "wrong", "that's wrong", "that is wrong", "not true", "not true any more", "not true anymore",
        "no longer", "not any more", "not anymore", "isn't right", "not correct", "incorrect",
        "you're mixing me up", "that's not me", "outdated", "out of date",
        # How people really ask to drop or fix a fact: "scratch that", "got rid of the van",
        # "that's my old number".
        "scratch that", "scratch it", "scrap that", "scrap it", "strike that", "cross that off",
        "cross it off", "take that off", "take it off", "off your list", "off your records", "we buried",
        "get rid of", "got rid of", "getting rid of", "dont need that", "please correct",
        "correct that", "update that", "update your", "was stolen", "got stolen", "got nicked",
        "was nicked", "is dead", "old number", "old address", "old email", "new number", "new address",
        "new email", "my ex",
        # An event that ends what was stored: "my turnover dropped under the threshold and I've deregistered".
        "deregistered", "de-registered", "unregistered", "taken me off", "took me off",
        # A birth ends a pregnancy, a car scrapped or given away ends owning it, a pet put to sleep.
        "baby arrived", "baby is here", "baby's here", "was born", "were born", "gave birth", "had the baby",
        "had our baby", "girl arrived", "boy arrived", "one arrived", "postnatal", "post-natal", "scrapped", "gave away",
        "given away", "put to sleep",
        # Dropping one of several things by its pronoun, or a thing outgrown: "take him off the
        # system", "he's outgrown the egg allergy".
        "take him off", "take her off", "take them off", "outgrown", "grown out of",
        # A plan or a standing order called off, a thing done with: "cancel the home flowers",
        # "we've decided against the engagement shoot", "Ava's braces came off", "ignore that one".
        "cancel", "decided against", "ignore that", "ignore it", "one less", "came off", "taken off",
        # A standing order stopped: "can you stop the midweek sourdough", "we need to stop the office flowers".
        "stop the", "stop my", "stop our",
        # A worry or a plan that came to nothing: "the reaction was a false alarm", "the move fell through".
        "false alarm", "fallen through", "fell through", "called off",
        # A condition that healed ends what was stored about it: "the knee has healed", "she's fully recovered".
        "healed", "recovered",
        # A pet's death said gently, a habit given up, a change of course: "we had to say goodbye to
        # Bruno", "I'm going to stop doing the keratin", "I want to switch to automatic lessons".
        "goodbye to", "going to stop", "stop doing", "switch to", "switching to", "switched to",
        # A thing dropped or handed back, a plan changed: "ditch the highlights and go back to my
        # natural colour", "we'll bring back the one we've been renting", "we're done with the video calls".
        "ditch", "ditched", "ditching", "go back to my", "going back to my", "bring back", "bringing back",
        "done with", "change of plan", "skip the",
        # In a message these correct; in a fact they state a preference, a time or the past
        # ("Prefers tea instead of coffee.", "Used to live abroad."), so they are no change cues.
        "instead", "used to",
    ),
    change_cues=(
        # "Actually" in a fact says the value it states replaces one ("Actually prefers the aisle seat.").
        "actually",
        # A value grown: "Guest list has grown to around 120."
        "has grown", "grown to",
        "now", "these days", "any more", "anymore", "moved", "sold", "changed",
        "switched", "gave up", "given up", "stopped", "quit", "left", "gone", "rehomed", "passed away",
        "died", "paid off", "cancelled", "canceled", "finished", "sorted", "cleared up", "no need",
        "no more", "replaced", "retired", "closed", "moved out", "lost", "ended", "fixed",
        "recovered", "healed", "cured", "upgraded", "downgraded", "postponed", "rescheduled", "pushed back",
        "revised", "updated",
        "brought forward", "is down to", "is up to", "went up", "gone up", "went down", "gone down", "latest",
        # With "to": "raised" alone is also money raised or children raised, "extended" a family.
        "raised to", "lowered to", "increased to", "decreased to", "reduced to", "extended to", "extended until",
    ),
    # Whole words where the stem begins other words ("Liverpool", "Newcastle", "newborn").
    residence_words=words("lives$ live$ living$ lived$ moved move moving relocat based resid"),
    channel_words=words("email e-mail mail$ mails$ text$ texts$ texted texting message$ messages$ sms whatsapp telegram viber phone call$ calls called calling ring$ contact$ contacted contacting reach$ reached"),
    new_words=words("new$"),
    relatives=words("""
        daughter son$ sons wife husband partner mother mum mom$ father dad sister brother child$
        children kids grandson granddaughter grandchild grandmother grandma grandfather grandpa
        niece nephew aunt uncle fiancé fiancée fiance girlfriend boyfriend parents stepson
        stepdaughter baby infant kid$ grandad granddad granny
    """),
    # One word for each line: "cell" and "mobile" are one line, so only one of them is listed.
    contact_owners=words("work office business personal private home mobile landline main$ second spare backup"),
    contrasts=sides("""
        left/right upper/lower top$/bottom front/rear front/back older/younger elder$/younger
        eldest/youngest morning/evening breakfast/dinner hot$/cold live/work
        mother/father mum/dad mom$/dad son$/daughter husband/wife brother/sister
        grandmother/grandfather grandma/grandpa grandson/granddaughter niece/nephew aunt/uncle
    """),
    synonyms=groups("""
        nails manicure
        microgram mcg
        child children kid
        installed fitted
        small little
        diet food
        relocate move
        mobile cellphone
        phone telephone
        grandmother grandma granny nan
        grandfather grandpa granddad grandad
        aunt auntie aunty
        baby infant
        teenager teen
        colleague coworker
        unemployed jobless
        dead deceased
        car automobile
        motorbike motorcycle
        lorry truck
        bike bicycle
        petrol gasoline
        windscreen windshield
        licence license
        sofa couch settee
        fridge refrigerator
        tap faucet
        toilet loo lavatory
        loft attic
        rubbish trash garbage
        vacuum hoover
        tenant renter
        invoice bill
        instalment installment
        buy purchase
        parcel package
        booking reservation
        luggage baggage
        photo photograph
        start begin
        often frequently
        usually normally
        rarely seldom
        exam examination
        maths math mathematics
        postcode zipcode
        vet veterinarian
        medication medicine
        ill unwell
        paracetamol acetaminophen
        stomach tummy belly
        vaccination immunisation immunization jab
        afraid scared frightened
        glasses spectacles
        nearsighted shortsighted myopic
        farsighted longsighted
        pharmacy drugstore
        hairdresser hairstylist
        fringe bangs
        colour color
        neighbour neighbor
        wedding married
        birthday born
        collect pick
        kidney renal
    """),
    numbered_things=words("""
        tooth$ molar$ room$ order$ table$ seat$ locker$ unit$ flat$ apartment$ box$ ticket$ invoice$ bay$
        plot$ pitch$ berth$ gate$ bed$ cabin$ suite$ court$ mooring$ volume$ vol$ no. nr$ # №
    """),  # whole words: "ordered 3 loaves" is a count
    animals=words("""
        dog puppy pet$ pets$ cat kitten rabbit bunny hamster guinea parrot budgie canary tortoise turtle
        horse pony ferret labrador retriever spaniel terrier poodle collie beagle dachshund
        bulldog pug husky cockapoo cavapoo schnauzer chihuahua greyhound whippet
    """),
    value_labels=words("""
        january february march april may june july august september october november december
        monday tuesday wednesday thursday friday saturday sunday weekday weekend morning afternoon evening
        email e-mail mail phone telephone call calls sms text whatsapp
        daily weekly fortnightly monthly quarterly yearly annually
    """),
    # How often, whole: Snowball reads "weekly" as "week", which is a thing ("every three weeks").
    keep_whole=words("daily weekly fortnightly monthly quarterly yearly annually"),
    label_ends=words("is$ are$"),
    period_units=frozen({"day": 1, "week": WEEK, "fortnight": 14, "month": MONTH, "year": YEAR}),
    period_words=frozen({"daily": 1, "weekly": WEEK, "fortnightly": 14, "monthly": MONTH, "quarterly": YEAR / 4,
                         "yearly": YEAR, "annual": YEAR}),
    every_words=words("every$ each$"),
    every_after=(),  # "every" stands before the period
    times_words=frozen({"once$": 1, "twice$": 2, "thrice$": 3, "times$": 1, "time$": 1, "x$": 1}),
    per_words=words("a$ an$ per$"),
    period_counts=frozen({"half$": 0.5, "other$": 2, "second$": 2, "alternate$": 2}),
    currency_words=frozen({**dict.fromkeys(words("euro euros eur"), "EUR"),
                           **dict.fromkeys(words("dollar dollars"), "USD"),
                           **dict.fromkeys(words("rubles roubles"), "RUB")}),
    # "pound" and "won" are left out: "5 pounds" is a weight as often as a price, and
    # "won" is a verb.
    money_scales=frozen({"k": 1000, "thousand": 1000, "million": 10**6, "millions": 10**6}),
    range_words=("from … to", "between … and", "… to"),
    contact_offer="For the exact price, please contact us and we will be glad to help.",
    offline_texts=frozen({
        "pinned": "Here is what our information says:",
        "found": "I found this on our website:",
        "source": "Source",
        "none": "I'm sorry, I don't have that information. Please contact us and we'll help you.",
        "note": "(Automatic answer quoted from our information.)",
    }),
    readback="I have forgotten this:",
)
