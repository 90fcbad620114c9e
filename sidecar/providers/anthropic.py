"""Anthropic Messages API through the official SDK.

Caching layout (three of the four breakpoints the API allows):
1. the stable `system` block: shared by every visitor of the site;
2. the short `system_tail` right behind it: stable within a conversation, so from
   turn 2 on the whole system prompt is a cache read, and a tail that changes (the
   visitor moved to another page) costs only its own few tokens as a cache write;
3. the last message before the current one: each turn writes only its newest
   exchange and reads all earlier ones.
The current message never carries one: it holds this turn's retrieved context.
"""
from __future__ import annotations

from typing import Iterator

import anthropic

from ..errors import ProviderError, ProviderNotConfigured
from . import PROVIDERS
from .base import ChatRequest, ChatResult, ChatStream, Usage
from .retry_after import retry_after
from .streams import VendorStream
from .transport import TRANSPORT_ERRORS

SPEC = PROVIDERS["anthropic"]
_EPHEMERAL = {"type": "ephemeral"}
# The HTTP status each error type has when it is not streamed
# (docs.anthropic.com/en/api/errors): an `error` event mid-stream comes inside a 200.
_STREAM_ERROR_STATUS = {
    "invalid_request_error": 400, "authentication_error": 401, "billing_error": 402,
    "permission_error": 403, "not_found_error": 404, "request_too_large": 413,
    "rate_limit_error": 429, "api_error": 500, "timeout_error": 504, "overloaded_error": 529,
}


class AnthropicProvider:
    name = SPEC.name
    default_model = SPEC.default_model

    def __init__(self, api_key: str, base_url: str | None = None, timeout: float = 30.0):
        if not api_key:
            raise ProviderNotConfigured(self.name, f"no API key configured ({SPEC.key_env})")
        # Our layer owns retries and fallbacks; SDK retries would multiply them.
        self._client = anthropic.Anthropic(api_key=api_key, base_url=base_url or None,
                                           max_retries=0, timeout=timeout)

    def chat(self, request: ChatRequest) -> ChatResult:
        try:
            response = self._client.messages.create(**_params(request, self.default_model))
        except (anthropic.AnthropicError, ValueError) as e:  # ValueError: a body that is not UTF-8
            raise self._failure(e) from e

        return ChatResult(
            text="".join(block.text for block in response.content if block.type == "text"),
            usage=_usage(response.usage),
            provider=self.name,
            model=response.model,
        )

    def stream(self, request: ChatRequest) -> ChatStream:
        params = _params(request, self.default_model)
        return VendorStream(ChatResult("", provider=self.name, model=params["model"]),
                            lambda result: self._pieces(params, result))

    def _pieces(self, params: dict, result: ChatResult) -> Iterator[str]:
        try:
            # Same request as chat(), with "stream": true; closing this generator
            # leaves the `with`, which closes the HTTP response.
            with self._client.messages.stream(**params) as events:
                for event in events:
                    if event.type == "message_start":
                        result.model = event.message.model or result.model
                        result.usage = _usage(event.message.usage)  # input counts; output so far
                    elif event.type == "content_block_delta" and event.delta.type == "text_delta":
                        # Thinking deltas are not the answer. The JSON itself arrives as
                        # text: output_config constrains the text, no tool is forced.
                        yield event.delta.text
                    elif event.type == "message_delta":
                        # Cumulative totals; a count left out keeps its message_start value.
                        result.usage = _usage(event.usage, result.usage)
        except anthropic.AnthropicError as e:
            raise self._failure(e) from e
        except TRANSPORT_ERRORS as e:  # the body broke off while being read
            raise ProviderError(self.name, f"{type(e).__name__}: {e}") from e

    def _failure(self, e: anthropic.AnthropicError) -> ProviderError:
        if isinstance(e, anthropic.APIStatusError):
            # An `error` event inside a 200 stream carries its kind only in the body.
            status = e.status_code if e.status_code >= 400 else _STREAM_ERROR_STATUS.get(e.type or "", 500)
            return ProviderError(self.name, _status_message(e, status), http_status=status,
                                 retry_after=retry_after(e.response.headers))
        if isinstance(e, anthropic.APIConnectionError):  # APITimeoutError included
            return ProviderError(self.name, f"{type(e).__name__}: {e}")
        # E.g. a response the SDK cannot validate: sending it again will not help.
        return ProviderError(self.name, f"{type(e).__name__}: {e}", retryable=False)


def _params(request: ChatRequest, default_model: str) -> dict:
    return dict(
        model=request.model or default_model,
        max_tokens=request.max_tokens,
        system=_system_blocks(request),
        messages=_messages(request),
        output_config={"format": {
            "type": "json_schema",
            "schema": {**request.schema.json_schema, "title": request.schema.name},
        }},
        timeout=request.timeout,
    )


def _usage(usage, before: Usage | None = None) -> Usage:
    before = before or Usage()

    def count(name: str, old: int) -> int:
        value = getattr(usage, name, None)
        return old if value is None else value

    return Usage(
        input_tokens=count("input_tokens", before.input_tokens),
        output_tokens=count("output_tokens", before.output_tokens),
        cache_read_input_tokens=count("cache_read_input_tokens", before.cache_read_input_tokens),
        cache_creation_input_tokens=count("cache_creation_input_tokens", before.cache_creation_input_tokens),
    )


def _system_blocks(request: ChatRequest) -> list[dict]:
    # The API rejects empty text blocks.
    blocks = []
    if request.system:
        blocks.append({"type": "text", "text": request.system, "cache_control": _EPHEMERAL})
    if request.system_tail:
        blocks.append({"type": "text", "text": request.system_tail, "cache_control": _EPHEMERAL})
    return blocks


def _messages(request: ChatRequest) -> list[dict]:
    out = [{"role": m.role, "content": [{"type": "text", "text": m.content}]}
           for m in request.messages]
    if len(out) > 1:
        out[-2]["content"][-1]["cache_control"] = _EPHEMERAL
    return out


def _status_message(e: anthropic.APIStatusError, status: int) -> str:
    detail = e.api_message or e.message
    kind = f"{e.type}: " if e.type else ""
    rid = f" (request-id {e.request_id})" if e.request_id else ""
    return f"HTTP {status} {kind}{detail}{rid}"
