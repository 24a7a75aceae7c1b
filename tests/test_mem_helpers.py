"""Shared helpers for the tests of the memory families (gcnemu/mem): independent references written from the ISA docs.

Nothing here imports gcnemu.mem's families: conversions are exact rational arithmetic (fractions),
numpy's own float16 conversion, and bit layouts re-derived from the format names of
GcnMemHandling.md.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from gcnemu.mem.descriptors import encode_vsharp  # noqa: F401  (re-exported for the tests)
from gcnemu.mem.space import Memory  # noqa: F401  (re-exported for the tests)
from gcnemu.snippet import run_snippet

ALL = 0xFFFF_FFFF_FFFF_FFFF
LANES = np.arange(64, dtype=np.uint32)

# GcnMemHandling.md: data format code -> name (components listed from the most significant bits)
DFMT_NAMES = {1: "8", 2: "16", 3: "8_8", 4: "32", 5: "16_16", 6: "10_11_11", 7: "11_11_10",
              8: "10_10_10_2", 9: "2_10_10_10", 10: "8_8_8_8", 11: "32_32", 12: "16_16_16_16",
              13: "32_32_32", 14: "32_32_32_32"}
UNORM, SNORM, USCALED, SSCALED, UINT, SINT, SNORM_OGL, FLOAT = range(8)
F32_ONE = 0x3F800000


def layout(dfmt):
    """[(shift, bits)] of the components X, Y, Z, W from the format name, and element bytes."""
    bits = [int(b) for b in DFMT_NAMES[dfmt].split("_")][::-1]
    out, s = [], 0
    for b in bits:
        out.append((s, b))
        s += b
    return out, s // 8


def float_ok(dfmt):
    return all(b in (32, 16, 11, 10) for _, b in layout(dfmt)[0])


# --- exact f32 rounding -------------------------------------------------------------------
def f32_bits_of(q) -> int:
    """Bits of the f32 nearest to the rational q (ties to even), by exact arithmetic."""
    q = Fraction(q)
    if q == 0:
        return 0
    sign = 0x80000000 if q < 0 else 0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    ulp_e = max(e, -126) - 23
    r = round(a / Fraction(2) ** ulp_e)      # Fraction round: ties to even
    v = np.float32(float(Fraction(r) * Fraction(2) ** ulp_e))
    return sign | int(v.view(np.uint32))


def f32(bits) -> float:
    return float(np.uint32(bits).view(np.float32))


def bits(x) -> int:
    return int(np.float32(x).view(np.uint32))


def sext(v, n):
    v &= (1 << n) - 1
    return v - (1 << n) if v >> (n - 1) else v


# --- small floats (5-bit exponent) --------------------------------------------------------
def small_float_value(raw, mbits):
    """Value of an unsigned 5-bit-exponent float (the 11/10-bit formats), or None for inf/NaN."""
    e, m = raw >> mbits, raw & ((1 << mbits) - 1)
    if e == 31:
        return None
    if e == 0:
        return Fraction(m, 1 << mbits) * Fraction(2) ** -14
    return (1 + Fraction(m, 1 << mbits)) * Fraction(2) ** (e - 15)


def small_float_to_f32_ref(raw, mbits):
    v = small_float_value(raw, mbits)
    if v is None:   # inf / NaN: exponent all ones, payload moved to the top of the f32 mantissa
        return 0x7F800000 | ((raw & ((1 << mbits) - 1)) << (23 - mbits))
    return f32_bits_of(v)


def f32_to_small_float_ref(b, mbits):
    """Nearest unsigned small float by enumerating every finite code (ties to even code);
    2**16 stands for the overflow to infinity; negatives -> 0; NaN -> quiet NaN."""
    x = np.uint32(b).view(np.float32)
    if np.isnan(x):
        return (31 << mbits) | (1 << (mbits - 1))
    if x <= 0:
        return 0
    if np.isinf(x):
        return 31 << mbits
    q = Fraction(float(x))
    best = None
    for code in range((31 << mbits) + 1):
        v = small_float_value(code, mbits) if code < (31 << mbits) else Fraction(2) ** 16
        d = abs(v - q)
        if best is None or d < best[0] or (d == best[0] and code % 2 == 0):
            best = (d, code)
    return best[1]


def f16_to_f32_ref(raw):
    return int(np.uint16(raw).view(np.float16).astype(np.float32).view(np.uint32))


def f32_to_f16_ref(b):
    with np.errstate(over="ignore"):
        return int(np.uint32(b).view(np.float32).astype(np.float16).view(np.uint16))


# --- number formats (GcnMemHandling.md) ----------------------------------------------------
def decode_ref(raw, n, nfmt):
    if nfmt == UINT:
        return raw
    if nfmt == SINT:
        return sext(raw, n) & 0xFFFFFFFF
    if nfmt == FLOAT:
        if n == 32:
            return raw
        if n == 16:
            return f16_to_f32_ref(raw)
        return small_float_to_f32_ref(raw, n - 5)
    if nfmt == UNORM:
        return f32_bits_of(Fraction(raw, (1 << n) - 1))
    if nfmt == SNORM:
        return f32_bits_of(max(Fraction(sext(raw, n), (1 << (n - 1)) - 1), Fraction(-1)))
    if nfmt == USCALED:
        return f32_bits_of(raw)
    if nfmt == SSCALED:
        return f32_bits_of(sext(raw, n))
    if nfmt == SNORM_OGL:
        return f32_bits_of(Fraction(2 * sext(raw, n) + 1, (1 << n) - 1))
    raise ValueError(nfmt)


def encode_ref(v, n, nfmt):
    mask = (1 << n) - 1
    if nfmt in (UINT, SINT):
        return v & mask
    if nfmt == FLOAT:
        if n == 32:
            return v
        if n == 16:
            return f32_to_f16_ref(v)
        return f32_to_small_float_ref(v, n - 5)
    x = np.uint32(v).view(np.float32)
    if np.isnan(x):
        return 0
    q = Fraction(float(np.clip(x, -2, 2)))   # beyond the clamp range the exact value is moot
    if nfmt == UNORM:
        q = min(max(q, Fraction(0)), Fraction(1))
        return round(q * mask) & mask
    if nfmt == SNORM:
        q = min(max(q, Fraction(-1)), Fraction(1))
        return round(q * ((1 << (n - 1)) - 1)) & mask
    raise ValueError(nfmt)


def one_for(nfmt):
    return 1 if nfmt in (UINT, SINT) else F32_ONE


def decode_element(data: bytes, dfmt, nfmt):
    """The four register values a format load produces before DST_SEL (missing: 0,0,0,1)."""
    comps, esize = layout(dfmt)
    e = int.from_bytes(bytes(data[:esize]), "little")
    vals = [0, 0, 0, one_for(nfmt)]
    for k, (s, n) in enumerate(comps):
        vals[k] = decode_ref((e >> s) & ((1 << n) - 1), n, nfmt)
    return vals


def apply_dst_sel(vals, sels, nfmt):
    out = []
    for s in sels:
        out.append(0 if s == 0 else one_for(nfmt) if s == 1 else vals[s - 4] if s >= 4 else 0)
    return out


# --- running code --------------------------------------------------------------------------
def run(asm, sgpr=None, vgpr=None, mem=None, **kw):
    return run_snippet(asm.strip() + "\ns_endpgm\n", sgpr=sgpr or {}, vgpr=vgpr or {},
                       memory=mem, **kw)


def sgprs_from(words, first):
    return {first + i: int(x) for i, x in enumerate(words)}


def encode_tsharp(base, width, height=1, depth=1, *, dfmt=4, nfmt=4, t_type=9, pitch=None,
                  dst_sel=(4, 5, 6, 7), base_level=0, last_level=0, tiling=8, base_array=0,
                  last_array=None):
    """An 8-dword T# from GcnMemHandling.md's bit table (independent of gcnemu.mem.descriptors)."""
    assert base % 256 == 0
    pitch = width if pitch is None else pitch
    last_array = (depth - 1) if last_array is None else last_array
    fields = [(base >> 8, 0, 40), (dfmt, 52, 6), (nfmt, 58, 4), (width - 1, 64, 14),
              (height - 1, 78, 14), (dst_sel[0], 96, 3), (dst_sel[1], 99, 3), (dst_sel[2], 102, 3),
              (dst_sel[3], 105, 3), (base_level, 108, 4), (last_level, 112, 4), (tiling, 116, 5),
              (t_type, 124, 4), (depth - 1, 128, 13), (pitch - 1, 141, 14),
              (base_array, 160, 13), (last_array, 173, 13)]
    v = 0
    for val, lo, w in fields:
        assert 0 <= val < (1 << w), (val, lo, w)
        v |= val << lo
    return [(v >> (32 * i)) & 0xFFFFFFFF for i in range(8)]


def encode_ssharp(clamp=(0, 0, 0), *, force_unnorm=0, mag=0, minf=0, mip=0, min_lod=0,
                  max_lod=15 * 256, lod_bias=0, border_type=0):
    """A 4-dword S# from GcnMemHandling.md's bit table. LODs in 1/256 units."""
    fields = [(clamp[0], 0, 3), (clamp[1], 3, 3), (clamp[2], 6, 3), (force_unnorm, 15, 1),
              (min_lod, 32, 12), (max_lod, 44, 12), (lod_bias & 0x3FFF, 64, 14), (mag, 84, 2),
              (minf, 86, 2), (mip, 90, 2), (border_type, 126, 2)]
    v = 0
    for val, lo, w in fields:
        v |= (val & ((1 << w) - 1)) << lo
    return [(v >> (32 * i)) & 0xFFFFFFFF for i in range(4)]
