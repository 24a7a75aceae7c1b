"""asm_valu_misc: 32 dwords per work-item from byte/bitfield/24-bit/min3-med3/conversion
instructions, reference from the CLRX instruction definitions in Python integers.

Input constraints keep every result defined and exact: c[4:0] != 0 (v_bfe length 0 is
ambiguous in the docs), f in [-512, 512] (or 0), g finite and non-NaN (v_max_legacy NaN rules
untested), |f|, |g| >= 2**-10 or 0 so half conversions stay normal (v_cvt_pkrtz is
round-toward-zero to half, IEEE)."""
import numpy as np

from kernels.corpus import Case, In, Out

GROUPS = 16
N = 64 * GROUPS
M = 0xFFFFFFFF


def s32(v):
    v &= M
    return v - (1 << 32) if v >> 31 else v


def s24(v):
    v &= 0xFFFFFF
    return v - (1 << 24) if v >> 23 else v


def f2u(x):
    return int(np.float32(x).view(np.uint32))


def half_rtz_bits(x):
    h = np.float16(x)  # nearest even
    if abs(float(h)) > abs(float(x)):
        h = np.nextafter(h, np.float16(0))
    return int(np.array(h).view(np.uint16))


def bfe(x, off, width, signed):
    off, width = off & 31, width & 31
    assert width
    if off + width < 32:
        v = (x >> off) & ((1 << width) - 1)
        if signed and v >> (width - 1):
            v -= 1 << width
    else:
        v = (s32(x) if signed else x) >> off
    return v & M


def ffbh_i32(x):
    sx = s32(x)
    want = 1 if sx >= 0 else 0
    for i in range(31, -1, -1):
        if (x >> i & 1) == want:
            return 31 - i
    return M


def row(a, b, c, f, g):
    by = lambda v, i: (v >> (8 * i)) & 0xFF  # noqa: E731
    r = [
        f2u(by(a, 0)), f2u(by(a, 3)),
        (c + sum(abs(by(a, i) - by(b, i)) for i in range(4))) & M,
        sum(((by(a, i) + by(b, i) + (by(c, i) & 1)) >> 1) << (8 * i) for i in range(4)),
        (((a << 32) | b) >> (c & 31)) & M,
        (((a << 32) | b) >> (8 * (c & 3))) & M,
        (a & b) | (~a & c),
        ((1 << (a & 31)) - 1) << (b & 31),
        bfe(a, b, c, False), bfe(a, b, c, True),
        bin(a).count("1") + b,
        32 - a.bit_length() if a else M,
        (a & -a).bit_length() - 1 if a else M,
        ffbh_i32(a),
        (s24(a) * s24(b)) >> 32,
        (a & 0xFFFFFF) * (b & 0xFFFFFF) + c,
        min(a, b, c),
        max(s32(a), s32(b), s32(c)),
        sorted([s32(a), s32(b), s32(c)])[1],
        int(np.floor(f)), int(np.floor(np.float64(f) + 0.5)),
        int(np.frexp(f)[1]), f2u(np.frexp(f)[0]),
        f2u(max(f, g)),
        half_rtz_bits(f) | half_rtz_bits(g) << 16,
    ]
    e = (b & 15) - 8
    r.append(f2u(np.ldexp(f, e)))
    r.append(e)
    r.append(f2u(by(a, 2)))
    v64 = a | (b << 32)
    sh = c & 63
    lsh = (v64 << sh) & ((1 << 64) - 1)
    ash = (v64 - (1 << 64) if v64 >> 63 else v64) >> sh
    r += [lsh & M, lsh >> 32, ash & M, (ash >> 32) & M]
    return [v & M for v in r]


def reference(a, b, c, f, g):
    return np.array([v for i in range(N) for v in row(int(a[i]), int(b[i]), int(c[i]),
                                                        np.float32(f[i]), np.float32(g[i]))],
                    np.uint32)


def case(rng):
    def u32():
        return rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    a, b, c = u32(), u32(), u32()
    a[:4] = [0, 0xFFFFFFFF, 0x80000000, 1]
    a[4:64] = rng.integers(0, 2**20, 60)  # small values: 24-bit products, short bitfields
    b[4:32] = rng.integers(0, 2**20, 28)
    c[(c & 31) == 0] |= np.uint32(5)
    f = rng.uniform(-512, 512, N).astype(np.float32)
    f[:8] = [0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 511.75]
    g = rng.uniform(-512, 512, N).astype(np.float32)
    g[8:16] = f[8:16]
    for x in (f, g):
        x[(np.abs(x) < 2.0 ** -10) & (x != 0)] = np.float32(0.25)
    return Case("asm_valu_misc", (N,), (64,),
                [In(a), In(b), In(c), In(f), In(g), Out(np.uint32, 32 * N)],
                {5: reference(a, b, c, f, g)})
