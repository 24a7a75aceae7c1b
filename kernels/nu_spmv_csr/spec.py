"""CSR sparse matrix-vector product, 300 rows with 0..40 non-zeros (divergent loops);
reference in the kernel's order with unfused multiply-add (v_mac_f32 on gfx7), FTZ."""
import numpy as np

from kernels._ref import mad32
from kernels.corpus import Case, In, Out

NR, NC = 300, 500


def case(rng):
    nnz = rng.integers(0, 41, NR)
    nnz[::17] = 0
    rowptr = np.concatenate([[0], np.cumsum(nnz)]).astype(np.int32)
    cols = rng.integers(0, NC, int(rowptr[-1])).astype(np.int32)
    vals = rng.uniform(-2, 2, cols.size).astype(np.float32)
    x = rng.uniform(-1, 1, NC).astype(np.float32)
    y = np.zeros(320, np.float32)
    for r in range(NR):
        acc = np.float32(0)
        for j in range(rowptr[r], rowptr[r + 1]):
            acc = mad32(vals[j], x[cols[j]], acc)[()]
        y[r] = acc
    return Case("spmv_csr", (320,), (64,),
                [In(rowptr), In(cols), In(vals), In(x), Out(np.float32, 320), np.int32(NR)],
                {4: y})
