"""The offline provider: answers from the pinned and retrieved knowledge without a
model. It runs when no vendor key is configured and as the last fallback when every
vendor fails, so it keeps the same rules a model is given:
- when a pinned entry answers, it quotes the pinned entry and nothing retrieved
  (the official price list beats an old blog post; sources are never blended);
- otherwise it quotes the best-matching retrieved passage, naming its page;
- otherwise it says it does not know and offers the contact card.
It never paraphrases: every sentence of knowledge it shows is quoted verbatim.
"""
from __future__ import annotations

import json
import re

from ..searchtext import content_terms, tokens
from .base import ChatRequest, ChatResult, Grounding, GroundingEntry, Usage

MAX_LINES = 8
_SENTENCE = re.compile(r"(?<=[.!?…。])\s+|\n+")

# Localised by code, not by a model: these are shown when no model is available.
TEXTS = {
    "en": {"pinned": "Here is what our information says:", "found": "I found this on our website:",
           "source": "Source", "none": "I'm sorry, I don't have that information. Please contact us and we'll help you.",
           "note": "(Automatic answer quoted from our information.)"},
    "et": {"pinned": "Meie andmetes on kirjas:", "found": "Leidsin meie kodulehelt:",
           "source": "Allikas", "none": "Vabandust, mul ei ole selle kohta infot. Palun võtke meiega ühendust, aitame hea meelega.",
           "note": "(Automaatne vastus, tsiteeritud meie andmetest.)"},
    "ru": {"pinned": "Вот что указано в наших данных:", "found": "Вот что я нашёл на нашем сайте:",
           "source": "Источник", "none": "К сожалению, у меня нет этой информации. Пожалуйста, свяжитесь с нами, и мы поможем.",
           "note": "(Автоматический ответ, цитата из наших данных.)"},
    "es": {"pinned": "Esto es lo que dice nuestra información:", "found": "He encontrado esto en nuestra web:",
           "source": "Fuente", "none": "Lo siento, no tengo esa información. Contáctenos y le ayudaremos.",
           "note": "(Respuesta automática citada de nuestra información.)"},
    "ko": {"pinned": "안내된 정보는 다음과 같습니다:", "found": "웹사이트에서 찾은 내용입니다:",
           "source": "출처", "none": "죄송합니다. 해당 정보가 없습니다. 문의해 주시면 도와드리겠습니다.",
           "note": "(저희 정보에서 인용한 자동 답변입니다.)"},
}


def texts(lang: str) -> dict:
    return TEXTS.get(lang, TEXTS["en"])


def _overlap(terms: set[str], text: str, lang: str) -> int:
    return len(terms & set(tokens(text, lang)))


def _pinned_lines(g: Grounding, terms: set[str]) -> list[str]:
    """Lines of the pinned entries that share terms with the question, best first
    but kept in their original order."""
    scored: list[tuple[int, int, str]] = []
    for e_index, entry in enumerate(g.pinned):
        for l_index, line in enumerate(ln.strip() for ln in entry.content.splitlines()):
            score = _overlap(terms, line, g.lang) if line else 0
            if score:
                scored.append((score, -(e_index * 10_000 + l_index), line))
    best = sorted(scored, reverse=True)[:MAX_LINES]
    return [line for _, _, line in sorted(best, key=lambda s: -s[1])]


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


def answer(g: Grounding) -> dict:
    t = texts(g.lang)
    terms = content_terms(g.question, g.lang)
    # A pinned line that shares the question's terms answers, whatever retrieval found:
    # that is the price rule. A pinned entry matched by its title alone is weaker
    # evidence and yields to a retrieved passage that matches the question better.
    lines = _pinned_lines(g, terms) if terms else []
    title_score, title_lines = _pinned_by_title(g, terms) if terms and not lines else (0, [])
    found_score, quoted, entry = _retrieved_answer(g, terms) if terms and not lines else (0, [], None)
    if not lines and title_lines and title_score >= found_score:
        lines = title_lines
    if lines:
        body = "\n".join([t["pinned"], *lines, "", t["note"]])
        return {"reply": body, "quick_replies": [], "action": "none", "unanswered": False, "forget": []}
    if quoted and entry is not None:
        source = f"{t['source']}: {entry.title}" + (f" <{entry.url}>" if entry.url else "")
        body = "\n".join([t["found"], *(f"“{s}”" for s in quoted), source, "", t["note"]])
        return {"reply": body, "quick_replies": [], "action": "none", "unanswered": False, "forget": []}
    return {"reply": t["none"], "quick_replies": [], "action": "show_contact", "unanswered": True, "forget": []}


class OfflineProvider:
    name = "offline"
    default_model = "offline"

    def chat(self, request: ChatRequest) -> ChatResult:
        g = request.grounding or Grounding(question="", lang="en")
        return ChatResult(text=json.dumps(answer(g), ensure_ascii=False), usage=Usage(),
                          provider=self.name, model=self.default_model, degraded=True)
