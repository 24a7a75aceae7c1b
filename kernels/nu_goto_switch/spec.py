"""switch with fall-through/default, goto out of a double loop, continue/break at two
depths, do-while with a cap (Collatz steps, uint wrap), an early-exit branch. Reference
mirrors the C."""
import numpy as np

from kernels.corpus import Case, In, Out

N, GRID = 1000, 1024


def one(v):
    if v < -1000000:
        return [-1, -1, -1]
    acc = 0
    c = v & 7
    if c == 0:
        acc = 11
    elif c == 1:
        acc = 10
    elif c in (2, 3):
        acc = v >> 3
    elif c == 5:
        acc = (-7) ^ 0x55
    else:
        acc = 0x55
    found = -1
    for a in range(8):
        if ((v >> a) & 3) == 3:
            continue
        stop = False
        for b in range(8):
            if b == a:
                continue
            if (a * 8 + b) * 37 % 64 == (v & 63):
                found = a * 8 + b
                stop = True
                break
            if b > 5 and (v & 0x100):
                break
        if stop:
            break
    u, k = v & 0xFFFFFFFF, 0
    while True:
        u = (3 * u + 1) & 0xFFFFFFFF if u & 1 else u >> 1
        k += 1
        if not (u > 1 and k < 50):
            break
    return [acc, found, k]


def case(rng):
    v = rng.integers(-2**31, 2**31, N).astype(np.int32)
    v[::5] = rng.integers(-50, 1000, len(v[::5]))
    v[:8] = [0, 1, 2, 3, 4, 5, 6, 7]
    out = np.zeros(3 * GRID, np.int32)
    out[:3 * N] = np.array([one(int(t)) for t in v], np.int64).reshape(-1)
    return Case("goto_switch", (GRID,), (128,), [In(v), Out(np.int32, 3 * GRID), np.int32(N)],
                {1: out})
