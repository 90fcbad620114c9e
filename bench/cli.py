"""`python -m bench.<part>`: one part run alone, its section printed."""
from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Callable


def on_local_mariadb(prog: str, seed: bytes, section: Callable[[object, bytes, bool], str]) -> None:
    """`python -m bench.<part> [--quick]`: the part's section, measured on a throwaway MariaDB
    (bench.db.LocalMariaDB) with a master key derived from `seed`."""
    from .db import LocalMariaDB

    ap = argparse.ArgumentParser(prog=prog)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    with LocalMariaDB() as mdb:
        print(section(mdb, hashlib.sha256(seed).digest(), args.quick))


def on_data_set(measure: Callable[[Path | str], dict], markdown: Callable[[dict], str], default: Path,
                argv: list[str] | None = None) -> None:
    """`python -m bench.<part> [path]`: the part's section, measured on the data set at `path`
    (by default its own)."""
    argv = sys.argv[1:] if argv is None else argv
    print(markdown(measure(argv[0] if argv else default)), end="")
