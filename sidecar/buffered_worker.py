"""gunicorn's threaded worker, with every request read in full before a thread sees it.

gthread hands a connection to a thread as soon as its first bytes arrive, and the
thread then blocks until the whole request is in, for as long as the client takes.
A client that trickles its headers (slowloris, a stalled mobile link, a scanner)
holds a thread the whole time: 16 such connections stopped every turn of a
2 x 8-thread server. Here the worker's event loop reads each request without
blocking (the headers, and the body when it has a Content-Length), and only a
complete request goes to the thread pool, so a slow client costs a socket and a
buffer, never a thread. A request not complete within REQUEST_TIMEOUT of its first
byte (or of the connection, for a new one) is answered 408 and closed.

Left to the thread, as gthread does it: chunked bodies, bodies over BODY_LIMIT,
TLS and HTTP/2 (terminate those in nginx, docs/deploying.md). Every socket a thread
uses has IO_TIMEOUT, so not even those, nor a client that stops reading its
response, can hold a thread for good.
"""
from __future__ import annotations

import errno
import json
import selectors
import socket
import time
from functools import partial

from gunicorn.workers.gthread import TConn, ThreadWorker

from .errors import error_body

# The threaded worker's structure this builds on (gunicorn 27): fail at start, not mid-request.
if not all(hasattr(ThreadWorker, name) for name in
           ("murder_pending", "finish_request", "enqueue_req", "on_client_socket_readable")):
    raise ImportError("sidecar.buffered_worker needs gunicorn 27's threaded worker: pip install 'gunicorn>=27,<28'")

REQUEST_TIMEOUT = 10.0  # seconds for a whole request: the plugin sends one in milliseconds
IO_TIMEOUT = 30.0       # seconds a thread waits on one read or write of a client socket
HEAD_LIMIT = 64 * 1024  # bigger headers go to the parser as they are, which refuses them
BODY_LIMIT = 4 * 1024 * 1024  # a body bigger than this is read by the thread (and refused there)

_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
_TIMEOUT_BODY = json.dumps(error_body("request_timeout", f"the request did not arrive within {REQUEST_TIMEOUT:g} s",
                                      retryable=True)).encode()
_TIMEOUT_RESPONSE = (b"HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\n"
                     b"Content-Length: " + str(len(_TIMEOUT_BODY)).encode() + b"\r\nConnection: close\r\n\r\n"
                     + _TIMEOUT_BODY)


class TimedSocket(socket.socket):
    """A socket whose "blocking" mode has a timeout: gunicorn switches a client
    socket to blocking for the thread that serves it, and a thread must never wait
    on a client for ever."""

    io_timeout = IO_TIMEOUT

    @classmethod
    def adopt(cls, sock: socket.socket) -> "TimedSocket":
        return cls(sock.family, sock.type, sock.proto, fileno=sock.detach())

    def setblocking(self, flag: bool) -> None:
        self.settimeout(self.io_timeout if flag else 0.0)


class Incoming:
    """The bytes of one request as they arrive, and whether it is complete."""

    def __init__(self, data: bytes, deadline: float):
        self.data = bytearray(data)
        self.deadline = deadline
        self._needed: int | None = None  # total bytes of head and body, once the head is in

    def complete(self, conn_sock) -> bool:
        if self._needed is None:
            end = self.data.find(b"\r\n\r\n")
            if end < 0:
                return len(self.data) > HEAD_LIMIT
            head = bytes(self.data[:end + 4])
            fields = _fields(head)
            if "transfer-encoding" in fields:
                return True  # chunked: the thread reads the body
            try:
                length = int(fields.get("content-length", "0"))
            except ValueError:
                return True  # let the parser refuse it
            if length > BODY_LIMIT or length < 0:
                return True
            if fields.get("expect", "").lower() == "100-continue":
                # The client waits for this before it sends the body: answer it here,
                # and drop the header so the thread does not answer it a second time.
                self._send(conn_sock, _CONTINUE)
                stripped = _without_expect(head)
                self.data[:end + 4] = stripped
                end = len(stripped) - 4
            self._needed = end + 4 + length
        return len(self.data) >= self._needed

    @staticmethod
    def _send(sock, data: bytes) -> None:
        try:
            sock.send(data)
        except OSError:
            pass


def _fields(head: bytes) -> dict[str, str]:
    out = {}
    for line in head.split(b"\r\n")[1:]:
        name, sep, value = line.partition(b":")
        if sep:
            out[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
    return out


def _without_expect(head: bytes) -> bytes:
    lines = head.split(b"\r\n")
    kept = [ln for ln in lines[1:] if ln.partition(b":")[0].strip().lower() != b"expect"]
    return b"\r\n".join([lines[0], *kept])


class BufferedThreadWorker(ThreadWorker):
    """`worker_class = "sidecar.buffered_worker.BufferedThreadWorker"`."""

    def init_process(self):
        self.receiving: dict[TConn, Incoming] = {}
        # TLS and h2c read their own handshakes from the socket: those stay gthread's.
        self.buffering = not self.cfg.is_ssl and getattr(self.cfg, "http2_cleartext", "off") == "off"
        super().init_process()

    # -- new and kept-alive connections start receiving in the loop -----------------

    def accept(self, listener):
        if not self.buffering:
            return super().accept(listener)
        try:
            client, addr = listener.accept()
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        conn = TConn(self.cfg, TimedSocket.adopt(client), addr, listener.getsockname())
        self._receive(conn, b"")

    def on_client_socket_readable(self, conn, client):
        if not self.buffering:
            return super().on_client_socket_readable(conn, client)
        self.poller.unregister(client)
        self.keepalived_conns.remove(conn)
        self._receive(conn, b"")

    def finish_request(self, conn, fs):
        if self.buffering and self.alive and not fs.cancelled() and fs.exception() is None and fs.result() is True:
            ahead = conn.parser.unreader.take_buffered()
            if ahead:  # the client sent its next request already: receive it like any other
                self._receive(conn, ahead)
                return
        super().finish_request(conn, fs)

    def _receive(self, conn: TConn, data: bytes) -> None:
        incoming = Incoming(data, time.monotonic() + REQUEST_TIMEOUT)
        conn.sock.setblocking(False)
        if data and incoming.complete(conn.sock):
            return self._dispatch(conn, incoming)
        self.receiving[conn] = incoming
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._on_bytes, conn))

    def _on_bytes(self, conn: TConn, sock) -> None:
        incoming = self.receiving[conn]
        try:
            chunk = conn.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:  # the client went away before its request was complete
            return self._drop(conn)
        incoming.data += chunk
        if incoming.complete(conn.sock):
            self.poller.unregister(conn.sock)
            del self.receiving[conn]
            self._dispatch(conn, incoming)

    def _dispatch(self, conn: TConn, incoming: Incoming) -> None:
        conn.sock.setblocking(True)
        conn.init()  # plain HTTP/1.x: creates the parser, reads nothing
        conn.parser.unreader.unread(bytes(incoming.data))
        conn.data_ready = True
        self.enqueue_req(conn)

    # -- requests that do not arrive in time ----------------------------------------

    def murder_pending(self):
        super().murder_pending()
        now = time.monotonic()
        for conn in [c for c, inc in self.receiving.items() if inc.deadline <= now]:
            if self.receiving[conn].data:
                Incoming._send(conn.sock, _TIMEOUT_RESPONSE)
            self._drop(conn)

    def _drop(self, conn: TConn) -> None:
        self.receiving.pop(conn, None)
        try:
            self.poller.unregister(conn.sock)
        except (KeyError, ValueError, OSError):
            pass
        self.nr_conns -= 1
        conn.close()
