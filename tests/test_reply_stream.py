"""ReplyFieldReader: the `reply` field decoded out of JSON that is still arriving."""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidecar.reply import parse_reply
from sidecar.reply_stream import ReplyFieldReader


def read(pieces) -> str:
    reader = ReplyFieldReader()
    return "".join(reader.feed(piece) for piece in pieces)


def every_split(text: str):
    """The text in two pieces, cut at each position, and one character at a time."""
    for cut in range(len(text) + 1):
        yield [text[:cut], text[cut:]]
    yield list(text)


ESCAPED = r'{"reply": "a\n\"b\"\\c\/d\u00e9\ud83d\ude00\t\u20ac", "action": "none"}'


@pytest.mark.parametrize("pieces", list(every_split(ESCAPED)))
def test_every_escape_decodes_wherever_the_pieces_are_cut(pieces):
    assert read(pieces) == json.loads(ESCAPED)["reply"] == 'a\n"b"\\c/dé😀\t€'


def test_a_surrogate_pair_split_between_pieces_comes_out_whole():
    reader = ReplyFieldReader()
    assert reader.feed('{"reply": "\\ud83d') == ""
    assert reader.feed("\\ude") == ""
    assert reader.feed('00!"}') == "😀!"
    assert reader.done


def test_a_lone_high_surrogate_reads_as_json_loads_reads_it():
    text = '{"reply": "\\ud83dx\\ud83d\\u0041"}'
    assert read(list(text)) == json.loads(text)["reply"]


def test_output_arrives_as_the_field_grows():
    reader = ReplyFieldReader()
    assert reader.feed('{"quick_replies": ["Hours"], "re') == ""
    assert reader.feed('ply": "We open') == "We open"
    assert reader.feed(" at 9") == " at 9"
    assert reader.feed('.", "action": "none"}') == "."
    assert reader.done


@pytest.mark.parametrize("text, reply", [
    ('{"action": "reply", "reply": "yes"}', "yes"),
    ('{"meta": {"reply": "nested"}, "reply": "top"}', "top"),
    ('{"list": [{"reply": "in a list"}, "reply"], "reply": "top"}', "top"),
    ('{"note": "say \\"reply\\": \\"no\\"", "reply": "top"}', "top"),
    ('{"replying": "no", "reply": "top"}', "top"),
    ('{"n": -1.5e3, "ok": true, "x": null, "reply": "after literals"}', "after literals"),
    ('\n  {\n  "reply"  :\n  "spaced"\n}\n', "spaced"),
    ('{"reply": "first", "quick_replies": [], "action": "none", "unanswered": false, "forget": []}', "first"),
])
def test_only_the_top_level_key_counts(text, reply):
    for pieces in every_split(text):
        assert read(pieces) == reply


@pytest.mark.parametrize("fence", ["```json\n", "```\n", "```JSON  \n"])
def test_a_code_fence_around_the_object_is_read_through(fence):
    text = fence + '{"reply": "fenced"}\n```'
    for pieces in every_split(text):
        assert read(pieces) == "fenced"


@pytest.mark.parametrize("text", [
    'Sorry, I can only answer in prose: {"reply": "no"}',
    '["reply", "no"]',
    '"reply"',
    '{"reply": null, "other": "reply"}',
    '{"reply": ["no"]}',
    '{"other": "x" "reply": "no"}',  # a missing comma: json.loads rejects the object
    '``json\n{"reply": "no"}',
    '{"meta": {"reply": "nested only"}}',
])
def test_what_is_not_a_top_level_reply_string_yields_nothing(text):
    for pieces in every_split(text):
        assert read(pieces) == ""


def test_broken_json_stops_the_output_where_it_breaks():
    reader = ReplyFieldReader()
    assert reader.feed('{"reply": "fine so far') == "fine so far"
    assert reader.feed('\\x and more"}') == ""  # \x is no JSON escape
    assert reader.failed and not reader.done
    assert reader.feed(" anything") == ""


def test_a_raw_newline_inside_the_string_is_read_as_the_reply_parser_reads_it():
    text = '{"reply": "line one\nline\ttwo", "action": "none"}'  # raw, unescaped
    for pieces in every_split(text):
        assert read(pieces) == json.loads(text, strict=False)["reply"] == parse_reply(text).reply


def test_control_characters_between_the_tokens_are_scrubbed_as_the_reply_parser_does():
    text = '{\x01"action": "none",\x7f "reply": "ok"}'
    assert read(list(text)) == "ok" == parse_reply(text).reply


def test_after_the_field_nothing_more_is_read():
    reader = ReplyFieldReader()
    assert reader.feed('{"reply": "one", "reply": "two"}') == "one"
    assert reader.done
    assert reader.feed("more") == ""


# --- any reply, any other fields, any order, any split ------------------------------------

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) \
    | st.text(max_size=12) | st.just("reply")
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6) | st.just("reply"), inner,
                                                                max_size=3),
    max_leaves=10)


@st.composite
def documents(draw):
    reply = draw(st.text())
    others = draw(st.dictionaries(st.text(max_size=8).filter(lambda k: k != "reply"), json_values, max_size=5))
    items = list(others.items())
    items.insert(draw(st.integers(0, len(items))), ("reply", reply))
    obj = dict(items)
    text = json.dumps(obj, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, 0, 2, "\t"])),
                      separators=draw(st.sampled_from([None, (",", ":"), (" , ", " : ")])))
    if draw(st.booleans()):
        text = f"```json\n{text}\n```"
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=30)))
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    return obj, pieces


@settings(max_examples=400, deadline=None)
@given(documents())
def test_the_pieces_read_add_up_to_the_reply(document):
    obj, pieces = document
    reader = ReplyFieldReader()
    assert "".join(reader.feed(piece) for piece in pieces) == obj["reply"]
    assert reader.done


@settings(max_examples=100, deadline=None)
@given(st.text(), st.randoms())
def test_every_prefix_yields_a_prefix_of_the_reply(reply, rnd: random.Random):
    text = json.dumps({"action": "none", "reply": reply, "forget": []}, ensure_ascii=rnd.random() < 0.5)
    reader = ReplyFieldReader()
    seen = ""
    position = 0
    while position < len(text):
        step = rnd.randint(1, 5)
        seen += reader.feed(text[position:position + step])
        position += step
        assert reply.startswith(seen)
    assert seen == reply
