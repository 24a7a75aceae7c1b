"""More VALU through the engine: integer compares (all relations and types, cmpx),
v_cmp_class_f64, legacy and f64 min/max, ldexp/frexp, packing conversions, v_lerp_u8,
v_madmk/v_madak literals, and the MODE round modes (directed rounding, also switched with
s_setreg) — against exact Python references.
"""
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from snippets import M32, M64, run, f2u, u2f, d2u, u2d, sgn

SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
EDGE32 = [0, 1, 2, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFE, 0xFFFFFFFF]


def arr(vals):
    return np.array([v & M32 for v in vals], np.uint32)


def mask_of(flags):
    return sum(1 << l for l, x in enumerate(flags) if x)


def sp(st, i):
    return int(st.sgpr[i]) | int(st.sgpr[i + 1]) << 32


ICMP = {"f": lambda x, y: False, "lt": lambda x, y: x < y, "eq": lambda x, y: x == y,
        "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ne": lambda x, y: x != y,
        "ge": lambda x, y: x >= y, "t": lambda x, y: True}


def int_lanes(rng, bits):
    out = []
    for _ in range(64):
        r = rng.random()
        if r < 0.3:
            v = rng.choice(EDGE32)
            if bits == 64:
                v = v << 32 | rng.choice(EDGE32)
        elif r < 0.5:
            v = rng.randrange(0, 4)
        else:
            v = rng.getrandbits(bits)
        out.append(v)
    return out


@SETTINGS
@given(seed=st.integers(0, 2**32), ex=st.integers(0, M64))
def test_integer_compares_all_types(seed, ex):
    rng = random.Random(seed)
    a, b = int_lanes(rng, 64), int_lanes(rng, 64)
    for i in range(0, 64, 5):        # plenty of equal pairs
        b[i] = a[i]
    lines, slots = [], []
    k = 10
    for ty in ("i32", "u32", "i64", "u64"):
        for rel in ICMP:
            regs = "v0, v2" if ty.endswith("32") else "v[0:1], v[2:3]"   # 32-bit: low words
            lines.append(f"v_cmp_{rel}_{ty}_e64 s[{k}:{k + 1}], {regs}")
            slots.append((ty, rel, k))
            k += 2
    st = run("\n".join(lines), exec_mask=ex,
             vgpr={0: arr(a), 1: arr([x >> 32 for x in a]), 2: arr(b), 3: arr([x >> 32 for x in b])})
    for ty, rel, k in slots:
        f = ICMP[rel]
        if ty == "i32":
            exp = [f(sgn(x & M32), sgn(y & M32)) for x, y in zip(a, b)]
        elif ty == "u32":
            exp = [f(x & M32, y & M32) for x, y in zip(a, b)]
        elif ty == "i64":
            exp = [f(sgn(x, 64), sgn(y, 64)) for x, y in zip(a, b)]
        else:
            exp = [f(x, y) for x, y in zip(a, b)]
        got = sp(st, k)
        assert got == mask_of(exp) & ex, f"v_cmp_{rel}_{ty}"


def test_v_cmpx_integer_e32_and_vcc():
    a = list(range(64))
    st = run("v_cmpx_lt_u32 vcc, 20, v0\ns_mov_b64 s[10:11], vcc\nv_cmpx_gt_i32 vcc, 40, v0\n"
             "v_mov_b32 v1, 1", vgpr={0: arr(a), 1: 0}, exec_mask=M64 ^ (1 << 30))
    m1 = mask_of(20 < l and l != 30 for l in range(64))
    assert sp(st, 10) == m1
    m2 = mask_of(20 < l < 40 and l != 30 for l in range(64))
    assert st.exec == m2 and st.vcc == m2
    assert [int(x) for x in st.vgpr[1]] == [(m2 >> l) & 1 for l in range(64)]


def fclass64(b):
    neg = b >> 63
    e = (b >> 52) & 0x7FF
    m = b & ((1 << 52) - 1)
    if e == 0x7FF:
        if m:
            return 1 if m >> 51 else 0
        return 2 if neg else 9
    if e == 0:
        return (5 if neg else 6) if m == 0 else (4 if neg else 7)
    return 3 if neg else 8


def test_v_cmp_class_f64():
    specials = [0x7FF0000000000001, 0x7FF8000000000000, 0xFFF0000000000000, d2u(-1.0),
                0x8000000000000001, 1 << 63, 0, 1, d2u(1.0), 0x7FF0000000000000]
    a = (specials * 7)[:64]
    rng = random.Random(2)
    masks = [1 << (i % 10) if i < 40 else rng.getrandbits(10) for i in range(64)]
    st = run("v_cmp_class_f64 vcc, v[0:1], v2\ns_mov_b64 s[10:11], vcc\n"
             "v_cmp_class_f64_e64 s[12:13], v[0:1], v2",
             vgpr={0: arr(a), 1: arr([x >> 32 for x in a]), 2: arr(masks)})
    exp = mask_of((masks[l] >> fclass64(a[l])) & 1 for l in range(64))
    assert sp(st, 10) == exp and sp(st, 12) == exp


def is_nan32(b):
    return (b & 0x7F800000) == 0x7F800000 and (b & 0x7FFFFF) != 0


def test_legacy_min_max():
    q = 0x7FC00000
    a = [q, 0x3F800000, 0x40000000, 0xC0000000] * 16
    b = [0x3F800000, q, 0x3F800000, 0x40000000] * 16
    st = run("v_min_legacy_f32 v10, v0, v1\nv_max_legacy_f32 v11, v0, v1",
             vgpr={0: arr(a), 1: arr(b)})
    for l in range(64):
        x, y = u2f(a[l]), u2f(b[l])
        # DX9 legacy: min = (a < b) ? a : b, max = (a >= b) ? a : b; a NaN comparison is false
        exp_min = a[l] if x < y else b[l]
        exp_max = a[l] if x >= y else b[l]
        for reg, e in ((10, exp_min), (11, exp_max)):
            g = int(st.vgpr[reg][l])
            if is_nan32(e):
                assert is_nan32(g), (reg, l)
            else:
                assert g == e, (reg, l, hex(g), hex(e))


def test_f64_min_max_and_ldexp_frexp():
    vals = [1.5, -2.25, 0.0, -0.0, 1e300, -1e-300, float("nan"), 3.0, 2.0 ** -1074, 7.0]
    a = (vals * 7)[:64]
    b = list(reversed(a))
    ad, bd = [d2u(x) for x in a], [d2u(x) for x in b]
    exps = [((l * 37) % 80) - 40 for l in range(64)]
    st = run("""
    v_min_f64 v[10:11], v[0:1], v[2:3]
    v_max_f64 v[12:13], v[0:1], v[2:3]
    v_ldexp_f64 v[14:15], v[0:1], v4
    v_frexp_mant_f64 v[16:17], v[0:1]
    v_frexp_exp_i32_f64 v18, v[0:1]
    """, vgpr={0: arr(ad), 1: arr([x >> 32 for x in ad]), 2: arr(bd), 3: arr([x >> 32 for x in bd]),
               4: arr(exps)})

    def g(r, l):
        return u2d(int(st.vgpr[r][l]) | int(st.vgpr[r + 1][l]) << 32)
    for l in range(64):
        x, y = a[l], b[l]
        if math.isnan(x) and math.isnan(y):
            continue
        emin = y if math.isnan(x) else x if math.isnan(y) else min(x, y)
        emax = y if math.isnan(x) else x if math.isnan(y) else max(x, y)
        if not (x == 0 and y == 0):          # the sign of min(-0, +0) is not pinned down here
            assert g(10, l) == emin and g(12, l) == emax, l
        if math.isnan(x):
            assert math.isnan(g(14, l)) and math.isnan(g(16, l))
            continue
        try:
            ref = math.ldexp(x, exps[l])
        except OverflowError:
            ref = math.copysign(math.inf, x)
        assert g(14, l) == ref, (l, x, exps[l])
        m, e = math.frexp(x)
        if x != 0:
            assert g(16, l) == m, l
            assert sgn(int(st.vgpr[18][l])) == e, l


def test_f32_ldexp_frexp():
    vals = [1.5, -2.25, 0.0, 1e30, -1e-30, 3.0, 2.0 ** -149, 7.0, 100.0, 0.1]
    a = (vals * 7)[:64]
    fb = [f2u(x) for x in a]
    exps = [((l * 37) % 80) - 40 for l in range(64)]
    st = run("v_ldexp_f32 v10, v0, v1\nv_frexp_mant_f32 v11, v0\nv_frexp_exp_i32_f32 v12, v0",
             vgpr={0: arr(fb), 1: arr(exps)})
    for l in range(64):
        x = u2f(fb[l])
        exp = f2u(math.ldexp(x, exps[l])) if abs(math.ldexp(x, exps[l])) < 3.4e38 else \
            (0x7F800000 | (fb[l] & 0x80000000))
        # ldexp is exact unless the result leaves the normal range (then it rounds to nearest)
        q = Fraction(x) * Fraction(2) ** exps[l]
        if q == 0 or Fraction(2) ** -126 <= abs(q) < Fraction(2) ** 128:
            assert int(st.vgpr[10][l]) == exp, (l, x, exps[l])
        m, e = math.frexp(x)
        if x != 0:
            assert u2f(int(st.vgpr[11][l])) == m, l
            assert sgn(int(st.vgpr[12][l])) == e, l


def f16_rtz(x):
    """f32 value -> f16 bits rounded toward zero (exact, from the value)."""
    if math.isnan(x):
        return None
    s = 0x8000 if math.copysign(1, x) < 0 else 0
    a = abs(x)
    if a == math.inf:
        return s | 0x7C00
    if a >= 65520.0 or a > 65504.0:
        return s | 0x7BFF      # RTZ never overflows to inf
    q = Fraction(a)
    if q < Fraction(2) ** -14:
        n = int(q / Fraction(2) ** -24)          # denormal: truncate
        return s | n
    e = math.floor(math.log2(a))
    while Fraction(2) ** e > q:
        e -= 1
    while Fraction(2) ** (e + 1) <= q:
        e += 1
    mant = int((q / Fraction(2) ** e - 1) * 1024)
    return s | ((e + 15) << 10) | mant


def test_packing_conversions():
    rng = random.Random(4)
    fl = [0.0, -0.0, 1.0, -1.0, 0.5, 1.0009765625, 1.00146484375, 65504.0, 65519.0, 1e6, -1e6,
          6e-8, 1e-10, 2.0 ** -24, 3.14159, -2.71828, 0.33333334, 0.99998, -0.99998, 1.5, -1.5]
    fa = [fl[l % len(fl)] for l in range(64)]
    fb = [fl[(l * 7 + 3) % len(fl)] for l in range(64)]
    ia = [rng.choice(EDGE32 + [0x7FFF, 0x8000, 0xFFFF, 0x10000, (-40000) & M32, 40000])
          for _ in range(64)]
    ib = [rng.getrandbits(32) if l % 2 else rng.choice(EDGE32) for l in range(64)]
    st = run("""
    v_cvt_pkrtz_f16_f32 v10, v0, v1
    v_cvt_pk_u16_u32_e64 v11, v2, v3
    v_cvt_pk_i16_i32_e64 v12, v2, v3
    v_cvt_pknorm_i16_f32 v13, v0, v1
    v_cvt_pknorm_u16_f32 v14, v0, v1
    """, vgpr={0: arr([f2u(x) for x in fa]), 1: arr([f2u(x) for x in fb]), 2: arr(ia), 3: arr(ib)})

    def norm(x, scale, lo, hi):
        v = Fraction(u2f(f2u(x))) * scale      # S*32767 then round: exact product, rndne
        r = round(v)                           # Python round: ties to even
        # the product is computed in f32 by the hardware; only compare where it is exact
        return max(lo, min(hi, r)) & 0xFFFF
    for l in range(64):
        x, y = u2f(f2u(fa[l])), u2f(f2u(fb[l]))
        g = int(st.vgpr[10][l])
        assert g & 0xFFFF == f16_rtz(x) and g >> 16 == f16_rtz(y), (l, x, y, hex(g))
        assert int(st.vgpr[11][l]) == min(ia[l], 0xFFFF) | min(ib[l], 0xFFFF) << 16, l
        cl = lambda v: max(-0x8000, min(0x7FFF, sgn(v))) & 0xFFFF      # noqa: E731
        assert int(st.vgpr[12][l]) == cl(ia[l]) | cl(ib[l]) << 16, l
        for reg, scale, lo, hi in ((13, 32767, -32767, 32767), (14, 65535, 0, 65535)):
            px = Fraction(x) * scale
            py = Fraction(y) * scale
            # compare only where S*scale is exactly representable in f32 (no double rounding)
            if Fraction(u2f(f2u(float(px)))) == px and Fraction(u2f(f2u(float(py)))) == py:
                exp = norm(x, scale, lo, hi) | norm(y, scale, lo, hi) << 16
                assert int(st.vgpr[reg][l]) == exp, (reg, l, x, y, hex(int(st.vgpr[reg][l])), hex(exp))


def test_lerp_u8_and_madmk_madak():
    rng = random.Random(8)
    a, b, c = ([rng.getrandbits(32) for _ in range(64)] for _ in range(3))
    fa = [f2u(rng.uniform(-10, 10)) for _ in range(64)]
    fb = [f2u(rng.uniform(-10, 10)) for _ in range(64)]
    st = run("v_lerp_u8 v10, v0, v1, v2\nv_madmk_f32 v11, v3, 0x40490fdb, v4\n"
             "v_madak_f32 v12, v3, v4, 0x3e800000",
             vgpr={0: arr(a), 1: arr(b), 2: arr(c), 3: arr(fa), 4: arr(fb)})
    for l in range(64):
        exp = 0
        for i in range(4):
            s0, s1, s2 = (a[l] >> 8 * i) & 0xFF, (b[l] >> 8 * i) & 0xFF, (c[l] >> 8 * i) & 1
            exp |= ((s0 + s1 + s2) >> 1) << (8 * i)
        assert int(st.vgpr[10][l]) == exp
        x, y = np.float32(u2f(fa[l])), np.float32(u2f(fb[l]))
        k = np.float32(u2f(0x40490FDB))
        # mad: product rounded to f32, then the sum (numpy float32 arithmetic is IEEE RNE)
        assert int(st.vgpr[11][l]) == int(np.array([x * k + y], np.float32).view(np.uint32)[0])
        assert int(st.vgpr[12][l]) == int(np.array([x * y + np.float32(0.25)],
                                                   np.float32).view(np.uint32)[0])


# --- rounding modes -------------------------------------------------------------------------
RNE, UP, DOWN, RTZ = 0, 1, 2, 3


def round_dir(q: Fraction, mode, mant=23, emin=-126, emax=127):
    """Round a nonzero rational to binary float with MODE round mode (0 RNE, 1 +inf, 2 -inf,
    3 toward zero); returns a Python float."""
    if q == 0:
        return 0.0
    neg = q < 0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    quantum = Fraction(2) ** (max(e, emin) - mant)
    n = a / quantum
    fl = n.numerator // n.denominator
    exact = fl * quantum == a
    if mode == RNE:
        rem = n - fl
        up = rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2 == 1)
    elif mode == RTZ:
        up = False
    elif mode == UP:
        up = not exact and not neg
    else:
        up = not exact and neg
    r = (fl + 1 if up else fl) * quantum
    maxf = (2 - Fraction(2) ** -mant) * Fraction(2) ** emax
    if r > maxf:
        to_inf = mode == RNE or (mode == UP and not neg) or (mode == DOWN and neg)
        r = None if to_inf else maxf
    if r is None:
        return -math.inf if neg else math.inf
    v = float(r)
    return -v if neg else v


@pytest.mark.parametrize("rmode", [RNE, UP, DOWN, RTZ])
def test_f32_f64_round_modes(rmode):
    rng = random.Random(rmode)
    a = [f2u(rng.uniform(-4, 4)) for _ in range(60)] + [0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0x00000001]
    b = [f2u(rng.uniform(-4, 4) * 2.0 ** rng.randrange(-30, 0)) for _ in range(60)] + \
        [0x7F7FFFFF, 0xFF7FFFFF, f2u(2.0 ** -24), 0x80000001]
    ad = [d2u(rng.uniform(-4, 4)) for _ in range(64)]
    bd = [d2u(rng.uniform(-4, 4) * 2.0 ** -40) for _ in range(64)]
    mode = 0x3F0 | rmode | (rmode << 2)           # f32 round mode [1:0], f64 [3:2]
    st = run("v_add_f32 v10, v0, v1\nv_mul_f32 v11, v0, v1\nv_fma_f32 v12, v0, v1, v1\n"
             "v_add_f64 v[14:15], v[2:3], v[4:5]\nv_mul_f64 v[16:17], v[2:3], v[4:5]",
             vgpr={0: arr(a), 1: arr(b), 2: arr(ad), 3: arr([x >> 32 for x in ad]),
                   4: arr(bd), 5: arr([x >> 32 for x in bd])}, mode=mode)
    for l in range(64):
        x, y = Fraction(u2f(a[l])), Fraction(u2f(b[l]))
        for reg, q in ((10, x + y), (11, x * y), (12, x * y + y)):
            if q == 0:
                continue
            exp = f2u(round_dir(q, rmode))
            assert int(st.vgpr[reg][l]) == exp, (rmode, reg, l, hex(a[l]), hex(b[l]))
        xd, yd = Fraction(u2d(ad[l])), Fraction(u2d(bd[l]))
        for reg, q in ((14, xd + yd), (16, xd * yd)):
            exp = d2u(round_dir(q, rmode, 52, -1022, 1023))
            got = int(st.vgpr[reg][l]) | int(st.vgpr[reg + 1][l]) << 32
            assert got == exp, (rmode, reg, l)


def test_round_mode_switched_by_s_setreg():
    # 1 + 2^-24 is a tie: RNE gives 1.0, round-up gives 1 + 2^-23
    st = run("""
    v_add_f32 v10, v0, v1
    s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 1
    v_add_f32 v11, v0, v1
    s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 0
    v_add_f32 v12, v0, v1
    """, vgpr={0: f2u(1.0), 1: f2u(2.0 ** -24)})
    assert (st.vgpr[10] == f2u(1.0)).all()
    assert (st.vgpr[11] == f2u(1.0 + 2.0 ** -23)).all()
    assert (st.vgpr[12] == f2u(1.0)).all()
    assert st.mode == 0x3F0


@pytest.mark.parametrize("rmode", [RNE, UP, DOWN, RTZ])
def test_conversions_follow_the_f32_round_mode(rmode):
    rng = random.Random(40 + rmode)
    ints = [rng.getrandbits(32) for _ in range(56)] + [2 ** 24 + 1, 2 ** 24 + 3, M32, 2 ** 31 + 1,
                                                       0x80000001, 0xFFFFFF7F, 1, 0]
    dbl = [rng.uniform(-1, 1) * 2.0 ** rng.randrange(-140, 130) for _ in range(60)] + \
        [1 + 2.0 ** -24, -(1 + 2.0 ** -24), 3.4028235677973366e38, 1e-45]
    db = [d2u(x) for x in dbl]
    mode = 0x3F0 | rmode | (rmode << 2)
    st = run("v_cvt_f32_u32 v10, v0\nv_cvt_f32_i32 v11, v0\nv_cvt_f32_f64 v12, v[2:3]\n"
             "v_cvt_i32_f32 v13, v10", vgpr={0: arr(ints), 2: arr(db), 3: arr([x >> 32 for x in db])},
             mode=mode)
    for l in range(64):
        assert int(st.vgpr[10][l]) == f2u(round_dir(Fraction(ints[l]), rmode)), (l, ints[l])
        q = Fraction(sgn(ints[l]))
        assert int(st.vgpr[11][l]) == f2u(round_dir(q, rmode)) if q else st.vgpr[11][l] == 0, l
        q = Fraction(dbl[l])
        exp = f2u(round_dir(q, rmode)) if q else 0
        assert int(st.vgpr[12][l]) == exp, (rmode, l, dbl[l], hex(int(st.vgpr[12][l])), hex(exp))
        # float -> int conversions truncate whatever the round mode
        v = u2f(int(st.vgpr[10][l]))
        assert sgn(int(st.vgpr[13][l])) == max(-2 ** 31, min(2 ** 31 - 1, math.trunc(v))), l


def _fma_edge_cases():
    """(a, b, c) f32 triples where a single rounding of a*b+c differs from rounding twice or
    from ignoring the smaller term."""
    t = 2.0 ** -12
    cases = [
        (1 + t, 1 + t, 0.0),                  # a*b = 1 + 2^-11 + 2^-24: an exact tie
        (1 + t, 1 + t, 2.0 ** -100),          # ... broken upward by a tiny c
        (1 + t, 1 + t, -(2.0 ** -100)),       # ... broken downward
        (1.0, 2.0 ** -24, 1.0),               # product exactly half an ulp of c: tie
        (1.0 + 2.0 ** -23, 2.0 ** -24, 1.0),  # just above the tie
        (1.0, 2.0 ** -80, 1.0),               # product far below c's ulp
        (-1.0, 2.0 ** -80, 1.0),
        (1.0 + 2.0 ** -23, 1.0, 2.0 ** -80),  # c far below the product's ulp
        (1.0 + 2.0 ** -23, 1.0, -(2.0 ** -80)),
        (1.0 + 2.0 ** -23, 1.0 - 2.0 ** -24, -1.0),   # cancellation: exact small result
        (2.0 ** -70, 2.0 ** -70, 2.0 ** -149),        # product below the denormal range
        (2.0 ** -70, -(2.0 ** -70), 2.0 ** -149),
        (3.0, 2.0 ** -127, -(2.0 ** -126)),           # denormal result
        (2.0 ** 64, 2.0 ** 64, -(2.0 ** 127)),        # overflow threshold region
        (1.5 * 2.0 ** 127, 1.0, 2.0 ** 104),          # MAX + ... rounding at the top
        (-(2.0 ** -10), 2.0 ** -10, 2.0 ** -20),      # exact zero
    ]
    return cases


@pytest.mark.parametrize("rmode", [RNE, UP, DOWN, RTZ])
def test_fma_f32_single_rounding_edge_cases(rmode):
    cases = _fma_edge_cases()
    cases = (cases * 4)[:64]
    a = [f2u(x[0]) for x in cases]
    b = [f2u(x[1]) for x in cases]
    c = [f2u(x[2]) for x in cases]
    st = run("v_fma_f32 v10, v0, v1, v2", vgpr={0: arr(a), 1: arr(b), 2: arr(c)},
             mode=0x3F0 | rmode | (rmode << 2))
    for l in range(len(_fma_edge_cases())):
        q = Fraction(u2f(a[l])) * Fraction(u2f(b[l])) + Fraction(u2f(c[l]))
        g = int(st.vgpr[10][l])
        if q == 0:
            # exact zero: +0, or -0 when rounding toward -inf
            assert g == (0x80000000 if rmode == DOWN else 0), (rmode, l, hex(g))
            continue
        exp = f2u(round_dir(q, rmode))
        assert g == exp, (rmode, l, cases[l], hex(g), hex(exp))
