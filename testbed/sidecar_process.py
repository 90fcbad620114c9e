"""The real sidecar (`rtac serve`) as a child process for the WordPress tests and benchmarks,
with a model vendor of the caller's choosing (e.g. a local fake of the Anthropic API that
streams at a set pace): its own process group (stopped as one), its log in a file, up once
/healthz answers."""
from __future__ import annotations

import base64
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

VENDOR_KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL",
               "RTAC_GEMINI_BASE_URL", "RTAC_CONFIG", "RTAC_PROVIDER", "RTAC_FALLBACK_PROVIDERS")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RtacServe:
    """`rtac serve` on a free port: `env` on top of the database, the master key and no vendor
    settings of the caller's own environment."""

    def __init__(self, database_url: str, master_key: bytes, log_path: Path, env: dict[str, str] | None = None,
                 workers: int = 1):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self.workers = workers
        self.env = {k: v for k, v in os.environ.items() if k not in VENDOR_KEYS}
        self.env.update({"RTAC_DATABASE_URL": database_url, "RTAC_MASTER_KEY": base64.b64encode(master_key).decode(),
                         "RTAC_MEMORY": "off", **(env or {})})
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> "RtacServe":
        rtac = Path(sys.executable).parent / "rtac"
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen([str(rtac), "serve", "--host", "127.0.0.1", "--port", str(self.port),
                                      "--workers", str(self.workers)],
                                     stdout=self._log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=2) as resp:
                    if resp.status == 200:
                        return self
            except (urllib.error.URLError, OSError):
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__()
                raise RuntimeError("`rtac serve` did not come up:\n" + self.log_path.read_text())
            time.sleep(0.2)

    def __exit__(self, *exc) -> None:
        if self.proc is not None:
            stop_group(self.proc)
        self._log.close()


def stop_group(proc: subprocess.Popen, grace: float = 10) -> None:
    """Stop a child started in a session of its own, and whatever it started: SIGTERM to its
    process group, SIGKILL if it is not gone within `grace` seconds."""
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, grace / 2)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue
