"""15-byte packed records (fields at offsets 0, 1, 5, 7, 11: unaligned dword/short loads
and stores), read, transformed and written back in place; out = (float)(value + delta) *
scale (negated for type 2)."""
import numpy as np

from kernels._ref import ftz32
from kernels.corpus import Case, InOut, Out

N, GRID = 300, 320
REC = np.dtype({"names": ["type", "value", "delta", "scale", "crc"],
                "formats": ["u1", "<i4", "<i2", "<f4", "<u4"],
                "offsets": [0, 1, 5, 7, 11], "itemsize": 15})


def case(rng):
    r = np.zeros(N, REC)
    r["type"] = rng.integers(0, 256, N)
    r["type"][:10] = 2
    r["value"] = rng.integers(-2**31, 2**31, N)
    r["delta"] = rng.integers(-32768, 32768, N)
    r["scale"] = rng.uniform(-2, 2, N)
    r["crc"] = rng.integers(0, 2**32, N, dtype=np.uint64)
    val = (r["value"].astype(np.int64) + r["delta"]).astype(np.int32)  # int wrap
    v = ftz32(val.astype(np.float32) * r["scale"])
    out = np.where(r["type"] == 2, -v, v).astype(np.float32)
    w = r.copy()
    w["value"] = r["value"] ^ r["crc"].view(np.int32)
    w["delta"] = r["delta"] >> 1
    w["type"] = (r["type"].astype(np.int32) + 1) & 0xFF
    w["crc"] = (r["crc"].astype(np.uint64) * 2654435761 + w["type"]) & 0xFFFFFFFF
    return Case("packed_struct", (GRID,), (64,), [InOut(r), Out(np.float32, N), np.int32(N)],
                {0: w, 1: out})
