"""`python -m bench.<part>`: one part run alone, its section printed."""
from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Callable


def on_local_mariadb(prog: str, seed: bytes, section: Callable[[object, bytes, bool], str]) -> None:
    """`python -m bench.<part> [--quick] [--write]`: the part's section, measured on a
    throwaway MariaDB (bench.db.LocalMariaDB) with a master key derived from `seed`;
    `--write` also replaces that section (its first line is its heading) in bench/RESULTS.md."""
    from .db import LocalMariaDB
    from .results_file import publish

    ap = argparse.ArgumentParser(prog=prog)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--write", action="store_true", help="replace the section in bench/RESULTS.md")
    args = ap.parse_args()
    with LocalMariaDB() as mdb:
        text = section(mdb, hashlib.sha256(seed).digest(), args.quick)
    publish(text, text.splitlines()[0], args.write and not args.quick)


def on_data_set(measure: Callable[[Path | str], dict], markdown: Callable[[dict], str], default: Path,
                argv: list[str] | None = None) -> None:
    """`python -m bench.<part> [path]`: the part's section, measured on the data set at `path`
    (by default its own)."""
    argv = sys.argv[1:] if argv is None else argv
    print(markdown(measure(argv[0] if argv else default)), end="")
