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


def _pinned_answer(g: Grounding, terms: set[str]) -> list[str]:
    """Lines of the pinned entries that share terms with the question; when the
    question names an entry itself ("prices?" -> "Price list"), its opening lines."""
    scored: list[tuple[int, int, str]] = []
    for e_index, entry in enumerate(g.pinned):
        lines = [ln.strip() for ln in entry.content.splitlines() if ln.strip()]
        title_hit = _overlap(terms, entry.title, g.lang) > 0
        for l_index, line in enumerate(lines):
            score = _overlap(terms, line, g.lang)
            if score:
                scored.append((score, -(e_index * 10_000 + l_index), line))
        if title_hit and not any(s for s in scored):
            return [f"{entry.title}:"] + lines[:MAX_LINES]
    if not scored:
        return []
    best = sorted(scored, reverse=True)[:MAX_LINES]
    return [line for _, _, line in sorted(best, key=lambda s: -s[1])]


def _retrieved_answer(g: Grounding, terms: set[str]) -> tuple[list[str], GroundingEntry | None]:
    for entry in g.retrieved:  # FULLTEXT already ranked them
        sentences = [s.strip() for s in _SENTENCE.split(entry.content) if s.strip()]
        hits = [(i, s) for i, s in enumerate(sentences) if _overlap(terms, s, g.lang)]
        if hits:
            best = sorted(hits, key=lambda h: -_overlap(terms, h[1], g.lang))[:2]
            return [s for _, s in sorted(best)], entry
    return [], None


def answer(g: Grounding) -> dict:
    t = texts(g.lang)
    terms = content_terms(g.question, g.lang)
    lines = _pinned_answer(g, terms) if terms else []
    if lines:
        body = "\n".join([t["pinned"], *lines, "", t["note"]])
        return {"reply": body, "quick_replies": [], "action": "none", "unanswered": False, "forget": []}
    quoted, entry = _retrieved_answer(g, terms) if terms else ([], None)
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
