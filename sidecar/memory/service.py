"""Memory around a chat turn: recall before the prompt, forgetting after the reply,
extraction queued in the turn's transaction and done off the visitor's clock."""
from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Callable
from datetime import timedelta

import numpy as np
from sqlalchemy import delete, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError

from .. import tables as t
from .. import usage
from ..clock import utcnow
from ..config import Config
from ..conversations import customer_messages
from ..db import claim, is_conflict, retrying
from ..embedders.base import Embedder
from ..errors import RtacError
from ..providers.chain import ProviderChain
from ..query_embedding import QueryEmbedding
from ..reply import Reply
from ..sites import Site, SiteRegistry
from ..worker import Worker
from ..spaces import Space, space_by_id
from . import embedding as memory_embedding
from . import extract, forget, merge_model, reembed
from .dedup import Bands
from .index_cache import IndexCache
from .recall import MAX_SHOWN, Bounds, Recalled, distances, recall_indexed
from .refs import ref
from .store import MemoryStore

log = logging.getLogger("rtac.memory")
_J = t.memory_jobs.c


@dataclass(frozen=True)
class MemorySettings:
    # Recall (recall.py), every bound also relative to the customer's nearest memory.
    # Tuned on bench/memory_natural.jsonl's tune split with LoCoMo's aggregate figures
    # as a check (bench/RESULTS.md): a memory is shown within `recall_distance` when it
    # is within `recall_margin` of the nearest, and for a telling shared word up to
    # `near_distance` within `near_margin`, at most `near_limit` of them (LoCoMo: a
    # question about something never said shares words with many memories). A rule for
    # memories standing out from the customer's median one cost precision on the tune
    # split and was left out. On memory vectors of both e5 recipes (embedding.py) one
    # memory for a shared word, within 0.06 of the nearest, took LoCoMo's questions about
    # something never said from 2.9 memories shown to 2.0 at a hit rate of 0.765 (chosen
    # there; up to three within 0.04, as before: 0.80 and 3.0); the natural splits moved a few items
    # either way. A bound of 0.16 for a shared word would show 1.9 there, but cost the
    # natural splits ~0.04 of recall.
    recall_distance: float = Config.memory_recall_distance  # RTAC_MEMORY_RECALL_DISTANCE
    recall_margin: float = 0.05
    near_distance: float = 0.18
    near_margin: float = 0.06
    near_limit: int = 1
    # A shared word tells only when at most `near_word_share` of the candidates have it (at
    # least two may). With six memories that is any word two of them share; a customer with
    # a hundred has a score within reach, and a word a fifth of those share is topic, not a
    # pointer ("stress", "friend"). On LoCoMo 1/3 -> 0.2 took the memories shown for
    # questions about something never said from 2.01 to 1.95 at a hit rate of 0.765 ->
    # 0.764, alike on each half of its conversations (chosen there); no natural-speech item
    # has enough candidates for it to matter.
    near_word_share: float = 0.2
    # The customer's nearest memory is shown up to `standout_distance` when it lies
    # `standout_gap` nearer than their next one (a question in other words than the fact
    # lies 0.13-0.15 from it: "Do I need to stop my anticoagulant before the extraction?"
    # and "Takes the blood thinner apixaban.", 0.146, the next memory 0.185).
    standout_distance: float = 0.15
    standout_gap: float = 0.015
    # A forget request lies at a median 0.121 from the fact it means; 0.125 keeps
    # precision at 0.957 (bench/memory_eval.jsonl). Beyond it a memory may be forgotten
    # when it was shown for a telling shared word, or, when the message reads as a
    # correction (forget.py), when it is the customer's nearest memory up to
    # `forget_nearest`, shown as a fact (tune split: a forget request
    # in the customer's own words lies 0.12-0.14 from the memory it means when they
    # share no word).
    forget_distance: float = Config.memory_forget_distance  # RTAC_MEMORY_FORGET_DISTANCE
    forget_nearest: float = 0.14
    # For such a message the memories within `forget_candidates_margin` of the nearest,
    # up to `forget_candidates`, are offered apart as what it may mean (never as facts
    # for the reply) and may be forgotten. On every forget item of the tune, held-out,
    # fresh and fresh2 splits this took the oracle's hits from 0.90-0.98 to 0.96-0.99
    # per split (fresh2: ru 0.81 -> 0.94, es 0.81 -> 0.94) and left recall as it was;
    # a careless model naming the nearest shown memory deletes more (bench/RESULTS.md).
    # A message about two things lies further from each ("closed the company ... oh and
    # the kia's gone too": 0.22 from the Kia): 0.20 / 0.05 -> 0.24 / 0.07 took the fresh4
    # split from 0.93 to 0.99 (en 0.75 -> 0.94), for about one memory more offered per
    # request, with the careless stand-in's wrong deletions 255 -> 259 over all splits.
    forget_candidates: float = 0.24
    forget_candidates_margin: float = 0.07
    # One sharing a telling word with the message is offered up to `correction_near`
    # and this far behind the nearest: "the physio's signed my knee off … can I add a
    # second PT session with Dan" lies 0.09 from "Has a PT session with Dan on Mondays."
    # and 0.17 from "Has a knee injury from football.". On every split scored before
    # it, 0.06 -> 0.10 took six more forget hits of 2,277, left what is shown as facts
    # as it was, and the careless stand-in deleted nothing more (bench/RESULTS.md).
    forget_candidates_word_margin: float = 0.10
    # Dedup, code alone (dedup.decide): nothing merges beyond `dedup_distance`; within
    # `dedup_same` a fact restates; the same words with one value changed replace the
    # stored fact within `dedup_value_close`; otherwise the value slots, a change word or
    # a swapped name decide. Shared thing words alone do not merge: on the tune split of
    # bench/memory_natural.jsonl, merging half of them within 0.06 (a third within 0.05)
    # took 0.71 of restatements but also one look-alike in thirty, and one in four on
    # the held-out split. A wrong merge deletes a true fact, a missed one keeps a
    # duplicate line.
    dedup_distance: float = Config.memory_dedup_distance
    dedup_same: float = 0.015  # 0.02 on query vectors alone; memory vectors lie a little closer
    dedup_value_close: float = 0.06
    # One fact's thing words all in the other's and one word more, the same values: a
    # restatement in other words ("Drives a 2018 Ford Focus." / "Has a Ford Focus from
    # 2018."). On every dedup pair of bench/memory_natural.jsonl's tune, held-out and
    # fresh splits this merged 13 more of 162 restatements within 0.08 (10 within 0.06,
    # none more beyond) and no different thing within the dedup distance.
    dedup_contained: float = 0.08
    # A new fact saying it changed where they live, their phone or their e-mail, or
    # naming a third of the stored fact's things, replaces the stored one up to here,
    # beyond `dedup_distance` ("Has moved to Cardiff." / "Lives in Bristol.", 0.17;
    # "Replaced the Focus with …" / "Drives a 2015 Ford Focus.", 0.13). On the splits of
    # bench/memory_natural.jsonl it looked at, it merged no different thing and no two of
    # one customer's memories within 0.18; a later blind split's one such pair shared only
    # the change word, which no longer counts (bench/RESULTS.md).
    dedup_changed: float = 0.18
    # For a message that reads as a correction (forget.reads_as_correction) the memories
    # the model may name are widened (tune split: forget hits 0.88 -> 0.98): the strict
    # bound reaches `forget_distance` within `correction_margin` of the nearest, a shared
    # word counts up to `correction_near` within `correction_margin` and when at most
    # `correction_word_share` of the candidates have it ("both parrots"), and the
    # customer's nearest memory is reached up to `forget_nearest`; what only these wider
    # bounds reach is offered apart, never shown as a fact (on every split scored before,
    # recall precision for the recall items that read so 0.58 -> 0.70, their recall 0.56
    # -> 0.49; forget exactly as before). The margin is a little
    # wider than the usual one because a correction often means several memories of one
    # thing ("Barsik died, delete everything about him": three memories, 0.12-0.17);
    # 0.05 -> 0.06 took Russian forget hits from 0.85 to 0.90 on the held-out split and
    # changed nothing on the tune split or in recall (bench/RESULTS.md).
    correction_near: float = 0.20
    correction_margin: float = 0.06
    correction_word_share: float = 0.5
    # The extraction call is shown the customer's facts within `known_distance` of what
    # they said; its `updates` proposal is accepted within `updates_distance` of the
    # entry (paraphrases and changed values of the natural set lie within 0.12 at p90,
    # bench/memory_natural.jsonl tune split; beyond 0.20 an entry is another thing).
    known_distance: float = 0.35
    updates_distance: float = 0.20
    cap: int = Config.memory_cap  # per space; the eviction rule is MemoryStore.evict_over's
    context_messages: int = 3  # customer messages shown to extraction
    max_attempts: int = 12
    lock_seconds: int = 120

    def recall_bounds(self, message: str, lang: str) -> dict:
        """The bounds `recall` uses for this message (wider when it reads as a correction)."""
        usual = Bounds(self.recall_distance, strict_margin=self.recall_margin, near=self.near_distance,
                       near_margin=self.near_margin, word_limit=self.near_limit, word_share=self.near_word_share,
                       nearest=self.standout_distance, nearest_gap=self.standout_gap)
        if forget.reads_as_correction(message, lang):
            usual = replace(usual, strict=max(self.recall_distance, self.forget_distance),
                            strict_margin=max(self.recall_margin, self.correction_margin),
                            near=self.correction_near, near_margin=self.correction_margin,
                            nearest=self.forget_nearest, nearest_gap=0.0, candidates=self.forget_candidates,
                            candidates_margin=self.forget_candidates_margin,
                            candidates_word_margin=self.forget_candidates_word_margin,
                            word_share=self.correction_word_share,
                            word_limit=MAX_SHOWN,
                            correcting=True, facts=usual)
        return dict(bounds=usual)

    def dedup_bands(self) -> Bands:
        return Bands(self.dedup_distance, same=self.dedup_same, value_close=self.dedup_value_close,
                     contained=self.dedup_contained, changed=self.dedup_changed)

    def forget_bounds(self) -> dict:
        """The bounds `forget.choose` applies to the refs a reply names."""
        # The customer's nearest memory (up to `forget_nearest`) lies within these too.
        return dict(threshold=self.forget_distance, candidates=max(self.forget_nearest, self.forget_candidates),
                    candidates_margin=self.forget_candidates_margin)


class ExtractionFailed(RtacError):
    retryable = True


class Memory:
    def __init__(self, engine: Engine, sites: SiteRegistry, keyring, chain: ProviderChain, embedder: Embedder,
                 settings: MemorySettings = MemorySettings(), timeout: float = 30.0, background: bool = False,
                 over_budget: Callable[[Connection, Site], bool] | None = None):
        self.engine, self.sites, self.keyring = engine, sites, keyring
        # A site over its daily spending cap gets no extraction call either: the job waits.
        self.over_budget = over_budget
        self.chain, self.embedder, self.settings, self.timeout = chain, embedder, settings, timeout
        self.background = background  # False: jobs wait for run_pending() (tests, CLI)
        self.indexes = IndexCache()
        self._worker = Worker("rtac-memory", self._background_pass, poll=10)
        self._earlier_left = True  # rows of the query recipe alone may remain (reembed.earlier_recipe)

    @property
    def rows_of(self) -> str:
        """The model name this embedder's memory rows carry (memory.embedding)."""
        return memory_embedding.model(self.embedder)

    # --- on the turn --------------------------------------------------------------

    def recall(self, conn: Connection, space: Space, message: str,
               embedding: QueryEmbedding | None = None, lang: str = "en") -> Recalled:
        """`embedding`: the turn's query embedding, made here only if the space has memories."""
        store = MemoryStore(conn, space)
        rows_of = self.rows_of
        index = self.indexes.get(space, rows_of, lambda: store.index(rows_of))
        if not index.ids:  # a first-time visitor costs no embedding at all
            return Recalled()
        if embedding is None or embedding.model != self.embedder.model:
            embedding = QueryEmbedding(self.embedder, message)
        query = embedding.get()
        if query is None:  # an embedder outage costs the memories, not the turn
            return Recalled()
        return recall_indexed(query, index, store.get, message=message, lang=lang,
                              **self.settings.recall_bounds(message, lang))

    def forget(self, store: MemoryStore, refs: list[str], recalled: Recalled) -> list[str]:
        return forget.apply(store, refs, recalled, **self.settings.forget_bounds())

    def enqueue(self, conn: Connection, space: Space, conversation_id: str, seq: int, lang: str) -> None:
        conn.execute(insert(t.memory_jobs).values(site_id=space.site_id, space_id=space.id,
                                                  conversation_id=conversation_id, turn_seq=seq, lang=lang,
                                                  next_attempt_at=utcnow()))

    def after_reply(self, conn: Connection, space: Space, reply: Reply, recalled: Recalled,
                    lang: str) -> tuple[Reply, list[str]]:
        """The memories the reply's `forget` names, deleted within forget.py's limits and read
        back by code at the end of the same reply, in the customer's language; returns the
        reply as it is stored and what was forgotten."""
        if not (reply.forget and recalled.refs):
            return reply, []
        forgotten = self.forget(MemoryStore(conn, space), reply.forget, recalled)
        if not forgotten:
            return reply, []
        return replace(reply, reply=f"{reply.reply}\n\n{forget.readback(lang, forgotten)}"), forgotten

    def after_store(self, conn: Connection, space: Space, conversation_id: str, seq: int, lang: str) -> None:
        """The stored turn queued for extraction in the turn's own transaction (when a model
        can extract); `notify()` after the commit starts it."""
        if self.extracts:
            self.enqueue(conn, space, conversation_id, seq, lang)

    # --- off the turn -------------------------------------------------------------

    def _claim(self, site_id: str | None) -> list[int]:
        now = utcnow()
        due_now = select(_J.id).where(_J.next_attempt_at <= now, _J.attempts < self.settings.max_attempts,
                                      or_(_J.locked_until.is_(None), _J.locked_until < now))
        if site_id is not None:
            due_now = due_now.where(_J.site_id == site_id)
        with self.engine.begin() as conn:
            due = conn.execute(due_now.order_by(_J.id).limit(20)).scalars().all()
        claimed = []
        for job_id in due:  # another worker may race us: the conditional update decides
            if claim(self.engine, update(t.memory_jobs).where(
                    _J.id == job_id, or_(_J.locked_until.is_(None), _J.locked_until < now))
                    .values(locked_until=now + timedelta(seconds=self.settings.lock_seconds))):
                claimed.append(job_id)
        return claimed

    def run_pending(self, site_id: str | None = None) -> int:
        """Process due jobs (of one site, when given); the count processed successfully."""
        done = 0
        for job_id in self._claim(site_id):
            try:
                self._process(job_id)
                done += 1
            except Exception as exc:  # any failure: retry later, the turn is stored regardless
                log.warning("memory extraction job %s failed: %s", job_id, exc)
                try:
                    retrying(self._retry_later)(job_id, exc)
                except DBAPIError as again:  # its claim expires and a later pass takes it: go on
                    if not is_conflict(again):
                        raise
                    log.warning("memory extraction job %s left to its claim's expiry: %s", job_id, again)
        return done

    def _background_pass(self) -> int:
        """The worker's step: due extraction jobs, then a few spaces of memories an earlier
        release embedded as queries alone (until none is left), so an upgrade recalls them
        again without `rtac reembed`."""
        done = self.run_pending()
        if self._earlier_left:
            try:
                moved = reembed.earlier_recipe(self.engine, self.keyring, self.sites, self.embedder)
            except Exception as exc:  # an embedder or database outage: try again at the next pass
                log.warning("re-embedding memories of the earlier recipe failed: %s", exc)
                return done
            self._earlier_left = moved is not None
            done += moved or 0
        return done

    def _retry_later(self, job_id: int, exc: Exception) -> None:
        with self.engine.begin() as conn:
            attempts = conn.execute(select(_J.attempts).where(_J.id == job_id)).scalar_one_or_none()
            if attempts is None:
                return
            wait = min(3600, 5 * 2 ** attempts)
            conn.execute(update(t.memory_jobs).where(_J.id == job_id).values(
                attempts=attempts + 1, locked_until=None, next_attempt_at=utcnow() + timedelta(seconds=wait),
                last_error=f"{type(exc).__name__}: {exc}"[:255]))

    def _process(self, job_id: int) -> None:
        with self.engine.connect() as conn:
            job = conn.execute(select(t.memory_jobs).where(_J.id == job_id)).first()
            if job is None:
                return
            site = self.sites.get(job.site_id)
            space = space_by_id(conn, self.keyring, site, job.space_id) if site else None
            if space is None:  # erased meanwhile: nothing to remember
                conn.execute(delete(t.memory_jobs).where(_J.id == job_id))
                conn.commit()
                return
            if self.over_budget is not None and self.over_budget(conn, site):
                raise ExtractionFailed(f"site {site.id} is over its daily spending cap")
            said = customer_messages(conn, space, job.conversation_id, job.turn_seq, self.settings.context_messages)
            known = self._known(MemoryStore(conn, space), said)
        primary_model = self.chain.links[0].model if self.chain.links else ""
        outcome = self.chain.chat(extract.request(said, job.lang, primary_model, self.timeout, f"rtac-{site.id}-memory",
                                                  known))
        if outcome.result.degraded:
            cause = next((a.error.message for a in reversed(outcome.attempts) if a.error), "no model configured")
            raise ExtractionFailed(f"no model answered the extraction: {cause}")
        entries = extract.grounded(extract.parse(outcome.result.text), "\n".join(said), job.lang)
        vectors = memory_embedding.vectors(self.embedder, [e.content for e in entries]) if entries else []
        with self.engine.begin() as conn:
            # One writer per space at a time: two jobs of one customer must not both
            # insert the same new fact.
            conn.execute(select(t.spaces.c.id).where(t.spaces.c.id == space.id).with_for_update())
            if entries:
                extract.write(MemoryStore(conn, space), entries, vectors,
                              embed_model=self.rows_of,
                              lang=job.lang, dedup=self.settings.dedup_bands(), cap=self.settings.cap,
                              conversation_id=job.conversation_id, turn_seq=job.turn_seq,
                              known=known, updates_distance=self.settings.updates_distance,
                              judge=merge_model.judge_for(self.rows_of))
            usage.record(conn, site.id, None, outcome.result.provider, outcome.result.model, outcome.result.usage,
                         purpose="memory")
            conn.execute(delete(t.memory_jobs).where(_J.id == job_id))

    def _known(self, store: MemoryStore, said: list[str]) -> dict:
        """The customer's facts nearest to what they said, as refs for the extraction call
        to name in `updates` (one embedding, off the visitor's clock; none on failure)."""
        rows_of = self.rows_of
        facts = [m for m in store.all(kind="fact") if m.embed_model == rows_of]
        if not facts or not said:
            return {}
        query = QueryEmbedding(self.embedder, "\n".join(said)).get()
        if query is None:
            return {}
        d = distances(query, [m.embedding for m in facts])
        order = [i for i in np.argsort(d) if d[i] <= self.settings.known_distance][: extract.KNOWN_SHOWN]
        return {ref(n + 1): facts[i] for n, i in enumerate(order)}

    # --- the background worker ----------------------------------------------------

    @property
    def extracts(self) -> bool:
        """Extraction needs a model: with only the offline provider nothing is derived."""
        return self.chain.primary.name != "offline"

    def notify(self) -> None:
        if self.background:
            self._worker.notify()

    def ensure_running(self) -> None:
        """Start the background worker now, not at the first extraction job (cheap when running)."""
        if self.background:
            self._worker.ensure_running()

    def stop(self) -> None:
        self._worker.stop()
