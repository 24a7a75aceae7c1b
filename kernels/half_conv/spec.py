"""float32 -> half with each rounding mode (overflow: rte/rtp -> inf, rtz/rtn -> 65504 for
positive values), half subnormals included (the f16 denormal mode is on: FP_DENORM 16/64 = 3),
half -> float via vload_half/vload_half2 (exact). No NaN stores (payload bits unspecified).
Directed roundings follow libclc's bit-mask algorithm (see to_half), which differs from IEEE
only for tiny |x| < 2**-25 in rtp/rtn."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 1024


def _clc_rtz(x):
    """libclc __clc_rtz (vstore_half.inc): clear the bits below half precision."""
    u = int(np.float32(x).view(np.uint32))
    mask = 0xFFFFE000
    e = ((u >> 23) & 0xFF) - 127
    if e < -14:
        mask = (mask << min(-(e + 14), 10)) & 0xFFFFFFFF
    if abs(x) > 65504.0 and not np.isinf(x):
        return np.float32(np.copysign(np.float32(65504.0), x))
    if np.isnan(x):
        return x
    return np.uint32(u & mask).view(np.float32)


def _clc_rti(x):
    """libclc __clc_rti: round away from zero to half precision (as a float)."""
    inf = np.float32(np.copysign(np.float32(np.inf), x))
    u = int(np.float32(x).view(np.uint32))
    mask = (1 << 13) - 1
    e = ((u >> 23) & 0xFF) - 127
    if e < -14:
        mask = (1 << (13 + min(-(e + 14), 10))) - 1
    if np.isnan(x) or np.isinf(x):
        return x
    nxt = np.nextafter(np.uint32(u | mask).view(np.float32), inf)
    return x if (u & mask) == 0 else nxt


def to_half(x, mode):
    """vstore_half_<mode> as libclc implements it: pre-round the float with integer bit
    operations, then convert with round-to-nearest-even (v_cvt_f16_f32).

    IEEE-exact except for |x| < 2**-25 with rtp (x > 0) / rtn (x < 0): libclc's mask stops
    10 bits below the half exponent range, so those give +-0 instead of the smallest half
    subnormal (a CPU OpenCL gives the IEEE result there)."""
    if mode == "rte":
        return x.astype(np.float16)
    out = np.empty(x.size, np.float32)
    for i, v in enumerate(x):
        neg = bool(np.signbit(v))
        if mode == "rtz":
            out[i] = _clc_rtz(v)
        elif mode == "rtp":
            out[i] = _clc_rtz(v) if neg else _clc_rti(v)
        else:
            out[i] = _clc_rti(v) if neg else _clc_rtz(v)
    return out.astype(np.float16)


def to_half_ieee(x, mode):
    """IEEE directed rounding to half (for the tests' cross-check)."""
    h = x.astype(np.float16)
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
