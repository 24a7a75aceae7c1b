"""The 32-bit VALU row kernels (gcnemu/dispatch_gen.py `_c32_*`, lanes.store_masked): the
plain round-to-nearest-even forms (valu_float.PLAIN32), the masked store under EXEC, flag
masks, and the engine's in-place operand rows (VGPRs read where they are, scalars broadcast,
VOP3 abs/neg on copies, v_mac's destination as a source).

Expected values come from numpy float32 arithmetic and Python integers; the whole-row check
against the 64-bit-lane kernels compares two separate implementations (that one is verified
against independent references in test_sem_valu_float.py / test_engine_valu_float.py).
"""
import numpy as np
import pytest
from numba import njit

from gcnemu.exec import opkernels as O

from snippets import M32, M64, f2u, run

DEFAULT_MODE = 0x3C0        # clang's OpenCL MODE: RNE, f32 denormals flushed, IEEE, DX10
MODES = [DEFAULT_MODE,
         0x3F0,             # f32 denormals kept
         0x3C1,             # f32 round toward +inf
         0x3C3]             # f32 round toward zero
SENTINEL = 0xDEADBEEF


@njit
def _run32(addr, rows, cin, ex, mode):
    base = rows.ctypes.data
    return O.call_valu32(addr, base + 4 * 256, base, base + 256, base + 512, base + 5 * 256,
                         cin, ex, mode)


@njit
def _run64(addr, rows, cin, ex, mode):
    base = rows.ctypes.data
    return O.call_valu(addr, base, base + 512, base + 1024, base + 1536, cin, ex, mode)


_SPECIAL = {
    # zeros, denormals, values near the underflow edge (products that become denormal)
    "denormal": [0, 0x80000000, 1, 0x807FFFFF, 0x00400000, 0x00800000, 0x80800001, 0x1F800000,
                 0x3F800000],
    # infinities, NaNs, values near the overflow edge, zeros (inf * 0: the host's default
    # NaN is 0xFFC00000, the hardware's 0x7FC00000)
    "nan": [0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC01234, 0x7F7FFFFF,
            0x5F800000, 0x3F800000, 0, 0x80000000],
}
_SPECIAL["mixed"] = _SPECIAL["denormal"] + _SPECIAL["nan"][:-2]
#: zeros and tiny normals whose products underflow to zero or a denormal, no denormal operand:
#: the plain rows' first pass marks zeros and denormals alike, their exact keys tell them apart
_SPECIAL["zero"] = [0, 0x80000000, 0x00800000, 0x80800000, 0x1F800000, 0x9F800000, 0x20000000]


#: lanes 0..2 of the three sources in the 'nan' case: NaNs that only the operation makes
#: (inf * 0, inf + -inf, inf - inf), where the host's default NaN differs from the hardware's
_INVALID = [(0x7F800000, 0x7F800000, 0x7F800000), (0, 0xFF800000, 0x7F800000),
            (0x3F800000, 0x7F800000, 0xFF800000)]


def _operands(rng, kind, src=0):
    """64 f32 bit patterns: 'normal' (moderate range, both signs), or normals plus a few
    special values: 'denormal' (zeros, denormals, tiny values, no NaN), 'nan' (infinities,
    NaNs, huge values, no denormal), 'zero' (zeros and tiny values, no denormal, no NaN) or
    'mixed' (all of them). The first two keep apart the row kernels' two reasons to leave the
    plain host path; 'zero' rows stay on it unless a result is denormal."""
    v = rng.uniform(-4, 4, 64).astype(np.float32).view(np.uint32)
    if kind != "normal":
        special = np.array(_SPECIAL[kind], np.uint32)
        n = 24 if kind == "mixed" else 6
        idx = rng.choice(64, n, replace=False)
        v[idx] = rng.choice(special, n)
    if kind == "nan":
        v[0:3] = _INVALID[src]
    return v


ROW32_OPS = ["v_add_f32", "v_sub_f32", "v_subrev_f32", "v_mul_f32", "v_mad_f32", "v_mac_f32",
             "v_madak_f32", "v_madmk_f32", "v_fma_f32", "v_div_fmas_f32", "v_rcp_f32",
             "v_sqrt_f32", "v_rsq_f32", "v_div_scale_f32", "v_div_fixup_f32", "v_mov_b32",
             "v_add_i32", "v_addc_u32", "v_cndmask_b32", "v_min_f32",
             # the plain host compares, every predicate, the x/s/sx variants
             "v_cmp_f_f32", "v_cmp_lt_f32", "v_cmp_eq_f32", "v_cmp_le_f32", "v_cmp_gt_f32",
             "v_cmp_lg_f32", "v_cmp_ge_f32", "v_cmp_o_f32", "v_cmp_u_f32", "v_cmp_nge_f32",
             "v_cmp_nlg_f32", "v_cmp_ngt_f32", "v_cmp_nle_f32", "v_cmp_neq_f32",
             "v_cmp_nlt_f32", "v_cmp_tru_f32", "v_cmpx_lt_f32", "v_cmps_nle_f32",
             "v_cmpsx_u_f32", "v_cmp_class_f32", "v_cmp_lt_i32",
             "v_cvt_i32_f32", "v_lshlrev_b32"]


@pytest.mark.parametrize("name", ROW32_OPS)
@pytest.mark.parametrize("kind", ["normal", "denormal", "nan", "zero", "mixed"])
def test_row32_kernel_matches_lane_kernel(name, kind):
    """Every lane under EXEC gets the 64-bit-lane kernel's result, every other lane keeps its
    old value, and the flag mask agrees on active lanes -- in four MODEs, with odd values in
    inactive lanes too (they must not change active results)."""
    rng = np.random.default_rng(abs(hash((name, kind))) % 2**32)
    a32, a64 = O.valu32_address(name), O.valu_address(name)
    for mode in MODES:
        for ex in (M64, 0x0F0F_F0F0_1234_8001, 0):
            srcs = [_operands(rng, kind, i) for i in range(3)]
            cin = int(rng.integers(0, 2**63)) * 2 + 1
            if name == "v_div_fmas_f32" and kind == "normal":
                cin = 0        # VCC clear: the plain fma path
            rows32 = np.zeros((8, 64), np.uint32)
            rows32[0:3] = srcs
            rows32[4] = SENTINEL
            fl32 = _run32(a32, rows32, np.uint64(cin), np.uint64(ex), mode)
            rows64 = np.zeros((4, 64), np.uint64)
            rows64[0:3] = np.array(srcs, np.uint64)
            fl64 = _run64(a64, rows64, np.uint64(cin), np.uint64(ex), mode)
            active = np.array([(ex >> l) & 1 for l in range(64)], bool)
            want = np.where(active, (rows64[3] & M32).astype(np.uint32), np.uint32(SENTINEL))
            if not name.startswith("v_cmp"):
                assert np.array_equal(rows32[4], want), (name, kind, hex(mode), hex(ex))
            assert int(fl32) & ex == int(fl64) & ex, (name, kind, hex(mode), hex(ex))


def _f32(bits):
    return np.asarray(bits, np.uint32).view(np.float32)


def test_plain_forms_against_numpy():
    """Normal operands with normal results: the plain forms give numpy's float32 IEEE result
    (round to nearest even) -- add, sub, subrev, mul, unfused mad, rcp, sqrt."""
    rng = np.random.default_rng(7)
    a = rng.uniform(0.5, 4, 64).astype(np.float32)
    b = rng.uniform(-4, -0.5, 64).astype(np.float32)
    c = rng.uniform(-4, 4, 64).astype(np.float32)
    with np.errstate(all="ignore"):
        expected = {
            "v_add_f32": a + b, "v_sub_f32": a - b, "v_subrev_f32": b - a, "v_mul_f32": a * b,
            "v_mad_f32": (a * b) + c, "v_mac_f32": (a * b) + c, "v_madak_f32": (a * b) + c,
            "v_madmk_f32": (a * c) + b, "v_rcp_f32": np.float32(1) / a, "v_sqrt_f32": np.sqrt(a),
        }
    for name, want in expected.items():
        rows = np.zeros((8, 64), np.uint32)
        rows[0], rows[1], rows[2] = a.view(np.uint32), b.view(np.uint32), c.view(np.uint32)
        _run32(O.valu32_address(name), rows, np.uint64(0), np.uint64(M64), DEFAULT_MODE)
        assert np.array_equal(rows[4], want.astype(np.float32).view(np.uint32)), name


def test_plain_rows_with_zeros_against_numpy():
    """Rows with zeros of both signs among normal operands (the plain rows' first pass marks
    them, the exact keys let them through): numpy's float32 results, signed zeros included,
    in both f32 denormal modes; a product that becomes denormal sends the row to the op,
    which flushes it to zero with the default MODE and keeps it with denormals on."""
    rng = np.random.default_rng(9)
    a = rng.uniform(0.5, 4, 64).astype(np.float32)
    b = rng.uniform(-4, -0.5, 64).astype(np.float32)
    c = rng.uniform(-4, 4, 64).astype(np.float32)
    a[[3, 17, 40]] = [0.0, -0.0, 0.0]
    b[[5, 17, 41]] = [-0.0, 0.0, 0.0]
    c[[3, 9]] = [-0.0, 0.0]
    with np.errstate(all="ignore"):
        expected = {"v_add_f32": a + b, "v_sub_f32": a - b, "v_mul_f32": a * b,
                    "v_mad_f32": (a * b) + c, "v_rcp_f32": np.float32(1) / a,
                    "v_sqrt_f32": np.sqrt(a)}
    for name, want in expected.items():
        for mode in (DEFAULT_MODE, 0x3F0):
            rows = np.zeros((8, 64), np.uint32)
            rows[0], rows[1], rows[2] = a.view(np.uint32), b.view(np.uint32), c.view(np.uint32)
            _run32(O.valu32_address(name), rows, np.uint64(0), np.uint64(M64), mode)
            assert np.array_equal(rows[4], want.view(np.uint32)), (name, hex(mode))
    # 2**-70 * 2**-60: 2**-130, a denormal
    tiny = np.full(64, 2.0 ** -70, np.float32)
    tiny[7] = 0.0
    rows = np.zeros((8, 64), np.uint32)
    rows[0], rows[1] = tiny.view(np.uint32), np.full(64, 2.0 ** -60, np.float32).view(np.uint32)
    for mode, want in ((DEFAULT_MODE, 0), (0x3F0, f2u(2.0 ** -130))):
        _run32(O.valu32_address("v_mul_f32"), rows, np.uint64(0), np.uint64(M64), mode)
        assert rows[4, 0] == want and rows[4, 7] == 0, hex(mode)


def test_div_scale_row_at_its_exponent_limits():
    """v_div_scale_f32's plain row (S0 unchanged, VCC clear) holds only inside its limits:
    numerator exponent above 23, exponent difference -125..95, |denominator| <= 2**126. Each
    lane on either side of a limit, in a row of plain lanes (the row kernel decides for the
    whole row), against the 64-bit-lane kernel (whose quick form and op are separate code),
    in both f32 denormal modes."""
    lanes = []
    for e1, e2 in [(130, 5), (127, 2), (150, 24), (150, 23), (150, 25), (151, 26), (30, 125),
                   (30, 126), (31, 125), (200, 75), (200, 74), (200, 76), (220, 95), (100, 195),
                   (100, 196), (100, 194), (100, 23), (100, 24), (253, 128), (254, 128),
                   (252, 127)]:
        for mant in (0, 0x7FFFFF, 0x123456):
            b = (e1 << 23) | mant
            c = (e2 << 23) | (mant ^ 0x2AAAAA)
            lanes += [(c, b, c), (b, b, c), (0x80000000 | c, b | 0x80000000, c)]
    lanes += [(0x3F800000, 0x7E800000, 0x4E800000), (0x3F800000, 0x7E800001, 0x4E800000),
              (0x7F800000, 0x3F800000, 0x3F800000), (0x7F7FFFFF, 0x3F800000, 0x3F800000)]
    addr32, addr64 = O.valu32_address("v_div_scale_f32"), O.valu_address("v_div_scale_f32")
    for mode in (DEFAULT_MODE, 0x3F0):
        for i, lane in enumerate(lanes):
            rows32 = np.full((8, 64), 0x3F800000, np.uint32)
            rows32[0:3, i % 64] = lane
            rows32[4] = SENTINEL
            fl32 = _run32(addr32, rows32, np.uint64(0), np.uint64(M64), mode)
            rows64 = np.zeros((4, 64), np.uint64)
            rows64[0:3] = rows32[0:3]
            fl64 = _run64(addr64, rows64, np.uint64(0), np.uint64(M64), mode)
            assert np.array_equal(rows32[4], rows64[3].astype(np.uint32)), (hex(mode), lane)
            assert int(fl32) == int(fl64), (hex(mode), lane)


@njit
def _run_rows32(addr, src, out, ex, mode):
    """The row kernel at ``addr`` on every 64-lane row of ``src`` (as S0, S1 and S2), each
    result row into ``out``."""
    scratch = np.zeros(192, np.uint32)
    for i in range(src.shape[0]):
        O.call_valu32(addr, out[i].ctypes.data, src[i].ctypes.data, src[i].ctypes.data,
                      src[i].ctypes.data, scratch.ctypes.data, np.uint64(0), ex, mode)


def test_rsq_row_every_mantissa_against_f64():
    """v_rsq_f32's plain row (a Newton step from the f32 root, valu_float._plain_rsq_f32)
    against the f64 evaluation f32(1 / sqrt(f64(x))) that defines the op, computed by numpy:
    every x in [1, 4) -- each mantissa with both exponent parities; the row's every step scales
    exactly from there over the normal range -- including the few dozen lanes it leaves to the
    op itself, then random normal x in both f32 denormal modes."""
    addr = O.valu32_address("v_rsq_f32")
    bits = np.arange(0x3F800000, 0x40800000, dtype=np.uint32)
    rng = np.random.default_rng(13)
    spread = rng.integers(0x00800000, 0x7F800000, 1 << 16, dtype=np.uint32)
    for src, modes in [(part, (DEFAULT_MODE,)) for part in np.split(bits, 4)] + \
            [(spread, (DEFAULT_MODE, 0x3F0))]:
        src = src.reshape(-1, 64)
        want = (1.0 / np.sqrt(src.view(np.float32).astype(np.float64))).astype(np.float32)
        for mode in modes:
            out = np.zeros_like(src)
            _run_rows32(addr, src, out, np.uint64(M64), mode)
            assert np.array_equal(out, want.view(np.uint32)), hex(mode)


def test_engine_in_place_operands_modifiers_and_exec():
    """Through the engine: VOP3 neg/abs on VGPR and SGPR sources, an inline constant, v_mac
    reading its destination, a carry to VCC and a compare to an SGPR pair, under a partial
    EXEC; inactive lanes keep their values. Expected from numpy float32 / Python ints."""
    rng = np.random.default_rng(11)
    # magnitudes in [0.5, 3]: the exact fma sum then fits a float64 (see below)
    x = (rng.uniform(0.5, 3, 64) * rng.choice([-1, 1], 64)).astype(np.float32)
    y = (rng.uniform(0.5, 3, 64) * rng.choice([-1, 1], 64)).astype(np.float32)
    acc = rng.uniform(-3, 3, 64).astype(np.float32)
    ia = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    ib = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    ex = 0xF0F0_0FF0_AAAA_5555
    s_val = np.float32(1.75)
    vgpr = {1: x.view(np.uint32), 2: y.view(np.uint32), 3: acc.view(np.uint32), 4: ia, 5: ib,
            6: np.full(64, SENTINEL, np.uint32), 7: np.full(64, SENTINEL, np.uint32),
            8: np.full(64, SENTINEL, np.uint32), 9: np.full(64, SENTINEL, np.uint32),
            10: np.full(64, SENTINEL, np.uint32)}
    st = run("""
    v_fma_f32 v6, -v1, |v2|, s0
    v_mul_f32 v7, -s0, v1
    v_mac_f32 v3, v1, v2
    v_add_i32 v8, vcc, v4, v5
    v_cmp_gt_f32 s[10:11], v1, v2
    v_sub_f32 v9, 0.5, v2
    v_mad_f32 v10, |v1|, -v2, -v3
    """, sgpr={0: f2u(float(s_val))}, vgpr=vgpr, exec_mask=ex)
    active = np.array([(ex >> l) & 1 for l in range(64)], bool)

    def check(reg, want):
        want = np.asarray(want)
        want = np.where(active, want.view(np.uint32) if want.dtype == np.float32 else want,
                        np.uint32(SENTINEL)
                        if reg != 3 else acc.view(np.uint32))
        assert np.array_equal(np.asarray(st.vgpr[reg], np.uint32), want), reg

    # fma: one rounding. The product of two f32 is exact in float64 (48 bits), and with
    # |x|, |y| >= 0.5 and |sum| < 16 its lowest bit is >= 2**-48, so the sum is exact in
    # float64 too: one rounding to float32 is the fma
    prod = (-x.astype(np.float64)) * np.abs(y).astype(np.float64)
    fma = (prod + np.float64(s_val)).astype(np.float32)
    check(6, fma)
    check(7, (-s_val) * x)
    mac = (x * y) + acc
    check(3, mac)
    check(8, ((ia.astype(np.uint64) + ib) & M32).astype(np.uint32))
    carry = sum(1 << l for l in range(64) if active[l] and int(ia[l]) + int(ib[l]) > M32)
    assert st.vcc == carry
    gt = sum(1 << l for l in range(64) if active[l] and x[l] > y[l])
    assert int(st.sgpr[10]) | int(st.sgpr[11]) << 32 == gt
    check(9, np.float32(0.5) - y)
    check(10, (np.abs(x) * -y) + (-mac))


def test_engine_constant_rows_sgpr_pairs_and_absent_sources():
    """Constants with modifiers (rows made once per value, shared between instructions), a
    VOP3 carry-in and select mask from an SGPR pair, VOP1 ops (absent sources read as zero
    rows), and an SGPR broadcast followed by a different SGPR in the same slot."""
    rng = np.random.default_rng(12)
    x = rng.uniform(0.5, 3, 64).astype(np.float32)
    ia = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    ib = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    sel = 0x0123_4567_89AB_CDEF
    cin = 0xFFFF_0000_F0F0_1234
    ex = 0xFFFF_FFFF_0000_FFFF
    vgpr = {1: x.view(np.uint32), 4: ia, 5: ib}
    for r in range(6, 16):
        vgpr[r] = np.full(64, SENTINEL, np.uint32)
    st = run("""
    v_mul_f32 v6, v1, -2.0
    v_mad_f32 v7, v1, 2.0, -|-4.0|
    v_add_f32 v8, -2.0, v1
    v_addc_u32 v9, s[20:21], v4, v5, s[10:11]
    v_cndmask_b32 v10, v4, v5, s[12:13]
    v_rcp_f32 v11, v1
    v_not_b32 v12, v4
    v_add_f32 v13, s2, v1
    v_add_f32 v14, s3, v1
    v_mul_f32 v15, 2.0, v1
    """, sgpr={10: cin & M32, 11: cin >> 32, 12: sel & M32, 13: sel >> 32,
               2: f2u(0.25), 3: f2u(-8.0)}, vgpr=vgpr, exec_mask=ex)
    active = np.array([(ex >> l) & 1 for l in range(64)], bool)

    def check(reg, want):
        want = np.asarray(want)
        want = want.view(np.uint32) if want.dtype == np.float32 else want.astype(np.uint32)
        got = np.asarray(st.vgpr[reg], np.uint32)
        assert np.array_equal(got, np.where(active, want, np.uint32(SENTINEL))), reg

    check(6, x * np.float32(-2.0))
    check(7, (x * np.float32(2.0)) + np.float32(-4.0))
    check(8, np.float32(-2.0) + x)
    sums = [int(ia[l]) + int(ib[l]) + ((cin >> l) & 1) for l in range(64)]
    check(9, [v & M32 for v in sums])
    assert int(st.sgpr[20]) | int(st.sgpr[21]) << 32 == \
        sum(1 << l for l in range(64) if active[l] and sums[l] > M32)
    check(10, [int(ib[l]) if (sel >> l) & 1 else int(ia[l]) for l in range(64)])
    check(11, np.float32(1.0) / x)
    check(12, ~ia)
    check(13, np.float32(0.25) + x)
    check(14, np.float32(-8.0) + x)
    check(15, np.float32(2.0) * x)


def test_plain_rows_are_marked_and_point_at_their_constant_rows():
    """program._row32_operands: FL_PLAIN32 marks the 32-bit rows whose sources are VGPRs
    without abs/neg, constants or absent ones, which the engine reads through C_V* (a
    constant's row with its modifiers applied, the zero row); an SGPR source, a VGPR with
    abs or neg, a carry-in from an SGPR pair and 64-bit operands keep the other paths.
    Rows are read back from their addresses and compared with struct-packed floats."""
    import ctypes

    from gcnemu.exec import layout as L
    from gcnemu.exec.program import build_program
    from gcnemu.isa.decoder import decode
    from snippets import code

    prog = build_program(decode(code("""
    v_add_f32 v1, v2, v3
    v_mul_f32 v1, 0.5, v2
    v_mad_f32 v1, v2, -|2.0|, v3
    v_not_b32 v1, v2
    v_cndmask_b32 v1, v2, v3, vcc
    v_add_f32 v1, s2, v3
    v_mad_f32 v1, -v2, v3, v4
    v_cndmask_b32 v1, v2, v3, s[4:5]
    v_add_f64 v[1:2], v[2:3], v[4:5]
    """)))
    rows = prog.code
    want = [True, True, True, True, True, False, False, False, False]
    assert [bool(int(r[L.C_FLAGS]) & L.FL_PLAIN32) for r in rows[:len(want)]] == want

    def row(addr):
        return np.array((ctypes.c_uint32 * 64).from_address(int(addr)), np.uint32)

    assert np.all(row(rows[1, L.C_V0]) == f2u(0.5))
    assert np.all(row(rows[2, L.C_V1]) == f2u(-2.0))
    assert np.all(row(rows[3, L.C_V1]) == 0) and np.all(row(rows[3, L.C_V2]) == 0)
    assert np.all(row(rows[4, L.C_V2]) == 0)   # VOP2's select comes from VCC, src2 absent


def test_vop3_forms_of_two_source_ops_read_no_third_source():
    """A VOP3 word always has src1 and src2 fields; an op without such an operand
    (v_cmp_*_e64, v_add_i32_e64, a VOP1 op as VOP3) ignores them. The decoder marks them
    absent, as the short encodings do, so these rows are FL_PLAIN32 (before, src2 = 0 made
    them read s0 as a third source, off the pre-resolved path). v_mac_f32_e64 keeps its
    destination as src2. Through the engine, with s0 set, they give numpy's bits."""
    from gcnemu.exec import layout as L
    from gcnemu.exec.program import build_program
    from gcnemu.isa.decoder import decode
    from snippets import code

    src = """
    v_cmp_nlt_f32_e64 s[6:7], 4.0, v1
    v_add_i32_e64 v3, s[8:9], 1, v2
    v_cvt_f32_i32_e64 v4, v2
    v_mac_f32_e64 v5, v1, v1
    """
    rows = build_program(decode(code(src))).code
    assert [bool(int(r[L.C_FLAGS]) & L.FL_PLAIN32) for r in rows[:4]] == [True] * 4
    assert [int(r[L.C_S2]) for r in rows[:3]] == [-1, -1, -1]
    assert int(rows[2, L.C_S1]) == -1
    assert int(rows[3, L.C_S2]) == 256 + 5

    rng = np.random.default_rng(5)
    x = rng.uniform(-6, 6, 64).astype(np.float32)
    i = rng.integers(-2**31, 2**31, 64, dtype=np.int64).astype(np.int32)
    i[:4] = [-1, 2**31 - 1, -2**31, 0]          # carries out of the add, exact and rounded cvt
    acc = rng.uniform(-3, 3, 64).astype(np.float32)
    st = run(src, sgpr={0: 0x40800000},         # s0 = 4.0: nothing may read it
             vgpr={1: x.view(np.uint32), 2: i.view(np.uint32), 5: acc.view(np.uint32)})
    nlt = sum(1 << l for l in range(64) if not np.float32(4.0) < x[l])
    assert int(st.sgpr[6]) | int(st.sgpr[7]) << 32 == nlt
    u = i.view(np.uint32).astype(np.uint64)
    assert np.array_equal(st.vgpr[3], ((u + 1) & M32).astype(np.uint32))
    assert int(st.sgpr[8]) | int(st.sgpr[9]) << 32 == sum(1 << l for l in range(64) if u[l] + 1 > M32)
    assert np.array_equal(st.vgpr[4], i.astype(np.float32).view(np.uint32))
    assert np.array_equal(st.vgpr[5], (x * x + acc).view(np.uint32))


def test_runs_of_row32_and_salu_instructions_see_exec_changes_and_stop_at_the_step_limit():
    """run_wave runs consecutive fast rows (VALU, SALU, branches: engine.fast_row) in an inner
    loop (functional mode): a v_cmpx inside such a run, or a VOP3 compare whose destination
    is EXEC, changes EXEC for the rows after it; the instruction count is that of single
    steps, and a step limit that falls inside a run stops the wave at that instruction."""
    lane = np.arange(64, dtype=np.uint32)
    src = """
    v_add_i32 v1, vcc, 1, v0
    v_cmpx_gt_u32 vcc, 32, v0
    v_add_i32 v2, vcc, v1, v1
    v_cmp_gt_u32_e64 exec, 16, v0
    v_mov_b32 v3, 7
    """
    init = {0: lane, 2: np.full(64, SENTINEL, np.uint32), 3: np.full(64, SENTINEL, np.uint32)}
    st = run(src, vgpr=init)
    assert st.instructions == 6 and st.exec == (1 << 16) - 1
    assert np.array_equal(st.vgpr[1], lane + 1)
    assert np.array_equal(st.vgpr[2], np.where(lane < 32, 2 * (lane + 1), SENTINEL))
    assert np.array_equal(st.vgpr[3], np.where(lane < 16, 7, SENTINEL))
    from snippets import ExecutionError
    with pytest.raises(ExecutionError, match="step limit") as ei:
        run(src, vgpr=init, step_limit=3)       # runs three, stops before the fourth (pc 12)
    assert ei.value.pc == 12
    salu = """
    s_mov_b32 s0, 3
    s_add_u32 s1, s0, s0
    s_lshl_b32 s2, s1, 2
    s_or_b32 s3, s2, s0
    """
    st = run(salu)
    assert st.instructions == 5 and list(st.sgpr[:4]) == [3, 6, 24, 27] and st.scc == 1
    with pytest.raises(ExecutionError, match="step limit") as ei:
        run(salu, step_limit=2)
    assert ei.value.pc == 8
