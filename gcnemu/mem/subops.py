"""What a memory-family row holds: its sub-op (what the instruction does, as one integer the
families read) and its raw fields.

`subop(enc, name)` (Python, when a program is decoded) reduces a mnemonic of DS, FLAT, MUBUF,
MTBUF, MIMG, VINTRP or EXP to a sub-op (column C_K of its row): a kind (layout.K_*), bytes per
component, components, sign extension, the atomic op, whether it returns the old value, the
ST64 offsets and whether compare and data are swapped (`pack`). The families unpack it with
`subop_fields`.
"""
from __future__ import annotations

import re

from ..exec.jit import njit
from ..exec.layout import (C_F0, C_F1, C_F2, C_F3, C_F4, C_F5, C_F6, C_F7, C_H, ERR_UNIMPLEMENTED,
                           K_APPEND, K_ATOMIC, K_CONSUME, K_EXPORT, K_INTERP_MOV, K_INTERP_P1,
                           K_INTERP_P2, K_LOAD, K_LOAD2, K_LOAD_FORMAT, K_NOP, K_RESINFO, K_SAMPLE,
                           K_SRC2, K_STORE, K_STORE2, K_STORE_FORMAT, K_SWIZZLE, K_UNSUPPORTED,
                           K_WRXCHG2, SAMPLE_GET_LOD, SF_B, SF_C, SF_CL, SF_D, SF_GATHER, SF_L,
                           SF_LZ, SF_O)
from ..exec.state import fail
from .atomics import (ATOMIC_ADD, ATOMIC_AND, ATOMIC_CMPSWAP, ATOMIC_DEC, ATOMIC_FCMPSWAP,
                      ATOMIC_FMAX, ATOMIC_FMIN, ATOMIC_INC, ATOMIC_OR, ATOMIC_SMAX, ATOMIC_SMIN,
                      ATOMIC_SUB, ATOMIC_SWAP, ATOMIC_UMAX, ATOMIC_UMIN, ATOMIC_XOR, A_CONDXCHG,
                      A_MSKOR, A_RSUB, A_WRAP)


_ATOMIC = {"swap": ATOMIC_SWAP, "wrxchg": ATOMIC_SWAP, "cmpswap": ATOMIC_CMPSWAP,
           "cmpst": ATOMIC_CMPSWAP, "add": ATOMIC_ADD, "sub": ATOMIC_SUB,
           "smin": ATOMIC_SMIN, "umin": ATOMIC_UMIN, "smax": ATOMIC_SMAX,
           "umax": ATOMIC_UMAX, "and": ATOMIC_AND, "or": ATOMIC_OR, "xor": ATOMIC_XOR,
           "inc": ATOMIC_INC, "dec": ATOMIC_DEC, "fcmpswap": ATOMIC_FCMPSWAP,
           "fmin": ATOMIC_FMIN, "fmax": ATOMIC_FMAX, "rsub": A_RSUB, "mskor": A_MSKOR,
           "wrap": A_WRAP, "condxchg32": A_CONDXCHG}


def pack(kind, size=4, count=1, sext=0, aop=0, rtn=0, st64=0, swap_cmp=0):
    return kind | (size << 8) | (count << 16) | (sext << 20) | (aop << 24) | (rtn << 29) | \
        (st64 << 30) | (swap_cmp << 31)


#: a data type suffix of a load or store mnemonic -> (bytes per component, components, signed)
_DATA_TYPES = {"i8": (1, 1, 1), "u8": (1, 1, 0), "i16": (2, 1, 1), "u16": (2, 1, 0),
               "b8": (1, 1, 0), "b16": (2, 1, 0), "b32": (4, 1, 0), "b64": (4, 2, 0),
               "b96": (4, 3, 0), "b128": (4, 4, 0),
               "sbyte": (1, 1, 1), "ubyte": (1, 1, 0), "sshort": (2, 1, 1), "ushort": (2, 1, 0),
               "byte": (1, 1, 0), "short": (2, 1, 0), "dword": (4, 1, 0), "dwordx2": (4, 2, 0),
               "dwordx3": (4, 3, 0), "dwordx4": (4, 4, 0)}


#: the data types of ds_read* and ds_write*
_DS_TYPES = {"read": ("b32", "b64", "b96", "b128", "i8", "u8", "i16", "u16"),
             "write": ("b8", "b16", "b32", "b64", "b96", "b128")}


def _ds_subop(name: str) -> int:
    m = re.fullmatch(r"ds_(read|write)(2st64|2)?_([a-z0-9]+)", name)
    if m and m.group(3) in _DS_TYPES[m.group(1)]:
        size, count, sext = _DATA_TYPES[m.group(3)]
        load = m.group(1) == "read"
        if m.group(2):
            return pack(K_LOAD2 if load else K_STORE2, 4, count, st64=int(m.group(2) == "2st64"))
        return pack(K_LOAD, size, count, sext=sext) if load else pack(K_STORE, size, count)
    if name == "ds_swizzle_b32":
        return pack(K_SWIZZLE)
    if name == "ds_append":
        return pack(K_APPEND)
    if name == "ds_consume":
        return pack(K_CONSUME)
    if name == "ds_nop":
        return pack(K_NOP)
    if name.startswith("ds_gws") or name == "ds_ordered_count":
        return pack(K_UNSUPPORTED)   # needs a cross-workgroup scheduler
    m = re.fullmatch(r"ds_wrxchg(2st64|2)_rtn_(b32|b64)", name)
    if m:
        return pack(K_WRXCHG2, 4, 2 if m.group(2) == "b64" else 1, rtn=1, st64=int(m.group(1) == "2st64"))
    m = re.fullmatch(r"ds_([a-z0-9]+?)(_src2)?(_rtn)?_([biuf])(32|64|128)", name)
    if m:
        op, src2, rtn, t, bits = m.groups()
        if bits == "128":
            return pack(K_UNSUPPORTED)   # ds_condxchg32_rtn_b128
        if op in ("min", "max"):
            op = {"i": "s", "u": "u", "f": "f", "b": "u"}[t] + op
        if op == "cmpst" and t == "f":
            op = "fcmpswap"
        if src2 and op == "write":
            op = "swap"
        aop = _ATOMIC.get(op)
        if aop is None:
            return pack(K_UNSUPPORTED)
        count = 2 if bits == "64" else 1
        if src2:
            return pack(K_SRC2, 4, count, aop=aop)
        # DS compare-store takes (cmp, src) where buffer/flat cmpswap take (src, cmp)
        return pack(K_ATOMIC, 4, count, aop=aop, rtn=int(bool(rtn)), swap_cmp=int(op in ("cmpst", "fcmpswap")))
    return pack(K_UNSUPPORTED)


def _global_subop(name: str) -> int:
    """FLAT and MUBUF/MTBUF mnemonics (flat_*, buffer_*, tbuffer_*)."""
    body = name.split("_", 1)[1]
    m = re.fullmatch(r"load_(ubyte|sbyte|ushort|sshort|dword|dwordx2|dwordx3|dwordx4)", body)
    if m:
        size, count, sext = _DATA_TYPES[m.group(1)]
        return pack(K_LOAD, size, count, sext=sext)
    m = re.fullmatch(r"store_(byte|short|dword|dwordx2|dwordx3|dwordx4)", body)
    if m:
        size, count, _ = _DATA_TYPES[m.group(1)]
        return pack(K_STORE, size, count)
    m = re.fullmatch(r"(load|store)_format_(x|xy|xyz|xyzw)", body)
    if m:
        return pack(K_LOAD_FORMAT if m.group(1) == "load" else K_STORE_FORMAT, 4, len(m.group(2)))
    m = re.fullmatch(r"atomic_([a-z0-9]+?)(_x2)?", body)
    if m:
        aop = _ATOMIC.get(m.group(1))
        if aop is None:
            return pack(K_UNSUPPORTED)
        return pack(K_ATOMIC, 4, 2 if m.group(2) else 1, aop=aop, rtn=1)
    if body in ("wbinvl1", "wbinvl1_vol", "wbinvl1_sc"):
        # the functional memory is coherent; coherency-accurate mode invalidates the CU's L1
        # from the trace (gcnemu/coherency.py)
        return pack(K_NOP)
    return pack(K_UNSUPPORTED)


def _image_subop(name: str) -> int:
    if name in ("image_load", "image_load_mip"):
        return pack(K_LOAD_FORMAT, 4, 4, st64=int(name.endswith("_mip")))
    if name in ("image_store", "image_store_mip"):
        return pack(K_STORE_FORMAT, 4, 4, st64=int(name.endswith("_mip")))
    if name == "image_get_resinfo":
        return pack(K_RESINFO, 4, 4)
    m = re.fullmatch(r"image_atomic_([a-z]+)", name)
    if m and m.group(1) in _ATOMIC:
        return pack(K_ATOMIC, 4, 1, aop=_ATOMIC[m.group(1)])
    if name == "image_get_lod":
        return pack(K_SAMPLE, 0, 4, sext=SAMPLE_GET_LOD)
    m = re.fullmatch(r"image_(sample|gather4)((?:_c|_cd|_d|_cl|_l|_lz|_b|_o)*)", name)
    if m:
        flags = SF_GATHER if m.group(1) == "gather4" else 0
        for sfx in m.group(2).split("_")[1:]:
            flags |= {"l": SF_L, "lz": SF_LZ, "b": SF_B, "c": SF_C, "d": SF_D, "cd": SF_D,
                      "cl": SF_CL, "o": SF_O}[sfx]
        return pack(K_SAMPLE, flags, 4)
    return pack(K_UNSUPPORTED)


def subop(enc: str, name: str) -> int:
    """Encode what a memory-family mnemonic does as an integer for the engine."""
    if enc == "DS":
        return _ds_subop(name)
    if enc in ("FLAT", "MUBUF", "MTBUF"):
        return _global_subop(name)
    if enc == "VINTRP":
        return pack({"v_interp_p1_f32": K_INTERP_P1, "v_interp_p2_f32": K_INTERP_P2,
                     "v_interp_mov_f32": K_INTERP_MOV}[name])
    if enc == "EXP":
        return pack(K_EXPORT)
    if enc == "MIMG":
        return _image_subop(name)
    return pack(K_UNSUPPORTED)


@njit(inline="always")
def subop_fields(sub):
    """(kind, size, count, sext, aop, rtn, st64, swap_cmp) of a sub-op made by `pack`."""
    return (sub & 0xFF, (sub >> 8) & 0xFF, (sub >> 16) & 0xF, (sub >> 20) & 1, (sub >> 24) & 0x1F,
            (sub >> 29) & 1, (sub >> 30) & 1, (sub >> 31) & 1)


@njit(inline="always")
def raw_fields(ins):
    """The raw fields C_F0..C_F7 of a memory row, in the order of program._FIELD_ORDER."""
    return ins[C_F0], ins[C_F1], ins[C_F2], ins[C_F3], ins[C_F4], ins[C_F5], ins[C_F6], ins[C_F7]


@njit(inline="always")
def counted_and_runs(ins, ws, w, kind, counter):
    """A family's first step: count the instruction in ws column ``counter``; False when there
    is nothing more to do: a no-op sub-op, or one gcnemu does not implement (the wave fails)."""
    ws[w, counter] += 1
    if kind == K_UNSUPPORTED:
        fail(ws, w, ERR_UNIMPLEMENTED, ins[C_H])
        return False
    return kind != K_NOP
