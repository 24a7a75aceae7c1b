"""Global int/uint atomics from 2048 work-items; only order-independent results are compared
(the final cell values and each item's own xchg/cmpxchg return values)."""
import numpy as np

from kernels.corpus import Case, In, InOut

N = 2048


def case(rng):
    v = rng.integers(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)
    u = v.view(np.uint32)
    icell = np.array([2**31 - 1, -2**31, 7, 1000], np.int32)
    ucell = np.array([0xFFFFFFFF, 0, 0, 0xFFFFFFFF, 0, 0x12345678, 5, 5], np.uint32)
    mine = rng.integers(-1000, 1000, 2 * N).astype(np.int32)
    mine[1::2][::3] = np.arange(0, N, 3)  # every 3rd cmpxchg compare value matches
    wi = np.empty(4, np.int64)
    wi[0] = min(int(icell[0]), int(v.min()))
    wi[1] = max(int(icell[1]), int(v.max()))
    wi[2] = (int(icell[2]) + int(v.astype(np.int64).sum())) & 0xFFFFFFFF
    wi[3] = (int(icell[3]) + int((v & 0xFF).astype(np.int64).sum())) & 0xFFFFFFFF
    want_i = (wi & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    wu = [min(0xFFFFFFFF, int(u.min())), max(0, int(u.max())),
          (0 - int(u.astype(np.int64).sum())) & 0xFFFFFFFF]
    acc = 0xFFFFFFFF
    for i in range(N):
        acc &= (~(1 << (i & 31)) & 0xFFFFFFFF) | int(u[i])
    bits = 0
    for x in u.tolist():
        bits |= 1 << (x & 31)
    x5 = 0x12345678
    for x in u.tolist():
        x5 ^= x
    # atomic_inc/atomic_dec: plain +1/-1 wrapping (OpenCL 1.x semantics)
    wu += [acc, bits, x5, (5 + N) & 0xFFFFFFFF, (5 - N) & 0xFFFFFFFF]
    want_u = np.array(wu, np.uint32)
    want_mine = mine.copy()
    want_mine[0::2] = v
    ok = mine[1::2] == np.arange(N)
    want_mine[1::2] = np.where(ok, v ^ 0x5555, mine[1::2])
    old = np.empty(2 * N, np.int32)
    old[0::2] = mine[0::2]
    old[1::2] = mine[1::2]
    from kernels.corpus import Out
    return Case("atomics_global", (N,), (256,),
                [In(v), InOut(icell), InOut(ucell), InOut(mine), Out(np.int32, 2 * N)],
                {1: want_i, 2: want_u, 3: want_mine, 4: old})
