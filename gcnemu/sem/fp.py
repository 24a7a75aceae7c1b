"""Shared floating-point helpers for the gfx7 VALU semantics.

Everything here works on *bit patterns* (np.uint64) so that NaN payloads, signed zeros and
denormals survive exactly.  The central primitive is :func:`round_pack`, an integer rounder that
turns an exact value ``m * 2**e`` (plus an optional sticky bit) into an f16/f32/f64 bit pattern
under any of the four MODE rounding modes, with optional output-denormal flushing.  Arithmetic
ops compute an exact (or exact-residual) intermediate and hand it to that rounder, so the
directed rounding modes come out right without relying on the host FPU's rounding mode.

MODE register layout used throughout (gfx7):
  bits 1:0 FP_ROUND f32, bits 3:2 FP_ROUND f64/f16 (0 RNE, 1 +inf, 2 -inf, 3 toward zero)
  bits 5:4 FP_DENORM f32, bits 7:6 FP_DENORM f64/f16 (bit0 of the field: allow input denormals,
  bit1: allow output denormals), bit 8 DX10_CLAMP, bit 9 IEEE.
"""
import numpy as np
from numba import njit, types
from numba.core.extending import intrinsic
from llvmlite import ir

U64 = np.uint64
I64 = np.int64

RNE = 0
RUP = 1
RDN = 2
RTZ = 3

F32_QNAN = 0x7FC00000
F32_NEG_QNAN = 0xFFC00000
F64_QNAN = 0x7FF8000000000000
F64_NEG_QNAN = 0xFFF8000000000000
F32_MAX = 0x7F7FFFFF
F64_MAX = 0x7FEFFFFFFFFFFFFF

# --------------------------------------------------------------------------- LLVM intrinsics
# numba has no scalar bit-cast, count-leading-zeros or fma; these emit the single LLVM
# instruction each, so they cost nothing and are exact.


@intrinsic
def _bits_to_f64(typingctx, x):
    sig = types.float64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return sig, codegen


@intrinsic
def _f64_to_bits(typingctx, x):
    sig = types.uint64(types.float64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return sig, codegen


@intrinsic
def _bits_to_f32(typingctx, x):
    sig = types.float32(types.uint32)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())
    return sig, codegen


@intrinsic
def _f32_to_bits(typingctx, x):
    sig = types.uint32(types.float32)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))
    return sig, codegen


@intrinsic
def _fma32(typingctx, a, b, c):
    sig = types.float32(types.float32, types.float32, types.float32)

    def codegen(context, builder, signature, args):
        return builder.fma(args[0], args[1], args[2])
    return sig, codegen


@intrinsic
def _clz64(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))
    return sig, codegen


@intrinsic
def _fma64(typingctx, a, b, c):
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        return builder.fma(args[0], args[1], args[2])
    return sig, codegen


@njit(cache=True)
def as_f64(bits):
    """Reinterpret a uint64 bit pattern as float64."""
    return _bits_to_f64(U64(bits))


@njit(cache=True)
def f64_bits(x):
    """Reinterpret a float64 as its uint64 bit pattern."""
    return _f64_to_bits(np.float64(x))


@njit(cache=True)
def as_f32(bits):
    """Reinterpret the low 32 bits as a float32."""
    return _bits_to_f32(np.uint32(U64(bits) & U64(0xFFFFFFFF)))


@njit(cache=True)
def f32_bits(x):
    """Reinterpret a float32 as its bit pattern (uint64, high half zero)."""
    return U64(_f32_to_bits(np.float32(x)))


@njit(cache=True)
def fma32(a, b, c):
    """Correctly rounded (round-to-nearest-even) fused a*b+c in float32."""
    return _fma32(np.float32(a), np.float32(b), np.float32(c))


@njit(cache=True)
def plain32(b):
    """True for an f32 that is zero or normal (no denormal, inf or NaN): the host FPU computes
    such operands bit-exactly in round-to-nearest-even."""
    e = U64(b) & U64(0x7F800000)
    return e != U64(0x7F800000) and (e != 0 or (U64(b) & U64(0x7FFFFF)) == 0)


@njit(cache=True)
def plain64(b):
    """True for an f64 that is zero or normal."""
    e = U64(b) & U64(0x7FF0000000000000)
    return e != U64(0x7FF0000000000000) and (e != 0 or (U64(b) & U64(0xFFFFFFFFFFFFF)) == 0)


@njit(cache=True)
def clz64(x):
    """Count leading zeros of a uint64 (64 for zero)."""
    return I64(_clz64(U64(x)))


@njit(cache=True)
def fma64(a, b, c):
    """Correctly rounded (round-to-nearest-even) fused a*b+c in float64."""
    return _fma64(np.float64(a), np.float64(b), np.float64(c))


# --------------------------------------------------------------------------- MODE fields

@njit(cache=True)
def rmode32(mode):
    """f32 rounding mode field of MODE."""
    return I64(mode) & 3


@njit(cache=True)
def rmode64(mode):
    """f64/f16 rounding mode field of MODE."""
    return (I64(mode) >> 2) & 3


@njit(cache=True)
def flush_in32(mode):
    """True when f32 input denormals are flushed."""
    return ((I64(mode) >> 4) & 1) == 0


@njit(cache=True)
def flush_out32(mode):
    """True when f32 output denormals are flushed."""
    return ((I64(mode) >> 5) & 1) == 0


@njit(cache=True)
def flush_in64(mode):
    """True when f64 input denormals are flushed."""
    return ((I64(mode) >> 6) & 1) == 0


@njit(cache=True)
def flush_out64(mode):
    """True when f64 output denormals are flushed."""
    return ((I64(mode) >> 7) & 1) == 0


@njit(cache=True)
def ieee_mode(mode):
    """MODE.IEEE bit."""
    return ((I64(mode) >> 9) & 1) != 0


@njit(cache=True)
def dx10_clamp(mode):
    """MODE.DX10_CLAMP bit."""
    return ((I64(mode) >> 8) & 1) != 0


# --------------------------------------------------------------------------- the rounder

@njit(cache=True)
def round_pack(sign, m, e, sticky, mbits, ebits, rmode, flush_out):
    """Round the exact value (-1)**sign * (m + s) * 2**e to a float bit pattern.

    m is a uint64 magnitude, e an int64 exponent, sticky True when the true value lies strictly
    between m and m+1 units (i.e. there are nonzero bits below m).  mbits/ebits select the format
    (10/5 f16, 23/8 f32, 52/11 f64).  rmode is 0 RNE, 1 +inf, 2 -inf, 3 toward zero.  Results that
    overflow give inf or the largest finite value as the mode dictates; denormal results are
    flushed to a signed zero when flush_out is set (after rounding, as the hardware does).
    """
    m = U64(m)
    e = I64(e)
    mbits = I64(mbits)
    ebits = I64(ebits)
    signbit = U64(1 if sign else 0) << U64(mbits + ebits)
    if m == 0:
        if not sticky:
            return signbit
        # only a sticky remainder: far below any denormal, rounding decides 0 or min denormal
        m = U64(1)
        e = I64(-20000)
    lz = clz64(m)
    m = m << U64(lz)
    e = e - lz
    bias = (I64(1) << (ebits - 1)) - 1
    be = e + 63 + bias
    shift = 63 - mbits
    emax = (I64(1) << ebits) - 1
    if be > emax:
        # far beyond the largest exponent: saturate before the bit assembly can wrap
        be = emax + 1
        m = U64(1) << U64(63)
    if be < 1:
        shift += 1 - be
        be = 1
    if shift > 64:
        kept = U64(0)
        rem = U64(0)
        half = U64(1)
        sticky = True
    elif shift == 64:
        kept = U64(0)
        rem = m
        half = U64(1) << U64(63)
    else:
        kept = m >> U64(shift)
        rem = m & ((U64(1) << U64(shift)) - U64(1))
        half = U64(1) << U64(shift - 1)
    inexact = rem != 0 or sticky
    up = False
    if rmode == RNE:
        up = rem > half or (rem == half and (sticky or (kept & U64(1)) != 0))
    elif rmode == RUP:
        up = inexact and not sign
    elif rmode == RDN:
        up = inexact and sign
    if up:
        kept += U64(1)
    # the implicit bit of a normal kept value carries into the exponent field by itself
    bits = (U64(be - 1) << U64(mbits)) + kept
    if I64(bits >> U64(mbits)) >= emax:
        inf_bits = U64(emax) << U64(mbits)
        to_inf = rmode == RNE or (rmode == RUP and not sign) or (rmode == RDN and sign)
        if to_inf:
            return signbit | inf_bits
        return signbit | (inf_bits - U64(1))
    if flush_out and (bits >> U64(mbits)) == 0:
        return signbit
    return signbit | bits


@njit(cache=True)
def decompose64(x):
    """Split a finite float64 into (sign, m, e) with |x| = m * 2**e exactly."""
    b = f64_bits(x)
    sign = (b >> U64(63)) != 0
    ex = I64((b >> U64(52)) & U64(0x7FF))
    fr = b & U64(0xFFFFFFFFFFFFF)
    if ex == 0:
        return sign, fr, I64(-1074)
    return sign, fr | (U64(1) << U64(52)), ex - 1075


@njit(cache=True)
def pack_from_f64(x, err, mbits, ebits, rmode, flush_out):
    """Round x + err (err = exact residual, only its sign matters) to a float format.

    x is a float64 that is already the round-to-nearest of the exact value (or exact itself);
    err's sign says on which side the exact value lies.  Scaling m by 4 and nudging it by one
    unit encodes that side as a sticky bit below every candidate rounding position, which is
    exact because the residual is smaller than half an ulp of x.  x = +-inf stands for an
    overflow of finite operands.
    """
    if x != x:
        return U64(0)
    if x == 0.0 and err == 0.0:
        sign, _, _ = decompose64(x)
        return U64(1 if sign else 0) << U64(mbits + ebits)
    if np.isinf(x):
        sign = x < 0
        m = (U64(1) << U64(55)) - U64(1)
        return round_pack(sign, m, I64(1024 - 55), False, mbits, ebits, rmode, flush_out)
    sign, m, e = decompose64(x)
    m = m << U64(2)
    e = e - 2
    if err != 0.0:
        same = (err < 0) == sign
        if same:
            m += U64(1)
        else:
            m -= U64(1)
    return round_pack(sign, m, e, False, mbits, ebits, rmode, flush_out)


@njit(cache=True)
def pack_f32(x, err, rmode, flush_out):
    """f32 bits of the exact value x+err (see pack_from_f64).

    Fast path: in round-to-nearest-even, an x inside the f32 normal range that is not exactly on
    an f32 rounding midpoint (or has no residual) rounds the same way with the host's fptrunc.
    """
    if rmode == RNE:
        b = f64_bits(x)
        ex = (b >> U64(52)) & U64(0x7FF)
        if ex >= U64(897) and ex <= U64(1150) and (
                err == 0.0 or (b & U64(0x1FFFFFFF)) != U64(0x10000000)):
            return f32_bits(np.float32(x))
    return pack_from_f64(x, err, 23, 8, rmode, flush_out)


@njit(cache=True)
def pack_f64(x, err, rmode, flush_out):
    """f64 bits of the exact value x+err (see pack_from_f64); RNE without flush is a fast path."""
    if rmode == RNE and not np.isinf(x):
        b = f64_bits(x)
        if flush_out and (b & U64(0x7FF0000000000000)) == 0:
            return b & U64(0x8000000000000000)
        return b
    return pack_from_f64(x, err, 52, 11, rmode, flush_out)


# --------------------------------------------------------------------------- decode helpers

@njit(cache=True)
def is_nan32(b):
    """True if the low 32 bits are an f32 NaN."""
    return (U64(b) & U64(0x7FFFFFFF)) > U64(0x7F800000)


@njit(cache=True)
def is_snan32(b):
    """True if the low 32 bits are a signalling f32 NaN."""
    return is_nan32(b) and (U64(b) & U64(0x400000)) == 0


@njit(cache=True)
def is_inf32(b):
    """True for f32 +-inf."""
    return (U64(b) & U64(0x7FFFFFFF)) == U64(0x7F800000)


@njit(cache=True)
def is_nan64(b):
    """True for an f64 NaN."""
    return (U64(b) & U64(0x7FFFFFFFFFFFFFFF)) > U64(0x7FF0000000000000)


@njit(cache=True)
def is_snan64(b):
    """True for a signalling f64 NaN."""
    return is_nan64(b) and (U64(b) & U64(0x8000000000000)) == 0


@njit(cache=True)
def is_inf64(b):
    """True for f64 +-inf."""
    return (U64(b) & U64(0x7FFFFFFFFFFFFFFF)) == U64(0x7FF0000000000000)


@njit(cache=True)
def quiet32(b):
    """Quiet an f32 NaN (set the quiet bit, keep sign and payload)."""
    return (U64(b) & U64(0xFFFFFFFF)) | U64(0x400000)


@njit(cache=True)
def quiet64(b):
    """Quiet an f64 NaN."""
    return U64(b) | U64(0x8000000000000)


@njit(cache=True)
def f32_value(b):
    """The float64 value of an f32 bit pattern (exact; NaNs become some NaN)."""
    b = U64(b) & U64(0xFFFFFFFF)
    sign = (b >> U64(31)) != 0
    ex = I64((b >> U64(23)) & U64(0xFF))
    fr = b & U64(0x7FFFFF)
    if ex == 255:
        if fr != 0:
            return np.nan
        return -np.inf if sign else np.inf
    if ex == 0:
        v = np.float64(fr) * 2.0 ** -149
    else:
        # rebias into an f64 bit pattern: exact and cheap
        v = as_f64((U64(ex + 1023 - 127) << U64(52)) | (fr << U64(29)))
    return -v if sign else v


@njit(cache=True)
def flush32(b, flush):
    """Replace an f32 denormal by a signed zero when flush is set."""
    b = U64(b) & U64(0xFFFFFFFF)
    if flush and (b & U64(0x7F800000)) == 0:
        return b & U64(0x80000000)
    return b


@njit(cache=True)
def flush64(b, flush):
    """Replace an f64 denormal by a signed zero when flush is set."""
    b = U64(b)
    if flush and (b & U64(0x7FF0000000000000)) == 0:
        return b & U64(0x8000000000000000)
    return b


@njit(cache=True)
def in32(b, mode):
    """f32 operand value after MODE input-denormal flushing."""
    return f32_value(flush32(b, flush_in32(mode)))


@njit(cache=True)
def in64(b, mode):
    """f64 operand value after MODE input-denormal flushing."""
    return as_f64(flush64(b, flush_in64(mode)))


@njit(cache=True)
def exact_f32_bits(x, mode):
    """Bits of a float64 that is exactly an f32 value, with MODE output flushing."""
    return pack_f32(x, 0.0, RNE, flush_out32(mode))


# --------------------------------------------------------------------------- exact arithmetic

@njit(cache=True)
def two_sum(a, b):
    """Knuth TwoSum: s = RN(a+b) and the exact error e with a+b = s+e (no overflow)."""
    s = a + b
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    return s, err


@njit(cache=True)
def zero_sum_sign(s, a, b, rmode):
    """Fix the sign of an exact-zero sum for round-toward-minus (IEEE: -0 unless both +0)."""
    if s == 0.0 and rmode == RDN:
        if not (a == 0.0 and b == 0.0 and not np.signbit(a) and not np.signbit(b)):
            return -0.0
    return s


@njit(cache=True)
def mul_u64_wide(a, b):
    """Full 128-bit product of two uint64 as (hi, lo)."""
    a = U64(a)
    b = U64(b)
    mask = U64(0xFFFFFFFF)
    a0 = a & mask
    a1 = a >> U64(32)
    b0 = b & mask
    b1 = b >> U64(32)
    p00 = a0 * b0
    p01 = a0 * b1
    p10 = a1 * b0
    p11 = a1 * b1
    mid = (p00 >> U64(32)) + (p01 & mask) + (p10 & mask)
    lo = (p00 & mask) | (mid << U64(32))
    hi = p11 + (p01 >> U64(32)) + (p10 >> U64(32)) + (mid >> U64(32))
    return hi, lo


@njit(cache=True)
def mul_f64_exact_round(a, b, rmode, flush_out):
    """Bits of RN/RU/RD/RZ(a*b) for finite nonzero float64 a, b, exact via 128-bit product."""
    sa, ma, ea = decompose64(a)
    sb, mb, eb = decompose64(b)
    hi, lo = mul_u64_wide(ma, mb)
    e = ea + eb
    if hi != 0:
        lz = clz64(hi)
        if lz == 0:
            top = hi
            sticky = lo != 0
        else:
            top = (hi << U64(lz)) | (lo >> U64(64 - lz))
            sticky = (lo << U64(lz)) != 0
        e = e + 64 - lz
    else:
        top = lo
        sticky = False
    return round_pack(sa != sb, top, e, sticky, 52, 11, rmode, flush_out)


@njit(cache=True)
def fma64_residual(a, b, c, r):
    """Sign-carrying residual a*b+c-r for r = RN(a*b+c) (Boldo-Muller ErrFma).

    Exact as long as a*b does not underflow; returns a float whose sign is that of the residual
    (0.0 when r is exact).
    """
    u1 = a * b
    u2 = fma64(a, b, -u1)
    alpha1, z = two_sum(c, u2)
    beta1, beta2 = two_sum(u1, alpha1)
    gamma = (beta1 - r) + beta2
    r2 = gamma + z
    r3 = z - (r2 - gamma)
    if r2 != 0.0:
        return r2
    return r3


# --------------------------------------------------------------------------- f16

@njit(cache=True)
def f32_to_f16_bits(b, rmode, flush_out):
    """Convert f32 bits to f16 bits under rmode (NaN payload kept in the top bits, quieted)."""
    b = U64(b) & U64(0xFFFFFFFF)
    sign = (b >> U64(31)) != 0
    sbit = U64(0x8000) if sign else U64(0)
    ex = I64((b >> U64(23)) & U64(0xFF))
    fr = b & U64(0x7FFFFF)
    if ex == 255:
        if fr != 0:
            return sbit | U64(0x7E00) | (fr >> U64(13))
        return sbit | U64(0x7C00)
    if ex == 0:
        if fr == 0:
            return sbit
        return round_pack(sign, fr, I64(-149), False, 10, 5, rmode, flush_out)
    return round_pack(sign, fr | U64(0x800000), ex - 150, False, 10, 5, rmode, flush_out)


@njit(cache=True)
def f16_to_f32_bits(h):
    """Convert f16 bits to f32 bits exactly (NaNs quieted, payload kept)."""
    h = U64(h) & U64(0xFFFF)
    sbit = (h & U64(0x8000)) << U64(16)
    ex = I64((h >> U64(10)) & U64(0x1F))
    fr = h & U64(0x3FF)
    if ex == 31:
        if fr != 0:
            return sbit | U64(0x7FC00000) | (fr << U64(13))
        return sbit | U64(0x7F800000)
    if ex == 0:
        if fr == 0:
            return sbit
        return round_pack(h >> U64(15) != 0, fr, I64(-24), False, 23, 8, RNE, False)
    return sbit | (U64(ex - 15 + 127) << U64(23)) | (fr << U64(13))


# --------------------------------------------------------------------------- output modifiers

@njit(cache=True)
def apply_omod_clamp_f32(bits, omod, clamp, mode):
    """Apply VOP3 OMOD (0 none, 1 x2, 2 x4, 3 /2) then CLAMP to [0,1] to an f32 result.

    OMOD is ignored when f32 output denormals are enabled (CLRX: "OMOD doesn't work if output
    denormals are allowed").  The scaling is exact except at overflow/underflow, where it rounds
    per MODE.  CLAMP maps NaN to +0 (DX10 behaviour) and -0 to +0.
    """
    b = U64(bits) & U64(0xFFFFFFFF)
    omod = I64(omod)
    if omod != 0 and flush_out32(mode) and not is_nan32(b):
        v = f32_value(b)
        if omod == 1:
            v = v * 2.0
        elif omod == 2:
            v = v * 4.0
        else:
            v = v * 0.5
        b = pack_f32(v, 0.0, rmode32(mode), True)
    if clamp:
        if is_nan32(b):
            return U64(0)
        if (b >> U64(31)) != 0:
            return U64(0)
        if b > U64(0x3F800000):
            return U64(0x3F800000)
    return b


@njit(cache=True)
def apply_omod_clamp_f64(bits, omod, clamp, mode):
    """Apply VOP3 OMOD then CLAMP to an f64 result (same rules as the f32 variant)."""
    b = U64(bits)
    omod = I64(omod)
    if omod != 0 and flush_out64(mode) and not is_nan64(b):
        v = as_f64(b)
        if omod == 1:
            v2 = v * 2.0
        elif omod == 2:
            v2 = v * 4.0
        else:
            v2 = v * 0.5
        if omod == 3 and v != 0.0 and abs(v) < 4.450147717014403e-308:
            # the exact half is below 2^-1022: a denormal that needs MODE rounding rather than
            # the host's RNE (decided on the operand: the host's half of the largest value
            # below 2^-1021 is a tie it rounds up to 2^-1022, hiding that the half is tiny)
            s, m, e = decompose64(v)
            b = round_pack(s, m, e - 1, False, 52, 11, rmode64(mode), True)
        else:
            b = pack_f64(v2, 0.0, rmode64(mode), True)
    if clamp:
        if is_nan64(b):
            return U64(0)
        if (b >> U64(63)) != 0:
            return U64(0)
        if b > U64(0x3FF0000000000000):
            return U64(0x3FF0000000000000)
    return b


# --------------------------------------------------------------------------- engine metadata

# ops whose result is not a float that OMOD/CLAMP act on (integers, packed data, f16 bits)
_NON_FLOAT_RESULT = frozenset((
    "v_cvt_i32_f32", "v_cvt_u32_f32", "v_cvt_i32_f64", "v_cvt_u32_f64", "v_cvt_flr_i32_f32",
    "v_cvt_rpi_i32_f32", "v_cvt_f16_f32", "v_cvt_pkrtz_f16_f32", "v_cvt_pknorm_i16_f32",
    "v_cvt_pknorm_u16_f32", "v_cvt_pk_i16_i32", "v_cvt_pk_u16_u32", "v_cvt_pk_u8_f32",
    "v_cvt_pkaccum_u8_f32", "v_frexp_exp_i32_f32", "v_frexp_exp_i32_f64", "v_lerp_u8",
))

# float results whose width differs from the op-name suffix
_F64_RESULT = frozenset(("v_cvt_f64_f32", "v_cvt_f64_i32", "v_cvt_f64_u32"))
_F32_RESULT = frozenset(("v_cvt_f32_f64", "v_cvt_f32_f16"))


def output_modifier_width(name):
    """0, 32 or 64: the width of the float result that VOP3 OMOD/CLAMP apply to for op `name`.

    0 for compares (v_cmp*), integer/packed results and non-float ops; 64 for f64 results.
    Plain Python (used by the decoder, not in jitted code).
    """
    name = name.lower()
    if name.startswith("v_cmp") or name in _NON_FLOAT_RESULT:
        return 0
    if name in _F64_RESULT:
        return 64
    if name in _F32_RESULT or name.startswith("v_cvt_f32_"):
        return 32
    if name.endswith("_f64"):
        return 64
    if name.endswith("_f32"):
        return 32
    return 0
