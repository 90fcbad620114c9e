"""The real WordPress the plugin's benches drive (scripts/wp-env: Debian's package, `php -S`
with OPcache, the rtac plugin), PHP run inside it, and the figures both benches report."""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
from pathlib import Path

from .stats import percentile

ROOT = Path(__file__).resolve().parent.parent
WP_ENV = ROOT / "scripts" / "wp-env"

# The demo business and limits no bench turn reaches (their counters are still read and
# written each turn), as PHP for `wp_eval`.
BUSINESS_PHP = """
    update_option('rtac_profile', ['name' => 'Rattakoda', 'about' => 'Bicycle workshop in Tallinn.',
        'hours' => "Mon–Fri 10:00–19:00\\nSat 10:00–16:00", 'phone' => '+372 5555 0101',
        'email' => 'info@rattakoda.example', 'address' => 'Telliskivi 60a, Tallinn', 'booking_url' => '']);
    update_option('rtac_limits', ['per_ip' => 100000, 'per_visitor' => 100000]);
"""


def start(wp_dir: Path, port: int, database_url: str, sidecar_url: str, site_id: str, secret: str) -> None:
    """A fresh WordPress in `wp_dir` on `port` (WP-Cron off), talking to the sidecar at `sidecar_url`."""
    env = {**os.environ, "WP_ENV_DISABLE_CRON": "1"}
    subprocess.run([str(WP_ENV), "start", str(wp_dir), str(port), database_url, sidecar_url, site_id, secret],
                   check=True, env=env, capture_output=True, timeout=300)


def stop(wp_dir: Path) -> None:
    subprocess.run([str(WP_ENV), "stop", str(wp_dir)], capture_output=True, timeout=60)


def wp_eval(wp_dir: Path, code: str) -> str:
    """Run PHP inside the WordPress as its admin; what it printed."""
    proc = subprocess.run(["php", str(ROOT / "tests" / "wp" / "wp_eval.php"), str(wp_dir), "admin"], input=code,
                          capture_output=True, text=True, timeout=60)
    if proc.returncode:
        raise RuntimeError(proc.stderr)
    return proc.stdout


def php_version() -> str:
    return subprocess.run(["php", "-r", "echo PHP_VERSION;"], capture_output=True, text=True).stdout


def summary(ms: list[float]) -> dict:
    s = sorted(ms)
    return {"n": len(s), "p50": percentile(s, 50), "p90": percentile(s, 90), "p99": percentile(s, 99),
            "mean": statistics.fmean(s), "min": s[0], "max": s[-1]}


def machine(r: dict) -> str:
    """The machine line of a section: `r` holds `cores` and the `load` at the end."""
    return (f"Machine: {r['cores']} cores, load average at the end {r['load'][0]:.2f} {r['load'][1]:.2f} "
            f"{r['load'][2]:.2f}.")


def arguments(doc: str, turns: int) -> argparse.ArgumentParser:
    """The command line of `python -m bench.<plugin bench>`: --turns and --db-url."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--turns", type=int, default=turns)
    ap.add_argument("--db-url", help="an existing MariaDB server URL (default: start a throwaway one)")
    return ap
