"""Percentiles and a little system sampling."""
from __future__ import annotations

import os
from dataclasses import dataclass


def percentile(sorted_values: list[float], p: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    if not sorted_values:
        return float("nan")
    k = (len(sorted_values) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


@dataclass
class Summary:
    n: int
    p50: float
    p90: float
    p99: float
    mean: float
    max: float

    @classmethod
    def of(cls, seconds: list[float]) -> "Summary":
        ms = sorted(s * 1000.0 for s in seconds)
        return cls(len(ms), percentile(ms, 50), percentile(ms, 90), percentile(ms, 99),
                   sum(ms) / len(ms) if ms else float("nan"), ms[-1] if ms else float("nan"))


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def _proc_jiffies(pid: int) -> int:
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime
    except (OSError, IndexError, ValueError):
        return 0


def _machine_jiffies() -> tuple[int, int]:
    """(busy, all) over every CPU since boot."""
    values = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return sum(values[:8]) - idle, sum(values[:8])


class CpuMeter:
    """How busy the machine was during a phase, and how much of it was not us
    (other engineers' tests share this 2-core machine): in cores, 0..ncpu."""

    def __init__(self, pids: list[int]):
        self.pids = pids
        self.ncpu = os.cpu_count() or 1

    def __enter__(self) -> "CpuMeter":
        self._m0 = _machine_jiffies()
        self._p0 = sum(_proc_jiffies(p) for p in self.pids)
        return self

    def __exit__(self, *exc) -> None:
        busy1, all1 = _machine_jiffies()
        mine = sum(_proc_jiffies(p) for p in self.pids) - self._p0
        busy, total = busy1 - self._m0[0], all1 - self._m0[1]
        per_core = total / self.ncpu if total else 1
        self.busy_cores = busy / per_core
        self.ours_cores = mine / per_core
        self.others_cores = max(0.0, self.busy_cores - self.ours_cores)

    def describe(self) -> str:
        return (f"machine busy {self.busy_cores:.2f} of {self.ncpu} cores, of which the bench and its "
                f"MariaDB {self.ours_cores:.2f}, other processes {self.others_cores:.2f}")
