"""Plumbing shared by the fake vendor servers.

A fake is a threaded stdlib HTTP server on a free 127.0.0.1 port that records every
request and answers from a script, one item per request, falling back to a valid
`rtac_reply` answer. Script items are vendor-neutral; each fake renders them in its
vendor's wire format, so tests for every provider read alike:

    with FakeOpenAI() as fake:
        fake.script(error(503, "overloaded"), reply_json({...}))
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import socket
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_REPLY = {"reply": "Hello from the fake", "quick_replies": [], "action": "none",
                 "unanswered": False, "forget": []}


# --- script items -------------------------------------------------------------------

@dataclass(frozen=True)
class Reply:
    text: str


@dataclass(frozen=True)
class Error:
    status: int
    message: str
    retry_after: float | None = None


@dataclass(frozen=True)
class Delay:
    seconds: float
    then: object = None  # None: the default reply


@dataclass(frozen=True)
class Raw:
    """An exact response, for shapes the other helpers do not cover."""

    status: int
    body: object
    headers: dict = field(default_factory=dict)


def reply_json(obj: dict) -> Reply:
    return Reply(json.dumps(obj))


def reply_text(text: str) -> Reply:
    return Reply(text)


def error(status: int, message: str, retry_after: float | None = None) -> Error:
    return Error(status, message, retry_after)


def delay(seconds: float, then: object = None) -> Delay:
    return Delay(seconds, then)


def raw(status: int, body: object, headers: dict | None = None) -> Raw:
    return Raw(status, body, dict(headers or {}))


# --- token estimate and implicit prefix caching ---------------------------------------

def tokens(text: str) -> int:
    """The fakes' tokenizer: about four UTF-8 bytes a token."""
    return math.ceil(len(text.encode("utf-8")) / 4)


def _common_prefix_tokens(a: list[tuple[str, str]], b: list[tuple[str, str]]) -> int:
    total = 0
    for (role_a, text_a), (role_b, text_b) in zip(a, b):
        if role_a != role_b:
            break
        if text_a == text_b:
            total += tokens(text_a)
            continue
        common = os.path.commonprefix([text_a.encode("utf-8"), text_b.encode("utf-8")])
        total += len(common) // 4
        break
    return total


class PrefixCache:
    """Implicit prompt caching as OpenAI and Gemini do it: a prompt of at least
    `min_tokens` reads from cache the longest prefix it shares with an earlier prompt
    (under the same cache key, or under any key when it has none), counted in
    `step`-token increments, and only when that prefix is itself `min_tokens` long."""

    def __init__(self, min_tokens: int = 1024, step: int = 1):
        self.min_tokens = min_tokens
        self.step = step
        self._seen: list[tuple[str, list[tuple[str, str]]]] = []
        self._lock = threading.Lock()

    def use(self, key: str, segments: list[tuple[str, str]]) -> tuple[int, int]:
        """Record a prompt given as (role, text) segments; return (prompt, cached) tokens."""
        prompt = sum(tokens(text) for _, text in segments)
        with self._lock:
            shared = max((_common_prefix_tokens(segments, earlier)
                          for earlier_key, earlier in self._seen
                          if not key or earlier_key == key), default=0)
            self._seen.append((key, segments))
        cached = min(shared, prompt) // self.step * self.step
        if prompt < self.min_tokens or cached < self.min_tokens:
            cached = 0
        return prompt, cached


# --- pseudo-embeddings -------------------------------------------------------------------

_WORD = re.compile(r"\w+")


def pseudo_embedding(text: str, dim: int) -> list[float]:
    """A deterministic stand-in for a vendor's embedding: bag of words, each casefolded
    word adding +-1 at a hashed coordinate, so texts sharing words are close and the
    same text always gives the same vector. Deliberately NOT unit length (as Gemini's
    below 3072 dimensions are not): clients must normalise."""
    vector = [0.0] * dim
    for word in _WORD.findall(text.casefold()) or [text]:
        digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
        vector[int.from_bytes(digest[:4], "little") % dim] += 1.0 if digest[4] & 1 else -1.0
    return vector


# --- the server -----------------------------------------------------------------------

@dataclass
class Recorded:
    method: str
    path: str
    headers: dict  # lower-cased names
    body: object  # parsed JSON, or the raw text when it is not JSON


@dataclass
class Response:
    status: int
    body: object
    headers: dict = field(default_factory=dict)


class FakeServer:
    """Subclasses implement `answer(request, item)` for Reply and Error items."""

    def __init__(self):
        self.requests: list[Recorded] = []
        self._script: deque = deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None

    # context manager
    def __enter__(self):
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        # Handlers stuck in a Delay wake on close; nothing to wait for.
        self._httpd.block_on_close = False
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                         daemon=True).start()
        return self

    def __exit__(self, *exc):
        self._closing.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    @property
    def url(self) -> str:
        assert self._httpd is not None, "use the fake as a context manager"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def script(self, *items) -> "FakeServer":
        with self._lock:
            self._script.extend(items)
        return self

    def answer(self, request: Recorded, item: Reply | Error) -> Response:
        raise NotImplementedError

    def _respond(self, request: Recorded) -> Response | None:
        with self._lock:
            self.requests.append(request)
            item = self._script.popleft() if self._script else None
        while isinstance(item, Delay):
            if self._closing.wait(item.seconds):
                return None
            item = item.then
        if item is None:
            item = reply_json(DEFAULT_REPLY)
        if isinstance(item, Raw):
            return Response(item.status, item.body, item.headers)
        return self.answer(request, item)


def _handler_for(fake: FakeServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            self._handle()

        def do_GET(self):
            self._handle()

        def _handle(self):
            length = int(self.headers.get("content-length") or 0)
            data = self.rfile.read(length).decode("utf-8") if length else ""
            try:
                body = json.loads(data) if data else None
            except ValueError:
                body = data
            request = Recorded(self.command, self.path,
                               {k.lower(): v for k, v in self.headers.items()}, body)
            response = fake._respond(request)
            if response is None:
                return
            payload = (response.body if isinstance(response.body, bytes)
                       else json.dumps(response.body).encode("utf-8"))
            try:
                self.send_response(response.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                for name, value in response.headers.items():
                    self.send_header(name, str(value))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test): nothing to tell it

        def log_message(self, *args):
            pass

    return Handler


def refused_url() -> str:
    """A URL on which nothing listens, for connection-refused tests."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"
