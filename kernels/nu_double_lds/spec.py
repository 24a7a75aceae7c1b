"""Transpose of a 48x48 double matrix through a padded __local double[16][17] tile (2D
work-groups 16x16) plus weighted row sums (contracted to v_fma_f64) and per-group totals."""
import numpy as np

from kernels._ref import fma64
from kernels.corpus import Case, In, Out

NN, T = 48, 16


def case(rng):
    a = rng.uniform(-1e3, 1e3, (NN, NN))
    G = NN // T
    sums = np.zeros(G * G)
    for gy in range(G):
        for gx in range(G):
            tile = a[gy * T:(gy + 1) * T, gx * T:(gx + 1) * T]
            rs = np.zeros(T)
            for k in range(T):
                rs = fma64(tile[:, k], np.full(T, float(k + 1)), rs)
            s = 0.0
            for k in range(T):
                s = s + rs[k]
            sums[gy * G + gx] = s
    return Case("double_lds", (NN, NN), (T, T),
                [In(a), Out(np.float64, NN * NN), Out(np.float64, G * G), np.int32(NN)],
                {1: a.T.reshape(-1).copy(), 2: sums})
