"""A fake Gemini API (generateContent) server speaking the real wire format.

Shapes follow recorded real exchanges: `candidates[].content.parts[].text` with
`finishReason`, `usageMetadata` with `promptTokenCount`, `candidatesTokenCount`,
`thoughtsTokenCount` and, on a cache hit, `cachedContentTokenCount`; error bodies
`{"error": {"code", "message", "status"}}`, a 429 carrying its delay as a
`google.rpc.RetryInfo` detail. Implicit caching is simulated over systemInstruction +
contents with a 1024-token minimum (see `PrefixCache`).

Embeddings: `models/{model}:batchEmbedContents` (what google-genai calls for the Gemini
API, even for one text) answers `{"embeddings": [{"values"}]}` and
`models/{model}:embedContent` answers `{"embedding": {"values"}}`, with
`pseudo_embedding` vectors (bag of words over the text parts, not unit length) of
`outputDimensionality`, else 3072, dimensions. They consume a script item like any
request (an Error item fails them; Reply text is ignored).

Streaming: `models/{model}:streamGenerateContent?alt=sse` answers `data:` events
(CRLF-framed, as the API sends them), each a whole GenerateContentResponse with one
text chunk; every event carries the prompt counts, the last the finish reason and
the full usage. A stream cut by an Error item ends with `data: {"error": {...}}`.
"""
from __future__ import annotations

import itertools
import json
import re

from ._http import *  # noqa: F401,F403 - the script items and plumbing (_http.__all__)

_PATH = re.compile(r"^/v1beta/models/([^/:]+):(generateContent|streamGenerateContent)$")
_EMBED_PATH = re.compile(r"^/v1beta/models/([^/:]+):(batchEmbedContents|embedContent)$")
DEFAULT_EMBEDDING_DIM = 3072

_STATUS_NAMES = {
    400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
    404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


class FakeGemini(FakeServer):
    def __init__(self, thoughts_tokens: int = 0):
        super().__init__()
        self.cache = PrefixCache(min_tokens=1024)
        self.thoughts_tokens = thoughts_tokens
        self._ids = itertools.count(1)

    @property
    def base_url(self) -> str:
        return self.url

    def answer(self, request: Recorded, item: Reply | Streamed | Error) -> Response | EventStream:
        path = request.path.split("?")[0]
        match = _PATH.match(path)
        embed = _EMBED_PATH.match(path)
        if request.method != "POST" or not (match or embed):
            return _error(404, f"The requested URL {request.path} was not found.")
        if not request.headers.get("x-goog-api-key"):
            return _error(403, "Method doesn't allow unregistered callers.")
        if isinstance(item, Error):
            return _error(item.status, item.message, retry_after=item.retry_after)
        if embed:
            if embed.group(2) == "embedContent":
                return Response(200, {"embedding": _embedding(request.body)})
            return Response(200, {"embeddings": [_embedding(r) for r in request.body.get("requests", [])]})
        if match.group(2) == "streamGenerateContent":
            return EventStream(self._events(match.group(1), request.body, as_streamed(item)),
                               content_type="text/event-stream")
        return Response(200, self._generated(match.group(1), request.body, item.text))

    def _events(self, model: str, body: dict, plan: Streamed):
        usage = self._usage(body, plan.text)
        response_id = f"fakeResp{next(self._ids):06d}"
        # Before the last event the counts cover the prompt only.
        so_far = {k: v for k, v in usage.items()
                  if k in ("promptTokenCount", "promptTokensDetails", "cachedContentTokenCount", "cacheTokensDetails")}
        so_far["totalTokenCount"] = usage["promptTokenCount"]
        chunks = plan.chunks()
        sent = 0

        def event(data: dict) -> bytes:
            return b"data: " + json.dumps(data).encode() + b"\r\n\r\n"

        def text_event(text: str) -> bytes:
            nonlocal sent
            sent += 1
            last = sent == len(chunks)
            data = generated_body(text, usage=usage if last else so_far, model=model,
                                  response_id=response_id)
            if not last:
                del data["candidates"][0]["finishReason"]
            return event(data)

        def cut(err: Error) -> bytes:
            return event({"error": {"code": err.status, "message": err.message,
                                    "status": _STATUS_NAMES.get(err.status, "UNKNOWN")}})

        yield from paced(plan, text_event, cut)

    def _generated(self, model: str, body: dict, text: str) -> dict:
        return generated_body(text, usage=self._usage(body, text), model=model,
                              response_id=f"fakeResp{next(self._ids):06d}")

    def _usage(self, body: dict, text: str) -> dict:
        segments = [("system", part.get("text", ""))
                    for part in (body.get("systemInstruction") or {}).get("parts", [])]
        segments += [(content.get("role", "user"), part.get("text", ""))
                     for content in body.get("contents", []) for part in content.get("parts", [])]
        prompt, cached = self.cache.use("", segments)
        candidates = tokens(text)
        usage = {
            "promptTokenCount": prompt,
            "candidatesTokenCount": candidates,
            "totalTokenCount": prompt + candidates + self.thoughts_tokens,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}],
            "candidatesTokensDetails": [{"modality": "TEXT", "tokenCount": candidates}],
        }
        if cached:
            usage["cachedContentTokenCount"] = cached
            usage["cacheTokensDetails"] = [{"modality": "TEXT", "tokenCount": cached}]
        if self.thoughts_tokens:
            usage["thoughtsTokenCount"] = self.thoughts_tokens
        return usage


def _embedding(request: dict) -> dict:
    text = " ".join(part.get("text", "") for part in (request.get("content") or {}).get("parts", []))
    dim = request.get("outputDimensionality") or DEFAULT_EMBEDDING_DIM
    return {"values": pseudo_embedding(text, dim)}


def generated_body(text: str | None, *, usage: dict | None = None, model: str = "gemini-fake",
                   finish_reason: str = "STOP", response_id: str = "fakeRespRaw") -> dict:
    """A whole generateContent body, for `raw()` items (blocked or cut-off answers)."""
    candidate = {"finishReason": finish_reason, "index": 0}
    if text is not None:
        candidate["content"] = {"parts": [{"text": text}], "role": "model"}
    return {
        "candidates": [candidate],
        "usageMetadata": usage or {"promptTokenCount": 10, "candidatesTokenCount": 5,
                                   "totalTokenCount": 15},
        "modelVersion": model,
        "responseId": response_id,
    }


def _error(status: int, message: str, *, retry_after: float | None = None) -> Response:
    err = {"code": status, "message": message, "status": _STATUS_NAMES.get(status, "UNKNOWN")}
    if retry_after is not None:
        err["details"] = [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
                           "retryDelay": f"{retry_after:g}s"}]
    return Response(status, {"error": err})
