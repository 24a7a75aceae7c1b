"""vload_half4/vload_half8/vloada_half4, c = a*b.lo + b.hi (contracted to v_mac_f32,
unfused), vstore_half4 (rte), vstore_half4_rtz, vstorea_half4_rtp. Inputs include half
subnormals (exact in float), infinities and NaN; products overflow half so rtz saturates at
65504 while rte gives inf. Kept away from the libclc rtp/rtn quirk below 2**-25."""
import numpy as np

from kernels._ref import mad32
from kernels.corpus import Case, In, Out

N = 256
H = np.float16


def to_half(x, mode):
    x = np.asarray(x, np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        r = x.astype(np.float16)  # numpy: round to nearest even
        out = r.copy()
        rv, xv = r.astype(np.float64), x.astype(np.float64)
        if mode == "rtz":
            adj = np.isfinite(xv) & (np.abs(rv) > np.abs(xv))
            out[adj] = np.nextafter(r[adj], H(0))
        elif mode == "rtp":
            adj = np.isfinite(xv) & (rv < xv)
            out[adj] = np.nextafter(r[adj], H(np.inf))
    return out


def case(rng):
    src = rng.uniform(-300, 300, 12 * N).astype(np.float16)
    src[:64] = rng.integers(1, 1024, 64).astype(np.uint16).view(np.float16)  # subnormals
    src[64:72] = [np.inf, -np.inf, np.nan, 65504, -65504, 6.1035e-05, -0.0, 0.0]
    a = src[:4 * N].astype(np.float32).reshape(N, 4)
    b = src[4 * N:].astype(np.float32).reshape(N, 8)
    with np.errstate(invalid="ignore", over="ignore"):
        c = mad32(a, b[:, :4], b[:, 4:]).reshape(N, 4)
        a3 = (a * np.float32(3.0)).astype(np.float32)
    return Case("half_vec4", (N,), (64,),
                [In(src), Out(np.float16, 4 * N), Out(np.float16, 4 * N), Out(np.float16, 4 * N),
                 Out(np.float32, 4 * N)],
                {1: to_half(c, "rte").reshape(-1), 2: to_half(c, "rtz").reshape(-1),
                 3: to_half(a3, "rtp").reshape(-1), 4: c.reshape(-1)})
