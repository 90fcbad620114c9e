"""What a turn reads, on a real MariaDB: the site's search position (content version,
FULLTEXT table) comes with the customer's space, for a new visitor as for a known one."""
from __future__ import annotations

from sqlalchemy import event

from sidecar import fulltext
from sidecar.spaces import find_space, resolve_space_with
from tests.conftest import chat_payload


def _put_page(client, source_id: str, title: str, content: str) -> None:
    r = client.put("/v1/documents", {"documents": [
        {"source": "page", "source_id": source_id, "lang": "en", "title": title, "url": "", "content": content}]})
    assert r.status_code == 200


def test_the_space_read_carries_the_sites_search_position(engine, keyring, site, client):
    with engine.begin() as conn:  # a visitor with no space yet: the site's row still comes
        space, row, _ = resolve_space_with(conn, keyring, site, "v:new-visitor", fulltext.LOCATE_COLUMNS)
        assert fulltext.site_index(row) == fulltext.locate(conn, site.id)
        assert fulltext.site_index(row).table is not None  # the site's own FULLTEXT table
    _put_page(client, "p1", "Opening hours", "We are open from nine to five.")
    with engine.begin() as conn:  # a known visitor, after the site's content moved on
        again, row, _ = resolve_space_with(conn, keyring, site, "v:new-visitor", fulltext.LOCATE_COLUMNS)
        assert again.id == space.id
        assert find_space(conn, keyring, site, "v:new-visitor").id == space.id
        assert fulltext.site_index(row) == fulltext.locate(conn, site.id)
        assert fulltext.site_index(row).version > 0


def test_a_turn_reads_the_sites_row_only_with_the_space(services, site, client):
    _put_page(client, "p1", "Bike storage", "Winter storage for bicycles costs 30 euros a season.")
    statements: list[str] = []

    def seen(conn, cursor, statement, params, context, executemany):
        statements.append(" ".join(statement.split()))

    event.listen(services.engine, "before_cursor_execute", seen)
    try:
        for visitor in ("first-visit", "first-visit"):  # a new visitor, then the same one again
            r = client.post("/v1/chat", chat_payload("Where can I store my bike in winter?", visitor=visitor))
            assert r.status_code == 200
            assert [s["title"] for s in r.get_json()["sources"]] == ["Bike storage"]
    finally:
        event.remove(services.engine, "before_cursor_execute", seen)
    reads_of_sites = [s for s in statements if "FROM rtac_sites" in s]
    assert len(reads_of_sites) == 2, reads_of_sites
    assert all("LEFT OUTER JOIN rtac_spaces" in s for s in reads_of_sites)


def test_a_continuing_turn_reads_its_history_with_the_space(services, site, client):
    _put_page(client, "p1", "Bike storage", "Winter storage for bicycles costs 30 euros a season.")
    first = client.post("/v1/chat", chat_payload("Where can I store my bike in winter?", visitor="v1")).get_json()
    statements: list[str] = []

    def seen(conn, cursor, statement, params, context, executemany):
        statements.append(" ".join(statement.split()))

    event.listen(services.engine, "before_cursor_execute", seen)
    try:
        r = client.post("/v1/chat", chat_payload("And how much is it?", visitor="v1",
                                                  conversation_id=first["conversation_id"]))
    finally:
        event.remove(services.engine, "before_cursor_execute", seen)
    assert r.status_code == 200 and r.get_json()["conversation_id"] == first["conversation_id"]
    # The follow-up has no word of the page: it finds it through the previous turn, read with the space.
    assert [s["title"] for s in r.get_json()["sources"]] == ["Bike storage"]
    reads = [s for s in statements if s.startswith("SELECT") and "rtac_turns.content_enc" in s]
    assert len(reads) == 1 and "FROM rtac_sites" in reads[0], reads
    # Another visitor naming that conversation gets none of it: a new conversation.
    other = client.post("/v1/chat", chat_payload("And how much is it?", visitor="v2",
                                                 conversation_id=first["conversation_id"])).get_json()
    assert other["conversation_id"] != first["conversation_id"]


def test_turns_read_with_a_space_erased_meanwhile_are_not_handed_on(services, engine, keyring, site, client,
                                                                     monkeypatch):
    from sqlalchemy import text
    from sidecar import spaces
    from sidecar.conversations import history_since
    first = client.post("/v1/chat", chat_payload("Where can I store my bike?", visitor="v9")).get_json()
    with engine.begin() as conn:  # last seen long ago: the next read checks the row again under a lock
        conn.execute(text("UPDATE rtac_spaces SET last_seen_at = NOW() - INTERVAL 2 DAY"))
    plain, erased = spaces._space_row, []

    def erased_meanwhile(conn, site_, ih, *, lock=False):
        if lock and not erased:  # the space erased between the turn's plain read and its locking one
            erased.append(conn.execute(text("DELETE FROM rtac_spaces WHERE site_id = :s"), {"s": site_.id}).rowcount)
        return plain(conn, site_, ih, lock=lock)

    monkeypatch.setattr(spaces, "_space_row", erased_meanwhile)
    with engine.begin() as conn:
        wanted = spaces.TurnsWanted(first["conversation_id"], 6, history_since(30))
        space, _, rows = spaces.resolve_space_with(conn, keyring, site, "v:v9", fulltext.LOCATE_COLUMNS, wanted)
        assert erased == [1]
        assert rows == []  # sealed under the erased space's key: a new space could not open them
        assert conn.execute(text("SELECT COUNT(*) FROM rtac_spaces WHERE id = :i"), {"i": space.id}).scalar() == 1
