"""Whole-row operations on the 64 lanes of a wave that numba cannot express on its own.

A row is 64 consecutive uint32 lanes (one VGPR of one wave). Writing a result row under an EXEC
mask with a per-lane select costs more than the arithmetic of most ops (the mask's bits have to
be spread over the lanes one shift at a time); LLVM's masked store takes the 64-bit mask as
64 lane predicates directly (four masked vector stores on AVX-512).
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core.extending import intrinsic


@intrinsic
def store_masked(typingctx, dst, src, mask):
    """Copy the 64 uint32 lanes at address ``src`` to address ``dst`` where bit l of ``mask``
    is set; the other lanes of ``dst`` keep their values (the rows may be the same)."""
    sig = types.void(dst, src, mask)

    def codegen(context, builder, signature, args):
        i32 = ir.IntType(32)
        row = ir.VectorType(i32, 64)
        pred = ir.VectorType(ir.IntType(1), 64)
        name = "llvm.masked.store.v64i32.p0"
        fn = builder.module.globals.get(name)
        if fn is None:
            fnty = ir.FunctionType(ir.VoidType(), [row, row.as_pointer(), i32, pred])
            fn = ir.Function(builder.module, fnty, name=name)
        d = builder.inttoptr(args[0], row.as_pointer())
        s = builder.inttoptr(args[1], row.as_pointer())
        value = builder.load(s, align=4)
        m = args[2]
        if m.type.width < 64:
            m = builder.zext(m, ir.IntType(64))
        builder.call(fn, [value, d, ir.Constant(i32, 4), builder.bitcast(m, pred)])
        return context.get_dummy_value()
    return sig, codegen


@intrinsic
def lane_mask(typingctx, src):
    """The 64-bit mask whose bit l is set where uint32 lane l of the row at address ``src`` is
    nonzero: a compare of the whole row (four vptestmd on AVX-512) instead of a shift per lane."""
    sig = types.uint64(src)

    def codegen(context, builder, signature, args):
        row = ir.VectorType(ir.IntType(32), 64)
        s = builder.inttoptr(args[0], row.as_pointer())
        value = builder.load(s, align=4)
        nonzero = builder.icmp_unsigned("!=", value, ir.Constant(row, None))
        return builder.bitcast(nonzero, ir.IntType(64))
    return sig, codegen


@intrinsic
def fill_row(typingctx, dst, value):
    """Set the 64 uint32 lanes at address ``dst`` to ``value`` (whole-vector stores, which a
    row kernel's vector loads right after can take straight from the store buffer)."""
    sig = types.void(dst, value)

    def codegen(context, builder, signature, args):
        i32 = ir.IntType(32)
        row = ir.VectorType(i32, 64)
        v = builder.trunc(args[1], i32) if args[1].type.width > 32 else args[1]
        splat = ir.Constant(row, None)
        for l in range(64):
            splat = builder.insert_element(splat, v, ir.Constant(i32, l))
        builder.store(splat, builder.inttoptr(args[0], row.as_pointer()), align=4)
        return context.get_dummy_value()
    return sig, codegen


@intrinsic
def copy_row_modified(typingctx, dst, src, clear, flip):
    """dst lanes = (src lanes & ~clear) ^ flip for 64 uint32 lanes: a VOP3 abs/neg source
    modifier applied to a whole row (clear, flip: the sign bit or 0)."""
    sig = types.void(dst, src, clear, flip)

    def codegen(context, builder, signature, args):
        i32 = ir.IntType(32)
        row = ir.VectorType(i32, 64)

        def splat(x):
            x = builder.trunc(x, i32) if x.type.width > 32 else x
            vec = ir.Constant(row, None)
            for l in range(64):
                vec = builder.insert_element(vec, x, ir.Constant(i32, l))
            return vec
        value = builder.load(builder.inttoptr(args[1], row.as_pointer()), align=4)
        value = builder.xor(builder.and_(value, builder.not_(splat(args[2]))), splat(args[3]))
        builder.store(value, builder.inttoptr(args[0], row.as_pointer()), align=4)
        return context.get_dummy_value()
    return sig, codegen
