"""`rtac`: the sidecar's command line."""
from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import urllib.error
import urllib.request

from . import config as config_module
from .errors import RtacError, UsageError


ERROR_EXIT = 2  # a command refused, as argparse exits for an argument it refuses


def _config():
    return config_module.load()


def _engine(cfg):
    from .db import create_engine
    return create_engine(cfg.database_url)


def _keyring(cfg):
    """The current master key, and any still accepted from before a rotation."""
    from .crypto import Keyring
    return Keyring(cfg.master_key, cfg.previous_master_keys)


def cmd_init_db(args) -> int:
    from sqlalchemy import select

    from . import fulltext
    from . import tables as t
    from .documents import refresh_search_text
    from .migrate import migrate
    cfg = _config()
    engine = _engine(cfg)
    applied = migrate(engine)
    print(f"database ready ({'applied: ' + ', '.join(applied) if applied else 'already up to date'})")
    synced = fulltext.sync_all(engine)  # each site's own FULLTEXT table, complete
    for name in synced.dropped:
        print(f"search table {name} of a removed site dropped")
    for s in synced.sites:
        if s.copied:
            print(f"site {s.site_id}: {s.copied} chunk(s) copied into its search table {s.table}")
    with engine.connect() as conn:
        site_ids = conn.execute(select(t.sites.c.id).order_by(t.sites.c.id)).scalars().all()
    for site_id in site_ids:  # text prepared by an older release is searched the new way too
        n = refresh_search_text(engine, site_id)
        if n:
            print(f"site {site_id}: search text of {n} chunk(s) refreshed")
    return 0


def cmd_site_add(args) -> int:
    from .sites import add_site
    cfg = _config()
    site = add_site(_engine(cfg), _keyring(cfg), args.site_id, secret=args.secret,
                    default_lang=args.default_lang)
    print(f"site {site.id} added (default language {site.default_lang}).")
    print("Paste these into the plugin's settings (or wp-config.php):")
    print(f"  define('RTAC_SITE_ID', '{site.id}');")
    print(f"  define('RTAC_SIDECAR_SECRET', '{site.secret}');")
    return 0


def cmd_site_rotate_secret(args) -> int:
    from .sites import SECRET_GRACE_SECONDS, rotate_secret
    cfg = _config()
    grace = SECRET_GRACE_SECONDS if args.grace is None else args.grace
    rotated = rotate_secret(_engine(cfg), _keyring(cfg), args.site_id, grace=grace)
    print(f"site {args.site_id}: new secret. Paste it into the plugin's settings (or wp-config.php):")
    print(f"  define('RTAC_SIDECAR_SECRET', '{rotated.secret}');")
    if rotated.previous_valid_until is None:
        print("The old secret is refused from now on (by running sidecars within 30 seconds).")
    else:
        print(f"The old secret stays valid until {rotated.previous_valid_until:%Y-%m-%d %H:%M:%S} UTC.")
    return 0


def cmd_site_remove(args) -> int:
    from .sites import remove_site
    if not args.yes:
        raise UsageError(f"this deletes site {args.site_id} and everything of it (pages, customers' memories and "
                         "conversations, unanswered questions, usage); it cannot be undone. Run again with --yes "
                         "to do it.")
    cfg = _config()
    if not remove_site(_engine(cfg), args.site_id):
        raise UsageError(f"unknown site {args.site_id!r}")
    print(f"site {args.site_id} removed, with everything of it.")
    return 0


def cmd_site_budget(args) -> int:
    from . import spending
    from .sites import SiteRegistry
    usd = None
    if args.daily_usd is not None:
        try:
            usd = spending.parse_daily_usd(args.daily_usd)
        except ValueError as exc:
            raise UsageError(f"daily_usd: {exc}") from None
    cfg = _config()
    engine = _engine(cfg)
    if args.clear or usd is not None:
        spending.set_daily_budget(engine, args.site_id, usd)
    site = SiteRegistry(engine, _keyring(cfg)).require(args.site_id)
    with engine.connect() as conn:
        status = spending.budget_status(conn, site, cfg)
    cap = status["daily_budget_usd"]
    if site.daily_budget_usd is not None:
        where = "the site's own"
    elif cap is not None:
        where = "the default, RTAC_DAILY_BUDGET_USD"
    else:
        where = "none set here or in RTAC_DAILY_BUDGET_USD"
    print(f"site {site.id}: daily cap {'none' if cap is None else f'{cap:.4f} USD'} ({where}); "
          f"spent today (UTC, estimated) {status['spent_today_usd']:.4f} USD")
    if args.clear or args.daily_usd is not None:
        print("Running sidecars apply it within 30 seconds.")
    return 0


def cmd_serve(args) -> int:
    from gunicorn.app.base import BaseApplication

    from . import serving  # reads the configuration
    from .app import create_app
    app = create_app(serving.CONFIG)
    svc = app.extensions["rtac"]
    options = serving.settings(svc.config, bind=f"{args.host}:{args.port}", workers=args.workers,
                               threads=args.threads, access_log=args.access_log)
    note = "" if svc.provider.name != "offline" else " (no vendor API key found: answers are quoted from the site's own information, marked degraded)"
    print(f"rtac sidecar on http://{args.host}:{args.port} — provider {svc.provider.name}, model {svc.model}{note}; "
          f"{options['workers']} workers x {options['threads']} threads, at most {svc.config.max_inflight} turns "
          "at once (RTAC_MAX_INFLIGHT)", flush=True)

    class _Server(BaseApplication):
        def load_config(self):
            for k, v in options.items():
                if k in self.cfg.settings:  # an older gunicorn lacks some
                    self.cfg.set(k, v)

        def load(self):
            return app

    _Server().run()
    return 0


def cmd_import_wxr(args) -> int:
    from . import documents
    from .sites import SiteRegistry
    from .validation import parse_documents
    from .wxr import parse_wxr
    cfg = _config()
    engine = _engine(cfg)
    site = SiteRegistry(engine, _keyring(cfg)).require(args.site)
    items = list(parse_wxr(args.file, default_lang=args.default_lang or site.default_lang))
    docs = parse_documents({"documents": items}, site.default_lang) if items else []
    total = {"upserted": 0, "chunks": 0}
    for start in range(0, len(docs), 200):
        with engine.begin() as conn:
            result = documents.upsert(conn, site.id, docs[start:start + 200])
        total = {k: total[k] + result[k] for k in total}
    print(f"imported {total['upserted']} published posts and pages ({total['chunks']} chunks) into site {site.id}")
    return 0


def _post(url: str, site_id: str, secret: str, path: str, payload: dict, method: str = "POST") -> dict:
    from .signing import sign_headers
    body = json.dumps(payload).encode()
    headers = {"Content-Type": "application/json", **sign_headers(site_id, secret, method, path, body)}
    req = urllib.request.Request(url.rstrip("/") + path, data=body, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            return json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode(errors="replace")
        raise SystemExit(f"sidecar answered {exc.code}: {detail}") from None
    except urllib.error.URLError as exc:
        raise SystemExit(f"cannot reach the sidecar at {url}: {exc.reason} (is `rtac serve` running?)") from None


def _site_secret(site_id: str) -> str:
    from .sites import SiteRegistry
    cfg = _config()
    return SiteRegistry(_engine(cfg), _keyring(cfg)).require(site_id).secret


def _pinned(args, lang: str) -> list[dict]:
    if args.pinned:
        with open(args.pinned, encoding="utf-8") as fh:
            return json.load(fh)
    if args.site == "demo":
        from . import demo
        return demo.pinned(lang)
    return []


def cmd_chat(args) -> int:
    """A terminal chat that signs its requests exactly as the plugin does."""
    secret = args.secret or os.environ.get("RTAC_SIDECAR_SECRET") or _site_secret(args.site)
    lang = args.lang
    visitor = args.visitor or "cli-" + secrets.token_hex(8)
    conversation_id = None
    print(f"Chatting with site {args.site} at {args.url} as {visitor} ({lang}). Empty line or Ctrl-D quits.")
    while True:
        try:
            message = input("you> ").strip()
        except EOFError:
            print()
            return 0
        if not message:
            return 0
        payload = {"conversation_id": conversation_id, "visitor": {"id": visitor}, "message": message,
                   "lang": lang, "page": {"url": "", "title": "terminal"}, "lead_captured": False,
                   "pinned": _pinned(args, lang)}
        answer = _post(args.url, args.site, secret, "/v1/chat", payload)
        conversation_id = answer["conversation_id"]
        print(f"agent> {answer['reply']}")
        for q in answer.get("quick_replies", []):
            print(f"   [{q}]")
        extras = []
        if answer.get("action", "none") != "none":
            extras.append(f"action={answer['action']}")
        if answer.get("unanswered"):
            extras.append("unanswered")
        if answer.get("degraded"):
            extras.append("degraded")
        if answer.get("sources"):
            extras.append("sources: " + "; ".join(s["title"] for s in answer["sources"]))
        if extras:
            print("   (" + ", ".join(extras) + ")")


def cmd_doctor(args) -> int:
    from sqlalchemy import func, select

    from . import tables as t
    from .migrate import migrations
    from .pricing import min_cacheable_tokens
    from .prompt import stable_system
    from .providers import PROVIDERS, make_provider
    from .providers.base import GroundingEntry
    ok = True
    try:
        cfg = _config()
    except RtacError as exc:
        print(f"config    FAIL  {exc.message}")
        return 1
    print(f"config    ok    provider={cfg.provider} model={cfg.model or '(default)'} embedder={cfg.embedder}")
    engine, missing = None, ["(no database)"]
    try:
        engine = _engine(cfg)
        with engine.connect() as conn:
            version = conn.execute(select(func.version())).scalar_one()
            done = set(conn.execute(select(t.schema_migrations.c.version)).scalars())
            missing = [name for name, _ in migrations() if name not in done]
            sites = conn.execute(select(func.count()).select_from(t.sites)).scalar_one()
        state = "ok  " if not missing else "FAIL"
        ok &= not missing
        print(f"database  {state}  {version}; {sites} site(s)" + (f"; run `rtac init-db` (missing {', '.join(missing)})" if missing else ""))
    except Exception as exc:  # any failure here is a finding to report, not a crash
        ok = False
        print(f"database  FAIL  {exc.__class__.__name__}: {str(exc).splitlines()[0]}")
    try:
        spec = PROVIDERS[cfg.provider]
        provider = make_provider(spec.name, cfg)
        model = cfg.model or spec.default_model
        print(f"provider  ok    {spec.name}, model {model}"
              + ("" if spec.key_env else " (offline: no vendor key; answers quote the site's own information)"))
    except RtacError as exc:
        ok = False
        print(f"provider  FAIL  {exc.message}")
        return 1
    if cfg.embeds:
        try:
            from .embedders import make_embedder
            embedder = make_embedder(cfg)
            vector = embedder.embed(["doctor"])[0]
            runs_on = ""
            if embedder.name == "local":
                from .embedders import local
                runs_on = f", engine {local.engine()}"
            print(f"embedder  ok    {embedder.name}, {embedder.model}, {len(vector)} dimensions{runs_on}")
        except Exception as exc:  # reported, not raised: the doctor's job is to list findings
            ok = False
            embedder = None
            print(f"embedder  FAIL  {exc.__class__.__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
        if cfg.retrieval == "hybrid" and embedder is not None and not missing:
            from .embedding_queue import pending
            with engine.connect() as conn:
                site_ids = conn.execute(select(t.sites.c.id)).scalars().all()
                waiting = {sid: pending(conn, sid, embedder.model) for sid in site_ids}
            total = sum(waiting.values())
            if total:
                worst = ", ".join(f"{sid} {n}" for sid, n in sorted(waiting.items(), key=lambda kv: -kv[1])[:5] if n)
                print(f"indexing  WARN  {total} chunk(s) not embedded yet ({worst}): found by FULLTEXT only until "
                      "a running sidecar embeds them (or run `rtac reembed --site SITE`)")
            else:
                print("indexing  ok    every chunk is embedded: retrieval by meaning covers all pages")
    else:
        print("embedder  --    memory is off (RTAC_MEMORY=off) and RTAC_RETRIEVAL=fulltext")
    pinned = []
    if args.pinned:
        with open(args.pinned, encoding="utf-8") as fh:
            pinned = [GroundingEntry(p["title"], p["content"], pinned=True) for p in json.load(fh)]
    tokens = len(stable_system(pinned)) // 4  # ~4 characters a token: an estimate, said as one
    minimum = min_cacheable_tokens(provider.name, model)
    if minimum is None:
        print(f"cache     --    stable prompt ~{tokens} tokens; {provider.name} has no prompt cache")
    elif tokens >= minimum:
        print(f"cache     ok    stable prompt ~{tokens} tokens clears {model}'s minimum of {minimum}")
    else:
        print(f"cache     WARN  stable prompt ~{tokens} tokens is below {model}'s minimum cacheable length "
              f"of {minimum}: caching silently does nothing until the pinned content grows"
              + ("" if args.pinned else " (pass --pinned FILE with the site's pinned entries for its real size)"))
    return 0 if ok else 1


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rtac", description="rtac sidecar: grounded customer-service chat for WordPress")
    sub = p.add_subparsers(dest="command", required=True)

    sub.add_parser("init-db", help="create or migrate the database (idempotent)").set_defaults(func=cmd_init_db)

    site = sub.add_parser("site", help="manage sites").add_subparsers(dest="site_command", required=True)
    add = site.add_parser("add", help="register a WordPress site; prints its secret")
    add.add_argument("site_id")
    add.add_argument("--secret", help="use this secret instead of a random one (16+ characters)")
    add.add_argument("--default-lang", default="en")
    add.set_defaults(func=cmd_site_add)
    rs = site.add_parser("rotate-secret", help="give a site a new secret; the old one stays valid for a grace period")
    rs.add_argument("site_id")
    rs.add_argument("--grace", type=_seconds, default=None, metavar="SECONDS",
                    help="how long the old secret stays valid (default 86400, a day; 0: refused at once)")
    rs.set_defaults(func=cmd_site_rotate_secret)
    rm = site.add_parser("remove", help="delete a site and everything of it")
    rm.add_argument("site_id")
    rm.add_argument("--yes", action="store_true", help="yes, delete it: nothing of it can be recovered")
    rm.set_defaults(func=cmd_site_remove)
    bud = site.add_parser("budget", help="show or set a site's daily spending cap (UTC days, estimated cost)")
    bud.add_argument("site_id")
    which = bud.add_mutually_exclusive_group()
    which.add_argument("--daily-usd", metavar="N", help="the site's own cap in USD a day (0: no vendor calls)")
    which.add_argument("--clear", action="store_true", help="drop the site's own cap: RTAC_DAILY_BUDGET_USD applies")
    bud.set_defaults(func=cmd_site_budget)

    serve = sub.add_parser("serve", help="serve the HTTP API")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8787)
    serve.add_argument("--workers", type=int, default=None, help="worker processes (default 2, one per core)")
    serve.add_argument("--threads", type=int, default=None,
                       help="threads per worker (default RTAC_MAX_INFLIGHT + 16: every admitted turn gets one)")
    serve.add_argument("--access-log", action="store_true")
    serve.set_defaults(func=cmd_serve)

    imp = sub.add_parser("import-wxr", help="index a WordPress export (published posts and pages)")
    imp.add_argument("file")
    imp.add_argument("--site", required=True)
    imp.add_argument("--default-lang", help="language of items without Polylang/WPML data (default: the site's)")
    imp.set_defaults(func=cmd_import_wxr)

    chat = sub.add_parser("chat", help="chat with a site in the terminal (signed like the plugin)")
    chat.add_argument("--site", required=True)
    chat.add_argument("--url", default="http://127.0.0.1:8787")
    chat.add_argument("--lang", default="et")
    chat.add_argument("--visitor", help="visitor id (default: a new random one)")
    chat.add_argument("--secret", help="the site secret (default: read from the database)")
    chat.add_argument("--pinned", help="JSON file of pinned entries [{title, content}] sent on every turn")
    chat.set_defaults(func=cmd_chat)

    doc = sub.add_parser("doctor", help="check configuration, database, provider and prompt caching")
    doc.add_argument("--pinned", help="JSON file of a site's pinned entries, to size its stable prompt")
    doc.set_defaults(func=cmd_doctor)

    re = sub.add_parser("reembed", help="embed a site's pages and memories with the configured embedding model")
    re.add_argument("--site", required=True)
    re.add_argument("--all", action="store_true", help="also memories already embedded by the current model")
    re.add_argument("--prune", action="store_true",
                    help="then delete the site's page vectors of other models (once every sidecar runs the new one)")
    re.set_defaults(func=cmd_reembed)

    rot = sub.add_parser("rotate-master-key",
                         help="re-wrap every key with RTAC_MASTER_KEY (opening old ones with RTAC_MASTER_KEY_PREVIOUS)")
    rot.add_argument("--new-key", help=argparse.SUPPRESS)  # the old, unsafe way: explained, refused
    rot.set_defaults(func=cmd_rotate)
    return p


def _seconds(raw: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of seconds: {raw!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be zero or more")
    return value


def cmd_reembed(args) -> int:
    from .embedders import make_embedder
    from .embedding_queue import reembed_chunks
    from .memory.reembed import reembed_site
    from .sites import SiteRegistry
    cfg = _config()
    engine = _engine(cfg)
    keyring = _keyring(cfg)
    site = SiteRegistry(engine, keyring).require(args.site)
    embedder = make_embedder(cfg)
    if cfg.retrieval == "hybrid":
        chunks = reembed_chunks(engine, site.id, embedder, prune=args.prune)
        print(f"embedded {chunks} page chunk(s) of site {site.id} with {embedder.model}"
              + ("; vectors of other models removed" if args.prune else ""))
    n = reembed_site(engine, keyring, site, embedder, everything=args.all)
    print(f"re-embedded {n} memories of site {site.id} with {embedder.model}")
    return 0


_ROTATION_STEPS = """Rotating the master key, with no request refused:
  1. on every sidecar set RTAC_MASTER_KEY to the new key and RTAC_MASTER_KEY_PREVIOUS
     to the old one, and restart them (each then opens keys wrapped by either);
  2. run `rtac rotate-master-key` (with that configuration) to re-wrap every key;
  3. when it reports nothing left, remove RTAC_MASTER_KEY_PREVIOUS everywhere."""


def cmd_rotate(args) -> int:
    from .keys import remaining, rewrap
    if args.new_key is not None:
        # Re-wrapping to a key the running sidecars do not hold strands every customer
        # they serve until they restart.
        raise UsageError("--new-key is no longer used.\n" + _ROTATION_STEPS)
    cfg = _config()
    engine = _engine(cfg)
    keyring = _keyring(cfg)
    done = rewrap(engine, keyring)
    print(f"re-wrapped {done.sites} site key(s) and {done.spaces} space key(s) with master key "
          f"{keyring.key_id.hex()} (RTAC_MASTER_KEY).")
    for kid, n in sorted(done.unavailable.items()):
        print(f"rtac: {n} key(s) are wrapped by master key {kid}, which is neither RTAC_MASTER_KEY nor in "
              "RTAC_MASTER_KEY_PREVIOUS: add it there and run this again.", file=sys.stderr)
    left = remaining(engine, keyring)
    if left:
        print(f"{left} key(s) are still wrapped by another master key: keep RTAC_MASTER_KEY_PREVIOUS and run "
              "this again (a sidecar still running with only the old key may have created them).")
        return 1
    if cfg.previous_master_keys:
        print("Every key is wrapped by RTAC_MASTER_KEY now: remove RTAC_MASTER_KEY_PREVIOUS from every "
              "sidecar's configuration.")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except RtacError as exc:  # a UsageError, or an error of what the command asked
        print(f"rtac: {exc.message}", file=sys.stderr)
        return ERROR_EXIT


if __name__ == "__main__":
    sys.exit(main())
