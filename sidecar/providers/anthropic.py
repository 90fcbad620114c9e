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

import anthropic

from ..errors import ProviderError, ProviderNotConfigured
from .base import ChatRequest, ChatResult, Usage
from .retry_after import retry_after

_EPHEMERAL = {"type": "ephemeral"}


class AnthropicProvider:
    name = "anthropic"
    # Not on the SDK's deprecation list (anthropic/_data/deprecated_models.py); answers
    # without extended thinking eating into max_tokens; caches from 1,024 tokens, so a
    # small business's pinned knowledge is cacheable; and its list price is published.
    default_model = "claude-sonnet-4-6"

    def __init__(self, api_key: str, base_url: str | None = None, timeout: float = 30.0):
        if not api_key:
            raise ProviderNotConfigured(self.name, "no API key configured")
        # Our layer owns retries and fallbacks; SDK retries would multiply them.
        self._client = anthropic.Anthropic(api_key=api_key, base_url=base_url or None,
                                           max_retries=0, timeout=timeout)

    def chat(self, request: ChatRequest) -> ChatResult:
        try:
            response = self._client.messages.create(
                model=request.model or self.default_model,
                max_tokens=request.max_tokens,
                system=_system_blocks(request),
                messages=_messages(request),
                output_config={"format": {
                    "type": "json_schema",
                    "schema": {**request.schema.json_schema, "title": request.schema.name},
                }},
                timeout=request.timeout,
            )
        except anthropic.APIStatusError as e:
            raise ProviderError(self.name, _status_message(e), http_status=e.status_code,
                                retry_after=retry_after(e.response.headers)) from e
        except anthropic.APIConnectionError as e:  # APITimeoutError included
            raise ProviderError(self.name, f"{type(e).__name__}: {e}") from e
        except anthropic.AnthropicError as e:
            # E.g. a response the SDK cannot validate: sending it again will not help.
            raise ProviderError(self.name, f"{type(e).__name__}: {e}", retryable=False) from e

        usage = response.usage
        return ChatResult(
            text="".join(block.text for block in response.content if block.type == "text"),
            usage=Usage(
                input_tokens=usage.input_tokens or 0,
                output_tokens=usage.output_tokens or 0,
                cache_read_input_tokens=usage.cache_read_input_tokens or 0,
                cache_creation_input_tokens=usage.cache_creation_input_tokens or 0,
            ),
            provider=self.name,
            model=response.model,
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


def _status_message(e: anthropic.APIStatusError) -> str:
    detail = e.api_message or e.message
    kind = f"{e.type}: " if e.type else ""
    rid = f" (request-id {e.request_id})" if e.request_id else ""
    return f"HTTP {e.status_code} {kind}{detail}{rid}"
