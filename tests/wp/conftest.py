"""Fixtures for the WordPress plugin's tests: a real WordPress (Debian's package copied to a
throwaway folder by scripts/wp-env, served by `php -S`) on the test MariaDB from
tests/conftest.py, a fake sidecar that verifies every signature and records what the
plugin sent, and, for the journeys that need it, the real sidecar (`rtac serve`, offline
provider) behind that fake (which then forwards each verified request unchanged), and a
buffering reverse proxy (Debian's nginx, `proxy_buffering on`, deaf to X-Accel-Buffering)
in front of the WordPress, as some hosts have.

Nothing is skipped: a missing prerequisite fails with what to install (`make test`
installs all of it)."""
from __future__ import annotations

import base64
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from testbed.fake_sidecar import FakeSidecar

from ..nginx_process import NginxProcess, nginx_binary

ROOT = Path(__file__).resolve().parents[2]
WP_ENV = ROOT / "scripts" / "wp-env"
HERE = Path(__file__).resolve().parent
ARTIFACTS = ROOT / "test-artifacts" / "wp"
ADMIN_USER = "admin"
ADMIN_PASSWORD = "rtac-admin"
INSTALL_HINT = "run `make test` (it installs them) or `bash scripts/system-deps wordpress`"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def require_wp_tools() -> None:
    missing = []
    if not shutil.which("php"):
        missing.append("php (apt-get install php-cli)")
    else:
        probe = subprocess.run(
            ["php", "-r", 'foreach (["mysqli","xml","mbstring","curl","zip"] as $e) if (!extension_loaded($e)) echo "$e ";'],
            capture_output=True, text=True)
        for ext in probe.stdout.split():
            missing.append(f"PHP extension {ext} (apt-get install php-{'mysql' if ext == 'mysqli' else ext})")
    if not Path("/usr/share/wordpress/wp-settings.php").exists():
        missing.append("WordPress (apt-get install wordpress)")
    if missing:
        pytest.fail("the WordPress tests need: " + "; ".join(missing) + f" — {INSTALL_HINT}", pytrace=False)


@dataclass
class WPEnv:
    dir: Path
    url: str
    port: int
    db_url: str
    site_id: str
    secret: str
    fake: FakeSidecar
    admin_user: str = ADMIN_USER
    admin_password: str = ADMIN_PASSWORD

    def php(self, code: str, user: str | None = ADMIN_USER, env: dict | None = None, check: bool = True):
        """Run PHP inside this WordPress (like `wp eval`) and return what the code returns."""
        proc = subprocess.run(["php", str(HERE / "wp_eval.php"), str(self.dir)] + ([user] if user else []),
                              input=code, capture_output=True, text=True, timeout=60,
                              env={**os.environ, "WP_URL": self.url, **(env or {})})
        if check and proc.returncode != 0:
            raise AssertionError(f"PHP failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        try:
            return json.loads(proc.stdout) if proc.stdout.strip() else None
        except ValueError:
            raise AssertionError(f"PHP printed no JSON:\n{proc.stdout}\n{proc.stderr}") from None

    def mails(self) -> list[dict]:
        f = self.dir / "mail.jsonl"
        return [json.loads(line) for line in f.read_text().splitlines()] if f.exists() else []

    def debug_log(self) -> str:
        f = self.dir / "debug.log"
        return f.read_text(errors="replace") if f.exists() else ""

    def plugin_warnings(self, since: int = 0) -> list[str]:
        """PHP errors, warnings, notices and deprecations raised in the plugin's own files."""
        lines = self.debug_log()[since:].splitlines()
        return [ln for ln in lines if ("/plugins/rtac/" in ln or "/wp-plugin/" in ln)
                and ("PHP " in ln or "Stack trace" in ln)]

    def no_rate_limits(self) -> None:
        """Switch the chat's rate limits off and forget the counters (every test client is 127.0.0.1)."""
        self.php(r"""
            update_option('rtac_limits', ['per_ip' => 0, 'per_visitor' => 0]);
            global $wpdb;
            $wpdb->query("DELETE FROM {$wpdb->options} WHERE option_name LIKE '\\_transient\\_rtac\\_rl%' OR option_name LIKE '\\_transient\\_timeout\\_rtac\\_rl%'");
            return true;""")


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def wp_site_credentials() -> tuple[str, str]:
    return "wp-" + secrets.token_hex(5), secrets.token_urlsafe(32)


@pytest.fixture(scope="session")
def fake_sidecar(wp_site_credentials):
    site_id, secret = wp_site_credentials
    fake = FakeSidecar(site_id, secret).start()
    yield fake
    fake.stop()


@pytest.fixture(scope="session")
def wp_env(mariadb, fake_sidecar, wp_site_credentials, artifacts):
    """A running WordPress with the plugin active, its constants pointing at the fake sidecar.
    WP-Cron is off (tests call its hooks themselves)."""
    require_wp_tools()
    site_id, secret = wp_site_credentials
    keep = os.environ.get("RTAC_WP_DIR")  # reuse a folder between runs while developing
    wp_dir = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="rtac-wp-"))
    port = free_port()
    db_url = f"{mariadb}/rtac_wp_{secrets.token_hex(3)}" if not keep else f"{mariadb}/rtac_wp_dev"
    env = {**os.environ, "WP_ENV_DISABLE_CRON": "1", "WP_ENV_ADMIN_USER": ADMIN_USER,
           "WP_ENV_ADMIN_PASSWORD": ADMIN_PASSWORD}
    started = time.monotonic()
    proc = subprocess.run([str(WP_ENV), "start", str(wp_dir), str(port), db_url, fake_sidecar.url, site_id, secret],
                          capture_output=True, text=True, env=env, timeout=300)
    if proc.returncode != 0:
        pytest.fail(f"scripts/wp-env start failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}", pytrace=False)
    for fixture in (HERE / "fixtures").glob("rtac-test-*.php"):  # the test mu-plugins
        shutil.copy(fixture, wp_dir / "wp-content" / "mu-plugins" / fixture.name)
    print(f"WordPress up at http://127.0.0.1:{port} in {time.monotonic() - started:.1f}s ({wp_dir})")
    wp = WPEnv(dir=wp_dir, url=f"http://127.0.0.1:{port}", port=port, db_url=db_url, site_id=site_id,
               secret=secret, fake=fake_sidecar)
    try:
        yield wp
    finally:
        subprocess.run([str(WP_ENV), "stop", str(wp_dir)], capture_output=True, timeout=60)
        for name in ("debug.log", "mail.jsonl", ".wp-env/server.log"):
            if (wp_dir / name).exists():
                shutil.copy(wp_dir / name, artifacts / name.replace(".wp-env/", "wp-"))
        if not keep:
            shutil.rmtree(wp_dir, ignore_errors=True)


@dataclass
class RealSidecar:
    url: str
    database_url: str
    master_key: bytes
    site_id: str
    secret: str


@pytest.fixture(scope="session")
def real_sidecar(database_url, engine, master_key, wp_site_credentials, artifacts):
    """`rtac serve` with the offline provider, the WordPress site registered with the same
    id and secret the plugin signs with."""
    from sidecar.crypto import Keyring
    from sidecar.sites import add_site
    site_id, secret = wp_site_credentials
    add_site(engine, Keyring(master_key), site_id, secret=secret, default_lang="en")
    port = free_port()
    log = open(artifacts / "real-sidecar.log", "w")
    env = {**os.environ, "RTAC_DATABASE_URL": database_url, "RTAC_MASTER_KEY": base64.b64encode(master_key).decode(),
           "RTAC_PROVIDER": "offline", "RTAC_MEMORY": "off"}
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "RTAC_CONFIG"):
        env.pop(key, None)
    rtac = Path(sys.executable).parent / "rtac"
    proc = subprocess.Popen([str(rtac), "serve", "--host", "127.0.0.1", "--port", str(port), "--workers", "1"],
                            stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2) as resp:
                if resp.status == 200:
                    break
        except (urllib.error.URLError, OSError):
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            log.close()
            pytest.fail("`rtac serve` did not come up:\n" + (artifacts / "real-sidecar.log").read_text(),
                        pytrace=False)
        time.sleep(0.2)
    try:
        yield RealSidecar(url, database_url, master_key, site_id, secret)
    finally:
        os.killpg(proc.pid, 15)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
        log.close()


@dataclass
class VendorSidecar:
    url: str
    vendor: "object"  # testbed.anthropic_server.FakeAnthropic: script its replies and pace


@pytest.fixture(scope="session")
def vendor_sidecar(real_sidecar, database_url, master_key, artifacts):
    """A second real sidecar (`rtac serve`, the same database and site as `real_sidecar`) whose
    model vendor is a local fake of the Anthropic API, streaming at the pace a test scripts."""
    from testbed.anthropic_server import FakeAnthropic

    from testbed.sidecar_process import RtacServe
    with FakeAnthropic() as vendor:
        env = {"RTAC_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": vendor.base_url}
        try:
            with RtacServe(database_url, master_key, artifacts / "vendor-sidecar.log", env) as serve:
                yield VendorSidecar(serve.url, vendor)
        except RuntimeError as exc:
            pytest.fail(str(exc), pytrace=False)


@pytest.fixture
def fake(fake_sidecar):
    """The fake sidecar, reset for this test."""
    fake_sidecar.set_proxy(None)
    fake_sidecar.reset()
    yield fake_sidecar
    fake_sidecar.set_proxy(None)


@pytest.fixture
def via_real_sidecar(fake, real_sidecar):
    """The plugin's requests go (verified and recorded by the fake) to the real sidecar."""
    fake_sidecar = fake
    fake_sidecar.set_proxy(real_sidecar.url)
    yield real_sidecar
    fake_sidecar.set_proxy(None)


class BufferingProxy(NginxProcess):
    """Debian's nginx in front of the WordPress, holding responses back as some hosts' proxies
    do: `proxy_buffering on` with buffers larger than any answer, and the application's
    `X-Accel-Buffering: no` ignored. A plain foreground process (not the package's service)
    with its own prefix, config, pid and logs under a temp dir.

    WordPress is told it is its own address (Host), so it redirects nowhere; pages served
    through the proxy get the proxy's address as their REST URL (the test mu-plugin reads
    X-Rtac-Test-Origin), so the widget's requests go through it too."""

    def __init__(self, upstream_port: int, artifacts: Path):
        self.binary = nginx_binary(f"apt-get install nginx — {INSTALL_HINT}")
        self.port, self.artifacts = free_port(), artifacts
        self.url = f"http://127.0.0.1:{self.port}"
        self.make_prefix("rtac-wp-nginx-")
        self.write_config(128, f"""
    server {{
        listen 127.0.0.1:{self.port};
        location / {{
            proxy_pass http://127.0.0.1:{upstream_port};
            proxy_http_version 1.1;
            proxy_set_header Host 127.0.0.1:{upstream_port};
            proxy_set_header X-Rtac-Test-Origin {self.url};
            proxy_buffering on;
            proxy_ignore_headers X-Accel-Buffering;
            proxy_buffer_size 64k;
            proxy_buffers 8 64k;
            proxy_busy_buffers_size 128k;
            proxy_read_timeout 120s;
        }}
    }}""")

    def __enter__(self) -> "BufferingProxy":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
        for name in ("error.log", "access.log"):
            if (self.prefix / name).exists():
                shutil.copy(self.prefix / name, self.artifacts / f"nginx-{name}")
        shutil.rmtree(self.prefix, ignore_errors=True)


@pytest.fixture(scope="session")
def buffering_proxy(wp_env, artifacts):
    """The WordPress behind a buffering nginx: its base URL."""
    with BufferingProxy(wp_env.port, artifacts) as proxy:
        yield proxy.url
