"""Retrieval by meaning on real MariaDB with the bundled embedder: chunk embeddings
queued and filled in off the request, fused with the BM25-rescored FULLTEXT half,
across languages, conversation-aware, per site."""
import json

import numpy as np
import pytest
from sqlalchemy import func, select, text

from sidecar import documents, lexicon, tables
from sidecar.documents import DocumentInput
from sidecar.embedders.base import EmbeddingError
from sidecar.embedding_queue import EmbeddingQueue, pending, reembed_chunks
from sidecar.retrieval import Query, RetrievalSettings, Retriever, search
from sidecar.searchtext import VERSION as SEARCH_VERSION
from sidecar.sites import add_site
from tests.conftest import chat_payload

ET_PAGES = [
    ("talv", "Talvehoiustus", "Hoiame teie jalgratast talvel novembrist märtsini soojas ja kuivas laos. "
                              "Enne hoiule võtmist puhastame ja määrime keti. Hoiustus maksab 60 eurot."),
    ("garantii", "Garantii", "Kõigile meie remonttöödele kehtib kuuekuuline garantii. Garantii ei kata "
                             "kukkumisest tekkinud kahjusid."),
    ("rent", "Jalgrattarent", "Linnaratta rent maksab 15 eurot päevas, elektriratas 35 eurot päevas. "
                              "Rendiks on vaja isikut tõendavat dokumenti."),
    ("kohvik", "Kohvik", "Meie töökoja kohvikus pakume kohvi, teed ja kooke. Kohvik on avatud samal ajal "
                         "kui töökoda."),
]


def page(source_id, lang, title, content):
    return DocumentInput(source="page", source_id=source_id, lang=lang, title=title,
                         url=f"https://example.test/{lang}/{source_id}", content=f"<p>{content}</p>")


def put(engine, site_id, docs):
    with engine.begin() as conn:
        return documents.upsert(conn, site_id, docs)


@pytest.fixture
def et_site(engine, keyring):
    import secrets
    return add_site(engine, keyring, "h-" + secrets.token_hex(6), default_lang="et")


@pytest.fixture
def indexed(engine, services, et_site):
    put(engine, et_site.id, [page(sid, "et", title, body) for sid, title, body in ET_PAGES])
    assert services.indexing.drain(et_site.id) == len(ET_PAGES)
    return et_site


def sources(response):
    return [s["title"] for s in response.get_json()["sources"]]


def test_upsert_queues_embeddings_and_never_waits_for_them(engine, services, et_site, make_client):
    client = make_client(services, et_site)
    r = client.put("/v1/documents", {"documents": [
        {"source": "page", "source_id": sid, "lang": "et", "title": title, "url": "", "content": body}
        for sid, title, body in ET_PAGES]})
    assert r.status_code == 200
    # Committed and searchable by FULLTEXT at once; the embeddings are still queued.
    assert client.get("/v1/stats").get_json()["pending_embeddings"] == len(ET_PAGES)
    with engine.connect() as conn:
        assert [c.title for c in search(conn, et_site.id, "et", "garantii")] == ["Garantii"]
    services.indexing.drain(et_site.id)
    assert client.get("/v1/stats").get_json()["pending_embeddings"] == 0


def test_a_russian_question_finds_the_estonian_page(services, indexed, make_client):
    client = make_client(services, indexed)
    r = client.post("/v1/chat", chat_payload("Где можно оставить велосипед на зиму?", lang="ru"))
    assert r.status_code == 200
    assert sources(r)[0] == "Talvehoiustus"
    r = client.post("/v1/chat", chat_payload("How long is the warranty on repairs?", lang="en"))
    assert sources(r)[0] == "Garantii"


def test_without_vectors_the_same_question_finds_nothing(engine, services, et_site, make_client):
    put(engine, et_site.id, [page(sid, "et", title, body) for sid, title, body in ET_PAGES])
    r = make_client(services, et_site).post("/v1/chat", chat_payload("Где можно оставить велосипед на зиму?",
                                                                     lang="ru"))
    assert r.status_code == 200 and sources(r) == []


EN_PAGES = [
    ("storage", "Winter storage", "We keep your bicycle over the winter, November to March, in a dry and heated "
                                  "hall. Storage costs 60 euros for the season, cleaning included."),
    ("rental", "City bike rental", "Rent a city bike by the day: it costs 15 euros a day, an e-bike 35 euros "
                                   "a day. Bring an ID document."),
    ("warranty", "Warranty", "Every repair comes with a six-month warranty. Damage from a fall is not covered."),
    ("cafe", "Workshop cafe", "Our cafe serves coffee, tea and cakes while you wait for your bike."),
]


def test_a_follow_up_is_retrieved_with_what_the_conversation_is_about(engine, services, site, make_client):
    put(engine, site.id, [page(sid, "en", title, body) for sid, title, body in EN_PAGES])
    services.indexing.drain(site.id)
    client = make_client(services, site)

    def conversation(visitor, first):
        body = client.post("/v1/chat", chat_payload(first, visitor=visitor)).get_json()
        then = client.post("/v1/chat", chat_payload("And how much does that cost?", visitor=visitor,
                                                    conversation_id=body["conversation_id"]))
        return body["sources"][0]["title"], sources(then)[0], body["conversation_id"]

    # The same follow-up, two conversations, two pages that both state what they cost: each
    # conversation finds the page it is about.
    assert conversation("a", "Do you keep bikes somewhere over the winter?")[:2] == ("Winter storage",) * 2
    first, follow, conv = conversation("b", "Can I hire a bicycle from you for a day?")
    assert (first, follow) == ("City bike rental",) * 2
    # A message that names a topic of its own is retrieved for it: the current message decides.
    switch = client.post("/v1/chat", chat_payload("What warranty do you give on repairs?", visitor="b",
                                                  conversation_id=conv))
    assert sources(switch)[0] == "Warranty"


def test_the_query_vector_is_stored_sealed_with_the_turn(engine, services, indexed, make_client, keyring):
    client = make_client(services, indexed)
    conv = client.post("/v1/chat", chat_payload("Kui kaua garantii kehtib?", lang="et")).get_json()["conversation_id"]
    with engine.connect() as conn:
        blob = conn.execute(select(tables.turns.c.content_enc).where(
            tables.turns.c.conversation_id == conv)).scalar_one()
    assert b"garantii" not in blob.lower() and b"query" not in blob
    from sidecar.spaces import identity_of
    from tests.conftest import past_turns
    with engine.begin() as conn:
        past = past_turns(conn, keyring, indexed, identity_of("visitor-1", None), conv)
    assert past[-1].query.model == services.embedder.model
    expected = services.embedder.embed(["Kui kaua garantii kehtib?"])[0]
    assert float(past[-1].query.vector @ expected) > 0.99


def test_one_query_embedding_per_turn(services, indexed, make_client):
    calls = []
    real = services.embedder

    class Counting:
        name, model, dim = real.name, real.model, real.dim

        def embed(self, texts, **kw):
            calls.append(list(texts))
            return real.embed(texts, **kw)

    services.embedder = Counting()
    client = make_client(services, indexed)
    first = client.post("/v1/chat", chat_payload("Kui kaua garantii kehtib?", lang="et")).get_json()
    client.post("/v1/chat", chat_payload("Ja rent?", lang="et", conversation_id=first["conversation_id"]))
    assert calls == [["Kui kaua garantii kehtib?"], ["Ja rent?"]]


class Failing:
    def __init__(self, real, failures):
        self.real, self.failures = real, failures
        self.name, self.model, self.dim = real.name, real.model, real.dim

    def embed(self, texts, **kw):
        if self.failures > 0:
            self.failures -= 1
            raise EmbeddingError("local", "engine away")
        return self.real.embed(texts, **kw)


def test_a_failing_embedder_leaves_the_chunk_findable_and_retries(engine, services, et_site):
    put(engine, et_site.id, [page("garantii", "et", "Garantii", ET_PAGES[1][2])])
    queue = EmbeddingQueue(engine, Failing(services.indexing.embedder, failures=1))
    assert queue.run_pending(et_site.id) == 0
    with engine.connect() as conn:
        job = conn.execute(select(tables.chunk_jobs).where(tables.chunk_jobs.c.site_id == et_site.id)).one()
        assert job.attempts == 1 and "engine away" in job.last_error and job.locked_until is None
        assert [c.title for c in search(conn, et_site.id, "et", "garantii")] == ["Garantii"]
    with engine.begin() as conn:  # the backoff has passed
        conn.execute(tables.chunk_jobs.update().where(tables.chunk_jobs.c.site_id == et_site.id)
                     .values(next_attempt_at=func.now() - text("INTERVAL 1 SECOND")))
    assert queue.run_pending(et_site.id) == 1
    with engine.connect() as conn:
        assert pending(conn, et_site.id, queue.model) == 0


def test_the_queue_survives_a_restart_and_a_crashed_claim(engine, make_services, et_site):
    put(engine, et_site.id, [page(sid, "et", title, body) for sid, title, body in ET_PAGES])
    with engine.begin() as conn:  # a worker claimed everything, then its process died
        conn.execute(tables.chunk_jobs.update().where(tables.chunk_jobs.c.site_id == et_site.id)
                     .values(locked_until=func.now() + text("INTERVAL 300 SECOND")))
    fresh = make_services()  # a new process
    assert fresh.indexing.run_pending(et_site.id) == 0  # claimed by the dead worker, not taken twice
    with engine.begin() as conn:  # the claim expires
        conn.execute(tables.chunk_jobs.update().where(tables.chunk_jobs.c.site_id == et_site.id)
                     .values(locked_until=func.now() - text("INTERVAL 1 SECOND")))
    assert fresh.indexing.drain(et_site.id) == len(ET_PAGES)
    with engine.connect() as conn:
        assert pending(conn, et_site.id, fresh.indexing.model) == 0


def test_vectors_never_cross_sites(engine, services, keyring, indexed):
    import secrets
    other = add_site(engine, keyring, "o-" + secrets.token_hex(6), default_lang="et")
    put(engine, other.id, [page("x", "et", "Teise saidi leht", "Talvehoiustus ja garantii teisel saidil.")])
    services.indexing.drain(other.id)
    v = services.embedder.embed(["Talvehoiustus"])[0]
    with engine.connect() as conn:
        mine = services.retriever.retrieve(conn, indexed.id, "et", Query("Talvehoiustus", "et", v), mode="vector")
        theirs = services.retriever.retrieve(conn, other.id, "et", Query("Talvehoiustus", "et", v), mode="vector")
    assert {c.title for c in mine} == {t for _, t, _ in ET_PAGES}
    assert [c.title for c in theirs] == ["Teise saidi leht"]


def test_an_edit_is_seen_through_the_content_version_and_a_stale_matrix_is_harmless(engine, services, indexed):
    from sidecar.vectors import MatrixCache
    fresh = Retriever(model=services.retriever.model, matrices=MatrixCache(max_staleness=0))
    v = services.embedder.embed(["kohvik"])[0]
    with engine.connect() as conn:
        for r in (services.retriever, fresh):
            assert "Kohvik" in [c.title for c in r.retrieve(conn, indexed.id, "et", Query("kohvik", "et", v),
                                                            mode="vector")]
    with engine.begin() as conn:
        documents.remove(conn, indexed.id, "page", "kohvik")
    with engine.connect() as conn:
        # Re-read at once when the version moved (max_staleness 0)...
        assert "Kohvik" not in [c.title for c in fresh.retrieve(conn, indexed.id, "et", Query("kohvik", "et", v),
                                                                mode="vector")]
        assert len(fresh.matrices.get(conn, indexed.id, fresh.model, -1).ids) == len(ET_PAGES) - 1
        # ...and within the staleness window the old matrix still names the chunk, which the
        # fetch of the winners drops: a deleted page is never shown.
        stale = services.retriever.retrieve(conn, indexed.id, "et", Query("kohvik", "et", v), mode="vector")
        assert "Kohvik" not in [c.title for c in stale] and len(stale) == len(ET_PAGES) - 1


class Renamed:
    """The same engine under another model name: stands for a model change."""

    def __init__(self, real, model):
        self.real, self.model, self.name, self.dim = real, model, real.name, real.dim

    def embed(self, texts, **kw):
        return self.real.embed(texts, **kw)


def test_reembed_switches_models_without_a_window(engine, services, indexed):
    from sidecar.vectors import MatrixCache
    old = Retriever(model=services.retriever.model, matrices=MatrixCache(max_staleness=0))
    new_embedder = Renamed(services.indexing.embedder, "other-model")
    new = Retriever(model="other-model", matrices=MatrixCache(max_staleness=0))
    v = services.embedder.embed(["garantii remonttöödele"])[0]
    q = Query("garantii remonttöödele", "et", v)
    with engine.connect() as conn:
        assert new.retrieve(conn, indexed.id, "et", q, mode="vector") == []  # nothing of the new model yet
        assert pending(conn, indexed.id, "other-model") == len(ET_PAGES)
    assert reembed_chunks(engine, indexed.id, new_embedder) == len(ET_PAGES)
    with engine.connect() as conn:  # both models serve until the old one is pruned
        assert old.retrieve(conn, indexed.id, "et", q, mode="vector")[0].title == "Garantii"
        assert new.retrieve(conn, indexed.id, "et", q, mode="vector")[0].title == "Garantii"
    reembed_chunks(engine, indexed.id, new_embedder, prune=True)
    with engine.connect() as conn:
        assert old.retrieve(conn, indexed.id, "et", q, mode="vector") == []
        assert new.retrieve(conn, indexed.id, "et", q, mode="vector")[0].title == "Garantii"
        assert old.retrieve(conn, indexed.id, "et", q, mode="lexical")[0].title == "Garantii"


def test_bm25_lets_a_short_answer_beat_a_long_page_that_repeats_the_word(engine, site):
    long = " ".join(["Our storage hall is big and storage is what we love; storage storage."] * 12)
    put(engine, site.id, [page("long", "en", "Storage stories", long),
                          page("short", "en", "Winter storage price", "Winter storage of a bike costs 60 euros.")])
    with engine.connect() as conn:
        raw = conn.execute(text(
            "SELECT d.title FROM rtac_chunks c JOIN rtac_documents d ON d.id = c.document_id"
            " WHERE c.site_id = :s ORDER BY MATCH(c.search_text) AGAINST(:q IN NATURAL LANGUAGE MODE) DESC"),
            {"s": site.id, "q": "winter storag"}).scalars().all()
        ranked = [c.title for c in search(conn, site.id, "en", "How much is winter storage?")]
    assert raw[0] == "Storage stories"  # InnoDB's score: no length normalisation
    assert ranked[0] == "Winter storage price"


def test_term_statistics_follow_every_write(engine, site):
    def dfs():
        with engine.connect() as conn:
            return lexicon.document_frequencies(conn, site.id, ["helmet", "glove"])
    put(engine, site.id, [page("1", "en", "Helmets", "Helmet fitting is free."),
                          page("2", "en", "Gloves", "A helmet and gloves for winter.")])
    assert dfs() == {"helmet": 2, "glove": 1}
    put(engine, site.id, [page("2", "en", "Gloves", "Gloves only now.")])
    assert dfs() == {"helmet": 1, "glove": 1}
    with engine.begin() as conn:
        documents.remove(conn, site.id, "page", "1")
    assert dfs().get("helmet", 0) == 0


def test_a_retriever_reads_each_term_frequency_once_per_content_version(engine, site):
    from sqlalchemy import event
    put(engine, site.id, [page("1", "en", "Helmets", "Helmet fitting is free."),
                          page("2", "en", "Gloves", "A helmet and gloves for winter.")])
    reads = []

    def count(conn, cursor, statement, *args):
        if statement.startswith("SELECT") and "FROM rtac_terms" in statement:
            reads.append(statement)
    retriever = Retriever()
    event.listen(engine, "before_cursor_execute", count)
    try:
        def titles(question):
            with engine.connect() as conn:
                return [c.title for c in retriever.retrieve(conn, site.id, "en", Query(question, "en"),
                                                            mode="lexical")]
        assert titles("helmet fitting")[0] == "Helmets"
        assert titles("helmet fitting")[0] == "Helmets" and len(reads) == 1
        assert titles("helmet gloves")[0] == "Gloves" and len(reads) == 2  # only "glove" was new
        # A write bumps the site's content_version: the frequencies are read again.
        put(engine, site.id, [page("3", "en", "Fitting", "Fitting fitting fitting a helmet.")])
        titles("helmet fitting")
        assert len(reads) == 3
        with engine.connect() as conn:
            version = conn.execute(select(tables.sites.c.content_version)
                                   .where(tables.sites.c.id == site.id)).scalar_one()
            assert frequencies(retriever.stats, conn, site.id, version, ["helmet", "nothing"]) == {"helmet": 3}
        assert len(reads) == 4  # "nothing" asked once; a term no chunk has is remembered as absent
        with engine.connect() as conn:
            frequencies(retriever.stats, conn, site.id, version, ["nothing"])
        assert len(reads) == 4
    finally:
        event.remove(engine, "before_cursor_execute", count)


def frequencies(cache, conn, site_id, version, terms):
    """The frequencies of `terms` as the retriever gets them: those held, and the rest
    read and learnt; a term no chunk has left out."""
    known, missing = cache.cached(site_id, version, terms)
    if missing:
        known.update(cache.learn(site_id, version, missing, lexicon.document_frequencies(conn, site_id, missing)))
    return {term: n for term, n in known.items() if n}


def test_the_frequency_cache_is_bounded_across_sites(engine, keyring):
    import secrets
    sites = [add_site(engine, keyring, "f-" + secrets.token_hex(6), default_lang="en") for _ in range(3)]
    for s in sites:
        put(engine, s.id, [page("1", "en", "Helmets", "Helmet fitting is free for winter gloves.")])
    cache = lexicon.StatsCache(max_terms=5)
    with engine.connect() as conn:
        for s in sites:
            version = conn.execute(select(tables.sites.c.content_version)
                                   .where(tables.sites.c.id == s.id)).scalar_one()
            assert frequencies(cache, conn, s.id, version, ["helmet", "glove"]) == {"helmet": 1, "glove": 1}
            assert cache.terms_held <= 5
        # A new version of a site gives its frequencies back to the bound.
        assert frequencies(cache, conn, sites[0].id, -1, ["helmet", "glove", "winter"]) == {
            "helmet": 1, "glove": 1, "winter": 1}
        assert cache.terms_held <= 5


def test_search_text_of_an_older_release_is_refreshed(engine, site):
    put(engine, site.id, [page("1", "en", "Helmets", "Helmet fitting is free.")])
    with engine.begin() as conn:
        conn.execute(tables.chunks.update().where(tables.chunks.c.site_id == site.id)
                     .values(search_text="stale", term_count=1, search_version=SEARCH_VERSION - 1))
        conn.execute(tables.terms.delete().where(tables.terms.c.site_id == site.id))
    assert documents.refresh_search_text(engine, site.id) == 1
    with engine.connect() as conn:
        row = conn.execute(select(tables.chunks).where(tables.chunks.c.site_id == site.id)).one()
        assert row.search_version == SEARCH_VERSION and "helmet" in row.search_text and row.term_count > 1
        assert lexicon.document_frequencies(conn, site.id, ["helmet", "stale"]) == {"helmet": 1}
    assert documents.refresh_search_text(engine, site.id) == 0


def test_quantised_vectors_keep_their_direction():
    from sidecar.vectors import dequantize, quantize
    rng = np.random.default_rng(7)
    for _ in range(50):
        v = rng.normal(size=384).astype(np.float32)
        v /= np.linalg.norm(v)
        blob, scale = quantize(v)
        assert len(blob) == 384
        assert float(dequantize(blob, scale) @ v) > 0.998


DEMO = json.loads((__import__("pathlib").Path(__file__).resolve().parent.parent
                   / "sidecar" / "demo" / "pinned.json").read_text())["pinned"]


@pytest.mark.parametrize("lang, question", [
    ("et", "Millal te avatud olete?"),
    ("et", "Kas te laupäeval töötate?"),
    ("en", "are you open on saturday"),
    ("en", "What time do you close today?"),
    ("ru", "Когда вы работаете?"),
    ("ru", "Вы открыты в субботу?"),
])
def test_the_offline_answer_finds_the_opening_hours_however_they_are_asked(services, et_site, make_client,
                                                                          lang, question):
    pinned = DEMO[lang]
    hours = pinned[1]
    r = make_client(services, et_site).post("/v1/chat", chat_payload(question, lang=lang, pinned=pinned))
    body = r.get_json()
    assert body["degraded"] is True and body["unanswered"] is False
    for line in hours["content"].splitlines():
        assert line in body["reply"]
    assert "45 €" not in body["reply"]  # nothing of the price list


def test_documents_in_another_language_are_said_so_in_the_turn_never_the_system_tail():
    from sidecar.prompt import build
    from sidecar.providers.base import GroundingEntry
    docs = (GroundingEntry("Talvehoiustus", "Hoiame teie jalgratast talvel.", "https://x/talv", lang="et"),)
    p = build(pinned=(), retrieved=docs, history=[], message="Где хранить велосипед зимой?", lang="ru",
              page_title="", page_url="", lead_captured=False)
    assert "another language (et) than the customer's (ru)" in p.messages[-1].content
    assert "another language" not in p.system_tail and "another language" not in p.system
    same = build(pinned=(), retrieved=docs, history=[], message="Kus hoida ratast talvel?", lang="et",
                 page_title="", page_url="", lead_captured=False)
    assert "another language" not in same.messages[-1].content


def test_the_offline_answer_finds_a_price_named_by_another_compound(services, et_site, make_client):
    # "rattahooldus" (bike service) shares no word with "Põhihooldus" (basic service):
    # the price list's lines closest in meaning answer, and only price-list lines.
    body = make_client(services, et_site).post("/v1/chat", chat_payload(
        "Palju maksab rattahooldus?", lang="et", pinned=DEMO["et"])).get_json()
    assert "Põhihooldus: 45 €" in body["reply"] and body["unanswered"] is False
    assert "10:00" not in body["reply"] and "Telliskivi" not in body["reply"]


def test_a_term_in_most_of_a_large_site_is_scored_but_not_asked_of_fulltext(engine, site):
    from sqlalchemy import event
    pages = [page(str(i), "en", f"Bicycle {i}", f"Bicycle model {i} with {w} frame.")
             for i, w in enumerate(["steel", "carbon", "aluminium", "titanium", "bamboo"] * 26)]
    pages.append(page("tandem", "en", "Tandem", "The tandem bicycle seats two riders."))
    put(engine, site.id, pages)
    asked = []

    def capture(conn, cursor, statement, parameters, *args):
        if "MATCH" in statement:
            asked.append(parameters[0] if isinstance(parameters, tuple) else parameters)
    retriever = Retriever()
    event.listen(engine, "before_cursor_execute", capture)
    try:
        with engine.connect() as conn:
            # The first question reads the terms' frequencies with its candidates, the
            # next ones know them.
            retriever.retrieve(conn, site.id, "en", Query("a bicycle?", "en"), mode="lexical")
            asked.clear()
            found = retriever.retrieve(conn, site.id, "en", Query("a tandem bicycle?", "en"), mode="lexical")
            assert asked and all("bicycl" not in str(q["q"]) and "tandem" in str(q["q"]) for q in asked)
            assert [c.title for c in found] == ["Tandem"]
            # Every term that common: the rarest are asked, so the site still answers.
            asked.clear()
            found = retriever.retrieve(conn, site.id, "en", Query("bicycle model", "en"), mode="lexical")
            assert asked and len(found) == 8
    finally:
        event.remove(engine, "before_cursor_execute", capture)


def test_the_previous_messages_common_terms_are_scored_but_not_asked_of_fulltext(engine, site):
    from sqlalchemy import event
    pages = [page(str(i), "en", f"Bicycle {i}", f"Bicycle model {i} with a {w} frame.")
             for i, w in enumerate(["steel", "carbon", "aluminium", "titanium", "bamboo"] * 26)]
    pages += [page(f"helmet-{i}", "en", f"Helmet {i}", f"Helmet {i} for commuting.") for i in range(3)]
    pages += [page("tandem", "en", "Tandem", "The tandem seats two riders."),
              page("tandem-kids", "en", "Tandem for families", "A tandem with a child helmet included.")]
    put(engine, site.id, pages)
    asked = []

    def capture(conn, cursor, statement, parameters, *args):
        if "MATCH" in statement:
            asked.append(str(parameters["q"]))
    # No floor, so that shares apply to a test-sized site: a term in 4 of 135 chunks is
    # under the 5% of a question's own terms and over the 1% of the previous message's.
    retriever = Retriever(settings=RetrievalSettings(common_floor=0))
    event.listen(engine, "before_cursor_execute", capture)
    try:
        with engine.connect() as conn:
            retriever.retrieve(conn, site.id, "en", Query("helmet", "en"), mode="lexical")
            retriever.retrieve(conn, site.id, "en", Query("tandem", "en"), mode="lexical")
            asked.clear()
            found = retriever.retrieve(conn, site.id, "en", Query("helmet sizes?", "en"), mode="lexical")
            assert asked and all("helmet" in q for q in asked) and found[0].title.startswith("Helmet")
            asked.clear()
            found = retriever.retrieve(conn, site.id, "en",
                                       Query("Do you have tandems?", "en", previous="Which helmet?"),
                                       mode="lexical")
            assert asked and all("tandem" in q and "helmet" not in q for q in asked)
            # The previous message still counts among the candidates: its helmet decides between the tandems.
            assert [c.title for c in found[:2]] == ["Tandem for families", "Tandem"]
    finally:
        event.remove(engine, "before_cursor_execute", capture)


def test_new_terms_are_read_with_the_candidates_in_one_round_trip(engine, site):
    from sqlalchemy import event
    put(engine, site.id, [page("1", "en", "Helmets", "Helmet fitting is free."),
                          page("2", "en", "Gloves", "A helmet and gloves for winter.")])
    statements = []

    def count(conn, cursor, statement, *args):
        statements.append(statement)
    retriever = Retriever()
    with engine.connect() as conn:  # the site's chunk count and mean length, once per version
        retriever.retrieve(conn, site.id, "en", Query("helmet fitting", "en"), mode="lexical")
    event.listen(engine, "before_cursor_execute", count)
    try:
        with engine.connect() as conn:
            found = retriever.retrieve(conn, site.id, "en", Query("winter gloves", "en"), mode="lexical")
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert found[0].title == "Gloves"
    # The site's version and table; the ranking with the new terms' frequencies; the winners.
    assert len(statements) == 3, statements
    assert sum("FROM rtac_terms" in s for s in statements) == 1
