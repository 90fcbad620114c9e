"""The daily spending cap (docs/configuration.md: RTAC_DAILY_BUDGET_USD): a site's
own cap or the sidecar's default, today's (UTC) estimated cost from the recorded usage,
one index-only aggregate per turn."""
from __future__ import annotations

import base64
import os
import secrets
from dataclasses import replace

import pytest
from sqlalchemy import select, text, update

from sidecar import config as config_module
from sidecar import spending
from sidecar import tables
from sidecar import usage
from sidecar.errors import BadRequest, ConfigError, NotFound
from sidecar.pricing import cost
from sidecar.providers.base import Usage
from sidecar.sites import SiteRegistry, add_site, load_site

MODEL = "claude-sonnet-4-6"  # $3 in, $15 out a million tokens
ONE_DOLLAR = Usage(input_tokens=0, output_tokens=66_667)  # 66,667 x $15 / 1M = $1.000005


def env(**extra) -> dict:
    return {"RTAC_DATABASE_URL": "mysql+pymysql://u@h/db", "RTAC_MASTER_KEY": base64.b64encode(os.urandom(32)).decode(),
            **extra}


def spend(engine, site, usd_units: int, *, days_ago: int = 0):
    with engine.begin() as conn:
        for _ in range(usd_units):
            usage.record(conn, site.id, None, "anthropic", MODEL, ONE_DOLLAR)
        if days_ago:
            conn.execute(text("UPDATE rtac_usage SET created_at = NOW() - INTERVAL :d DAY"
                              " WHERE site_id = :s AND created_at >= NOW() - INTERVAL 1 MINUTE"),
                         {"d": days_ago, "s": site.id})


def reload(engine, keyring, site):
    with engine.connect() as conn:
        return load_site(conn, keyring, site.id)


# --- configuration ---------------------------------------------------------------------

def test_the_default_cap_is_read_once_into_the_config():
    assert config_module.load(env()).daily_budget_usd is None  # unset: no cap
    assert config_module.load(env(RTAC_DAILY_BUDGET_USD="")).daily_budget_usd is None
    assert config_module.load(env(RTAC_DAILY_BUDGET_USD="12.5")).daily_budget_usd == 12.5
    assert config_module.load(env(RTAC_DAILY_BUDGET_USD="0")).daily_budget_usd == 0.0


@pytest.mark.parametrize("raw", ["-1", "ten", "nan", "inf"])
def test_a_bad_default_cap_is_a_config_error_naming_it(raw):
    with pytest.raises(ConfigError, match="RTAC_DAILY_BUDGET_USD"):
        config_module.load(env(RTAC_DAILY_BUDGET_USD=raw))


# --- the check -------------------------------------------------------------------------

def test_no_cap_anywhere_is_never_over_budget(engine, site, config):
    spend(engine, site, 3)
    with engine.connect() as conn:
        assert spending.over_budget(conn, site, config) is False
        assert spending.budget_status(conn, site, config) == {"daily_budget_usd": None,
                                                              "spent_today_usd": pytest.approx(3.000015)}


def test_the_default_cap_applies_to_every_site_once_today_reaches_it(engine, site, config):
    capped = replace(config, daily_budget_usd=2.0)
    with engine.connect() as conn:
        assert spending.over_budget(conn, site, capped) is False
    spend(engine, site, 1)
    with engine.connect() as conn:
        assert spending.over_budget(conn, site, capped) is False
    spend(engine, site, 1)  # $2.00001: the cap is reached
    with engine.connect() as conn:
        assert spending.over_budget(conn, site, capped) is True
        assert spending.budget_status(conn, site, capped) == {"daily_budget_usd": 2.0,
                                                              "spent_today_usd": pytest.approx(2.00001)}


def test_only_todays_usage_counts(engine, site, config):
    spend(engine, site, 5, days_ago=1)
    capped = replace(config, daily_budget_usd=1.0)
    with engine.connect() as conn:
        assert spending.spent_today(conn, site.id) == 0.0
        assert spending.over_budget(conn, site, capped) is False


def test_other_sites_spending_does_not_count(engine, keyring, site, config):
    other = add_site(engine, keyring, "t-" + secrets.token_hex(6))
    spend(engine, other, 3)
    with engine.connect() as conn:
        assert spending.over_budget(conn, site, replace(config, daily_budget_usd=1.0)) is False


def test_the_sites_own_cap_overrides_the_default_and_clearing_restores_it(engine, keyring, site, config):
    spend(engine, site, 2)
    default_10 = replace(config, daily_budget_usd=10.0)
    assert str(spending.set_daily_budget(engine, site.id, "1.5")) == "1.5000"
    own = reload(engine, keyring, site)
    assert own.daily_budget_usd == 1.5
    with engine.connect() as conn:
        assert spending.over_budget(conn, own, default_10) is True
        assert spending.budget_status(conn, own, default_10)["daily_budget_usd"] == 1.5
    # A site may have more room than the default too.
    spending.set_daily_budget(engine, site.id, 50)
    with engine.connect() as conn:
        assert spending.over_budget(conn, reload(engine, keyring, site), replace(config, daily_budget_usd=1.0)) is False
    assert spending.set_daily_budget(engine, site.id, None) is None
    cleared = reload(engine, keyring, site)
    assert cleared.daily_budget_usd is None
    with engine.connect() as conn:
        assert spending.over_budget(conn, cleared, default_10) is False
        assert spending.over_budget(conn, cleared, replace(config, daily_budget_usd=1.0)) is True


def test_a_zero_cap_allows_no_vendor_call_at_all(engine, keyring, site, config):
    spending.set_daily_budget(engine, site.id, 0)
    with engine.connect() as conn:
        assert spending.over_budget(conn, reload(engine, keyring, site), config) is True


@pytest.mark.parametrize("raw", ["-0.01", "lots", "NaN", "Infinity", "1e12"])
def test_a_bad_site_cap_names_the_field_and_writes_nothing(engine, keyring, site, raw):
    spending.set_daily_budget(engine, site.id, 7)
    with pytest.raises(BadRequest) as err:
        spending.set_daily_budget(engine, site.id, raw)
    assert err.value.field == "daily_usd"
    assert reload(engine, keyring, site).daily_budget_usd == 7.0


def test_a_cap_for_an_unknown_site_is_not_found(engine):
    with pytest.raises(NotFound):
        spending.set_daily_budget(engine, "no-such-" + secrets.token_hex(4), 5)


def test_the_registry_carries_the_cap_so_a_turn_pays_no_extra_lookup(engine, keyring, site):
    spending.set_daily_budget(engine, site.id, 3)
    assert SiteRegistry(engine, keyring).require(site.id).daily_budget_usd == 3.0


def test_the_estimate_is_the_pricing_modules(engine, site):
    spend(engine, site, 1)
    with engine.connect() as conn:
        assert spending.spent_today(conn, site.id) == pytest.approx(cost(MODEL, ONE_DOLLAR)[0])


def test_todays_cost_is_summed_from_an_index_alone(engine, site):
    """It runs on every turn: a range of one index that covers the sum, no table rows read."""
    from sqlalchemy import func
    u = tables.usage.c
    query = select(func.coalesce(func.sum(u.cost_usd), 0)).where(u.site_id == site.id,
                                                                u.created_at >= spending._UTC_DAY_START)
    compiled = query.compile(engine, compile_kwargs={"literal_binds": True})
    with engine.connect() as conn:
        plan = conn.execute(text(f"EXPLAIN {compiled}")).mappings().one()
    assert plan["key"] == "ix_usage_site_created_cost"
    assert plan["type"] == "range" and "Using index" in (plan["Extra"] or "")


def test_the_utc_day_starts_at_utc_midnight_whatever_the_database_clock(engine):
    """Usage rows take the database clock's time: UTC midnight is read on that clock."""
    from datetime import datetime, timedelta
    with engine.connect() as conn:
        try:
            found = {}
            for zone in ("+00:00", "+05:00", "-03:00"):
                conn.execute(text(f"SET time_zone = '{zone}'"))
                found[zone] = conn.execute(select(spending._UTC_DAY_START, text("UTC_DATE()"))).one()
        finally:
            conn.execute(text("SET time_zone = DEFAULT"))
    for zone, hours in (("+00:00", 0), ("+05:00", 5), ("-03:00", -3)):
        start, utc_date = found[zone]
        assert start == datetime.combine(utc_date, datetime.min.time()) + timedelta(hours=hours), zone


# --- the cap on a turn ------------------------------------------------------------------

def test_over_the_cap_a_turn_answers_offline_and_no_vendor_is_called(make_services, make_client, site):
    from tests.conftest import chat_payload
    from testbed.anthropic_server import FakeAnthropic, reply_json
    with FakeAnthropic() as fake:
        svc = make_services(provider="anthropic", api_keys={"anthropic": "k"}, base_urls={"anthropic": fake.base_url},
                            daily_budget_usd=0.0)
        client = make_client(svc, site)
        fake.script(reply_json({"reply": "From the model.", "quick_replies": [], "action": "none",
                                "unanswered": False, "forget": []}))
        pinned = [{"title": "Price list", "content": "Basic service: 45 €"}]
        body = client.post("/v1/chat", chat_payload("How much is a basic service?", pinned=pinned)).get_json()
        assert body["degraded"] is True and body["usage"]["provider"] == "offline"
        assert "45 €" in body["reply"]
        assert svc.memory.run_pending(site.id) == 0  # the extraction call waits too
        assert fake.requests == []
        stats = client.get("/v1/stats").get_json()
        assert stats["daily_budget_usd"] == 0.0 and stats["spent_today_usd"] == 0.0
