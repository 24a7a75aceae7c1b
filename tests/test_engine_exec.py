"""EXEC is honoured everywhere, and the cross-lane operations (readlane, writelane,
readfirstlane, movrel*) follow the CLRX pseudo-code.

Every destination starts with a per-lane sentinel; with random partial EXEC masks, active
lanes must hold the independently computed result and inactive lanes their old value.
Compare masks must hold 0 for inactive lanes.
"""
import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from snippets import M32, M64, run, f2u, u2f, d2u

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def arr(vals):
    return np.array([v & M32 for v in vals], np.uint32)


def sentinel(reg):
    return [(0xDEAD0000 | (reg << 8) | l) for l in range(64)]


def bits(mask):
    return [(mask >> l) & 1 for l in range(64)]


def mask_of(flags):
    return sum(1 << l for l, x in enumerate(flags) if x)


exec_masks = st.one_of(st.sampled_from([0, 1, 1 << 63, 0xFFFFFFFF, M64 ^ 1, 0x5555555555555555]),
                       st.integers(0, M64))

# (asm, destination registers, reference(lane inputs) -> tuple of per-register values)
SHAPES = [
    ("v_not_b32 v10, v0", [10], lambda a, b, c, l: (~a & M32,)),                       # VOP1
    ("v_cvt_f64_u32 v[12:13], v0", [12, 13],                                            # VOP1 64-bit
     lambda a, b, c, l: (d2u(float(a)) & M32, d2u(float(a)) >> 32)),
    ("v_xor_b32 v14, v0, v1", [14], lambda a, b, c, l: (a ^ b,)),                        # VOP2
    ("v_xor_b32 v15, s6, v1", [15], lambda a, b, c, l: (0x0F0F0F0F ^ b,)),               # VOP2 sgpr
    ("v_bfi_b32 v16, v0, v1, v2", [16], lambda a, b, c, l: (((a & b) | (~a & c)) & M32,)),  # VOP3
    ("v_lshl_b64 v[18:19], v[0:1], v2", [18, 19],                                        # VOP3 64
     lambda a, b, c, l: (((a | b << 32) << (c & 63)) & M32, (((a | b << 32) << (c & 63)) >> 32) & M32)),
    ("v_mac_f32 v20, v3, v3", [20],                                                      # reads dst
     lambda a, b, c, l: None),
    ("v_cndmask_b32_e64 v21, v0, v1, s[4:5]", [21], lambda a, b, c, l: None),            # VOP3 mask
    ("v_add_f32_e64 v22, -|v3|, |v3|", [22], lambda a, b, c, l: (0,)),                   # VOP3 mods
    ("v_mbcnt_lo_u32_b32_e64 v23, -1, 0", [23], lambda a, b, c, l: (min(l, 32),)),
    ("v_mov_b32 v24, 0x12345678", [24], lambda a, b, c, l: (0x12345678,)),               # literal
]


@SETTINGS
@given(ex=exec_masks, seed=st.integers(0, 2**32))
def test_inactive_lanes_keep_their_values(ex, seed):
    rng = random.Random(seed)
    a, b, c = ([rng.getrandbits(32) for _ in range(64)] for _ in range(3))
    sel = rng.getrandbits(64)
    fv = [f2u(rng.uniform(-8, 8)) for _ in range(64)]
    vg = {0: arr(a), 1: arr(b), 2: arr(c), 3: arr(fv)}
    for _, regs, _ in SHAPES:
        for r in regs:
            vg[r] = arr(sentinel(r))
    src = "\n".join(s for s, _, _ in SHAPES) + """
    v_add_i32 v30, vcc, v0, v1
    s_mov_b64 s[20:21], vcc
    v_add_i32_e64 v31, s[22:23], v0, v1
    v_cmp_lt_u32 vcc, v0, v1
    s_mov_b64 s[24:25], vcc
    v_cmp_lt_u32_e64 s[26:27], v0, v1
    v_cmp_class_f32_e64 s[28:29], v3, s7
    """
    vg[30], vg[31] = arr(sentinel(30)), arr(sentinel(31))
    st = run(src, vgpr=vg, exec_mask=ex, vcc=M64,
             sgpr={4: sel & M32, 5: sel >> 32, 6: 0x0F0F0F0F, 7: 0x3FF, 20: 7, 22: 7})
    on = bits(ex)
    for asm, regs, ref in SHAPES:
        for l in range(64):
            if not on[l]:
                for r in regs:
                    assert int(st.vgpr[r][l]) == sentinel(r)[l], (asm, l)
                continue
            if asm.startswith("v_mac_f32"):
                # mad: the product rounded to f32, then the sum (numpy f32 arithmetic is IEEE)
                x = np.float32(u2f(fv[l]))
                acc = np.float32(u2f(sentinel(20)[l]))
                exp = (int(np.array([x * x + acc], np.float32).view(np.uint32)[0]),)
                assert int(st.vgpr[20][l]) == exp[0], (asm, l)
                continue
            if asm.startswith("v_cndmask"):
                exp = (b[l] if (sel >> l) & 1 else a[l],)
            else:
                exp = ref(a[l], b[l], c[l], l)
            for r, e in zip(regs, exp):
                assert int(st.vgpr[r][l]) == e & M32, (asm, l, hex(int(st.vgpr[r][l])), hex(e))
    carry = mask_of(on[l] and a[l] + b[l] > M32 for l in range(64))
    lt = mask_of(on[l] and a[l] < b[l] for l in range(64))
    sp = lambda i: int(st.sgpr[i]) | int(st.sgpr[i + 1]) << 32   # noqa: E731
    assert sp(20) == carry and sp(22) == carry
    assert sp(24) == lt and sp(26) == lt
    assert sp(28) == ex                  # class mask 0x3ff: every lane true, inactive 0
    for l in range(64):
        exp = (a[l] + b[l]) & M32 if on[l] else sentinel(30)[l]
        assert int(st.vgpr[30][l]) == exp
    assert st.exec == ex


@SETTINGS
@given(ex=exec_masks, seed=st.integers(0, 2**32))
def test_v_cmpx_updates_exec_and_later_ops_follow(ex, seed):
    rng = random.Random(seed)
    a, b = [rng.getrandbits(8) for _ in range(64)], [rng.getrandbits(8) for _ in range(64)]
    st = run("""
    v_cmpx_gt_u32 vcc, v0, v1
    s_mov_b64 s[10:11], exec
    s_mov_b64 s[12:13], vcc
    v_mov_b32 v10, 1
    v_cmpx_le_u32_e64 s[14:15], v0, v1      // all currently active lanes fail: EXEC = 0
    s_mov_b64 s[16:17], exec
    v_mov_b32 v11, 2
    """, vgpr={0: arr(a), 1: arr(b), 10: 0, 11: 0}, exec_mask=ex)
    gt = mask_of(((ex >> l) & 1) and a[l] > b[l] for l in range(64))
    assert int(st.sgpr[10]) | int(st.sgpr[11]) << 32 == gt
    assert int(st.sgpr[12]) | int(st.sgpr[13]) << 32 == gt
    assert [int(x) for x in st.vgpr[10]] == bits(gt)
    assert int(st.sgpr[14]) | int(st.sgpr[15]) << 32 == 0
    assert int(st.sgpr[16]) | int(st.sgpr[17]) << 32 == 0 and st.exec == 0
    assert not st.vgpr[11].any()


def test_if_else_with_saveexec_and_execz_branches():
    src = """
    v_cmp_lt_u32 vcc, v0, 32              // lanes 0..31 (of those active)
    s_and_saveexec_b64 s[10:11], vcc
    s_cbranch_execz ELSE
    v_mov_b32 v1, 1
ELSE:
    s_xor_b64 exec, exec, s[10:11]        // the other active lanes
    s_cbranch_execz END
    v_mov_b32 v1, 2
END:
    s_or_b64 exec, exec, s[10:11]
    s_cbranch_vccz NOVCC
    v_add_i32 v2, vcc, 1, v2
NOVCC:
    """
    lane_ids = np.arange(64, dtype=np.uint32)
    for ex in (M64, 0xFFFFFFFF, 0xFFFFFFFF00000000, 0x8000000000000001, 0):
        st = run(src, vgpr={0: lane_ids, 1: 0, 2: 100}, exec_mask=ex)
        for l in range(64):
            on = (ex >> l) & 1
            exp = 0 if not on else (1 if l < 32 else 2)
            assert st.vgpr[1][l] == exp, (hex(ex), l)
            # v_cmp_lt set VCC for lanes <32 only; the final add runs if VCC != 0
            vcc_nonzero = (ex & 0xFFFFFFFF) != 0
            assert st.vgpr[2][l] == (101 if on and vcc_nonzero else 100), (hex(ex), l)
        assert st.exec == ex


def test_valu_with_exec_zero_changes_nothing():
    st = run("v_mov_b32 v0, 5\nv_add_i32 v1, vcc, v0, v0\nv_cmp_eq_u32 vcc, v0, v0",
             vgpr={0: 9, 1: 9}, exec_mask=0, vcc=0xFFFF)
    assert (st.vgpr[0] == 9).all() and (st.vgpr[1] == 9).all()
    assert st.vcc == 0     # compares write 0 for every inactive lane


# --- cross-lane ---------------------------------------------------------------------------
def test_readlane_writelane_ignore_exec():
    vals = [(l * 0x01010101 + 7) & M32 for l in range(64)]
    st = run("""
    v_readlane_b32 s10, v0, 5
    v_readlane_b32 s11, v0, s2            // lane s2 & 63
    v_readlane_b32 s12, v0, m0
    v_writelane_b32 v1, s3, 7
    v_writelane_b32 v1, s3, 40
    v_readlane_b32_e64 s13, v0, 63
    """, vgpr={0: arr(vals), 1: arr(sentinel(1))}, sgpr={2: 64 + 40, 3: 0xCAFE}, m0=33,
        exec_mask=1 << 20)
    assert st.sgpr[10] == vals[5] and st.sgpr[11] == vals[40] and st.sgpr[12] == vals[33]
    assert st.sgpr[13] == vals[63]
    exp = sentinel(1)
    exp[7] = exp[40] = 0xCAFE
    assert [int(x) for x in st.vgpr[1]] == exp


@pytest.mark.parametrize("ex", [M64, 0xF0, 1 << 63, 0])
def test_readfirstlane(ex):
    vals = [(0xA000 + l) for l in range(64)]
    st = run("v_readfirstlane_b32 s10, v0", vgpr={0: arr(vals)}, exec_mask=ex)
    first = next((l for l in range(64) if (ex >> l) & 1), 0)
    assert st.sgpr[10] == vals[first]


@pytest.mark.parametrize("m0", [0, 1, 5])
def test_v_movrels_movreld_movrelsd(m0):
    ex = 0x00FF00FF00FF00FF
    vg = {r: arr([(r << 16) | l for l in range(64)]) for r in range(0, 40)}
    st = run("""
    v_movrels_b32 v35, v10          // v35 = v[10+m0]
    v_movreld_b32 v20, v1           // v[20+m0] = v1
    v_movrelsd_b32 v25, v12         // v[25+m0] = v[12+m0]
    """, vgpr=vg, m0=m0, exec_mask=ex)
    on = bits(ex)

    def exp_reg(r, src_reg):
        return [((src_reg << 16) | l) if on[l] else ((r << 16) | l) for l in range(64)]
    assert [int(x) for x in st.vgpr[35]] == exp_reg(35, 10 + m0)
    assert [int(x) for x in st.vgpr[20 + m0]] == exp_reg(20 + m0, 1)
    assert [int(x) for x in st.vgpr[25 + m0]] == exp_reg(25 + m0, 12 + m0)
    if m0:
        assert [int(x) for x in st.vgpr[20]] == [(20 << 16) | l for l in range(64)]
