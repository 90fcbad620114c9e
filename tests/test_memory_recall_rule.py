"""Which memories a message is about, judged within the customer's own space: the
strict distance close behind the nearest, or a telling shared word a little further
out; for a message that reads as a correction, what a little wider still reaches is
offered apart, to be named. Only those can be forgotten, and beyond the strict forget
distance only when the message corrects."""
from dataclasses import replace
from datetime import datetime

import numpy as np

from sidecar.memory.forget import choose, reads_as_correction
from sidecar.memory.recall import Bounds, recall
from sidecar.memory.service import MemorySettings
from sidecar.memory.store import StoredMemory

DIM = 16
Q = np.eye(DIM, dtype=np.float32)[0]
S = MemorySettings()


def at(distance: float, axis: int) -> np.ndarray:
    """A unit vector at this cosine distance from Q."""
    c = 1.0 - distance
    v = c * Q + np.sqrt(1 - c * c) * np.eye(DIM, dtype=np.float32)[axis]
    return v.astype(np.float32)


def mem(i: int, content: str, distance: float) -> StoredMemory:
    now = datetime(2026, 1, 1)
    return StoredMemory(i, bytes(16), "fact", content, None, 3, at(distance, i + 1), "m", None, None, now, now)


BOUNDS = dict(threshold=0.13, near=0.18, near_margin=0.02)


def shown_for(message: str, memories: list[StoredMemory], lang: str = "en"):
    return recall(Q, memories, message=message, lang=lang, **S.recall_bounds(message, lang))


def contents(shown) -> list[str]:
    """What is shown as what the message is about."""
    return [m.content for m in shown.facts().values()]


def offered(shown) -> list[str]:
    """What is offered apart, as what a correction may mean."""
    return [shown.refs[ref].content for ref in sorted(shown.to_forget)]


def ref_of(shown, content: str) -> str:
    return next(ref for ref, m in shown.refs.items() if m.content == content)


def test_a_shared_word_shows_a_memory_beyond_the_strict_bound():
    memories = [mem(0, "Runs a bakery on Rüütli street.", 0.160),
                mem(1, "Has two electric vans.", 0.165),       # as near, nothing in common
                mem(2, "Prefers invoices by e-mail.", 0.250)]
    shown = recall(Q, memories, message="Can you deliver the flour to my bakery?", lang="en", **BOUNDS)
    assert contents(shown) == ["Runs a bakery on Rüütli street."]
    assert shown.near == {"m1"}
    # Without the shared-word rule, nothing at this distance would be shown at all.
    assert recall(Q, memories, threshold=0.13).refs == {}


def test_a_shared_word_counts_only_among_the_customers_nearest_memories():
    memories = [mem(0, "Lives in Tartu.", 0.100),
                mem(1, "The bakery is in Tartu old town.", 0.170)]  # shares "Tartu", 0.07 further
    shown = recall(Q, memories, message="Do you deliver in Tartu?", lang="en", **BOUNDS)
    assert contents(shown) == ["Lives in Tartu."]


def test_a_shared_word_is_matched_with_the_grounding_checks_stem_tolerance():
    # "kasvatamise" and "kasvatab" stem apart ("kasvatami", "kasvata"); one extends the other.
    memories = [mem(0, "Kasvatab Maine Coon kasse.", 0.170), mem(1, "Elab Tartus.", 0.165)]
    shown = recall(Q, memories, message="Kasvatamise lõpetasin", lang="et", **BOUNDS)
    assert contents(shown) == ["Kasvatab Maine Coon kasse."]


def test_the_strict_bound_is_relative_to_the_customers_nearest_memory():
    # Both within the strict distance; the second lies far behind what the message is about.
    memories = [mem(0, "Has a Brompton for commuting.", 0.040), mem(1, "Lives in Leeds.", 0.115)]
    assert contents(shown_for("Is my bike ready?", memories)) == ["Has a Brompton for commuting."]
    assert len(recall(Q, memories, threshold=0.12).refs) == 2  # an absolute bound alone shows both


def test_a_word_most_nearby_memories_share_does_not_count():
    # The customer's own name in every memory says nothing about which one is meant.
    memories = [mem(i, f"Caroline {thing}.", 0.150 + i * 0.001) for i, thing in enumerate(
        ["went hiking", "painted a sunset", "adopted a cat", "ran a marathon", "moved house", "likes jazz"])]
    shown = recall(Q, memories, message="What did Caroline paint?", lang="en", **BOUNDS)
    assert contents(shown) == ["Caroline painted a sunset."]


def test_change_cues_and_correction_cues_read_as_a_correction_in_every_language():
    for message, lang in [("We've moved offices, new address to follow", "en"), ("Ahora estoy en la E", "es"),
                          ("Дачу продали", "ru"), ("Vahetasin kohta, olen nüüd kai ääres", "et"),
                          ("담당은 소희 실장님으로 바뀜", "ko"), ("포토테이블은 빼 주세요", "ko"),
                          ("Забудьте это, пожалуйста", "ru"),
                          # a fact dropped in other words: "can go", a pet buried
                          ("Сдала экзамен, подготовку можно убрать", "ru"), ("Кота весной похоронили", "ru"),
                          ("We buried Biscuit in May", "en"), ("A Toby lo enterramos en marzo", "es"),
                          ("Muri matsime kevadel", "et")]:
        assert reads_as_correction(message, lang), message
    for message, lang in [("Can you store my boat over the winter?", "en"), ("I know the way", "en"),
                          ("¿El presupuesto incluye camareros?", "es"), ("Сколько стоит химчистка дивана?", "ru"),
                          ("По весне надо мотик к сезону подготовить", "ru")]:
        # "know" holds "now" and "весне надо" holds "не надо", neither at a word's start.
        assert not reads_as_correction(message, lang), message


def test_an_event_that_ends_a_stored_fact_reads_as_a_correction():
    # No request at all: the customer tells what happened, and a stored fact ends with it.
    for message, lang in [("my turnover dropped under the threshold and I've deregistered", "en"),
                          ("Thor se nos fue el mes pasado, ya estaba muy malito", "es"),
                          ("el médico me ha quitado la pastilla de la tensión", "es"),
                          ("Барсик ушёл на радугу в марте", "ru"), ("Muri lahkus meie hulgast kevadel", "et"),
                          ("초코가 지난달에 무지개다리 건넜어요", "ko")]:
        assert reads_as_correction(message, lang), message


def test_a_birth_or_a_thing_disposed_of_reads_as_a_correction():
    # A birth ends a pregnancy; a car scrapped or handed on ends owning it.
    for message, lang in [("our baby girl arrived 3 weeks ago, any postnatal classes?", "en"),
                          ("we finally scrapped the old Astra", "en"),
                          ("ya ha nacido mi niña, todo genial", "es"), ("se acabó lo del tinte, solo corte", "es"),
                          ("у нас родилась дочка, хочу на йогу для мам", "ru"), ("машину сдали в утиль", "ru"),
                          ("Bruno jäi kevadel magama, edaspidi tulen üksi", "et"), ("Poeg sündis märtsis", "et"),
                          ("저 K5 결국 폐차했어요", "ko"), ("그 큰 악기는 당근으로 넘겼어요", "ko")]:
        assert reads_as_correction(message, lang), message
    # Said with a word between ("jäi igaveseks magama"), stolen in slang ("увели"), a birth with "our"
    # ("nació nuestra pequeña"), and what finally changed ("lõpuks").
    for message, lang in [("Liisu jäi eelmisel nädalal igaveseks magama", "et"),
                          ("Велик у меня увели прямо от подъезда", "ru"),
                          ("Este año venimos tres, nació nuestra pequeña Alba", "es"),
                          ("Mees on lõpuks nõus pildile tulema", "et")]:
        assert reads_as_correction(message, lang), message
    # A pet's death said gently, a habit given up, a change of course.
    for message, lang in [("we had to say goodbye to Rex in May, he was 14", "en"),
                          ("I'm going to stop doing the gel nails for a while", "en"),
                          ("could I switch to the evening class from next term?", "en")]:
        assert reads_as_correction(message, lang), message
    # A thing dropped or handed back, a plan changed.
    for message in ["I've decided to ditch the highlights for good", "we'll bring back the one we've been renting",
                    "We're done with the video calls, he'll come in person", "Change of plan, no park session"]:
        assert reads_as_correction(message, "en"), message
    # A company wound up, a locker handed back, a class given up, the old one thrown away.
    for message, lang in [("С обществом всё, мы с партнёрами его ликвидировали", "ru"),
                          ("저 개인 사물함 반납할게요~", "ko"), ("Vera ha decidido dejar el inglés este curso", "es"),
                          ("uus number on 5677 0011, vana visake minema palun", "et"),
                          ("так что никакого осветления больше, только стрижка", "ru"),
                          ("신행지 바꾸려구요! 거긴 너무 비싸서요", "ko")]:
        assert reads_as_correction(message, lang), message
    # A pet put to sleep, a thing given up for good.
    for message in ["sadly we had to let Tigger go last week", "shaved the beard off for good lol"]:
        assert reads_as_correction(message, "en"), message
    # A job left, a trip over.
    for message, lang in [("Из Техноспектра я ушёл, так что платить буду сам", "ru"),
                          ("저 페루랑 칠레 잘 다녀왔어요!!", "ko"), ("we got back from Lisbon on Sunday", "en"),
                          ("ya volvimos de Perú, todo genial", "es"), ("tulime tagasi Peruust eile", "et")]:
        assert reads_as_correction(message, lang), message
    # A couple parted, someone come to live with the customer.
    for message, lang in [("Anna and I split up a while back so you can scrap the valentine's reminder", "en"),
                          ("mi madre se ha venido a vivir con nosotros a Gijón", "es"),
                          ("Anna ja mina läksime lahku", "et"), ("여자친구랑 헤어졌어요", "ko")]:
        assert reads_as_correction(message, lang), message
    # A habit given up.
    for message, lang in [("Väike uudis — olen juba kolm kuud suitsuvaba 🎉", "et"),
                          ("been smoke-free since January, so what can help with cravings?", "en")]:
        assert reads_as_correction(message, lang), message
    # Who pays changed.
    assert reads_as_correction("my company has cut the training budget so I'll be covering next term out of my own "
                               "pocket", "en")
    # "No more" said with a noun: "больше никакого окрашивания", "no más tinte".
    for message, lang in [("я решила отращивать свой цвет, так что больше никакого окрашивания", "ru"),
                          ("no más tinte, solo corte porfa", "es")]:
        assert reads_as_correction(message, lang), message
    # Asking about one's own car or a delivery is no correction.
    for message, lang in [("Can you look at the Astra's brakes on Friday?", "en"),
                          ("¿Cuándo llega el pedido?", "es"), ("Машина снова стучит, можно записаться?", "ru")]:
        assert not reads_as_correction(message, lang), message


def test_everyday_ways_of_asking_to_drop_or_fix_a_fact_read_as_a_correction():
    # No "forget", no "now": the request is in the verb ("got rid of", "quítalo"), in "old"
    # or "new" next to the thing, or in the language's "instead" ("hoopis").
    for message, lang in [("We got rid of the trailer in the spring", "en"), ("That's my old number, scrap it", "en"),
                          ("Please correct the spelling of my surname", "en"), ("Nos hemos mudado a Alcorcón", "es"),
                          ("Quítalo de la ficha, porfa", "es"), ("Исправьте, пожалуйста, фамилию", "ru"),
                          ("Уберите мой рабочий телефон", "ru"), ("Parandage mu e-posti aadress", "et"),
                          ("Allergia on hoopis kassi vastu", "et"), ("주소 수정해 주세요", "ko"), ("그건 옛날 주소예요", "ko"),
                          ("Пятницы отменяем, хочу перейти на разовые уборки", "ru"),
                          ("Kolimisplaanid jäid katki, jään ikka Eestisse", "et"),
                          # one of several things by its pronoun, or a thing outgrown
                          ("simba got hit by a car on saturday, please take him off the system", "en"),
                          ("he's outgrown the egg allergy!!", "en"),
                          # a plan or a standing order called off, a thing done with
                          ("can you cancel the home flowers please", "en"), ("Ava's braces came off last week!!", "en"),
                          ("my husband fixed the tap himself so ignore that one", "en"),
                          ("от линз я решила отказаться совсем", "ru"), ("me operé y adiós a las gafas", "es"),
                          ("a Iker le quitaron los brackets", "es"),
                          ("мы развелись, так что про неё можете забыть", "ru"),
                          ("Laura se ha dado de baja del gym", "es"),
                          ("мы с Ксюшей решили закончить занятия", "ru"),
                          ("reedestest leibadest loobun, hakkasin ise küpsetama", "et"),
                          ("저 담배 끊은지 1년 넘었어요", "ko"), ("남편 사랑니는 벌써 뽑았어요~ 그건 지우셔도 되구요", "ko"),
                          ("Reedesed leivad palun lõpetage", "et"),
                          ("pidime kassi eelmisel nädalal magama panema", "et"),
                          ("я с сигаретами завязал ещё весной", "ru"), ("Марина от вас ушла?", "ru"),
                          ("la bici vieja se la he regalado a mi primo", "es"),
                          # a standing order stopped, a thing thrown out or given as a gift, a couple parted,
                          # a pet's death said as a farewell
                          ("please stop the Friday bread order from next week", "en"),
                          ("старый диван мы выкинули", "ru"), ("мы с мужем разошлись прошлой весной", "ru"),
                          ("ayer tuvimos que despedirnos de la perrita", "es"), ("kinkisin vana ratta õele", "et"),
                          # a worry or a plan that came to nothing
                          ("turns out the rash was a false alarm", "en"), ("our house sale fell through", "en"),
                          # a condition that healed
                          ("the knee has healed, squats are fine again", "en"),
                          ("Ортопед сказал, что всё зажило", "ru"), ("la rodilla ya se ha curado", "es"),
                          ("põlv on paranenud", "et"), ("무릎은 다 나았어요", "ko"),
                          # a pastime left half done
                          ("ujumise pidin pooleli jätma, nahk hakkas sügelema", "et")]:
        assert reads_as_correction(message, lang), message
    for message, lang in [("Can I book a new appointment for Friday?", "en"), ("지우 수업은 언제예요?", "ko"),
                          ("Could you stop by at noon?", "en"),
                          ("Can I move Friday's appointment to three?", "en"), ("¿Tenéis mi dirección?", "es"),
                          ("Kas teil on minu aadress olemas?", "et"), ("제 주소 알고 계세요?", "ko")]:
        assert not reads_as_correction(message, lang), message


def test_a_message_that_reads_as_a_correction_widens_what_may_be_named():
    memories = [mem(0, "Has a sailing boat.", 0.190)]  # a shared word, beyond the usual 0.18
    correcting = "We don't have the boat any more"
    asking = "Can you store my boat over the winter?"
    shown = shown_for(correcting, memories)
    assert list(shown.refs) == ["m1"] and choose(["m1"], shown, **S.forget_bounds()) == ["m1"]
    assert shown_for(asking, memories).refs == {}


def test_a_correction_may_name_the_customers_nearest_memory_without_a_shared_word():
    # "Me recategorizaron, ahora estoy en la E" lies 0.125-0.14 from "…categoría D" and shares no word.
    memories = [mem(0, "Es monotributista en la categoría D.", 0.134), mem(1, "Vende mates en la feria.", 0.170)]
    shown = shown_for("Me recategorizaron, ahora estoy en la E", memories, "es")
    assert contents(shown) == ["Es monotributista en la categoría D."]
    assert choose(["m1"], shown, **S.forget_bounds()) == ["m1"]
    # The same memory, for a message that corrects nothing, may be shown, as it stands out
    # from the rest, but cannot be named for forgetting.
    asking = shown_for("¿Cuánto pago este mes?", memories, "es")
    assert contents(asking) == ["Es monotributista en la categoría D."]
    assert choose(["m1"], asking, **S.forget_bounds()) == []


def test_a_correction_counts_a_word_that_half_the_candidates_share():
    # "Both parrots went to a friend": the word is in three of five memories, all meant.
    parrots = [mem(0, "Has a parrot called Choco.", 0.150), mem(1, "Has a parrot called Vanilla.", 0.160),
               mem(2, "The parrots' claws are clipped every two months.", 0.155),
               mem(3, "Has a hedgehog called Bam.", 0.170), mem(4, "Pays by bank transfer.", 0.200)]
    shown = shown_for("We gave both parrots to a friend, now it's only the hedgehog", parrots)
    meant = ["Has a parrot called Choco.", "Has a parrot called Vanilla.",
             "The parrots' claws are clipped every two months."]
    assert set(meant) <= set(offered(shown))
    refs = [ref_of(shown, text) for text in meant]
    assert choose(refs, shown, **S.forget_bounds()) == refs
    assert recall(Q, parrots, message="Are the parrots due a check?", lang="en",
                  bounds=Bounds(0.12, strict_margin=0.05, near=0.18, near_margin=0.03)).refs == {}


def test_a_correction_may_name_every_memory_of_the_thing_it_names():
    # "Barsik is gone, delete everything about him": three memories of one cat, the
    # furthest 0.055 behind the nearest (ru held-out split); what is not named stays out.
    cat = [mem(0, "Has a cat called Barsik, 11 years old.", 0.151), mem(1, "Barsik has kidney disease.", 0.119),
           mem(2, "Barsik eats a renal diet food.", 0.174), mem(3, "Has a dog called Rex.", 0.150),
           mem(4, "Pays by card.", 0.184), mem(5, "Lives in Yekaterinburg.", 0.162)]
    shown = shown_for("Barsik died in January, please delete everything about Barsik", cat)
    meant = ["Has a cat called Barsik, 11 years old.", "Barsik has kidney disease.", "Barsik eats a renal diet food."]
    refs = [ref_of(shown, text) for text in meant]
    assert choose(refs, shown, **S.forget_bounds()) == refs
    # As facts, only what the usual bounds show: the rest is offered apart, to be named.
    assert contents(shown) == ["Barsik has kidney disease."]
    assert "Lives in Yekaterinburg." not in contents(shown)


def test_a_memory_shown_for_a_shared_word_can_be_forgotten_and_no_other():
    memories = [mem(0, "Owns a sailing boat.", 0.150), mem(1, "Has a dog called Muki.", 0.145)]
    told = shown_for("We sold the boat, forget it", memories)
    assert list(told.refs) == ["m1", "m2"] and told.refs["m1"].content == "Owns a sailing boat."
    assert told.to_forget == {"m2"}  # the dog: offered apart, as what the correction may mean
    assert choose(["m3", "m1"], told, **S.forget_bounds()) == ["m1"]  # m3 was never shown
    asked = shown_for("Can you store the boat?", memories)
    assert contents(asked) == ["Owns a sailing boat."] and choose(["m2"], asked, **S.forget_bounds()) == []


def test_a_correction_offers_the_customers_nearest_memories_apart_from_the_facts():
    # "Рио я продал, сейчас езжу на служебной" lies 0.193 from "Ездит на Kia Rio 2018 года."
    # (ru held-out split), 0.04 behind the nearest, and shares no word it can match.
    memories = [mem(0, "Ездит на Kia Rio 2018 года.", 0.193), mem(1, "Хранит зимнюю резину в сервисе.", 0.156),
                mem(2, "Платит картой.", 0.175), mem(3, "Живёт в Химках.", 0.240)]
    told = shown_for("Рио я продал, сейчас езжу на служебной", memories, "ru")
    assert contents(told) == [] and set(offered(told)) == {
        "Ездит на Kia Rio 2018 года.", "Хранит зимнюю резину в сервисе.", "Платит картой."}
    kia = next(ref for ref, m in told.refs.items() if m.id == 0)
    assert choose([kia], told, **S.forget_bounds()) == [kia]
    assert told.lines() == [] and len(told.forget_lines()) == 3
    # The same memories, for a message that corrects nothing: none shown, none offered.
    asked = shown_for("Сколько стоит замена масла?", memories, "ru")
    assert asked.refs == {} and asked.forget_lines() == []


def test_a_long_correction_reaches_the_memory_it_means_a_little_further_out():
    # A message about two things ("we lost our old boy in august ... take him off our file")
    # lies 0.20-0.23 from each memory it means, a few hundredths behind the nearest.
    memories = [mem(0, "Wants appointment reminders by email.", 0.185), mem(1, "Has an elderly tabby cat called Mr Whiskers.", 0.215),
                mem(2, "Mr Whiskers takes thyroid tablets every day.", 0.228), mem(3, "Has a golden retriever called Bramble.", 0.262)]
    told = shown_for("sadly we lost our old boy in august, please take him off our file", memories)
    assert set(offered(told)) >= {"Has an elderly tabby cat called Mr Whiskers.", "Mr Whiskers takes thyroid tablets every day."}
    assert "Has a golden retriever called Bramble." not in offered(told) + contents(told)  # too far behind
    by_id = {m.id: ref for ref, m in told.refs.items()}
    assert choose([by_id[1], by_id[2]], told, **S.forget_bounds()) == [by_id[1], by_id[2]]


def test_a_correction_offers_a_memory_sharing_a_telling_word_further_behind():
    # fresh24: the knee lies 0.08 behind the PT session the message also speaks of.
    memories = [mem(0, "Has a PT session with Dan on Mondays.", 0.092), mem(1, "Does the Tuesday spin class.", 0.140),
                mem(2, "Has a knee injury from football.", 0.173), mem(3, "Member since 2021.", 0.175)]
    message = ("hi, the physio's signed my knee off finally so no need to keep flagging it. "
               "can I add a second PT session?")
    told = shown_for(message, memories)
    assert "Has a knee injury from football." in offered(told)
    assert "Member since 2021." not in offered(told)  # as far behind, sharing no word
    assert "Has a knee injury from football." not in contents(told)  # offered apart, never as a fact
    by_id = {m.id: ref for ref, m in told.refs.items()}
    assert choose([by_id[2]], told, **S.forget_bounds()) == [by_id[2]]
    # Not for a message that corrects nothing, and not beyond the shared-word bound.
    assert "Has a knee injury from football." not in [m.content for m in shown_for(
        "can I add a second PT session? my knee is fine", memories).refs.values()]
    memories[2] = mem(2, "Has a knee injury from football.", 0.205)
    assert "Has a knee injury from football." not in offered(shown_for(message, memories))


def test_memories_only_offered_apart_do_not_change_which_words_tell():
    # Every memory that may be shown as a fact has the customer's own name, so the name
    # tells nothing; four more memories further out, offered apart, must not make it tell.
    near = [mem(0, "Caroline likes jazz.", 0.160), mem(1, "Caroline paints sunsets.", 0.165),
            mem(2, "Caroline has a cat.", 0.180)]
    further = [mem(3 + k, text, 0.205 + 0.004 * k) for k, text in enumerate(
        ["Runs on Sundays.", "Pays by card.", "Prefers mornings.", "Drives a van."])]
    told = shown_for("Caroline sold the house", near + further)
    assert contents(told) == []
    assert len(offered(told)) == 7


def test_the_nearest_memory_beyond_the_forget_distance_only_for_a_correction():
    from sidecar.memory.recall import Recalled
    nearest = mem(0, "Paadikoht on Haapsalu sadamas, nr 14.", 0.134)
    asked = Recalled(refs={"m1": nearest}, distance={"m1": 0.134}, behind={"m1": 0.0})
    assert choose(["m1"], asked, **S.forget_bounds()) == []
    corrected = Recalled(refs={"m1": nearest}, distance={"m1": 0.134}, behind={"m1": 0.0}, correcting=True)
    assert choose(["m1"], corrected, **S.forget_bounds()) == ["m1"]
    further = Recalled(refs={"m1": nearest}, distance={"m1": 0.245}, behind={"m1": 0.0}, correcting=True)
    assert choose(["m1"], further, **S.forget_bounds()) == []  # beyond forget_candidates: never
    behind = Recalled(refs={"m1": nearest}, distance={"m1": 0.18}, behind={"m1": 0.08}, correcting=True)
    assert choose(["m1"], behind, **S.forget_bounds()) == []  # too far behind the nearest


def test_one_memory_at_most_is_shown_for_shared_words_the_nearest():
    # A question about something never said may share a word with many memories.
    memories = [mem(0, "Ran a charity race in May.", 0.150), mem(1, "Paints with her kids.", 0.152),
                mem(2, "Reads books about adoption.", 0.154), mem(3, "Went camping with friends.", 0.156),
                mem(4, "Bakes bread at the weekend.", 0.300), mem(5, "Plays the violin.", 0.300)]
    shown = shown_for("After the race, did the kids read books while camping?", memories)
    assert contents(shown) == ["Ran a charity race in May."]
    # Further behind the nearest than the margin, a shared word shows nothing.
    memories[0] = mem(0, "Bakes bread at the weekend.", 0.090)
    assert contents(shown_for("After the race, did the kids read books while camping?", memories)) == [
        "Bakes bread at the weekend."]


def test_a_correction_that_says_the_customer_moved_offers_where_they_live():
    # "kolisin Mustamäele" lies 0.153 from "Elab Lasnamäel." (et held-out split) and shares no
    # word with it; what the two have in common is where the customer lives.
    for message, lives, other, lang in [
            ("kolisin mustamäele", "Elab Lasnamäel.", "Tellib igal reedel rukkileiba.", "et"),
            ("용인으로 이사 왔어요", "분당에 거주.", "매주 금요일 호밀빵을 주문함.", "ko"),
            ("Я переехала в Зеленоград", "Живёт в Химках.", "Заказывает ржаной хлеб.", "ru")]:
        memories = [mem(0, other, 0.151), mem(1, lives, 0.153)]
        shown = shown_for(message, memories, lang)
        assert contents(shown) == [] and set(offered(shown)) == {lives, other}, message
        assert shown.near == {ref_of(shown, lives)}  # the kind of value tells which one is meant
        assert choose([ref_of(shown, lives)], shown, **S.forget_bounds()) == [ref_of(shown, lives)]
        # Where they live, for a question that corrects nothing: not shown.
        assert shown_for("kus te asute?" if lang == "et" else "?", memories, lang).refs == {}


def test_a_correction_stating_a_new_count_may_name_the_memory_with_the_old_one():
    memories = [mem(0, "Expects about 90 guests.", 0.148), mem(1, "The wedding is at Brook Farm.", 0.150),
                mem(2, "Wants a vegetarian menu.", 0.160)]
    shown = shown_for("numbers are down to about 60 now, a lot of people can't travel", memories)
    guests = ref_of(shown, "Expects about 90 guests.")
    assert guests in shown.near and choose([guests], shown, **S.forget_bounds()) == [guests]


def test_a_kind_of_value_most_candidates_state_does_not_count():
    # Every memory holds a count: "we'll be 6 now" says nothing about which one is meant.
    memories = [mem(i, text, 0.150 + i * 0.002) for i, text in enumerate(
        ["Has 4 employees.", "Orders 10 bottles of water a week.", "Has 2 vans.", "Rents 3 desks."])]
    assert shown_for("we're 6 now", memories).facts() == {}


def test_a_nearest_memory_standing_out_from_the_rest_is_shown_beyond_the_strict_bound():
    # No shared word, beyond the strict bound, but clearly nearer than any other memory.
    memories = [mem(0, "Organises the annual office Christmas party.", 0.235), mem(1, "One guest has a nut allergy.", 0.194),
                mem(2, "Prefers canapés to a sit-down meal.", 0.141)]
    asking = "can we keep it to bites and nibbles again rather than a seated dinner?"
    shown = shown_for(asking, memories)
    assert contents(shown) == ["Prefers canapés to a sit-down meal."]
    # Shown as what the message is about, it still cannot be forgotten from this far.
    assert choose(list(shown.refs), shown, **S.forget_bounds()) == []
    # As near, but with another memory about as near: the message may be about neither.
    memories[1] = mem(1, "One guest has a nut allergy.", 0.144)
    assert contents(shown_for(asking, memories)) == []
    # And one further out than the stand-out bound is not shown however far ahead.
    memories = [mem(0, "Organises the annual office Christmas party.", 0.235), mem(2, "Prefers canapés.", 0.165)]
    assert contents(shown_for(asking, memories)) == []


def test_among_many_candidates_a_word_a_fifth_of_them_share_is_no_pointer():
    # A customer with many memories near a question about something never said: four of
    # fifteen mention a marathon. That is their topic, not the one fact the message means.
    things = ["ran a marathon in Tartu", "trains for a marathon", "bought marathon shoes", "watched a marathon",
              "went hiking", "painted a sunset", "adopted a cat", "moved house", "likes jazz", "sings in a choir",
              "grows tomatoes", "visited Riga", "plays chess", "reads thrillers", "bakes bread"]
    memories = [mem(i, f"Sam {thing}.", 0.160 + i * 0.001) for i, thing in enumerate(things)]
    message = "Which marathon medal did Sam win?"
    assert contents(shown_for(message, memories)) == []
    wider = replace(S.recall_bounds(message, "en")["bounds"], word_share=1 / 3)
    assert contents(recall(Q, memories, message=message, lang="en", bounds=wider)) == ["Sam ran a marathon in Tartu."]


def test_a_korean_word_shares_only_what_its_stem_names():
    from sidecar.memory.recall import shared_terms, terms

    def shared(message: str, memory: str) -> set[str]:
        return shared_terms(terms(message, "ko"), terms(memory, "ko"), "ko")
    # "잘" (well) is a function word, shared by texts about anything.
    assert shared("접영 발차기가 잘 안 되는데 따로 봐주실 수 있어요?", "귀에 염증이 잘 생겨 귀마개를 씀.") == set()
    # The stem keeps two syllables: "아들" is no plural of "아".
    assert shared("아들 저녁으로 룸서비스 시키려는데 메뉴 뭐 있어요?", "아들 갑각류 알레르기.") == {"아들_"}
    assert shared("가게에 배상책임보험도 추가해야 할지 고민이에요.", "가게 화재보험은 3월 만기.") == {"가게_", "보허_"}
    # Every weekday ends in "요일": two weekdays share nothing, one weekday itself.
    assert shared("다음주 토요일 케익 주문 가능해요?", "매주 금요일 바게트 구매.") == set()
    assert shared("이번 금요일에도 바게트 되나요?", "매주 금요일 바게트 구매.") == {"금요_", "바게_", "게트_"}
