"""flat_load_ubyte/sbyte/ushort/sshort and flat_store_byte/short: the engine's row kernels
(mem/flat.py _flat_small_rows) against numpy.

Expected values come from the buffer's bytes with numpy: unaligned addresses, partial EXEC
(inactive lanes keep their registers and write nothing), a destination that is the address
row itself, a lane in the unmapped guard page among fast lanes (the whole access then runs
lane by lane: that lane reads 0 and is recorded as a fault, the others load, even though the
destination overwrote the address row), and stores where several lanes hit the same bytes
(the last active lane wins).
"""
from __future__ import annotations

import numpy as np
import pytest

from gcnemu.mem.space import PAGE_SIZE
from test_mem_helpers import LANES, Memory, run

EXEC = 0xF0F0_5A5A_FFFF_0001 | (1 << 63) | (1 << 5)   # partial, incl. lanes 5 and 63
#: mnemonic -> (bytes, numpy type of the loaded value)
LOADS = {"flat_load_ubyte": (1, np.uint8), "flat_load_sbyte": (1, np.int8),
         "flat_load_ushort": (2, np.uint16), "flat_load_sshort": (2, np.int16)}


def _rows(addr):
    a = np.asarray(addr, np.uint64)
    return (a & np.uint64(0xFFFFFFFF)).astype(np.uint32), (a >> np.uint64(32)).astype(np.uint32)


def _buffer(seed):
    mem = Memory()
    size = 2 * PAGE_SIZE
    buf = mem.allocate(size)
    data = np.random.default_rng(seed).integers(0, 256, size, dtype=np.uint8)
    mem.write(buf, data)
    return mem, buf, size, data


@pytest.mark.parametrize("slow_lane", [False, True])
@pytest.mark.parametrize("op", sorted(LOADS))
def test_flat_load_byte_short_into_the_address_row(op, slow_lane):
    nb, t = LOADS[op]
    mem, buf, size, data = _buffer(nb)
    rng = np.random.default_rng(7)
    addr = (buf + rng.integers(0, size - nb + 1, 64)).astype(np.uint64)   # unaligned too
    addr[5] = buf + size - nb            # the last bytes of the buffer
    if slow_lane:
        addr[63] = buf + size + 3        # in the guard page: the access runs lane by lane
    lo, hi = _rows(addr)
    r = run(f"{op} v2, v[2:3]", vgpr={2: lo, 3: hi}, mem=mem, exec_mask=EXEC)
    faults = []
    for lane in range(64):
        got = int(r.vgpr[2, lane])
        if not (EXEC >> lane) & 1:
            assert got == int(lo[lane]), lane          # inactive: the address stays
            continue
        o = int(addr[lane]) - buf
        if o + nb > size:
            assert got == 0, lane
            faults.append((int(addr[lane]), lane, 0))
            continue
        want = int(np.frombuffer(data[o:o + nb].tobytes(), t)[0]) & 0xFFFFFFFF
        assert got == want, (lane, hex(got), hex(want))
    assert [(f[0], f[2], f[3]) for f in r.faults] == faults
    assert mem.read(buf, size) == data.tobytes()


@pytest.mark.parametrize("slow_lane", [False, True])
@pytest.mark.parametrize("op,nb", [("flat_store_byte", 1), ("flat_store_short", 2)])
def test_flat_store_byte_short_lane_order(op, nb, slow_lane):
    mem, buf, size, data = _buffer(10 + nb)
    # eight addresses shared by many lanes (unaligned, some overlapping by one byte): the
    # last active lane of each wins
    spots = buf + np.array([1, 2, 3, 100, 101, 4095, 4096, 8190 - nb + 1], np.uint64)
    addr = spots[(LANES * 5) % len(spots)].astype(np.uint64)
    if slow_lane:
        addr[63] = buf + size + 1
    lo, hi = _rows(addr)
    value = (0xA1B2C300 + LANES * 0x01010101).astype(np.uint32)
    r = run(f"{op} v[2:3], v4", vgpr={2: lo, 3: hi, 4: value}, mem=mem, exec_mask=EXEC)
    want = bytearray(data.tobytes())
    faults = []
    for lane in range(64):
        if not (EXEC >> lane) & 1:
            continue
        o = int(addr[lane]) - buf
        if o + nb > size:
            faults.append((int(addr[lane]), lane, 1))
            continue
        want[o:o + nb] = int(value[lane]).to_bytes(4, "little")[:nb]
    assert mem.read(buf, size) == bytes(want)
    assert [(f[0], f[2], f[3]) for f in r.faults] == faults
