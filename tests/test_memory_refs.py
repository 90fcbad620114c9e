"""The refs a model names memories by: what the sidecar shows, both parsers take back."""
import json

import pytest

from sidecar.memory import extract
from sidecar.memory.refs import as_ref, ref
from sidecar.reply import parse_reply


@pytest.mark.parametrize("n", [1, 9, 10, 99, 100, 999, 1000])
def test_a_shown_ref_is_taken_back_by_the_reply_and_the_extraction(n):
    name = ref(n)
    reply = parse_reply(json.dumps({"reply": "ok", "quick_replies": [], "action": "none", "unanswered": False,
                                    "forget": [f" {name} "]}))
    entries = extract.parse(json.dumps({"entries": [{"kind": "fact", "content": "Has two kids.",
                                                     "importance": 3, "updates": name}]}))
    assert reply.forget == [name]
    assert [e.updates for e in entries] == [name]


@pytest.mark.parametrize("value", ["m0", "M1", "m01", "m", "m12345", "m1\x00", "mm1", "1", 1, None, ["m1"]])
def test_what_is_no_ref_is_dropped(value):
    assert as_ref(value) is None
    entries = extract.parse(json.dumps({"entries": [{"kind": "fact", "content": "Has two kids.",
                                                     "updates": value}]}))
    assert [e.updates for e in entries] == [None]
