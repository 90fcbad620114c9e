"""The offline provider: answers from the pinned and retrieved knowledge without a
model. It runs when no vendor key is configured and as the last fallback when every
vendor fails, so it keeps the same rules a model is given:
- when a pinned entry answers, it quotes the pinned entry and nothing retrieved
  (the official price list beats an old blog post; sources are never blended):
  a pinned line that shares the question's words, else the entry whose lines are
  closest in meaning to the question (the turn's query embedding; "Millal te avatud
  olete?" finds "Lahtiolekuajad"), in any language, unless a retrieved passage that
  shares the question's words is closer in meaning still;
- otherwise it quotes the best-matching retrieved passage, naming its page;
- otherwise it says it does not know and offers the contact card.
It never paraphrases: every sentence of knowledge it shows is quoted verbatim.
"""
from __future__ import annotations

import json
import re
from typing import Mapping, NamedTuple

from .. import lang as languages
from ..searchtext import content_terms, tokens
from . import PROVIDERS
from .base import ChatRequest, ChatResult, ChatStream, Grounding, GroundingEntry, Usage
from .streams import whole

SPEC = PROVIDERS["offline"]

MAX_LINES = 8
# Closest in meaning: small e5 models' similarities are compressed (0.75-0.9 for
# everything), so no absolute bound separates "about this" from "near this". The
# entry must instead hold the best line and one more of the best three, and the best
# line must stand out from the fourth (measured on the demo's pinned entries asked
# in et/en/ru: questions about hours or prices pass, "do you sell pizza?" mostly not).
_VOTE_LINES = 3
_MIN_SPREAD = 0.01
_NEAR_BEST = 0.015
_WHOLE_ENTRY_LINES = 6
_SENTENCE = re.compile(r"(?<=[.!?…。])\s+|\n+")

def texts(lang: str) -> Mapping[str, str]:
    """What is said around the quotes, in the customer's language (English when the
    sidecar has no module for it). Localised by code (sidecar.lang), not by a model:
    these are shown when no model is available."""
    return languages.get(lang).offline_texts


def _overlap(terms: set[str], text: str, lang: str) -> int:
    return len(terms & set(tokens(text, lang)))


def _pinned_lines(g: Grounding, terms: set[str]) -> tuple[int, list[str]]:
    """Lines of the pinned entries that share terms with the question, best first
    but kept in their original order, and the most terms one of them shares."""
    scored: list[tuple[int, int, str]] = []
    for e_index, entry in enumerate(g.pinned):
        for l_index, line in enumerate(ln.strip() for ln in entry.content.splitlines()):
            score = _overlap(terms, line, g.lang) if line else 0
            if score:
                scored.append((score, -(e_index * 10_000 + l_index), line))
    best = sorted(scored, reverse=True)[:MAX_LINES]
    return (best[0][0] if best else 0), [line for _, _, line in sorted(best, key=lambda s: -s[1])]


class _Meant(NamedTuple):
    """The pinned entry closest in meaning to the question."""

    short: bool  # shown whole
    lines: list[str]  # [] when no entry stands out
    similarity: float  # its best line's


_NOTHING_MEANT = _Meant(False, [], 0.0)


def _pinned_by_meaning(g: Grounding) -> _Meant:
    """The pinned entry closest in meaning to the question: a short entry whole, a long
    one's lines near the best."""
    if g.similarity is None:
        return _NOTHING_MEANT
    lines = [(e_index, line.strip()) for e_index, e in enumerate(g.pinned)
             for line in e.content.splitlines() if line.strip()]
    if len(lines) <= _VOTE_LINES:
        return _NOTHING_MEANT
    scores = g.similarity([f"{g.pinned[i].title}: {line}" for i, line in lines])
    if scores is None:
        return _NOTHING_MEANT
    order = sorted(range(len(lines)), key=lambda i: -float(scores[i]))
    best, top = lines[order[0]][0], float(scores[order[0]])
    votes = sum(1 for i in order[:_VOTE_LINES] if lines[i][0] == best)
    if votes < 2 or top - float(scores[order[_VOTE_LINES]]) < _MIN_SPREAD:
        return _NOTHING_MEANT
    entry = g.pinned[best]
    own = [i for i in range(len(lines)) if lines[i][0] == best]
    short = len(own) <= _WHOLE_ENTRY_LINES
    if not short:
        own = [i for i in own if float(scores[i]) >= top - _NEAR_BEST][:MAX_LINES]
    return _Meant(short, [f"{entry.title}:"] + [lines[i][1] for i in own], top)


def _closer_in_meaning(g: Grounding, quoted: list[str], than: float) -> bool:
    """Whether a retrieved passage's quoted sentences are closer in meaning to the
    question than `than` (their best one's similarity)."""
    scores = g.similarity(quoted) if g.similarity is not None and quoted else None
    return scores is not None and float(max(scores)) > than


def _pinned_by_title(g: Grounding, terms: set[str]) -> tuple[int, list[str]]:
    """When the question names an entry ("prices?" -> "Price list"): its opening lines."""
    best = max(((_overlap(terms, e.title, g.lang), i) for i, e in enumerate(g.pinned)), default=(0, -1))
    if not best[0]:
        return 0, []
    entry = g.pinned[best[1]]
    lines = [ln.strip() for ln in entry.content.splitlines() if ln.strip()]
    return best[0], [f"{entry.title}:"] + lines[:MAX_LINES]


def _retrieved_answer(g: Grounding, terms: set[str]) -> tuple[int, list[str], GroundingEntry | None]:
    for entry in g.retrieved:  # FULLTEXT already ranked them
        sentences = [s.strip() for s in _SENTENCE.split(entry.content) if s.strip()]
        hits = [(_overlap(terms, s, g.lang), i, s) for i, s in enumerate(sentences)]
        hits = [h for h in hits if h[0]]
        if hits:
            best = sorted(hits, key=lambda h: -h[0])[:2]
            return best[0][0], [s for _, _, s in sorted(best, key=lambda h: h[1])], entry
    return 0, [], None


def _choose(g: Grounding, terms: set[str]) -> tuple[list[str], list[str], GroundingEntry | None]:
    """What answers the question: (the pinned lines to quote, or else the retrieved
    sentences to quote and their entry); all empty when nothing does."""
    # A pinned line that shares more than one of the question's terms answers, whatever
    # retrieval found: that is the price rule.
    shared, lines = _pinned_lines(g, terms) if terms else (0, [])
    if shared > 1:
        return lines, [], None
    # One shared word ("close" in "Sun closed") is weak evidence: a short entry closest
    # in meaning answers better, whole; a long one (a price list) only when no line
    # shares a word at all.
    meant = _pinned_by_meaning(g)
    by_meaning = bool(meant.lines) and (meant.short or not lines)
    if lines and not by_meaning:
        return lines, [], None
    found_score, quoted, entry = _retrieved_answer(g, terms) if terms else (0, [], None)
    if by_meaning:
        # Closeness in meaning is weak evidence too: a retrieved passage that shares the
        # question's words and is closer still answers it ("Какая гарантия на работы?"
        # lies near the price list's lines, nearer the warranty page's sentence).
        if _closer_in_meaning(g, quoted, than=meant.similarity):
            return [], quoted, entry
        return meant.lines, [], None
    # A pinned entry matched by its title alone is weaker evidence and yields to a
    # retrieved passage that matches the question better.
    title_score, title_lines = _pinned_by_title(g, terms) if terms else (0, [])
    if title_lines and title_score >= found_score:
        return title_lines, [], None
    return [], quoted, entry


def answer(g: Grounding) -> dict:
    t = texts(g.lang)
    lines, quoted, entry = _choose(g, content_terms(g.question, g.lang))
    if lines:
        body = "\n".join([t["pinned"], *lines, "", t["note"]])
        return {"reply": body, "quick_replies": [], "action": "none", "unanswered": False, "forget": []}
    if quoted and entry is not None:
        source = f"{t['source']}: {entry.title}" + (f" <{entry.url}>" if entry.url else "")
        body = "\n".join([t["found"], *(f"“{s}”" for s in quoted), source, "", t["note"]])
        return {"reply": body, "quick_replies": [], "action": "none", "unanswered": False, "forget": []}
    return {"reply": t["none"], "quick_replies": [], "action": "show_contact", "unanswered": True, "forget": []}


class OfflineProvider:
    name = SPEC.name
    default_model = SPEC.default_model

    def chat(self, request: ChatRequest) -> ChatResult:
        g = request.grounding or Grounding(question="", lang="en")
        return ChatResult(text=json.dumps(answer(g), ensure_ascii=False), usage=Usage(),
                          provider=self.name, model=self.default_model, degraded=True)

    def stream(self, request: ChatRequest) -> ChatStream:
        """The same answer in one piece: it is whole at once, and quoted knowledge is
        no faster to read in parts."""
        return whole(self.chat(request))
