"""Floating-point VALU through the engine, 64 lanes per snippet, against independent
references: exact rational arithmetic (fractions.Fraction) rounded to nearest-even by a
rounding function written here, numpy/struct conversions, Python float comparisons.

Default snippet MODE (0x3F0): round to nearest even, f32/f64 denormals kept, DX10 clamp, IEEE.
"""
import math
import random
from fractions import Fraction

import numpy as np
from hypothesis import given, settings, strategies as st, HealthCheck

from snippets import M32, run, f2u, u2f, d2u, u2d, sgn

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
MODE_FLUSH_F32 = 0x3C0      # f32 denormals flushed (in and out), f64 kept, DX10 clamp, IEEE


# --- exact rounding ---------------------------------------------------------------------------
def round_to(q: Fraction, mant: int, emin: int, emax: int, neg_zero=False):
    """Round a rational to the nearest binary float (ties to even) with `mant` fraction bits,
    minimum normal exponent emin, overflow at 2^(emax+1). Returns a Python float (exact)."""
    if q == 0:
        return -0.0 if neg_zero else 0.0
    sign = -1 if q < 0 else 1
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    quantum = Fraction(2) ** (max(e, emin) - mant)
    n = a / quantum
    fl = n.numerator // n.denominator
    rem = n - fl
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2 == 1):
        fl += 1
    r = fl * quantum
    if r >= Fraction(2) ** (emax + 1):
        return sign * math.inf
    if r == 0:
        return -0.0 if sign < 0 else 0.0
    return sign * float(r)   # exact: r has <= 53 significant bits and is in double range


def r32(q, neg_zero=False):
    return f2u(round_to(q, 23, -126, 127, neg_zero))


def r64(q, neg_zero=False):
    return d2u(round_to(q, 52, -1022, 1023, neg_zero))


def F(bits, n=32):
    """Exact value of finite float bits."""
    return Fraction(u2f(bits)) if n == 32 else Fraction(u2d(bits))


def is_nan32(b):
    return (b & 0x7F800000) == 0x7F800000 and (b & 0x7FFFFF) != 0


def is_finite32(b):
    return (b & 0x7F800000) != 0x7F800000


EDGE_F32 = [0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x00000001, 0x80000001, 0x007FFFFF,
            0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x33800000, 0x34000000, 0x3F800001, 0x4B000000,
            0x3F000000, 0x40490FDB, 0x00400000]


def f32_lanes(rng, n=64, finite=True):
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.3:
            b = rng.choice(EDGE_F32)
        elif r < 0.5:   # values near 1 (ties and cancellation)
            b = (rng.randrange(0x3F000000, 0x40000000)) | (rng.getrandbits(1) << 31)
        elif r < 0.6:   # denormals
            b = rng.randrange(0, 0x800000) | (rng.getrandbits(1) << 31)
        else:
            b = rng.getrandbits(32)
        if finite and not is_finite32(b):
            b &= 0xBF7FFFFF
        out.append(b)
    return out


def arr(vals):
    return np.array([v & M32 for v in vals], np.uint32)


def sum_zero_sign(a_bits, b_bits):
    """IEEE sign of an exact-zero sum under round-to-nearest: -0 only for (-0) + (-0)."""
    return (a_bits & 0x80000000) != 0 and (b_bits & 0x80000000) != 0 and \
        (a_bits & 0x7FFFFFFF) == 0 and (b_bits & 0x7FFFFFFF) == 0


def ref_add(a, b):
    q = F(a) + F(b)
    return r32(q, neg_zero=sum_zero_sign(a, b))


def ref_mul(a, b):
    return r32(F(a) * F(b), neg_zero=bool((a ^ b) >> 31))


def ref_fma(a, b, c):
    p = F(a) * F(b)
    q = p + F(c)
    if q == 0:
        pneg = bool((a ^ b) >> 31)
        cneg = bool(c >> 31)
        nz = pneg and cneg if (p == 0 and F(c) == 0) else False
        return r32(q, neg_zero=nz)
    return r32(q)


def result_ok(got, exp):
    if is_nan32(exp):
        return is_nan32(got)
    return got == exp


def _check(st, reg, exp, label, inputs):
    got = [int(x) for x in st.vgpr[reg]]
    for l in range(64):
        if not result_ok(got[l], exp[l]):
            raise AssertionError(f"{label} lane {l}: inputs {[hex(i[l]) for i in inputs]} "
                                 f"got {got[l]:#010x} ({u2f(got[l])!r}) expected {exp[l]:#010x} "
                                 f"({u2f(exp[l])!r})")


@SETTINGS
@given(seed=st.integers(0, 2**32))
def test_f32_add_sub_mul_fma_exact_rounding(seed):
    rng = random.Random(seed)
    a, b, c = f32_lanes(rng), f32_lanes(rng), f32_lanes(rng)
    st = run("""
    v_add_f32 v10, v0, v1
    v_sub_f32 v11, v0, v1
    v_subrev_f32 v12, v0, v1
    v_mul_f32 v13, v0, v1
    v_fma_f32 v14, v0, v1, v2
    """, vgpr={0: arr(a), 1: arr(b), 2: arr(c)})
    ins = (a, b, c)
    _check(st, 10, [ref_add(x, y) for x, y in zip(a, b)], "v_add_f32", ins)
    _check(st, 11, [ref_add(x, y ^ 0x80000000) for x, y in zip(a, b)], "v_sub_f32", ins)
    _check(st, 12, [ref_add(y, x ^ 0x80000000) for x, y in zip(a, b)], "v_subrev_f32", ins)
    _check(st, 13, [ref_mul(x, y) for x, y in zip(a, b)], "v_mul_f32", ins)
    _check(st, 14, [ref_fma(x, y, z) for x, y, z in zip(a, b, c)], "v_fma_f32", ins)


def test_f32_ties_round_to_even():
    one = 0x3F800000
    ulp_half = f2u(2.0 ** -24)
    pairs = [(one, ulp_half), (f2u(1 + 2.0 ** -23), ulp_half), (f2u(-1.0), f2u(-(2.0 ** -24))),
             (f2u(2.0 ** 24), one), (f2u(2.0 ** 24 + 2), one), (0x00000001, 0x00000001),
             (0x007FFFFF, 0x00000001), (0x7F7FFFFF, f2u(2.0 ** 103)), (0x7F7FFFFF, f2u(2.0 ** 104))]
    pairs = (pairs * 8)[:64]
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    st = run("v_add_f32 v10, v0, v1", vgpr={0: arr(a), 1: arr(b)})
    exp = [ref_add(x, y) for x, y in zip(a, b)]
    _check(st, 10, exp, "v_add_f32 ties", (a, b))
    # spot-check the reference itself against known IEEE results
    assert exp[0] == one and exp[1] == f2u(1 + 2.0 ** -22) and exp[3] == f2u(2.0 ** 24)
    assert exp[4] == f2u(2.0 ** 24 + 4) and exp[5] == 2 and exp[6] == 0x00800000
    assert exp[7] == 0x7F800000 and exp[8] == 0x7F800000   # MAX + ulp/2: tie to even = overflow


def test_f32_denormals_kept_and_flushed():
    a = [0x00000001, 0x00400000, 0x80000003, f2u(2.0 ** -100), 0x00800000] * 13
    a = a[:64]
    b = [0x00000001, 0x3F800000, 0x3F800000, f2u(2.0 ** -40), f2u(0.5)] * 13
    b = b[:64]
    src = "v_add_f32 v10, v0, v1\nv_mul_f32 v11, v0, v1"
    st = run(src, vgpr={0: arr(a), 1: arr(b)})               # denormals kept
    _check(st, 10, [ref_add(x, y) for x, y in zip(a, b)], "add denorm", (a, b))
    _check(st, 11, [ref_mul(x, y) for x, y in zip(a, b)], "mul denorm", (a, b))
    st = run(src, vgpr={0: arr(a), 1: arr(b)}, mode=MODE_FLUSH_F32)

    def flush(x):
        return x & 0x80000000 if (x & 0x7F800000) == 0 else x
    exp_add = [flush(ref_add(flush(x), flush(y))) for x, y in zip(a, b)]
    exp_mul = [flush(ref_mul(flush(x), flush(y))) for x, y in zip(a, b)]
    for l in range(64):
        # a flushed result is a zero; its sign is not pinned down here
        for reg, exp in ((10, exp_add), (11, exp_mul)):
            g = int(st.vgpr[reg][l])
            if exp[l] & 0x7FFFFFFF == 0:
                assert g & 0x7FFFFFFF == 0, (reg, l, hex(g))
            else:
                assert g == exp[l], (reg, l, hex(g), hex(exp[l]))


def test_v_mad_vs_fma_double_rounding():
    # a*b = 1 + 2^-11 + 2^-24 (a tie in f32); c = -1.
    # fma rounds once: 2^-11 + 2^-24 (exact). mad rounds a*b first to 1 + 2^-11: result 2^-11.
    a = b = f2u(1 + 2.0 ** -12)
    c = f2u(-1.0)
    exact = Fraction(u2f(a)) * Fraction(u2f(b)) + Fraction(u2f(c))
    assert exact == Fraction(2) ** -11 + Fraction(2) ** -24
    st = run("v_fma_f32 v10, v0, v1, v2\nv_mad_f32 v11, v0, v1, v2\n"
             "v_mov_b32 v12, v2\nv_mac_f32 v12, v0, v1",
             vgpr={0: a, 1: b, 2: c})
    fma = r32(exact)
    mad = r32(Fraction(u2f(r32(Fraction(u2f(a)) * Fraction(u2f(b))))) + Fraction(u2f(c)))
    assert fma == f2u(2.0 ** -11 + 2.0 ** -24) and mad == f2u(2.0 ** -11)
    assert (st.vgpr[10] == fma).all()
    assert (st.vgpr[11] == mad).all()
    assert (st.vgpr[12] == mad).all()


def test_v_mul_legacy_zero_times_anything():
    a = [0x00000000, 0x80000000, 0x7F800000, 0x7FC00000, 0x3F800000, 0x00000000, 0x40000000] * 10
    b = [0x7F800000, 0x7FC00000, 0x00000000, 0x00000000, 0x40400000, 0xFF800000, 0x7F800000] * 10
    a, b = a[:64], b[:64]
    st = run("v_mul_legacy_f32 v10, v0, v1\nv_mul_f32 v11, v0, v1\n"
             "v_mov_b32 v12, v2\nv_mac_legacy_f32 v12, v0, v1", vgpr={0: arr(a), 1: arr(b), 2: 0x3F800000})
    for l in range(64):
        x, y = u2f(a[l]), u2f(b[l])
        g = int(st.vgpr[10][l])
        if x == 0 or y == 0:
            assert g & 0x7FFFFFFF == 0, (l, hex(g))        # 0 * inf = 0, 0 * NaN = 0
            assert st.vgpr[12][l] == 0x3F800000            # 1 + 0 = 1
            assert math.isnan(u2f(int(st.vgpr[11][l]))) or u2f(int(st.vgpr[11][l])) == 0
        else:
            assert g == int(st.vgpr[11][l])


def ref_add64(a, b):
    nz = (a >> 63) and (b >> 63) and not (a & ~(1 << 63)) and not (b & ~(1 << 63))
    return r64(Fraction(u2d(a)) + Fraction(u2d(b)), neg_zero=bool(nz))


def f64_lanes(rng, n=64):
    edge = [0, 1 << 63, d2u(1.0), d2u(-1.0), 1, d2u(2.0 ** -1022), d2u(1 + 2.0 ** -52),
            d2u(2.0 ** -53), d2u(1.7976931348623157e308), d2u(3.0)]
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.3:
            b = rng.choice(edge)
        elif r < 0.5:
            b = d2u(rng.uniform(0.5, 2.0) * rng.choice([1, -1]))
        else:
            b = rng.getrandbits(64)
        if (b >> 52) & 0x7FF == 0x7FF:
            b &= ~(1 << 62)
        out.append(b)
    return out


def split(vals):
    return arr(vals), arr([v >> 32 for v in vals])


@SETTINGS
@given(seed=st.integers(0, 2**32))
def test_f64_add_mul_fma(seed):
    rng = random.Random(seed)
    a, b, c = f64_lanes(rng), f64_lanes(rng), f64_lanes(rng)
    a0, a1 = split(a)
    b0, b1 = split(b)
    c0, c1 = split(c)
    st = run("v_add_f64 v[10:11], v[0:1], v[2:3]\nv_mul_f64 v[12:13], v[0:1], v[2:3]\n"
             "v_fma_f64 v[14:15], v[0:1], v[2:3], v[4:5]",
             vgpr={0: a0, 1: a1, 2: b0, 3: b1, 4: c0, 5: c1})

    def g(r, l):
        return int(st.vgpr[r][l]) | int(st.vgpr[r + 1][l]) << 32
    for l in range(64):
        x, y, z = (Fraction(u2d(v[l])) for v in (a, b, c))
        assert g(10, l) == ref_add64(a[l], b[l]), ("add", l, hex(a[l]), hex(b[l]))
        assert g(12, l) == r64(x * y, neg_zero=bool((a[l] ^ b[l]) >> 63)), ("mul", l)
        q = x * y + z
        if q != 0:
            assert g(14, l) == r64(q), ("fma", l, hex(a[l]), hex(b[l]), hex(c[l]))


def test_f32_conversions_vs_numpy():
    rng = random.Random(5)
    ints = [0, 1, -1, 2 ** 24 + 1, -(2 ** 31), 2 ** 31 - 1, 16777217, 33554435] + \
        [rng.getrandbits(32) for _ in range(56)]
    ints = [i & M32 for i in ints]
    floats = [0.0, -0.0, 0.5, 1.5, 2.5, -2.5, -0.5, 3.7, -3.7, 1e10, -1e10, 4294967295.0,
              4294967296.0, 2147483647.0, 2147483648.0, -2147483649.0, float("nan"),
              float("inf"), float("-inf"), 1e-40, 65504.0, 65520.0, 1e-8, 0.1]
    floats = (floats * 3)[:64]
    fb = [f2u(x) for x in floats]
    st = run("""
    v_cvt_f32_i32 v10, v0
    v_cvt_f32_u32 v11, v0
    v_cvt_i32_f32 v12, v1
    v_cvt_u32_f32 v13, v1
    v_cvt_f16_f32 v14, v1
    v_cvt_f64_f32 v[16:17], v1
    v_cvt_flr_i32_f32 v18, v1
    v_cvt_rpi_i32_f32 v19, v1
    v_trunc_f32 v20, v1
    v_floor_f32 v21, v1
    v_ceil_f32 v22, v1
    v_rndne_f32 v23, v1
    v_cvt_f32_ubyte0 v24, v0
    v_cvt_f32_ubyte1 v25, v0
    v_cvt_f32_ubyte2 v26, v0
    v_cvt_f32_ubyte3 v27, v0
    v_cvt_f64_i32 v[28:29], v0
    v_cvt_f64_u32 v[30:31], v0
    """, vgpr={0: arr(ints), 1: arr(fb)})
    i32 = np.array(ints, np.uint32).view(np.int32)
    f32 = np.array(fb, np.uint32).view(np.float32)
    assert (st.vgpr[10] == i32.astype(np.float32).view(np.uint32)).all()
    assert (st.vgpr[11] == np.array(ints, np.uint32).astype(np.float32).view(np.uint32)).all()
    with np.errstate(invalid="ignore", over="ignore"):
        f16 = f32.astype(np.float16).view(np.uint16).astype(np.uint32)
    for l in range(64):
        x = float(f32[l])

        def sat(v, lo, hi):
            return 0 if math.isnan(v) else int(max(lo, min(hi, v)))
        assert int(st.vgpr[12][l]) == sat(math.trunc(x) if math.isfinite(x) else x,
                                          -2 ** 31, 2 ** 31 - 1) & M32, (l, x)
        assert int(st.vgpr[13][l]) == sat(math.trunc(x) if math.isfinite(x) else x, 0, M32), (l, x)
        g16 = int(st.vgpr[14][l]) & 0xFFFF
        if math.isnan(x):
            assert (g16 & 0x7C00) == 0x7C00 and g16 & 0x3FF
        else:
            assert g16 == int(f16[l]), (l, x, hex(g16))
        g64 = int(st.vgpr[16][l]) | int(st.vgpr[17][l]) << 32
        assert (math.isnan(x) and math.isnan(u2d(g64))) or g64 == d2u(x), (l, x)
        if math.isfinite(x) and abs(x) < 2 ** 31 - 1:
            assert sgn(int(st.vgpr[18][l])) == math.floor(x), (l, x)
            assert sgn(int(st.vgpr[19][l])) == math.floor(x + 0.5), (l, x)
        if not math.isnan(x):
            for reg, fn in ((20, np.trunc), (21, np.floor), (22, np.ceil), (23, np.rint)):
                assert int(st.vgpr[reg][l]) == int(fn(f32[l:l + 1]).view(np.uint32)[0]), (reg, l, x)
        for k in range(4):
            assert u2f(int(st.vgpr[24 + k][l])) == float((ints[l] >> (8 * k)) & 0xFF)
        g = int(st.vgpr[28][l]) | int(st.vgpr[29][l]) << 32
        assert u2d(g) == float(sgn(ints[l]))
        g = int(st.vgpr[30][l]) | int(st.vgpr[31][l]) << 32
        assert u2d(g) == float(ints[l])


def test_f64_conversions():
    vals = [0.0, 1.5, -2.5, 1e300, -1e300, 1 + 2.0 ** -30, 3.4028235677973366e38, 1e-310,
            2147483648.5, -2147483648.7, float("nan"), float("inf"), 0.1, -0.1]
    vals = (vals * 5)[:64]
    b = [d2u(v) for v in vals]
    st = run("v_cvt_f32_f64 v10, v[0:1]\nv_cvt_i32_f64 v11, v[0:1]\nv_cvt_u32_f64 v12, v[0:1]",
             vgpr={0: arr(b), 1: arr([x >> 32 for x in b])})
    with np.errstate(over="ignore", invalid="ignore"):
        f = np.array(vals, np.float64).astype(np.float32).view(np.uint32)
    for l, x in enumerate(vals):
        g = int(st.vgpr[10][l])
        if math.isnan(x):
            assert is_nan32(g)
        else:
            assert g == int(f[l]), (l, x, hex(g))
        t = 0 if math.isnan(x) else (math.trunc(x) if math.isfinite(x) else x)
        assert sgn(int(st.vgpr[11][l])) == int(max(-2 ** 31, min(2 ** 31 - 1, t))), (l, x)
        assert int(st.vgpr[12][l]) == int(max(0, min(M32, t))), (l, x)


def test_min_max_nan_ieee_mode():
    q = 0x7FC00000
    a = [q, 0x3F800000, q, 0xBF800000, 0x40000000] * 13
    b = [0x3F800000, q, q, 0x3F800000, 0xC0000000] * 13
    a, b = a[:64], b[:64]
    st = run("v_min_f32 v10, v0, v1\nv_max_f32 v11, v0, v1\nv_min3_f32 v12, v0, v1, v1\n"
             "v_max3_f32 v13, v0, v1, v1", vgpr={0: arr(a), 1: arr(b)})
    for l in range(64):
        x, y = u2f(a[l]), u2f(b[l])
        if math.isnan(x) and math.isnan(y):
            assert is_nan32(int(st.vgpr[10][l])) and is_nan32(int(st.vgpr[11][l]))
            continue
        # IEEE minNum/maxNum: a quiet NaN operand is ignored
        exp_min = y if math.isnan(x) else x if math.isnan(y) else min(x, y)
        exp_max = y if math.isnan(x) else x if math.isnan(y) else max(x, y)
        assert u2f(int(st.vgpr[10][l])) == exp_min, l
        assert u2f(int(st.vgpr[11][l])) == exp_max, l
        assert u2f(int(st.vgpr[12][l])) == exp_min, l
        assert u2f(int(st.vgpr[13][l])) == exp_max, l


CMPS = {
    "f": lambda x, y: False, "lt": lambda x, y: x < y, "eq": lambda x, y: x == y,
    "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "lg": lambda x, y: x < y or x > y,
    "ge": lambda x, y: x >= y, "o": lambda x, y: not (math.isnan(x) or math.isnan(y)),
    "u": lambda x, y: math.isnan(x) or math.isnan(y), "nge": lambda x, y: not x >= y,
    "nlg": lambda x, y: not (x < y or x > y), "ngt": lambda x, y: not x > y,
    "nle": lambda x, y: not x <= y, "neq": lambda x, y: not x == y, "nlt": lambda x, y: not x < y,
    "tru": lambda x, y: True,
}


def test_v_cmp_f32_f64_with_nan():
    vals = [0.0, -0.0, 1.0, -1.0, float("nan"), float("inf"), float("-inf"), 2.0]
    pairs = [(x, y) for x in vals for y in vals]     # 64 pairs
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    lines = []
    for i, rel in enumerate(CMPS):
        lines.append(f"v_cmp_{rel}_f32 vcc, v0, v1\ns_mov_b64 s[{10 + 2 * i}:{11 + 2 * i}], vcc")
        lines.append(f"v_cmp_{rel}_f64_e64 s[{50 + 2 * i}:{51 + 2 * i}], v[2:3], v[4:5]")
    ad = [d2u(x) for x in a]
    bd = [d2u(x) for x in b]
    st = run("\n".join(lines), vgpr={0: arr([f2u(x) for x in a]), 1: arr([f2u(x) for x in b]),
                                     2: arr(ad), 3: arr([x >> 32 for x in ad]),
                                     4: arr(bd), 5: arr([x >> 32 for x in bd])})
    for i, (rel, f) in enumerate(CMPS.items()):
        exp = sum(1 << l for l in range(64) if f(a[l], b[l]))
        got = int(st.sgpr[10 + 2 * i]) | int(st.sgpr[11 + 2 * i]) << 32
        assert got == exp, f"v_cmp_{rel}_f32: got {got:#x} expected {exp:#x}"
        got = int(st.sgpr[50 + 2 * i]) | int(st.sgpr[51 + 2 * i]) << 32
        assert got == exp, f"v_cmp_{rel}_f64: got {got:#x} expected {exp:#x}"


def fclass32(b):
    """Class bit of f32 bits: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denorm, 5 -0, 6 +0,
    7 +denorm, 8 +normal, 9 +inf."""
    neg = b >> 31
    e = (b >> 23) & 0xFF
    m = b & 0x7FFFFF
    if e == 0xFF:
        if m:
            return 1 if m & 0x400000 else 0
        return 2 if neg else 9
    if e == 0:
        if m == 0:
            return 5 if neg else 6
        return 4 if neg else 7
    return 3 if neg else 8


def test_v_cmp_class_f32():
    specials = [0x7F800001, 0x7FC00000, 0xFF800000, 0xBF800000, 0x80000001, 0x80000000,
                0x00000000, 0x00000001, 0x3F800000, 0x7F800000]
    rng = random.Random(1)
    a = (specials * 7)[:64]
    masks = [1 << (i % 10) if i < 40 else rng.getrandbits(10) for i in range(64)]
    st = run("v_cmp_class_f32 vcc, v0, v1\ns_mov_b64 s[10:11], vcc\n"
             "v_cmp_class_f32_e64 s[12:13], v0, v1",
             vgpr={0: arr(a), 1: arr(masks)})
    exp = sum(1 << l for l in range(64) if (masks[l] >> fclass32(a[l])) & 1)
    assert int(st.sgpr[10]) | int(st.sgpr[11]) << 32 == exp
    assert int(st.sgpr[12]) | int(st.sgpr[13]) << 32 == exp


def test_vop3_abs_neg_clamp_omod():
    rng = random.Random(9)
    # normal values well inside the range so that x2/x4//2 are exact
    a = [f2u(rng.uniform(-4, 4)) for _ in range(64)]
    b = [f2u(rng.uniform(-4, 4)) for _ in range(64)]
    a[0], b[0] = f2u(0.25), f2u(0.5)
    src = """
    v_add_f32_e64 v10, |v0|, -v1
    v_add_f32_e64 v11, -|v0|, v1
    v_mul_f32_e64 v12, v0, v1 clamp
    v_add_f32_e64 v13, v0, v1 mul:2
    v_add_f32_e64 v14, v0, v1 mul:4
    v_add_f32_e64 v15, v0, v1 div:2
    v_add_f32_e64 v16, v0, v1 mul:4 clamp
    v_fma_f32 v17, -v0, |v1|, -v0
    """
    st = run(src, vgpr={0: arr(a), 1: arr(b)}, mode=MODE_FLUSH_F32)
    for l in range(64):
        x, y = F(a[l]), F(b[l])
        assert int(st.vgpr[10][l]) == r32(abs(x) - y), l
        assert int(st.vgpr[11][l]) == r32(-abs(x) + y), l
        m = Fraction(u2f(r32(x * y)))
        assert int(st.vgpr[12][l]) == r32(min(max(m, Fraction(0)), Fraction(1))), l
        s = Fraction(u2f(r32(x + y)))
        assert int(st.vgpr[13][l]) == r32(2 * s, neg_zero=s < 0), l
        assert int(st.vgpr[14][l]) == r32(4 * s, neg_zero=s < 0), l
        assert int(st.vgpr[15][l]) == r32(s / 2, neg_zero=s < 0), l
        assert int(st.vgpr[16][l]) == r32(min(max(4 * s, Fraction(0)), Fraction(1))), l
        assert int(st.vgpr[17][l]) == r32(-x * abs(y) - x), l


def test_omod_ignored_when_f32_output_denormals_allowed():
    # CLRX GcnInstrsVop3.md: "OMOD modifier doesn't work if output denormals are allowed"
    st = run("v_add_f32_e64 v10, v0, v1 mul:2", vgpr={0: f2u(1.5), 1: f2u(0.25)}, mode=0x3F0)
    assert (st.vgpr[10] == f2u(1.75)).all()


def test_inline_float_constants_and_literals():
    st = run("""
    v_mul_f32 v10, 0.5, v0
    v_mul_f32 v11, -4.0, v0
    v_add_f32 v12, 64, v1          // integer inline 64: the bit pattern 0x40 (a denormal)
    v_mul_f32 v13, 0x40490fdb, v0  // literal
    v_add_f32 v14, 3.0, v0         // 3.0 is not an inline constant: a literal
    v_add_f32_e64 v15, v0, 1.0
    v_add_f32_e64 v16, -v0, 2.0
    v_mul_f64 v[18:19], 0.5, v[2:3]
    v_add_f64 v[20:21], -4.0, v[2:3]
    """, vgpr={0: f2u(3.0), 1: 0, 2: d2u(10.0) & M32, 3: d2u(10.0) >> 32})
    assert (st.vgpr[10] == f2u(1.5)).all()
    assert (st.vgpr[11] == f2u(-12.0)).all()
    assert (st.vgpr[12] == 0x40).all()
    assert (st.vgpr[13] == r32(Fraction(u2f(0x40490FDB)) * 3)).all()
    assert (st.vgpr[14] == f2u(6.0)).all()
    assert (st.vgpr[15] == f2u(4.0)).all()
    assert (st.vgpr[16] == f2u(-1.0)).all()
    assert all(int(st.vgpr[18][l]) | int(st.vgpr[19][l]) << 32 == d2u(5.0) for l in range(64))
    assert all(int(st.vgpr[20][l]) | int(st.vgpr[21][l]) << 32 == d2u(6.0) for l in range(64))


def test_mad_family_flushes_denormals_even_when_mode_keeps_them():
    """CLRX (V_MAD_F32, V_MAC_F32, V_MAD_LEGACY_F32, V_MADAK/MADMK_F32): 'it flush denormals'
    — which is why LLVM does not form v_mad_f32 when f32 denormals are enabled. v_fma_f32
    keeps them (MODE 0x3F0)."""
    tiny = f2u(2.0 ** -126)
    st = run("""
    v_mad_f32 v10, v0, v1, v2          // 2^-126 * 0.5 = 2^-127: a denormal result
    v_mov_b32 v11, v2
    v_mac_f32 v11, v0, v1
    v_madak_f32 v12, v0, v1, 0x0
    v_mad_legacy_f32 v13, v0, v1, v2
    v_fma_f32 v14, v0, v1, v2
    v_mad_f32 v15, v3, v4, v2          // denormal input 2^-149 * 2^100: flushed to 0
    v_fma_f32 v16, v3, v4, v2
    """, vgpr={0: tiny, 1: f2u(0.5), 2: 0, 3: 1, 4: f2u(2.0 ** 100)})
    for r in (10, 11, 12, 13, 15):
        assert (st.vgpr[r] & 0x7FFFFFFF == 0).all(), r
    assert (st.vgpr[14] == 0x00400000).all()
    assert (st.vgpr[16] == f2u(2.0 ** -49)).all()


def test_f64_denormals_kept_and_flushed():
    den = 1                                  # smallest f64 denormal, 2^-1074
    half = d2u(0.5)
    src = "v_add_f64 v[10:11], v[0:1], v[0:1]\nv_mul_f64 v[12:13], v[2:3], v[4:5]"
    vg = {0: den & M32, 1: den >> 32, 2: d2u(2.0 ** -1022) & M32, 3: d2u(2.0 ** -1022) >> 32,
          4: half & M32, 5: half >> 32}
    st = run(src, vgpr=vg)                   # MODE 0x3F0: f64 denormals kept
    assert (st.vgpr[10] == 2).all() and (st.vgpr[11] == 0).all()
    exp = d2u(2.0 ** -1023)
    assert (st.vgpr[12] == exp & M32).all() and (st.vgpr[13] == exp >> 32).all()
    st = run(src, vgpr=vg, mode=0x330)       # f64 denormals flushed, f32 kept
    assert (st.vgpr[10] == 0).all() and (st.vgpr[11] & 0x7FFFFFFF == 0).all()
    assert (st.vgpr[12] == 0).all() and (st.vgpr[13] & 0x7FFFFFFF == 0).all()


def test_signalling_compares_give_the_same_masks():
    vals = [0.0, -0.0, 1.0, -1.0, float("nan"), float("inf"), float("-inf"), 2.0]
    pairs = [(x, y) for x in vals for y in vals]
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    lines = []
    for i, rel in enumerate(CMPS):
        lines.append(f"v_cmps_{rel}_f32 vcc, v0, v1\ns_mov_b64 s[{10 + 2 * i}:{11 + 2 * i}], vcc")
    st = run("\n".join(lines), vgpr={0: arr([f2u(x) for x in a]), 1: arr([f2u(x) for x in b])})
    for i, (rel, f) in enumerate(CMPS.items()):
        exp = sum(1 << l for l in range(64) if f(a[l], b[l]))
        got = int(st.sgpr[10 + 2 * i]) | int(st.sgpr[11 + 2 * i]) << 32
        assert got == exp, f"v_cmps_{rel}_f32: got {got:#x} expected {exp:#x}"


def ulp32(x):
    """Size of one f32 ulp at |x| (denormal spacing below 2^-126)."""
    x = abs(x)
    if x < 2.0 ** -126:
        return 2.0 ** -149
    return 2.0 ** (math.floor(math.log2(x)) - 23)


def test_transcendentals_within_one_ulp_and_specials():
    rng = random.Random(31)
    pos = [u2f(f2u(rng.uniform(0, 1) * 2.0 ** rng.randrange(-100, 100))) for _ in range(52)]
    pos += [1.0, 2.0, 4.0, 0.25, 3.0, 1e-30, 1e30, 7.0, 0.1, 100.0, 1234.5, 2.0 ** -126]
    ang = [u2f(f2u(rng.uniform(-4, 4))) for _ in range(60)] + [0.0, 0.25, 0.5, -0.125]
    st = run("""
    v_rcp_f32 v10, v0
    v_sqrt_f32 v11, v0
    v_rsq_f32 v12, v0
    v_log_f32 v13, v0
    v_exp_f32 v14, v1
    v_sin_f32 v15, v2
    v_cos_f32 v16, v2
    """, vgpr={0: arr([f2u(x) for x in pos]), 1: arr([f2u(x / 8) for x in ang]),
               2: arr([f2u(x) for x in ang])})
    for l in range(64):
        x = pos[l]
        refs = {10: 1 / x, 11: math.sqrt(x), 12: 1 / math.sqrt(x), 13: math.log2(x),
                14: 2.0 ** u2f(f2u(ang[l] / 8))}
        for reg, ref in refs.items():
            g = u2f(int(st.vgpr[reg][l]))
            assert abs(g - ref) <= ulp32(ref), (reg, l, x, g, ref)
        a = ang[l]
        for reg, ref in ((15, math.sin(2 * math.pi * a)), (16, math.cos(2 * math.pi * a))):
            g = u2f(int(st.vgpr[reg][l]))
            assert abs(g - ref) <= ulp32(ref) + 2.0 ** -24, (reg, l, a, g, ref)


def test_transcendental_special_values():
    inf, nan = float("inf"), float("nan")
    xs = [0.0, -0.0, inf, -inf, nan, -1.0, 1.0, 4.0] * 8
    st = run("v_rcp_f32 v10, v0\nv_sqrt_f32 v11, v0\nv_rsq_f32 v12, v0\nv_log_f32 v13, v0\n"
             "v_exp_f32 v14, v0", vgpr={0: arr([f2u(x) for x in xs])})

    def same(g, e):
        return (math.isnan(g) and math.isnan(e)) or (g == e and math.copysign(1, g) == math.copysign(1, e))
    # IEEE-style results at the special points, per input of xs[:8] (rcp, sqrt, rsq, log2, exp2)
    rows = [(inf, 0.0, inf, -inf, 1.0), (-inf, -0.0, -inf, -inf, 1.0), (0.0, inf, 0.0, inf, inf),
            (-0.0, nan, nan, nan, 0.0), (nan,) * 5, (-1.0, nan, nan, nan, 0.5),
            (1.0, 1.0, 1.0, 0.0, 2.0), (0.25, 2.0, 0.5, 2.0, 16.0)]
    for l in range(8):
        x = xs[l]
        row = rows[l]
        for reg, e in zip(range(10, 15), row):
            g = u2f(int(st.vgpr[reg][l]))
            assert same(g, e), (reg, x, g, e)


@SETTINGS
@given(seed=st.integers(0, 2**32))
def test_f32_min_max_med3_and_f64_modifiers(seed):
    rng = random.Random(seed)
    a, b, c = f32_lanes(rng), f32_lanes(rng), f32_lanes(rng)
    d = [d2u(rng.uniform(-1e6, 1e6)) for _ in range(64)]
    e = [d2u(rng.uniform(-1e-6, 1e6)) for _ in range(64)]
    st = run("""
    v_min_f32 v10, v0, v1
    v_max_f32 v11, v0, v1
    v_min3_f32 v12, v0, v1, v2
    v_max3_f32 v13, v0, v1, v2
    v_med3_f32 v14, v0, v1, v2
    v_add_f64 v[16:17], -v[4:5], |v[6:7]|
    v_fma_f64 v[18:19], -|v[4:5]|, v[6:7], -v[6:7]
    v_mul_f64 v[20:21], |v[4:5]|, -|v[6:7]|
    """, vgpr={0: arr(a), 1: arr(b), 2: arr(c), 4: arr(d), 5: arr([x >> 32 for x in d]),
               6: arr(e), 7: arr([x >> 32 for x in e])})
    for l in range(64):
        x, y, z = F(a[l]), F(b[l]), F(c[l])
        for reg, vals, pick in ((10, (x, y), min), (11, (x, y), max), (12, (x, y, z), min),
                                (13, (x, y, z), max), (14, (x, y, z), lambda *v: sorted(v)[1])):
            exp = pick(*vals)
            g = F(int(st.vgpr[reg][l]))
            # equal values of different sign (+0/-0) may come back either way
            assert g == exp, (reg, l, [hex(v) for v in (a[l], b[l], c[l])], g, exp)
        p, q = Fraction(u2d(d[l])), Fraction(u2d(e[l]))

        def g64(r):
            return int(st.vgpr[r][l]) | int(st.vgpr[r + 1][l]) << 32
        assert g64(16) == r64(-p + abs(q)) or (-p + abs(q) == 0 and g64(16) & ~(1 << 63) == 0)
        assert g64(18) == r64(-abs(p) * q - q) or (-abs(p) * q - q == 0)
        assert g64(20) == r64(abs(p) * -abs(q), neg_zero=True)


def test_cvt_f32_f16_exhaustive():
    """All 65536 half values (f16 denormals kept in MODE 0x3F0) against numpy's exact
    float16 -> float32 widening; NaNs only need to stay NaNs."""
    halves = np.arange(65536, dtype=np.uint32).reshape(-1, 16, 64)      # 64 snippets x 16 regs
    ref = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float32)
    ref = ref.view(np.uint32).reshape(-1, 16, 64)
    src = "\n".join(f"v_cvt_f32_f16 v{16 + i}, v{i}" for i in range(16))
    nan_in = ((halves & 0x7C00) == 0x7C00) & ((halves & 0x3FF) != 0)
    for k in range(halves.shape[0]):
        st = run(src, vgpr={i: halves[k, i] for i in range(16)})
        got = st.vgpr[16:32]
        ok_nan = ((got & 0x7F800000) == 0x7F800000) & ((got & 0x7FFFFF) != 0)
        good = np.where(nan_in[k], ok_nan, got == ref[k])
        assert good.all(), (k, np.argwhere(~good)[:3])


def test_cvt_f16_f32_ties_and_neighbours():
    """Every midpoint between consecutive positive halves (a round-to-nearest-even tie), and
    its f32 neighbours, converted with v_cvt_f16_f32 against numpy's float32 -> float16."""
    h = np.arange(0, 0x7C00, dtype=np.uint16)
    lo = h.view(np.float16).astype(np.float64)
    hi = (h + 1).view(np.float16).astype(np.float64)
    hi[-1] = 65536.0                                      # the tie above 65504 is 65520
    mid = ((lo + hi) / 2).astype(np.float32)              # exact: 12 significant bits
    m = mid.view(np.uint32)
    vals = np.concatenate([m, m + 1, m - 1, m | 0x80000000])
    vals = vals[vals != 0xFFFFFFFF]
    pad = (-len(vals)) % 1024
    vals = np.concatenate([vals, np.zeros(pad, np.uint32)]).reshape(-1, 16, 64)
    with np.errstate(over="ignore"):
        ref = vals.view(np.float32).astype(np.float16).view(np.uint16).astype(np.uint32)
    src = "\n".join(f"v_cvt_f16_f32 v{16 + i}, v{i}" for i in range(16))
    for k in range(vals.shape[0]):
        st = run(src, vgpr={i: vals[k, i] for i in range(16)})
        got = st.vgpr[16:32] & 0xFFFF
        bad = np.argwhere(got != ref[k])
        assert not len(bad), [(hex(int(vals[k][tuple(b)])), hex(int(got[tuple(b)])),
                               hex(int(ref[k][tuple(b)]))) for b in bad[:3]]
