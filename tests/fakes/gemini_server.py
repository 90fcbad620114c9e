"""A fake Gemini API (generateContent) server speaking the real wire format.

Shapes follow recorded real exchanges: `candidates[].content.parts[].text` with
`finishReason`, `usageMetadata` with `promptTokenCount`, `candidatesTokenCount`,
`thoughtsTokenCount` and, on a cache hit, `cachedContentTokenCount`; error bodies
`{"error": {"code", "message", "status"}}`, a 429 carrying its delay as a
`google.rpc.RetryInfo` detail. Implicit caching is simulated over systemInstruction +
contents with a 1024-token minimum (see `PrefixCache`).
"""
from __future__ import annotations

import itertools
import re

from ._http import (  # noqa: F401
    DEFAULT_REPLY,
    Error,
    FakeServer,
    PrefixCache,
    Recorded,
    Reply,
    Response,
    delay,
    error,
    raw,
    refused_url,
    reply_json,
    reply_text,
    tokens,
)

_PATH = re.compile(r"^/v1beta/models/([^/:]+):generateContent$")

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

    def answer(self, request: Recorded, item: Reply | Error) -> Response:
        match = _PATH.match(request.path.split("?")[0])
        if request.method != "POST" or not match:
            return _error(404, f"The requested URL {request.path} was not found.")
        if not request.headers.get("x-goog-api-key"):
            return _error(403, "Method doesn't allow unregistered callers.")
        if isinstance(item, Error):
            return _error(item.status, item.message, retry_after=item.retry_after)
        return Response(200, self._generated(match.group(1), request.body, item.text))

    def _generated(self, model: str, body: dict, text: str) -> dict:
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
        return generated_body(text, usage=usage, model=model,
                              response_id=f"fakeResp{next(self._ids):06d}")


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
