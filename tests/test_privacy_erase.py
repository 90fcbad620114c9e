"""Export and erase cover the unanswered questions a customer asked (docs/api.md,
privacy export and erase: `questions` in the export; erase removes the questions only
that customer asked and takes their count off the others)."""
from __future__ import annotations

from sqlalchemy import func, inspect, select

from sidecar import tables, unanswered
from sidecar.spaces import find_space, resolve_space

PAGE = "https://example.test/shipping"


def customer(engine, keyring, site, visitor_id: str):
    with engine.begin() as conn:
        return resolve_space(conn, keyring, site, f"v:{visitor_id}")


def ask(engine, site, space, question: str, lang: str = "en"):
    with engine.begin() as conn:
        unanswered.record(conn, site, question, lang, PAGE, space=space)


def report(client) -> dict[str, dict]:
    resp = client.get("/v1/unanswered")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return {item["question"]: item for item in resp.get_json()["items"]}


def export(client, visitor_id: str) -> dict:
    resp = client.post("/v1/privacy/export", {"visitor": {"id": visitor_id}})
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()


def erase(client, visitor_id: str) -> dict:
    resp = client.post("/v1/privacy/erase", {"visitor": {"id": visitor_id}})
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()


def test_export_lists_the_unanswered_questions_the_customer_asked(client, engine, keyring, site):
    ann = customer(engine, keyring, site, "ann")
    ask(engine, site, ann, "Do you ship to Saaremaa?")
    ask(engine, site, ann, "Kas te parandate e-rattaid?", lang="et")
    ask(engine, site, customer(engine, keyring, site, "bob"), "Do you sell gift cards?")
    questions = export(client, "ann")["questions"]
    assert [(q["question"], q["lang"]) for q in questions] == [("Do you ship to Saaremaa?", "en"),
                                                              ("Kas te parandate e-rattaid?", "et")]
    assert set(questions[0]) == {"question", "lang", "asked_at"}
    assert questions[0]["asked_at"].endswith("Z")
    assert [q["question"] for q in export(client, "bob")["questions"]] == ["Do you sell gift cards?"]
    assert export(client, "nobody") == {"memories": [], "questions": []}


def test_erase_removes_questions_only_that_customer_asked(client, engine, keyring, site):
    ann = customer(engine, keyring, site, "ann")
    ask(engine, site, ann, "Do you ship to Saaremaa?")
    ask(engine, site, ann, "do you ship to saaremaa")  # the same question again: count 2, both hers
    ask(engine, site, customer(engine, keyring, site, "bob"), "Do you sell gift cards?")
    assert report(client)["Do you ship to Saaremaa?"]["count"] == 2
    assert erase(client, "ann") == {"erased": True, "memories": 0, "turns": 0}
    left = report(client)
    assert "Do you ship to Saaremaa?" not in left
    assert left["Do you sell gift cards?"]["count"] == 1
    assert export(client, "ann") == {"memories": [], "questions": []}
    assert [q["question"] for q in export(client, "bob")["questions"]] == ["Do you sell gift cards?"]


def test_a_question_others_asked_too_stays_and_loses_the_erased_customers_count(client, engine, keyring, site):
    ann, bob = customer(engine, keyring, site, "ann"), customer(engine, keyring, site, "bob")
    ask(engine, site, ann, "Are you open on Sundays?")
    ask(engine, site, bob, "Are you open on sundays")
    ask(engine, site, ann, "are you open on Sundays!")
    assert report(client)["Are you open on Sundays?"]["count"] == 3
    erase(client, "ann")
    item = report(client)["Are you open on Sundays?"]
    assert item["count"] == 1
    assert [q["question"] for q in export(client, "bob")["questions"]] == ["Are you open on Sundays?"]
    with engine.connect() as conn:
        askers = conn.execute(select(tables.unanswered_askers.c.space_id)
                              .where(tables.unanswered_askers.c.unanswered_id == item["id"])).scalars().all()
    assert askers == [bob.id]
    erase(client, "bob")
    assert "Are you open on Sundays?" not in report(client)


def test_askings_without_a_known_customer_count_as_someone_elses(client, engine, keyring, site):
    """Questions recorded before askers were (or without a space) keep their count."""
    with engine.begin() as conn:
        unanswered.record(conn, site, "Can I pay by invoice?", "en", PAGE)  # no space: the old call
    ask(engine, site, customer(engine, keyring, site, "ann"), "Can I pay by invoice?")
    assert report(client)["Can I pay by invoice?"]["count"] == 2
    erase(client, "ann")
    assert report(client)["Can I pay by invoice?"]["count"] == 1


def test_erase_reaches_the_question_when_the_customer_has_other_data_too(client, engine, keyring, site):
    from tests.conftest import chat_payload
    assert client.post("/v1/chat", chat_payload("Hello there", visitor="ann")).status_code == 200
    with engine.connect() as conn:
        ann = find_space(conn, keyring, site, "v:ann")
    ask(engine, site, ann, "Do you rent trailers?")
    assert erase(client, "ann") == {"erased": True, "memories": 0, "turns": 1}
    assert "Do you rent trailers?" not in report(client)
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(tables.unanswered_askers)
                            .where(tables.unanswered_askers.c.site_id == site.id)).scalar_one() == 0


def test_erasing_one_site_customer_leaves_another_sites_questions(client, make_client, services, engine, keyring,
                                                                  site):
    import secrets

    from sidecar.sites import add_site
    other = add_site(engine, keyring, "t-" + secrets.token_hex(6))
    ask(engine, site, customer(engine, keyring, site, "ann"), "Do you fix tubeless tyres?")
    ask(engine, other, customer(engine, keyring, other, "ann"), "Do you fix tubeless tyres?")
    erase(client, "ann")
    assert "Do you fix tubeless tyres?" not in report(client)
    assert report(make_client(services, other))["Do you fix tubeless tyres?"]["count"] == 1


def test_askers_hold_no_customer_text(engine, keyring, site):
    ask(engine, site, customer(engine, keyring, site, "ann"), "Is the Riverside shop open late?")
    columns = {c["name"] for c in inspect(engine).get_columns("rtac_unanswered_askers")}
    assert columns == {"id", "site_id", "unanswered_id", "space_id", "lang", "asked_at"}
    with engine.connect() as conn:
        row = conn.execute(select(tables.unanswered_askers).where(
            tables.unanswered_askers.c.site_id == site.id)).mappings().one()
    assert not any(isinstance(v, (bytes, str)) and "Riverside" in str(v) for v in row.values())


def test_a_space_of_another_site_is_refused(engine, keyring, site):
    import secrets

    import pytest

    from sidecar.sites import add_site
    other = add_site(engine, keyring, "t-" + secrets.token_hex(6))
    with pytest.raises(ValueError):
        ask(engine, site, customer(engine, keyring, other, "ann"), "Is this mine?")
