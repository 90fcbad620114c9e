"""Sidecar overhead per chat turn: the full signed POST /v1/chat through the Flask
app with a provider that answers instantly, so what is timed is the sidecar alone.

Three passes over one stream of conversations:
1. measured: nothing patched, one perf_counter pair around each request;
2. instrumented: sidecar functions wrapped with timers (per stage) and PyMySQL's
   round trips counted (per statement kind), for the breakdown;
3. profiled: cProfile over a few hundred turns, for the top functions.

Retrieval is hybrid (the configuration's default): the turn embeds the customer's
message once, and that embedding is reported apart (bench/embedding.py). Here the
Services' embedder is BenchEmbedder: for each message a deterministic random unit
vector (seeded by the message text), made before the clock starts, so the turn's
query-embedding step costs a dictionary lookup and the figures are the sidecar's
without the model. The site's chunk vectors are loaded by bench.db.load_corpus.
"""
from __future__ import annotations

import cProfile
import hashlib
import io
import json
import pstats
import random
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pymysql.connections

import sidecar.api
import sidecar.api.chat
import sidecar.fulltext
import sidecar.lexicon
import sidecar.retrieval
import sidecar.signing
import sidecar.sites
import sidecar.turn
import sidecar.unanswered
import sidecar.usage
import sidecar.vectors
from sidecar.app import create_app
from sidecar.config import Config
from sidecar.embedders.base import MAX_EMBED_CHARS, EmbeddingError, bound_text, empty, prepare
from sidecar.embedders.local import DIM, MODEL
from sidecar.providers.base import ChatRequest, ChatResult, Usage
from sidecar.retrieval import Retriever
from sidecar.services import Services
from sidecar.signing import sign_headers
from sidecar.sites import Site

from .corpus import VISITOR_MIX, Corpus
from .stats import Summary

# Conversation lengths: many one-question visitors, some short exchanges, long chats.
LENGTHS = [(1, 0.35), (2, 0.10), (3, 0.10), (4, 0.05), (10, 0.40)]
ACTIVE = 6               # conversations open at once; turns interleave between them
RETURNING = 0.2          # share of new conversations started by a visitor seen before
LOGGED_IN = 0.1          # visitors identified by their WordPress user id


class InstantProvider:
    """Answers at once with a valid rtac_reply in the visitor's language."""

    name = "instant"
    default_model = "instant"

    def __init__(self, corpus: Corpus, seed: int):
        rng = random.Random(f"replies-{seed}")
        self.replies: dict[str, list[str]] = {}
        for lang in VISITOR_MIX:
            pool = []
            for i in range(40):
                pool.append(json.dumps({
                    "reply": corpus.reply_text(rng, lang),
                    "quick_replies": [corpus.question(rng, lang)[:40] for _ in range(rng.randint(0, 3))],
                    "action": rng.choices(["none", "offer_booking", "offer_lead", "show_contact"],
                                          [0.8, 0.1, 0.05, 0.05])[0],
                    "unanswered": i % 20 == 0,  # 5 %: the unanswered-question log is written too
                    "forget": [],
                }, ensure_ascii=False))
            self.replies[lang] = pool
        self.calls = 0

    def chat(self, request: ChatRequest) -> ChatResult:
        lang = request.grounding.lang if request.grounding else "en"
        pool = self.replies.get(lang) or self.replies["en"]
        self.calls += 1
        return ChatResult(text=pool[self.calls % len(pool)], usage=Usage(100, 20, 0, 0),
                          provider="instant", model="instant")


def install_provider(services: Services, provider) -> None:
    """services.provider = provider, whichever shape Services has: a plain attribute,
    or (since the provider chain) a property over services.chain."""
    if not isinstance(getattr(type(services), "provider", None), property):
        services.provider = provider
        if not isinstance(getattr(type(services), "model", None), property):
            services.model = provider.default_model
        return
    from sidecar.providers.chain import ProviderChain
    old = services.chain
    services.chain = ProviderChain([(provider, provider.default_model)], old.policy, old.offline)
    assert services.provider is provider and services.model == provider.default_model


class BenchEmbedder:
    """The turn's embedder for the bench: the local model's name and dimension, and for
    each text a deterministic random unit vector (seeded by the text's SHA-256), made
    by `prepare` before the clock starts. A text not prepared is an error, so no vector
    is ever made on the clock."""

    name = "bench"
    model = MODEL
    dim = DIM

    def __init__(self, seed: int):
        self.seed = seed
        self._vectors: dict[str, np.ndarray] = {}
        self.calls = 0

    def prepare(self, message: str) -> None:
        text = bound_text(message)  # what sidecar.query_embedding embeds
        if text not in self._vectors:
            digest = hashlib.sha256(f"{self.seed}\x00{text}".encode()).digest()
            v = np.random.default_rng(int.from_bytes(digest[:8], "big")).standard_normal(self.dim)
            self._vectors[text] = (v / np.linalg.norm(v)).astype(np.float32)

    def embed(self, texts: Sequence[str], *, limit: int = MAX_EMBED_CHARS) -> np.ndarray:
        batch = prepare(self.name, texts, limit)
        if not batch:
            return empty(self.dim)
        self.calls += 1
        try:
            return np.vstack([self._vectors[t] for t in batch])
        except KeyError as e:
            raise EmbeddingError(self.name, f"no vector prepared for {str(e)[:60]}", retryable=False) from None


def install_embedder(services: Services, embedder) -> None:
    """The turn's embedder (and memory's, which would embed the same message), in place
    of the local model; retrieval by meaning must be on for the same model."""
    if services.retriever.model != embedder.model:
        raise RuntimeError(f"hybrid retrieval is not on for {embedder.model} (retriever model "
                           f"{services.retriever.model!r}; Config.retrieval {services.config.retrieval!r})")
    services.embedder = embedder
    if services.memory is not None and hasattr(services.memory, "embedder"):
        services.memory.embedder = embedder


@dataclass
class Conversation:
    visitor: str
    wp_user_id: int | None
    lang: str
    questions: list[str]
    new_visitor: bool
    conversation_id: str | None = None
    done: int = 0


@dataclass
class TurnRecord:
    seconds: float
    turn_no: int          # 1 = the conversation's first turn
    new_visitor: bool
    lang: str


class TurnStream:
    """An endless, seeded stream of (conversation, message) pairs."""

    def __init__(self, corpus: Corpus, seed: int):
        self.corpus = corpus
        self.rng = random.Random(f"turns-{seed}")
        self.visitors: list[tuple[str, int | None, str]] = []
        self.active: list[Conversation] = []
        self.n_visitors = 0
        self.conversations = 0

    def _new_conversation(self) -> Conversation:
        rng = self.rng
        if self.visitors and rng.random() < RETURNING:
            visitor, wp, lang = rng.choice(self.visitors)
            new_visitor = False
        else:
            self.n_visitors += 1
            visitor = f"bench-visitor-{self.n_visitors:06d}"
            wp = 1000 + self.n_visitors if rng.random() < LOGGED_IN else None
            lang = rng.choices(list(VISITOR_MIX), list(VISITOR_MIX.values()))[0]
            self.visitors.append((visitor, wp, lang))
            new_visitor = True
        length = rng.choices([n for n, _ in LENGTHS], [w for _, w in LENGTHS])[0]
        questions = [self.corpus.question(rng, lang, words_max=rng.choice((3, 4, 6, 8))) for _ in range(length)]
        self.conversations += 1
        return Conversation(visitor, wp, lang, questions, new_visitor)

    def next(self) -> Conversation:
        while len(self.active) < ACTIVE:
            self.active.append(self._new_conversation())
        return self.rng.choice(self.active)

    def finished(self, conv: Conversation) -> None:
        conv.done += 1
        if conv.done >= len(conv.questions):
            self.active.remove(conv)


class ChatBench:
    def __init__(self, database_url: str, master_key: bytes, site: Site, corpus: Corpus, seed: int,
                 pinned: list[dict]):
        self.config = Config(database_url=database_url, master_key=master_key, provider="offline")
        self.services = Services.build(self.config)
        install_provider(self.services, InstantProvider(corpus, seed))
        self.embedder = BenchEmbedder(seed)
        install_embedder(self.services, self.embedder)
        self.app = create_app(services=self.services)
        self.http = self.app.test_client()
        self.site = site
        self.pinned = pinned
        self.stream = TurnStream(corpus, seed)
        self.errors: list[str] = []

    def _payload(self, conv: Conversation) -> dict:
        body = {"visitor": {"id": conv.visitor}, "message": conv.questions[conv.done], "lang": conv.lang,
                "page": {"url": f"https://{self.site.id}.example/{conv.lang}/hinnakiri", "title": "Hinnakiri"},
                "lead_captured": False, "pinned": self.pinned}
        if conv.wp_user_id:
            body["visitor"]["wp_user_id"] = conv.wp_user_id
        if conv.conversation_id:
            body["conversation_id"] = conv.conversation_id
        return body

    def turn(self) -> TurnRecord:
        conv = self.stream.next()
        self.embedder.prepare(conv.questions[conv.done])  # the query embedding, off the clock
        body = json.dumps(self._payload(conv), ensure_ascii=False).encode()
        headers = sign_headers(self.site.id, self.site.secret, "POST", "/v1/chat", body)
        t0 = time.perf_counter()
        resp = self.http.open("/v1/chat", method="POST", data=body, headers=headers,
                              content_type="application/json")
        elapsed = time.perf_counter() - t0
        if resp.status_code != 200:
            self.errors.append(f"{resp.status_code}: {resp.get_data(as_text=True)[:200]}")
        else:
            data = resp.get_json()
            if conv.conversation_id and data["conversation_id"] != conv.conversation_id:
                self.errors.append("conversation was not continued")
            conv.conversation_id = data["conversation_id"]
        record = TurnRecord(elapsed, conv.done + 1, conv.new_visitor and conv.done == 0, conv.lang)
        self.stream.finished(conv)
        return record

    def run(self, n: int) -> tuple[list[TurnRecord], float, float]:
        """n turns; (records, wall seconds, this process's CPU seconds)."""
        records = []
        w0, c0 = time.perf_counter(), time.process_time()
        for _ in range(n):
            records.append(self.turn())
        return records, time.perf_counter() - w0, time.process_time() - c0

    # --- breakdown ------------------------------------------------------------------------
    def instrumented(self, n: int) -> "Breakdown":
        bd = Breakdown()
        bd.install(self.services)
        try:
            records, wall, _ = self.run(n)
        finally:
            bd.uninstall(self.services)
        bd.turns = n
        bd.request_total = sum(r.seconds for r in records)
        return bd

    def blas_comparison(self, n: int, block: int = 50) -> dict | None:
        """A diagnostic, not the sidecar as shipped: n more turns with OpenBLAS (numpy's
        matrix-vector product in the vector half) on its default thread count and n with
        it set to 1 thread through its own API, in alternating blocks of `block` turns (so
        load drift hits both alike); restored after. None when numpy's OpenBLAS cannot
        be reached or already runs one thread."""
        from .query import _openblas

        funcs = _openblas()
        if funcs is None or int(funcs[0]()) <= 1:
            return None
        get, put = funcs
        default = int(get())
        out = {t: {"seconds": [], "wall": 0.0, "cpu": 0.0} for t in (default, 1)}
        try:
            done = 0
            while done < n:
                size = min(block, n - done)
                for t in (default, 1):
                    put(t)
                    records, wall, cpu_s = self.run(size)
                    out[t]["seconds"] += [r.seconds for r in records]
                    out[t]["wall"] += wall
                    out[t]["cpu"] += cpu_s
                done += size
        finally:
            put(default)
        return {"default_threads": default, "turns": n, "block": block,
                "runs": {t: {"summary": Summary.of(v["seconds"]), "cpu_ms_per_turn": v["cpu"] * 1000 / n,
                             "wall_ms_per_turn": v["wall"] * 1000 / n} for t, v in out.items()}}

    def profiled(self, n: int, top: int = 25) -> tuple[str, str]:
        prof = cProfile.Profile()
        prof.enable()
        self.run(n)
        prof.disable()
        out = []
        for key in ("tottime", "cumulative"):
            buf = io.StringIO()
            st = pstats.Stats(prof, stream=buf)
            st.sort_stats(key).print_stats(top)
            out.append(_trim_pstats(buf.getvalue(), n))
        return out[0], out[1]


def _trim_pstats(text: str, n_turns: int) -> str:
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.strip().startswith("ncalls")), 0)
    head = [ln.strip() for ln in lines[:start] if "function calls" in ln]
    body = [re.sub(r"\S*/(site-packages|lib/python3\.\d+|work/main)/", "", ln) for ln in lines[start:] if ln.strip()]
    return "\n".join([f"{n_turns} turns; " + (head[0] if head else "")] + body)


# --- instrumentation -------------------------------------------------------------------------

RETRIEVE = "  retrieve (hybrid, all of it)"
LEXICAL = "    lexical half (FULLTEXT + BM25)"
VECTOR_PARTS = ("    vector half: query vector + cached matrix (Retriever._matrix)",
                "    vector half: exact cosine top 40 (SiteMatrix.nearest)")
FUSION_PARTS = ("    fusion: the lexical candidates' cosines (SiteMatrix.cosines)",
                "    fusion (Retriever.fuse)")
QUERY_EMBEDDING = "  query embedding (bench vectors, no model)"
SPACE = ("  the space (+ unwrap key) with the site's content_version and FULLTEXT table, and a continuing"
         " conversation's last turns (one SELECT)")

_STAGES = [
    # (module, attribute, label); the label's order is the report's order; two more
    # spaces of indent: inside the row above
    (sidecar.api, "verify", "signature check (HMAC, site, nonce)"),
    (sidecar.signing.NonceStore, "claim", "  nonce INSERT + COMMIT"),
    (sidecar.sites.SiteRegistry, "get", "  site lookup (cached 30 s)"),
    (sidecar.api.chat, "json_body", "JSON decode"),
    (sidecar.api.chat, "parse_chat", "validation (parse_chat)"),
    (sidecar.api.chat, "chat_turn", "chat_turn (all of it)"),
    ("sidecar.query_embedding.QueryEmbedding", "get", QUERY_EMBEDDING),
    (sidecar.turn, "resolve_space_with", SPACE),
    (sidecar.turn, "resume", "  resume: the conversation and its history (decrypt; a SELECT only for an id without turns)"),
    (Retriever, "retrieve", RETRIEVE),
    (Retriever, "lexical", LEXICAL),
    (Retriever, "_weights", "      query terms (searchtext.query_terms)"),
    (sidecar.lexicon.StatsCache, "get", "      site statistics (cached per content_version)"),
    (sidecar.lexicon, "document_frequencies", "      document frequencies (SELECT rtac_terms, terms not cached)"),
    (sidecar.lexicon, "bm25_scores", "      BM25 scoring (Python, the candidates)"),
    (Retriever, "_matrix", VECTOR_PARTS[0]),
    (sidecar.vectors.MatrixCache, "get", "      matrix cache lookup"),
    (sidecar.vectors.SiteMatrix, "nearest", VECTOR_PARTS[1]),
    (sidecar.vectors.SiteMatrix, "cosines", FUSION_PARTS[0]),
    (Retriever, "fuse", FUSION_PARTS[1]),
    (sidecar.retrieval, "_fetch", "    fetch the winners (SELECT by id)"),
    ("sidecar.memory.service.Memory", "recall", "  memory recall"),
    (sidecar.turn, "pack", "  budget pack"),
    (sidecar.turn, "build", "  prompt build"),
    (sidecar.turn, "_ask", "  provider (instant)"),
    ("sidecar.providers.chain.ProviderChain", "chat", "  provider (instant)"),
    (sidecar.turn, "parse_reply", "  parse_reply"),
    (sidecar.turn, "append_turn", "  append_turn (encrypt + INSERTs)"),
    (sidecar.usage, "record", "  usage.record"),
    (sidecar.unanswered, "record", "  unanswered.record"),
    ("sidecar.memory.service.Memory", "enqueue", "  memory: queue extraction job"),
    (sidecar.turn, "touch", "  touch space"),
    ("sidecar.memory.service.Memory", "notify", "  memory: notify worker"),
    (Services, "maybe_maintain", "  maybe_maintain"),
]
_TX = ["  read transaction: open (pool checkout, a ping when idle)", "  read transaction: COMMIT + check-in",
       "  write transaction: open (pool checkout, a ping when idle)", "  write transaction: COMMIT + check-in"]


def _statement_kind(sql) -> str:
    if isinstance(sql, bytes):
        sql = sql.decode("utf-8", "replace")
    head = sql.lstrip()[:12].upper()
    verb = head.split(" ", 1)[0] if head else "?"
    if "MATCH(" in sql:
        return "SELECT FULLTEXT ranking + search text"
    if "rtac_chunks.search_text" in sql:
        return "SELECT rtac_chunks search text (BM25, shared index)"
    if "FROM rtac_chunks" in sql and "JOIN rtac_documents" in sql:
        return "SELECT rtac_chunks + rtac_documents (fetch)"
    if "FROM rtac_sites" in sql and "UNION ALL" in sql:
        return "SELECT rtac_sites + rtac_spaces + rtac_turns"
    m = re.search(r"\b(?:FROM|INTO|UPDATE)\s+`?(\w+)", sql, re.IGNORECASE)
    return f"{verb} {m.group(1)}" if m else verb


@dataclass
class Breakdown:
    turns: int = 0
    request_total: float = 0.0
    stage_s: dict = field(default_factory=lambda: defaultdict(float))
    stage_n: dict = field(default_factory=lambda: defaultdict(int))
    db_s: dict = field(default_factory=lambda: defaultdict(float))
    db_n: dict = field(default_factory=lambda: defaultdict(int))
    _restore: list = field(default_factory=list)
    _tx_index: int = 0

    def _add(self, label: str, seconds: float) -> None:
        self.stage_s[label] += seconds
        self.stage_n[label] += 1

    def _wrap(self, owner, attr: str, label: str) -> None:
        if isinstance(owner, str):  # "module.Class": optional, it may not exist in this version
            module, _, cls = owner.rpartition(".")
            try:
                owner = getattr(__import__(module, fromlist=[cls]), cls)
            except (ImportError, AttributeError):
                return
        if isinstance(owner, type):
            if attr not in owner.__dict__:
                return
            orig = owner.__dict__[attr]
        elif hasattr(owner, attr):
            orig = getattr(owner, attr)
        else:  # renamed or gone in this version of the sidecar: leave it out
            return
        add, bd = self._add, self

        def timed(*args, **kwargs):
            if label == "chat_turn (all of it)":
                bd._tx_index = 0
            t = time.perf_counter()
            try:
                return orig(*args, **kwargs)
            finally:
                add(label, time.perf_counter() - t)

        setattr(owner, attr, timed)
        self._restore.append((owner, attr, orig))

    def _wrap_db(self, name: str) -> None:
        orig = getattr(pymysql.connections.Connection, name)
        db_s, db_n = self.db_s, self.db_n

        if name == "query":
            def timed(conn, sql, *args, **kwargs):
                kind = _statement_kind(sql)
                t = time.perf_counter()
                try:
                    return orig(conn, sql, *args, **kwargs)
                finally:
                    db_s[kind] += time.perf_counter() - t
                    db_n[kind] += 1
        else:
            label = {"ping": "ping (pool pre-ping)"}.get(name, name.upper())

            def timed(conn, *args, **kwargs):
                t = time.perf_counter()
                try:
                    return orig(conn, *args, **kwargs)
                finally:
                    db_s[label] += time.perf_counter() - t
                    db_n[label] += 1

        setattr(pymysql.connections.Connection, name, timed)
        self._restore.append((pymysql.connections.Connection, name, orig))

    def install(self, services: Services) -> None:
        for owner, attr, label in _STAGES:
            self._wrap(owner, attr, label)
        for name in ("query", "commit", "rollback", "ping"):
            self._wrap_db(name)
        self._engine = services.engine
        services.engine = _EngineProxy(services.engine, self)

    def uninstall(self, services: Services) -> None:
        for owner, attr, orig in reversed(self._restore):
            setattr(owner, attr, orig)
        self._restore.clear()
        services.engine = self._engine

    @property
    def labels(self) -> set[str]:
        return set(self.stage_n)

    def per_turn_ms(self, label: str) -> float:
        return self.stage_s.get(label, 0.0) * 1000.0 / self.turns

    def stage_rows(self) -> list[tuple[str, float, float]]:
        """(label, ms per turn, calls per turn), in the order a turn runs."""
        order = list(dict.fromkeys(label for _, _, label in _STAGES))
        idx = order.index(SPACE)
        order[idx:idx] = [_TX[0]]
        idx = order.index("  budget pack")
        order[idx:idx] = [_TX[1]]
        idx = order.index("  append_turn (encrypt + INSERTs)")
        order[idx:idx] = [_TX[2]]
        idx = order.index("  maybe_maintain")
        order[idx:idx] = [_TX[3]]
        rows = [(label, self.per_turn_ms(label), self.stage_n.get(label, 0) / self.turns) for label in order
                if label in self.stage_n or label.strip().startswith(("read transaction", "write transaction"))]
        inside = sum(ms for label, ms, _ in rows if depth(label) == 1 and _inside_chat_turn(label))
        rows = _with_rests(rows)
        rows.append(("  rest of chat_turn (unwrapped code)", self.per_turn_ms("chat_turn (all of it)") - inside, 0.0))
        return rows

    def db_rows(self) -> list[tuple[str, float, float, float]]:
        """(statement kind, round trips per turn, mean ms, ms per turn), most time first."""
        rows = [(k, self.db_n[k] / self.turns, self.db_s[k] * 1000.0 / self.db_n[k], self.db_s[k] * 1000.0 / self.turns)
                for k in self.db_n]
        return sorted(rows, key=lambda r: -r[3])


def depth(label: str) -> int:
    """0 for a top-level stage, 1 inside the row above it, 2 inside that, ..."""
    return (len(label) - len(label.lstrip(" "))) // 2


def leaves(rows: list[tuple[str, float, float]]) -> dict[str, float]:
    """Stages with nothing timed inside them (the report's "largest stages"): ms per turn."""
    out = {}
    for i, (label, ms, _) in enumerate(rows):
        nxt = rows[i + 1][0] if i + 1 < len(rows) else ""
        if not (nxt and depth(nxt) > depth(label)):
            out[label.strip()] = ms
    return out


def _with_rests(rows: list[tuple[str, float, float]]) -> list[tuple[str, float, float]]:
    """After the last row inside a stage of chat_turn that has timed stages inside it
    (retrieve, its halves), a row for the rest of that stage: its SQL and code that no
    timer wraps (the FULLTEXT statement and the candidates' text for the lexical half)."""
    out = list(rows)
    for i in range(len(rows) - 1, -1, -1):
        label, ms, _ = rows[i]
        d = depth(label)
        if d < 1 or i + 1 >= len(rows) or depth(rows[i + 1][0]) <= d:
            continue
        j, children = i + 1, 0.0
        while j < len(rows) and depth(rows[j][0]) > d:
            if depth(rows[j][0]) == d + 1:
                children += rows[j][1]
            j += 1
        name = label.strip().split(" (")[0]
        out.insert(out.index(rows[j - 1]) + 1 if j - 1 >= 0 else i + 1,
                   ("  " * (d + 1) + f"rest of {name} (SQL and code not wrapped)", ms - children, 0.0))
    return out


def _inside_chat_turn(label: str) -> bool:
    return label.strip() not in ("nonce INSERT + COMMIT", "site lookup (cached 30 s)")


class _EngineProxy:
    """services.engine for chat_turn: times opening and committing its two transactions."""

    def __init__(self, engine, bd: Breakdown):
        self._engine, self._bd = engine, bd

    def __getattr__(self, name):
        return getattr(self._engine, name)

    def begin(self):
        return _TimedBegin(self._engine.begin(), self._bd)


class _TimedBegin:
    def __init__(self, cm, bd: Breakdown):
        self._cm, self._bd = cm, bd
        self._which = 0 if bd._tx_index == 0 else 2
        bd._tx_index += 1

    def __enter__(self):
        t = time.perf_counter()
        conn = self._cm.__enter__()
        self._bd._add(_TX[self._which], time.perf_counter() - t)
        return conn

    def __exit__(self, *exc):
        t = time.perf_counter()
        try:
            return self._cm.__exit__(*exc)
        finally:
            self._bd._add(_TX[self._which + 1], time.perf_counter() - t)


def summarize(records: list[TurnRecord]) -> dict[str, Summary]:
    groups = {"all turns": [r.seconds for r in records],
              "first turn of a new visitor": [r.seconds for r in records if r.new_visitor],
              "first turn, returning visitor": [r.seconds for r in records if r.turn_no == 1 and not r.new_visitor],
              "continuing turns (2-10)": [r.seconds for r in records if r.turn_no > 1]}
    return {k: Summary.of(v) for k, v in groups.items() if v}
