"""Google Gemini (generateContent) through the official google-genai SDK.

Caching layout: Gemini caches prompt prefixes implicitly, so the system instruction
holds the stable `system` first and the dynamic `system_tail` after it, ahead of the
conversation. There is no cache key to send.
"""
from __future__ import annotations

from typing import Iterator

from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from ..errors import ProviderError, ProviderNotConfigured
from . import PROVIDERS
from .base import ChatRequest, ChatResult, ChatStream, Usage
from .retry_after import retry_after
from .streams import VendorStream
from .transport import TRANSPORT_ERRORS

SPEC = PROVIDERS["gemini"]


def make_client(api_key: str, base_url: str | None, timeout: float) -> genai.Client:
    """The Gemini API client, as the provider and the Gemini embedder both use it."""
    return genai.Client(
        api_key=api_key,
        vertexai=False,  # never switched by GOOGLE_GENAI_USE_VERTEXAI in the environment
        http_options=types.HttpOptions(
            base_url=base_url or None,
            # SDK 3 moved its default to v1 and reads GOOGLE_GENAI_API_VERSION; pin the
            # version that has everything used here (JSON schema, thinking level, task types).
            api_version="v1beta",
            timeout=_ms(timeout),
            # Our layer owns retries and fallbacks; SDK retries would multiply them.
            retry_options=types.HttpRetryOptions(attempts=1),
        ),
    )


class GeminiProvider:
    name = SPEC.name
    default_model = SPEC.default_model

    def __init__(self, api_key: str, base_url: str | None = None, timeout: float = 30.0):
        if not api_key:
            raise ProviderNotConfigured(self.name, f"no API key configured ({SPEC.key_env})")
        self._client = make_client(api_key, base_url, timeout)

    def chat(self, request: ChatRequest) -> ChatResult:
        model = request.model or self.default_model
        try:
            response = self._client.models.generate_content(
                model=model, contents=_contents(request), config=_config(request, model))
        except (genai_errors.APIError, *TRANSPORT_ERRORS, ValueError) as e:
            raise self._failure(e) from e

        return ChatResult(text=self._text(response), usage=_usage(response.usage_metadata),
                          provider=self.name, model=response.model_version or model)

    def stream(self, request: ChatRequest) -> ChatStream:
        model = request.model or self.default_model
        return VendorStream(ChatResult("", provider=self.name, model=model),
                            lambda result: self._pieces(request, model, result))

    def _pieces(self, request: ChatRequest, model: str, result: ChatResult) -> Iterator[str]:
        # A generator: the request goes out at the first next(), and closing it closes
        # the SDK's generators down to the HTTP response.
        chunks = self._client.models.generate_content_stream(
            model=model, contents=_contents(request), config=_config(request, model))
        last: types.GenerateContentResponse | None = None
        has_text = False
        try:
            for chunk in chunks:
                last = chunk
                if chunk.usage_metadata is not None:  # every chunk carries the counts so far
                    result.usage = _usage(chunk.usage_metadata)
                result.model = chunk.model_version or result.model
                text = chunk.text
                if text is not None:
                    has_text = True
                    yield text
        except (genai_errors.APIError, *TRANSPORT_ERRORS, ValueError) as e:
            raise self._failure(e) from e
        finally:
            chunks.close()
        if last is None:
            raise ProviderError(self.name, "the stream ended without an answer")
        # The last chunk has the finish reason; the answer is judged as a whole one is.
        self._check_end(last, has_text=has_text)

    def _failure(self, e: Exception) -> ProviderError:
        if isinstance(e, genai_errors.APIError):  # ClientError and ServerError included
            return ProviderError(self.name, f"HTTP {e.code} {e.status}: {e.message}",
                                 http_status=e.code, retry_after=_retry_after(e))
        if isinstance(e, TRANSPORT_ERRORS):  # timeouts and connection errors
            return ProviderError(self.name, f"{type(e).__name__}: {e}")
        # E.g. a response the SDK cannot parse: sending it again will not help.
        return ProviderError(self.name, f"{type(e).__name__}: {e}", retryable=False)

    def _text(self, response: types.GenerateContentResponse) -> str:
        text = response.text
        self._check_end(response, has_text=text is not None)
        return text

    def _check_end(self, response: types.GenerateContentResponse, *, has_text: bool) -> None:
        candidate = response.candidates[0] if response.candidates else None
        reason = candidate.finish_reason if candidate else None
        if reason == types.FinishReason.CONTINUATION:
            raise ProviderError(self.name, "the answer stopped for a continuation")
        if not has_text:
            # Blocked prompt or answer: the same request will be blocked again.
            feedback = response.prompt_feedback
            why = (f"prompt blocked ({feedback.block_reason})"
                   if feedback and feedback.block_reason else f"no text (finish reason {reason})")
            raise ProviderError(self.name, why, retryable=False)


def _config(request: ChatRequest, model: str) -> types.GenerateContentConfig:
    return types.GenerateContentConfig(
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
