"""OpenCL images and samplers on gfx7: how an OpenCL image format, image object and sampler
become the T# and S# the MIMG instructions read, and the image built-ins library
(clc_image.h, clc_image.cl) gcnemu links into OpenCL C kernels (libclc-14 has none for amdgcn).

An image argument of a kernel (metadata value kind ``image``, 8 bytes) is the address of
gcnemu's image object: the 8-dword T# (linear, one mip level), then width, height, depth and
the CLK_ channel data type and channel order, 4 bytes each. A sampler argument (``sampler``)
is the address of a 4-dword S#. Samplers written in kernel source (``const sampler_t s =
CLK_...``) come from a table of S# the library holds, made by :func:`sampler_words` as
cl.Sampler's are.

Supported: 1D, 2D and 3D images; channel orders R, A, RG, RGBA, BGRA (BGRA with UNORM_INT8,
as OpenCL requires); channel types UNORM_INT8/16, SNORM_INT8/16, SIGNED_INT8/16/32,
UNSIGNED_INT8/16/32, HALF_FLOAT, FLOAT. Samplers: normalized or not, addressing NONE,
CLAMP_TO_EDGE, CLAMP (border (0,0,0,0), or (0,0,0,1) for images without alpha), REPEAT,
MIRRORED_REPEAT, filters NEAREST and LINEAR (the hardware's: bilinear weights quantized to
1/256). Not supported: image arrays, 1D buffer images, mipmaps, the packed formats (565, 555,
101010), orders RGB, RA, ARGB, INTENSITY, LUMINANCE, Rx/RGx/RGBx, depth images.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import LoaderError
from ..mem.descriptors import encode_ssharp, encode_tsharp

# the CLK_/CL_ values (OpenCL's cl.h; libclc's clc/image/image_defines.h says the same)
CHANNEL_ORDERS = {"R": 0x10B0, "A": 0x10B1, "RG": 0x10B2, "RA": 0x10B3, "RGB": 0x10B4,
                  "RGBA": 0x10B5, "BGRA": 0x10B6, "ARGB": 0x10B7, "INTENSITY": 0x10B8,
                  "LUMINANCE": 0x10B9, "Rx": 0x10BA, "RGx": 0x10BB, "RGBx": 0x10BC}
CHANNEL_TYPES = {"SNORM_INT8": 0x10D0, "SNORM_INT16": 0x10D1, "UNORM_INT8": 0x10D2,
                 "UNORM_INT16": 0x10D3, "UNORM_SHORT_565": 0x10D4, "UNORM_SHORT_555": 0x10D5,
                 "UNORM_INT_101010": 0x10D6, "SIGNED_INT8": 0x10D7, "SIGNED_INT16": 0x10D8,
                 "SIGNED_INT32": 0x10D9, "UNSIGNED_INT8": 0x10DA, "UNSIGNED_INT16": 0x10DB,
                 "UNSIGNED_INT32": 0x10DC, "HALF_FLOAT": 0x10DD, "FLOAT": 0x10DE}
ADDRESSING = {"NONE": 0x0, "CLAMP_TO_EDGE": 0x2, "CLAMP": 0x4, "REPEAT": 0x6,
              "MIRRORED_REPEAT": 0x8}
FILTERS = {"NEAREST": 0x0, "LINEAR": 0x10}
NORMALIZED_COORDS = 0x1

_NF_UNORM, _NF_SNORM, _NF_UINT, _NF_SINT, _NF_FLOAT = 0, 1, 4, 5, 7
#: channel type -> (bits per channel, T# number format, numpy dtype of one channel)
_TYPES = {0x10D0: (8, _NF_SNORM, "int8"), 0x10D1: (16, _NF_SNORM, "int16"),
          0x10D2: (8, _NF_UNORM, "uint8"), 0x10D3: (16, _NF_UNORM, "uint16"),
          0x10D7: (8, _NF_SINT, "int8"), 0x10D8: (16, _NF_SINT, "int16"),
          0x10D9: (32, _NF_SINT, "int32"), 0x10DA: (8, _NF_UINT, "uint8"),
          0x10DB: (16, _NF_UINT, "uint16"), 0x10DC: (32, _NF_UINT, "uint32"),
          0x10DD: (16, _NF_FLOAT, "float16"), 0x10DE: (32, _NF_FLOAT, "float32")}
#: channel order -> (channels in memory, T# DST_SEL: what x, y, z, w of a read are)
_ORDERS = {0x10B0: (1, (4, 0, 0, 1)), 0x10B1: (1, (0, 0, 0, 4)), 0x10B2: (2, (4, 5, 0, 1)),
           0x10B5: (4, (4, 5, 6, 7)), 0x10B6: (4, (6, 5, 4, 7))}
#: (bits per channel, channels) -> T# data format
_DATA_FORMATS = {(8, 1): 1, (16, 1): 2, (8, 2): 3, (32, 1): 4, (16, 2): 5, (8, 4): 10,
                 (32, 2): 11, (16, 4): 12, (32, 4): 14}
#: image dimensions -> T# type
_TYPE_OF_DIMS = {1: 8, 2: 9, 3: 10}
#: T# sizes are 14 bits (width, height), 13 bits (depth)
MAX_SIZE = (16384, 16384, 8192)
#: gcnemu's image object: the T#, then width, height, depth, channel type, channel order
IMAGE_OBJECT_DWORDS = 13

_NAME_OF_ORDER = {v: k for k, v in CHANNEL_ORDERS.items()}
_NAME_OF_TYPE = {v: k for k, v in CHANNEL_TYPES.items()}


def format_info(order: int, ctype: int) -> tuple:
    """(channels, bytes per texel, numpy dtype name of a channel) of a supported format;
    LoaderError naming the unsupported part otherwise."""
    if order not in _ORDERS:
        raise LoaderError(f"image channel order {_NAME_OF_ORDER.get(order, hex(order))} is not "
                          f"emulated; supported: R, A, RG, RGBA, BGRA")
    if ctype not in _TYPES:
        raise LoaderError(f"image channel type {_NAME_OF_TYPE.get(ctype, hex(ctype))} is not "
                          f"emulated; supported: "
                          + ", ".join(_NAME_OF_TYPE[t] for t in _TYPES))
    if order == CHANNEL_ORDERS["BGRA"] and ctype != CHANNEL_TYPES["UNORM_INT8"]:
        raise LoaderError("BGRA images take UNORM_INT8 channels (OpenCL 1.2, 5.3.1.1)")
    n = _ORDERS[order][0]
    bits, _nf, dtype = _TYPES[ctype]
    return n, n * bits // 8, dtype


def image_object_words(address: int, order: int, ctype: int, shape: tuple) -> list:
    """The dwords of gcnemu's image object for an image of ``shape`` (width[, height[,
    depth]]) whose texels lie tightly packed at ``address`` (256-byte aligned)."""
    n, _bpt, _dt = format_info(order, ctype)
    dims = len(shape)
    if dims not in _TYPE_OF_DIMS:
        raise LoaderError(f"an image has 1, 2 or 3 dimensions, not {dims}")
    for d, (size, top) in enumerate(zip(shape, MAX_SIZE)):
        if not 1 <= size <= top:
            raise LoaderError(f"image size {shape}: dimension {d} must be 1..{top} (the T# field)")
    w, h, dd = (tuple(shape) + (1, 1))[:3]
    bits, nf, _dtype = _TYPES[ctype]
    t = encode_tsharp(address, _DATA_FORMATS[(bits, n)], nf, w, h, dd,
                      type=_TYPE_OF_DIMS[dims], dst_sel=_ORDERS[order][1])
    return t + [w, h if dims > 1 else 0, dd if dims > 2 else 0, ctype, order]


def sampler_words(bits: int) -> list:
    """The S# of an OpenCL sampler given as CLK_ bits (normalized coordinates | addressing
    mode | filter mode)."""
    addressing = bits & 0xE
    if addressing not in ADDRESSING.values() or bits & ~0x1F:
        raise LoaderError(f"sampler bits 0x{bits:x}: not a CLK_ addressing/filter combination")
    # NONE: out-of-range coordinates are undefined in OpenCL; clamping keeps them in the image
    clamp = {0x0: 2, 0x2: 2, 0x4: 6, 0x6: 0, 0x8: 1}[addressing]
    f = 1 if bits & FILTERS["LINEAR"] else 0
    return encode_ssharp((clamp, clamp, clamp), force_unnormalized=0 if bits & 1 else 1,
                         xy_mag_filter=f, xy_min_filter=f)


_HERE = Path(__file__).resolve().parent
LIBRARY_HEADER = _HERE / "clc_image.h"


def library_source() -> str:
    """clc_image.cl with the S# table of source-declared samplers before it."""
    rows = ",\n  ".join("(int4)(" + ", ".join(f"0x{w:x}" for w in (
        sampler_words(b) if (b & 0xE) in ADDRESSING.values() else [0, 0, 0, 0])) + ")"
        for b in range(32))
    return (f"__constant int4 __gcn_samplers[32] = {{\n  {rows}\n}};\n"
            + (_HERE / "clc_image.cl").read_text())
