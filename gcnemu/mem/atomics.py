"""Atomic read-modify-write operations on memory words, as the memory families run them.

The op codes (ATOMIC_*) are gcnemu's own numbering: gcnemu/mem/subops.py maps the
BUFFER_/FLAT_/DS_/IMAGE_ATOMIC_* mnemonics onto them. `atomic_new` is the value an op leaves;
`atomic_rmw` applies it to a word of the backing array with a host compare-and-swap, so that
global atomics are atomic also between the threads of a multi-worker dispatch; LDS atomics
(one workgroup, one thread) use `lds_atomic_new`, which adds the DS-only ops.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from ..exec.jit import njit
from ..exec.layout import ALL_LANES, MASK32
from ..sem.fp import as_f32, as_f64
from .space import locate

# Atomic operation codes for mem_atomic (gcnemu's own numbering; the ISA tables map the
# BUFFER_/FLAT_/DS_/IMAGE_ATOMIC_* opcodes onto these).
ATOMIC_SWAP = 0
ATOMIC_CMPSWAP = 1   # mem = (mem == cmp) ? value : mem
ATOMIC_ADD = 2
ATOMIC_SUB = 3
ATOMIC_SMIN = 4
ATOMIC_UMIN = 5
ATOMIC_SMAX = 6
ATOMIC_UMAX = 7
ATOMIC_AND = 8
ATOMIC_OR = 9
ATOMIC_XOR = 10
ATOMIC_INC = 11      # mem = (mem >= value) ? 0 : mem + 1
ATOMIC_DEC = 12      # mem = (mem == 0 || mem > value) ? value : mem - 1
ATOMIC_FCMPSWAP = 13  # float compare: -0 == +0, NaN never equal
ATOMIC_FMIN = 14     # IEEE minNum: a NaN operand yields the other; -0 < +0
ATOMIC_FMAX = 15
ATOMIC_NAMES = ("swap", "cmpswap", "add", "sub", "smin", "umin", "smax", "umax", "and", "or",
                "xor", "inc", "dec", "fcmpswap", "fmin", "fmax")

#: DS-only ops (GcnInstrsDs.md), beyond ATOMIC_*: D = S - D, D = (D & ~S) | C, wrapping add
#: (D >= S ? D - S : D + C), and ds_condxchg32_rtn_b64
A_RSUB, A_MSKOR, A_WRAP, A_CONDXCHG = 16, 17, 18, 19


@njit
def _sext(v, bits):
    if bits == 64:
        return np.int64(v)
    m = np.uint64(1) << np.uint64(bits - 1)
    return np.int64(v ^ m) - np.int64(m)


@njit
def _fminmax(a, b, want_min):
    # IEEE-754 minNum/maxNum: a quiet treatment of NaN (the other operand wins); -0 < +0.
    if a != a:
        return b
    if b != b:
        return a
    if a == b:
        if want_min:
            return a if np.signbit(a) else b
        return b if np.signbit(a) else a
    if want_min:
        return a if a < b else b
    return a if a > b else b


@intrinsic
def _cas(typingctx, data, offset, expected, desired, nbytes):
    """Compare-and-swap of the naturally aligned 4- or 8-byte word at byte ``offset`` of the
    uint8 array ``data`` (sequentially consistent, a host ``lock cmpxchg``): stores ``desired``
    if the word equals ``expected``. Returns the word's value before (uint64)."""
    if not (isinstance(data, types.Array) and isinstance(nbytes, types.IntegerLiteral)):
        return None
    width = nbytes.literal_value * 8
    sig = types.uint64(data, offset, expected, desired, nbytes)

    def codegen(context, builder, signature, args):
        arr = context.make_array(signature.args[0])(context, builder, args[0])
        it = ir.IntType(width)
        ptr = builder.bitcast(builder.gep(arr.data, [args[1]]), it.as_pointer())
        exp = builder.trunc(args[2], it) if width < 64 else args[2]
        new = builder.trunc(args[3], it) if width < 64 else args[3]
        pair = builder.cmpxchg(ptr, exp, new, "seq_cst", "seq_cst")
        old = builder.extract_value(pair, 0)
        return builder.zext(old, ir.IntType(64)) if width < 64 else old
    return sig, codegen


@njit
def atomic_new(old, op, value, cmp, nbytes):
    """The value an atomic op (ATOMIC_*) leaves in a 4- or 8-byte word holding ``old``;
    (new, ok), ok False for an unknown op. Scalars only: the engine's memory paths call it
    per lane without passing arrays (each array argument costs numba an atomic refcount)."""
    bits = nbytes * 8
    mask = np.uint64(0xFFFFFFFFFFFFFFFF) if bits == 64 else (np.uint64(1) << np.uint64(bits)) - np.uint64(1)
    v = np.uint64(value) & mask
    c = np.uint64(cmp) & mask
    new = old
    if op == ATOMIC_SWAP:
        new = v
    elif op == ATOMIC_CMPSWAP:
        new = v if old == c else old
    elif op == ATOMIC_ADD:
        new = (old + v) & mask
    elif op == ATOMIC_SUB:
        new = (old - v) & mask
    elif op == ATOMIC_SMIN:
        new = old if _sext(old, bits) <= _sext(v, bits) else v
    elif op == ATOMIC_UMIN:
        new = old if old <= v else v
    elif op == ATOMIC_SMAX:
        new = old if _sext(old, bits) >= _sext(v, bits) else v
    elif op == ATOMIC_UMAX:
        new = old if old >= v else v
    elif op == ATOMIC_AND:
        new = old & v
    elif op == ATOMIC_OR:
        new = old | v
    elif op == ATOMIC_XOR:
        new = old ^ v
    elif op == ATOMIC_INC:
        new = np.uint64(0) if old >= v else (old + np.uint64(1)) & mask
    elif op == ATOMIC_DEC:
        new = v if (old == np.uint64(0) or old > v) else old - np.uint64(1)
    elif op == A_RSUB:
        # buffer_/image_atomic_rsub (GCN 1.0 only, CLRX GcnInstrsMubuf.md): MEM = DATA - MEM
        new = (v - old) & mask
    elif op == ATOMIC_FCMPSWAP or op == ATOMIC_FMIN or op == ATOMIC_FMAX:
        if bits == 32:
            fo = np.float64(as_f32(old))
            fv = np.float64(as_f32(v))
            fc = np.float64(as_f32(c))
        else:
            fo = as_f64(old)
            fv = as_f64(v)
            fc = as_f64(c)
        if op == ATOMIC_FCMPSWAP:
            new = v if fo == fc else old
        else:
            r = _fminmax(fo, fv, op == ATOMIC_FMIN)
            # Return the winning operand's own bits (keeps NaN payloads and signed zeros exact).
            if r != r:
                new = old if fo != fo else v
            elif r == fo and np.signbit(r) == np.signbit(fo):
                new = old
            else:
                new = v
    else:
        return old, False
    return new, True


@njit
def atomic_rmw(data, o, op, value, cmp, nbytes):
    """Atomic read-modify-write (op: ATOMIC_*) of the 4- or 8-byte word at byte offset ``o``
    of ``data`` (already located and mapped). Returns (old value, ok).

    A naturally aligned word is updated with a host compare-and-swap loop, so the update is
    atomic also between the threads of a multi-worker dispatch (gcnemu/launch.py runs kernels
    whose global atomics commute on two workers). A misaligned word is updated byte by byte:
    atomic only with respect to the calling thread's own lanes.
    """
    if (data.ctypes.data + o) % nbytes == 0:
        # CAS(0, 0) is an atomic read that never changes the word
        cur = _cas(data, o, np.uint64(0), np.uint64(0), 8) if nbytes == 8 else \
            _cas(data, o, np.uint64(0), np.uint64(0), 4)
        while True:
            new, ok = atomic_new(cur, op, value, cmp, nbytes)
            if not ok:
                return cur, False
            if new == cur:
                return cur, True
            prev = _cas(data, o, cur, new, 8) if nbytes == 8 else _cas(data, o, cur, new, 4)
            if prev == cur:
                return cur, True
            cur = prev
    old = np.uint64(0)
    for i in range(nbytes):
        old |= np.uint64(data[o + i]) << np.uint64(8 * i)
    new, ok = atomic_new(old, op, value, cmp, nbytes)
    if not ok:
        return old, False
    for i in range(nbytes):
        data[o + i] = np.uint8((new >> np.uint64(8 * i)) & np.uint64(0xFF))
    return old, True


@njit
def mem_atomic(data, mapped, base, addr, op, value, cmp, nbytes):
    """Atomic read-modify-write of a 4- or 8-byte word at ``addr`` (op: ATOMIC_* constant),
    thread-safe as `atomic_rmw` says.

    ``value`` is the data operand, ``cmp`` the compare operand of CMPSWAP/FCMPSWAP (ignored
    otherwise). Returns (old value as uint64, ok); unmapped: (0, False) and memory unchanged.
    """
    o = locate(data, mapped, base, addr, nbytes)
    if o < 0:
        return np.uint64(0), False
    return atomic_rmw(data, o, op, value, cmp, nbytes)


@njit
def _ds_only_op(old, aop, v, c, nbytes):
    """The DS-only atomic ops (rsub, mskor, wrap); returns the new value."""
    mask = ALL_LANES if nbytes == 8 else MASK32
    if aop == A_RSUB:
        return (v - old) & mask
    if aop == A_MSKOR:
        return ((old & ~v) | c) & mask
    if aop == A_WRAP:
        return (old - v) & mask if old >= v else (old + c) & mask
    return old



@njit
def lds_atomic_new(old, aop, v, c, nbytes):
    """The value an LDS atomic leaves (atomic_new's ops plus the DS-only ones)."""
    if aop >= 16:
        return _ds_only_op(old, aop, v, c, nbytes)
    new, ok = atomic_new(old, aop, v, c, nbytes)
    return new

