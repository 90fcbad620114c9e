"""Test fixtures: a real MariaDB in a throwaway datadir, started here; a migrated
database; sites registered per test; a client that signs like the plugin."""
from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from sidecar.config import Config
from sidecar.crypto import Keyring
from sidecar.db import create_engine
from sidecar.migrate import migrate
from sidecar.services import Services
from sidecar.signing import sign_headers
from sidecar.sites import add_site

ROOT = Path(__file__).resolve().parent.parent
MARIADB_LOCAL = ROOT / "scripts" / "mariadb-local"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def mariadb():
    """(host, port) of a MariaDB server of our own; RTAC_TEST_SERVER_URL reuses an existing one."""
    if os.environ.get("RTAC_TEST_SERVER_URL"):
        yield os.environ["RTAC_TEST_SERVER_URL"]
        return
    # Not under pytest's tmp_path: pytest prunes old base dirs, which may belong to
    # another pytest still running. Short path: the unix socket must fit in 108 bytes.
    datadir = Path(tempfile.mkdtemp(prefix="rtac-mdb-"))
    port = _free_port()
    subprocess.run([str(MARIADB_LOCAL), "start", str(datadir), str(port)], check=True)
    try:
        yield f"mysql+pymysql://root@127.0.0.1:{port}"
    finally:
        subprocess.run([str(MARIADB_LOCAL), "stop", str(datadir)], check=False)
        shutil.rmtree(datadir, ignore_errors=True)


@pytest.fixture(scope="session")
def database_url(mariadb) -> str:
    admin = create_engine(mariadb + "/mysql")
    from sqlalchemy import text
    with admin.begin() as conn:
        conn.execute(text("DROP DATABASE IF EXISTS rtac_test"))
        conn.execute(text("CREATE DATABASE rtac_test CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"))
    admin.dispose()
    url = mariadb + "/rtac_test"
    migrate(create_engine(url))
    return url


@pytest.fixture(scope="session")
def engine(database_url):
    eng = create_engine(database_url)
    yield eng
    eng.dispose()


@pytest.fixture(scope="session")
def master_key() -> bytes:
    return os.urandom(32)


@pytest.fixture
def config(database_url, master_key) -> Config:
    return Config(database_url=database_url, master_key=master_key, provider="offline")


@pytest.fixture
def keyring(master_key) -> Keyring:
    return Keyring(master_key)


@pytest.fixture
def make_services(config, engine):
    def make(**overrides) -> Services:
        return Services.build(replace(config, **overrides), engine=engine)
    return make


@pytest.fixture
def services(make_services) -> Services:
    return make_services()


@pytest.fixture
def site(engine, keyring):
    """A fresh site per test: tests share one database but never each other's rows."""
    return add_site(engine, keyring, "t-" + secrets.token_hex(6), default_lang="en")


class SignedClient:
    """Speaks to the app exactly as the WordPress plugin does."""

    def __init__(self, flask_client, site):
        self.http = flask_client
        self.site = site

    def request(self, method: str, path: str, payload=None, *, raw: bytes | None = None,
                headers: dict | None = None, site=None):
        site = site or self.site
        body = raw if raw is not None else (b"" if payload is None else json.dumps(payload).encode())
        signed = sign_headers(site.id, site.secret, method, path.split("?")[0], body)
        signed.update(headers or {})
        return self.http.open(path, method=method, data=body, headers=signed,
                              content_type="application/json")

    def post(self, path, payload=None, **kw):
        return self.request("POST", path, payload, **kw)

    def put(self, path, payload=None, **kw):
        return self.request("PUT", path, payload, **kw)

    def delete(self, path, payload=None, **kw):
        return self.request("DELETE", path, payload, **kw)

    def get(self, path, **kw):
        return self.request("GET", path, None, **kw)


@pytest.fixture
def make_client():
    from sidecar.app import create_app

    def make(services: Services, site) -> SignedClient:
        return SignedClient(create_app(services=services).test_client(), site)
    return make


@pytest.fixture
def client(make_client, services, site) -> SignedClient:
    return make_client(services, site)


def chat_payload(message: str, *, visitor: str = "visitor-1", lang: str = "en", pinned=None,
                 conversation_id=None, **extra) -> dict:
    body = {"visitor": {"id": visitor}, "message": message, "lang": lang,
            "page": {"url": "https://example.test/", "title": "Home"}, "lead_captured": False,
            "pinned": pinned or []}
    if conversation_id:
        body["conversation_id"] = conversation_id
    body.update(extra)
    return body


def past_turns(conn, keyring, site, identity: str, conversation_id: str, limit: int = 5, retention_days: int = 30):
    """A conversation's last turns within retention, oldest first, read as a turn reads
    them: with the customer's space, then opened under its key."""
    from sidecar.conversations import history_since, resume
    from sidecar.spaces import TurnsWanted, resolve_space_with
    space, _, rows = resolve_space_with(conn, keyring, site, identity, (),
                                        TurnsWanted(conversation_id, limit, history_since(retention_days)))
    return resume(conn, space, conversation_id, rows)[1]
