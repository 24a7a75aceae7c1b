"""3D grid (16, 8, 12) in 8x4x6 = 192-item work-groups: sums along x per (z, y) row,
weighted sums along z per (y, x) column, a local-atomic group total, and an id word built
from the 3D local id and the 3 group ids."""
import numpy as np

from kernels.corpus import Case, In, Out

GX, GY, GZ = 16, 8, 12
LX, LY, LZ = 8, 4, 6
NG = (GX // LX) * (GY // LY) * (GZ // LZ)


def case(rng):
    a = rng.integers(-10**6, 10**6, (GZ, GY, GX)).astype(np.int32)
    rows = np.zeros(NG * LZ * LY, np.int32)
    cols = np.zeros(NG * LY * LX, np.int32)
    tot = np.zeros(NG, np.int32)
    ids = np.zeros((GZ, GY, GX), np.int32)
    ng0, ng1 = GX // LX, GY // LY
    for g2 in range(GZ // LZ):
        for g1 in range(ng1):
            for g0 in range(ng0):
                grp = (g2 * ng1 + g1) * ng0 + g0
                t = a[g2 * LZ:(g2 + 1) * LZ, g1 * LY:(g1 + 1) * LY, g0 * LX:(g0 + 1) * LX]
                t = t.astype(np.int64)
                rows[grp * LZ * LY:(grp + 1) * LZ * LY] = t.sum(axis=2).reshape(-1)
                w = np.arange(1, LZ + 1)[:, None, None]
                cols[grp * LY * LX:(grp + 1) * LY * LX] = (t * w).sum(axis=0).reshape(-1)
                tot[grp] = t.sum()
                lin = np.arange(LX * LY * LZ).reshape(LZ, LY, LX)
                ids[g2 * LZ:(g2 + 1) * LZ, g1 * LY:(g1 + 1) * LY, g0 * LX:(g0 + 1) * LX] = \
                    lin | (g0 << 8) | (g1 << 12) | (g2 << 16)
    return Case("wg3d_reduce", (GX, GY, GZ), (LX, LY, LZ),
                [In(a), Out(np.int32, rows.size), Out(np.int32, cols.size), Out(np.int32, NG),
                 Out(np.int32, a.size)], {1: rows, 2: cols, 3: tot, 4: ids.reshape(-1)})
