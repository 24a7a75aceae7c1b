"""asm_flow: divergent loops on EXEC, uniform branches on VCC/SCC, s_getpc/s_setpc jumps,
s_swappc_b64 subroutine call, if/else EXEC masking, s_movrels/s_movreld (SGPR[n + M0]) and
v_movrels/v_movreld (VGPR[n + M0]). 8 groups of one wave; group 0 has only x < 2**28,
group 1 only x >= 2**28 (the s_cbranch_vccz path)."""
import numpy as np

from kernels.corpus import Case, In, Out

GROUPS = 8
N = 64 * GROUPS
M = 0xFFFFFFFF


def reference(x):
    out = np.zeros((N, 16), np.int64)
    for g in range(GROUPS):
        w = [int(v) for v in x[g * 64:(g + 1) * 64]]
        any_small = any((v & 0xF0000000) == 0 for v in w)
        m0 = g & 3
        s = [10, 20, 30, 40]
        movrels = s[m0]
        s[m0] = 99
        for lane, v in enumerate(w):
            n = v & 31
            vec = [0, 0, 0, 0]
            vec[m0] = v
            out[g * 64 + lane] = [
                n * (n + 1) // 2, 3 ** ((v >> 5) & 7), 111 if any_small else 222,
                7 if g == 3 else 9, 11, v ^ 0x5A5A, (v * 2) & M if v & 1 else (v + 7) & M,
                movrels, sum(s), 64, *vec, (v + m0) & M, v]
    return out.astype(np.uint32).reshape(-1)


def case(rng):
    x = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    x[:64] &= np.uint32(0x0FFFFFFF)
    x[64:128] |= np.uint32(0x10000000)
    return Case("asm_flow", (N,), (64,), [In(x), Out(np.uint32, 16 * N)], {1: reference(x)})
