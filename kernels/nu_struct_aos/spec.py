"""Array of 48-byte structs with mixed fields updated through a pointer, and a 16-byte struct
passed by value (numpy structured scalar). pos += vel*dt is contracted to v_mad_f32
(unfused); mass *= scale in f64; energy = (float)(0.5*mass) * mad(vx, vx, vy*vy)."""
import numpy as np

from kernels._ref import ftz32, mad32
from kernels.corpus import Case, InOut, Out

N = 200
PARTICLE = np.dtype({"names": ["pos", "id", "kind", "count", "mass", "vel"],
                     "formats": [("<f4", 3), "<i4", "i1", "<i2", "<f8", ("<f4", 4)],
                     "offsets": [0, 12, 16, 18, 24, 32], "itemsize": 48})
PARAMS = np.dtype({"names": ["dt", "bump", "scale"], "formats": ["<f4", "<i4", "<f8"],
                   "offsets": [0, 4, 8], "itemsize": 16})


def case(rng):
    ps = np.zeros(N, PARTICLE)
    ps["pos"] = rng.uniform(-10, 10, (N, 3))
    ps["id"] = rng.integers(-10**6, 10**6, N)
    ps["kind"] = rng.integers(-3, 4, N)
    ps["count"] = rng.integers(-32768, 32768, N)
    ps["mass"] = rng.uniform(0.1, 5, N)
    ps["vel"] = rng.uniform(-3, 3, (N, 4))
    prm = np.zeros((), PARAMS)
    prm["dt"], prm["bump"], prm["scale"] = 0.01, 1000, 1.000001
    prm = prm[()]  # np.void scalar: a numpy generic of 16 bytes
    want = ps.copy()
    dt = np.float32(prm["dt"])
    want["pos"] = mad32(ps["vel"][:, :3], dt, ps["pos"])
    cnt = ps["count"].astype(np.int32)
    cnt = np.where(ps["kind"] == 1, cnt + 1000, np.where(ps["kind"] < 0, cnt - 1, cnt))
    want["count"] = cnt.astype(np.int16)  # wraps like the (short) store
    want["mass"] = ps["mass"] * np.float64(prm["scale"])
    want["id"] = (ps["id"].astype(np.int64) * 3 + np.arange(N)).astype(np.int32)
    want["vel"][:, 3] = want["count"].astype(np.float32)
    vx, vy = ps["vel"][:, 0], ps["vel"][:, 1]
    e = ftz32((0.5 * want["mass"]).astype(np.float32) * mad32(vx, vx, ftz32(vy * vy)))
    return Case("struct_aos", (256,), (64,),
                [InOut(ps), prm, Out(np.float32, N), np.int32(N)], {0: want, 2: e})
