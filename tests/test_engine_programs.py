"""Compiler-generated instruction sequences run through the engine, checked against exact
Python arithmetic. The sequences are llc-14 output for gfx7 (-march=amdgcn -mcpu=bonaire -O2)
of this IR (arguments and results in VGPRs, amdgpu_ps calling convention):

    define amdgpu_ps float @udiv32(i32 %a, i32 %b)          ; udiv
    define amdgpu_ps <2 x float> @sdivrem32(i32 %a, i32 %b) ; sdiv, srem
    define amdgpu_ps <2 x float> @udiv64(i64 %a, i64 %b)    ; udiv (divergent branches)
    define amdgpu_ps float @fdiv32(float %a, float %b) #0   ; fdiv
    define amdgpu_ps <2 x float> @fdiv64(double %a, double %b) #0
    attributes #0 = { "denormal-fp-math-f32"="ieee,ieee" "denormal-fp-math"="ieee,ieee" }
    define amdgpu_ps <2 x float> @mul64(i64 %a, i64 %b)        ; mul i64
    define amdgpu_ps <2 x float> @fptosi64(double %a)          ; fptosi double -> i64
    define amdgpu_ps <2 x float> @fptoui64f(float %a)          ; fptoui float -> i64
    define amdgpu_ps float @uitofp64(i64 %a)                   ; uitofp i64 -> float
    define amdgpu_ps <2 x float> @sitofp64d(i64 %a)            ; sitofp i64 -> double
    define amdgpu_ps <4 x float> @bits64(i64 %a)               ; ctlz, cttz, ctpop, bitreverse
    define amdgpu_ps float @f64tof16(double %a)                ; fptrunc double -> half

Integer division must be exact (it is built from v_rcp_iflag_f32, conversions, mul_hi and
carry chains); LLVM's fdiv expansion (div_scale, rcp, fma Newton steps, div_fmas,
div_fixup) must give the correctly rounded quotient.
"""
import math
import random
from fractions import Fraction

import numpy as np
from hypothesis import given, settings, strategies as st, HealthCheck

from snippets import M32, M64, run, f2u, u2f, d2u, u2d, sgn

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

UDIV32 = """
v_cvt_f32_u32_e32 v2, v1
v_sub_i32_e32 v3, vcc, 0, v1
v_rcp_iflag_f32_e32 v2, v2
v_mul_f32_e32 v2, 0x4f7ffffe, v2
v_cvt_u32_f32_e32 v2, v2
v_mul_lo_u32 v3, v3, v2
v_mul_hi_u32 v3, v2, v3
v_add_i32_e32 v2, vcc, v2, v3
v_mul_hi_u32 v2, v0, v2
v_mul_lo_u32 v3, v2, v1
v_add_i32_e32 v4, vcc, 1, v2
v_sub_i32_e32 v0, vcc, v0, v3
v_cmp_ge_u32_e32 vcc, v0, v1
v_cndmask_b32_e32 v2, v2, v4, vcc
v_sub_i32_e64 v3, s[0:1], v0, v1
v_cndmask_b32_e32 v0, v0, v3, vcc
v_add_i32_e32 v3, vcc, 1, v2
v_cmp_ge_u32_e32 vcc, v0, v1
v_cndmask_b32_e32 v0, v2, v3, vcc
"""

SDIVREM32 = """
v_ashrrev_i32_e32 v2, 31, v1
v_add_i32_e32 v1, vcc, v1, v2
v_xor_b32_e32 v1, v1, v2
v_cvt_f32_u32_e32 v3, v1
v_sub_i32_e32 v4, vcc, 0, v1
v_ashrrev_i32_e32 v5, 31, v0
v_rcp_iflag_f32_e32 v3, v3
v_add_i32_e32 v0, vcc, v0, v5
v_xor_b32_e32 v0, v0, v5
v_mul_f32_e32 v3, 0x4f7ffffe, v3
v_cvt_u32_f32_e32 v3, v3
v_xor_b32_e32 v2, v5, v2
v_mul_lo_u32 v4, v4, v3
v_mul_hi_u32 v4, v3, v4
v_add_i32_e32 v3, vcc, v3, v4
v_mul_hi_u32 v3, v0, v3
v_mul_lo_u32 v4, v3, v1
v_add_i32_e32 v6, vcc, 1, v3
v_sub_i32_e32 v0, vcc, v0, v4
v_cmp_ge_u32_e32 vcc, v0, v1
v_cndmask_b32_e32 v3, v3, v6, vcc
v_sub_i32_e64 v4, s[0:1], v0, v1
v_cndmask_b32_e32 v4, v0, v4, vcc
v_add_i32_e32 v0, vcc, 1, v3
v_cmp_ge_u32_e32 vcc, v4, v1
v_sub_i32_e64 v1, s[0:1], v4, v1
v_cndmask_b32_e32 v0, v3, v0, vcc
v_cndmask_b32_e32 v1, v4, v1, vcc
v_xor_b32_e32 v0, v0, v2
v_xor_b32_e32 v1, v1, v5
v_sub_i32_e64 v0, s[0:1], v0, v2
v_sub_i32_e32 v1, vcc, v1, v5
"""

UDIV64 = """
v_or_b32_e32 v5, v1, v3
v_mov_b32_e32 v4, 0
v_cmp_ne_u64_e32 vcc, 0, v[4:5]
s_and_saveexec_b64 s[0:1], vcc
s_xor_b64 s[2:3], exec, s[0:1]
s_cbranch_execz .LBB2_2
v_cvt_f32_u32_e32 v4, v2
v_cvt_f32_u32_e32 v5, v3
v_sub_i32_e32 v10, vcc, 0, v2
v_subb_u32_e32 v11, vcc, 0, v3, vcc
v_mac_f32_e32 v4, 0x4f800000, v5
v_rcp_f32_e32 v4, v4
v_mov_b32_e32 v13, 0
v_mul_f32_e32 v4, 0x5f7ffffc, v4
v_mul_f32_e32 v5, 0x2f800000, v4
v_trunc_f32_e32 v5, v5
v_mac_f32_e32 v4, 0xcf800000, v5
v_cvt_u32_f32_e32 v8, v5
v_cvt_u32_f32_e32 v9, v4
v_mul_lo_u32 v6, v10, v8
v_mad_u64_u32 v[4:5], s[0:1], v10, v9, 0
v_mul_lo_u32 v7, v11, v9
v_add_i32_e32 v5, vcc, v5, v6
v_add_i32_e32 v7, vcc, v5, v7
v_mul_hi_u32 v12, v9, v4
v_mad_u64_u32 v[5:6], s[0:1], v9, v7, 0
v_add_i32_e32 v12, vcc, v12, v5
v_mad_u64_u32 v[4:5], s[0:1], v8, v4, 0
v_addc_u32_e32 v14, vcc, 0, v6, vcc
v_mad_u64_u32 v[6:7], s[0:1], v8, v7, 0
v_add_i32_e32 v4, vcc, v12, v4
v_addc_u32_e32 v4, vcc, v14, v5, vcc
v_addc_u32_e32 v5, vcc, v7, v13, vcc
v_add_i32_e32 v4, vcc, v4, v6
v_addc_u32_e32 v5, vcc, 0, v5, vcc
v_add_i32_e32 v12, vcc, v9, v4
v_addc_u32_e32 v14, vcc, v8, v5, vcc
v_mad_u64_u32 v[4:5], s[0:1], v10, v12, 0
v_mul_lo_u32 v8, v10, v14
v_mul_lo_u32 v9, v11, v12
v_mul_hi_u32 v10, v12, v4
v_mad_u64_u32 v[6:7], s[0:1], v14, v4, 0
v_add_i32_e32 v5, vcc, v5, v8
v_add_i32_e32 v5, vcc, v5, v9
v_mad_u64_u32 v[8:9], s[0:1], v12, v5, 0
v_mad_u64_u32 v[4:5], s[0:1], v14, v5, 0
v_add_i32_e32 v8, vcc, v10, v8
v_addc_u32_e32 v9, vcc, 0, v9, vcc
v_add_i32_e32 v6, vcc, v8, v6
v_addc_u32_e32 v6, vcc, v9, v7, vcc
v_addc_u32_e32 v5, vcc, v5, v13, vcc
v_add_i32_e32 v4, vcc, v6, v4
v_addc_u32_e32 v5, vcc, 0, v5, vcc
v_add_i32_e32 v6, vcc, v12, v4
v_addc_u32_e32 v7, vcc, v14, v5, vcc
v_mad_u64_u32 v[4:5], s[0:1], v0, v7, 0
v_mul_hi_u32 v8, v0, v6
v_add_i32_e32 v8, vcc, v8, v4
v_addc_u32_e32 v9, vcc, 0, v5, vcc
v_mad_u64_u32 v[4:5], s[0:1], v1, v6, 0
v_mad_u64_u32 v[6:7], s[0:1], v1, v7, 0
v_add_i32_e32 v4, vcc, v8, v4
v_addc_u32_e32 v4, vcc, v9, v5, vcc
v_addc_u32_e32 v5, vcc, v7, v13, vcc
v_add_i32_e32 v6, vcc, v4, v6
v_addc_u32_e32 v7, vcc, 0, v5, vcc
v_mul_lo_u32 v8, v2, v7
v_mad_u64_u32 v[4:5], s[0:1], v2, v6, 0
v_mul_lo_u32 v9, v3, v6
v_add_i32_e32 v5, vcc, v5, v8
v_add_i32_e32 v5, vcc, v5, v9
v_sub_i32_e32 v8, vcc, v1, v5
v_sub_i32_e32 v0, vcc, v0, v4
v_subb_u32_e64 v4, s[0:1], v8, v3, vcc
v_sub_i32_e64 v8, s[0:1], v0, v2
v_subbrev_u32_e64 v4, s[0:1], 0, v4, s[0:1]
v_cmp_ge_u32_e64 s[0:1], v4, v3
v_cndmask_b32_e64 v9, 0, -1, s[0:1]
v_cmp_ge_u32_e64 s[0:1], v8, v2
v_cndmask_b32_e64 v8, 0, -1, s[0:1]
v_cmp_eq_u32_e64 s[0:1], v4, v3
v_cndmask_b32_e64 v4, v9, v8, s[0:1]
v_add_i32_e64 v8, s[0:1], 2, v6
v_subb_u32_e32 v1, vcc, v1, v5, vcc
v_addc_u32_e64 v9, s[0:1], 0, v7, s[0:1]
v_cmp_ge_u32_e32 vcc, v1, v3
v_add_i32_e64 v10, s[0:1], 1, v6
v_cndmask_b32_e64 v5, 0, -1, vcc
v_cmp_ge_u32_e32 vcc, v0, v2
v_addc_u32_e64 v11, s[0:1], 0, v7, s[0:1]
v_cndmask_b32_e64 v0, 0, -1, vcc
v_cmp_eq_u32_e32 vcc, v1, v3
v_cmp_ne_u32_e64 s[0:1], 0, v4
v_cndmask_b32_e32 v0, v5, v0, vcc
v_cndmask_b32_e64 v4, v11, v9, s[0:1]
v_cmp_ne_u32_e32 vcc, 0, v0
v_cndmask_b32_e64 v0, v10, v8, s[0:1]
v_cndmask_b32_e32 v5, v7, v4, vcc
v_cndmask_b32_e32 v4, v6, v0, vcc
.LBB2_2:
s_or_saveexec_b64 s[0:1], s[2:3]
s_xor_b64 exec, exec, s[0:1]
s_cbranch_execz .LBB2_4
v_cvt_f32_u32_e32 v1, v2
v_sub_i32_e32 v3, vcc, 0, v2
v_mov_b32_e32 v5, 0
v_rcp_iflag_f32_e32 v1, v1
v_mul_f32_e32 v1, 0x4f7ffffe, v1
v_cvt_u32_f32_e32 v1, v1
v_mul_lo_u32 v3, v3, v1
v_mul_hi_u32 v3, v1, v3
v_add_i32_e32 v1, vcc, v1, v3
v_mul_hi_u32 v1, v0, v1
v_mul_lo_u32 v3, v1, v2
v_add_i32_e32 v4, vcc, 1, v1
v_sub_i32_e32 v0, vcc, v0, v3
v_sub_i32_e32 v3, vcc, v0, v2
v_cmp_ge_u32_e32 vcc, v0, v2
v_cndmask_b32_e32 v1, v1, v4, vcc
v_cndmask_b32_e32 v0, v0, v3, vcc
v_add_i32_e32 v3, vcc, 1, v1
v_cmp_ge_u32_e32 vcc, v0, v2
v_cndmask_b32_e32 v4, v1, v3, vcc
.LBB2_4:
s_or_b64 exec, exec, s[0:1]
v_mov_b32_e32 v0, v4
v_mov_b32_e32 v1, v5
"""

FDIV32 = """
v_div_scale_f32 v2, s[0:1], v1, v1, v0
v_div_scale_f32 v3, vcc, v0, v1, v0
v_rcp_f32_e32 v4, v2
v_fma_f32 v5, -v2, v4, 1.0
v_fma_f32 v4, v5, v4, v4
v_mul_f32_e32 v5, v3, v4
v_fma_f32 v6, -v2, v5, v3
v_fma_f32 v5, v6, v4, v5
v_fma_f32 v2, -v2, v5, v3
v_div_fmas_f32 v2, v2, v4, v5
v_div_fixup_f32 v0, v2, v1, v0
"""

FDIV64 = """
v_div_scale_f64 v[4:5], s[0:1], v[2:3], v[2:3], v[0:1]
v_rcp_f64_e32 v[6:7], v[4:5]
v_fma_f64 v[8:9], -v[4:5], v[6:7], 1.0
v_fma_f64 v[6:7], v[6:7], v[8:9], v[6:7]
v_div_scale_f64 v[8:9], vcc, v[0:1], v[2:3], v[0:1]
v_fma_f64 v[10:11], -v[4:5], v[6:7], 1.0
v_fma_f64 v[6:7], v[6:7], v[10:11], v[6:7]
v_mul_f64 v[10:11], v[8:9], v[6:7]
v_fma_f64 v[4:5], -v[4:5], v[10:11], v[8:9]
v_div_fmas_f64 v[4:5], v[4:5], v[6:7], v[10:11]
v_div_fixup_f64 v[0:1], v[4:5], v[2:3], v[0:1]
"""


MUL64 = """
v_mov_b32_e32 v4, v1
v_mul_lo_u32 v3, v0, v3
v_mad_u64_u32 v[0:1], s[0:1], v0, v2, 0
v_mul_lo_u32 v2, v4, v2
v_add_i32_e32 v1, vcc, v1, v3
v_add_i32_e32 v1, vcc, v1, v2
"""

FPTOSI64 = """
v_trunc_f64_e32 v[0:1], v[0:1]
s_mov_b32 s1, 0x3df00000
s_mov_b32 s0, 0
v_mul_f64 v[2:3], v[0:1], s[0:1]
s_mov_b32 s1, 0xc1f00000
v_floor_f64_e32 v[2:3], v[2:3]
v_fma_f64 v[0:1], v[2:3], s[0:1], v[0:1]
v_cvt_u32_f64_e32 v0, v[0:1]
v_cvt_i32_f64_e32 v1, v[2:3]
"""

FPTOUI64F = """
v_trunc_f32_e32 v0, v0
v_mul_f32_e32 v1, 0x2f800000, v0
v_floor_f32_e32 v1, v1
s_mov_b32 s0, 0xcf800000
v_fma_f32 v0, v1, s0, v0
v_cvt_u32_f32_e32 v0, v0
v_cvt_u32_f32_e32 v1, v1
"""

UITOFP64 = """
v_ffbh_u32_e32 v2, v1
v_min_u32_e32 v2, 32, v2
v_lshl_b64 v[0:1], v[0:1], v2
v_min_u32_e32 v0, 1, v0
v_or_b32_e32 v0, v1, v0
v_cvt_f32_u32_e32 v0, v0
v_sub_i32_e32 v1, vcc, 32, v2
v_ldexp_f32_e32 v0, v0, v1
"""

SITOFP64D = """
v_cvt_f64_i32_e32 v[1:2], v1
v_cvt_f64_u32_e32 v[3:4], v0
v_ldexp_f64 v[1:2], v[1:2], 32
v_add_f64 v[0:1], v[1:2], v[3:4]
"""

BITS64 = """
v_ffbh_u32_e32 v2, v0
s_movk_i32 s0, 0xffdf
v_min_u32_e32 v2, s0, v2
v_add_i32_e32 v2, vcc, 32, v2
v_ffbh_u32_e32 v3, v1
v_min3_u32 v4, v2, v3, 64
v_ffbl_b32_e32 v2, v1
v_min_u32_e32 v2, s0, v2
v_add_i32_e32 v2, vcc, 32, v2
v_ffbl_b32_e32 v3, v0
v_min3_u32 v5, v3, v2, 64
v_bcnt_u32_b32_e64 v0, v0, 0
v_bcnt_u32_b32_e32 v2, v1, v0
v_bfrev_b32_e32 v3, v1
v_mov_b32_e32 v0, v4
v_mov_b32_e32 v1, v5
"""

F64TOF16 = """
v_and_b32_e32 v2, 0x1ff, v1
v_or_b32_e32 v0, v2, v0
v_cmp_ne_u32_e32 vcc, 0, v0
v_lshrrev_b32_e32 v2, 8, v1
v_cndmask_b32_e64 v0, 0, 1, vcc
v_and_b32_e32 v2, 0xffe, v2
v_bfe_u32 v3, v1, 20, 11
v_or_b32_e32 v0, v2, v0
v_sub_i32_e32 v4, vcc, 0x3f1, v3
v_or_b32_e32 v2, 0x1000, v0
v_med3_i32 v4, v4, 0, 13
v_lshrrev_b32_e32 v5, v4, v2
v_lshlrev_b32_e32 v4, v4, v5
v_cmp_ne_u32_e32 vcc, v4, v2
s_movk_i32 s0, 0xfc10
v_cndmask_b32_e64 v2, 0, 1, vcc
v_add_i32_e32 v3, vcc, s0, v3
v_lshlrev_b32_e32 v4, 12, v3
v_or_b32_e32 v2, v5, v2
v_or_b32_e32 v4, v0, v4
v_cmp_gt_i32_e32 vcc, 1, v3
v_cndmask_b32_e32 v2, v4, v2, vcc
v_and_b32_e32 v4, 7, v2
v_cmp_lt_i32_e32 vcc, 5, v4
v_cmp_eq_u32_e64 s[0:1], 3, v4
v_lshrrev_b32_e32 v2, 2, v2
s_or_b64 vcc, s[0:1], vcc
v_addc_u32_e32 v2, vcc, 0, v2, vcc
s_movk_i32 s0, 0x7c00
v_mov_b32_e32 v4, s0
v_cmp_gt_i32_e32 vcc, 31, v3
v_cndmask_b32_e32 v2, v4, v2, vcc
v_cmp_ne_u32_e32 vcc, 0, v0
v_cndmask_b32_e64 v0, 0, 1, vcc
v_lshlrev_b32_e32 v0, 9, v0
v_or_b32_e32 v0, s0, v0
s_movk_i32 s0, 0x40f
v_cmp_eq_u32_e32 vcc, s0, v3
v_lshrrev_b32_e32 v1, 16, v1
v_cndmask_b32_e32 v0, v2, v0, vcc
v_and_b32_e32 v1, 0x8000, v1
v_or_b32_e32 v0, v1, v0
v_and_b32_e32 v0, 0xffff, v0
"""


def arr(vals):
    return np.array([v & M32 for v in vals], np.uint32)


def ints(rng, bits, nonzero=False):
    out = []
    for _ in range(64):
        r = rng.random()
        if r < 0.25:
            v = rng.choice([0, 1, 2, 3, 7, 10, (1 << bits) - 1, (1 << (bits - 1)), (1 << (bits - 1)) - 1,
                            (1 << (bits - 1)) + 1, 0xFFFF, 0x10000])
        elif r < 0.5:
            v = rng.getrandbits(rng.randrange(1, bits + 1))
        else:
            v = rng.getrandbits(bits)
        if nonzero and v == 0:
            v = 1
        out.append(v)
    return out


@SETTINGS
@given(seed=st.integers(0, 2**32))
def test_udiv32_sequence(seed):
    rng = random.Random(seed)
    a, b = ints(rng, 32), ints(rng, 32, nonzero=True)
    s = run(UDIV32, vgpr={0: arr(a), 1: arr(b)})
    for l in range(64):
        assert int(s.vgpr[0][l]) == a[l] // b[l], (l, a[l], b[l])


@SETTINGS
@given(seed=st.integers(0, 2**32))
def test_sdivrem32_sequence(seed):
    rng = random.Random(seed)
    a, b = ints(rng, 32), ints(rng, 32, nonzero=True)
    for l in range(64):
        if a[l] == 0x80000000 and b[l] == M32:
            b[l] = 1                                  # INT_MIN / -1 is undefined
    s = run(SDIVREM32, vgpr={0: arr(a), 1: arr(b)})
    for l in range(64):
        x, y = sgn(a[l]), sgn(b[l])
        q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)   # C: truncate toward zero
        r = x - q * y
        assert int(s.vgpr[0][l]) == q & M32, (l, x, y)
        assert int(s.vgpr[1][l]) == r & M32, (l, x, y)


@SETTINGS
@given(seed=st.integers(0, 2**32))
def test_udiv64_sequence_with_divergent_branches(seed):
    rng = random.Random(seed)
    a, b = ints(rng, 64), ints(rng, 64, nonzero=True)
    for l in range(0, 64, 3):                         # these lanes take the 32-bit path
        a[l] &= M32
        b[l] = (b[l] & M32) or 1
    s = run(UDIV64, vgpr={0: arr(a), 1: arr([x >> 32 for x in a]),
                          2: arr(b), 3: arr([x >> 32 for x in b])})
    for l in range(64):
        got = int(s.vgpr[0][l]) | int(s.vgpr[1][l]) << 32
        assert got == a[l] // b[l], (l, a[l], b[l])
    assert s.exec == M64


def round_even(q, mant, emin, emax):
    if q == 0:
        return 0.0
    sign = -1 if q < 0 else 1
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    quantum = Fraction(2) ** (max(e, emin) - mant)
    n = a / quantum
    fl = n.numerator // n.denominator
    rem = n - fl
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2):
        fl += 1
    r = fl * quantum
    if r >= Fraction(2) ** (emax + 1):
        return sign * math.inf
    return sign * float(r)


def fvals(rng, n, lo, hi):
    out = []
    for _ in range(n):
        m = rng.uniform(1, 2) * rng.choice([1, -1])
        out.append(m * 2.0 ** rng.randrange(lo, hi))
    return out


def test_fdiv32_sequence_correctly_rounded():
    rng = random.Random(12)
    a = fvals(rng, 48, -60, 60) + [1.0, 1.0, 0.0, -0.0, math.inf, 1.0, 3.0, 1e-40,
                                   1e30, 1e-30, 2.0 ** -126, 7.0, 1.0, -5.0, 2.0 ** 127, 0.1]
    b = fvals(rng, 48, -60, 60) + [3.0, 0.0, 0.0, 5.0, math.inf, math.inf, 7.0, 3.0,
                                   1e-30, 1e30, 3.0, 2.0 ** -149, 1e38, 1e-38, 0.5, 0.3]
    ab, bb = [f2u(x) for x in a], [f2u(x) for x in b]
    s = run(FDIV32, vgpr={0: arr(ab), 1: arr(bb)})
    for l in range(64):
        x, y = u2f(ab[l]), u2f(bb[l])
        g = u2f(int(s.vgpr[0][l]))
        if math.isnan(x) or math.isnan(y) or (x == 0 and y == 0) or (math.isinf(x) and math.isinf(y)):
            assert math.isnan(g), (l, x, y, g)
        elif y == 0:
            assert g == math.copysign(math.inf, x) * math.copysign(1, y), (l, x, y, g)
        elif math.isinf(x):
            assert g == x * math.copysign(1, y), (l, x, y, g)
        elif math.isinf(y) or x == 0:
            assert g == 0 and math.copysign(1, g) == math.copysign(1, x) * math.copysign(1, y), (l, x, y, g)
        else:
            exp = round_even(Fraction(x) / Fraction(y), 23, -126, 127)
            assert int(s.vgpr[0][l]) == f2u(exp), (l, x, y, g, exp)


def test_fdiv64_sequence_correctly_rounded():
    rng = random.Random(13)
    a = fvals(rng, 56, -500, 500) + [1.0, 0.0, math.inf, 1.0, 1e-300, 1e300, 2.0 ** -1022, 0.1]
    b = fvals(rng, 56, -500, 500) + [3.0, 0.0, math.inf, 0.0, 1e10, 1e-10, 3.0, 0.3]
    ab, bb = [d2u(x) for x in a], [d2u(x) for x in b]
    s = run(FDIV64, vgpr={0: arr(ab), 1: arr([x >> 32 for x in ab]),
                          2: arr(bb), 3: arr([x >> 32 for x in bb])})
    for l in range(64):
        x, y = a[l], b[l]
        gb = int(s.vgpr[0][l]) | int(s.vgpr[1][l]) << 32
        g = u2d(gb)
        if (x == 0 and y == 0) or (math.isinf(x) and math.isinf(y)):
            assert math.isnan(g), (l, x, y, g)
        elif y == 0:
            assert g == math.copysign(math.inf, x), (l, x, y, g)
        else:
            exp = round_even(Fraction(x) / Fraction(y), 52, -1022, 1023)
            assert gb == d2u(exp), (l, x, y, g, exp)


def lohi(vals):
    return arr(vals), arr([v >> 32 for v in vals])


def g64(s, r, l):
    return int(s.vgpr[r][l]) | int(s.vgpr[r + 1][l]) << 32


@SETTINGS
@given(seed=st.integers(0, 2**32))
def test_i64_sequences(seed):
    rng = random.Random(seed)
    a, b = ints(rng, 64), ints(rng, 64)
    a0, a1 = lohi(a)
    b0, b1 = lohi(b)
    s = run(MUL64, vgpr={0: a0, 1: a1, 2: b0, 3: b1})
    for l in range(64):
        assert g64(s, 0, l) == (a[l] * b[l]) & M64, l
    s = run(BITS64, vgpr={0: a0, 1: a1})
    for l in range(64):
        x = a[l]
        assert int(s.vgpr[0][l]) == 64 - x.bit_length(), (l, x)
        assert int(s.vgpr[1][l]) == ((x & -x).bit_length() - 1 if x else 64), (l, x)
        assert int(s.vgpr[2][l]) == bin(x).count("1"), (l, x)
        assert int(s.vgpr[3][l]) == int(format(x, "064b")[::-1], 2) & M32, (l, x)
    s = run(UITOFP64, vgpr={0: a0, 1: a1})
    for l in range(64):
        assert int(s.vgpr[0][l]) == f2u(round_even(Fraction(a[l]), 23, -126, 127)), (l, a[l])
    s = run(SITOFP64D, vgpr={0: a0, 1: a1})
    for l in range(64):
        assert g64(s, 0, l) == d2u(float(sgn(a[l], 64))), (l, a[l])      # float(int) rounds RNE


def test_float_to_i64_sequences():
    rng = random.Random(21)
    d = [rng.uniform(-1, 1) * 2.0 ** rng.randrange(0, 63) for _ in range(56)] + \
        [0.0, -0.0, 0.5, -0.99, 2.0 ** 62, -(2.0 ** 63), 4503599627370497.0, -1.5]
    s = run(FPTOSI64, vgpr=dict(zip((0, 1), lohi([d2u(x) for x in d]))))
    for l in range(64):
        assert g64(s, 0, l) == math.trunc(d[l]) & M64, (l, d[l])
    f = [abs(u2f(f2u(rng.uniform(0, 1) * 2.0 ** rng.randrange(0, 64)))) for _ in range(58)] + \
        [0.0, 0.75, 1.0, 2.0 ** 63, 16777217.0, 2.0 ** 64 - 2.0 ** 40]
    f = [u2f(f2u(x)) for x in f]
    s = run(FPTOUI64F, vgpr={0: arr([f2u(x) for x in f])})
    for l in range(64):
        assert g64(s, 0, l) == math.trunc(f[l]), (l, f[l])


def test_f64_to_f16_sequence_vs_numpy():
    rng = random.Random(22)
    d = [rng.uniform(-1, 1) * 2.0 ** rng.randrange(-30, 17) for _ in range(44)] + \
        [0.0, -0.0, 1.0, 65504.0, 65519.99, 65520.0, 1e6, -1e6, 2.0 ** -24, 2.0 ** -25,
         2.0 ** -25 + 2.0 ** -60, 3 * 2.0 ** -26, 6.1e-5, 1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11,
         math.inf, -math.inf, math.nan, 0.1, 1.0 + 2.0 ** -11 + 2.0 ** -40]
    s = run(F64TOF16, vgpr=dict(zip((0, 1), lohi([d2u(x) for x in d]))))
    with np.errstate(over="ignore"):
        ref = np.array(d, np.float64).astype(np.float16).view(np.uint16)
    for l in range(64):
        g = int(s.vgpr[0][l]) & 0xFFFF
        if math.isnan(d[l]):
            assert (g & 0x7C00) == 0x7C00 and g & 0x3FF, (l, hex(g))
        else:
            assert g == int(ref[l]), (l, d[l], hex(g), hex(int(ref[l])))
