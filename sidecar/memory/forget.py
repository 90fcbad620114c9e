"""Forgetting, decided by code with hard limits.

The model only proposes: the reply's `forget` refs ("m2") name memories the
customer's message negates ("that's not my company", "forget what you know about
X"). Code applies at most three per request, only refs this turn actually showed,
and only memories close enough to the customer's message (within the strict
forget distance, or shown for a word the message shares with them, recall.py);
anything else is ignored. Deleted memories are read back to the customer in the same reply, worded
by code in the customer's language, and deletion is permanent.
"""
from __future__ import annotations

from .. import lang as languages
from .recall import Recalled
from .store import MemoryStore

MAX_FORGET = 3


def reads_as_correction(message: str, lang: str) -> bool:
    """Whether the customer's message may be correcting what is remembered: a correction
    cue of the language ("forget", "больше не") or a negation. A rough signal (about 6
    in 10 natural forget requests carry one, 1 in 7 other messages): it only widens which
    memories the model is shown and may name; the model still decides, code still bounds."""
    language = languages.get(lang)
    folded = message.casefold()
    return any(cue.casefold() in folded for cue in language.correction_cues) or bool(language.negation.search(message))


def choose(refs: list[str], recalled: Recalled, *, threshold: float, limit: int = MAX_FORGET) -> list[str]:
    """The refs code agrees to act on, in the order the model gave them."""
    chosen: list[str] = []
    for ref in refs:
        if len(chosen) == limit:
            break
        if ref in chosen or ref not in recalled.refs:
            continue  # a ref the model was not shown is ignored
        if recalled.distance[ref] > threshold and ref not in recalled.near:
            continue  # too far from what the customer said to be what they meant
        chosen.append(ref)
    return chosen


def apply(store: MemoryStore, refs: list[str], recalled: Recalled, *, threshold: float) -> list[str]:
    """Delete the chosen memories; return their contents, for `forgotten` and the readback."""
    chosen = choose(refs, recalled, threshold=threshold)
    memories = [recalled.refs[r] for r in chosen]
    store.delete([m.id for m in memories])
    return [m.content for m in memories]


def readback(lang: str, contents: list[str]) -> str:
    if not contents:
        return ""
    head = languages.get(lang).readback  # the heading is sidecar.lang's, English when unknown
    return "\n".join([head, *(f"– {c}" for c in contents)])
