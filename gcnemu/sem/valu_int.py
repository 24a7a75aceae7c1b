"""Integer and bit VALU semantics of gfx7 (GCN 1.1), one pure numba function per mnemonic.

Every function has the engine's uniform per-lane signature::

    v_xxx(s0, s1, s2, cin, lane, mode) -> (result, flag)

* ``s0, s1, s2``: ``np.uint64`` source bit patterns. 32-bit operands sit in the low 32
  bits; 64-bit operands (``v_lshl_b64`` src0, ``v_mad_u64_u32`` src2, ``v_cmp_*_[iu]64``)
  use all 64 bits. Unused sources are 0. Functions mask 32-bit operands themselves, so
  stray high bits are harmless.
* ``cin``: ``np.uint64`` 0/1, this lane's bit of VCC or of the VOP3 SGPR pair: carry-in of
  ``v_addc_u32``, borrow-in of ``v_subb_u32``/``v_subbrev_u32``, select of ``v_cndmask_b32``.
* ``lane``: int64 lane id 0..63 (used by ``v_mbcnt_*``).
* ``mode``: int64 MODE register (no integer op reads it).
* result: ``np.uint64``; 32-bit results are zero-extended, 64-bit results use all 64 bits.
* flag: ``np.uint64`` 0/1: carry/borrow-out of the add/sub family, the compare bit of
  ``v_cmp_*``/``v_cmpx_*`` (which return ``(0, bit)``), the carry-out of
  ``v_mad_u64_u32``; 0 for every other op.

Exception: ``v_mqsad_u32_u8`` has a 128-bit src2 and a 128-bit result, so its signature is
``v_mqsad_u32_u8(s0, s1, s2_lo, s2_hi, lane, mode) -> (lo64, hi64)``.

Semantics follow the CLRX pseudo-code (shared/reference/clrx-isa-docs/GcnInstrsVop*.md).
Deviations, where that pseudo-code is loose, are stated at the function. VOP3 integer
CLAMP and input modifiers are not applied here (gfx7 VOP3b has no clamp bit; abs/neg are
float modifiers the engine applies before the call if ever used).

Ops the engine implements itself (they touch other lanes or registers) are listed in
``ENGINE_VALU_OPS``; ``SEMANTICS`` maps every other mnemonic to its function.
"""
import numpy as np
from gcnemu.exec.jit import njit  # project-wide numba options (cache, no fastmath)

M32 = np.uint64(0xFFFFFFFF)
M24 = np.uint64(0xFFFFFF)
M16 = np.uint64(0xFFFF)
M8 = np.uint64(0xFF)
ZERO = np.uint64(0)
ONE = np.uint64(1)
ALL64 = np.uint64(0xFFFFFFFFFFFFFFFF)

# Why helpers use only uint64 constants: numba unifies uint64 with int64 to float64,
# which would silently lose bits.


# ---------------------------------------------------------------------------------------
# bit helpers (shared with salu.py)
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def popcount64(x):
    """Number of set bits of a uint64 (SWAR, branch-free)."""
    x = np.uint64(x)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@njit(cache=True)
def brev64(x):
    """Reverse the 64 bits of a uint64."""
    x = np.uint64(x)
    x = ((x >> np.uint64(1)) & np.uint64(0x5555555555555555)) | ((x & np.uint64(0x5555555555555555)) << np.uint64(1))
    x = ((x >> np.uint64(2)) & np.uint64(0x3333333333333333)) | ((x & np.uint64(0x3333333333333333)) << np.uint64(2))
    x = ((x >> np.uint64(4)) & np.uint64(0x0F0F0F0F0F0F0F0F)) | ((x & np.uint64(0x0F0F0F0F0F0F0F0F)) << np.uint64(4))
    x = ((x >> np.uint64(8)) & np.uint64(0x00FF00FF00FF00FF)) | ((x & np.uint64(0x00FF00FF00FF00FF)) << np.uint64(8))
    x = ((x >> np.uint64(16)) & np.uint64(0x0000FFFF0000FFFF)) | ((x & np.uint64(0x0000FFFF0000FFFF)) << np.uint64(16))
    return (x >> np.uint64(32)) | (x << np.uint64(32))


@njit(cache=True)
def brev32(x):
    """Reverse the low 32 bits of x; result zero-extended."""
    return brev64(np.uint64(x) & M32) >> np.uint64(32)


@njit(cache=True)
def clz64(x):
    """Leading zero count of a uint64; 64 for x == 0."""
    x = np.uint64(x)
    if x == ZERO:
        return np.uint64(64)
    n = np.uint64(0)
    if x <= np.uint64(0x00000000FFFFFFFF):
        n += np.uint64(32)
        x <<= np.uint64(32)
    if x <= np.uint64(0x0000FFFFFFFFFFFF):
        n += np.uint64(16)
        x <<= np.uint64(16)
    if x <= np.uint64(0x00FFFFFFFFFFFFFF):
        n += np.uint64(8)
        x <<= np.uint64(8)
    if x <= np.uint64(0x0FFFFFFFFFFFFFFF):
        n += np.uint64(4)
        x <<= np.uint64(4)
    if x <= np.uint64(0x3FFFFFFFFFFFFFFF):
        n += np.uint64(2)
        x <<= np.uint64(2)
    if x <= np.uint64(0x7FFFFFFFFFFFFFFF):
        n += np.uint64(1)
    return n


@njit(cache=True)
def ctz64(x):
    """Trailing zero count of a uint64; 64 for x == 0."""
    x = np.uint64(x)
    if x == ZERO:
        return np.uint64(64)
    # x & -x isolates the lowest set bit; its position is 63 - clz.
    low = x & (~x + ONE)
    return np.uint64(63) - clz64(low)


@njit(cache=True)
def sx32(x):
    """Low 32 bits of x as a signed int64."""
    v = np.int64(np.uint64(x) & M32)
    if v >= np.int64(0x80000000):
        v -= np.int64(0x100000000)
    return v


@njit(cache=True)
def sx24(x):
    """Low 24 bits of x as a signed int64 (the *_i24 ops ignore bits 31:24)."""
    v = np.int64(np.uint64(x) & M24)
    if v >= np.int64(0x800000):
        v -= np.int64(0x1000000)
    return v


@njit(cache=True)
def u32(v):
    """Wrap an int64 or uint64 to a zero-extended 32-bit uint64."""
    return np.uint64(v) & M32


_sx32 = sx32


@njit(cache=True)
def _absdiff(a, b):
    return a - b if a >= b else b - a


# ---------------------------------------------------------------------------------------
# add / sub with carry
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def v_add_i32(s0, s1, s2, cin, lane, mode):
    """D = S0 + S1 (32-bit); flag = carry out of bit 31 (written to VCC/SDST)."""
    t = (s0 & M32) + (s1 & M32)
    return t & M32, t >> np.uint64(32)


@njit(cache=True)
def v_sub_i32(s0, s1, s2, cin, lane, mode):
    """D = S0 - S1 (32-bit); flag = borrow (S1 > S0 unsigned)."""
    a = s0 & M32
    b = s1 & M32
    return (a - b) & M32, ONE if b > a else ZERO


@njit(cache=True)
def v_subrev_i32(s0, s1, s2, cin, lane, mode):
    """D = S1 - S0 (32-bit); flag = borrow (S0 > S1 unsigned)."""
    a = s0 & M32
    b = s1 & M32
    return (b - a) & M32, ONE if a > b else ZERO


@njit(cache=True)
def v_addc_u32(s0, s1, s2, cin, lane, mode):
    """D = S0 + S1 + cin (32-bit); flag = carry out."""
    t = (s0 & M32) + (s1 & M32) + (cin & ONE)
    return t & M32, t >> np.uint64(32)


@njit(cache=True)
def v_subb_u32(s0, s1, s2, cin, lane, mode):
    """D = S0 - S1 - cin (32-bit); flag = borrow (S1 + cin > S0)."""
    a = s0 & M32
    b = (s1 & M32) + (cin & ONE)
    return (a - b) & M32, ONE if b > a else ZERO


@njit(cache=True)
def v_subbrev_u32(s0, s1, s2, cin, lane, mode):
    """D = S1 - S0 - cin (32-bit); flag = borrow (S0 + cin > S1)."""
    a = (s0 & M32) + (cin & ONE)
    b = s1 & M32
    return (b - a) & M32, ONE if a > b else ZERO


@njit(cache=True)
def v_cndmask_b32(s0, s1, s2, cin, lane, mode):
    """D = cin ? S1 : S0 (cin = this lane's bit of VCC / the SGPR pair)."""
    return (s1 & M32) if (cin & ONE) != ZERO else (s0 & M32), ZERO


# ---------------------------------------------------------------------------------------
# moves and bitwise logic
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def v_mov_b32(s0, s1, s2, cin, lane, mode):
    """D = S0."""
    return s0 & M32, ZERO


@njit(cache=True)
def v_mov_fed_b32(s0, s1, s2, cin, lane, mode):
    """D = S0. The hardware also injects an EDC double error into the destination VGPR;
    the emulator has no EDC, so this is a plain move."""
    return s0 & M32, ZERO


@njit(cache=True)
def v_not_b32(s0, s1, s2, cin, lane, mode):
    """D = ~S0."""
    return (~s0) & M32, ZERO


@njit(cache=True)
def v_and_b32(s0, s1, s2, cin, lane, mode):
    """D = S0 & S1."""
    return (s0 & s1) & M32, ZERO


@njit(cache=True)
def v_or_b32(s0, s1, s2, cin, lane, mode):
    """D = S0 | S1."""
    return (s0 | s1) & M32, ZERO


@njit(cache=True)
def v_xor_b32(s0, s1, s2, cin, lane, mode):
    """D = S0 ^ S1."""
    return (s0 ^ s1) & M32, ZERO


@njit(cache=True)
def v_bfi_b32(s0, s1, s2, cin, lane, mode):
    """Bitfield insert: D = (S0 & S1) | (~S0 & S2)."""
    return ((s0 & s1) | (~s0 & s2)) & M32, ZERO


@njit(cache=True)
def v_bfm_b32(s0, s1, s2, cin, lane, mode):
    """Bitfield mask: D = ((1 << (S0 & 31)) - 1) << (S1 & 31)."""
    m = (ONE << (s0 & np.uint64(31))) - ONE
    return (m << (s1 & np.uint64(31))) & M32, ZERO


@njit(cache=True)
def v_bfrev_b32(s0, s1, s2, cin, lane, mode):
    """D = S0 with its 32 bits reversed."""
    return brev32(s0), ZERO


@njit(cache=True)
def v_bcnt_u32_b32(s0, s1, s2, cin, lane, mode):
    """D = popcount(S0) + S1 (32-bit wrap)."""
    return (popcount64(s0 & M32) + (s1 & M32)) & M32, ZERO


@njit(cache=True)
def v_mbcnt_lo_u32_b32(s0, s1, s2, cin, lane, mode):
    """D = popcount(S0 & ThreadMask[31:0]) + S1, ThreadMask = lanes below this one."""
    ln = np.int64(lane)
    if ln >= 32:
        mask = M32
    else:
        mask = (ONE << np.uint64(ln)) - ONE
    return (popcount64(s0 & mask) + (s1 & M32)) & M32, ZERO


@njit(cache=True)
def v_mbcnt_hi_u32_b32(s0, s1, s2, cin, lane, mode):
    """D = popcount(S0 & ThreadMask[63:32]) + S1, ThreadMask = lanes below this one."""
    ln = np.int64(lane)
    if ln < 32:
        mask = ZERO
    else:
        mask = (ONE << np.uint64(ln - 32)) - ONE
    return (popcount64(s0 & mask) + (s1 & M32)) & M32, ZERO


@njit(cache=True)
def v_ffbh_u32(s0, s1, s2, cin, lane, mode):
    """D = number of leading zeros of S0 (find first bit from MSB); 0xffffffff if S0 == 0."""
    x = s0 & M32
    if x == ZERO:
        return M32, ZERO
    return clz64(x) - np.uint64(32), ZERO


@njit(cache=True)
def v_ffbh_i32(s0, s1, s2, cin, lane, mode):
    """D = count of bits below the sign bit's run (position from MSB of the first bit that
    differs from the sign); 0xffffffff if S0 is 0 or -1."""
    x = s0 & M32
    if x == ZERO or x == M32:
        return M32, ZERO
    if (x >> np.uint64(31)) != ZERO:
        x = (~x) & M32
    return clz64(x) - np.uint64(32), ZERO


@njit(cache=True)
def v_ffbl_b32(s0, s1, s2, cin, lane, mode):
    """D = index of the lowest set bit of S0; 0xffffffff if S0 == 0."""
    x = s0 & M32
    if x == ZERO:
        return M32, ZERO
    return ctz64(x), ZERO


@njit(cache=True)
def v_bfe_u32(s0, s1, s2, cin, lane, mode):
    """Unsigned bitfield extract: offset = S1 & 31, width = S2 & 31, D = S0[offset+width-1:offset]."""
    off = s1 & np.uint64(31)
    w = s2 & np.uint64(31)
    if w == ZERO:
        return ZERO, ZERO
    x = s0 & M32
    if off + w < np.uint64(32):
        return (x >> off) & ((ONE << w) - ONE), ZERO
    return x >> off, ZERO


@njit(cache=True)
def v_bfe_i32(s0, s1, s2, cin, lane, mode):
    """Signed bitfield extract: as v_bfe_u32, sign-extended from the field's top bit."""
    off = s1 & np.uint64(31)
    w = s2 & np.uint64(31)
    if w == ZERO:
        return ZERO, ZERO
    x = sx32(s0)
    if off + w < np.uint64(32):
        # Move the field's top bit to bit 63, then shift back arithmetically.
        v = np.int64(np.uint64(x) << (np.uint64(64) - off - w)) >> np.int64(np.uint64(64) - w)
        return u32(v), ZERO
    return u32(x >> np.int64(off)), ZERO


@njit(cache=True)
def v_alignbit_b32(s0, s1, s2, cin, lane, mode):
    """D = ({S0, S1} >> (S2 & 31))[31:0], S0 being the high dword."""
    v = ((s0 & M32) << np.uint64(32)) | (s1 & M32)
    return (v >> (s2 & np.uint64(31))) & M32, ZERO


@njit(cache=True)
def v_alignbyte_b32(s0, s1, s2, cin, lane, mode):
    """D = ({S0, S1} >> (8 * (S2 & 3)))[31:0], S0 being the high dword."""
    v = ((s0 & M32) << np.uint64(32)) | (s1 & M32)
    return (v >> ((s2 & np.uint64(3)) * np.uint64(8))) & M32, ZERO


# ---------------------------------------------------------------------------------------
# shifts (amounts masked to 5 bits, 6 for 64-bit, as the hardware does)
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def v_lshl_b32(s0, s1, s2, cin, lane, mode):
    """D = S0 << (S1 & 31) (legacy operand order)."""
    return ((s0 & M32) << (s1 & np.uint64(31))) & M32, ZERO


@njit(cache=True)
def v_lshlrev_b32(s0, s1, s2, cin, lane, mode):
    """D = S1 << (S0 & 31) (reversed operand order)."""
    return ((s1 & M32) << (s0 & np.uint64(31))) & M32, ZERO


@njit(cache=True)
def v_lshr_b32(s0, s1, s2, cin, lane, mode):
    """D = S0 >> (S1 & 31), logical."""
    return (s0 & M32) >> (s1 & np.uint64(31)), ZERO


@njit(cache=True)
def v_lshrrev_b32(s0, s1, s2, cin, lane, mode):
    """D = S1 >> (S0 & 31), logical."""
    return (s1 & M32) >> (s0 & np.uint64(31)), ZERO


@njit(cache=True)
def v_ashr_i32(s0, s1, s2, cin, lane, mode):
    """D = (int32)S0 >> (S1 & 31), arithmetic."""
    return u32(sx32(s0) >> np.int64(s1 & np.uint64(31))), ZERO


@njit(cache=True)
def v_ashrrev_i32(s0, s1, s2, cin, lane, mode):
    """D = (int32)S1 >> (S0 & 31), arithmetic."""
    return u32(sx32(s1) >> np.int64(s0 & np.uint64(31))), ZERO


@njit(cache=True)
def v_lshl_b64(s0, s1, s2, cin, lane, mode):
    """D64 = S0_64 << (S1 & 63)."""
    return np.uint64(s0) << (s1 & np.uint64(63)), ZERO


@njit(cache=True)
def v_lshr_b64(s0, s1, s2, cin, lane, mode):
    """D64 = S0_64 >> (S1 & 63), logical."""
    return np.uint64(s0) >> (s1 & np.uint64(63)), ZERO


@njit(cache=True)
def v_ashr_i64(s0, s1, s2, cin, lane, mode):
    """D64 = (int64)S0_64 >> (S1 & 63), arithmetic."""
    return np.uint64(np.int64(s0) >> np.int64(s1 & np.uint64(63))), ZERO


# ---------------------------------------------------------------------------------------
# min / max / med3
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def v_min_i32(s0, s1, s2, cin, lane, mode):
    """D = min((int32)S0, (int32)S1)."""
    a = sx32(s0)
    b = sx32(s1)
    return u32(a if a < b else b), ZERO


@njit(cache=True)
def v_max_i32(s0, s1, s2, cin, lane, mode):
    """D = max((int32)S0, (int32)S1)."""
    a = sx32(s0)
    b = sx32(s1)
    return u32(a if a > b else b), ZERO


@njit(cache=True)
def v_min_u32(s0, s1, s2, cin, lane, mode):
    """D = min(S0, S1) unsigned."""
    a = s0 & M32
    b = s1 & M32
    return a if a < b else b, ZERO


@njit(cache=True)
def v_max_u32(s0, s1, s2, cin, lane, mode):
    """D = max(S0, S1) unsigned."""
    a = s0 & M32
    b = s1 & M32
    return a if a > b else b, ZERO


@njit(cache=True)
def v_min3_i32(s0, s1, s2, cin, lane, mode):
    """D = min of three signed 32-bit values."""
    a = sx32(s0)
    b = sx32(s1)
    c = sx32(s2)
    m = a if a < b else b
    return u32(c if c < m else m), ZERO


@njit(cache=True)
def v_min3_u32(s0, s1, s2, cin, lane, mode):
    """D = min of three unsigned 32-bit values."""
    a = s0 & M32
    b = s1 & M32
    c = s2 & M32
    m = a if a < b else b
    return c if c < m else m, ZERO


@njit(cache=True)
def v_max3_i32(s0, s1, s2, cin, lane, mode):
    """D = max of three signed 32-bit values."""
    a = sx32(s0)
    b = sx32(s1)
    c = sx32(s2)
    m = a if a > b else b
    return u32(c if c > m else m), ZERO


@njit(cache=True)
def v_max3_u32(s0, s1, s2, cin, lane, mode):
    """D = max of three unsigned 32-bit values."""
    a = s0 & M32
    b = s1 & M32
    c = s2 & M32
    m = a if a > b else b
    return c if c > m else m, ZERO


@njit(cache=True)
def v_med3_i32(s0, s1, s2, cin, lane, mode):
    """D = median of three signed 32-bit values."""
    a = sx32(s0)
    b = sx32(s1)
    c = sx32(s2)
    lo = a if a < b else b
    hi = a if a > b else b
    m = c if c < hi else hi
    return u32(m if m > lo else lo), ZERO


@njit(cache=True)
def v_med3_u32(s0, s1, s2, cin, lane, mode):
    """D = median of three unsigned 32-bit values."""
    a = s0 & M32
    b = s1 & M32
    c = s2 & M32
    lo = a if a < b else b
    hi = a if a > b else b
    m = c if c < hi else hi
    return m if m > lo else lo, ZERO


# ---------------------------------------------------------------------------------------
# multiplies
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def v_mul_lo_u32(s0, s1, s2, cin, lane, mode):
    """D = (S0 * S1)[31:0]."""
    return ((s0 & M32) * (s1 & M32)) & M32, ZERO


@njit(cache=True)
def v_mul_lo_i32(s0, s1, s2, cin, lane, mode):
    """D = ((int32)S0 * (int32)S1)[31:0] (same bits as v_mul_lo_u32)."""
    return u32(sx32(s0) * sx32(s1)), ZERO


@njit(cache=True)
def v_mul_hi_u32(s0, s1, s2, cin, lane, mode):
    """D = (S0 * S1)[63:32], unsigned."""
    return ((s0 & M32) * (s1 & M32)) >> np.uint64(32), ZERO


@njit(cache=True)
def v_mul_hi_i32(s0, s1, s2, cin, lane, mode):
    """D = ((int64)(int32)S0 * (int32)S1)[63:32]."""
    return u32((sx32(s0) * sx32(s1)) >> np.int64(32)), ZERO


@njit(cache=True)
def v_mul_u32_u24(s0, s1, s2, cin, lane, mode):
    """D = (S0[23:0] * S1[23:0])[31:0]."""
    return ((s0 & M24) * (s1 & M24)) & M32, ZERO


@njit(cache=True)
def v_mul_hi_u32_u24(s0, s1, s2, cin, lane, mode):
    """D = (S0[23:0] * S1[23:0])[47:32]."""
    return ((s0 & M24) * (s1 & M24)) >> np.uint64(32), ZERO


@njit(cache=True)
def v_mul_i32_i24(s0, s1, s2, cin, lane, mode):
    """D = (sext(S0[23:0]) * sext(S1[23:0]))[31:0]."""
    return u32(sx24(s0) * sx24(s1)), ZERO


@njit(cache=True)
def v_mul_hi_i32_i24(s0, s1, s2, cin, lane, mode):
    """D = (sext(S0[23:0]) * sext(S1[23:0]))[63:32] (the 48-bit product's high part,
    sign-extended)."""
    return u32((sx24(s0) * sx24(s1)) >> np.int64(32)), ZERO


@njit(cache=True)
def v_mad_u32_u24(s0, s1, s2, cin, lane, mode):
    """D = (S0[23:0] * S1[23:0] + S2)[31:0]."""
    return ((s0 & M24) * (s1 & M24) + (s2 & M32)) & M32, ZERO


@njit(cache=True)
def v_mad_i32_i24(s0, s1, s2, cin, lane, mode):
    """D = (sext(S0[23:0]) * sext(S1[23:0]) + (int32)S2)[31:0]."""
    return u32(sx24(s0) * sx24(s1) + sx32(s2)), ZERO


@njit(cache=True)
def v_mad_u64_u32(s0, s1, s2, cin, lane, mode):
    """D64 = S0 * S1 + S2_64 (mod 2^64); flag = carry out of the 64-bit add.

    CLRX (GCN 1.1, VOP3B): SDST lane bit = (D < PROD), i.e. the unsigned carry-out, which
    the AMD Sea Islands manual also names ({vcc_out, D.u64} = ...). The engine writes it
    to SDST only if it models that output."""
    prod = (s0 & M32) * (s1 & M32)
    r = prod + np.uint64(s2)
    return r, ONE if r < prod else ZERO


@njit(cache=True)
def v_mad_i64_i32(s0, s1, s2, cin, lane, mode):
    """D64 = (int64)(int32)S0 * (int32)S1 + S2_64 (mod 2^64); flag = 0.

    CLRX documents the SDST bit of this op as unknown, so no carry is produced."""
    prod = np.uint64(sx32(s0) * sx32(s1))
    return prod + np.uint64(s2), ZERO


# ---------------------------------------------------------------------------------------
# sum of absolute differences
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def _sad_u8(a, b, masked):
    """Sum over the 4 bytes of |a.byte[i] - b.byte[i]|; ``masked`` (MSAD): bytes where the
    reference b is 0 do not count."""
    acc = ZERO
    for i in range(4):
        sh = np.uint64(8 * i)
        bb = (b >> sh) & M8
        if bb != ZERO or not masked:
            acc += _absdiff((a >> sh) & M8, bb)
    return acc


@njit(cache=True)
def _qsad_pk_u16_u8(s0, s1, s2, masked):
    """D.u16[n] = (S2.u16[n] + SAD_U8(S0_64[8n+31:8n], S1))[15:0] for n = 0..3 (MSAD with
    ``masked``)."""
    s0 = np.uint64(s0)
    s2 = np.uint64(s2)
    r = ZERO
    for n in range(4):
        a = (s0 >> np.uint64(8 * n)) & M32
        acc = (s2 >> np.uint64(16 * n)) & M16
        r |= ((acc + _sad_u8(a, s1 & M32, masked)) & M16) << np.uint64(16 * n)
    return r


@njit(cache=True)
def v_sad_u8(s0, s1, s2, cin, lane, mode):
    """D = S2 + sum_i |S0.byte[i] - S1.byte[i]| (32-bit wrap)."""
    return (_sad_u8(s0, s1, False) + (s2 & M32)) & M32, ZERO


@njit(cache=True)
def v_sad_hi_u8(s0, s1, s2, cin, lane, mode):
    """D = S2 + (sum_i |S0.byte[i] - S1.byte[i]| << 16) (32-bit wrap)."""
    return ((_sad_u8(s0, s1, False) << np.uint64(16)) + (s2 & M32)) & M32, ZERO


@njit(cache=True)
def v_sad_u16(s0, s1, s2, cin, lane, mode):
    """D = S2 + |S0[15:0] - S1[15:0]| + |S0[31:16] - S1[31:16]| (32-bit wrap)."""
    lo = _absdiff(s0 & M16, s1 & M16)
    hi = _absdiff((s0 >> np.uint64(16)) & M16, (s1 >> np.uint64(16)) & M16)
    return (lo + hi + (s2 & M32)) & M32, ZERO


@njit(cache=True)
def v_sad_u32(s0, s1, s2, cin, lane, mode):
    """D = S2 + |S0 - S1| unsigned (32-bit wrap)."""
    return (_absdiff(s0 & M32, s1 & M32) + (s2 & M32)) & M32, ZERO


@njit(cache=True)
def v_msad_u8(s0, s1, s2, cin, lane, mode):
    """D = S2 + sum over bytes with S1.byte[i] != 0 of |S0.byte[i] - S1.byte[i]| (wrap)."""
    return (_sad_u8(s0, s1, True) + (s2 & M32)) & M32, ZERO


@njit(cache=True)
def v_qsad_pk_u16_u8(s0, s1, s2, cin, lane, mode):
    """Quad SAD, 16-bit packed accumulate. S0 and S2 and D are 64-bit.

    D.u16[n] = (S2.u16[n] + SAD_U8(S0_64[8n+31:8n], S1))[15:0] for n = 0..3.
    CLRX ORs the four sums together unmasked; each field is 16 bits wide in hardware, so
    every sum is truncated to 16 bits here (AMD manuals: tmp[16n+15:16n] = ...)."""
    return _qsad_pk_u16_u8(s0, s1, s2, False), ZERO


@njit(cache=True)
def v_mqsad_pk_u16_u8(s0, s1, s2, cin, lane, mode):
    """Masked quad SAD, 16-bit packed accumulate; as v_qsad_pk_u16_u8 with masked SADs
    (bytes where S1 is 0 are skipped)."""
    return _qsad_pk_u16_u8(s0, s1, s2, True), ZERO


@njit(cache=True)
def v_mqsad_u32_u8(s0, s1, s2_lo, s2_hi, lane, mode):
    """Masked quad SAD with 32-bit accumulators. SPECIAL SIGNATURE: the 128-bit src2 comes
    as (s2_lo, s2_hi) and the 128-bit result is returned as (lo64, hi64).

    D.u32[n] = min(S2.u32[n] + MSAD_U8(S0_64[8n+31:8n], S1), 0xffffffff), n = 0..3.
    The saturation is CLRX's (UINT32)MIN(OUT, 0xffffffff)."""
    s0 = np.uint64(s0)
    d0 = ZERO
    d1 = ZERO
    for n in range(4):
        a = (s0 >> np.uint64(8 * n)) & M32
        if n < 2:
            acc = (np.uint64(s2_lo) >> np.uint64(32 * n)) & M32
        else:
            acc = (np.uint64(s2_hi) >> np.uint64(32 * (n - 2))) & M32
        v = acc + _sad_u8(a, s1 & M32, True)
        if v > M32:
            v = M32
        if n < 2:
            d0 |= v << np.uint64(32 * n)
        else:
            d1 |= v << np.uint64(32 * (n - 2))
    return d0, d1


@njit(cache=True)
def v_lerp_u8(s0, s1, s2, cin, lane, mode):
    """Per byte: D.byte[i] = (S0.byte[i] + S1.byte[i] + (S2.byte[i] & 1)) >> 1.

    Owned by valu_float (it is in that op list) and deliberately NOT in this module's
    SEMANTICS; kept only because a dispatch_gen.py generated earlier refers to it here.
    Agrees bit-for-bit with valu_float.v_lerp_u8."""
    r = ZERO
    for i in range(4):
        sh = np.uint64(8 * i)
        v = (((s0 >> sh) & M8) + ((s1 >> sh) & M8) + ((s2 >> sh) & ONE)) >> ONE
        r |= v << sh
    return r, ZERO


# ---------------------------------------------------------------------------------------
# integer compares (VOPC). v_cmpx_X is the same function: the engine writes EXEC.
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def v_cmp_f_i32(s0, s1, s2, cin, lane, mode):
    """VOPC F on i32: always 0. Returns (0, bit)."""
    return ZERO, ZERO


@njit(cache=True)
def v_cmp_lt_i32(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 < S1 as i32. Returns (0, bit)."""
    return ZERO, ONE if _sx32(s0) < _sx32(s1) else ZERO


@njit(cache=True)
def v_cmp_eq_i32(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 == S1 as i32. Returns (0, bit)."""
    return ZERO, ONE if _sx32(s0) == _sx32(s1) else ZERO


@njit(cache=True)
def v_cmp_le_i32(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 <= S1 as i32. Returns (0, bit)."""
    return ZERO, ONE if _sx32(s0) <= _sx32(s1) else ZERO


@njit(cache=True)
def v_cmp_gt_i32(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 > S1 as i32. Returns (0, bit)."""
    return ZERO, ONE if _sx32(s0) > _sx32(s1) else ZERO


@njit(cache=True)
def v_cmp_ne_i32(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 != S1 as i32. Returns (0, bit)."""
    return ZERO, ONE if _sx32(s0) != _sx32(s1) else ZERO


@njit(cache=True)
def v_cmp_ge_i32(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 >= S1 as i32. Returns (0, bit)."""
    return ZERO, ONE if _sx32(s0) >= _sx32(s1) else ZERO


@njit(cache=True)
def v_cmp_t_i32(s0, s1, s2, cin, lane, mode):
    """VOPC T on i32: always 1. Returns (0, bit)."""
    return ZERO, ONE


@njit(cache=True)
def v_cmp_f_u32(s0, s1, s2, cin, lane, mode):
    """VOPC F on u32: always 0. Returns (0, bit)."""
    return ZERO, ZERO


@njit(cache=True)
def v_cmp_lt_u32(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 < S1 as u32. Returns (0, bit)."""
    return ZERO, ONE if (s0 & M32) < (s1 & M32) else ZERO


@njit(cache=True)
def v_cmp_eq_u32(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 == S1 as u32. Returns (0, bit)."""
    return ZERO, ONE if (s0 & M32) == (s1 & M32) else ZERO


@njit(cache=True)
def v_cmp_le_u32(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 <= S1 as u32. Returns (0, bit)."""
    return ZERO, ONE if (s0 & M32) <= (s1 & M32) else ZERO


@njit(cache=True)
def v_cmp_gt_u32(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 > S1 as u32. Returns (0, bit)."""
    return ZERO, ONE if (s0 & M32) > (s1 & M32) else ZERO


@njit(cache=True)
def v_cmp_ne_u32(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 != S1 as u32. Returns (0, bit)."""
    return ZERO, ONE if (s0 & M32) != (s1 & M32) else ZERO


@njit(cache=True)
def v_cmp_ge_u32(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 >= S1 as u32. Returns (0, bit)."""
    return ZERO, ONE if (s0 & M32) >= (s1 & M32) else ZERO


@njit(cache=True)
def v_cmp_t_u32(s0, s1, s2, cin, lane, mode):
    """VOPC T on u32: always 1. Returns (0, bit)."""
    return ZERO, ONE


@njit(cache=True)
def v_cmp_f_i64(s0, s1, s2, cin, lane, mode):
    """VOPC F on i64: always 0. Returns (0, bit)."""
    return ZERO, ZERO


@njit(cache=True)
def v_cmp_lt_i64(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 < S1 as i64. Returns (0, bit)."""
    return ZERO, ONE if np.int64(s0) < np.int64(s1) else ZERO


@njit(cache=True)
def v_cmp_eq_i64(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 == S1 as i64. Returns (0, bit)."""
    return ZERO, ONE if np.int64(s0) == np.int64(s1) else ZERO


@njit(cache=True)
def v_cmp_le_i64(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 <= S1 as i64. Returns (0, bit)."""
    return ZERO, ONE if np.int64(s0) <= np.int64(s1) else ZERO


@njit(cache=True)
def v_cmp_gt_i64(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 > S1 as i64. Returns (0, bit)."""
    return ZERO, ONE if np.int64(s0) > np.int64(s1) else ZERO


@njit(cache=True)
def v_cmp_ne_i64(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 != S1 as i64. Returns (0, bit)."""
    return ZERO, ONE if np.int64(s0) != np.int64(s1) else ZERO


@njit(cache=True)
def v_cmp_ge_i64(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 >= S1 as i64. Returns (0, bit)."""
    return ZERO, ONE if np.int64(s0) >= np.int64(s1) else ZERO


@njit(cache=True)
def v_cmp_t_i64(s0, s1, s2, cin, lane, mode):
    """VOPC T on i64: always 1. Returns (0, bit)."""
    return ZERO, ONE


@njit(cache=True)
def v_cmp_f_u64(s0, s1, s2, cin, lane, mode):
    """VOPC F on u64: always 0. Returns (0, bit)."""
    return ZERO, ZERO


@njit(cache=True)
def v_cmp_lt_u64(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 < S1 as u64. Returns (0, bit)."""
    return ZERO, ONE if np.uint64(s0) < np.uint64(s1) else ZERO


@njit(cache=True)
def v_cmp_eq_u64(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 == S1 as u64. Returns (0, bit)."""
    return ZERO, ONE if np.uint64(s0) == np.uint64(s1) else ZERO


@njit(cache=True)
def v_cmp_le_u64(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 <= S1 as u64. Returns (0, bit)."""
    return ZERO, ONE if np.uint64(s0) <= np.uint64(s1) else ZERO


@njit(cache=True)
def v_cmp_gt_u64(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 > S1 as u64. Returns (0, bit)."""
    return ZERO, ONE if np.uint64(s0) > np.uint64(s1) else ZERO


@njit(cache=True)
def v_cmp_ne_u64(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 != S1 as u64. Returns (0, bit)."""
    return ZERO, ONE if np.uint64(s0) != np.uint64(s1) else ZERO


@njit(cache=True)
def v_cmp_ge_u64(s0, s1, s2, cin, lane, mode):
    """VOPC: bit = S0 >= S1 as u64. Returns (0, bit)."""
    return ZERO, ONE if np.uint64(s0) >= np.uint64(s1) else ZERO


@njit(cache=True)
def v_cmp_t_u64(s0, s1, s2, cin, lane, mode):
    """VOPC T on u64: always 1. Returns (0, bit)."""
    return ZERO, ONE


v_cmpx_f_i32 = v_cmp_f_i32
v_cmpx_lt_i32 = v_cmp_lt_i32
v_cmpx_eq_i32 = v_cmp_eq_i32
v_cmpx_le_i32 = v_cmp_le_i32
v_cmpx_gt_i32 = v_cmp_gt_i32
v_cmpx_ne_i32 = v_cmp_ne_i32
v_cmpx_ge_i32 = v_cmp_ge_i32
v_cmpx_t_i32 = v_cmp_t_i32
v_cmpx_f_u32 = v_cmp_f_u32
v_cmpx_lt_u32 = v_cmp_lt_u32
v_cmpx_eq_u32 = v_cmp_eq_u32
v_cmpx_le_u32 = v_cmp_le_u32
v_cmpx_gt_u32 = v_cmp_gt_u32
v_cmpx_ne_u32 = v_cmp_ne_u32
v_cmpx_ge_u32 = v_cmp_ge_u32
v_cmpx_t_u32 = v_cmp_t_u32
v_cmpx_f_i64 = v_cmp_f_i64
v_cmpx_lt_i64 = v_cmp_lt_i64
v_cmpx_eq_i64 = v_cmp_eq_i64
v_cmpx_le_i64 = v_cmp_le_i64
v_cmpx_gt_i64 = v_cmp_gt_i64
v_cmpx_ne_i64 = v_cmp_ne_i64
v_cmpx_ge_i64 = v_cmp_ge_i64
v_cmpx_t_i64 = v_cmp_t_i64
v_cmpx_f_u64 = v_cmp_f_u64
v_cmpx_lt_u64 = v_cmp_lt_u64
v_cmpx_eq_u64 = v_cmp_eq_u64
v_cmpx_le_u64 = v_cmp_le_u64
v_cmpx_gt_u64 = v_cmp_gt_u64
v_cmpx_ne_u64 = v_cmp_ne_u64
v_cmpx_ge_u64 = v_cmp_ge_u64
v_cmpx_t_u64 = v_cmp_t_u64
# ---------------------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------------------
ENGINE_VALU_OPS = (
    ("v_readlane_b32", "reads another lane's VGPR into an SGPR"),
    ("v_writelane_b32", "writes one chosen lane, ignoring EXEC"),
    ("v_readfirstlane_b32", "reads the first active lane into an SGPR"),
    ("v_movrels_b32", "source VGPR index relative to M0"),
    ("v_movreld_b32", "destination VGPR index relative to M0"),
    ("v_movrelsd_b32", "source and destination VGPR indices relative to M0"),
    ("v_nop", "no data operation"),
    ("v_clrexcp", "clears the wave's exception state, no data operation"),
)
"""Integer VALU mnemonics the engine implements itself, with the reason."""

_NAMES = (
    "v_add_i32", "v_addc_u32", "v_alignbit_b32", "v_alignbyte_b32", "v_and_b32",
    "v_ashr_i32", "v_ashr_i64", "v_ashrrev_i32", "v_bcnt_u32_b32", "v_bfe_i32", "v_bfe_u32",
    "v_bfi_b32", "v_bfm_b32", "v_bfrev_b32", "v_cndmask_b32", "v_ffbh_i32", "v_ffbh_u32",
    "v_ffbl_b32", "v_lshl_b32", "v_lshl_b64", "v_lshlrev_b32", "v_lshr_b32", "v_lshr_b64",
    "v_lshrrev_b32", "v_mad_i32_i24", "v_mad_i64_i32", "v_mad_u32_u24", "v_mad_u64_u32",
    "v_max3_i32", "v_max3_u32", "v_max_i32", "v_max_u32", "v_mbcnt_hi_u32_b32",
    "v_mbcnt_lo_u32_b32", "v_med3_i32", "v_med3_u32", "v_min3_i32", "v_min3_u32",
    "v_min_i32", "v_min_u32", "v_mov_b32", "v_mov_fed_b32", "v_mqsad_pk_u16_u8",
    "v_mqsad_u32_u8", "v_msad_u8", "v_mul_hi_i32", "v_mul_hi_i32_i24", "v_mul_hi_u32",
    "v_mul_hi_u32_u24", "v_mul_i32_i24", "v_mul_lo_i32", "v_mul_lo_u32", "v_mul_u32_u24",
    "v_not_b32", "v_or_b32", "v_qsad_pk_u16_u8", "v_sad_hi_u8", "v_sad_u16", "v_sad_u32",
    "v_sad_u8", "v_sub_i32", "v_subb_u32", "v_subbrev_u32", "v_subrev_i32", "v_xor_b32",
) + tuple(
    f"v_{kind}_{cond}_{ty}"
    for kind in ("cmp", "cmpx")
    for ty in ("i32", "u32", "i64", "u64")
    for cond in ("f", "lt", "eq", "le", "gt", "ne", "ge", "t")
)

SEMANTICS = {name: globals()[name] for name in _NAMES}
"""Mnemonic -> numba function with the uniform signature (see the module docstring;
``v_mqsad_u32_u8`` is the one with the 128-bit shape)."""

SDST_OUT_OPS = ("v_add_i32", "v_sub_i32", "v_subrev_i32", "v_addc_u32", "v_subb_u32",
                "v_subbrev_u32", "v_mad_u64_u32", "v_mad_i64_i32")
"""Non-compare ops whose flag is a per-lane SGPR-pair (VCC or VOP3B SDST) output bit;
every other non-compare op returns flag 0."""

CIN_OPS = ("v_addc_u32", "v_subb_u32", "v_subbrev_u32", "v_cndmask_b32")
"""Ops that read ``cin`` (a lane bit of VCC or of the VOP3 src2 SGPR pair)."""

WIDE_OPS = ("v_mqsad_u32_u8",)
"""Ops whose signature differs from the uniform one (documented at the function)."""

NOT_IMPLEMENTED = []
"""Assigned integer VALU mnemonics with no semantics yet (none)."""
