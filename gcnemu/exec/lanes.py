"""Whole-row operations on the 64 lanes of a wave that numba cannot express on its own.

A row is 64 consecutive uint32 lanes (one VGPR of one wave). Writing a result row under an EXEC
mask with a per-lane select in numba costs more than the arithmetic of most ops (the mask's
bits are spread over the lanes one shift at a time); here the mask becomes 64 lane predicates
as whole-vector code (lane_predicate) and the row is written with one select and store.

Portable code: nothing here names an x86 instruction; LLVM picks them for the CPU at hand.
What it picks matters, and was measured on this AVX-512 machine with numba's code generation
forced to an AVX2 CPU (NUMBA_CPU_NAME=znver3, its features less AVX-512; tests/
test_portable_codegen.py checks the bits): a bitcast of the i64 mask to <64 x i1>, one kmov
with AVX-512 mask registers, is ~300 scalar instructions on AVX2 (a bit extract per lane), and
AVX2's vpmaskmovd store is microcoded on AMD's cores: store_masked took 135 ns on AVX2 code
against 5 ns on AVX-512 code. The predicate built as splat & lane bit != 0 and a store of
select(predicate, new, old) need no masked-store instruction at all (NEON has none), as long
as LLVM does not fold that store back into one (store_row_under keeps it volatile): a VGPR
row written so takes ~5 ns on AVX2 (blends and stores) and on AVX-512 (blends under mask
registers), against 28 ns for AVX2's folded vpmaskmovd. Stores into memory that other lanes
or threads own (_grouped_store) keep LLVM's masked store.

Masks cross basic blocks (the branches of the grouped loads and stores) as integers (an i64,
or an i16 per group of 16 lanes), and each block makes the <N x i1> predicates it needs
(lane_predicate, _pred16): an i1 vector live across blocks is kept as one byte per lane on
AVX2, rebuilt with a vpinsrb per lane (ds_read2_b32's kernel held 414 of them).
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core.extending import intrinsic


def lane_predicate(builder, mask):
    """<64 x i1>: lane l is bit l of the integer ``mask``, as whole-vector code on any CPU:
    each 32-bit half of the mask in all 32 lanes of a vector, ANDed with the lane's bit and
    compared with 0 (see the module docstring: a bitcast is fast only with AVX-512)."""
    i32, i64 = ir.IntType(32), ir.IntType(64)
    v32 = ir.VectorType(i32, 32)
    if mask.type.width < 64:
        mask = builder.zext(mask, i64)
    bits = ir.Constant(v32, [1 << l if l < 31 else -(1 << 31) for l in range(32)])

    def half(x):
        x = builder.trunc(x, i32)
        vec = builder.insert_element(ir.Constant(v32, None), x, ir.Constant(i32, 0))
        vec = builder.shuffle_vector(vec, vec, ir.Constant(v32, None))
        return builder.icmp_unsigned("!=", builder.and_(vec, bits), ir.Constant(v32, None))
    return builder.shuffle_vector(half(mask), half(builder.lshr(mask, ir.Constant(i64, 32))),
                                  ir.Constant(ir.VectorType(i32, 64), list(range(64))))


class _VolatileStore(ir.instructions.StoreInstr):
    """``store volatile`` (llvmlite's StoreInstr has no volatile flag)."""

    def descr(self, buf):
        text = []
        super().descr(text)
        buf.append(text[0].replace("store ", "store volatile ", 1))


class _VolatileLoad(ir.instructions.LoadInstr):
    """``load volatile`` (llvmlite's LoadInstr has no volatile flag)."""

    def descr(self, buf):
        text = []
        super().descr(text)
        buf.append(text[0].replace("load ", "load volatile ", 1))


class _Freeze(ir.instructions.Instruction):
    """``freeze`` (llvmlite's IRBuilder has none)."""

    def __init__(self, parent, value, name=""):
        super().__init__(parent, value.type, "freeze", [value], name=name)

    def descr(self, buf):
        (v,) = self.operands
        buf.append(f"freeze {v.type} {v.get_reference()}\n")


def freeze(builder, value):
    """``freeze value``: the same value (never poison here), whose shape the code generator
    no longer sees; it costs no instruction."""
    instr = _Freeze(builder.block, value)
    builder._insert(instr)
    return instr


def _volatile(builder, instr):
    """Insert a _VolatileLoad or _VolatileStore, as builder.load and builder.store insert
    theirs; returns it."""
    instr.align = 4
    builder._insert(instr)
    return instr


def store_row_under(builder, value, dst, pred):
    """Store the <64 x i32> ``value`` to the row at pointer ``dst`` in the lanes where ``pred``
    is set; the others keep their values. For rows only this thread writes (VGPR rows): a
    load, a select and a whole-row store, no masked-store instruction (module docstring).

    The store is volatile so that LLVM keeps it a plain store: its x86 back end folds
    store(select(p, v, load(dst)), dst) into a masked store, which on AVX2 is vpmaskmovd,
    microcoded on AMD's cores (v_mov_b32's row kernel: 28.5 ns with it, 4.9 ns as blends
    and stores). Volatile pins only this store: it is still split into the CPU's vector
    stores."""
    old = builder.load(dst, align=4)
    _volatile(builder, _VolatileStore(builder.block, builder.select(pred, value, old), dst))


@intrinsic
def store_masked(typingctx, dst, src, mask):
    """Copy the 64 uint32 lanes at address ``src`` to address ``dst`` where bit l of ``mask``
    is set; the other lanes of ``dst`` keep their values (the rows may be the same). ``dst``
    is a row of this thread's (store_row_under).

    ``src`` is read with one volatile load: the row kernels have just written it, and LLVM
    would otherwise make the select a masked load of it (AVX-512: vmovdqu32 under a mask
    register), which the CPU cannot forward from those stores."""
    sig = types.void(dst, src, mask)

    def codegen(context, builder, signature, args):
        row = ir.VectorType(ir.IntType(32), 64)
        d = builder.inttoptr(args[0], row.as_pointer())
        s = builder.inttoptr(args[1], row.as_pointer())
        value = _volatile(builder, _VolatileLoad(builder.block, s, typ=row))
        store_row_under(builder, value, d, lane_predicate(builder, args[2]))
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



def _splat(builder, x, ty):
    """x (an integer, truncated or zero-extended to ty's width) in all 64 lanes."""
    if x.type.width > ty.width:
        x = builder.trunc(x, ty)
    elif x.type.width < ty.width:
        x = builder.zext(x, ty)
    i32 = ir.IntType(32)
    vec = builder.insert_element(ir.Constant(ir.VectorType(ty, 64), None), x, ir.Constant(i32, 0))
    return builder.shuffle_vector(vec, vec, ir.Constant(ir.VectorType(i32, 64), [0] * 64))


def _declare(builder, name, ret, params):
    fn = builder.module.globals.get(name)
    if fn is None:
        fn = ir.Function(builder.module, ir.FunctionType(ret, params), name=name)
    return fn


def _gather_rows(context, builder, ptrs, mask, n, ty=None):
    """n rows: row i lane l = the element at ptrs[l] + i where mask lane l is set, else 0.
    One scalar load per lane and row, from a pointer row in a stack slot; a lane that is off
    loads from a zeroed stack slot instead, so no lane touches memory it may not (the hardware
    gathers of llvm.masked.gather measured slower on this Zen 4: ds_read_b128 82 against 62 ns
    per wave-instruction, flat_load_dword 232 against 97 with its byte gathers)."""
    from numba.core import cgutils
    i32, i64 = ir.IntType(32), ir.IntType(64)
    ty = ty or i32
    width = ty.width // 8
    zslot = cgutils.alloca_once(builder, ty, size=ir.Constant(i64, 4))
    for i in range(4):
        builder.store(ir.Constant(ty, 0), builder.gep(zslot, [ir.Constant(i64, i)]))
    zaddr = builder.ptrtoint(zslot, i64)
    p = builder.select(mask, ptrs, _splat(builder, zaddr, i64))
    pbuf = cgutils.alloca_once(builder, ir.VectorType(i64, 64))
    builder.store(p, pbuf, align=64)
    pflat = builder.bitcast(pbuf, i64.as_pointer())
    rows = cgutils.alloca_once(builder, ir.VectorType(ty, 64), size=ir.Constant(i64, n))
    rflat = builder.bitcast(rows, ty.as_pointer())
    for l in range(64):
        pl = builder.inttoptr(builder.load(builder.gep(pflat, [ir.Constant(i64, l)])),
                              ty.as_pointer())
        for i in range(n):
            v = builder.load(builder.gep(pl, [ir.Constant(i64, i)]) if i else pl, align=width)
            builder.store(v, builder.gep(rflat, [ir.Constant(i64, 64 * i + l)]))
    return [builder.load(builder.gep(rows, [ir.Constant(i64, i)]), align=64) for i in range(n)]


def _lds_addresses(builder, addr, uo, amask, ulim, n):
    """(a, ok) of a DS access of n dwords per lane: a = (addr + uo) & amask (<64 x i32>, the
    32-bit wrap of the hardware's address adder), ok = a + 4n <= ulim (without overflow)."""
    i32, i64 = ir.IntType(32), ir.IntType(64)
    a = builder.and_(builder.add(addr, _splat(builder, uo, i32)), _splat(builder, amask, i32))
    room = builder.icmp_unsigned(">=", ulim, ir.Constant(i64, 4 * n))
    last = builder.select(room, builder.sub(ulim, ir.Constant(i64, 4 * n)), ir.Constant(i64, 0))
    top = ir.Constant(i64, 0xFFFFFFFF)
    last = builder.select(builder.icmp_unsigned(">", last, top), top, last)
    ok = builder.and_(builder.icmp_unsigned("<=", a, _splat(builder, last, i32)),
                      _splat(builder, room, ir.IntType(1)))
    return a, ok


def _ok_bits(builder, ex, ok):
    """(the lanes of the i64 mask ``ex`` where the <64 x i1> ``ok`` holds, those where it does
    not), as i64 masks: made in the block ``ok`` is made in (_pred16)."""
    okb = builder.bitcast(ok, ir.IntType(64))
    return builder.and_(ex, okb), builder.and_(ex, builder.not_(okb))


def _pred16(builder, bits):
    """<16 x i1> from the i16 ``bits`` (lane l: bit l), made where it is used: an i1 vector
    that lives across basic blocks is kept as one byte per lane on AVX2 (hundreds of byte
    inserts and extracts per row kernel, measured: ds_read2_b32's kernel held 414 vpinsrb),
    so masks cross blocks as integers (see the module docstring)."""
    i32 = ir.IntType(32)
    v = builder.insert_element(ir.Constant(ir.VectorType(i32, 16), None),
                               builder.zext(bits, i32), ir.Constant(i32, 0))
    v = builder.shuffle_vector(v, v, ir.Constant(ir.VectorType(i32, 16), [0] * 16))
    return builder.icmp_unsigned("!=", builder.and_(v, ir.Constant(
        ir.VectorType(i32, 16), [1 << l for l in range(16)])), ir.Constant(ir.VectorType(i32, 16), None))


def _group(builder, base, a, m, g, n):
    """The lanes 16g..16g+15 of offsets ``a`` and mask ``m`` (an i64, lane l: bit l) as
    _grouped_rows and _grouped_store take them: (ag, mb, consecutive, uniform, start): the
    group's offsets and mask bits (i16: _pred16 makes the predicate), whether its offsets are a[0] + 4n l (for 32-bit offsets also a[0] < 2^31, so that
    they do not wrap in 32 bits where the 64-bit address would not; 64-bit offsets wrap like
    the address arithmetic), whether they are all equal, and base + a[0]."""
    i16, i32, i64 = ir.IntType(16), ir.IntType(32), ir.IntType(64)
    ty = a.type.element
    sel = ir.Constant(ir.VectorType(i32, 16), list(range(16 * g, 16 * g + 16)))
    ag = builder.shuffle_vector(a, a, sel)
    mb = builder.trunc(builder.lshr(m, ir.Constant(ir.IntType(64), 16 * g)), i16)
    a0 = builder.extract_element(ag, ir.Constant(i32, 0))
    a0v = _splat16(builder, a0)
    full = ir.Constant(i16, 0xFFFF)
    step = ir.Constant(ir.VectorType(ty, 16), [4 * n * i for i in range(16)])
    consecutive = builder.icmp_unsigned("==", builder.bitcast(builder.icmp_unsigned(
        "==", ag, builder.add(a0v, step)), i16), full)
    if ty.width == 32:
        consecutive = builder.and_(consecutive, builder.icmp_signed(">=", a0, ir.Constant(i32, 0)))
    uniform = builder.icmp_unsigned("==", builder.bitcast(
        builder.icmp_unsigned("==", ag, a0v), i16), full)
    start = builder.add(base, builder.zext(a0, i64) if ty.width == 32 else a0)
    return ag, mb, consecutive, uniform, start


def _lane_pointers(builder, base, ag, mg, other, pbuf):
    """Store the 16 lanes' addresses base + ag (where mg is set, else ``other``) at pbuf, for
    the lane-by-lane loops of _grouped_rows and _grouped_store; returns pbuf as i64*."""
    i64 = ir.IntType(64)
    q16 = ir.VectorType(i64, 16)
    ag64 = builder.zext(ag, q16) if ag.type.element.width == 32 else ag
    ps = builder.select(mg, builder.add(ag64, _splat16(builder, base)), _splat16(builder, other))
    builder.store(ps, pbuf, align=64)
    return builder.bitcast(pbuf, i64.as_pointer())


def _all_on(builder, mb):
    """Whether every lane of the 16-lane mask bits ``mb`` (i16) is on: then a group's consecutive access
    is a plain vector load or store, not a masked one (AVX2's vpmaskmovd is microcoded on
    AMD's cores; the masked forms stay for partial groups, whose off lanes may point
    anywhere)."""
    return builder.icmp_unsigned("==", mb, ir.Constant(ir.IntType(16), 0xFFFF))


def _wide_mask(builder, mg, n):
    """A 16-lane mask spread over the 16n dwords of the group's interleaved rows."""
    return builder.shuffle_vector(mg, mg, ir.Constant(ir.VectorType(ir.IntType(32), 16 * n),
                                                      [j // n for j in range(16 * n)]))


def _grouped_rows(context, builder, base, a, m, n):
    """n rows: row i lane l = the dword at base + a[l] + 4i where bit l of the i64 ``m`` is
    set, else 0 (a:
    <64 x i32> or <64 x i64> byte offsets from address ``base``; 4-aligned).

    By groups of 16 lanes (one AVX-512 vector): where the group's offsets are consecutive
    (a[l] = a[0] + 4n l: a row of a tile, an array indexed by the lane) the group is one
    vector load (masked unless every lane of the group is on), where they are all equal (a
    broadcast: the same element for every lane) one scalar load; other groups load lane by
    lane (_gather_rows' scheme: a lane that is off reads a zeroed stack slot). Lanes that
    are off never touch memory. The hardware gathers of this Zen 4 cost about as much as the
    lane loop (vpgatherdd: 30 against 31 ns a ds_read2_b32), so only the patterns make it
    faster: ds_read2_b32 31 -> 11 ns on consecutive groups."""
    from numba.core import cgutils
    i1, i16, i32, i64 = ir.IntType(1), ir.IntType(16), ir.IntType(32), ir.IntType(64)
    v16 = ir.VectorType(i32, 16)
    zeros = ir.Constant(v16, None)
    zslot = cgutils.alloca_once(builder, i32, size=ir.Constant(i64, 4))
    for i in range(4):
        builder.store(ir.Constant(i32, 0), builder.gep(zslot, [ir.Constant(i64, i)]))
    zaddr = builder.ptrtoint(zslot, i64)
    rows = cgutils.alloca_once(builder, ir.VectorType(i32, 64), size=ir.Constant(i64, n))
    rflat = builder.bitcast(rows, i32.as_pointer())
    pbuf = cgutils.alloca_once(builder, ir.VectorType(i64, 16))
    wide = ir.VectorType(i32, 16 * n)
    load_wide = _declare(builder, f"llvm.masked.load.v{16 * n}i32.p0", wide,
                         [wide.as_pointer(), i32, ir.VectorType(i1, 16 * n), wide])
    for g in range(4):
        ag, mb, consecutive, uniform, start = _group(builder, base, a, m, g, n)

        def put(k, value):
            dst = builder.gep(rflat, [ir.Constant(i64, 64 * k + 16 * g)])
            builder.store(value, builder.bitcast(dst, v16.as_pointer()), align=4)

        with builder.if_else(consecutive, likely=True) as (then, otherwise):
            with then:
                p = builder.inttoptr(start, wide.as_pointer())
                with builder.if_else(_all_on(builder, mb), likely=True) as (full, part):
                    with full:
                        plain = builder.load(p, align=4)
                        full_end = builder.block
                    with part:
                        masked = builder.call(load_wide, [p, ir.Constant(i32, 4),
                                                          _wide_mask(builder, _pred16(builder, mb), n),
                                                          ir.Constant(wide, None)])
                        part_end = builder.block
                vals = builder.phi(wide)
                vals.add_incoming(plain, full_end)
                vals.add_incoming(masked, part_end)
                for k in range(n):
                    put(k, builder.shuffle_vector(vals, vals, ir.Constant(
                        v16, [n * i + k for i in range(16)])) if n > 1 else vals)
            with otherwise:
                with builder.if_else(uniform) as (then2, otherwise2):
                    with then2:
                        any_on = builder.icmp_unsigned("!=", mb, ir.Constant(i16, 0))
                        p = builder.inttoptr(builder.select(any_on, start, zaddr),
                                             i32.as_pointer())
                        for k in range(n):
                            v = builder.load(builder.gep(p, [ir.Constant(i64, k)]) if k else p,
                                             align=4)
                            put(k, builder.select(_pred16(builder, mb), _splat16(builder, v),
                                                  zeros))
                    with otherwise2:
                        pflat = _lane_pointers(builder, base, ag, _pred16(builder, mb), zaddr,
                                               pbuf)
                        for l in range(16):
                            pl = builder.inttoptr(builder.load(
                                builder.gep(pflat, [ir.Constant(i64, l)])), i32.as_pointer())
                            for k in range(n):
                                v = builder.load(builder.gep(pl, [ir.Constant(i64, k)])
                                                 if k else pl, align=4)
                                builder.store(v, builder.gep(
                                    rflat, [ir.Constant(i64, 64 * k + 16 * g + l)]))
    return [builder.load(builder.gep(rows, [ir.Constant(i64, k)]), align=64) for k in range(n)]


def _grouped_store(context, builder, base, a, m, n, rows):
    """Store, in lane order, the n dwords of each lane l where bit l of the i64 ``m`` is set: row i lane
    l (the uint32 rows at address ``rows``, 256 bytes apart) to base + a[l] + 4i (a: <64 x i32>
    or <64 x i64> byte offsets from address ``base``, 4-aligned). A later lane wins where
    stores meet.

    By groups of 16 lanes, in order (so a later group wins over an earlier one): consecutive
    offsets (a[l] = a[0] + 4n l: distinct, no lane meets another) are one masked vector store
    of the interleaved rows; equal offsets are the last active lane's store; other groups store
    lane by lane (a lane that is off stores to a stack slot). See _grouped_rows."""
    from numba.core import cgutils
    i1, i16, i32, i64 = ir.IntType(1), ir.IntType(16), ir.IntType(32), ir.IntType(64)
    v16 = ir.VectorType(i32, 16)
    sink = builder.ptrtoint(cgutils.alloca_once(builder, i32, size=ir.Constant(i64, 4)), i64)
    pbuf = cgutils.alloca_once(builder, ir.VectorType(i64, 16))
    wide = ir.VectorType(i32, 16 * n)
    store_wide = _declare(builder, f"llvm.masked.store.v{16 * n}i32.p0", ir.VoidType(),
                          [wide, wide.as_pointer(), i32, ir.VectorType(i1, 16 * n)])
    ctlz = _declare(builder, "llvm.ctlz.i16", i16, [i16, i1])

    def lane_word(k, lane):      # row k's dword of a lane (an i64 lane number)
        at = builder.add(rows, builder.add(ir.Constant(i64, 256 * k),
                                           builder.shl(lane, ir.Constant(i64, 2))))
        return builder.load(builder.inttoptr(at, i32.as_pointer()), align=4)

    for g in range(4):
        ag, mb, consecutive, uniform, start = _group(builder, base, a, m, g, n)
        with builder.if_else(consecutive, likely=True) as (then, otherwise):
            with then:
                parts = [builder.load(builder.inttoptr(builder.add(
                    rows, ir.Constant(i64, 256 * k + 64 * g)), v16.as_pointer()), align=4)
                    for k in range(n)]
                if n == 1:
                    vals = parts[0]
                else:
                    while len(parts) & (len(parts) - 1):
                        parts.append(ir.Constant(v16, None))
                    while len(parts) > 1:    # concatenate: row k at elements 16k..16k+15
                        w = ir.VectorType(i32, 2 * parts[0].type.count)
                        parts = [builder.shuffle_vector(parts[i], parts[i + 1], ir.Constant(
                            ir.VectorType(i32, w.count), list(range(w.count))))
                            for i in range(0, len(parts), 2)]
                    vals = builder.shuffle_vector(parts[0], parts[0], ir.Constant(
                        wide, [(j % n) * 16 + j // n for j in range(16 * n)]))
                p = builder.inttoptr(start, wide.as_pointer())
                with builder.if_else(_all_on(builder, mb), likely=True) as (full, part):
                    with full:
                        builder.store(vals, p, align=4)
                    with part:
                        builder.call(store_wide, [vals, p, ir.Constant(i32, 4),
                                                  _wide_mask(builder, _pred16(builder, mb), n)])
            with otherwise:
                with builder.if_else(uniform) as (then2, otherwise2):
                    with then2:
                        bits = mb
                        with builder.if_then(builder.icmp_unsigned("!=", bits,
                                                                   ir.Constant(i16, 0))):
                            last = builder.sub(ir.Constant(i16, 15), builder.call(
                                ctlz, [bits, ir.Constant(i1, 1)]))
                            lane = builder.add(builder.zext(last, i64), ir.Constant(i64, 16 * g))
                            p = builder.inttoptr(start, i32.as_pointer())
                            for k in range(n):
                                builder.store(lane_word(k, lane), builder.gep(
                                    p, [ir.Constant(i64, k)]) if k else p, align=1)
                    with otherwise2:
                        pflat = _lane_pointers(builder, base, ag, _pred16(builder, mb), sink,
                                               pbuf)
                        for l in range(16):
                            pl = builder.inttoptr(builder.load(
                                builder.gep(pflat, [ir.Constant(i64, l)])), i32.as_pointer())
                            for k in range(n):
                                v = lane_word(k, ir.Constant(i64, 16 * g + l))
                                builder.store(v, builder.gep(pl, [ir.Constant(i64, k)])
                                              if k else pl, align=1)


def _splat4(builder, x):
    """x in all 4 lanes of a vector of its type (the 4 segments' checks)."""
    i32 = ir.IntType(32)
    vec = builder.insert_element(ir.Constant(ir.VectorType(x.type, 4), None), x,
                                 ir.Constant(i32, 0))
    return builder.shuffle_vector(vec, vec, ir.Constant(ir.VectorType(i32, 4), [0] * 4))


def _splat16(builder, x):
    """x in all 16 lanes of a vector of its type."""
    i32 = ir.IntType(32)
    vec = builder.insert_element(ir.Constant(ir.VectorType(x.type, 16), None), x,
                                 ir.Constant(i32, 0))
    return builder.shuffle_vector(vec, vec, ir.Constant(ir.VectorType(i32, 16), [0] * 16))



def _lds_segments(builder, addr, uos, amask, ulim, ex, n):
    """(ok, uniform, starts): whether a DS access of n dwords per lane at the addresses
    (addr + uo) & amask of each uo of ``uos`` is, for every lane, the plain sum without a wrap
    and in range, its lanes all on and its 4 groups of 16 lanes (segments) all of one kind:
    consecutive (lane l's ADDR is s_g + 4n (l % 16), s_g lane 16g's: a row of a tile, or one
    run of 256n bytes: scan_lds' buf[lid]) or, where ``uniform``, equal (s_g for every lane of
    the group: a broadcast, matmul_tiled's As[ty][k]); ``starts`` are the segments' LDS byte
    addresses (i64), 4 per uo in uo order. ok: s_g + 64n <= 2^32 (ADDR does not wrap in the
    segment), b = (s_g + uo) mod 2^32 unchanged by amask (aligned: amask then keeps every lane's
    address as it is, since it clears only bits below 4n) and b + 64n (4n for a broadcast) <=
    min(ulim, 2^32). Such a row is then a vector load or store (or a scalar one) per segment of
    the same lanes and bytes as _grouped_rows / _grouped_store would access."""
    from numba.core import cgutils
    i32, i64 = ir.IntType(32), ir.IntType(64)
    row = ir.VectorType(i32, 64)
    sv = builder.shuffle_vector(addr, addr, ir.Constant(row, [16 * (l // 16) for l in range(64)]))
    step = ir.Constant(row, [4 * n * (l % 16) for l in range(64)])
    reduce_or = _declare(builder, "llvm.vector.reduce.or.v64i32", i32, [row])
    zero = ir.Constant(i32, 0)
    cons = builder.icmp_unsigned("==", builder.call(reduce_or, [
        builder.xor(addr, builder.add(sv, step))]), zero)
    # a broadcast per group, only where the groups are not runs (scan_lds' buf[lid] is one)
    uslot = cgutils.alloca_once_value(builder, ir.Constant(ir.IntType(1), 0))
    with builder.if_then(builder.not_(cons)):
        builder.store(builder.icmp_unsigned("==", builder.call(reduce_or, [builder.xor(addr, sv)]),
                                            zero), uslot)
    uniform = builder.load(uslot)
    run = builder.and_(builder.or_(cons, uniform), builder.icmp_unsigned("==", ex, ir.Constant(i64, -1)))
    run = builder.and_(run, builder.icmp_unsigned("==", builder.or_(amask, ir.Constant(i64, 4 * n - 1)),
                                                  ir.Constant(i64, 0xFFFFFFFF)))
    span = builder.select(uniform, ir.Constant(i64, 4 * n), ir.Constant(i64, 64 * n))
    top = builder.select(builder.icmp_unsigned("<", ulim, ir.Constant(i64, 1 << 32)), ulim,
                         ir.Constant(i64, 1 << 32))
    # the 4 segments' checks as <4 x i64> vectors: fewer instructions than 4 scalar sets
    q4 = ir.VectorType(i64, 4)
    s4 = builder.shuffle_vector(addr, addr, ir.Constant(ir.VectorType(i32, 4), [0, 16, 32, 48]))
    ok4 = builder.icmp_unsigned("<=", s4, ir.Constant(s4.type, [(1 << 32) - 64 * n] * 4))
    s4 = builder.zext(s4, q4)
    starts = []
    for uo in uos:
        b4 = builder.and_(builder.add(s4, _splat4(builder, uo)), ir.Constant(q4, [0xFFFFFFFF] * 4))
        ok4 = builder.and_(ok4, builder.icmp_unsigned("==", builder.and_(b4, _splat4(builder, amask)), b4))
        ok4 = builder.and_(ok4, builder.icmp_unsigned("<=", builder.add(b4, _splat4(builder, span)),
                                                      _splat4(builder, top)))
        starts.extend(builder.extract_element(b4, ir.Constant(i32, g)) for g in range(4))
    run = builder.and_(run, builder.icmp_unsigned("==", builder.bitcast(ok4, ir.IntType(4)),
                                                  ir.Constant(ir.IntType(4), 0xF)))
    return run, uniform, starts


def _segment_rows(builder, base, starts, uniform, n):
    """The n rows (<64 x i32>, lane l of row k: dword k of lane l's access) of each segment
    set of ``starts`` (4 per address, as _lds_segments gives them; their checks passed): one
    vector load of 16n dwords per consecutive segment, where ``uniform`` (an i1) one scalar
    load per dword instead. Returns the rows, n per 4 starts, all loads done first (the
    values, not a stack copy: a row kept in registers is ~1.5 ns cheaper a row)."""
    i32, i64 = ir.IntType(32), ir.IntType(64)
    row = ir.VectorType(i32, 64)
    q = ir.VectorType(i32, 16 * n)
    sets = len(starts) // 4

    def broadcasts():
        out = []
        for j in range(sets):
            for k in range(n):
                v4 = ir.Constant(ir.VectorType(i32, 4), None)
                for g in range(4):
                    v = builder.load(builder.inttoptr(builder.add(base, builder.add(
                        starts[4 * j + g], ir.Constant(i64, 4 * k))), i32.as_pointer()), align=4)
                    v4 = builder.insert_element(v4, v, ir.Constant(i32, g))
                out.append(builder.shuffle_vector(v4, v4, ir.Constant(
                    row, [l // 16 for l in range(64)])))
        return out

    def runs():
        out = []
        for j in range(sets):
            parts = [builder.load(builder.inttoptr(builder.add(base, starts[4 * j + g]),
                                                   q.as_pointer()), align=4) for g in range(4)]
            while len(parts) > 1:    # concatenate: segment g at elements 16n g..
                w = 2 * parts[0].type.count
                parts = [builder.shuffle_vector(parts[i], parts[i + 1], ir.Constant(
                    ir.VectorType(i32, w), list(range(w)))) for i in range(0, len(parts), 2)]
            vals = parts[0]
            out.extend(vals if n == 1 else builder.shuffle_vector(vals, vals, ir.Constant(
                row, [n * l + k for l in range(64)])) for k in range(n))
        return out

    if isinstance(uniform, ir.Constant) and not uniform.constant:
        return runs()
    with builder.if_else(uniform) as (uni, cons):
        with uni:
            a, ablock = broadcasts(), builder.block
        with cons:
            b, bblock = runs(), builder.block
    return phi_join(builder, a, ablock, b, bblock)


def phi_join(builder, a, ablock, b, bblock):
    """At the join of two branches, one phi per pair: a[i] as it came from block ``ablock``,
    b[i] from ``bblock`` (the builder positioned after both)."""
    out = []
    for x, y in zip(a, b):
        phi = builder.phi(x.type)
        phi.add_incoming(x, ablock)
        phi.add_incoming(y, bblock)
        out.append(phi)
    return out


def _segment_store(builder, base, starts, uniform, n, parts):
    """Store the n rows ``parts`` (<64 x i32>) by the 4 segments at ``starts`` (_lds_segments'
    checks passed), segment after segment so that a later segment wins where they meet (the
    lanes' order; inside a consecutive segment the addresses are distinct): a vector store of
    16n dwords per consecutive segment; where ``uniform``, lane 16g + 15's n dwords (the last
    lane's store) at segment g's address."""
    i32, i64 = ir.IntType(32), ir.IntType(64)
    q = ir.VectorType(i32, 16 * n)
    with builder.if_else(uniform) as (uni, cons):
        with uni:
            vals = [[builder.extract_element(parts[k], ir.Constant(i32, 16 * g + 15))
                     for k in range(n)] for g in range(4)]
            for g in range(4):
                for k in range(n):
                    builder.store(vals[g][k], builder.inttoptr(builder.add(base, builder.add(
                        starts[g], ir.Constant(i64, 4 * k))), i32.as_pointer()), align=4)
        with cons:
            vals = _concat_rows(builder, parts)
            for g in range(4):
                seg = builder.shuffle_vector(vals, vals, ir.Constant(
                    q, list(range(16 * n * g, 16 * n * (g + 1)))))
                builder.store(seg, builder.inttoptr(builder.add(base, starts[g]), q.as_pointer()),
                              align=4)


def _lds_gather_intrinsic(n, pairs):
    """An intrinsic for the dword DS loads (n dwords at each of ``pairs`` addresses per lane):

        gather(dst, lds, src, uo0, uo1, amask, ulim, ex)

    For each lane l of the row at address ``src`` (a uint32 LDS address register) and each
    offset uo of (uo0,) or (uo0, uo1): a = (src[l] + uo) & amask (64-bit arithmetic; amask
    includes the 32-bit wrap and the alignment), ok = a + 4n <= ulim; the n dwords at byte
    address lds + a (lds: the address of the wave's LDS window, 4-aligned; a is 4-aligned)
    where ok and bit l of ``ex`` are set, 0 where only ex is set. Row k of the 2n (or n) result
    rows goes to dst + 256k under ``ex`` (one masked store each); other lanes keep their
    values. All addresses are read, and all loads done, before the first store (the
    destination may overlap the address row). Lanes that are not loaded never read memory
    (_grouped_rows), so out-of-range lanes never read outside the LDS. Returns the mask of
    the lanes of ``ex`` with an access out of range. A row whose lanes are all on and whose
    4 groups of 16 lanes each read one run of 64n bytes (a tile's rows, or one run of 256n
    bytes), or each one element (a broadcast per group), at every address in range
    (_lds_segments; n = 1, 2, 4) is 4 vector loads (4n scalar ones) per address instead:
    matmul_tiled's ds_read2_b32 (a broadcast and a tile's row, alternating, one-wave loop,
    thread CPU time, AVX-512 code) 24-27 -> 17-19 ns a wave-instruction."""
    def gather(typingctx, dst, lds, src, uo0, uo1, amask, ulim, ex):
        sig = types.uint64(dst, lds, src, uo0, uo1, amask, ulim, ex)

        def codegen(context, builder, signature, args):
            from numba.core import cgutils
            i32, i64 = ir.IntType(32), ir.IntType(64)
            row = ir.VectorType(i32, 64)
            ptr = row.as_pointer()
            dst_, lds_, src_, uo0_, uo1_, amask_, ulim_, ex_ = [
                builder.zext(a, i64) if a.type.width < 64 else a for a in args]
            addr = builder.load(builder.inttoptr(src_, ptr), align=4)
            res = cgutils.alloca_once_value(builder, ir.Constant(i64, 0))
            whole = ir.Constant(ir.IntType(1), 0)
            if n != 3:                    # (ds_read_b96's 16-byte alignment: no segments)
                whole, uniform, starts = _lds_segments(builder, addr, (uo0_, uo1_)[:pairs],
                                                       amask_, ulim_, ex_, n)
            with builder.if_else(whole, likely=True) as (run, lanes):
                with run:
                    if n != 3:
                        rows = _segment_rows(builder, lds_, starts, uniform, n)
                        for k, v in enumerate(rows):
                            d = builder.add(dst_, ir.Constant(i64, 256 * k)) if k else dst_
                            builder.store(v, builder.inttoptr(d, ptr), align=4)
                with lanes:
                    values = []
                    bad = ir.Constant(i64, 0)
                    for uo in (uo0_, uo1_)[:pairs]:
                        a, ok = _lds_addresses(builder, addr, uo, amask_, ulim_, n)
                        good, out = _ok_bits(builder, ex_, ok)
                        bad = builder.or_(bad, out)
                        values.extend(_grouped_rows(context, builder, lds_, a, good, n))
                    exv = lane_predicate(builder, ex_)
                    for k, v in enumerate(values):
                        d = builder.add(dst_, ir.Constant(i64, 256 * k)) if k else dst_
                        store_row_under(builder, v, builder.inttoptr(d, ptr), exv)
                    builder.store(bad, res)
            return builder.load(res)
        return sig, codegen
    gather.__name__ = f"lds_gather{pairs}_{n}"
    return intrinsic(gather)


lds_gather1_1, lds_gather1_2, lds_gather1_3, lds_gather1_4 = (
    _lds_gather_intrinsic(n, 1) for n in (1, 2, 3, 4))
lds_gather2_1, lds_gather2_2 = (_lds_gather_intrinsic(n, 2) for n in (1, 2))


def _mapped_lanes(context, builder, m, o, mapped, ps, last):
    """The lanes (an i64 mask) of the <64 x i1> m whose page flags (bytes at mapped + (o >> ps) and mapped + ((o +
    last) >> ps)) are both nonzero. When the lanes' pages span at most 16 pages that are all
    mapped, that is m itself (one flag per page instead of two per lane); otherwise the flags
    of each lane are read."""
    from numba.core import cgutils
    i1, i8, i64 = ir.IntType(1), ir.IntType(8), ir.IntType(64)
    row64 = ir.VectorType(i64, 64)
    umin = _declare(builder, "llvm.vector.reduce.umin.v64i64", i64, [row64])
    umax = _declare(builder, "llvm.vector.reduce.umax.v64i64", i64, [row64])
    bits = builder.bitcast(m, i64)
    omin = builder.call(umin, [builder.select(m, o, ir.Constant(row64, [-1] * 64))])
    omax = builder.call(umax, [builder.select(m, o, ir.Constant(row64, None))])
    lo = builder.lshr(omin, ps)
    hi = builder.lshr(builder.add(omax, ir.Constant(i64, last)), ps)
    allok = cgutils.alloca_once_value(builder, ir.Constant(i1, 0))
    short = builder.and_(builder.icmp_unsigned("!=", bits, ir.Constant(i64, 0)),
                         builder.icmp_unsigned("<", builder.sub(hi, lo), ir.Constant(i64, 16)))
    with builder.if_then(short, likely=True):
        builder.store(ir.Constant(i1, 1), allok)
        with cgutils.for_range(builder, builder.add(builder.sub(hi, lo), ir.Constant(i64, 1))) as loop:
            pg = builder.inttoptr(builder.add(mapped, builder.add(lo, loop.index)), i8.as_pointer())
            with builder.if_then(builder.icmp_unsigned("==", builder.load(pg), ir.Constant(i8, 0))):
                builder.store(ir.Constant(i1, 0), allok)
    res = cgutils.alloca_once_value(builder, bits)
    with builder.if_then(builder.not_(builder.load(allok))):
        psv = _splat(builder, ps, i64)
        zb = ir.Constant(ir.VectorType(i8, 64), None)
        m2 = lane_predicate(builder, bits)
        for off in (0, last):
            oo = builder.add(o, _splat(builder, ir.Constant(i64, off), i64)) if off else o
            pg = builder.add(builder.lshr(oo, psv), _splat(builder, mapped, i64))
            flag = _gather_rows(context, builder, pg, m2, 1, i8)[0]
            m2 = builder.and_(m2, builder.icmp_unsigned("!=", flag, zb))
        builder.store(builder.bitcast(m2, i64), res)
    return builder.load(res)



def _concat_rows(builder, parts):
    """The <64 x i32> rows ``parts`` interleaved lane by lane into one <64n x i32> vector:
    element n l + k is lane l of row k (the layout of n consecutive dwords per lane)."""
    i32 = ir.IntType(32)
    n = len(parts)
    if n == 1:
        return parts[0]
    parts = list(parts)
    while len(parts) & (len(parts) - 1):
        parts.append(ir.Constant(parts[0].type, None))
    while len(parts) > 1:        # concatenate: row k at elements 64k..64k+63
        w = 2 * parts[0].type.count
        parts = [builder.shuffle_vector(parts[i], parts[i + 1], ir.Constant(
            ir.VectorType(i32, w), list(range(w)))) for i in range(0, len(parts), 2)]
    return builder.shuffle_vector(parts[0], parts[0], ir.Constant(
        ir.VectorType(i32, 64 * n), [(j % n) * 64 + j // n for j in range(64 * n)]))


def _flat_segments(context, builder, src, ubase, dlim, priv, mapped, ps, ex, n):
    """(ok, offsets): whether a FLAT access of n dwords per lane is, for each of its 4 groups
    of 16 lanes (segments), one run of 64n bytes: every lane active, lane l's address ua_g +
    4n (l % 16) (ua_g: lane 16g's; the low halves consecutive without a carry into the high
    half, the high halves all equal), outside the private aperture, 4-aligned, each run inside
    the backing array with the (at most two) pages it touches mapped; offsets: the 4 runs'
    o_g = ua_g - ubase (i64). The rows' common cases (an array indexed by the work-item id: saxpy's loads and store; the rows of a 16-wide tile: transpose_lds' and
    matmul_tiled's), checked with a few whole-row operations instead of _flat_fast_lanes'
    per-lane 64-bit arithmetic, and then accessed with a vector load or store per segment
    (the same lanes and bytes that path would access: a shortcut, not other semantics)."""
    from numba.core import cgutils
    i1, i8, i32, i64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
    row = ir.VectorType(i32, 64)
    lo = builder.load(builder.inttoptr(src, row.as_pointer()), align=4)
    hi = builder.load(builder.inttoptr(builder.add(src, ir.Constant(i64, 256)), row.as_pointer()),
                      align=4)
    hi0 = builder.extract_element(hi, ir.Constant(i32, 0))
    sv = builder.shuffle_vector(lo, lo, ir.Constant(row, [16 * (l // 16) for l in range(64)]))
    step = ir.Constant(row, [4 * n * (l % 16) for l in range(64)])
    diff = builder.or_(builder.xor(lo, builder.add(sv, step)),
                       builder.xor(hi, _splat(builder, hi0, i32)))
    reduce_or = _declare(builder, "llvm.vector.reduce.or.v64i32", i32, [row])
    run = builder.icmp_unsigned("==", builder.call(reduce_or, [diff]), ir.Constant(i32, 0))
    run = builder.and_(run, builder.icmp_unsigned("==", ex, ir.Constant(i64, -1)))
    run = builder.and_(run, builder.icmp_unsigned("!=", builder.zext(hi0, i64), priv))
    high = builder.shl(builder.zext(hi0, i64), ir.Constant(i64, 32))
    # the 4 segments' checks as <4 x i64> vectors: fewer instructions than 4 scalar sets
    q4 = ir.VectorType(i64, 4)
    lo4 = builder.shuffle_vector(lo, lo, ir.Constant(ir.VectorType(i32, 4), [0, 16, 32, 48]))
    # no carry out of the low halves: lane 16g + 15's last byte lo_g + 64n - 1 < 2^32
    ok4 = builder.icmp_unsigned("<=", lo4, ir.Constant(lo4.type, [(1 << 32) - 64 * n] * 4))
    ua4 = builder.or_(builder.zext(lo4, q4), _splat4(builder, high))
    o4 = builder.sub(ua4, _splat4(builder, ubase))
    dlim4 = _splat4(builder, dlim)
    ok4 = builder.and_(ok4, builder.icmp_unsigned(">=", ua4, _splat4(builder, ubase)))
    ok4 = builder.and_(ok4, builder.icmp_unsigned("<=", o4, dlim4))
    ok4 = builder.and_(ok4, builder.icmp_unsigned("<=", builder.add(
        o4, ir.Constant(q4, [4 * n * 15] * 4)), dlim4))
    ok4 = builder.and_(ok4, builder.icmp_unsigned("==", builder.and_(
        o4, ir.Constant(q4, [3] * 4)), ir.Constant(q4, None)))
    # a run within two pages (64n bytes <= a page): its first and last page's flags
    ps4 = _splat4(builder, ps)
    p0 = builder.lshr(o4, ps4)
    p1 = builder.lshr(builder.add(o4, ir.Constant(q4, [64 * n - 1] * 4)), ps4)
    ok4 = builder.and_(ok4, builder.icmp_unsigned("<=", builder.sub(p1, p0), ir.Constant(q4, [1] * 4)))
    run = builder.and_(run, builder.icmp_unsigned("==", builder.bitcast(ok4, ir.IntType(4)),
                                                  ir.Constant(ir.IntType(4), 0xF)))
    offsets = [(builder.extract_element(o4, ir.Constant(i32, g)),
                [builder.extract_element(p, ir.Constant(i32, g)) for p in (p0, p1)]) for g in range(4)]
    ok = cgutils.alloca_once_value(builder, ir.Constant(i1, 0))
    with builder.if_then(run, likely=True):    # (the flags exist for offsets in range only)
        flags = ir.Constant(i8, 0xFF)
        for o, pages in offsets:
            for pg in pages:
                flags = builder.and_(flags, builder.select(builder.icmp_unsigned(
                    "!=", builder.load(builder.inttoptr(builder.add(mapped, pg), i8.as_pointer())),
                    ir.Constant(i8, 0)), ir.Constant(i8, 0xFF), ir.Constant(i8, 0)))
        builder.store(builder.icmp_unsigned("!=", flags, ir.Constant(i8, 0)), ok)
    offsets = [o for o, _ in offsets]
    return builder.load(ok), offsets


def _flat_fast_lanes(context, builder, src, ubase, dlim, priv, mapped, ps, ex, n):
    """(m, o): the fast lanes of a FLAT dword access of n dwords (see _flat_gather_intrinsic),
    an i64 mask, and every lane's offset o = ua - ubase into the backing array (<64 x i64>)."""
    i32, i64 = ir.IntType(32), ir.IntType(64)
    row = ir.VectorType(i32, 64)
    row64 = ir.VectorType(i64, 64)
    ptr = row.as_pointer()
    lo = builder.zext(builder.load(builder.inttoptr(src, ptr), align=4), row64)
    hi = builder.zext(builder.load(builder.inttoptr(builder.add(src, ir.Constant(i64, 256)), ptr),
                                   align=4), row64)
    ua = builder.or_(lo, builder.shl(hi, _splat(builder, ir.Constant(i64, 32), i64)))
    o = builder.sub(ua, _splat(builder, ubase, i64))
    m = lane_predicate(builder, ex)
    m = builder.and_(m, builder.icmp_unsigned("!=", hi, _splat(builder, priv, i64)))
    m = builder.and_(m, builder.icmp_unsigned(">=", ua, _splat(builder, ubase, i64)))
    m = builder.and_(m, builder.icmp_unsigned("<=", o, _splat(builder, dlim, i64)))
    m = builder.and_(m, builder.icmp_unsigned(
        "==", builder.and_(o, _splat(builder, ir.Constant(i64, 3), i64)), ir.Constant(row64, None)))
    return _mapped_lanes(context, builder, m, o, mapped, ps, 4 * n - 1), o


def _flat_gather_intrinsic(n):
    """An intrinsic for the FLAT dword loads (n dwords per lane) from mapped global memory:

        slow = gather(dst, src, data, mapped, ubase, dlim, ps, priv, ex)

    Lane l's 64-bit address is ua = src[l] | src[l + 64] << 32 (the rows at address ``src``
    and src + 256). The lane is fast when bit l of ``ex`` is set, ua >> 32 != priv, ua >=
    ubase, o = ua - ubase <= dlim, o is 4-aligned, and the bytes of ``mapped`` (page flags) at
    o >> ps and (o + 4n - 1) >> ps are nonzero. When every lane of ``ex`` is fast, each lane's
    n dwords at data + o go to row k of dst + 256k (one masked store per row, under ``ex``),
    all addresses read before the first store, and it returns 0. Otherwise it loads nothing
    and returns the mask of the active lanes that are not fast (the caller then runs the
    load lane by lane: it can, since nothing was written, even where the destination
    overlaps the address). A row whose lanes are all on and whose 4 groups of 16 lanes each
    read one run of 64n bytes (_flat_segments: a tile's rows, or one run of 256n bytes) is one
    vector load per group instead."""
    def gather(typingctx, dst, src, data, mapped, ubase, dlim, ps, priv, ex):
        sig = types.uint64(dst, src, data, mapped, ubase, dlim, ps, priv, ex)

        def codegen(context, builder, signature, args):
            from numba.core import cgutils
            i32, i64 = ir.IntType(32), ir.IntType(64)
            ptr = ir.VectorType(i32, 64).as_pointer()
            dst_, src_, data_, mapped_, ubase_, dlim_, ps_, priv_, ex_ = [
                builder.zext(a, i64) if a.type.width < 64 else a for a in args]
            res = cgutils.alloca_once_value(builder, ir.Constant(i64, 0))
            whole, offsets = _flat_segments(context, builder, src_, ubase_, dlim_, priv_,
                                            mapped_, ps_, ex_, n)
            with builder.if_else(whole, likely=True) as (run, lanes):
                with run:
                    # every lane on: plain row stores (all loads done before the first)
                    rows = _segment_rows(builder, data_, offsets, ir.Constant(ir.IntType(1), 0), n)
                    for k, v in enumerate(rows):
                        d = builder.add(dst_, ir.Constant(i64, 256 * k)) if k else dst_
                        builder.store(v, builder.inttoptr(d, ptr), align=4)
                with lanes:
                    m, o = _flat_fast_lanes(context, builder, src_, ubase_, dlim_, priv_, mapped_,
                                            ps_, ex_, n)
                    slow = builder.and_(ex_, builder.not_(m))
                    builder.store(slow, res)
                    with builder.if_then(builder.icmp_unsigned("==", slow, ir.Constant(i64, 0)),
                                         likely=True):
                        values = _grouped_rows(context, builder, data_, o, m, n)
                        mv = lane_predicate(builder, m)
                        for k, v in enumerate(values):
                            d = builder.add(dst_, ir.Constant(i64, 256 * k)) if k else dst_
                            store_row_under(builder, v, builder.inttoptr(d, ptr), mv)
            return builder.load(res)
        return sig, codegen
    gather.__name__ = f"flat_gather_{n}"
    return intrinsic(gather)


flat_gather_1, flat_gather_2, flat_gather_3, flat_gather_4 = (
    _flat_gather_intrinsic(n) for n in (1, 2, 3, 4))


def _lds_scatter_intrinsic(n, pairs):
    """An intrinsic for the dword DS stores (n dwords at each of ``pairs`` addresses per lane):

        scatter(lds, src, data0, data1, uo0, uo1, amask, ulim, ex)

    Addresses and range as in _lds_gather_intrinsic, computed for all lanes first; then, lane by
    lane in order and for each address of the lane in order, the n dwords of the rows at data0
    (data1 for the second address), 256 bytes apart, are stored at lds + a: a later lane's (and
    a lane's second address's) store wins where accesses meet, as in the hardware's lane order.
    One address: by groups of 16 lanes (_grouped_store). Two: a lane that is off or out of
    range stores to a stack slot instead (one branch-free loop). One address, every lane on,
    in range, each group of 16 lanes one run of 64n bytes (a tile's row) or one element
    (_lds_segments; n = 1, 2, 4): a vector store (the last lane's scalar store) per group,
    group after group. Returns the mask of the lanes of
    ``ex`` with an access out of range."""
    def scatter(typingctx, lds, src, data0, data1, uo0, uo1, amask, ulim, ex):
        sig = types.uint64(lds, src, data0, data1, uo0, uo1, amask, ulim, ex)

        def codegen(context, builder, signature, args):
            from numba.core import cgutils
            i32, i64 = ir.IntType(32), ir.IntType(64)
            row = ir.VectorType(i32, 64)
            row64 = ir.VectorType(i64, 64)
            lds_, src_, data0_, data1_, uo0_, uo1_, amask_, ulim_, ex_ = [
                builder.zext(a, i64) if a.type.width < 64 else a for a in args]
            exv = lane_predicate(builder, ex_)
            addr = builder.load(builder.inttoptr(src_, row.as_pointer()), align=4)
            if pairs == 1:
                res = cgutils.alloca_once_value(builder, ir.Constant(i64, 0))
                whole = ir.Constant(ir.IntType(1), 0)
                if n != 3:                # (ds_write_b96's 16-byte alignment: no segments)
                    whole, uniform, starts = _lds_segments(builder, addr, (uo0_,), amask_, ulim_,
                                                           ex_, n)
                with builder.if_else(whole, likely=True) as (run, lanes):
                    with run:
                        if n != 3:
                            parts = [builder.load(builder.inttoptr(builder.add(
                                data0_, ir.Constant(i64, 256 * k)), row.as_pointer()), align=4)
                                for k in range(n)]
                            _segment_store(builder, lds_, starts, uniform, n, parts)
                    with lanes:
                        a, ok = _lds_addresses(builder, addr, uo0_, amask_, ulim_, n)
                        good, bad = _ok_bits(builder, ex_, ok)
                        _grouped_store(context, builder, lds_, a, good, n, data0_)
                        builder.store(bad, res)
                return builder.load(res)
            sink = builder.ptrtoint(cgutils.alloca_once(builder, i32, size=ir.Constant(i64, 4)), i64)
            pbuf = cgutils.alloca_once(builder, row64, size=ir.Constant(i64, pairs))
            all_ok = None
            for j, uo in enumerate((uo0_, uo1_)[:pairs]):
                a, ok = _lds_addresses(builder, addr, uo, amask_, ulim_, n)
                all_ok = ok if all_ok is None else builder.and_(all_ok, ok)
                p = builder.select(builder.and_(ok, exv),
                                   builder.add(builder.zext(a, row64), _splat(builder, lds_, i64)),
                                   _splat(builder, sink, i64))
                builder.store(p, builder.gep(pbuf, [ir.Constant(i64, j)]), align=64)
            pflat = builder.bitcast(pbuf, i64.as_pointer())
            for l in range(64):
                for j, data in enumerate((data0_, data1_)[:pairs]):
                    pl = builder.inttoptr(builder.load(builder.gep(pflat, [ir.Constant(i64, 64 * j + l)])),
                                          i32.as_pointer())
                    for i in range(n):
                        v = builder.load(builder.inttoptr(
                            builder.add(data, ir.Constant(i64, 256 * i + 4 * l)), i32.as_pointer()))
                        builder.store(v, builder.gep(pl, [ir.Constant(i64, i)]) if i else pl)
            return _ok_bits(builder, ex_, all_ok)[1]
        return sig, codegen
    scatter.__name__ = f"lds_scatter{pairs}_{n}"
    return intrinsic(scatter)


lds_scatter1_1, lds_scatter1_2, lds_scatter1_3, lds_scatter1_4 = (
    _lds_scatter_intrinsic(n, 1) for n in (1, 2, 3, 4))
lds_scatter2_1, lds_scatter2_2 = (_lds_scatter_intrinsic(n, 2) for n in (1, 2))


def _flat_scatter_intrinsic(n):
    """An intrinsic for the FLAT dword stores (n dwords per lane) to mapped global memory:

        slow = scatter(src, vdata, data, mapped, ubase, dlim, ps, priv, ex)

    The fast lanes as in _flat_gather_intrinsic. When every lane of ``ex`` is fast, stores,
    in lane order (a later lane wins where accesses meet; by groups of 16 lanes,
    _grouped_store), the n dwords of the rows at ``vdata`` (256 bytes apart) at data + o, and
    returns 0. Otherwise stores nothing and returns
    the mask of the active lanes that are not fast: the caller then runs the whole store lane by
    lane, since a slow lane's store must keep its place in the lane order. A row whose lanes
    are all on and write one run of 256n bytes (_flat_whole_row) is one vector store."""
    def scatter(typingctx, src, vdata, data, mapped, ubase, dlim, ps, priv, ex):
        sig = types.uint64(src, vdata, data, mapped, ubase, dlim, ps, priv, ex)

        def codegen(context, builder, signature, args):
            from numba.core import cgutils
            i32, i64 = ir.IntType(32), ir.IntType(64)
            row = ir.VectorType(i32, 64)
            src_, vdata_, data_, mapped_, ubase_, dlim_, ps_, priv_, ex_ = [
                builder.zext(a, i64) if a.type.width < 64 else a for a in args]
            res = cgutils.alloca_once_value(builder, ir.Constant(i64, 0))
            whole, offsets = _flat_segments(context, builder, src_, ubase_, dlim_, priv_,
                                            mapped_, ps_, ex_, n)
            with builder.if_else(whole, likely=True) as (run, lanes):
                with run:
                    # every lane on, distinct addresses within a segment: segment by segment
                    parts = [builder.load(builder.inttoptr(builder.add(
                        vdata_, ir.Constant(i64, 256 * k)), row.as_pointer()), align=4)
                        for k in range(n)]
                    _segment_store(builder, data_, offsets, ir.Constant(ir.IntType(1), 0), n, parts)
                with lanes:
                    m, o = _flat_fast_lanes(context, builder, src_, ubase_, dlim_, priv_, mapped_,
                                            ps_, ex_, n)
                    slow = builder.and_(ex_, builder.not_(m))
                    builder.store(slow, res)
                    with builder.if_then(builder.icmp_unsigned("==", slow, ir.Constant(i64, 0)),
                                         likely=True):
                        _grouped_store(context, builder, data_, o, m, n, vdata_)
            return builder.load(res)
        return sig, codegen
    scatter.__name__ = f"flat_scatter_{n}"
    return intrinsic(scatter)


flat_scatter_1, flat_scatter_2, flat_scatter_3, flat_scatter_4 = (
    _flat_scatter_intrinsic(n) for n in (1, 2, 3, 4))
