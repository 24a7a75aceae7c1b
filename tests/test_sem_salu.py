"""SALU semantics (gcnemu.sem.salu) against independent Python-integer references.

References are written from the CLRX pseudo-code (GcnInstrsSop1/Sop2/Sopc/Sopk.md) with
exact Python integers, formulated differently from the implementation (bit loops,
string operations, exact signed arithmetic). The op list is read from LLVM's gfx7 syntax
reference (AMDGPUAsmGFX7.rst) when shared/ is present.
"""
import itertools
import re
from pathlib import Path

import numba
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from gcnemu.sem import salu as S

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
RST = SHARED / "reference" / "llvm-gfx7-syntax" / "AMDGPUAsmGFX7.rst"

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
EDGE32 = [0, 1, 2, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000,
          0x80000001, 0xFFFFFFFE, 0xFFFFFFFF]
EDGE64 = EDGE32 + [0x100000000, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000,
                   0xFFFFFFFF00000000, M64]
u32s = st.one_of(st.sampled_from(EDGE32), st.integers(0, M32))
u64s = st.one_of(st.sampled_from(EDGE64), st.integers(0, M64))
u16s = st.one_of(st.sampled_from([0, 1, 0x7FFF, 0x8000, 0xFFFF]), st.integers(0, 0xFFFF))
# S1 of s_bfe packs offset (low bits) and width (bits 22:16)
bfe_ctl = st.builds(lambda o, w, junk: (o | (w << 16) | (junk << 23)) & M32,
                    st.integers(0, 63), st.integers(0, 127), st.integers(0, 1))


def sgn(x, n=32):
    x &= (1 << n) - 1
    return x - (1 << n) if x >> (n - 1) else x


def nz(r):
    return int(r != 0)


def first_bit(x, n, want):
    for i in range(n):
        if (x >> i & 1) == want:
            return i
    return M32


def flbit(x, n, signed):
    sign = x >> (n - 1) & 1
    for i in range(n - 1, -1, -1):
        if signed and (x >> i & 1) != sign or not signed and x >> i & 1:
            return n - 1 - i
    return M32


def wqm(x, n):
    return sum(0xF << i for i in range(0, n, 4) if x >> i & 0xF)


def quadmask(x, n):
    return sum(1 << (i // 4) for i in range(0, n, 4) if x >> i & 0xF)


def bfe(x, ctl, n, signed):
    off = ctl & (n - 1)
    w = (ctl >> 16) & 0x7F
    if w == 0:
        return 0
    if off + w < n:
        f = (x >> off) & ((1 << w) - 1)
        if signed:
            f = sgn(f, w)
    else:
        f = (sgn(x, n) if signed else x) >> off
    return f & ((1 << n) - 1)


def sovf(v):
    return int(not -(1 << 31) <= v < (1 << 31))


# ref(s0, s1, d, scc) -> (result, scc)
REF = {
    "s_mov_b32": lambda a, b, d, c: (a, c),
    "s_mov_b64": lambda a, b, d, c: (a, c),
    "s_mov_fed_b32": lambda a, b, d, c: (a, c),
    "s_cmov_b32": lambda a, b, d, c: (a if c else d, c),
    "s_cmov_b64": lambda a, b, d, c: (a if c else d, c),
    "s_not_b32": lambda a, b, d, c: (M32 - a, nz(M32 - a)),
    "s_not_b64": lambda a, b, d, c: (M64 - a, nz(M64 - a)),
    "s_wqm_b32": lambda a, b, d, c: (wqm(a, 32), nz(wqm(a, 32))),
    "s_wqm_b64": lambda a, b, d, c: (wqm(a, 64), nz(wqm(a, 64))),
    "s_quadmask_b32": lambda a, b, d, c: (quadmask(a, 32), nz(quadmask(a, 32))),
    "s_quadmask_b64": lambda a, b, d, c: (quadmask(a, 64), nz(quadmask(a, 64))),
    "s_brev_b32": lambda a, b, d, c: (int(format(a, "032b")[::-1], 2), c),
    "s_brev_b64": lambda a, b, d, c: (int(format(a, "064b")[::-1], 2), c),
    "s_bcnt0_i32_b32": lambda a, b, d, c: (format(a, "032b").count("0"), nz(format(a, "032b").count("0"))),
    "s_bcnt0_i32_b64": lambda a, b, d, c: (format(a, "064b").count("0"), nz(format(a, "064b").count("0"))),
    "s_bcnt1_i32_b32": lambda a, b, d, c: (bin(a).count("1"), nz(a)),
    "s_bcnt1_i32_b64": lambda a, b, d, c: (bin(a).count("1"), nz(a)),
    "s_ff0_i32_b32": lambda a, b, d, c: (first_bit(a, 32, 0), c),
    "s_ff0_i32_b64": lambda a, b, d, c: (first_bit(a, 64, 0), c),
    "s_ff1_i32_b32": lambda a, b, d, c: (first_bit(a, 32, 1), c),
    "s_ff1_i32_b64": lambda a, b, d, c: (first_bit(a, 64, 1), c),
    "s_flbit_i32_b32": lambda a, b, d, c: (flbit(a, 32, False), c),
    "s_flbit_i32_b64": lambda a, b, d, c: (flbit(a, 64, False), c),
    "s_flbit_i32": lambda a, b, d, c: (flbit(a, 32, True), c),
    "s_flbit_i32_i64": lambda a, b, d, c: (flbit(a, 64, True), c),
    "s_sext_i32_i8": lambda a, b, d, c: (sgn(a, 8) & M32, c),
    "s_sext_i32_i16": lambda a, b, d, c: (sgn(a, 16) & M32, c),
    "s_bitset0_b32": lambda a, b, d, c: (d & ~(1 << (a % 32)) & M32, c),
    "s_bitset0_b64": lambda a, b, d, c: (d & ~(1 << (a % 64)) & M64, c),
    "s_bitset1_b32": lambda a, b, d, c: (d | (1 << (a % 32)), c),
    "s_bitset1_b64": lambda a, b, d, c: (d | (1 << (a % 64)), c),
    "s_abs_i32": lambda a, b, d, c: (abs(sgn(a)) & M32, nz(a)),
    "s_add_u32": lambda a, b, d, c: ((a + b) & M32, int(a + b > M32)),
    "s_sub_u32": lambda a, b, d, c: ((a - b) & M32, int(a < b)),
    "s_addc_u32": lambda a, b, d, c: ((a + b + c) & M32, int(a + b + c > M32)),
    "s_subb_u32": lambda a, b, d, c: ((a - b - c) & M32, int(a - b - c < 0)),
    "s_add_i32": lambda a, b, d, c: ((a + b) & M32, sovf(sgn(a) + sgn(b))),
    "s_sub_i32": lambda a, b, d, c: ((a - b) & M32, sovf(sgn(a) - sgn(b))),
    "s_min_i32": lambda a, b, d, c: (min(sgn(a), sgn(b)) & M32, int(sgn(a) < sgn(b))),
    "s_max_i32": lambda a, b, d, c: (max(sgn(a), sgn(b)) & M32, int(sgn(a) > sgn(b))),
    "s_min_u32": lambda a, b, d, c: (min(a, b), int(a < b)),
    "s_max_u32": lambda a, b, d, c: (max(a, b), int(a > b)),
    "s_cselect_b32": lambda a, b, d, c: (a if c else b, c),
    "s_cselect_b64": lambda a, b, d, c: (a if c else b, c),
    "s_lshl_b32": lambda a, b, d, c: ((a << (b % 32)) & M32, nz((a << (b % 32)) & M32)),
    "s_lshl_b64": lambda a, b, d, c: ((a << (b % 64)) & M64, nz((a << (b % 64)) & M64)),
    "s_lshr_b32": lambda a, b, d, c: (a >> (b % 32), nz(a >> (b % 32))),
    "s_lshr_b64": lambda a, b, d, c: (a >> (b % 64), nz(a >> (b % 64))),
    "s_ashr_i32": lambda a, b, d, c: ((sgn(a) >> (b % 32)) & M32, nz(sgn(a) >> (b % 32))),
    "s_ashr_i64": lambda a, b, d, c: ((sgn(a, 64) >> (b % 64)) & M64, nz(sgn(a, 64) >> (b % 64))),
    "s_bfm_b32": lambda a, b, d, c: (int("1" * (a % 32) + "0" * (b % 32) or "0", 2) & M32, c),
    "s_bfm_b64": lambda a, b, d, c: (int("1" * (a % 64) + "0" * (b % 64) or "0", 2) & M64, c),
    "s_mul_i32": lambda a, b, d, c: ((sgn(a) * sgn(b)) & M32, c),
    "s_bfe_u32": lambda a, b, d, c: (bfe(a, b, 32, False), nz(bfe(a, b, 32, False))),
    "s_bfe_i32": lambda a, b, d, c: (bfe(a, b, 32, True), nz(bfe(a, b, 32, True))),
    "s_bfe_u64": lambda a, b, d, c: (bfe(a, b, 64, False), nz(bfe(a, b, 64, False))),
    "s_bfe_i64": lambda a, b, d, c: (bfe(a, b, 64, True), nz(bfe(a, b, 64, True))),
    "s_absdiff_i32": lambda a, b, d, c: (abs(sgn(a - b)) & M32, nz(a != b)),
    "s_movk_i32": lambda a, b, d, c: (sgn(b, 16) & M32, c),
    "s_cmovk_i32": lambda a, b, d, c: (sgn(b, 16) & M32 if c else d, c),
    "s_addk_i32": lambda a, b, d, c: ((a + sgn(b, 16)) & M32, sovf(sgn(a) + sgn(b, 16))),
    "s_mulk_i32": lambda a, b, d, c: ((sgn(a) * sgn(b, 16)) & M32, c),
}
for _w in (32, 64):
    _m = (1 << _w) - 1
    for _n, _f in {"and": lambda a, b: a & b, "or": lambda a, b: a | b,
                   "xor": lambda a, b: a ^ b, "andn2": lambda a, b: a & ~b,
                   "orn2": lambda a, b: a | ~b, "nand": lambda a, b: ~(a & b),
                   "nor": lambda a, b: ~(a | b), "xnor": lambda a, b: ~(a ^ b)}.items():
        REF[f"s_{_n}_b{_w}"] = lambda a, b, d, c, f=_f, m=_m: (f(a, b) & m, nz(f(a, b) & m))
    for _v in (0, 1):
        REF[f"s_bitcmp{_v}_b{_w}"] = (
            lambda a, b, d, c, v=_v, w=_w: (0, int((a >> (b % w)) & 1 == v)))
_CMP = {"eq": lambda x, y: x == y, "lg": lambda x, y: x != y, "gt": lambda x, y: x > y,
        "ge": lambda x, y: x >= y, "lt": lambda x, y: x < y, "le": lambda x, y: x <= y}
for _c, _f in _CMP.items():
    REF[f"s_cmp_{_c}_i32"] = lambda a, b, d, c, f=_f: (0, int(f(sgn(a), sgn(b))))
    REF[f"s_cmp_{_c}_u32"] = lambda a, b, d, c, f=_f: (0, int(f(a, b)))
    REF[f"s_cmpk_{_c}_i32"] = lambda a, b, d, c, f=_f: (0, int(f(sgn(a), sgn(b, 16))))
    REF[f"s_cmpk_{_c}_u32"] = lambda a, b, d, c, f=_f: (0, int(f(a, b)))


def width_of(name):
    """Operand widths (s0, s1, d) in bits for random generation."""
    if name.startswith("s_cmpk_") or name in ("s_movk_i32", "s_cmovk_i32", "s_addk_i32",
                                              "s_mulk_i32"):
        return 32, 16, 32
    if name in ("s_lshl_b64", "s_lshr_b64", "s_ashr_i64", "s_bitcmp0_b64", "s_bitcmp1_b64"):
        return 64, 32, 64
    if name in ("s_bfm_b64",):
        return 32, 32, 64
    if name in ("s_bitset0_b64", "s_bitset1_b64"):
        return 32, 32, 64
    if name.endswith("64"):
        return 64, 64, 64
    return 32, 32, 32


def call(name, a, b, d, c):
    r, sc = S.SEMANTICS[name](np.uint64(a), np.uint64(b), np.uint64(d), np.uint64(c))
    return int(r), int(sc)


def check(name, a, b, d, c):
    got = call(name, a, b, d, c)
    exp = REF[name](a, b, d, c)
    assert got == exp, f"{name}(s0={a:#x}, s1={b:#x}, d={d:#x}, scc={c}): {got} != {exp}"


# ---------------------------------------------------------------------------------------
# coverage
# ---------------------------------------------------------------------------------------
def _rst_section(text, title):
    m = re.search(rf"^{title}\n-+\n(.*?)(?=^\S+\n-{{5,}})", text, re.S | re.M)
    return re.findall(r"^\s{4}(s_\w+)\s", m.group(1), re.M)


def test_full_coverage_against_llvm_gfx7_list():
    if not RST.exists():
        pytest.skip(f"LLVM gfx7 syntax reference not found at {RST} (shared/ absent)")
    text = RST.read_text()
    listed = set()
    for sec in ("SOP1", "SOP2", "SOPC", "SOPK"):
        ops = _rst_section(text, sec)
        assert len(ops) > 10, sec
        listed |= set(ops)
    engine = {n for n, _ in S.ENGINE_SALU_OPS}
    mine = set(S.SEMANTICS)
    assert not (engine & mine)
    assert listed - engine - mine == set(), "SALU ops with neither semantics nor engine owner"
    # everything implemented is a real gfx7 op
    assert mine - listed == set()
    assert S.NOT_IMPLEMENTED == []
    assert set(REF) == mine


@pytest.mark.parametrize("name", sorted(S.SEMANTICS))
def test_compiles_and_returns_uint64_pair(name):
    fn = S.SEMANTICS[name]
    z = np.uint64(0)
    r = fn(z, z, z, z)
    assert len(r) == 2
    sig = [s for s in fn.nopython_signatures if s.args[0] == numba.types.uint64][0]
    assert str(sig.return_type) == "UniTuple(uint64 x 2)", sig


# ---------------------------------------------------------------------------------------
# deterministic edge products and property tests
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(S.SEMANTICS))
def test_edge_products(name):
    w0, w1, wd = width_of(name)
    e = {16: [0, 1, 0x7FFF, 0x8000, 0xFFFF], 32: EDGE32[::2] + [M32, 0x80000000],
         64: EDGE64[::2] + [M64, 1 << 63]}
    if name.startswith("s_bfe"):
        b_vals = [o | (w << 16) for o in (0, 1, 31, 32, 63) for w in (0, 1, 31, 32, 33, 63, 64, 127)]
    else:
        b_vals = e[w1]
    d_vals = e[wd][:4] if name.startswith(("s_cmov", "s_bitset")) else [0x5A5A5A5A]
    for a, b, d, c in itertools.product(e[w0], b_vals, d_vals, (0, 1)):
        check(name, a, b, d, c)


@pytest.mark.parametrize("name", sorted(S.SEMANTICS))
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_random(name, data):
    w0, w1, wd = width_of(name)
    pick = {16: u16s, 32: u32s, 64: u64s}
    a = data.draw(pick[w0])
    b = data.draw(bfe_ctl if name.startswith("s_bfe") else pick[w1])
    d = data.draw(pick[wd])
    if name in ("s_addk_i32", "s_mulk_i32") or name.startswith("s_cmpk"):
        d = a  # SOPK contract: s0 is the current SDST value
    c = data.draw(st.integers(0, 1))
    check(name, a, b, d, c)


# ---------------------------------------------------------------------------------------
# targeted cases from the documents
# ---------------------------------------------------------------------------------------
def test_add_sub_overflow_and_carry_edges():
    assert call("s_add_i32", 0x7FFFFFFF, 1, 0, 0) == (0x80000000, 1)
    assert call("s_add_i32", 0xFFFFFFFF, 1, 0, 1) == (0, 0)
    assert call("s_add_u32", 0xFFFFFFFF, 1, 0, 0) == (0, 1)
    assert call("s_sub_i32", 0x80000000, 1, 0, 0) == (0x7FFFFFFF, 1)
    assert call("s_sub_u32", 0, 1, 0, 0) == (M32, 1)
    assert call("s_addc_u32", 0xFFFFFFFF, 0, 0, 1) == (0, 1)
    assert call("s_subb_u32", 0, 0, 0, 1) == (M32, 1)
    assert call("s_subb_u32", 5, 5, 0, 0) == (0, 0)


def test_64bit_add_via_add_addc():
    # The compiler's 64-bit add idiom: s_add_u32 lo; s_addc_u32 hi.
    for x, y in [(M64, 1), (0xFFFFFFFF, 1), (0x123456789, 0xFEDCBA987), (1 << 63, 1 << 63)]:
        lo, c = call("s_add_u32", x & M32, y & M32, 0, 0)
        hi, c2 = call("s_addc_u32", x >> 32, y >> 32, 0, c)
        assert (hi << 32 | lo) == (x + y) & M64
        assert c2 == int(x + y > M64)


def test_sopk_immediates():
    assert call("s_movk_i32", 0, 0x8000, 0, 1) == (0xFFFF8000, 1)
    assert call("s_movk_i32", 0, 0x7FFF, 0, 0) == (0x7FFF, 0)
    assert call("s_cmpk_lt_u32", 5, 0xFFFF, 5, 0) == (0, 1)   # zero-extended: 5 < 65535
    assert call("s_cmpk_lt_i32", 5, 0xFFFF, 5, 0) == (0, 0)   # sign-extended: 5 < -1 false
    assert call("s_addk_i32", 0x7FFFFFFF, 1, 0x7FFFFFFF, 0) == (0x80000000, 1)
    assert call("s_mulk_i32", 3, 0xFFFF, 3, 1) == (0xFFFFFFFD, 1)


def test_bfe_width_field_and_sign():
    assert call("s_bfe_i32", 0x000000F0, 4 | (4 << 16), 0, 0) == (M32, 1)
    assert call("s_bfe_u32", 0x000000F0, 4 | (4 << 16), 0, 0) == (0xF, 1)
    assert call("s_bfe_u32", M32, 8 | (0 << 16), 0, 1) == (0, 0)
    assert call("s_bfe_i64", 1 << 63, 63 | (1 << 16), 0, 0) == (M64, 1)


# ---------------------------------------------------------------------------------------
# opt-14 constant folding of llvm.amdgcn.ubfe/sbfe (i32 and i64) as a second reference
# for s_bfe_*, restricted to widths the intrinsic can express (it masks the width to
# 5 / 6 bits, the SALU op reads 7)
# ---------------------------------------------------------------------------------------
def test_bfe_against_llvm_constant_folding():
    import shutil
    import subprocess
    opt = shutil.which("opt-14") or shutil.which("opt")
    if opt is None:
        pytest.skip("opt-14 not installed: LLVM constant-folding reference unavailable")
    rng = np.random.default_rng(99)
    cases = []
    for i in range(200):
        bits = 32 if i % 2 else 64
        x = int(rng.integers(0, 1 << 62)) * 4 + int(rng.integers(0, 4))
        x = x & ((1 << bits) - 1) if i % 3 else (1 << (bits - 1)) | (x >> 1 & ((1 << bits) - 1))
        off = int(rng.integers(0, bits))
        w = int(rng.integers(0, bits))
        cases.append((bits, x, off, w))
    lines = ['target triple = "amdgcn-amd-amdhsa"']
    for bits in (32, 64):
        for k in "us":
            lines.append(f"declare i{bits} @llvm.amdgcn.{k}bfe.i{bits}(i{bits}, i32, i32)")
    for i, (bits, x, off, w) in enumerate(cases):
        for k in "us":
            lines += [f"define i{bits} @{k}{i}() {{",
                      f"  %r = call i{bits} @llvm.amdgcn.{k}bfe.i{bits}(i{bits} {sgn(x, bits)}, "
                      f"i32 {off}, i32 {w})",
                      f"  ret i{bits} %r", "}"]
    out = subprocess.run([opt, "-passes=instcombine", "-S"], input="\n".join(lines),
                         capture_output=True, text=True, check=True).stdout
    folded = {}
    cur = None
    for line in out.splitlines():
        if line.startswith("define"):
            cur = line.split("@")[1].split("(")[0]
        elif line.strip().startswith("ret i") and cur:
            tok = line.split()[-1]
            if tok.lstrip("-").isdigit():
                folded[cur] = int(tok)
    n = 0
    for i, (bits, x, off, w) in enumerate(cases):
        for k in "us":
            key = f"{k}{i}"
            if key not in folded:
                continue
            name = f"s_bfe_{'u' if k == 'u' else 'i'}{bits}"
            exp = folded[key] & ((1 << bits) - 1)
            assert call(name, x, off | (w << 16), 0, 0) == (exp, int(exp != 0)), (name, x, off, w)
            n += 1
    assert n > len(cases)  # most cases must have folded


def test_callable_from_jitted_code():
    # The engine calls these from inside its own @njit loop; types must stay uint64.
    @numba.njit
    def add64(x, y):
        lo, c = S.s_add_u32(x & np.uint64(0xFFFFFFFF), y & np.uint64(0xFFFFFFFF),
                            np.uint64(0), np.uint64(0))
        hi, c = S.s_addc_u32(x >> np.uint64(32), y >> np.uint64(32), np.uint64(0), c)
        return (hi << np.uint64(32)) | lo, c

    r, c = add64(np.uint64(M64), np.uint64(2))
    assert int(r) == 1 and int(c) == 1
