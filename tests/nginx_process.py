"""Debian's nginx as a plain foreground process of a test: its own prefix, config, pid and
logs under a temp dir, never the package's service. Subclasses make their prefix and
write its `nginx.conf` (`make_prefix`, `write_config`) before `start()`."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest


def nginx_binary(install_hint: str) -> str:
    binary = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if binary is None:
        pytest.fail(f"nginx is not installed: {install_hint}", pytrace=False)
    return binary


_TEMP_DIRS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")


class NginxProcess:
    binary: str
    prefix: Path
    port: int
    proc: subprocess.Popen

    def make_prefix(self, name: str) -> Path:
        """A fresh temp dir as the prefix, with the temp dirs nginx writes request bodies and
        proxied answers to, open to everyone: the workers may run as nobody."""
        self.prefix = Path(tempfile.mkdtemp(prefix=name))
        for d in _TEMP_DIRS:
            (self.prefix / d).mkdir()
            os.chmod(self.prefix / d, 0o777)
        return self.prefix

    def write_config(self, connections: int, http: str) -> None:
        """`nginx.conf`: one worker in the foreground, pid, logs and temp dirs in the prefix,
        `http` (server blocks, includes) inside the http block."""
        p = self.prefix
        temp_paths = "".join(f"    {d}_temp_path {p}/{d};\n" for d in _TEMP_DIRS)
        body = http.strip("\n")
        (p / "nginx.conf").write_text(f"""
daemon off;
worker_processes 1;
pid {p}/nginx.pid;
error_log {p}/error.log info;
events {{ worker_connections {connections}; }}
http {{
    access_log {p}/access.log;
{temp_paths}{body}
}}
""")

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
