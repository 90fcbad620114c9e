"""The markdown pieces the benchmark sections are written with: a section, a table, a verdict.
Cells and paragraphs come formatted; these only lay them out."""
from __future__ import annotations

from typing import Iterable, Sequence


def row(cells: Iterable[object]) -> str:
    """One table line; an empty cell stays empty (`| |`)."""
    return "|" + "|".join(f" {c} " if c != "" else " " for c in cells) + "|"


def table(head: Sequence[str], rows: Iterable[Iterable[object]], align: str = "") -> list[str]:
    """A table's lines: its head, the rule, a line a row. `align` has an `l` (left) or `r`
    (right) a column; by default the first column is left-aligned and the others right, as
    figures are."""
    align = align or "l" + "r" * (len(head) - 1)
    return [row(head), "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|", *map(row, rows)]


def verdict(ok: bool) -> str:
    return "met" if ok else "not met"


def section(*blocks: str | Iterable[str]) -> str:
    """A section's text: each block (a line, or a list of lines such as a table) followed by
    a blank line."""
    out: list[str] = []
    for block in blocks:
        out.extend([block] if isinstance(block, str) else block)
        out.append("")
    return "\n".join(out)
