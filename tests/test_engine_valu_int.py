"""Integer VALU through the engine, 64 test vectors per snippet (one per lane), against
exact Python-integer references written from the CLRX pseudo-code (GcnInstrsVop*.md) and
AMD's ISA descriptions.

Inputs: v0, v1, v2 (32-bit per lane), v[4:5] (64-bit), VCC / s[4:5] carry-in masks.
Each op writes its own result VGPR(s); carry-out masks are copied to SGPRs.
"""
import random

import numpy as np
from hypothesis import given, settings, strategies as st, HealthCheck

from snippets import M32, M64, run, sgn

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
EDGE32 = [0, 1, 2, 3, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFF, 0x800000, 0xFFFFFF,
          0x1000000, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFE, 0xFFFFFFFF]


def lane_values(rng, n=64, bits=32):
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.3:
            v = rng.choice(EDGE32)
            if bits == 64:
                v |= rng.choice(EDGE32) << 32
        elif r < 0.45:
            v = rng.randrange(0, 64)
        else:
            v = rng.getrandbits(bits)
        out.append(v)
    return out


def popcount(x):
    return bin(x).count("1")


def arr(vals):
    return np.array([v & M32 for v in vals], np.uint32)


def s24(x):
    return sgn(x & 0xFFFFFF, 24)


def bfe_u(x, off, w):
    off &= 31
    w &= 31
    if w == 0:
        return 0
    if off + w < 32:
        return (x >> off) & ((1 << w) - 1)
    return x >> off


def bfe_i(x, off, w):
    off &= 31
    w &= 31
    if w == 0:
        return 0
    if off + w < 32:
        return sgn((x >> off) & ((1 << w) - 1), w) & M32
    return (sgn(x) >> off) & M32


def ffbh_u(x):
    return 32 - x.bit_length() if x else M32


def ffbh_i(x):
    s = (x >> 31) & 1
    for i in range(1, 32):
        if ((x >> (31 - i)) & 1) != s:
            return i
    return M32


def ffbl(x):
    return (x & -x).bit_length() - 1 if x else M32


def bytes_of(x):
    return [(x >> (8 * i)) & 0xFF for i in range(4)]


# name -> (asm with {d}, reference(a, b, c, lane) -> value)
BINOPS = {
    "v_mul_lo_u32": ("v_mul_lo_u32 {d}, v0, v1", lambda a, b, c, l: (a * b) & M32),
    "v_mul_hi_u32": ("v_mul_hi_u32 {d}, v0, v1", lambda a, b, c, l: (a * b) >> 32),
    "v_mul_lo_i32": ("v_mul_lo_i32 {d}, v0, v1", lambda a, b, c, l: (sgn(a) * sgn(b)) & M32),
    "v_mul_hi_i32": ("v_mul_hi_i32 {d}, v0, v1", lambda a, b, c, l: ((sgn(a) * sgn(b)) >> 32) & M32),
    "v_mul_u32_u24": ("v_mul_u32_u24 {d}, v0, v1",
                      lambda a, b, c, l: ((a & 0xFFFFFF) * (b & 0xFFFFFF)) & M32),
    "v_mul_hi_u32_u24": ("v_mul_hi_u32_u24 {d}, v0, v1",
                         lambda a, b, c, l: ((a & 0xFFFFFF) * (b & 0xFFFFFF)) >> 32),
    "v_mul_i32_i24": ("v_mul_i32_i24 {d}, v0, v1", lambda a, b, c, l: (s24(a) * s24(b)) & M32),
    "v_mul_hi_i32_i24": ("v_mul_hi_i32_i24 {d}, v0, v1",
                         lambda a, b, c, l: ((s24(a) * s24(b)) >> 32) & M32),
    "v_mad_u32_u24": ("v_mad_u32_u24 {d}, v0, v1, v2",
                      lambda a, b, c, l: ((a & 0xFFFFFF) * (b & 0xFFFFFF) + c) & M32),
    "v_mad_i32_i24": ("v_mad_i32_i24 {d}, v0, v1, v2",
                      lambda a, b, c, l: (s24(a) * s24(b) + sgn(c)) & M32),
    "v_bfe_u32": ("v_bfe_u32 {d}, v0, v1, v2", lambda a, b, c, l: bfe_u(a, b, c)),
    "v_bfe_i32": ("v_bfe_i32 {d}, v0, v1, v2", lambda a, b, c, l: bfe_i(a, b, c)),
    "v_bfi_b32": ("v_bfi_b32 {d}, v0, v1, v2", lambda a, b, c, l: (a & b) | (~a & c & M32)),
    "v_bfm_b32": ("v_bfm_b32 {d}, v0, v1", lambda a, b, c, l: (((1 << (a & 31)) - 1) << (b & 31)) & M32),
    "v_alignbit_b32": ("v_alignbit_b32 {d}, v0, v1, v2",
                       lambda a, b, c, l: (((a << 32) | b) >> (c & 31)) & M32),
    "v_alignbyte_b32": ("v_alignbyte_b32 {d}, v0, v1, v2",
                        lambda a, b, c, l: (((a << 32) | b) >> (8 * (c & 3))) & M32),
    "v_bcnt_u32_b32": ("v_bcnt_u32_b32 {d}, v0, v1", lambda a, b, c, l: (popcount(a) + b) & M32),
    "v_mbcnt_lo_u32_b32": ("v_mbcnt_lo_u32_b32 {d}, v0, v1",
                           lambda a, b, c, l: (popcount(a & ((1 << min(l, 32)) - 1)) + b) & M32),
    "v_mbcnt_hi_u32_b32": ("v_mbcnt_hi_u32_b32 {d}, v0, v1",
                           lambda a, b, c, l: (popcount(a & ((1 << max(l - 32, 0)) - 1)) + b) & M32),
    "v_ffbh_u32": ("v_ffbh_u32 {d}, v0", lambda a, b, c, l: ffbh_u(a)),
    "v_ffbl_b32": ("v_ffbl_b32 {d}, v0", lambda a, b, c, l: ffbl(a)),
    "v_ffbh_i32": ("v_ffbh_i32 {d}, v0", lambda a, b, c, l: ffbh_i(a)),
    "v_bfrev_b32": ("v_bfrev_b32 {d}, v0", lambda a, b, c, l: int(format(a, "032b")[::-1], 2)),
    "v_not_b32": ("v_not_b32 {d}, v0", lambda a, b, c, l: ~a & M32),
    "v_and_b32": ("v_and_b32 {d}, v0, v1", lambda a, b, c, l: a & b),
    "v_or_b32": ("v_or_b32 {d}, v0, v1", lambda a, b, c, l: a | b),
    "v_xor_b32": ("v_xor_b32 {d}, v0, v1", lambda a, b, c, l: a ^ b),
    "v_min_i32": ("v_min_i32 {d}, v0, v1", lambda a, b, c, l: a if sgn(a) < sgn(b) else b),
    "v_max_i32": ("v_max_i32 {d}, v0, v1", lambda a, b, c, l: a if sgn(a) > sgn(b) else b),
    "v_min_u32": ("v_min_u32 {d}, v0, v1", lambda a, b, c, l: min(a, b)),
    "v_max_u32": ("v_max_u32 {d}, v0, v1", lambda a, b, c, l: max(a, b)),
    "v_min3_i32": ("v_min3_i32 {d}, v0, v1, v2",
                   lambda a, b, c, l: min((a, b, c), key=sgn)),
    "v_max3_i32": ("v_max3_i32 {d}, v0, v1, v2", lambda a, b, c, l: max((a, b, c), key=sgn)),
    "v_med3_i32": ("v_med3_i32 {d}, v0, v1, v2", lambda a, b, c, l: sorted((a, b, c), key=sgn)[1]),
    "v_min3_u32": ("v_min3_u32 {d}, v0, v1, v2", lambda a, b, c, l: min(a, b, c)),
    "v_max3_u32": ("v_max3_u32 {d}, v0, v1, v2", lambda a, b, c, l: max(a, b, c)),
    "v_med3_u32": ("v_med3_u32 {d}, v0, v1, v2", lambda a, b, c, l: sorted((a, b, c))[1]),
    "v_lshl_b32": ("v_lshl_b32 {d}, v0, v1", lambda a, b, c, l: (a << (b & 31)) & M32),
    "v_lshlrev_b32": ("v_lshlrev_b32 {d}, v1, v0", lambda a, b, c, l: (a << (b & 31)) & M32),
    "v_lshr_b32": ("v_lshr_b32 {d}, v0, v1", lambda a, b, c, l: a >> (b & 31)),
    "v_lshrrev_b32": ("v_lshrrev_b32 {d}, v1, v0", lambda a, b, c, l: a >> (b & 31)),
    "v_ashr_i32": ("v_ashr_i32 {d}, v0, v1", lambda a, b, c, l: (sgn(a) >> (b & 31)) & M32),
    "v_ashrrev_i32": ("v_ashrrev_i32 {d}, v1, v0", lambda a, b, c, l: (sgn(a) >> (b & 31)) & M32),
    "v_sad_u32": ("v_sad_u32 {d}, v0, v1, v2", lambda a, b, c, l: (abs(a - b) + c) & M32),
    "v_sad_u8": ("v_sad_u8 {d}, v0, v1, v2",
                 lambda a, b, c, l: (sum(abs(x - y) for x, y in zip(bytes_of(a), bytes_of(b))) + c) & M32),
    "v_sad_hi_u8": ("v_sad_hi_u8 {d}, v0, v1, v2",
                    lambda a, b, c, l: ((sum(abs(x - y) for x, y in zip(bytes_of(a), bytes_of(b))) << 16)
                                        + c) & M32),
    "v_sad_u16": ("v_sad_u16 {d}, v0, v1, v2",
                  lambda a, b, c, l: (abs((a & 0xFFFF) - (b & 0xFFFF)) + abs((a >> 16) - (b >> 16)) + c) & M32),
    "v_msad_u8": ("v_msad_u8 {d}, v0, v1, v2",
                  lambda a, b, c, l: (sum(abs(x - y) for x, y in zip(bytes_of(a), bytes_of(b)) if y)
                                      + c) & M32),
}


def _run_binops(rng, names):
    a, b, c = (lane_values(rng) for _ in range(3))
    lines, where = [], {}
    for i, name in enumerate(names):
        d = 10 + i
        where[name] = d
        lines.append(BINOPS[name][0].format(d=f"v{d}"))
    st = run("\n".join(lines), vgpr={0: arr(a), 1: arr(b), 2: arr(c)})
    bad = []
    for name in names:
        got = st.vgpr[where[name]]
        ref = BINOPS[name][1]
        for l in range(64):
            exp = ref(a[l], b[l], c[l], l) & M32
            if int(got[l]) != exp:
                bad.append(f"{name} lane {l}: a={a[l]:#x} b={b[l]:#x} c={c[l]:#x}: "
                           f"got {int(got[l]):#x} expected {exp:#x}")
                break
    assert not bad, "\n".join(bad)


@SETTINGS
@given(seed=st.integers(0, 2**32))
def test_integer_ops_per_lane(seed):
    _run_binops(random.Random(seed), list(BINOPS))


def test_med3_ties():
    # median with equal operands: AMD's 'median(S0, S1, S2)'
    cases = [(5, 1, 1), (1, 5, 1), (1, 1, 5), (5, 5, 1), (2, 2, 2), (M32, 0, 0), (0, M32, M32)]
    cases = (cases * 10)[:64]
    a, b, c = ([x[i] for x in cases] for i in range(3))
    st = run("v_med3_i32 v10, v0, v1, v2\nv_med3_u32 v11, v0, v1, v2",
             vgpr={0: arr(a), 1: arr(b), 2: arr(c)})
    for l in range(64):
        assert st.vgpr[10][l] == sorted((a[l], b[l], c[l]), key=sgn)[1]
        assert st.vgpr[11][l] == sorted((a[l], b[l], c[l]))[1]


def mask_of(bits):
    return sum(1 << l for l, x in enumerate(bits) if x)


@SETTINGS
@given(seed=st.integers(0, 2**32))
def test_carry_ops_vcc_and_sgpr_pair(seed):
    rng = random.Random(seed)
    a, b = lane_values(rng), lane_values(rng)
    cin = rng.getrandbits(64)
    ci = [(cin >> l) & 1 for l in range(64)]
    src = """
    v_add_i32 v10, vcc, v0, v1
    s_mov_b64 s[10:11], vcc
    v_sub_i32 v11, vcc, v0, v1
    s_mov_b64 s[12:13], vcc
    v_subrev_i32 v12, vcc, v0, v1
    s_mov_b64 s[14:15], vcc
    s_mov_b64 vcc, s[4:5]
    v_addc_u32 v13, vcc, v0, v1, vcc
    s_mov_b64 s[16:17], vcc
    s_mov_b64 vcc, s[4:5]
    v_subb_u32 v14, vcc, v0, v1, vcc
    s_mov_b64 s[18:19], vcc
    s_mov_b64 vcc, s[4:5]
    v_subbrev_u32 v15, vcc, v0, v1, vcc
    s_mov_b64 s[20:21], vcc
    v_add_i32_e64 v16, s[22:23], v0, v1
    v_addc_u32_e64 v17, s[24:25], v0, v1, s[4:5]
    v_subb_u32_e64 v18, s[26:27], v0, v1, s[4:5]
    v_sub_i32_e64 v19, s[28:29], v0, v1
    """
    st = run(src, vgpr={0: arr(a), 1: arr(b)}, sgpr={4: cin & M32, 5: cin >> 32}, vcc=0x1234)

    def sp(i):
        return int(st.sgpr[i]) | (int(st.sgpr[i + 1]) << 32)

    exp = {
        10: ([(x + y) for x, y in zip(a, b)], [x + y > M32 for x, y in zip(a, b)], 10),
        11: ([x - y for x, y in zip(a, b)], [y > x for x, y in zip(a, b)], 12),
        12: ([y - x for x, y in zip(a, b)], [x > y for x, y in zip(a, b)], 14),
        13: ([x + y + c for x, y, c in zip(a, b, ci)], [x + y + c > M32 for x, y, c in zip(a, b, ci)], 16),
        14: ([x - y - c for x, y, c in zip(a, b, ci)], [y + c > x for x, y, c in zip(a, b, ci)], 18),
        15: ([y - x - c for x, y, c in zip(a, b, ci)], [x + c > y for x, y, c in zip(a, b, ci)], 20),
        16: ([(x + y) for x, y in zip(a, b)], [x + y > M32 for x, y in zip(a, b)], 22),
        17: ([x + y + c for x, y, c in zip(a, b, ci)], [x + y + c > M32 for x, y, c in zip(a, b, ci)], 24),
        18: ([x - y - c for x, y, c in zip(a, b, ci)], [y + c > x for x, y, c in zip(a, b, ci)], 26),
        19: ([x - y for x, y in zip(a, b)], [y > x for x, y in zip(a, b)], 28),
    }
    for v, (vals, carries, s) in exp.items():
        assert [int(x) for x in st.vgpr[v]] == [x & M32 for x in vals], v
        assert sp(s) == mask_of(carries), v


def test_64bit_add_chain_and_mbcnt_lane_id():
    rng = random.Random(7)
    a, b = lane_values(rng, bits=64), lane_values(rng, bits=64)
    st = run("""
    v_add_i32 v10, vcc, v0, v2
    v_addc_u32 v11, vcc, v1, v3, vcc
    v_sub_i32 v12, vcc, v0, v2
    v_subb_u32 v13, vcc, v1, v3, vcc
    v_mbcnt_lo_u32_b32_e64 v20, -1, 0
    v_mbcnt_hi_u32_b32_e64 v20, -1, v20
    """, vgpr={0: arr(a), 1: arr([x >> 32 for x in a]), 2: arr(b), 3: arr([x >> 32 for x in b])})
    for l in range(64):
        s = int(st.vgpr[10][l]) | int(st.vgpr[11][l]) << 32
        d = int(st.vgpr[12][l]) | int(st.vgpr[13][l]) << 32
        assert s == (a[l] + b[l]) & M64
        assert d == (a[l] - b[l]) & M64
    assert list(st.vgpr[20]) == list(range(64))


@SETTINGS
@given(seed=st.integers(0, 2**32))
def test_64bit_shifts(seed):
    rng = random.Random(seed)
    a = lane_values(rng, bits=64)
    sh = [rng.randrange(0, 1 << 32) if rng.random() < 0.3 else rng.randrange(0, 64) for _ in range(64)]
    st = run("""
    v_lshl_b64 v[10:11], v[0:1], v2
    v_lshr_b64 v[12:13], v[0:1], v2
    v_ashr_i64 v[14:15], v[0:1], v2
    """, vgpr={0: arr(a), 1: arr([x >> 32 for x in a]), 2: arr(sh)})
    for l in range(64):
        n = sh[l] & 63

        def g(r):
            return int(st.vgpr[r][l]) | int(st.vgpr[r + 1][l]) << 32
        assert g(10) == (a[l] << n) & M64, l
        assert g(12) == a[l] >> n, l
        assert g(14) == (sgn(a[l], 64) >> n) & M64, l


def _mad64(seed):
    rng = random.Random(seed)
    a, b = lane_values(rng), lane_values(rng)
    c = lane_values(rng, bits=64)
    st = run("""
    s_mov_b64 s[10:11], -1
    v_mad_u64_u32 v[10:11], s[10:11], v0, v1, v[2:3]
    v_mad_i64_i32 v[12:13], s[12:13], v0, v1, v[2:3]
    """, vgpr={0: arr(a), 1: arr(b), 2: arr(c), 3: arr([x >> 32 for x in c])})
    return a, b, c, st


def test_v_mad_u64_u32_and_i64_i32():
    a, b, c, st = _mad64(3)
    for l in range(64):
        r = a[l] * b[l] + c[l]
        assert int(st.vgpr[10][l]) | int(st.vgpr[11][l]) << 32 == r & M64
        r = sgn(a[l]) * sgn(b[l]) + sgn(c[l], 64)
        assert int(st.vgpr[12][l]) | int(st.vgpr[13][l]) << 32 == r & M64


def test_v_mad_u64_u32_carry_out():
    # CLRX: SDST lane bit = (VDST < PROD), the carry out of the 64-bit add. (The i64 form's
    # SDST is documented as unknown, so it is not checked.)
    a, b, c, st = _mad64(3)
    carry = [a[l] * b[l] + c[l] > M64 for l in range(64)]
    assert any(carry) and not all(carry)
    assert int(st.sgpr[10]) | int(st.sgpr[11]) << 32 == mask_of(carry)


def test_inline_constants_and_literals_integer():
    st = run("""
    v_mov_b32 v10, 64
    v_mov_b32 v11, -16
    v_mov_b32 v12, 65
    v_mov_b32 v13, -17
    v_add_i32 v14, vcc, 0x12345678, v0
    v_add_i32_e64 v15, s[0:1], -16, v0
    v_mov_b32 v16, 0.5
    v_mov_b32 v17, -4.0
    v_mul_u32_u24 v18, 0xABCDEF, v0
    """, vgpr={0: 3})
    assert (st.vgpr[10] == 64).all() and (st.vgpr[11] == (-16 & M32)).all()
    assert (st.vgpr[12] == 65).all() and (st.vgpr[13] == (-17 & M32)).all()
    assert (st.vgpr[14] == 0x12345678 + 3).all()
    assert (st.vgpr[15] == (-13 & M32)).all()
    assert (st.vgpr[16] == 0x3F000000).all()
    assert (st.vgpr[17] == 0xC0800000).all()
    assert (st.vgpr[18] == 0xABCDEF * 3).all()


def test_cndmask_vcc_and_sgpr_pair():
    rng = random.Random(11)
    a, b = lane_values(rng), lane_values(rng)
    m1, m2 = rng.getrandbits(64), rng.getrandbits(64)
    st = run("v_cndmask_b32 v10, v0, v1, vcc\nv_cndmask_b32_e64 v11, v0, v1, s[4:5]\n"
             "v_cndmask_b32_e64 v12, 0, -1, s[4:5]",
             vgpr={0: arr(a), 1: arr(b)}, vcc=m1, sgpr={4: m2 & M32, 5: m2 >> 32})
    for l in range(64):
        assert st.vgpr[10][l] == (b[l] if (m1 >> l) & 1 else a[l])
        assert st.vgpr[11][l] == (b[l] if (m2 >> l) & 1 else a[l])
        assert st.vgpr[12][l] == (M32 if (m2 >> l) & 1 else 0)


def _sad_bytes(s0, s1, masked):
    t = 0
    for i in range(4):
        x, y = (s0 >> 8 * i) & 0xFF, (s1 >> 8 * i) & 0xFF
        if masked and y == 0:
            continue
        t += abs(x - y)
    return t


def test_qsad_mqsad_against_clrx_pseudocode():
    rng = random.Random(17)
    s0 = [rng.getrandbits(64) for _ in range(64)]
    s1 = [rng.getrandbits(32) & rng.choice([M32, 0xFF00FF00, 0x00FFFF00, 0xFFFFFFFF]) for _ in range(64)]
    s2 = [sum(rng.randrange(0, 60000) << (16 * i) for i in range(4)) for _ in range(64)]
    acc = [[rng.getrandbits(32) if rng.random() < 0.7 else 0xFFFFFFF0 for _ in range(4)]
           for _ in range(64)]
    vg = {0: arr(s0), 1: arr([x >> 32 for x in s0]), 2: arr(s1), 4: arr(s2),
          5: arr([x >> 32 for x in s2])}
    for i in range(4):
        vg[20 + i] = arr([a[i] for a in acc])
    st = run("""
    v_qsad_pk_u16_u8 v[10:11], v[0:1], v2, v[4:5]
    v_mqsad_pk_u16_u8 v[12:13], v[0:1], v2, v[4:5]
    v_mqsad_u32_u8 v[14:17], v[0:1], v2, v[20:23]
    """, vgpr=vg)
    for l in range(64):
        q = mq = 0
        for n in range(4):
            win = (s0[l] >> (8 * n)) & M32
            q |= ((_sad_bytes(win, s1[l], False) + ((s2[l] >> 16 * n) & 0xFFFF)) & 0xFFFF) << 16 * n
            mq |= ((_sad_bytes(win, s1[l], True) + ((s2[l] >> 16 * n) & 0xFFFF)) & 0xFFFF) << 16 * n
            u = min(_sad_bytes(win, s1[l], True) + acc[l][n], M32)
            assert int(st.vgpr[14 + n][l]) == u, (l, n)
        assert int(st.vgpr[10][l]) | int(st.vgpr[11][l]) << 32 == q, l
        assert int(st.vgpr[12][l]) | int(st.vgpr[13][l]) << 32 == mq, l
