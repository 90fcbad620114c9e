"""The schema: ordered idempotent migrations, the table objects match the DDL,
FULLTEXT and utf8mb4 where retrieval needs them, every row carries its site."""
import pytest
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError

from sidecar import tables
from sidecar.migrate import migrate, migrations, split_statements


def test_migrations_are_ordered_and_idempotent(engine):
    names = [name for name, _ in migrations()]
    assert names == sorted(names) and names[0].startswith("001_")
    assert migrate(engine) == []  # already applied by the fixture: nothing to do
    with engine.connect() as conn:
        applied = [r[0] for r in conn.execute(text("SELECT version FROM rtac_schema_migrations ORDER BY version"))]
    assert applied == names


def test_migration_reapplies_cleanly_on_a_fresh_database(mariadb, tmp_path):
    from sidecar.db import create_engine
    admin = create_engine(mariadb + "/mysql")
    with admin.begin() as conn:
        conn.execute(text("DROP DATABASE IF EXISTS rtac_migrate_t"))
        conn.execute(text("CREATE DATABASE rtac_migrate_t CHARACTER SET utf8mb4"))
    eng = create_engine(mariadb + "/rtac_migrate_t")
    try:
        assert migrate(eng) == [name for name, _ in migrations()]
        # A crash between DDL and bookkeeping leaves tables without a record: re-running must work.
        with eng.begin() as conn:
            conn.execute(text("DELETE FROM rtac_schema_migrations"))
        assert migrate(eng) == [name for name, _ in migrations()]
        # A later migration file is picked up in order.
        extra = tmp_path / "sql"
        extra.mkdir()
        for _, p in migrations():
            (extra / p.name).write_text(p.read_text())
        (extra / "999_probe.sql").write_text("-- probe\nCREATE TABLE IF NOT EXISTS rtac_probe (id INT PRIMARY KEY);\n")
        assert migrate(eng, extra) == ["999_probe"]
        assert "rtac_probe" in inspect(eng).get_table_names()
    finally:
        eng.dispose()
        with admin.begin() as conn:
            conn.execute(text("DROP DATABASE rtac_migrate_t"))
        admin.dispose()


def test_split_statements_keeps_multiline_statements():
    sql = "-- c\nCREATE TABLE a (\n  x INT\n);\nINSERT INTO a VALUES (1);\n"
    assert split_statements(sql) == ["CREATE TABLE a (\n  x INT\n)", "INSERT INTO a VALUES (1)"]


def test_table_objects_match_the_database(engine):
    insp = inspect(engine)
    for table in tables.metadata.sorted_tables:
        db_columns = {c["name"] for c in insp.get_columns(table.name)}
        assert {c.name for c in table.columns} == db_columns, table.name


def test_every_table_carries_its_site(engine):
    insp = inspect(engine)
    for name in insp.get_table_names():
        if name.startswith("rtac_") and name not in ("rtac_sites", "rtac_schema_migrations"):
            assert "site_id" in {c["name"] for c in insp.get_columns(name)}, name


def test_chunks_have_a_fulltext_index_and_utf8mb4(engine):
    with engine.connect() as conn:
        idx = conn.execute(text("SHOW INDEX FROM rtac_chunks WHERE Index_type = 'FULLTEXT'")).mappings().all()
        charsets = {r[0] for r in conn.execute(text(
            "SELECT DISTINCT CCSA.character_set_name FROM information_schema.TABLES T "
            "JOIN information_schema.COLLATION_CHARACTER_SET_APPLICABILITY CCSA "
            "ON CCSA.collation_name = T.table_collation "
            "WHERE T.table_schema = DATABASE() AND T.table_name LIKE 'rtac\\_%'"))}
        engines = {r[0] for r in conn.execute(text(
            "SELECT DISTINCT engine FROM information_schema.TABLES WHERE table_schema = DATABASE()"))}
    assert [r["Column_name"] for r in idx] == ["search_text"]
    assert charsets == {"utf8mb4"}
    assert engines == {"InnoDB"}


def test_a_chunk_cannot_point_at_another_sites_document(engine, keyring):
    import secrets

    from sidecar.sites import add_site
    a = add_site(engine, keyring, "fk-a-" + secrets.token_hex(4))
    b = add_site(engine, keyring, "fk-b-" + secrets.token_hex(4))
    with engine.begin() as conn:
        doc_id = conn.execute(tables.documents.insert().values(
            site_id=a.id, source="page", source_id="1", lang="en", title="t", url="", content_hash=b"x" * 32,
        )).inserted_primary_key[0]
    with pytest.raises(IntegrityError):
        with engine.begin() as conn:
            conn.execute(tables.chunks.insert().values(site_id=b.id, document_id=doc_id, lang="en", seq=0,
                                                       content="c", search_text="c"))
