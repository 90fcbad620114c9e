"""Language codes: everything is keyed by a lowercase primary subtag (`et`, `ko`)."""
from __future__ import annotations

import re

_TAG = re.compile(r"^([A-Za-z]{2,3})(?:[-_][A-Za-z0-9]{1,8})*$")


def normalize_lang(value: str | None) -> str | None:
    """`et_EE`, `et-EE`, `ET` -> `et`; None when it is not a language tag."""
    if not isinstance(value, str):
        return None
    m = _TAG.match(value.strip())
    return m.group(1).lower() if m else None
