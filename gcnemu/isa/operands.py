"""Operand spelling shared by the assembler and the disassembler (LLVM's gfx7 syntax).

Scalar operand codes are the 9-bit SRC encoding (VGPRs are 256 + n); see encoding.py.
"""
from __future__ import annotations

import math

import struct

from .encoding import (EXEC_LO, FLAT_SCRATCH_LO, INLINE_DOUBLES, INLINE_FLOATS, M0,
                       TBA_LO, TMA_LO, TTMP0, VCC_LO, VGPR0)

#: Named scalar registers: name -> (code, dwords).
NAMED_REGS = {
    "vcc": (VCC_LO, 2), "vcc_lo": (VCC_LO, 1), "vcc_hi": (VCC_LO + 1, 1),
    "exec": (EXEC_LO, 2), "exec_lo": (EXEC_LO, 1), "exec_hi": (EXEC_LO + 1, 1),
    "flat_scratch": (FLAT_SCRATCH_LO, 2), "flat_scratch_lo": (FLAT_SCRATCH_LO, 1),
    "flat_scratch_hi": (FLAT_SCRATCH_LO + 1, 1),
    "tba": (TBA_LO, 2), "tba_lo": (TBA_LO, 1), "tba_hi": (TBA_LO + 1, 1),
    "tma": (TMA_LO, 2), "tma_lo": (TMA_LO, 1), "tma_hi": (TMA_LO + 1, 1),
    "m0": (M0, 1),
    "vccz": (251, 1), "src_vccz": (251, 1),
    "execz": (252, 1), "src_execz": (252, 1),
    "scc": (253, 1), "src_scc": (253, 1),
    "lds_direct": (254, 1), "src_lds_direct": (254, 1),
}

#: Operand class (names of LLVM's gfx7 operand docs) of each special scalar code.
CODE_CLASS = {}
for _c in range(0, 104):
    CODE_CLASS[_c] = "s"
for _c in (104, 105):
    CODE_CLASS[_c] = "flat_scratch"
for _c in (106, 107):
    CODE_CLASS[_c] = "vcc"
for _c in range(108, 124):
    CODE_CLASS[_c] = "trap"
CODE_CLASS[124] = "m0"
for _c in (126, 127):
    CODE_CLASS[_c] = "exec"
CODE_CLASS.update({251: "vccz", 252: "execz", 253: "scc", 254: "lds_direct"})

FLOAT_INLINE = {0.5: 240, -0.5: 241, 1.0: 242, -1.0: 243, 2.0: 244, -2.0: 245, 4.0: 246, -4.0: 247}
FLOAT_INLINE_TEXT = {240: "0.5", 241: "-0.5", 242: "1.0", 243: "-1.0", 244: "2.0", 245: "-2.0",
                     246: "4.0", 247: "-4.0"}
INLINE_BITS32 = {v: k for k, v in INLINE_FLOATS.items()}
INLINE_BITS64 = {v: k for k, v in INLINE_DOUBLES.items()}

_PAIR_NAMES = {FLAT_SCRATCH_LO: "flat_scratch", VCC_LO: "vcc", TBA_LO: "tba", TMA_LO: "tma",
               EXEC_LO: "exec"}
_SINGLE_NAMES = {FLAT_SCRATCH_LO: "flat_scratch_lo", FLAT_SCRATCH_LO + 1: "flat_scratch_hi",
                 VCC_LO: "vcc_lo", VCC_LO + 1: "vcc_hi", TBA_LO: "tba_lo", TBA_LO + 1: "tba_hi",
                 TMA_LO: "tma_lo", TMA_LO + 1: "tma_hi", M0: "m0", EXEC_LO: "exec_lo",
                 EXEC_LO + 1: "exec_hi", 251: "src_vccz", 252: "src_execz", 253: "src_scc",
                 254: "src_lds_direct"}


class Unprintable(Exception):
    """An encoded operand that has no LLVM spelling (reserved code, misaligned range)."""


def inline_code(value, dwords: int = 1) -> int | None:
    """The inline-constant code of an integer or float value, or None."""
    if isinstance(value, float):
        if value in FLOAT_INLINE:
            return FLOAT_INLINE[value]
        if value == 0.0 and math.copysign(1.0, value) > 0:   # -0.0 has no inline code
            return 128
        return None
    if -16 <= value <= 64:
        return 128 + value if value >= 0 else 192 - value
    if dwords == 1:
        bits = value & 0xFFFFFFFF
        if -(1 << 31) <= value < (1 << 32):
            if bits in INLINE_BITS32:
                return INLINE_BITS32[bits]
            if bits >= 0xFFFFFFF0:  # -16..-1 written as unsigned
                return 192 + (0x100000000 - bits)
    else:
        bits = value & 0xFFFFFFFFFFFFFFFF
        if -(1 << 63) <= value < (1 << 64):
            if bits in INLINE_BITS64:
                return INLINE_BITS64[bits]
            if bits >= 0xFFFFFFFFFFFFFFF0:
                return 192 + ((1 << 64) - bits)
    return None


def float_bits32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def float_bits64_hi(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0] >> 32


def format_scalar(code: int, dwords: int = 1) -> str:
    """LLVM spelling of a 9-bit source / 7-8 bit scalar code covering `dwords` registers."""
    if code >= VGPR0:
        n = code - VGPR0
        if dwords == 1:
            return f"v{n}"
        if n + dwords > 256:
            raise Unprintable(f"VGPR range v{n}.. runs past v255")
        return f"v[{n}:{n + dwords - 1}]"
    if code <= 103:
        if dwords == 1:
            return f"s{code}"
        align = 2 if dwords == 2 else 4
        if code % align or code + dwords > 104:
            raise Unprintable(f"misaligned SGPR range at s{code}")
        return f"s[{code}:{code + dwords - 1}]"
    if 112 <= code <= 123:
        n = code - TTMP0
        if dwords == 1:
            return f"ttmp{n}"
        align = 2 if dwords == 2 else 4
        if n % align or n + dwords > 12:
            raise Unprintable(f"misaligned TTMP range at ttmp{n}")
        return f"ttmp[{n}:{n + dwords - 1}]"
    if dwords == 1 and code in _SINGLE_NAMES:
        return _SINGLE_NAMES[code]
    if dwords == 2 and code in _PAIR_NAMES:
        return _PAIR_NAMES[code]
    if 128 <= code <= 192:
        return str(code - 128)
    if 193 <= code <= 208:
        return str(192 - code)
    if code in FLOAT_INLINE_TEXT:
        return FLOAT_INLINE_TEXT[code]
    if code in (251, 252, 253):
        return _SINGLE_NAMES[code]
    raise Unprintable(f"operand code {code} has no {dwords}-dword spelling")
