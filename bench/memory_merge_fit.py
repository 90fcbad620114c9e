"""Fit dedup's learned judge (sidecar/memory/merge_model.npz) and say how it does on splits it never saw.

    python -m bench.memory_merge_fit            # prints the figures
    python -m bench.memory_merge_fit --write    # and writes the weights and the section in bench/RESULTS.md
    python -m bench.memory_merge_fit --more-data  # would fitting on the judge-blind splits too help?

Rows, from bench/memory_natural.jsonl's fitting splits (every split but memory_natural.JUDGE_BLIND):
- each dedup pair (old, new): to merge for a paraphrase or a changed value, to keep apart
  for a different thing that looks alike;
- every two memories of one customer (recall and forget items) within memory_natural.JUDGE_REACH
  of each other: different facts by construction, to keep apart.

Each row is what the judge reads in the product (merge_model.features: the two memory
vectors' u - v, |u - v| and u * v, the rule's signals and its decision), with memories embedded
as extraction embeds them. The model is scikit-learn's MLPClassifier (one hidden layer
of HIDDEN units, the `eval` extra), on standardised rows, with each different thing
that looks alike counted DIFFERENT_WEIGHT times: they are the few rows that are hard to
keep apart (the pairs of one customer's memories are many and mostly easy), and a
wrong merge deletes a true fact.

Each fitting split is scored by a model fitted on the other folds (the fitting splits dealt
out at random into FOLDS folds), and pairs code's limits keep apart (merge_model.may_merge)
never merge, whatever their score. The threshold is the lowest at which, over those scores,
the judge merges at most 2% of the different things the rule keeps apart, and the rule or
the judge together keep 0.998 of one customer's memories apart; the weights written are
fitted on every fitting split. The judge's budget is its own: a budget shared with the rule
(the two together keeping 0.95 apart) grows whenever the rule merges fewer look-alikes, and
the judge then spends it on pairs it never saw (bench/RESULTS.md, split history). Only the
product's numpy forward pass runs in the sidecar (merge_model.MergeJudge).

`--write` replaces the shipped weights. A refit moves a split's figures by several pairs
from its data and seed alone, so a new judge is kept only when it does better on the
splits it was never fitted on (JUDGE_BLIND, or `--more-data`'s comparison); the shipped file
is the one `--write` wrote on every split while fresh33 and fresh34 were held back
(bench/RESULTS.md, *Memory: dedup's learned judge*).
"""
from __future__ import annotations

import argparse
from itertools import permutations
from typing import Iterator

import numpy as np

from sidecar.embedders.local import LocalEmbedder
from sidecar.memory import embedding as memory_embedding
from sidecar.memory import merge_model
from sidecar.memory.merge_model import MergeJudge
from sidecar.memory.service import MemorySettings

from .memory_natural import JUDGE_BLIND as BLIND, JUDGE_REACH as REACH, SPLITS, load, vectors_of

HEADING = "## Memory: dedup's learned judge"
HIDDEN = 16
ALPHA = 1.0  # the network's L2 penalty
DIFFERENT_WEIGHT = 10
KEEP_DIFFERENT, KEEP_OWN = 0.98, 0.998  # of the look-alikes the rule keeps apart; of all own pairs
THRESHOLDS = np.linspace(0.01, 0.995, 198)
RELATIONS = ("paraphrase", "changed_value", "different_thing", "own")


def dedup_pairs(items: list[dict], memory: dict[str, np.ndarray]) -> Iterator[tuple[str, str, str, str, str]]:
    """(new, old, lang, relation, split): each dedup item's pair, then every two memories
    of one customer within REACH, relation "own" (different facts by construction)."""
    for it in (i for i in items if i["type"] == "dedup"):
        yield it["new"], it["old"], it["lang"], it["relation"], it["split"]
    seen = set()
    for it in (i for i in items if "memories" in i):
        if tuple(it["memories"]) in seen:
            continue
        seen.add(tuple(it["memories"]))
        for old, new in permutations(it["memories"], 2):
            if float(1.0 - memory[old] @ memory[new]) <= REACH:
                yield new, old, it["lang"], "own", it["split"]


def rows(items: list[dict], settings: MemorySettings) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, str]:
    """(features, relation, split, whether code's limits let the judge merge it) per pair,
    and the memory rows' model name."""
    vec, bands = vectors_of(items), settings.dedup_bands()
    x, rel, split, allowed = [], [], [], []

    def add(new: str, old: str, lang: str, relation: str, sp: str) -> None:
        u, v = vec.memory[new], vec.memory[old]
        distance = float(1.0 - u @ v)
        x.append(merge_model.features(new, u, old, v, distance, lang, bands))
        rel.append(relation)
        split.append(sp)
        allowed.append(merge_model.may_merge(new, old, distance, lang, bands, REACH))
    for pair in dedup_pairs(items, vec.memory):
        add(*pair)
    rows_of = memory_embedding.model(LocalEmbedder(lane="turn"))
    return np.array(x, dtype=np.float32), np.array(rel), np.array(split), np.array(allowed), rows_of


FOLDS = 8


def _folds(splits: list[str]) -> list[list[str]]:
    """The splits dealt out at random into FOLDS folds, each scored by a model fitted on the others."""
    order = np.random.RandomState(0).permutation(len(splits))
    return [[splits[i] for i in order[k::FOLDS]] for k in range(FOLDS)]


def _fit(x: np.ndarray, rel: np.ndarray):
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    hard = np.flatnonzero(rel == "different_thing")
    take = np.concatenate([np.arange(len(rel))] + [hard] * (DIFFERENT_WEIGHT - 1))
    model = make_pipeline(StandardScaler(), MLPClassifier((HIDDEN,), alpha=ALPHA, max_iter=300, random_state=0))
    return model.fit(x[take], np.isin(rel[take], ["paraphrase", "changed_value"]))


def rates(merged: np.ndarray, rel: np.ndarray) -> dict[str, tuple[float, int]]:
    """Per relation: the share decided right (merged for a paraphrase or a changed value,
    kept apart otherwise), and how many."""
    out = {}
    for r in RELATIONS:
        m = rel == r
        right = merged[m] if r in ("paraphrase", "changed_value") else ~merged[m]
        out[r] = (float(right.mean()) if m.any() else 1.0, int(m.sum()))
    return out


def threshold(score: np.ndarray, rule: np.ndarray, rel: np.ndarray) -> float:
    """The lowest threshold at which the judge keeps enough of the look-alikes the rule keeps
    apart, and the two together enough of one customer's memories."""
    left = (rel == "different_thing") & ~rule
    for t in THRESHOLDS:
        if (score[left] < t).mean() >= KEEP_DIFFERENT and rates(rule | (score >= t), rel)["own"][0] >= KEEP_OWN:
            return float(t)
    return 1.0


def judge_of(model, t: float, rows_of: str) -> MergeJudge:
    scaler, mlp = model[0], model[-1]
    return MergeJudge(rows_of, scaler.mean_.astype(np.float32), scaler.scale_.astype(np.float32),
                      mlp.coefs_[0].astype(np.float32), mlp.intercepts_[0].astype(np.float32),
                      mlp.coefs_[1][:, 0].astype(np.float32), float(mlp.intercepts_[1][0]), t, REACH)


def run() -> dict:
    items = [it for it in load() if it["split"] not in BLIND]
    x, rel, split, allowed, rows_of = rows(items, MemorySettings())
    rule = x[:, -1] > 0.5  # the rule's own decision is the last signal
    fitted = [sp for sp in SPLITS if sp not in BLIND]
    folds = [np.isin(split, fold) for fold in _folds(fitted)]
    score = np.zeros(len(rel))  # 0 where code's limits keep the pair apart whatever the score
    for test in folds:  # each split scored by a model not fitted on it
        score[test] = _fit(x[~test], rel[~test]).predict_proba(x[test])[:, 1] * allowed[test]
    unseen = np.zeros(len(rel), dtype=bool)  # and decided at a threshold chosen on the others
    for test in folds:
        unseen[test] = rule[test] | (score[test] >= threshold(score[~test], rule[~test], rel[~test]))
    t = threshold(score, rule, rel)
    judge = judge_of(_fit(x, rel), t, rows_of)
    return {"rule": rates(rule, rel), "unseen": rates(unseen, rel), "threshold": t, "splits": len(fitted),
            "judge": judge}


KEEP_APART = (0.96, 0.955, 0.95)  # the share of the judge-blind splits' look-alikes kept apart, to compare at


def more_data() -> str:
    """Would the judge do better fitted on the judge-blind splits too? Every split but the
    held-back ones is scored by a model fitted on the other folds of FOLDS (the splits dealt
    out at random), once with every other split and once with the other folds' fitting splits
    alone; the judge-blind splits' pairs are then read at the threshold keeping each share of
    KEEP_APART of their look-alikes apart, so the two fits compare at one operating point."""
    items = load()
    x, rel, split, allowed, _ = rows(items, MemorySettings())
    rule, blind = x[:, -1] > 0.5, np.isin(split, BLIND)
    folds = _folds(list(SPLITS))
    lines = ["| fitted on | look-alikes kept apart | paraphrases merged | changed values replaced "
             "| own memories kept apart |", "|---|---:|---:|---:|---:|"]
    for name, with_blind in (("the fitting splits", False), ("every split", True)):
        score = np.zeros(len(rel))
        for fold in folds:
            test = np.isin(split, fold)
            train = ~test if with_blind else ~test & ~blind
            score[test] = _fit(x[train], rel[train]).predict_proba(x[test])[:, 1] * allowed[test]
        look_alikes = blind & (rel == "different_thing")
        for keep in KEEP_APART:
            t = next((t for t in THRESHOLDS if (rule | (score >= t))[look_alikes].mean() <= 1 - keep), 1.0)
            r = rates((rule | (score >= t))[blind], rel[blind])
            lines.append(f"| {name} | {r['different_thing'][0]:.3f} | {r['paraphrase'][0]:.3f} | "
                         f"{r['changed_value'][0]:.3f} | {r['own'][0]:.4f} |")
    return "\n".join(lines) + "\n"


def markdown(r: dict) -> str:
    cell = lambda rates_, k: f"{rates_[k][0]:.3f} ({rates_[k][1]})"  # noqa: E731
    lines = [HEADING, "",
             "sidecar/memory/merge_model.npz, fitted by `python -m bench.memory_merge_fit --write` on "
             "bench/memory_natural.jsonl's splits" + (f" but {', '.join(BLIND)}" if BLIND else ", every one of "
                                                       "`memory_splits.HISTORY`") +
             f" ({r['splits']} splits; a split held back unread is read by no fit): a network of one "
             f"hidden layer ({HIDDEN} units) reads the two memory vectors (u − v, |u − v|, u ⊙ v) and the rule's signals, "
             "and merges a pair the rule keeps apart when its score reaches the threshold, within code's limits "
             f"(`merge_model.may_merge`: up to {REACH}, never a member of the family with the customer, two lines of "
             "one kind of contact nor the two sides of one contrast or two things told apart by their numbers, "
             "a fact saying it changed only with one it speaks of, never in place of a stored fact saying all the new "
             "one says and two things or values more). Below, each split is decided by a model not fitted on it "
             f"(one of {FOLDS}, each fitted on the splits of the other folds), at a threshold chosen on the other "
             f"splits' such scores; the threshold shipped ({r['threshold']:.3f}) is the lowest at which, over all "
             f"of them, the judge merges at most {1 - KEEP_DIFFERENT:.0%} of the different things the rule keeps "
             "apart, and the two together "
             f"keep ≥ {KEEP_OWN} of one customer's memories (within {REACH}) apart.", "",
             "| dedup, code alone | paraphrases merged | changed values replaced | different things kept apart "
             "| own memories kept apart |", "|---|---:|---:|---:|---:|"]
    for name, label in (("rule", "the rule alone (`dedup.decide`)"),
                        ("unseen", "the rule, or the judge, on splits it was not fitted on")):
        rr = r[name]
        lines.append(f"| {label} | {cell(rr, 'paraphrase')} | {cell(rr, 'changed_value')} | "
                     f"{cell(rr, 'different_thing')} | {cell(rr, 'own')} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.memory_merge_fit")
    p.add_argument("--write", action="store_true",
                   help="write sidecar/memory/merge_model.npz and replace the section in bench/RESULTS.md")
    p.add_argument("--more-data", action="store_true",
                   help="compare a judge fitted on the fitting splits with one fitted on every split, on the "
                        "judge-blind splits")
    args = p.parse_args(argv)
    if args.more_data:
        print(more_data())
        return
    r = run()
    if args.write:
        r["judge"].save()
    from .results_file import publish
    publish(markdown(r), HEADING, args.write)


if __name__ == "__main__":
    main()
