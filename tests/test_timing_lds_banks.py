"""gcnemu.timing.trace.ds_conflict_degree against a set-based model of the seed's rule: per
half wave, the most distinct dwords one of 32 four-byte banks must deliver."""
import numpy as np
import pytest

from gcnemu.timing.trace import ds_conflict_degree


def _reference(addrs, off, ex):
    worst = 1
    for half in range(2):
        banks = {}
        for lane in range(32 * half, 32 * half + 32):
            if ex >> lane & 1:
                dword = (int(addrs[lane]) + off) >> 2
                banks.setdefault(dword % 32, set()).add(dword)
        worst = max([worst] + [len(d) for d in banks.values()])
    return worst


def _patterns():
    lanes = np.arange(64)
    rng = np.random.default_rng(7)
    yield "consecutive", lanes * 4, 0
    yield "consecutive with offset", lanes * 4 + 1000, 12
    yield "broadcast", np.full(64, 256), 0
    for stride in (2, 3, 4, 8, 16, 32, 33, 64):
        yield f"stride {stride} dwords", lanes * 4 * stride, 0
    yield "two rows of a tile", (lanes % 16) * 4 + (lanes // 16) * 64 * 4, 0
    yield "reversed", (63 - lanes) * 4, 0
    yield "broadcast and consecutive mixed", np.where(lanes % 3 == 0, 0, lanes * 4), 0
    yield "unaligned bytes", lanes * 4 + 2, 1
    for k in range(6):
        yield f"random {k}", rng.integers(0, 1 << 12, 64) * 4, 0
        yield f"random small {k}", rng.integers(0, 40, 64) * 4, 0


@pytest.mark.parametrize("exec_mask", [(1 << 64) - 1, 0x5555555555555555, 0xFFFF0000FFFF0001, 1 << 40, 0])
@pytest.mark.parametrize("name,addrs,off", list(_patterns()), ids=[p[0] for p in _patterns()])
def test_conflict_degree(name, addrs, off, exec_mask):
    vgpr = np.zeros((3, 64), np.uint32)
    vgpr[1] = np.asarray(addrs, np.int64).astype(np.uint32)
    got = ds_conflict_degree(vgpr, 1, np.int64(off), np.uint64(exec_mask))
    assert got == _reference(vgpr[1], off, exec_mask), name
