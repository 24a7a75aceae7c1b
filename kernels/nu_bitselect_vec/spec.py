"""Vector select (per-component MSB of the mask), bitselect on float4 and char16, relational
built-ins returning -1/0 per component (isless, islessgreater, isnan, isordered, isgreater),
any/all, vector ternary on long2, wrapping char16 multiply. NaN and inf inputs included."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 256


def case(rng):
    x = rng.uniform(-10, 10, (N, 4)).astype(np.float32)
    y = rng.uniform(-10, 10, (N, 4)).astype(np.float32)
    x[0] = [np.nan, 1, np.inf, -np.inf]
    y[0] = [1, np.nan, np.inf, 5]
    y[1] = x[1]
    x[2] = [1, 2, 3, 4]
    y[2] = [5, 6, 7, 8]  # all(isless) true
    m = rng.integers(0, 2**32, (N, 4), dtype=np.uint64).astype(np.uint32)
    m[3] = [0x20000000, 0x30000000, 0x7FFFFFFF, 0x10000001]  # all(m > 0x10000000u) true
    c = rng.integers(-128, 128, (N, 16)).astype(np.int8)
    lv = rng.integers(-2**63, 2**63 - 1, (N, 2), dtype=np.int64)
    lv[0] = [-2**63, 0]
    xu, yu = x.view(np.uint32), y.view(np.uint32)
    of0 = ((xu & ~m) | (yu & m)).view(np.float32)
    with np.errstate(invalid="ignore"):
        of1 = np.where(x > y, y, x)
        fmn = np.where(np.isnan(x), y, np.where(np.isnan(y), x, np.minimum(x, y)))
        fmx = np.where(np.isnan(x), y, np.where(np.isnan(y), x, np.maximum(x, y)))
        of2 = np.where(m.view(np.int32) < 0, fmx, fmn)
        lt = x < y
        lg = (x < y) | (x > y)
        nn = np.isnan(x * y)
    od = ~np.isnan(x) & ~np.isnan(y)
    r = -(lt.astype(np.int32) + 2 * lg + 4 * nn + 8 * od)
    r2 = np.stack([lt.any(1), lt.all(1), (m.view(np.int32) > 0).any(1), (m > 0x10000000).all(1)],
                  axis=1).astype(np.int32)
    of = np.stack([of0, of1, of2], axis=1).astype(np.float32)
    oi = np.stack([r, r2], axis=1).astype(np.int32)
    d = (c.astype(np.int32) * 3 & 0xFF).astype(np.uint8).view(np.int8)
    sel = np.where(c < 0, d, c)
    bs = (c & ~np.int8(0x5A)) | (d & np.int8(0x5A))
    oc = (sel ^ bs).astype(np.int8)
    with np.errstate(over="ignore"):
        ol = np.where(lv < 0, -lv, lv) + np.where(lv > 0, 1, 2).astype(np.int64)
    return Case("bitselect_vec", (N,), (64,),
                [In(x), In(y), In(m), In(c), In(lv), Out(np.float32, 12 * N),
                 Out(np.int32, 8 * N), Out(np.int8, 16 * N), Out(np.int64, 2 * N)],
                {5: of.reshape(-1), 6: oi.reshape(-1), 7: oc.reshape(-1), 8: ol.reshape(-1)})
