"""Streamed answers in the real widget: when the visitor sees the first text and the whole reply.

The whole path runs on this machine: Chromium (Playwright, Debian's binary) opens a page of a
real WordPress (Debian's package, scripts/wp-env, `php -S` with OPcache) with the rtac plugin;
the widget asks for a stream; the plugin relays the turn to the real sidecar (`rtac serve`,
MariaDB, the demo site's pages, the local query embedder) through the recording fake sidecar
of the plugin's tests (proxy mode: a pass-through that timestamps the plugin's request); the
sidecar's model vendor is a local fake of the Anthropic API that starts writing after 0.8 s
and then writes 4 characters every 25 ms (about 160 characters, some 40 tokens, a second).

Per turn, on the machine's one clock (the page's Date.now() and Python's time.time()):
request (the widget's fetch) -> WordPress hands the turn on (the fake sidecar sees it) -> the
sidecar calls the vendor (retrieval, query embedding, prompt) -> the vendor's first text ->
the vendor's first complete sentence -> the first text visible in the widget -> the vendor's
last text -> the whole reply visible (`done`). "Added" = first text visible minus the moment
the vendor had written the first sentence's last character: what the sidecar (sentence cut,
price check), the pass-through, the plugin's relay and the widget add. The same turns asked
for whole (the widget told by Site Health that streams are buffered) are the comparison.

    python -m bench.streaming [--turns 8] [--db-url mysql+pymysql://root@127.0.0.1:PORT]
"""
from __future__ import annotations

import json
import os
import secrets
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from . import wordpress
from .markdown import table

CHROMIUM = "/usr/bin/chromium"
TURNS = 8
FIRST_DELAY = 0.8      # seconds before the vendor's first text
CHUNK_CHARS = 4        # characters per vendor chunk ...
INTERVAL = 0.025       # ... every 25 ms: 160 characters (~40 tokens) a second
TARGET_MS = 300        # first text visible within this of the vendor's first complete sentence

QUESTIONS = ["Do you repair carbon frames?", "Can you fit a dynamo light?", "Do you service e-bikes?",
             "Can I leave my bike over the weekend?", "Do you true wheels?", "Can you fit mudguards?"]
REPLY = ("Yes, we can do that in our workshop on Telliskivi street. Most jobs like this take one or two "
         "working days, depending on the parts we need. Bring the bike in on any weekday and we will "
         "take a look and tell you what it needs.")
FIRST_SENTENCE = REPLY.split(". ")[0] + "."


class VendorClock:
    """Timestamps what the fake vendor writes: each stream's start (the sidecar's call) and
    each chunk as it leaves (time.time() once the chunk is written and flushed)."""

    def __init__(self):
        self.streams: list[dict] = []
        self._lock = threading.Lock()

    def install(self):
        from testbed import anthropic_server
        original = anthropic_server.send_event_stream
        clock = self

        def timed(handler, stream, closing, log):
            record = {"called": time.time(), "chunks": []}
            with clock._lock:
                clock.streams.append(record)
            events = stream.events

            def stamped():
                for item in events:
                    yield item
                    if isinstance(item, bytes):
                        record["chunks"].append((time.time(), item))
            stream.events = stamped()
            return original(handler, stream, closing, log)

        anthropic_server.send_event_stream = timed
        return lambda: setattr(anthropic_server, "send_event_stream", original)


def _text_chunks(chunks: list[tuple[float, bytes]]) -> list[tuple[float, str]]:
    """(time, text) of the vendor's text_delta chunks."""
    out = []
    for at, raw in chunks:
        for line in raw.decode().splitlines():
            if line.startswith("data: "):
                data = json.loads(line[6:])
                delta = data.get("delta") or {}
                if data.get("type") == "content_block_delta" and delta.get("type") == "text_delta":
                    out.append((at, delta["text"]))
    return out


def _vendor_times(record: dict) -> dict:
    texts = _text_chunks(record["chunks"])
    written, sentence = "", None
    for at, text in texts:
        written += text
        if sentence is None and FIRST_SENTENCE in written:
            sentence = at
    return {"called": record["called"], "first": texts[0][0], "sentence": sentence, "last": texts[-1][0]}


def _register_site(database_url: str, master_key: bytes, site_id: str, secret: str) -> None:
    from sidecar import documents
    from sidecar.crypto import Keyring
    from sidecar.db import create_engine
    from sidecar.demo import documents as demo_documents
    from sidecar.sites import add_site
    from sidecar.validation import parse_documents
    engine = create_engine(database_url)
    site = add_site(engine, Keyring(master_key), site_id, secret=secret, default_lang="en")
    with engine.begin() as conn:
        documents.upsert(conn, site.id, parse_documents({"documents": demo_documents()}, "en"))
    engine.dispose()


WATCH = """() => {
    const w = window.__rtac = { requests: [], texts: [], done: [] };
    const host = document.getElementById('rtac-widget');
    host.addEventListener('rtac:message', e => w.done.push([Date.now(), e.detail.reply]));
    new MutationObserver(() => {
        const all = host.shadowRoot.querySelectorAll("[data-rtac='message'][data-role='agent']");
        const t = all.length ? all[all.length - 1].textContent : '';
        const last = w.texts[w.texts.length - 1];
        if (t && (!last || last[1] !== t || last[2] !== all.length)) w.texts.push([Date.now(), t, all.length]);
    }).observe(host.shadowRoot, { subtree: true, childList: true, characterData: true });
    const f = window.fetch;
    window.fetch = function (url) {
        if (String(url).includes('/rtac/v1/chat')) w.requests.push(Date.now());
        return f.apply(this, arguments);
    };
}"""


def _turns(page, fake, vendor, clock, n: int, streamed: bool) -> list[dict]:
    """`n` turns in the open widget. Asked for whole, the vendor answers whole after as long as
    the stream takes (its first delay and its writing time), so only the delivery differs."""
    from testbed.anthropic_server import delay, reply_json
    from testbed.anthropic_server import streamed as paced_reply
    out = []
    for i in range(n):
        reply = {"reply": REPLY, "quick_replies": ["Opening hours"], "action": "none", "unanswered": False,
                 "forget": []}
        if streamed:
            vendor.script(paced_reply(reply, first_delay=FIRST_DELAY, chunk_chars=CHUNK_CHARS, interval=INTERVAL))
        else:
            writing = len(json.dumps(reply)) / CHUNK_CHARS * INTERVAL
            vendor.script(delay(FIRST_DELAY + writing, reply_json(reply)))
        before_req, before_fake = len(clock.streams), len(fake.requests)
        w = page.evaluate("window.__rtac")
        seen_texts, seen_done = len(w["texts"]), len(w["done"])
        page.locator("#rtac-widget [data-rtac='input']").fill(QUESTIONS[i % len(QUESTIONS)])
        page.locator("#rtac-widget [data-rtac='send']").click()
        page.wait_for_function(f"window.__rtac.done.length > {seen_done}", timeout=60000)
        w = page.evaluate("window.__rtac")
        if w["done"][-1][1] != REPLY:
            raise RuntimeError(f"turn {i}: the widget showed {w['done'][-1][1]!r}")
        texts = [t for t in w["texts"][seen_texts:] if t[1]]
        recs = [r for r in fake.requests[before_fake:] if r.path == "/v1/chat"]
        if len(recs) != 1 or not recs[0].verified:
            raise RuntimeError(f"turn {i}: the sidecar saw {len(recs)} chat requests")
        req = w["requests"][-1] / 1000
        first_visible = texts[0][0] / 1000
        done = w["done"][-1][0] / 1000
        row = {"request_to_first_ms": (first_visible - req) * 1000, "request_to_done_ms": (done - req) * 1000,
               "wordpress_ms": (recs[0].at - req) * 1000, "pieces_seen": len({t[1] for t in texts}),
               "first_text": texts[0][1]}
        if streamed:
            if len(clock.streams) != before_req + 1:
                raise RuntimeError(f"turn {i}: the vendor streamed {len(clock.streams) - before_req} answers")
            v = _vendor_times(clock.streams[-1])
            row.update(before_vendor_ms=(v["called"] - recs[0].at) * 1000,
                       vendor_first_ms=(v["first"] - v["called"]) * 1000,
                       vendor_writing_ms=(v["last"] - v["first"]) * 1000,
                       sentence_to_visible_ms=(first_visible - v["sentence"]) * 1000,
                       last_to_done_ms=(done - v["last"]) * 1000)
            if not REPLY.startswith(row["first_text"]) or row["first_text"] == REPLY:
                raise RuntimeError(f"turn {i}: the first text {row['first_text']!r} is not a start of the reply")
        out.append(row)
    return out


def run(turns: int = TURNS, db_url: str | None = None, quick: bool = False) -> dict:
    from playwright.sync_api import sync_playwright

    from testbed.anthropic_server import FakeAnthropic
    from testbed.fake_sidecar import FakeSidecar
    from testbed.sidecar_process import RtacServe

    from .db import LocalMariaDB, free_port, migrated_database

    if quick:
        turns = min(turns, 3)
    site_id, secret = "bench-stream", secrets.token_urlsafe(32)
    master_key = secrets.token_bytes(32)
    work = Path(tempfile.mkdtemp(prefix="rtacb-stream-"))
    wp_dir = work / "wp"
    mdb = None
    clock = VendorClock()
    uninstall = clock.install()
    fake = FakeSidecar(site_id, secret).start()
    port = free_port()
    try:
        if db_url is None:
            mdb = LocalMariaDB().__enter__()
            db_url = mdb.url
        database_url = migrated_database(db_url, "rtac_bench_stream")
        _register_site(database_url, master_key, site_id, secret)
        with FakeAnthropic() as vendor, RtacServe(
                database_url, master_key, work / "sidecar.log",
                {"RTAC_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": "bench-key",
                 "ANTHROPIC_BASE_URL": vendor.base_url}) as sidecar:
            fake.set_proxy(sidecar.url)
            wordpress.start(wp_dir, port, f"{db_url}/rtac_bench_stream_wp", fake.url, site_id, secret)
            wordpress.wp_eval(wp_dir, wordpress.BUSINESS_PHP + "delete_option('rtac_streaming'); return true;")
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
                pages = {}
                for mode in ("streamed", "whole"):
                    if mode == "whole":  # the widget of a page served where Site Health found streams buffered
                        wordpress.wp_eval(wp_dir, "update_option('rtac_streaming', ['state' => 'buffered', 'checked' => time(), "
                                     "'spread_ms' => 0, 'sent_ms' => 800]); return true;")
                    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
                    page.goto(f"http://127.0.0.1:{port}/", wait_until="domcontentloaded")
                    page.locator("#rtac-widget [data-rtac='open']").click()
                    page.evaluate(WATCH)
                    _turns(page, fake, vendor, clock, 1, mode == "streamed")  # warm-up: OPcache, embedder, TCP
                    pages[mode] = page
                # Turn about, so both modes see the same load of this shared machine.
                results = {"streamed": [], "whole": []}
                for _ in range(turns):
                    for mode, page in pages.items():
                        results[mode] += _turns(page, fake, vendor, clock, 1, mode == "streamed")
                browser.close()
        php = wordpress.php_version()
        keys = ["request_to_first_ms", "request_to_done_ms", "wordpress_ms", "before_vendor_ms", "vendor_first_ms",
                "vendor_writing_ms", "sentence_to_visible_ms", "last_to_done_ms"]
        return {"turns": turns, "php": php, "cores": os.cpu_count(), "load": os.getloadavg(),
                "reply_chars": len(REPLY), "first_sentence_chars": len(FIRST_SENTENCE),
                "pace": {"first_delay_s": FIRST_DELAY, "chunk_chars": CHUNK_CHARS, "interval_s": INTERVAL},
                "streamed": {k: wordpress.summary([r[k] for r in results["streamed"]]) for k in keys},
                "whole": {k: wordpress.summary([r[k] for r in results["whole"]]) for k in keys[:3]},
                "pieces_seen": [r["pieces_seen"] for r in results["streamed"]],
                "within_target": sum(r["sentence_to_visible_ms"] <= TARGET_MS for r in results["streamed"])}
    except Exception:
        log = work / "sidecar.log"
        if log.exists():
            print("--- the sidecar's log (last lines) ---\n" + "\n".join(log.read_text().splitlines()[-40:]))
        raise
    finally:
        uninstall()
        wordpress.stop(wp_dir)
        fake.stop()
        if mdb is not None:
            mdb.__exit__(None, None, None)
        subprocess.run(["rm", "-rf", str(work)], check=False)


# The table's rows: label, mode (streamed / whole), figure.
ROWS = [
    ("**streamed: request -> first text visible**", "streamed", "request_to_first_ms"),
    ("**streamed: request -> whole reply visible**", "streamed", "request_to_done_ms"),
    ("whole (no stream): request -> reply visible", "whole", "request_to_done_ms"),
    ("whole: WordPress boot + plugin, until the turn is handed on", "whole", "wordpress_ms"),
    ("WordPress boot + plugin, until the turn is handed on", "streamed", "wordpress_ms"),
    ("sidecar before the vendor call (retrieval, query embedding, prompt)", "streamed", "before_vendor_ms"),
    ("vendor: call -> first text (scripted)", "streamed", "vendor_first_ms"),
    ("vendor: first text -> last text (scripted pace)", "streamed", "vendor_writing_ms"),
    (f"**added: vendor's first complete sentence -> visible** (target {TARGET_MS})", "streamed",
     "sentence_to_visible_ms"),
    ("added: vendor's last text -> whole reply visible", "streamed", "last_to_done_ms"),
]


def _row(label: str, s: dict) -> list:
    return [label, s["n"], *(f"{s[k]:.0f}" for k in ("p50", "p90", "mean", "min", "max"))]


def markdown(r: dict) -> str:
    return "\n".join([
        "## Streamed answers in the widget",
        "",
        f"Chromium -> WordPress (`php -S` with OPcache, PHP {r['php']}) -> the plugin's relay -> the real sidecar "
        f"(MariaDB, the demo pages, local query embedder) -> a fake Anthropic API that starts writing after "
        f"{r['pace']['first_delay_s']} s and then writes {r['pace']['chunk_chars']} characters every "
        f"{r['pace']['interval_s'] * 1000:.0f} ms (~{r['pace']['chunk_chars'] / r['pace']['interval_s']:.0f} characters, "
        f"~{r['pace']['chunk_chars'] / r['pace']['interval_s'] / 4:.0f} tokens, a second). A reply of "
        f"{r['reply_chars']} characters, its first sentence {r['first_sentence_chars']}; {r['turns']} measured turns "
        "per mode after one warm-up, the modes taking turns. \"Whole\": the widget of a page where Site Health "
        "found streams buffered asks for the whole answer, which the vendor gives after as long as its stream "
        "takes nominally (first delay plus writing time). Times in ms, on one clock (the page's and the fake "
        "vendor's).",
        "",
        *table(["ms", "n", "p50", "p90", "mean", "min", "max"],
               (_row(label, r[mode][key]) for label, mode, key in ROWS)),
        "",
        f"First text within {TARGET_MS} ms of the vendor's first complete sentence in {r['within_target']} of "
        f"{r['turns']} turns; distinct texts the widget showed per streamed turn: {r['pieces_seen']}. \"Added\" "
        "holds the sidecar's sentence cut and price check, the recording pass-through in front of it, the plugin's "
        "relay and the widget; the time before the vendor call is WordPress's and the sidecar's alone and does not "
        "depend on streaming. " + wordpress.machine(r),
        "",
    ])


if __name__ == "__main__":
    ap = wordpress.arguments(__doc__, TURNS)
    ap.add_argument("--json", action="store_true", help="print the raw figures as JSON too")
    args = ap.parse_args()
    result = run(turns=args.turns, db_url=args.db_url)
    if args.json:
        print(json.dumps(result, indent=2, default=str))
    print(markdown(result))
