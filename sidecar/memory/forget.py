"""Forgetting, decided by code with hard limits.

The model only proposes: the reply's `forget` refs ("m2") name memories the
customer's message negates ("that's not my company", "forget what you know about
X"). Code applies at most three per request, only refs this turn actually showed,
and only memories close enough to the customer's message: within the strict forget
distance; or shown for a telling word the message shares with it; or, when the
customer's own message reads as a correction (a correction or change cue of its
language, or a negation), the customer's nearest memory within a slightly looser
bound (what a correction in the customer's own words is about is the memory nearest
to it, even when a small model puts it a little further out), or one of the memories
close behind the nearest that recall.py offered apart as what the correction may
mean, within a looser bound still. recall.py widens what is shown for such a message,
so that the model can name it. Anything else is ignored. Deleted memories are read back to the customer in the same reply, worded by
code in the customer's language, and deletion is permanent.
"""
from __future__ import annotations

import re
from functools import lru_cache

from .. import lang as languages
from .recall import Recalled
from .store import MemoryStore

MAX_FORGET = 3


@lru_cache(maxsize=16)
def _cues(lang: str) -> re.Pattern[str]:
    # At the start of a word, so that "не надо" is not found in "к весне надо".
    language = languages.get(lang)
    return languages.word_starts(language.correction_cues + language.change_cues)


def reads_as_correction(message: str, lang: str) -> bool:
    """Whether the customer's message may be correcting what is remembered: a correction
    cue of the language ("forget", "больше не"), a change cue ("now", "sold",
    "теперь") or a negation. A rough signal: it only widens which memories the model is
    shown and may name; the model still decides, code still bounds."""
    return bool(_cues(lang).search(message)) or bool(languages.get(lang).negation.search(message))


def close_enough(ref: str, recalled: Recalled, *, threshold: float, candidates: float = 0.0,
                 candidates_margin: float = 0.0) -> bool:
    """Whether a shown memory is close enough to the customer's message to be what they meant."""
    d = recalled.distance[ref]
    if d <= threshold or ref in recalled.near:
        return True
    # Only when the customer's own words correct: their nearest memory without a shared
    # word, or one of the few close behind it that were offered as what they may mean.
    return recalled.correcting and d <= candidates and recalled.behind.get(ref, 1.0) <= candidates_margin


def choose(refs: list[str], recalled: Recalled, *, threshold: float, candidates: float = 0.0,
           candidates_margin: float = 0.0, limit: int = MAX_FORGET) -> list[str]:
    """The refs code agrees to act on, in the order the model gave them. `threshold`:
    the strict forget distance; `candidates`, `candidates_margin`: for a correction, the
    looser bound and how far behind the customer's nearest memory it may lie."""
    chosen: list[str] = []
    for ref in refs:
        if len(chosen) == limit:
            break
        if ref in chosen or ref not in recalled.refs:
            continue  # a ref the model was not shown is ignored
        if not close_enough(ref, recalled, threshold=threshold, candidates=candidates,
                            candidates_margin=candidates_margin):
            continue  # too far from what the customer said to be what they meant
        chosen.append(ref)
    return chosen


def apply(store: MemoryStore, refs: list[str], recalled: Recalled, **bounds: float) -> list[str]:
    """Delete the chosen memories (`bounds`: choose's); return their contents, for
    `forgotten` and the readback."""
    chosen = choose(refs, recalled, **bounds)
    memories = [recalled.refs[r] for r in chosen]
    store.delete([m.id for m in memories])
    return [m.content for m in memories]


def readback(lang: str, contents: list[str]) -> str:
    if not contents:
        return ""
    head = languages.get(lang).readback  # the heading is sidecar.lang's, English when unknown
    return "\n".join([head, *(f"– {c}" for c in contents)])
