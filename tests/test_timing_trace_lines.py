"""The 64-byte lines a FLAT access's trace record lists (gcnemu.timing.trace.trace_memory),
against the set of lines each active lane's bytes touch, computed here with Python integers:
a full-EXEC row of consecutive elements takes trace_memory's one-range path, addresses that
never go back its one-pass path, the other patterns its per-lane path; all must give the
sorted distinct lines."""
import numpy as np
import pytest

from gcnemu.exec.layout import EXEC_HI, EXEC_LO, NWS
from gcnemu.snippet import _to_program
from gcnemu.timing.trace import trace_memory

LANES = np.arange(64)
FULL = (1 << 64) - 1


def _expected(addrs, nbytes, ex):
    lines = set()
    for lane in range(64):
        if ex >> lane & 1:
            a = int(addrs[lane])
            lines.update(range(a >> 6, ((a + nbytes - 1) >> 6) + 1))
    return sorted(lines)


@pytest.mark.parametrize("op,nbytes", [("flat_load_ubyte", 1), ("flat_load_ushort", 2),
                                       ("flat_load_dword", 4), ("flat_load_dwordx2", 8),
                                       ("flat_load_dwordx4", 16)])
@pytest.mark.parametrize("name,addrs,ex", [
    ("consecutive, aligned", lambda n: 0x10000 + LANES * n, FULL),
    ("consecutive, unaligned", lambda n: 0x10000 + 37 + LANES * n, FULL),
    ("consecutive, above 4 GB", lambda n: (5 << 32) + 60 + LANES * n, FULL),
    ("consecutive, one lane off", lambda n: 0x10000 + LANES * n + (LANES == 9) * 4096, FULL),
    ("consecutive, partial EXEC", lambda n: 0x10000 + LANES * n, 0xFFFF0000FFFF00F0),
    ("reversed", lambda n: 0x20000 + (63 - LANES) * n, FULL),
    ("strided", lambda n: 0x20000 + LANES * 256, FULL),
    ("broadcast", lambda n: np.full(64, 0x3000 + 3), FULL),
    # rows of a tile (16 lanes a row): the addresses never go back, one pass lists them
    ("tile rows", lambda n: 0x40000 + 30 + (LANES % 16) * n + (LANES // 16) * 2048, FULL),
    ("tile rows, partial EXEC", lambda n: 0x40000 + (LANES % 16) * n + (LANES // 16) * 2048,
     0x0FF0FFFF00000FF0),
    ("tile rows, overlapping", lambda n: 0x40000 + 7 + (LANES % 16) * n + (LANES // 16) * 8 * n,
     FULL),
    ("tile rows, bottom up", lambda n: 0x40000 + (LANES % 16) * n + (3 - LANES // 16) * 2048,
     FULL),
    ("tile rows, above 2^62", lambda n: (1 << 62) - 2048 + (LANES % 16) * n +
     (LANES // 16) * 1024, FULL),
    # lane 9 starts in the line before lane 8's (which no lane touches) and ends in it
    ("strided, one lane reaching back", lambda n: np.where(
        LANES == 9, 0x40000 + 128 * 8 - 1, 0x40000 + 128 * LANES + 8), FULL),
])
def test_flat_record_lists_the_touched_lines(op, nbytes, name, addrs, ex):
    ndst = max(1, nbytes // 4)
    dst = "v4" if ndst == 1 else f"v[4:{3 + ndst}]"
    prog = _to_program(f"{op} {dst}, v[2:3]\ns_endpgm")
    a = np.asarray(addrs(nbytes), np.uint64)
    vgpr = np.zeros((8, 64), np.uint32)
    vgpr[2] = (a & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    vgpr[3] = (a >> np.uint64(32)).astype(np.uint32)
    sregs = np.zeros((1, 128), np.uint32)
    sregs[0, EXEC_LO] = ex & 0xFFFFFFFF
    sregs[0, EXEC_HI] = ex >> 32
    ws = np.zeros((1, NWS), np.int64)     # the wave's VGPRs from row 0 (WS_VBASE = 0)
    tr = np.full(4096, -5, np.int64)
    end = trace_memory(prog.code[0], 0, sregs, ws, vgpr, tr, 10)
    want = _expected(a, nbytes, ex)
    assert tr[10] == len(want), name
    assert end == 11 + len(want)
    assert tr[11:end].tolist() == want, name
