"""Operand kinds through the engine: special registers as sources and destinations
(exec_lo/hi, vcc_lo/hi, m0, src_vccz/src_execz/src_scc), 64-bit inline constants, the f64
literal (the high 32 bits), SGPR pairs as 64-bit VALU sources, compares writing EXEC.
"""
import numpy as np
import pytest

from gcnemu.snippet import run_snippet

from snippets import M32, M64, assemble, run, f2u, d2u, u2d


def g64(st, r, l=0):
    return int(st.vgpr[r][l]) | int(st.vgpr[r + 1][l]) << 32


def test_special_scalar_sources_and_destinations():
    ex = 0x0123456789ABCDEF
    vcc = 0xFEDCBA9876543210
    st = run("""
    s_mov_b32 s0, exec_lo
    s_mov_b32 s1, exec_hi
    s_mov_b32 s2, vcc_lo
    s_mov_b32 s3, vcc_hi
    s_mov_b32 s4, m0
    s_mov_b32 m0, 0x55
    s_mov_b32 s5, m0
    s_mov_b32 vcc_hi, 7
    v_mov_b32 v1, exec_hi
    v_mov_b32 v2, m0
    """, exec_mask=ex, vcc=vcc, m0=0x1234)
    assert list(st.sgpr[:6]) == [ex & M32, ex >> 32, vcc & M32, vcc >> 32, 0x1234, 0x55]
    assert st.vcc == (7 << 32) | (vcc & M32)
    assert st.m0 == 0x55
    for l in range(64):
        if (ex >> l) & 1:
            assert st.vgpr[1][l] == ex >> 32 and st.vgpr[2][l] == 0x55


@pytest.mark.parametrize("ex,vcc,scc", [(0, 0, 0), (1, 0, 1), (0, 1 << 40, 1), (M64, M64, 0)])
def test_vccz_execz_scc_as_sources(ex, vcc, scc):
    st = run("s_mov_b32 s0, src_vccz\ns_mov_b32 s1, src_execz\ns_mov_b32 s2, src_scc\n"
             "s_mov_b32 exec_lo, -1\ns_mov_b32 exec_hi, -1\nv_mov_b32 v0, src_scc",
             exec_mask=ex, vcc=vcc, scc=scc)
    assert st.sgpr[0] == int(vcc == 0)
    assert st.sgpr[1] == int(ex == 0)
    assert st.sgpr[2] == scc
    assert (st.vgpr[0] == scc).all()


def test_64bit_inline_constants_and_f64_literal():
    st = run("""
    s_mov_b64 s[0:1], -1
    s_mov_b64 s[2:3], 0.5
    s_mov_b64 s[4:5], 64
    s_mov_b64 s[6:7], -16
    s_mov_b64 s[8:9], -4.0
    v_cvt_f32_f64 v1, 0x40080000          // the literal is the high half of 3.0
    v_add_f64 v[2:3], 1.0, v[10:11]
    v_add_f64 v[4:5], s[12:13], v[10:11]  // an SGPR pair as a 64-bit source
    v_mul_f64 v[6:7], -4.0, s[12:13]
    v_fract_f64 v[8:9], 0x400C0000          // VOP1 f64 literal: 3.5 -> 0.5
    """, sgpr={12: d2u(1.25) & M32, 13: d2u(1.25) >> 32},
        vgpr={10: d2u(0.5) & M32, 11: d2u(0.5) >> 32})

    def s64(i):
        return int(st.sgpr[i]) | int(st.sgpr[i + 1]) << 32
    assert s64(0) == M64
    assert s64(2) == d2u(0.5)
    assert s64(4) == 64
    assert s64(6) == (-16) & M64
    assert s64(8) == d2u(-4.0)
    assert (st.vgpr[1] == f2u(3.0)).all()
    assert u2d(g64(st, 2)) == 1.5
    assert u2d(g64(st, 4)) == 1.75
    assert u2d(g64(st, 6)) == -5.0
    assert u2d(g64(st, 8)) == 0.5


def test_vop3_compare_writes_exec():
    # v_cmp_eq_u32_e64 exec, v0, v1 (encoding from llvm-mc -mcpu=bonaire; gcnemu's assembler
    # takes LLVM's doc literally and refuses exec as sdst there)
    prog = bytes([0x7e, 0x00, 0x84, 0xd1, 0x00, 0x03, 0x02, 0x00]) + assemble("v_mov_b32 v2, 1\ns_endpgm")
    a = np.arange(64, dtype=np.uint32)
    b = np.array([l if l % 3 == 0 else 999 for l in range(64)], np.uint32)
    ex = M64 ^ (1 << 3)
    st = run_snippet(prog, vgpr={0: a, 1: b, 2: 0}, exec_mask=ex)
    m = sum(1 << l for l in range(64) if l % 3 == 0 and l != 3)
    assert st.exec == m
    assert [int(x) for x in st.vgpr[2]] == [(m >> l) & 1 for l in range(64)]


def test_sgpr_and_literal_sources_in_vop2_vop3():
    st = run("""
    v_add_i32 v10, vcc, s0, v0
    v_sub_i32 v11, vcc, 0x10000, v0
    v_mad_u32_u24 v12, s0, v0, s0        // the same SGPR twice is one constant-bus read
    v_bfe_u32 v13, v0, 4, 8
    v_alignbit_b32 v14, s1, v0, 8
    """, sgpr={0: 1000, 1: 0xAABBCCDD}, vgpr={0: np.arange(64, dtype=np.uint32) * 0x01010101})
    for l in range(64):
        x = l * 0x01010101
        assert st.vgpr[10][l] == (1000 + x) & M32
        assert st.vgpr[11][l] == (0x10000 - x) & M32
        assert st.vgpr[12][l] == ((1000 & 0xFFFFFF) * (x & 0xFFFFFF) + 1000) & M32
        assert st.vgpr[13][l] == (x >> 4) & 0xFF
        assert st.vgpr[14][l] == (((0xAABBCCDD << 32) | x) >> 8) & M32


LDS_DIRECT_SRC = """
    s_mov_b32 m0, -1
    v_mov_b32 v0, 0
    v_mov_b32 v1, 0x8081f2f3
    ds_write_b32 v0, v1 offset:16
    s_waitcnt lgkmcnt(0)
    s_mov_b32 m0, 0x20010            // b32 at byte 16
    v_mov_b32 v2, src_lds_direct
    s_mov_b32 m0, 0x00010            // unsigned byte
    v_mov_b32 v3, src_lds_direct
    s_mov_b32 m0, 0x10010            // unsigned short
    v_mov_b32 v4, src_lds_direct
    s_mov_b32 m0, 0x40010            // signed byte
    v_mov_b32 v5, src_lds_direct
    s_mov_b32 m0, 0x50010            // signed short
    v_mov_b32 v6, src_lds_direct
    s_mov_b32 m0, 0x00013            // unsigned byte at 19
    v_add_i32 v7, vcc, src_lds_direct, v0
"""


def test_lds_direct_dword():
    st = run(LDS_DIRECT_SRC)
    assert (st.vgpr[2] == 0x8081F2F3).all()


def test_lds_direct_data_types():
    # CLRX GcnOperands.md: M0[15:0] byte offset, M0[18:16] format: 0 unsigned byte,
    # 1 unsigned 16-bit, 2 32-bit, 4 signed byte, 5 signed 16-bit
    st = run(LDS_DIRECT_SRC)
    assert (st.vgpr[3] == 0xF3).all()
    assert (st.vgpr[4] == 0xF2F3).all()
    assert (st.vgpr[5] == 0xFFFFFFF3).all()
    assert (st.vgpr[6] == 0xFFFFF2F3).all()
    assert (st.vgpr[7] == 0x80).all()


def test_scalar_inline_constants_32_and_64():
    st = run("""
    s_mov_b32 s0, 0.5
    s_add_u32 s1, s10, 1.0
    s_mov_b32 s2, -16
    s_and_b64 s[4:5], s[12:13], -2
    s_or_b64 s[6:7], s[12:13], 2.0
    s_mov_b64 s[8:9], 0x87654321        // a 32-bit literal for a 64-bit operand
    s_xor_b32 s3, s10, 0xFFFF0000
    """, sgpr={10: 1, 12: 0x13, 13: 0x80000000})
    assert st.sgpr[0] == 0x3F000000
    assert st.sgpr[1] == 0x3F800001
    assert st.sgpr[2] == (-16) & M32
    assert int(st.sgpr[4]) | int(st.sgpr[5]) << 32 == 0x8000000000000012
    assert int(st.sgpr[6]) | int(st.sgpr[7]) << 32 == 0x8000000000000013 | d2u(2.0)
    assert st.sgpr[3] == 0xFFFF0001
    # the high half of a 32-bit literal for a 64-bit integer operand is not pinned down here
    assert st.sgpr[8] == 0x87654321 and st.sgpr[9] in (0, M32)


def test_flat_scratch_ttmp_tba_tma_registers():
    st = run("""
    s_mov_b64 flat_scratch, s[0:1]
    s_mov_b32 ttmp0, s2
    s_mov_b32 ttmp11, s3
    s_mov_b32 s4, ttmp0
    s_mov_b32 s5, ttmp11
    s_mov_b64 tba, s[0:1]
    s_mov_b64 s[6:7], tba
    s_mov_b32 s8, flat_scratch_hi
    """, sgpr={0: 0x1000, 1: 0x2, 2: 0xAB, 3: 0xCD})
    assert st.flat_scratch == 0x2_0000_1000
    assert st.sgpr[4] == 0xAB and st.sgpr[5] == 0xCD
    assert list(st.sgpr[6:9]) == [0x1000, 0x2, 0x2]
