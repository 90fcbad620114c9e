"""Precision and recall of the memory grounding check (sidecar.memory.grounding).

`python -m bench.grounding [path]` prints a `## Memory grounding check` section for
bench/RESULTS.md. The set (bench/grounding_eval.jsonl) is hand-written: per case
what the customer said, a fact an extraction model might propose, whether the fact
is grounded, and the kind of case.
"""
from __future__ import annotations

import json
import time
from collections import Counter, defaultdict
from pathlib import Path

import sidecar.memory.grounding as grounding_module
from sidecar.memory.grounding import COVERAGE_MIN, PREFIX_MIN, SHARED_MIN, check

from .markdown import table

DEFAULT_PATH = Path(__file__).with_name("grounding_eval.jsonl")
LANGS = ("en", "ru", "es", "et", "ko")
KINDS = ("grounded", "paraphrase", "speculation", "invented_number", "invented_name", "wrong_detail")
REPEAT = 20  # timing: each check is run this many times
SWEEP = (1.0, 0.8, 0.75, 0.6, 0.5)  # coverage thresholds scored for the threshold note


def load(path: Path | str = DEFAULT_PATH) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _pr(rows: list[tuple[bool, bool]]) -> dict:
    """rows: (truth, predicted). Positive class = grounded (the fact is let through)."""
    tp = sum(1 for t, p in rows if t and p)
    fp = sum(1 for t, p in rows if not t and p)
    fn = sum(1 for t, p in rows if t and not p)
    tn = sum(1 for t, p in rows if not t and not p)
    return {
        "n": len(rows), "tp": tp, "fp": fp, "fn": fn, "tn": tn,
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": tp / (tp + fn) if tp + fn else 1.0,
        "accuracy": (tp + tn) / len(rows) if rows else 1.0,
    }


def evaluate(path: Path | str = DEFAULT_PATH, repeat: int = REPEAT) -> dict:
    cases = load(path)
    results = []
    for c in cases:
        g = check(c["fact"], c["customer"], c["lang"])
        results.append((c, g))
    # timing, after a warm-up pass (stemmer caches), every case checked REPEAT times
    t0 = time.perf_counter()
    for _ in range(repeat):
        for c in cases:
            check(c["fact"], c["customer"], c["lang"])
    per_check_ms = (time.perf_counter() - t0) * 1000.0 / (repeat * len(cases))
    # a long message, cold (its analysis is cached per text)
    long_text = " ".join(c["customer"] for c in cases if c["lang"] == "en")
    long_text = (long_text * (4000 // len(long_text) + 1))[:4000]
    t0 = time.perf_counter()
    check("Runs a bakery in Leeds with 4 delivery vans.", long_text + " ", "en")
    long_ms = (time.perf_counter() - t0) * 1000.0

    rows = [(c["grounded"], g.ok) for c, g in results]
    by_lang = {lang: _pr([(c["grounded"], g.ok) for c, g in results if c["lang"] == lang]) for lang in LANGS}
    by_kind = {k: _pr([(c["grounded"], g.ok) for c, g in results if c["kind"] == k]) for k in KINDS}
    splits = sorted({c.get("split", "dev") for c in cases})
    by_split = {sp: _pr([(c["grounded"], g.ok) for c, g in results if c.get("split", "dev") == sp])
                for sp in splits}
    reasons = Counter(g.reason for c, g in results if not g.ok and not c["grounded"])
    errors = [{"lang": c["lang"], "kind": c["kind"], "customer": c["customer"], "fact": c["fact"],
               "split": c.get("split", "dev"), "truth": c["grounded"], "reason": g.reason, "coverage": g.coverage, "missing": list(g.missing)}
              for c, g in results if c["grounded"] != g.ok]
    size = defaultdict(Counter)
    for c in cases:
        size[c["lang"]][c["kind"]] += 1
    return {
        "sweep": _sweep(cases, splits),
        "path": str(path), "n": len(cases), "overall": _pr(rows), "by_lang": by_lang, "by_kind": by_kind,
        "by_split": by_split,
        "size": {k: dict(v) for k, v in size.items()}, "rejected_by": dict(reasons), "errors": errors,
        "ms_per_check": per_check_ms, "ms_long_4000": long_ms,
        "params": {"coverage_min": COVERAGE_MIN, "prefix_min": PREFIX_MIN, "shared_min": SHARED_MIN},
    }


def _sweep(cases: list[dict], splits: list[str]) -> list[dict]:
    """The same set at other coverage thresholds: sidecar.memory.grounding reads
    COVERAGE_MIN at every check, so it is set for the sweep and restored after."""
    saved = grounding_module.COVERAGE_MIN
    out = []
    try:
        for t in SWEEP:
            grounding_module.COVERAGE_MIN = t
            got = [(c, check(c["fact"], c["customer"], c["lang"]).ok) for c in cases]
            out.append({"coverage_min": t,
                        "by_split": {sp: _pr([(c["grounded"], ok) for c, ok in got if c.get("split", "dev") == sp])
                                     for sp in splits},
                        "let_through": [c for c, ok in got if ok and not c["grounded"]]})
    finally:
        grounding_module.COVERAGE_MIN = saved
    return out


def _f(x: float) -> str:
    return f"{x:.3f}"


def markdown(result: dict) -> str:
    o = result["overall"]
    p = result["params"]
    L: list[str] = []
    w = L.append
    w("## Memory grounding check")
    w("")
    w("Before a fact extracted from a turn is written to a customer's memory, "
      "`sidecar.memory.grounding.check` decides, with no model and no network, whether its wording rests on "
      "what the customer said. A fact passes only if: every e-mail, URL, phone (digits only), number, amount, "
      "date, month, weekday and currency it states is in the customer's text, compared as values "
      "(`1 200 €` = `1200€` = `1.200 €`, `four` = `4`, `четырьмя` = `4`, `120만` = `1200000`, `14.05` = `14 May`); "
      "every capitalised word that does not start a sentence (Latin/Cyrillic), and in Korean a name before a "
      "title (`이수진 선생님`), is there too; a negated fact has a negation to rest on, and a positive fact does "
      "not rest on words the customer only said inside a negated clause (`it's a café, not a restaurant`); and "
      "every content word is the customer's — casefolded, NFKC, Snowball-stemmed per language via "
      "`sidecar.searchtext` (Korean: particles and endings stripped, then matched inside the customer's words), "
      f"matching exactly, by prefix when the shorter stem has ≥ {p['prefix_min']} characters, or by a shared "
      f"prefix of ≥ {p['shared_min']} characters; framing words (customer, wants, has, prefers, runs, owns, …), "
      "stopwords, hedges (usually, mainly, around) and the label of a stated value (`phone`, `número`, `번호`) "
      f"are exempt. Coverage threshold: {p['coverage_min']:.2f} — every remaining content word must be found "
      "(see the threshold note below).")
    w("")
    sizes = {sp: r["n"] for sp, r in result["by_split"].items()}
    w(f"Set: `{Path(result['path']).name}`, {result['n']} hand-written cases — {sizes.get('dev', 0)} written first "
      f"and used to develop the rule (`split: dev`), {sizes.get('holdout', 0)} written afterwards "
      "(`split: holdout`). The held-out cases were first scored untouched under an earlier form of the rule "
      "(one missing content word in four allowed); the general gaps they exposed were fixed afterwards "
      "(negation words and value labels exempt, `7-year-old`, Estonian `ärge`, Korean `말아`) and the "
      "threshold was raised, so their figures below are no longer blind. Positive class = grounded: "
      "precision = of the facts the check lets through, the share truly grounded; recall = of the truly "
      "grounded facts, the share let through.")
    w("")
    sizes_by_lang = {lang: result["size"].get(lang, {}) for lang in LANGS}
    L.extend(table(["lang", *KINDS, "total"], ([lang, *(s_.get(k, 0) for k in KINDS), sum(s_.values())]
                                               for lang, s_ in sizes_by_lang.items())))
    w("")

    def row(label: str, r: dict, bold: bool = False) -> list:
        b = "**" if bold else ""
        return [label, r["n"], f"{b}{_f(r['precision'])}{b}", f"{b}{_f(r['recall'])}{b}", _f(r["accuracy"]),
                r["fp"], r["fn"]]

    L.extend(table(["", "n", "precision", "recall", "accuracy", "let through wrongly", "rejected wrongly"],
                   [row("**all**", o, bold=True), *(row(f"split {sp}", r) for sp, r in result["by_split"].items()),
                    *(row(lang, result["by_lang"][lang]) for lang in LANGS)]))
    w("")
    w("Accuracy per kind (grounded and paraphrase should pass, the rest should be rejected):")
    w("")
    by_kind = result["by_kind"]
    L.extend(table(["kind", "n", "accuracy", "wrong"],
                   ([k, by_kind[k]["n"], _f(by_kind[k]["accuracy"]), by_kind[k]["fp"] + by_kind[k]["fn"]]
                    for k in KINDS)))
    w("")
    rb = result["rejected_by"]
    if rb:
        w("Ungrounded facts were stopped by (first failing check): " + ", ".join(
            f"{k} {v}" for k, v in sorted(rb.items(), key=lambda kv: -kv[1])) + ".")
        w("")
    w(f"Speed: {result['ms_per_check']:.3f} ms per check (mean over the set, warm caches); "
      f"{result['ms_long_4000']:.2f} ms for a first check against a new 4,000-character message.")
    w("")
    _threshold_note(w, result)
    errs = result["errors"]
    fps = [e for e in errs if not e["truth"]]
    fns = [e for e in errs if e["truth"]]
    w("What it still gets wrong:")
    w("")
    if fps:
        w(f"- Let through although ungrounded ({len(fps)}):")
        for e in fps:
            w(f"  - {e['lang']} {e['kind']} ({e['split']}): “{e['customer']}” → “{e['fact']}”")
    else:
        w("- Nothing ungrounded was let through on this set.")
    if fns:
        w(f"- Rejected although grounded ({len(fns)}): paraphrases with a word the customer did not use — a "
          "synonym (`children` for `kids`, `available` for `free`), a verb of the same meaning (`acudir` for "
          "`venir`, `käia` for `tulla`, `가입` for `들다`) or a derivation Snowball does not join (`оплату` / "
          "`оплачивать`, `maksta` / `maksame`). Judging those needs a model; this check deliberately stays "
          "lexical, so such facts are lost rather than risked:")
        for e in fns:
            miss = ", ".join(e["missing"])
            w(f"  - {e['lang']} {e['kind']} ({e['split']}): “{e['customer']}” → “{e['fact']}” "
              f"({e['reason']}: {miss})")
    w("")
    w("Known blind spots beyond the set: a fact built only from the customer's words can still combine them "
      "wrongly (`4 vans and 2 shops` → `2 vans`: both numbers were said); a capitalised name at the very start "
      "of a sentence is checked only as a content word (it must still be the customer's); a Korean name not "
      "followed by a title or `이름은` is likewise only a content word; number words for “one” are not "
      "read as 1 in a fact (articles/pronouns); negation scope runs from the negation to the "
      "end of its clause plus the word before it, so a word fronted further (`tarjeta, la verdad, no "
      "aceptamos`) escapes it; "
      "the exemption lists were written against the dev split and then patched for gaps the held-out "
      "cases exposed, so no figure above is blind any more — expect "
      "precision below 1.000 on real extraction output.")
    return "\n".join(L) + "\n"


def _threshold_note(w, result: dict) -> None:
    sweep = result.get("sweep") or []
    if not sweep:
        return
    splits = list(result["by_split"])
    w("Threshold: the same set scored at other coverage thresholds (the share of content words that must be "
      "the customer's; the rule allows `int(n × (1 − t))` missing words of a fact's n):")
    w("")

    def row(r: dict) -> list:
        t = r["coverage_min"]
        label = f"**{t:.2f}** (in force)" if abs(t - result["params"]["coverage_min"]) < 1e-9 else f"{t:.2f}"
        return [label, *(f"{_f(r['by_split'][sp]['precision'])} / {_f(r['by_split'][sp]['recall'])}" for sp in splits),
                len(r["let_through"])]

    for line in table(["coverage ≥", *(f"{sp}: P / R" for sp in splits), "ungrounded let through"],
                      map(row, sweep), "r" * (len(splits) + 2)):
        w(line)
    w("")
    cur = next((r for r in sweep if abs(r["coverage_min"] - result["params"]["coverage_min"]) < 1e-9), None)
    alt = next((r for r in sweep if abs(r["coverage_min"] - 0.75) < 1e-9), None)
    if cur and alt:
        new = [c for c in alt["let_through"] if c not in cur["let_through"]]
        swaps = [c for c in new if c["kind"] == "wrong_detail"]
        w(f"Allowing one content word in four to be missing (0.75) lets through {len(new)} more ungrounded "
          f"fact(s) on this set, {len(swaps)} of them a swapped detail"
          + (" (the word not said: " + ", ".join(
              f"`{', '.join(check(c['fact'], c['customer'], c['lang']).missing)}` ({c['lang']})" for c in swaps)
             + ")" if swaps else "")
          + ". Precision matters most (an invented fact is read back as a premise on every later turn), so "
          "every content word must be the customer's.")
        w("")


if __name__ == "__main__":
    from .cli import on_data_set

    on_data_set(evaluate, markdown, DEFAULT_PATH)
