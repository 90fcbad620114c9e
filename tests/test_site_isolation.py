"""Each site's FULLTEXT table of its own (sidecar/fulltext.py), on real MariaDB:
sites never mix, every chunk write keeps the table in step in its own transaction,
removing a site drops its table, and `rtac init-db` moves a database whose chunks
were stored before the tables existed."""
import base64
import os
import re
import secrets
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from sqlalchemy import func, select, text

from testbed.mariadb import empty_database
from sidecar import documents, fulltext, lexicon, tables
from sidecar.db import create_engine
from sidecar.documents import DocumentInput
from sidecar.migrate import migrate, migrations
from sidecar.retrieval import Query, Retriever, retrieve, search
from sidecar.searchtext import VERSION as SEARCH_VERSION
from sidecar.searchtext import index_text
from sidecar.sites import add_site, remove_site

RTAC = str(Path(sys.executable).parent / "rtac")


def page(source_id, lang, title, content):
    return DocumentInput(source="page", source_id=str(source_id), lang=lang, title=title,
                         url=f"https://example.test/{lang}/{source_id}", content=f"<p>{content}</p>")


def put(engine, site_id, *docs):
    with engine.begin() as conn:
        return documents.upsert(conn, site_id, list(docs))


def new_site(engine, keyring, prefix="iso-", lang="en"):
    return add_site(engine, keyring, prefix + secrets.token_hex(5), default_lang=lang)


def site_table(engine, site_id) -> str:
    with engine.connect() as conn:
        shard = conn.execute(select(tables.sites.c.ft_shard).where(tables.sites.c.id == site_id)).scalar_one()
    return fulltext.table_name(int(shard))


def table_exists(engine, name) -> bool:
    with engine.connect() as conn:
        return conn.execute(text("SELECT COUNT(*) FROM information_schema.TABLES"
                                 " WHERE table_schema = DATABASE() AND table_name = :n"), {"n": name}).scalar_one() == 1


def held(conn, name, site_id=None) -> set[int]:
    """Chunk ids in a site table (read in `conn`'s transaction: its own writes included)."""
    sql = f"SELECT chunk_id FROM {name}" + (" WHERE site_id = :s" if site_id else "")
    return set(conn.execute(text(sql), {"s": site_id}).scalars())


def chunk_ids(conn, site_id) -> set[int]:
    return set(conn.execute(select(tables.chunks.c.id).where(tables.chunks.c.site_id == site_id)).scalars())


@pytest.fixture
def env(database_url, master_key):
    e = {k: v for k, v in os.environ.items() if not k.startswith(("RTAC_", "ANTHROPIC_", "OPENAI_", "GEMINI_"))}
    e.update(RTAC_DATABASE_URL=database_url, RTAC_MASTER_KEY=base64.b64encode(master_key).decode())
    return e


def rtac(env, *args):
    p = subprocess.run([RTAC, *args], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, f"rtac {' '.join(args)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}"
    return p.stdout


# --- sites never mix ------------------------------------------------------------------------

def test_two_sites_chunks_never_mix_in_retrieval(engine, keyring):
    a, b = new_site(engine, keyring), new_site(engine, keyring)
    put(engine, a.id, page(1, "en", "Winter storage A", "Winter storage of a bike costs 60 euros at shop A."),
        page(2, "en", "Tyres A", "Winter tyres are fitted in a day."))
    put(engine, b.id, page(1, "en", "Winter storage B", "Winter storage of a bike costs 90 euros at shop B."))
    assert site_table(engine, a.id) != site_table(engine, b.id)
    retriever = Retriever()
    with engine.connect() as conn:
        for site, own in ((a, {"Winter storage A", "Tyres A"}), (b, {"Winter storage B"})):
            found = retrieve(conn, site.id, "en", "en", "winter storage tyres price")
            assert found and {c.title for c in found} <= own
            hits = retriever.lexical(conn, site.id, "en", Query("winter storage", "en"))
            assert hits and {h.id for h in hits} <= chunk_ids(conn, site.id)
            # Each table holds its own site's chunks, and all of them.
            assert held(conn, site_table(engine, site.id)) == chunk_ids(conn, site.id)
            assert fulltext.locate(conn, site.id).table == site_table(engine, site.id)


def test_a_site_is_ranked_in_its_own_table_and_in_the_shared_index_until_it_is_filled(engine, keyring):
    site = new_site(engine, keyring)
    put(engine, site.id, page(1, "en", "Tandem", "We rent tandem bicycles."))
    name = site_table(engine, site.id)
    with engine.begin() as conn:  # its table emptied behind its back: nothing to rank
        conn.execute(text(f"DELETE FROM {name}"))
    with engine.connect() as conn:
        assert search(conn, site.id, "en", "tandem") == []
    with engine.begin() as conn:  # not ready: the shared index of rtac_chunks serves it
        conn.execute(tables.sites.update().where(tables.sites.c.id == site.id).values(ft_ready=False))
    with engine.connect() as conn:
        assert [c.title for c in search(conn, site.id, "en", "tandem")] == ["Tandem"]
    synced = fulltext.sync_site(engine, site.id)
    assert (synced.table, synced.chunks, synced.copied) == (name, 1, 1)
    with engine.connect() as conn:
        assert fulltext.locate(conn, site.id).table == name
        assert [c.title for c in search(conn, site.id, "en", "tandem")] == ["Tandem"]


# --- in step with every write, in the same transaction ----------------------------------------

def test_a_replaced_chunk_leaves_the_site_table_in_the_same_transaction(engine, site):
    name = site_table(engine, site.id)
    put(engine, site.id, page(1, "en", "Helmets", "Helmet fitting is free."))
    with engine.connect() as conn:
        old = chunk_ids(conn, site.id)
    conn = engine.connect()
    tx = conn.begin()
    documents.upsert(conn, site.id, [page(1, "en", "Gloves", "Winter gloves are in stock.")])
    new = chunk_ids(conn, site.id)
    assert new and not new & old
    assert held(conn, name, site.id) == new  # the old chunk's row is gone, the new one's is there
    assert conn.execute(text(f"SELECT search_text FROM {name} WHERE site_id = :s"),
                        {"s": site.id}).scalar_one() == index_text("Gloves\nWinter gloves are in stock.", "en")
    tx.rollback()  # and it was this transaction's doing
    conn.close()
    with engine.connect() as conn:
        assert held(conn, name, site.id) == old
    put(engine, site.id, page(1, "en", "Gloves", "Winter gloves are in stock."))
    with engine.connect() as conn:
        assert [c.title for c in search(conn, site.id, "en", "gloves")] == ["Gloves"]
        assert search(conn, site.id, "en", "helmet") == []


def test_a_deleted_chunk_leaves_the_site_table_in_the_same_transaction(engine, site):
    name = site_table(engine, site.id)
    put(engine, site.id, page(1, "en", "Gone", "Temporary offer on helmets."),
        page(2, "en", "Stays", "Helmets are fitted free of charge."))
    with engine.connect() as conn:
        before = held(conn, name, site.id)
    with engine.begin() as conn:
        assert documents.remove(conn, site.id, "page", "1") == 1
        left = held(conn, name, site.id)
        assert left == chunk_ids(conn, site.id) and len(left) == len(before) - 1
    with engine.connect() as conn:
        assert [c.title for c in search(conn, site.id, "en", "helmets")] == ["Stays"]


def test_refreshed_search_text_reaches_the_site_table(engine, site):
    name = site_table(engine, site.id)
    put(engine, site.id, page(1, "en", "Helmets", "Helmet fitting is free."))
    with engine.begin() as conn:  # text prepared by an older release, in both tables
        conn.execute(tables.chunks.update().where(tables.chunks.c.site_id == site.id)
                     .values(search_text="stale", term_count=1, search_version=SEARCH_VERSION - 1))
        conn.execute(text(f"UPDATE {name} SET search_text = 'stale'"))
    with engine.connect() as conn:
        assert search(conn, site.id, "en", "helmet") == []
    assert documents.refresh_search_text(engine, site.id) == 1
    with engine.connect() as conn:
        assert "helmet" in conn.execute(text(f"SELECT search_text FROM {name}")).scalar_one()
        assert [c.title for c in search(conn, site.id, "en", "helmet")] == ["Helmets"]


def test_a_table_dropped_by_hand_is_refused_once_then_created_again(engine, site):
    name = site_table(engine, site.id)
    put(engine, site.id, page(1, "en", "Tandem", "We rent tandem bicycles."))
    with engine.begin() as conn:
        conn.execute(text(f"DROP TABLE {name}"))
    with engine.connect() as conn:  # the shared index answers meanwhile
        assert [c.title for c in search(conn, site.id, "en", "tandem")] == ["Tandem"]
    with pytest.raises(fulltext.SearchTableError) as refused:
        put(engine, site.id, page(2, "en", "Helmets", "Helmet fitting is free."))
    assert refused.value.status == 503 and refused.value.retryable
    with engine.connect() as conn:  # nothing of the refused write was kept
        assert conn.execute(select(func.count()).select_from(tables.documents)
                            .where(tables.documents.c.site_id == site.id)).scalar_one() == 1
    put(engine, site.id, page(2, "en", "Helmets", "Helmet fitting is free."))
    assert table_exists(engine, name)
    with engine.connect() as conn:
        # Created again for the write, with the older page not in it yet: the shared
        # index serves the site until init-db has copied it.
        assert fulltext.locate(conn, site.id).table is None
        assert [c.title for c in search(conn, site.id, "en", "tandem")] == ["Tandem"]
    assert fulltext.sync_site(engine, site.id).chunks == 2
    with engine.connect() as conn:
        assert fulltext.locate(conn, site.id).table == name
        assert [c.title for c in search(conn, site.id, "en", "tandem")] == ["Tandem"]
        assert [c.title for c in search(conn, site.id, "en", "helmet")] == ["Helmets"]


def test_concurrent_creators_of_one_table_both_succeed(engine, site):
    name = site_table(engine, site.id)
    with engine.begin() as conn:
        conn.execute(text(f"DROP TABLE {name}"))
    shard = int(name.rsplit("_", 1)[1])
    errors = []

    def create():
        try:
            fulltext.ensure_table(engine, shard)
        except Exception as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=create) for _ in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == [] and table_exists(engine, name)


# --- removing a site ----------------------------------------------------------------------

def test_site_remove_drops_the_site_table(env, engine):
    site_id = "rm-" + secrets.token_hex(5)
    rtac(env, "site", "add", site_id)
    name = site_table(engine, site_id)
    assert table_exists(engine, name)  # created with the site
    put(engine, site_id, page(1, "en", "Hours", "We are open 9 to 5."))
    assert "removed" in rtac(env, "site", "remove", site_id, "--yes")
    assert not table_exists(engine, name)


def test_removing_a_site_empties_its_table_even_when_the_drop_is_left_undone(engine, keyring, monkeypatch):
    site, other = new_site(engine, keyring), new_site(engine, keyring)
    name = site_table(engine, site.id)
    put(engine, site.id, page(1, "en", "Hours", "We are open 9 to 5."))
    monkeypatch.setattr(fulltext, "drop_table", lambda engine, shard: None)
    assert remove_site(engine, site.id) is True
    with engine.connect() as conn:  # the rows went with the removal's transaction
        assert table_exists(engine, name) and held(conn, name) == set()
    monkeypatch.undo()
    assert name in fulltext.drop_orphans(engine)  # as `rtac init-db` does: no site names it now
    assert not table_exists(engine, name)
    assert table_exists(engine, site_table(engine, other.id))


# --- site ids -----------------------------------------------------------------------------

def test_site_ids_with_odd_characters_are_safe(engine, keyring):
    odd = [add_site(engine, keyring, f"{p}{secrets.token_hex(3)}") for p in ("a.b-c_", "9.", "X-._")]
    with engine.begin() as conn:  # a row from outside add_site's rules: quotes, backticks, a statement
        hostile = "o'b`r\"i;en DROP TABLE rtac_chunks -- " + secrets.token_hex(3)
        conn.execute(tables.sites.insert().values(id=hostile, secret_enc=b"x", wrapped_key=b"x", key_id=b"x",
                                                  default_lang="en", ft_ready=False))
    for site_id in [s.id for s in odd] + [hostile]:
        put(engine, site_id, page(1, "en", f"Tandem {site_id}", "We rent tandem bicycles."))
    assert fulltext.sync_site(engine, hostile).chunks == 1
    names = [site_table(engine, s) for s in [s.id for s in odd] + [hostile]]
    assert all(re.fullmatch(r"rtac_ft_[1-9][0-9]*", n) for n in names) and len(set(names)) == len(names)
    assert table_exists(engine, "rtac_chunks")
    with engine.connect() as conn:
        for site_id in [s.id for s in odd] + [hostile]:
            assert [c.title for c in search(conn, site_id, "en", "tandem")] == [f"Tandem {site_id}"]
    assert remove_site(engine, hostile) is True
    with pytest.raises(ValueError):
        fulltext.table_name("1; DROP TABLE rtac_chunks")


# --- a database from before the design ------------------------------------------------------

def _old_chunks(conn, site_id, lang, pages):
    """Chunks written the way releases before per-site tables wrote them."""
    for i, (title, body) in enumerate(pages, 1):
        doc_id = conn.execute(tables.documents.insert().values(
            site_id=site_id, source="page", source_id=str(i), lang=lang, title=title,
            url=f"https://old.test/{i}", content_hash=os.urandom(32))).inserted_primary_key[0]
        search_text = index_text(f"{title}\n{body}", lang)
        conn.execute(tables.chunks.insert().values(
            site_id=site_id, document_id=doc_id, lang=lang, seq=0, content=body, search_text=search_text,
            term_count=lexicon.term_count(search_text), search_version=SEARCH_VERSION))
        lexicon.add(conn, site_id, [search_text])


def test_init_db_moves_chunks_stored_before_per_site_tables(mariadb, master_key, tmp_path):
    name = "rtac_ft_migrate_t"
    url = empty_database(mariadb, name)
    eng = create_engine(url)
    try:
        before = tmp_path / "before"
        before.mkdir()
        for version, path in migrations():
            if version < "008":
                shutil.copy(path, before / path.name)
        migrate(eng, before)
        with eng.begin() as conn:
            for site_id in ("shop", "caf\u00e9-2.old"):
                conn.execute(text("INSERT INTO rtac_sites (id, secret_enc, wrapped_key, key_id)"
                                  " VALUES (:id, x'00', x'00', x'00')"), {"id": site_id})
            _old_chunks(conn, "shop", "en", [("Tandem rental", "We rent tandem bicycles for 25 euros a day."),
                                             ("Winter storage", "Winter storage costs 60 euros.")])
            _old_chunks(conn, "caf\u00e9-2.old", "en", [("Espresso", "Espresso and tandem parking.")])
        assert "008_site_fulltext" in migrate(eng)
        with eng.connect() as conn:  # migrated, not filled yet: searched as before
            assert fulltext.locate(conn, "shop").table is None
            assert [c.title for c in search(conn, "shop", "en", "tandem")] == ["Tandem rental"]
        # A page written between the migration and init-db creates the site's table.
        put(eng, "shop", page(9, "en", "Tandem tours", "Guided tandem tours on Sundays."))
        env = {k: v for k, v in os.environ.items() if not k.startswith("RTAC_")}
        env.update(RTAC_DATABASE_URL=url, RTAC_MASTER_KEY=base64.b64encode(master_key).decode())
        out = rtac(env, "init-db")
        shop, cafe = site_table(eng, "shop"), site_table(eng, "caf\u00e9-2.old")
        assert f"site shop: 2 chunk(s) copied into its search table {shop}" in out
        assert f"site caf\u00e9-2.old: 1 chunk(s) copied into its search table {cafe}" in out
        with eng.connect() as conn:
            for site_id, table in (("shop", shop), ("caf\u00e9-2.old", cafe)):
                assert fulltext.locate(conn, site_id).table == table
                assert held(conn, table) == chunk_ids(conn, site_id)
            assert {c.title for c in search(conn, "shop", "en", "tandem")} == {"Tandem rental", "Tandem tours"}
            assert [c.title for c in search(conn, "caf\u00e9-2.old", "en", "tandem")] == ["Espresso"]
        again = rtac(env, "init-db")
        assert "already up to date" in again and "copied" not in again
    finally:
        eng.dispose()
        admin = create_engine(mariadb + "/mysql")
        with admin.begin() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {name}"))
        admin.dispose()
