"""Lenient parse and clamp of the `rtac_reply` contract."""
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from sidecar.reply import ACTIONS, REPLY_SCHEMA, parse_reply


def test_valid_json_is_taken_as_is():
    r = parse_reply(json.dumps({"reply": "Hi", "quick_replies": ["Prices?"], "action": "offer_booking",
                                "unanswered": False, "forget": ["m2"]}))
    assert (r.reply, r.quick_replies, r.action, r.unanswered, r.forget) == ("Hi", ["Prices?"], "offer_booking", False, ["m2"])


def test_fenced_json_is_unwrapped():
    text = '```json\n{"reply": "Fenced", "quick_replies": [], "action": "none", "unanswered": true}\n```'
    r = parse_reply(text)
    assert r.reply == "Fenced" and r.unanswered is True
    assert parse_reply('```\n{"reply": "bare fence"}\n```').reply == "bare fence"


def test_plain_text_becomes_the_reply_with_no_buttons():
    r = parse_reply("Sure, we open at ten.")
    assert (r.reply, r.quick_replies, r.action, r.unanswered) == ("Sure, we open at ten.", [], "none", False)


def test_json_without_a_reply_string_is_treated_as_text():
    assert parse_reply('{"answer": "x"}').reply == '{"answer": "x"}'
    assert parse_reply("[1, 2]").reply == "[1, 2]"


def test_clamp_quick_replies_action_unanswered_forget():
    r = parse_reply(json.dumps({
        "reply": "ok", "quick_replies": ["a" * 60, "", 7, "two", "three", "four"],
        "action": "delete_everything", "unanswered": "yes", "forget": ["m1", "x", "m99999", 3, "m2"]}))
    assert r.quick_replies == ["a" * 40, "two", "three"]
    assert r.action == "none"
    assert r.unanswered is True
    assert r.forget == ["m1", "m2"]
    assert parse_reply(json.dumps({"reply": "ok", "unanswered": 1})).unanswered is False


def test_schema_is_named_and_closed():
    assert REPLY_SCHEMA.name == "rtac_reply"
    s = REPLY_SCHEMA.json_schema
    assert set(s["required"]) == {"reply", "quick_replies", "action", "unanswered", "forget"}
    assert s["properties"]["action"]["enum"] == list(ACTIONS) and s["additionalProperties"] is False


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=50),
                           lambda c: st.lists(c, max_size=5) | st.dictionaries(st.text(max_size=12), c, max_size=5),
                           max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=300), json_values.map(json.dumps),
                 st.fixed_dictionaries({"reply": st.text(max_size=50)}, optional={
                     "quick_replies": json_values, "action": json_values, "unanswered": json_values,
                     "forget": json_values}).map(json.dumps)))
def test_whatever_comes_back_is_clamped(text):
    r = parse_reply(text)
    assert isinstance(r.reply, str)
    assert len(r.quick_replies) <= 3 and all(isinstance(q, str) and 0 < len(q) <= 40 for q in r.quick_replies)
    assert r.action in ACTIONS
    assert isinstance(r.unanswered, bool)
    assert all(isinstance(f, str) and f.startswith("m") for f in r.forget)
