"""The basic-block JIT (gcnemu/exec/blockjit.py): a run of SALU and 32-bit VALU rows compiled
into one native function must leave exactly the state the row-by-row path leaves.

The reference is the engine's row-by-row path (the 32-bit row kernels and inline SALU forms,
verified against numpy and exact arithmetic in test_valu_row32.py, test_engine_valu_*.py and
test_sem_*.py): the same random programs run once decoded with blocks and once without, on
random operands that include denormals, NaNs, infinities and signed zeros, under partial EXEC
masks and every f32 MODE (denormals flushed or kept, each rounding mode). The decline
condition is checked on its own: a block must give up, storing nothing, exactly where a row
kernel would leave its plain host form.
"""
from __future__ import annotations

import contextlib
import ctypes
from pathlib import Path

import numpy as np
import pytest

import gcnemu
from gcnemu.exec import blockjit
from gcnemu.exec import layout as L
from gcnemu.exec.program import build_program
from gcnemu.isa.assembler import assemble
from gcnemu.isa.decoder import decode
from gcnemu.snippet import run_snippet
from test_sanitizer import _PROLOGUE

#: clang's MODE (RNE, f32 denormals flushed), f32 denormals kept, round toward +inf, toward 0
MODES = (0x3C0, 0x3F0, 0x3C1, 0x3C3)
#: f32 bit patterns a lane may hold besides moderate normals: zeros, denormals and tiny normals
#: whose products underflow (no NaN: the denormal keys alone decide), or infinities, NaNs
#: (quiet, signalling, negative) and huge values whose sums overflow (no denormal)
SPECIAL = {"denormal": [0, 0x80000000, 1, 0x807FFFFF, 0x00400000, 0x00800000, 0x1F800000,
                        0x9F800000, 0x00800001],
           "nan": [0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC01234, 0x7F7FFFFF,
                   0, 0x80000000]}
M32 = 0xFFFFFFFF
V = 6   # VGPRs v0..v5 the programs use (few: operands often alias, e.g. v_sub_i32 v1, v2, v2)


def _f32_ops(rng):
    d, a, b, c = (f"v{i}" for i in rng.integers(0, V, 4))
    return rng.choice([
        f"v_add_f32 {d}, {a}, {b}", f"v_sub_f32 {d}, {a}, {b}", f"v_subrev_f32 {d}, {a}, {b}",
        f"v_mul_f32 {d}, {a}, {b}", f"v_mac_f32 {d}, {a}, {b}", f"v_mad_f32 {d}, {a}, {b}, {c}",
        f"v_fma_f32 {d}, {a}, {b}, {c}", f"v_mad_f32 {d}, -{a}, |{b}|, {c}",
        f"v_fma_f32 {d}, {a}, -{b}, 1.0", f"v_add_f32 {d}, s4, {a}", f"v_mul_f32 {d}, 0.5, {a}",
        f"v_madak_f32 {d}, {a}, {b}, 0x3e800000", f"v_madmk_f32 {d}, {a}, 0x40400000, {b}",
        f"v_cmp_lt_f32 vcc, {a}, {b}", f"v_cmp_nlt_f32_e64 s[8:9], 4.0, {a}",
        f"v_cmp_u_f32 vcc, {a}, {b}", f"v_cmp_neq_f32_e64 s[10:11], {a}, {b}",
        f"v_cmpx_gt_f32 vcc, {a}, {b}", f"v_cndmask_b32 {d}, {a}, {b}, vcc"])


def _int_ops(rng):
    d, a, b = (f"v{i}" for i in rng.integers(0, V, 3))
    return rng.choice([
        f"v_add_i32 {d}, vcc, {a}, {b}", f"v_sub_i32 {d}, vcc, {a}, {b}",
        f"v_subrev_i32 {d}, vcc, {a}, {b}", f"v_addc_u32 {d}, vcc, {a}, {b}, vcc",
        f"v_subb_u32 {d}, vcc, {a}, {b}, vcc", f"v_subbrev_u32 {d}, vcc, {a}, {b}, vcc",
        f"v_add_i32_e64 {d}, s[12:13], 1, {a}", f"v_cndmask_b32_e64 {d}, {a}, {b}, s[8:9]",
        f"v_and_b32 {d}, {a}, {b}", f"v_or_b32 {d}, s5, {a}", f"v_xor_b32 {d}, {a}, {b}",
        f"v_not_b32 {d}, {a}", f"v_mov_b32 {d}, {a}", f"v_mov_b32 {d}, s4",
        f"v_lshlrev_b32 {d}, {a}, {b}", f"v_lshrrev_b32 {d}, 3, {a}",
        f"v_ashrrev_i32 {d}, {a}, {b}", f"v_lshl_b32 {d}, {a}, {b}", f"v_lshr_b32 {d}, {a}, {b}",
        f"v_ashr_i32 {d}, {a}, {b}", f"v_mul_lo_u32 {d}, {a}, {b}", f"v_mul_hi_u32 {d}, {a}, {b}",
        f"v_mul_hi_i32 {d}, {a}, {b}", f"v_mul_lo_i32 {d}, {a}, {b}",
        f"v_mul_u32_u24 {d}, {a}, {b}", f"v_mul_i32_i24 {d}, {a}, {b}",
        f"v_min_u32 {d}, {a}, {b}", f"v_max_i32 {d}, {a}, {b}", f"v_min_i32 {d}, {a}, {b}",
        f"v_max_u32 {d}, {a}, {b}", f"v_cmp_gt_u32 vcc, s6, {a}",
        f"v_cmp_lt_i32_e64 s[10:11], {a}, {b}", f"v_cmp_ne_u32 vcc, 0, {a}",
        f"v_cmpx_eq_u32 vcc, {a}, {b}"])


def _salu_ops(rng):
    return rng.choice([
        "s_or_b64 s[8:9], s[8:9], exec", "s_and_b64 s[10:11], vcc, exec",
        "s_andn2_b64 s[12:13], s[10:11], exec", "s_and_saveexec_b64 s[14:15], vcc",
        "s_or_b64 exec, exec, s[14:15]", "s_xor_b64 s[8:9], s[8:9], s[10:11]",
        "s_mov_b64 s[12:13], -1", "s_orn2_b64 s[10:11], vcc, exec", "s_add_i32 s4, s4, 0x3f800000",
        "s_mov_b32 s5, 0x12345", "s_lshl_b32 s6, s6, 1", "s_cmp_eq_u32 s6, 8",
        "s_not_b32 s5, s5", "s_nop 0", "s_xor_saveexec_b64 s[14:15], s[8:9]",
        "s_cselect_b32 s5, s6, 7", "s_addc_u32 s6, s6, 0xffffffff", "s_cmp_lg_u32 s5, 0",
        "s_bfe_u32 s5, s5, 0x80004", "s_mov_b64 vcc, s[10:11]", "s_waitcnt 0",
        # MODE inside a block: f32 denormals (clang's division), rounding (the f32 rows
        # after it decline, or run where it sets nearest-even), and MODE[31:28] with the
        # fork/join stack pointer (not in a block)
        "s_setreg_b32 hwreg(HW_REG_MODE, 4, 2), s6",
        "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 0",
        "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 1), 1",
        "s_setreg_b32 hwreg(HW_REG_MODE, 28, 4), s6"])


def _program(rng, n):
    lines = []
    for _ in range(n):
        kind = rng.integers(0, 10)
        lines.append(str(_f32_ops(rng) if kind < 5 else _int_ops(rng) if kind < 8 else
                         _salu_ops(rng)))
    # the masks must not stay empty: every program starts from the caller's EXEC
    return "\n".join(lines + ["s_endpgm"])


#: block forms checked in this process: every block over all 64 lanes at once, and every block
#: a chunk at a time in the width of this CPU (blockjit.chunk_lanes: 32 with AVX-512, 16 with
#: AVX2; test_avx2_blocks_give_the_same_bits runs the checks below with AVX2 code)
WIDTHS = (64, blockjit.chunk_lanes())


@contextlib.contextmanager
def _blocks(enabled: bool):
    """blockjit.ENABLED is ``enabled`` while the body loads or decodes (restored after)."""
    saved = blockjit.ENABLED
    blockjit.ENABLED = enabled
    try:
        yield
    finally:
        blockjit.ENABLED = saved


def _build(text: str, blocks: bool, width: int | None = None):
    """The program decoded with or without blocks; ``width``: every block (however short) as
    chunks of that many lanes (64: in one pass). Translated, never read from the disk cache
    (tests/test_blockjit_cache.py tests that): these tests count the forms translated."""
    saved = (blockjit.ENABLED, blockjit.CHUNK_LANES, blockjit.MIN_CHUNKED_FLOAT,
             blockjit.DISK_CACHE)
    blockjit.ENABLED, blockjit.DISK_CACHE = blocks, "0"
    if width is not None:
        blockjit.CHUNK_LANES, blockjit.MIN_CHUNKED_FLOAT = width, 0
    try:
        return build_program(decode(assemble(text)))
    finally:
        (blockjit.ENABLED, blockjit.CHUNK_LANES, blockjit.MIN_CHUNKED_FLOAT,
         blockjit.DISK_CACHE) = saved


def _operands(rng, kind: str):
    v = rng.uniform(-3, 3, (V, 64)).astype(np.float32).view(np.uint32)
    same = rng.random(64) < 0.15           # lanes where v1 = v0: equal operands, carries, borrows
    v[1, same] = v[0, same]
    if kind != "normal":
        idx = rng.random((V, 64)) < 0.03
        v[idx] = rng.choice(np.array(SPECIAL[kind], np.uint32), int(idx.sum()))
    return v


def _state(prog, vg, exec_mask, mode, sgpr):
    s = run_snippet(prog, vgpr={i: vg[i] for i in range(V)}, exec_mask=exec_mask, mode=mode,
                    vcc=VCC, sgpr=sgpr, scc=1)
    return (s.vgpr[:V].copy(), s.sgpr.copy(), s.exec, s.vcc, s.scc, s.instructions, s.status,
            s.mode)


def _direct(prog, vg, exec_mask, mode, sgpr):
    """The state after calling the program's one block directly (its rows are all the
    program's but the s_endpgm), or None where it declined."""
    sg = np.zeros(128, np.uint32)
    for k, x in sgpr.items():
        sg[k] = x
    sg[L.VCC_LO], sg[L.VCC_HI] = VCC & 0xFFFFFFFF, VCC >> 32
    r, v, sg = _call_block(prog, vg, exec_mask, mode, sg, scc=1)
    if r < 0:
        return None
    # MODE[28:0] after: returned where the block has an s_setreg of MODE (bit 16)
    mode_after = (r >> 17 if (r >> 16) & 1 else mode) & 0x1FFFFFFF
    return v, sg[:104], int(sg[L.EXEC_LO]) | int(sg[L.EXEC_HI]) << 32, \
        int(sg[L.VCC_LO]) | int(sg[L.VCC_HI]) << 32, r & 1, mode_after


VCC = 0x0F0F_3333_5555_AAAA


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["normal", "denormal", "nan"])
def test_random_blocks_match_row_by_row(mode, kind):
    rng = np.random.default_rng([mode, len(kind)])
    ran = 0
    chunked = blockjit.FORMS["chunked"]
    for trial in range(8):
        text = _program(rng, int(rng.integers(4, 14)))
        with_blocks = _build(text, True, WIDTHS[trial % len(WIDTHS)])
        without = _build(text, False)
        assert not without.code[:, L.C_BLK].any()
        vg = _operands(rng, kind)
        exec_mask = [0xFFFF_FFFF_FFFF_FFFF, int(rng.integers(1, 2 ** 63)) | 1 << 63,
                     0x0000_0000_FFFF_0001][trial % 3]
        sgpr = {4: int(rng.choice(SPECIAL[kind])) if kind != "normal" else 0x3FC00000,
                5: 0xF0F0_1234, 6: int(rng.integers(0, 40)), 8: 0xFFFF0000, 9: 0x0000FFFF}
        got = _state(with_blocks, vg, exec_mask, mode, sgpr)
        want = _state(without, vg, exec_mask, mode, sgpr)
        for g, w, what in zip(got, want, ("vgpr", "sgpr", "exec", "vcc", "scc", "insts", "st",
                                          "mode")):
            assert np.array_equal(g, w), f"{what} differs for\n{text}\nexec {exec_mask:#x}"
        # the block function itself, called directly: the same state, or declined
        if with_blocks.code[0, L.C_BLEN] == with_blocks.code.shape[0] - 1:
            direct = _direct(with_blocks, vg, exec_mask, mode, sgpr)
            if direct is not None:
                ran += 1
                for g, w, what in zip(direct, want, ("vgpr", "sgpr", "exec", "vcc", "scc")):
                    assert np.array_equal(g, w), f"direct call: {what} differs for\n{text}"
                assert direct[5] == want[7] & 0x1FFFFFFF, f"direct call: MODE for\n{text}"
    # blocks decline only for what the row kernels' plain forms decline: with moderate
    # operands under round-to-nearest most run
    if kind == "normal" and mode & 3 == 0:
        assert ran >= 4
    # most random programs read no lane mask whole: they ran as chunks
    assert blockjit.FORMS["chunked"] >= chunked + 2


@pytest.mark.parametrize("kind", ["normal", "denormal", "nan"])
def test_long_random_blocks_unscheduled_match_row_by_row(kind):
    """A block of UNSCHEDULED_FLOAT f32 rows or more is compiled in a module of its own,
    without LLVM's machine scheduler (x86-64; blockjit._unscheduled): the row-by-row bits,
    chunked and in one pass, beside a short block compiled with it."""
    rng = np.random.default_rng([15, len(kind)])
    lines = [str(_f32_ops(rng)) for _ in range(40)]
    # a branch over a short block, whose target starts another block
    text = "\n".join(lines + ["s_cbranch_scc0 BB1", "v_mul_f32 v1, v0, v2",
                              "v_add_f32 v2, v1, v3", "BB1:", "v_sub_f32 v3, v2, v1",
                              "v_mov_b32 v4, v3", "s_endpgm"])
    without = _build(text, False)
    names = [i.name for i in without.instructions]
    blocks = blockjit.find_blocks(without.code, names)
    assert [n for _s, n in blocks] == [40, 2, 2]
    assert blockjit._unscheduled(without.code, names, blocks) == \
        ([0] if blockjit.UNSCHEDULED_OK else [])
    vg = _operands(rng, kind)
    sgpr = {4: 0x3FC00000, 5: 0xF0F0_1234, 6: 3, 8: 0xFFFF0000, 9: 0x0000FFFF}
    for exec_mask in (0xFFFF_FFFF_FFFF_FFFF, int(rng.integers(1, 2 ** 63)) | 1 << 63):
        want = _state(without, vg, exec_mask, 0x3C0, sgpr)
        for width in WIDTHS:
            prog = _build(text, True, width)
            got = _state(prog, vg, exec_mask, 0x3C0, sgpr)
            for g, w, what in zip(got, want, ("vgpr", "sgpr", "exec", "vcc", "scc", "insts",
                                              "st", "mode")):
                assert np.array_equal(g, w), f"{what} differs ({width} lanes) for\n{text}"
            # moderate operands: the long block runs (the bits above are its own)
            sg = np.zeros(128, np.uint32)
            sg[4] = sgpr[4]
            assert (_call_block(prog, vg, exec_mask, 0x3C0, sg)[0] >= 0) == (kind == "normal")


#: every VALU form a block translates, once each (VOP2/VOPC with VCC, VOP3 with an SGPR pair)
EACH_OP = [
    "v_add_f32 v2, v0, v1", "v_sub_f32 v2, v0, v1", "v_subrev_f32 v2, v0, v1",
    "v_mul_f32 v2, v0, v1", "v_mac_f32 v2, v0, v1", "v_mad_f32 v2, v0, v1, v3",
    "v_fma_f32 v2, v0, v1, v3", "v_madak_f32 v2, v0, v1, 0x3e800000",
    "v_madmk_f32 v2, v0, 0x40400000, v1", "v_mad_f32 v2, -v0, |v1|, -v3",
    "v_cndmask_b32 v2, v0, v1, vcc", "v_cndmask_b32_e64 v2, v0, v1, s[8:9]",
    "v_add_i32 v2, vcc, v0, v1", "v_sub_i32 v2, vcc, v0, v1", "v_subrev_i32 v2, vcc, v0, v1",
    "v_addc_u32 v2, vcc, v0, v1, vcc", "v_subb_u32 v2, vcc, v0, v1, vcc",
    "v_subbrev_u32 v2, vcc, v0, v1, vcc", "v_add_i32_e64 v2, s[10:11], v0, v1",
    "v_addc_u32_e64 v2, s[10:11], v0, v1, s[8:9]", "v_and_b32 v2, v0, v1",
    "v_or_b32 v2, v0, v1", "v_xor_b32 v2, v0, v1", "v_not_b32 v2, v0", "v_mov_b32 v2, v0",
    "v_lshl_b32 v2, v0, v1", "v_lshlrev_b32 v2, v0, v1", "v_lshr_b32 v2, v0, v1",
    "v_lshrrev_b32 v2, v0, v1", "v_ashr_i32 v2, v0, v1", "v_ashrrev_i32 v2, v0, v1",
    "v_mul_lo_u32 v2, v0, v1", "v_mul_lo_i32 v2, v0, v1", "v_mul_hi_u32 v2, v0, v1",
    "v_mul_hi_i32 v2, v0, v1", "v_mul_u32_u24 v2, v0, v1", "v_mul_i32_i24 v2, v0, v1",
    "v_min_u32 v2, v0, v1", "v_max_u32 v2, v0, v1", "v_min_i32 v2, v0, v1",
    "v_max_i32 v2, v0, v1", "v_mad_u32_u24 v2, v0, v1, v3", "v_mad_i32_i24 v2, v0, v1, v3",
    "v_bfe_u32 v2, v0, v1, v3", "v_bfe_u32 v2, v0, 8, 8", "v_bfi_b32 v2, v0, v1, v3",
    "v_alignbit_b32 v2, v0, v1, v3", "v_rcp_f32 v2, v0", "v_sqrt_f32 v2, v0", "v_rsq_f32 v2, v0",
    "v_rsq_f32 v2, |v0|", "v_div_scale_f32 v2, vcc, v0, v1, v3",
    "v_div_scale_f32 v2, s[10:11], v1, v1, 1.0", "v_div_fixup_f32 v2, v0, v1, v3",
    "v_div_fmas_f32 v2, v0, v1, v3", "v_fma_f32 v2, -v0, v1, 1.0"] + \
    [f"v_cmp_{p}_f32 vcc, v0, v1" for p in ("f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u",
                                             "nge", "nlg", "ngt", "nle", "neq", "nlt", "tru")] + \
    [f"v_cmp_{p}_{t}_e64 s[10:11], v0, v1" for t in ("i32", "u32")
     for p in ("f", "lt", "eq", "le", "gt", "ne", "ge", "t")] + \
    ["v_cmpx_lt_f32 vcc, v0, v1", "v_cmpx_ne_u32 vcc, v0, v1"]
#: lanes 0..2 of v0 / v1 in the 'nan' case: NaNs that only the operation makes (inf - inf,
#: inf * 0), where the host's default NaN differs from the hardware's
_INVALID = [(0x7F800000, 0xFF800000), (0x7F800000, 0), (0xFF800000, 0xFF800000)]


@pytest.mark.parametrize("op", EACH_OP)
def test_each_op_matches_row_by_row(op):
    # v_div_fmas_f32 takes its plain form only where no active lane has VCC set: s[12:13]
    # clears VCC on the first EXEC mask of each case below, not on the second. The s_nop
    # count tells the widths' programs apart (a program decoded again reuses its blocks).
    first = "s_and_b64 vcc, vcc, s[12:13]" if "div_fmas" in op else "s_nop 0"
    text = f"{first}\n{op}\ns_nop {{}}\ns_endpgm"
    forms = [_build(text.format(j), True, w) for j, w in enumerate(WIDTHS)]
    without = _build(text.format(0), False)
    assert all(f.code[0, L.C_BLEN] == 3 for f in forms)
    rng = np.random.default_rng(list(op.encode()))
    ran = 0
    for kind in ("normal", "denormal", "nan"):
        for mode in (0x3C0, 0x3F0):
            vg = _operands(rng, kind)
            if kind == "nan":
                vg[0, :3], vg[1, :3] = zip(*_INVALID)
            if kind == "normal" and mode == 0x3C0:
                vg[0] = rng.integers(0, 2 ** 32, 64, dtype=np.uint64).astype(np.uint32)
                vg[0, :16] = vg[1, :16]          # equal operands: compares, borrows
            if kind == "normal" and ("sqrt" in op or "rsq" in op):
                vg[0] &= 0x7FFFFFFF              # a negative operand's NaN makes the op decline
            for j, exec_mask in enumerate((0xFFFF_FFFF_FFFF_FFFF, 0x8000_0F0F_F0F0_0001)):
                sgpr = {8: 0xFFFF0000, 9: 0x0000FFFF, 12: -j & M32, 13: -j & M32}
                want = _state(without, vg, exec_mask, mode, sgpr)
                for width, with_blocks in zip(WIDTHS, forms):
                    got = _state(with_blocks, vg, exec_mask, mode, sgpr)
                    for g, w, what in zip(got, want, ("vgpr", "sgpr", "exec", "vcc", "scc")):
                        assert np.array_equal(g, w), \
                            f"{what} differs ({kind}, mode {mode:#x}, {width} lanes a chunk)"
                    direct = _direct(with_blocks, vg, exec_mask, mode, sgpr)
                    if direct is not None:
                        ran += 1
                        for g, w, what in zip(direct, want, ("vgpr", "sgpr", "exec", "vcc",
                                                             "scc")):
                            assert np.array_equal(g, w), \
                                f"direct: {what} differs ({kind}, {mode:#x}, {width} lanes)"
    assert ran >= 2 * len(WIDTHS)


def _call_block(prog, vg, exec_mask, mode, sg=None, scc=0):
    """Call the program's first block directly: (return value, VGPRs, SGPRs after)."""
    vg = np.array(vg, np.uint32)
    sg = np.zeros(128, np.uint32) if sg is None else sg.copy()
    sg[L.EXEC_LO], sg[L.EXEC_HI] = exec_mask & 0xFFFFFFFF, exec_mask >> 32
    fn = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p,
                          ctypes.c_int64, ctypes.c_int64)(int(prog.code[0, L.C_BLK]))
    r = fn(vg.ctypes.data - 256 * vg.strides[0], vg.strides[0], sg.ctypes.data, scc, mode)
    return r, vg, sg


@pytest.mark.parametrize("op", ["v_add_f32 v2, v0, v1", "v_mul_f32 v2, v0, v1",
                                "v_mad_f32 v2, v0, v1, v0", "v_cmp_lt_f32 vcc, v0, v1"])
def test_block_declines_where_the_row_kernel_leaves_its_plain_form(op):
    prog = _build(f"v_mov_b32 v3, v0\n{op}\ns_endpgm", True)
    assert prog.code[0, L.C_BLK] != 0 and prog.code[0, L.C_BLEN] == 2
    base = np.zeros((4, 64), np.uint32)
    base[0] = np.float32(1.5).view(np.uint32)
    base[1] = np.float32(-2.25).view(np.uint32)
    r, vg, sg = _call_block(prog, base, 0xFFFF_FFFF_FFFF_FFFF, 0x3C0)
    assert r >= 0 and r >> 1 == 128           # two VALU rows, 64 lanes each
    assert (vg[3] == base[0]).all()
    # a denormal in one lane, a NaN operand, a result that underflows to a denormal: nothing
    # stored, -1
    cases = [(0, 7, 0x00000001, 0xFFFF_FFFF_FFFF_FFFF), (1, 0, 0x7FC00000, ~0 & (2 ** 64 - 1)),
             (1, 9, 0x807FFFFF, 0xFFFF_FFFF_FFFF_FFFF),     # the largest denormal: absorbed

             (0, 5, 0x00800001, 0xFFFF_FFFF_FFFF_FFFF)]
    for row, lane, value, ex in cases:
        v = base.copy()
        v[row, lane] = value
        if value == 0x00800001:          # 1.17e-38 * 0.25 or + (-1.17e-38 * 1.0001): denormal
            v[1, lane] = np.float32(0.25).view(np.uint32) if "mul" in op or "mad" in op \
                else np.uint32(0x80800000)
            if "cmp" in op:
                continue                 # a compare looks only at its operands
        r, vg, sg = _call_block(prog, v, ex, 0x3C0)
        assert r == -1, (op, row, lane, hex(value))
        assert (vg == v).all() and sg[L.VCC_LO] == 0
    # the same denormal in a lane EXEC leaves out: a block that writes no EXEC looks at the
    # active lanes only (its merges are at its end), and gives the row-by-row bits
    v = base.copy()
    v[0, 7] = 1
    r, vg, sg = _call_block(prog, v, 0xFFFF_FFFF_FFFF_FF7F, 0x3C0)
    assert r >= 0
    want = _state(_build(f"v_mov_b32 v3, v0\n{op}\ns_endpgm", False), np.vstack(
        [v, np.zeros((V - 4, 64), np.uint32)]), 0xFFFF_FFFF_FFFF_FF7F, 0x3C0, {})
    assert np.array_equal(vg, want[0][:4])
    # f32 arithmetic under a rounding mode other than nearest-even: declined
    r, vg, sg = _call_block(prog, base, 0xFFFF_FFFF_FFFF_FFFF, 0x3C1)
    assert (r == -1) == ("cmp" not in op)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("op", ["v_add_f32 v2, s4, v0", "v_mul_f32_e64 v2, -|s4|, v0",
                                "v_cmp_lt_f32_e64 s[8:9], v0, s4"])
def test_an_sgpr_operand_is_checked_as_its_one_value(op, width):
    """An SGPR operand is one value in every lane, checked once as a scalar: the block
    declines (-1, nothing stored) for a denormal or, read by a compare, a NaN, with abs/neg
    applied, chunked or in one pass; a normal value runs, with the row-by-row bits."""
    text = (f"v_mov_b32 v3, v0\n{op}\nv_mul_f32 v4, v0, v1\nv_add_f32 v5, v1, v1\n"
            f"v_sub_f32 v1, v0, v1\nv_mul_f32 v3, v3, v0\ns_endpgm")
    prog = _build(text, True, width)
    assert prog.code[0, L.C_BLEN] == 6
    vg = np.zeros((V, 64), np.uint32)
    vg[0] = np.float32(1.5).view(np.uint32)
    vg[1] = np.float32(-2.25).view(np.uint32)
    want = _state(_build(text, False), vg, 0xFFFF_FFFF_FFFF_FFFF, 0x3C0, {4: 0x40200000})
    got = _direct(prog, vg, 0xFFFF_FFFF_FFFF_FFFF, 0x3C0, {4: 0x40200000})     # 2.5
    assert got is not None
    for g, w, what in zip(got, want, ("vgpr", "sgpr", "exec", "vcc", "scc")):
        assert np.array_equal(g, w), what
    odd = [0x00000001, 0x807FFFFF] + ([0x7FC00000, 0xFF800001] if "cmp" in op else [])
    for value in odd:
        r, v, sg = _call_block(prog, vg, 0xFFFF_FFFF_FFFF_FFFF, 0x3C0,
                               np.array([value if i == 4 else 0 for i in range(128)],
                                        np.uint32))
        assert r == -1, (op, hex(value))
        assert (v == vg).all() and not sg[8:10].any()


@pytest.mark.parametrize("op", ["v_add_f32 v2, {k}, v0", "v_cmp_lt_f32 vcc, {k}, v0"])
def test_a_constant_operand_is_checked_when_the_block_is_made(op):
    """A literal operand is known when the block is made: a denormal one (or, read by a
    compare, a NaN) makes the block decline whatever the lanes hold; a normal one costs
    nothing and the block runs."""
    for lit, runs in ((0x3F800000, True), (0x00000001, False), (0x807FFFFF, False),
                      (0x7FC00000, False)):      # v_add_f32: its NaN sum is checked
        text = f"v_mov_b32 v3, v0\n{op.format(k=hex(lit))}\ns_endpgm"
        prog = _build(text, True)
        assert prog.code[0, L.C_BLEN] == 2
        vg = np.zeros((V, 64), np.uint32)
        vg[0] = np.float32(1.5).view(np.uint32)
        got = _direct(prog, vg, 0xFFFF_FFFF_FFFF_FFFF, 0x3C0, {})
        assert (got is not None) == runs, hex(lit)
        if runs:
            want = _state(_build(text, False), vg, 0xFFFF_FFFF_FFFF_FFFF, 0x3C0, {})
            for g, w, what in zip(got, want, ("vgpr", "sgpr", "exec", "vcc", "scc")):
                assert np.array_equal(g, w), what


@pytest.mark.parametrize("text, checked", [
    # v2's first value is read only by a multiply and then written again: its NaN lanes
    # reach the multiply's result, which the block stores
    ("v_sub_f32 v2, v0, v1\nv_mul_f32 v2, v2, v1\nv_add_f32 v3, v2, v1", {2, 3}),
    # read by v_cndmask (a NaN passes through an integer op unchanged), then overwritten
    ("v_sub_f32 v2, v0, v1\nv_cndmask_b32 v3, v1, v2, vcc\nv_mov_b32 v2, 0", {1}),
    # overwritten after EXEC changed: lanes outside the new EXEC keep the first value
    ("v_sub_f32 v2, v0, v1\nv_cmpx_lt_f32 vcc, v1, v0\nv_mul_f32 v2, v2, v1", {1, 3})])
def test_a_nan_row_without_a_check_of_its_own_still_makes_the_block_decline(text, checked):
    """Only the f32 rows whose NaN lanes could reach the stored state unchanged (or through an
    integer op, or lanes a later write keeps) fold a NaN key of their own; the others' NaNs
    reach a checked row's result. inf - inf in one active lane (the host's default NaN
    differs from the hardware's): declined, and the row-by-row bits."""
    prog = _build(f"s_nop 0\n{text}\ns_endpgm", True, WIDTHS[-1])
    names = [i.name for i in prog.instructions]
    n = int(prog.code[0, L.C_BLEN])
    assert n == prog.code.shape[0] - 1
    assert blockjit._nan_checked_rows(prog.code, names, 0, n) == checked
    without = _build(f"s_nop 0\n{text}\ns_endpgm", False)
    vg = np.zeros((V, 64), np.uint32)
    vg[0] = np.float32(3.0).view(np.uint32)
    vg[1] = np.float32(1.5).view(np.uint32)
    assert _direct(prog, vg, 0xFFFF_FFFF_FFFF_FFFF, 0x3C0, {}) is not None
    vg[0, 9], vg[1, 9] = 0x7F800000, 0x7F800000      # inf - inf in lane 9
    assert _direct(prog, vg, 0xFFFF_FFFF_FFFF_FFFF, 0x3C0, {}) is None
    want = _state(without, vg, 0xFFFF_FFFF_FFFF_FFFF, 0x3C0, {})
    got = _state(prog, vg, 0xFFFF_FFFF_FFFF_FFFF, 0x3C0, {})
    for g, w in zip(got, want):
        assert np.array_equal(g, w)


def test_avx2_blocks_give_the_same_bits():
    """The chunked blocks of AVX2 code (16 lanes a chunk, blockjit.chunk_lanes): the random
    programs, the lane-mask programs and the f32 rows of EACH_OP, in a child whose numba
    targets AVX2 (as tests/test_portable_codegen.py does, sharing its cache). Skipped where
    the host has no AVX-512: this process's checks then ran those chunks already."""
    import os
    import subprocess
    import sys
    import llvmlite.binding as ll
    feats = ll.get_host_cpu_features().flatten().split(",")
    if "+avx512f" not in feats:
        pytest.skip("the host's own code is the AVX2 path")
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, NUMBA_CPU_NAME="znver3", PYTHONPATH=str(root),
               NUMBA_CPU_FEATURES=",".join("-" + f[1:] if f.startswith("+avx512") else f
                                           for f in feats),
               NUMBA_CACHE_DIR=str(root / "gcnemu" / "__pycache__" / "avx2-codegen"))
    env.pop("NUMBA_DISABLE_JIT", None)
    floats = [op.split()[0] for op in EACH_OP if "_f32" in op and "cmp" not in op]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", __file__, "-q", "-p", "no:cacheprovider", "-n", "0",
         "-k", "random_blocks or lane_masks or lds_blocks or lds_rows or "
         + " or ".join(sorted(set(floats)))],
        cwd=root, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout


def test_blocks_of_a_corpus_kernel_and_its_counters():
    """mandelbrot's loop is made of blocks; a dispatch gives the same buffer and the same
    instruction, VALU and active-lane counts with and without them."""
    from kernels import corpus
    path = str(corpus.hsaco_path("mandelbrot"))
    reports = []
    for blocks in (True, False):
        with _blocks(blocks):
            kernel = gcnemu.load(path).kernel("mandelbrot")
        nblocks = int((kernel.program.code[:, L.C_BLK] != 0).sum())
        assert nblocks >= 5 if blocks else nblocks == 0
        gpu = gcnemu.GPU()
        out = gpu.empty(64 * 16, np.uint32)
        rep = gpu.dispatch(kernel, grid=(64, 16), block=(64, 1),
                           args=[out, np.float32(-2.0), np.float32(-1.0), np.float32(0.05),
                                 np.float32(0.125), np.uint32(60)])
        reports.append((out.to_numpy().copy(), rep.instructions, dict(rep.counters),
                        rep.valu_lanes))
    (o1, *c1), (o2, *c2) = reports
    assert np.array_equal(o1, o2) and c1 == c2


_F4 = "v_add_f32 v2, v0, v1\nv_mul_f32 v3, v2, v1\nv_mad_f32 v4, v3, v0, v2\nv_sub_f32 v5, v4, v1\n"


@pytest.mark.parametrize("text, chunked", [
    # SCC of a mask op, left for the engine: ORed over the chunks
    (_F4 + "v_cmp_lt_f32 vcc, v2, v0\ns_and_b64 s[10:11], vcc, exec", True),
    # a compare into EXEC, then rows under the new EXEC, and saveexec
    ("v_cmpx_lt_f32 vcc, v1, v0\n" + _F4 + "s_and_saveexec_b64 s[12:13], s[8:9]\n"
     "v_mov_b32 v1, v4", True),
    # SCC of a mask op read by a SALU kernel, a lane mask as a VALU scalar operand: whole
    (_F4 + "v_cmp_lt_f32 vcc, v2, v0\ns_and_b64 s[10:11], vcc, exec\ns_cselect_b32 s5, s6, 7",
     False),
    (_F4 + "v_cmp_lt_f32 vcc, v2, v0\nv_xor_b32 v1, vcc_lo, v3", False)])
def test_lane_masks_across_chunks(text, chunked):
    """Lane masks a chunk writes keep its bits at their place and are put together over the
    chunks; a block that reads one whole runs in one pass. Both against the row-by-row path,
    under four EXEC masks (lane 0 alone: its SCC is the first chunk's)."""
    forms = dict(blockjit.FORMS)
    prog = _build(text + "\ns_endpgm", True, WIDTHS[-1])
    assert (blockjit.FORMS["chunked"] > forms["chunked"]) == chunked
    assert prog.code[0, L.C_BLEN] == prog.code.shape[0] - 1
    without = _build(text + "\ns_endpgm", False)
    rng = np.random.default_rng(len(text))
    for exec_mask in (0xFFFF_FFFF_FFFF_FFFF, 0x8000_0F0F_F0F0_0001, 0x0000_0001_0000_0000, 1):
        vg = _operands(rng, "normal")
        vg[1] = vg[1] | np.uint32(0x80000000)      # v1 < 0: v0 + v1 < v0, VCC set
        sgpr = {6: 3, 8: 0xF0F0_F0F0, 9: 0x0FF0_0FF0}
        got = _state(prog, vg, exec_mask, 0x3C0, sgpr)
        want = _state(without, vg, exec_mask, 0x3C0, sgpr)
        for g, w in zip(got, want):
            assert np.array_equal(g, w), text
        direct = _direct(prog, vg, exec_mask, 0x3C0, sgpr)
        assert direct is not None
        for g, w in zip(direct, want[:5]):
            assert np.array_equal(g, w), text


def test_division_and_its_mode_changes_are_one_block_with_the_same_counts():
    """clang's f32 division sets MODE's f32 denormal bits before its fma steps and clears
    them after (s_setreg): in nbody's loop the block runs on through both s_setreg rows,
    and a dispatch gives the same buffers, instruction, SALU and VALU counts and active
    lanes with and without blocks (denormal bodies too: their blocks decline)."""
    from kernels import corpus
    rng = np.random.default_rng(5)
    pos = rng.uniform(-1, 1, (64, 4)).astype(np.float32)
    pos[:, 3] = rng.uniform(0.5, 1, 64)
    pos[:4, :3] = np.float32(1e-39)              # denormal coordinates
    reports = []
    for blocks in (True, False):
        with _blocks(blocks):
            kernel = gcnemu.load(str(corpus.hsaco_path("nbody"))).kernel("nbody_acc")
        code = kernel.program.code
        spans = [(i, int(code[i, L.C_BLEN])) for i in range(code.shape[0]) if code[i, L.C_BLK]]
        setregs = [i for i, s, n in ((i, *sp) for i, sp in enumerate(spans))
                   if (code[s:s + n, L.C_H] == L.H_SETREG).sum() >= 2]
        assert len(setregs) >= 2 if blocks else not spans
        gpu = gcnemu.GPU()
        bufs = [gpu.to_device(pos), gpu.empty((64, 4), np.float32), gpu.empty(64, np.float32)]
        rep = gpu.dispatch(kernel, grid=(64,), block=(64,),
                           args=bufs + [np.uint32(64), np.float32(0.01)])
        reports.append(([b.to_numpy().copy() for b in bufs[1:]], rep.instructions,
                        dict(rep.counters), rep.valu_lanes))
    (o1, *c1), (o2, *c2) = reports
    assert all(np.array_equal(a.view(np.uint32), b.view(np.uint32)) for a, b in zip(o1, o2))
    assert c1 == c2


def test_rsq_near_rounding_midpoints():
    """v_rsq_f32's plain form is a Newton step in f64 that is odd within RSQ_MIDPOINT_MARGIN
    units of an f32 rounding midpoint. Rows of x in [1, 2) whose step numpy puts next to a
    midpoint make the block decline (its own f32 step flags a superset of those lanes); rows
    of their neighbours run and give the row kernel's bits."""
    from gcnemu.sem.valu_float import RSQ_MIDPOINT_MARGIN
    x = (np.arange(1 << 22, dtype=np.uint32) | np.uint32(0x3F800000)).view(np.float32)
    y0 = np.float32(1.0) / np.sqrt(x)
    yd = y0.astype(np.float64)
    y1 = yd + (0.5 * yd) * (1.0 - x.astype(np.float64) * (yd * yd))
    low = (y1.view(np.uint64) & np.uint64(0x1FFFFFFF)).astype(np.int64)
    odd = np.flatnonzero(np.abs(low - 0x10000000) <= RSQ_MIDPOINT_MARGIN)
    assert len(odd) >= 4
    prog = _build("s_nop 0\nv_rsq_f32 v2, v0\ns_endpgm", True)
    plain = _build("s_nop 0\nv_rsq_f32 v2, v0\ns_endpgm", False)
    for k in odd[:8]:
        for row_has_odd in (True, False):
            lanes = x.view(np.uint32)[k - 40:k + 24].copy() if row_has_odd else \
                x.view(np.uint32)[k + 30:k + 94].copy()
            if not row_has_odd and (np.abs(odd - (k + 62)) <= 32).any():
                continue
            vg = np.zeros((V, 64), np.uint32)
            vg[0] = lanes
            r, v, _ = _call_block(prog, vg, 0xFFFF_FFFF_FFFF_FFFF, 0x3C0)
            want = _state(plain, vg, 0xFFFF_FFFF_FFFF_FFFF, 0x3C0, {})
            assert (r == -1) == row_has_odd
            if r >= 0:
                assert np.array_equal(v[:V], want[0])


def test_rsq_in_f32_lanes_gives_the_row_kernels_bits():
    """The block's v_rsq_f32 (an f32 Newton step with fma residuals) against the row kernel
    over rows of x: every 64th mantissa of [1, 4) (both exponent parities), their scalings to
    the ends of the range it runs (2**-126, 2**102), and the lanes it hands back to the row
    kernel (+-0 and +inf give y0; x above 2**102, negative x and NaNs decline). Wherever the
    block runs, its bits are the row kernel's; it runs for all but a few rows."""
    base = np.arange(0x3F800000, 0x40800000, 64, dtype=np.uint32)       # 2**18 values of [1, 4)
    rows = [base[i:i + 64] for i in range(0, len(base), 64 * 64)]
    rows += [base[:64] - np.uint32(0x3F000000), base[-64:] + np.uint32(0x33000000)]
    rows.append(np.array([0, 0x80000000, 0x7F800000] + [0x3F800000] * 61, np.uint32))
    prog = _build("s_nop 0\nv_rsq_f32 v2, v0\ns_endpgm", True)
    plain = _build("s_nop 0\nv_rsq_f32 v2, v0\ns_endpgm", False)
    ran = 0
    for lanes in rows:
        vg = np.zeros((V, 64), np.uint32)
        vg[0] = lanes
        r, v, _ = _call_block(prog, vg, 0xFFFF_FFFF_FFFF_FFFF, 0x3C0)
        if r >= 0:
            ran += 1
            want = _state(plain, vg, 0xFFFF_FFFF_FFFF_FFFF, 0x3C0, {})
            assert np.array_equal(v[:V], want[0]), [hex(x) for x in lanes[:4]]
    assert ran >= len(rows) - 3
    # x just above 2**102, and negative x or a NaN (a NaN result): declined
    for odd in (0x72800001, 0xBF800000, 0x7FC00000):
        vg = np.zeros((V, 64), np.uint32)
        vg[0] = 0x3F800000
        vg[0, 5] = odd
        assert _call_block(prog, vg, 0xFFFF_FFFF_FFFF_FFFF, 0x3C0)[0] == -1, hex(odd)


def test_lanes_a_merge_kept_are_checked_when_exec_grows():
    """v2's lanes 16..63 keep a denormal through a v_add under a 16-lane EXEC; once EXEC is
    all lanes, v_mul reads them: with f32 denormals flushed the product is 0 there, as the
    row kernel's exact path gives it, not the host's normal product."""
    text = ("v_add_f32 v2, v0, v1\ns_mov_b64 exec, s[8:9]\nv_mul_f32 v3, v2, v4\n"
            "v_mov_b32 v5, v3\ns_endpgm")
    vg = {0: np.float32(1.0), 1: np.float32(1.0), 2: np.uint32(0x00400000),
          4: np.float32(2.0 ** 100)}
    sgpr = {8: 0xFFFFFFFF, 9: 0xFFFFFFFF}
    states = []
    for blocks in (True, False):
        prog = _build(text, blocks)
        assert (prog.code[0, L.C_BLK] != 0) == blocks
        s = run_snippet(prog, vgpr=vg, exec_mask=0xFFFF, mode=0x3C0, sgpr=sgpr)
        states.append(s.vgpr[:6].copy())
    assert np.array_equal(states[0], states[1])
    two101 = np.float32(2.0 ** 101).view(np.uint32)
    assert (states[1][5, 16:] == 0).all() and (states[1][5, :16] == two101).all()


@pytest.mark.parametrize("name", ["loops_break", "nbody", "bitops", "transpose_lds"])
def test_corpus_kernels_give_the_same_bits_with_and_without_blocks(name):
    """SALU mask logic and integer loops (loops_break, bitops), f32 division, square roots and
    fma (nbody), 24-bit address arithmetic between LDS accesses (transpose_lds)."""
    from kernels import corpus
    outs = []
    for blocks in (True, False):
        compiled = blockjit.STATS["blocks"]
        with _blocks(blocks):
            results, case = corpus.run_case(name)     # loads and decodes the kernel afresh
        assert (blockjit.STATS["blocks"] > compiled) == blocks
        corpus.compare_results(case, results)
        outs.append(results)
    assert outs[0].keys() == outs[1].keys()
    for k in outs[0]:
        assert np.array_equal(np.asarray(outs[0][k]).view(np.uint8),
                              np.asarray(outs[1][k]).view(np.uint8)), (name, k)


def _mandelbrot(blocks: bool):
    from kernels import corpus
    with _blocks(blocks):
        return gcnemu.load(str(corpus.hsaco_path("mandelbrot"))).kernel("mandelbrot")


@pytest.mark.parametrize("dx", [0.05, 1e-39])
def test_recorded_runs_with_blocks_give_the_same_cycles_and_findings(dx):
    """A run that records (timing, the sanitizer) runs blocks too, writing each block's rows
    into the trace; where a block declines (dx 1e-39: denormal coordinates, so the blocks
    that compute them decline and their rows run one at a time) the entries are taken back.
    Cycles, where they went, counters and the sanitizer's findings are those of the
    row-by-row run."""
    args = lambda out: [out, np.float32(-2.0), np.float32(-1.0), np.float32(dx),   # noqa: E731
                        np.float32(0.125), np.uint32(40)]
    seen = []
    for blocks in (True, False):
        kernel = _mandelbrot(blocks)
        gpu = gcnemu.GPU(timing=True, waves_per_batch=16)
        out = gpu.empty(64 * 16, np.uint32)
        rep = gpu.dispatch(kernel, grid=(64, 16), block=(16, 4), args=args(out))
        plain = gcnemu.GPU()
        out2 = plain.empty(64 * 16, np.uint32)
        san = plain.dispatch(kernel, grid=(64, 16), block=(16, 4), args=args(out2), sanitize=True)
        seen.append((out.to_numpy().copy(), out2.to_numpy().copy(), rep.cycles,
                     rep.wave_cycles.copy(), rep.pc_cycles.copy(), dict(rep.counters),
                     rep.stalls, san.findings, san.instructions))
    a, b = seen
    assert a[2] > 0 and np.array_equal(a[0], a[1])
    for x, y in zip(a, b):
        assert (np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y)


#: each lane squares in[gid] through the LDS: the ds_read_b32 starts a block whose only DS row
#: it is (recorded runs call such blocks too), followed by f32 rows that decline on denormals
_LDS_SQUARE = _PROLOGUE + """    flat_load_dword v4, v[2:3]
    v_lshlrev_b32 v7, 2, v0
    s_mov_b32 m0, -1
    s_waitcnt vmcnt(0)
    ds_write_b32 v7, v4
    s_waitcnt lgkmcnt(0)
    s_barrier
    ds_read_b32 v8, v7
    s_waitcnt lgkmcnt(0)
    v_mul_f32 v9, v8, v8
    v_add_f32 v10, v9, v8
    v_add_i32 v11, vcc, 1, v0
    flat_store_dword v[5:6], v10
    s_endpgm
"""


@pytest.mark.parametrize("denormal", [False, True])
def test_recorded_runs_with_lds_blocks_give_the_same_cycles(tmp_path, denormal):
    """A timing run calls a block that starts at its only DS row (its record written first,
    the entries of its other rows after it); where it declines (denormal inputs in some
    lanes: the f32 rows after the load) those entries are taken back and the rows run one at
    a time. Cycles, where they went, counters and the results are those of the row-by-row
    run."""
    n = 256
    x = np.linspace(0.5, 3.0, n).astype(np.float32).view(np.uint32)
    if denormal:
        x[::7] = 0x00012345
    seen = []
    for blocks in (True, False):
        d = tmp_path / f"b{int(blocks)}"
        d.mkdir()
        (d / "ldsq.s").write_text(_LDS_SQUARE)
        with _blocks(blocks):
            k = gcnemu.load(str(d / "ldsq.s")).kernel("ldsq")
        code = k.program.code
        ds = [i for i, ins in enumerate(k.program.instructions) if ins.name == "ds_read_b32"]
        assert (code[ds[0], L.C_BLK] != 0 and code[ds[0], L.C_BNDS] == 1) == blocks
        gpu = gcnemu.GPU(timing=True, waves_per_batch=4)
        inp = gpu.to_device(x)
        out = gpu.to_device(np.zeros(n, np.uint32))
        rep = gpu.dispatch(k, grid=(n,), block=(64,), args=[inp, out, gcnemu.Local(256)])
        seen.append((out.to_numpy().copy(), rep.cycles, rep.wave_cycles.copy(),
                     rep.pc_cycles.copy(), dict(rep.counters), rep.stalls, rep.instructions))
    a, b = seen
    assert a[1] > 0
    for u, v in zip(a, b):
        assert (np.array_equal(u, v) if isinstance(u, np.ndarray) else u == v)


def test_long_runs_are_cut_into_blocks_and_loops_come_first_within_the_budget(monkeypatch):
    """A straight run of 200 rows is blocks of MAX_ROWS (64) rows and the 8 left; over the
    per-program budget, the blocks inside the loop are the ones compiled."""
    straight = "v_add_f32 v1, v1, v0\n" * 200
    loop = "v_mul_f32 v2, v2, v0\n" * 40
    text = (straight + "s_mov_b32 s4, 3\nloop:\n" + loop +
            "s_sub_u32 s4, s4, 1\ns_cmp_lg_u32 s4, 0\ns_cbranch_scc1 loop\ns_endpgm\n")
    d = decode(assemble(text))
    prog = build_program(d)
    names = [i.name for i in prog.instructions]
    blocks = blockjit.find_blocks(prog.code, names)
    assert blocks[:4] == [(0, 64), (64, 64), (128, 64), (192, 9)]   # + s_mov_b32 s4
    assert blocks[4][0] == 201 and blocks[4][1] >= 40                # the loop body, from its target
    monkeypatch.setattr(blockjit, "MAX_PROGRAM_ROWS", 100)
    kept = blockjit.within_budget(prog.code, blocks)
    assert blocks[4] in kept and sum(n for _s, n in kept) <= 100
    assert (0, 64) not in kept or blocks[4][1] + 64 <= 100


def test_rows_the_hot_loop_runs_carry_no_block_facts_unless_a_block_starts_there():
    """run_wave's hot loop reads layout.C_BLK on every row it runs: a row whose decode put
    anything there (s_dcache_inv's register-offset flag did, when the facts were C_F1..: the
    fuzzer's bounds-checked runs died of it) would be called as a block at that address. The
    scalar, SMRD, VOP1/VOP2/VOPC and DS encodings of LLVM's gfx7 tests, decoded without
    blocks."""
    import re
    ref = Path(__file__).resolve().parents[2] / "shared" / "reference" / "llvm-mc-tests"
    files = [str(ref / f"{n}.s") for n in ("smrd", "sop1", "sop2", "sopc", "sopk", "sopp",
                                          "vop1", "vop2", "vopc", "ds")]
    files = [f for f in files if Path(f).is_file()]
    if not files:
        pytest.skip("../shared/reference/llvm-mc-tests is absent")
    hot = {L.H_NOP, L.H_WAITCNT, L.H_BRANCH, L.H_CBRANCH, L.H_SALU, L.H_SAVEEXEC, L.H_VALU,
           L.H_VCMP, L.H_SETREG, L.H_DS}
    facts = [L.C_BLK, L.C_BLEN, L.C_BNVALU, L.C_BNSALU, L.C_BSMAX, L.C_BVMAX, L.C_BNDS]
    checked, bad = 0, set()
    with _blocks(False):
        for f in files:
            for line in open(f, errors="ignore"):
                m = re.search(r"encoding: \[([0-9a-fx, ]+)\]", line)
                if not m:
                    continue
                try:
                    prog = build_program(decode(bytes(int(x, 16) for x in m.group(1).split(","))))
                except Exception:
                    continue           # encodings of other targets in the same files
                for i, ins in enumerate(prog.instructions):
                    if int(prog.code[i, L.C_H]) in hot:
                        checked += 1
                        if any(prog.code[i, c] != 0 for c in facts):
                            bad.add(ins.name)
    assert checked > 500 and not bad, sorted(bad)


# --- LDS rows inside blocks -----------------------------------------------------------------
#: the address rows of the LDS programs (never written by them): lane l's 4l (a run per 16
#: lanes: vector loads), 16 (l // 16) (one element per group of 16: a broadcast), and a
#: permutation of dwords with repeats (lane by lane: the row kernels, later lanes winning)
_LANE = np.arange(64, dtype=np.uint32)
LDS_BYTES = 4096


def _lds_addresses(rng):
    return {1: 4 * _LANE, 2: 16 * (_LANE // 16),
            3: (4 * rng.integers(0, 512, 64)).astype(np.uint32)}


def _lds_ops(rng):
    d = int(rng.integers(4, 9))                 # v4..v11: the data rows (v[d:d+3] fit)
    a = f"v{int(rng.integers(1, 4))}"
    x, y = (f"v{int(i)}" for i in rng.integers(4, 12, 2))
    o0, o1 = (int(i) for i in rng.integers(0, 64, 2))
    return rng.choice([
        f"ds_read_b32 v{d}, {a} offset:{4 * o0}", f"ds_read_b64 v[{d}:{d + 1}], {a} offset:{8 * o0}",
        f"ds_read2_b32 v[{d}:{d + 1}], {a} offset0:{o0} offset1:{o1}",
        f"ds_read2st64_b32 v[{d}:{d + 1}], {a} offset0:{o0 % 4} offset1:{o1 % 4}",
        f"ds_read2_b64 v[{d}:{d + 3}], {a} offset0:{o0} offset1:{o1}",
        f"ds_read_b128 v[{d}:{d + 3}], {a} offset:{16 * o0}",
        f"ds_read_b96 v[{d}:{d + 2}], {a}",
        f"ds_write_b32 {a}, {x} offset:{4 * o0}", f"ds_write_b64 {a}, v[{d}:{d + 1}] offset:{8 * o1}",
        f"ds_write2_b32 {a}, {x}, {y} offset0:{o0} offset1:{o1}",
        f"ds_write2st64_b32 {a}, {x}, {y} offset0:{o0 % 4} offset1:{o1 % 4}",
        f"ds_write2_b64 {a}, v[{d}:{d + 1}], v[{d + 2}:{d + 3}] offset0:{o0} offset1:{o1}",
        f"ds_write_b96 {a}, v[{d}:{d + 2}] offset:{16 * o0}",
        f"v_add_i32 {x}, vcc, {y}, {x}", f"v_mul_f32 {x}, {y}, {x}", f"v_mac_f32 {x}, {y}, {x}",
        f"v_xor_b32 {x}, {a}, {y}", f"v_cmp_gt_u32 vcc, {x}, {y}",
        f"v_cndmask_b32 {x}, {x}, {y}, vcc", "s_waitcnt lgkmcnt(0)", "s_waitcnt lgkmcnt(1)",
        # EXEC and M0 inside a block: results merged under the EXEC of the moment, limits
        # below the allocation (lanes past M0 make the block decline; the row path reads 0)
        f"v_cmpx_lt_u32 vcc, {y}, {x}", "s_mov_b64 exec, s[20:21]", "s_mov_b32 m0, 0x700",
        "s_mov_b32 m0, -1"])


def _lds_run(text, blocks, vg, exec_mask, lds):
    """The program's state after the run, the whole LDS with it."""
    prog = _build(f"{text}\ns_endpgm", blocks)
    s = run_snippet(prog, vgpr=vg, exec_mask=exec_mask, sgpr={20: 0xFFFF0000, 21: 0x0F0F0F0F,
                                                               22: 0},
                    vcc=VCC, lds=lds, lds_bytes=LDS_BYTES)
    return prog, (s.vgpr.copy(), s.sgpr.copy(), s.exec, s.vcc, s.scc, s.instructions, s.m0,
                  s.lds.copy())


@pytest.mark.parametrize("seed", range(6))
def test_random_lds_blocks_match_row_by_row(seed):
    """Random runs of DS loads and stores of every width a block runs (whole-row runs,
    broadcasts and lane-by-lane addresses, colliding stores, b96/b128 alignment, st64) mixed
    with VALU rows, s_waitcnt, EXEC and M0 changes, under full and partial EXEC, inside a
    loop (blockjit's inline whole-row loads and stores) and not (the row kernels): the VGPRs,
    SGPRs, counts and the whole LDS equal the row-by-row path's."""
    rng = np.random.default_rng([seed, 15])
    ds_blocks = 0
    for trial in range(4):
        text = "\n".join(str(_lds_ops(rng)) for _ in range(int(rng.integers(6, 16))))
        if trial < 2:            # a loop that runs once (SCC 0)
            text = f"loop:\n{text}\ns_cmp_eq_u32 s22, 1\ns_cbranch_scc1 loop"
        vg = _lds_addresses(rng)
        for i in range(4, 12):
            vg[i] = rng.uniform(1, 2, 64).astype(np.float32).view(np.uint32)
        lds = rng.integers(0, 2 ** 32, LDS_BYTES // 4, dtype=np.uint64).astype(np.uint32)
        exec_mask = [0xFFFF_FFFF_FFFF_FFFF, int(rng.integers(1, 2 ** 63)) | 1][trial % 2]
        with_blocks, got = _lds_run(text, True, vg, exec_mask, lds)
        _, want = _lds_run(text, False, vg, exec_mask, lds)
        ds_blocks += int((with_blocks.code[:, L.C_BNDS] > 0).sum())
        for g, w, what in zip(got, want, ("vgpr", "sgpr", "exec", "vcc", "scc", "insts", "m0",
                                           "lds")):
            assert np.array_equal(g, w), f"{what} differs for\n{text}\nexec {exec_mask:#x}"
    assert ds_blocks >= 4


#: one block of every kind of DS row (8 rows, 5 of them DS): a whole-row run and broadcasts
#: (vector loads), a lane-by-lane load, f32 and integer rows between, and two stores, the
#: second lane by lane with lanes that meet (v3 repeats addresses)
_DS_BLOCK = """ds_read2_b32 v[4:5], v1 offset1:16
ds_read2_b32 v[6:7], v2 offset0:1 offset1:2
v_mul_f32 v8, v4, v6
v_mac_f32 v8, v5, v7
ds_read_b32 v9, v3 offset:4
v_add_i32 v10, vcc, v9, v4
ds_write_b32 v1, v10
ds_write2_b32 v3, v8, v9 offset1:2
s_endpgm"""


def _ds_block_numpy(words, vg, exec_mask):
    """_DS_BLOCK lane by lane from GcnInstrsDs.md's definitions (numpy f32 for the f32 rows:
    products and sums of moderate normals round as the hardware's, no fma)."""
    w = words.copy()
    v = {k: x.copy() for k, x in vg.items()}
    on = [(exec_mask >> l) & 1 for l in range(64)]
    f = lambda x: x.view(np.float32)        # noqa: E731
    res = {}
    res[4] = w[vg[1] // 4]
    res[5] = w[vg[1] // 4 + 16]
    res[6] = w[vg[2] // 4 + 1]
    res[7] = w[vg[2] // 4 + 2]
    res[8] = (f(res[5]) * f(res[7]) + f(res[4]) * f(res[6])).view(np.uint32)
    res[9] = w[vg[3] // 4 + 1]
    res[10] = res[9] + res[4]
    for k, x in res.items():
        v[k] = np.where(on, x, vg[k])
    for l in range(64):
        if on[l]:
            w[vg[1][l] // 4] = v[10][l]
    for l in range(64):
        if on[l]:
            w[vg[3][l] // 4] = v[8][l]
            w[vg[3][l] // 4 + 2] = v[9][l]
    return v, w


def _call_ds_block(prog, vg, exec_mask, lds, m0=0xFFFFFFFF):
    """Call the program's first block (one with DS rows: its function takes the LDS window
    and size too) directly on VGPRs v0..v11 and ``lds``."""
    rows = np.zeros((12, 64), np.uint32)
    for k, x in vg.items():
        rows[k] = x
    sg = np.zeros(128, np.uint32)
    sg[L.EXEC_LO], sg[L.EXEC_HI] = exec_mask & 0xFFFFFFFF, exec_mask >> 32
    sg[L.M0] = m0
    fn = ctypes.CFUNCTYPE(*[ctypes.c_int64] * 3, ctypes.c_void_p,
                          *[ctypes.c_int64] * 4)(int(prog.code[0, L.C_BLK]))
    r = fn(rows.ctypes.data - 256 * rows.strides[0], rows.strides[0], sg.ctypes.data, 0, 0x3C0,
           lds.ctypes.data, LDS_BYTES)
    return r, rows


@pytest.mark.parametrize("looped", [False, True])
def test_a_block_of_lds_rows_matches_numpy_and_declines_storing_nothing(looped):
    """Outside a loop the block calls the row kernels; inside one its whole-row loads and
    stores are inline vector ones (blockjit._emit_ds)."""
    text = "loop:\n" + _DS_BLOCK.replace("s_endpgm", "s_cbranch_execz loop\ns_endpgm") \
        if looped else _DS_BLOCK
    prog = _build(text, True)
    assert prog.code[0, L.C_BLEN] == 8 and prog.code[0, L.C_BNDS] == 5
    rng = np.random.default_rng(7)
    vg = {k: np.zeros(64, np.uint32) for k in range(12)}
    vg.update((k, x) for k, x in _lds_addresses(rng).items() if k < 12)
    vg[3] = (4 * rng.integers(0, 96, 64)).astype(np.uint32)     # lanes that meet
    vg[3][0] = 4 * 95
    for k in range(4, 12):
        vg[k] = np.zeros(64, np.uint32) + k
    words = rng.uniform(1, 2, LDS_BYTES // 4).astype(np.float32).view(np.uint32)
    for exec_mask in (0xFFFF_FFFF_FFFF_FFFF, 0x8000_0F0F_F0F0_0001):
        lds = words.copy()
        r, rows = _call_ds_block(prog, vg, exec_mask, lds)
        assert r >= 0 and (r >> 1) & 0x7FFF == 3 * bin(exec_mask).count("1")   # 3 VALU rows
        v, w = _ds_block_numpy(words, vg, exec_mask)
        for k in range(12):
            assert np.array_equal(rows[k], v[k]), (hex(exec_mask), k)
        assert np.array_equal(lds, w), hex(exec_mask)
    # lane 0 past M0 at the last store (M0 = 380 + 8: every earlier row in range), or a
    # denormal: -1, and neither the VGPRs nor the LDS changed (the first store is made at
    # the end, not at its row)
    for m0, denormal in ((4 * 95 + 8, False), (0xFFFFFFFF, True)):
        lds = words.copy()
        v4 = dict(vg)
        if denormal:
            lds[vg[1][9] // 4] = 1                     # lane 9's v4: a denormal into v_mul_f32
        before = lds.copy()
        r, rows = _call_ds_block(prog, v4, 0xFFFF_FFFF_FFFF_FFFF, lds, m0)
        assert r == -1 and np.array_equal(lds, before)
        assert all(np.array_equal(rows[k], v4[k]) for k in range(12))


CL_SPREAD = """
__kernel void spread(__global uint *out, __local uint *tmp, uint n)
{
    uint lid = get_local_id(0);
    tmp[lid * n] = lid + 7;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[lid * n] + lid;
}
"""


def test_lds_overruns_in_blocks_are_the_row_paths_faults(tmp_path):
    """A store and a load past the __local argument inside blocks: the block declines, the
    row path drops the store, reads 0 and reports the first overrun (row, lane, byte) as a
    MemoryFault; without blocks the same words and the same report; then the process runs
    the kernel in range as before."""
    pytest.importorskip("gcnemu.loader.opencl")
    src = tmp_path / "spread.cl"
    src.write_text(CL_SPREAD)
    seen = []
    for blocks in (True, False):
        try:
            with _blocks(blocks):
                k = gcnemu.load(src).kernel("spread")
        except gcnemu.LoaderError as e:      # no clang-14 / libclc-14 here
            pytest.skip(str(e))
        code = k.program.code
        assert ((code[:, L.C_BNDS] > 0).sum() > 0) == blocks
        gpu = gcnemu.GPU()
        out = gpu.empty(64, np.uint32)
        with pytest.raises(gcnemu.MemoryFault, match=r"LDS store to byte 256 of a 256-byte "
                                                     r".*lane 32") as e:
            gpu.dispatch(k, grid=(64,), block=(64,), args=[out, gcnemu.Local(256), np.uint32(2)])
        rep = gpu.dispatch(k, grid=(64,), block=(64,), args=[out, gcnemu.Local(256),
                                                             np.uint32(2)], strict=False)
        got = out.to_numpy().copy()
        lid = np.arange(64, dtype=np.uint32)
        assert np.array_equal(got, np.where(lid < 32, 2 * lid + 7, lid))
        gpu.dispatch(k, grid=(64,), block=(64,), args=[out, gcnemu.Local(256), np.uint32(1)])
        assert np.array_equal(out.to_numpy(), 2 * lid + 7)
        seen.append((str(e.value), rep.faults, rep.dropped, got))
    assert seen[0][0] == seen[1][0] and seen[0][1:3] == seen[1][1:3]


def test_f32_heavy_runs_leave_their_few_ds_rows_out():
    """A block with DS rows runs in one pass over 64 lanes: a run of f32 work that would run
    as chunks keeps its DS rows only where they are a quarter of its f32 rows or more
    (matmul_tiled's loop, half loads), else they are left to the row path (nbody's)."""
    def blocks(text):
        prog = _build(text + "\ns_endpgm", False)
        return blockjit.find_blocks(prog.code, [i.name for i in prog.instructions])
    assert blocks("ds_read_b32 v1, v0\n" + "v_mul_f32 v2, v2, v1\n" * 8) == [(1, 8)]
    assert blocks("ds_read_b32 v1, v0\nv_mac_f32 v2, v1, v1\n" * 4) == [(0, 8)]
    assert blocks("ds_read_b32 v1, v0\n" + "v_add_i32 v2, vcc, v2, v1\n" * 8) == [(0, 9)]
    # a load after a store of the same run starts a block of its own; a block with DS rows
    # starts at one (run_wave calls it from its outer loop)
    assert blocks("ds_write_b32 v0, v1\nv_add_i32 v2, vcc, v2, v1\nds_read_b32 v3, v0\n"
                  "v_add_i32 v2, vcc, v2, v3") == [(0, 2), (2, 2)]
    assert blocks("v_add_i32 v2, vcc, v2, v1\ns_nop 0\nds_read_b32 v3, v0\n"
                  "v_add_i32 v2, vcc, v2, v3") == [(0, 2), (2, 2)]


#: (program, constant mask K): v0 = v1 bit-selected by K over v7, then, where v5 is 0, kept
#: (else v7) by v_cndmask; as one v_bfi_b32 by an inline constant or by a literal an s_mov
#: put in an SGPR, and as and/and/or rows whose temporaries are overwritten in the block
_BIT_SELECTS = [
    ("v_bfi_b32 v0, -4, v1, v7", 0xFFFFFFFC),
    ("s_mov_b32 s4, 0x43982be1\nv_bfi_b32 v0, s4, v1, v7", 0x43982BE1),
    ("v_and_b32 v3, -4, v1\nv_and_b32 v4, 3, v7\nv_or_b32 v0, v3, v4\nv_mov_b32 v3, 0\n"
     "v_mov_b32 v4, 0", 0xFFFFFFFC),
]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("exec_mask", [(1 << 64) - 1, 0x5A5A_F0F0_0FF0_3C3C])
@pytest.mark.parametrize("select", _BIT_SELECTS, ids=["bfi-inline", "bfi-literal", "and-or"])
def test_a_select_of_a_bit_select_by_a_constant_mask_keeps_its_lanes(select, exec_mask, width):
    # LLVM 22's x86-64 code generator gets select(c, (x & K) | (y & ~K), y) wrong in some
    # lanes (blockjit._select_rows); expected values here are the ISA's formulas in numpy
    text, k = select
    text += "\nv_cmp_eq_u32 vcc, 0, v5\nv_cndmask_b32 v0, v7, v0, vcc"
    prog = _build(text + "\ns_endpgm", True, width)
    assert prog.code[0, L.C_BLK] != 0 or prog.code[1, L.C_BLK] != 0, "no block"
    rng = np.random.default_rng(16)
    vg = rng.integers(0, 1 << 32, (8, 64), dtype=np.uint64).astype(np.uint32)
    vg[5, ::3] = 0
    s = run_snippet(prog, vgpr={i: vg[i] for i in range(8)}, exec_mask=exec_mask)
    on = (exec_mask >> np.arange(64, dtype=np.uint64)) & np.uint64(1) != 0
    x, y = vg[1], vg[7]
    picked = (x & np.uint32(k)) | (y & ~np.uint32(k))
    want_v0 = np.where(on, np.where(vg[5] == 0, picked, y), vg[0])
    assert np.array_equal(s.vgpr[0], want_v0)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("exec_mask", [(1 << 64) - 1, 0x5A5A_F0F0_0FF0_3C3C])
def test_a_bit_select_into_its_own_source_merges_under_exec(exec_mask, width):
    # the merge under EXEC is the select of the same shape: select(exec, (x & K) | (y & ~K),
    # y) where the row writes y's register
    prog = _build("v_bfi_b32 v7, -4, v1, v7\nv_mov_b32 v2, 0\ns_endpgm", True, width)
    assert prog.code[0, L.C_BLK] != 0, "no block"
    rng = np.random.default_rng(17)
    vg = rng.integers(0, 1 << 32, (8, 64), dtype=np.uint64).astype(np.uint32)
    s = run_snippet(prog, vgpr={i: vg[i] for i in range(8)}, exec_mask=exec_mask)
    on = (exec_mask >> np.arange(64, dtype=np.uint64)) & np.uint64(1) != 0
    x, y = vg[1], vg[7]
    picked = (x & np.uint32(0xFFFFFFFC)) | (y & np.uint32(3))
    assert np.array_equal(s.vgpr[7], np.where(on, picked, y))
