"""asm_crosslane: lane reads/writes and mask counting, 16 waves (one per group).
Semantics: v_mbcnt_lo(mask, acc) = acc + popcount(mask[31:0] & ((1 << lane) - 1)) for lanes
0..31 (all of mask[31:0] below lane, capped at 32 lanes); v_mbcnt_hi(mask, acc) adds
popcount(mask[63:32] & ((1 << (lane - 32)) - 1)) for lanes >= 32; v_readfirstlane reads the
lowest active lane; v_readlane's lane select is S1[5:0]."""
import numpy as np

from kernels.corpus import Case, In, Out

GROUPS = 16
N = 64 * GROUPS


def reference(x):
    out = np.zeros((GROUPS, 64, 10), np.int64)
    for g in range(GROUPS):
        w = x[g * 64:(g + 1) * 64].astype(np.int64)
        sel = (w & 0xFF) > 100
        lanes = np.nonzero(sel)[0]
        for lane in range(64):
            o = out[g, lane]
            o[0], o[1], o[2] = w[0], w[17], w[g & 63]
            o[3] = w[0] if lane == 5 else lane
            o[4] = lane
            o[5] = int(sel[:lane].sum()) if sel[lane] else 0xFFFFFFFF
            o[6] = w[lanes[0]] if sel[lane] else 0
            o[7] = len(lanes)
            o[8] = lanes[0] if len(lanes) else 0xFFFFFFFF
            o[9] = w[63]
    return out.astype(np.uint32).reshape(-1)


def case(rng):
    x = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    x[64:128] &= np.uint32(0xFFFFFF00)  # group 1: no lane passes (EXEC = 0 branch, ff1 = -1)
    x[128:192] |= np.uint32(0xFF)  # group 2: all lanes pass
    x[192 + 33] |= np.uint32(0xFF)
    x[192:192 + 33] &= np.uint32(0xFFFFFF00)  # group 3: first passing lane is >= 33
    return Case("asm_crosslane", (N,), (64,), [In(x), Out(np.uint32, 10 * N)],
                {1: reference(x)})
