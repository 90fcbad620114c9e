"""Dedup's learned judge (sidecar.memory.merge_model): the shipped weights, the forward
pass, and the limits code keeps whatever the score."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sidecar.embedders.local import LocalEmbedder
from sidecar.memory import embedding as memory_embedding
from sidecar.memory import dedup, extract, merge_model
from sidecar.memory.service import MemorySettings

BANDS = MemorySettings().dedup_bands()
# bench/memory_natural.jsonl's tune split (new, old, lang): the rule keeps these apart,
# sharing no thing word, or too few.
PARAPHRASES = [("Likes to come in in the mornings.", "Prefers morning appointments.", "en"),
               ("Изучает немецкий, так как планирует переехать в Германию.", "Учит немецкий для переезда в Германию.",
                "ru"),
               ("Talle sobib kõige paremini meili teel suhelda.", "Eelistab suhtlust e-posti teel.", "et"),
               ("Los pedidos le llegan cada lunes.", "Recibe los pedidos los lunes.", "es"),
               ("치과 치료를 무서워함.", "치과에 가는 걸 많이 두려워함.", "ko")]
LOOK_ALIKES = [("Has a storage unit, No. 87.", "Has a storage unit, No. 214.", "en"),
               ("Ковры чистят весной.", "Окна моют весной.", "ru"),
               ("Correo del trabajo: lgomez@ceramicasur.es.", "Correo personal: lucia.gomez@gmail.com.", "es"),
               ("Tellib speltajahu.", "Tellib nisujahu.", "et"),
               ("자동차보험 갱신은 11월임.", "카페 화재보험 갱신은 11월임.", "ko")]


@pytest.fixture(scope="module")
def local():
    return LocalEmbedder()


@pytest.fixture(scope="module")
def judge(local):
    found = merge_model.judge_for(memory_embedding.model(local))
    assert found is not None, "the shipped weights are fitted on the local model's memory rows"
    return found


def pair(local, new: str, old: str):
    u, v = memory_embedding.vectors(local, [new, old])
    return u, v, float(1.0 - u @ v)


def test_the_weights_fit_the_features_and_hold_only_for_their_own_vectors(judge, local):
    columns = 3 * local.dim + len(merge_model.signals("Has a dog.", "Has a cat.", 0.1, "en", BANDS))
    assert judge.mean.shape == judge.scale.shape == (columns,)
    assert judge.hidden_w.shape[0] == columns and judge.out_w.shape == (judge.hidden_w.shape[1],)
    assert 0.0 < judge.threshold < 1.0 and judge.reach <= 0.2
    assert merge_model.judge_for("text-embedding-3-small") is None  # a vendor's vectors: the rule decides alone


def test_the_forward_pass_is_one_relu_layer_and_a_sigmoid():
    j = merge_model.MergeJudge("m", mean=np.array([1.0, 0.0]), scale=np.array([2.0, 1.0]),
                               hidden_w=np.array([[1.0, -1.0], [0.5, 2.0]]), hidden_b=np.array([0.0, 1.0]),
                               out_w=np.array([1.0, -0.5]), out_b=0.25, threshold=0.5, reach=0.2)
    x = np.array([3.0, -1.0])  # standardised: [1, -1]; hidden: relu([0.5, -2]) = [0.5, 0]
    assert j.scores(x)[0] == pytest.approx(1.0 / (1.0 + np.exp(-0.75)))


def test_the_judge_merges_paraphrases_the_rule_keeps_apart(judge, local):
    for new, old, lang in PARAPHRASES:
        u, v, d = pair(local, new, old)
        assert not extract.same(new, u, old, v, d, lang, BANDS, None), (new, old)
        assert extract.same(new, u, old, v, d, lang, BANDS, judge), (new, old)


def test_the_judge_keeps_apart_different_things_that_look_alike(judge, local):
    for new, old, lang in LOOK_ALIKES:
        u, v, d = pair(local, new, old)
        assert not extract.same(new, u, old, v, d, lang, BANDS, judge), (new, old)


def test_beyond_its_reach_or_across_the_family_nothing_merges_whatever_the_score(judge, local):
    always = replace(judge, threshold=0.0)  # every pair scores at least 0
    new, old, lang = PARAPHRASES[0]
    u, v, d = pair(local, new, old)
    assert always.merges(new, u, old, v, d, lang, BANDS)
    assert not replace(always, reach=d - 0.001).merges(new, u, old, v, d, lang, BANDS)
    new, old = "Her daughter is allergic to penicillin.", "Allergic to penicillin."
    u, v, d = pair(local, new, old)
    assert BANDS.same < d <= always.reach
    assert not always.merges(new, u, old, v, d, "en", BANDS)


def test_a_change_merges_only_with_a_fact_it_speaks_of_whatever_the_score(judge, local):
    always = replace(judge, threshold=0.0)
    # another customer's facts (bench/memory_natural.jsonl): the change speaks of neither
    for new, old, lang in (("Ahora le vienen mejor las mañanas.", "Prefiere habitación en planta baja.", "es"),
                           ("Tasub nüüd alati kaardiga.", "Reisib tavaliselt koos koera Bellaga.", "et")):
        u, v, d = pair(local, new, old)
        assert d <= always.reach and not always.merges(new, u, old, v, d, lang, BANDS), (new, old)
    new, old = "Ahora prefiere habitación en planta alta.", "Prefiere habitación en planta baja."
    u, v, d = pair(local, new, old)
    assert always.merges(new, u, old, v, d, "es", BANDS)


def test_a_stored_fact_that_says_more_is_never_replaced_whatever_the_score(judge, local):
    always = replace(judge, threshold=0.0)
    for more in ("The bakery in Tartu has 3 employees.", "The bakery in Tartu delivers bread."):
        # Putting the new one in its place would lose what it says: they merge only by keeping it.
        new, old = "Runs a bakery in Tartu.", more
        u, v, d = pair(local, new, old)
        assert d <= always.reach and always.merges(new, u, old, v, d, "en", BANDS), (new, old)
        assert dedup.keeps_stored(new, old, d, "en", BANDS), (new, old)
        new, old = more, "Runs a bakery in Tartu."  # in place of the old one, the new one loses nothing
        u, v, d = pair(local, new, old)
        assert always.merges(new, u, old, v, d, "en", BANDS) and not dedup.keeps_stored(new, old, d, "en", BANDS), (
            new, old)
    new, old = "Has a Ford Focus from 2018.", "Drives a 2018 Ford Focus."  # one word more: may merge
    u, v, d = pair(local, new, old)
    assert always.merges(new, u, old, v, d, "en", BANDS)


def test_code_alone_picks_the_stored_fact_the_judge_merges_with(judge, local):
    new, old, lang = PARAPHRASES[0]
    stored = ["Prefers Saturday appointments.", old]
    vectors = memory_embedding.vectors(local, [new] + stored)
    assert extract.nearest_same(new, vectors[0], stored, list(vectors[1:]), lang, BANDS) is None
    assert extract.nearest_same(new, vectors[0], stored, list(vectors[1:]), lang, BANDS, judge).index == 1
