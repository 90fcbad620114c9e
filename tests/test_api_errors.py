"""Bad input to the API (docs/api.md, "Errors"): a 400 naming the field, in the
one JSON error shape, with nothing written; 413 only over the server's body limit;
404/405 as JSON; never a 500, whatever the body."""
from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from .conftest import chat_payload

CHAT_TABLES = ("rtac_turns", "rtac_conversations", "rtac_spaces")


# --- helpers ---------------------------------------------------------------------------

def row_counts(engine, site_id: str, tables=CHAT_TABLES) -> dict[str, int]:
    with engine.connect() as conn:
        return {tbl: conn.execute(text(f"SELECT COUNT(*) FROM {tbl} WHERE site_id = :s"), {"s": site_id}).scalar()
                for tbl in tables}


def assert_error_shape(resp, status: int) -> dict:
    assert resp.status_code == status, (resp.status_code, resp.get_data(as_text=True))
    assert resp.is_json, resp.get_data(as_text=True)
    err = resp.get_json()["error"]
    assert isinstance(err["code"], str) and err["code"]
    assert isinstance(err["message"], str) and err["message"]
    assert isinstance(err["retryable"], bool)
    return err


def assert_bad_request(resp, field: str) -> dict:
    err = assert_error_shape(resp, 400)
    assert err["field"] == field, err
    assert err["retryable"] is False
    return err


def set_path(body: dict, path: str, value) -> dict:
    """A copy of `body` with `a.b` set to value (or removed when value is DROP)."""
    body = copy.deepcopy(body)
    *parents, last = path.split(".")
    node = body
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if value is DROP:
        if isinstance(node, list):
            del node[int(last)]
        else:
            node.pop(last, None)
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return body


DROP = object()


def valid_chat(**extra) -> dict:
    body = chat_payload("Do you deliver on Sundays?", pinned=[{"title": "Delivery", "content": "We deliver Mon-Fri."}],
                        **extra)
    body["visitor"]["wp_user_id"] = 7
    return body


# --- POST /v1/chat: each bad input names its field, and writes nothing -----------------

def _chat(path, value):
    return json.dumps(set_path(valid_chat(), path, value)).encode()


BAD_CHAT_BODIES = [
    # (case id, raw body, field named in the 400)
    ("invalid-json", b'{"message": "hi", ', "body"),
    ("json-array", b'[{"message": "hi"}]', "body"),
    ("json-string", b'"hi"', "body"),
    ("json-null", b"null", "body"),
    ("empty-body", b"", "body"),
    ("not-utf8", b'{"message": "\xff\xfe"}', "body"),
    ("deeply-nested-json", b"[" * 100_000 + b"]" * 100_000, "body"),
    ("missing-message", _chat("message", DROP), "message"),
    ("null-message", _chat("message", None), "message"),
    ("empty-message", _chat("message", ""), "message"),
    ("whitespace-message", _chat("message", "  \n\t  "), "message"),
    ("4001-char-message", _chat("message", "a" * 4001), "message"),
    ("message-number", _chat("message", 42), "message"),
    ("message-list", _chat("message", ["hi"]), "message"),
    ("message-object", _chat("message", {"text": "hi"}), "message"),
    ("message-lone-surrogate", _chat("message", "PLACEHOLDER").replace(b"PLACEHOLDER", b"hi \\ud800"), "message"),
    ("missing-visitor", _chat("visitor", DROP), "visitor"),
    ("visitor-string", _chat("visitor", "visitor-1"), "visitor"),
    ("visitor-list", _chat("visitor", ["visitor-1"]), "visitor"),
    ("missing-visitor-id", _chat("visitor.id", DROP), "visitor.id"),
    ("visitor-id-number", _chat("visitor.id", 17), "visitor.id"),
    ("visitor-id-blank", _chat("visitor.id", "   "), "visitor.id"),
    ("wp-user-id-zero", _chat("visitor.wp_user_id", 0), "visitor.wp_user_id"),
    ("wp-user-id-negative", _chat("visitor.wp_user_id", -4), "visitor.wp_user_id"),
    ("wp-user-id-float", _chat("visitor.wp_user_id", 1.5), "visitor.wp_user_id"),
    ("wp-user-id-bool", _chat("visitor.wp_user_id", True), "visitor.wp_user_id"),
    ("wp-user-id-word", _chat("visitor.wp_user_id", "admin"), "visitor.wp_user_id"),
    ("wp-user-id-superscript", _chat("visitor.wp_user_id", "\u00b2"), "visitor.wp_user_id"),
    ("wp-user-id-list", _chat("visitor.wp_user_id", [1]), "visitor.wp_user_id"),
    ("missing-lang", _chat("lang", DROP), "lang"),
    ("lang-english!!", _chat("lang", "english!!"), "lang"),
    ("lang-empty", _chat("lang", ""), "lang"),
    ("lang-number", _chat("lang", 5), "lang"),
    ("page-string", _chat("page", "https://example.test/"), "page"),
    ("page-list", _chat("page", []), "page"),
    ("page-url-number", _chat("page.url", 5), "page.url"),
    ("page-url-object", _chat("page.url", {"href": "x"}), "page.url"),
    ("page-title-number", _chat("page.title", 5), "page.title"),
    ("lead-captured-string", _chat("lead_captured", "yes"), "lead_captured"),
    ("lead-captured-int", _chat("lead_captured", 1), "lead_captured"),
    ("pinned-string", _chat("pinned", "Prices: 3 EUR"), "pinned"),
    ("pinned-object", _chat("pinned", {"title": "Prices", "content": "3 EUR"}), "pinned"),
    ("pinned-empty-object", _chat("pinned", {}), "pinned"),
    ("pinned-false", _chat("pinned", False), "pinned"),
    ("pinned-number", _chat("pinned", 3), "pinned"),
    ("pinned-entry-string", _chat("pinned", ["Prices: 3 EUR"]), "pinned[0]"),
    ("pinned-entry-no-content", _chat("pinned", [{"title": "Prices"}]), "pinned[0].content"),
    ("pinned-second-entry-no-content", _chat("pinned", [{"title": "A", "content": "a"}, {"title": "B"}]),
     "pinned[1].content"),
    ("pinned-content-number", _chat("pinned", [{"title": "Prices", "content": 3}]), "pinned[0].content"),
    ("conversation-id-number", _chat("conversation_id", 12345), "conversation_id"),
]


@pytest.mark.parametrize("raw,field", [c[1:] for c in BAD_CHAT_BODIES], ids=[c[0] for c in BAD_CHAT_BODIES])
def test_bad_chat_input_is_400_naming_the_field_and_writes_nothing(client, site, engine, raw, field):
    before = row_counts(engine, site.id)
    assert_bad_request(client.post("/v1/chat", raw=raw), field)
    assert row_counts(engine, site.id) == before


def test_the_valid_base_body_is_accepted_and_writes(client, site, engine):
    """The control for the cases above: without the mutation the same body is a 200 that writes."""
    resp = client.post("/v1/chat", valid_chat())
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert row_counts(engine, site.id) == {"rtac_turns": 1, "rtac_conversations": 1, "rtac_spaces": 1}


def test_4000_character_message_passes(client):
    resp = client.post("/v1/chat", chat_payload("a" * 4000))
    assert resp.status_code == 200, resp.get_data(as_text=True)


def test_4000_characters_count_code_points_not_bytes(client):
    resp = client.post("/v1/chat", chat_payload("ü" * 4000))
    assert resp.status_code == 200, resp.get_data(as_text=True)


@pytest.mark.parametrize("lang", ["en", "et-EE", "ET", "et_EE"])
def test_language_tags_pass(client, lang):
    assert client.post("/v1/chat", chat_payload("Hello", lang=lang)).status_code == 200


def test_optional_fields_may_be_absent(client):
    body = {"visitor": {"id": "v-min"}, "message": "Hello", "lang": "en"}
    assert client.post("/v1/chat", body).status_code == 200


# --- PUT /v1/documents and DELETE /v1/documents ----------------------------------------

def doc(i: int, **over) -> dict:
    d = {"source": "page", "source_id": str(i), "lang": "en", "title": f"Page {i}",
         "url": f"https://example.test/p{i}", "content": f"<p>Page number {i} about delivery.</p>",
         "modified": "2024-05-01T10:00:00Z"}
    d.update(over)
    return {k: v for k, v in d.items() if v is not DROP}


def document_rows(engine, site_id: str) -> int:
    return row_counts(engine, site_id, ("rtac_documents",))["rtac_documents"]


BAD_DOCUMENT_BODIES = [
    ("missing-documents", {}, "documents"),
    ("documents-null", {"documents": None}, "documents"),
    ("documents-string", {"documents": "page 1"}, "documents"),
    ("documents-object", {"documents": doc(1)}, "documents"),
    ("entry-not-object", {"documents": ["page 1"]}, "documents[0]"),
    ("missing-source-id", {"documents": [doc(1, source_id=DROP)]}, "documents[0].source_id"),
    ("blank-source-id", {"documents": [doc(1, source_id=" ")]}, "documents[0].source_id"),
    ("source-id-list", {"documents": [doc(1, source_id=[1])]}, "documents[0].source_id"),
    ("missing-source", {"documents": [doc(1, source=DROP)]}, "documents[0].source"),
    ("bad-source", {"documents": [doc(1, source="post type!")]}, "documents[0].source"),
    ("source-number", {"documents": [doc(1, source=5)]}, "documents[0].source"),
    ("bad-modified", {"documents": [doc(1, modified="last tuesday")]}, "documents[0].modified"),
    ("modified-number", {"documents": [doc(1, modified=1714557600)]}, "documents[0].modified"),
    ("modified-out-of-range", {"documents": [doc(1, modified="0001-01-01T00:00:00+01:00")]},
     "documents[0].modified"),
    ("bad-lang", {"documents": [doc(1, lang="english!!")]}, "documents[0].lang"),
    ("content-number", {"documents": [doc(1, content=5)]}, "documents[0].content"),
]


@pytest.mark.parametrize("payload,field", [c[1:] for c in BAD_DOCUMENT_BODIES],
                         ids=[c[0] for c in BAD_DOCUMENT_BODIES])
def test_bad_documents_input_is_400_naming_the_field(client, site, engine, payload, field):
    assert_bad_request(client.put("/v1/documents", payload), field)
    assert document_rows(engine, site.id) == 0


def test_documents_invalid_json_is_400(client):
    assert_bad_request(client.put("/v1/documents", raw=b"{documents: []}"), "body")


def test_batch_with_third_document_invalid_writes_nothing(client, site, engine):
    batch = {"documents": [doc(1), doc(2), doc(3, modified="not a date")]}
    assert_bad_request(client.put("/v1/documents", batch), "documents[2].modified")
    assert document_rows(engine, site.id) == 0
    # The control: the same batch made valid writes all three.
    batch["documents"][2] = doc(3)
    resp = client.put("/v1/documents", batch)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.get_json()["upserted"] == 3
    assert document_rows(engine, site.id) == 3


def test_delete_document_missing_source_is_400(client, site, engine):
    assert client.put("/v1/documents", {"documents": [doc(1)]}).status_code == 200
    assert_bad_request(client.delete("/v1/documents", {"source_id": "1"}), "source")
    assert document_rows(engine, site.id) == 1


def test_delete_document_missing_source_id_is_400(client):
    assert_bad_request(client.delete("/v1/documents", {"source": "page"}), "source_id")


def test_delete_document_works(client, site, engine):
    assert client.put("/v1/documents", {"documents": [doc(1)]}).status_code == 200
    resp = client.delete("/v1/documents", {"source": "page", "source_id": "1"})
    assert resp.status_code == 200 and resp.get_json() == {"deleted": 1}
    assert document_rows(engine, site.id) == 0


# --- size limit, unknown routes and methods --------------------------------------------

def big_chat(total_bytes: int) -> bytes:
    """A valid chat body of about `total_bytes`: the bulk is pinned knowledge, which has no
    field limit at this size, so only the server's body limit can refuse it."""
    body = chat_payload("What does coffee cost?", pinned=[{"title": "Prices", "content": "x"}])
    base = len(json.dumps(body).encode())
    body["pinned"][0]["content"] = "Coffee costs 3 EUR. " * ((total_bytes - base) // 20)
    return json.dumps(body).encode()


def test_body_over_the_server_limit_is_413_json(make_services, make_client, site, engine):
    client = make_client(make_services(max_body_bytes=65536), site)
    raw = big_chat(70 * 1024)
    assert len(raw) > 65536
    err = assert_error_shape(client.post("/v1/chat", raw=raw), 413)
    assert err["retryable"] is False
    assert row_counts(engine, site.id)["rtac_turns"] == 0


def test_body_under_the_server_limit_is_not_413(make_services, make_client, site):
    client = make_client(make_services(max_body_bytes=65536), site)
    raw = big_chat(60 * 1024)
    assert len(raw) < 65536
    resp = client.post("/v1/chat", raw=raw)
    assert resp.status_code == 200, resp.get_data(as_text=True)


def test_70kb_passes_under_the_default_limit(client):
    """413 is the server's limit, not a fixed size: the default (2 MB) takes 70 KB."""
    assert client.post("/v1/chat", raw=big_chat(70 * 1024)).status_code == 200


@pytest.mark.parametrize("signed", [True, False])
def test_unknown_route_is_404_json(client, signed):
    resp = client.get("/v1/nope") if signed else client.http.get("/v1/nope")
    assert assert_error_shape(resp, 404)["retryable"] is False


@pytest.mark.parametrize("method,path", [("GET", "/v1/chat"), ("DELETE", "/v1/chat"), ("POST", "/v1/documents"),
                                         ("PUT", "/v1/stats"), ("GET", "/v1/unanswered/1/resolve")])
def test_wrong_method_is_405_json(client, method, path):
    resp = client.request(method, path, None if method == "GET" else {})
    assert assert_error_shape(resp, 405)["retryable"] is False


# --- a conversation id of another visitor ----------------------------------------------

def test_conversation_id_of_another_visitors_space_is_ignored(client, site, engine):
    alice = client.post("/v1/chat", chat_payload("Hello, I am Alice", visitor="alice"))
    assert alice.status_code == 200
    alice_conv = alice.get_json()["conversation_id"]

    # Alice continuing her own conversation keeps the id (the control).
    again = client.post("/v1/chat", chat_payload("Still me", visitor="alice", conversation_id=alice_conv))
    assert again.get_json()["conversation_id"] == alice_conv

    mallory = client.post("/v1/chat", chat_payload("Hi", visitor="mallory", conversation_id=alice_conv))
    assert mallory.status_code == 200
    mallory_conv = mallory.get_json()["conversation_id"]
    assert mallory_conv != alice_conv
    with engine.connect() as conn:
        turns = dict(conn.execute(text("SELECT conversation_id, COUNT(*) FROM rtac_turns WHERE site_id = :s"
                                       " GROUP BY conversation_id"), {"s": site.id}).all())
        spaces = conn.execute(text("SELECT COUNT(DISTINCT space_id) FROM rtac_conversations"
                                   " WHERE id IN (:a, :b)"), {"a": alice_conv, "b": mallory_conv}).scalar()
    assert turns == {alice_conv: 2, mallory_conv: 1}
    assert spaces == 2


def test_conversation_id_of_the_same_visitor_on_another_site_is_ignored(client, site, engine, keyring,
                                                                         make_client, services):
    from secrets import token_hex

    from sidecar.sites import add_site
    first = client.post("/v1/chat", chat_payload("Hello", visitor="v-shared")).get_json()["conversation_id"]
    other = make_client(services, add_site(engine, keyring, "t-" + token_hex(6)))
    resp = other.post("/v1/chat", chat_payload("Hello", visitor="v-shared", conversation_id=first))
    assert resp.status_code == 200
    assert resp.get_json()["conversation_id"] != first


@pytest.mark.parametrize("bogus", ["not-a-conversation", "0" * 32, "'; DROP TABLE rtac_turns; --"])
def test_unknown_conversation_id_starts_a_new_conversation(client, bogus):
    resp = client.post("/v1/chat", chat_payload("Hello", conversation_id=bogus))
    assert resp.status_code == 200
    assert resp.get_json()["conversation_id"] != bogus


# --- property: whatever the body, 200 or 400, never 5xx --------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2 ** 70), max_value=2 ** 70)
    | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=12,
)
oversized = st.builds(lambda ch, n: ch * n, st.sampled_from(["a", "ü", " ", "€", "😀", "\x00"]),
                      st.integers(min_value=3990, max_value=5000))
PATHS = ["message", "lang", "visitor", "visitor.id", "visitor.wp_user_id", "page", "page.url", "page.title",
         "lead_captured", "pinned", "pinned.0", "pinned.0.title", "pinned.0.content", "conversation_id"]
mutations = st.lists(st.tuples(st.sampled_from(PATHS), st.just(DROP) | json_values | oversized),
                     min_size=1, max_size=4)


def mutate(body: dict, changes) -> dict:
    for path, value in changes:
        try:
            body = set_path(body, path, value)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            pass  # an earlier change retyped a parent: nothing to set
    return body


def assert_200_or_400(resp):
    assert resp.status_code in (200, 400), (resp.status_code, resp.get_data(as_text=True))
    if resp.status_code == 400:
        err = assert_error_shape(resp, 400)
        assert isinstance(err["field"], str) and err["field"]
    else:
        assert isinstance(resp.get_json()["reply"], str)


FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@FUZZ
@given(value=json_values)
def test_random_json_values_never_5xx(client, value):
    assert_200_or_400(client.post("/v1/chat", raw=json.dumps(value).encode()))


@FUZZ
@given(changes=mutations)
def test_mutated_chat_bodies_never_5xx(client, changes):
    assert_200_or_400(client.post("/v1/chat", mutate(valid_chat(), changes)))


@FUZZ
@given(raw=st.binary(max_size=200))
def test_random_bytes_never_5xx(client, raw):
    assert_200_or_400(client.post("/v1/chat", raw=raw))


DOCUMENT_PATHS = ["documents", "documents.0", "documents.0.source", "documents.0.source_id", "documents.0.lang",
                  "documents.0.title", "documents.0.url", "documents.0.content", "documents.0.modified"]


@FUZZ
@given(changes=st.lists(st.tuples(st.sampled_from(DOCUMENT_PATHS), st.just(DROP) | json_values | oversized),
                        min_size=1, max_size=3))
def test_mutated_document_batches_never_5xx(client, changes):
    resp = client.put("/v1/documents", mutate({"documents": [doc(1), doc(2)]}, changes))
    assert resp.status_code in (200, 400), (resp.status_code, resp.get_data(as_text=True))
    if resp.status_code == 400:
        assert assert_error_shape(resp, 400)["field"].split(".")[0].split("[")[0] in ("documents", "body")
