"""flat_load/store_dword[x2,x3,x4]: the unrolled per-count fast loops against numpy.

Expected values are computed from the buffer contents with numpy, independently of
gcnemu.memory: partial EXEC (inactive lanes keep their registers and write nothing), lanes
whose access straddles into the unmapped guard page after a buffer (their in-page dwords are
accessed, the rest read 0 / are dropped, faults recorded in lane order), a lane on an
unmapped address among fast lanes, x4 loads whose destination overlaps the address
registers, and stores where several lanes hit the same dwords (the last lane wins).
"""
from __future__ import annotations

import numpy as np
import pytest

from gcnemu.memory import PAGE_SIZE
from test_memops_helpers import LANES, Memory, run

EXEC = 0xF0F0_5A5A_FFFF_0001 | (1 << 63) | (1 << 5)   # partial, incl. lanes 5 and 63


def _rows(addr):
    a = np.asarray(addr, np.uint64)
    return (a & np.uint64(0xFFFFFFFF)).astype(np.uint32), (a >> np.uint64(32)).astype(np.uint32)


def _on(lane):
    return (EXEC >> lane) & 1


def _setup(n):
    mem = Memory()
    size = 2 * PAGE_SIZE
    buf = mem.allocate(size)
    words = (np.arange(size // 4, dtype=np.uint32) * np.uint32(2654435761)) ^ np.uint32(0x5EED)
    mem.write(buf, words)
    rng = np.random.default_rng(n)
    dw = rng.integers(0, size // 4 - n + 1, 64)
    addr = (buf + 4 * dw).astype(np.uint64)
    addr[5] = buf + size - 8          # straddles into the guard page (for n > 2)
    addr[63] = buf + size + 64        # wholly in the guard page
    return mem, buf, size, words, addr


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_flat_load_dwords(n):
    mem, buf, size, words, addr = _setup(n)
    lo, hi = _rows(addr)
    dst = 10
    name = "flat_load_dword" + ("" if n == 1 else f"x{n}")
    regs = f"v{dst}" if n == 1 else f"v[{dst}:{dst + n - 1}]"
    init = {dst + i: 0xDEAD0000 + LANES + i for i in range(n)}
    r = run(f"{name} {regs}, v[2:3]", vgpr={2: lo, 3: hi, **init}, mem=mem, exec_mask=EXEC)
    want_faults = []
    for lane in range(64):
        for i in range(n):
            got = int(r.vgpr[dst + i, lane])
            if not _on(lane):
                assert got == 0xDEAD0000 + lane + i
                continue
            a = int(addr[lane]) + 4 * i
            if a + 4 <= buf + size:
                assert got == int(words[(a - buf) // 4]), (lane, i)
            else:
                assert got == 0, (lane, i)
                want_faults.append((a, lane, 0))
    assert [(f[0], f[2], f[3]) for f in r.faults] == want_faults
    assert mem.read(buf, size) == words.tobytes()


def test_flat_load_dwordx4_dst_overlaps_address():
    mem, buf, size, words, addr = _setup(4)
    lo, hi = _rows(addr)
    r = run("flat_load_dwordx4 v[2:5], v[2:3]", vgpr={2: lo, 3: hi, 4: 7, 5: 8}, mem=mem,
            exec_mask=EXEC)
    want_faults = []
    for lane in range(64):
        if not _on(lane):
            assert [int(r.vgpr[2 + i, lane]) for i in range(4)] == [lo[lane], hi[lane], 7, 8]
            continue
        for i in range(4):
            a = int(addr[lane]) + 4 * i
            ok = a + 4 <= buf + size
            assert int(r.vgpr[2 + i, lane]) == (int(words[(a - buf) // 4]) if ok else 0)
            if not ok:
                want_faults.append((a, lane, 0))
    assert [(f[0], f[2], f[3]) for f in r.faults] == want_faults
    # and x2 into exactly the address pair
    r = run("flat_load_dwordx2 v[2:3], v[2:3]", vgpr={2: lo, 3: hi}, mem=mem, exec_mask=EXEC)
    for lane in range(64):
        if _on(lane) and lane != 63:
            a = int(addr[lane])
            assert int(r.vgpr[2, lane]) == int(words[(a - buf) // 4])
            assert int(r.vgpr[3, lane]) == int(words[(a - buf) // 4 + 1])


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_flat_store_dwords(n):
    mem, buf, size, words, addr = _setup(n)
    addr[7] = addr[6]                 # same dwords: the later lane wins
    addr[20] = addr[17] + 4           # overlapping by n - 1 dwords
    lo, hi = _rows(addr)
    name = "flat_store_dword" + ("" if n == 1 else f"x{n}")
    regs = "v10" if n == 1 else f"v[10:{10 + n - 1}]"
    data = {10 + i: (LANES * np.uint32(0x01010101)) ^ np.uint32(0xC0000000 + i) for i in range(n)}
    r = run(f"{name} v[2:3], {regs}", vgpr={2: lo, 3: hi, **data}, mem=mem, exec_mask=EXEC)
    want = words.copy()
    want_faults = []
    for lane in range(64):
        if not _on(lane):
            continue
        for i in range(n):
            a = int(addr[lane]) + 4 * i
            if a + 4 <= buf + size:
                want[(a - buf) // 4] = data[10 + i][lane]
            else:
                want_faults.append((a, lane, 1))
    assert np.array_equal(np.frombuffer(mem.read(buf, size), np.uint32), want)
    assert [(f[0], f[2], f[3]) for f in r.faults] == want_faults


def test_flat_load_dword_private_aperture_lane_among_fast_lanes():
    # lane 3 addresses the private aperture: it goes to its (swizzled) scratch address, dword
    # 4 of lane 3 of a wave at scratch base 0 -> 4 * 256 + 3 * 4, unmapped here: fault, 0
    mem, buf, size, words, addr = _setup(1)
    addr[63] = addr[0]
    addr[3] = (0x20000000 << 32) | 0x10
    lo, hi = _rows(addr)
    r = run("flat_load_dword v6, v[2:3]", vgpr={2: lo, 3: hi, 6: 5}, mem=mem)
    for lane in range(64):
        want = 0 if lane == 3 else int(words[(int(addr[lane]) - buf) // 4])
        assert int(r.vgpr[6, lane]) == want
    assert [(f[0], f[2], f[3]) for f in r.faults] == [(4 * 256 + 3 * 4, 3, 0)]
