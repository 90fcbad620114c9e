"""The WordPress plugin's own time per chat turn, and the widget's gzipped size.

A real WordPress (Debian's package, scripts/wp-env, `php -S` with OPcache) with the rtac plugin
talks to an instant fake sidecar (testbed/fake_sidecar.py: verifies the signature, answers at
once, and times itself). Each measured turn is a `POST /wp-json/rtac/v1/chat` as the widget
sends it, with the visitor cookie and conversation id of the visitor's conversation; the
plugin's time is the client's wall time minus the fake's own time for that turn's /v1/chat.
So it holds WordPress's boot and REST dispatch, the rate limiter, the pinned context (business
profile + a pinned knowledge-base price list + the `rtac_context` filter), signing, the HTTP
call on the loopback, and building the reply. For scale, the same route refused with a 400
(empty message: WordPress and REST only, nothing of the turn) is measured too.

    python -m bench.wp_turn [--turns 200]     # prints the markdown section
"""
from __future__ import annotations

import gzip
import http.client
import json
import os
import secrets
import subprocess
import tempfile
import time
from pathlib import Path

from . import wordpress
from .markdown import table
from .wordpress import ROOT

ASSETS = ROOT / "wp-plugin" / "assets"
TURNS = 200
WARMUP = 20
TURNS_PER_VISITOR = 10


def _summary(values_s: list[float]) -> dict:
    return wordpress.summary([v * 1000 for v in values_s])


def widget_size() -> dict:
    out = {}
    for name in ("widget.js", "widget.css"):
        data = (ASSETS / name).read_bytes()
        out[name] = {"raw": len(data), "gzip": len(gzip.compress(data, compresslevel=9))}
    out["total_gzip"] = sum(v["gzip"] for v in out.values())
    return out


def _post(port: int, path: str, body: dict, cookie: str | None) -> tuple[int, dict, str | None, float]:
    data = json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if cookie:
        headers["Cookie"] = cookie
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("POST", path, body=data, headers=headers)
    resp = conn.getresponse()
    raw = resp.read()
    elapsed = time.perf_counter() - t0
    set_cookie = resp.getheader("Set-Cookie")
    conn.close()
    return resp.status, json.loads(raw or b"null"), set_cookie, elapsed


def run(turns: int = TURNS, warmup: int = WARMUP, db_url: str | None = None) -> dict:
    from testbed.fake_sidecar import FakeSidecar
    from sidecar.demo import pinned

    from .db import LocalMariaDB, free_port

    site_id, secret = "bench-wp", secrets.token_urlsafe(32)
    fake = FakeSidecar(site_id, secret).start()
    wp_dir = Path(tempfile.mkdtemp(prefix="rtacb-wp-"))
    mdb = None
    port = free_port()
    try:
        if db_url is None:
            mdb = LocalMariaDB().__enter__()
            db_url = mdb.url
        wordpress.start(wp_dir, port, f"{db_url}/rtac_bench_wp", fake.url, site_id, secret)
        price_list = next(e for e in pinned("en") if e["title"] == "Price list")
        wordpress.wp_eval(wp_dir, wordpress.BUSINESS_PHP + f"""
            Rtac_Knowledge_Base::create_entry({json.dumps(price_list['title'])}, {json.dumps(price_list['content'])}, 'en', true);
            return true;""")

        plugin, total, fake_own, floor = [], [], [], []
        cookie, conv = None, None
        questions = ["How much is a basic service?", "Are you open on Saturday?", "Do you fix e-bikes?",
                     "Where are you?", "Can I book a full service for next week?"]
        for i in range(warmup + turns):
            if i % TURNS_PER_VISITOR == 0:
                cookie, conv = None, None
            body = {"message": questions[i % len(questions)], "lang": "en",
                    "page": {"url": f"http://127.0.0.1:{port}/services/", "title": "Services"}}
            if conv:
                body["conversation_id"] = conv
            before = len(fake.requests)
            status, reply, set_cookie, elapsed = _post(port, "/wp-json/rtac/v1/chat", body, cookie)
            if status != 200 or reply.get("degraded"):
                raise RuntimeError(f"turn {i} failed: {status} {reply}")
            recs = [r for r in fake.requests[before:] if r.path == "/v1/chat"]
            if len(recs) != 1 or not recs[0].verified:
                raise RuntimeError(f"turn {i}: the fake saw {[(r.path, r.verified) for r in recs]}")
            if set_cookie and "rtac_visitor=" in set_cookie:
                cookie = set_cookie.split(";", 1)[0]
            conv = reply.get("conversation_id")
            if i >= warmup:
                total.append(elapsed)
                fake_own.append(recs[0].handler_seconds)
                plugin.append(elapsed - recs[0].handler_seconds)
            # The floor: the same route refused before the turn starts (WordPress + REST only).
            if i >= warmup and i % 2 == 0:
                s, _, _, e = _post(port, "/wp-json/rtac/v1/chat", {"message": ""}, None)
                if s == 400:
                    floor.append(e)
        php = wordpress.php_version()
        wp_version = wordpress.wp_eval(wp_dir, "return $GLOBALS['wp_version'];").strip('"')
        return {"turns": turns, "warmup": warmup, "plugin": _summary(plugin), "total": _summary(total),
                "fake": _summary(fake_own), "floor": _summary(floor), "php": php, "wordpress": wp_version,
                "pinned_chars": sum(len(p["content"]) for p in fake.chats()[-1]["pinned"]),
                "widget": widget_size(), "cores": os.cpu_count(), "load": os.getloadavg()}
    finally:
        wordpress.stop(wp_dir)
        subprocess.run(["rm", "-rf", str(wp_dir)], check=False)
        fake.stop()
        if mdb is not None:
            mdb.__exit__(None, None, None)


def _row(label: str, s: dict) -> list:
    return [label, s["n"], *(f"{s[k]:.1f}" for k in ("p50", "p90", "p99", "mean", "max"))]


def markdown(r: dict) -> str:
    w = r["widget"]
    return "\n".join([
        "## WordPress plugin: time per chat turn (sidecar excluded)",
        "",
        f"`POST /wp-json/rtac/v1/chat` on WordPress {r['wordpress']} (Debian's package, `php -S` with OPcache, "
        f"PHP {r['php']}) against an instant fake sidecar; {r['turns']} measured turns after {r['warmup']} warm-up, "
        f"{TURNS_PER_VISITOR} turns per visitor (cookie and conversation kept), {r['pinned_chars']:,} characters of "
        "pinned context per turn (business profile + a pinned knowledge-base price list). Plugin time = the "
        "client's wall time minus the fake sidecar's own time for that turn.",
        "",
        *table(["ms per turn", "n", "p50", "p90", "p99", "mean", "max"], [
            _row("**plugin (WordPress + rtac, no sidecar)**", r["plugin"]),
            _row("whole request as the client saw it", r["total"]),
            _row("the fake sidecar's own time", r["fake"]),
            _row("same route refused with 400 (WordPress + REST only)", r["floor"]),
        ]),
        "",
        f"The plugin's own share above WordPress's floor: p50 {r['plugin']['p50'] - r['floor']['p50']:.1f} ms. "
        + wordpress.machine(r),
        "",
        "## Chat widget size",
        "",
        *table(["file", "raw bytes", "gzip -9 bytes"],
               [*([name, f"{w[name]['raw']:,}", f"{w[name]['gzip']:,}"] for name in ("widget.js", "widget.css")),
                ["**total**", "", f"**{w['total_gzip']:,}**"]]),
        "",
    ])


if __name__ == "__main__":
    args = wordpress.arguments(__doc__, TURNS).parse_args()
    print(markdown(run(turns=args.turns, db_url=args.db_url)))
