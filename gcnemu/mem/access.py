"""Per-lane accessors the memory families share (numba): a VGPR lane, LDS bytes, LDS atomics,
sign extension of sub-dword loads.

Speed of the hot families (DS, FLAT, MUBUF/MTBUF plain loads and stores): numba wraps every
array argument of a call and every view in atomic NRT incref/decref, which perf showed at
about 40 % of the time of memory-heavy kernels. So the families but MIMG (image_sample
allocates) are compiled with _nrt=False, and their per-lane loops index vgpr, lds and
mem_data directly, aligned dwords through uint32 views, instead of calling vreg or mem_load
per lane; the helpers here remain for faults and rare cases.
"""
from __future__ import annotations

import numpy as np

from ..exec.jit import njit
from ..exec.layout import MASK32, U64, WS_VBASE
from .atomics import lds_atomic_new


@njit
def sext_bytes(v, size):
    if size == 1:
        return U64(np.int64(np.int8(v & U64(0xFF)))) & MASK32
    return U64(np.int64(np.int16(v & U64(0xFFFF)))) & MASK32



@njit
def lds_read(lds, base, a, nbytes):
    v = U64(0)
    for b in range(nbytes):
        v |= U64(lds[base + a + b]) << U64(8 * b)
    return v


@njit
def lds_write(lds, base, a, v, nbytes):
    for b in range(nbytes):
        lds[base + a + b] = np.uint8((v >> U64(8 * b)) & U64(0xFF))



@njit
def lds_atomic(lds, base, a, aop, v, c, nbytes):
    """Atomic op on LDS bytes [base+a, +nbytes); returns the old value."""
    old = lds_read(lds, base, a, nbytes)
    lds_write(lds, base, a, lds_atomic_new(old, aop, v, c, nbytes), nbytes)
    return old


@njit
def vreg(vgpr, ws, w, r, l):
    return U64(vgpr[ws[w, WS_VBASE] + r, l])


@njit
def vset(vgpr, ws, w, r, l, v):
    vgpr[ws[w, WS_VBASE] + r, l] = np.uint32(v & MASK32)


@njit
def lane_on(ex, l):
    return ((ex >> U64(l)) & U64(1)) != U64(0)


@njit(inline="always")
def lane_value(vgpr, row, lane, ndw):
    """The value of ``ndw`` (1 or 2) dwords of one lane from VGPR row ``row`` on (the row in
    the vgpr array, not relative to the wave), low dword first."""
    v = U64(vgpr[row, lane])
    if ndw == 2:
        v |= U64(vgpr[row + 1, lane]) << U64(32)
    return v


@njit(inline="always")
def set_lane_value(vgpr, row, lane, ndw, v):
    """Write ``v`` as ``ndw`` (1 or 2) dwords of one lane from VGPR row ``row`` on."""
    vgpr[row, lane] = np.uint32(v & MASK32)
    if ndw == 2:
        vgpr[row + 1, lane] = np.uint32(v >> U64(32))


@njit(inline="always")
def atomic_lane_operands(vgpr, row, lane, ndw, has_cmp):
    """(data, compare) of one lane's FLAT/MUBUF/MIMG atomic: ``ndw`` dwords of data from VGPR
    row ``row`` on and, with ``has_cmp`` (cmpswap, fcmpswap), as many compare dwords right after
    them (0 otherwise)."""
    return lane_value(vgpr, row, lane, ndw), \
        lane_value(vgpr, row + ndw, lane, ndw) if has_cmp else U64(0)
