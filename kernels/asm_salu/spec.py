"""asm_salu: 24 scalar-ALU results per wave (32 work-groups of 64), reference from the
instruction definitions (CLRX GcnInstrsSop1/Sop2/Sopc/Sopk) in Python integers.

Semantics relied on: s_bfe_* take shift = S1[4:0], length = S1[22:16] (lengths here are
1..16; when shift + length >= 32 the result is S0 >> shift); s_ff1_i32_b32 / s_flbit_i32_b32
return -1 for 0; s_quadmask_b32 ORs each nibble into one bit; shifts use S1[4:0];
s_addc_u32 adds SCC from the preceding s_add_u32; s_movk_i32 sign-extends its 16-bit
immediate; s_abs_i32 / s_absdiff_i32 wrap (abs(INT_MIN) = INT_MIN)."""
import numpy as np

from kernels.corpus import Case, Out

GROUPS = 32
M = 0xFFFFFFFF


def s32(v):
    v &= M
    return v - (1 << 32) if v >> 31 else v


def bfe(x, s1, signed):
    shift, length = s1 & 31, (s1 >> 16) & 0x7F
    assert length != 0
    if shift + length < 32:
        v = (x >> shift) & ((1 << length) - 1)
        if signed and v >> (length - 1):
            v -= 1 << length
    else:
        v = (s32(x) if signed else x) >> shift
    return v & M


def ff1(v):
    for i in range(32):
        if v >> i & 1:
            return i
    return M  # -1


def flbit(v):
    for i in range(31, -1, -1):
        if v >> i & 1:
            return 31 - i
    return M


def wave(a, b, g):
    x = a ^ ((g * 0x9E3779B9) & M)
    y = (b + g) & M
    r = []
    s9 = (y & 15) | ((((y >> 4) & 15) + 1) << 16)
    r.append(bfe(x, s9, False))
    r.append(bfe(x, 0x80014, True))
    r.append(bfe(x, 0x100018, False))
    r.append(ff1(((M << (g & 31)) & M) & y))
    r.append(flbit(x >> (g & 31)))
    r.append(bin(x).count("1"))
    r.append(32 - bin(y).count("1"))
    r.append(sum(1 << i for i in range(8) if (x >> (4 * i)) & 15))
    r.append(max(x, y))
    r.append(int(f"{x:032b}"[::-1], 2))
    acc = 0
    for i in range((y & 31) + 1, 0, -1):
        acc = (acc * 3 + i) & M
    r.append(acc)
    lo = x + y
    r.append(lo & M)
    r.append((y + x + (lo >> 32)) & M)
    r.append(s32(x) >> (y & 31))
    r.append((x & 0xFF) - 256 if x & 0x80 else x & 0xFF)
    r.append(abs(s32(y)))
    r.append(abs(s32(x - y)))
    r.append(min(s32(x), s32(y)))
    r.append(max(x, y))
    r.append(((1 << (y & 31)) - 1) << (x & 31))
    r.append(x & ~y)
    r.append(~(x ^ y))
    r.append(0x1234 if x >> 5 & 1 else 0x5678)
    r.append(-32768 + 0x7FF)
    return [v & M for v in r]


def case(rng):
    a = int(rng.integers(0, 2**32))
    b = int(rng.integers(0, 2**32))
    want = np.array([v for g in range(GROUPS) for v in wave(a, b, g)], np.uint32)
    return Case("asm_salu", (64 * GROUPS,), (64,), [Out(np.uint32, 24 * GROUPS), np.uint32(a),
                                                     np.uint32(b)], {0: want})
