"""A 3-node Galera cluster with HAProxy in front (scripts/galera-local), for the cluster
tests and bench/galera.py: started in a throwaway folder, stopped with it."""
from __future__ import annotations

import random
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GALERA_LOCAL = ROOT / "scripts" / "galera-local"
PROVIDER = Path("/usr/lib/galera/libgalera_smm.so")
NODES = (1, 2, 3)
SPAN = 34  # ports from the base: 10 per node, HAProxy at base + 30


class GaleraUnavailable(Exception):
    """galera-4 is not installed and cannot be installed here."""


def _ephemeral_low() -> int:
    """The lowest port the kernel hands out as a connection's local port."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


def _free_base() -> int:
    """A base port whose whole span is free on the loopback, below the ephemeral range:
    a port of a killed node must still be free when it rejoins, and under load any
    outgoing connection may take a free ephemeral port (an IST port taken so made the
    rejoin fail: "Failed to open IST listener ... Address already in use")."""
    top = max(10000 + SPAN + 10, _ephemeral_low()) - SPAN  # a range of at least one base
    for _ in range(200):
        base = random.randrange(10000, top, 10)
        try:
            held = []
            for port in range(base, base + SPAN):
                s = socket.socket()
                held.append(s)
                s.bind(("127.0.0.1", port))
        except OSError:
            continue
        finally:
            for s in held:
                s.close()
        return base
    raise RuntimeError("no free span of ports for the cluster")


@dataclass
class Galera:
    dir: Path
    ports: dict[str, int]

    def url(self, where: str, database: str = "rtac") -> str:
        """`node1`..`node3` or `haproxy`."""
        return f"mysql+pymysql://root@127.0.0.1:{self.ports[where]}/{database}"

    def _run(self, *args: str, timeout: float = 300) -> str:
        done = subprocess.run([str(GALERA_LOCAL), *args], capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"galera-local {' '.join(args)} failed:\n{done.stderr}{done.stdout}")
        return done.stdout

    def kill(self, node: int) -> None:
        self._run("kill", str(self.dir), str(node))

    def rejoin(self, node: int) -> None:
        self._run("rejoin", str(self.dir), str(node))

    def stop(self) -> None:
        subprocess.run([str(GALERA_LOCAL), "stop", str(self.dir)], capture_output=True, timeout=300)

    def error_log(self, node: int) -> str:
        return (self.dir / f"node{node}" / "error.log").read_text(errors="replace")


def start(database: str = "rtac") -> Galera:
    """The cluster up with `database` created (on node 1; it replicates). galera-local
    installs galera-4, rsync and haproxy when missing; GaleraUnavailable when the
    provider library is still missing then, any other failure a RuntimeError."""
    # Short: each node's unix socket path must fit in 108 bytes.
    folder = Path(tempfile.mkdtemp(prefix="rtac-gal-"))
    done = subprocess.run([str(GALERA_LOCAL), "start", str(folder), str(_free_base())], capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0:
        subprocess.run([str(GALERA_LOCAL), "stop", str(folder)], capture_output=True, timeout=300)
        shutil.rmtree(folder, ignore_errors=True)
        if not PROVIDER.exists():
            raise GaleraUnavailable(f"galera-4 cannot be installed here: {done.stderr.strip()[-400:]}")
        raise RuntimeError(f"galera-local start failed:\n{done.stderr}{done.stdout}")
    ports = {k: int(v) for k, v in (ln.split("=") for ln in done.stdout.split() if "=" in ln)}
    cluster = Galera(folder, ports)
    subprocess.run(["mariadb", "--no-defaults", "-h127.0.0.1", f"-P{ports['node1']}", "-uroot", "-e",
                    f"CREATE DATABASE IF NOT EXISTS {database} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"],
                   check=True, timeout=60)
    return cluster


def remove(cluster: Galera) -> None:
    cluster.stop()
    shutil.rmtree(cluster.dir, ignore_errors=True)
