"""18 kernel arguments: char/short/uchar/float/double/ulong/uint/ushort/long scalars and
int2, float4, char3, uint4, double2 vectors and a struct {uchar; int} by value (numpy void
scalars of the vector/struct size), two pointers in between. Kernarg offsets follow the
metadata (char3 takes 4 bytes; the struct 8 with 4-byte alignment)."""
import numpy as np

from kernels._ref import fma64, ftz32, mad32
from kernels.corpus import Case, In, Out

N = 64


def void(arr):
    a = np.ascontiguousarray(arr)
    return a.view(np.dtype((np.void, a.nbytes)))[0]


def case(rng):
    x = rng.uniform(-10, 10, N).astype(np.float32)
    c, s, uc = np.int8(-5), np.int16(-300), np.uint8(200)
    f, d, ul = np.float32(1.5), np.float64(2.25), np.uint64(0xF0E1D2C3B4A59687)
    i2 = np.array([7, -3], np.int32)
    f4 = np.array([0.5, 2.0, -1.25, 3.0], np.float32)
    u, us, lg = np.uint32(4000000000), np.uint16(65535), np.int64(-123456789012345)
    c3 = np.array([1, -2, 3, 0], np.int8)
    tg = np.zeros(8, np.uint8)
    tg[0] = 9
    tg[4:8] = np.array([-1000], np.int32).view(np.uint8)
    u4 = np.array([0x12345678, 0x9ABCDEF0, 0x0F0F0F0F, 0xFFFF0000], np.uint32)
    d2 = np.array([0.75, -10.5])
    last = np.int32(-424242)
    i = np.arange(N, dtype=np.int64)
    o = np.zeros((N, 16), np.int64)
    o[:, 0] = c + i
    o[:, 1] = int(s) * i
    o[:, 2] = int(uc) ^ i
    o[:, 3] = ftz32(x * f).view(np.int32)
    o[:, 4] = np.trunc(float(d) * i.astype(np.float64))
    o[:, 5] = np.array([(int(ul) >> int(k & 63)) & 0xFFFFFFFF for k in i])
    o[:, 6] = i2[0] * i + i2[1]
    o[:, 7] = ftz32(ftz32(mad32(np.full(N, f4[1]), x, np.full(N, f4[0])) + f4[2]) - f4[3]).view(np.int32)
    o[:, 8] = (int(u) + int(us) + i) & 0xFFFFFFFF
    o[:, 9] = (int(lg) >> 33) + i
    o[:, 10] = 1 - 2 * 256 + 3 * 65536
    o[:, 11] = 9 + (-1000) * i
    o[:, 12] = (int(u4[0] ^ u4[1] ^ u4[2] ^ u4[3]) + i) & 0xFFFFFFFF
    o[:, 13] = np.trunc(fma64(np.full(N, d2[0]), i.astype(np.float64), np.full(N, -d2[1])))
    o[:, 14] = last
    o[:, 15] = 8
    out = (o & 0xFFFFFFFF).astype(np.uint32).view(np.int32).reshape(-1)
    return Case("many_args", (N,), (64,),
                [c, Out(np.int32, 16 * N), s, uc, f, d, ul, void(i2), void(f4), In(x), u, us, lg,
                 void(c3), void(tg), void(u4), void(d2), last], {1: out})
