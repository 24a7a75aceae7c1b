"""The hazard sanitizer (dispatch(..., sanitize=True)): for each finding kind a kernel with the
bug and its fixed twin. The sanitizer must name the bug (kind, instruction, wave, lane,
address where they apply) in the first and find nothing in the second, and change no result.

Expected places come from the kernels' text (the instruction is found by its disassembly and
its byte offset computed from the assembled code), never from the sanitizer's own output."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

import gcnemu
from gcnemu.isa.assembler import assemble
from gcnemu.isa.decoder import decode
from gcnemu.isa.disassembler import format_instruction
from gcnemu.loader.opencl import CL_FLAGS, toolchain

# in, out pointers from the kernarg segment; v1 = gid * 4; v[2:3] = &in[gid]; v[5:6] = &out[gid]
_PROLOGUE = """
    s_load_dwordx4 s[4:7], s[0:1], 0x0
    s_lshl_b32 s3, s2, 6
    v_add_i32 v1, vcc, s3, v0
    v_lshlrev_b32 v1, 2, v1
    s_waitcnt lgkmcnt(0)
    v_mov_b32 v3, s5
    v_add_i32 v2, vcc, s4, v1
    v_addc_u32 v3, vcc, 0, v3, vcc
    v_mov_b32 v6, s7
    v_add_i32 v5, vcc, s6, v1
    v_addc_u32 v6, vcc, 0, v6, vcc
"""


def _pc_of(src: str, text: str, nth: int = 0) -> int:
    """Byte offset of the ``nth`` instruction whose disassembly starts with ``text``."""
    hits = [i.offset for i in decode(assemble(src)) if format_instruction(i).startswith(text)]
    return hits[nth]


def _run(tmp_path, name, body, n=128, block=64, args=None, gpu=None, lds=0, **kw):
    src = _PROLOGUE + body if args is None else body
    path = tmp_path / f"{name}.s"
    path.write_text(src)
    gpu = gpu or gcnemu.GPU()
    k = gcnemu.load(str(path)).kernel(name)
    if args is None:
        inp = gpu.to_device(np.arange(n, dtype=np.uint32) * 3 + 1)
        out = gpu.to_device(np.zeros(n, np.uint32))
        args = [inp, out]
    if lds:
        args = list(args) + [gcnemu.Local(lds)]
    rep = gpu.dispatch(k, grid=(n,), block=(block,), args=args, sanitize=True, **kw)
    return rep, src, args


def _only(rep, kind):
    found = [f for f in rep.findings if f.kind == kind]
    assert found, f"no {kind} finding in {[str(f) for f in rep.findings]}"
    return found


# --- unwaited-read -------------------------------------------------------------------------

_VMCNT = """
    flat_load_dword v4, v[2:3]
    {wait}
    v_add_i32 v4, vcc, 1, v4
    flat_store_dword v[5:6], v4
    s_endpgm
"""


@pytest.mark.parametrize("wait,bug", [("", True), ("s_waitcnt vmcnt(0)", False)])
def test_unwaited_read_vmcnt(tmp_path, wait, bug):
    rep, src, (inp, out) = _run(tmp_path, "vm", _VMCNT.format(wait=wait))
    # the sanitizer changes no result: in + 1 either way
    assert (out.to_numpy() == np.arange(128, dtype=np.uint32) * 3 + 2).all()
    if not bug:
        assert rep.findings == []
        return
    [f] = rep.findings
    assert f.kind == "unwaited-read" and f.pc == _pc_of(src, "v_add_i32_e32 v4")
    assert f.instruction.startswith("v_add_i32_e32 v4, vcc, 1, v4")
    assert f.what == "v4" and "vmcnt" in f.detail and f"0x{_pc_of(src, 'flat_load_dword'):x}" in f.detail
    assert (f.wave, f.workgroup, f.count) == (0, 0, 2)        # two waves, each once
    assert "unwaited-read" in str(f) and "x2" in str(f)


_SMEM = """
    s_load_dword s8, s[0:1], 0x0
    s_load_dword s9, s[0:1], 0x2
    s_waitcnt lgkmcnt({n})
    s_add_u32 s10, s8, 4
    v_mov_b32 v4, s10
    flat_store_dword v[5:6], v4
    s_endpgm
"""


@pytest.mark.parametrize("n,bug", [(1, True), (0, False)])
def test_unwaited_read_smem_returns_out_of_order(tmp_path, n, bug):
    # CLRX GcnInstrsSmrd.md: SMRD results may return out of order, so lgkmcnt(1) after two
    # loads does not say that the first one (s8) has arrived
    rep, src, _ = _run(tmp_path, "smem", _SMEM.format(n=n))
    if not bug:
        assert rep.findings == []
        return
    [f] = rep.findings
    assert f.kind == "unwaited-read" and f.what == "s8" and "lgkmcnt" in f.detail
    assert f.pc == _pc_of(src, "s_add_u32 s10")


_DS_ORDER = """
    v_lshlrev_b32 v7, 2, v0
    s_mov_b32 m0, -1
    ds_write_b32 v7, v0
    s_waitcnt lgkmcnt(0)
    ds_read_b32 v8, v7
    ds_read_b32 v9, v7 offset:4
    s_waitcnt lgkmcnt({n})
    v_mov_b32 v4, v8
    flat_store_dword v[5:6], v4
    s_endpgm
"""


@pytest.mark.parametrize("n,bug", [(1, False), (2, True)])
def test_lds_loads_return_in_order(tmp_path, n, bug):
    # DS returns in order (GcnInstrsDs.md): lgkmcnt(1) covers the older of two reads
    rep, src, _ = _run(tmp_path, "dsorder", _DS_ORDER.format(n=n), block=64, n=64, lds=512)
    kinds = [f.kind for f in rep.findings if f.kind == "unwaited-read"]
    assert kinds == (["unwaited-read"] if bug else [])


# --- store-data-overwritten ----------------------------------------------------------------

_GFX6_STORE = """
    s_load_dwordx2 s[4:5], s[0:1], 0x0
    v_lshlrev_b32 v1, 2, v0
    s_waitcnt lgkmcnt(0)
    s_and_b32 s5, s5, 0xffff
    s_mov_b32 s6, -1
    s_mov_b32 s7, 0x27fac
    v_mov_b32 v4, 7
    buffer_store_dword v4, v1, s[4:7], 0 offen
    {wait}
    v_mov_b32 v4, 9
    buffer_store_dword v4, v1, s[4:7], 0 offen offset:256
    s_endpgm
"""


@pytest.mark.parametrize("wait,bug", [("", True), ("s_waitcnt expcnt(0)", False)])
def test_store_data_overwritten_before_expcnt_on_gfx6(tmp_path, wait, bug):
    # GCN 1.0 (gfx6) locks a store's VDATA until EXPCNT says it was read (GcnInstrsMubuf.md)
    gpu = gcnemu.GPU("hd7970")
    out = gpu.to_device(np.zeros(128, np.uint32))
    src = _GFX6_STORE.format(wait=wait)
    rep, src, _ = _run(tmp_path, "st6", src, n=64, args=[out], gpu=gpu)
    assert (out.to_numpy()[:64] == 7).all() and (out.to_numpy()[64:] == 9).all()
    if not bug:
        assert rep.findings == []
        return
    [f] = rep.findings
    assert f.kind == "store-data-overwritten" and f.what == "v4"
    assert f.pc == _pc_of(src, "v_mov_b32_e32 v4, 9")
    assert f"0x{_pc_of(src, 'buffer_store_dword'):x}" in f.detail


def test_gfx7_vmem_stores_do_not_lock_their_data(tmp_path):
    # GCN 1.1 dropped the VMEM store data lock (LLVM: vmemWriteNeedsExpWaitcnt is SI only)
    out = gcnemu.GPU().to_device(np.zeros(128, np.uint32))
    rep, _, _ = _run(tmp_path, "st7", _GFX6_STORE.format(wait=""), n=64, args=[out],
                     gpu=out.gpu)
    assert rep.findings == []


# --- lds-race ------------------------------------------------------------------------------

_LDS_SWAP = """
    v_lshlrev_b32 v7, 2, v0                 // lid * 4
    v_xor_b32 v8, 0x100, v7                 // the other wave's lane: (lid ^ 64) * 4
    s_mov_b32 m0, -1
    ds_write_b32 v7, v0
    {sync}
    ds_read_b32 v4, v8
    s_waitcnt lgkmcnt(0)
    flat_store_dword v[5:6], v4
    s_endpgm
"""


def _two_waves_lds(tmp_path, name, body, lds_bytes=512):
    """Assemble _PROLOGUE + ``body`` as kernel ``name`` and dispatch it sanitized on one
    workgroup of two waves, with a zeroed input and output of 128 dwords and ``lds_bytes`` of
    LDS: (the source, the report, the output)."""
    src = _PROLOGUE + body
    (tmp_path / f"{name}.s").write_text(src)
    gpu = gcnemu.GPU()
    k = gcnemu.load(str(tmp_path / f"{name}.s")).kernel(name)
    inp, out = gpu.to_device(np.zeros(128, np.uint32)), gpu.to_device(np.zeros(128, np.uint32))
    rep = gpu.dispatch(k, grid=(128,), block=(128,), args=[inp, out, gcnemu.Local(lds_bytes)],
                       sanitize=True)
    return src, rep, out.to_numpy()


@pytest.mark.parametrize("sync,bug", [("", True),
                                      ("s_waitcnt lgkmcnt(0)\n    s_barrier", False)])
def test_lds_race_between_waves(tmp_path, sync, bug):
    src, rep, out = _two_waves_lds(tmp_path, "ldsr", _LDS_SWAP.format(sync=sync))
    if not bug:
        assert rep.findings == []
        assert (out == np.arange(128) ^ 64).all()
        return
    # wave 0 runs first and reads wave 1's bytes before wave 1 writes them (uninitialised,
    # and wave 1's write races with that read); wave 1 then reads what wave 0 wrote
    races = {(f.pc, f.wave, f.lane, f.address) for f in _only(rep, "lds-race")}
    assert races == {(_pc_of(src, "ds_write_b32"), 1, 0, 256), (_pc_of(src, "ds_read_b32"), 1, 0, 0)}
    [u] = _only(rep, "uninitialized-read")
    assert (u.pc, u.wave, u.what) == (_pc_of(src, "ds_read_b32"), 0, "lds")


# LDS atomics after the workgroup wrote its LDS: wave 0 stores to 16 bins plainly and wave 1
# bumps them with ds_add (race: no barrier between), or the two are a barrier apart (fixed),
# or wave 0 bumps bins at 512.. that nobody wrote (uninit)
_LDS_BINS = """
    v_lshlrev_b32 v7, 2, v0                 // lid * 4: 128 lanes write all 512 bytes
    s_mov_b32 m0, -1
    ds_write_b32 v7, v0
    s_waitcnt lgkmcnt(0)
    s_barrier
    v_and_b32 v8, 0x3c, v7                  // bins 0..15
    v_mov_b32 v9, 1
    v_cmp_gt_u32 vcc, 64, v0
    s_and_saveexec_b64 s[10:11], vcc        // wave 0's lanes
    {wave0}
    s_xor_b64 exec, exec, s[10:11]          // wave 1's lanes
    {sync}
    ds_add_u32 v8, v9
    s_waitcnt lgkmcnt(0)
    s_or_b64 exec, exec, s[10:11]
    s_endpgm
"""


@pytest.mark.parametrize("case", ["race", "uninit", "fixed"])
def test_lds_atomics_after_the_group_wrote_its_lds(tmp_path, case):
    # the atomics' check is skipped where nothing can be found (consume: no plain store in
    # the epoch, every dword written): each bug must still be found, at its lanes
    wave0 = {"race": "ds_write_b32 v8, v0",
             "uninit": "v_add_i32 v10, vcc, 0x200, v8\n    ds_add_u32 v10, v9",
             "fixed": "ds_write_b32 v8, v0"}[case]
    sync = "s_waitcnt lgkmcnt(0)\n    s_barrier" if case == "fixed" else ""
    src, rep, _ = _two_waves_lds(tmp_path, f"bins_{case}", _LDS_BINS.format(wave0=wave0, sync=sync),
                                 lds_bytes=1024 if case == "uninit" else 512)
    if case == "fixed":
        assert rep.findings == []
        return
    [f] = rep.findings
    if case == "race":
        # wave 1 bumps the 16 bins that wave 0 stored to in the same epoch (counted at the
        # first lane of each: after it the bin's last writer is wave 1's atomic)
        assert (f.kind, f.pc, f.wave, f.lane, f.address, f.count) == \
            ("lds-race", _pc_of(src, "ds_add_u32 v8"), 1, 0, 0, 16)
        assert f"0x{_pc_of(src, 'ds_write_b32 v8'):x}" in f.detail
    else:
        # 16 bins, each first read (unwritten) by the lowest lane of wave 0 that bumps it
        assert (f.kind, f.pc, f.wave, f.lane, f.address, f.count) == \
            ("uninitialized-read", _pc_of(src, "ds_add_u32 v10"), 0, 0, 0x200, 16)


# each lane writes its dword; then lines of 16 lanes read one pair of the other wave's dwords
# (ds_read2, a matmul tile's broadcast): the engine records both as address patterns
# (gcnemu/sanitize/record.py), which must find what per-lane addresses do
_LDS_LINES = """
    v_lshlrev_b32 v7, 2, v0                 // lid * 4
    v_xor_b32 v8, 64, v0                    // the other wave's lane
    v_lshrrev_b32 v8, 4, v8
    v_lshlrev_b32 v8, 6, v8                 // 64 bytes per line of 16 lanes
    s_mov_b32 m0, -1
    ds_write_b32 v7, v0
    {sync}
    ds_read2_b32 v[9:10], v8 offset1:1
    s_waitcnt lgkmcnt(0)
    flat_store_dword v[5:6], v9
    s_endpgm
"""


@pytest.mark.parametrize("sync,bug", [("", True),
                                      ("s_waitcnt lgkmcnt(0)\n    s_barrier", False)])
def test_lds_race_in_lane_patterns(tmp_path, sync, bug):
    src, rep, out = _two_waves_lds(tmp_path, "ldsl", _LDS_LINES.format(sync=sync))
    lid = np.arange(128)
    dword = ((lid ^ 64) >> 4) * 16              # the first dword each lane reads
    if not bug:
        assert rep.findings == []
        assert (out == dword).all()             # lane i wrote i to dword i
        return
    # wave 0 runs first: it reads wave 1's dwords before they are written; wave 1's writes
    # then race with those reads, at its lanes whose dwords wave 0 read; wave 1's reads race
    # with wave 0's writes
    read0 = {d + j for d in dword[:64] for j in (0, 1)}
    lanes = [l for l in range(64) if 64 + l in read0]
    by = {(f.kind, f.pc): f for f in rep.findings}
    assert set(by) == {("lds-race", _pc_of(src, "ds_write_b32")),
                       ("lds-race", _pc_of(src, "ds_read2_b32")),
                       ("uninitialized-read", _pc_of(src, "ds_read2_b32"))}
    w = by["lds-race", _pc_of(src, "ds_write_b32")]
    assert (w.wave, w.lane, w.address, w.count) == (1, lanes[0], 4 * (64 + lanes[0]), len(lanes))
    r = by["lds-race", _pc_of(src, "ds_read2_b32")]
    assert (r.wave, r.lane, r.address) == (1, 0, 4 * int(dword[64]))
    u = by["uninitialized-read", _pc_of(src, "ds_read2_b32")]
    assert (u.wave, u.lane, u.address, u.what) == (0, 0, 4 * int(dword[0]), "lds")


# lanes write their dwords in descending order; then each wave reads a row of 64 dwords and
# the row 8 dwords on (ds_read2 offset1:8: two overlapping runs), shifted back 8 dwords in
# wave 1 so that all stays inside the 128 dwords: the engine's address patterns with a
# negative lane stride and overlapping runs, which the analysis takes as ranges of dwords
# (the LDS is larger than the dwords used: a wrong range stays in bounds and is seen)
_LDS_DESC = """
    v_sub_i32 v7, vcc, 127, v0
    v_lshlrev_b32 v7, 2, v7                 // (127 - lid) * 4: descending
    v_lshlrev_b32 v8, 2, v0
    v_lshrrev_b32 v9, 6, v0
    v_lshlrev_b32 v9, 5, v9
    v_sub_i32 v8, vcc, v8, v9               // lid * 4 - 32 * wave
    s_mov_b32 m0, -1
    ds_write_b32 v7, v0
    {sync}
    ds_read2_b32 v[9:10], v8 offset1:8
    s_waitcnt lgkmcnt(0)
    v_add_i32 v9, vcc, v9, v10
    flat_store_dword v[5:6], v9
    s_endpgm
"""


@pytest.mark.parametrize("sync,bug", [("", True),
                                      ("s_waitcnt lgkmcnt(0)\n    s_barrier", False)])
def test_lds_race_in_descending_and_overlapping_runs(tmp_path, sync, bug):
    src, rep, out = _two_waves_lds(tmp_path, "ldsd", _LDS_DESC.format(sync=sync), 1024)
    lid = np.arange(128)
    first = lid - 8 * (lid >> 6)                # the dwords each lane reads: first, first + 8
    writer = 127 - np.arange(128)               # dword d holds lane 127 - d's id
    if not bug:
        assert rep.findings == []
        assert (out == writer[first] + writer[first + 8]).all()
        return
    # wave 0 runs first: it writes dwords 127..64, then reads 0..71, of which 0..63 wave 1
    # has not written yet; wave 1's writes of those race with the reads, and its reads of
    # 64..127 race with wave 0's writes
    read0 = set(first[:64]) | set(first[:64] + 8)
    lanes = [l for l in range(64, 128) if writer[l] in read0]   # dword 127 - l, by lane l
    by = {(f.kind, f.pc): f for f in rep.findings}
    assert set(by) == {("lds-race", _pc_of(src, "ds_write_b32")),
                       ("lds-race", _pc_of(src, "ds_read2_b32")),
                       ("uninitialized-read", _pc_of(src, "ds_read2_b32"))}
    w = by["lds-race", _pc_of(src, "ds_write_b32")]
    assert (w.wave, w.count) == (1, len(lanes)) and w.lane == lanes[0] - 64
    assert w.address == 4 * (127 - lanes[0])
    u = by["uninitialized-read", _pc_of(src, "ds_read2_b32")]
    assert (u.wave, u.lane, u.address, u.what) == (0, 0, 0, "lds")
    r = by["lds-race", _pc_of(src, "ds_read2_b32")]
    assert (r.wave, r.lane, r.address) == (1, 0, 4 * 64)   # its first dword is its own wave's


# --- global-race ---------------------------------------------------------------------------

@pytest.mark.parametrize("bug", [True, False])
def test_global_write_write_race(tmp_path, bug):
    body = """
    v_mov_b32 v4, v0
    {addr}
    flat_store_dword v[5:6], v4
    s_endpgm
    """.format(addr="v_mov_b32 v5, s6\n    v_mov_b32 v6, s7" if bug else "")
    rep, src, (inp, out) = _run(tmp_path, "ww", body)
    if not bug:
        assert rep.findings == []
        return
    [f] = rep.findings
    assert f.kind == "global-race" and f.pc == _pc_of(src, "flat_store_dword")
    # every lane of both waves writes out[0]: each of the 128 writes races with another
    assert f.address == out.address and f.count == 128 and f.wave == 0 and f.lane == 0


@pytest.mark.parametrize("bug", [True, False])
def test_global_read_write_race_between_workgroups(tmp_path, bug):
    # each item adds 1 to its element, reading it from the next workgroup's element (bug) or
    # its own (fixed): another workgroup writes what the first reads
    body = """
    v_mov_b32 v7, v1
    {shift}
    v_mov_b32 v9, s7
    v_add_i32 v8, vcc, s6, v7
    v_addc_u32 v9, vcc, 0, v9, vcc
    flat_load_dword v4, v[8:9]
    s_waitcnt vmcnt(0)
    v_add_i32 v4, vcc, 1, v4
    flat_store_dword v[5:6], v4
    s_endpgm
    """.format(shift="v_add_i32 v7, vcc, 0x100, v7\n    v_and_b32 v7, 0x1ff, v7" if bug else "")
    rep, src, (inp, out) = _run(tmp_path, "rw", body)
    if not bug:
        assert rep.findings == []
        return
    # workgroup 0 reads out[64..127], which workgroup 1 writes, and 1 reads what 0 writes
    [f] = rep.findings
    assert f.kind == "global-race" and f.pc == _pc_of(src, "flat_load_dword")
    assert (f.wave, f.lane, f.address, f.count) == (1, 0, out.address, 128)   # lowest address first
    assert f"0x{_pc_of(src, 'flat_store_dword'):x}" in f.detail


@pytest.mark.parametrize("bug", [True, False])
def test_global_race_in_rows_of_lanes(tmp_path, bug):
    # a 2-D-block pattern: lane l writes out[l % 16] (bug: four rows of 16 lanes each, in two
    # waves, write the same 16 elements) or out[gid] (fixed). The lanes' addresses form
    # ascending runs of 16, which the sanitizer takes as ranges, then counts lane by lane
    body = """
    v_mov_b32 v4, v0
    {addr}
    flat_store_dword v[5:6], v4
    s_endpgm
    """.format(addr="v_and_b32 v7, 15, v0\n    v_lshlrev_b32 v7, 2, v7\n    v_mov_b32 v6, s7\n"
               "    v_add_i32 v5, vcc, s6, v7\n    v_addc_u32 v6, vcc, 0, v6, vcc" if bug else "")
    rep, src, (inp, out) = _run(tmp_path, "rows", body)
    if not bug:
        assert rep.findings == []
        return
    [f] = rep.findings
    assert f.kind == "global-race" and f.pc == _pc_of(src, "flat_store_dword")
    # lane 16 overwrites lane 0's element in the same instruction, and so on: all 128 race
    assert (f.wave, f.lane, f.address, f.count) == (0, 0, out.address, 128)


def test_expand_ranges_gives_the_lanes_accesses():
    """A range access (a run of lanes at ascending addresses) expands to what the per-lane
    path records: one entry per lane and dword with the lane's bytes (worked out by hand)."""
    from gcnemu.sanitize import analysis as A

    acc = np.zeros((2, 4), np.int64)
    acc[0, 1], acc[1, 1] = 1, 8               # row 0: byte accesses; row 1: 8 bytes a lane
    ev = np.zeros((3, A.NEV), np.int64)
    # row 0, a read by the active lanes 1, 2 and 5 (EXEC 0b100110) of bytes 0x1002-0x1004
    ev[0] = (0x1002, 0 | (1 << 22) | A.EV_RANGE, 7, 3, 0, 0x1005, 0b100110)
    # row 1, a write by the run from lane 4 (EXEC also holds lanes 0 and 6, another run)
    ev[1] = (0x2004, 1 | (4 << 22) | A.EV_RANGE | (1 << 32), 8, 4, 1, 0x2014, 0b1110001)
    ev[2] = (0x999, 1 | (3 << 22) | (0x3 << 28), 9, 5, 0, 0, 0)   # a lane's entry: as it is
    got = A.expand_ranges(ev, acc)
    want = [(0x400, 0 | (1 << 22) | (0b0100 << 28), 7, 3, 0),
            (0x400, 0 | (2 << 22) | (0b1000 << 28), 7, 3, 0),
            (0x401, 0 | (5 << 22) | (0b0001 << 28), 7, 3, 0),
            (0x801, 1 | (4 << 22) | (0xF << 28) | (1 << 32), 8, 4, 1),
            (0x802, 1 | (4 << 22) | (0xF << 28) | (1 << 32), 8, 4, 1),
            (0x803, 1 | (5 << 22) | (0xF << 28) | (1 << 32), 8, 4, 1),
            (0x804, 1 | (5 << 22) | (0xF << 28) | (1 << 32), 8, 4, 1),
            (0x999, 1 | (3 << 22) | (0x3 << 28), 9, 5, 0)]
    assert [tuple(int(x) for x in r[:5]) for r in got] == want


def test_global_races_find_what_the_lanes_walk_finds():
    """global_races looks first for overlapping pairs in address order and walks the shadow
    only where it finds one: on random dispatches (ranges and lanes' entries, waves of two
    workgroups, barrier epochs, atomics; most race-free, overlapping only in order) its
    findings are those of the lanes' walk over every lane's entry, the definition."""
    from gcnemu.sanitize import analysis as A

    rng = np.random.default_rng(7)
    acc = np.zeros((4, 4), np.int64)
    acc[:, 1] = 4
    nk, nrows = len(A.KIND_NAMES), acc.shape[0]
    races = 0
    for case in range(300):
        rows = []
        at = np.zeros(4, np.int64)
        for w in range(4):
            atomics = 0
            for seq in range(int(rng.integers(1, 5))):
                write = int(rng.integers(0, 2))
                row = int(rng.integers(0, nrows))
                ep = int(rng.integers(0, 2))
                # a wave's own part of a buffer, or (now and then) another wave's
                part = w if rng.random() > 0.08 else int(rng.integers(0, 4))
                base = 0x10000 + part * 0x100 + 4 * int(rng.integers(0, 4))
                if rng.random() < 0.5:
                    n = int(rng.integers(1, 9))
                    rows.append((base, row | A.EV_RANGE | (write << 32), w | (ep << 32),
                                 10 * w + seq, atomics, base + 4 * n, (1 << n) - 1))
                else:
                    lane = int(rng.integers(0, 64))
                    m = int(rng.choice([0xF, 0x3, 0xC, 0x1]))
                    rows.append((base >> 2, row | (lane << 22) | (m << 28) | (write << 32),
                                 w | (ep << 32), 10 * w + seq, atomics, 0, 0))
                atomics += int(rng.random() < 0.1)
            at[w] = atomics            # the wave's global atomics in all
        ev = np.array(rows, np.int64)
        got_c, got_f = np.zeros((nk, nrows), np.int64), np.zeros((nk, nrows, A.NF), np.int64)
        A.global_races(ev, 2, at, got_c, got_f, acc)
        want_c, want_f = np.zeros_like(got_c), np.zeros_like(got_f)
        A._races(A.expand_ranges(ev, acc), 2, at, want_c, want_f)
        assert np.array_equal(got_c, want_c) and np.array_equal(got_f, want_f), case
        races += bool(want_c.any())
    assert 30 < races < 270       # both kinds of dispatch were drawn


def test_global_races_past_the_pairs_budget():
    """More overlapping pairs than _overlapping_pairs looks at (600 reads of one dword by one
    wave, in order, before anything else in address order): global_races walks its shadow
    instead, and finds the race further on (wave 0 reads a dword that wave 2, of another
    workgroup, writes), as the lanes' walk does."""
    from gcnemu.sanitize import analysis as A

    acc = np.zeros((2, 4), np.int64)
    acc[:, 1] = 4
    rows = [(0x4000 >> 2, 0 | (0xF << 28), 0, seq, 0, 0, 0) for seq in range(600)]
    rows.append((0x5000 >> 2, 0 | (0xF << 28), 0, 600, 0, 0, 0))
    rows.append((0x5000, 1 | A.EV_RANGE | (1 << 32), 2, 0, 0, 0x5004, 1))   # wave 2 writes
    ev = np.array(rows, np.int64)
    at = np.zeros(3, np.int64)
    s, t = A._byte_spans(ev)
    assert A._overlapping_pairs(ev, s, t, np.argsort(s, kind="stable"), 2, at,
                                8 * ev.shape[0] + (1 << 16)) == -1
    nk = len(A.KIND_NAMES)
    got_c, got_f = np.zeros((nk, 2), np.int64), np.zeros((nk, 2, A.NF), np.int64)
    A.global_races(ev, 2, at, got_c, got_f, acc)
    want_c, want_f = np.zeros_like(got_c), np.zeros_like(got_f)
    A._races(A.expand_ranges(ev, acc), 2, at, want_c, want_f)
    # a read and a write race: the read is counted, with the write as the other access
    assert got_c[A.K_GLOBAL_RACE].tolist() == [1, 0] and got_f[A.K_GLOBAL_RACE, 0, A.F_OTHER] == 1
    assert np.array_equal(got_c, want_c) and np.array_equal(got_f, want_f)


# --- uninitialized-read --------------------------------------------------------------------

@pytest.mark.parametrize("bug", [True, False])
def test_uninitialized_registers(tmp_path, bug):
    body = """
    {init}
    v_add_i32 v4, vcc, v9, v0
    s_add_u32 s12, s13, 1
    v_add_i32 v4, vcc, s12, v4
    flat_store_dword v[5:6], v4
    s_endpgm
    """.format(init="" if bug else "v_mov_b32 v9, 0\n    s_mov_b32 s13, 0")
    rep, src, _ = _run(tmp_path, "uninit", body)
    if not bug:
        assert rep.findings == []
        return
    got = {(f.kind, f.what, f.pc) for f in rep.findings}
    assert got == {("uninitialized-read", "v9", _pc_of(src, "v_add_i32_e32 v4, vcc, v9")),
                   ("uninitialized-read", "s13", _pc_of(src, "s_add_u32 s12"))}


# --- register-only runs (rows.register_runs: taken in one step where nothing is found) --------

_RUN = """
    flat_load_dword v4, v[2:3]
    flat_load_dword v7, v[2:3]
    s_waitcnt vmcnt({n})
    v_add_i32 v8, vcc, 1, v4
    v_add_i32 v9, vcc, 2, v8
    v_add_i32 v10, vcc, v7, v9
    v_add_i32 v10, vcc, {v11}, v10
    v_mov_b32 v12, {v13}
    v_xor_b32 v10, v12, v10
    v_add_i32 v10, vcc, v10, v9
    s_waitcnt vmcnt(0)
    flat_store_dword v[5:6], v10
    s_endpgm
"""


@pytest.mark.parametrize("bug", [True, False])
def test_findings_inside_a_run_of_register_rows(tmp_path, bug):
    # a straight run of VALU rows that reads, in its middle, a load's result before the
    # s_waitcnt that covers it (v7: vmcnt(1) covers only the first load, v4), a register
    # nothing wrote (v11), and the copy of one (v12 = v13); the fixed twin waits for both
    # loads and writes v11 and v13 first (two waves: each finding counted once a wave)
    body = _RUN.format(n=1 if bug else 0, v11="v11" if bug else "v1",
                       v13="v13" if bug else "v0")
    rep, src, (inp, out) = _run(tmp_path, "runs", body)
    if bug:
        got = {(f.kind, f.what, f.pc, f.count) for f in rep.findings}
        assert got == {("unwaited-read", "v7", _pc_of(src, "v_add_i32_e32 v10, vcc, v7"), 2),
                       ("uninitialized-read", "v11", _pc_of(src, "v_add_i32_e32 v10, vcc, v11"), 2),
                       ("uninitialized-read", "v12", _pc_of(src, "v_xor_b32"), 2)}
        return
    assert rep.findings == []
    x = np.arange(128, dtype=np.uint32) * 3 + 1
    gid4 = np.arange(128, dtype=np.uint32) * 4
    v10 = ((x + gid4 + (x + 3)) ^ np.arange(128, dtype=np.uint32) % 64) + (x + 3)
    assert (out.to_numpy() == v10).all()       # the sanitizer changes no result


def test_register_runs_of_a_program(tmp_path):
    """The runs of a small program and what each does in all, worked out from its text."""
    from gcnemu.sanitize.rows import RUN_EXPOSED, RUN_READS, RUN_WRITES, VREG, row_sets

    src = """
    v_mov_b32 v1, v0
    v_add_i32 v2, vcc, v1, v3
    s_cbranch_vccz BB1
    v_mov_b32 v3, 0
    s_waitcnt lgkmcnt(0)
    BB1:
    v_mov_b32 v4, v2
    s_endpgm
    """
    path = tmp_path / "rr.s"
    path.write_text(src)
    sets = row_sets(gcnemu.load(str(path)).kernel("rr").program)

    def regs(bits):
        return {64 * j + b for j in range(bits.shape[0]) for b in range(64)
                if int(bits[j]) >> b & 1}
    v = lambda *n: {VREG + i for i in n}
    # rows 0-2 run on to the branch (which ends a run); row 3 stops before s_waitcnt (not a
    # register row); rows 5-6 end at s_endpgm
    assert sets.run[:, 0].tolist() == [3, 2, 1, 1, 0, 2, 1]
    r0 = sets.run_sets[0]
    assert regs(r0[RUN_EXPOSED]) == v(0, 3) | {126, 127}       # v1 is written before row 1
    assert regs(r0[RUN_READS]) == v(0, 1, 3) | {106, 107, 126, 127}
    assert regs(r0[RUN_WRITES]) == v(1, 2) | {106, 107}
    assert regs(sets.run_sets[5, RUN_EXPOSED]) == v(2) | {126, 127}


@pytest.mark.parametrize("bug", [True, False])
def test_uninitialized_lds(tmp_path, bug):
    body = """
    v_lshlrev_b32 v7, 2, v0
    s_mov_b32 m0, -1
    ds_write_b32 v7, v0
    s_waitcnt lgkmcnt(0)
    ds_read_b32 v4, v7 offset:{off}
    s_waitcnt lgkmcnt(0)
    flat_store_dword v[5:6], v4
    s_endpgm
    """.format(off=4 if bug else 0)
    rep, src, _ = _run(tmp_path, "ulds", body, n=64, lds=512)
    if not bug:
        assert rep.findings == []
        return
    [f] = rep.findings
    # lane 63 reads byte 256, past what the workgroup's 64 lanes wrote
    assert f.kind == "uninitialized-read" and f.what == "lds" and f.lane == 63
    assert f.address == 256 and f.count == 1


# --- out-of-bounds -------------------------------------------------------------------------

_BUF_OOB = """
    s_load_dwordx4 s[4:7], s[0:1], 0x0
    v_lshlrev_b32 v1, 2, v0
    s_waitcnt lgkmcnt(0)
    s_and_b32 s9, s5, 0xffff
    s_mov_b32 s8, s4
    s_mov_b32 s10, {records}
    s_mov_b32 s11, 0x27fac
    buffer_load_dword v4, v1, s[8:11], 0 offen
    s_waitcnt vmcnt(0)
    v_mov_b32 v6, s7
    v_add_i32 v5, vcc, s6, v1
    v_addc_u32 v6, vcc, 0, v6, vcc
    flat_store_dword v[5:6], v4
    s_endpgm
"""


@pytest.mark.parametrize("records,bug", [(240, True), (256, False)])
def test_buffer_out_of_range(tmp_path, records, bug):
    gpu = gcnemu.GPU()
    inp = gpu.to_device(np.arange(64, dtype=np.uint32) + 1)
    out = gpu.to_device(np.zeros(64, np.uint32))
    rep, src, _ = _run(tmp_path, "boob", _BUF_OOB.format(records=records), n=64,
                       args=[inp, out], gpu=gpu)
    want = np.arange(64, dtype=np.uint32) + 1
    if bug:
        want[60:] = 0                      # the hardware returns 0 past num_records
    assert (out.to_numpy() == want).all()
    if not bug:
        assert rep.findings == []
        return
    [f] = rep.findings
    assert f.kind == "out-of-bounds" and f.what == "buffer" and f.lane == 60 and f.count == 4
    assert f.address == inp.address + 240 and f.pc == _pc_of(src, "buffer_load_dword")


@pytest.mark.parametrize("bug", [True, False])
def test_global_past_the_allocation(tmp_path, bug):
    # the buffer holds 63 dwords: lane 63's load lies in mapped memory (the page), past it
    gpu = gcnemu.GPU()
    inp = gpu.to_device(np.ones(63 if bug else 64, np.uint32))
    out = gpu.to_device(np.zeros(64, np.uint32))
    body = _PROLOGUE + "    flat_load_dword v4, v[2:3]\n    s_waitcnt vmcnt(0)\n" \
        "    flat_store_dword v[5:6], v4\n    s_endpgm\n"
    rep, src, _ = _run(tmp_path, "goob", body, n=64, args=[inp, out], gpu=gpu)
    if not bug:
        assert rep.findings == []
        return
    [f] = rep.findings
    assert (f.kind, f.what, f.lane, f.address) == ("out-of-bounds", "global", 63,
                                                   inp.address + 252)


@pytest.mark.parametrize("bug", [True, False])
def test_lds_past_the_allocation(tmp_path, bug):
    body = """
    v_lshlrev_b32 v7, 2, v0
    s_mov_b32 m0, -1
    ds_write_b32 v7, v0 offset:{off}
    s_endpgm
    """.format(off=4 if bug else 0)
    path = tmp_path / "loob.s"
    path.write_text(_PROLOGUE + body)
    gpu = gcnemu.GPU()
    k = gcnemu.load(str(path)).kernel("loob")
    inp, out = gpu.to_device(np.zeros(64, np.uint32)), gpu.to_device(np.zeros(64, np.uint32))
    rep = gpu.dispatch(k, grid=(64,), block=(64,), args=[inp, out, gcnemu.Local(256)],
                       sanitize=True, strict=False)
    if not bug:
        assert rep.findings == [] and rep.faults == []
        return
    [f] = rep.findings
    assert (f.kind, f.what, f.lane, f.address) == ("out-of-bounds", "lds", 63, 256)
    assert rep.faults                      # the engine reports the overrun too


# --- misaligned ----------------------------------------------------------------------------

@pytest.mark.parametrize("off,bug", [(2, True), (0, False)])
def test_misaligned_buffer_load(tmp_path, off, bug):
    gpu = gcnemu.GPU()
    inp = gpu.to_device(np.arange(64, dtype=np.uint32) + 1)
    out = gpu.to_device(np.zeros(64, np.uint32))
    src = _BUF_OOB.format(records=256).replace("0 offen", f"0 offen offset:{off}", 1)
    rep, src, _ = _run(tmp_path, "mis", src, n=64, args=[inp, out], gpu=gpu)
    # the hardware drops the two low bits: the misaligned load reads the same dword
    assert (out.to_numpy() == np.arange(64) + 1).all()
    if not bug:
        assert rep.findings == []
        return
    [f] = rep.findings
    assert (f.kind, f.lane, f.address, f.count) == ("misaligned", 0, inp.address + 2, 64)
    assert "4 bytes" in f.detail and f.pc == _pc_of(src, "buffer_load_dword")


def test_unaligned_flat_is_no_finding(tmp_path):
    # gfx7 FLAT accesses unaligned addresses as they are (clang emits them for packed structs)
    body = """
    v_add_i32 v2, vcc, 2, v2
    v_addc_u32 v3, vcc, 0, v3, vcc
    flat_load_dword v4, v[2:3]
    s_waitcnt vmcnt(0)
    flat_store_dword v[5:6], v4
    s_endpgm
    """
    gpu = gcnemu.GPU()
    inp = gpu.to_device(np.arange(65, dtype=np.uint32))
    out = gpu.to_device(np.zeros(64, np.uint32))
    rep, _, _ = _run(tmp_path, "unal", _PROLOGUE + body, n=64, args=[inp, out], gpu=gpu)
    assert rep.findings == []
    want = (np.arange(64) >> 16) | ((np.arange(64) + 1) << 16)     # the bytes as they lie
    assert (out.to_numpy() == want.astype(np.uint32)).all()


@pytest.mark.parametrize("bug", [True, False])
def test_misaligned_lds_b64(tmp_path, bug):
    body = """
    v_lshlrev_b32 v7, 3, v0
    s_mov_b32 m0, -1
    v_mov_b32 v8, 0
    ds_write_b64 v7, v[8:9] offset:{off}
    s_endpgm
    """.format(off=4 if bug else 0)
    path = tmp_path / "mlds.s"
    path.write_text(_PROLOGUE + body.replace("v_mov_b32 v8, 0", "v_mov_b32 v8, 0\n    v_mov_b32 v9, 0"))
    gpu = gcnemu.GPU()
    k = gcnemu.load(str(path)).kernel("mlds")
    inp, out = gpu.to_device(np.zeros(64, np.uint32)), gpu.to_device(np.zeros(64, np.uint32))
    rep = gpu.dispatch(k, grid=(64,), block=(64,), args=[inp, out, gcnemu.Local(1024)],
                       sanitize=True)
    if not bug:
        assert rep.findings == []
        return
    [f] = rep.findings
    assert (f.kind, f.lane, f.address) == ("misaligned", 0, 4) and "8 bytes" in f.detail


# --- workers, timing, CLI ------------------------------------------------------------------

def test_two_workers_give_the_same_findings(tmp_path):
    # unwaited v4, uninitialised v9, and a read of out[gid ^ 64] that another workgroup
    # writes (its value unused, so the results do not depend on the order)
    body = """
    flat_load_dword v4, v[2:3]
    v_add_i32 v4, vcc, v9, v4
    v_xor_b32 v7, 0x100, v1
    v_mov_b32 v8, s7
    v_add_i32 v7, vcc, s6, v7
    v_addc_u32 v8, vcc, 0, v8, vcc
    flat_load_dword v10, v[7:8]
    flat_store_dword v[5:6], v4
    s_waitcnt vmcnt(0)
    s_endpgm
    """
    n = 64 * 64
    found = []
    for workers in (1, 2):
        gpu = gcnemu.GPU(waves_per_batch=8)
        rep, _, (inp, out) = _run(tmp_path, "w2", body, n=n, gpu=gpu, workers=workers)
        found.append(([str(f) for f in rep.findings], out.to_numpy().tobytes()))
        if workers == 2:
            assert rep.workers == 2
    assert found[0] == found[1]
    assert {s.split(":")[0] for s in found[0][0]} == {"unwaited-read", "uninitialized-read",
                                                      "global-race"}


def test_sanitize_refuses_timing_mode(tmp_path):
    with pytest.raises(gcnemu.DispatchError, match="sanitize"):
        _run(tmp_path, "tm", "    s_endpgm\n", gpu=gcnemu.GPU(timing=True))


@pytest.mark.parametrize("wait,code", [("", 1), ("s_waitcnt vmcnt(0)", 0)])
def test_cli_run_sanitize_prints_the_findings(tmp_path, capsys, wait, code):
    from gcnemu.cli import main
    src = tmp_path / "vmcli.s"
    src.write_text(_PROLOGUE + _VMCNT.format(wait=wait))
    np.save(tmp_path / "x.npy", np.arange(64, dtype=np.uint32))
    rc = main(["run", str(src), "--kernel", "vmcli", "--grid", "64", "--sanitize",
               "--arg", f"in:{tmp_path / 'x.npy'}", "--arg", f"out:{tmp_path / 'y.npy'}:u32:64"])
    out = capsys.readouterr().out
    assert rc == code
    assert np.load(tmp_path / "y.npy").tolist() == list(range(1, 65))
    if code:
        pc = _pc_of(_PROLOGUE + _VMCNT.format(wait=wait), "v_add_i32_e32 v4, vcc, 1")
        assert "sanitizer: 1 finding:" in out
        assert f"unwaited-read: vmcli pc 0x{pc:x} `v_add_i32_e32 v4, vcc, 1, v4`" in out
    else:
        assert "sanitizer: 0 findings (no hazard seen)" in out


# --- the corpus ----------------------------------------------------------------------------

#: corpus kernels with real findings, and why (each is what the kernel does on purpose)
CORPUS_FINDINGS = {
    # "with bounds checking (out-of-range loads return 0, stores dropped)": its V#s'
    # num_records cut the last lanes off, which the hardware hides and the sanitizer shows
    "asm_mubuf": {("out-of-bounds", "buffer")},
}


def _sanitized_case(name, gpu, **kw):
    from kernels import corpus
    case = corpus.make_case(name, 0)
    prog = gcnemu.load(str(corpus.hsaco_path(name)))
    args = corpus.device_args(gpu, case)
    rep = gpu.dispatch(prog.kernel(case.kernel), grid=case.grid, block=case.block, args=args,
                       sanitize=True, **kw)
    results = {}
    for i, a in enumerate(case.args):
        if isinstance(a, (corpus.In, corpus.Out)) and i in case.expected:
            want = np.asarray(case.expected[i])
            results[i] = args[i].to_numpy(want.dtype, want.size).reshape(want.shape)
    return rep, case, results


def _corpus_names():
    from kernels import corpus
    return corpus.list_kernels()


@pytest.mark.parametrize("name", _corpus_names())
def test_corpus_kernels_have_no_findings(name):
    """Every corpus kernel with sanitize=True: its results still match the numpy reference
    (the sanitizer changes no bit), and nothing is found but what CORPUS_FINDINGS lists."""
    from kernels import corpus
    rep, case, results = _sanitized_case(name, gcnemu.GPU())
    corpus.compare_results(case, results)
    assert {(f.kind, f.what) for f in rep.findings} == CORPUS_FINDINGS.get(name, set()), \
        "\n".join(str(f) for f in rep.findings)


@pytest.mark.parametrize("name", ["asm_mubuf", "nu_last_block", "local_atomics", "histogram"])
def test_corpus_findings_and_results_on_two_workers(name):
    one, _, r1 = _sanitized_case(name, gcnemu.GPU(waves_per_batch=2), workers=1)
    two, _, r2 = _sanitized_case(name, gcnemu.GPU(waves_per_batch=2), workers=2)
    assert [str(f) for f in one.findings] == [str(f) for f in two.findings]
    assert all(np.array_equal(r1[i], r2[i]) for i in r1)


def test_strict_fault_keeps_the_findings(tmp_path):
    # a FLAT load from an unmapped address: MemoryFault (strict), whose report has the finding
    body = """
    v_mov_b32 v2, 0
    v_mov_b32 v3, 0x10
    flat_load_dword v4, v[2:3]
    s_waitcnt vmcnt(0)
    flat_store_dword v[5:6], v4
    s_endpgm
    """
    with pytest.raises(gcnemu.MemoryFault) as e:
        _run(tmp_path, "unmapped", body, n=64)
    [f] = e.value.report.findings
    assert (f.kind, f.what, f.address, f.count) == ("out-of-bounds", "global", 0x10 << 32, 64)


@pytest.mark.parametrize("wait,bug", [("", True), ("s_waitcnt expcnt(0)", False)])
def test_export_data_overwritten_before_expcnt(tmp_path, wait, bug):
    # EXP reads its VGPRs after it issues, on every generation (EXPCNT, GcnInstrsSopp.md)
    body = f"""
    v_mov_b32 v4, 1.0
    exp mrt0 v4, v4, v4, v4 done vm
    {wait}
    v_mov_b32 v4, 0
    flat_store_dword v[5:6], v4
    s_endpgm
    """
    rep, src, _ = _run(tmp_path, "expo", body, n=64)
    if not bug:
        assert rep.findings == []
        return
    [f] = rep.findings
    assert (f.kind, f.what, f.pc) == ("store-data-overwritten", "v4", _pc_of(src, "v_mov_b32_e32 v4, 0"))


# --- out-of-bounds scratch (private memory) ----------------------------------------------------

_PRIVATE = """
__kernel void private_past_end(__global const int* idx, __global int* out) {
    volatile int priv[16];          /* volatile: in scratch, not promoted to registers */
    int i = get_global_id(0);
    for (int k = 0; k < 16; k++) priv[k] = i * 16 + k;
    out[i] = priv[idx[i]];
}
"""


def _run_private(k, idx):
    """Run a private-array kernel (out[i] = priv[idx[i]], priv[j] = i * 16 + j) over ``idx``
    without and then with the sanitizer, in 64-lane workgroups; check that the sanitizer
    changes no output bit and that every in-range element reads its own priv entry. Returns
    the sanitized run's GPU and report."""
    n = len(idx)
    outs = []
    for sanitize in (False, True):
        gpu = gcnemu.GPU()
        out = gpu.empty(n, np.int32)
        rep = gpu.dispatch(k, (n,), (64,), [gpu.to_device(idx), out], sanitize=sanitize,
                           strict=False)
        outs.append(out.to_numpy())
    np.testing.assert_array_equal(outs[0], outs[1])          # the sanitizer changes nothing
    good = idx < 16
    np.testing.assert_array_equal(outs[1][good], (np.arange(n) * 16 + idx)[good])
    return gpu, rep


@pytest.mark.parametrize("bug", [True, False])
def test_private_array_read_past_its_end(tmp_path, bug):
    """A private array indexed past its end: on the hardware the read gets another
    work-item's private bytes (nothing checks it: the scratch V# covers every wave). The
    address is computed from the ABI's scratch layout (gcnemu/mem/descriptors.py: private
    byte o of lane l of wave w at base + w * 64 * bpl + 256 (o // 4) + 4 l + o % 4)."""
    path = tmp_path / "priv.cl"
    path.write_text(_PRIVATE)
    k = gcnemu.load(str(path)).kernel("private_past_end")
    n = 128
    idx = np.arange(n, dtype=np.int32) % 16
    if bug:
        idx[5] = 16                 # wave 0, lane 5: one element past the array
        idx[64 + 9] = 16            # wave 1, lane 9: past the scratch (a fault, strict=False)
    gpu, rep = _run_private(k, idx)
    if not bug:
        assert rep.findings == []
        return
    [f] = rep.findings
    bpl = -(-k.info.private_segment_fixed_size // 4) * 4      # the frame ends with priv[15]
    names = gpu.memory.alloc_names
    base = int(gpu.memory.alloc_start[names.index("private_past_end.scratch0")])
    o, lane, wave = bpl, 5, 0                                 # the first byte past the frame
    assert f.kind == "out-of-bounds" and f.what == "scratch"
    assert f.instruction.startswith("buffer_load_dword") and (f.wave, f.lane) == (wave, lane)
    assert f.address == base + wave * 64 * bpl + 256 * (o // 4) + 4 * lane + o % 4
    assert f.count == 2 and "private segment" in f.detail


def test_last_wave_private_overflow_past_the_scratch_is_scratch(tmp_path):
    """The last wave's private array read past its end lands past the scratch allocation (no
    other allocation there: a fault, strict=False): still the work-item's private overflow,
    reported as out-of-bounds "scratch", at the address of the ABI's layout (wave w's byte
    o of lane l at base + w * 64 * bpl + 256 (o // 4) + 4 l + o % 4)."""
    path = tmp_path / "priv.cl"
    path.write_text(_PRIVATE)
    k = gcnemu.load(str(path)).kernel("private_past_end")
    n = 128
    idx = np.arange(n, dtype=np.int32) % 16
    idx[64 + 9] = 16                 # wave 1 (the last), lane 9: one element past the array
    gpu = gcnemu.GPU()
    rep = gpu.dispatch(k, (n,), (64,), [gpu.to_device(idx), gpu.empty(n, np.int32)],
                       sanitize=True, strict=False)
    [f] = rep.findings
    bpl = -(-k.info.private_segment_fixed_size // 4) * 4      # the frame ends with priv[15]
    names = gpu.memory.alloc_names
    base = int(gpu.memory.alloc_start[names.index("private_past_end.scratch0")])
    o, lane, wave = bpl, 9, 1
    assert (f.kind, f.what, f.wave, f.lane, f.count) == ("out-of-bounds", "scratch", wave, lane, 1)
    assert f.address == base + wave * 64 * bpl + 256 * (o // 4) + 4 * lane + o % 4
    assert f.address >= base + 2 * 64 * bpl                    # past the scratch's two waves
    assert "private segment" in f.detail


def test_last_wave_private_overflow_with_the_wave_offset_in_soffset(tmp_path):
    """The same kernel with the wave offset passed in SOFFSET instead of added to the V# base
    (clang -S's text with LLVM's s_add_u32 s0, s0, s11 / s_addc_u32 s1, s1, 0 removed and
    SOFFSET s11 on every scratch access): by GcnMemHandling.md's rule for STRIDE == 0 (out
    of range iff BUFOFFSET >= NUM_RECORDS - SOFFSET, NUM_RECORDS the scratch's bytes) the
    last wave's overflow is now out of the V#'s range: the load reads 0, nothing faults, and
    the sanitizer reports it as out-of-bounds "scratch" at base + SOFFSET + BUFOFFSET."""
    clang, _ = toolchain()
    cl = tmp_path / "priv.cl"
    cl.write_text(_PRIVATE)
    asm = subprocess.run([clang, *CL_FLAGS, "-S", str(cl), "-o", "-"], capture_output=True,
                         text=True, check=True).stdout
    moved = ["s_add_u32 s0, s0, s11", "s_addc_u32 s1, s1, 0"]
    assert all(asm.count(m) == 1 for m in moved) and asm.count("s[0:3], 0 ") == 17
    for m in moved:
        asm = asm.replace(m, "")
    path = tmp_path / "priv_soffset.s"
    path.write_text(asm.replace("s[0:3], 0 ", "s[0:3], s11 "))
    k = gcnemu.load(str(path)).kernel("private_past_end")
    n = 128
    idx = np.arange(n, dtype=np.int32) % 16
    idx[64 + 9] = 16                 # wave 1 (the last), lane 9: one element past the array
    gpu = gcnemu.GPU()
    out = gpu.empty(n, np.int32)
    rep = gpu.dispatch(k, (n,), (64,), [gpu.to_device(idx), out], sanitize=True, strict=False)
    bpl = -(-k.info.private_segment_fixed_size // 4) * 4
    o, lane, wave = bpl, 9, 1
    bufoffset = 256 * (o // 4) + 4 * lane + o % 4     # swizzled: element 4, index stride 64
    assert bufoffset >= 2 * 64 * bpl - wave * 64 * bpl    # >= NUM_RECORDS - SOFFSET
    got = out.to_numpy()
    want = np.arange(n) * 16 + idx
    want[64 + 9] = 0
    np.testing.assert_array_equal(got, want)
    assert rep.faults == []
    [f] = rep.findings
    base = int(gpu.memory.alloc_start[gpu.memory.alloc_names.index("private_past_end.scratch0")])
    assert (f.kind, f.what, f.wave, f.lane, f.count) == ("out-of-bounds", "scratch", wave, lane, 1)
    assert f.address == base + wave * 64 * bpl + bufoffset
    assert "reads 0" in f.detail


# a private array read through a generic pointer (OpenCL 2.0): `pick` loads with FLAT, through
# the private aperture (the aperture offset is the work-item's private byte offset)
_FLAT_PRIVATE = """
__attribute__((noinline)) int pick(volatile int* p, int j) { return p[j]; }
__kernel void flat_private_past_end(__global const int* idx, __global int* out) {
    volatile int priv[16];
    int i = get_global_id(0);
    for (int k = 0; k < 16; k++) priv[k] = i * 16 + k;
    out[i] = pick(priv, idx[i]);
}
"""


@pytest.mark.parametrize("bug", [True, False])
def test_flat_private_aperture_read_past_the_private_bytes(tmp_path, bug):
    """FLAT through the private aperture past the work-item's private bytes: reported at the
    scratch byte it reaches, by the ABI's swizzled layout (gcnemu/mem/descriptors.py: the
    aperture offset o of lane l of wave w at base + w * 64 * bpl + 256 (o // 4) + 4 l + o % 4)."""
    path = tmp_path / "flatpriv.cl"
    path.write_text(_FLAT_PRIVATE)
    k = gcnemu.load(str(path), options=["-cl-std=CL2.0"]).kernel("flat_private_past_end")
    text = [format_instruction(i) for i in k.program.instructions]
    # where priv lives: the kernel's 16 stores of priv[k] (buffer_store_dword ... offset:N),
    # the lowest N is priv[0]'s private offset
    stores = sorted(int(t.rsplit("offset:", 1)[1]) for t in text
                    if t.startswith("buffer_store_dword") and "offset:" in t)
    assert len(stores) == 16 and stores == list(range(stores[0], stores[0] + 64, 4))
    assert any(t.startswith("flat_load_dword") and "glc" in t for t in text)   # in pick
    bpl = -(-k.info.private_segment_fixed_size // 4) * 4
    far = (bpl - stores[0]) // 4          # the first element at or past the private bytes
    n = 128
    idx = np.arange(n, dtype=np.int32) % 16
    if bug:
        idx[5] = far                      # wave 0, lane 5
    gpu, rep = _run_private(k, idx)
    if not bug:
        assert rep.findings == []
        return
    [f] = rep.findings
    names = gpu.memory.alloc_names
    base = int(gpu.memory.alloc_start[names.index("flat_private_past_end.scratch0")])
    o, lane, wave = stores[0] + 4 * far, 5, 0
    assert o + 4 > bpl
    assert (f.kind, f.what, f.wave, f.lane, f.count) == ("out-of-bounds", "scratch", wave, lane, 1)
    assert f.instruction.startswith("flat_load_dword")
    assert f.address == base + wave * 64 * bpl + 256 * (o // 4) + 4 * lane + o % 4
