"""A learned second opinion on dedup: does a new fact restate or update a stored one?

The hand rule (dedup.decide) keeps apart whatever it cannot show to be the same fact:
it merges a paraphrase only when the two share their thing words or lie within 0.015,
so "Likes to come in in the mornings." / "Prefers morning appointments." (0.053 apart)
stay two lines. What tells a paraphrase from a different thing that looks alike is spread
over the whole of the two vectors, not their one cosine: a small network reads both
(|u - v| and u * v, as probes for paraphrase over sentence embeddings do, and u - v, the
way the new fact lies from the stored one: a fact that adds a change or a detail moves
one way) beside the rule's own signals (distance, word overlap, values, cues, the rule's
decision), and scores the pair. A pair the rule keeps apart merges when the score
reaches the model's threshold.

The weights (merge_model.npz) are fitted by `python -m bench.memory_merge_fit` on
bench/memory_natural.jsonl, and the threshold is the lowest that, with each split
scored by a model not fitted on it, keeps 0.95 of the different things that look alike
and 0.998 of every two of one customer's memories apart (bench/RESULTS.md). They hold
only for the vectors they were fitted on: the file names its embedder's memory rows,
and for any other (a vendor's embeddings) there is no judge and the rule decides alone.

The judge reads the two facts' words as written, not through the language's synonyms
(dedup.pair's `synonyms`): it was fitted on them so, and where a synonym makes the rule
merge, the judge is not asked.

Hard limits stay code's (may_merge): nothing beyond `reach` merges (the farthest two
memories of one customer the model learned to keep apart), a fact about a member of the
family never merges with one about the customer, nor two facts naming the two sides of
one contrast (the upper and the lower molar), nor a fact saying it changed with one
it does not speak of (dedup.decide's rules, kept here too: the judge learned from pairs
of one customer's facts, and a change beside an unrelated fact is not among them), nor
a fact in place of a stored one that says all it says and two things or values more,
which would be lost: such a pair merges only by keeping the stored text as it is
(dedup.keeps_stored).
Off the visitor's clock: dedup runs in the extraction job.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import dedup
from .values import value_kinds

FILE = Path(__file__).with_name("merge_model.npz")


def signals(new: str, old: str, distance: float, lang: str, bands: dedup.Bands) -> list[float]:
    """The rule's signals of a pair, its decision last."""
    a, b = dedup.pair(new, old, lang, synonyms=False)
    shares = (dedup.share(a.words, b.words), dedup.share(b.words, a.words))
    every = (dedup.share(a.every, b.every), dedup.share(b.every, a.every))
    return [distance, min(shares), max(shares), min(every), max(every), float(dedup.contained(a, b)),
            float(a.values == b.values), float(bool(a.values) and bool(b.values)), float(bool(a.values or b.values)),
            float(bool(a.values & b.values)), float(bool(a.contacts & b.contacts)), float(a.date and b.date),
            float(a.changes), float(bool(a.names) and bool(b.names)), float(a.naming or b.naming),
            float(bool(value_kinds(new, lang) & value_kinds(old, lang))),
            min(len(new), len(old)) / max(len(new), len(old)), float(len(a.every) + len(b.every)),
            float(dedup.decide(new, old, distance, lang, bands) != "new")]


def features(new: str, new_vec: np.ndarray, old: str, old_vec: np.ndarray, distance: float, lang: str,
             bands: dedup.Bands) -> np.ndarray:
    """One row the judge scores: the pair's vectors (new less old, its size, their product),
    then its signals."""
    u, v = np.asarray(new_vec, dtype=np.float32), np.asarray(old_vec, dtype=np.float32)
    return np.concatenate([u - v, np.abs(u - v), u * v,
                           np.asarray(signals(new, old, distance, lang, bands), np.float32)])


def may_merge(new: str, old: str, distance: float, lang: str, bands: dedup.Bands, reach: float) -> bool:
    """The limits code keeps whatever the score: within `reach`, never two facts the rule
    holds to be two things whatever else (dedup.never_same: a member of the family and the
    customer, the two sides of one contrast; dedup.two_lines: two lines of one kind of
    contact), a fact saying it changed only with one it
    speaks of (dedup.speaks_of), never in place of a stored fact that says more
    (dedup.says_more), where what only the old one says would be lost: with such a fact it
    merges only where the merge keeps the stored text (dedup.keeps_stored). A new fact
    saying more loses nothing."""
    if distance > reach:
        return False
    a, b = dedup.pair(new, old, lang, synonyms=False)
    if dedup.never_same(a, b) or dedup.two_lines(a, b):
        return False
    if a.changes and not dedup.speaks_of(old, new, lang):
        return False  # a change beside a fact it does not speak of, as in dedup.decide
    # Beside a stored fact that says more, only a restatement of part of it merges: the
    # stored text is kept (dedup.keeps_stored), so nothing is lost.
    return not dedup.says_more(b, a) or dedup.keeps_stored(new, old, distance, lang, bands)


@dataclass(frozen=True)
class MergeJudge:
    """One hidden layer over standardised features; `threshold` on its sigmoid."""

    rows_of: str  # the memory rows' model name (memory.embedding.model) the weights were fitted on
    mean: np.ndarray
    scale: np.ndarray
    hidden_w: np.ndarray
    hidden_b: np.ndarray
    out_w: np.ndarray
    out_b: float
    threshold: float
    reach: float

    def scores(self, rows: np.ndarray) -> np.ndarray:
        h = np.maximum(((np.atleast_2d(rows) - self.mean) / self.scale) @ self.hidden_w + self.hidden_b, 0.0)
        return 1.0 / (1.0 + np.exp(-(h @ self.out_w + self.out_b)))

    def merges(self, new: str, new_vec: np.ndarray, old: str, old_vec: np.ndarray, distance: float, lang: str,
               bands: dedup.Bands) -> bool:
        if not may_merge(new, old, distance, lang, bands, self.reach):
            return False
        row = features(new, new_vec, old, old_vec, distance, lang, bands)
        return bool(self.scores(row)[0] >= self.threshold)

    def save(self, path: Path = FILE) -> None:
        np.savez_compressed(path, rows_of=np.array(self.rows_of), mean=self.mean, scale=self.scale,
                            hidden_w=self.hidden_w, hidden_b=self.hidden_b, out_w=self.out_w,
                            out_b=np.float64(self.out_b), threshold=np.float64(self.threshold),
                            reach=np.float64(self.reach))


@lru_cache(maxsize=4)
def _read(path: Path) -> MergeJudge | None:
    if not path.exists():
        return None
    with np.load(path, allow_pickle=False) as f:
        return MergeJudge(str(f["rows_of"]), f["mean"], f["scale"], f["hidden_w"], f["hidden_b"], f["out_w"],
                          float(f["out_b"]), float(f["threshold"]), float(f["reach"]))


def judge_for(rows_of: str, path: Path = FILE) -> MergeJudge | None:
    """The judge fitted on these memory rows' vectors, or None (the rule decides alone)."""
    judge = _read(path)
    return judge if judge is not None and judge.rows_of == rows_of else None
