"""The one clock: naive UTC datetimes, as the database stores them, and their form in the API."""
from __future__ import annotations

from datetime import datetime, timezone


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def iso(dt: datetime) -> str:
    """A stored (naive UTC) time as the API writes it: `2026-12-01T13:05:00Z`."""
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")
