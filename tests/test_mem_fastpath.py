"""The in-place fast paths of FLAT, MUBUF, DS and SMRD against their per-dword fallbacks.

The engine reads and writes whole lane accesses in place when every byte is backed and
mapped, and falls back to per-dword accesses (which record faults) otherwise; DS and FLAT use
uint32 views for aligned dwords and byte loops for the rest. These tests put accesses on
the boundaries: a multi-dword access half in a buffer's last page and half in its guard page,
unaligned dwords, bytes with sign extension, GDS at an odd base, and the per-batch set-up a
dispatch copies from its first batch.
"""
from __future__ import annotations

import numpy as np
import pytest

import gcnemu
from gcnemu.mem.space import PAGE_SIZE
from test_mem_helpers import LANES, Memory, run

ALL = (1 << 64) - 1


def _addr_rows(addr):
    a = np.asarray(addr, np.uint64)
    return (a & np.uint64(0xFFFFFFFF)).astype(np.uint32), (a >> np.uint64(32)).astype(np.uint32)


def test_flat_dwordx4_half_in_the_guard_page():
    mem = Memory()
    buf = mem.allocate(PAGE_SIZE)
    mem.write(buf, np.arange(64, dtype=np.uint32) + 1000)
    # lanes 0 and 2: the last 8 bytes of the buffer's page, then 8 bytes of the guard page;
    # lane 1 (off in EXEC for the x4 load) and lane 3: wholly inside the page
    addr = np.full(64, buf + PAGE_SIZE - 8, np.uint64)
    addr[3] = buf + 16
    lo, hi = _addr_rows(addr)
    r = run("flat_load_dwordx4 v[10:13], v[2:3]", vgpr={2: lo, 3: hi, 10: 7, 11: 7, 12: 7, 13: 7},
            mem=mem, exec_mask=0b1101)
    for lane in (0, 2):
        assert [int(r.vgpr[10 + i, lane]) for i in range(4)] == [1062, 1063, 0, 0]
    assert [int(r.vgpr[10 + i, 3]) for i in range(4)] == [1004, 1005, 1006, 1007]
    assert [int(r.vgpr[10 + i, 1]) for i in range(4)] == [7, 7, 7, 7]   # inactive lane kept
    guard = buf + PAGE_SIZE
    assert [(f[0], f[2], f[3]) for f in r.faults] == [
        (guard, 0, 0), (guard + 4, 0, 0), (guard, 2, 0), (guard + 4, 2, 0)]


def test_flat_store_dwordx2_half_in_the_guard_page_and_unaligned_dwords():
    mem = Memory()
    size = 2 * PAGE_SIZE
    buf = mem.allocate(size)
    # lane 0: the buffer's last dword, then the guard page; lanes 1..63: unaligned, in place
    addr = np.array([buf + size - 4] + [buf + 1 + 8 * (l - 1) for l in range(1, 64)], np.uint64)
    lo, hi = _addr_rows(addr)
    r = run("flat_store_dwordx2 v[2:3], v[4:5]",
            vgpr={2: lo, 3: hi, 4: 0x11223344 + LANES, 5: 0xA0B0C0D0 + LANES}, mem=mem)
    want = bytearray(size)
    for lane in range(1, 64):
        o = 1 + 8 * (lane - 1)
        want[o:o + 8] = (int(0x11223344 + lane) | int(0xA0B0C0D0 + lane) << 32).to_bytes(8, "little")
    want[size - 4:] = (0x11223344).to_bytes(4, "little")
    assert mem.read(buf, size) == bytes(want)
    assert [(f[0], f[2], f[3]) for f in r.faults] == [(buf + size, 0, 1)]
    # and back, unaligned, through the byte path of the loads
    r = run("flat_load_dword v6, v[2:3]\nflat_load_sbyte v7, v[2:3]\nflat_load_ubyte v8, v[2:3]",
            vgpr={2: lo, 3: hi}, mem=mem, exec_mask=ALL & ~1)
    for lane in range(1, 64):
        assert int(r.vgpr[6, lane]) == 0x11223344 + lane
        b = (0x44 + lane) & 0xFF
        assert int(r.vgpr[7, lane]) == (b - 256 if b >= 128 else b) & 0xFFFFFFFF
        assert int(r.vgpr[8, lane]) == b
    assert r.faults == []


def test_buffer_dword_in_place_and_at_the_guard_page():
    mem = Memory()
    buf = mem.allocate(PAGE_SIZE)
    mem.write(buf, np.arange(64, dtype=np.uint32) * 3)
    # raw buffer, num_records past the page so that the range check passes at the guard page
    vsharp = {8: buf & 0xFFFFFFFF, 9: buf >> 32, 10: 2 * PAGE_SIZE, 11: 0x27000}
    offs = (LANES * 4).astype(np.uint32)
    offs[5] = PAGE_SIZE + 8          # in range, unmapped: 0 and a fault
    offs[6] = 2                      # unaligned dword: aligned down to bytes 0..3 (CLRX)
    r = run("buffer_load_dword v1, v2, s[8:11], 0 offen\n"
            "buffer_store_dword v1, v3, s[8:11], 0 offen", sgpr=vsharp,
            vgpr={2: offs, 3: (offs + 1024) % (2 * PAGE_SIZE)}, mem=mem)
    raw = (np.arange(64, dtype=np.uint32) * 3).view(np.uint8)
    for lane in range(64):
        if lane == 5:
            want = 0
        elif lane == 6:
            want = int.from_bytes(bytes(raw[0:4]), "little")
        else:
            want = 3 * lane
        assert int(r.vgpr[1, lane]) == want, lane
    assert [(f[0], f[2], f[3]) for f in r.faults][:1] == [(buf + PAGE_SIZE + 8, 5, 0)]


def test_ds_gds_at_an_odd_base_uses_the_byte_path():
    # GDS base 1 (M0[31:16]), size 64: dwords land at odd LDS-array offsets
    r = run("ds_write_b32 v1, v2 gds\n"
            "s_waitcnt lgkmcnt(0)\n"
            "ds_read_b32 v3, v1 gds\n"
            "ds_read_u8 v4, v1 offset:1 gds\n"
            "ds_read2_b32 v[5:6], v1 offset1:1 gds",
            vgpr={1: (LANES % 16) * 4, 2: 0x01020304 + (LANES % 16) * 0x100}, m0=(1 << 16) | 64,
            exec_mask=0xFFFF)
    for lane in range(16):
        v = 0x01020304 + lane * 0x100
        assert int(r.vgpr[3, lane]) == v
        assert int(r.vgpr[4, lane]) == (v >> 8) & 0xFF
        nxt = 0x01020304 + (lane + 1) * 0x100 if lane < 15 else 0
        assert (int(r.vgpr[5, lane]), int(r.vgpr[6, lane])) == (v, nxt)


@pytest.mark.parametrize("skew,dwords,words", [(0, 0, 16), (0, 62, 4), (2, 1, 2)])
def test_smrd_in_place_and_at_the_guard_page(skew, dwords, words):
    """s_load_dword[xN] in place (engine: mem.scalar.smem_in_place) and, with dwords past the
    buffer (or a base that is not 4-aligned), by smem: dwords past the buffer read 0 and are
    recorded as faults (lane -1), the others load, from the base as it is plus the offset
    (CLRX GcnInstrsSmrd.md; the assembler's offset counts dwords)."""
    mem = Memory()
    buf = mem.allocate(PAGE_SIZE)
    data = (np.arange(PAGE_SIZE // 4, dtype=np.uint32) * np.uint32(0x9E3779B1)).tobytes()
    mem.write(buf, np.frombuffer(data, np.uint8))
    base = buf + skew
    name = "s_load_dword" if words == 1 else f"s_load_dwordx{words}"
    r = run(f"{name} s[16:{15 + words}], s[4:5], {dwords:#x}\ns_waitcnt lgkmcnt(0)",
            sgpr={4: base & 0xFFFFFFFF, 5: base >> 32}, mem=mem)
    faults = []
    for i in range(words):
        a = base + 4 * dwords + 4 * i
        if a + 4 <= buf + PAGE_SIZE:
            want = int.from_bytes(data[a - buf:a - buf + 4], "little")
        else:
            want = 0
            faults.append((a, -1, 0))
        assert int(r.sgpr[16 + i]) == want, i
    assert [(f[0], f[2], f[3]) for f in r.faults] == faults


KERNEL = """
s_load_dwordx2 s[6:7], s[0:1], 0x0
s_getreg_b32 s8, hwreg(HW_REG_HW_ID)
s_mul_i32 s9, s3, 5
s_add_u32 s9, s9, s2
s_lshl_b32 s9, s9, 10
v_mbcnt_lo_u32_b32_e64 v4, -1, 0
v_mbcnt_hi_u32_b32_e64 v4, -1, v4
v_lshlrev_b32_e32 v4, 4, v4
v_add_i32_e32 v4, vcc, s9, v4
s_waitcnt lgkmcnt(0)
v_mov_b32_e32 v5, s7
v_add_i32_e32 v4, vcc, s6, v4
v_addc_u32_e32 v5, vcc, 0, v5, vcc
v_mov_b32_e32 v6, s2
v_mov_b32_e32 v7, s3
v_mov_b32_e32 v8, s8
v_lshlrev_b32_e32 v9, 8, v1
v_or_b32_e32 v9, v9, v0
flat_store_dwordx4 v[4:5], v[6:9]
s_endpgm
"""


def test_batches_copied_from_the_first_set_up_workgroup_ids_and_hw_id(tmp_path):
    """GPU._init_batch copies a full batch's state from the first one and patches workgroup
    ids and HW_ID: the same bits as one batch set up from scratch, and the values the ABI
    gives (a 5 x 3 grid of 8 x 8 groups; x = 36, y = 20 cuts the last column and row)."""
    src = tmp_path / "ids.s"
    src.write_text(KERNEL)
    outs = []
    for wpb in (1, 2, 1000):
        gpu = gcnemu.GPU(waves_per_batch=wpb)
        k = gcnemu.load(str(src)).kernel("ids")
        out = gpu.empty(15 * 64 * 16)
        gpu.dispatch(k, grid=(36, 20), block=(8, 8), args=[out])
        outs.append(out.to_numpy(np.uint32).reshape(15, 64, 4))
    assert np.array_equal(outs[0], outs[2]) and np.array_equal(outs[1], outs[2])
    o = outs[0]
    cus = gcnemu.GPU().config.compute_units
    for gy in range(3):
        for gx in range(5):
            g = gy * 5 + gx
            sx, sy = (8 if gx < 4 else 4), (8 if gy < 2 else 4)
            for lane in range(sx * sy):
                assert list(o[g, lane]) == [gx, gy, (g % cus) << 8,
                                            (lane % sx) | ((lane // sx) << 8)], (g, lane)
            assert not o[g, sx * sy:].any()
