"""Memories shown to the model at the start of a turn.

A memory is shown when the customer's message is about it, judged within the
customer's own space. One absolute bound on a small model's distances cannot
separate "about this" from "near this" (a question about delivery "to my shop" lies
0.15-0.19 from "Runs a bakery on Rüütli 5", and so do the customer's unrelated
memories), so every rule is relative to the customer's nearest memory as well:

- distance: within the strict bound, and not far behind the nearest;
- standing out: the customer's nearest memory up to a looser bound, when it is clearly
  nearer than their next one (a message about none of them often lies about as near to
  several);
- words: a content word of the message (stemmed in the customer's language, with
  the grounding check's tolerance) that few of the candidates share, up to a looser
  bound, close behind the nearest, a few at most (a question about something never
  said shares words with many memories);
- for a message that reads as a correction (forget.reads_as_correction), the facts
  shown are the usual ones, and more is offered apart (`Recalled.to_forget`, a block of
  their own in the prompt) as what the correction may mean, never as facts for the
  reply, so that the model may name it:
  - what the rules above reach with looser bounds: the strict bound a little wider, a
    shared word further out and shared by more of the candidates, the customer's
    nearest memory up to a looser bound, standing out or not;
  - kind: a kind of value the message shares with a memory counts as a shared word
    ("we'll be about 60 now" and "Expects about 90 guests.": a count; "I moved to
    Tartu" and "Lives in Pärnu.": where they live; values.value_kinds);
  - candidate: the customer's other memories close behind the nearest, up to a looser
    bound: a correction in the customer's own words ("Рио я продал, сейчас езжу на
    служебной") often lies 0.15-0.20 from the memory it means, behind others and
    sharing no word with it. One that shares a telling word with it is offered further
    behind ("the physio's signed my knee off … a second PT session with Dan": the knee
    0.08 behind the PT session).
  Most messages that read so ask something ("I don't remember when my renewal is"):
  showing what the looser bounds reach as facts cost a quarter of the precision of
  what was shown for them (bench/RESULTS.md).

A marginally related "fact" about a person is wrong, not merely unhelpful: fewer
shown is better when they are the right ones. Tuned on bench/memory_natural.jsonl's
tune split (bench/RESULTS.md, *Memory on natural speech*).

Shown memories are listed one per line as `mN: content`, most important first (what
is offered only as what a correction may mean after the rest), within a character
budget, after the prompt's cache boundary. Only a shown memory
can be forgotten (forget.py), within the forget bounds.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .refs import ref
from .store import StoredMemory, MemoryIndex
from .values import value_kinds
from .words import memory_terms, stems_match

BUDGET_CHARS = 1500
MAX_SHOWN = 12


@dataclass
class Recalled:
    """What this turn showed the model: ref -> memory, and each one's distance to the message."""

    refs: dict[str, StoredMemory] = field(default_factory=dict)
    distance: dict[str, float] = field(default_factory=dict)
    near: set[str] = field(default_factory=set)  # sharing a telling word with the message
    behind: dict[str, float] = field(default_factory=dict)  # how much further than the customer's nearest
    correcting: bool = False  # the message reads as a correction: forget.py may reach further
    to_forget: set[str] = field(default_factory=set)  # offered only as what a correction may mean, not as facts

    def facts(self) -> dict[str, StoredMemory]:
        """The memories shown as what the message is about."""
        return {name: m for name, m in self.refs.items() if name not in self.to_forget}

    def lines(self, to_forget: bool = False) -> list[str]:
        """The facts as `mN: content`; with `to_forget`, what is offered apart instead."""
        return [f"{name}: {m.content}" for name, m in self.refs.items() if (name in self.to_forget) == to_forget]

    def forget_lines(self) -> list[str]:
        return self.lines(to_forget=True)


def distances(query: np.ndarray, vectors: list[np.ndarray]) -> np.ndarray:
    """Cosine distances; every embedding is L2-normalised, so 1 - dot product."""
    if not vectors:
        return np.zeros(0, dtype=np.float32)
    return 1.0 - np.vstack(vectors) @ query


@dataclass(frozen=True)
class Bounds:
    strict: float  # shown on distance alone ...
    strict_margin: float = 1.0  # ... within this much of the customer's nearest memory
    near: float = 0.0  # shown for a shared content word, up to this distance ...
    near_margin: float = 0.0  # ... within this much of the nearest
    nearest: float = 0.0  # the customer's nearest memory is shown up to this distance ...
    nearest_gap: float = 0.0  # ... when it lies at least this much nearer than the next one
    candidates: float = 0.0  # offered apart, as what a correction may mean, up to this distance ...
    candidates_margin: float = 0.0  # ... within this much of the nearest
    candidates_word_margin: float = 0.0  # ... or this much, sharing a telling word, up to `near`
    word_share: float = 1 / 3  # a shared word tells only when at most this share of the candidates has it
    word_limit: int = MAX_SHOWN  # at most this many shown for a shared word, nearest first
    correcting: bool = False  # the message reads as a correction (forget.reads_as_correction)
    # For such a message, the bounds within which a memory is shown as a fact; what only
    # these wider bounds show is offered apart, as what the correction may mean.
    facts: Bounds | None = None

    @property
    def reach(self) -> float:
        return max(self.strict, self.near, self.nearest, self.candidates)


def terms(text: str, lang: str) -> frozenset[str]:
    return frozenset(memory_terms(text, lang)) if text else frozenset()


def shared_terms(message: frozenset[str], memory: frozenset[str], lang: str) -> set[str]:
    """The message's terms the memory has too: the same stem, or (outside Korean's
    bigrams) the grounding check's stem tolerance ("kasvata" / "kasvatamise")."""
    if lang == "ko":
        return set(message & memory)
    return {w for w in message if w in memory or any(stems_match(w, x) for x in memory)}


def about(d: np.ndarray, contents: dict[int, str], message: str, lang: str,
          b: Bounds) -> dict[int, tuple[str, bool]]:
    """Row -> (why it is shown: "distance", "words", "nearest" or "candidate"; whether it shares a
    telling word with the message), for the rows shown.

    `d`: the message's distance to every memory of the customer; `contents`: the
    candidates (rows within reach), opened."""
    words = terms(message, lang)
    found: dict[int, set[str]] = {}

    def shares(i: int) -> set[str]:
        # Matching stems is most of the work here, on the turn: each row once, for both passes.
        if i not in found:
            found[i] = shared_terms(words, terms(contents[i], lang), lang) if words else set()
        return found[i]

    wide = _about(d, contents, message, lang, b, shares)
    if b.facts is None:
        return wide
    # A message reads as a correction for a negation or a cue, and most that do ask something
    # ("I don't remember when my renewal is"): the facts shown are the usual ones, and what
    # only the wider bounds reach may still be named, offered apart.
    facts = _about(d, contents, message, lang, b.facts, shares)
    out = {i: why for i, why in facts.items() if why[0] != "candidate"}
    for i, (_, worded) in wide.items():
        out.setdefault(i, ("candidate", worded))
    return out


def _about(d: np.ndarray, contents: dict[int, str], message: str, lang: str, b: Bounds,
           shares: Callable[[int], set[str]]) -> dict[int, tuple[str, bool]]:
    if not len(d) or not contents:
        return {}
    nearest = float(d.min())
    # How far the customer's nearest memory stands out from the next: a message about one
    # thing the customer told us lies nearer to it than to the rest, even beyond the strict
    # bound ("can we keep it to bites and nibbles rather than a seated dinner?" and "Prefers
    # canapés to a sit-down meal.", 0.141, the next 0.194); a message about none of them
    # often lies about as near to several.
    ahead = float(np.partition(d, 1)[1]) - nearest if len(d) > 1 else 1.0
    # Which words tell is judged among the memories that may be shown as facts; those only
    # offered apart, further out, leave it as it is.
    judged = {i: text for i, text in contents.items() if d[i] <= max(b.strict, b.near, b.nearest)}
    shared = {i: shares(i) for i in judged}
    kinds = value_kinds(message, lang) if b.correcting else frozenset()
    if kinds:
        # A correction names the new value, the memory holds the old one: they share its kind.
        for i, text in judged.items():
            shared[i] = shared.get(i, set()) | {f"#{k}" for k in kinds & value_kinds(text, lang)}
    # A word many of the candidates share (the customer's own name, their company's)
    # says nothing about which one the message means: it counts only when few have it
    # (a few more when the message corrects: "both parrots went to a friend").
    df: dict[str, int] = {}
    for found in shared.values():
        for w in found:
            df[w] = df.get(w, 0) + 1
    common = max(2, int(np.ceil(len(judged) * b.word_share)))
    out: dict[int, tuple[str, bool]] = {}
    by_words = 0
    for i in sorted(contents, key=lambda i: d[i]):
        di, behind = float(d[i]), float(d[i]) - nearest
        worded = any(df[w] <= common for w in shared.get(i, ()))
        if di <= b.strict and behind <= b.strict_margin:
            out[i] = ("distance", worded)
        elif worded and di <= b.near and behind <= b.near_margin and by_words < b.word_limit:
            out[i] = ("words", True)
            by_words += 1
        elif di <= b.nearest and behind <= 0.0 and ahead >= b.nearest_gap:
            out[i] = ("nearest", False)
        elif di <= b.candidates and behind <= b.candidates_margin:
            out[i] = ("candidate", False)
        elif b.correcting and worded and di <= b.near and behind <= b.candidates_word_margin:
            out[i] = ("candidate", True)
    return out


def _bounds(threshold: float, bounds: Bounds | None, near: float, near_margin: float) -> Bounds:
    return bounds if bounds is not None else Bounds(threshold, near=near, near_margin=near_margin)


def _order(close: tuple) -> tuple:
    """The facts first, most important and nearest first; what a correction may mean after them."""
    dist, m, (reason, _) = close
    return reason == "candidate", -m.importance, dist


def recall(query: np.ndarray, memories: list[StoredMemory], *, threshold: float = 0.0, budget: int = BUDGET_CHARS,
           limit: int = MAX_SHOWN, message: str = "", lang: str = "en", near: float = 0.0,
           near_margin: float = 0.0, bounds: Bounds | None = None) -> Recalled:
    """`bounds` (MemorySettings.recall_bounds) or, for the strict rule with a shared-word
    band, `threshold`, `near` and `near_margin`."""
    b = _bounds(threshold, bounds, near, near_margin)
    d = distances(query, [m.embedding for m in memories])
    within = sorted((i for i in range(len(memories)) if d[i] <= b.reach), key=lambda i: d[i])[: limit * 2]
    why = about(d, {i: memories[i].content for i in within}, message, lang, b)
    close = [(float(d[i]), memories[i], reason) for i, reason in why.items()]
    close.sort(key=_order)
    out = shown(close, budget=budget, limit=limit, nearest=float(d.min()) if len(d) else 0.0)
    out.correcting = b.correcting
    return out


def recall_indexed(query: np.ndarray, index: MemoryIndex, fetch: Callable[[list[int]], list[StoredMemory]], *,
                   threshold: float = 0.0, budget: int = BUDGET_CHARS, limit: int = MAX_SHOWN, message: str = "",
                   lang: str = "en", near: float = 0.0, near_margin: float = 0.0,
                   bounds: Bounds | None = None) -> Recalled:
    """The turn's path: distances over the space's embeddings alone, then only the
    few memories that may be shown are fetched and opened."""
    b = _bounds(threshold, bounds, near, near_margin)
    d = 1.0 - index.matrix @ query
    candidates = sorted((i for i in range(len(index.ids)) if d[i] <= b.reach), key=lambda i: d[i])[: limit * 2]
    by_id = {m.id: m for m in fetch([index.ids[i] for i in candidates])} if candidates else {}
    contents = {i: by_id[index.ids[i]].content for i in candidates if index.ids[i] in by_id}
    why = about(d, contents, message, lang, b)
    close = [(float(d[i]), by_id[index.ids[i]], reason) for i, reason in why.items()]
    close.sort(key=_order)
    out = shown(close, budget=budget, limit=limit, nearest=float(d.min()) if len(d) else 0.0)
    out.correcting = b.correcting
    return out


def shown(close: list[tuple], *, budget: int, limit: int, nearest: float = 0.0) -> Recalled:
    """Most important first, within the character budget, labelled m1..mN; `nearest`:
    the distance of the customer's nearest memory."""
    out, used = Recalled(), 0
    for dist, m, *why in close:
        if len(out.refs) == limit or used + len(m.content) > budget:
            continue
        name = ref(len(out.refs) + 1)
        out.refs[name] = m
        out.distance[name] = dist
        out.behind[name] = max(0.0, dist - nearest)
        if why and why[0][1]:
            out.near.add(name)
        if why and why[0][0] == "candidate":
            out.to_forget.add(name)
        used += len(m.content) + len(name) + 2
    return out
