"""Lenient parse, scrub and clamp of the `rtac_reply` contract."""
import json
import re
import signal

from hypothesis import given, settings
from hypothesis import strategies as st

from sidecar.reply import ACTIONS, MAX_FORGET_REFS, MAX_REPLY_CHARS, REPLY_SCHEMA, clean_text, parse_reply

_UNCLEAN = re.compile("[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


def _obj(**fields) -> str:
    return json.dumps({"reply": "ok", "quick_replies": [], "action": "none", "unanswered": False, "forget": [],
                       **fields})


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


def test_clean_text_drops_lone_surrogates_and_controls_but_keeps_lines_and_tabs():
    assert clean_text("a\x00b\x1bc\x7fd\r\ne\tf") == "abcd\ne\tf"
    assert clean_text("split \ud83d on\udc00 purpose") == "split  on purpose"
    assert clean_text("\ud83d\ude00") == "\U0001f600"  # the halves of one character, arrived apart
    assert clean_text(b"caf\xc3\xa9 \xff") == "caf\u00e9 \ufffd" and clean_text(None) == ""
    clean_text("x\ud800" * 1000).encode("utf-8")  # storable


def test_odd_characters_are_scrubbed_from_every_field():
    r = parse_reply(_obj(reply="We\x00 open\ud800 at ten.", quick_replies=["Hours\x07?", "\ud83d", "Two\nlines"],
                         forget=["m1\x00"]))
    assert r.reply == "We open at ten."
    assert r.quick_replies == ["Hours?", "Two lines"]
    assert r.forget == []  # "m1\x00" is not a ref
    raw = '{"reply": "Raw\x00 text\ud800 too", "quick_replies": [], "action": "none"}'
    assert parse_reply(raw).reply == "Raw text too"


def test_a_raw_newline_inside_the_json_string_is_still_json():
    r = parse_reply('{"reply": "Line one\nLine two", "quick_replies": ["Yes"], "action": "none"}')
    assert r.reply == "Line one\nLine two" and r.quick_replies == ["Yes"]


def test_a_cut_off_reply_object_gives_its_reply_not_raw_json():
    # Up to the last whole sentence when that keeps most of it, else the last whole word.
    assert parse_reply('{"reply": "We open at ten every weekday morning. On Sun').reply == \
        "We open at ten every weekday morning."
    assert parse_reply('{"reply": "We open at ten. On Sundays we are clo').reply == "We open at ten. On Sundays we are…"
    assert parse_reply('{"reply": "We open at ten and close at seven on wee').reply == \
        "We open at ten and close at seven on…"
    # The reply was complete; the rest of the object was not.
    r = parse_reply('```json\n{"action": "none", "reply": "Yes, we deliver.", "quick_replies": ["Deliv')
    assert (r.reply, r.quick_replies, r.action) == ("Yes, we deliver.", [], "none")
    assert parse_reply('{"quick_replies": [{"x": "]"}], "reply": "Nested first."').reply == "Nested first."
    # Cut in an escape: the broken escape goes, the rest stays.
    assert parse_reply('{"reply": "Caf\\u00e9 open\\u00').reply == "Caf\u00e9…"  # "open" may be "opening"
    assert parse_reply('{"reply": "Say \\"hi\\" tomorrow \\').reply == 'Say "hi" tomorrow…'


def test_an_object_cut_off_before_its_reply_says_nothing():
    # An empty reply: the turn answers from the knowledge instead (sidecar.turn).
    for text in ('{"quick_replies": ["Hours?", "Pri', '{"rep', "```json\n{", '{"action": "none", "unanswered": tr'):
        assert parse_reply(text).reply == ""


def test_text_that_only_looks_like_a_cut_off_object_is_text():
    for text in ('{"reply": 5, "x', "{not json at all", '{"a": , "reply": "x"', '{"reply": "bad \\x escape"}'):
        assert parse_reply(text).reply == text


def test_a_long_reply_is_cut_at_a_sentence_else_a_word():
    sentence = "We open at ten and close at seven. "
    r = parse_reply(_obj(reply=sentence * 1000))
    assert len(r.reply) <= MAX_REPLY_CHARS and r.reply.endswith("seven.") and len(r.reply) > MAX_REPLY_CHARS // 2
    words = parse_reply(_obj(reply="word " * 2000)).reply
    assert len(words) <= MAX_REPLY_CHARS and words.endswith("word…")
    hard = parse_reply("x" * 10_000).reply
    assert len(hard) == MAX_REPLY_CHARS and hard.endswith("…")
    assert len(parse_reply("Hi! " * 100_000).reply) <= MAX_REPLY_CHARS
    exact = "y" * MAX_REPLY_CHARS
    assert parse_reply(_obj(reply=exact)).reply == exact


def test_forget_refs_are_deduplicated_and_capped():
    r = parse_reply(_obj(forget=["m1", "m1", " m2 "] + [f"m{i}" for i in range(3, 200)]))
    assert r.forget[:3] == ["m1", "m2", "m3"] and len(r.forget) == MAX_FORGET_REFS


def test_hostile_shapes_cost_no_more_than_their_length():
    hostile = ["```\n" + " " * 200_000 + "x", "[" * 100_000, '{"reply": "' + '\\"' * 100_000,
               '{"a": "' + '\\"x' * 50_000 + '", "reply": "ok"', "```json\n{" + '"k": [' * 50_000]
    def expire(signum, frame):  # a quadratic reading would take hours: fail at once instead
        raise AssertionError("parsing took more than 5 s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, 5)
    try:
        for text in hostile:
            r = parse_reply(text)
            assert len(r.reply) <= MAX_REPLY_CHARS and not _UNCLEAN.search(r.reply)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert parse_reply('{"a": "' + '\\"x' * 50_000 + '", "reply": "ok"').reply == "ok"


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=50),
                           lambda c: st.lists(c, max_size=5) | st.dictionaries(st.text(max_size=12), c, max_size=5),
                           max_leaves=20)
_ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=300)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_ANY_TEXT, json_values.map(json.dumps),
                 st.fixed_dictionaries({"reply": st.one_of(st.text(max_size=50), _ANY_TEXT)}, optional={
                     "quick_replies": json_values, "action": json_values, "unanswered": json_values,
                     "forget": json_values}).map(json.dumps)).flatmap(
                         lambda s: st.sampled_from([s, s[:len(s) // 2], s * 30, f"```json\n{s}\n```"])))
def test_whatever_comes_back_is_clamped(text):
    r = parse_reply(text)
    assert isinstance(r.reply, str) and len(r.reply) <= MAX_REPLY_CHARS and not _UNCLEAN.search(r.reply)
    r.reply.encode("utf-8")
    assert len(r.quick_replies) <= 3 and all(isinstance(q, str) and 0 < len(q) <= 40 for q in r.quick_replies)
    assert all(not _UNCLEAN.search(q) for q in r.quick_replies)
    assert r.action in ACTIONS
    assert isinstance(r.unanswered, bool)
    assert all(isinstance(f, str) and f.startswith("m") for f in r.forget) and len(r.forget) <= MAX_FORGET_REFS
