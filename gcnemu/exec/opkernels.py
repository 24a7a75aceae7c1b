"""Compiled VALU and SALU op kernels, handed to the engine as function addresses.

Each VALU op is a small numba function (generated in gcnemu/dispatch_gen.py), called by
address (gcnemu/jit.py: native_address, call_native), that runs the op over the 64 lanes under
EXEC. They are compiled the first time a program uses the op and cached on disk, so start-up
cost grows with the ops a kernel uses rather than with the ISA, and the engine's own compiled
code stays small. The engine calls them through
`call_valu` (64-bit lane rows: any operand width) or `call_valu32` (the 32-bit form that
instructions with only 32-bit operands get: VGPR rows in place, masked store of the
result), one indirect call per instruction.
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from . import dispatch_gen as D
from .jit import call_native, native_address

_P = types.CPointer(types.uint64)
#: flags = op(s0, s1, s2, res, cin mask, exec mask, mode): rows are uint64[64]; the result
#: lanes and flag bits of lanes outside the exec mask are unspecified (callers write back and
#: mask active lanes only; ops with a quick row form recompute declined lanes only if active)
VALU_SIGNATURE = types.uint64(_P, _P, _P, _P, types.uint64, types.uint64, types.int64)

_P32 = types.CPointer(types.uint32)
#: flags = op(dst, s0, s1, s2, res, cin mask, exec mask, mode): the 32-bit form, for
#: instructions whose operands are all 32-bit: rows are uint32[64], sources read in place (a
#: VGPR row itself, or a scratch row holding a broadcast scalar or modified copy), the result
#: computed into the scratch row res and stored into dst under the exec mask
VALU32_SIGNATURE = types.uint64(_P32, _P32, _P32, _P32, _P32, types.uint64, types.uint64,
                                types.int64)


#: result = op(s0, s1, d, scc, scc_out): a SALU op (gcnemu/sem/salu.py's uniform signature),
#: the new SCC stored at scc_out
SALU_SIGNATURE = types.uint64(types.uint64, types.uint64, types.uint64, types.uint64, _P)


def salu_address(name: str) -> int:
    """Address of the compiled SALU op ``name`` (compiled on first use, like the VALU ops:
    a program compiles only the SALU ops it has, ~0.1 s each, instead of one switch over all
    105 that took ~10 s)."""
    return native_address(getattr(D, f"_cs_{name}"), SALU_SIGNATURE)


@intrinsic
def call_salu(typingctx, addr, s0, s1, d, scc, scc_out):
    """Call the SALU op at ``addr``: returns the result; the new SCC goes to the uint64 at
    address ``scc_out``."""
    sig = types.uint64(addr, s0, s1, d, scc, scc_out)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        return call_native(builder, args[0], list(args[1:5]) +
                           [builder.inttoptr(args[5], i64.as_pointer())], i64)

    return sig, codegen


def valu_address(name: str) -> int:
    """Address of the compiled lane kernel of VALU op ``name`` (compiling it on first use).
    The row functions are inlined into the compiled kernels, which therefore need the numpy
    error model (IEEE division, no zero-divisor branch per lane): jit.native_address."""
    return native_address(getattr(D, f"_cf_{name}"), VALU_SIGNATURE)


def valu32_address(name: str) -> int:
    """Address of the compiled 32-bit row kernel of VALU op ``name`` (compiled on first use)."""
    return native_address(getattr(D, f"_c32_{name}"), VALU32_SIGNATURE)


@intrinsic
def call_valu32(typingctx, addr, dst, s0, s1, s2, res, cin, exec_mask, mode):
    """Call the 32-bit row kernel at ``addr`` on rows given by their addresses."""
    sig = types.uint64(addr, dst, s0, s1, s2, res, cin, exec_mask, mode)

    def codegen(context, builder, signature, args):
        p = ir.IntType(32).as_pointer()
        ptrs = [builder.inttoptr(x, p) for x in args[1:6]]
        return call_native(builder, args[0], ptrs + list(args[6:]), ir.IntType(64))

    return sig, codegen


@intrinsic
def call_valu(typingctx, addr, s0, s1, s2, res, cin, exec_mask, mode):
    """Call the lane kernel at ``addr`` on rows given by their data pointers."""
    sig = types.uint64(addr, s0, s1, s2, res, cin, exec_mask, mode)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        ptrs = [builder.inttoptr(x, i64.as_pointer()) for x in args[1:5]]
        return call_native(builder, args[0], ptrs + list(args[5:]), i64)

    return sig, codegen


@intrinsic
def call_block(typingctx, addr, pvb, vstride, psgpr, scc, mode):
    """Call the block function at ``addr`` (exec/blockjit.py: a plain C function of five
    64-bit integers, ``psgpr`` the SGPR row's address): returns -1 (declined, nothing
    stored) or (active VALU lanes << 1) | SCC, with MODE where the block set it (see
    blockjit's module docstring)."""
    sig = types.int64(addr, pvb, vstride, psgpr, scc, mode)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fnty = ir.FunctionType(i64, [i64, i64, ir.IntType(32).as_pointer(), i64, i64])
        fn = builder.inttoptr(args[0], fnty.as_pointer())
        return builder.call(fn, [args[1], args[2],
                                 builder.inttoptr(args[3], ir.IntType(32).as_pointer()),
                                 args[4], args[5]])

    return sig, codegen


@intrinsic
def call_ds_block(typingctx, addr, pvb, vstride, psgpr, scc, mode, plds, lsize):
    """call_block for a block with DS rows, whose function takes two more: the address of
    the wave's LDS window and its size in bytes."""
    sig = types.int64(addr, pvb, vstride, psgpr, scc, mode, plds, lsize)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fnty = ir.FunctionType(i64, [i64, i64, ir.IntType(32).as_pointer(), i64, i64, i64, i64])
        fn = builder.inttoptr(args[0], fnty.as_pointer())
        return builder.call(fn, [args[1], args[2],
                                 builder.inttoptr(args[3], ir.IntType(32).as_pointer()),
                                 args[4], args[5], args[6], args[7]])

    return sig, codegen
