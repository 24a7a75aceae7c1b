"""Bit layouts of the gfx7 encoding families (GCN 1.0/1.1), shared by decoder and encoder.

Each family maps to (size in bytes without literal, fixed bits, fixed mask, fields); a field
is (name, first bit, width) counted over the little-endian 32- or 64-bit instruction word.
"""
from __future__ import annotations

# name: (bytes, match, mask, fields)
LAYOUTS = {
    "SOP2": (4, 0x80000000, 0xC0000000, (("ssrc0", 0, 8), ("ssrc1", 8, 8), ("sdst", 16, 7), ("op", 23, 7))),
    "SOPK": (4, 0xB0000000, 0xF0000000, (("simm16", 0, 16), ("sdst", 16, 7), ("op", 23, 5))),
    "SOP1": (4, 0xBE800000, 0xFF800000, (("ssrc0", 0, 8), ("op", 8, 8), ("sdst", 16, 7))),
    "SOPC": (4, 0xBF000000, 0xFF800000, (("ssrc0", 0, 8), ("ssrc1", 8, 8), ("op", 16, 7))),
    "SOPP": (4, 0xBF800000, 0xFF800000, (("simm16", 0, 16), ("op", 16, 7))),
    "SMRD": (4, 0xC0000000, 0xF8000000, (("offset", 0, 8), ("imm", 8, 1), ("sbase", 9, 6), ("sdst", 15, 7), ("op", 22, 5))),
    "VOP1": (4, 0x7E000000, 0xFE000000, (("src0", 0, 9), ("op", 9, 8), ("vdst", 17, 8))),
    "VOPC": (4, 0x7C000000, 0xFE000000, (("src0", 0, 9), ("vsrc1", 9, 8), ("op", 17, 8))),
    "VOP2": (4, 0x00000000, 0x80000000, (("src0", 0, 9), ("vsrc1", 9, 8), ("vdst", 17, 8), ("op", 25, 6))),
    "VOP3": (8, 0xD0000000, 0xFC000000, (("vdst", 0, 8), ("abs", 8, 3), ("clamp", 11, 1), ("op", 17, 9),
                                         ("src0", 32, 9), ("src1", 41, 9), ("src2", 50, 9), ("omod", 59, 2), ("neg", 61, 3))),
    "VINTRP": (4, 0xC8000000, 0xFC000000, (("vsrc", 0, 8), ("attrchan", 8, 2), ("attr", 10, 6), ("op", 16, 2), ("vdst", 18, 8))),
    "DS": (8, 0xD8000000, 0xFC000000, (("offset0", 0, 8), ("offset1", 8, 8), ("gds", 17, 1), ("op", 18, 8),
                                       ("addr", 32, 8), ("data0", 40, 8), ("data1", 48, 8), ("vdst", 56, 8))),
    "FLAT": (8, 0xDC000000, 0xFC000000, (("glc", 16, 1), ("slc", 17, 1), ("op", 18, 7), ("addr", 32, 8),
                                         ("data", 40, 8), ("tfe", 55, 1), ("vdst", 56, 8))),
    "MUBUF": (8, 0xE0000000, 0xFC000000, (("offset", 0, 12), ("offen", 12, 1), ("idxen", 13, 1), ("glc", 14, 1),
                                          ("addr64", 15, 1), ("lds", 16, 1), ("op", 18, 7), ("vaddr", 32, 8),
                                          ("vdata", 40, 8), ("srsrc", 48, 5), ("slc", 54, 1), ("tfe", 55, 1), ("soffset", 56, 8))),
    "MTBUF": (8, 0xE8000000, 0xFC000000, (("offset", 0, 12), ("offen", 12, 1), ("idxen", 13, 1), ("glc", 14, 1),
                                          ("addr64", 15, 1), ("op", 16, 3), ("dfmt", 19, 4), ("nfmt", 23, 3), ("vaddr", 32, 8),
                                          ("vdata", 40, 8), ("srsrc", 48, 5), ("slc", 54, 1), ("tfe", 55, 1), ("soffset", 56, 8))),
    "MIMG": (8, 0xF0000000, 0xFC000000, (("dmask", 8, 4), ("unorm", 12, 1), ("glc", 13, 1), ("da", 14, 1), ("r128", 15, 1),
                                         ("tfe", 16, 1), ("lwe", 17, 1), ("op", 18, 7), ("slc", 25, 1), ("vaddr", 32, 8),
                                         ("vdata", 40, 8), ("srsrc", 48, 5), ("ssamp", 53, 5))),
    "EXP": (8, 0xF8000000, 0xFC000000, (("en", 0, 4), ("tgt", 4, 6), ("compr", 10, 1), ("done", 11, 1), ("vm", 12, 1),
                                        ("vsrc0", 32, 8), ("vsrc1", 40, 8), ("vsrc2", 48, 8), ("vsrc3", 56, 8))),
}

#: Order in which the family of a first dword is tested (more specific masks first).
DETECT_ORDER = ("SOP1", "SOPC", "SOPP", "SOPK", "SOP2", "SMRD", "VOP1", "VOPC", "VOP2", "VOP3",
                "VINTRP", "DS", "FLAT", "MUBUF", "MTBUF", "MIMG", "EXP")

#: VOP3b replaces abs/clamp by an SGPR-pair destination.
VOP3B_FIELDS = (("vdst", 0, 8), ("sdst", 8, 7), ("op", 17, 9), ("src0", 32, 9), ("src1", 41, 9),
                ("src2", 50, 9), ("omod", 59, 2), ("neg", 61, 3))

#: Scalar-operand codes (8-bit SSRC / 9-bit SRC fields; VGPRs are 256 + n in 9-bit fields).
SGPR_MAX = 103
FLAT_SCRATCH_LO, FLAT_SCRATCH_HI = 104, 105
VCC_LO, VCC_HI = 106, 107
TBA_LO, TBA_HI, TMA_LO, TMA_HI = 108, 109, 110, 111
TTMP0 = 112        # ttmp0..ttmp11 = 112..123
M0 = 124
EXEC_LO, EXEC_HI = 126, 127
INLINE_INT_ZERO = 128   # 128..192 = 0..64, 193..208 = -1..-16
INLINE_FLOATS = {240: 0x3F000000, 241: 0xBF000000, 242: 0x3F800000, 243: 0xBF800000,
                 244: 0x40000000, 245: 0xC0000000, 246: 0x40800000, 247: 0xC0800000}
INLINE_DOUBLES = {240: 0x3FE0000000000000, 241: 0xBFE0000000000000, 242: 0x3FF0000000000000,
                  243: 0xBFF0000000000000, 244: 0x4000000000000000, 245: 0xC000000000000000,
                  246: 0x4010000000000000, 247: 0xC010000000000000}
VCCZ, EXECZ, SCC = 251, 252, 253
LDS_DIRECT = 254
LITERAL = 255
VGPR0 = 256


def extract(word: int, fields) -> dict:
    """Split an instruction word into its named fields."""
    return {name: (word >> lo) & ((1 << width) - 1) for name, lo, width in fields}


def insert(fields, values: dict) -> int:
    """Pack named field values into an instruction word (unnamed fields are zero)."""
    word = 0
    for name, lo, width in fields:
        v = values.get(name, 0)
        if v < 0 or v >= (1 << width):
            raise ValueError(f"field {name}={v} does not fit in {width} bits")
        word |= v << lo
    return word
