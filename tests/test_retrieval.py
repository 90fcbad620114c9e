"""Documents and FULLTEXT retrieval on real MariaDB. InnoDB's FULLTEXT index sees
only committed rows, so every write here is committed before it is searched."""
from sqlalchemy import func, select

from sidecar import documents, tables
from sidecar.budget import TRUNCATION_MARK, pack
from sidecar.documents import DocumentInput
from sidecar.providers.base import GroundingEntry
from sidecar.retrieval import TOP_K, retrieve, search
from sidecar.searchtext import index_text, query_text


def put(engine, site_id, *docs):
    with engine.begin() as conn:
        return documents.upsert(conn, site_id, list(docs))


def doc(source_id, lang, title, content, source="page"):
    return DocumentInput(source=source, source_id=str(source_id), lang=lang, title=title,
                         url=f"https://example.test/{lang}/{source_id}", content=content)


def titles(chunks):
    return [c.title for c in chunks]


def test_upsert_cleans_html_and_replaces_chunks(engine, site):
    html = ("<!-- wp:paragraph --><p>Bike storage costs 60 euros.</p><!-- /wp:paragraph -->"
            "<script>alert('x')</script><style>p{}</style>[gallery ids=\"1,2\"]")
    assert put(engine, site.id, doc(1, "en", "Storage", html)) == {"upserted": 1, "chunks": 1}
    with engine.connect() as conn:
        content = conn.execute(select(tables.chunks.c.content).where(tables.chunks.c.site_id == site.id)).scalar_one()
    assert content == "Bike storage costs 60 euros."
    # Same (site, source, source_id) again: replaced, not duplicated.
    put(engine, site.id, doc(1, "en", "Storage", "<p>Storage is now 70 euros.</p>"))
    with engine.connect() as conn:
        rows = conn.execute(select(tables.chunks.c.content).where(tables.chunks.c.site_id == site.id)).scalars().all()
        ndocs = conn.execute(select(func.count()).select_from(tables.documents)
                             .where(tables.documents.c.site_id == site.id)).scalar_one()
    assert rows == ["Storage is now 70 euros."] and ndocs == 1
    with engine.connect() as conn:
        assert titles(search(conn, site.id, "en", "storage")) == ["Storage"]
        assert "70" in search(conn, site.id, "en", "storage")[0].content


def test_unchanged_document_keeps_its_chunks(engine, site):
    d = doc(2, "en", "Hours", "<p>We open at ten.</p>")
    put(engine, site.id, d)
    with engine.connect() as conn:
        first = conn.execute(select(tables.chunks.c.id).where(tables.chunks.c.site_id == site.id)).scalars().all()
    assert put(engine, site.id, d) == {"upserted": 1, "chunks": 1}
    with engine.connect() as conn:
        again = conn.execute(select(tables.chunks.c.id).where(tables.chunks.c.site_id == site.id)).scalars().all()
    assert first == again


def test_delete_removes_document_and_chunks(engine, site):
    put(engine, site.id, doc(3, "en", "Gone", "<p>Temporary offer on helmets.</p>"))
    with engine.begin() as conn:
        assert documents.remove(conn, site.id, "page", "3") == 1
        assert documents.remove(conn, site.id, "page", "3") == 0
    with engine.connect() as conn:
        assert search(conn, site.id, "en", "helmets") == []
        assert conn.execute(select(func.count()).select_from(tables.chunks)
                            .where(tables.chunks.c.site_id == site.id)).scalar_one() == 0


def test_fulltext_sees_only_committed_rows(engine, site):
    writer = engine.connect()
    tx = writer.begin()
    documents.upsert(writer, site.id, [doc(4, "en", "Tandem", "<p>We rent tandem bicycles.</p>")])
    with engine.connect() as reader:
        assert search(reader, site.id, "en", "tandem") == []  # not committed yet
    tx.commit()
    writer.close()
    with engine.connect() as reader:
        assert titles(search(reader, site.id, "en", "tandem")) == ["Tandem"]


def test_visitor_language_first_then_site_default(engine, site):
    # site default is en; the Estonian page answers Estonian visitors first.
    put(engine, site.id,
        doc(10, "et", "Garantii", "<p>Garantii kehtib 3 kuud, garantii on tasuta.</p>"),
        doc(11, "en", "Warranty", "<p>Warranty lasts 3 months, warranty repairs are free.</p>"),
        doc(12, "ru", "Гарантия", "<p>Гарантия 3 месяца.</p>"))
    with engine.connect() as conn:
        found = retrieve(conn, site.id, "et", "en", "garantii 3")
    assert titles(found)[0] == "Garantii"
    # Fewer than 8 in Estonian: the rest comes from English (the site default), never Russian.
    assert {c.lang for c in found} <= {"et", "en"}
    assert "Warranty" in titles(found)


def test_top_k_in_visitor_language_needs_no_fallback(engine, site):
    put(engine, site.id, *[doc(100 + i, "et", f"Ratas {i}", f"<p>Ratas number {i} on hoolduses.</p>") for i in range(10)],
        doc(200, "en", "Bike", "<p>Ratas in English means bike.</p>"))
    with engine.connect() as conn:
        found = retrieve(conn, site.id, "et", "en", "ratas")
    assert len(found) == TOP_K
    assert {c.lang for c in found} == {"et"}


def test_fallback_is_skipped_when_visitor_language_is_the_default(engine, site):
    put(engine, site.id, doc(20, "en", "Parking", "<p>Free parking behind the shop.</p>"))
    with engine.connect() as conn:
        assert titles(retrieve(conn, site.id, "en", "en", "parking")) == ["Parking"]


def test_stemming_finds_inflected_forms(engine, site):
    put(engine, site.id,
        doc(30, "ru", "Цены", "<p>Цена полного обслуживания велосипеда указана в прайс-листе.</p>"),
        doc(31, "es", "Reparaciones", "<p>Reparamos bicicletas eléctricas.</p>"))
    with engine.connect() as conn:
        assert titles(search(conn, site.id, "ru", "какие цены на обслуживание?")) == ["Цены"]
        assert titles(search(conn, site.id, "es", "¿reparan bicicleta eléctrica?")) == ["Reparaciones"]


def test_korean_particles_do_not_hide_words(engine, site):
    put(engine, site.id, doc(40, "ko", "가격 안내", "<p>자전거 수리 가격은 45유로입니다.</p>"))
    with engine.connect() as conn:
        assert titles(search(conn, site.id, "ko", "수리 가격이 얼마예요?")) == ["가격 안내"]


def test_sites_never_see_each_others_documents(engine, site, keyring):
    import secrets

    from sidecar.sites import add_site
    other = add_site(engine, keyring, "o-" + secrets.token_hex(5))
    put(engine, other.id, doc(50, "en", "Secret", "<p>Unicycle repairs in the back room.</p>"))
    with engine.connect() as conn:
        assert search(conn, site.id, "en", "unicycle repairs") == []
        assert titles(search(conn, other.id, "en", "unicycle repairs")) == ["Secret"]


def test_search_text_normalisation():
    assert index_text("Hinnakirja 2026: 45 € ja", "et") == index_text("hinnakirja", "et") + " 2026 45_"
    assert index_text("Цены", "ru") == index_text("цена", "ru") == "цен"
    assert "가격_" in index_text("가격은", "ko").split()
    assert query_text("price price PRICE of a tyre", "en") == "price tyre"
    # Question words are not searched, unless there is nothing else.
    assert query_text("Kui palju maksab teie hooldus?", "et") == index_text("maksab hooldus", "et")
    assert query_text("Сколько стоит ремонт?", "ru") == index_text("стоит ремонт", "ru")
    assert query_text("What is this?", "en") == "what this"
    assert len(query_text(" ".join(f"word{i}" for i in range(500)), "en").split()) == 48


def test_budget_fills_pinned_first_then_chunks():
    from sidecar.retrieval import Chunk
    pinned = [GroundingEntry("Price list", "Basic: 45 €\nFull: 89 €", pinned=True)]
    chunks = [Chunk(i, f"Doc {i}", f"/d{i}", "x" * 300, "en", 1.0 / (i + 1)) for i in range(10)]
    packed = pack(pinned, chunks, budget=1000)
    assert packed.pinned == tuple(pinned)
    used = sum(len(e.title) + len(e.content) + len(e.url) for e in packed.pinned + packed.retrieved)
    assert used <= 1000
    assert [e.title for e in packed.retrieved] == ["Doc 0", "Doc 1", "Doc 2"]  # best first, as many as fit
    assert packed.sources() == [{"title": f"Doc {i}", "url": f"/d{i}"} for i in range(3)]


def test_budget_truncates_oversized_pinned_at_a_line_and_drops_chunks():
    from sidecar.retrieval import Chunk
    lines = "\n".join(f"Service {i}: {i} €" for i in range(200))
    packed = pack([GroundingEntry("Price list", lines, pinned=True)],
                  [Chunk(1, "Doc", "/d", "text", "en", 1.0)], budget=1000)
    kept = packed.pinned[0].content
    assert kept.endswith(TRUNCATION_MARK)
    assert all(line.startswith("Service ") and line.endswith("€") for line in kept[: -len(TRUNCATION_MARK)].splitlines())
    assert packed.retrieved == ()


def test_titles_are_cleaned_like_content(engine, site):
    put(engine, site.id, doc(60, "en", "Media &amp; <em>Text</em>", "<p>Media and text block.</p>"))
    with engine.connect() as conn:
        assert titles(search(conn, site.id, "en", "media text")) == ["Media & Text"]
