"""Small numpy helpers shared by the kernel specs' golden references (no emulator code)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

FLT_MIN = np.float32(np.finfo(np.float32).tiny)


def ftz32(x):
    """Flush float32 denormals to signed zero (gfx7 with FP_DENORM f32 = 0, the clang default)."""
    x = np.asarray(x, dtype=np.float32)
    return np.where(np.abs(x) < FLT_MIN, np.copysign(np.float32(0), x), x).astype(np.float32)


def round_fraction_f32(fr: Fraction) -> np.float32:
    """Round an exact rational to the nearest float32 (ties to even), no double rounding."""
    return np.float32(_round_fraction(fr, 24, -126, 127))


def round_fraction_f64(fr: Fraction) -> np.float64:
    """Round an exact rational to the nearest float64 (Python's float(Fraction) is exact-RNE)."""
    return np.float64(float(fr))


def _round_fraction(fr: Fraction, prec: int, emin: int, emax: int) -> float:
    if fr == 0:
        return 0.0
    sign = -1 if fr < 0 else 1
    a = abs(fr)
    # exponent e with 2**e <= a < 2**(e+1)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)
    scale = prec - 1 - e  # ulp = 2**-scale
    scaled = a * Fraction(2) ** scale
    q, r = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * r
    if twice > scaled.denominator or (twice == scaled.denominator and q & 1):
        q += 1
    val = Fraction(q) / Fraction(2) ** scale
    if val >= Fraction(2) ** (emax + 1):
        return sign * float("inf")
    return sign * float(val)


def fma32(a, b, c):
    """Correctly rounded float32 fused multiply-add, elementwise (exact rationals)."""
    a, b, c = (np.asarray(v, dtype=np.float32).ravel() for v in (a, b, c))
    out = np.empty(a.size, np.float32)
    for i in range(a.size):
        out[i] = round_fraction_f32(Fraction(float(a[i])) * Fraction(float(b[i]))
                                    + Fraction(float(c[i])))
    return out


def fma64(a, b, c):
    """Correctly rounded float64 fused multiply-add, elementwise (exact rationals)."""
    a, b, c = (np.asarray(v, dtype=np.float64).ravel() for v in (a, b, c))
    out = np.empty(a.size, np.float64)
    for i in range(a.size):
        out[i] = float(Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i])))
    return out


def mad32(a, b, c):
    """gfx7 v_mad_f32 / v_mac_f32: round(round(a*b) + c), denormals flushed (in and out)."""
    a, b, c = ftz32(a), ftz32(b), ftz32(c)
    return ftz32(ftz32(a * b) + c)
