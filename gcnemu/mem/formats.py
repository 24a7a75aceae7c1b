"""Buffer and image data formats (GcnMemHandling.md "MUBUF/MTBUF format conversion"),
shared by MUBUF/MTBUF and MIMG.

Data formats 1..14 (8, 16, 8_8, 32, 16_16, 10_11_11, 11_11_10, 10_10_10_2, 2_10_10_10,
8_8_8_8, 32_32, 16_16_16_16, 32_32_32, 32_32_32_32); names list components from the most
significant bits, so 10_11_11 is X = bits 0-10, Y = 11-21, Z = 22-31 and 2_10_10_10 is
X, Y, Z 10 bits each from bit 0 and W = bits 30-31.
Reads (number format -> register): UNORM c/(2^n-1), SNORM max(c/(2^(n-1)-1), -1),
SNORM_OGL (2c+1)/(2^n-1), USCALED/SSCALED float(c), each rounded once to f32 (nearest
even; exact quotient for n <= 16, quotient rounded to f64 first for n = 32);
UINT zero-, SINT sign-extended; FLOAT: 32-bit as is, 16-bit IEEE half, 11/10-bit unsigned
floats (5-bit exponent) of the packed float formats, exactly widened.
Writes: UNORM/SNORM clamp to [0,1]/[-1,1] (NaN -> 0), scale by 2^n-1 / 2^(n-1)-1 and round
to nearest even; UINT/SINT keep the low n bits; FLOAT 32 as is, 16/11/10-bit by round to
nearest even (overflow -> infinity, negative -> 0 for the unsigned 11/10-bit floats).
USCALED/SSCALED/SNORM_OGL writes (no BufW in the table) and FLOAT with 8-bit or 2-bit
components are invalid: the wave fails with ERR_FORMAT naming the format.
Components missing from the format read as 0 (X, Y, Z) and 1 (W; 1.0 for float formats);
then BUFFER_LOAD_FORMAT_* applies the V# DST_SEL (0, 1, R, G, B, A); TBUFFER_* use the
instruction's dfmt/nfmt and identity selects. A store writes only the components the
instruction supplies (packed formats by read-modify-write of their dword).
"""
from __future__ import annotations

import numpy as np

from ..exec.jit import njit
from ..exec.layout import MASK32, U64
from ..sem.fp import as_f32, f32_bits
from .space import mem_load, mem_store

# --- data formats (GcnMemHandling.md), shared by MUBUF/MTBUF/MIMG -----------------------------
NF_UNORM, NF_SNORM, NF_USCALED, NF_SSCALED, NF_UINT, NF_SINT, NF_SNORM_OGL, NF_FLOAT = range(8)

#: per data format 0..15: components, bits of each component from bit 0, bytes per element
_FMT_DEF = {1: (8,), 2: (16,), 3: (8, 8), 4: (32,), 5: (16, 16), 6: (11, 11, 10),
            7: (10, 11, 11), 8: (2, 10, 10, 10), 9: (10, 10, 10, 2), 10: (8, 8, 8, 8),
            11: (32, 32), 12: (16, 16, 16, 16), 13: (32, 32, 32), 14: (32, 32, 32, 32)}
FMT_NC = np.zeros(16, np.int64)
FMT_BITS = np.zeros((16, 4), np.int64)
FMT_SHIFT = np.zeros((16, 4), np.int64)
FMT_BYTES = np.zeros(16, np.int64)
for _d, _bits in _FMT_DEF.items():
    FMT_NC[_d] = len(_bits)
    FMT_BYTES[_d] = sum(_bits) // 8
    _s = 0
    for _k, _b in enumerate(_bits):
        FMT_BITS[_d, _k] = _b
        FMT_SHIFT[_d, _k] = _s
        _s += _b
del _d, _bits, _s, _k, _b

DATA_FORMAT_NAMES = {0: "invalid", 1: "8", 2: "16", 3: "8_8", 4: "32", 5: "16_16", 6: "10_11_11",
                     7: "11_11_10", 8: "10_10_10_2", 9: "2_10_10_10", 10: "8_8_8_8", 11: "32_32",
                     12: "16_16_16_16", 13: "32_32_32", 14: "32_32_32_32", 15: "reserved"}
NUM_FORMAT_NAMES = ("unorm", "snorm", "uscaled", "sscaled", "uint", "sint", "snorm_ogl", "float")


def format_error_text(arg: int) -> str:
    """Decode ERR_FORMAT's argument (dfmt | nfmt << 8 | is_store << 16)."""
    d, n, st = arg & 0xFF, (arg >> 8) & 0xFF, (arg >> 16) & 1
    dn = DATA_FORMAT_NAMES.get(d, f"{d}")
    nn = NUM_FORMAT_NAMES[n] if n < 8 else f"{n}"
    return f"data format {dn} with number format {nn} is not supported for {'writes' if st else 'reads'}"



F32_ONE = U64(0x3F800000)


@njit
def sext_bits(v, bits):
    """Sign-extend the low `bits` of v to int64."""
    m = U64(1) << U64(bits - 1)
    v = v & ((m << U64(1)) - U64(1))
    return np.int64(v ^ m) - np.int64(m)



# --- number/data format conversion ----------------------------------------------------------
@njit
def _rne_shift(x, s):
    """Round the unsigned integer x / 2**s to nearest, ties to even (s >= 0)."""
    if s <= 0:
        return x
    if s > 62:
        return U64(0)
    q = x >> U64(s)
    rem = x & ((U64(1) << U64(s)) - U64(1))
    half = U64(1) << U64(s - 1)
    if rem > half or (rem == half and (q & U64(1)) != U64(0)):
        q += U64(1)
    return q


@njit
def rne_f64(v):
    """Round a non-negative float64 to the nearest integer, ties to even."""
    f = np.floor(v)
    d = v - f
    if d > 0.5 or (d == 0.5 and (np.int64(f) & 1) == 1):
        f += 1.0
    return f


@njit
def small_float_to_f32(raw, mbits, signed):
    """A 5-bit-exponent float (half: mbits 10, signed; 11/10-bit: mbits 6/5, unsigned) -> f32 bits."""
    sign = U64(0)
    if signed:
        sign = ((raw >> U64(5 + mbits)) & U64(1)) << U64(31)
    e = np.int64((raw >> U64(mbits)) & U64(31))
    m = raw & ((U64(1) << U64(mbits)) - U64(1))
    if e == 31:
        return sign | U64(0x7F800000) | (m << U64(23 - mbits))
    if e == 0:
        if m == U64(0):
            return sign
        f = np.float32(np.float64(m) * 2.0 ** (-14 - mbits))   # exact
        return sign | U64(f32_bits(f))
    return sign | (U64(e - 15 + 127) << U64(23)) | (m << U64(23 - mbits))


@njit
def f32_to_small_float(b, mbits, signed):
    """f32 bits -> 5-bit-exponent float bits, round to nearest even; overflow -> infinity;
    negative -> 0 for unsigned formats; NaN -> quiet NaN."""
    sign = (b >> U64(31)) & U64(1)
    e32 = np.int64((b >> U64(23)) & U64(0xFF))
    m32 = b & U64(0x7FFFFF)
    sbit = U64(5 + mbits)
    inf = U64(31) << U64(mbits)
    if e32 == 255 and m32 != U64(0):
        r = inf | (U64(1) << U64(mbits - 1))
        return (r | (sign << sbit)) if signed else r
    if sign and not signed:
        return U64(0)
    sg = (sign << sbit) if signed else U64(0)
    if e32 == 255:
        return sg | inf
    if e32 == 0:
        return sg            # f32 denormals are far below the smallest 5-bit-exponent denormal
    sig = m32 | U64(0x800000)  # 24 bits
    e = e32 - 127 + 15
    if e >= 1:
        r = _rne_shift(sig, 23 - mbits)
        if r >= (U64(2) << U64(mbits)):
            r >>= U64(1)
            e += 1
        if e >= 31:
            return sg | inf
        return sg | (U64(e) << U64(mbits)) | (r & ((U64(1) << U64(mbits)) - U64(1)))
    r = _rne_shift(sig, 23 - mbits + 1 - e)
    return sg | r            # may round up into the smallest normal: the encoding is continuous


@njit
def fmt_valid(dfmt, nfmt, is_store):
    if dfmt < 1 or dfmt > 14 or nfmt > 7:
        return False
    if is_store and (nfmt == NF_USCALED or nfmt == NF_SSCALED or nfmt == NF_SNORM_OGL):
        return False
    if nfmt == NF_FLOAT:
        for k in range(FMT_NC[dfmt]):
            b = FMT_BITS[dfmt, k]
            if b != 32 and b != 16 and b != 11 and b != 10:
                return False
    return True


@njit
def fmt_one(nfmt):
    return U64(1) if nfmt == NF_UINT or nfmt == NF_SINT else F32_ONE


@njit(inline="always")
def _small_float(bits):
    """(mantissa bits, signed) of the 5-bit-exponent float of a 16, 11 or 10-bit component."""
    return (10, True) if bits == 16 else (bits - 5, False)


@njit
def decode_component(raw, bits, nfmt):
    """Raw component bits -> the 32-bit register value (GcnMemHandling.md number formats)."""
    if nfmt == NF_UINT:
        return raw
    if nfmt == NF_SINT:
        return U64(sext_bits(raw, bits)) & MASK32
    if nfmt == NF_FLOAT:
        if bits == 32:
            return raw
        mbits, signed = _small_float(bits)
        return small_float_to_f32(raw, mbits, signed)
    d = np.float64((U64(1) << U64(bits)) - U64(1))
    if nfmt == NF_UNORM:
        f = np.float64(raw) / d
    elif nfmt == NF_SNORM:
        f = np.float64(sext_bits(raw, bits)) / np.float64((U64(1) << U64(bits - 1)) - U64(1))
        if f < -1.0:
            f = -1.0
    elif nfmt == NF_USCALED:
        f = np.float64(raw)
    elif nfmt == NF_SSCALED:
        f = np.float64(sext_bits(raw, bits))
    else:  # SNORM_OGL
        f = (2.0 * np.float64(sext_bits(raw, bits)) + 1.0) / d
    return U64(f32_bits(np.float32(f)))


@njit
def encode_component(v, bits, nfmt):
    """32-bit register value -> raw component bits (writes)."""
    mask = (U64(1) << U64(bits)) - U64(1)
    if nfmt == NF_UINT or nfmt == NF_SINT:
        return v & mask
    if nfmt == NF_FLOAT:
        if bits == 32:
            return v
        mbits, signed = _small_float(bits)
        return f32_to_small_float(v, mbits, signed)
    f = np.float64(as_f32(v))
    if f != f:
        return U64(0)
    if nfmt == NF_UNORM:
        f = min(max(f, 0.0), 1.0)
        return U64(rne_f64(f * np.float64(mask))) & mask
    # SNORM
    f = min(max(f, -1.0), 1.0)
    s = np.float64((U64(1) << U64(bits - 1)) - U64(1))
    x = f * s
    r = rne_f64(x) if x >= 0 else -rne_f64(-x)
    return U64(np.int64(r)) & mask


@njit
def dst_select(vals, sel, one):
    if sel == 1:
        return one
    if sel >= 4:
        return vals[sel - 4]
    return U64(0)


@njit(inline="always")
def component_layout(dfmt, k):
    """Where component k of an element of data format dfmt lies: (bits, byte offset of the
    container that holds it, the container's bytes (1, 2 or 4), shift within the container)."""
    bits = FMT_BITS[dfmt, k]
    sh = FMT_SHIFT[dfmt, k]
    coff = (sh // 32) * 4
    return bits, coff, min(FMT_BYTES[dfmt] - coff, 4), sh - coff * 8


@njit(inline="always")
def load_component(mem_data, mem_mapped, mem_base, addr, bits, csize, shift, nfmt):
    """(register value, ok) of the component in the container of ``csize`` bytes at ``addr``
    (component_layout); ok is False when a byte was unmapped (the value is then that of 0)."""
    cont, ok = mem_load(mem_data, mem_mapped, mem_base, addr, csize)
    return decode_component((cont >> U64(shift)) & ((U64(1) << U64(bits)) - U64(1)), bits,
                            nfmt), ok


@njit(inline="always")
def store_component(mem_data, mem_mapped, mem_base, addr, v, bits, csize, shift, nfmt):
    """Write register value v as the component in the container at ``addr``
    (component_layout), keeping the container's other bits; False when a byte was unmapped
    (nothing is written)."""
    raw = encode_component(v, bits, nfmt)
    cont, ok = mem_load(mem_data, mem_mapped, mem_base, addr, csize)
    s = U64(shift)
    fm = ((U64(1) << U64(bits)) - U64(1)) << s
    cont = (cont & ~fm) | ((raw << s) & fm)
    return ok and mem_store(mem_data, mem_mapped, mem_base, addr, cont, csize)
