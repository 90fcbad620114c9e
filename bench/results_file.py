"""bench/RESULTS.md as a file: a section replaced in place, the header's line naming the
sections measured again after the full run that wrote it, and the commit that measured."""
from __future__ import annotations

import subprocess
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).with_name("RESULTS.md")


def git(*args: str) -> str:
    """`git *args` in the checkout, its output; "" when git is missing or fails."""
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


REMEASURED = "Measured again after that run, each by its own command: "


def write_section(path: Path, section: str, heading: str, commit: str | None = None) -> None:
    """Replace `heading`'s section of the file in place (up to the next `## ` heading),
    or append it; the rest of the file is left byte for byte, but for the header's line
    naming the sections measured after the run that wrote the file (when, at which commit)."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    old = remeasured(old, heading, datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                     git("rev-parse", "--short", "HEAD") if commit is None else commit)
    lines = old.splitlines(keepends=True)
    start = next((i for i, ln in enumerate(lines) if ln.rstrip("\n") == heading), None)
    body = section.rstrip("\n") + "\n"
    if start is None:
        new = (old.rstrip("\n") + "\n\n" if old.strip() else "") + body
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        tail = "".join(lines[end:])
        new = "".join(lines[:start]) + body + ("\n" + tail if tail else "")
    path.write_text(new, encoding="utf-8")


def remeasured(text_: str, heading: str, when: str, commit: str) -> str:
    """The file with `heading` listed in its header as measured again (replacing an
    earlier entry of it). A file without the header of a full run (no "## " before the
    first section's line) is returned as it is."""
    lines = text_.splitlines(keepends=True)
    first = next((i for i, ln in enumerate(lines) if ln.startswith("## ")), None)
    intro = next((i for i, ln in enumerate(lines[:first]) if ln.startswith("Every figure below")), None)
    if first is None or intro is None:
        return text_
    at = next((i for i in range(intro + 1, first) if lines[i].startswith(REMEASURED)), None)
    entries = [e for e in (lines[at][len(REMEASURED):].rstrip(".\n").split("; ") if at is not None else []) if e]
    name = heading.lstrip("# ")
    entries = [e for e in entries if not e.startswith(f"*{name}* (")]
    entries.append(f"*{name}* ({when}, commit `{commit or 'unknown'}`)")
    line = REMEASURED + "; ".join(entries) + ".\n"
    if at is None:
        lines[intro + 1:intro + 1] = ["\n", line]
    else:
        lines[at] = line
    return "".join(lines)


def publish(section: str, heading: str, write: bool) -> None:
    """A bench's section printed, and with `write` put in its place in bench/RESULTS.md."""
    print(section)
    if write:
        write_section(RESULTS, section, heading)
