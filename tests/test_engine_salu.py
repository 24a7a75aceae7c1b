"""SALU and scalar control flow through the engine (run_snippet), against independent
references: exact Python integers written from the CLRX pseudo-code (GcnInstrsSop*.md).

Many ops run in one snippet: each op's result goes to its own SGPRs, its SCC is captured
with s_cselect_b32, and SCC is re-seeded before every op that reads it.
"""
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from gcnemu.errors import ExecutionError

from snippets import M32, M64, run, sgn

EDGE32 = [0, 1, 2, 0x7F, 0x80, 0xFFFF, 0x8000, 0x7FFFFFFF, 0x80000000, 0x80000001,
          0xFFFFFFFE, 0xFFFFFFFF]
EDGE64 = EDGE32 + [1 << 32, (1 << 63) - 1, 1 << 63, 0xFFFFFFFF00000000, M64]
u32s = st.one_of(st.sampled_from(EDGE32), st.integers(0, M32))
u64s = st.one_of(st.sampled_from(EDGE64), st.integers(0, M64))
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def popcount(x):
    return bin(x).count("1")


def u64(x):
    return x & M64


# --- reference functions: (a, b, scc_in) -> (result, scc_out or None) -------------------------
def _ovf(r, n=32):
    return 1 if not -(1 << (n - 1)) <= r < (1 << (n - 1)) else 0


def bfe_u(a, b, n):
    off = b & (n - 1)
    w = (b >> 16) & 0x7F
    r = (a >> off) & ((1 << w) - 1) & ((1 << n) - 1)
    return r


def bfe_i(a, b, n):
    # the field is taken from the arithmetically shifted source, so a field that reaches past
    # the top bit continues with sign bits (LLVM's amdgcn.sbfe folding: src >> offset when
    # offset + width >= n)
    off = b & (n - 1)
    w = (b >> 16) & 0x7F
    if w == 0:
        return 0
    f = (sgn(a, n) >> off) & ((1 << w) - 1)
    if (f >> (w - 1)) & 1:
        f -= 1 << w
    return f & ((1 << n) - 1)


def ff1(x, n):
    for i in range(n):
        if (x >> i) & 1:
            return i
    return M32


def flbit_u(x, n):
    for i in range(n):
        if (x >> (n - 1 - i)) & 1:
            return i
    return M32


def flbit_i(x, n):
    sign = (x >> (n - 1)) & 1
    for i in range(1, n):
        if ((x >> (n - 1 - i)) & 1) != sign:
            return i
    return M32


def quadmask(x, n):
    r = 0
    for i in range(n // 4):
        if (x >> (4 * i)) & 0xF:
            r |= 1 << i
    return r


def wqm(x, n):
    r = 0
    for i in range(n // 4):
        if (x >> (4 * i)) & 0xF:
            r |= 0xF << (4 * i)
    return r


def brev(x, n):
    return int(format(x, f"0{n}b")[::-1], 2)


SOP2_32 = {  # name: ref(a, b, scc) -> (d, scc)
    "s_add_u32": lambda a, b, c: ((a + b) & M32, int(a + b > M32)),
    "s_sub_u32": lambda a, b, c: ((a - b) & M32, int(b > a)),
    "s_add_i32": lambda a, b, c: ((a + b) & M32, _ovf(sgn(a) + sgn(b))),
    "s_sub_i32": lambda a, b, c: ((a - b) & M32, _ovf(sgn(a) - sgn(b))),
    "s_addc_u32": lambda a, b, c: ((a + b + c) & M32, int(a + b + c > M32)),
    "s_subb_u32": lambda a, b, c: ((a - b - c) & M32, int(b + c > a)),
    "s_min_i32": lambda a, b, c: (a if sgn(a) <= sgn(b) else b, int(sgn(a) < sgn(b))),
    "s_min_u32": lambda a, b, c: (min(a, b), int(a < b)),
    "s_max_i32": lambda a, b, c: (a if sgn(a) >= sgn(b) else b, int(sgn(a) > sgn(b))),
    "s_max_u32": lambda a, b, c: (max(a, b), int(a > b)),
    "s_cselect_b32": lambda a, b, c: (a if c else b, None),
    "s_and_b32": lambda a, b, c: (a & b, int(a & b != 0)),
    "s_or_b32": lambda a, b, c: (a | b, int(a | b != 0)),
    "s_xor_b32": lambda a, b, c: (a ^ b, int(a ^ b != 0)),
    "s_andn2_b32": lambda a, b, c: (a & ~b & M32, int(a & ~b & M32 != 0)),
    "s_orn2_b32": lambda a, b, c: ((a | ~b) & M32, int((a | ~b) & M32 != 0)),
    "s_nand_b32": lambda a, b, c: (~(a & b) & M32, int(~(a & b) & M32 != 0)),
    "s_nor_b32": lambda a, b, c: (~(a | b) & M32, int(~(a | b) & M32 != 0)),
    "s_xnor_b32": lambda a, b, c: (~(a ^ b) & M32, int(~(a ^ b) & M32 != 0)),
    "s_lshl_b32": lambda a, b, c: ((a << (b & 31)) & M32, int((a << (b & 31)) & M32 != 0)),
    "s_lshr_b32": lambda a, b, c: (a >> (b & 31), int(a >> (b & 31) != 0)),
    "s_ashr_i32": lambda a, b, c: ((sgn(a) >> (b & 31)) & M32, int(sgn(a) >> (b & 31) != 0)),
    "s_bfm_b32": lambda a, b, c: ((((1 << (a & 31)) - 1) << (b & 31)) & M32, None),
    "s_mul_i32": lambda a, b, c: ((sgn(a) * sgn(b)) & M32, None),
    "s_bfe_u32": lambda a, b, c: (bfe_u(a, b, 32), int(bfe_u(a, b, 32) != 0)),
    "s_bfe_i32": lambda a, b, c: (bfe_i(a, b, 32), int(bfe_i(a, b, 32) != 0)),
    # AMD: D.i = S0.i - S1.i (32-bit wrap); if (D.i < 0) D.i = -D.i
    "s_absdiff_i32": lambda a, b, c: (abs(sgn(a - b)) & M32, int(abs(sgn(a - b)) & M32 != 0)),
}

SOP2_64 = {  # a, b are 64-bit (b only the low 32 bits for shifts/bfe)
    "s_and_b64": lambda a, b, c: (a & b, int(a & b != 0)),
    "s_or_b64": lambda a, b, c: (a | b, int(a | b != 0)),
    "s_xor_b64": lambda a, b, c: (a ^ b, int(a ^ b != 0)),
    "s_andn2_b64": lambda a, b, c: (a & ~b & M64, int(a & ~b & M64 != 0)),
    "s_orn2_b64": lambda a, b, c: ((a | ~b) & M64, int((a | ~b) & M64 != 0)),
    "s_nand_b64": lambda a, b, c: (~(a & b) & M64, int(~(a & b) & M64 != 0)),
    "s_nor_b64": lambda a, b, c: (~(a | b) & M64, int(~(a | b) & M64 != 0)),
    "s_xnor_b64": lambda a, b, c: (~(a ^ b) & M64, int(~(a ^ b) & M64 != 0)),
    "s_cselect_b64": lambda a, b, c: (a if c else b, None),
}
SOP2_64_SHIFT = {  # a 64-bit, b 32-bit
    "s_lshl_b64": lambda a, b, c: ((a << (b & 63)) & M64, int((a << (b & 63)) & M64 != 0)),
    "s_lshr_b64": lambda a, b, c: (a >> (b & 63), int(a >> (b & 63) != 0)),
    "s_ashr_i64": lambda a, b, c: ((sgn(a, 64) >> (b & 63)) & M64, int(sgn(a, 64) >> (b & 63) != 0)),
    "s_bfe_u64": lambda a, b, c: (bfe_u(a, b, 64), int(bfe_u(a, b, 64) != 0)),
    "s_bfe_i64": lambda a, b, c: (bfe_i(a, b, 64), int(bfe_i(a, b, 64) != 0)),
}

SOP1_32 = {  # ref(a, scc) -> (d, scc)
    "s_mov_b32": lambda a, c: (a, None),
    "s_cmov_b32": lambda a, c: (a if c else 0x5A5A5A5A, None),  # old value preset below
    "s_not_b32": lambda a, c: (~a & M32, int(~a & M32 != 0)),
    "s_wqm_b32": lambda a, c: (wqm(a, 32), int(wqm(a, 32) != 0)),
    "s_brev_b32": lambda a, c: (brev(a, 32), None),
    "s_bcnt0_i32_b32": lambda a, c: (32 - popcount(a), int(popcount(a) != 32)),
    "s_bcnt1_i32_b32": lambda a, c: (popcount(a), int(a != 0)),
    "s_ff0_i32_b32": lambda a, c: (ff1(~a & M32, 32), None),
    "s_ff1_i32_b32": lambda a, c: (ff1(a, 32), None),
    "s_flbit_i32_b32": lambda a, c: (flbit_u(a, 32), None),
    "s_flbit_i32": lambda a, c: (flbit_i(a, 32), None),
    "s_sext_i32_i8": lambda a, c: (sgn(a & 0xFF, 8) & M32, None),
    "s_sext_i32_i16": lambda a, c: (sgn(a & 0xFFFF, 16) & M32, None),
    "s_bitset0_b32": lambda a, c: (0x5A5A5A5A & ~(1 << (a & 31)) & M32, None),
    "s_bitset1_b32": lambda a, c: (0x5A5A5A5A | (1 << (a & 31)), None),
    "s_quadmask_b32": lambda a, c: (quadmask(a, 32), int(quadmask(a, 32) != 0)),
    "s_abs_i32": lambda a, c: (abs(sgn(a)) & M32, int(abs(sgn(a)) & M32 != 0)),
}
SOP1_64 = {  # a 64-bit; dst 64-bit unless listed in SOP1_64_TO32
    "s_mov_b64": lambda a, c: (a, None),
    "s_cmov_b64": lambda a, c: (a if c else 0x5A5A5A5A5A5A5A5A, None),
    "s_not_b64": lambda a, c: (~a & M64, int(~a & M64 != 0)),
    "s_wqm_b64": lambda a, c: (wqm(a, 64), int(wqm(a, 64) != 0)),
    "s_brev_b64": lambda a, c: (brev(a, 64), None),
    "s_quadmask_b64": lambda a, c: (quadmask(a, 64), int(quadmask(a, 64) != 0)),
}
SOP1_64_TO32 = {
    "s_bcnt0_i32_b64": lambda a, c: (64 - popcount(a), int(popcount(a) != 64)),
    "s_bcnt1_i32_b64": lambda a, c: (popcount(a), int(a != 0)),
    "s_ff0_i32_b64": lambda a, c: (ff1(~a & M64, 64), None),
    "s_ff1_i32_b64": lambda a, c: (ff1(a, 64), None),
    "s_flbit_i32_b64": lambda a, c: (flbit_u(a, 64), None),
    "s_flbit_i32_i64": lambda a, c: (flbit_i(a, 64), None),
}


class Prog:
    """Builds one snippet of many ops; inputs in s0..s9, results from s12 up."""

    def __init__(self, scc):
        self.lines, self.checks, self.next = [], [], 12
        self.scc = scc

    def alloc(self, n):
        if n == 2 and self.next % 2:
            self.next += 1
        r = self.next
        self.next += n
        assert self.next <= 100
        return r

    def add(self, text_fn, ndw, ref, preset=None, name=""):
        d = self.alloc(ndw)
        c = self.alloc(1)
        dst = f"s{d}" if ndw == 1 else f"s[{d}:{d + 1}]"
        if preset is not None:
            for i in range(ndw):
                self.lines.append(f"s_mov_b32 s{d + i}, {(preset >> (32 * i)) & M32:#x}")
        self.lines.append("s_cmp_eq_u32 s8, 1")     # SCC := scc_in (s8 holds it)
        self.lines.append(text_fn(dst))
        self.lines.append(f"s_cselect_b32 s{c}, 1, 0")
        self.checks.append((name, d, ndw, c, ref))

    def run_and_check(self, sgpr):
        sgpr = dict(sgpr)
        sgpr[8] = self.scc
        st = run("\n".join(self.lines), sgpr=sgpr)
        bad = []
        for name, d, ndw, c, (val, scc) in self.checks:
            got = int(st.sgpr[d]) | (int(st.sgpr[d + 1]) << 32 if ndw == 2 else 0)
            gscc = int(st.sgpr[c])
            exp_scc = self.scc if scc is None else scc   # ops not writing SCC keep it
            if got != val or gscc != exp_scc:
                bad.append(f"{name}: got {got:#x} scc {gscc}, expected {val:#x} scc {exp_scc}")
        assert not bad, "\n".join(bad)


@SETTINGS
@given(a=u32s, b=u32s, scc=st.integers(0, 1))
def test_sop2_b32(a, b, scc):
    p = Prog(scc)
    for name, ref in SOP2_32.items():
        p.add(lambda d, name=name: f"{name} {d}, s0, s1", 1, ref(a, b, scc), name=name)
    p.run_and_check({0: a, 1: b})


@SETTINGS
@given(a=u32s, b=st.integers(0, 31) | st.integers(0, M32), w=st.integers(0, 31))
def test_s_bfe_32_fields(a, b, w):
    # S1 = offset (bits 4:0, upper bits of the low half ignored) | width (bits 22:16)
    ctl = (b & 0xFFE0FFFF) & ~(0x7F << 16) | (w << 16)
    p = Prog(0)
    for name in ("s_bfe_u32", "s_bfe_i32"):
        p.add(lambda d, name=name: f"{name} {d}, s0, s1", 1, SOP2_32[name](a, ctl, 0), name=name)
    p.run_and_check({0: a, 1: ctl})


@SETTINGS
@given(a=u64s, b=u64s, sh=st.integers(0, M32), w=st.integers(0, 63), scc=st.integers(0, 1))
def test_sop2_b64(a, b, sh, w, scc):
    p = Prog(scc)
    regs = {0: a & M32, 1: a >> 32, 2: b & M32, 3: b >> 32, 4: sh, 5: (sh & 0xFF80FFFF) | (w << 16)}
    for name, ref in SOP2_64.items():
        p.add(lambda d, name=name: f"{name} {d}, s[0:1], s[2:3]", 2, ref(a, b, scc), name=name)
    for name, ref in SOP2_64_SHIFT.items():
        src = "s5" if "bfe" in name else "s4"
        p.add(lambda d, name=name, src=src: f"{name} {d}, s[0:1], {src}", 2,
              ref(a, regs[5] if "bfe" in name else sh, scc), name=name)
    bfm = ((1 << (sh & 63)) - 1) << ((b & M32) & 63) & M64
    p.add(lambda d: f"s_bfm_b64 {d}, s4, s2", 2, (bfm, None), name="s_bfm_b64")
    p.run_and_check(regs)


@SETTINGS
@given(a=u64s, scc=st.integers(0, 1))
def test_sop1(a, scc):
    p = Prog(scc)
    lo = a & M32
    regs = {0: lo, 1: a >> 32}
    for name, ref in SOP1_32.items():
        preset = 0x5A5A5A5A if name in ("s_cmov_b32", "s_bitset0_b32", "s_bitset1_b32") else None
        p.add(lambda d, name=name: f"{name} {d}, s0", 1, ref(lo, scc), preset=preset, name=name)
    for name, ref in SOP1_64.items():
        preset = 0x5A5A5A5A5A5A5A5A if name == "s_cmov_b64" else None
        p.add(lambda d, name=name: f"{name} {d}, s[0:1]", 2, ref(a, scc), preset=preset, name=name)
    for name, ref in SOP1_64_TO32.items():
        p.add(lambda d, name=name: f"{name} {d}, s[0:1]", 1, ref(a, scc), name=name)
    # s_bitset on 64 bits: bit index from a 32-bit source
    base = 0x5A5A5A5A5A5A5A5A
    p.add(lambda d: f"s_bitset1_b64 {d}, s0", 2, (base | (1 << (lo & 63)), None), preset=base,
          name="s_bitset1_b64")
    p.add(lambda d: f"s_bitset0_b64 {d}, s0", 2, (base & ~(1 << (lo & 63)) & M64, None),
          preset=base, name="s_bitset0_b64")
    p.run_and_check(regs)


CMP = {"eq": lambda x, y: x == y, "lg": lambda x, y: x != y, "gt": lambda x, y: x > y,
       "ge": lambda x, y: x >= y, "lt": lambda x, y: x < y, "le": lambda x, y: x <= y}


@SETTINGS
@given(a=u32s, b=u32s, k=st.integers(0, 0xFFFF))
def test_s_cmp_cmpk_bitcmp(a, b, k):
    p = Prog(0)
    for rel, f in CMP.items():
        p.add(lambda d, rel=rel: f"s_cmp_{rel}_i32 s0, s1", 1, (0, int(f(sgn(a), sgn(b)))), preset=0,
              name=f"s_cmp_{rel}_i32")
        p.add(lambda d, rel=rel: f"s_cmp_{rel}_u32 s0, s1", 1, (0, int(f(a, b))), preset=0,
              name=f"s_cmp_{rel}_u32")
        # SOPK compares: signed ops sign-extend simm16, unsigned ops zero-extend it
        p.add(lambda d, rel=rel: f"s_cmpk_{rel}_i32 s0, {sgn(k, 16)}", 1,
              (0, int(f(sgn(a), sgn(k, 16)))), preset=0, name=f"s_cmpk_{rel}_i32")
        p.add(lambda d, rel=rel: f"s_cmpk_{rel}_u32 s0, {k:#x}", 1, (0, int(f(a, k))), preset=0,
              name=f"s_cmpk_{rel}_u32")
    p.add(lambda d: "s_bitcmp0_b32 s0, s1", 1, (0, int(not (a >> (b & 31)) & 1)), preset=0,
          name="s_bitcmp0_b32")
    p.add(lambda d: "s_bitcmp1_b32 s0, s1", 1, (0, (a >> (b & 31)) & 1), preset=0, name="s_bitcmp1_b32")
    a64 = a | (b << 32)
    p.add(lambda d: "s_bitcmp1_b64 s[0:1], s2", 1, (0, (a64 >> (k & 63)) & 1), preset=0,
          name="s_bitcmp1_b64")
    p.add(lambda d: "s_bitcmp0_b64 s[0:1], s2", 1, (0, 1 - ((a64 >> (k & 63)) & 1)), preset=0,
          name="s_bitcmp0_b64")
    p.run_and_check({0: a, 1: b, 2: k})


@SETTINGS
@given(a=u32s, k=st.integers(0, 0xFFFF), scc=st.integers(0, 1))
def test_sopk_immediates(a, k, scc):
    sk = sgn(k, 16)
    p = Prog(scc)
    p.add(lambda d: f"s_movk_i32 {d}, {k:#x}", 1, (sk & M32, None), name="s_movk_i32")
    p.add(lambda d: f"s_cmovk_i32 {d}, {k:#x}", 1, ((sk & M32) if scc else 0x77, None), preset=0x77,
          name="s_cmovk_i32")
    r = sgn(a) + sk
    p.add(lambda d: f"s_addk_i32 {d}, {k:#x}", 1, (r & M32, _ovf(r)), preset=a, name="s_addk_i32")
    p.add(lambda d: f"s_mulk_i32 {d}, {k:#x}", 1, ((sgn(a) * sk) & M32, None), preset=a,
          name="s_mulk_i32")
    p.run_and_check({0: a})


def test_s_add_u32_carry_chain_64bit():
    # 64-bit add from s_add_u32/s_addc_u32, 64-bit sub from s_sub_u32/s_subb_u32
    vals = [(M64, 1), (0xFFFFFFFF, 1), (1 << 63, 1 << 63), (0x123456789ABCDEF0, 0xFEDCBA9876543210)]
    for a, b in vals:
        st = run("s_add_u32 s10, s0, s2\ns_addc_u32 s11, s1, s3\ns_cselect_b32 s12, 1, 0\n"
                 "s_sub_u32 s14, s0, s2\ns_subb_u32 s15, s1, s3\ns_cselect_b32 s16, 1, 0",
                 sgpr={0: a & M32, 1: a >> 32, 2: b & M32, 3: b >> 32})
        assert int(st.sgpr[10]) | int(st.sgpr[11]) << 32 == (a + b) & M64
        assert st.sgpr[12] == int(a + b > M64)
        assert int(st.sgpr[14]) | int(st.sgpr[15]) << 32 == (a - b) & M64
        assert st.sgpr[16] == int(b > a)


SAVEEXEC = {
    "s_and_saveexec_b64": lambda s, e: s & e, "s_or_saveexec_b64": lambda s, e: s | e,
    "s_xor_saveexec_b64": lambda s, e: s ^ e, "s_andn2_saveexec_b64": lambda s, e: s & ~e & M64,
    "s_orn2_saveexec_b64": lambda s, e: (s | ~e) & M64, "s_nand_saveexec_b64": lambda s, e: ~(s & e) & M64,
    "s_nor_saveexec_b64": lambda s, e: ~(s | e) & M64, "s_xnor_saveexec_b64": lambda s, e: ~(s ^ e) & M64,
}


@settings(max_examples=25, deadline=None)
@given(s=u64s, e=u64s)
def test_saveexec(s, e):
    for name, f in SAVEEXEC.items():
        st = run(f"{name} s[10:11], s[0:1]", sgpr={0: s & M32, 1: s >> 32}, exec_mask=e)
        assert int(st.sgpr[10]) | int(st.sgpr[11]) << 32 == e, name
        assert st.exec == f(s, e), name
        assert st.scc == int(f(s, e) != 0), name


def test_s_getreg_setreg_mode():
    st = run("s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0\n"
             "s_getreg_b32 s10, hwreg(HW_REG_MODE, 0, 4)\n"
             "s_getreg_b32 s11, hwreg(HW_REG_MODE, 4, 4)\n"
             "s_getreg_b32 s12, hwreg(HW_REG_MODE)", sgpr={0: 0xFFFFFFF5}, mode=0x3F0)
    assert st.mode == 0x3F5          # only the 4 selected bits change
    assert st.sgpr[10] == 0x5
    assert st.sgpr[11] == 0xF
    assert st.sgpr[12] == 0x3F5
    st = run("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0x2", mode=0x3F0)
    assert st.mode == 0x3E0
    st = run("s_setreg_b32 hwreg(HW_REG_MODE, 8, 1), s0", sgpr={0: 0}, mode=0x3F0)
    assert st.mode == 0x2F0


def test_s_setreg_mode_fast_and_general_paths_agree():
    """s_setreg of MODE from an SGPR or a literal runs in run_wave's fast path, from VCC_LO in
    step_generic: both give the bits of the definition, and so does s_getreg after them."""
    for off, size in ((0, 4), (4, 2), (8, 1), (30, 4), (0, 32), (29, 3)):
        for v in (0, 0xFFFFFFFF, 0xA5A5A5C3):
            mask = (((1 << size) - 1) << off) & M32
            want = (0x3F0 & ~mask) | ((v << off) & mask)
            srcs = (f"s_setreg_b32 hwreg(HW_REG_MODE, {off}, {size}), s0",
                    f"s_setreg_imm32_b32 hwreg(HW_REG_MODE, {off}, {size}), {v:#x}",
                    f"s_mov_b32 vcc_lo, s0\ns_setreg_b32 hwreg(HW_REG_MODE, {off}, {size}), vcc_lo")
            for src in srcs:
                st = run(src + "\ns_getreg_b32 s1, hwreg(HW_REG_MODE)", sgpr={0: v}, mode=0x3F0)
                assert st.mode == want, (src, v)
                assert st.sgpr[1] == want, (src, v)


def test_s_setreg_mode_from_unallocated_sgpr_fails():
    with pytest.raises(ExecutionError):
        run("s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s90", sgpr={0: 1}, num_sgprs=16)


def test_s_getpc_setpc_swappc():
    src = """
    s_nop 0
    s_getpc_b64 s[0:1]            // s[0:1] = 8 (the next instruction)
    s_add_u32 s0, s0, 20          // 8 + 20 = 28: the address of T
    s_addc_u32 s1, s1, 0
    s_swappc_b64 s[2:3], s[0:1]   // at 16 (8 bytes: s_add_u32 with literal? no: 20 is inline)
    s_mov_b32 s5, 1               // return address: executed after s_setpc
    s_endpgm
    T:
    s_mov_b32 s4, 7
    s_setpc_b64 s[2:3]
    """
    # offsets: s_nop 0, s_getpc 4, s_add 8, s_addc 12, s_swappc 16, s_mov 20, s_endpgm 24, T 28
    st = run(src)
    assert int(st.sgpr[0]) | int(st.sgpr[1]) << 32 == 28
    assert int(st.sgpr[2]) | int(st.sgpr[3]) << 32 == 20
    assert st.sgpr[4] == 7 and st.sgpr[5] == 1


def test_s_movrels_movreld():
    regs = {10 + i: 100 + i for i in range(8)}
    st = run("s_movrels_b32 s0, s10\ns_movrels_b64 s[2:3], s[10:11]\n"
             "s_movreld_b32 s20, s30\ns_movreld_b64 s[24:25], s[32:33]", m0=4,
             sgpr={**regs, 30: 0xAB, 32: 0xC0, 33: 0xC1})
    assert st.sgpr[0] == 104
    assert list(st.sgpr[2:4]) == [104, 105]
    assert st.sgpr[24] == 0xAB and st.sgpr[20] == 0
    assert list(st.sgpr[28:30]) == [0xC0, 0xC1] and st.sgpr[24 + 0] == 0xAB


@pytest.mark.parametrize("n", [0, 1, 5, 100])
def test_scalar_loop_sum(n):
    st = run("""
        s_mov_b32 s1, 0
        s_mov_b32 s2, 0
        s_cmp_eq_u32 s0, 0
        s_cbranch_scc1 FINISH
    LOOP:
        s_add_u32 s1, s1, 1
        s_add_u32 s2, s2, s1
        s_cmp_lt_u32 s1, s0
        s_cbranch_scc1 LOOP
    FINISH:
        s_endpgm""", sgpr={0: n})
    assert st.sgpr[2] == n * (n + 1) // 2
    assert st.sgpr[1] == n


def test_cbranch_conditions():
    src = """
        s_mov_b32 s10, 0
        s_cmp_eq_u32 s0, 0
        s_cbranch_scc0 A
        s_or_b32 s10, s10, 1
    A:  s_cmp_eq_u32 s0, 0
        s_cbranch_scc1 B
        s_or_b32 s10, s10, 2
    B:  s_cbranch_vccz C
        s_or_b32 s10, s10, 4
    C:  s_cbranch_vccnz D
        s_or_b32 s10, s10, 8
    D:  s_cbranch_execz E
        s_or_b32 s10, s10, 16
    E:  s_cbranch_execnz F
        s_or_b32 s10, s10, 32
    F:  s_branch G
        s_or_b32 s10, s10, 64
    G:  s_endpgm"""
    for s0 in (0, 1):
        for vcc in (0, 1 << 63):
            for ex in (0, 1 << 40):
                st = run(src, sgpr={0: s0}, vcc=vcc, exec_mask=ex)
                exp = 0
                exp |= 0 if s0 != 0 else 1          # scc0 taken when s0 != 0
                exp |= 0 if s0 == 0 else 2
                exp |= 0 if vcc == 0 else 4
                exp |= 0 if vcc != 0 else 8
                exp |= 0 if ex == 0 else 16
                exp |= 0 if ex != 0 else 32
                assert st.sgpr[10] == exp, (s0, vcc, ex)


FORK = """
    s_mov_b32 s20, 0                      // saved CSP
    s_mov_b32 s40, 0                      // execution order log
    s_cbranch_i_fork s[2:3], PASS
    s_lshl_b32 s40, s40, 4                // path of the failing lanes
    s_or_b32 s40, s40, 1
    v_mov_b32 v1, 1
    s_branch JOIN
PASS:
    s_lshl_b32 s40, s40, 4                // path of the passing lanes
    s_or_b32 s40, s40, 2
    v_mov_b32 v1, 2
JOIN:
    s_cbranch_join s20
    s_mov_b64 s[30:31], exec
"""


@pytest.mark.parametrize("mask", [0, M64, 1, 0xFF, 0xFFFFFFFF00000000, 0x5555555555555555, M64 - 1])
def test_cbranch_i_fork_join(mask):
    st = run(FORK, sgpr={2: mask & M32, 3: mask >> 32}, vgpr={1: 0})
    v1 = st.vgpr[1]
    for lane in range(64):
        assert v1[lane] == (2 if (mask >> lane) & 1 else 1), lane
    passes, fails = mask, ~mask & M64
    if passes == M64:
        order = 0x2
    elif fails == M64:
        # the failing path runs, branches to JOIN; the PASS block is skipped
        order = 0x1
    elif popcount(fails) < popcount(passes):
        order = 0x12      # failures first, then passes popped at the join
    else:
        order = 0x21
    assert st.sgpr[40] == order


def test_cbranch_g_fork_join():
    # g_fork takes the target byte address from an SGPR pair
    prog = """
    s_mov_b32 s20, 0
    s_getpc_b64 s[4:5]                   // s[4:5] = 8
    s_add_u32 s4, s4, 20                 // -> 28
    s_cbranch_g_fork s[2:3], s[4:5]      // at 12
    v_mov_b32 v1, 1                      // 16
    s_branch JOIN                        // 20
    s_nop 0                              // 24
    v_mov_b32 v1, 2                      // 28 = PASS
JOIN:
    s_cbranch_join s20
    """
    mask = 0x00000000FFFF0000
    st = run(prog, sgpr={2: mask & M32, 3: mask >> 32}, vgpr={1: 0})
    assert [int(x) for x in st.vgpr[1]] == [2 if (mask >> l) & 1 else 1 for l in range(64)]


def test_cbranch_join_honours_saved_csp():
    """A fork that does not split pushes nothing; the join that closes it compares the CSP
    with its saved value (SSRC0) and must not pop the enclosing fork's entry (CLRX:
    S_CBRANCH_JOIN 'if (CSP==SSRC0) PC += 4')."""
    src = """
    s_mov_b32 s20, 0
    s_cbranch_i_fork s[2:3], OUTER_PASS     // splits: CSP 0 -> 1
    s_mov_b32 s21, 1                        // saved CSP inside the outer fork
    s_cbranch_i_fork s[4:5], INNER_PASS     // s[4:5] = 0: no lane passes, no push
    v_mov_b32 v2, 7
INNER_PASS:
    s_cbranch_join s21                      // CSP == 1 == s21: fall through
    v_mov_b32 v1, 1
    s_branch OUTER_JOIN
OUTER_PASS:
    v_mov_b32 v1, 2
OUTER_JOIN:
    s_cbranch_join s20
    """
    mask = 0xFFFFFFFFFFFFFFF0     # passes = 60 lanes, failures (4 lanes) run first
    st = run(src, sgpr={2: mask & M32, 3: mask >> 32, 4: 0, 5: 0}, vgpr={1: 0, 2: 0})
    assert [int(x) for x in st.vgpr[1]] == [2 if (mask >> l) & 1 else 1 for l in range(64)]
    assert [int(x) for x in st.vgpr[2]] == [0 if (mask >> l) & 1 else 7 for l in range(64)]


def test_s_setpc_to_a_bad_address_is_an_error():
    with pytest.raises(ExecutionError, match=r"s_setpc_b64") as ei:
        run("s_setpc_b64 s[0:1]", sgpr={0: 2, 1: 0})
    assert ei.value.pc == 0


def test_fork_csp_is_visible_in_mode():
    """CLRX (S_CBRANCH_I_FORK): 'Control stack pointer is stored in CSP (3 last bits in MODE
    register)'; the compiler saves it with s_getreg for the matching s_cbranch_join."""
    src = """
    s_getreg_b32 s10, hwreg(HW_REG_MODE, 29, 3)
    s_cbranch_i_fork s[2:3], PASS
PASS:
    s_getreg_b32 s11, hwreg(HW_REG_MODE, 29, 3)
    """
    st = run(src, sgpr={2: 0xFF, 3: 0})
    assert st.sgpr[10] == 0
    assert st.sgpr[11] == 1


@pytest.mark.parametrize("scc,vcc,ex", [(1, 0, 0), (0, 1, M64), (1, 1 << 63, 1)])
def test_s_getreg_status(scc, vcc, ex):
    # STATUS (SI/CI ISA): SCC bit 0, EXECZ bit 9, VCCZ bit 10, VALID bit 16
    st = run("s_getreg_b32 s0, hwreg(HW_REG_STATUS)", scc=scc, vcc=vcc, exec_mask=ex)
    v = int(st.sgpr[0])
    assert v & 1 == scc
    assert (v >> 9) & 1 == int(ex == 0)
    assert (v >> 10) & 1 == int(vcc == 0)
    assert (v >> 16) & 1 == 1


@pytest.mark.parametrize("nv,ns,lds", [(24, 40, 4096), (256, 104, 65536), (4, 8, 0), (128, 16, 256)])
def test_s_getreg_gpr_and_lds_alloc(nv, ns, lds):
    # GPR_ALLOC: VGPR_SIZE [13:8] in 4-register granules minus 1, SGPR_SIZE [27:24] in
    # 8-register granules minus 1; LDS_ALLOC: LDS_SIZE [20:12] in 64-dword granules
    st = run("s_getreg_b32 s0, hwreg(HW_REG_GPR_ALLOC)\ns_getreg_b32 s1, hwreg(HW_REG_LDS_ALLOC)\n"
             "s_getreg_b32 s2, hwreg(HW_REG_GPR_ALLOC, 8, 6)\ns_getreg_b32 s3, hwreg(HW_REG_GPR_ALLOC, 24, 4)",
             num_vgprs=nv, num_sgprs=ns, lds_bytes=lds)
    assert (int(st.sgpr[0]) >> 8) & 0x3F == nv // 4 - 1
    assert (int(st.sgpr[0]) >> 24) & 0xF == ns // 8 - 1
    assert st.sgpr[2] == nv // 4 - 1 and st.sgpr[3] == ns // 8 - 1
    assert (int(st.sgpr[1]) >> 12) & 0x1FF == lds // 256


def test_sendmsg_sethalt_barrier_and_nops():
    st = run("""
    s_barrier                            // one wave: the barrier is met at once
    s_nop 7
    s_waitcnt vmcnt(0) & lgkmcnt(0)
    s_setprio 2
    s_sleep 1
    s_mov_b32 m0, 0x77
    s_sendmsg sendmsg(MSG_INTERRUPT)
    s_sendmsg 0x22
    s_sethalt 1
    s_mov_b32 s0, 1
    """)
    assert st.status == "halted"
    assert st.sgpr[0] == 0
    assert st.messages == [(1, 0x77), (0x22, 0x77)]
    # offsets: 6 four-byte instructions + s_mov with literal (8) + 2 sendmsg = 36 at sethalt
    assert st.pc == 40
    assert st.instructions == 9


def test_endpgm_in_the_middle():
    st = run("s_mov_b32 s0, 1\ns_endpgm\ns_mov_b32 s0, 2\ns_endpgm")
    assert st.sgpr[0] == 1 and st.status == "done" and st.instructions == 2


def test_s_setreg_field_past_bit_31_is_clipped():
    st = run("s_setreg_b32 hwreg(HW_REG_MODE, 30, 4), s0\ns_getreg_b32 s1, hwreg(HW_REG_MODE)",
             sgpr={0: 0xF})
    assert st.sgpr[1] == 0xC00003F0
    assert st.mode == 0xC00003F0


def test_s_setreg_ignores_read_only_registers():
    st = run("s_getreg_b32 s5, hwreg(HW_REG_GPR_ALLOC)\n"
             "s_setreg_b32 hwreg(HW_REG_HW_ID), s0\ns_getreg_b32 s1, hwreg(HW_REG_HW_ID)\n"
             "s_setreg_b32 hwreg(HW_REG_GPR_ALLOC), s0\ns_getreg_b32 s3, hwreg(HW_REG_GPR_ALLOC)",
             sgpr={0: 0xFFFFFFFF})
    assert st.sgpr[1] == 0
    assert st.sgpr[3] == st.sgpr[5]
    assert st.mode == 0x3F0
