"""A local fake of the Anthropic Messages API (POST /v1/messages, whole or streamed).

It speaks the vendor's wire format (shapes copied from recorded real exchanges), so the
official SDK can talk to it unchanged, and it does prompt-cache accounting the way the
real API bills it, so tests and benchmarks can measure cache discipline:

    with FakeAnthropic() as fake:
        fake.script(error(529, "overloaded_error", "Overloaded"), reply_json({...}))
        provider = AnthropicProvider("test-key", base_url=fake.base_url)

A request with `"stream": true` gets the SSE events `message_start` (with the input
usage), `content_block_start`, `ping`, `content_block_delta` (`text_delta`; a
thinking block first when the reply has one), `content_block_stop`, `message_delta`
(stop reason and cumulative usage) and `message_stop`. `streamed(...)` (shared with
the other fakes) sets the pace and the cut: an `error(...)` item becomes the
`event: error` the API sends when it fails mid-stream, DROP closes the connection.
An Error item as such still answers with its HTTP status, before any stream.
"""
from __future__ import annotations

import collections
import hashlib
import json
import math
import threading
import uuid
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Union

from ._http import (  # noqa: F401 - DROP, delay, paced and streamed script this fake too
    DROP, Delay, EventStream, StreamLog, Streamed, delay, paced, send_event_stream, streamed)

DEFAULT_REPLY = {"reply": "Hello from the fake", "quick_replies": [], "action": "none",
                 "unanswered": False, "forget": []}

# The real API looks back this many block boundaries from a breakpoint for a cache hit.
CACHE_LOOKBACK_BLOCKS = 20

_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
            404: "Not Found", 413: "Request Entity Too Large", 429: "Too Many Requests",
            500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
            504: "Gateway Timeout", 529: "Overloaded"}


@dataclass(frozen=True)
class Reply:
    text: str
    thinking: str | None = None
    stop_reason: str = "end_turn"


@dataclass(frozen=True)
class Error:
    status: int
    type: str
    message: str
    retry_after: str | None = None


Item = Union[Reply, Streamed, Error, Delay]


def reply_json(obj: Any, *, thinking: str | None = None) -> Reply:
    """A reply whose text is `json.dumps(obj)`, as structured outputs would return it."""
    return Reply(json.dumps(obj), thinking=thinking)


def reply_text(text: str, *, thinking: str | None = None, stop_reason: str = "end_turn") -> Reply:
    """A reply with any raw text (fenced JSON, prose); `thinking` adds a thinking block
    before it, as adaptive-thinking models do."""
    return Reply(text, thinking=thinking, stop_reason=stop_reason)


def error(status: int, type: str, message: str, retry_after: float | str | None = None) -> Error:
    """The vendor's error body with this HTTP status; `retry_after` (seconds or an
    HTTP-date) becomes the `retry-after` header."""
    return Error(status, type, message, None if retry_after is None else str(retry_after))


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text.encode("utf-8", "surrogatepass")) / 4)


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # parsed JSON, or None when the body was not JSON


class PromptCache:
    """Anthropic-style prefix caching over one server's lifetime (no expiry).

    The prompt is walked in order, system blocks then each message's blocks. A block
    with `cache_control` is a breakpoint: the prefix up to and including it is written
    when it reaches `min_tokens`. The longest prefix written by an earlier request that
    ends at a block boundary within the lookback window of a breakpoint is read; tokens
    from there to the last written breakpoint are a cache write; the rest is fresh input.
    Prefixes are keyed by the model and the output format too, as the real cache is.
    """

    def __init__(self, min_tokens: int = 1024):
        self.min_tokens = min_tokens
        self._written: set[str] = set()
        self._lock = threading.Lock()

    def account(self, body: dict) -> dict:
        blocks = _prompt_blocks(body)
        scope = json.dumps([body.get("model"), body.get("tools"),
                            (body.get("output_config") or {}).get("format")], sort_keys=True)
        running = hashlib.sha256(scope.encode())
        hashes, ends, total = [], [], 0
        for where, block in blocks:
            plain = {k: v for k, v in block.items() if k != "cache_control"}
            running.update(json.dumps([where, plain], sort_keys=True).encode())
            hashes.append(running.hexdigest())
            total += _block_tokens(plain)
            ends.append(total)
        breakpoints = [i for i, (_, block) in enumerate(blocks) if block.get("cache_control")]

        with self._lock:
            read_at = -1
            for bp in breakpoints:
                for i in range(bp, max(-1, bp - CACHE_LOOKBACK_BLOCKS), -1):
                    if hashes[i] in self._written:
                        read_at = max(read_at, i)
                        break
            read = ends[read_at] if read_at >= 0 else 0
            by_ttl = {"5m": 0, "1h": 0}
            written_to = read
            for bp in breakpoints:
                if bp > read_at and ends[bp] >= self.min_tokens:
                    self._written.add(hashes[bp])
                    ttl = blocks[bp][1]["cache_control"].get("ttl", "5m")
                    by_ttl["1h" if ttl == "1h" else "5m"] += ends[bp] - written_to
                    written_to = ends[bp]
        created = written_to - read
        return {
            "input_tokens": total - read - created,
            "cache_creation_input_tokens": created,
            "cache_read_input_tokens": read,
            "cache_creation": {"ephemeral_5m_input_tokens": by_ttl["5m"],
                               "ephemeral_1h_input_tokens": by_ttl["1h"]},
        }


def _prompt_blocks(body: dict) -> list[tuple[list, dict]]:
    def as_blocks(content):
        if isinstance(content, str):
            return [{"type": "text", "text": content}] if content else []
        return [b for b in content or [] if isinstance(b, dict)]

    out = [(["system"], b) for b in as_blocks(body.get("system"))]
    for n, message in enumerate(body.get("messages") or []):
        out += [([message.get("role"), n], b) for b in as_blocks(message.get("content"))]
    return out


def _block_tokens(block: dict) -> int:
    if block.get("type") == "text":
        return estimate_tokens(block.get("text") or "")
    return estimate_tokens(json.dumps(block, sort_keys=True))


class FakeAnthropic:
    """A threaded HTTP server on 127.0.0.1 answering like api.anthropic.com.

    `script(*items)` queues replies, one consumed per valid request; when the queue is
    empty `default_reply` answers. Every request, valid or not, lands in `requests`.
    """

    def __init__(self, *, min_cacheable_tokens: int = 1024, default_reply: Item | None = None):
        self.requests: list[RecordedRequest] = []
        self.streams: list[StreamLog] = []
        self.default_reply: Item = default_reply or reply_json(DEFAULT_REPLY)
        self.cache = PromptCache(min_cacheable_tokens)
        self._queue: collections.deque[Item] = collections.deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeAnthropic is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, *items: Item) -> None:
        with self._lock:
            self._queue.extend(items)

    def start(self) -> "FakeAnthropic":
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        # A short poll keeps close() (which waits for the loop to notice) fast.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,),
                                        daemon=True, name="fake-anthropic")
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()  # wakes handlers sleeping in a delay()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)
            self._server = None

    def __enter__(self) -> "FakeAnthropic":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_item(self) -> Item:
        with self._lock:
            return self._queue.popleft() if self._queue else self.default_reply


def _sse(name: str, data: dict) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def _events(body: dict, plan: Streamed, thinking: str | None, stop_reason: str, cache: PromptCache,
            request_id: str):
    usage = cache.account(body)
    output = estimate_tokens(plan.text) + estimate_tokens(thinking or "")
    yield _sse("message_start", {"type": "message_start", "message": {
        "model": body["model"], "id": "msg_fake" + uuid.uuid4().hex[:24], "type": "message",
        "role": "assistant", "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {**usage, "output_tokens": 1, "service_tier": "standard", "inference_geo": "not_available"}}})
    index = 0
    if thinking is not None:
        yield _sse("content_block_start", {"type": "content_block_start", "index": 0,
                                           "content_block": {"type": "thinking", "thinking": "", "signature": ""}})
        yield _sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                           "delta": {"type": "thinking_delta", "thinking": thinking}})
        yield _sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                           "delta": {"type": "signature_delta", "signature": "fake-signature"}})
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": 0})
        index = 1
    yield _sse("content_block_start", {"type": "content_block_start", "index": index,
                                       "content_block": {"type": "text", "text": ""}})
    yield _sse("ping", {"type": "ping"})

    def text(chunk: str) -> bytes:
        return _sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                            "delta": {"type": "text_delta", "text": chunk}})

    def cut(err: Error) -> bytes:
        return _sse("error", {"type": "error", "error": {"type": err.type, "message": err.message},
                              "request_id": request_id})

    if not (yield from paced(plan, text, cut)):
        return
    yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
    yield _sse("message_delta", {"type": "message_delta",
                                 "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                                 "usage": {"input_tokens": usage["input_tokens"],
                                           "cache_creation_input_tokens": usage["cache_creation_input_tokens"],
                                           "cache_read_input_tokens": usage["cache_read_input_tokens"],
                                           "output_tokens": output}})
    yield _sse("message_stop", {"type": "message_stop"})


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeAnthropic

    def handle_error(self, request, client_address):
        pass  # clients that time out and hang up are expected here


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like the SDK's pooled client expects
    server: _Server

    def log_message(self, format, *args):
        pass

    def do_POST(self):
        fake = self.server.fake
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        fake._record(RecordedRequest("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body))

        if self.path.split("?")[0] != "/v1/messages":
            return self._send_error(Error(404, "not_found_error", "Not Found"))
        # Older SDKs send x-api-key, newer ones a bearer token; the API takes both.
        if not (self.headers.get("x-api-key") or self.headers.get("authorization")):
            return self._send_error(Error(401, "authentication_error", "x-api-key header is required"))
        if not isinstance(body, dict):
            return self._send_error(Error(400, "invalid_request_error", "Request body is not valid JSON"))
        for name in ("model", "max_tokens", "messages"):
            if name not in body:
                return self._send_error(Error(400, "invalid_request_error", f"{name}: Field required"))

        item = fake._next_item()
        if isinstance(item, Delay):
            if fake._closing.wait(item.seconds):
                self.close_connection = True
                return
            item = item.then or fake.default_reply
        if isinstance(item, Error):
            return self._send_error(item)
        if body.get("stream"):
            return self._send_stream(body, item)
        self._send_reply(body, item if isinstance(item, Reply) else Reply(item.text))

    def _send_stream(self, body: dict, item: Reply | Streamed):
        fake = self.server.fake
        plan = item if isinstance(item, Streamed) else Streamed(item.text)
        thinking = item.thinking if isinstance(item, Reply) else None
        stop_reason = item.stop_reason if isinstance(item, Reply) else "end_turn"
        request_id = "req_fake" + uuid.uuid4().hex[:24]
        log = StreamLog(self.path)
        with fake._lock:
            fake.streams.append(log)
        send_event_stream(self, EventStream(_events(body, plan, thinking, stop_reason, fake.cache, request_id),
                                            {"request-id": request_id}), fake._closing, log)

    def _send_reply(self, body: dict, reply: Reply):
        content = []
        if reply.thinking is not None:
            content.append({"type": "thinking", "thinking": reply.thinking,
                            "signature": "fake-signature"})
        content.append({"type": "text", "text": reply.text})
        usage = self.server.fake.cache.account(body)
        usage.update(
            output_tokens=estimate_tokens(reply.text) + estimate_tokens(reply.thinking or ""),
            service_tier="standard",
            inference_geo="not_available",
        )
        self._send(200, {
            "id": "msg_fake" + uuid.uuid4().hex[:24],
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": reply.stop_reason,
            "stop_sequence": None,
            "stop_details": None,
            "usage": usage,
        })

    def _send_error(self, err: Error):
        request_id = "req_fake" + uuid.uuid4().hex[:24]
        headers = {"retry-after": err.retry_after} if err.retry_after is not None else {}
        self._send(err.status, {"type": "error", "error": {"type": err.type, "message": err.message},
                                "request_id": request_id}, request_id=request_id, extra=headers)

    def _send(self, status: int, payload: dict, *, request_id: str | None = None,
              extra: dict[str, str] | None = None):
        data = json.dumps(payload).encode()
        try:
            self.send_response(status, _REASONS.get(status, ""))
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.send_header("request-id", request_id or "req_fake" + uuid.uuid4().hex[:24])
            for name, value in (extra or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
