"""Floating-point, conversion and compare VALU semantics of gfx7 (GCN 1.1), per lane.

Every op is a numba function named like its mnemonic with the uniform signature

    v_xxx(s0, s1, s2, cin, lane, mode) -> (result: uint64, flag: uint64)

s0..s2 are operand bit patterns after the engine applied VOP3 abs/neg (32-bit operands in the low
32 bits), cin is the lane's VCC bit (v_div_fmas_*), mode the MODE register (see gcnemu.sem.fp).
32-bit results sit in the low 32 bits.  flag is the compare bit for VOPC ops, the VCC output of
v_div_scale_*, and 0 otherwise.  Operand conventions for ops with an implicit input:
v_madmk_f32 s2=K (D=S0*K+S1); v_madak_f32 s2=K (D=S0*S1+K); v_mac_f32 / v_mac_legacy_f32 /
v_cvt_pkaccum_u8_f32: s2 = old D.

NaN rules used throughout: a NaN input is returned quieted (first NaN in operand order S0, S1,
S2, payload and sign kept); NaNs generated from non-NaN inputs are the canonical +qNaN
0x7fc00000 / 0x7ff8000000000000, except where the CLRX pseudo-code states -NaN (sqrt/rsq/log of
negatives, sin/cos of inf, inf/inf in div_fixup).  Denormals follow MODE.FP_DENORM unless the
op's docstring says otherwise; rounding follows MODE.FP_ROUND (f32 field for f32 results, f64
field for f64 results).
"""
import math

import numpy as np
from numba import njit

from . import fp
from .fp import (U64, I64, RNE, RUP, RDN, RTZ, F32_QNAN, F32_NEG_QNAN, F64_QNAN, F64_NEG_QNAN,
                 F32_MAX, F64_MAX)

_M32 = 0xFFFFFFFF
_S32 = 0x80000000
_S64 = 0x8000000000000000
_A32 = 0x7FFFFFFF
_A64 = 0x7FFFFFFFFFFFFFFF


# =========================================================================== f32 cores

@njit(cache=True)
def _nan2_32(a, b):
    if fp.is_nan32(a):
        return fp.quiet32(a)
    return fp.quiet32(b)


@njit(cache=True)
def _nan3_32(a, b, c):
    if fp.is_nan32(a):
        return fp.quiet32(a)
    if fp.is_nan32(b):
        return fp.quiet32(b)
    return fp.quiet32(c)


@njit(cache=True)
def _add32(a, b, mode, fi, fo):
    """Correctly rounded a+b (f32 bits) under MODE rounding with explicit flush flags."""
    a = U64(a) & U64(_M32)
    b = U64(b) & U64(_M32)
    if fp.rmode32(mode) == RNE and fp.plain32(a) and fp.plain32(b):
        r = fp.f32_bits(fp.as_f32(a) + fp.as_f32(b))
        if fp.plain32(r):
            return r
    if fp.is_nan32(a) or fp.is_nan32(b):
        return _nan2_32(a, b)
    ia = fp.is_inf32(a)
    ib = fp.is_inf32(b)
    if ia or ib:
        if ia and ib and a != b:
            return U64(F32_QNAN)
        if ia:
            return a
        return b
    x = fp.f32_value(fp.flush32(a, fi))
    y = fp.f32_value(fp.flush32(b, fi))
    rm = fp.rmode32(mode)
    s, err = fp.two_sum(x, y)
    s = fp.zero_sum_sign(s, x, y, rm)
    return fp.pack_f32(s, err, rm, fo)


@njit(cache=True)
def _mul32(a, b, mode, fi, fo):
    """Correctly rounded a*b (f32 bits); the f64 product of two f32 values is exact."""
    a = U64(a) & U64(_M32)
    b = U64(b) & U64(_M32)
    if fp.rmode32(mode) == RNE and fp.plain32(a) and fp.plain32(b):
        r = fp.f32_bits(fp.as_f32(a) * fp.as_f32(b))
        if fp.plain32(r) and (r & U64(_A32)) != 0:
            return r
    if fp.is_nan32(a) or fp.is_nan32(b):
        return _nan2_32(a, b)
    sbit = (a ^ b) & U64(_S32)
    a = fp.flush32(a, fi)
    b = fp.flush32(b, fi)
    za = (a & U64(_A32)) == 0
    zb = (b & U64(_A32)) == 0
    if fp.is_inf32(a) or fp.is_inf32(b):
        if za or zb:
            return U64(F32_QNAN)
        return sbit | U64(0x7F800000)
    if za or zb:
        return sbit
    x = fp.f32_value(a) * fp.f32_value(b)
    return fp.pack_f32(x, 0.0, fp.rmode32(mode), fo)


@njit(cache=True)
def _mul_legacy32(a, b, mode, fi, fo):
    """DX9 multiply: +0 when either operand is +-0 (even against inf/NaN)."""
    a = U64(a) & U64(_M32)
    b = U64(b) & U64(_M32)
    if (fp.flush32(a, fi) & U64(_A32)) == 0 or (fp.flush32(b, fi) & U64(_A32)) == 0:
        return U64(0)
    return _mul32(a, b, mode, fi, fo)


@njit(cache=True)
def _fma32(a, b, c, mode):
    """Fused a*b+c in f32 with one rounding: the f64 product is exact and TwoSum gives the
    exact residual of the sum, so every MODE rounding is exact."""
    a = U64(a) & U64(_M32)
    b = U64(b) & U64(_M32)
    c = U64(c) & U64(_M32)
    if fp.rmode32(mode) == RNE and fp.plain32(a) and fp.plain32(b) and fp.plain32(c):
        r = fp.f32_bits(fp.fma32(fp.as_f32(a), fp.as_f32(b), fp.as_f32(c)))
        if fp.plain32(r) and (r & U64(_A32)) != 0:
            return r
    if fp.is_nan32(a) or fp.is_nan32(b) or fp.is_nan32(c):
        return _nan3_32(a, b, c)
    fi = fp.flush_in32(mode)
    a = fp.flush32(a, fi)
    b = fp.flush32(b, fi)
    c = fp.flush32(c, fi)
    psign = ((a ^ b) & U64(_S32)) != 0
    za = (a & U64(_A32)) == 0
    zb = (b & U64(_A32)) == 0
    pinf = fp.is_inf32(a) or fp.is_inf32(b)
    if pinf:
        if za or zb:
            return U64(F32_QNAN)
        if fp.is_inf32(c) and ((c & U64(_S32)) != 0) != psign:
            return U64(F32_QNAN)
        return U64(_S32 if psign else 0) | U64(0x7F800000)
    if fp.is_inf32(c):
        return c
    rm = fp.rmode32(mode)
    p = fp.f32_value(a) * fp.f32_value(b)
    vc = fp.f32_value(c)
    s, err = fp.two_sum(p, vc)
    s = fp.zero_sum_sign(s, p, vc, rm)
    return fp.pack_f32(s, err, rm, fp.flush_out32(mode))


@njit(cache=True)
def _mad32(a, b, c, mode, legacy):
    """Unfused multiply-add: product rounded to f32, then the sum; always flushes f32 denormals
    (inputs, product and result), as v_mad/v_mac do on gfx7."""
    if legacy:
        p = _mul_legacy32(a, b, mode, True, True)
    else:
        p = _mul32(a, b, mode, True, True)
    if fp.is_nan32(p) and not (fp.is_nan32(a) or fp.is_nan32(b)) and fp.is_nan32(c):
        return fp.quiet32(c)
    return _add32(p, c, mode, True, True)


@njit(cache=True)
def _minmax32(a, b, want_max, mode):
    """IEEE-mode aware min/max on f32 bits; -0 orders below +0."""
    a = U64(a) & U64(_M32)
    b = U64(b) & U64(_M32)
    if fp.ieee_mode(mode):
        if fp.is_snan32(a):
            return fp.quiet32(a)
        if fp.is_snan32(b):
            return fp.quiet32(b)
    na = fp.is_nan32(a)
    nb = fp.is_nan32(b)
    fo = fp.flush_out32(mode)
    if na and nb:
        return fp.quiet32(a)
    fi = fp.flush_in32(mode)
    a = fp.flush32(a, fi)
    b = fp.flush32(b, fi)
    if na:
        return fp.flush32(b, fo)
    if nb:
        return fp.flush32(a, fo)
    x = fp.f32_value(a)
    y = fp.f32_value(b)
    if x == y:
        # equal values differ only for +-0: min prefers the negative one
        if want_max:
            r = a & b
        else:
            r = a | b
    elif (x > y) == want_max:
        r = a
    else:
        r = b
    return fp.flush32(r, fo)


@njit(cache=True)
def _rint_mode(v, rm):
    if rm == RNE:
        return np.rint(v)
    if rm == RUP:
        return np.ceil(v)
    if rm == RDN:
        return np.floor(v)
    return np.trunc(v)


@njit(cache=True)
def _ldexp_bits(b, n, mbits, ebits, rm, fo):
    """Scale a finite nonzero float's bits by 2**n with one MODE rounding."""
    b = U64(b)
    sign = (b >> U64(mbits + ebits)) != 0
    mask = (U64(1) << U64(mbits)) - U64(1)
    ex = I64((b >> U64(mbits)) & ((U64(1) << U64(ebits)) - U64(1)))
    fr = b & mask
    bias = (I64(1) << (ebits - 1)) - 1
    if ex == 0:
        m = fr
        e = 1 - bias - mbits
    else:
        m = fr | (U64(1) << U64(mbits))
        e = ex - bias - mbits
    return fp.round_pack(sign, m, e + n, False, mbits, ebits, rm, fo)


@njit(cache=True)
def _f32_round_op(b, mode, kind):
    """floor/ceil/trunc/rndne on f32 bits (kind 0..3)."""
    b = U64(b) & U64(_M32)
    if fp.is_nan32(b):
        return fp.quiet32(b)
    if fp.is_inf32(b):
        return b
    b = fp.flush32(b, fp.flush_in32(mode))
    v = fp.f32_value(b)
    if kind == 0:
        r = np.floor(v)
    elif kind == 1:
        r = np.ceil(v)
    elif kind == 2:
        r = np.trunc(v)
    else:
        r = np.rint(v)
    # rounding to an integer keeps the sign of zero results (e.g. ceil(-0.5) = -0)
    if r == 0.0:
        return b & U64(_S32)
    return fp.pack_f32(r, 0.0, RNE, False)


@njit(cache=True)
def _f64_round_op(b, mode, kind):
    """floor/ceil/trunc/rndne on f64 bits (kind 0..3)."""
    b = U64(b)
    if fp.is_nan64(b):
        return fp.quiet64(b)
    if fp.is_inf64(b):
        return b
    b = fp.flush64(b, fp.flush_in64(mode))
    v = fp.as_f64(b)
    if kind == 0:
        r = np.floor(v)
    elif kind == 1:
        r = np.ceil(v)
    elif kind == 2:
        r = np.trunc(v)
    else:
        r = np.rint(v)
    if r == 0.0:
        return b & U64(_S64)
    return fp.f64_bits(r)


@njit(cache=True, inline="always")
def _cmp_pred(x, y, pred):
    """Evaluate a VOPC predicate (0 f,1 lt,2 eq,3 le,4 gt,5 lg,6 ge,7 o,8 u,9 nge,10 nlg,
    11 ngt,12 nle,13 neq,14 nlt,15 tru) on float64 values; NaNs compare unordered."""
    if pred == 0:
        r = False
    elif pred == 1:
        r = x < y
    elif pred == 2:
        r = x == y
    elif pred == 3:
        r = x <= y
    elif pred == 4:
        r = x > y
    elif pred == 5:
        r = x < y or x > y
    elif pred == 6:
        r = x >= y
    elif pred == 7:
        r = x == x and y == y
    elif pred == 8:
        r = x != x or y != y
    elif pred == 9:
        r = not (x >= y)
    elif pred == 10:
        r = not (x < y or x > y)
    elif pred == 11:
        r = not (x > y)
    elif pred == 12:
        r = not (x <= y)
    elif pred == 13:
        r = not (x == y)
    elif pred == 14:
        r = not (x < y)
    else:
        r = True
    return U64(1) if r else U64(0)


@njit(cache=True)
def _cmp32(a, b, pred, mode):
    """f32 compare; denormal inputs are flushed per MODE before comparing.  The f32 values are
    compared as f32 (the same order as their exact values; NaNs unordered)."""
    a = U64(a) & U64(_M32)
    b = U64(b) & U64(_M32)
    if fp.flush_in32(mode):
        if (a & U64(0x7F800000)) == 0:
            a = a & U64(_S32)
        if (b & U64(0x7F800000)) == 0:
            b = b & U64(_S32)
    return _cmp_pred(fp.as_f32(a), fp.as_f32(b), pred)


@njit(cache=True)
def _cmp64(a, b, pred, mode):
    """f64 compare; denormal inputs are flushed per MODE before comparing."""
    return _cmp_pred(fp.in64(U64(a), mode), fp.in64(U64(b), mode), pred)


@njit(cache=True)
def _class_index(sign, is_nan, is_snan, is_inf, is_zero, is_denorm):
    if is_nan:
        return 0 if is_snan else 1
    if is_inf:
        return 2 if sign else 9
    if is_zero:
        return 5 if sign else 6
    if is_denorm:
        return 4 if sign else 7
    return 3 if sign else 8


@njit(cache=True)
def _class32(b, mask):
    """v_cmp_class_f32 bit: the 10-bit class mask is tested without denormal flushing."""
    b = U64(b) & U64(_M32)
    ex = b & U64(0x7F800000)
    idx = _class_index((b >> U64(31)) != 0, fp.is_nan32(b), fp.is_snan32(b), fp.is_inf32(b),
                       (b & U64(_A32)) == 0, ex == 0)
    return (U64(mask) >> U64(idx)) & U64(1)


@njit(cache=True)
def _class64(b, mask):
    """v_cmp_class_f64 bit."""
    b = U64(b)
    ex = b & U64(0x7FF0000000000000)
    idx = _class_index((b >> U64(63)) != 0, fp.is_nan64(b), fp.is_snan64(b), fp.is_inf64(b),
                       (b & U64(_A64)) == 0, ex == 0)
    return (U64(mask) >> U64(idx)) & U64(1)


# =========================================================================== f64 cores

@njit(cache=True)
def _nan2_64(a, b):
    if fp.is_nan64(a):
        return fp.quiet64(a)
    return fp.quiet64(b)


@njit(cache=True)
def _add64(a, b, mode):
    """Correctly rounded f64 add under every MODE rounding (TwoSum residual is exact)."""
    a = U64(a)
    b = U64(b)
    if fp.rmode64(mode) == RNE and fp.plain64(a) and fp.plain64(b):
        r = fp.f64_bits(fp.as_f64(a) + fp.as_f64(b))
        if fp.plain64(r):
            return r
    if fp.is_nan64(a) or fp.is_nan64(b):
        return _nan2_64(a, b)
    ia = fp.is_inf64(a)
    ib = fp.is_inf64(b)
    if ia or ib:
        if ia and ib and a != b:
            return U64(F64_QNAN)
        if ia:
            return a
        return b
    x = fp.in64(a, mode)
    y = fp.in64(b, mode)
    rm = fp.rmode64(mode)
    s, err = fp.two_sum(x, y)
    if np.isinf(s):
        err = 0.0
    s = fp.zero_sum_sign(s, x, y, rm)
    return fp.pack_f64(s, err, rm, fp.flush_out64(mode))


@njit(cache=True)
def _mul64(a, b, mode):
    """Correctly rounded f64 multiply under every MODE rounding (exact 106-bit product)."""
    a = U64(a)
    b = U64(b)
    if fp.rmode64(mode) == RNE and fp.plain64(a) and fp.plain64(b):
        r = fp.f64_bits(fp.as_f64(a) * fp.as_f64(b))
        if fp.plain64(r) and (r & U64(_A64)) != 0:
            return r
    if fp.is_nan64(a) or fp.is_nan64(b):
        return _nan2_64(a, b)
    sbit = (a ^ b) & U64(_S64)
    fi = fp.flush_in64(mode)
    a = fp.flush64(a, fi)
    b = fp.flush64(b, fi)
    za = (a & U64(_A64)) == 0
    zb = (b & U64(_A64)) == 0
    if fp.is_inf64(a) or fp.is_inf64(b):
        if za or zb:
            return U64(F64_QNAN)
        return sbit | U64(0x7FF0000000000000)
    if za or zb:
        return sbit
    return fp.mul_f64_exact_round(fp.as_f64(a), fp.as_f64(b), fp.rmode64(mode),
                                  fp.flush_out64(mode))


@njit(cache=True)
def _fma64_parts(a, b, c, mode):
    """Shared f64 fma.  Returns (done, bits, r, err, k): when done is False the exact result is
    (r + err) * 2**k where r is a float64, err carries the sign of the exact residual (only its
    sign is used) and k an extra exponent.  r = RN(a*b+c) comes from the host fma; the residual
    is the Boldo-Muller ErrFma, valid when a*b neither underflows nor overflows.  Outside that
    range the operands are rescaled (a, b to their integer mantissas, c by the inverse power of
    two) so the residual is exact again; a c that dwarfs a tiny product only contributes the
    product's sign."""
    a = U64(a)
    b = U64(b)
    c = U64(c)
    if fp.is_nan64(a) or fp.is_nan64(b) or fp.is_nan64(c):
        if fp.is_nan64(a):
            return True, fp.quiet64(a), 0.0, 0.0, 0
        if fp.is_nan64(b):
            return True, fp.quiet64(b), 0.0, 0.0, 0
        return True, fp.quiet64(c), 0.0, 0.0, 0
    fi = fp.flush_in64(mode)
    a = fp.flush64(a, fi)
    b = fp.flush64(b, fi)
    c = fp.flush64(c, fi)
    psign = ((a ^ b) & U64(_S64)) != 0
    za = (a & U64(_A64)) == 0
    zb = (b & U64(_A64)) == 0
    if fp.is_inf64(a) or fp.is_inf64(b):
        if za or zb:
            return True, U64(F64_QNAN), 0.0, 0.0, 0
        if fp.is_inf64(c) and ((c & U64(_S64)) != 0) != psign:
            return True, U64(F64_QNAN), 0.0, 0.0, 0
        return True, U64(_S64 if psign else 0) | U64(0x7FF0000000000000), 0.0, 0.0, 0
    if fp.is_inf64(c):
        return True, c, 0.0, 0.0, 0
    x = fp.as_f64(a)
    y = fp.as_f64(b)
    z = fp.as_f64(c)
    rm = fp.rmode64(mode)
    if za or zb:
        p = -0.0 if psign else 0.0
        s = p + z
        s = fp.zero_sum_sign(s, p, z, rm)
        return False, U64(0), s, 0.0, 0
    r = fp.fma64(x, y, z)
    u1 = x * y
    if abs(u1) >= 2.0 ** -900 and not np.isinf(u1) and not np.isinf(r):
        err = fp.fma64_residual(x, y, z, r)
        if r == 0.0 and err == 0.0 and rm == RDN:
            r = -0.0
        return False, U64(0), r, err, 0
    # rescaled path: a*b = fx*fy * 2**k with integer mantissas fx, fy
    sx, mx, ex = fp.decompose64(x)
    sy, my, ey = fp.decompose64(y)
    fx = -np.float64(mx) if sx else np.float64(mx)
    fy = -np.float64(my) if sy else np.float64(my)
    k = ex + ey
    zc = z
    if z != 0.0:
        sz, mz, ez = fp.decompose64(z)
        top = ez + 64 - fp.clz64(mz) - k
        if top > 1000:
            # |a*b| is far below half an ulp of c: r == c and only the product's sign matters
            return False, U64(0), r, (-1.0 if psign else 1.0), 0
        if top < -1000:
            # c is far below half an ulp of a*b: it only breaks an exact product's tie
            r2 = fx * fy
            err = fp.fma64(fx, fy, -r2)
            if err == 0.0:
                err = -1.0 if sz else 1.0
            return False, U64(0), r2, err, k
        h = (ez - k) // 2
        zc = np.float64(mz) * 2.0 ** h * 2.0 ** (ez - k - h)
        if sz:
            zc = -zc
    r2 = fp.fma64(fx, fy, zc)
    err = fp.fma64_residual(fx, fy, zc, r2)
    if r2 == 0.0 and err == 0.0:
        return False, U64(0), (-0.0 if rm == RDN else 0.0), 0.0, 0
    return False, U64(0), r2, err, k


@njit(cache=True)
def _pack64_k(r, err, k, rm, fo):
    """f64 bits of (r + err) * 2**k (err: residual sign carrier) with one MODE rounding."""
    if k == 0 or r == 0.0:
        return fp.pack_f64(r, err, rm, fo)
    sign, m, e = fp.decompose64(r)
    m = m << U64(2)
    if err != 0.0:
        if (err < 0) == sign:
            m += U64(1)
        else:
            m -= U64(1)
    return fp.round_pack(sign, m, e - 2 + k, False, 52, 11, rm, fo)


@njit(cache=True)
def _fma64(a, b, c, mode):
    """Fused f64 a*b+c with one MODE rounding, exact in every mode (see _fma64_parts)."""
    a = U64(a)
    b = U64(b)
    c = U64(c)
    if fp.rmode64(mode) == RNE and fp.plain64(a) and fp.plain64(b) and fp.plain64(c):
        r = fp.f64_bits(fp.fma64(fp.as_f64(a), fp.as_f64(b), fp.as_f64(c)))
        if fp.plain64(r) and (r & U64(_A64)) != 0:
            return r
    done, bits, r, err, k = _fma64_parts(a, b, c, mode)
    if done:
        return bits
    return _pack64_k(r, err, k, fp.rmode64(mode), fp.flush_out64(mode))


@njit(cache=True)
def _minmax64(a, b, want_max, mode):
    """IEEE-mode aware f64 min/max; -0 orders below +0."""
    a = U64(a)
    b = U64(b)
    if fp.ieee_mode(mode):
        if fp.is_snan64(a):
            return fp.quiet64(a)
        if fp.is_snan64(b):
            return fp.quiet64(b)
    na = fp.is_nan64(a)
    nb = fp.is_nan64(b)
    fo = fp.flush_out64(mode)
    if na and nb:
        return fp.quiet64(a)
    fi = fp.flush_in64(mode)
    a = fp.flush64(a, fi)
    b = fp.flush64(b, fi)
    if na:
        return fp.flush64(b, fo)
    if nb:
        return fp.flush64(a, fo)
    x = fp.as_f64(a)
    y = fp.as_f64(b)
    if x == y:
        if want_max:
            r = a & b
        else:
            r = a | b
    elif (x > y) == want_max:
        r = a
    else:
        r = b
    return fp.flush64(r, fo)


# =========================================================================== transcendental cores

@njit(cache=True)
def _rcp32(b, mode):
    """1/x in f32: correctly rounded under MODE (exact residual via fma); 0 -> +-inf."""
    b = U64(b) & U64(_M32)
    if fp.is_nan32(b):
        return fp.quiet32(b)
    sbit = b & U64(_S32)
    if fp.is_inf32(b):
        return sbit
    b = fp.flush32(b, fp.flush_in32(mode))
    if (b & U64(_A32)) == 0:
        return sbit | U64(0x7F800000)
    x = fp.f32_value(b)
    r = 1.0 / x
    e = fp.fma64(-r, x, 1.0)
    if x < 0:
        e = -e
    return fp.pack_f32(r, e, fp.rmode32(mode), fp.flush_out32(mode))


@njit(cache=True)
def _sqrt32(b, mode):
    """sqrt in f32, correctly rounded under MODE; negative -> -NaN, -0 -> -0."""
    b = U64(b) & U64(_M32)
    if fp.is_nan32(b):
        return fp.quiet32(b)
    b = fp.flush32(b, fp.flush_in32(mode))
    if (b & U64(_A32)) == 0:
        return b
    if (b & U64(_S32)) != 0:
        return U64(F32_NEG_QNAN)
    if fp.is_inf32(b):
        return b
    x = fp.f32_value(b)
    s = math.sqrt(x)
    e = fp.fma64(-s, s, x)
    return fp.pack_f32(s, e, fp.rmode32(mode), fp.flush_out32(mode))


@njit(cache=True)
def _rsq32(b, mode):
    """1/sqrt(x) in f32 (input denormals always flushed, as CLRX states); error <= 0.5 ULP +
    2**-28 ULP (double-rounded from an f64 evaluation)."""
    b = U64(b) & U64(_M32)
    if fp.is_nan32(b):
        return fp.quiet32(b)
    b = fp.flush32(b, True)
    if (b & U64(_A32)) == 0:
        return (b & U64(_S32)) | U64(0x7F800000)
    if (b & U64(_S32)) != 0:
        return U64(F32_NEG_QNAN)
    if fp.is_inf32(b):
        return U64(0)
    x = fp.f32_value(b)
    r = 1.0 / math.sqrt(x)
    return fp.pack_f32(r, 0.0, fp.rmode32(mode), fp.flush_out32(mode))


@njit(cache=True)
def _exp32(b, mode):
    """2**x in f32; x < -126 gives +0 regardless of MODE (CLRX); error <= 0.5 ULP + 2**-28 ULP."""
    b = U64(b) & U64(_M32)
    if fp.is_nan32(b):
        return fp.quiet32(b)
    x = fp.in32(b, mode)
    if x < -126.0:
        return U64(0)
    if x >= 128.0:
        return fp.pack_f32(np.inf, 0.0, fp.rmode32(mode), True)
    r = np.exp2(x)
    return fp.pack_f32(r, 0.0, fp.rmode32(mode), fp.flush_out32(mode))


@njit(cache=True)
def _log32(b, mode):
    """log2(x) in f32; input denormals always flushed (CLRX); negative -> -NaN; 1 -> +0;
    error <= 0.5 ULP + 2**-28 ULP."""
    b = U64(b) & U64(_M32)
    if fp.is_nan32(b):
        return fp.quiet32(b)
    b = fp.flush32(b, True)
    if (b & U64(_A32)) == 0:
        return U64(0xFF800000)
    if (b & U64(_S32)) != 0:
        return U64(F32_NEG_QNAN)
    if fp.is_inf32(b):
        return b
    x = fp.f32_value(b)
    if x == 1.0:
        return U64(0)
    r = math.log2(x)
    return fp.pack_f32(r, 0.0, fp.rmode32(mode), fp.flush_out32(mode))


@njit(cache=True)
def _sincos32(b, mode, is_cos):
    """sin/cos(2*pi*x) in f32.  Valid input range [-256, 256] revolutions (out of range: sin 0,
    cos 1); inf -> -NaN (CLRX).  The argument is reduced exactly to an octant so the f64
    evaluation keeps full relative accuracy: error <= 0.5 ULP + 2**-27 ULP."""
    b = U64(b) & U64(_M32)
    if fp.is_nan32(b):
        return fp.quiet32(b)
    if fp.is_inf32(b):
        return U64(F32_NEG_QNAN)
    x = fp.in32(b, mode)
    if x > 256.0 or x < -256.0:
        return U64(0x3F800000) if is_cos else U64(0)
    q = np.rint(4.0 * x)
    t = x - 0.25 * q
    qi = I64(q) & 3
    if is_cos:
        qi = (qi + 1) & 3
    tt = 2.0 * math.pi * t
    if qi == 0:
        r = math.sin(tt)
    elif qi == 1:
        r = math.cos(tt)
    elif qi == 2:
        r = -math.sin(tt)
    else:
        r = -math.cos(tt)
    if r == 0.0:
        if is_cos:
            return U64(0)
        return b & U64(_S32)
    return fp.pack_f32(r, 0.0, fp.rmode32(mode), fp.flush_out32(mode))


@njit(cache=True)
def _rcp64(b, mode):
    """1/x in f64, correctly rounded under MODE (the fma residual 1 - r*x is correctly rounded,
    so its sign is always right)."""
    b = U64(b)
    if fp.is_nan64(b):
        return fp.quiet64(b)
    sbit = b & U64(_S64)
    if fp.is_inf64(b):
        return sbit
    b = fp.flush64(b, fp.flush_in64(mode))
    if (b & U64(_A64)) == 0:
        return sbit | U64(0x7FF0000000000000)
    x = fp.as_f64(b)
    r = 1.0 / x
    if np.isinf(r):
        e = 0.0
    else:
        e = fp.fma64(-r, x, 1.0)
        if x < 0:
            e = -e
    return fp.pack_f64(r, e, fp.rmode64(mode), fp.flush_out64(mode))


@njit(cache=True)
def _sqrt64(b, mode):
    """sqrt in f64, correctly rounded under MODE; negative -> -NaN."""
    b = U64(b)
    if fp.is_nan64(b):
        return fp.quiet64(b)
    b = fp.flush64(b, fp.flush_in64(mode))
    if (b & U64(_A64)) == 0:
        return b
    if (b & U64(_S64)) != 0:
        return U64(F64_NEG_QNAN)
    if fp.is_inf64(b):
        return b
    x = fp.as_f64(b)
    if x < 2.0 ** -900:
        # keep s*s - x clear of underflow so the fma residual keeps its sign
        xs = x * 2.0 ** 1000
        s = math.sqrt(xs)
        e = fp.fma64(-s, s, xs)
        s = s * 2.0 ** -500
    else:
        s = math.sqrt(x)
        e = fp.fma64(-s, s, x)
    return fp.pack_f64(s, e, fp.rmode64(mode), fp.flush_out64(mode))


@njit(cache=True)
def _rsq64(b, mode):
    """1/sqrt(x) in f64 with one Newton correction; error <= 1 ULP; negative -> -NaN."""
    b = U64(b)
    if fp.is_nan64(b):
        return fp.quiet64(b)
    b = fp.flush64(b, fp.flush_in64(mode))
    if (b & U64(_A64)) == 0:
        return (b & U64(_S64)) | U64(0x7FF0000000000000)
    if (b & U64(_S64)) != 0:
        return U64(F64_NEG_QNAN)
    if fp.is_inf64(b):
        return U64(0)
    x = fp.as_f64(b)
    # scale into a safe range so r*r*x neither overflows nor underflows
    s, m, e = fp.decompose64(x)
    k = (e + 52) // 2
    xs = x * 2.0 ** (-2 * k)
    r = 1.0 / math.sqrt(xs)
    # Newton step on the residual 1 - x*r*r computed with fmas
    rr = r * r
    rr_lo = fp.fma64(r, r, -rr)
    h = fp.fma64(-xs, rr, 1.0) - xs * rr_lo
    r = r + r * 0.5 * h
    res = r * 2.0 ** (-k)
    return fp.pack_f64(res, 0.0, fp.rmode64(mode), fp.flush_out64(mode))


# =========================================================================== trig_preop table

def _two_over_pi_bits(nbits):
    """The first nbits fraction bits of 2/pi (computed with Machin's formula in integers)."""
    prec = nbits + 64

    def atan_inv(n):
        # atan(1/n) * 2**prec via its Taylor series, all in exact integers
        total = 0
        term = (1 << prec) // n
        k = 0
        n2 = n * n
        while term:
            t = term // (2 * k + 1)
            total += -t if k & 1 else t
            term //= n2
            k += 1
        return total

    pi_fixed = 16 * atan_inv(5) - 4 * atan_inv(239)  # pi * 2**prec, error a few units
    val = (1 << (2 * prec + 1)) // pi_fixed           # 2/pi * 2**prec
    frac = val >> (prec - nbits)                      # 2/pi < 1: these are the fraction bits
    return [(frac >> (nbits - 1 - i)) & 1 for i in range(nbits)]


# 1201 bits of 2/pi as hardware holds them, padded with zeros past the end
TWO_OVER_PI_BITS = np.zeros(1201 + 64 * 32, dtype=np.uint8)
TWO_OVER_PI_BITS[:1201] = np.array(_two_over_pi_bits(1201), dtype=np.uint8)


@njit(cache=True)
def _trig_preop(a, seg):
    """v_trig_preop_f64 (AMD ISA pseudo-code): 53 bits of 2/pi at bit offset 53*seg (shifted
    further for huge inputs), scaled by 2**(-53-shift) (+128 when exponent(S0) >= 1968); the
    scaling truncates (round toward zero)."""
    a = U64(a)
    ex = I64((a >> U64(52)) & U64(0x7FF))
    shift = (I64(seg) & 31) * 53
    if ex > 1077:
        shift += ex - 1077
    v = U64(0)
    for i in range(53):
        v = (v << U64(1)) | U64(TWO_OVER_PI_BITS[shift + i])
    scale = -53 - shift
    if ex >= 1968:
        scale += 128
    if v == 0:
        return U64(0)
    return fp.round_pack(False, v, scale, False, 52, 11, RTZ, False)


# =========================================================================== div helpers

@njit(cache=True)
def _exp_field32(b):
    return I64((U64(b) >> U64(23)) & U64(0xFF))


@njit(cache=True)
def _exp_field64(b):
    return I64((U64(b) >> U64(52)) & U64(0x7FF))


@njit(cache=True)
def _div_scale32(s0, s1, s2):
    """v_div_scale_f32 per the AMD ISA pseudo-code; returns (bits, vcc).

    The '1/S1 is denormal' cases test the f32 range (|S1| > 2**126) and scale the denominator
    down by 2**-64: the only reading under which LLVM's fdiv expansion stays correctly rounded
    (the printed pseudo-code tests 1/S1 as an f64, which can never be denormal)."""
    s0 = U64(s0) & U64(_M32)
    s1 = U64(s1) & U64(_M32)
    s2 = U64(s2) & U64(_M32)
    if fp.is_nan32(s0) or fp.is_inf32(s0):
        return fp.quiet32(s0) if fp.is_nan32(s0) else s0, U64(1)
    x0 = fp.f32_value(s0)
    x1 = fp.f32_value(s1)
    x2 = fp.f32_value(s2)
    if x2 == 0.0 or x1 == 0.0:
        return U64(F32_QNAN), U64(0)
    if fp.is_nan32(s1) or fp.is_nan32(s2):
        return s0, U64(1)
    e1 = _exp_field32(s1)
    e2 = _exp_field32(s2)
    qden = abs(x2 / x1) < 2.0 ** -126  # f64 quotient of f32 values: exact enough to classify
    rden = abs(x1) > 2.0 ** 126          # 1/S1 would be an f32 denormal
    if e2 - e1 >= 96:
        if x0 == x1:
            return _ldexp_bits(s0, 64, 23, 8, RNE, False), U64(1)
        return s0, U64(1)
    if e1 == 0:
        return _ldexp_bits(s0, 64, 23, 8, RNE, False), U64(0)
    if rden and qden:
        if x0 == x1:
            return _ldexp_bits(s0, -64, 23, 8, RNE, False), U64(1)
        return s0, U64(1)
    if rden:
        return _ldexp_bits(s0, -64, 23, 8, RNE, False), U64(0)
    if qden:
        if x0 == x2:
            return _ldexp_bits(s0, 64, 23, 8, RNE, False), U64(1)
        return s0, U64(1)
    if e2 <= 23:
        return _ldexp_bits(s0, 64, 23, 8, RNE, False), U64(0)
    return s0, U64(0)


@njit(cache=True)
def _div_scale64(s0, s1, s2):
    """v_div_scale_f64 per the AMD ISA pseudo-code (768 / 2**128 / 53); returns (bits, vcc).
    For a huge denominator (1/S1 denormal) the denominator is scaled *down* by 2**-128, the only
    choice that keeps LLVM's fdiv expansion exact (see module report)."""
    s0 = U64(s0)
    s1 = U64(s1)
    s2 = U64(s2)
    if fp.is_nan64(s0) or fp.is_inf64(s0):
        return fp.quiet64(s0) if fp.is_nan64(s0) else s0, U64(1)
    x0 = fp.as_f64(s0)
    x1 = fp.as_f64(s1)
    x2 = fp.as_f64(s2)
    if x2 == 0.0 or x1 == 0.0:
        return U64(F64_QNAN), U64(0)
    if fp.is_nan64(s1) or fp.is_nan64(s2):
        return s0, U64(1)
    e1 = _exp_field64(s1)
    e2 = _exp_field64(s2)
    qden = abs(x2 / x1) < 2.2250738585072014e-308
    rden = abs(x1) > 2.0 ** 1022
    if e2 - e1 >= 768:
        if x0 == x1:
            return _ldexp_bits(s0, 128, 52, 11, RNE, False), U64(1)
        return s0, U64(1)
    if e1 == 0:
        return _ldexp_bits(s0, 128, 52, 11, RNE, False), U64(0)
    if rden and qden:
        if x0 == x1:
            return _ldexp_bits(s0, -128, 52, 11, RNE, False), U64(1)
        return s0, U64(1)
    if rden:
        return _ldexp_bits(s0, -128, 52, 11, RNE, False), U64(0)
    if qden:
        if x0 == x2:
            return _ldexp_bits(s0, 128, 52, 11, RNE, False), U64(1)
        return s0, U64(1)
    if e2 <= 53:
        return _ldexp_bits(s0, 128, 52, 11, RNE, False), U64(0)
    return s0, U64(0)


@njit(cache=True)
def _div_fixup_common(q_nan, s1_nan, s1_inf, s1_zero, s2_nan, s2_inf, s2_zero):
    """Classify the v_div_fixup case: 0 return S2 quieted, 1 S1 quieted, 2 +NaN, 3 -NaN,
    4 signed inf, 5 signed zero, 6 signed |S0|."""
    if s2_nan:
        return 0
    if s1_nan:
        return 1
    if s1_zero and s2_zero:
        return 2
    if s1_inf and s2_inf:
        return 3
    if s1_zero or s2_inf:
        return 4
    if s1_inf or s2_zero:
        return 5
    if q_nan:
        return 4
    return 6


# =========================================================================== cvt helpers

@njit(cache=True)
def _f_to_i32(v, lo, hi):
    """Truncating, saturating float64 -> int conversion; NaN -> 0.  Returns 32 result bits."""
    if v != v:
        return U64(0)
    t = np.trunc(v)
    if t < lo:
        t = lo
    if t > hi:
        t = hi
    return U64(I64(t)) & U64(_M32)


@njit(cache=True)
def _int_to_f32(v, mode):
    """int64 value (|v| < 2**63) -> f32 bits under MODE rounding."""
    v = I64(v)
    if v == 0:
        return U64(0)
    neg = v < 0
    m = U64(-v) if neg else U64(v)
    return fp.round_pack(neg, m, 0, False, 23, 8, fp.rmode32(mode), fp.flush_out32(mode))


@njit(cache=True)
def _norm16(b, scale, lo, mode):
    """v_cvt_pknorm helper: RNE(S*scale) clamped to [lo, scale]; NaN -> 0."""
    b = U64(b) & U64(_M32)
    if fp.is_nan32(b):
        return U64(0)
    v = fp.in32(b, mode)
    # the product is rounded to f32 first, as the pseudo-code computes it in FLOAT
    pb = fp.pack_f32(v * scale, 0.0, RNE, False) if not np.isinf(v) else b
    r = np.rint(fp.f32_value(pb))
    if r < lo:
        r = lo
    if r > scale:
        r = scale
    return U64(I64(r)) & U64(0xFFFF)


@njit(cache=True)
def _to_u8(b, mode):
    """flt32_to_uint8 with MODE rounding, saturating, NaN -> 0."""
    b = U64(b) & U64(_M32)
    if fp.is_nan32(b):
        return U64(0)
    v = _rint_mode(fp.in32(b, mode), fp.rmode32(mode))
    if v < 0.0:
        v = 0.0
    if v > 255.0:
        v = 255.0
    return U64(I64(v))


# =========================================================================== fast paths
# The engine calls an op once per lane from a generated row loop (dispatch_gen `_row_<op>`).
# The common ops below are inlined into that loop at numba-IR level (inline="always"), and in
# round-to-nearest-even -- the mode compilers emit -- they are computed *without any call*: the
# host's IEEE f32/f64 arithmetic is exactly RNE (denormal inputs and results included: the host
# runs without FTZ/DAZ, which the exact cores rely on as well), and what the host does
# differently -- MODE denormal flushing, NaN propagation, the canonical generated NaN -- is
# applied with cheap selects on the bit patterns.  A call-free loop body lets LLVM vectorise
# the row.  f32 add/sub/mul/fma/mad handle the directed roundings call-free as well (_dir32);
# v_ldexp_f32 too; the other ops send the other rounding modes to the exact cores above,
# unchanged, behind a MODE test that is loop invariant (LLVM unswitches the loop on it).
# v_ldexp_f64 and v_cvt_f32_f64 keep a data-dependent call for results outside the normal range.  Every path here returns the bits
# the core would return (tests/test_sem_valu_float.py: test_fast_path_*).

@njit(cache=True, inline="always")
def _nm32(b):
    """b (low 32 bits, high half zero) is a normal f32 (nonzero, finite, not denormal)."""
    return ((b & U64(_A32)) - U64(0x800000)) < U64(0x7F000000)


@njit(cache=True, inline="always")
def _nm64(b):
    """b is a normal f64."""
    return ((b & U64(_A64)) - U64(0x0010000000000000)) < U64(0x7FE0000000000000)


@njit(cache=True, inline="always")
def _rne32(mode):
    """MODE rounds f32 results to nearest even."""
    return (I64(mode) & 3) == 0


@njit(cache=True, inline="always")
def _rne64(mode):
    """MODE rounds f64 results to nearest even."""
    return (I64(mode) & 12) == 0


@njit(cache=True, inline="always")
def _out32(r, fo, a, b):
    """Finish a host f32 result r of operands a, b: output flushing, then NaN rules (first NaN
    operand quieted, a NaN made from non-NaN operands -> +qNaN)."""
    if fo and (r & U64(0x7F800000)) == 0:
        r = r & U64(_S32)
    if (r & U64(_A32)) > U64(0x7F800000):
        r = U64(F32_QNAN)
    if fp.is_nan32(b):
        r = fp.quiet32(b)
    if fp.is_nan32(a):
        r = fp.quiet32(a)
    return r


@njit(cache=True, inline="always")
def _out64(r, fo, a, b):
    """_out32 for f64."""
    if fo and (r & U64(0x7FF0000000000000)) == 0:
        r = r & U64(_S64)
    if (r & U64(_A64)) > U64(0x7FF0000000000000):
        r = U64(F64_QNAN)
    if fp.is_nan64(b):
        r = fp.quiet64(b)
    if fp.is_nan64(a):
        r = fp.quiet64(a)
    return r


@njit(cache=True, inline="always")
def _dir32(r, s64, err, rm):
    """Round to MODE rounding rm, given r = RNE(v) (f32 bits) of an exact value v = s64 + err
    (s64 a float64, err its exact residual): one ulp step in the mode's direction where v lies
    on that side of r, call-free.  err - (r - s64) has the sign of v - r: r - s64 is exact
    (Sterbenz; or r is 0 or inf) and so is err, so the one rounded subtraction keeps the sign.
    NaN and inf operands give a NaN difference and no step; an RNE overflow to inf steps back
    to the largest finite value where the mode says so."""
    t = err - (np.float64(fp.as_f32(r)) - s64)
    # branch-free, so that the row loop stays one block and vectorises: "away" means one ulp
    # up in magnitude, "toward" one ulp down (never from a zero r: v would be nearer to 0)
    pos = (r & U64(_S32)) == 0
    above = t > 0.0
    below = t < 0.0
    away = ((rm == RUP) & above & pos) | ((rm == RDN) & below & (not pos))
    toward = (((rm == RUP) | (rm == RTZ)) & above & (not pos)) | (
        ((rm == RDN) | (rm == RTZ)) & below & pos)
    return r + U64(away) - U64(toward)


@njit(cache=True, inline="always")
def _add32_m(a, b, rm, fi, fo):
    """_add32 (a, b masked) in any MODE rounding, call-free."""
    xa = fp.flush32(a, fi)
    xb = fp.flush32(b, fi)
    x = fp.as_f32(xa)
    y = fp.as_f32(xb)
    r = fp.f32_bits(x + y)
    if rm != RNE:
        s, err = fp.two_sum(np.float64(x), np.float64(y))
        r = _dir32(r, s, err, rm)
        if (rm == RDN) & (s == 0.0) & (err == 0.0) & ((xa | xb) != 0):
            # an exact zero sum is -0 in round-down unless both operands are +0
            r = U64(_S32)
    return _out32(r, fo, a, b)


@njit(cache=True, inline="always")
def _mul32_m(a, b, rm, fi, fo):
    """_mul32 (a, b masked) in any MODE rounding, call-free (the f64 product is exact)."""
    x = fp.as_f32(fp.flush32(a, fi))
    y = fp.as_f32(fp.flush32(b, fi))
    r = fp.f32_bits(x * y)
    if rm != RNE:
        r = _dir32(r, np.float64(x) * np.float64(y), 0.0, rm)
    return _out32(r, fo, a, b)


@njit(cache=True, inline="always")
def _fast_add32(a, b, mode):
    """_add32 (a, b masked to 32 bits) with MODE's own flush flags."""
    return _add32_m(a, b, fp.rmode32(mode), fp.flush_in32(mode), fp.flush_out32(mode))


@njit(cache=True, inline="always")
def _fast_mul32(a, b, mode):
    """_mul32 (a, b masked) with MODE's own flush flags."""
    return _mul32_m(a, b, fp.rmode32(mode), fp.flush_in32(mode), fp.flush_out32(mode))


@njit(cache=True, inline="always")
def _fast_mad32(a, b, c, mode):
    """_mad32(a, b, c, mode, False) (operands masked): the product rounded per MODE and flushed,
    then the sum (denormals always flushed)."""
    rm = fp.rmode32(mode)
    if rm == RNE:
        # what the general lines below compute in RNE, with the NaN rules of the two _out32
        # calls and the fix-up merged into one pass (one loop-invariant branch for the row
        # loop): a NaN result is the first NaN operand of a, b, c quieted (c before a NaN the
        # product made from non-NaN a, b), else a NaN made here is +qNaN
        p = fp.f32_bits(fp.as_f32(fp.flush32(a, True)) * fp.as_f32(fp.flush32(b, True)))
        p = fp.flush32(p, True)
        r = fp.f32_bits(fp.as_f32(p) + fp.as_f32(fp.flush32(c, True)))
        r = fp.flush32(r, True)
        if (r & U64(_A32)) > U64(0x7F800000):
            r = U64(F32_QNAN)
        if fp.is_nan32(c):
            r = fp.quiet32(c)
        if fp.is_nan32(b):
            r = fp.quiet32(b)
        if fp.is_nan32(a):
            r = fp.quiet32(a)
        return r
    p = _mul32_m(a, b, rm, True, True)
    r = _add32_m(p, c, rm, True, True)
    if fp.is_nan32(p) and fp.is_nan32(c) and not (fp.is_nan32(a) or fp.is_nan32(b)):
        r = fp.quiet32(c)
    return r


@njit(cache=True, inline="always")
def _fast_fma32(a, b, c, mode):
    """_fma32 (operands masked), call-free: the host fma is RNE; the f64 product is exact and
    TwoSum gives the exact residual of the sum for the other modes."""
    rm = fp.rmode32(mode)
    fi = fp.flush_in32(mode)
    xa = fp.flush32(a, fi)
    xb = fp.flush32(b, fi)
    xc = fp.flush32(c, fi)
    x = fp.as_f32(xa)
    y = fp.as_f32(xb)
    z = fp.as_f32(xc)
    r = fp.f32_bits(fp.fma32(x, y, z))
    if rm != RNE:
        p = np.float64(x) * np.float64(y)
        s, err = fp.two_sum(p, np.float64(z))
        r = _dir32(r, s, err, rm)
        if (rm == RDN) & (s == 0.0) & (err == 0.0) & (
                (((xa ^ xb) | xc) & U64(_S32)) != 0 or p != 0.0 or z != 0.0):
            r = U64(_S32)
    r = _out32(r, fp.flush_out32(mode), b, c)
    if fp.is_nan32(a):
        r = fp.quiet32(a)
    return r


@njit(cache=True, inline="always")
def _fast_minmax32(a, b, want_max, mode):
    """_minmax32 (operands masked), call-free in every mode."""
    fi = fp.flush_in32(mode)
    fo = fp.flush_out32(mode)
    x = fp.flush32(a, fi)
    y = fp.flush32(b, fi)
    fx = fp.as_f32(x)
    fy = fp.as_f32(y)
    if fx == fy:
        # equal values differ only for +-0: min prefers the negative one
        r = (x & y) if want_max else (x | y)
    elif (fx > fy) == want_max:
        r = x
    else:
        r = y
    na = fp.is_nan32(a)
    nb = fp.is_nan32(b)
    if nb:
        r = x
    if na:
        r = y
    r = fp.flush32(r, fo)
    if na and nb:
        r = fp.quiet32(a)
    if fp.ieee_mode(mode):
        if fp.is_snan32(b):
            r = fp.quiet32(b)
        if fp.is_snan32(a):
            r = fp.quiet32(a)
    return r


@njit(cache=True, inline="always")
def _fast_minmax64(a, b, want_max, mode):
    """_minmax64, call-free in every mode."""
    fi = fp.flush_in64(mode)
    fo = fp.flush_out64(mode)
    x = fp.flush64(a, fi)
    y = fp.flush64(b, fi)
    fx = fp.as_f64(x)
    fy = fp.as_f64(y)
    if fx == fy:
        r = (x & y) if want_max else (x | y)
    elif (fx > fy) == want_max:
        r = x
    else:
        r = y
    na = fp.is_nan64(a)
    nb = fp.is_nan64(b)
    if nb:
        r = x
    if na:
        r = y
    r = fp.flush64(r, fo)
    if na and nb:
        r = fp.quiet64(a)
    if fp.ieee_mode(mode):
        if fp.is_snan64(b):
            r = fp.quiet64(b)
        if fp.is_snan64(a):
            r = fp.quiet64(a)
    return r


@njit(cache=True, inline="always")
def _fast_round32(a, mode, kind):
    """_f32_round_op (a masked), call-free: floor/ceil/trunc/rint in f32 are exact and give zero
    results the sign the core gives them."""
    x = fp.as_f32(fp.flush32(a, fp.flush_in32(mode)))
    if kind == 0:
        r = np.floor(x)
    elif kind == 1:
        r = np.ceil(x)
    elif kind == 2:
        r = np.trunc(x)
    else:
        r = np.rint(x)
    rb = fp.f32_bits(r)
    if fp.is_nan32(a):
        rb = fp.quiet32(a)
    return rb


@njit(cache=True, inline="always", error_model="numpy")
def _fast_rcp32(a, mode):
    """_rcp32 (a masked): in RNE the host's f32 division is the correctly rounded quotient."""
    if _rne32(mode):
        x = fp.as_f32(fp.flush32(a, fp.flush_in32(mode)))
        return _out32(fp.f32_bits(np.float32(1.0) / x), fp.flush_out32(mode), a, a)
    return _rcp32(a, mode)


@njit(cache=True, inline="always", error_model="numpy")
def _fast_rsq32(a, mode):
    """_rsq32 (a masked): the same f64 evaluation, rounded by fptrunc as pack_f32 does in RNE
    (the result of an f32 input is always in the f32 normal range)."""
    if _rne32(mode):
        b = fp.flush32(a, True)
        r = fp.f32_bits(np.float32(1.0 / np.sqrt(np.float64(fp.as_f32(b)))))
        if (b & U64(_S32)) != 0 and b != U64(_S32):
            r = U64(F32_NEG_QNAN)
        if fp.is_nan32(a):
            r = fp.quiet32(a)
        return r
    return _rsq32(a, mode)


@njit(cache=True, inline="always")
def _fast_sqrt32(a, mode):
    """_sqrt32 (a masked): in RNE the host's f32 sqrt is the correctly rounded root."""
    if _rne32(mode):
        b = fp.flush32(a, fp.flush_in32(mode))
        r = fp.f32_bits(np.sqrt(fp.as_f32(b)))
        if (b & U64(_S32)) != 0 and b != U64(_S32):
            r = U64(F32_NEG_QNAN)
        if fp.is_nan32(a):
            r = fp.quiet32(a)
        return r
    return _sqrt32(a, mode)


@njit(cache=True, inline="always", error_model="numpy")
def _fast_rcp64(a, mode):
    """_rcp64 in RNE: the host's division is the correctly rounded quotient."""
    if _rne64(mode):
        x = fp.as_f64(fp.flush64(a, fp.flush_in64(mode)))
        return _out64(fp.f64_bits(1.0 / x), fp.flush_out64(mode), a, a)
    return _rcp64(a, mode)


# =========================================================================== ops: VOP2/VOP3 arith f32

@njit(cache=True, inline="always", error_model="numpy")
def v_add_f32(s0, s1, s2, cin, lane, mode):
    """D = S0 + S1 (f32), correctly rounded per MODE, denormals per MODE."""
    return _fast_add32(U64(s0) & U64(_M32), U64(s1) & U64(_M32), mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_sub_f32(s0, s1, s2, cin, lane, mode):
    """D = S0 - S1 (f32)."""
    b = U64(s1) & U64(_M32)
    if not fp.is_nan32(b):
        b = b ^ U64(_S32)
    return _fast_add32(U64(s0) & U64(_M32), b, mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_subrev_f32(s0, s1, s2, cin, lane, mode):
    """D = S1 - S0 (f32)."""
    a = U64(s0) & U64(_M32)
    if not fp.is_nan32(a):
        a = a ^ U64(_S32)
    return _fast_add32(U64(s1) & U64(_M32), a, mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_mul_f32(s0, s1, s2, cin, lane, mode):
    """D = S0 * S1 (f32), correctly rounded per MODE."""
    return _fast_mul32(U64(s0) & U64(_M32), U64(s1) & U64(_M32), mode), U64(0)


@njit(cache=True)
def v_mul_legacy_f32(s0, s1, s2, cin, lane, mode):
    """D = S0 * S1 with DX9 rules: +-0 times anything (inf, NaN included) = +0."""
    return _mul_legacy32(s0, s1, mode, fp.flush_in32(mode), fp.flush_out32(mode)), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_mad_f32(s0, s1, s2, cin, lane, mode):
    """D = S0*S1 + S2, not fused (product rounded per MODE), f32 denormals always flushed."""
    return _fast_mad32(U64(s0) & U64(_M32), U64(s1) & U64(_M32), U64(s2) & U64(_M32),
                       mode), U64(0)


@njit(cache=True)
def v_mad_legacy_f32(s0, s1, s2, cin, lane, mode):
    """D = S0*S1 + S2 with the DX9 product (0*x = +0), unfused, denormals flushed."""
    return _mad32(s0, s1, s2, mode, True), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_mac_f32(s0, s1, s2, cin, lane, mode):
    """D = S0*S1 + D (s2 = old D); same arithmetic as v_mad_f32."""
    return _fast_mad32(U64(s0) & U64(_M32), U64(s1) & U64(_M32), U64(s2) & U64(_M32),
                       mode), U64(0)


@njit(cache=True)
def v_mac_legacy_f32(s0, s1, s2, cin, lane, mode):
    """D = S0*S1 + D (s2 = old D) with the DX9 product; same arithmetic as v_mad_legacy_f32."""
    return _mad32(s0, s1, s2, mode, True), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_madmk_f32(s0, s1, s2, cin, lane, mode):
    """D = S0*K + S1 (engine passes K in s2); unfused, denormals flushed."""
    return _fast_mad32(U64(s0) & U64(_M32), U64(s2) & U64(_M32), U64(s1) & U64(_M32),
                       mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_madak_f32(s0, s1, s2, cin, lane, mode):
    """D = S0*S1 + K (engine passes K in s2); unfused, denormals flushed."""
    return _fast_mad32(U64(s0) & U64(_M32), U64(s1) & U64(_M32), U64(s2) & U64(_M32),
                       mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_fma_f32(s0, s1, s2, cin, lane, mode):
    """D = fma(S0, S1, S2) (f32, single rounding, every MODE rounding exact)."""
    return _fast_fma32(U64(s0) & U64(_M32), U64(s1) & U64(_M32), U64(s2) & U64(_M32),
                       mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_min_f32(s0, s1, s2, cin, lane, mode):
    """D = min(S0, S1); IEEE mode: sNaN -> quieted sNaN; one NaN -> the other operand."""
    return _fast_minmax32(U64(s0) & U64(_M32), U64(s1) & U64(_M32), False, mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_max_f32(s0, s1, s2, cin, lane, mode):
    """D = max(S0, S1); IEEE mode: sNaN -> quieted sNaN; one NaN -> the other operand."""
    return _fast_minmax32(U64(s0) & U64(_M32), U64(s1) & U64(_M32), True, mode), U64(0)


@njit(cache=True)
def v_min_legacy_f32(s0, s1, s2, cin, lane, mode):
    """DX9 min: D = (S0 < S1) ? S0 : S1 (so a NaN in either operand yields S1)."""
    a = U64(s0) & U64(_M32)
    b = U64(s1) & U64(_M32)
    fi = fp.flush_in32(mode)
    r = a if fp.f32_value(fp.flush32(a, fi)) < fp.f32_value(fp.flush32(b, fi)) else b
    if fp.is_nan32(r):
        return fp.quiet32(r), U64(0)
    return fp.flush32(fp.flush32(r, fi), fp.flush_out32(mode)), U64(0)


@njit(cache=True)
def v_max_legacy_f32(s0, s1, s2, cin, lane, mode):
    """DX9 max: D = (S0 >= S1) ? S0 : S1 (so a NaN in either operand yields S1)."""
    a = U64(s0) & U64(_M32)
    b = U64(s1) & U64(_M32)
    fi = fp.flush_in32(mode)
    r = a if fp.f32_value(fp.flush32(a, fi)) >= fp.f32_value(fp.flush32(b, fi)) else b
    if fp.is_nan32(r):
        return fp.quiet32(r), U64(0)
    return fp.flush32(fp.flush32(r, fi), fp.flush_out32(mode)), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_min3_f32(s0, s1, s2, cin, lane, mode):
    """D = min(min(S0, S1), S2) with v_min_f32's NaN rules (a NaN operand is skipped)."""
    r = _fast_minmax32(U64(s0) & U64(_M32), U64(s1) & U64(_M32), False, mode)
    return _fast_minmax32(r, U64(s2) & U64(_M32), False, mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_max3_f32(s0, s1, s2, cin, lane, mode):
    """D = max(max(S0, S1), S2) with v_max_f32's NaN rules."""
    r = _fast_minmax32(U64(s0) & U64(_M32), U64(s1) & U64(_M32), True, mode)
    return _fast_minmax32(r, U64(s2) & U64(_M32), True, mode), U64(0)


@njit(cache=True)
def v_med3_f32(s0, s1, s2, cin, lane, mode):
    """Median of S0, S1, S2.  NaN in S0 -> min(S1, S2), in S1 -> min(S0, S2) (CLRX), in S2 ->
    max(S0, S1) (LLVM's fold tests; CLRX says min there)."""
    a = U64(s0) & U64(_M32)
    b = U64(s1) & U64(_M32)
    c = U64(s2) & U64(_M32)
    if fp.is_nan32(a):
        return _minmax32(b, c, False, mode), U64(0)
    if fp.is_nan32(b):
        return _minmax32(a, c, False, mode), U64(0)
    if fp.is_nan32(c):
        return _minmax32(a, b, True, mode), U64(0)
    # med3 = max(min(a, b), min(max(a, b), c)) for ordered operands
    lo = _minmax32(a, b, False, mode)
    hi = _minmax32(a, b, True, mode)
    return _minmax32(lo, _minmax32(hi, c, False, mode), True, mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_ldexp_f32(s0, s1, s2, cin, lane, mode):
    """D = S0 * 2**S1 (S1 a signed int32), one MODE rounding."""
    a = U64(s0) & U64(_M32)
    # call-free: with S1 clamped to +-350 (beyond it the f32 result is the same overflow or
    # underflow) the f64 product is exact, fptrunc rounds it RNE once and _dir32 steps it for
    # the directed modes; inf and zero pass, NaN is quieted by _out32
    n = min(max(I64(np.int32(np.uint32(U64(s1) & U64(_M32)))), I64(-350)), I64(350))
    v = np.float64(fp.as_f32(fp.flush32(a, fp.flush_in32(mode)))) * fp.as_f64(
        U64(n + 1023) << U64(52))
    rm = fp.rmode32(mode)
    r = fp.f32_bits(np.float32(v))
    if rm != RNE:
        r = _dir32(r, v, 0.0, rm)
    return _out32(r, fp.flush_out32(mode), a, a), U64(0)


@njit(cache=True)
def v_mullit_f32(s0, s1, s2, cin, lane, mode):
    """D = (S2 > 0 and not NaN) ? legacy S0*S1 : -MAX_FLOAT (CLRX)."""
    c = U64(s2) & U64(_M32)
    if fp.is_nan32(c) or not (fp.in32(c, mode) > 0.0):
        return U64(0xFF7FFFFF), U64(0)
    return _mul_legacy32(s0, s1, mode, fp.flush_in32(mode), fp.flush_out32(mode)), U64(0)


# =========================================================================== ops: f64 arith

@njit(cache=True, inline="always", error_model="numpy")
def v_add_f64(s0, s1, s2, cin, lane, mode):
    """D = S0 + S1 (f64), correctly rounded per MODE."""
    a = U64(s0)
    b = U64(s1)
    if _rne64(mode):
        fi = fp.flush_in64(mode)
        x = fp.as_f64(fp.flush64(a, fi))
        y = fp.as_f64(fp.flush64(b, fi))
        return _out64(fp.f64_bits(x + y), fp.flush_out64(mode), a, b), U64(0)
    return _add64(a, b, mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_mul_f64(s0, s1, s2, cin, lane, mode):
    """D = S0 * S1 (f64), correctly rounded per MODE."""
    a = U64(s0)
    b = U64(s1)
    if _rne64(mode):
        fi = fp.flush_in64(mode)
        x = fp.as_f64(fp.flush64(a, fi))
        y = fp.as_f64(fp.flush64(b, fi))
        return _out64(fp.f64_bits(x * y), fp.flush_out64(mode), a, b), U64(0)
    return _mul64(a, b, mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_fma_f64(s0, s1, s2, cin, lane, mode):
    """D = fma(S0, S1, S2) (f64), a single MODE rounding, exact in every rounding mode."""
    a = U64(s0)
    b = U64(s1)
    c = U64(s2)
    if _rne64(mode):
        fi = fp.flush_in64(mode)
        x = fp.as_f64(fp.flush64(a, fi))
        y = fp.as_f64(fp.flush64(b, fi))
        z = fp.as_f64(fp.flush64(c, fi))
        r = _out64(fp.f64_bits(fp.fma64(x, y, z)), fp.flush_out64(mode), b, c)
        if fp.is_nan64(a):
            r = fp.quiet64(a)
        return r, U64(0)
    return _fma64(a, b, c, mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_min_f64(s0, s1, s2, cin, lane, mode):
    """D = min(S0, S1) (f64), NaN rules as v_min_f32."""
    return _fast_minmax64(U64(s0), U64(s1), False, mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_max_f64(s0, s1, s2, cin, lane, mode):
    """D = max(S0, S1) (f64), NaN rules as v_max_f32."""
    return _fast_minmax64(U64(s0), U64(s1), True, mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_ldexp_f64(s0, s1, s2, cin, lane, mode):
    """D = S0 * 2**S1 (S1 a signed int32), one MODE rounding."""
    a = U64(s0)
    ne = I64((a >> U64(52)) & U64(0x7FF)) + I64(np.int32(np.uint32(U64(s1) & U64(_M32))))
    if _nm64(a) and ne >= 1 and ne <= 2046:
        # a normal result of a normal input is exact: only the exponent field changes
        return (a & U64(0x800FFFFFFFFFFFFF)) | (U64(ne) << U64(52)), U64(0)
    return _ldexp64_slow(a, s1, mode), U64(0)


@njit(cache=True)
def _ldexp64_slow(a, s1, mode):
    """v_ldexp_f64 for every input."""
    a = U64(a)
    if fp.is_nan64(a):
        return fp.quiet64(a)
    if fp.is_inf64(a):
        return a
    a = fp.flush64(a, fp.flush_in64(mode))
    if (a & U64(_A64)) == 0:
        return a
    n = I64(np.int32(np.uint32(U64(s1) & U64(_M32))))
    return _ldexp_bits(a, n, 52, 11, fp.rmode64(mode), fp.flush_out64(mode))


# =========================================================================== ops: rounding family

@njit(cache=True, inline="always", error_model="numpy")
def v_floor_f32(s0, s1, s2, cin, lane, mode):
    """D = floor(S0); inf/NaN pass through (NaN quieted)."""
    return _fast_round32(U64(s0) & U64(_M32), mode, 0), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_ceil_f32(s0, s1, s2, cin, lane, mode):
    """D = ceil(S0)."""
    return _fast_round32(U64(s0) & U64(_M32), mode, 1), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_trunc_f32(s0, s1, s2, cin, lane, mode):
    """D = trunc(S0)."""
    return _fast_round32(U64(s0) & U64(_M32), mode, 2), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_rndne_f32(s0, s1, s2, cin, lane, mode):
    """D = round-half-even(S0) to an integer value."""
    return _fast_round32(U64(s0) & U64(_M32), mode, 3), U64(0)


@njit(cache=True)
def v_floor_f64(s0, s1, s2, cin, lane, mode):
    """D = floor(S0) (f64)."""
    return _f64_round_op(s0, mode, 0), U64(0)


@njit(cache=True)
def v_ceil_f64(s0, s1, s2, cin, lane, mode):
    """D = ceil(S0) (f64)."""
    return _f64_round_op(s0, mode, 1), U64(0)


@njit(cache=True)
def v_trunc_f64(s0, s1, s2, cin, lane, mode):
    """D = trunc(S0) (f64)."""
    return _f64_round_op(s0, mode, 2), U64(0)


@njit(cache=True)
def v_rndne_f64(s0, s1, s2, cin, lane, mode):
    """D = round-half-even(S0) (f64)."""
    return _f64_round_op(s0, mode, 3), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_fract_f32(s0, s1, s2, cin, lane, mode):
    """D = min(S0 - floor(S0), 0x3f7fffff); inf -> +qNaN, NaN quieted (LLVM's fold)."""
    a = U64(s0) & U64(_M32)
    if _rne32(mode):
        # floor is exact in f32 and the f32 subtraction rounds the exact difference once (RNE)
        x = fp.as_f32(fp.flush32(a, fp.flush_in32(mode)))
        r = fp.f32_bits(x - np.floor(x))
        if fp.flush_out32(mode) and (r & U64(0x7F800000)) == 0:
            r = r & U64(_S32)
        if r > U64(0x3F7FFFFF) and r < U64(_S32):
            r = U64(0x3F7FFFFF)
        if fp.is_inf32(a):
            r = U64(F32_QNAN)
        if fp.is_nan32(a):
            r = fp.quiet32(a)
        return r, U64(0)
    return _fract32_slow(a, mode), U64(0)


@njit(cache=True)
def _fract32_slow(a, mode):
    """v_fract_f32 for every input (a masked to 32 bits)."""
    if fp.is_nan32(a):
        return fp.quiet32(a)
    if fp.is_inf32(a):
        return U64(F32_QNAN)
    v = fp.in32(a, mode)
    fl = np.floor(v)
    s, err = fp.two_sum(v, -fl)
    r = fp.pack_f32(s, err, fp.rmode32(mode), fp.flush_out32(mode))
    if r > U64(0x3F7FFFFF) and r < U64(_S32):
        r = U64(0x3F7FFFFF)
    return r


@njit(cache=True, inline="always", error_model="numpy")
def v_fract_f64(s0, s1, s2, cin, lane, mode):
    """D = min(S0 - floor(S0), 0x3fefffffffffffff); inf -> +qNaN, NaN quieted."""
    a = U64(s0)
    if _rne64(mode):
        # floor is exact and the subtraction rounds the exact difference once (RNE)
        x = fp.as_f64(fp.flush64(a, fp.flush_in64(mode)))
        r = fp.f64_bits(x - np.floor(x))
        if fp.flush_out64(mode) and (r & U64(0x7FF0000000000000)) == 0:
            r = r & U64(_S64)
        if r > U64(0x3FEFFFFFFFFFFFFF) and r < U64(_S64):
            r = U64(0x3FEFFFFFFFFFFFFF)
        if fp.is_inf64(a):
            r = U64(F64_QNAN)
        if fp.is_nan64(a):
            r = fp.quiet64(a)
        return r, U64(0)
    return _fract64_slow(a, mode), U64(0)


@njit(cache=True)
def _fract64_slow(a, mode):
    """v_fract_f64 for every input."""
    a = U64(a)
    if fp.is_nan64(a):
        return fp.quiet64(a)
    if fp.is_inf64(a):
        return U64(F64_QNAN)
    v = fp.in64(a, mode)
    fl = np.floor(v)
    s, err = fp.two_sum(v, -fl)
    r = fp.pack_f64(s, err, fp.rmode64(mode), fp.flush_out64(mode))
    if r > U64(0x3FEFFFFFFFFFFFFF) and r < U64(_S64):
        r = U64(0x3FEFFFFFFFFFFFFF)
    return r


@njit(cache=True)
def v_frexp_mant_f32(s0, s1, s2, cin, lane, mode):
    """D = mantissa of S0 in [0.5, 1) with S0's sign; +-0 and +-inf pass, NaN quieted."""
    a = U64(s0) & U64(_M32)
    if fp.is_nan32(a):
        return fp.quiet32(a), U64(0)
    if fp.is_inf32(a):
        return a, U64(0)
    a = fp.flush32(a, fp.flush_in32(mode))
    if (a & U64(_A32)) == 0:
        return a, U64(0)
    sign, m, e = fp.decompose64(fp.f32_value(a))
    return fp.round_pack(sign, m, -53, False, 23, 8, RNE, False), U64(0)


@njit(cache=True)
def v_frexp_mant_f64(s0, s1, s2, cin, lane, mode):
    """D = mantissa of S0 in [0.5, 1) (f64)."""
    a = U64(s0)
    if fp.is_nan64(a):
        return fp.quiet64(a), U64(0)
    if fp.is_inf64(a):
        return a, U64(0)
    a = fp.flush64(a, fp.flush_in64(mode))
    if (a & U64(_A64)) == 0:
        return a, U64(0)
    sign, m, e = fp.decompose64(fp.as_f64(a))
    return fp.round_pack(sign, m, fp.clz64(m) - 64, False, 52, 11, RNE, False), U64(0)


@njit(cache=True)
def _frexp_exp(m, e):
    """frexp exponent of the value m * 2**e (m nonzero)."""
    return U64(I64(e + 64 - fp.clz64(m)) & I64(_M32))


@njit(cache=True)
def v_frexp_exp_i32_f32(s0, s1, s2, cin, lane, mode):
    """D = exponent e with S0 = mant * 2**e, mant in [0.5, 1); 0 for zero, inf, NaN."""
    a = U64(s0) & U64(_M32)
    if fp.is_nan32(a) or fp.is_inf32(a):
        return U64(0), U64(0)
    a = fp.flush32(a, fp.flush_in32(mode))
    if (a & U64(_A32)) == 0:
        return U64(0), U64(0)
    sign, m, e = fp.decompose64(fp.f32_value(a))
    return _frexp_exp(m, e), U64(0)


@njit(cache=True)
def v_frexp_exp_i32_f64(s0, s1, s2, cin, lane, mode):
    """D = frexp exponent of the f64 S0; 0 for zero, inf, NaN."""
    a = U64(s0)
    if fp.is_nan64(a) or fp.is_inf64(a):
        return U64(0), U64(0)
    a = fp.flush64(a, fp.flush_in64(mode))
    if (a & U64(_A64)) == 0:
        return U64(0), U64(0)
    sign, m, e = fp.decompose64(fp.as_f64(a))
    return _frexp_exp(m, e), U64(0)


# GCN 1.0 (gfx6) forms of the frexp ops, which a gfx6 GPU runs in place of the ones above
# (exec/program.py: GFX6_SEMANTICS). CLRX GcnInstrsVop1.md: V_FREXP_EXP_I32_F32/F64 "If SRC0
# is infinity or NAN then store -1 if GCN 1.0 or 0"; V_FREXP_MANT_F32/F64 "VDST = -NAN //
# GCN 1.0" for an infinite SRC0. -NAN is the negative default quiet NaN (0xffc00000,
# 0xfff8000000000000): the documents give no other payload.

@njit(cache=True)
def v_frexp_exp_i32_f32_gfx6(s0, s1, s2, cin, lane, mode):
    """v_frexp_exp_i32_f32 on GCN 1.0: -1 for inf and NaN."""
    a = U64(s0) & U64(_M32)
    if fp.is_nan32(a) or fp.is_inf32(a):
        return U64(_M32), U64(0)
    return v_frexp_exp_i32_f32(s0, s1, s2, cin, lane, mode)


@njit(cache=True)
def v_frexp_exp_i32_f64_gfx6(s0, s1, s2, cin, lane, mode):
    """v_frexp_exp_i32_f64 on GCN 1.0: -1 for inf and NaN."""
    a = U64(s0)
    if fp.is_nan64(a) or fp.is_inf64(a):
        return U64(_M32), U64(0)
    return v_frexp_exp_i32_f64(s0, s1, s2, cin, lane, mode)


@njit(cache=True)
def v_frexp_mant_f32_gfx6(s0, s1, s2, cin, lane, mode):
    """v_frexp_mant_f32 on GCN 1.0: -NaN for +-inf."""
    if fp.is_inf32(U64(s0) & U64(_M32)):
        return U64(0xFFC00000), U64(0)
    return v_frexp_mant_f32(s0, s1, s2, cin, lane, mode)


@njit(cache=True)
def v_frexp_mant_f64_gfx6(s0, s1, s2, cin, lane, mode):
    """v_frexp_mant_f64 on GCN 1.0: -NaN for +-inf."""
    if fp.is_inf64(U64(s0)):
        return U64(0xFFF8000000000000), U64(0)
    return v_frexp_mant_f64(s0, s1, s2, cin, lane, mode)


# =========================================================================== ops: transcendentals

@njit(cache=True, inline="always", error_model="numpy")
def v_rcp_f32(s0, s1, s2, cin, lane, mode):
    """D = 1/S0, emulated correctly rounded per MODE (hardware: <= 1 ULP); +-0 -> +-inf."""
    return _fast_rcp32(U64(s0) & U64(_M32), mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_rcp_iflag_f32(s0, s1, s2, cin, lane, mode):
    """Same value as v_rcp_f32 (only the exception flag differs on hardware)."""
    return _fast_rcp32(U64(s0) & U64(_M32), mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_rcp_clamp_f32(s0, s1, s2, cin, lane, mode):
    """v_rcp_f32 with an infinite result clamped to +-MAX_FLOAT."""
    r = _fast_rcp32(U64(s0) & U64(_M32), mode)
    if fp.is_inf32(r):
        return (r & U64(_S32)) | U64(F32_MAX), U64(0)
    return r, U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_rcp_legacy_f32(s0, s1, s2, cin, lane, mode):
    """v_rcp_f32, but a zero input or an infinite result gives a zero with S0's sign."""
    r = _fast_rcp32(U64(s0) & U64(_M32), mode)
    if fp.is_inf32(r):
        return r & U64(_S32), U64(0)
    return r, U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_rcp_f64(s0, s1, s2, cin, lane, mode):
    """D = 1/S0 (f64), emulated correctly rounded (hardware: ~2**-26 relative error)."""
    return _fast_rcp64(U64(s0), mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_rcp_clamp_f64(s0, s1, s2, cin, lane, mode):
    """v_rcp_f64 with an infinite result clamped to +-MAX_DOUBLE."""
    r = _fast_rcp64(U64(s0), mode)
    if fp.is_inf64(r):
        return (r & U64(_S64)) | U64(F64_MAX), U64(0)
    return r, U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_sqrt_f32(s0, s1, s2, cin, lane, mode):
    """D = sqrt(S0), emulated correctly rounded per MODE; negative -> -NaN."""
    return _fast_sqrt32(U64(s0) & U64(_M32), mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_sqrt_f64(s0, s1, s2, cin, lane, mode):
    """D = sqrt(S0) (f64), emulated correctly rounded per MODE; negative -> -NaN."""
    a = U64(s0)
    if _rne64(mode):
        # the host's root is the correctly rounded one (the core's scaling for tiny inputs
        # changes nothing in RNE); specials as the core: +-0 and +inf pass, negative -> -NaN
        b = fp.flush64(a, fp.flush_in64(mode))
        r = fp.f64_bits(np.sqrt(fp.as_f64(b)))
        if (b & U64(_S64)) != 0 and b != U64(_S64):
            r = U64(F64_NEG_QNAN)
        if fp.is_nan64(a):
            r = fp.quiet64(a)
        return r, U64(0)
    return _sqrt64(a, mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_rsq_f32(s0, s1, s2, cin, lane, mode):
    """D = 1/sqrt(S0); error <= 0.5 ULP + 2**-28 ULP; denormal inputs flushed; neg -> -NaN."""
    return _fast_rsq32(U64(s0) & U64(_M32), mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_rsq_clamp_f32(s0, s1, s2, cin, lane, mode):
    """v_rsq_f32 with +-inf results clamped to +-MAX_FLOAT."""
    r = _fast_rsq32(U64(s0) & U64(_M32), mode)
    if fp.is_inf32(r):
        return (r & U64(_S32)) | U64(F32_MAX), U64(0)
    return r, U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_rsq_legacy_f32(s0, s1, s2, cin, lane, mode):
    """v_rsq_f32, but an infinite result becomes +0 (CLRX)."""
    r = _fast_rsq32(U64(s0) & U64(_M32), mode)
    if fp.is_inf32(r):
        return U64(0), U64(0)
    return r, U64(0)


@njit(cache=True)
def v_rsq_f64(s0, s1, s2, cin, lane, mode):
    """D = 1/sqrt(S0) (f64); error <= 1 ULP; negative -> -NaN."""
    return _rsq64(s0, mode), U64(0)


@njit(cache=True)
def v_rsq_clamp_f64(s0, s1, s2, cin, lane, mode):
    """v_rsq_f64 with +-inf results clamped to +-MAX_DOUBLE."""
    r = _rsq64(s0, mode)
    if fp.is_inf64(r):
        return (r & U64(_S64)) | U64(F64_MAX), U64(0)
    return r, U64(0)


@njit(cache=True)
def v_exp_f32(s0, s1, s2, cin, lane, mode):
    """D = 2**S0; S0 < -126 -> +0; error <= 0.5 ULP + 2**-28 ULP."""
    return _exp32(s0, mode), U64(0)


@njit(cache=True)
def v_exp_legacy_f32(s0, s1, s2, cin, lane, mode):
    """Emulated like v_exp_f32 (the hardware's legacy variant may be slightly less accurate)."""
    return _exp32(s0, mode), U64(0)


@njit(cache=True)
def v_log_f32(s0, s1, s2, cin, lane, mode):
    """D = log2(S0); denormal inputs flushed; error <= 0.5 ULP + 2**-28 ULP."""
    return _log32(s0, mode), U64(0)


@njit(cache=True)
def v_log_legacy_f32(s0, s1, s2, cin, lane, mode):
    """Emulated like v_log_f32."""
    return _log32(s0, mode), U64(0)


@njit(cache=True)
def v_log_clamp_f32(s0, s1, s2, cin, lane, mode):
    """v_log_f32 with -inf clamped to -MAX_FLOAT."""
    r = _log32(s0, mode)
    if r == U64(0xFF800000):
        return U64(0xFF7FFFFF), U64(0)
    return r, U64(0)


@njit(cache=True)
def v_sin_f32(s0, s1, s2, cin, lane, mode):
    """D = sin(2*pi*S0) for S0 in [-256, 256] (else +0); error <= 0.5 ULP + 2**-27 ULP."""
    return _sincos32(s0, mode, False), U64(0)


@njit(cache=True)
def v_cos_f32(s0, s1, s2, cin, lane, mode):
    """D = cos(2*pi*S0) for S0 in [-256, 256] (else 1.0); error <= 0.5 ULP + 2**-27 ULP."""
    return _sincos32(s0, mode, True), U64(0)


# =========================================================================== ops: division support

@njit(cache=True)
def v_div_scale_f32(s0, s1, s2, cin, lane, mode):
    """Division pre-scaling (S0 = value to scale, S1 = denominator, S2 = numerator); flag = VCC."""
    return _div_scale32(s0, s1, s2)


@njit(cache=True)
def v_div_scale_f64(s0, s1, s2, cin, lane, mode):
    """f64 division pre-scaling; flag = VCC."""
    return _div_scale64(s0, s1, s2)


@njit(cache=True)
def v_div_fmas_f32(s0, s1, s2, cin, lane, mode):
    """D = fma(S0, S1, S2), and when VCC (cin) is set scaled by 2**64 if |S2| >= 2 else by
    2**-64, with a single rounding (the scale undoes v_div_scale's one-sided scaling)."""
    a = U64(s0) & U64(_M32)
    b = U64(s1) & U64(_M32)
    c = U64(s2) & U64(_M32)
    if U64(cin) == 0:
        return _fast_fma32(a, b, c, mode), U64(0)
    k = 64.0 if abs(fp.f32_value(c)) >= 2.0 else -64.0
    if (fp.is_nan32(a) or fp.is_nan32(b) or fp.is_nan32(c) or fp.is_inf32(a) or fp.is_inf32(b)
            or fp.is_inf32(c)):
        return _fma32(a, b, c, mode), U64(0)
    # the exact fused sum, scaled before its single rounding (so a denormal unscaled result is
    # neither flushed nor double-rounded)
    fi = fp.flush_in32(mode)
    p = fp.f32_value(fp.flush32(a, fi)) * fp.f32_value(fp.flush32(b, fi))
    s, err = fp.two_sum(p, fp.f32_value(fp.flush32(c, fi)))
    if s == 0.0:
        return _fma32(a, b, c, mode), U64(0)
    sc = 2.0 ** k
    return fp.pack_f32(s * sc, err * sc, fp.rmode32(mode), fp.flush_out32(mode)), U64(0)


@njit(cache=True)
def v_div_fmas_f64(s0, s1, s2, cin, lane, mode):
    """D = fma(S0, S1, S2), scaled by 2**128 (|S2| >= 2) or 2**-128 when VCC (cin) is set, with
    a single rounding (exact in every rounding mode)."""
    if U64(cin) == 0:
        return _fma64(s0, s1, s2, mode), U64(0)
    ks = 128 if abs(fp.as_f64(U64(s2))) >= 2.0 else -128
    done, bits, r, err, k = _fma64_parts(s0, s1, s2, mode)
    if done:
        return bits, U64(0)
    rm = fp.rmode64(mode)
    fo = fp.flush_out64(mode)
    if r == 0.0:
        return fp.pack_f64(r, err, rm, fo), U64(0)
    return _pack64_k(r, err, k + ks, rm, fo), U64(0)


@njit(cache=True)
def v_div_fixup_f32(s0, s1, s2, cin, lane, mode):
    """Final division fix-up (S0 = quotient, S1 = denominator, S2 = numerator): special cases
    from S1/S2 (NaN, 0/0 -> NaN, inf/inf -> -NaN, x/0 -> inf, x/inf -> 0), a NaN quotient ->
    signed inf, otherwise |S0| with the sign of S1*S2."""
    a = U64(s0) & U64(_M32)
    b = U64(s1) & U64(_M32)
    c = U64(s2) & U64(_M32)
    neg = ((b ^ c) & U64(_S32)) != 0
    sbit = U64(_S32) if neg else U64(0)
    k = _div_fixup_common(fp.is_nan32(a), fp.is_nan32(b), fp.is_inf32(b),
                          (b & U64(_A32)) == 0, fp.is_nan32(c), fp.is_inf32(c),
                          (c & U64(_A32)) == 0)
    if k == 0:
        return fp.quiet32(c), U64(0)
    if k == 1:
        return fp.quiet32(b), U64(0)
    if k == 2:
        return U64(F32_QNAN), U64(0)
    if k == 3:
        return U64(F32_NEG_QNAN), U64(0)
    if k == 4:
        return sbit | U64(0x7F800000), U64(0)
    if k == 5:
        return sbit, U64(0)
    return sbit | (a & U64(_A32)), U64(0)


# --------------------------------------------------------------------------- division fast rows
# v_div_scale/fmas/fixup_f32 branch through many special cases per lane, which keeps their row
# loops scalar (~6 ns a lane).  In the common case (normal operands of moderate range, VCC
# clear) each reduces to one select, so the row kernels (tools/gen_dispatch.py, ROW_FAST) first
# run these quick forms over all lanes -- call-free, vectorised -- and redo with the op itself
# only the active lanes whose `ok` is False.  Each returns (result, flag, ok); where ok is True
# the result and flag are the op's own.

@njit(cache=True, inline="always")
def _quick_div_scale_f32(s0, s1, s2, cin, lane, mode):
    """v_div_scale_f32 when S1 (denominator) and S2 (numerator) are normal, S0 is finite,
    |S1| <= 2**126 (1/S1 is not an f32 denormal), the exponent fields satisfy e2 > 23 and
    -125 <= e2 - e1 <= 95: then S2/S1 > 2**-126 (the mantissa ratio exceeds 1/2) and every
    scaling case of _div_scale32 is excluded, so the op returns S0 unchanged with VCC clear."""
    a = U64(s0) & U64(_M32)
    b = U64(s1) & U64(_M32)
    c = U64(s2) & U64(_M32)
    e1 = I64(b >> U64(23)) & 0xFF
    e2 = I64(c >> U64(23)) & 0xFF
    d = e2 - e1
    ok = (_nm32(b) & _nm32(c) & ((a & U64(_A32)) < U64(0x7F800000))
          & ((b & U64(_A32)) <= U64(0x7E800000)) & (e2 > 23) & (d >= -125) & (d <= 95))
    return a, U64(0), ok


@njit(cache=True, inline="always")
def _quick_div_fmas_f32(s0, s1, s2, cin, lane, mode):
    """v_div_fmas_f32 with VCC clear is v_fma_f32."""
    r = _fast_fma32(U64(s0) & U64(_M32), U64(s1) & U64(_M32), U64(s2) & U64(_M32), mode)
    return r, U64(0), U64(cin) == U64(0)


@njit(cache=True, inline="always")
def _quick_div_fixup_f32(s0, s1, s2, cin, lane, mode):
    """v_div_fixup_f32 when S0 is not a NaN and S1, S2 are finite and nonzero: case 6 of
    _div_fixup_common, |S0| with the sign of S1*S2."""
    a = U64(s0) & U64(_M32)
    b = U64(s1) & U64(_M32)
    c = U64(s2) & U64(_M32)
    ok = (((b & U64(_A32)) - U64(1) < U64(0x7F7FFFFF)) & ((c & U64(_A32)) - U64(1) < U64(0x7F7FFFFF))
          & ((a & U64(_A32)) <= U64(0x7F800000)))
    return ((b ^ c) & U64(_S32)) | (a & U64(_A32)), U64(0), ok


# --------------------------------------------------------------------------- plain f32 rows
# In round-to-nearest-even an f32 add, multiply, unfused multiply-add or fma whose operands,
# product (unfused) and result are neither NaN nor denormal is the host's IEEE result bit for
# bit, whatever MODE says about denormals (there is nothing to flush) or IEEE/DX10_CLAMP (there
# is no NaN). The 32-bit row kernels (tools/gen_dispatch.py, PLAIN32) run these forms over all
# 64 lanes -- no branch, vectorised, operands as uint32 -- and redo the row with the op itself
# when MODE does not round to nearest even or any lane is odd.
#
# Each takes (a, b, c, exact) and returns (result, denormal key, NaN key), uint32 keys that
# the row folds with min and max: a lane is odd when its NaN key is above NAN_KEY (a NaN) or,
# with ``exact`` set, its denormal key below DENORMAL_KEY (one of the values it checks is a
# denormal). Keys instead of per-lane booleans because min/max fold into one vector register
# per row with no mask-register work. A NaN operand of these ops makes a NaN result, so the
# result's NaN key covers the operands too. The row runs them twice at most (the generated
# kernels): first with ``exact`` clear, where the denormal key is only below EXPONENT_KEY
# when a value's exponent field is 0 -- a denormal or a zero, a superset that costs one vector
# op less per value (a shift, no subtraction; ~a third of a v_mad_f32 row's key work) -- and
# only when that pass finds a zero or a denormal, again with ``exact`` set, which tells the
# zeros (plain) from the denormals (odd). So the same rows leave the plain path as with the
# exact keys alone.
DENORMAL_KEY = np.uint32(0xFFFFFD)
EXPONENT_KEY = np.uint32(0x1000000)
NAN_KEY = np.uint32(0xFF000000)


@njit(cache=True, inline="always")
def _dkey(v, exact):
    """exact: below DENORMAL_KEY exactly when the f32 bits v are a denormal (v << 1 drops the
    sign, a denormal is then 2..0xFFFFFE, and -2 sends zero to the top). Else v << 1, below
    EXPONENT_KEY exactly when v's exponent field is 0 (a zero or a denormal)."""
    s = np.uint32(v << np.uint32(1))
    if exact:
        return np.uint32(s - np.uint32(2))
    return s


@njit(cache=True, inline="always")
def _nkey(v):
    """Above NAN_KEY exactly when the f32 bits v are a NaN (exponent all ones, mantissa not 0)."""
    return np.uint32(v << np.uint32(1))


_CLEAR = np.uint32(0xFFFFFFFF)   # a denormal key that marks nothing


@njit(cache=True, inline="always")
def _plain_add_f32(a, b, c, exact):
    r = fp._f32_to_bits(fp._bits_to_f32(a) + fp._bits_to_f32(b))
    return r, min(_dkey(a, exact), _dkey(b, exact), _dkey(r, exact)), _nkey(r)


@njit(cache=True, inline="always")
def _plain_sub_f32(a, b, c, exact):
    # v_sub_f32 adds the negated S1: the same value, zeros' signs included, when neither is NaN
    r = fp._f32_to_bits(fp._bits_to_f32(a) - fp._bits_to_f32(b))
    return r, min(_dkey(a, exact), _dkey(b, exact), _dkey(r, exact)), _nkey(r)


@njit(cache=True, inline="always")
def _plain_subrev_f32(a, b, c, exact):
    return _plain_sub_f32(b, a, c, exact)


@njit(cache=True, inline="always")
def _plain_mul_f32(a, b, c, exact):
    r = fp._f32_to_bits(fp._bits_to_f32(a) * fp._bits_to_f32(b))
    return r, min(_dkey(a, exact), _dkey(b, exact), _dkey(r, exact)), _nkey(r)


@njit(cache=True, inline="always")
def _plain_mad_f32(a, b, c, exact):
    p = fp._f32_to_bits(fp._bits_to_f32(a) * fp._bits_to_f32(b))
    r = fp._f32_to_bits(fp._bits_to_f32(p) + fp._bits_to_f32(c))
    return r, min(_dkey(a, exact), _dkey(b, exact), _dkey(c, exact), _dkey(p, exact),
                  _dkey(r, exact)), _nkey(r)


@njit(cache=True, inline="always")
def _plain_madmk_f32(a, b, c, exact):
    # D = S0 * K + S1, K passed in S2
    return _plain_mad_f32(a, c, b, exact)


@njit(cache=True, inline="always")
def _plain_fma_f32(a, b, c, exact):
    r = fp._f32_to_bits(fp._fma32(fp._bits_to_f32(a), fp._bits_to_f32(b), fp._bits_to_f32(c)))
    return r, min(_dkey(a, exact), _dkey(b, exact), _dkey(c, exact), _dkey(r, exact)), _nkey(r)


@njit(cache=True, inline="always")
def _plain_rcp_f32(a, b, c, exact):
    # 1/+-0 = +-inf and 1/+-inf = +-0 as on the hardware; a denormal quotient is odd
    r = fp._f32_to_bits(np.float32(1.0) / fp._bits_to_f32(a))
    return r, min(_dkey(a, exact), _dkey(r, exact)), _nkey(r)


@njit(cache=True, inline="always")
def _plain_sqrt_f32(a, b, c, exact):
    # a negative operand gives a host NaN: odd, so the op itself makes the hardware's -NaN
    r = fp._f32_to_bits(np.sqrt(fp._bits_to_f32(a)))
    return r, min(_dkey(a, exact), _dkey(r, exact)), _nkey(r)


#: _plain_rsq_f32's Newton result is odd when its 29 bits below the f32 mantissa are within
#: this many float64 units of a rounding midpoint (0x10000000); see there
RSQ_MIDPOINT_MARGIN = 1024


@njit(cache=True, inline="always")
def _plain_rsq_f32(a, b, c, exact):
    """The f64 evaluation of _fast_rsq32, f32(1 / sqrt(f64(x))), without its f64 square root
    and division, most of the row's time (a row in a one-op loop on the Zen 4: 56 -> 45 ns).

    y0 = 1/sqrt(x) in f32 (two roundings: relative error d < 2**-23) and one Newton step in
    f64, y1 = y0 + (y0/2) * (1 - x*y0*y0) (y0*y0 is exact; the rest adds < 2**-51): y1 is
    within (3/2)d**2 + 2**-51 < 2**-45 of 1/sqrt(x), relatively, and the f64 evaluation within
    2**-52. Both round to the same f32 unless 1/sqrt(x) lies within ~2**-45 of a rounding
    midpoint; so a lane whose y1 lies within RSQ_MIDPOINT_MARGIN float64 units (2**-43 at
    least) of one is odd, and the op itself gives its result. tests/test_valu_row32.py checks
    every mantissa of both exponent parities (x in [1, 4): each step scales exactly by 4 and
    1/2 from there over the normal range). x = +-0 and +inf make the correction NaN; there
    y0 is the result (+-inf, +0), as in f64. Negative x, NaN: a NaN result, odd."""
    x = fp._bits_to_f32(a)
    y0 = np.float32(1.0) / np.sqrt(x)
    xd = np.float64(x)
    yd = np.float64(y0)
    e = 1.0 - xd * (yd * yd)
    y1 = yd + (0.5 * yd) * e
    low = np.uint32(fp._f64_to_bits(y1) & np.uint64(0x1FFFFFFF))
    near = np.uint32(low + np.uint32(RSQ_MIDPOINT_MARGIN - 0x10000000)) & np.uint32(0x1FFFFFFF)
    odd = near <= np.uint32(2 * RSQ_MIDPOINT_MARGIN)
    r = fp._f32_to_bits(np.float32(y1) if e == e else y0)
    return r, min(_dkey(a, exact), _dkey(r, exact), np.uint32(0) if odd else _CLEAR), _nkey(r)


@njit(cache=True, inline="always")
def _plain_div_scale_f32(a, b, c, exact):
    """_quick_div_scale_f32 on uint32 operands: S0 unchanged, VCC clear (odd: not that case).
    Every step is cast back to uint32: numba widens uint32 arithmetic to 64 bits, and the
    row's vectors with it (twice the vector ops)."""
    m = np.uint32(0x7FFFFFFF)
    e1 = np.uint32(b >> np.uint32(23)) & np.uint32(0xFF)
    e2 = np.uint32(c >> np.uint32(23)) & np.uint32(0xFF)
    ok = ((np.uint32((b & m) - np.uint32(0x800000)) < np.uint32(0x7F000000))
          & (np.uint32((c & m) - np.uint32(0x800000)) < np.uint32(0x7F000000))
          & (np.uint32(a & m) < np.uint32(0x7F800000)) & (np.uint32(b & m) <= np.uint32(0x7E800000))
          & (e2 > np.uint32(23))
          # -125 <= e2 - e1 <= 95
          & (np.uint32(e2 + np.uint32(125) - e1) <= np.uint32(220)))
    return a, (_CLEAR if ok else np.uint32(0)), np.uint32(0)


@njit(cache=True, inline="always")
def _plain_div_fixup_f32(a, b, c, exact):
    """_quick_div_fixup_f32 on uint32 operands (odd: not that case)."""
    m = np.uint32(0x7FFFFFFF)
    ok = ((((b & m) - np.uint32(1)) < np.uint32(0x7F7FFFFF))
          & (((c & m) - np.uint32(1)) < np.uint32(0x7F7FFFFF)) & ((a & m) <= np.uint32(0x7F800000)))
    return ((b ^ c) & np.uint32(0x80000000)) | (a & m), (_CLEAR if ok else np.uint32(0)), \
        np.uint32(0)


#: predicate index of _cmp_pred for each f32 compare name (v_cmp_, v_cmpx_, v_cmps_, v_cmpsx_)
CMP_PREDICATES = ("f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle",
                  "neq", "nlt", "tru")


@njit(cache=True, inline="always")
def _plain_cmp_f32(a, b, pred, exact):
    """An f32 compare on uint32 operands as the host compares them: exact unless an operand
    is a denormal (MODE may flush it to zero first) - odd; NaNs are odd too (rare; the op
    itself then decides). Returns (result, denormal key, NaN key) as the plain f32 rows."""
    return _cmp_pred(fp._bits_to_f32(a), fp._bits_to_f32(b), pred), \
        min(_dkey(a, exact), _dkey(b, exact)), max(_nkey(a), _nkey(b))


@njit(cache=True)
def v_div_fixup_f64(s0, s1, s2, cin, lane, mode):
    """f64 division fix-up, same cases as v_div_fixup_f32."""
    a = U64(s0)
    b = U64(s1)
    c = U64(s2)
    neg = ((b ^ c) & U64(_S64)) != 0
    sbit = U64(_S64) if neg else U64(0)
    k = _div_fixup_common(fp.is_nan64(a), fp.is_nan64(b), fp.is_inf64(b),
                          (b & U64(_A64)) == 0, fp.is_nan64(c), fp.is_inf64(c),
                          (c & U64(_A64)) == 0)
    if k == 0:
        return fp.quiet64(c), U64(0)
    if k == 1:
        return fp.quiet64(b), U64(0)
    if k == 2:
        return U64(F64_QNAN), U64(0)
    if k == 3:
        return U64(F64_NEG_QNAN), U64(0)
    if k == 4:
        return sbit | U64(0x7FF0000000000000), U64(0)
    if k == 5:
        return sbit, U64(0)
    return sbit | (a & U64(_A64)), U64(0)


@njit(cache=True)
def v_trig_preop_f64(s0, s1, s2, cin, lane, mode):
    """D = 53-bit segment S1[4:0] of 2/pi (aligned for S0's exponent), see _trig_preop."""
    return _trig_preop(s0, U64(s1) & U64(31)), U64(0)


# =========================================================================== ops: cube map

@njit(cache=True)
def _cube_axis(s0, s1, s2):
    """Major axis of (x, y, z): 2 z, 1 y, 0 x (ties prefer z, then y; CLRX order)."""
    ax = abs(fp.f32_value(s0))
    ay = abs(fp.f32_value(s1))
    az = abs(fp.f32_value(s2))
    if az >= ax and az >= ay:
        return 2
    if ay >= ax:
        return 1
    return 0


@njit(cache=True)
def v_cubeid_f32(s0, s1, s2, cin, lane, mode):
    """Cube face id as a float: 2*axis + (component < 0)."""
    a = U64(s0) & U64(_M32)
    b = U64(s1) & U64(_M32)
    c = U64(s2) & U64(_M32)
    ax = _cube_axis(a, b, c)
    if ax == 2:
        v = c
    elif ax == 1:
        v = b
    else:
        v = a
    face = 2 * ax + (1 if fp.f32_value(v) < 0.0 else 0)
    return fp.pack_f32(float(face), 0.0, RNE, False), U64(0)


@njit(cache=True)
def v_cubema_f32(s0, s1, s2, cin, lane, mode):
    """Cube major axis value times two: 2 * (major component)."""
    a = U64(s0) & U64(_M32)
    b = U64(s1) & U64(_M32)
    c = U64(s2) & U64(_M32)
    ax = _cube_axis(a, b, c)
    v = c if ax == 2 else (b if ax == 1 else a)
    if fp.is_nan32(v):
        return fp.quiet32(v), U64(0)
    if fp.is_inf32(v):
        return v, U64(0)
    return fp.pack_f32(2.0 * fp.f32_value(v), 0.0, fp.rmode32(mode), fp.flush_out32(mode)), U64(0)


@njit(cache=True)
def _neg32(b):
    return (U64(b) & U64(_M32)) ^ U64(_S32)


@njit(cache=True)
def v_cubesc_f32(s0, s1, s2, cin, lane, mode):
    """Cube S coordinate: z major: z<0 ? -x : x; y major: x; x major: x<0 ? z : -z."""
    a = U64(s0) & U64(_M32)
    b = U64(s1) & U64(_M32)
    c = U64(s2) & U64(_M32)
    ax = _cube_axis(a, b, c)
    if ax == 2:
        r = _neg32(a) if fp.f32_value(c) < 0.0 else a
    elif ax == 1:
        r = a
    else:
        r = c if fp.f32_value(a) < 0.0 else _neg32(c)
    return r, U64(0)


@njit(cache=True)
def v_cubetc_f32(s0, s1, s2, cin, lane, mode):
    """Cube T coordinate: z major: -y; y major: y<0 ? -z : z; x major: -y."""
    a = U64(s0) & U64(_M32)
    b = U64(s1) & U64(_M32)
    c = U64(s2) & U64(_M32)
    ax = _cube_axis(a, b, c)
    if ax == 1:
        r = _neg32(c) if fp.f32_value(b) < 0.0 else c
    else:
        r = _neg32(b)
    return r, U64(0)


# =========================================================================== ops: conversions

@njit(cache=True, inline="always", error_model="numpy")
def v_cvt_f32_i32(s0, s1, s2, cin, lane, mode):
    """D = (float)(int32)S0, rounded per MODE."""
    if _rne32(mode):
        return fp.f32_bits(np.float32(np.int32(np.uint32(U64(s0) & U64(_M32))))), U64(0)
    return _int_to_f32(I64(np.int32(np.uint32(U64(s0) & U64(_M32)))), mode), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_cvt_f32_u32(s0, s1, s2, cin, lane, mode):
    """D = (float)(uint32)S0, rounded per MODE."""
    if _rne32(mode):
        return fp.f32_bits(np.float32(np.uint32(U64(s0) & U64(_M32)))), U64(0)
    return _int_to_f32(I64(U64(s0) & U64(_M32)), mode), U64(0)


@njit(cache=True)
def v_cvt_f64_i32(s0, s1, s2, cin, lane, mode):
    """D = (double)(int32)S0 (exact)."""
    v = np.float64(np.int32(np.uint32(U64(s0) & U64(_M32))))
    return fp.f64_bits(v), U64(0)


@njit(cache=True)
def v_cvt_f64_u32(s0, s1, s2, cin, lane, mode):
    """D = (double)(uint32)S0 (exact)."""
    v = np.float64(np.uint32(U64(s0) & U64(_M32)))
    return fp.f64_bits(v), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_cvt_i32_f32(s0, s1, s2, cin, lane, mode):
    """D = (int32)trunc(S0), saturating; NaN -> 0."""
    a = U64(s0) & U64(_M32)
    # call-free: |S0| < 2**31 truncates (a denormal gives 0, flushed or not), the rest saturates
    # by sign
    r = U64(I64(fp.as_f32(a))) & U64(_M32)
    if (a & U64(0x7F800000)) >= U64(0x4F000000):
        r = U64(0x80000000) if (a & U64(_S32)) != 0 else U64(0x7FFFFFFF)
    if fp.is_nan32(a):
        r = U64(0)
    return r, U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_cvt_u32_f32(s0, s1, s2, cin, lane, mode):
    """D = (uint32)trunc(S0), saturating at 0 and 0xffffffff; NaN -> 0."""
    a = U64(s0) & U64(_M32)
    # call-free: 0 <= S0 < 2**32 truncates, larger (+inf too) saturates, negative or NaN -> 0
    r = U64(I64(fp.as_f32(a))) & U64(_M32)
    if a >= U64(0x4F800000):
        r = U64(_M32)
    if a > U64(0x7F800000):
        r = U64(0)
    return r, U64(0)


@njit(cache=True)
def v_cvt_i32_f64(s0, s1, s2, cin, lane, mode):
    """D = (int32)trunc(S0 f64), saturating; NaN -> 0."""
    a = U64(s0)
    if fp.is_nan64(a):
        return U64(0), U64(0)
    return _f_to_i32(fp.in64(a, mode), -2147483648.0, 2147483647.0), U64(0)


@njit(cache=True)
def v_cvt_u32_f64(s0, s1, s2, cin, lane, mode):
    """D = (uint32)trunc(S0 f64), saturating; NaN -> 0."""
    a = U64(s0)
    if fp.is_nan64(a):
        return U64(0), U64(0)
    return _f_to_i32(fp.in64(a, mode), 0.0, 4294967295.0), U64(0)


@njit(cache=True)
def v_cvt_flr_i32_f32(s0, s1, s2, cin, lane, mode):
    """D = (int32)floor(S0), saturating; NaN -> INT_MAX / INT_MIN by its sign (CLRX)."""
    a = U64(s0) & U64(_M32)
    if fp.is_nan32(a):
        return (U64(0x80000000) if (a & U64(_S32)) != 0 else U64(0x7FFFFFFF)), U64(0)
    return _f_to_i32(np.floor(fp.in32(a, mode)), -2147483648.0, 2147483647.0), U64(0)


@njit(cache=True)
def v_cvt_rpi_i32_f32(s0, s1, s2, cin, lane, mode):
    """D = (int32)floor(S0 + 0.5) with the +0.5 done in f32 (RNE), saturating; NaN -> INT_MAX /
    INT_MIN by its sign (CLRX)."""
    a = U64(s0) & U64(_M32)
    if fp.is_nan32(a):
        return (U64(0x80000000) if (a & U64(_S32)) != 0 else U64(0x7FFFFFFF)), U64(0)
    fi = fp.flush_in32(mode)
    h = _add32(a, U64(0x3F000000), mode & ~0x3, fi, False)
    return _f_to_i32(np.floor(fp.f32_value(h)), -2147483648.0, 2147483647.0), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_cvt_f32_f64(s0, s1, s2, cin, lane, mode):
    """D = (float)S0, rounded per the f32 MODE rounding; overflow -> inf/MAX per mode."""
    a = U64(s0)
    ex = (a >> U64(52)) & U64(0x7FF)
    if _rne32(mode) and ex >= U64(897) and ex <= U64(1150):
        # f32 normal range: fptrunc rounds RNE; a rounding overflow to inf is RNE's too
        return fp.f32_bits(np.float32(fp.as_f64(a))), U64(0)
    if fp.is_nan64(a):
        return (((a >> U64(32)) & U64(_S32)) | U64(0x7FC00000)
                | ((a >> U64(29)) & U64(0x7FFFFF))), U64(0)
    if fp.is_inf64(a):
        return ((a >> U64(32)) & U64(_S32)) | U64(0x7F800000), U64(0)
    a = fp.flush64(a, fp.flush_in64(mode))
    if (a & U64(_A64)) == 0:
        return (a >> U64(32)) & U64(_S32), U64(0)
    sign, m, e = fp.decompose64(fp.as_f64(a))
    return fp.round_pack(sign, m, e, False, 23, 8, fp.rmode32(mode), fp.flush_out32(mode)), U64(0)


@njit(cache=True, inline="always", error_model="numpy")
def v_cvt_f64_f32(s0, s1, s2, cin, lane, mode):
    """D = (double)S0 (exact; NaN payload kept and quieted)."""
    a = U64(s0) & U64(_M32)
    r = fp.f64_bits(np.float64(fp.as_f32(fp.flush32(a, fp.flush_in32(mode)))))
    if fp.is_nan32(a):
        r = (((a & U64(_S32)) << U64(32)) | U64(0x7FF8000000000000)
             | ((a & U64(0x7FFFFF)) << U64(29)))
    return r, U64(0)


@njit(cache=True)
def v_cvt_f16_f32(s0, s1, s2, cin, lane, mode):
    """D[15:0] = f16(S0) rounded per the f32 MODE rounding; denormals kept (gfx7)."""
    return fp.f32_to_f16_bits(U64(s0), fp.rmode32(mode), False), U64(0)


@njit(cache=True)
def v_cvt_f32_f16(s0, s1, s2, cin, lane, mode):
    """D = (float)f16(S0[15:0]) (exact; denormals kept on gfx7)."""
    return fp.f16_to_f32_bits(U64(s0) & U64(0xFFFF)), U64(0)


@njit(cache=True)
def v_cvt_pkrtz_f16_f32(s0, s1, s2, cin, lane, mode):
    """D = f16_rtz(S0) | f16_rtz(S1) << 16 (round toward zero, denormals kept)."""
    lo = fp.f32_to_f16_bits(U64(s0), RTZ, False)
    hi = fp.f32_to_f16_bits(U64(s1), RTZ, False)
    return lo | (hi << U64(16)), U64(0)


@njit(cache=True)
def v_cvt_pknorm_i16_f32(s0, s1, s2, cin, lane, mode):
    """D = snorm16(S0) | snorm16(S1) << 16, snorm16(x) = clamp(rne(x*32767), -32767, 32767)."""
    lo = _norm16(s0, 32767.0, -32767.0, mode)
    hi = _norm16(s1, 32767.0, -32767.0, mode)
    return lo | (hi << U64(16)), U64(0)


@njit(cache=True)
def v_cvt_pknorm_u16_f32(s0, s1, s2, cin, lane, mode):
    """D = unorm16(S0) | unorm16(S1) << 16, unorm16(x) = clamp(rne(x*65535), 0, 65535)."""
    lo = _norm16(s0, 65535.0, 0.0, mode)
    hi = _norm16(s1, 65535.0, 0.0, mode)
    return lo | (hi << U64(16)), U64(0)


@njit(cache=True)
def v_cvt_pk_i16_i32(s0, s1, s2, cin, lane, mode):
    """D = sat_i16(S0) | sat_i16(S1) << 16."""
    a = I64(np.int32(np.uint32(U64(s0) & U64(_M32))))
    b = I64(np.int32(np.uint32(U64(s1) & U64(_M32))))
    a = min(max(a, -32768), 32767)
    b = min(max(b, -32768), 32767)
    return (U64(a) & U64(0xFFFF)) | ((U64(b) & U64(0xFFFF)) << U64(16)), U64(0)


@njit(cache=True)
def v_cvt_pk_u16_u32(s0, s1, s2, cin, lane, mode):
    """D = min(S0, 0xffff) | min(S1, 0xffff) << 16."""
    a = min(U64(s0) & U64(_M32), U64(0xFFFF))
    b = min(U64(s1) & U64(_M32), U64(0xFFFF))
    return a | (b << U64(16)), U64(0)


@njit(cache=True)
def v_cvt_pk_u8_f32(s0, s1, s2, cin, lane, mode):
    """D = (S2 & ~(0xff << 8*S1[1:0])) | u8(S0) << 8*S1[1:0]; u8 rounds per MODE, saturates,
    NaN -> 0."""
    sh = (U64(s1) & U64(3)) * U64(8)
    mask = U64(0xFF) << sh
    return ((U64(s2) & U64(_M32)) & ~mask) | (_to_u8(s0, mode) << sh), U64(0)


@njit(cache=True)
def v_cvt_pkaccum_u8_f32(s0, s1, s2, cin, lane, mode):
    """Like v_cvt_pk_u8_f32 but merges into the old D, which the engine passes in s2."""
    sh = (U64(s1) & U64(3)) * U64(8)
    mask = U64(0xFF) << sh
    return ((U64(s2) & U64(_M32)) & ~mask) | (_to_u8(s0, mode) << sh), U64(0)


@njit(cache=True)
def v_cvt_off_f32_i4(s0, s1, s2, cin, lane, mode):
    """D = ((S0 & 0xf) ^ 8) / 16 - 0.5 (4-bit signed offset to float, exact)."""
    v = np.float64((U64(s0) & U64(0xF)) ^ U64(8)) / 16.0 - 0.5
    return fp.pack_f32(v, 0.0, RNE, False), U64(0)


@njit(cache=True)
def v_cvt_f32_ubyte0(s0, s1, s2, cin, lane, mode):
    """D = (float)(S0 & 0xff)."""
    return fp.pack_f32(np.float64(U64(s0) & U64(0xFF)), 0.0, RNE, False), U64(0)


@njit(cache=True)
def v_cvt_f32_ubyte1(s0, s1, s2, cin, lane, mode):
    """D = (float)((S0 >> 8) & 0xff)."""
    return fp.pack_f32(np.float64((U64(s0) >> U64(8)) & U64(0xFF)), 0.0, RNE, False), U64(0)


@njit(cache=True)
def v_cvt_f32_ubyte2(s0, s1, s2, cin, lane, mode):
    """D = (float)((S0 >> 16) & 0xff)."""
    return fp.pack_f32(np.float64((U64(s0) >> U64(16)) & U64(0xFF)), 0.0, RNE, False), U64(0)


@njit(cache=True)
def v_cvt_f32_ubyte3(s0, s1, s2, cin, lane, mode):
    """D = (float)((S0 >> 24) & 0xff)."""
    return fp.pack_f32(np.float64((U64(s0) >> U64(24)) & U64(0xFF)), 0.0, RNE, False), U64(0)


@njit(cache=True)
def v_lerp_u8(s0, s1, s2, cin, lane, mode):
    """Per byte: D.b = (S0.b + S1.b + (S2.b & 1)) >> 1."""
    r = U64(0)
    for i in range(4):
        sh = U64(8 * i)
        a = (U64(s0) >> sh) & U64(0xFF)
        b = (U64(s1) >> sh) & U64(0xFF)
        c = (U64(s2) >> sh) & U64(1)
        r |= (((a + b + c) >> U64(1)) & U64(0xFF)) << sh
    return r, U64(0)


# =========================================================================== ops: VOPC
# v_cmpx_* (EXEC write done by the engine), v_cmps_* / v_cmpsx_* (signalling: differ only in
# exceptions) compute the same bit and are aliases of their v_cmp_* twin.

@njit(cache=True)
def v_cmp_f_f32(s0, s1, s2, cin, lane, mode):
    """flag = false (f32, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp32(s0, s1, 0, mode)

@njit(cache=True)
def v_cmp_lt_f32(s0, s1, s2, cin, lane, mode):
    """flag = S0 < S1 (f32, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp32(s0, s1, 1, mode)

@njit(cache=True)
def v_cmp_eq_f32(s0, s1, s2, cin, lane, mode):
    """flag = S0 == S1 (f32, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp32(s0, s1, 2, mode)

@njit(cache=True)
def v_cmp_le_f32(s0, s1, s2, cin, lane, mode):
    """flag = S0 <= S1 (f32, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp32(s0, s1, 3, mode)

@njit(cache=True)
def v_cmp_gt_f32(s0, s1, s2, cin, lane, mode):
    """flag = S0 > S1 (f32, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp32(s0, s1, 4, mode)

@njit(cache=True)
def v_cmp_lg_f32(s0, s1, s2, cin, lane, mode):
    """flag = S0 <> S1 (ordered, not equal) (f32, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp32(s0, s1, 5, mode)

@njit(cache=True)
def v_cmp_ge_f32(s0, s1, s2, cin, lane, mode):
    """flag = S0 >= S1 (f32, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp32(s0, s1, 6, mode)

@njit(cache=True)
def v_cmp_o_f32(s0, s1, s2, cin, lane, mode):
    """flag = both ordered (no NaN) (f32, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp32(s0, s1, 7, mode)

@njit(cache=True)
def v_cmp_u_f32(s0, s1, s2, cin, lane, mode):
    """flag = unordered (a NaN) (f32, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp32(s0, s1, 8, mode)

@njit(cache=True)
def v_cmp_nge_f32(s0, s1, s2, cin, lane, mode):
    """flag = !(S0 >= S1) (f32, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp32(s0, s1, 9, mode)

@njit(cache=True)
def v_cmp_nlg_f32(s0, s1, s2, cin, lane, mode):
    """flag = !(S0 <> S1) (f32, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp32(s0, s1, 10, mode)

@njit(cache=True)
def v_cmp_ngt_f32(s0, s1, s2, cin, lane, mode):
    """flag = !(S0 > S1) (f32, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp32(s0, s1, 11, mode)

@njit(cache=True)
def v_cmp_nle_f32(s0, s1, s2, cin, lane, mode):
    """flag = !(S0 <= S1) (f32, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp32(s0, s1, 12, mode)

@njit(cache=True)
def v_cmp_neq_f32(s0, s1, s2, cin, lane, mode):
    """flag = !(S0 == S1) (f32, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp32(s0, s1, 13, mode)

@njit(cache=True)
def v_cmp_nlt_f32(s0, s1, s2, cin, lane, mode):
    """flag = !(S0 < S1) (f32, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp32(s0, s1, 14, mode)

@njit(cache=True)
def v_cmp_tru_f32(s0, s1, s2, cin, lane, mode):
    """flag = true (f32, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp32(s0, s1, 15, mode)

@njit(cache=True)
def v_cmp_f_f64(s0, s1, s2, cin, lane, mode):
    """flag = false (f64, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp64(s0, s1, 0, mode)

@njit(cache=True)
def v_cmp_lt_f64(s0, s1, s2, cin, lane, mode):
    """flag = S0 < S1 (f64, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp64(s0, s1, 1, mode)

@njit(cache=True)
def v_cmp_eq_f64(s0, s1, s2, cin, lane, mode):
    """flag = S0 == S1 (f64, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp64(s0, s1, 2, mode)

@njit(cache=True)
def v_cmp_le_f64(s0, s1, s2, cin, lane, mode):
    """flag = S0 <= S1 (f64, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp64(s0, s1, 3, mode)

@njit(cache=True)
def v_cmp_gt_f64(s0, s1, s2, cin, lane, mode):
    """flag = S0 > S1 (f64, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp64(s0, s1, 4, mode)

@njit(cache=True)
def v_cmp_lg_f64(s0, s1, s2, cin, lane, mode):
    """flag = S0 <> S1 (ordered, not equal) (f64, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp64(s0, s1, 5, mode)

@njit(cache=True)
def v_cmp_ge_f64(s0, s1, s2, cin, lane, mode):
    """flag = S0 >= S1 (f64, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp64(s0, s1, 6, mode)

@njit(cache=True)
def v_cmp_o_f64(s0, s1, s2, cin, lane, mode):
    """flag = both ordered (no NaN) (f64, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp64(s0, s1, 7, mode)

@njit(cache=True)
def v_cmp_u_f64(s0, s1, s2, cin, lane, mode):
    """flag = unordered (a NaN) (f64, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp64(s0, s1, 8, mode)

@njit(cache=True)
def v_cmp_nge_f64(s0, s1, s2, cin, lane, mode):
    """flag = !(S0 >= S1) (f64, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp64(s0, s1, 9, mode)

@njit(cache=True)
def v_cmp_nlg_f64(s0, s1, s2, cin, lane, mode):
    """flag = !(S0 <> S1) (f64, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp64(s0, s1, 10, mode)

@njit(cache=True)
def v_cmp_ngt_f64(s0, s1, s2, cin, lane, mode):
    """flag = !(S0 > S1) (f64, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp64(s0, s1, 11, mode)

@njit(cache=True)
def v_cmp_nle_f64(s0, s1, s2, cin, lane, mode):
    """flag = !(S0 <= S1) (f64, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp64(s0, s1, 12, mode)

@njit(cache=True)
def v_cmp_neq_f64(s0, s1, s2, cin, lane, mode):
    """flag = !(S0 == S1) (f64, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp64(s0, s1, 13, mode)

@njit(cache=True)
def v_cmp_nlt_f64(s0, s1, s2, cin, lane, mode):
    """flag = !(S0 < S1) (f64, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp64(s0, s1, 14, mode)

@njit(cache=True)
def v_cmp_tru_f64(s0, s1, s2, cin, lane, mode):
    """flag = true (f64, NaN unordered, denormals flushed per MODE)."""
    return U64(0), _cmp64(s0, s1, 15, mode)

@njit(cache=True)
def v_cmp_class_f32(s0, s1, s2, cin, lane, mode):
    """flag = bit class(S0) of the mask S1 (0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal,
    5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf); no denormal flushing."""
    return U64(0), _class32(s0, s1)

@njit(cache=True)
def v_cmp_class_f64(s0, s1, s2, cin, lane, mode):
    """flag = bit class(S0) of the mask S1 (0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal,
    5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf); no denormal flushing."""
    return U64(0), _class64(s0, s1)


v_cmpx_f_f32 = v_cmp_f_f32
v_cmps_f_f32 = v_cmp_f_f32
v_cmpsx_f_f32 = v_cmp_f_f32
v_cmpx_lt_f32 = v_cmp_lt_f32
v_cmps_lt_f32 = v_cmp_lt_f32
v_cmpsx_lt_f32 = v_cmp_lt_f32
v_cmpx_eq_f32 = v_cmp_eq_f32
v_cmps_eq_f32 = v_cmp_eq_f32
v_cmpsx_eq_f32 = v_cmp_eq_f32
v_cmpx_le_f32 = v_cmp_le_f32
v_cmps_le_f32 = v_cmp_le_f32
v_cmpsx_le_f32 = v_cmp_le_f32
v_cmpx_gt_f32 = v_cmp_gt_f32
v_cmps_gt_f32 = v_cmp_gt_f32
v_cmpsx_gt_f32 = v_cmp_gt_f32
v_cmpx_lg_f32 = v_cmp_lg_f32
v_cmps_lg_f32 = v_cmp_lg_f32
v_cmpsx_lg_f32 = v_cmp_lg_f32
v_cmpx_ge_f32 = v_cmp_ge_f32
v_cmps_ge_f32 = v_cmp_ge_f32
v_cmpsx_ge_f32 = v_cmp_ge_f32
v_cmpx_o_f32 = v_cmp_o_f32
v_cmps_o_f32 = v_cmp_o_f32
v_cmpsx_o_f32 = v_cmp_o_f32
v_cmpx_u_f32 = v_cmp_u_f32
v_cmps_u_f32 = v_cmp_u_f32
v_cmpsx_u_f32 = v_cmp_u_f32
v_cmpx_nge_f32 = v_cmp_nge_f32
v_cmps_nge_f32 = v_cmp_nge_f32
v_cmpsx_nge_f32 = v_cmp_nge_f32
v_cmpx_nlg_f32 = v_cmp_nlg_f32
v_cmps_nlg_f32 = v_cmp_nlg_f32
v_cmpsx_nlg_f32 = v_cmp_nlg_f32
v_cmpx_ngt_f32 = v_cmp_ngt_f32
v_cmps_ngt_f32 = v_cmp_ngt_f32
v_cmpsx_ngt_f32 = v_cmp_ngt_f32
v_cmpx_nle_f32 = v_cmp_nle_f32
v_cmps_nle_f32 = v_cmp_nle_f32
v_cmpsx_nle_f32 = v_cmp_nle_f32
v_cmpx_neq_f32 = v_cmp_neq_f32
v_cmps_neq_f32 = v_cmp_neq_f32
v_cmpsx_neq_f32 = v_cmp_neq_f32
v_cmpx_nlt_f32 = v_cmp_nlt_f32
v_cmps_nlt_f32 = v_cmp_nlt_f32
v_cmpsx_nlt_f32 = v_cmp_nlt_f32
v_cmpx_tru_f32 = v_cmp_tru_f32
v_cmps_tru_f32 = v_cmp_tru_f32
v_cmpsx_tru_f32 = v_cmp_tru_f32
v_cmpx_f_f64 = v_cmp_f_f64
v_cmps_f_f64 = v_cmp_f_f64
v_cmpsx_f_f64 = v_cmp_f_f64
v_cmpx_lt_f64 = v_cmp_lt_f64
v_cmps_lt_f64 = v_cmp_lt_f64
v_cmpsx_lt_f64 = v_cmp_lt_f64
v_cmpx_eq_f64 = v_cmp_eq_f64
v_cmps_eq_f64 = v_cmp_eq_f64
v_cmpsx_eq_f64 = v_cmp_eq_f64
v_cmpx_le_f64 = v_cmp_le_f64
v_cmps_le_f64 = v_cmp_le_f64
v_cmpsx_le_f64 = v_cmp_le_f64
v_cmpx_gt_f64 = v_cmp_gt_f64
v_cmps_gt_f64 = v_cmp_gt_f64
v_cmpsx_gt_f64 = v_cmp_gt_f64
v_cmpx_lg_f64 = v_cmp_lg_f64
v_cmps_lg_f64 = v_cmp_lg_f64
v_cmpsx_lg_f64 = v_cmp_lg_f64
v_cmpx_ge_f64 = v_cmp_ge_f64
v_cmps_ge_f64 = v_cmp_ge_f64
v_cmpsx_ge_f64 = v_cmp_ge_f64
v_cmpx_o_f64 = v_cmp_o_f64
v_cmps_o_f64 = v_cmp_o_f64
v_cmpsx_o_f64 = v_cmp_o_f64
v_cmpx_u_f64 = v_cmp_u_f64
v_cmps_u_f64 = v_cmp_u_f64
v_cmpsx_u_f64 = v_cmp_u_f64
v_cmpx_nge_f64 = v_cmp_nge_f64
v_cmps_nge_f64 = v_cmp_nge_f64
v_cmpsx_nge_f64 = v_cmp_nge_f64
v_cmpx_nlg_f64 = v_cmp_nlg_f64
v_cmps_nlg_f64 = v_cmp_nlg_f64
v_cmpsx_nlg_f64 = v_cmp_nlg_f64
v_cmpx_ngt_f64 = v_cmp_ngt_f64
v_cmps_ngt_f64 = v_cmp_ngt_f64
v_cmpsx_ngt_f64 = v_cmp_ngt_f64
v_cmpx_nle_f64 = v_cmp_nle_f64
v_cmps_nle_f64 = v_cmp_nle_f64
v_cmpsx_nle_f64 = v_cmp_nle_f64
v_cmpx_neq_f64 = v_cmp_neq_f64
v_cmps_neq_f64 = v_cmp_neq_f64
v_cmpsx_neq_f64 = v_cmp_neq_f64
v_cmpx_nlt_f64 = v_cmp_nlt_f64
v_cmps_nlt_f64 = v_cmp_nlt_f64
v_cmpsx_nlt_f64 = v_cmp_nlt_f64
v_cmpx_tru_f64 = v_cmp_tru_f64
v_cmps_tru_f64 = v_cmp_tru_f64
v_cmpsx_tru_f64 = v_cmp_tru_f64
v_cmpx_class_f32 = v_cmp_class_f32
v_cmpx_class_f64 = v_cmp_class_f64


def _collect():
    """Every op of this module: the numba functions (and aliases) named like a mnemonic."""
    return {name: fn for name, fn in sorted(globals().items())
            if name.startswith("v_") and hasattr(fn, "py_func")}


#: mnemonic -> per-lane semantics function (every op of the gfx7 float/convert/compare list)
SEMANTICS = _collect()

#: op -> its quick lane form (result, flag, ok) for the row kernels (see "division fast rows")
ROW_FAST = {
    "v_div_scale_f32": _quick_div_scale_f32,
    "v_div_fmas_f32": _quick_div_fmas_f32,
    "v_div_fixup_f32": _quick_div_fixup_f32,
}

#: op -> its plain round-to-nearest-even form on uint32 operands (see "plain f32 rows")
PLAIN32 = {
    "v_add_f32": _plain_add_f32,
    "v_sub_f32": _plain_sub_f32,
    "v_subrev_f32": _plain_subrev_f32,
    "v_mul_f32": _plain_mul_f32,
    "v_mad_f32": _plain_mad_f32,
    "v_mac_f32": _plain_mad_f32,
    "v_madak_f32": _plain_mad_f32,
    "v_madmk_f32": _plain_madmk_f32,
    "v_fma_f32": _plain_fma_f32,
    "v_div_fmas_f32": _plain_fma_f32,     # where no active lane has VCC set
    "v_rcp_f32": _plain_rcp_f32,
    "v_sqrt_f32": _plain_sqrt_f32,
    "v_rsq_f32": _plain_rsq_f32,
    "v_div_scale_f32": _plain_div_scale_f32,
    "v_div_fixup_f32": _plain_div_fixup_f32,
}
