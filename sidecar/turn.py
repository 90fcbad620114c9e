"""One chat turn, flowing one way:
request -> query embedding -> space -> history + retrieval + memories -> budget -> prompt -> provider
-> parse/clamp -> price check -> forget -> store -> response.

Two halves around the vendor call: `prepare` (everything the prompt needs, read in
one short transaction) and `finish` (what the application decides about the model's
answer, stored in a second short one). No connection is held while the vendor
thinks. A plain turn calls the provider chain in between; a streamed one
(sidecar/streaming.py) does the same with the chain's stream.

A vendor failure degrades the answer (after the provider chain's retries and
failover, the offline provider answers from the same knowledge); it never drops
the turn: the turn is stored either way.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from . import fulltext, spending, unanswered, usage
from .budget import Packed, pack
from .conversations import (QueryVector, append_turn, grounding_class, history_since, is_conversation_id,
                            new_conversation_id, resume)
from .db import retrying
from .memory.recall import Recalled
from .price_check import PriceCheck
from .prompt import build
from .providers.base import ChatRequest, ChatResult, Grounding, GroundingEntry
from .query_embedding import QueryEmbedding
from .reply import REPLY_SCHEMA, Reply, clean_text, parse_reply
from .retrieval import Query
from .services import Services
from .sites import Site
from .spaces import Space, TurnsWanted, identity_of, resolve_space_with
from .validation import ChatInput

log = logging.getLogger("rtac.turn")


@dataclass(frozen=True)
class PreparedTurn:
    """Everything read before the vendor call, and the request it gets."""

    site: Site
    inp: ChatInput
    space: Space
    conversation_id: str
    is_new: bool
    recalled: Recalled
    embedding: QueryEmbedding
    packed: Packed
    request: ChatRequest
    over_budget: bool = False  # the site's daily spending cap is reached: no vendor call


def _query(inp: ChatInput, embedding: QueryEmbedding, past) -> Query:
    """This turn's search: the message and its embedding, with the previous customer
    message of the conversation (and its stored embedding) folded in at a lower weight."""
    previous = past[-1] if past else None
    previous_vector = previous.query.vector if previous and previous.query \
        and previous.query.model == embedding.model else None
    return Query(inp.message, inp.lang, embedding.get() if embedding.made else None,
                 previous.message if previous else "", previous_vector)


@dataclass(frozen=True)
class _Read:
    """What the turn reads before the model call, in one transaction."""
    space: Space
    conversation_id: str | None
    past: list
    chunks: list
    recalled: Recalled
    over_budget: bool


@retrying  # its transaction run again whole when it loses to a concurrent one (db.py)
def _read(svc: Services, site: Site, inp: ChatInput, embedding: QueryEmbedding) -> _Read:
    cfg = svc.config
    with svc.engine.begin() as conn:
        # The site's search position (its content version and FULLTEXT table) comes with the space.
        identity = identity_of(inp.visitor.id, inp.visitor.wp_user_id)
        # ... and so do the conversation's last turns, when the request names one.
        wanted = TurnsWanted(inp.conversation_id, cfg.history_turns, history_since(cfg.retention_days)) \
            if is_conversation_id(inp.conversation_id or "") else None
        space, site_row, rows = resolve_space_with(conn, svc.keyring, site, identity, fulltext.LOCATE_COLUMNS, wanted)
        conversation_id, past = resume(conn, space, inp.conversation_id, rows)
        chunks = svc.retriever.retrieve(conn, site.id, site.default_lang, _query(inp, embedding, past),
                                        where=fulltext.site_index(site_row))
        recalled = svc.turn_memory.recall(conn, space, inp.message, embedding, inp.lang)
        return _Read(space, conversation_id, past, chunks, recalled, spending.over_budget(conn, site, cfg))


def prepare(svc: Services, site: Site, inp: ChatInput) -> PreparedTurn:
    cfg = svc.config
    # Made once, outside the retried transaction: a conflict never embeds twice.
    embedding = QueryEmbedding(svc.embedder, inp.message)
    if svc.retriever.model:  # before any transaction: no connection waits on the CPU
        embedding.get()
    read = _read(svc, site, inp, embedding)
    space, conversation_id, chunks, recalled = read.space, read.conversation_id, read.chunks, read.recalled
    past = read.past[-cfg.history_turns:] if cfg.history_turns else []
    is_new = conversation_id is None

    pinned = [GroundingEntry(p.title, p.content, pinned=True) for p in inp.pinned]
    packed = pack(pinned, chunks, cfg.context_chars)
    prompt = build(pinned=packed.pinned, retrieved=packed.retrieved, history=[(p.message, p.reply) for p in past],
                   message=inp.message,
                   lang=inp.lang, page_title=inp.page_title, page_url=inp.page_url,
                   lead_captured=inp.lead_captured, memories=recalled.lines(),
                   to_forget=recalled.forget_lines())
    request = ChatRequest(
        model=svc.model, system=prompt.system, system_tail=prompt.system_tail, messages=prompt.messages,
        max_tokens=cfg.max_tokens, schema=REPLY_SCHEMA, cache_key=f"rtac-{site.id}",
        timeout=cfg.provider_timeout,
        grounding=Grounding(question=inp.message, lang=inp.lang, pinned=packed.pinned, retrieved=packed.retrieved,
                            similarity=embedding.similarity if svc.embedder is not None else None))
    return PreparedTurn(site, inp, space, conversation_id or new_conversation_id(), is_new, recalled, embedding,
                        packed, request, read.over_budget)


def vendor_allowed(svc: Services, turn: PreparedTurn) -> bool:
    if turn.over_budget:
        log.info("site %s is over its daily spending cap: answering offline", turn.site.id)
    return not turn.over_budget


def decide(svc: Services, turn: PreparedTurn, result: ChatResult) -> tuple[Reply, ChatResult, int]:
    """What the application makes of the model's answer: parsed and clamped, never
    empty, every amount of money checked; returns the reply, the result it came from
    and how many sentences the price check repaired."""
    # The vendor names the model it used: that name is the vendor's text too.
    result = replace(result, model=clean_text(result.model)[:128])
    reply = parse_reply(result.text)
    if not reply.reply:  # an empty answer helps nobody: quote the knowledge instead
        result = svc.chain.offline.chat(turn.request)
        reply = parse_reply(result.text)
    check = PriceCheck(turn.packed.pinned, turn.packed.retrieved, turn.inp.lang)  # what the model was shown
    checked = check.check(reply.reply)
    if checked.corrections:
        log.info("price check repaired %d sentence(s)", checked.corrections)
    reply = replace(reply, reply=checked.text, quick_replies=[q for q in reply.quick_replies if check.passes(q)])
    if result.degraded and svc.provider.name != "offline":
        # Every vendor failed (or the cap is reached): the visitor may need a person.
        reply = replace(reply, action="show_contact", forget=[])
    return reply, result, checked.corrections


@retrying  # likewise: a turn the model answered is never lost to a conflict
def finish(svc: Services, turn: PreparedTurn, reply: Reply, result: ChatResult, price_corrections: int = 0) -> dict:
    """Forget, store, count and answer, in one short transaction."""
    inp, space, memory = turn.inp, turn.space, svc.turn_memory
    with svc.engine.begin() as conn:
        reply, forgotten = memory.after_reply(conn, space, reply, turn.recalled, inp.lang)
        stored = append_turn(conn, space, turn.conversation_id, turn.is_new, lang=inp.lang, message=inp.message,
                             reply=reply.reply, action=reply.action, unanswered=reply.unanswered,
                             degraded=result.degraded, provider=result.provider, model=result.model,
                             query=QueryVector(turn.embedding.model, turn.embedding.get())
                             if turn.embedding.made else None,
                             sources=turn.packed.sources(), lead_captured=inp.lead_captured, forgot=bool(forgotten),
                             grounding=grounding_class(inp.lang, [e.lang for e in turn.packed.retrieved]))
        usage.record(conn, turn.site.id, stored.id, result.provider, result.model, result.usage,
                     price_corrections=price_corrections)
        if reply.unanswered:
            unanswered.record(conn, turn.site, inp.message, inp.lang, inp.page_url, space=space)
        memory.after_store(conn, space, turn.conversation_id, stored.seq, inp.lang)
    memory.notify()  # extraction runs off the visitor's clock
    svc.maybe_maintain()

    return {
        "conversation_id": turn.conversation_id,
        "reply": reply.reply,
        "quick_replies": reply.quick_replies,
        "action": reply.action,
        "unanswered": reply.unanswered,
        "forgotten": forgotten,
        "sources": turn.packed.sources(),
        "usage": {"provider": result.provider, "model": result.model,
                  "input_tokens": result.usage.input_tokens, "output_tokens": result.usage.output_tokens,
                  "cache_read_input_tokens": result.usage.cache_read_input_tokens,
                  "cache_creation_input_tokens": result.usage.cache_creation_input_tokens},
        "degraded": result.degraded,
    }


def chat_turn(svc: Services, site: Site, inp: ChatInput) -> dict:
    turn = prepare(svc, site, inp)
    answer = svc.chain.chat(turn.request).result if vendor_allowed(svc, turn) else svc.chain.offline.chat(turn.request)
    reply, result, corrections = decide(svc, turn, answer)
    return finish(svc, turn, reply, result, corrections)
