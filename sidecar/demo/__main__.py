"""`python -m sidecar.demo [SITE_ID]`: register the demo site (if missing) and index
its pages. Prints the site's secret file path for `rtac chat`."""
from __future__ import annotations

import sys

from .. import config as config_module
from .. import documents
from ..crypto import Keyring
from ..db import create_engine
from ..sites import SiteRegistry, add_site
from ..validation import parse_documents
from . import default_lang
from . import documents as demo_documents


def main(site_id: str = "demo") -> int:
    cfg = config_module.load()
    engine = create_engine(cfg.database_url)
    keyring = Keyring(cfg.master_key)
    site = SiteRegistry(engine, keyring).get(site_id)
    if site is None:
        site = add_site(engine, keyring, site_id, default_lang=default_lang())
        print(f"registered site {site_id}")
    docs = parse_documents({"documents": demo_documents()}, site.default_lang)
    with engine.begin() as conn:
        result = documents.upsert(conn, site.id, docs)
    print(f"demo site {site_id}: {result['upserted']} pages, {result['chunks']} chunks indexed "
          f"(et, en, ru); the price list is pinned on every turn")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:2]))
