"""The refs a model names a customer's memories by: "m1", "m2", … in the order they
were shown to it. A ref means something only within the call that showed it, so the
callers keep the ref → memory map; this module says what one looks like, so that a
malformed name is dropped before any lookup."""
from __future__ import annotations

import re

# Far more than any call shows (recall shows a few, the extraction call at most
# `extract.KNOWN_SHOWN`); longer is not a ref.
_REF = re.compile(r"^m[1-9]\d{0,3}$")


def ref(n: int) -> str:
    """The ref of the n-th memory shown, counting from 1."""
    return f"m{n}"


def as_ref(value: object) -> str | None:
    """The ref a model's value names, stripped, or None when it is none."""
    if not isinstance(value, str):
        return None
    value = value.strip()
    return value if _REF.match(value) else None
