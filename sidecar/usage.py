"""Token usage per model call and the owner's statistics."""
from __future__ import annotations

from sqlalchemy import case, func, insert, select
from sqlalchemy.engine import Connection

from . import tables as t
from .pricing import cost
from .providers.base import Usage
from .unanswered import open_count


_INSERT = insert(t.usage)  # built once: every turn records its usage


def record(conn: Connection, site_id: str, turn_id: int | None, provider: str, model: str,
           usage: Usage, purpose: str = "chat", price_corrections: int = 0) -> None:
    actual, uncached = cost(model, usage)
    conn.execute(_INSERT, dict(
        site_id=site_id, turn_id=turn_id, purpose=purpose, provider=provider, model=model,
        input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
        cache_read_input_tokens=usage.cache_read_input_tokens,
        cache_creation_input_tokens=usage.cache_creation_input_tokens,
        cost_usd=actual, uncached_cost_usd=uncached, price_corrections=price_corrections))


def stats(conn: Connection, site_id: str) -> dict:
    u = t.usage.c
    row = conn.execute(select(
        func.coalesce(func.sum(case((u.purpose == "chat", 1), else_=0)), 0).label("turns"),
        func.coalesce(func.sum(u.input_tokens), 0).label("input"),
        func.coalesce(func.sum(u.output_tokens), 0).label("output"),
        func.coalesce(func.sum(u.cache_read_input_tokens), 0).label("cache_read"),
        func.coalesce(func.sum(u.cache_creation_input_tokens), 0).label("cache_write"),
        func.coalesce(func.sum(u.cost_usd), 0).label("cost"),
        func.coalesce(func.sum(u.uncached_cost_usd), 0).label("uncached"),
        func.coalesce(func.sum(case((u.provider == "offline", 1), else_=0)), 0).label("offline_turns"),
        func.coalesce(func.sum(u.price_corrections), 0).label("price_corrections"),
    ).where(u.site_id == site_id)).one()
    # Every input token is either fresh, written to cache or read from it.
    all_input = int(row.input) + int(row.cache_read) + int(row.cache_write)
    return {
        "turns": int(row.turns),
        "input_tokens": all_input,
        "fresh_input_tokens": int(row.input),
        "output_tokens": int(row.output),
        "cache_read_input_tokens": int(row.cache_read),
        "cache_creation_input_tokens": int(row.cache_write),
        "cache_read_share": round(int(row.cache_read) / all_input, 4) if all_input else 0.0,
        "estimated_cost_usd": round(float(row.cost), 6),
        "estimated_uncached_cost_usd": round(float(row.uncached), 6),
        "estimated_savings_usd": round(float(row.uncached) - float(row.cost), 6),
        "offline_turns": int(row.offline_turns),
        # Sentences the price check replaced or removed: amounts the model got wrong.
        "price_corrections": int(row.price_corrections),
        "open_unanswered": open_count(conn, site_id),
    }
