"""Debian's nginx as a plain foreground process of a test: its own prefix, config, pid and
logs under a temp dir, never the package's service. Subclasses write `nginx.conf` into
`prefix` before `start()`."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest


def nginx_binary(install_hint: str) -> str:
    binary = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if binary is None:
        pytest.fail(f"nginx is not installed: {install_hint}", pytrace=False)
    return binary


class NginxProcess:
    binary: str
    prefix: Path
    port: int
    proc: subprocess.Popen

    def start(self) -> None:
        args = [self.binary, "-p", str(self.prefix), "-c", str(self.prefix / "nginx.conf"),
                "-e", str(self.prefix / "error.log")]
        check = subprocess.run([*args, "-t"], capture_output=True, text=True)
        if check.returncode != 0:
            pytest.fail(f"nginx -t refused the config:\n{check.stderr}", pytrace=False)
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        pytest.fail(f"nginx did not listen:\n{(self.prefix / 'error.log').read_text()}", pytrace=False)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)  # graceful: finish what is in flight
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
