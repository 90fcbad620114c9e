"""The plugin and the sidecar agree on what they share.

The plugin keeps the sidecar's terms in one class, Rtac_Protocol
(wp-plugin/includes/class-rtac-protocol.php): the longest message, the actions of a reply,
the quick replies, the turn's deadline, the signature window and the lengths of what a turn
and a document carry. Each is compared here with the sidecar's own value: a named constant
where the sidecar has one, else the limit its validation actually enforces (a value one
character longer than the plugin allows must be refused, naming the plugin's limit). A change
on one side alone fails here.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from sidecar import reply, signing, validation
from sidecar.config import Config
from sidecar.errors import BadRequest

INCLUDES = Path(__file__).resolve().parent.parent / "wp-plugin" / "includes"

# The plugin's files refuse to run outside WordPress unless ABSPATH is defined; these two
# declare constants only, so nothing of WordPress is needed to read them.
_READ = r"""
define('ABSPATH', '/');
require $argv[1] . '/class-rtac-protocol.php';
require $argv[1] . '/class-rtac-chat.php';
echo json_encode([
    'protocol' => (new ReflectionClass('Rtac_Protocol'))->getConstants(),
    'chat_timeout' => Rtac_Chat::TIMEOUT,
]);
"""


@pytest.fixture(scope="module")
def php() -> dict:
    if not shutil.which("php"):
        pytest.fail("php is not installed (apt-get install php-cli)", pytrace=False)
    proc = subprocess.run(["php", "-r", _READ, "--", str(INCLUDES)], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def protocol(php) -> dict:
    return php["protocol"]


def refusal(parse, data: dict) -> str:
    """The message the sidecar's validation refuses `data` with ('' when it accepts it)."""
    try:
        parse(data)
    except BadRequest as exc:
        return exc.message
    return ""


def chat(**fields) -> dict:
    return {"visitor": {"id": "v" * 32}, "message": "Hello", "lang": "en", **fields}


def document(**fields) -> dict:
    return {"documents": [{"source": "page", "source_id": "1", "title": "Prices", **fields}]}


def parse_documents(data: dict):
    return validation.parse_documents(data, "en")


def test_the_plugin_constants_are_read(protocol):
    assert {"MAX_MESSAGE", "ACTIONS", "TURN_DEADLINE", "SIGNATURE_WINDOW"} <= set(protocol)


def test_the_longest_message(protocol):
    assert protocol["MAX_MESSAGE"] == validation.MAX_MESSAGE


def test_the_actions_of_a_reply(protocol):
    assert protocol["ACTIONS"] == list(reply.ACTIONS)


def test_the_quick_replies(protocol):
    assert protocol["MAX_QUICK_REPLIES"] == reply.MAX_QUICK_REPLIES


def test_the_turn_deadline_and_the_plugin_waits_longer(protocol, php):
    assert protocol["TURN_DEADLINE"] == Config.turn_deadline
    assert php["chat_timeout"] > Config.turn_deadline, "the sidecar's offline answer must arrive in time"


def test_the_signature_window(protocol):
    assert protocol["SIGNATURE_WINDOW"] == signing.MAX_SKEW


def test_the_pinned_entries(protocol):
    assert protocol["MAX_PINNED"] == validation.MAX_PINNED


def limit_holds(parse, make, limit: int, field: str) -> None:
    """A value of `limit` characters passes the length check; one more is refused with that limit."""
    assert f"at most {limit} characters" not in refusal(parse, make("x" * limit)), field
    assert f"{field}: must be at most {limit} characters" in refusal(parse, make("x" * (limit + 1))), field


def test_the_lengths_of_a_turn(protocol):
    parse = validation.parse_chat
    limit_holds(parse, lambda v: chat(message=v), protocol["MAX_MESSAGE"], "message")
    limit_holds(parse, lambda v: chat(conversation_id=v), protocol["MAX_CONVERSATION_ID"], "conversation_id")
    limit_holds(parse, lambda v: chat(lang=v), protocol["MAX_LANG"], "lang")
    limit_holds(parse, lambda v: chat(page={"url": v}), protocol["MAX_URL"], "page.url")
    limit_holds(parse, lambda v: chat(page={"title": v}), protocol["MAX_TITLE"], "page.title")
    limit_holds(parse, lambda v: chat(pinned=[{"title": v, "content": "x"}]), protocol["MAX_TITLE"], "pinned[0].title")
    limit_holds(parse, lambda v: chat(pinned=[{"title": "t", "content": v}]), protocol["MAX_PINNED_CONTENT"],
                "pinned[0].content")


def test_the_lengths_of_a_document(protocol):
    limit_holds(parse_documents, lambda v: document(title=v), protocol["MAX_TITLE"], "documents[0].title")
    limit_holds(parse_documents, lambda v: document(url=v), protocol["MAX_URL"], "documents[0].url")
    limit_holds(parse_documents, lambda v: document(content=v), protocol["MAX_DOCUMENT_CONTENT"],
                "documents[0].content")


def test_a_limit_that_differs_is_noticed():
    """The check itself: a plugin limit one below or above the sidecar's fails it."""
    make = lambda v: chat(page={"title": v})  # noqa: E731
    for wrong in (511, 513):
        with pytest.raises(AssertionError):
            limit_holds(validation.parse_chat, make, wrong, "page.title")
