"""A local fake of the rtac sidecar for the WordPress plugin's tests.

It speaks the sidecar API's shapes (docs/api.md), verifies every request's signature
exactly as the sidecar does (`sidecar.signing.signature`: HMAC over ts, METHOD, path,
nonce and sha256(body); timestamp within 300 s; a nonce never seen before) and answers
401 on any mismatch, records every request (verified or not), and lets a test script
its replies. It keeps a small state of its own: the documents the plugin synced and the
unanswered questions, so a test can ask "what is indexed now?".

Control routes under /__fake/ (unsigned; the plugin never calls them) let PHPUnit tests
drive it over HTTP:
    GET  /__fake/requests[?since=N]   {"requests": [...], "next": N}
    POST /__fake/reset                forget requests, scripts, documents; default unanswered items
    POST /__fake/script               {method, path, status?, body?, raw?, delay?, drop?, times?, stream?}
    POST /__fake/unanswered           {"items": [...]}   the open questions GET /v1/unanswered lists
    POST /__fake/conversations        {"items": [...]}   the owner's log: whole conversations with their
                                      turns, newest first (GET /v1/conversations[/<id>] answer from them)
    POST /__fake/clock                {"offset": seconds} the fake's clock runs this far ahead (negative:
                                      behind): its Date header and its signature window both use it
    GET  /__fake/documents            {"documents": {"<source>:<source_id>": {...}}}
    POST /__fake/proxy                {"url": "http://...real sidecar" | null}
In proxy mode a verified request is forwarded byte for byte (same signed headers) to the
real sidecar and its answer returned unchanged: the plugin talks to the real sidecar and
the test still sees what it sent. An event stream is passed on as it arrives.

Streaming: a POST /v1/chat sent with `Accept: text/event-stream` that is answered 200 gets
the sidecar's event stream (chunked `text/event-stream`): by default the reply in a few
`delta` pieces and then `done` with the whole answer; a script's `stream` sets the events,
each {"event": "delta"|"done"|"error", "data"?: ..., "delay"?: seconds} (a `done` without
data carries the answer), {"raw": "exact text"} or {"drop": true} (the connection closes
mid-stream). What was sent and how the stream ended is recorded (`stream`,
`stream_outcome`: complete, dropped or client_closed, `stream_ended_at`); a client that
hangs up during a delay is noticed at once.
"""
from __future__ import annotations

import base64
import copy
import hmac
import http.client
import itertools
import json
import re
import select
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from sidecar.errors import BadRequest
from sidecar.signing import MAX_SKEW, signature
from sidecar.validation import parse_chat, parse_document_ref, parse_documents, parse_json, parse_visitor

_NONCE = re.compile(r"^[A-Za-z0-9_-]{16,128}$")
_UNANSWERED_ACTION = re.compile(r"^/v1/unanswered/([0-9]+)/(resolve|dismiss)$")
_CONVERSATION = re.compile(r"^/v1/conversations/([^/]+)$")
_LANG = re.compile(r"^[a-z]{2,3}$")
_FLAGS = {"unanswered": "unanswered", "degraded": "degraded", "lead": "lead_captured", "forgot": "forgot"}
# Cursors are opaque; these start with characters a URL must encode ("+" and "/"), so a client
# that sends one unencoded gets a 400 here, as it would from a strict sidecar.
_CURSOR_PREFIX = "+/"


def default_unanswered() -> list[dict]:
    return [
        {"id": 101, "question": "Do you repair carbon frames?", "lang": "en",
         "page_url": "http://example.test/services/", "count": 3,
         "first_asked": "2026-11-01T10:00:00Z", "last_asked": "2026-11-20T09:30:00Z", "status": "open"},
        {"id": 102, "question": "Kas te parandate <b>tandemeid</b> & \"rollereid\"?", "lang": "et",
         "page_url": "http://example.test/", "count": 1,
         "first_asked": "2026-11-18T12:00:00Z", "last_asked": "2026-11-18T12:00:00Z", "status": "open"},
        {"id": 103, "question": "Can I pay with crypto?", "lang": "en",
         "page_url": "http://example.test/prices/", "count": 2,
         "first_asked": "2026-11-10T08:00:00Z", "last_asked": "2026-11-19T16:00:00Z", "status": "open"},
    ]


def default_conversations() -> list[dict]:
    """The owner's log, newest first: whole conversations (what GET /v1/conversations/<id> answers)."""
    return [
        {"id": "c0ffee0000000000000000000000000a", "lang": "et", "lead_captured": False, "forgot": True,
         "turns": [
             {"seq": 1, "at": "2026-11-20T09:30:00Z", "message": "Kas te parandate <b>tandemeid</b> & \"rollereid\"?",
              "reply": "Kahjuks ei oska ma sellele vastata. <script>alert(1)</script>", "action": "show_contact",
              "unanswered": True, "degraded": False, "sources": []},
             {"seq": 2, "at": "2026-11-20T09:31:00Z", "message": "Unusta mu telefoninumber.",
              "reply": "Unustasin selle.", "action": "none", "unanswered": False, "degraded": False,
              "sources": []},
         ]},
        {"id": "c0ffee0000000000000000000000000b", "lang": "en", "lead_captured": True, "forgot": False,
         "turns": [
             {"seq": 1, "at": "2026-11-19T16:00:00Z", "message": "How much is a basic service?",
              "reply": "A basic service costs 45 €.", "action": "none", "unanswered": False, "degraded": False,
              "sources": [{"title": "Prices", "url": "http://example.test/prices/"}]},
             {"seq": 2, "at": "2026-11-19T16:01:00Z", "message": "Do you repair carbon frames?",
              "reply": "I could not find that on this site. Leave your contacts and we will call you.",
              "action": "offer_lead", "unanswered": True, "degraded": True, "sources": []},
         ]},
        {"id": "c0ffee0000000000000000000000000c", "lang": "en", "lead_captured": False, "forgot": False,
         "turns": [
             {"seq": 1, "at": "2026-11-18T12:00:00Z", "message": "When are you open?",
              "reply": "Mon–Fri 10:00–19:00.", "action": "none", "unanswered": False, "degraded": False,
              "sources": []},
         ]},
    ]


def conversation_summary(conv: dict) -> dict:
    """A list item of GET /v1/conversations: counts and flags over the conversation's turns."""
    turns = conv.get("turns") or []
    ats = [t.get("at") for t in turns if t.get("at")]
    return {"id": conv["id"], "lang": conv.get("lang", "en"),
            "started_at": conv.get("started_at") or (min(ats) if ats else None),
            "last_at": conv.get("last_at") or (max(ats) if ats else None),
            "turns": len(turns),
            "degraded": bool(conv.get("degraded", any(t.get("degraded") for t in turns))),
            "unanswered": bool(conv.get("unanswered", any(t.get("unanswered") for t in turns))),
            "lead_captured": bool(conv.get("lead_captured", False)),
            "forgot": bool(conv.get("forgot", False))}


def _cursor(offset: int) -> str:
    return _CURSOR_PREFIX + base64.b64encode(f"offset:{offset}".encode()).decode()


def _offset(cursor: str) -> int | None:
    if not cursor.startswith(_CURSOR_PREFIX):
        return None
    try:
        kind, _, value = base64.b64decode(cursor[len(_CURSOR_PREFIX):], validate=True).decode().partition(":")
        return int(value) if kind == "offset" and value.isdigit() else None
    except (ValueError, UnicodeDecodeError):
        return None


@dataclass
class Recorded:
    seq: int
    method: str
    path: str          # the URL path as signed (no query string)
    query: str
    headers: dict[str, str]
    body: bytes
    verified: bool
    error: str | None  # the 401's code when not verified
    status: int = 0    # what the fake answered
    at: float = 0.0
    handler_seconds: float = 0.0  # the fake's own time for this request
    invalid: str | None = None    # the sidecar's validator refused the body (its message)
    stream: list[dict] = field(default_factory=list)  # events sent: {"event", "at"} (time.time())
    stream_outcome: str | None = None  # "complete", "dropped" or "client_closed"
    stream_ended_at: float | None = None

    @property
    def json(self) -> Any:
        try:
            return json.loads(self.body.decode("utf-8")) if self.body else None
        except ValueError:
            return None

    def as_dict(self) -> dict:
        return {"seq": self.seq, "method": self.method, "path": self.path, "query": self.query,
                "headers": self.headers, "body": self.body.decode("utf-8", "replace"), "json": self.json,
                "verified": self.verified, "error": self.error, "status": self.status, "at": self.at,
                "handler_seconds": self.handler_seconds, "invalid": self.invalid, "stream": self.stream,
                "stream_outcome": self.stream_outcome, "stream_ended_at": self.stream_ended_at}


@dataclass
class Script:
    method: str
    path: str                   # exact path, or a prefix ending in '*'
    status: int = 200
    body: Any = None            # merged over the default answer for a 200, sent as is otherwise
    raw: bytes | None = None    # exact bytes (e.g. invalid JSON)
    delay: float = 0.0
    drop: bool = False          # close the connection without an answer (a sidecar that died)
    times: int | None = 1       # None: every time
    fn: Callable[[Recorded], tuple[int, Any]] | None = None
    stream: list[dict] | None = None  # the events of a streamed answer (see the module's docstring)

    def matches(self, method: str, path: str) -> bool:
        if self.method.upper() != method:
            return False
        return path.startswith(self.path[:-1]) if self.path.endswith("*") else path == self.path


@dataclass
class _State:
    requests: list[Recorded] = field(default_factory=list)
    scripts: list[Script] = field(default_factory=list)
    documents: dict[str, dict] = field(default_factory=dict)
    unanswered: list[dict] = field(default_factory=default_unanswered)
    log: list[dict] = field(default_factory=default_conversations)
    clock_offset: float = 0.0
    nonces: set[str] = field(default_factory=set)
    conversations: itertools.count = field(default_factory=lambda: itertools.count(1))
    proxy: str | None = None


class FakeSidecar:
    def __init__(self, site_id: str, secret: str, host: str = "127.0.0.1", port: int = 0):
        self.site_id, self.secret = site_id, secret
        self._lock = threading.RLock()
        self._state = _State()
        self._seq = itertools.count(1)
        fake = self

        class Handler(_Handler):
            sidecar = fake

        self._server = _QuietServer((host, port), Handler)
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------
    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "FakeSidecar":
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="fake-sidecar", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- test API ----------------------------------------------------------------
    def reset(self) -> None:
        with self._lock:
            proxy = self._state.proxy
            self._state = _State()
            self._state.proxy = proxy

    def script(self, method: str, path: str, *, status: int = 200, body: Any = None, raw: bytes | None = None,
               delay: float = 0.0, drop: bool = False, times: int | None = 1,
               fn: Callable[[Recorded], tuple[int, Any]] | None = None, stream: list[dict] | None = None) -> None:
        with self._lock:
            self._state.scripts.append(Script(method.upper(), path, status, body, raw, delay, drop, times, fn,
                                              copy.deepcopy(stream)))

    def set_proxy(self, url: str | None) -> None:
        with self._lock:
            self._state.proxy = url.rstrip("/") if url else None

    def set_unanswered(self, items: list[dict]) -> None:
        with self._lock:
            self._state.unanswered = copy.deepcopy(items)

    def set_conversations(self, items: list[dict]) -> None:
        """The owner's log (whole conversations with turns, newest first)."""
        with self._lock:
            self._state.log = copy.deepcopy(items)

    def set_clock_offset(self, seconds: float) -> None:
        """Run the fake's clock ahead (or behind): its Date header and its signature window."""
        with self._lock:
            self._state.clock_offset = float(seconds)

    def now(self) -> float:
        with self._lock:
            return time.time() + self._state.clock_offset

    @property
    def requests(self) -> list[Recorded]:
        with self._lock:
            return list(self._state.requests)

    def requests_to(self, method: str, path: str) -> list[Recorded]:
        return [r for r in self.requests if r.method == method and r.path == path]

    def chats(self) -> list[dict]:
        return [r.json for r in self.requests_to("POST", "/v1/chat") if r.verified]

    @property
    def documents(self) -> dict[str, dict]:
        with self._lock:
            return copy.deepcopy(self._state.documents)

    @property
    def unanswered(self) -> list[dict]:
        with self._lock:
            return copy.deepcopy(self._state.unanswered)

    def invalid(self) -> list[Recorded]:
        """Requests whose body the real sidecar's validators would refuse."""
        return [r for r in self.requests if r.invalid]

    def unverified(self) -> list[Recorded]:
        return [r for r in self.requests if not r.verified and not r.path.startswith("/__fake/")]

    def wait_for(self, predicate: Callable[[list[Recorded]], bool], timeout: float = 10.0) -> list[Recorded]:
        deadline = time.monotonic() + timeout
        while True:
            reqs = self.requests
            if predicate(reqs):
                return reqs
            if time.monotonic() > deadline:
                raise AssertionError(f"fake sidecar: condition not met within {timeout}s; "
                                     f"saw {[(r.method, r.path) for r in reqs]}")
            time.sleep(0.05)

    # -- the sidecar's side ------------------------------------------------------
    def verify(self, method: str, path: str, headers: dict[str, str], body: bytes) -> str | None:
        """None when the request is signed as docs/signature.md says, else the error code."""
        site = headers.get("x-rtac-site", "")
        ts = headers.get("x-rtac-timestamp", "")
        nonce = headers.get("x-rtac-nonce", "")
        sig = headers.get("x-rtac-signature", "")
        if not (site and ts and nonce and sig):
            return "missing_signature"
        if not re.fullmatch(r"[0-9]{1,15}", ts) or abs(self.now() - int(ts)) > MAX_SKEW:
            return "stale_timestamp"
        if not _NONCE.fullmatch(nonce):
            return "bad_nonce"
        if site != self.site_id:
            return "bad_signature"
        expected = signature(self.secret, ts, method, path, nonce, body)
        if not hmac.compare_digest(expected.encode(), sig.lower().encode("utf-8", "replace")):
            return "bad_signature"
        with self._lock:
            if nonce in self._state.nonces:
                return "replayed_nonce"
            self._state.nonces.add(nonce)
        return None

    def _take_script(self, method: str, path: str) -> Script | None:
        with self._lock:
            for s in self._state.scripts:
                if s.matches(method, path):
                    if s.times is not None:
                        s.times -= 1
                        if s.times <= 0:
                            self._state.scripts.remove(s)
                    return s
        return None

    def default_answer(self, rec: Recorded) -> tuple[int, Any]:
        """The sidecar's answer shapes; bodies are checked by the sidecar's own validators
        (sidecar.validation), so a body the real sidecar would refuse is a 400 here too."""
        m, p = rec.method, _route(rec.path)
        try:
            data = parse_json(rec.body) if rec.body.strip() else {}
            if (m, p) == ("POST", "/v1/chat"):
                parse_chat(data)
            elif (m, p) == ("PUT", "/v1/documents"):
                parse_documents(data, "en")
            elif (m, p) == ("DELETE", "/v1/documents"):
                parse_document_ref(data)
            elif m == "POST" and p.startswith("/v1/privacy/"):
                parse_visitor(data)
        except BadRequest as exc:
            rec.invalid = exc.message
            return 400, exc.to_json()
        with self._lock:
            st = self._state
            if (m, p) == ("POST", "/v1/chat"):
                message = data["message"]
                conv = data.get("conversation_id") or f"conv-{next(st.conversations)}"
                return 200, {"conversation_id": conv, "reply": f"Fake answer to: {message}",
                             "quick_replies": [], "action": "none", "unanswered": False, "forgotten": [],
                             "sources": [], "degraded": False,
                             "usage": {"provider": "fake", "model": "fake-1", "input_tokens": 10,
                                       "output_tokens": 5, "cache_read_input_tokens": 0,
                                       "cache_creation_input_tokens": 0}}
            if (m, p) == ("PUT", "/v1/documents"):
                docs = data["documents"]
                for d in docs:
                    st.documents[f"{d['source']}:{d['source_id']}"] = d
                return 200, {"upserted": len(docs), "chunks": len(docs)}
            if (m, p) == ("DELETE", "/v1/documents"):
                key = f"{data.get('source')}:{data.get('source_id')}"
                return 200, {"deleted": 1 if st.documents.pop(key, None) is not None else 0}
            if (m, p) == ("GET", "/v1/unanswered"):
                query = urllib.parse.parse_qs(rec.query)
                status = query.get("status", ["open"])[0]
                lang = query.get("lang", [""])[0]
                if lang and not _LANG.fullmatch(lang):
                    return 400, _error("bad_request", "lang: a language code such as 'en'")
                items = [q for q in st.unanswered if (status == "all" or q["status"] == status)
                         and (not lang or q.get("lang") == lang)]
                return 200, {"items": copy.deepcopy(items)}
            if (m, p) == ("GET", "/v1/conversations"):
                return self._conversations(st, rec.query)
            hit = _CONVERSATION.match(p)
            if m == "GET" and hit:
                for conv in st.log:
                    if conv["id"] == hit.group(1):
                        return 200, {"id": conv["id"], "lang": conv.get("lang", "en"),
                                     "turns": copy.deepcopy(conv.get("turns") or [])}
                return 404, _error("not_found", "no such conversation (unknown, expired or erased)")
            hit = _UNANSWERED_ACTION.match(p)
            if m == "POST" and hit:
                qid, action = int(hit.group(1)), hit.group(2)
                for q in st.unanswered:
                    if q["id"] == qid:
                        q["status"] = "resolved" if action == "resolve" else "dismissed"
                        return 200, {"id": qid, "status": q["status"]}
                return 404, _error("not_found", f"no unanswered question {qid} on this site")
            if (m, p) == ("GET", "/v1/stats"):
                open_count = sum(1 for q in st.unanswered if q["status"] == "open")
                return 200, {"turns": 42, "input_tokens": 42000, "output_tokens": 4200,
                             "cache_read_input_tokens": 30000, "cache_read_share": 0.71,
                             "estimated_cost_usd": 0.12, "open_unanswered": open_count,
                             "price_corrections": 0, "pending_embeddings": 0,
                             "languages": {"en": {"turns": 30, "own": 24, "other": 2, "none": 4},
                                           "et": {"turns": 12, "own": 3, "other": 7, "none": 2}},
                             "daily_budget_usd": None, "spent_today_usd": None}
            if (m, p) == ("POST", "/v1/privacy/export"):
                return 200, {"memories": [
                    {"kind": "fact", "content": f"Owns a red city bike ({_visitor_key(data)})", "topic": None,
                     "importance": 3, "created_at": "2026-11-01T10:00:00Z", "updated_at": "2026-11-02T10:00:00Z"}]}
            if (m, p) == ("POST", "/v1/privacy/erase"):
                return 200, {"erased": True, "memories": 1}
        return 404, _error("not_found", f"no route {m} {p}")

    @staticmethod
    def _conversations(st: "_State", query_string: str) -> tuple[int, Any]:
        """GET /v1/conversations?limit=&before=&lang=&flag= over the scripted log, newest first."""
        query = urllib.parse.parse_qs(query_string, keep_blank_values=True)
        one = {k: v[-1] for k, v in query.items()}
        limit_s = one.get("limit", "50")
        if not limit_s.isdigit() or not 1 <= int(limit_s) <= 100:
            return 400, _error("bad_request", "limit: a whole number from 1 to 100")
        lang, flag, before = one.get("lang", ""), one.get("flag", ""), one.get("before", "")
        if lang and not _LANG.fullmatch(lang):
            return 400, _error("bad_request", "lang: a language code such as 'en'")
        if flag and flag not in _FLAGS:
            return 400, _error("bad_request", "flag: one of " + ", ".join(_FLAGS))
        start = 0
        if before:
            start = _offset(before)
            if start is None:
                return 400, _error("bad_request", "before: not a cursor this service gave out")
        items = [conversation_summary(c) for c in st.log]
        items = [i for i in items if (not lang or i["lang"] == lang) and (not flag or i[_FLAGS[flag]])]
        page = items[start:start + int(limit_s)]
        more = start + int(limit_s) < len(items)
        return 200, {"items": page, "next": _cursor(start + int(limit_s)) if more else None}


def _default_events(answer: dict) -> list[dict]:
    """A streamed answer as the sidecar sends one: the reply in up to three pieces that add up
    to it exactly, then `done` with the whole answer."""
    words = re.findall(r"\S+\s*", str(answer.get("reply") or ""))
    size = max(1, -(-len(words) // 3))
    pieces = ["".join(words[i:i + size]) for i in range(0, len(words), size)]
    return [{"event": "delta", "data": {"text": p}} for p in pieces] + [{"event": "done"}]


def _route(path: str) -> str:
    """The API route of a path: a sidecar mounted under a prefix (/mounted/v1/chat) answers
    the same routes (the signature still covers the whole path)."""
    for marker in ("/v1/", "/healthz"):
        i = path.find(marker)
        if i > 0:
            return path[i:]
    return path


def _visitor_key(data: dict) -> str:
    v = data.get("visitor") or {}
    return f"wp:{v['wp_user_id']}" if v.get("wp_user_id") else str(v.get("id"))


def _error(code: str, message: str, retryable: bool = False) -> dict:
    return {"error": {"code": code, "message": message, "retryable": retryable}}


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """A client that hangs up (the relay when its visitor left) is expected; others are shown."""
        import sys
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    sidecar: FakeSidecar
    protocol_version = "HTTP/1.1"
    server_version = "rtac-fake-sidecar/1"

    def log_message(self, format, *args):  # noqa: A002 - quiet
        pass

    def date_time_string(self, timestamp=None):
        """The Date header by the fake's own (possibly scripted) clock."""
        return super().date_time_string(self.sidecar.now() if timestamp is None else timestamp)

    def parse_request(self):
        self._t0 = time.perf_counter()
        return super().parse_request()

    def do_GET(self):
        self._handle()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_GET

    def _send(self, status: int, payload: Any = None, raw: bytes | None = None,
              content_type: str = "application/json") -> None:
        data = raw if raw is not None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _handle(self) -> None:
        fake = self.sidecar
        url = urllib.parse.urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if url.path.startswith("/__fake/"):
            return self._control(url, body)
        headers = {k.lower(): v for k, v in self.headers.items()}
        rec = Recorded(seq=next(fake._seq), method=self.command, path=url.path, query=url.query,
                       headers=headers, body=body, verified=False, error=None, at=time.time())
        if _route(url.path) != "/healthz":
            rec.error = fake.verify(self.command, url.path, headers, body)
        rec.verified = rec.error is None
        with fake._lock:
            fake._state.requests.append(rec)
        if rec.error:
            rec.status = 401
            self._send(401, _error(rec.error, "signature check failed: " + rec.error))
            rec.handler_seconds = time.perf_counter() - self._t0
            return
        if _route(url.path) == "/healthz":
            rec.status = 200
            self._send(200, {"status": "ok", "db": "ok", "provider": "fake", "embedder": "none"})
            rec.handler_seconds = time.perf_counter() - self._t0
            return
        with fake._lock:
            proxy = fake._state.proxy
        script = fake._take_script(self.command, _route(url.path))
        if script is None and proxy:
            return self._forward(proxy, rec)
        status, payload, raw = 200, None, None
        if script is not None:
            if script.delay:
                time.sleep(script.delay)
            if script.drop:
                rec.status = 0
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            if script.fn is not None:
                status, payload = script.fn(rec)
            elif script.raw is not None:
                status, raw = script.status, script.raw
            elif script.status == 200:
                status, payload = fake.default_answer(rec)
                if isinstance(payload, dict) and isinstance(script.body, dict):
                    payload = {**payload, **copy.deepcopy(script.body)}
                elif script.body is not None:
                    payload = copy.deepcopy(script.body)
            else:
                status = script.status
                payload = script.body if script.body is not None else _error(
                    "scripted", f"scripted {script.status}", script.status >= 500)
        else:
            status, payload = fake.default_answer(rec)
        rec.status = status
        if (status == 200 and raw is None and isinstance(payload, dict) and _route(url.path) == "/v1/chat"
                and "text/event-stream" in (headers.get("accept") or "").lower()):
            self._send_stream(rec, script.stream if script is not None and script.stream is not None
                              else _default_events(payload), payload)
        else:
            self._send(status, payload, raw)
        rec.handler_seconds = time.perf_counter() - self._t0

    # -- event streams ------------------------------------------------------------
    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _client_gone(self, wait: float) -> bool:
        """Wait up to `wait` seconds; True as soon as the client has closed the connection."""
        deadline = time.monotonic() + wait
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            readable, _, _ = select.select([self.connection], [], [], left)
            if readable:
                try:
                    if self.connection.recv(1, socket.MSG_PEEK) == b"":
                        return True
                except OSError:
                    return True
                time.sleep(min(left, 0.05))  # the client sent more (it should not): keep waiting

    def _stream_ended(self, rec: Recorded, outcome: str) -> None:
        rec.stream_outcome, rec.stream_ended_at = outcome, time.time()
        if outcome != "complete":
            self.close_connection = True

    def _send_stream(self, rec: Recorded, events: list[dict], answer: dict) -> None:
        """The sidecar's event stream, chunked, each event flushed on its own."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Accel-Buffering", "no")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        try:
            for item in events:
                if item.get("delay") and self._client_gone(float(item["delay"])):
                    return self._stream_ended(rec, "client_closed")
                if item.get("drop"):
                    return self._stream_ended(rec, "dropped")
                if "raw" in item:
                    data = str(item["raw"]).encode()
                else:
                    body = item.get("data")
                    if item["event"] == "done" and body is None:
                        body = answer
                    data = f"event: {item['event']}\ndata: {json.dumps(body, ensure_ascii=False)}\n\n".encode()
                self._write_chunk(data)
                rec.stream.append({"event": item.get("event", "raw"), "at": time.time()})
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            self._stream_ended(rec, "complete")
        except (BrokenPipeError, ConnectionResetError):
            self._stream_ended(rec, "client_closed")

    def _forward(self, base: str, rec: Recorded) -> None:
        target = urllib.parse.urlsplit(base)
        conn = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=120)
        path = target.path.rstrip("/") + rec.path + (f"?{rec.query}" if rec.query else "")
        skip = {"host", "content-length", "connection", "accept-encoding"}
        headers = {k: v for k, v in self.headers.items() if k.lower() not in skip}
        try:
            conn.request(rec.method, path, body=rec.body, headers=headers)
            resp = conn.getresponse()
            rec.status = resp.status
            content_type = resp.getheader("Content-Type", "application/json")
            if content_type.startswith("text/event-stream"):
                self._forward_stream(rec, resp, content_type)
            else:
                self._send(resp.status, raw=resp.read(), content_type=content_type)
        finally:
            conn.close()
        rec.handler_seconds = time.perf_counter() - self._t0

    def _forward_stream(self, rec: Recorded, resp: http.client.HTTPResponse, content_type: str) -> None:
        """The real sidecar's event stream passed on piece by piece as it arrives."""
        self.send_response(resp.status)
        self.send_header("Content-Type", content_type)
        for name in ("Cache-Control", "X-Accel-Buffering"):
            if resp.getheader(name):
                self.send_header(name, resp.getheader(name))
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        try:
            while True:
                data = resp.read1(65536)
                if not data:
                    break
                self._write_chunk(data)
                rec.stream.append({"event": "bytes", "at": time.time()})
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            self._stream_ended(rec, "complete")
        except (BrokenPipeError, ConnectionResetError):
            self._stream_ended(rec, "client_closed")

    def _control(self, url, body: bytes) -> None:
        fake = self.sidecar
        data = json.loads(body.decode()) if body else {}
        route = (self.command, url.path)
        if route == ("GET", "/__fake/requests"):
            since = int(urllib.parse.parse_qs(url.query).get("since", ["0"])[0])
            reqs = [r.as_dict() for r in fake.requests if r.seq > since]
            return self._send(200, {"requests": reqs, "next": max([since] + [r["seq"] for r in reqs])})
        if route == ("POST", "/__fake/reset"):
            fake.reset()
            return self._send(200, {"ok": True})
        if route == ("POST", "/__fake/script"):
            raw = data.get("raw")
            fake.script(data["method"], data["path"], status=int(data.get("status", 200)), body=data.get("body"),
                        raw=raw.encode() if isinstance(raw, str) else None, delay=float(data.get("delay", 0)),
                        drop=bool(data.get("drop", False)), times=data.get("times", 1), stream=data.get("stream"))
            return self._send(200, {"ok": True})
        if route == ("POST", "/__fake/unanswered"):
            fake.set_unanswered(data.get("items", []))
            return self._send(200, {"ok": True})
        if route == ("POST", "/__fake/conversations"):
            fake.set_conversations(data.get("items", []))
            return self._send(200, {"ok": True})
        if route == ("POST", "/__fake/clock"):
            fake.set_clock_offset(float(data.get("offset", 0)))
            return self._send(200, {"ok": True})
        if route == ("GET", "/__fake/unanswered"):
            return self._send(200, {"items": fake.unanswered})
        if route == ("GET", "/__fake/documents"):
            return self._send(200, {"documents": fake.documents})
        if route == ("POST", "/__fake/proxy"):
            fake.set_proxy(data.get("url"))
            return self._send(200, {"ok": True})
        return self._send(404, _error("not_found", f"no control route {self.command} {url.path}"))


if __name__ == "__main__":  # a fake for poking at by hand: python -m testbed.fake_sidecar SITE SECRET [PORT]
    import sys
    f = FakeSidecar(sys.argv[1], sys.argv[2], port=int(sys.argv[3]) if len(sys.argv) > 3 else 0).start()
    print(f"fake sidecar on {f.url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        f.stop()
