"""Load: turns a second and latency minus the model with many visitors at once.

The default `rtac serve` (a subprocess, its own settings untouched) on the bench's own
MariaDB (a site of 2,000 chunks with their vectors and a 3,000-character pinned price
list), the Anthropic provider through the real SDK against a fake vendor that answers
every call after 1.5 s (testbed/, in a process of its own; memory extraction calls
it too, off the visitor's clock). Closed-loop visitors, each a thread of this process:
one signed `POST /v1/chat` on a new connection (as the plugin's PHP makes it), the next
as soon as the answer is in, conversations of 1-5 turns, every message distinct. A
visitor refused with the over-capacity 503 waits its `Retry-After` before trying again,
as a polite client does.

For each concurrency, after a warm-up, a measuring window: turns answered per second,
latency minus the model (the client's wall time less the vendor's 1.5 s), responses
by status, CPU per turn (the sidecar's processes and MariaDB's, from /proc), the
workers' memory and threads, and the database connections the server used.

    python -m bench.load                          # embedder on and off, concurrency 8/32/96/200
    python -m bench.load --quick                  # a smoke run
    python -m bench.load --embedder off --concurrency 96 --seconds 30
    python -m bench.load --json out.json          # the result too, as JSON

"Embedder on" is the default configuration (`RTAC_EMBEDDER=local`: the bundled model
embeds each query on the serving host, hybrid retrieval and memory on); "off" is
`RTAC_RETRIEVAL=fulltext RTAC_MEMORY=off`, the configuration without any embedding.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import http.client
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODEL_DELAY = 1.5
CONCURRENCY = (8, 32, 96, 200)
WARMUP_S = 8.0
WINDOW_S = 25.0
CHUNKS = 2_000
SITE = "bench-load"
TARGET_TURNS_PER_S = 50.0   # at concurrency 96
TARGET_P99_MS = 500.0       # latency minus the model, at concurrency 96
TARGET_AT = 96
MODES = {
    "on": {},
    "off": {"RTAC_RETRIEVAL": "fulltext", "RTAC_MEMORY": "off"},
}
MODE_LABEL = {"on": "embedder on (defaults: local model, hybrid retrieval, memory)",
              "off": "embedder off (RTAC_RETRIEVAL=fulltext, RTAC_MEMORY=off)"}


# --- the fake vendor, in a process of its own ---------------------------------------------

def _serve_fake_vendor(delay: float) -> int:
    """Prints its base URL, answers every call after `delay` seconds until stdin closes."""
    from http.server import ThreadingHTTPServer

    from testbed import anthropic_server as fa

    class Quiet(fa.FakeAnthropic):
        def _record(self, request) -> None:  # thousands of 30 KB prompts: keep none
            pass

    class NoCacheAccounting(fa.PromptCache):
        # Hashing every prompt block costs the shared cores CPU a real vendor spends elsewhere.
        def account(self, body: dict) -> dict:
            return {"input_tokens": 1000, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                    "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}}

    fa._Server.request_queue_size = 1024  # hundreds of SDK connections open at once
    ThreadingHTTPServer.request_queue_size = 1024
    fake = Quiet(default_reply=fa.delay(delay, fa.reply_json(fa.DEFAULT_REPLY)))
    fake.cache = NoCacheAccounting()
    fake.start()
    print(fake.base_url, flush=True)
    sys.stdin.read()
    fake.close()
    return 0


class FakeVendor:
    def __init__(self, delay: float):
        self.proc = subprocess.Popen([sys.executable, "-m", "bench.load", "--fake-vendor", str(delay)], cwd=ROOT,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http"):
            raise RuntimeError("the fake vendor did not start")

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


# --- /proc ----------------------------------------------------------------------------------

_TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str] | None:
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        f = _stat(pid)
        if f:
            total += int(f[11]) + int(f[12])
    return total / _TICK


def children(pid: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            f = _stat(int(name))
            if f and int(f[1]) == pid:
                out.append(int(name))
    return out


def status_kb(pid: int, key: str) -> int:
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def machine_jiffies() -> tuple[int, int]:
    values = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return sum(values[:8]) - idle, sum(values[:8])


# --- the sidecar ------------------------------------------------------------------------------

class Sidecar:
    """`rtac serve` on a free port, its own settings; stopped with its process group."""

    def __init__(self, env: dict, log: Path, extra_args: list[str]):
        from .db import free_port
        self.port = free_port()
        self.log_path = log
        self.log = log.open("w")
        rtac = Path(sys.executable).parent / "rtac"
        self.proc = subprocess.Popen([str(rtac), "serve", "--port", str(self.port), *extra_args], env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                conn.request("GET", "/healthz")
                if conn.getresponse().status == 200:
                    break
            except OSError:
                time.sleep(0.2)
        else:
            self.stop()
            raise RuntimeError(f"rtac serve did not come up: {log.read_text()[-2000:]}")
        self.banner = log.read_text().splitlines()[0]

    @property
    def workers(self) -> list[int]:
        return children(self.proc.pid)

    def stop(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=60)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.log.close()


_DB_ERROR = re.compile(r"database unavailable: \(pymysql\.err\.\w+\) \((\d+), '([^']*)'\)")
_SQL = re.compile(r"\[SQL: (\w+(?: IGNORE)? (?:INTO|FROM)? ?\w+)")


def database_errors(log: Path) -> dict[str, int]:
    """What the sidecar logged as `database unavailable`, by MySQL error and statement."""
    counts: dict[str, int] = {}
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    for i, line in enumerate(lines):
        m = _DB_ERROR.search(line)
        if m:
            sql = next((s.group(1) for ln in lines[i:i + 4] if (s := _SQL.search(ln))), "")
            key = f"{m.group(1)} {m.group(2)}" + (f" ({sql})" if sql else "")
            counts[key] = counts.get(key, 0) + 1
    return counts


# --- visitors ----------------------------------------------------------------------------------

@dataclass
class Record:
    start: float
    end: float
    status: int
    code: str = ""


class Messages:
    """Distinct questions in the visitors' languages (the bench corpus's generator)."""

    def __init__(self, corpus, seed: int):
        self.corpus, self.rng, self.seen, self.lock = corpus, random.Random(f"load-{seed}"), set(), threading.Lock()

    def next(self, lang: str) -> str:
        with self.lock:
            while True:
                q = self.corpus.question(self.rng, lang, words_max=self.rng.choice((3, 4, 6, 8)))
                if q not in self.seen:
                    self.seen.add(q)
                    return q
                self.rng.random()


class Visitors:
    """`n` closed-loop visitors; records what each turn got."""

    def __init__(self, port: int, site_id: str, secret: str, messages: Messages, pinned: list[dict], tag: str):
        from .corpus import VISITOR_MIX
        self.port, self.site_id, self.secret = port, site_id, secret
        self.messages, self.pinned, self.tag = messages, pinned, tag
        self.langs, self.weights = list(VISITOR_MIX), list(VISITOR_MIX.values())
        self.records: list[Record] = []
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self, n: int) -> None:
        for i in range(len(self._threads), n):
            th = threading.Thread(target=self._visitor, args=(i,), daemon=True, name=f"visitor-{i}")
            self._threads.append(th)
            th.start()

    def stop(self, timeout: float = 90.0) -> None:
        self._stop.set()
        deadline = time.monotonic() + timeout
        for th in self._threads:
            th.join(max(0.0, deadline - time.monotonic()))

    def _visitor(self, i: int) -> None:
        from sidecar.signing import sign_headers
        rng = random.Random(f"{self.tag}-{i}")
        n = 0
        while not self._stop.is_set():
            n += 1
            visitor, lang = f"load-{self.tag}-{i}-{n}", rng.choices(self.langs, self.weights)[0]
            conversation_id = None
            for _ in range(rng.randint(1, 5)):
                if self._stop.is_set():
                    return
                body = {"visitor": {"id": visitor}, "message": self.messages.next(lang), "lang": lang,
                        "page": {"url": f"https://{self.site_id}.example/{lang}/hinnakiri", "title": "Hinnakiri"},
                        "lead_captured": False, "pinned": self.pinned}
                if conversation_id:
                    body["conversation_id"] = conversation_id
                raw = json.dumps(body, ensure_ascii=False).encode()
                headers = {"Content-Type": "application/json",
                           **sign_headers(self.site_id, self.secret, "POST", "/v1/chat", raw)}
                t0 = time.perf_counter()
                status, payload, retry_after = self._post(raw, headers)
                rec = Record(t0, time.perf_counter(), status)
                if status == 200:
                    conversation_id = payload.get("conversation_id")
                elif isinstance(payload, dict) and isinstance(payload.get("error"), dict):
                    rec.code = payload["error"].get("code", "")
                with self._lock:
                    self.records.append(rec)
                    if status != 200 and rec.code != "over_capacity" and len(self.errors) < 20:
                        self.errors.append(f"{status}: {str(payload)[:200]}")
                if rec.code == "over_capacity":
                    self._stop.wait(retry_after)
                    break  # a refused visitor comes back with a new conversation

    def _post(self, raw: bytes, headers: dict) -> tuple[int, object, float]:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
            conn.request("POST", "/v1/chat", body=raw, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            retry = float(resp.getheader("Retry-After") or 1)
            conn.close()
        except OSError as exc:
            return 0, f"{exc.__class__.__name__}: {exc}", 1.0
        try:
            return resp.status, json.loads(data), retry
        except ValueError:
            return resp.status, data[:200].decode(errors="replace"), retry


# --- one measured level ----------------------------------------------------------------------

def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = (len(s) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


@dataclass
class Level:
    concurrency: int
    window_s: float
    answered: int = 0
    turns_per_s: float = 0.0
    over_model_ms: dict = field(default_factory=dict)   # p50/p90/p99/max of 200s, model delay subtracted
    refused: int = 0                                     # over-capacity 503s
    refused_ms: dict = field(default_factory=dict)
    other_5xx: int = 0
    other_non_200: int = 0
    sidecar_cpu_ms_per_turn: float = 0.0
    mariadb_cpu_ms_per_turn: float = 0.0
    sidecar_cores: float = 0.0
    harness_cpu_ms_per_turn: float = 0.0  # this process's visitors and the fake vendor's process
    machine_busy_cores: float = 0.0
    others_cores: float = 0.0
    rss_mb: float = 0.0          # the workers' resident memory together, peak in the window
    threads: int = 0             # the workers' OS threads together, peak
    db_connections: int = 0      # Max_used_connections in the window
    errors: list = field(default_factory=list)


def _summary_ms(seconds: list[float]) -> dict:
    ms = [s * 1000 for s in seconds]
    return {"n": len(ms), "p50": _pct(ms, 50), "p90": _pct(ms, 90), "p99": _pct(ms, 99),
            "max": max(ms) if ms else float("nan")}


def measure_level(sidecar: Sidecar, visitors_factory, concurrency: int, warmup: float, window: float,
                  mariadb_pid: int | None, admin_engine, own_pids: list[int]) -> Level:
    from sqlalchemy import text
    visitors = visitors_factory(concurrency)
    visitors.start(concurrency)
    time.sleep(warmup)
    with admin_engine.connect() as conn:
        conn.execute(text("FLUSH STATUS"))
    workers = sidecar.workers
    ours = [sidecar.proc.pid, *workers]
    c0, m0, busy0 = cpu_seconds(ours), cpu_seconds([mariadb_pid] if mariadb_pid else []), machine_jiffies()
    others_own0 = cpu_seconds(own_pids)
    t0 = time.perf_counter()
    rss, threads = 0, 0
    while time.perf_counter() - t0 < window:
        time.sleep(1.0)
        rss = max(rss, sum(status_kb(p, "VmRSS") for p in workers))
        threads = max(threads, sum(status_kb(p, "Threads") for p in workers))
    t1 = time.perf_counter()
    c1, m1, busy1 = cpu_seconds(ours), cpu_seconds([mariadb_pid] if mariadb_pid else []), machine_jiffies()
    others_own1 = cpu_seconds(own_pids)
    with admin_engine.connect() as conn:
        used = int(conn.execute(text("SHOW GLOBAL STATUS LIKE 'Max_used_connections'")).one()[1])
    visitors.stop()

    lv = Level(concurrency, t1 - t0)
    # Every response that came back within the window (its request may have left before).
    inside = [r for r in visitors.records if t0 <= r.end <= t1]
    ok = [r for r in inside if r.status == 200]
    refused = [r for r in inside if r.code == "over_capacity"]
    lv.answered = len(ok)
    lv.turns_per_s = len(ok) / (t1 - t0)
    lv.over_model_ms = _summary_ms([r.end - r.start - MODEL_DELAY for r in ok])
    lv.refused, lv.refused_ms = len(refused), _summary_ms([r.end - r.start for r in refused])
    lv.other_5xx = len([r for r in inside if r.status >= 500 and r.code != "over_capacity"])
    lv.other_non_200 = len([r for r in inside if r.status != 200 and r.code != "over_capacity"])
    ncpu = os.cpu_count() or 1
    per_core = (busy1[1] - busy0[1]) / ncpu or 1
    turns = max(1, lv.answered)
    lv.sidecar_cpu_ms_per_turn = (c1 - c0) * 1000 / turns
    lv.mariadb_cpu_ms_per_turn = (m1 - m0) * 1000 / turns
    lv.sidecar_cores = (c1 - c0) / (t1 - t0)
    lv.machine_busy_cores = (busy1[0] - busy0[0]) / per_core
    lv.harness_cpu_ms_per_turn = (others_own1 - others_own0) * 1000 / turns
    bench_cores = ((c1 - c0) + (m1 - m0) + (others_own1 - others_own0)) / (t1 - t0)
    lv.others_cores = max(0.0, lv.machine_busy_cores - bench_cores)
    lv.rss_mb, lv.threads, lv.db_connections = rss / 1024, threads, used
    lv.errors = visitors.errors[:5]
    return lv


# --- the run ---------------------------------------------------------------------------------------

def _env(db_url: str, master_key: bytes, vendor_url: str, mode: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RTAC_", "ANTHROPIC_", "OPENAI_", "GEMINI_"))}
    env.update(RTAC_DATABASE_URL=db_url, RTAC_MASTER_KEY=base64.b64encode(master_key).decode(),
               ANTHROPIC_API_KEY="bench-key", ANTHROPIC_BASE_URL=vendor_url, **MODES[mode])
    return env


def run(quick: bool = False, concurrency: tuple[int, ...] = CONCURRENCY, modes: tuple[str, ...] = ("on", "off"),
        seconds: float | None = None, warmup: float | None = None, serve_args: list[str] | None = None,
        log=print) -> dict:
    from sidecar.crypto import Keyring
    from sidecar.db import create_engine
    from sidecar.sites import add_site

    from .corpus import DEFAULT_LANG, SEED, Corpus
    from .db import LocalMariaDB, load_corpus, make_pool, optimize_fulltext
    from .stats import loadavg

    window = seconds or (8.0 if quick else WINDOW_S)
    warm = warmup if warmup is not None else (3.0 if quick else WARMUP_S)
    chunks = 500 if quick else CHUNKS
    master_key = hashlib.sha256(f"rtac-bench-load-{SEED}".encode()).digest()
    corpus = Corpus(SEED)
    out = {"concurrency": list(concurrency), "window_s": window, "warmup_s": warm, "chunks": chunks,
           "model_delay_s": MODEL_DELAY, "loadavg_start": loadavg(), "modes": {}, "serve_args": serve_args or []}
    with LocalMariaDB() as mdb:
        url = mdb.create_database("rtac_bench_load")
        engine = create_engine(url)
        site = add_site(engine, Keyring(master_key), SITE, default_lang=DEFAULT_LANG)
        pool = make_pool()
        try:
            stats = load_corpus(engine, site.id, "load", chunks, SEED, pool)
        finally:
            pool.close()
            pool.join()
        optimize_fulltext(engine, "rtac_bench_load", stats)
        log(f"{stats.chunks} chunks loaded on MariaDB port {mdb.port}")
        pinned = [{"title": "Hinnakiri", "content": corpus.price_list(random.Random(f"pinned-{SEED}"))}]
        admin = create_engine(mdb.url + "/mysql")
        mariadb_pid = int((mdb.dir / "mariadb.pid").read_text().strip())
        vendor = FakeVendor(MODEL_DELAY)
        try:
            for mode in modes:
                env = _env(url, master_key, vendor.url, mode)
                sidecar = Sidecar(env, mdb.dir / f"sidecar-{mode}.log", serve_args or [])
                try:
                    idle_rss = sum(status_kb(p, "VmRSS") for p in sidecar.workers) / 1024
                    levels = []
                    messages = Messages(corpus, SEED)
                    for c in concurrency:
                        def factory(n, c=c):
                            return Visitors(sidecar.port, site.id, site.secret, messages, pinned, f"{mode}-{c}")
                        lv = measure_level(sidecar, factory, c, warm, window, mariadb_pid, admin,
                                           [os.getpid(), vendor.proc.pid])
                        levels.append(lv)
                        om = lv.over_model_ms
                        log(f"{mode} c={c}: {lv.turns_per_s:.1f} turns/s, over model p50 {om['p50']:.0f} "
                            f"p99 {om['p99']:.0f} ms; refused {lv.refused}, other 5xx {lv.other_5xx}; "
                            f"sidecar {lv.sidecar_cpu_ms_per_turn:.1f} ms CPU/turn ({lv.sidecar_cores:.2f} cores), "
                            f"MariaDB {lv.mariadb_cpu_ms_per_turn:.1f}; machine {lv.machine_busy_cores:.2f} busy, "
                            f"others {lv.others_cores:.2f}; RSS {lv.rss_mb:.0f} MB, {lv.threads} threads, "
                            f"{lv.db_connections} DB conns" + (f"; errors {lv.errors[:2]}" if lv.errors else ""))
                    out["modes"][mode] = {"banner": sidecar.banner, "idle_rss_mb": idle_rss,
                                          "levels": [lv.__dict__ for lv in levels]}
                finally:
                    sidecar.stop()
                out["modes"][mode]["database_errors"] = database_errors(sidecar.log_path)
        finally:
            vendor.close()
            admin.dispose()
            engine.dispose()
    out["loadavg_end"] = loadavg()
    return out


# --- the report ------------------------------------------------------------------------------------

def _at(levels: list[dict], c: int) -> dict | None:
    return next((lv for lv in levels if lv["concurrency"] == c), None)


def memory_per_turn(levels: list[dict]) -> float | None:
    """Resident memory each extra turn in flight adds (MB), between the lowest and the
    highest concurrency the server admitted in full."""
    full = [lv for lv in levels if not lv["refused"]]
    if len(full) < 2:
        return None
    lo, hi = full[0], full[-1]
    return (hi["rss_mb"] - lo["rss_mb"]) / max(1, hi["concurrency"] - lo["concurrency"])


def ceiling(level: dict, modes: dict) -> str:
    """How many turns a second the machine's cores allow at this level's CPU per turn,
    and what the embedder costs of it: said plainly when the target is not met."""
    cores = os.cpu_count() or 1
    cpu = level["sidecar_cpu_ms_per_turn"] + level["mariadb_cpu_ms_per_turn"]
    text = (f"What {cores} cores allow: an answered turn takes {cpu:.1f} ms of CPU here (sidecar "
            f"{level['sidecar_cpu_ms_per_turn']:.1f}, MariaDB {level['mariadb_cpu_ms_per_turn']:.1f}), so at most "
            f"{cores * 1000 / cpu:.1f} turns/s fit, however many visitors wait")
    off = _at(modes.get("off", {}).get("levels", []), level["concurrency"])
    if off and off is not level:
        extra = level["sidecar_cpu_ms_per_turn"] - off["sidecar_cpu_ms_per_turn"]
        text += (f"; {extra:.1f} ms of it is what the defaults add, mostly the local model embedding the message (the sidecar's CPU per turn "
                 f"with the embedder off is {off['sidecar_cpu_ms_per_turn']:.1f} ms); a remote embedder "
                 "(`RTAC_EMBEDDER`) or more cores raise the ceiling")
    return text + "."


def markdown(result: dict) -> str:
    L = ["## Load: many visitors at once", ""]
    w = L.append
    w(f"The default `rtac serve` as a subprocess{' with ' + ' '.join(result['serve_args']) if result['serve_args'] else ''} "
      f"on the bench's MariaDB ({result['chunks']:,} chunks, a 3,000-character pinned price list), the "
      f"Anthropic SDK against a fake vendor answering every call after {result['model_delay_s']:g} s (its own "
      "process), closed-loop visitors on new connections, every message distinct; a visitor refused with the "
      "over-capacity 503 waits its `Retry-After`. Per concurrency a "
      f"{result['warmup_s']:g} s warm-up, then a {result['window_s']:g} s window; what it reports is every response "
      "that came back within the window. *Over model*: the visitor's "
      "wall time less the vendor's delay. CPU per answered turn from /proc (the sidecar's master and workers; "
      "MariaDB apart; *harness*: the visitors' process and the fake vendor's, which a real deployment does not "
      "run). *Others*: cores busy with processes outside the bench (the machine is shared). "
      f"Load average {result['loadavg_start']} before, {result['loadavg_end']} after.")
    w("")
    for mode, data in result["modes"].items():
        w(f"### {MODE_LABEL.get(mode, mode)}")
        w("")
        w(f"`{data['banner']}`")
        w("")
        w("| visitors | turns/s | over model p50 / p90 / p99 / max (ms) | over-capacity 503 (p50 / p99 ms) "
          "| other ≥ 500 | sidecar CPU ms/turn | MariaDB CPU ms/turn | harness CPU ms/turn "
          "| cores: sidecar / machine / others | workers' RSS MB, threads | DB connections |")
        w("|---:|---:|---|---|---:|---:|---:|---:|---|---|---:|")
        for lv in data["levels"]:
            om, rf = lv["over_model_ms"], lv["refused_ms"]
            refused = f"{lv['refused']} ({rf['p50']:.0f} / {rf['p99']:.0f})" if lv["refused"] else "0"
            w(f"| {lv['concurrency']} | **{lv['turns_per_s']:.1f}** | {om['p50']:.0f} / {om['p90']:.0f} / "
              f"**{om['p99']:.0f}** / {om['max']:.0f} | {refused} | {lv['other_5xx']} | "
              f"{lv['sidecar_cpu_ms_per_turn']:.1f} | {lv['mariadb_cpu_ms_per_turn']:.1f} | "
              f"{lv['harness_cpu_ms_per_turn']:.1f} | "
              f"{lv['sidecar_cores']:.2f} / {lv['machine_busy_cores']:.2f} / {lv['others_cores']:.2f} | "
              f"{lv['rss_mb']:.0f}, {lv['threads']} | {lv['db_connections']} |")
        w("")
        per = memory_per_turn(data["levels"])
        w(f"Workers' resident memory idle: {data['idle_rss_mb']:.0f} MB"
          + (f"; each extra turn in flight adds ~{per * 1024:.0f} KB (between the lowest and highest "
             "concurrency admitted in full)." if per is not None else "."))
        target = _at(data["levels"], TARGET_AT)
        if target:
            ok = (target["turns_per_s"] >= TARGET_TURNS_PER_S and target["over_model_ms"]["p99"] <= TARGET_P99_MS
                  and target["other_5xx"] == 0)
            w(f"Target at {TARGET_AT} visitors (≥ {TARGET_TURNS_PER_S:g} turns/s, over-model p99 ≤ "
              f"{TARGET_P99_MS:g} ms, no ≥ 500 but the over-capacity 503): **{'met' if ok else 'not met'}** "
              f"({target['turns_per_s']:.1f} turns/s, p99 {target['over_model_ms']['p99']:.0f} ms, "
              f"{target['other_5xx']} other ≥ 500).")
        if target and not ok:
            w(ceiling(target, result["modes"]))
        for cause, n in data.get("database_errors", {}).items():
            w(f"Logged by the sidecar as database unavailable (503): {n} × MySQL {cause}.")
        errors = [e for lv in data["levels"] for e in lv["errors"]]
        if errors:
            w(f"First errors: {'; '.join(errors[:3])}")
        w("")
    return "\n".join(L)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--concurrency", type=lambda s: tuple(int(x) for x in s.split(",")), default=CONCURRENCY)
    ap.add_argument("--embedder", choices=("on", "off", "both"), default="both")
    ap.add_argument("--seconds", type=float, help=f"measuring window per concurrency (default {WINDOW_S:g})")
    ap.add_argument("--warmup", type=float)
    ap.add_argument("--serve-arg", action="append", default=[], help="passed to `rtac serve` (repeatable)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--fake-vendor", type=float, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.fake_vendor is not None:
        return _serve_fake_vendor(args.fake_vendor)
    modes = ("on", "off") if args.embedder == "both" else (args.embedder,)
    result = run(quick=args.quick, concurrency=args.concurrency, modes=modes, seconds=args.seconds,
                 warmup=args.warmup, serve_args=args.serve_arg,
                 log=lambda m: print(f"[load {time.strftime('%H:%M:%S')}] {m}", file=sys.stderr, flush=True))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, default=str))
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
