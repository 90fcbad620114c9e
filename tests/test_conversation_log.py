"""The owner's conversation log (docs/api.md: `GET /v1/conversations`, `GET
/v1/conversations/<id>`), what each turn stores for it, the language gaps in
`/v1/stats` and `/v1/unanswered?lang=`, on real MariaDB."""
from __future__ import annotations

import base64
import json
import random
import secrets
import shutil
import threading
from datetime import timedelta

import pytest
from sqlalchemy import func, select, text, update

from sidecar import tables
from sidecar.clock import utcnow
from sidecar.conversations import append_turn, grounding_class, new_conversation_id, purge_expired
from sidecar.db import create_engine
from sidecar.migrate import migrate, migrations
from sidecar.providers.base import ChatResult, Usage
from sidecar.providers.chain import ProviderChain
from sidecar.sites import add_site
from sidecar.spaces import resolve_space

from .conftest import chat_payload

RETENTION = 30  # the configuration's default, which these services use


# --- requests and stored turns --------------------------------------------------------

@pytest.fixture
def log_services(make_services):
    # Lexical retrieval and no memory: nothing here needs an embedding model.
    return make_services(retrieval="fulltext", memory=False)


@pytest.fixture
def owner(make_client, log_services, site):
    return make_client(log_services, site)


def other_site(engine, keyring):
    return add_site(engine, keyring, "t-" + secrets.token_hex(6))


def page(client, query: str = "", status: int = 200) -> dict:
    resp = client.get("/v1/conversations" + (f"?{query}" if query else ""))
    assert resp.status_code == status, resp.get_data(as_text=True)
    return resp.get_json()


def every_id(client, query: str = "") -> list[str]:
    """All pages of the log, following `next`."""
    ids, cursor = [], None
    while True:
        params = "&".join(p for p in (query, f"before={cursor}" if cursor else "") if p)
        body = page(client, params)
        ids += [item["id"] for item in body["items"]]
        cursor = body["next"]
        if cursor is None:
            return ids


def detail(client, conversation_id: str, status: int = 200) -> dict:
    resp = client.get(f"/v1/conversations/{conversation_id}")
    assert resp.status_code == status, resp.get_data(as_text=True)
    body = resp.get_json()
    if status == 404:
        err = body["error"]
        assert err["code"] == "not_found" and err["message"] and err["retryable"] is False
    return body


def bad_request(client, query: str, field: str) -> None:
    resp = client.get(f"/v1/conversations?{query}")
    assert resp.status_code == 400, resp.get_data(as_text=True)
    err = resp.get_json()["error"]
    assert err["field"] == field and err["retryable"] is False


def space_of(engine, keyring, site, visitor: str):
    with engine.begin() as conn:
        return resolve_space(conn, keyring, site, f"v:{visitor}")


def store(engine, space, conversation_id: str | None = None, *, message: str = "a question",
          reply: str = "an answer", lang: str = "en", **kw) -> str:
    """One turn written as the chat turn writes it; a new conversation without an id."""
    is_new = conversation_id is None
    conversation_id = conversation_id or new_conversation_id()
    args = dict(action="none", unanswered=False, degraded=False, provider="offline", model="offline")
    args.update(kw)
    with engine.begin() as conn:
        append_turn(conn, space, conversation_id, is_new, lang=lang, message=message, reply=reply, **args)
    return conversation_id


def backdate(engine, conversation_id: str, *, started: timedelta, last: timedelta | None = None) -> None:
    """Move a conversation (and its turns) into the past."""
    now = utcnow()
    last = started if last is None else last
    with engine.begin() as conn:
        conn.execute(update(tables.conversations).where(tables.conversations.c.id == conversation_id)
                     .values(created_at=now - started, updated_at=now - last))
        conn.execute(update(tables.turns).where(tables.turns.c.conversation_id == conversation_id)
                     .values(created_at=now - last))


def ask(client, message: str, **kw) -> dict:
    resp = client.post("/v1/chat", chat_payload(message, **kw))
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()


# --- the grounding class ------------------------------------------------------------------

def test_grounding_class_of_the_documents_shown():
    assert grounding_class("et", ["en", "et", "ru"]) == "own"
    assert grounding_class("et-EE", ["ET"]) == "own"
    assert grounding_class("ru", ["et", "en"]) == "other"
    assert grounding_class("ru", []) == "none"
    assert grounding_class("ru", ()) == "none"


def test_an_unknown_grounding_class_is_refused_before_anything_is_written(engine, keyring, site):
    space = space_of(engine, keyring, site, "g")
    with pytest.raises(ValueError):
        store(engine, space, grounding="partly")
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(tables.conversations)
                            .where(tables.conversations.c.site_id == site.id)).scalar_one() == 0


# --- what a turn stores --------------------------------------------------------------------

def test_turns_store_flags_sources_and_grounding_and_the_row_ors_the_flags(owner, engine, keyring, site):
    space = space_of(engine, keyring, site, "stored")
    shown = [{"title": "Shipping", "url": "https://example.test/en/shipping"},
             {"title": "Tarne", "url": "https://example.test/et/tarne"}]
    conv = store(engine, space, message="Do you ship to Riga?", reply="Yes, in two days.", action="offer_lead",
                 unanswered=True, sources=shown, grounding="own")
    store(engine, space, conv, message="And my number is 555?", reply="Thanks, noted.", degraded=True,
          lead_captured=True, forgot=True, grounding="none")

    with engine.connect() as conn:
        turns = conn.execute(select(tables.turns).where(tables.turns.c.conversation_id == conv)
                             .order_by(tables.turns.c.seq)).mappings().all()
        row = conn.execute(select(tables.conversations).where(tables.conversations.c.id == conv)).mappings().one()
    assert [(r["seq"], r["action"], r["unanswered"], r["degraded"], r["lead_captured"], r["forgot"], r["grounding"])
            for r in turns] == [(1, "offer_lead", True, False, False, False, "own"),
                                (2, "none", False, True, True, True, "none")]
    assert b"example.test" not in bytes(turns[0]["content_enc"])  # the sources are sealed with the turn
    assert (row["lang"], row["turn_count"], row["unanswered"], row["degraded"], row["lead_captured"],
            row["forgot"]) == ("en", 2, True, True, True, True)

    [item] = page(owner)["items"]
    assert item == {"id": conv, "lang": "en", "started_at": item["started_at"], "last_at": item["last_at"],
                    "turns": 2, "degraded": True, "unanswered": True, "lead_captured": True, "forgot": True}
    assert item["started_at"] <= item["last_at"] and item["last_at"].endswith("Z")

    body = detail(owner, conv)
    assert body["id"] == conv and body["lang"] == "en"
    assert [{k: v for k, v in t.items() if k != "at"} for t in body["turns"]] == [
        {"seq": 1, "message": "Do you ship to Riga?", "reply": "Yes, in two days.", "action": "offer_lead",
         "unanswered": True, "degraded": False, "sources": shown},
        {"seq": 2, "message": "And my number is 555?", "reply": "Thanks, noted.", "action": "none",
         "unanswered": False, "degraded": True, "sources": []},
    ]
    assert all(t["at"].endswith("Z") for t in body["turns"])


def test_a_flag_once_set_stays_set_for_the_conversation(owner, engine, keyring, site):
    space = space_of(engine, keyring, site, "sticky")
    conv = store(engine, space, unanswered=True)
    store(engine, space, conv, unanswered=False)
    [item] = page(owner)["items"]
    assert item["unanswered"] is True and item["degraded"] is False and item["turns"] == 2


def test_concurrent_turns_of_one_conversation_all_count(owner, engine, keyring, site):
    space = space_of(engine, keyring, site, "busy")
    conv = store(engine, space)
    failures = []

    def turns(n: int) -> None:
        try:
            for i in range(6):
                store(engine, space, conv, unanswered=(n == 2 and i == 3), lead_captured=(n == 3 and i == 5))
        except Exception as exc:  # noqa: BLE001 - reported by the test
            failures.append(exc)

    threads = [threading.Thread(target=turns, args=(n,)) for n in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not failures, failures
    [item] = page(owner)["items"]
    assert (item["turns"], item["unanswered"], item["lead_captured"], item["degraded"]) == (25, True, True, False)
    assert [t["seq"] for t in detail(owner, conv)["turns"]] == list(range(1, 26))


def test_chat_turns_are_logged_with_their_text_and_flags(owner, engine):
    first = ask(owner, "Do you ship to Mars?", visitor="chatter")
    backdate(engine, first["conversation_id"], started=timedelta(minutes=1))  # started before the other one
    again = ask(owner, "Or to the moon?", visitor="chatter", conversation_id=first["conversation_id"])
    other = ask(owner, "Kas teil on avatud pühapäeval?", visitor="someone", lang="et")
    assert again["conversation_id"] == first["conversation_id"] != other["conversation_id"]

    items = page(owner)["items"]
    assert [i["id"] for i in items] == [other["conversation_id"], first["conversation_id"]]
    assert [(i["lang"], i["turns"]) for i in items] == [("et", 1), ("en", 2)]
    assert items[1]["unanswered"] is (first["unanswered"] or again["unanswered"])
    assert items[1]["degraded"] is (first["degraded"] or again["degraded"])

    turns = detail(owner, first["conversation_id"])["turns"]
    assert [(t["seq"], t["message"], t["reply"], t["action"], t["unanswered"], t["degraded"]) for t in turns] == [
        (1, "Do you ship to Mars?", first["reply"], first["action"], first["unanswered"], first["degraded"]),
        (2, "Or to the moon?", again["reply"], again["action"], again["unanswered"], again["degraded"])]


def test_a_chat_turn_records_its_sources_lead_and_grounding(owner, engine, site):
    """The turn passes what it showed the model and what it knew of the visitor."""
    put = owner.put("/v1/documents", {"documents": [
        {"source": "page", "source_id": "7", "lang": "en", "title": "Parcel lockers",
         "url": "https://example.test/en/lockers", "content": "Parcel lockers deliver within two working days."}]})
    assert put.status_code == 200, put.get_data(as_text=True)
    answer = ask(owner, "How fast do parcel lockers deliver?", visitor="lead", lead_captured=True)
    assert answer["sources"] == [{"title": "Parcel lockers", "url": "https://example.test/en/lockers"}]

    [item] = page(owner)["items"]
    assert item["lead_captured"] is True and item["forgot"] is False
    assert detail(owner, answer["conversation_id"])["turns"][0]["sources"] == answer["sources"]
    with engine.connect() as conn:
        assert conn.execute(select(tables.turns.c.grounding)
                            .where(tables.turns.c.conversation_id == answer["conversation_id"])).scalar_one() == "own"


# --- paging --------------------------------------------------------------------------------

def test_pages_have_no_repeats_or_gaps_while_turns_are_added_and_conversations_started(
        owner, engine, keyring, site):
    spaces = [space_of(engine, keyring, site, f"pager-{i}") for i in range(4)]
    seeded, space_by_conv = [], {}
    for i in range(40):
        conv = store(engine, spaces[i % 4])
        # Two by two in the same second: the id decides between them.
        backdate(engine, conv, started=timedelta(minutes=10 + i // 2))
        seeded.append(conv)
        space_by_conv[conv] = spaces[i % 4]
    stop, failures = threading.Event(), []

    def writer(n: int) -> None:
        rng = random.Random(n)
        try:
            while not stop.is_set():
                if rng.random() < 0.5:
                    conv = rng.choice(seeded)
                    store(engine, space_by_conv[conv], conv, unanswered=True)
                else:
                    store(engine, spaces[rng.randrange(4)])
        except Exception as exc:  # noqa: BLE001 - reported by the test
            failures.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(3)]
    for th in threads:
        th.start()
    seen, cursor, positions = [], None, []
    try:
        while True:
            body = page(owner, "limit=7" + (f"&before={cursor}" if cursor else ""))
            seen += [item["id"] for item in body["items"]]
            positions += [(item["started_at"], item["id"]) for item in body["items"]]
            # A conversation not listed yet gets a turn now: it must not move up past the cursor.
            unseen = [c for c in seeded if c not in seen]
            if unseen:
                store(engine, space_by_conv[unseen[-1]], unseen[-1])
            cursor = body["next"]
            if cursor is None:
                break
    finally:
        stop.set()
        for th in threads:
            th.join()
    assert not failures, failures
    assert len(seen) == len(set(seen)), "a conversation was listed twice"
    assert set(seeded) <= set(seen), "a conversation was skipped"
    assert positions == sorted(positions, reverse=True)


def test_limit_and_the_last_page(owner, engine, keyring, site):
    space = space_of(engine, keyring, site, "limits")
    convs = [store(engine, space) for _ in range(5)]
    for i, conv in enumerate(convs):
        backdate(engine, conv, started=timedelta(minutes=5 - i))
    newest_first = convs[::-1]
    body = page(owner, "limit=2")
    assert [i["id"] for i in body["items"]] == newest_first[:2] and body["next"]
    assert every_id(owner, "limit=2") == newest_first
    assert every_id(owner, "limit=1") == newest_first
    last = page(owner, "limit=5")
    assert [i["id"] for i in last["items"]] == newest_first and last["next"] is None
    assert page(owner)["next"] is None  # the default of 50 holds them all


@pytest.mark.parametrize("limit", ["0", "101", "-1", "ten", "", "1.5", "99999"])
def test_a_limit_out_of_range_is_400_naming_limit(owner, limit):
    bad_request(owner, f"limit={limit}", "limit")


@pytest.mark.parametrize("cursor", ["", "!!!", "bm90IGEgY3Vyc29y",
                                    base64.urlsafe_b64encode(b"20250101000000.xyz").decode(),
                                    base64.urlsafe_b64encode(b"20251399000000." + b"a" * 32).decode(),
                                    base64.urlsafe_b64encode("2025010100000Ω.".encode() + b"a" * 32).decode()])
def test_a_malformed_cursor_is_400_naming_before(owner, cursor):
    bad_request(owner, f"before={cursor}", "before")


# --- filters -------------------------------------------------------------------------------

def test_filters_by_language_and_flags(owner, engine, keyring, site):
    space = space_of(engine, keyring, site, "filters")
    plain = store(engine, space, lang="et")
    unanswered = store(engine, space, lang="en", unanswered=True)
    degraded = store(engine, space, lang="et", degraded=True)
    lead = store(engine, space, lang="ru", lead_captured=True)
    forgot = store(engine, space, lang="et", forgot=True, unanswered=True)
    for age, conv in enumerate([forgot, lead, degraded, unanswered, plain], 1):
        backdate(engine, conv, started=timedelta(minutes=age))

    def ids(query):
        return set(every_id(owner, query))

    assert ids("") == {plain, unanswered, degraded, lead, forgot}
    assert ids("lang=et") == ids("lang=et-EE") == {plain, degraded, forgot}
    assert ids("lang=ko") == set()
    assert ids("flag=unanswered") == {unanswered, forgot}
    assert ids("flag=degraded") == {degraded}
    assert ids("flag=lead") == {lead}
    assert ids("flag=forgot") == {forgot}
    assert ids("flag=unanswered&lang=et") == {forgot}
    assert ids("flag=unanswered&flag=forgot") == {forgot}
    assert every_id(owner, "lang=et&limit=1") == [forgot, degraded, plain]


@pytest.mark.parametrize("query, field", [("flag=bogus", "flag"), ("flag=", "flag"), ("flag=lead_captured", "flag"),
                                          ("flag=lead&flag=nope", "flag"), ("lang=", "lang"),
                                          ("lang=123", "lang"), ("lang=e", "lang")])
def test_an_unknown_filter_is_400_naming_it(owner, query, field):
    bad_request(owner, query, field)


# --- scoping, retention, erasure ------------------------------------------------------------

def test_a_site_neither_lists_nor_reads_another_sites_conversations(owner, make_client, log_services, engine,
                                                                     keyring):
    mine = ask(owner, "Where is my order?", visitor="shared-visitor")["conversation_id"]
    other = make_client(log_services, other_site(engine, keyring))
    theirs = ask(other, "Where is my order?", visitor="shared-visitor")["conversation_id"]

    assert every_id(owner) == [mine]
    assert every_id(other) == [theirs]
    detail(other, mine, status=404)
    detail(owner, theirs, status=404)
    assert detail(owner, mine)["turns"][0]["message"] == "Where is my order?"


@pytest.mark.parametrize("bad_id", ["0" * 32, "A" * 32, "abc", "g" * 32, "1" * 33, "0" * 31 + ".x"])
def test_an_unknown_or_malformed_conversation_is_404(owner, bad_id):
    detail(owner, bad_id, status=404)


def test_an_expired_conversation_is_absent_and_404(owner, engine, keyring, site):
    space = space_of(engine, keyring, site, "old")
    expired = store(engine, space, message="an old question")
    backdate(engine, expired, started=timedelta(days=RETENTION + 5), last=timedelta(days=RETENTION + 1))
    current = store(engine, space, message="a new question")

    assert every_id(owner) == [current]
    assert every_id(owner, "lang=en") == [current]
    detail(owner, expired, status=404)
    assert detail(owner, current)["turns"][0]["message"] == "a new question"


def test_turns_past_retention_leave_the_conversation_and_its_summary(owner, engine, keyring, site):
    space = space_of(engine, keyring, site, "long")
    conv = store(engine, space, message="weeks ago", unanswered=True, lang="et")
    backdate(engine, conv, started=timedelta(days=RETENTION + 3))
    store(engine, space, conv, message="today", lang="en")

    # Within retention by its last turn: listed from when it started; only the kept turn is shown.
    [item] = page(owner)["items"]
    assert item["id"] == conv and item["lang"] == "et"
    assert [t["message"] for t in detail(owner, conv)["turns"]] == ["today"]

    with engine.begin() as conn:
        assert purge_expired(conn, RETENTION) >= 1
    [item] = page(owner)["items"]
    assert (item["turns"], item["unanswered"]) == (1, False)  # recounted from the turn that is kept
    store(engine, space, conv, message="tomorrow")  # and numbered on after it
    assert [t["seq"] for t in detail(owner, conv)["turns"]] == [2, 3]


def test_an_erased_customers_conversations_are_absent_and_404(owner):
    gone = [ask(owner, "Please forget me", visitor="erase-me")["conversation_id"],
            ask(owner, "A second conversation", visitor="erase-me")["conversation_id"]]
    kept = ask(owner, "I stay", visitor="stays")["conversation_id"]
    assert set(every_id(owner)) == {*gone, kept}

    resp = owner.post("/v1/privacy/erase", {"visitor": {"id": "erase-me"}})
    assert resp.status_code == 200 and resp.get_json()["erased"] is True
    assert every_id(owner) == [kept]
    for conv in gone:
        detail(owner, conv, status=404)
    assert detail(owner, kept)["turns"][0]["message"] == "I stay"


# --- language gaps -------------------------------------------------------------------------

def stats(client) -> dict:
    resp = client.get("/v1/stats")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()


def test_stats_count_per_language_what_the_answers_rested_on(owner, engine, keyring, site):
    space = space_of(engine, keyring, site, "gaps")
    assert stats(owner)["languages"] == {}
    conv = store(engine, space, lang="et", grounding="own")
    store(engine, space, conv, lang="et", grounding="own")
    store(engine, space, lang="et", grounding="other")
    store(engine, space, lang="ru", grounding="other", unanswered=True)
    store(engine, space, lang="ru", grounding="none", unanswered=True)
    store(engine, space, lang="ru", grounding="other")
    store(engine, space, lang="ko")  # grounding not recorded
    old = store(engine, space, lang="ko", grounding="own")
    backdate(engine, old, started=timedelta(days=RETENTION + 1))  # past retention: not counted

    languages = stats(owner)["languages"]
    assert languages == {
        "et": {"turns": 3, "own": 2, "other": 1, "none": 0, "unrecorded": 0, "unanswered": 0},
        "ru": {"turns": 3, "own": 0, "other": 2, "none": 1, "unrecorded": 0, "unanswered": 2},
        "ko": {"turns": 1, "own": 0, "other": 0, "none": 0, "unrecorded": 1, "unanswered": 0},
    }


def test_stats_languages_are_per_site(owner, make_client, log_services, engine, keyring, site):
    store(engine, space_of(engine, keyring, site, "mine"), lang="et", grounding="own")
    other = make_client(log_services, other_site(engine, keyring))
    assert stats(other)["languages"] == {}
    assert stats(owner)["languages"]["et"]["own"] == 1


def unanswered_items(client, query: str) -> list[dict]:
    resp = client.get(f"/v1/unanswered?{query}")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()["items"]


def test_unanswered_questions_filter_by_language(owner):
    assert ask(owner, "Kas te saadate Marsile?", lang="et")["unanswered"] is True
    assert ask(owner, "Do you ship to Mars?", lang="en")["unanswered"] is True

    assert [i["question"] for i in unanswered_items(owner, "status=open&lang=et")] == ["Kas te saadate Marsile?"]
    assert [i["question"] for i in unanswered_items(owner, "lang=et-EE")] == ["Kas te saadate Marsile?"]
    assert [i["question"] for i in unanswered_items(owner, "status=all&lang=en")] == ["Do you ship to Mars?"]
    assert unanswered_items(owner, "lang=ko") == []
    assert len(unanswered_items(owner, "status=open")) == 2


@pytest.mark.parametrize("lang", ["", "12", "e", "toolongtobealanguage!"])
def test_a_malformed_unanswered_language_is_400_naming_lang(owner, lang):
    resp = owner.get(f"/v1/unanswered?status=open&lang={lang}")
    assert resp.status_code == 400, resp.get_data(as_text=True)
    assert resp.get_json()["error"]["field"] == "lang"


# --- at rest -------------------------------------------------------------------------------

class ScriptedProvider:
    """Answers every turn with one known reply."""

    name = "anthropic"
    default_model = "claude-haiku-4-5"

    def __init__(self, reply: str):
        self.reply = reply

    def chat(self, request) -> ChatResult:
        body = {"reply": self.reply, "quick_replies": [], "action": "none", "unanswered": False, "forget": []}
        return ChatResult(text=json.dumps(body), usage=Usage(), provider=self.name, model=self.default_model)


def test_a_database_dump_holds_no_message_or_reply_in_plaintext(make_services, make_client, engine, site):
    message = "My Quibblefrost account number is 7719-Zanthor, please check it"
    reply = "Your Vermiculon order ships from the Plorkstad warehouse on Friday"
    svc = make_services(retrieval="fulltext", memory=False)
    svc.chain = ProviderChain([(ScriptedProvider(reply), ScriptedProvider.default_model)])
    client = make_client(svc, site)
    conv = ask(client, message, visitor="dump")["conversation_id"]
    assert detail(client, conv)["turns"][0]["reply"] == reply  # readable through the sidecar...

    needles = [s.encode(enc) for s in (message, reply, "Quibblefrost", "Zanthor", "Vermiculon", "Plorkstad")
               for enc in ("utf-8", "utf-16-le")]
    needles += [n.lower() for n in needles]
    with engine.connect() as conn:
        names = conn.execute(text("SHOW TABLES")).scalars().all()
        assert "rtac_turns" in names and "rtac_conversations" in names
        for name in names:
            for row in conn.execute(text(f"SELECT * FROM `{name}`")).all():  # ...and from no row of any table
                for value in row:
                    if isinstance(value, (str, bytes, bytearray)):
                        raw = bytes(value) if not isinstance(value, str) else value.encode()
                        assert not any(n in raw or n in raw.lower() for n in needles), name


# --- the migration ---------------------------------------------------------------------------

def test_the_migration_fills_the_log_summary_of_earlier_conversations(mariadb, keyring, tmp_path):
    admin = create_engine(mariadb + "/mysql")
    with admin.begin() as conn:
        conn.execute(text("DROP DATABASE IF EXISTS rtac_log_migrate_t"))
        conn.execute(text("CREATE DATABASE rtac_log_migrate_t CHARACTER SET utf8mb4"))
    eng = create_engine(mariadb + "/rtac_log_migrate_t")
    try:
        before, upto = tmp_path / "before", tmp_path / "upto"
        before.mkdir()
        upto.mkdir()
        for name, path in migrations():
            if name < "006":
                shutil.copy(path, before / path.name)
            if name < "007":
                shutil.copy(path, upto / path.name)
        migrate(eng, before)
        now = utcnow().replace(microsecond=0)
        with eng.begin() as conn:
            conn.execute(text("INSERT INTO rtac_sites (id, secret_enc, wrapped_key, key_id) VALUES"
                              " ('old', x'00', x'00', x'00')"))
            conn.execute(text("INSERT INTO rtac_spaces (site_id, identity_hash, wrapped_key, key_id) VALUES"
                              " ('old', :h, x'00', x'00')"), {"h": b"\x01" * 32})
            space_id = conn.execute(text("SELECT id FROM rtac_spaces")).scalar_one()
            for conv, turns in (("a" * 32, [("et", 0, 0), ("en", 1, 0), ("en", 0, 0)]),
                                ("b" * 32, [("ru", 0, 1)])):
                conn.execute(text("INSERT INTO rtac_conversations (id, site_id, space_id, created_at, updated_at)"
                                  " VALUES (:id, 'old', :s, :t, :t)"), {"id": conv, "s": space_id, "t": now})
                for seq, (lang, unanswered, degraded) in enumerate(turns, 1):
                    conn.execute(text(
                        "INSERT INTO rtac_turns (site_id, space_id, conversation_id, seq, lang, content_enc, action,"
                        " unanswered, degraded, provider, model) VALUES ('old', :s, :c, :q, :l, x'00', 'none',"
                        " :u, :d, 'offline', 'offline')"),
                        {"s": space_id, "c": conv, "q": seq, "l": lang, "u": unanswered, "d": degraded})
        assert migrate(eng, upto) == ["006_conversation_log"]
        with eng.connect() as conn:
            rows = conn.execute(text("SELECT id, lang, turn_count, last_seq, unanswered, degraded, lead_captured,"
                                     " forgot FROM rtac_conversations ORDER BY id")).all()
            groundings = conn.execute(text("SELECT DISTINCT grounding FROM rtac_turns")).scalars().all()
        assert [tuple(r) for r in rows] == [("a" * 32, "et", 3, 3, 1, 0, 0, 0), ("b" * 32, "ru", 1, 1, 0, 1, 0, 0)]
        assert groundings == [None]  # not known for earlier turns, and not guessed
    finally:
        eng.dispose()
        with admin.begin() as conn:
            conn.execute(text("DROP DATABASE IF EXISTS rtac_log_migrate_t"))
        admin.dispose()
