"""Indexing throughput: how fast a site's chunks become searchable by meaning.

    python -m bench.indexing [--quick]     # prints the `## Indexing throughput` section

`PUT /v1/documents` commits the text (FULLTEXT serves it at once) and queues one
embedding job per chunk; a worker (`sidecar.embedding_queue.EmbeddingQueue`) embeds
them off every visitor's clock. Here: realistic pages (the real paragraphs of XQuAD's
English articles when /work/shared/data/xquad/xquad.en.json is present, else the
bench's synthetic chunks) are written by the sidecar's own `documents.upsert` into a
fresh database, then `EmbeddingQueue(engine, LocalEmbedder(lane="index")).drain(site)`
is timed with the index lane's engine on ONE OpenMP thread. Wall time, and this
process's CPU time (the embedder's worker thread included).
"""
from __future__ import annotations

import json
import os
import random
import statistics
import time
from pathlib import Path

from sqlalchemy import func, select

from sidecar import documents
from sidecar import tables as t
from sidecar.db import create_engine
from sidecar.documents import DocumentInput
from sidecar.embedders import local as local_engine
from sidecar.embedders.base import bound_text
from sidecar.embedders.local import LocalEmbedder
from sidecar.embedding_queue import BATCH, PASSAGE_CHARS, EmbeddingQueue, passage, pending
from sidecar.sites import add_site

from .corpus import DEFAULT_LANG, SEED, Corpus
from .stats import loadavg

XQUAD_EN = Path(os.environ.get("RTAC_XQUAD_EN", "/work/shared/data/xquad/xquad.en.json"))
PAGES = 240          # every paragraph of XQuAD's 48 English articles
QUICK_PAGES = 16
HEADING = "## Indexing throughput"


def _xquad_pages(limit: int) -> list[DocumentInput]:
    data = json.loads(XQUAD_EN.read_text(encoding="utf-8"))["data"]
    pages = []
    for a, article in enumerate(data):
        title = article["title"].replace("_", " ")
        for p, para in enumerate(article["paragraphs"]):
            pages.append(DocumentInput("page", f"xquad-{a}-{p}", "en", title,
                                       f"https://bench.example/en/{a}/{p}", para["context"]))
    return pages[:limit]


def _synthetic_pages(limit: int) -> list[DocumentInput]:
    corpus = Corpus(SEED)
    rng = random.Random(f"indexing-{SEED}")
    pool: list[str] = []
    return [DocumentInput("page", f"synthetic-{i}", DEFAULT_LANG, corpus.title(rng, DEFAULT_LANG),
                          f"https://bench.example/{DEFAULT_LANG}/{i}", corpus.chunk(rng, DEFAULT_LANG, pool))
            for i in range(limit)]


def run(mdb, keyring, quick: bool = False, pages: int | None = None) -> dict:
    """mdb: the bench's LocalMariaDB (a database of its own is created in it)."""
    limit = pages or (QUICK_PAGES if quick else PAGES)
    if XQUAD_EN.exists():
        docs = _xquad_pages(limit)
        source = (f"the first {len(docs)} real paragraphs of XQuAD's English articles (`{XQUAD_EN.name}`, "
                  "one page each, the article's title as the page's)")
        source_short = f"{len(docs)} XQuAD English paragraphs"
    else:
        docs = _synthetic_pages(limit)
        source = (f"{len(docs)} synthetic {DEFAULT_LANG} chunks of the bench's corpus (XQuAD not found at "
                  f"{XQUAD_EN})")
        source_short = f"{len(docs)} synthetic chunks"
    engine = create_engine(mdb.create_database("rtac_bench_indexing"))
    try:
        site = add_site(engine, keyring, "bench-indexing", default_lang="en")
        with engine.begin() as conn:
            written = documents.upsert(conn, site.id, docs)
        embedder = LocalEmbedder(lane="index")
        local_engine.set_threads(1, lane="index")
        embedder.embed(["warm-up"])  # the model loaded and the lane's worker started before the clock
        queue = EmbeddingQueue(engine, embedder)
        with engine.connect() as conn:
            rows = conn.execute(select(t.chunks.c.content, t.documents.c.title)
                                .join(t.documents, t.documents.c.id == t.chunks.c.document_id)
                                .where(t.chunks.c.site_id == site.id)).all()
            queued = conn.execute(select(func.count()).select_from(t.chunk_jobs)
                                  .where(t.chunk_jobs.c.site_id == site.id)).scalar_one()
        texts = [bound_text(passage(r.title, r.content), PASSAGE_CHARS) for r in rows]
        load_before = loadavg()
        w0, c0 = time.perf_counter(), time.process_time()
        done = queue.drain(site.id)
        cpu_s, wall_s = time.process_time() - c0, time.perf_counter() - w0
        load_after = loadavg()
        with engine.connect() as conn:
            left = pending(conn, site.id, embedder.model)
        tokens = [local_engine.run(lambda model, x=x: model.token_count(x, True), lane="index") for x in texts]
    finally:
        engine.dispose()
    if done != written["chunks"] or left:
        raise RuntimeError(f"drain embedded {done} of {written['chunks']} chunks ({left} left without a vector)")
    chars = [len(x) for x in texts]
    return {
        "source": source, "source_short": source_short, "pages": len(docs), "chunks": done, "queued": queued,
        "mean_chars": statistics.mean(chars), "max_chars": max(chars), "mean_tokens": statistics.mean(tokens),
        "max_tokens": max(tokens), "tokens": sum(tokens), "wall_s": wall_s, "cpu_s": cpu_s,
        "chunks_per_s": done / wall_s, "ms_per_chunk": wall_s * 1000 / done, "cpu_ms_per_chunk": cpu_s * 1000 / done,
        "ms_per_token": wall_s * 1000 / sum(tokens), "batch": BATCH, "passage_chars": PASSAGE_CHARS,
        "model": embedder.model, "load_before": load_before, "load_after": load_after,
    }


def _span(seconds: float) -> str:
    """'40 seconds', '4 minutes', '1.5 hours': the unit that reads best."""
    if seconds < 90:
        return f"{seconds:.0f} seconds"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds / 3600:.1f} hours"


def markdown(r: dict) -> str:
    L = [HEADING, ""]
    w = L.append
    w("How fast a site's chunks become searchable by meaning: `PUT /v1/documents` commits the text (FULLTEXT "
      "serves it at once) and queues one embedding job per chunk, which a worker embeds off every visitor's "
      f"clock. Here {r['source']} were written by `sidecar.documents.upsert` into a fresh database "
      f"({r['chunks']} chunks, {r['queued']} jobs queued), then `EmbeddingQueue(engine, "
      "LocalEmbedder(lane=\"index\")).drain(site)` was timed (batches of "
      f"{r['batch']}, each passage the title and the chunk bounded at {r['passage_chars']:,} characters) with "
      "the index lane's engine on **one** OpenMP thread (`set_threads(1, lane=\"index\")`), the model loaded "
      f"before the clock. Model `{r['model']}`.")
    w("")
    w("| chunks | mean / max characters | mean / max tokens | wall s | chunks / s | ms / chunk | CPU ms / chunk "
      "| wall ms / token |")
    w("|---:|---:|---:|---:|---:|---:|---:|---:|")
    w(f"| {r['chunks']} | {r['mean_chars']:.0f} / {r['max_chars']} | {r['mean_tokens']:.0f} / {r['max_tokens']} | "
      f"{r['wall_s']:.1f} | **{r['chunks_per_s']:.2f}** | {r['ms_per_chunk']:,.0f} | {r['cpu_ms_per_chunk']:,.0f} "
      f"| {r['ms_per_token']:.2f} |")
    w("")
    per_hour = r["chunks_per_s"] * 3600
    w(f"At this rate one worker thread embeds ~{per_hour:,.0f} chunks an hour: a 1,000-chunk site is covered by "
      f"meaning in {_span(1000 / r['chunks_per_s'])}, a 10,000-chunk site in "
      f"{_span(10_000 / r['chunks_per_s'])}, 100,000 chunks in {_span(100_000 / r['chunks_per_s'])} "
      "(the worker takes one of the host's cores meanwhile; the chunks stay findable by FULLTEXT). "
      "The time includes the queue's own work (claiming jobs, reading the chunks, writing the int8 vectors, "
      "bumping `content_version`) besides the model. "
      f"Load average {r['load_before']} before, {r['load_after']} after.")
    w("")
    return "\n".join(L)


if __name__ == "__main__":
    from sidecar.crypto import Keyring

    from .cli import on_local_mariadb

    on_local_mariadb("python -m bench.indexing", b"rtac-bench-indexing",
                     lambda mdb, key, quick: markdown(run(mdb, Keyring(key), quick=quick)))
