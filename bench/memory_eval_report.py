"""The `## Memory thresholds` section of bench/RESULTS.md, written from bench.memory_eval's
result (plain data: distances, sweeps, choices); bench/METHOD.md says how they are measured."""
from __future__ import annotations

from pathlib import Path

from .markdown import table


def _f(x: float | None, nd: int = 3) -> str:
    return "–" if x is None else f"{x:.{nd}f}"


def _q(text: str, limit: int = 90) -> str:
    text = text.replace("|", "/")
    return "“" + (text if len(text) <= limit else text[:limit - 1] + "…") + "”"


def _dist_row(label: str, s: dict) -> str:
    return (f"| {label} | {s['n']} | {_f(s['min'])} | {_f(s['p10'])} | {_f(s['median'])} | {_f(s['p90'])} "
            f"| {_f(s['max'])} |")


def _orders(result: dict) -> tuple[list[str], list[str]]:
    """The languages and the dedup relations, in the order the result holds them."""
    return list(result["recall"]["by_lang"]), list(result["dedup"]["distances"])


def markdown(result: dict) -> str:
    L: list[str] = []
    w = L.append
    langs, relations = _orders(result)
    rec, fgt, ded, dfl = result["recall"], result["forget"], result["dedup"], result["defaults"]
    det = result["detail"]
    w("## Memory thresholds")
    w("")
    w("Which memories a turn shows (`recall_distance`), which of them a forget request may delete "
      "(`forget_distance`) and when a newly extracted fact replaces a stored one (`dedup_distance`), "
      "calibrated on a hand-written set; how: [METHOD.md](METHOD.md#memory-thresholds).")
    w("")
    w(f"Set: `{Path(result['path']).name}`, {result['n']} pairs, {result['texts']} distinct texts — recall "
      f"{det['recall'].get('about', 0)} about the fact / {det['recall'].get('marginal', 0)} marginal "
      f"(same business, another fact) / {det['recall'].get('unrelated', 0)} unrelated; forget "
      f"{det['forget'].get('target', 0)} aimed at the fact / {det['forget'].get('other', 0)} aimed at "
      f"another fact of the same customer (each request once with each); dedup "
      + " / ".join(f"{det['dedup'].get(k, 0)} {k}" for k in relations) + ".")
    w("")
    sizes = {lang: result["size"].get(lang, {}) for lang in langs}
    L.extend(table(["lang", "recall", "forget", "dedup", "total"],
                   ([lang, *(s.get(k, 0) for k in ("recall", "forget", "dedup")), sum(s.values())]
                    for lang, s in sizes.items())))
    w("")
    w(f"Machine: {result['cpus']} cores; embedding the {result['texts']} texts took "
      f"{result['embed_seconds']:.1f} s ({1000 * result['embed_seconds'] / max(1, result['texts']):.0f} ms a "
      f"text, batches of {result['batch']}, after the model was loaded).")
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
    for rel in relations:
        w(_dist_row(f"dedup: {rel}", ded["distances"][rel]))
    w("")
    w("Per language (median, and min–max; positives → negatives):")
    w("")
    w("| lang | recall about | recall not | forget target | forget other | dedup paraphrase | dedup changed "
      "| dedup different | dedup unrelated |")
    w("|---|---|---|---|---|---|---|---|---|")

    def cell(s: dict) -> str:
        return "–" if not s["n"] else f"{_f(s['median'])} ({_f(s['min'])}–{_f(s['max'])})"

    for lang in langs:
        rl, fl, dl = rec["by_lang"][lang], fgt["by_lang"][lang], ded["distances_by_lang"][lang]
        w(f"| {lang} | {cell(rl['pos'])} | {cell(rl['neg'])} | {cell(fl['pos'])} | {cell(fl['neg'])} | "
          + " | ".join(cell(dl[k]) for k in relations) + " |")
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
        ns = sorted({block["by_lang"][lang][key]["n"] for lang in langs})
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

    for lang in langs:
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
    w("The earlier dedup rule, a distance bound and every thing word shared, swept as a baseline. What the "
      "sidecar decides now is `dedup.decide` (distance bands, value slots, change cues, framing words), "
      "measured in *Memory on natural speech*. Paraphrase and changed value should merge (the new fact "
      "replaces the old); a different thing and an unrelated fact should be kept as a second fact. Accuracy "
      "per relation:")
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
        w(f"| {label} | " + " | ".join(_f(p[k]["accuracy"], 2) for k in relations)
          + f" | {_f(r['balanced_accuracy'])} | {_f(r['merge_precision'])} | {_f(r['merge_recall'])} |")
    w("")
    a = ded["at_default"]["per_relation"]
    g0, g1 = ded["gap"]
    w(f"At T = {dfl['dedup']:.3f}: " + ", ".join(f"{k} {a[k]['right']}/{a[k]['n']}" for k in relations)
      + f"; merge precision {_f(ded['at_default']['merge_precision'])}, merge recall "
      f"{_f(ded['at_default']['merge_recall'])}. The rule's best balanced accuracy holds for every T from "
      f"{ded['plateau'][0]:.3f} to {ded['plateau'][1]:.3f} (same_fact alone keeps unrelated facts apart on "
      f"this set). The farthest pair that should merge lies at {g0:.3f}, the nearest unrelated pair at "
      f"{g1:.3f}; chosen: {ct:.3f} (" + ("the default, inside that gap; the gap's middle is "
      f"{(g0 + g1) / 2:.3f})." if abs(ct - dfl["dedup"]) < 1e-9 else "the middle of that gap)."))
    w("")
    w(f"Each half alone at T = {dfl['dedup']:.3f} (accuracy): ")
    w("")
    parts = ded["parts_at_default"]
    L.extend(table(["relation", "distance only", "same_fact only", "both"],
                   ([k, _f(parts[k]["distance_only"], 2), _f(parts[k]["same_fact_only"], 2), _f(a[k]["accuracy"], 2)]
                    for k in relations)))
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
    langs, _ = _orders(result)
    rec, fgt, ded, dfl = result["recall"], result["forget"], result["dedup"], result["defaults"]
    out = []
    rc, fc = rec["chosen"], fgt["chosen"]
    if rc:
        d = rec["default"]
        meds = {lang: rec["by_lang"][lang]["pos"]["median"] for lang in langs}
        lo, hi = min(meds, key=meds.get), max(meds, key=meds.get)
        worst = min(langs, key=lambda x: rec["by_lang"][x]["at_chosen"]["recall"])
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
