"""The HTTP client errors the vendor SDKs let through unwrapped."""
from __future__ import annotations

import importlib


def transport_errors() -> tuple[type[Exception], ...]:
    # The SDKs send through httpx2 or httpx, whichever is installed. Gemini's lets their
    # timeout and connection errors through on every call; Anthropic's and OpenAI's
    # wrap them on the request, but not while a streamed body is being read.
    found = []
    for module in ("httpx2", "httpx"):
        try:
            found.append(importlib.import_module(module).TransportError)
        except ImportError:
            pass
    return tuple(found)


TRANSPORT_ERRORS = transport_errors()
