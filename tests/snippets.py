"""Helpers for engine tests: assemble a gfx7 snippet and run it as one wave.

Assembly prefers gcnemu's own assembler (gcnemu.isa.assembler) and falls back to llvm-mc
(llvm-14) when that does not import; tests skip with a reason if neither is available.
Everything here is a thin convenience layer: the values tests compare against are always
computed independently (Python integers, fractions.Fraction, numpy/struct reinterpretation).
"""
from __future__ import annotations

import functools
import os
import shutil
import struct
import subprocess
import tempfile

import numpy as np
import pytest

from gcnemu.errors import ExecutionError  # noqa: F401  (re-exported for tests)
from gcnemu.snippet import run_snippet

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
ALL = M64


def _gcnemu_assembler():
    try:
        from gcnemu.isa.assembler import assemble
        return assemble
    except Exception:  # noqa: BLE001 - any import problem means: use llvm-mc
        return None


def _llvm_tools():
    mc = shutil.which("llvm-mc") or shutil.which("llvm-mc-14")
    objcopy = shutil.which("llvm-objcopy-14") or shutil.which("llvm-objcopy")
    return mc, objcopy


def _assemble_llvm(text: str) -> bytes:
    mc, objcopy = _llvm_tools()
    if not (mc and objcopy):
        pytest.skip("neither gcnemu.isa.assembler nor llvm-mc/llvm-objcopy is available")
    with tempfile.TemporaryDirectory() as d:
        src, obj, binf = (os.path.join(d, n) for n in ("x.s", "x.o", "x.bin"))
        with open(src, "w") as f:
            f.write(".text\n" + text + "\n")
        r = subprocess.run([mc, "-arch=amdgcn", "-mcpu=bonaire", "-filetype=obj", src, "-o", obj],
                           capture_output=True, text=True)
        if r.returncode:
            raise ValueError(f"llvm-mc could not assemble:\n{text}\n{r.stderr}")
        subprocess.run([objcopy, "-O", "binary", "--only-section=.text", obj, binf], check=True)
        with open(binf, "rb") as f:
            return f.read()


@functools.lru_cache(maxsize=4096)
def assemble(text: str) -> bytes:
    """Machine code for gfx7 assembly text (gcnemu's assembler, else llvm-mc)."""
    asm = _gcnemu_assembler()
    if asm is not None:
        return asm(text)
    return _assemble_llvm(text)


def code(text: str) -> bytes:
    """Assemble `text`, appending s_endpgm if the snippet does not end with one."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if not lines or lines[-1].strip() != "s_endpgm":
        text = text.rstrip() + "\ns_endpgm"
    return assemble(text)


def run(text: str, sgpr=None, vgpr=None, exec_mask=ALL, mode=None, **kw):
    """Assemble and run a snippet as one wave; returns gcnemu.snippet.WaveState."""
    return run_snippet(code(text), sgpr=sgpr, vgpr=vgpr, exec_mask=exec_mask, mode=mode, **kw)


# --- value helpers (numpy/struct reinterpretation, independent of gcnemu) -------------------

def f2u(x: float) -> int:
    """Bits of a float rounded to f32 (struct's IEEE conversion)."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


def u2f(u: int) -> float:
    return struct.unpack("<f", struct.pack("<I", u & M32))[0]


def d2u(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def u2d(u: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", u & M64))[0]


def lanes(values, dtype=np.uint32) -> np.ndarray:
    """64 lane values as a uint32 array (ints masked to 32 bits)."""
    vals = list(values)
    assert len(vals) == 64
    return np.array([int(v) & M32 for v in vals], dtype=np.uint32)


def split64(values):
    """64-bit lane values -> (low uint32[64], high uint32[64])."""
    vals = [int(v) & M64 for v in values]
    return (np.array([v & M32 for v in vals], np.uint32),
            np.array([v >> 32 for v in vals], np.uint32))


def join64(lo, hi):
    return [int(a) | (int(b) << 32) for a, b in zip(lo, hi)]


def sgn(x: int, n: int = 32) -> int:
    x &= (1 << n) - 1
    return x - (1 << n) if x >> (n - 1) else x


def exec_lanes(mask: int):
    return [l for l in range(64) if (mask >> l) & 1]


def pad64(vals, fill=0):
    """Repeat/extend a list to exactly 64 entries."""
    vals = list(vals)
    if not vals:
        return [fill] * 64
    out = (vals * (64 // len(vals) + 1))[:64]
    return out
