"""numba options for the whole project, in one place, and a guard for numba's on-disk cache.

numba's cache keys a compiled function by its own source file only: when a callee in another
module changes (the generated dispatch tables, a semantics module), a cached caller would keep
the old inlined code. `ensure_fresh_cache()` hashes every jitted source file of the package and
drops gcnemu's cache files when the hash differs from the one stored beside them.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from numba import njit as _njit

#: bit-exactness forbids fastmath; boundscheck off for speed (the engine checks indices itself)
JIT_OPTIONS = dict(cache=True, fastmath=False, boundscheck=False, error_model="numpy", nogil=True)

PACKAGE = Path(__file__).resolve().parent
_JITTED_SOURCES = ("engine.py", "memops.py", "opkernels.py", "dispatch_gen.py", "memory.py", "jit.py", "sem",
                   "lanes.py",
                   "timing")


def njit(*args, **kwargs):
    """`numba.njit` with the project's options (keyword arguments override them)."""
    opts = dict(JIT_OPTIONS)
    opts.update(kwargs)
    if args and callable(args[0]):
        return _njit(**opts)(args[0])
    return _njit(*args, **opts)


def _source_hash() -> str:
    h = hashlib.sha256()
    for name in _JITTED_SOURCES:
        p = PACKAGE / name
        files = sorted(p.rglob("*.py")) if p.is_dir() else [p]
        for f in files:
            if f.exists():
                h.update(f.name.encode())
                h.update(f.read_bytes())
    return h.hexdigest()


def ensure_fresh_cache() -> None:
    """Delete gcnemu's numba cache files if any jitted source changed since they were made."""
    stamp = PACKAGE / "__pycache__" / "gcnemu-jit-sources.sha256"
    current = _source_hash()
    try:
        if stamp.read_text() == current:
            return
    except OSError:
        pass
    for pattern in ("*.nbi", "*.nbc"):
        for f in PACKAGE.rglob(pattern):
            try:
                f.unlink()
            except OSError:
                pass
    try:
        stamp.parent.mkdir(exist_ok=True)
        tmp = stamp.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(current)
        tmp.replace(stamp)
    except OSError:
        pass  # read-only install: numba will not cache there either
