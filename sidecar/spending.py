"""The daily spending cap: what a site's model calls are estimated to cost today.

A site's cap is its own (`rtac site budget SITE --daily-usd N`) or, when it has
none, the sidecar's default (RTAC_DAILY_BUDGET_USD); with neither there is no cap
and nothing is queried. "Today" is the UTC calendar day. The figure is the sum of
the recorded usage's cost estimates (sidecar/pricing.py), the same numbers
/v1/stats reports: an estimate from list prices, not the vendor's bill.

The check runs on every turn, so it is one aggregate over an index range that
covers it (site, created_at, cost), never a scan of the usage table.
"""
from __future__ import annotations

from decimal import Decimal, InvalidOperation

from sqlalchemy import func, literal_column, select, update
from sqlalchemy.engine import Connection, Engine

from . import tables as t
from .config import Config
from .errors import BadRequest, NotFound
from .sites import Site

# Usage rows take their created_at from the database clock (the column default),
# so the start of the UTC day is expressed on that clock too: the session's offset
# from UTC, both read at the same instant of the statement.
_UTC_DAY_START = literal_column(
    "DATE_ADD(UTC_DATE(), INTERVAL TIMESTAMPDIFF(SECOND, UTC_TIMESTAMP(), NOW()) SECOND)")

MAX_DAILY_USD = Decimal("99999999.9999")  # what the column holds


def daily_budget(site: Site, config: Config) -> float | None:
    """The cap that applies to the site: its own, else the default; None for no cap."""
    return site.daily_budget_usd if site.daily_budget_usd is not None else config.daily_budget_usd


def spent_today(conn: Connection, site_id: str) -> float:
    u = t.usage.c
    return float(conn.execute(select(func.coalesce(func.sum(u.cost_usd), 0))
                              .where(u.site_id == site_id, u.created_at >= _UTC_DAY_START)).scalar_one())


def over_budget(conn: Connection, site: Site, config: Config) -> bool:
    """True when the site has a cap and today's estimated cost has reached it: the
    turn then answers offline and calls no vendor."""
    cap = daily_budget(site, config)
    if cap is None:
        return False
    return spent_today(conn, site.id) >= cap


def budget_status(conn: Connection, site: Site, config: Config) -> dict:
    """For /v1/stats: the cap that applies (null for none) and today's estimated cost."""
    cap = daily_budget(site, config)
    return {"daily_budget_usd": cap, "spent_today_usd": round(spent_today(conn, site.id), 6)}


def parse_daily_usd(raw) -> Decimal:
    """`raw` as a daily cap in USD, to four decimals. The rule alone: a ValueError says
    what is wrong, and each caller answers it its own way (the command line with a
    usage error, `set_daily_budget` with a BadRequest naming `daily_usd`)."""
    try:
        value = Decimal(str(raw).strip())
    except InvalidOperation:
        raise ValueError(f"must be an amount in US dollars, got {raw!r}") from None
    if not value.is_finite() or value < 0:
        raise ValueError(f"must be zero or more, got {raw!r}")
    if value > MAX_DAILY_USD:
        raise ValueError(f"must be at most {MAX_DAILY_USD}")
    return value.quantize(Decimal("0.0001"))


def set_daily_budget(engine: Engine, site_id: str, usd) -> Decimal | None:
    """Set the site's own cap (None: back to the default). Running sidecars apply it
    within their site cache's lifetime (30 seconds)."""
    try:
        value = None if usd is None else parse_daily_usd(usd)
    except ValueError as exc:
        raise BadRequest("daily_usd", str(exc)) from None
    with engine.begin() as conn:
        found = conn.execute(update(t.sites).where(t.sites.c.id == site_id)
                             .values(daily_budget_usd=value)).rowcount
    if not found:
        raise NotFound(f"unknown site {site_id!r}")
    return value
