"""Scalar ALU (SOP1 / SOP2 / SOPK / SOPC) semantics of gfx7, one numba function per mnemonic.

Uniform signature::

    s_xxx(s0, s1, d, scc) -> (result, scc_out)

* ``s0, s1``: ``np.uint64`` source values; 64-bit ops use all 64 bits, 32-bit ops read the
  low 32 (stray high bits are ignored).
* ``d``: the old value of the destination (read by s_cmov_*, s_cmovk_i32, s_bitset*).
* ``scc``: current SCC, 0/1 (any integer type).
* result: ``np.uint64``; 32-bit results zero-extended. SOPC ops return 0 (they write no
  register).
* scc_out: ``np.uint64`` 0/1: the new SCC for ops that write it, else the old SCC.

SOPK ops: ``s0`` is the current value of SDST (same as ``d``) and ``s1`` is the RAW 16-bit
immediate; the function sign-extends (s_movk, s_cmovk, s_addk, s_mulk, s_cmpk_*_i32) or
zero-extends (s_cmpk_*_u32) it itself.

Semantics follow the CLRX pseudo-code (shared/reference/clrx-isa-docs/GcnInstrsSop*.md);
where that text is loose the choice is stated at the function. Ops with control-flow,
EXEC, PC, M0-relative or hardware-register effects are the engine's: see
``ENGINE_SALU_OPS``.
"""
import numpy as np
from gcnemu.exec.jit import njit  # project-wide numba options (cache, no fastmath)

from gcnemu.sem.valu_int import (M16, M32, ONE, ZERO, brev32, brev64, clz64, ctz64, popcount64,
                                 sx32)

SIGN32 = np.uint64(0x80000000)
SIGN64 = np.uint64(0x8000000000000000)


@njit(cache=True)
def _nz(x):
    return ONE if x != ZERO else ZERO


@njit(cache=True)
def _b(c):
    return ONE if c else ZERO


@njit(cache=True)
def _scc(scc):
    return np.uint64(scc) & ONE


@njit(cache=True)
def _simm16(imm):
    """Sign-extend a raw 16-bit immediate to a zero-extended 32-bit uint64."""
    v = np.uint64(imm) & M16
    if v >= np.uint64(0x8000):
        v |= np.uint64(0xFFFF0000)
    return v


# ---------------------------------------------------------------------------------------
# SOP1
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def s_mov_b32(s0, s1, d, scc):
    """D = S0. SCC unchanged."""
    return np.uint64(s0) & M32, _scc(scc)


@njit(cache=True)
def s_mov_b64(s0, s1, d, scc):
    """D64 = S0_64. SCC unchanged."""
    return np.uint64(s0), _scc(scc)


@njit(cache=True)
def s_mov_fed_b32(s0, s1, d, scc):
    """D = S0 (the hardware also injects an EDC error, not modelled). SCC unchanged."""
    return np.uint64(s0) & M32, _scc(scc)


@njit(cache=True)
def s_cmov_b32(s0, s1, d, scc):
    """D = SCC ? S0 : D. SCC unchanged."""
    c = _scc(scc)
    return (np.uint64(s0) if c != ZERO else np.uint64(d)) & M32, c


@njit(cache=True)
def s_cmov_b64(s0, s1, d, scc):
    """D64 = SCC ? S0_64 : D64. SCC unchanged."""
    c = _scc(scc)
    return np.uint64(s0) if c != ZERO else np.uint64(d), c


@njit(cache=True)
def s_not_b32(s0, s1, d, scc):
    """D = ~S0; SCC = D != 0."""
    r = ~np.uint64(s0) & M32
    return r, _nz(r)


@njit(cache=True)
def s_not_b64(s0, s1, d, scc):
    """D64 = ~S0_64; SCC = D != 0."""
    r = ~np.uint64(s0)
    return r, _nz(r)


@njit(cache=True)
def _wqm(x, groups):
    r = ZERO
    for i in range(groups):
        sh = np.uint64(4 * i)
        if (x >> sh) & np.uint64(15) != ZERO:
            r |= np.uint64(15) << sh
    return r


@njit(cache=True)
def _quadmask(x, groups):
    r = ZERO
    for i in range(groups):
        if (x >> np.uint64(4 * i)) & np.uint64(15) != ZERO:
            r |= ONE << np.uint64(i)
    return r


@njit(cache=True)
def s_wqm_b32(s0, s1, d, scc):
    """Whole quad mode: every 4-bit group of S0 with any bit set becomes 0xF; SCC = D != 0."""
    r = _wqm(np.uint64(s0) & M32, 8)
    return r, _nz(r)


@njit(cache=True)
def s_wqm_b64(s0, s1, d, scc):
    """Whole quad mode on 64 bits (16 groups); SCC = D != 0."""
    r = _wqm(np.uint64(s0), 16)
    return r, _nz(r)


@njit(cache=True)
def s_quadmask_b32(s0, s1, d, scc):
    """D bit i = any bit of S0[4i+3:4i] set, i = 0..7; SCC = D != 0."""
    r = _quadmask(np.uint64(s0) & M32, 8)
    return r, _nz(r)


@njit(cache=True)
def s_quadmask_b64(s0, s1, d, scc):
    """D bit i = any bit of S0[4i+3:4i] set, i = 0..15; SCC = D != 0."""
    r = _quadmask(np.uint64(s0), 16)
    return r, _nz(r)


@njit(cache=True)
def s_brev_b32(s0, s1, d, scc):
    """D = S0 bit-reversed. SCC unchanged."""
    return brev32(s0), _scc(scc)


@njit(cache=True)
def s_brev_b64(s0, s1, d, scc):
    """D64 = S0_64 bit-reversed. SCC unchanged."""
    return brev64(s0), _scc(scc)


@njit(cache=True)
def s_bcnt0_i32_b32(s0, s1, d, scc):
    """D = number of zero bits in S0[31:0]; SCC = D != 0."""
    r = np.uint64(32) - popcount64(np.uint64(s0) & M32)
    return r, _nz(r)


@njit(cache=True)
def s_bcnt0_i32_b64(s0, s1, d, scc):
    """D = number of zero bits in S0_64; SCC = D != 0."""
    r = np.uint64(64) - popcount64(s0)
    return r, _nz(r)


@njit(cache=True)
def s_bcnt1_i32_b32(s0, s1, d, scc):
    """D = number of one bits in S0[31:0]; SCC = D != 0."""
    r = popcount64(np.uint64(s0) & M32)
    return r, _nz(r)


@njit(cache=True)
def s_bcnt1_i32_b64(s0, s1, d, scc):
    """D = number of one bits in S0_64; SCC = D != 0."""
    r = popcount64(s0)
    return r, _nz(r)


@njit(cache=True)
def s_ff0_i32_b32(s0, s1, d, scc):
    """D = index of the lowest zero bit of S0[31:0], or -1. SCC unchanged."""
    x = ~np.uint64(s0) & M32
    return (M32 if x == ZERO else ctz64(x)), _scc(scc)


@njit(cache=True)
def s_ff0_i32_b64(s0, s1, d, scc):
    """D = index of the lowest zero bit of S0_64, or -1. SCC unchanged."""
    x = ~np.uint64(s0)
    return (M32 if x == ZERO else ctz64(x)), _scc(scc)


@njit(cache=True)
def s_ff1_i32_b32(s0, s1, d, scc):
    """D = index of the lowest one bit of S0[31:0], or -1. SCC unchanged."""
    x = np.uint64(s0) & M32
    return (M32 if x == ZERO else ctz64(x)), _scc(scc)


@njit(cache=True)
def s_ff1_i32_b64(s0, s1, d, scc):
    """D = index of the lowest one bit of S0_64, or -1. SCC unchanged."""
    x = np.uint64(s0)
    return (M32 if x == ZERO else ctz64(x)), _scc(scc)


@njit(cache=True)
def s_flbit_i32_b32(s0, s1, d, scc):
    """D = leading zeros of S0[31:0] (31 - index of the highest one), or -1. SCC unchanged."""
    x = np.uint64(s0) & M32
    return (M32 if x == ZERO else clz64(x) - np.uint64(32)), _scc(scc)


@njit(cache=True)
def s_flbit_i32_b64(s0, s1, d, scc):
    """D = leading zeros of S0_64, or -1. SCC unchanged."""
    x = np.uint64(s0)
    return (M32 if x == ZERO else clz64(x)), _scc(scc)


@njit(cache=True)
def s_flbit_i32(s0, s1, d, scc):
    """D = leading bits equal to the sign of S0[31:0] (31 - index of the highest bit that
    differs from the sign), or -1 for 0 and -1. SCC unchanged."""
    x = np.uint64(s0) & M32
    if x & SIGN32 != ZERO:
        x = ~x & M32
    return (M32 if x == ZERO else clz64(x) - np.uint64(32)), _scc(scc)


@njit(cache=True)
def s_flbit_i32_i64(s0, s1, d, scc):
    """As s_flbit_i32 on the 64-bit S0 (CLRX's ``1U << i`` there is read as 64-bit).
    SCC unchanged."""
    x = np.uint64(s0)
    if x & SIGN64 != ZERO:
        x = ~x
    return (M32 if x == ZERO else clz64(x)), _scc(scc)


@njit(cache=True)
def s_sext_i32_i8(s0, s1, d, scc):
    """D = sign-extended S0[7:0]. SCC unchanged."""
    x = np.uint64(s0) & np.uint64(0xFF)
    if x >= np.uint64(0x80):
        x |= np.uint64(0xFFFFFF00)
    return x, _scc(scc)


@njit(cache=True)
def s_sext_i32_i16(s0, s1, d, scc):
    """D = sign-extended S0[15:0]. SCC unchanged."""
    return _simm16(s0), _scc(scc)


@njit(cache=True)
def s_bitset0_b32(s0, s1, d, scc):
    """D = D & ~(1 << (S0 & 31)). SCC unchanged."""
    return np.uint64(d) & ~(ONE << (np.uint64(s0) & np.uint64(31))) & M32, _scc(scc)


@njit(cache=True)
def s_bitset0_b64(s0, s1, d, scc):
    """D64 = D64 & ~(1 << (S0 & 63)). SCC unchanged."""
    return np.uint64(d) & ~(ONE << (np.uint64(s0) & np.uint64(63))), _scc(scc)


@njit(cache=True)
def s_bitset1_b32(s0, s1, d, scc):
    """D = D | (1 << (S0 & 31)). SCC unchanged."""
    return (np.uint64(d) | (ONE << (np.uint64(s0) & np.uint64(31)))) & M32, _scc(scc)


@njit(cache=True)
def s_bitset1_b64(s0, s1, d, scc):
    """D64 = D64 | (1 << (S0 & 63)). SCC unchanged."""
    return np.uint64(d) | (ONE << (np.uint64(s0) & np.uint64(63))), _scc(scc)


@njit(cache=True)
def s_abs_i32(s0, s1, d, scc):
    """D = |(int32)S0| (abs(0x80000000) = 0x80000000); SCC = D != 0."""
    x = np.uint64(s0) & M32
    r = ((~x + ONE) & M32) if x & SIGN32 != ZERO else x
    return r, _nz(r)


# ---------------------------------------------------------------------------------------
# SOP2
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def s_add_u32(s0, s1, d, scc):
    """D = S0 + S1; SCC = carry out."""
    t = (np.uint64(s0) & M32) + (np.uint64(s1) & M32)
    return t & M32, t >> np.uint64(32)


@njit(cache=True)
def s_sub_u32(s0, s1, d, scc):
    """D = S0 - S1; SCC = borrow (S1 > S0 unsigned)."""
    a = np.uint64(s0) & M32
    b = np.uint64(s1) & M32
    return (a - b) & M32, _b(b > a)


@njit(cache=True)
def s_addc_u32(s0, s1, d, scc):
    """D = S0 + S1 + SCC; SCC = carry out."""
    t = (np.uint64(s0) & M32) + (np.uint64(s1) & M32) + _scc(scc)
    return t & M32, t >> np.uint64(32)


@njit(cache=True)
def s_subb_u32(s0, s1, d, scc):
    """D = S0 - S1 - SCC; SCC = borrow (S1 + SCC > S0 unsigned)."""
    a = np.uint64(s0) & M32
    b = (np.uint64(s1) & M32) + _scc(scc)
    return (a - b) & M32, _b(b > a)


@njit(cache=True)
def s_add_i32(s0, s1, d, scc):
    """D = S0 + S1; SCC = signed 32-bit overflow."""
    a = np.uint64(s0) & M32
    b = np.uint64(s1) & M32
    r = (a + b) & M32
    # Overflow iff both operands share a sign that the result does not.
    ovf = (~(a ^ b) & (a ^ r) & SIGN32) != ZERO
    return r, _b(ovf)


@njit(cache=True)
def s_sub_i32(s0, s1, d, scc):
    """D = S0 - S1; SCC = signed 32-bit overflow."""
    a = np.uint64(s0) & M32
    b = np.uint64(s1) & M32
    r = (a - b) & M32
    # Overflow iff the operands differ in sign and the result's sign differs from S0's.
    ovf = ((a ^ b) & (a ^ r) & SIGN32) != ZERO
    return r, _b(ovf)


@njit(cache=True)
def s_min_i32(s0, s1, d, scc):
    """D = min((int32)S0, (int32)S1); SCC = S0 < S1 (S0 chosen)."""
    a = sx32(s0)
    b = sx32(s1)
    return (np.uint64(s0) if a < b else np.uint64(s1)) & M32, _b(a < b)


@njit(cache=True)
def s_min_u32(s0, s1, d, scc):
    """D = min(S0, S1) unsigned; SCC = S0 < S1."""
    a = np.uint64(s0) & M32
    b = np.uint64(s1) & M32
    return (a if a < b else b), _b(a < b)


@njit(cache=True)
def s_max_i32(s0, s1, d, scc):
    """D = max((int32)S0, (int32)S1); SCC = S0 > S1 (S0 chosen)."""
    a = sx32(s0)
    b = sx32(s1)
    return (np.uint64(s0) if a > b else np.uint64(s1)) & M32, _b(a > b)


@njit(cache=True)
def s_max_u32(s0, s1, d, scc):
    """D = max(S0, S1) unsigned; SCC = S0 > S1."""
    a = np.uint64(s0) & M32
    b = np.uint64(s1) & M32
    return (a if a > b else b), _b(a > b)


@njit(cache=True)
def s_cselect_b32(s0, s1, d, scc):
    """D = SCC ? S0 : S1. SCC unchanged."""
    c = _scc(scc)
    return (np.uint64(s0) if c != ZERO else np.uint64(s1)) & M32, c


@njit(cache=True)
def s_cselect_b64(s0, s1, d, scc):
    """D64 = SCC ? S0_64 : S1_64. SCC unchanged."""
    c = _scc(scc)
    return np.uint64(s0) if c != ZERO else np.uint64(s1), c
@njit(cache=True)
def s_and_b32(s0, s1, d, scc):
    """D = S0 & S1; SCC = D != 0."""
    a = np.uint64(s0)
    b = np.uint64(s1)
    r = (a & b) & M32
    return r, _nz(r)


@njit(cache=True)
def s_and_b64(s0, s1, d, scc):
    """D64 = S0 & S1; SCC = D != 0."""
    a = np.uint64(s0)
    b = np.uint64(s1)
    r = (a & b)
    return r, _nz(r)


@njit(cache=True)
def s_or_b32(s0, s1, d, scc):
    """D = S0 | S1; SCC = D != 0."""
    a = np.uint64(s0)
    b = np.uint64(s1)
    r = (a | b) & M32
    return r, _nz(r)


@njit(cache=True)
def s_or_b64(s0, s1, d, scc):
    """D64 = S0 | S1; SCC = D != 0."""
    a = np.uint64(s0)
    b = np.uint64(s1)
    r = (a | b)
    return r, _nz(r)


@njit(cache=True)
def s_xor_b32(s0, s1, d, scc):
    """D = S0 ^ S1; SCC = D != 0."""
    a = np.uint64(s0)
    b = np.uint64(s1)
    r = (a ^ b) & M32
    return r, _nz(r)


@njit(cache=True)
def s_xor_b64(s0, s1, d, scc):
    """D64 = S0 ^ S1; SCC = D != 0."""
    a = np.uint64(s0)
    b = np.uint64(s1)
    r = (a ^ b)
    return r, _nz(r)


@njit(cache=True)
def s_andn2_b32(s0, s1, d, scc):
    """D = S0 & ~S1; SCC = D != 0."""
    a = np.uint64(s0)
    b = np.uint64(s1)
    r = (a & ~b) & M32
    return r, _nz(r)


@njit(cache=True)
def s_andn2_b64(s0, s1, d, scc):
    """D64 = S0 & ~S1; SCC = D != 0."""
    a = np.uint64(s0)
    b = np.uint64(s1)
    r = (a & ~b)
    return r, _nz(r)


@njit(cache=True)
def s_orn2_b32(s0, s1, d, scc):
    """D = S0 | ~S1; SCC = D != 0."""
    a = np.uint64(s0)
    b = np.uint64(s1)
    r = (a | ~b) & M32
    return r, _nz(r)


@njit(cache=True)
def s_orn2_b64(s0, s1, d, scc):
    """D64 = S0 | ~S1; SCC = D != 0."""
    a = np.uint64(s0)
    b = np.uint64(s1)
    r = (a | ~b)
    return r, _nz(r)


@njit(cache=True)
def s_nand_b32(s0, s1, d, scc):
    """D = ~(S0 & S1); SCC = D != 0."""
    a = np.uint64(s0)
    b = np.uint64(s1)
    r = (~(a & b)) & M32
    return r, _nz(r)


@njit(cache=True)
def s_nand_b64(s0, s1, d, scc):
    """D64 = ~(S0 & S1); SCC = D != 0."""
    a = np.uint64(s0)
    b = np.uint64(s1)
    r = (~(a & b))
    return r, _nz(r)


@njit(cache=True)
def s_nor_b32(s0, s1, d, scc):
    """D = ~(S0 | S1); SCC = D != 0."""
    a = np.uint64(s0)
    b = np.uint64(s1)
    r = (~(a | b)) & M32
    return r, _nz(r)


@njit(cache=True)
def s_nor_b64(s0, s1, d, scc):
    """D64 = ~(S0 | S1); SCC = D != 0."""
    a = np.uint64(s0)
    b = np.uint64(s1)
    r = (~(a | b))
    return r, _nz(r)


@njit(cache=True)
def s_xnor_b32(s0, s1, d, scc):
    """D = ~(S0 ^ S1); SCC = D != 0."""
    a = np.uint64(s0)
    b = np.uint64(s1)
    r = (~(a ^ b)) & M32
    return r, _nz(r)


@njit(cache=True)
def s_xnor_b64(s0, s1, d, scc):
    """D64 = ~(S0 ^ S1); SCC = D != 0."""
    a = np.uint64(s0)
    b = np.uint64(s1)
    r = (~(a ^ b))
    return r, _nz(r)


@njit(cache=True)
def s_lshl_b32(s0, s1, d, scc):
    """D = S0 << (S1 & 31); SCC = D != 0."""
    r = ((np.uint64(s0) & M32) << (np.uint64(s1) & np.uint64(31))) & M32
    return r, _nz(r)


@njit(cache=True)
def s_lshl_b64(s0, s1, d, scc):
    """D64 = S0_64 << (S1 & 63); SCC = D != 0."""
    r = np.uint64(s0) << (np.uint64(s1) & np.uint64(63))
    return r, _nz(r)


@njit(cache=True)
def s_lshr_b32(s0, s1, d, scc):
    """D = S0 >> (S1 & 31), logical; SCC = D != 0."""
    r = (np.uint64(s0) & M32) >> (np.uint64(s1) & np.uint64(31))
    return r, _nz(r)


@njit(cache=True)
def s_lshr_b64(s0, s1, d, scc):
    """D64 = S0_64 >> (S1 & 63), logical; SCC = D != 0."""
    r = np.uint64(s0) >> (np.uint64(s1) & np.uint64(63))
    return r, _nz(r)


@njit(cache=True)
def s_ashr_i32(s0, s1, d, scc):
    """D = (int32)S0 >> (S1 & 31), arithmetic; SCC = D != 0."""
    r = np.uint64(sx32(s0) >> np.int64(np.uint64(s1) & np.uint64(31))) & M32
    return r, _nz(r)


@njit(cache=True)
def s_ashr_i64(s0, s1, d, scc):
    """D64 = (int64)S0_64 >> (S1 & 63), arithmetic; SCC = D != 0."""
    r = np.uint64(np.int64(np.uint64(s0)) >> np.int64(np.uint64(s1) & np.uint64(63)))
    return r, _nz(r)


@njit(cache=True)
def s_bfm_b32(s0, s1, d, scc):
    """D = ((1 << (S0 & 31)) - 1) << (S1 & 31). SCC unchanged."""
    m = (ONE << (np.uint64(s0) & np.uint64(31))) - ONE
    return (m << (np.uint64(s1) & np.uint64(31))) & M32, _scc(scc)


@njit(cache=True)
def s_bfm_b64(s0, s1, d, scc):
    """D64 = ((1 << (S0 & 63)) - 1) << (S1 & 63). SCC unchanged."""
    m = (ONE << (np.uint64(s0) & np.uint64(63))) - ONE
    return m << (np.uint64(s1) & np.uint64(63)), _scc(scc)


@njit(cache=True)
def s_mul_i32(s0, s1, d, scc):
    """D = (S0 * S1)[31:0] (signed and unsigned agree on the low half). SCC unchanged."""
    return ((np.uint64(s0) & M32) * (np.uint64(s1) & M32)) & M32, _scc(scc)


@njit(cache=True)
def _bfe(x, off, w, bits, signed):
    """Bitfield extract of a `bits`-wide x (x already masked, zero-extended).

    width 0 -> 0; if offset + width < bits the field is (x >> offset) masked to width and,
    when signed, sign-extended from its top bit; otherwise the plain (arithmetic when
    signed) shift x >> offset."""
    if w == ZERO:
        return ZERO
    full = ONE << np.uint64(bits - 1)
    if signed and (x & full) != ZERO and bits == 32:
        xs = x | np.uint64(0xFFFFFFFF00000000)  # sign-extend to 64 for the long shift
    else:
        xs = x
    if off + w < np.uint64(bits):
        f = (x >> off) & ((ONE << w) - ONE)
        if signed and (f >> (w - ONE)) & ONE != ZERO:
            f |= ~((ONE << w) - ONE)
    elif signed:
        f = np.uint64(np.int64(xs) >> np.int64(off))
    else:
        f = x >> off
    if bits == 32:
        f &= M32
    return f


@njit(cache=True)
def s_bfe_u32(s0, s1, d, scc):
    """Unsigned bitfield extract: offset = S1[4:0], width = S1[22:16]; SCC = D != 0."""
    s1 = np.uint64(s1)
    r = _bfe(np.uint64(s0) & M32, s1 & np.uint64(31), (s1 >> np.uint64(16)) & np.uint64(0x7F), 32, False)
    return r, _nz(r)


@njit(cache=True)
def s_bfe_i32(s0, s1, d, scc):
    """Signed bitfield extract: offset = S1[4:0], width = S1[22:16]; SCC = D != 0."""
    s1 = np.uint64(s1)
    r = _bfe(np.uint64(s0) & M32, s1 & np.uint64(31), (s1 >> np.uint64(16)) & np.uint64(0x7F), 32, True)
    return r, _nz(r)


@njit(cache=True)
def s_bfe_u64(s0, s1, d, scc):
    """Unsigned 64-bit bitfield extract: offset = S1[5:0], width = S1[22:16]; SCC = D != 0."""
    s1 = np.uint64(s1)
    r = _bfe(np.uint64(s0), s1 & np.uint64(63), (s1 >> np.uint64(16)) & np.uint64(0x7F), 64, False)
    return r, _nz(r)


@njit(cache=True)
def s_bfe_i64(s0, s1, d, scc):
    """Signed 64-bit bitfield extract: offset = S1[5:0], width = S1[22:16]; SCC = D != 0."""
    s1 = np.uint64(s1)
    r = _bfe(np.uint64(s0), s1 & np.uint64(63), (s1 >> np.uint64(16)) & np.uint64(0x7F), 64, True)
    return r, _nz(r)


@njit(cache=True)
def s_absdiff_i32(s0, s1, d, scc):
    """D = |(int32)(S0 - S1)|, the difference wrapped to 32 bits first (AMD manual:
    D.i = S0.i - S1.i; if D.i < 0 then D.i = -D.i); SCC = D != 0."""
    t = ((np.uint64(s0) & M32) - (np.uint64(s1) & M32)) & M32
    r = ((~t + ONE) & M32) if t & SIGN32 != ZERO else t
    return r, _nz(r)


# ---------------------------------------------------------------------------------------
# SOPC: return (0, new SCC)
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def s_cmp_eq_i32(s0, s1, d, scc):
    """SCC = S0 == S1 as i32."""
    return ZERO, _b((sx32(s0)) == (sx32(s1)))


@njit(cache=True)
def s_cmp_lg_i32(s0, s1, d, scc):
    """SCC = S0 != S1 as i32."""
    return ZERO, _b((sx32(s0)) != (sx32(s1)))


@njit(cache=True)
def s_cmp_gt_i32(s0, s1, d, scc):
    """SCC = S0 > S1 as i32."""
    return ZERO, _b((sx32(s0)) > (sx32(s1)))


@njit(cache=True)
def s_cmp_ge_i32(s0, s1, d, scc):
    """SCC = S0 >= S1 as i32."""
    return ZERO, _b((sx32(s0)) >= (sx32(s1)))


@njit(cache=True)
def s_cmp_lt_i32(s0, s1, d, scc):
    """SCC = S0 < S1 as i32."""
    return ZERO, _b((sx32(s0)) < (sx32(s1)))


@njit(cache=True)
def s_cmp_le_i32(s0, s1, d, scc):
    """SCC = S0 <= S1 as i32."""
    return ZERO, _b((sx32(s0)) <= (sx32(s1)))


@njit(cache=True)
def s_cmp_eq_u32(s0, s1, d, scc):
    """SCC = S0 == S1 as u32."""
    return ZERO, _b((np.uint64(s0) & M32) == (np.uint64(s1) & M32))


@njit(cache=True)
def s_cmp_lg_u32(s0, s1, d, scc):
    """SCC = S0 != S1 as u32."""
    return ZERO, _b((np.uint64(s0) & M32) != (np.uint64(s1) & M32))


@njit(cache=True)
def s_cmp_gt_u32(s0, s1, d, scc):
    """SCC = S0 > S1 as u32."""
    return ZERO, _b((np.uint64(s0) & M32) > (np.uint64(s1) & M32))


@njit(cache=True)
def s_cmp_ge_u32(s0, s1, d, scc):
    """SCC = S0 >= S1 as u32."""
    return ZERO, _b((np.uint64(s0) & M32) >= (np.uint64(s1) & M32))


@njit(cache=True)
def s_cmp_lt_u32(s0, s1, d, scc):
    """SCC = S0 < S1 as u32."""
    return ZERO, _b((np.uint64(s0) & M32) < (np.uint64(s1) & M32))


@njit(cache=True)
def s_cmp_le_u32(s0, s1, d, scc):
    """SCC = S0 <= S1 as u32."""
    return ZERO, _b((np.uint64(s0) & M32) <= (np.uint64(s1) & M32))


@njit(cache=True)
def s_bitcmp0_b32(s0, s1, d, scc):
    """SCC = bit (S1 & 31) of S0 is 0."""
    bit = (np.uint64(s0) >> (np.uint64(s1) & np.uint64(31))) & ONE
    return ZERO, _b(bit == ZERO)


@njit(cache=True)
def s_bitcmp1_b32(s0, s1, d, scc):
    """SCC = bit (S1 & 31) of S0 is 1."""
    bit = (np.uint64(s0) >> (np.uint64(s1) & np.uint64(31))) & ONE
    return ZERO, _b(bit == ONE)


@njit(cache=True)
def s_bitcmp0_b64(s0, s1, d, scc):
    """SCC = bit (S1 & 63) of S0 is 0."""
    bit = (np.uint64(s0) >> (np.uint64(s1) & np.uint64(63))) & ONE
    return ZERO, _b(bit == ZERO)


@njit(cache=True)
def s_bitcmp1_b64(s0, s1, d, scc):
    """SCC = bit (S1 & 63) of S0 is 1."""
    bit = (np.uint64(s0) >> (np.uint64(s1) & np.uint64(63))) & ONE
    return ZERO, _b(bit == ONE)


# ---------------------------------------------------------------------------------------
# SOPK: s0 = current SDST value, s1 = raw 16-bit immediate
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def s_cmpk_eq_i32(s0, s1, d, scc):
    """SCC = SDST == IMM16 as i32 (immediate sign-extended)."""
    return ZERO, _b((sx32(s0)) == (sx32(_simm16(s1))))


@njit(cache=True)
def s_cmpk_lg_i32(s0, s1, d, scc):
    """SCC = SDST != IMM16 as i32 (immediate sign-extended)."""
    return ZERO, _b((sx32(s0)) != (sx32(_simm16(s1))))


@njit(cache=True)
def s_cmpk_gt_i32(s0, s1, d, scc):
    """SCC = SDST > IMM16 as i32 (immediate sign-extended)."""
    return ZERO, _b((sx32(s0)) > (sx32(_simm16(s1))))


@njit(cache=True)
def s_cmpk_ge_i32(s0, s1, d, scc):
    """SCC = SDST >= IMM16 as i32 (immediate sign-extended)."""
    return ZERO, _b((sx32(s0)) >= (sx32(_simm16(s1))))


@njit(cache=True)
def s_cmpk_lt_i32(s0, s1, d, scc):
    """SCC = SDST < IMM16 as i32 (immediate sign-extended)."""
    return ZERO, _b((sx32(s0)) < (sx32(_simm16(s1))))


@njit(cache=True)
def s_cmpk_le_i32(s0, s1, d, scc):
    """SCC = SDST <= IMM16 as i32 (immediate sign-extended)."""
    return ZERO, _b((sx32(s0)) <= (sx32(_simm16(s1))))


@njit(cache=True)
def s_cmpk_eq_u32(s0, s1, d, scc):
    """SCC = SDST == IMM16 as u32 (immediate zero-extended)."""
    return ZERO, _b((np.uint64(s0) & M32) == (np.uint64(s1) & M16))


@njit(cache=True)
def s_cmpk_lg_u32(s0, s1, d, scc):
    """SCC = SDST != IMM16 as u32 (immediate zero-extended)."""
    return ZERO, _b((np.uint64(s0) & M32) != (np.uint64(s1) & M16))


@njit(cache=True)
def s_cmpk_gt_u32(s0, s1, d, scc):
    """SCC = SDST > IMM16 as u32 (immediate zero-extended)."""
    return ZERO, _b((np.uint64(s0) & M32) > (np.uint64(s1) & M16))


@njit(cache=True)
def s_cmpk_ge_u32(s0, s1, d, scc):
    """SCC = SDST >= IMM16 as u32 (immediate zero-extended)."""
    return ZERO, _b((np.uint64(s0) & M32) >= (np.uint64(s1) & M16))


@njit(cache=True)
def s_cmpk_lt_u32(s0, s1, d, scc):
    """SCC = SDST < IMM16 as u32 (immediate zero-extended)."""
    return ZERO, _b((np.uint64(s0) & M32) < (np.uint64(s1) & M16))


@njit(cache=True)
def s_cmpk_le_u32(s0, s1, d, scc):
    """SCC = SDST <= IMM16 as u32 (immediate zero-extended)."""
    return ZERO, _b((np.uint64(s0) & M32) <= (np.uint64(s1) & M16))


@njit(cache=True)
def s_movk_i32(s0, s1, d, scc):
    """D = sign-extended IMM16. SCC unchanged."""
    return _simm16(s1), _scc(scc)


@njit(cache=True)
def s_cmovk_i32(s0, s1, d, scc):
    """D = SCC ? sign-extended IMM16 : D. SCC unchanged."""
    c = _scc(scc)
    return (_simm16(s1) if c != ZERO else np.uint64(d) & M32), c


@njit(cache=True)
def s_addk_i32(s0, s1, d, scc):
    """D = D + sign-extended IMM16; SCC = signed 32-bit overflow (s0 = D)."""
    return s_add_i32(s0, _simm16(s1), d, scc)


@njit(cache=True)
def s_mulk_i32(s0, s1, d, scc):
    """D = (D * sign-extended IMM16)[31:0] (s0 = D). SCC unchanged."""
    return ((np.uint64(s0) & M32) * _simm16(s1)) & M32, _scc(scc)


# ---------------------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------------------
_SAVEEXEC = ("and", "or", "xor", "andn2", "orn2", "nand", "nor", "xnor")

ENGINE_SALU_OPS = tuple(
    (f"s_{op}_saveexec_b64", "reads and writes EXEC") for op in _SAVEEXEC
) + (
    ("s_getpc_b64", "reads PC"),
    ("s_setpc_b64", "writes PC"),
    ("s_swappc_b64", "reads and writes PC"),
    ("s_rfe_b64", "return from exception: writes PC"),
    ("s_movrels_b32", "source SGPR index relative to M0"),
    ("s_movrels_b64", "source SGPR index relative to M0"),
    ("s_movreld_b32", "destination SGPR index relative to M0"),
    ("s_movreld_b64", "destination SGPR index relative to M0"),
    ("s_cbranch_join", "control stack pop: writes EXEC and PC"),
    ("s_cbranch_g_fork", "control stack push: writes EXEC, PC and SGPRs"),
    ("s_cbranch_i_fork", "control stack push: writes EXEC, PC and SGPRs"),
    ("s_getreg_b32", "reads a hardware register"),
    ("s_setreg_b32", "writes a hardware register"),
    ("s_setreg_imm32_b32", "writes a hardware register"),
    ("s_mov_regrd_b32", "undocumented register-read move (not in LLVM's gfx7 syntax list)"),
    ("s_setvskip", "sets the wave's VSKIP state"),
)
"""SOP1/SOP2/SOPK/SOPC mnemonics the engine implements itself, with the reason."""

SOP1_OPS = (
    "s_mov_b32", "s_mov_b64", "s_cmov_b32", "s_cmov_b64", "s_not_b32", "s_not_b64",
    "s_wqm_b32", "s_wqm_b64", "s_brev_b32", "s_brev_b64", "s_bcnt0_i32_b32",
    "s_bcnt0_i32_b64", "s_bcnt1_i32_b32", "s_bcnt1_i32_b64", "s_ff0_i32_b32",
    "s_ff0_i32_b64", "s_ff1_i32_b32", "s_ff1_i32_b64", "s_flbit_i32_b32", "s_flbit_i32_b64",
    "s_flbit_i32", "s_flbit_i32_i64", "s_sext_i32_i8", "s_sext_i32_i16", "s_bitset0_b32",
    "s_bitset0_b64", "s_bitset1_b32", "s_bitset1_b64", "s_quadmask_b32", "s_quadmask_b64",
    "s_abs_i32", "s_mov_fed_b32",
)
SOP2_OPS = (
    "s_add_u32", "s_sub_u32", "s_add_i32", "s_sub_i32", "s_addc_u32", "s_subb_u32",
    "s_min_i32", "s_min_u32", "s_max_i32", "s_max_u32", "s_cselect_b32", "s_cselect_b64",
) + tuple(f"s_{op}_b{w}" for op in ("and", "or", "xor", "andn2", "orn2", "nand", "nor", "xnor")
          for w in (32, 64)) + (
    "s_lshl_b32", "s_lshl_b64", "s_lshr_b32", "s_lshr_b64", "s_ashr_i32", "s_ashr_i64",
    "s_bfm_b32", "s_bfm_b64", "s_mul_i32", "s_bfe_u32", "s_bfe_i32", "s_bfe_u64",
    "s_bfe_i64", "s_absdiff_i32",
)
SOPC_OPS = tuple(f"s_cmp_{c}_{t}" for t in ("i32", "u32")
                 for c in ("eq", "lg", "gt", "ge", "lt", "le")) + (
    "s_bitcmp0_b32", "s_bitcmp1_b32", "s_bitcmp0_b64", "s_bitcmp1_b64",
)
SOPK_OPS = ("s_movk_i32", "s_cmovk_i32", "s_addk_i32", "s_mulk_i32") + tuple(
    f"s_cmpk_{c}_{t}" for t in ("i32", "u32") for c in ("eq", "lg", "gt", "ge", "lt", "le"))

SEMANTICS = {name: globals()[name] for name in SOP1_OPS + SOP2_OPS + SOPC_OPS + SOPK_OPS}
"""Mnemonic -> numba function ``(s0, s1, d, scc) -> (result, scc_out)``."""

NOT_IMPLEMENTED = []
"""SALU mnemonics assigned here with no semantics yet (none)."""
