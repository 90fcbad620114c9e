"""Memory recall on LoCoMo (public multi-session conversations; CC BY-NC 4.0, so
evaluation only: read from the shared data folder, never copied or shipped).

    python -m bench.locomo_recall            # prints the section
    python -m bench.locomo_recall --write    # and replaces it in bench/RESULTS.md

Each speaker of each conversation is one customer; their `observation` facts are
that customer's memories; each QA question naming exactly one of the two speakers is
a message of that customer, and the memories it is about are the observations of its
evidence turns. `sidecar.memory.recall.recall` decides what is shown, as shipped and
with the strict distances alone (bench.memory_natural.strict_alone). Hit rate: questions (categories 1-4) for which at
least one relevant memory is shown; category 5 questions are adversarial (about
things never said), where showing less is better. `ceiling` runs the shipped rule over
a small grid of its own knobs, fitted to LoCoMo itself: what these signals allow here at
best, not a setting.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np

from sidecar.memory.recall import recall
from sidecar.memory.service import MemorySettings

from .memory_natural import Vectors, as_memories, embed_all, query_recipe, strict_alone  # one embedding cache for the memory evaluations

HEADING = "## Memory recall on LoCoMo"


def data_path() -> Path:
    root = Path(os.environ.get("RTAC_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
    return root / "locomo" / "locomo10.json"


def customers(path: Path) -> list[dict]:
    """[{name, memories: [text], by_dia: {dia_id: [i]}, questions: [{text, relevant, category}]}]"""
    out = []
    for conv in json.loads(path.read_text(encoding="utf-8")):
        names = [conv["conversation"]["speaker_a"], conv["conversation"]["speaker_b"]]
        for name in names:
            texts, by_dia = [], defaultdict(list)
            for key in sorted(conv["observation"], key=lambda k: int(k.split("_")[1])):
                for text, dia in conv["observation"][key].get(name, []):
                    for d in (dia if isinstance(dia, list) else [dia]):  # a fact may rest on several turns
                        by_dia[d].append(len(texts))
                    texts.append(text)
            other = next(n for n in names if n != name)
            qs = []
            for qa in conv["qa"]:
                q = qa["question"]
                if name in q and other not in q:
                    rel = sorted({i for dia in qa.get("evidence", []) for i in by_dia.get(dia, [])})
                    qs.append({"text": q, "relevant": rel, "category": qa["category"]})
            out.append({"name": name, "memories": texts, "questions": qs})
    return out


def _vectors(custs: list[dict], query_recipe: bool = False) -> Vectors:
    return embed_all([q["text"] for c in custs for q in c["questions"]], [t for c in custs for t in c["memories"]],
                     query_recipe)


def score(custs: list[dict], vec: Vectors, settings: MemorySettings) -> dict:
    hits = n = relevant_shown = 0
    shown_all, shown_adv = [], []
    for c in custs:
        mems = as_memories(c["memories"], vec)
        for q in c["questions"]:
            shown = recall(vec.message[q["text"]], mems, message=q["text"], lang="en",
                           **settings.recall_bounds(q["text"], "en"))
            ids = {m.id for m in shown.facts().values()}
            if q["category"] == 5:
                shown_adv.append(len(ids))
                continue
            if not q["relevant"]:
                continue
            n += 1
            shown_all.append(len(ids))
            got = len(ids & set(q["relevant"]))
            relevant_shown += got
            hits += got > 0
    return {"questions": n, "hit_rate": hits / n if n else 0.0, "relevant_shown": relevant_shown,
            "mean_shown": float(np.mean(shown_all)) if shown_all else 0.0,
            "adversarial": len(shown_adv), "mean_shown_adversarial": float(np.mean(shown_adv)) if shown_adv else 0.0}


# The shipped rule's own knobs around their settings: the strict bound and its margin
# behind the nearest memory, the shared-word band's bound and how many it may add.
CEILING_GRID = {"recall_distance": (0.11, 0.12, 0.13), "recall_margin": (0.03, 0.05),
                "near_distance": (0.16, 0.18, 0.20), "near_limit": (1, 2, 3)}


def ceiling(custs: list[dict], vec: Vectors, settings: MemorySettings) -> dict:
    """The shipped rule with each combination of CEILING_GRID, fitted to LoCoMo itself (an
    upper bound for these questions, not a setting): the fewest shown for adversarial
    questions of any combination reaching the hit rate and mean-shown targets, and the
    best hit rate of any showing at most 2 for them."""
    tried = []
    for values in itertools.product(*CEILING_GRID.values()):
        knobs = dict(zip(CEILING_GRID, values))
        tried.append((knobs, score(custs, vec, replace(settings, **knobs))))
    reaching = [(k, r) for k, r in tried if r["hit_rate"] >= 0.75 and r["mean_shown"] <= 5]
    sparing = [(k, r) for k, r in tried if r["mean_shown_adversarial"] <= 2]
    return {"combinations": len(tried),
            "fewest_adversarial": min(reaching, key=lambda kr: kr[1]["mean_shown_adversarial"], default=None),
            "best_hit_sparing": max(sparing, key=lambda kr: kr[1]["hit_rate"], default=None)}


def run() -> dict:
    path = data_path()
    if not path.exists():
        raise FileNotFoundError(f"not measured: {path} not found")
    custs = customers(path)
    vec = _vectors(custs)
    s = MemorySettings()
    return {"customers": len(custs), "memories": sum(len(c["memories"]) for c in custs),
            "shipped": score(custs, vec, s), "strict": score(custs, vec, strict_alone(s)),
            "before": score(custs, _vectors(custs, query_recipe=True), query_recipe(s)),
            "ceiling": ceiling(custs, vec, s)}


def markdown(r: dict) -> str:
    rows = [("as shipped (strict distance close to the nearest, or a shared word among the nearest)", r["shipped"]),
            ("strict distances alone", r["strict"]),
            ("as shipped, memories embedded as queries alone with the settings for that (before)", r["before"])]
    lines = [HEADING, "",
             f"LoCoMo (locomo10.json, evaluation only): {r['customers']} customers (each speaker of each of the "
             f"10 conversations), {r['memories']:,} memories (their `observation` facts), the QA questions naming "
             "one speaker as that customer's messages; relevant = the observations of the question's evidence "
             "turns. Questions with no relevant observation are left out of the hit rate. "
             "`python -m bench.locomo_recall`.", "",
             "Target: hit rate ≥ 0.75 with ≤ 5 memories shown on average and ≤ 2 for adversarial "
             "(category 5) questions.", "",
             "| rule | questions | hit rate | relevant shown | mean shown | adversarial questions | mean shown, adversarial |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for label, s in rows:
        lines.append(f"| {label} | {s['questions']} | {s['hit_rate']:.3f} | {s['relevant_shown']} | "
                     f"{s['mean_shown']:.2f} | {s['adversarial']} | {s['mean_shown_adversarial']:.2f} |")
    c = r.get("ceiling")
    if c:
        lines += ["", f"What the rule's own signals allow here: the shipped rule with each of {c['combinations']} "
                  "combinations of its knobs (" + "; ".join(f"`{k}` {', '.join(map(str, v))}" for k, v in
                                                         CEILING_GRID.items())
                  + "), fitted to these questions themselves, so an upper bound for them, not a setting:", ""]
        for label, found in (("fewest shown for adversarial questions at hit rate ≥ 0.75 and ≤ 5 shown",
                              c["fewest_adversarial"]),
                             ("best hit rate at ≤ 2 shown for adversarial questions", c["best_hit_sparing"])):
            if found is None:
                lines.append(f"- {label}: no combination")
                continue
            knobs, s = found
            lines.append(f"- {label}: hit rate {s['hit_rate']:.3f}, mean shown {s['mean_shown']:.2f}, adversarial "
                         f"{s['mean_shown_adversarial']:.2f} (" + ", ".join(f"{k} {v}" for k, v in knobs.items()) + ")")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.locomo_recall")
    p.add_argument("--write", action="store_true")
    from .results_file import publish
    publish(markdown(run()), HEADING, p.parse_args(argv).write)


if __name__ == "__main__":
    main()
