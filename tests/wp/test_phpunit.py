"""Runs the plugin's PHPUnit suites (tests/wp/phpunit) with Debian's `phpunit` against the
WordPress and fake sidecar of tests/wp/conftest.py, so `make test` (pytest) runs them too.
PHPUnit's own output is shown when a suite fails."""
from __future__ import annotations

import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .conftest import INSTALL_HINT

PHPUNIT_DIR = Path(__file__).resolve().parent / "phpunit"


def _phpunit() -> str:
    exe = shutil.which("phpunit")
    if not exe:
        pytest.fail(f"Debian's phpunit is not installed (apt-get install phpunit) — {INSTALL_HINT}", pytrace=False)
    return exe


def _failures(junit: Path) -> list[str]:
    if not junit.exists():
        return []
    out = []
    for case in ET.parse(junit).iter("testcase"):
        for kind in ("failure", "error"):
            el = case.find(kind)
            if el is not None:
                first = (el.text or el.get("message") or "").strip().splitlines()[:3]
                out.append(f"{case.get('class')}::{case.get('name')}: {' | '.join(first)}")
    return out


def _run(wp_env, artifacts: Path, suite: str, extra_env: dict | None = None) -> None:
    junit = artifacts / f"phpunit-{suite}.xml"
    junit.unlink(missing_ok=True)
    env = {**os.environ, "WP_DIR": str(wp_env.dir), "WP_URL": wp_env.url, "FAKE_SIDECAR_URL": wp_env.fake.url,
           "RTAC_TEST_SITE_ID": wp_env.site_id, "RTAC_TEST_SECRET": wp_env.secret,
           "WP_ADMIN_USER": wp_env.admin_user, "WP_ADMIN_PASSWORD": wp_env.admin_password, **(extra_env or {})}
    # WordPress is loaded at global scope before PHPUnit starts (PHPUnit includes its bootstrap
    # inside a function, where WordPress's file-level variables would become locals).
    args = ["php", "-d", f"auto_prepend_file={PHPUNIT_DIR / 'wordpress.php'}", _phpunit(),
            "-c", str(PHPUNIT_DIR / "phpunit.xml"), "--testsuite", suite, "--log-junit", str(junit)]
    if os.environ.get("RTAC_PHPUNIT_FILTER"):
        args += ["--filter", os.environ["RTAC_PHPUNIT_FILTER"]]
    proc = subprocess.run(args, cwd=PHPUNIT_DIR, env=env, capture_output=True, text=True, timeout=600)
    (artifacts / f"phpunit-{suite}.log").write_text(proc.stdout + proc.stderr)
    print(proc.stdout[-3000:])
    if proc.returncode != 0:
        failed = _failures(junit)
        summary = ("\n".join(failed) + "\n\n") if failed else ""
        log = wp_env.plugin_warnings() or wp_env.debug_log().splitlines()[-15:]
        pytest.fail(f"phpunit --testsuite {suite} exited {proc.returncode}\n{summary}"
                    f"--- phpunit output ---\n{proc.stdout}\n{proc.stderr}\n"
                    f"--- WordPress debug.log (plugin lines, else the last lines) ---\n" + "\n".join(log), pytrace=False)
    assert "OK (" in proc.stdout, proc.stdout


def test_phpunit_plugin(wp_env, artifacts, fake_sidecar, buffering_proxy):
    """The main suite: RTAC_* constants defined in wp-config.php, pointing at the fake sidecar;
    RTAC_TEST_BUFFERING_PROXY is the WordPress behind a buffering nginx (the streaming tests)."""
    _run(wp_env, artifacts, "plugin", {"RTAC_TEST_BUFFERING_PROXY": buffering_proxy})


def test_phpunit_without_constants(wp_env, artifacts, fake_sidecar):
    """Settings-page behaviour when wp-config.php defines no RTAC_* constant."""
    _run(wp_env, artifacts, "noconstants", {"RTAC_WP_NO_CONSTANTS": "1"})
