"""VINTRP (GcnInstrsVintrp.md parameter layout and formulas) and EXP capture."""
from __future__ import annotations

import numpy as np
import pytest

from gcnemu.exec import layout as E
from gcnemu.isa.assembler import assemble
from gcnemu.exec.program import program_from_bytes
from gcnemu.mem.export import export_instruction, new_export_buffer, read_exports
from test_mem_helpers import LANES, run

RNG = np.random.default_rng(5)

# GcnInstrsVintrp.md's example: NEWPRIMMASK 0b1010011 -> primitive of each lane
DOC_MASK = 0b1010011
DOC_PRIM = [0] * 4 + [1] * 4 + [2] * 12 + [3] * 8 + [4] * 36
DOC_NUMPRIM = 5


def _setup(params, m0_offset):
    """Code + VGPRs that store the dwords `params` at LDS byte m0_offset (M0 = -1 while writing)."""
    lines = ["s_mov_b32 m0, -1", "v_lshlrev_b32 v99, 2, v98"]
    vg = {98: LANES}
    n = -(-len(params) // 64)
    padded = np.zeros(n * 64, np.uint32)
    padded[:len(params)] = params
    for k in range(n):
        lines.append(f"ds_write_b32 v99, v{150 + k} offset:{m0_offset + 256 * k}")
        vg[150 + k] = padded[64 * k:64 * k + 64]
    return "\n".join(lines), vg


def _param(params, m0_offset, attr, prim, dword):
    return params[12 * (attr * DOC_NUMPRIM + prim) + dword]


@pytest.mark.parametrize("chan", [0, 1, 2, 3])
def test_interp_p1_p2_and_prim_layout(chan):
    attr = 2
    params = RNG.standard_normal(12 * DOC_NUMPRIM * 3).astype(np.float32)
    params[::7] = np.float32(1e-39)    # denormals are kept
    pbits = params.view(np.uint32)
    off = 0x40
    code, vg = _setup(pbits, off)
    i = RNG.standard_normal(64).astype(np.float32)
    j = RNG.standard_normal(64).astype(np.float32)
    vg.update({2: i, 3: j})
    m0 = off | (DOC_MASK << 16)
    r = run(f"{code}\ns_mov_b32 m0, {m0}\nv_interp_p1_f32 v1, v2, attr{attr}.{'xyzw'[chan]}\n"
            f"v_interp_p2_f32 v1, v3, attr{attr}.{'xyzw'[chan]}\n"
            f"v_interp_p1_f32 v4, v2, attr{attr}.{'xyzw'[chan]}", vgpr=vg)
    for lane in range(64):
        prim = DOC_PRIM[lane]
        p0 = params[12 * (attr * DOC_NUMPRIM + prim) + 2 * chan]
        p10 = params[12 * (attr * DOC_NUMPRIM + prim) + 2 * chan + 1]
        p20 = params[12 * (attr * DOC_NUMPRIM + prim) + 8 + chan]
        d1 = np.float32(p0 + np.float32(i[lane] * p10))          # two f32 roundings
        d2 = np.float32(d1 + np.float32(j[lane] * p20))
        assert r.vgpr[4, lane] == d1.view(np.uint32), lane
        assert r.vgpr[1, lane] == d2.view(np.uint32), lane


def test_interp_mov_selects_p10_p20_p0():
    params = RNG.integers(0, 1 << 32, 12 * 2 * 4, dtype=np.uint64).astype(np.uint32)
    code, vg = _setup(params, 0)
    m0 = 0 | (0b1 << 16)           # quads 1.. belong to primitive 1; NUMPRIM = 2
    r = run(f"{code}\ns_mov_b32 m0, {m0}\nv_interp_mov_f32 v1, p10, attr1.y\n"
            "v_interp_mov_f32 v2, p20, attr1.y\nv_interp_mov_f32 v3, p0, attr1.w", vgpr=vg)
    for lane in range(64):
        prim = 0 if lane < 4 else 1
        blk = 12 * (1 * 2 + prim)
        assert r.vgpr[1, lane] == params[blk + 3]       # P10.y
        assert r.vgpr[2, lane] == params[blk + 9]       # P20.y
        assert r.vgpr[3, lane] == params[blk + 6]       # P0.w


def test_interp_respects_exec():
    params = np.arange(24, dtype=np.float32).view(np.uint32)
    code, vg = _setup(params, 0)
    vg[1] = 0xABCD
    r = run(f"{code}\ns_mov_b32 m0, 0\nv_interp_mov_f32 v1, p0, attr0.x", vgpr=vg,
            exec_mask=0x0F)
    assert (r.vgpr[1, :4] == params[0]).all() and (r.vgpr[1, 4:] == 0xABCD).all()


# --- EXP ------------------------------------------------------------------------------------
def _call_export(text, vgpr_rows, exec_mask, exports):
    prog = program_from_bytes(assemble(text))
    sregs = np.zeros((1, 128), np.uint32)
    sregs[0, E.EXEC_LO] = exec_mask & 0xFFFFFFFF
    sregs[0, E.EXEC_HI] = exec_mask >> 32
    ws = np.zeros((1, E.NWS), np.int64)
    ws[0, E.WS_VCOUNT] = 256
    vg = np.zeros((256, 64), np.uint32)
    for k, v in vgpr_rows.items():
        vg[k] = v
    export_instruction(prog.code[0], 0, sregs, ws, vg, exports)
    return ws


def test_export_capture_uncompressed_and_flags():
    buf = new_export_buffer(4)
    rows = {k: RNG.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32) for k in (1, 2, 3, 4)}
    ex = 0xFFFF_0000_FFFF_00FF
    _call_export("exp mrt0 v1, v2, v3, v4 done vm", rows, ex, buf)
    _call_export("exp pos0 v4, off, v2, off", rows, ex, buf)
    out = read_exports(buf)
    assert len(out) == 2
    a, b = out
    assert (a["target"], a["en"], a["done"], a["vm"], a["compr"], a["exec"]) == (0, 0xF, True, True, False, ex)
    on = np.array([(ex >> l) & 1 for l in range(64)], bool)
    for c, reg in enumerate((1, 2, 3, 4)):
        assert (a["data"][c][on] == rows[reg][on]).all() and not a["data"][c][~on].any()
    assert (b["target"], b["en"], b["done"], b["vm"]) == (12, 0b0101, False, False)
    assert (b["data"][0][on] == rows[4][on]).all() and not b["data"][1].any()
    assert (b["data"][2][on] == rows[2][on]).all() and not b["data"][3].any()


def test_export_compressed_halves():
    buf = new_export_buffer(2)
    rows = {1: RNG.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)}
    enc = assemble("exp mrt1 v1, v1, off, off compr")
    assert enc[0] & 0xF == 0x3    # LLVM's enable bits for the first register pair
    _call_export("exp mrt1 v1, v1, off, off compr", rows, 0xFFFF_FFFF_FFFF_FFFF, buf)
    (a,) = read_exports(buf)
    assert a["compr"] and a["target"] == 1
    assert (a["data"][0] == rows[1] & 0xFFFF).all() and (a["data"][1] == rows[1] >> 16).all()
    assert not a["data"][2].any() and not a["data"][3].any()


def test_export_overflow_counts_but_keeps_first_rows():
    buf = new_export_buffer(1)
    for _ in range(3):
        _call_export("exp mrt0 v1, off, off, off", {1: LANES}, 0xFFFF_FFFF_FFFF_FFFF, buf)
    assert buf[0, 0] == 3 and len(read_exports(buf)) == 1


def test_exp_without_export_buffer_is_a_noop_in_the_engine():
    r = run("v_mov_b32 v1, 3\nexp mrt0 v1, off, off, off done\nv_mov_b32 v2, 4")
    assert (r.vgpr[1] == 3).all() and (r.vgpr[2] == 4).all()
