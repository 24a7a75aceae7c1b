"""Block 32 (one wave, half its lanes): __local uchar/short/float4/double arrays
(ds_write_b8/b16/b128, ds_read_u8/u16/b128/b64), and a double tree sum in LDS."""
import numpy as np

from kernels.corpus import Case, In, Out

B, G = 32, 8


def case(rng):
    n = B * G
    bts = rng.integers(0, 256, n).astype(np.uint8)
    sh = rng.integers(-32768, 32768, n).astype(np.int16)
    f4 = rng.uniform(-100, 100, (n, 4)).astype(np.float32)
    dbl = rng.uniform(-1e3, 1e3, n)
    ob = np.zeros(n, np.uint8)
    os_ = np.zeros(n, np.int16)
    of = np.zeros((n, 4), np.float32)
    od = np.zeros(n)
    lid = np.arange(B)
    for g in range(G):
        s = slice(g * B, (g + 1) * B)
        lb, ls, lf, ld = bts[s].astype(np.int64), sh[s].astype(np.int64), f4[s], dbl[s].copy()
        ob[s] = (lb[B - 1 - lid] + lb[(lid * 7) % B]) & 0xFF
        ls1 = np.append(ls, -1)
        os_[s] = ((ls1[lid] + ls1[lid + 1]) & 0xFFFF).astype(np.uint16).view(np.int16)
        of[s] = lf[(lid + 5) % B][:, [1, 2, 3, 0]] + lf
        k = B // 2
        while k:
            ld[:k] = ld[:k] + ld[k:2 * k]
            k //= 2
        od[s] = ld[0] - dbl[s]
    return Case("lds_subword", (n,), (B,),
                [In(bts), In(sh), In(f4), In(dbl), Out(np.uint8, n), Out(np.int16, n),
                 Out(np.float32, 4 * n), Out(np.float64, n)],
                {4: ob, 5: os_, 6: of.reshape(-1), 7: od})
