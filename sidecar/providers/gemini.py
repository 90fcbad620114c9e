"""Google Gemini (generateContent) through the official google-genai SDK.

Caching layout: Gemini caches prompt prefixes implicitly, so the system instruction
holds the stable `system` first and the dynamic `system_tail` after it, ahead of the
conversation. There is no cache key to send.
"""
from __future__ import annotations

import importlib

from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from ..errors import ProviderError, ProviderNotConfigured
from .base import ChatRequest, ChatResult, Usage
from .retry_after import retry_after


def transport_errors() -> tuple[type[Exception], ...]:
    # The SDK sends through httpx2 or httpx, whichever is installed, and lets their
    # timeout and connection errors through unwrapped.
    found = []
    for module in ("httpx2", "httpx"):
        try:
            found.append(importlib.import_module(module).TransportError)
        except ImportError:
            pass
    return tuple(found)


TRANSPORT_ERRORS = transport_errors()


class GeminiProvider:
    name = "gemini"
    # The SDK's own reference model and a GA Flash: the fast, cheap tier a chat needs.
    default_model = "gemini-3.8-flash"

    def __init__(self, api_key: str, base_url: str | None = None, timeout: float = 30.0):
        if not api_key:
            raise ProviderNotConfigured(self.name, "no API key configured")
        self._client = genai.Client(
            api_key=api_key,
            vertexai=False,  # never switched by GOOGLE_GENAI_USE_VERTEXAI in the environment
            http_options=types.HttpOptions(
                base_url=base_url or None,
                # SDK 3 moved its default to v1 and reads GOOGLE_GENAI_API_VERSION; pin the
                # version that has everything used here (JSON schema, thinking level).
                api_version="v1beta",
                timeout=_ms(timeout),
                # Our layer owns retries and fallbacks; SDK retries would multiply them.
                retry_options=types.HttpRetryOptions(attempts=1),
            ),
        )

    def chat(self, request: ChatRequest) -> ChatResult:
        model = request.model or self.default_model
        config = types.GenerateContentConfig(
            system_instruction=[t for t in (request.system, request.system_tail) if t] or None,
            response_mime_type="application/json",
            response_json_schema={**request.schema.json_schema, "title": request.schema.name},
            max_output_tokens=request.max_tokens,
            thinking_config=_thinking(model),
            # A continuation is another full request with its own timeout: it would
            # break our one-request-per-call time budget.
            automatic_continuation=False,
            http_options=types.HttpOptions(timeout=_ms(request.timeout)),
        )
        try:
            response = self._client.models.generate_content(
                model=model, contents=_contents(request), config=config)
        except genai_errors.APIError as e:  # ClientError and ServerError included
            raise ProviderError(self.name, f"HTTP {e.code} {e.status}: {e.message}",
                                http_status=e.code, retry_after=_retry_after(e)) from e
        except TRANSPORT_ERRORS as e:  # timeouts and connection errors
            raise ProviderError(self.name, f"{type(e).__name__}: {e}") from e
        except ValueError as e:
            # E.g. a response the SDK cannot parse: sending it again will not help.
            raise ProviderError(self.name, f"{type(e).__name__}: {e}", retryable=False) from e

        return ChatResult(text=self._text(response), usage=_usage(response.usage_metadata),
                          provider=self.name, model=response.model_version or model)

    def _text(self, response: types.GenerateContentResponse) -> str:
        candidate = response.candidates[0] if response.candidates else None
        reason = candidate.finish_reason if candidate else None
        if reason == types.FinishReason.CONTINUATION:
            raise ProviderError(self.name, "the answer stopped for a continuation")
        text = response.text
        if text is None:
            # Blocked prompt or answer: the same request will be blocked again.
            feedback = response.prompt_feedback
            why = (f"prompt blocked ({feedback.block_reason})"
                   if feedback and feedback.block_reason else f"no text (finish reason {reason})")
            raise ProviderError(self.name, why, retryable=False)
        return text


def _contents(request: ChatRequest) -> list[types.Content]:
    return [types.Content(role="model" if m.role == "assistant" else "user",
                          parts=[types.Part(text=m.content)])
            for m in request.messages]


def _thinking(model: str) -> types.ThinkingConfig | None:
    # Gemini 3 thinks at MEDIUM by default, out of max_output_tokens and at a latency
    # cost; a grounded chat reply needs little. Older models take no thinking level.
    if model.startswith("gemini-3"):
        return types.ThinkingConfig(thinking_level=types.ThinkingLevel.LOW)
    return None


def _usage(meta: types.GenerateContentResponseUsageMetadata | None) -> Usage:
    if meta is None:
        return Usage()
    cached = meta.cached_content_token_count or 0
    return Usage(
        input_tokens=max(0, (meta.prompt_token_count or 0) - cached),
        output_tokens=(meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0),
        cache_read_input_tokens=cached,
    )


def _retry_after(e: genai_errors.APIError) -> float | None:
    """Seconds to wait: a Retry-After header, else the body's google.rpc.RetryInfo."""
    from_header = retry_after(getattr(e.response, "headers", None))
    if from_header is not None:
        return from_header
    body = e.details if isinstance(e.details, dict) else {}
    body = body.get("error") if isinstance(body.get("error"), dict) else body
    for detail in body.get("details") or []:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("google.rpc.RetryInfo"):
            delay = str(detail.get("retryDelay", ""))
            try:
                return max(0.0, float(delay.removesuffix("s")))
            except ValueError:
                return None
    return None


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))
