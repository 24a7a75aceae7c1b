"""float32 -> half with each rounding mode (overflow: rte/rtp -> inf, rtz/rtn -> 65504 for
positive values), half subnormals included (the f16 denormal mode is on: FP_DENORM 16/64 = 3),
half -> float via vload_half/vload_half2 (exact). No NaN stores (payload bits unspecified)."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 1024


def to_half(x, mode):
    h = x.astype(np.float16)  # round to nearest even
    if mode == "rte":
        return h
    hx = h.astype(np.float64)
    xx = x.astype(np.float64)
    out = h.copy()
    if mode == "rtz":
        m = np.abs(hx) > np.abs(xx)
        out[m] = np.nextafter(h[m], np.float16(0))
    elif mode == "rtp":
        m = hx < xx
        out[m] = np.nextafter(h[m], np.float16(np.inf))
    else:
        m = hx > xx
        out[m] = np.nextafter(h[m], np.float16(-np.inf))
    return out


def case(rng):
    f = (rng.standard_normal(N) * 2.0 ** rng.uniform(-20, 17, N)).astype(np.float32)
    f[:16] = [0.0, -0.0, 1.0, -1.0, 65504.0, 65519.0, 65520.0, 1e5, -1e5, np.inf, -np.inf,
              6e-8, -6e-8, 2.0 ** -24 * 1.5, 3e-5, 1.0 + 2.0 ** -11]
    hbits = rng.integers(0, 2**16, 2 * N, dtype=np.uint32).astype(np.uint16)
    hbits[(hbits & 0x7C00) == 0x7C00] &= 0x3FFF  # no inf/NaN inputs
    hbits[hbits == 0] = 0x3C00
    hin = hbits.view(np.float16)
    fout = hin[:N].astype(np.float32)
    with np.errstate(over="ignore"):
        hv = (hin.astype(np.float32) * np.float32(2)).astype(np.float16)
        exp = {2 + j: to_half(f, m) for j, m in enumerate(["rte", "rte", "rtz", "rtp", "rtn"])}
    exp[7] = fout
    exp[8] = hv
    args = [In(f), In(hin)] + [Out(np.float16, N) for _ in range(5)] + [Out(np.float32, N),
                                                                      Out(np.float16, 2 * N)]
    return Case("half_conv", (N,), (128,), args, exp,
                note="exact; half subnormal results expected (f16 denormals enabled)")
