"""The owner's conversation log: listing 50 conversations at 10,000 stored ones.

    python -m bench.conversations [--quick]     # prints the `## Conversation log` section

A fresh database of the bench's MariaDB holds one site's 10,000 conversations
within retention (1-10 turns each, 5 visitor languages, the four flags at realistic
rates), 1,000 more past retention that maintenance has not purged yet, and a second
site's 2,000 in the same tables. Conversations and turns are written in bulk, rows
as `sidecar.conversations.append_turn` writes them (content sealed with the
customer's space key by `seal_content`, the conversation's summary columns filled).
Each request is a signed `GET` through the Flask app's test client (signature made
before the clock starts; the nonce check, the query, and JSON are timed):
the first page, a deep page (the 100th, reached by following `next`), the last
page, language and flag filters, one conversation's turns opened, and `/v1/stats`.
"""
from __future__ import annotations

import random
import time
from datetime import timedelta

from sqlalchemy import insert, text

from sidecar import tables as t
from sidecar.app import create_app
from sidecar.config import Config
from sidecar.crypto import Keyring
from sidecar.clock import utcnow
from sidecar.conversations import language_grounding, list_conversations, new_conversation_id, seal_content
from sidecar.db import create_engine
from sidecar.services import Services
from sidecar.signing import sign_headers
from sidecar.sites import add_site
from sidecar.spaces import resolve_space

from .corpus import DEFAULT_LANG, SEED, VISITOR_MIX, Corpus
from .stats import Summary, loadavg

HEADING = "## Conversation log"
CONVERSATIONS = 10_000
QUICK_CONVERSATIONS = 1_000
EXPIRED_SHARE = 0.10          # conversations past retention, not purged yet
OTHER_SITE_SHARE = 0.20       # a second site's conversations in the same tables
VISITORS_PER_CONVERSATION = 0.4
LENGTHS = [(1, 0.35), (2, 0.10), (3, 0.10), (4, 0.05), (10, 0.40)]  # as bench.chat's stream
UNANSWERED, DEGRADED, LEAD, FORGOT = 0.06, 0.02, 0.10, 0.01       # per turn; lead and forgot per conversation
RUNS, QUICK_RUNS, WARMUP = 300, 40, 20
RETENTION_DAYS = 30
BATCH = 2000
TARGET_P50_MS = 50.0


def _pick(rng: random.Random, weighted) -> object:
    items = list(weighted.items()) if isinstance(weighted, dict) else weighted
    return rng.choices([k for k, _ in items], [w for _, w in items])[0]


def _load(engine, keyring, site, n: int, corpus: Corpus, rng: random.Random, *, expired: bool = False) -> dict:
    """n conversations of `site`, in bulk; their ids by language and a long one."""
    now = utcnow().replace(microsecond=0)
    visitors = max(1, int(n * VISITORS_PER_CONVERSATION))
    with engine.begin() as conn:
        spaces = [resolve_space(conn, keyring, site, f"v:bench-{site.id}-{expired}-{i}") for i in range(visitors)]
    replies = {lang: [corpus.reply_text(rng, lang) for _ in range(30)] for lang in VISITOR_MIX}
    questions = {lang: [corpus.question(rng, lang) for _ in range(60)] for lang in VISITOR_MIX}
    convs, turns, long_ones = [], [], []
    span = 24 * 3600 * (RETENTION_DAYS - 1)
    for _ in range(n):
        space = rng.choice(spaces)
        cid, lang, length = new_conversation_id(), _pick(rng, VISITOR_MIX), _pick(rng, LENGTHS)
        if expired:
            started = now - timedelta(days=RETENTION_DAYS + 1, seconds=rng.randrange(span))
        else:
            started = now - timedelta(seconds=rng.randrange(span))
        lead, forgot = rng.random() < LEAD, rng.random() < FORGOT
        flags = {"unanswered": False, "degraded": False}
        at = started
        for seq in range(1, length + 1):
            unanswered, degraded = rng.random() < UNANSWERED, rng.random() < DEGRADED
            flags["unanswered"] |= unanswered
            flags["degraded"] |= degraded
            content = {"message": rng.choice(questions[lang]), "reply": rng.choice(replies[lang]),
                       "sources": [{"title": corpus.title(rng, lang), "url": f"https://bench.example/{lang}/{seq}"}]}
            turns.append(dict(site_id=site.id, space_id=space.id, conversation_id=cid, seq=seq, lang=lang,
                              content_enc=seal_content(space, cid, seq, content), action="none",
                              unanswered=unanswered, degraded=degraded, provider="bench", model="bench",
                              created_at=at, lead_captured=lead and seq == length, forgot=forgot and seq == length,
                              grounding=_pick(rng, [("own", 0.6), ("other", 0.3), ("none", 0.1)])))
            at += timedelta(seconds=rng.randrange(20, 120))
        convs.append(dict(id=cid, site_id=site.id, space_id=space.id, created_at=started,
                          updated_at=at - timedelta(seconds=1), lang=lang, turn_count=length, last_seq=length,
                          lead_captured=lead, forgot=forgot, **flags))
        if length == 10:
            long_ones.append(cid)
    with engine.begin() as conn:
        for i in range(0, len(convs), BATCH):
            conn.execute(insert(t.conversations), convs[i:i + BATCH])
        for i in range(0, len(turns), BATCH):
            conn.execute(insert(t.turns), turns[i:i + BATCH])
    return {"conversations": len(convs), "turns": len(turns), "visitors": visitors, "long": long_ones}


class _Client:
    def __init__(self, services: Services, site):
        self.http = create_app(services=services).test_client()
        self.site = site

    def get(self, path: str) -> tuple[float, dict]:
        headers = sign_headers(self.site.id, self.site.secret, "GET", path.split("?")[0], b"")
        t0 = time.perf_counter()
        resp = self.http.get(path, headers=headers)
        elapsed = time.perf_counter() - t0
        if resp.status_code != 200:
            raise RuntimeError(f"GET {path}: {resp.status_code} {resp.get_data(as_text=True)[:200]}")
        return elapsed, resp.get_json()


def _cursor_at(client: _Client, pages: int) -> tuple[str, int]:
    """The cursor that opens page `pages + 1` (or the last page), and how many pages precede it."""
    cursor, walked = "", 0
    while True:
        _, body = client.get("/v1/conversations?limit=50" + (f"&before={cursor}" if cursor else ""))
        if body["next"] is None or walked == pages:
            return cursor, walked
        cursor, walked = body["next"], walked + 1


def _measure(client: _Client, path: str, runs: int) -> dict:
    for _ in range(WARMUP):
        client.get(path)
    times, body = [], None
    for _ in range(runs):
        elapsed, body = client.get(path)
        times.append(elapsed)
    s = Summary.of(times)
    listed = body.get("items", body.get("turns"))
    return {"path": path, "p50": s.p50, "p90": s.p90, "p99": s.p99, "mean": s.mean,
            "items": len(listed) if isinstance(listed, list) else None}


def _reads(engine, site_id: str, **kw) -> dict:
    """What the server reads for one page (`list_conversations` as the route calls it):
    index entries walked and rows looked up, from the session's handler counters."""
    with engine.connect() as conn:
        conn.execute(text("FLUSH STATUS"))
        list_conversations(conn, site_id, RETENTION_DAYS, limit=50, **kw)
        status = dict(conn.execute(text("SHOW SESSION STATUS LIKE 'Handler_read%'")).all())
    return {"walked": int(status["Handler_read_prev"]) + int(status["Handler_read_next"]),
            "lookups": int(status["Handler_read_key"])}


def run(mdb, master_key: bytes, quick: bool = False, conversations: int | None = None,
        runs: int | None = None) -> dict:
    """mdb: the bench's LocalMariaDB (a database of its own is created in it)."""
    from sidecar.api.conversations import decode_cursor

    keyring = Keyring(master_key)
    n = conversations or (QUICK_CONVERSATIONS if quick else CONVERSATIONS)
    runs = runs or (QUICK_RUNS if quick else RUNS)
    url = mdb.create_database("rtac_bench_conversations")
    engine = create_engine(url)
    rng = random.Random(f"conversations-{SEED}")
    corpus = Corpus(SEED)
    try:
        site = add_site(engine, keyring, "bench-log", default_lang=DEFAULT_LANG)
        other = add_site(engine, keyring, "bench-log-other", default_lang=DEFAULT_LANG)
        t0 = time.perf_counter()
        loaded = _load(engine, keyring, site, n, corpus, rng)
        expired = _load(engine, keyring, site, int(n * EXPIRED_SHARE), corpus, rng, expired=True)
        shared = _load(engine, keyring, other, int(n * OTHER_SITE_SHARE), corpus, rng)
        with engine.begin() as conn:
            for table in ("rtac_conversations", "rtac_turns"):
                conn.execute(text(f"ANALYZE TABLE {table}"))
        load_s = time.perf_counter() - t0

        config = Config(database_url=url, master_key=master_key, provider="offline",
                        retrieval="fulltext", memory=False, retention_days=RETENTION_DAYS)
        services = Services.build(config, engine=engine)
        client = _Client(services, site)
        deep_cursor, deep_pages = _cursor_at(client, 99)
        last_cursor, last_pages = _cursor_at(client, 10 ** 6)
        cases = [
            ("first page", "/v1/conversations?limit=50"),
            (f"deep page (page {deep_pages + 1})", f"/v1/conversations?limit=50&before={deep_cursor}"),
            (f"last page (page {last_pages + 1})", f"/v1/conversations?limit=50&before={last_cursor}"),
            ("first page, lang=ko (5% of conversations)", "/v1/conversations?limit=50&lang=ko"),
            ("first page, flag=forgot (1%)", "/v1/conversations?limit=50&flag=forgot"),
            ("deep page, flag=unanswered", "/v1/conversations?limit=50&flag=unanswered&before=" + deep_cursor),
            ("one conversation's 10 turns opened", f"/v1/conversations/{loaded['long'][0]}"),
            ("/v1/stats (with languages)", "/v1/stats"),
        ]
        load_before = loadavg()
        results = [{"case": label, **_measure(client, path, runs)} for label, path in cases]
        load_after = loadavg()
        with engine.connect() as conn:
            w0 = time.perf_counter()
            for _ in range(runs):
                language_grounding(conn, site.id, RETENTION_DAYS)
            languages_ms = (time.perf_counter() - w0) * 1000 / runs
        deep = decode_cursor(deep_cursor)
        reads = {"first page": _reads(engine, site.id),
                 f"deep page (page {deep_pages + 1})": _reads(engine, site.id, before=deep),
                 "first page, lang=ko": _reads(engine, site.id, lang="ko"),
                 "first page, flag=forgot": _reads(engine, site.id, flags=["forgot"]),
                 "deep page, flag=unanswered": _reads(engine, site.id, before=deep, flags=["unanswered"])}
    finally:
        engine.dispose()
    return {"conversations": loaded["conversations"], "turns": loaded["turns"], "visitors": loaded["visitors"],
            "expired": expired["conversations"], "shared": shared["conversations"], "shared_turns": shared["turns"],
            "load_s": load_s, "runs": runs, "warmup": WARMUP, "results": results, "reads": reads,
            "languages_ms": languages_ms, "load_before": load_before, "load_after": load_after}


def _listings(r: dict) -> tuple[dict, dict, float]:
    first = next(x for x in r["results"] if x["case"] == "first page")
    deep = next(x for x in r["results"] if x["case"].startswith("deep page (page"))
    worst = max(x["p50"] for x in r["results"] if x["path"].startswith("/v1/conversations?"))
    return first, deep, worst


def target_row(r: dict) -> str:
    """The row of bench/RESULTS.md's *Targets* table (judged at 10,000 conversations only)."""
    first, deep, worst = _listings(r)
    judged = r["conversations"] == CONVERSATIONS
    verdict = ("**met**" if worst <= TARGET_P50_MS else "**not met**") if judged else \
        f"not judged (not {CONVERSATIONS:,} conversations)"
    return (f"| owner's conversation log: 50 conversations p50 ≤ {TARGET_P50_MS:.0f} ms ({CONVERSATIONS // 1000}k "
            f"conversations) | first page {first['p50']:.2f} ms, deep page {deep['p50']:.2f} ms, slowest listing "
            f"{worst:.2f} ms ({r['conversations']:,} conversations) | {verdict} |")


def markdown(r: dict) -> str:
    L = [HEADING, ""]
    w = L.append
    w(f"The owner's log (`GET /v1/conversations`) over {r['conversations']:,} conversations of one site within "
      f"retention ({r['turns']:,} turns of {r['visitors']:,} visitors, sealed as the sidecar seals them), "
      f"{r['expired']:,} more past retention not yet purged, and another site's {r['shared']:,} conversations "
      f"({r['shared_turns']:,} turns) in the same tables; loaded in bulk in {r['load_s']:.0f} s. Each request is "
      "a signed GET through the Flask test client, the signature made before the clock starts: what is timed is "
      f"the sidecar (signature and nonce check, the query, JSON). {r['runs']} runs after {r['warmup']} warm-up "
      "runs per case, one request at a time.")
    w("")
    w("| request | items | p50 | p90 | p99 |")
    w("|---|---:|---:|---:|---:|")
    for x in r["results"]:
        items = "" if x["items"] is None else x["items"]
        w(f"| {x['case']} | {items} | {x['p50']:.2f} ms | {x['p90']:.2f} ms | {x['p99']:.2f} ms |")
    w("")
    first, deep, worst = _listings(r)
    verdict = ("met" if worst <= TARGET_P50_MS else "not met") if r["conversations"] == CONVERSATIONS \
        else f"not judged at {r['conversations']:,}"
    w(f"Target: listing 50 conversations p50 ≤ {TARGET_P50_MS:.0f} ms at {CONVERSATIONS:,} — **{verdict}** "
      f"(first page {first['p50']:.2f} ms, deep page {deep['p50']:.2f} ms; the slowest listing {worst:.2f} ms). "
      "The log reads only `rtac_conversations`: every page is one index range, newest start first, cut at the "
      "cursor's position, and no turn is opened or scanned. The per-language grounding counts of `/v1/stats` "
      f"(`language_grounding`, a group-by over the site's turns within retention, read from its covering index) "
      f"take {r['languages_ms']:.2f} ms a call (mean of {r['runs']}).")
    w("")
    w("What the server reads for a page (handler counters of one `list_conversations` call): the log index's "
      "entries walked to choose the page's ids, and the lookups (the range's start, then each row read).")
    w("")
    w("| page | index entries walked | lookups |")
    w("|---|---:|---:|")
    for label, x in r["reads"].items():
        w(f"| {label} | {x['walked']:,} | {x['lookups']} |")
    w("")
    w(f"Load average {r['load_before']} before, {r['load_after']} after.")
    w("")
    return "\n".join(L)


if __name__ == "__main__":
    from .cli import on_local_mariadb

    on_local_mariadb("python -m bench.conversations", b"rtac-bench-conversations",
                     lambda mdb, key, quick: markdown(run(mdb, key, quick=quick)))
