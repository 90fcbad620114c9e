"""Plumbing shared by the fake vendor servers.

A fake is a threaded stdlib HTTP server on a free 127.0.0.1 port that records every
request and answers from a script, one item per request, falling back to a valid
`rtac_reply` answer. Script items are vendor-neutral; each fake renders them in its
vendor's wire format, so tests for every provider read alike:

    with FakeOpenAI() as fake:
        fake.script(error(503, "overloaded"), reply_json({...}))

A request that asks for a stream gets any reply as the vendor's event stream
(chunked `text/event-stream`); `streamed(...)` sets its pace and where it breaks:

        fake.script(streamed({...}, first_delay=0.2, chunk_chars=4, interval=0.05,
                             cut_after=3, cut=error(500, "boom")))

Each stream sent is logged in `fake.streams` (chunks sent, how it ended).
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

from sidecar.errors import ProviderError

# What each fake built on this module offers its tests besides its own server (they
# `import *` it): the vendor-neutral script items and the plumbing the fake is made of.
__all__ = [
    "DEFAULT_REPLY",
    "DROP",
    "Error",
    "EventStream",
    "FakeServer",
    "PrefixCache",
    "Recorded",
    "Reply",
    "Response",
    "Streamed",
    "as_streamed",
    "delay",
    "error",
    "paced",
    "pseudo_embedding",
    "raw",
    "refused_url",
    "reply_json",
    "reply_text",
    "streamed",
    "tokens",
]

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
    """An exact response, for shapes the other script items do not cover."""

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
    """Wait before answering with `then` (the default reply when None)."""
    return Delay(seconds, then)


def raw(status: int, body: object, headers: dict | None = None) -> Raw:
    return Raw(status, body, dict(headers or {}))


class _Drop:
    def __repr__(self) -> str:
        return "DROP"


DROP = _Drop()  # a stream cut by the connection closing in the middle of the body


@dataclass(frozen=True)
class Streamed:
    """A reply as a stream: `first_delay` seconds after the stream opens (headers and
    the vendor's opening event are out by then) comes the first text chunk, then one
    of `chunk_chars` characters every `interval` seconds. With `cut_after`, the stream
    breaks after that many text chunks, by `cut`: DROP, or an error item sent as the
    vendor's in-stream error event. A request that asks for no stream gets `text` whole."""

    text: str
    first_delay: float = 0.0
    chunk_chars: int = 8
    interval: float = 0.0
    cut_after: int | None = None
    cut: object = DROP

    def chunks(self) -> list[str]:
        size = max(1, self.chunk_chars)
        return [self.text[i:i + size] for i in range(0, len(self.text), size)] or [""]


def streamed(reply: dict | str, *, first_delay: float = 0.0, chunk_chars: int = 8, interval: float = 0.0,
             cut_after: int | None = None, cut: object = DROP) -> Streamed:
    """`reply` is an object (sent as its JSON) or the raw text."""
    text = reply if isinstance(reply, str) else json.dumps(reply)
    return Streamed(text, first_delay, chunk_chars, interval, cut_after, cut)


def as_streamed(item) -> Streamed:
    """Any reply item as a stream: a plain reply comes at the default pace."""
    return item if isinstance(item, Streamed) else Streamed(item.text)


def drain(stream) -> tuple[list, Exception | None]:
    """Read a provider's stream to its end: the pieces, and the ProviderError that
    ended it early (None when it finished)."""
    pieces: list = []
    try:
        for piece in stream:
            pieces.append(piece)
    except ProviderError as exc:
        return pieces, exc
    return pieces, None


# --- event streams ------------------------------------------------------------------------

@dataclass(frozen=True)
class Pause:
    seconds: float


@dataclass
class EventStream:
    """A streamed response: `events` yields bytes to send as one chunk each, Pause
    items, or DROP."""

    events: object  # an iterator
    headers: dict = field(default_factory=dict)
    status: int = 200
    content_type: str = "text/event-stream; charset=utf-8"


@dataclass
class StreamLog:
    path: str
    chunks_sent: int = 0  # HTTP chunks written, opening events included
    outcome: str = ""  # "complete", "dropped", "client_closed" or "server_closed"
    ended: threading.Event = field(default_factory=threading.Event)


def paced(plan: Streamed, text_event, cut_event):
    """The text part of a stream: `text_event(chunk)` for each chunk at the plan's
    pace, and where the plan cuts it, DROP or `cut_event(error_item)`; returns
    whether the stream is to go on to its closing events."""
    if plan.first_delay:
        yield Pause(plan.first_delay)
    for n, chunk in enumerate(plan.chunks()):
        if plan.cut_after is not None and n == plan.cut_after:
            yield DROP if plan.cut is DROP else cut_event(plan.cut)
            return False
        if n and plan.interval:
            yield Pause(plan.interval)
        yield text_event(chunk)
    return True


def send_event_stream(handler: BaseHTTPRequestHandler, stream: EventStream, closing: threading.Event,
                      log: StreamLog) -> None:
    """Write `stream` with chunked transfer encoding, as the vendors do."""
    def finish(outcome: str) -> None:
        log.outcome = outcome
        log.ended.set()

    try:
        handler.send_response(stream.status)
        handler.send_header("content-type", stream.content_type)
        handler.send_header("cache-control", "no-cache")
        handler.send_header("transfer-encoding", "chunked")
        for name, value in stream.headers.items():
            handler.send_header(name, str(value))
        handler.end_headers()
        handler.wfile.flush()
        for event in stream.events:
            if isinstance(event, Pause):
                if closing.wait(event.seconds):
                    handler.close_connection = True
                    return finish("server_closed")
                continue
            if event is DROP:
                handler.close_connection = True  # no last chunk: the body breaks off
                return finish("dropped")
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            handler.wfile.flush()
            log.chunks_sent += 1
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()
        finish("complete")
    except (BrokenPipeError, ConnectionResetError):
        handler.close_connection = True
        finish("client_closed")


# --- token estimate and implicit prefix caching ---------------------------------------

def tokens(text: str) -> int:
    """The fakes' tokenizer: about four UTF-8 bytes a token."""
    return math.ceil(len(text.encode("utf-8", "surrogatepass")) / 4)


def _common_prefix_tokens(a: list[tuple[str, str]], b: list[tuple[str, str]]) -> int:
    total = 0
    for (role_a, text_a), (role_b, text_b) in zip(a, b):
        if role_a != role_b:
            break
        if text_a == text_b:
            total += tokens(text_a)
            continue
        common = os.path.commonprefix([text_a.encode("utf-8", "surrogatepass"), text_b.encode("utf-8", "surrogatepass")])
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
    """Subclasses implement `answer(request, item)` for Reply, Streamed and Error
    items, returning a Response or, for a request that asks for a stream, an EventStream."""

    def __init__(self):
        self.requests: list[Recorded] = []
        self.streams: list[StreamLog] = []
        self._script: deque = deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None

    # context manager
    def __enter__(self):
        self._httpd = _QuietServer(("127.0.0.1", 0), _handler_for(self))
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

    def answer(self, request: Recorded, item: Reply | Streamed | Error) -> Response | EventStream:
        raise NotImplementedError

    def _respond(self, request: Recorded) -> Response | EventStream | None:
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


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # clients that hang up (timeouts, streams closed early) are expected here


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
            if isinstance(response, EventStream):
                log = StreamLog(self.path)
                with fake._lock:
                    fake.streams.append(log)
                send_event_stream(self, response, fake._closing, log)
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
