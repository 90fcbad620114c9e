"""A fake OpenAI Chat Completions server speaking the real wire format.

Shapes follow recorded real exchanges: a `chat.completion` object whose usage carries
`prompt_tokens_details.cached_tokens` and `completion_tokens_details`, and error bodies
`{"error": {"message", "type", "param", "code"}}` with `retry-after` headers.
Automatic prefix caching is simulated (see `PrefixCache`): 1024-token minimum,
128-token increments, scoped by `prompt_cache_key`.
"""
from __future__ import annotations

import itertools
import math
import time

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

# status -> (type, code) as the real API sends them
_ERROR_KINDS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", None),
}


class FakeOpenAI(FakeServer):
    def __init__(self, reasoning_tokens: int = 0):
        super().__init__()
        self.cache = PrefixCache(min_tokens=1024, step=128)
        self.reasoning_tokens = reasoning_tokens
        self._ids = itertools.count(1)

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def answer(self, request: Recorded, item: Reply | Error) -> Response:
        rid = {"x-request-id": f"req_fake{next(self._ids):04d}"}
        if request.method != "POST" or request.path != "/v1/chat/completions":
            return _error(404, f"Invalid URL ({request.method} {request.path})", rid)
        if not request.headers.get("authorization", "").startswith("Bearer "):
            return _error(401, "You didn't provide an API key.", rid)
        if isinstance(item, Error):
            return _error(item.status, item.message, rid, retry_after=item.retry_after)
        return Response(200, self._completion(request.body, item.text), rid)

    def _completion(self, body: dict, text: str) -> dict:
        segments = [(m.get("role", ""), _content_text(m.get("content"))) for m in body["messages"]]
        prompt, cached = self.cache.use(body.get("prompt_cache_key") or "", segments)
        completion = tokens(text) + self.reasoning_tokens
        return {
            "id": f"chatcmpl-fake{next(self._ids):06d}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", ""),
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None,
                            "annotations": []},
                "logprobs": None,
                "finish_reason": "stop",
            }],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
                "completion_tokens_details": {
                    "reasoning_tokens": self.reasoning_tokens,
                    "audio_tokens": 0,
                    "accepted_prediction_tokens": 0,
                    "rejected_prediction_tokens": 0,
                },
            },
            "service_tier": "default",
            "system_fingerprint": None,
        }


def completion_body(content: str | None, refusal: str | None = None, usage: dict | None = None,
                    model: str = "gpt-fake", finish_reason: str = "stop") -> dict:
    """A whole `chat.completion` body, for `raw()` items (refusals, unusual usage)."""
    return {
        "id": "chatcmpl-fake-raw", "object": "chat.completion", "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "logprobs": None, "finish_reason": finish_reason,
                     "message": {"role": "assistant", "content": content, "refusal": refusal,
                                 "annotations": []}}],
        "usage": usage or {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _content_text(content) -> str:
    if isinstance(content, list):  # content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def _error(status: int, message: str, headers: dict, *,
           retry_after: float | None = None) -> Response:
    kind, code = _ERROR_KINDS.get(status, ("server_error", None))
    headers = dict(headers)
    if retry_after is not None:
        headers["retry-after"] = str(math.ceil(retry_after))
        headers["retry-after-ms"] = str(int(retry_after * 1000))
    body = {"error": {"message": message, "type": kind, "param": None,
                      "code": code}}
    return Response(status, body, headers)
