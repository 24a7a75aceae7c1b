"""run_group_waves' barrier release with several workgroups in one batch, their waves laid
out consecutively (the dispatcher's layout: one run per group) or interleaved (the fallback
scan). Each wave writes marker + k to its LDS slot, waits at a barrier, adds its partner's
slot, waits again, three times; the expected sums follow from the markers alone. The same
holds when the work is cut into slices of a few wave-instructions (run_group_waves returns
-3 and goes on where it stopped), down to one instruction per call."""
from __future__ import annotations

import numpy as np
import pytest

from gcnemu.exec import layout as E
from gcnemu.exec.engine import NO_TRACE, new_sched, run_group_waves, run_sliced
from gcnemu.mem.export import new_export_buffer
from gcnemu.mem.space import BASE, Memory
from gcnemu.snippet import _to_program

SRC = """
    s_mov_b32 m0, -1
    v_mov_b32 v5, 0
    s_lshl_b32 s2, s1, 8              // own slot: 256 * (index in group) bytes
    s_xor_b32 s3, s1, 1
    s_lshl_b32 s3, s3, 8              // partner's slot
    v_lshlrev_b32 v1, 2, v0
    v_add_i32 v2, vcc, s2, v1
    v_add_i32 v3, vcc, s3, v1
    s_mov_b32 s4, 0
loop:
    s_add_u32 s5, s0, s4
    v_mov_b32 v4, s5
    ds_write_b32 v2, v4
    s_waitcnt lgkmcnt(0)
    s_barrier
    ds_read_b32 v6, v3
    s_waitcnt lgkmcnt(0)
    v_add_i32 v5, vcc, v5, v6
    s_barrier
    s_add_u32 s4, s4, 1
    s_cmp_lt_u32 s4, 3
    s_cbranch_scc1 loop
    s_endpgm
"""


@pytest.mark.parametrize("budget", [100000, 7, 1])
@pytest.mark.parametrize("order", [[0, 1, 2, 3, 4, 5], [0, 2, 4, 1, 3, 5], [5, 4, 3, 2, 1, 0]])
def test_barriers_of_several_groups_in_one_batch(order, budget):
    prog = _to_program(SRC)
    nw, vcount, lds_per = 6, 8, 512
    groups = [0, 0, 1, 1, 2, 2]                 # wave w is index w % 2 of group w // 2
    sregs = np.zeros((nw, 128), np.uint32)
    ws = np.zeros((nw, E.NWS), np.int64)
    vg = np.zeros((nw * vcount, 64), np.uint32)
    for w in range(nw):
        sregs[w, 0] = 1000 * (w + 1)            # marker
        sregs[w, 1] = w % 2
        sregs[w, E.EXEC_LO] = sregs[w, E.EXEC_HI] = 0xFFFFFFFF
        ws[w, E.WS_SGPRS] = 104
        ws[w, E.WS_VCOUNT] = vcount
        ws[w, E.WS_VBASE] = w * vcount
        ws[w, E.WS_GROUP] = groups[w]
        ws[w, E.WS_LDS_BASE] = groups[w] * lds_per
        ws[w, E.WS_LDS_SIZE] = lds_per
        ws[w, E.WS_MODE] = ws[0, E.WS_MODE]
        vg[w * vcount, :] = np.arange(64)
    lds = np.zeros(3 * lds_per + 65536, np.uint8)
    data, mapped = Memory().arrays()
    sched, faults, msgs = new_sched(), np.zeros((nw, 64, 4), np.int64), np.zeros((256, 4), np.int64)
    exports, ids = new_export_buffer(256), np.array(order, np.int64)
    slices = []
    bad = run_sliced(lambda: run_group_waves(prog.code, ids, sregs, ws, vg, lds, data, mapped,
                                             np.int64(BASE), faults, msgs, np.int64(100000), exports,
                                             NO_TRACE, np.int64(budget), sched),
                     None, lambda: slices.append(1), prog.code, sched)
    assert bad == -1
    assert (len(slices) > 20) == (budget < 100)
    for w in range(nw):
        partner = w ^ 1
        assert ws[w, E.WS_STATUS] == E.ST_DONE
        assert (vg[w * vcount + 5] == sum(1000 * (partner + 1) + k for k in range(3))).all(), w


def test_state_arrays_of_other_shapes_are_refused():
    """run_wave sees the state arrays as views of run_group_waves' frame with the shapes the
    dispatcher allocates (SGPRs [waves, 128], VGPRs [rows, 64]): other shapes are refused
    before any wave runs, not read out of bounds."""
    prog = _to_program("s_endpgm")
    ws = np.zeros((2, E.NWS), np.int64)
    data, mapped = Memory().arrays()
    for sregs in (np.zeros((2, 64), np.uint32), np.zeros((1, 128), np.uint32)):
        with pytest.raises(ValueError, match="sregs must be"):
            run_group_waves(prog.code, np.arange(2, dtype=np.int64), sregs, ws,
                            np.zeros((16, 64), np.uint32), np.zeros(65536, np.uint8), data,
                            mapped, np.int64(BASE), np.zeros((2, 64, 4), np.int64),
                            np.zeros((256, 4), np.int64), np.int64(1000), new_export_buffer(256),
                            NO_TRACE, np.int64(1000), new_sched())
