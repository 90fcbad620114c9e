"""OpenAI Chat Completions through the official SDK.

Caching layout: OpenAI caches prompt prefixes automatically (from 1024 tokens, in
128-token steps), so the stable `system` is the very first message and the dynamic
`system_tail` comes right after it, where its changes cannot break the cached prefix.
`prompt_cache_key` routes every request of a site to the same warm cache.

Both are `system` messages rather than `developer` ones: reasoning models treat
`system` as `developer`, while OpenAI-compatible servers reached through `base_url`
often know no `developer` role at all.
"""
from __future__ import annotations

import copy
import re
from typing import Iterator

import openai

from ..errors import ProviderError, ProviderNotConfigured
from . import PROVIDERS
from .base import ChatRequest, ChatResult, ChatStream, Usage
from .retry_after import retry_after
from .streams import VendorStream
from .transport import TRANSPORT_ERRORS

SPEC = PROVIDERS["openai"]
# Reasoning models spend hidden tokens out of max_completion_tokens and add latency; a
# grounded chat reply needs little of either. "low" is the lowest effort every
# reasoning family accepts (o-series, gpt-5, gpt-6 Astra have no "none").
_REASONING_MODEL = re.compile(r"^(o\d|gpt-[5-9])")
_REASONING_EFFORT = "low"
# Error types that blame the request, in a stream's error event as in an error body.
_CALLER_FAULTS = frozenset({"invalid_request_error", "authentication_error", "permission_error"})


class OpenAIProvider:
    name = SPEC.name
    default_model = SPEC.default_model

    def __init__(self, api_key: str, base_url: str | None = None, timeout: float = 30.0):
        if not api_key:
            raise ProviderNotConfigured(self.name, f"no API key configured ({SPEC.key_env})")
        # Our layer owns retries and fallbacks; SDK retries would multiply them.
        self._client = openai.OpenAI(api_key=api_key, base_url=base_url or None,
                                     max_retries=0, timeout=timeout)

    def chat(self, request: ChatRequest) -> ChatResult:
        params = self._params(request)
        try:
            # Not .parse(): our lenient parser must see what the model really wrote,
            # unknown enum values included.
            completion = self._client.chat.completions.create(**params)
        except (openai.OpenAIError, ValueError) as e:
            raise self._failure(e) from e

        try:
            message = completion.choices[0].message
            # A refusal replaces the content; it is still the model's answer to show.
            text = message.content if message.content is not None else (message.refusal or "")
            usage = _usage(completion.usage)
        except (AttributeError, IndexError, TypeError) as e:
            # The SDK builds its models without validation; a malformed body shows here.
            raise ProviderError(self.name, f"malformed response: {e}", retryable=False) from e
        return ChatResult(text=text, usage=usage, provider=self.name,
                          model=completion.model or params["model"])

    def stream(self, request: ChatRequest) -> ChatStream:
        params = self._params(request)
        # The usage arrives in one last chunk without choices, only when asked for.
        params.update(stream=True, stream_options={"include_usage": True})
        return VendorStream(ChatResult("", provider=self.name, model=params["model"]),
                            lambda result: self._pieces(params, result))

    def _pieces(self, params: dict, result: ChatResult) -> Iterator[str]:
        try:
            # Closing this generator leaves the `with`, which closes the HTTP response.
            with self._client.chat.completions.create(**params) as chunks:
                for chunk in chunks:
                    result.model = chunk.model or result.model
                    if chunk.usage is not None:
                        result.usage = _usage(chunk.usage)
                    for choice in chunk.choices or ():
                        if choice.index == 0 and choice.delta is not None:
                            # A refusal replaces the content, as in chat().
                            yield choice.delta.content or choice.delta.refusal or ""
        except (openai.OpenAIError, ValueError) as e:
            raise self._failure(e) from e
        except TRANSPORT_ERRORS as e:  # the body broke off while being read
            raise ProviderError(self.name, f"{type(e).__name__}: {e}") from e
        except (AttributeError, TypeError) as e:
            raise ProviderError(self.name, f"malformed chunk: {e}", retryable=False) from e

    def _params(self, request: ChatRequest) -> dict:
        model = request.model or self.default_model
        params = dict(
            model=model,
            messages=_messages(request),
            response_format={"type": "json_schema", "json_schema": {
                "name": request.schema.name,
                "strict": True,
                "schema": strict_schema(request.schema.json_schema),
            }},
            # max_tokens is deprecated and rejected by reasoning models.
            max_completion_tokens=request.max_tokens,
            timeout=request.timeout,
        )
        if request.cache_key:
            params["prompt_cache_key"] = request.cache_key
        if _REASONING_MODEL.match(model) and "chat-latest" not in model:
            params["reasoning_effort"] = _REASONING_EFFORT
        return params

    def _failure(self, e: Exception) -> ProviderError:
        if isinstance(e, openai.APIStatusError):
            return ProviderError(self.name, _status_message(e), http_status=e.status_code,
                                 retry_after=retry_after(e.response.headers))
        if isinstance(e, openai.APIConnectionError):  # APITimeoutError included
            return ProviderError(self.name, f"{type(e).__name__}: {e}")
        if type(e) is openai.APIError and e.type not in _CALLER_FAULTS:
            # An error event inside the stream: the vendor failed while answering, so
            # another try may succeed; it has no status of its own.
            return ProviderError(self.name, f"{e.type or 'error'}: {e.message}", retryable=True)
        # E.g. a body the SDK cannot decode: sending it again will not help.
        return ProviderError(self.name, f"{type(e).__name__}: {e}", retryable=False)


def strict_schema(schema: dict) -> dict:
    """A copy of `schema` that strict Structured Outputs accept: every object closed
    (`additionalProperties: false`) with every property required. A property that was
    optional becomes nullable instead, so the model can still leave it out."""
    return _strict(copy.deepcopy(schema))


def _strict(node):
    if not isinstance(node, dict):
        return node
    for key in ("properties", "$defs", "definitions"):
        if isinstance(node.get(key), dict):
            node[key] = {name: _strict(sub) for name, sub in node[key].items()}
    for key in ("anyOf", "allOf", "oneOf", "prefixItems"):
        if isinstance(node.get(key), list):
            node[key] = [_strict(sub) for sub in node[key]]
    if isinstance(node.get("items"), dict):
        node["items"] = _strict(node["items"])
    types = node.get("type")
    if "properties" in node or types == "object" or (isinstance(types, list) and "object" in types):
        properties = node.setdefault("properties", {})
        required = set(node.get("required", ()))
        for name in properties:
            if name not in required:
                properties[name] = _nullable(properties[name])
        node["required"] = list(properties)
        node["additionalProperties"] = False
    return node


def _nullable(schema: dict) -> dict:
    types = schema.get("type")
    if isinstance(types, str):
        types = [types]
    if not isinstance(types, list):
        return {"anyOf": [schema, {"type": "null"}]}
    if "null" in types:
        return schema
    out = {**schema, "type": [*types, "null"]}
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def _messages(request: ChatRequest) -> list[dict]:
    out = [{"role": "system", "content": text}
           for text in (request.system, request.system_tail) if text]
    out += [{"role": m.role, "content": m.content} for m in request.messages]
    return out


def _usage(usage) -> Usage:
    if usage is None:
        return Usage()
    details = usage.prompt_tokens_details
    cached = (details.cached_tokens if details else 0) or 0
    # Only explicit caching on newer models reports writes; they are billed apart.
    written = (getattr(details, "cache_write_tokens", 0) if details else 0) or 0
    return Usage(
        input_tokens=max(0, (usage.prompt_tokens or 0) - cached - written),
        output_tokens=usage.completion_tokens or 0,  # reasoning tokens included
        cache_read_input_tokens=cached,
        cache_creation_input_tokens=written,
    )


def _status_message(e: openai.APIStatusError) -> str:
    kind = f"{e.type}: " if e.type else ""
    rid = f" (request-id {e.request_id})" if e.request_id else ""
    detail = e.body.get("message", e.message) if isinstance(e.body, dict) else e.message
    return f"HTTP {e.status_code} {kind}{detail}{rid}"
