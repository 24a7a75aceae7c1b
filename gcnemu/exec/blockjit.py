"""The basic-block JIT: straight-line runs of fast SALU and 32-bit VALU rows as one native function.

run_wave's hot loop (gcnemu/exec/engine.py) spends ~10 ns per wave-instruction outside the row
kernels themselves: reading the decode table, forming operand addresses, one indirect call and
the EXEC-masked store. A *block* is a run of consecutive rows that the hot loop would run one
at a time -- SALU and saveexec rows with a fast form, 32-bit VALU rows of the ops in ``VALU_OPS``,
s_setreg of MODE, nops, s_waitcnt and LDS dword loads and stores (ds_kind; see "DS rows") --
that no branch enters except at its first row.
``compile_blocks`` turns each block of a program into an LLVM function over rows of lanes, a
chunk of 16 or 32 lanes at a time where it has enough f32 work (see "IR building"; llvmlite
IR, compiled by numba's own code generator for numba's target CPU: an ``NUMBA_CPU_NAME`` /
``NUMBA_CPU_FEATURES`` override applies to blocks as to every row kernel), once per program and
process, and writes its address into the block's first row (layout.C_BLK and the columns beside
it). The engine calls it there instead of running the rows one by one.

A block keeps every register it touches in SSA values: a VGPR row is loaded once, each VALU
result merged under the EXEC mask of the moment (``select``; at the end where EXEC does not
change), SGPRs (EXEC and VCC among them)
are 32-bit values; nothing is stored until the end, so that a block can still decline:

* f32 arithmetic (add, sub, mul, mad/mac/madak/madmk, fma, rcp, sqrt, and the plain forms
  of v_rsq_f32, v_div_scale/fmas/fixup_f32) is the host's IEEE round-to-nearest-even
  arithmetic (valu_float.PLAIN32), which equals the hardware's only when MODE rounds to
  nearest and no lane of an operand, intermediate or result is a denormal and no result is a
  NaN (plus each op's own condition: v_rsq's Newton step not next to a rounding midpoint,
  div_scale's and div_fixup's quick cases, no active VCC lane for div_fmas): the condition
  under which the op's 32-bit row kernel keeps its own plain form (gcnemu/sem/valu_float.py,
  "plain f32 rows"; the same keys over the same 64 lanes), except that a row whose NaN lanes
  can only reach NaN-propagating f32 rows folds no NaN key of its own: those rows' results
  carry its NaNs to a checked one (_nan_checked_rows), and a NaN in a lane it leaves
  inactive never reaches the state; and that a block in which no row writes EXEC merges each
  result into its register under EXEC once, at its end (its rows read the raw results, equal
  to the merged ones in the active lanes), and looks at the active lanes' keys only. f32
  compares: no operand a denormal or a NaN. The keys
  are folded over the whole block as lanewise minima/maxima (each SSA value once) and
  tested once at its end. MODE is the engine's at the block's start and what each s_setreg
  in it leaves after that.
* when any of that fails, the function returns -1 having stored nothing, and the engine runs
  the block's first row by the old path, then the rows after it one at a time up to the next
  block's start: the row kernels then apply MODE's denormal, NaN and rounding rules.

So a block either gives the bits the row-by-row path gives or leaves the state untouched. The
integer ops, moves, compares and SALU ops have no such condition; SALU ops without an inline
form call their compiled kernel (opkernels.salu_address) from the block.

Signature: ``r = block(pvb, vstride, psgpr, scc, mode)``: ``pvb`` the address VGPR operand code
0 would have (code c = 256 + v is the row at pvb + c * vstride), ``psgpr`` the wave's uint32
SGPR row, ``scc`` and ``mode`` the engine's locals; a block with DS rows (it starts at one:
find_blocks) takes two more, ``plds`` the address of the wave's LDS window (4-aligned) and
``lsize`` its size in bytes (engine.run_wave calls it apart from its hot loop). ``r`` is -1 (declined) or
``(active VALU lanes summed over the block's VALU rows) << 1 | new SCC`` (bits 15:0; at most
64 rows of 64 lanes), with bit 16 set and MODE[28:0] in bits 45:17 where the block has an
s_setreg of MODE.

Set ``GCNEMU_BLOCKJIT=0`` in the environment to decode programs without blocks (the old path
everywhere; tests compare the two).
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import platform
import threading
import time

import numpy as np
from llvmlite import ir

from . import layout as L
from .dispatch_gen import SALU_NAMES
from .lanes import (_lds_addresses, _lds_segments, _segment_rows, _segment_store, _volatile,
                    _VolatileStore, freeze, lane_predicate, phi_join, store_row_under)
from .layout import (
    C_ABS,
    C_CLAMP,
    C_DS_AMASK,
    C_DS_FN,
    C_DS_ROW_A,
    C_DS_ROW_B,
    C_DS_UO0,
    C_DS_UO1,
    C_DST,
    C_F3,
    C_FAST,
    C_FLAGS,
    C_H,
    C_K,
    C_K0,
    C_KD,
    C_NEG,
    C_OMOD,
    C_S0,
    C_SDST,
    C_SMAX,
    C_TGT,
    C_V0,
    C_V2,
    C_VMAX,
    C_W0,
    C_WD,
)

#: whether build_program compiles blocks (GCNEMU_BLOCKJIT=0: never)
ENABLED = os.environ.get("GCNEMU_BLOCKJIT", "1") not in ("0", "")
#: a block shorter than this is left to the row-by-row path (one row gains nothing)
MIN_ROWS = 2
#: the longest block: LLVM's time for one function grows faster than its length (a run of
#: 10,240 v_add_f32 as one block took minutes to compile; as blocks of 64 rows, see
#: compile_blocks' figures in the README), and a block of 64 rows already makes the call
#: and the stores at its end a small share of its work
MAX_ROWS = 64
#: the most block rows compiled for one program (within_budget): ~1 s of LLVM at most
MAX_PROGRAM_ROWS = 1024

I1, I32, I64 = ir.IntType(1), ir.IntType(32), ir.IntType(64)
V64ROW = ir.ArrayType(I32, 64)   # a block's scratch row

# --- the VALU ops a block runs, by kind ---------------------------------------------------------
#: f32 arithmetic with a plain host form (valu_float.PLAIN32): name -> form
_FLOAT = {"v_add_f32": "add", "v_sub_f32": "sub", "v_subrev_f32": "subrev", "v_mul_f32": "mul",
          "v_mad_f32": "mad", "v_mac_f32": "mad", "v_madak_f32": "mad", "v_madmk_f32": "madmk",
          "v_fma_f32": "fma", "v_div_fmas_f32": "div_fmas", "v_rcp_f32": "rcp",
          "v_sqrt_f32": "sqrt", "v_rsq_f32": "rsq", "v_div_scale_f32": "div_scale",
          "v_div_fixup_f32": "div_fixup"}
#: f32 compare predicates (valu_float.CMP_PREDICATES) -> (ordered, llvmlite fcmp operator); f
#: and tru are constants (None)
_FCMP = {"f": None, "lt": (True, "<"), "eq": (True, "=="), "le": (True, "<="), "gt": (True, ">"),
         "lg": (True, "!="), "ge": (True, ">="), "o": (True, "ord"), "u": (False, "uno"),
         "nge": (False, "<"), "nlg": (False, "=="), "ngt": (False, "<="), "nle": (False, ">"),
         "neq": (False, "!="), "nlt": (False, ">="), "tru": None}
#: integer compares -> LLVM icmp condition (signed for _i32, unsigned for _u32)
_ICMP = {"lt": "<", "eq": "==", "le": "<=", "gt": ">", "ne": "!=", "ge": ">=", "f": None,
         "t": None}
#: integer and bitwise ops (valu_int's semantics, written out in _int_op)
_INT = ("v_mov_b32", "v_add_i32", "v_sub_i32", "v_subrev_i32", "v_addc_u32", "v_subb_u32",
        "v_subbrev_u32", "v_cndmask_b32", "v_and_b32", "v_or_b32", "v_xor_b32", "v_not_b32",
        "v_lshl_b32", "v_lshlrev_b32", "v_lshr_b32", "v_lshrrev_b32", "v_ashr_i32",
        "v_ashrrev_i32", "v_mul_lo_u32", "v_mul_lo_i32", "v_mul_hi_u32", "v_mul_hi_i32",
        "v_mul_u32_u24", "v_mul_i32_i24", "v_min_u32", "v_max_u32", "v_min_i32", "v_max_i32",
        "v_mad_u32_u24", "v_mad_i32_i24", "v_bfe_u32", "v_bfi_b32", "v_alignbit_b32")


def valu_kind(name: str):
    """How a block runs VALU op ``name``: ("float", form), ("fcmp", pred), ("icmp", (cond,
    signed)), ("int", name), or None (the op ends a block)."""
    if name in _FLOAT:
        return "float", _FLOAT[name]
    if name in _INT:
        return "int", name
    if name.startswith(("v_cmp_", "v_cmpx_")):
        parts = name.split("_")      # v, cmp[x], pred, type
        if len(parts) == 4:
            pred, ty = parts[2], parts[3]
            if ty == "f32" and pred in _FCMP:
                return "fcmp", pred
            if ty in ("i32", "u32") and pred in _ICMP:
                return "icmp", (pred, ty == "i32")
    return None


VALU_OPS = frozenset(_FLOAT) | frozenset(_INT)


def _row_ok(code: np.ndarray, i: int, name: str) -> bool:
    """Whether row i (instruction ``name``) may be part of a block: a row run_wave's hot loop
    runs (engine.fast_row) and one this module translates."""
    h = int(code[i, C_H])
    if h in (L.H_NOP, L.H_WAITCNT):
        return True
    if h == L.H_SETREG:
        return setreg_mode_mask(code, i) is not None
    if not code[i, C_FAST]:
        return False
    if h == L.H_DS:
        return ds_kind(code, i) is not None
    if h in (L.H_SALU, L.H_SAVEEXEC):
        return True
    if h in (L.H_VALU, L.H_VCMP):
        flags = int(code[i, C_FLAGS])
        if not flags & L.FL_ROW32 or code[i, C_OMOD] or code[i, C_CLAMP]:
            return False
        return valu_kind(name) is not None
    return False


def ds_kind(code: np.ndarray, i: int):
    """(kind, dwords) of DS row i where a block runs it: the dword loads and stores with a
    row kernel (the engine's LDS fast path, mem.ds.lds_row_form: ds_read/write_b32..b128,
    ds_read2/write2(st64)_b32/b64; layout.K_LOAD, K_LOAD2, K_STORE, K_STORE2 and dwords per
    address), not the atomics; else None."""
    from ..mem.subops import subop_fields
    kind, _size, count = subop_fields.py_func(int(code[i, L.C_K]))[:3]
    if kind in (L.K_LOAD, L.K_LOAD2, L.K_STORE, L.K_STORE2):
        return kind, count
    return None


def setreg_mode_mask(code: np.ndarray, i: int):
    """The bits of MODE that s_setreg row i writes, where a block runs it: the rows run_wave's
    hot loop runs (engine.fast_row: MODE, from a literal or SGPRs 0..103), writing none of
    MODE[31:29] (the fork/join stack pointer, which the engine keeps apart); else None.
    clang sets the f32 denormal bits around every f32 division: with the s_setreg inside,
    nbody's division is one block with the rows around it instead of three."""
    simm = int(code[i, L.C_IMM])
    c = int(code[i, C_S0])
    if simm & 0x3F != 1 or not (c == 255 or 0 <= c <= 103):
        return None
    mask = (((1 << (((simm >> 11) & 0x1F) + 1)) - 1) << ((simm >> 6) & 0x1F)) & 0xFFFFFFFF
    return None if mask & 0xE0000000 else mask


def find_blocks(code: np.ndarray, names: list) -> list:
    """The blocks of a decoded program: (first row, rows) for each maximal run of rows that
    `_row_ok` accepts, split where a branch enters, every MAX_ROWS rows and before a DS load
    that follows a DS store of the run (a block makes its LDS stores at its end: _emit_ds), at
    least MIN_ROWS long; a run whose f32 work would run as chunks but for its few DS rows
    leaves them out (_without_ds)."""
    n = code.shape[0]
    targets = set()
    for i in range(n):
        if int(code[i, C_H]) in (L.H_BRANCH, L.H_CBRANCH) and 0 <= int(code[i, C_TGT]) < n:
            targets.add(int(code[i, C_TGT]))
    blocks = []
    start = None
    stored = False         # the run so far has a DS store
    for i in range(n + 1):
        ok = i < n and _row_ok(code, i, names[i])
        ds = ds_kind(code, i) if ok and int(code[i, C_H]) == L.H_DS else None
        load_after_store = stored and ds is not None and ds[0] in (L.K_LOAD, L.K_LOAD2)
        if start is not None and (not ok or i in targets or i - start == MAX_ROWS or
                                  load_after_store):
            if i - start >= MIN_ROWS:
                blocks.append((start, i - start))
            start = None
        if ok and start is None:
            start = i
            stored = False
        if ds is not None and ds[0] in (L.K_STORE, L.K_STORE2):
            stored = True
    return [piece for start, nrows in blocks for piece in _without_ds(code, names, start, nrows)
            for piece in _from_first_ds(code, *piece)]


def _from_first_ds(code, start, nrows) -> list:
    """Block (start, nrows) as it is, or, where it has DS rows after rows of other kinds, its
    rows before the first DS row (where at least MIN_ROWS) and the rest: a block with DS rows
    starts at one, so that run_wave calls it from its outer loop, where DS rows go, and its
    hot loop, which runs the other kinds, never sees one (engine.ds_block_may_run)."""
    first = next((r for r in range(start, start + nrows) if int(code[r, C_H]) == L.H_DS), start)
    if first == start:
        return [(start, nrows)]
    out = [(start, first - start)] if first - start >= MIN_ROWS else []
    return out + ([(first, start + nrows - first)] if start + nrows - first >= MIN_ROWS else [])


#: a block with DS rows runs over 64 lanes in one pass (_emit_ds): one with MIN_CHUNKED_FLOAT
#: or more f32 arithmetic rows keeps its DS rows only where they are at least this share of
#: them. nbody's loop (2 ds_read_b128 before 61 f32 rows) stays chunks with its loads left to
#: the row path (one pass: AVX2 code ~20 % slower, README "Performance"); matmul_tiled's (16
#: ds_read2_b32 and 16 v_mac_f32) is one block, whose loads are most of its work
MIN_DS_SHARE = 0.25


def _without_ds(code, names, start, nrows) -> list:
    """Block (start, nrows) as it is, or, where its f32 work would run as chunks and its DS
    rows are fewer than MIN_DS_SHARE of its f32 rows, the runs between its DS rows (those of
    at least MIN_ROWS rows)."""
    rows = range(start, start + nrows)
    nds = sum(int(code[r, C_H]) == L.H_DS for r in rows)
    nfloat = sum(int(code[r, C_H]) in (L.H_VALU, L.H_VCMP) and
                 valu_kind(names[r])[0] == "float" for r in rows)
    if nds == 0 or nfloat < MIN_CHUNKED_FLOAT or nds >= MIN_DS_SHARE * nfloat:
        return [(start, nrows)]
    out, first = [], start
    for r in list(rows) + [start + nrows]:
        if r == start + nrows or int(code[r, C_H]) == L.H_DS:
            if r - first >= MIN_ROWS:
                out.append((first, r - first))
            first = r + 1
    return out


def within_budget(code: np.ndarray, blocks: list) -> list:
    """The blocks compiled at decode: all of them up to MAX_PROGRAM_ROWS rows in all, those
    inside a loop (between a backward branch and its target) first. Blocks compile at ~1 ms a
    row (a 64-row run of v_add_f32: ~70 ms), and a row outside loops runs once per wave, so
    a program of thousands of rows would otherwise pay seconds at load for rows that may save
    less; the rest run row by row as before."""
    if sum(n for _s, n in blocks) <= MAX_PROGRAM_ROWS:
        return blocks
    loops = _loops(code)
    in_loop = [_in_loop(loops, s, n) for s, n in blocks]
    order = sorted(range(len(blocks)), key=lambda j: (not in_loop[j], j))
    kept, rows = [], 0
    for j in order:
        if rows + blocks[j][1] <= MAX_PROGRAM_ROWS:
            kept.append(j)
            rows += blocks[j][1]
    return [blocks[j] for j in sorted(kept)]


def _loops(code: np.ndarray) -> list:
    """(first row, last row) of each loop of a decoded program: a branch back to a row at or
    before it, and its target."""
    return [(int(code[i, C_TGT]), i) for i in range(code.shape[0])
            if int(code[i, C_H]) in (L.H_BRANCH, L.H_CBRANCH) and 0 <= int(code[i, C_TGT]) <= i]


def _in_loop(loops, start, nrows) -> bool:
    """Whether block (start, nrows) lies inside one of ``loops`` (_loops)."""
    return any(t <= start and start + nrows - 1 <= e for t, e in loops)


# --- IR building --------------------------------------------------------------------------------
# A block runs its rows over the wave's lanes a *chunk* at a time: a loop over 64 / W chunks of
# W lanes (chunk_lanes(): two vector registers of the target, 32 lanes with AVX-512, 16 with
# AVX2), each running every row of the block on its W lanes. The whole block over <64 x i32>
# rows kept each live register in 8 ymm registers on AVX2 (2 of AVX2's 16 held the two keys
# alone): nbody's blocks were a third spill code there. Everything a row does is lanewise
# except the scalar side: SGPR pairs that VALU compares and carry-outs write, and the bitwise
# SALU ops and saveexec on them, are lane masks; a chunk holds the W bits of its lanes at
# their place in the i64 (``_Block.lane``: values valid only there), puts them together over
# the chunks for the SGPRs it stores, and ORs SCC over the chunks where SCC came from such a
# mask. A block that would read such a value as a whole (a SALU op with a kernel, a VALU
# scalar operand, SCC read after a mask op wrote it) runs as one chunk of 64 lanes
# (_Unchunkable). Results go to a scratch row per VGPR until the last chunk is done: only
# then is it known whether the block declines, and it stores nothing when it does.
class _Unchunkable(Exception):
    """The block reads a lane mask as a whole: it runs as one chunk of 64 lanes."""


def chunk_lanes() -> int:
    """Lanes per chunk for numba's target CPU (its features, NUMBA_CPU_FEATURES included):
    16 (two AVX2 ymm registers of 32-bit lanes, four NEON registers), 32 with AVX-512 (two
    zmm registers of its 32). nbody n=1024, AVX2 code on the Zen 4 (thread CPU time): 8
    lanes 93-94 M winst/s, 16 lanes 97-101, 32 lanes 87. Not 16 with AVX-512: LLVM 20
    (llvmlite 0.50) miscompiles a select under EXEC of a bit-select of the same row
    (v_div_fixup_f32's sign, merged into its own source) into one masked vpternlogd with its
    operands permuted, on zmm and on ymm registers alike; split into two zmm halves it is
    right (tests/test_blockjit.py runs every op and random programs chunked). The same fold
    hit blocks of one 64-lane pass too (v_bfi_b32 by a constant mask into its own source, or
    under v_cndmask): every select of register rows now freezes its operands first
    (_select_rows), which hides that shape from the fold whatever the width."""
    import llvmlite.binding as llvm
    from numba import config
    from numba.core.registry import cpu_target
    # the features numba's target machine was made with (a private attribute; without it,
    # what numba makes them from: NUMBA_CPU_FEATURES, else the host's)
    feats = getattr(cpu_target.target_context.codegen(), "_tm_features", None) or \
        config.CPU_FEATURES or llvm.get_host_cpu_features().flatten()
    return 32 if "+avx512f" in feats.split(",") else 16


#: lanes per chunk of the blocks compiled from now on (None: chunk_lanes(); tests set others)
CHUNK_LANES = None
#: blocks translated in this process as chunks and as one pass over 64 lanes (for tests)
FORMS = {"chunked": 0, "whole": 0}
#: a block with fewer f32 arithmetic rows runs over all 64 lanes at once: chunks repeat its
#: scalar work (SALU ops, EXEC predicates, lane counts) once per chunk, and its vector work is
#: small anyway (loops_break's mask logic ran at half speed chunked, AVX2 code)
MIN_CHUNKED_FLOAT = 4


def _splat(b, v, ty=None):
    """A vector of ``v`` in every lane (``ty``: the block's <W x i32> by default); a constant's
    is made once per block, in the chunk loop's body where its rows use it (code generation
    sees a constant only inside the basic block that makes it: made in the entry, each was a
    register live across the loop, and shifts by one became variable shifts)."""
    blk = _current.blk
    ty = ty or blk.V32
    if isinstance(v, ir.Constant):
        key = ("splat", str(ty), str(v))
        if key not in blk.consts:
            blk.consts[key] = _splat_in(blk.b, v, ty)
        return blk.consts[key]
    return _splat_in(b, v, ty)


def _splat_in(b, v, ty):
    undef = ir.Constant(ty, ir.Undefined)
    one = b.insert_element(undef, v, ir.Constant(I32, 0))
    return b.shuffle_vector(one, undef, ir.Constant(ir.VectorType(I32, ty.count), None))


_current = threading.local()   # the _Block whose IR is being emitted (for _vconst)


def _vconst(v: int):
    """The row of uint32 ``v`` in every lane, made once per block (a splat: a constant vector
    would spell out its lanes wherever it is used, most of the IR's text and of the time
    numba's parser and llvmlite's printer take)."""
    return _splat(None, ir.Constant(I32, v & 0xFFFFFFFF))


def _fconst(x: float, ty=None):
    """A row of float ``x`` (f32, or f64 lanes with ``ty``), made once per block."""
    blk = _current.blk
    if ty is None:
        key = ("f32", x)
        if key not in blk.consts:
            blk.consts[key] = blk.b.bitcast(_vconst(int(np.float32(x).view(np.uint32))),
                                            blk.VF)
        return blk.consts[key]
    return _splat(None, ir.Constant(ty.element, x), ty)


def _mask_vec(b, m):
    """The i64 lane mask ``m`` as the chunk's <W x i1> (lane l of the chunk: bit lane0 + l),
    made once per mask value: as lanes.lane_predicate does it for 64 lanes, a splat ANDed
    with each lane's bit (a bitcast is one kmov with AVX-512 but a bit extract per lane on
    AVX2)."""
    blk = _current.blk
    if id(m) not in blk.preds:
        if blk.W == 64:
            p = lane_predicate(b, m)
        else:
            bits = b.trunc(b.lshr(m, blk.lane0), I32)
            vt = ir.VectorType(I32, blk.W)
            p = b.icmp_unsigned("!=", b.and_(_splat_in(b, bits, vt),
                                             ir.Constant(vt, [1 << l for l in range(blk.W)])),
                                ir.Constant(vt, None))
        blk.preds[id(m)] = (m, p)
    return blk.preds[id(m)][1]


def _lane_mask(blk, fl, ex):
    """The i64 lane mask of a compare or carry-out: the chunk's lanes where the <W x i1>
    ``fl`` is set and EXEC ``ex`` too. A row that reads it as lanes (v_cndmask, v_addc, an
    EXEC it becomes) gets ``fl`` ANDed with EXEC's vector, not the mask made into bits and
    back (a pack and a broadcast per register with AVX2)."""
    b = blk.b
    m = blk.mark_lane(b.and_(_mask_int(b, fl), ex))
    blk.preds[id(m)] = (m, b.and_(fl, _mask_vec(b, ex)))
    return m


def _mask_int(b, v):
    """The chunk's <W x i1> as an i64 lane mask (its bits at their lanes; the others 0)."""
    blk = _current.blk
    if blk.W == 64:
        return b.bitcast(v, I64)
    return b.shl(b.zext(b.bitcast(v, ir.IntType(blk.W)), I64), blk.lane0)


def _umin(b, x, y):
    blk = _current.blk
    return b.call(_intrinsic(blk, f"llvm.umin.v{blk.W}i32", blk.V32, 2), [x, y])


def _umax(b, x, y):
    blk = _current.blk
    return b.call(_intrinsic(blk, f"llvm.umax.v{blk.W}i32", blk.V32, 2), [x, y])


def _keys():
    """valu_float's DENORMAL_KEY and NAN_KEY, the thresholds of the folded keys (the row
    kernels' own)."""
    from ..sem.valu_float import DENORMAL_KEY, NAN_KEY
    return DENORMAL_KEY, NAN_KEY


def _check_denormal(blk, v):
    """Fold the f32 bits ``v`` into the block's denormal key: the lanewise minimum of
    (v << 1) - 2 (valu_float._dkey exact), below DENORMAL_KEY in some lane exactly when some
    lane of some value folded in is a denormal (a constant operand's row is known here and
    folds nothing). A value is folded once (SSA identity); a merge of two folded values
    needs no fold of its own (its lanes are theirs). A row of one SGPR
    (_scalar_row) is checked as that one 32-bit value, the block declining where it is a
    denormal (its lanes are all the same: three scalar ops instead of three vector ops per
    register of the chunk, and loop-invariant where the block does not write the SGPR; it
    declines even where no lane that reads it is active, which gives the same bits)."""
    if id(v) in blk.dchecked:
        return
    b = blk.b
    if id(v) in blk.const_rows:        # known here: the block declines always or never
        if 0 < blk.const_rows[id(v)] & 0x7FFFFFFF < 0x800000:
            blk.decline_if(ir.Constant(I1, 1))
        blk.dchecked[id(v)] = v
        return
    if id(v) in blk.scalar_rows:
        s = blk.scalar_rows[id(v)]
        k = b.sub(b.shl(s, ir.Constant(I32, 1)), ir.Constant(I32, 2))
        blk.decline_if(b.icmp_unsigned("<", k, ir.Constant(I32, int(_keys()[0]))))
        blk.dchecked[id(v)] = v
        return
    k = b.sub(b.shl(v, _vconst(1)), _vconst(2))
    blk.dkey = k if blk.dkey is None else _umin(b, blk.dkey, k)
    blk.dchecked[id(v)] = v


def _check_nan(blk, v):
    """Fold the f32 bits ``v`` into the block's NaN key: the lanewise maximum of v << 1
    (valu_float._nkey), above NAN_KEY exactly when a lane of a value folded in is a NaN."""
    if id(v) in blk.nchecked:
        return
    if id(v) in blk.const_rows:        # as _check_denormal
        if blk.const_rows[id(v)] & 0x7FFFFFFF > 0x7F800000:
            blk.decline_if(ir.Constant(I1, 1))
        blk.nchecked[id(v)] = v
        return
    if id(v) in blk.scalar_rows:     # one SGPR's row: its one value (see _check_denormal)
        b = blk.b
        k = b.shl(blk.scalar_rows[id(v)], ir.Constant(I32, 1))
        blk.decline_if(b.icmp_unsigned(">", k, ir.Constant(I32, int(_keys()[1]))))
        blk.nchecked[id(v)] = v
        return
    k = blk.b.shl(v, _vconst(1))
    blk.nkey = k if blk.nkey is None else _umax(blk.b, blk.nkey, k)
    blk.nchecked[id(v)] = v


class _Block:
    """SSA state of one block while its IR is emitted: the chunk loop's body (``b``), its
    entry (``cb``: constants, SGPR loads, allocas), the chunk's first lane ``lane0`` and its
    lanes' bits ``cmk`` (i64)."""

    def __init__(self, b, cb, pvb, vstride, psg, scc, mode, width, lane0, plds=None,
                 lsize=None):
        self.b, self.cb, self.pvb, self.vstride, self.psg = b, cb, pvb, vstride, psg
        self.plds, self.lsize = plds, lsize   # the wave's LDS window and its size (_emit_ds)
        self.ds_stores = []                # LDS stores made at the end (_emit_ds_stores)
        self.lds_slots = None              # the row kernels' result and exception slots
        self.scc, self.mode = scc, mode
        self.W, self.lane0 = width, lane0
        self.V32 = ir.VectorType(I32, width)
        self.VF = ir.VectorType(ir.FloatType(), width)
        self.V1 = ir.VectorType(I1, width)
        self.V64 = ir.VectorType(I64, width)
        self.VD = ir.VectorType(ir.DoubleType(), width)
        self.cmk = ir.Constant(I64, -1) if width == 64 else \
            b.shl(ir.Constant(I64, (1 << width) - 1), lane0)
        self.v, self.s = {}, {}            # VGPR code -> <W x i32>; SGPR index -> i32
        self.vdirty, self.sdirty = [], []
        self.lane = {}                     # id -> scalar value valid only at the chunk's bits
        self.scc_lane = False              # SCC from such a value: OR it over the chunks
        self.bad = ir.Constant(self.V1, None)   # lanes that make the block decline
        self.dkey = self.nkey = None       # folded keys (_check_denormal, _check_nan)
        self.dchecked, self.nchecked = {}, {}   # id -> value folded into them (kept alive)
        self.modebad = ir.Constant(I1, 0)  # scalar reasons to decline (decline_if)
        self.nsetreg = 0                   # s_setreg rows so far (_emit_setreg)
        self.scalar_rows = {}              # id(row of one SGPR) -> the SGPR's i32 value
        self.const_rows = {}               # id(row of a constant operand) -> its uint32
        self.splats = {}                   # id(i32) -> (it, its row) (_scalar_row)
        self.excount = {}                  # id(EXEC value) -> [it, VALU rows under it]
        self.defer = False                 # merges under EXEC at the end (_emit_block)
        self.v0 = {}                       # VGPR code -> its value at the block's start
        self.consts = {}                   # splat rows made so far (_vconst, _fconst)
        self.preds = {}                    # id(i64 mask) -> (mask, <W x i1>) (_mask_vec)
        self.pairs = {}                    # (id(lo), id(hi)) -> (lo, hi, i64) (sget64)

    def is_lane(self, *vals):
        return any(id(v) in self.lane for v in vals)

    def mark_lane(self, v):
        if self.W < 64:
            self.lane[id(v)] = v
        return v

    def whole(self, *vals):
        """Check that scalar values are read as a whole: not lane masks of a chunk."""
        if self.is_lane(*vals):
            raise _Unchunkable

    def vaddr(self, c):
        b = self.b
        a = b.add(self.pvb, b.mul(ir.Constant(I64, c), self.vstride))
        if self.W < 64:
            a = b.add(a, b.shl(self.lane0, ir.Constant(I64, 2)))
        return b.inttoptr(a, self.V32.as_pointer())

    def vget(self, c):
        if c not in self.v:
            self.v[c] = self.v0[c] = self.b.load(self.vaddr(c), align=4)
        return self.v[c]

    def vset(self, c, val):
        if c not in self.vdirty:
            self.vdirty.append(c)
        self.v[c] = val

    def sget(self, i):
        if i not in self.s:
            p = self.cb.gep(self.psg, [ir.Constant(I64, i)])
            self.s[i] = self.cb.load(p, align=4)
        return self.s[i]

    def sset(self, i, val):
        if i not in self.sdirty:
            self.sdirty.append(i)
        self.s[i] = val

    def sget64(self, i):
        """SGPRs i, i + 1 as an i64, made once per pair of values (EXEC is read by every
        VALU row: one value, and one predicate of it, while no row writes it)."""
        lo, hi = self.sget(i), self.sget(i + 1)
        key = (id(lo), id(hi))
        if key not in self.pairs:
            b = self.b
            v = b.or_(b.zext(lo, I64), b.shl(b.zext(hi, I64), ir.Constant(I64, 32)))
            if self.is_lane(lo, hi):
                self.mark_lane(v)
            self.pairs[key] = (lo, hi, v)
        return self.pairs[key][2]

    def sset64(self, i, val):
        b = self.b
        lo, hi = b.trunc(val, I32), b.trunc(b.lshr(val, ir.Constant(I64, 32)), I32)
        if self.is_lane(val):
            self.mark_lane(lo)
            self.mark_lane(hi)
        self.sset(i, lo)
        self.sset(i + 1, hi)
        # sget64 of the pair gives ``val`` itself (and so _mask_vec's vector of it)
        self.pairs[(id(lo), id(hi))] = (lo, hi, val)

    def set_scc(self, res):
        """SCC = ``res`` != 0: over the chunk's bits where ``res`` is a lane mask (ORed over
        the chunks at the end)."""
        lane = self.is_lane(res)
        if lane:
            res = self.b.and_(res, self.cmk)
        self.scc = self.b.zext(self.b.icmp_unsigned("!=", res, ir.Constant(I64, 0)), I64)
        self.scc_lane = lane

    def exec_(self):
        return self.sget64(L.EXEC_LO)

    def flag(self, lanes):
        self.bad = self.b.or_(self.bad, lanes)

    def decline_if(self, cond):
        """Decline where the i1 ``cond`` (a fact of the whole wave, not of lanes) holds."""
        self.modebad = self.b.or_(self.modebad, cond)


def _emit_setreg(blk, code, r):
    """s_setreg of MODE (setreg_mode_mask), as the hot loop runs it: the rows after it take
    the new MODE (their f32 forms decline unless it rounds to nearest), and the block returns
    it (engine.run_wave)."""
    b = blk.b
    mask = setreg_mode_mask(code, r)
    c = int(code[r, C_S0])
    if c == 255:
        v = ir.Constant(I64, int(code[r, L.C_LIT]) & 0xFFFFFFFF)
    else:
        blk.whole(blk.sget(c))
        v = b.zext(blk.sget(c), I64)
    off = (int(code[r, L.C_IMM]) >> 6) & 0x1F
    blk.mode = b.or_(b.and_(blk.mode, ir.Constant(I64, ~mask & 0x1FFFFFFF)),
                     b.and_(b.shl(v, ir.Constant(I64, off)), ir.Constant(I64, mask)))
    blk.nsetreg += 1


def _scalar_src(blk, code, r, i, ndw):
    """SALU/saveexec source i: a constant (C_V*) or SGPRs, as an i64."""
    if int(code[r, C_K0 + i]) == L.OP_SREG:
        c = int(code[r, C_S0 + i])
        if ndw >= 2:
            return blk.sget64(c)
        v = blk.sget(c)
        z = blk.b.zext(v, I64)
        return blk.mark_lane(z) if blk.is_lane(v) else z
    return ir.Constant(I64, int(code[r, C_V0 + i]) & 0xFFFFFFFFFFFFFFFF)


def _emit_salu(blk, code, r):
    b = blk.b
    a = _scalar_src(blk, code, r, 0, int(code[r, C_W0]))
    bb = _scalar_src(blk, code, r, 1, int(code[r, C_W0 + 1]))
    kd, dc, wd = int(code[r, C_KD]), int(code[r, C_DST]), int(code[r, C_WD])
    q = int(code[r, C_V2])
    if q == L.SQ_NONE:
        d = ir.Constant(I64, 0)
        if kd == L.OP_SREG:
            d = blk.sget64(dc) if wd >= 2 else b.zext(blk.sget(dc), I64)
            blk.whole(blk.sget(dc), *((blk.sget(dc + 1),) if wd >= 2 else ()))
        if blk.scc_lane:
            raise _Unchunkable
        blk.whole(a, bb)
        res = _call_salu(blk, SALU_NAMES[int(code[r, C_K])], a, bb, d)
    else:
        if q == L.SQ_MOV:
            res = a
        else:
            ones = ir.Constant(I64, -1)
            res = {L.SQ_AND: lambda: b.and_(a, bb), L.SQ_OR: lambda: b.or_(a, bb),
                   L.SQ_XOR: lambda: b.xor(a, bb), L.SQ_ANDN2: lambda: b.and_(a, b.xor(bb, ones)),
                   L.SQ_ORN2: lambda: b.or_(a, b.xor(bb, ones)),
                   L.SQ_NAND: lambda: b.xor(b.and_(a, bb), ones),
                   L.SQ_NOR: lambda: b.xor(b.or_(a, bb), ones),
                   L.SQ_XNOR: lambda: b.xor(b.xor(a, bb), ones)}.get(q, lambda: b.xor(a, ones))()
            if wd < 2:
                res = b.and_(res, ir.Constant(I64, 0xFFFFFFFF))
            if blk.is_lane(a, bb):
                blk.mark_lane(res)
            blk.set_scc(res)
    if kd == L.OP_SREG:
        if wd >= 2:
            blk.sset64(dc, res)
        else:
            lo = b.trunc(res, I32)
            if blk.is_lane(res):
                blk.mark_lane(lo)
            blk.sset(dc, lo)


def salu_symbol(name: str) -> str:
    """The symbol by which blocks call the compiled SALU op ``name``: an external name, bound
    to the op's address in this process (compile_blocks), not the address itself, so that a
    block's object code does not depend on where this process compiled the op (the disk
    cache)."""
    return f"gcnemu_salu_{name}"


def _call_salu(blk, name, a, bb, d):
    """Call the compiled SALU op ``name`` (numba's calling convention, as
    opkernels.call_salu): returns the result; blk.scc becomes its SCC."""
    b = blk.b
    i8p = ir.IntType(8).as_pointer()
    slot = blk.cb.alloca(I64)
    exc = blk.cb.alloca(i8p)
    sccout = blk.cb.alloca(I64)
    fnty = ir.FunctionType(I32, [I64.as_pointer(), i8p.as_pointer(), I64, I64, I64, I64,
                                 I64.as_pointer()])
    sym = salu_symbol(name)
    fn = blk.module.globals.get(sym) or ir.Function(blk.module, fnty, sym)
    b.store(blk.scc, sccout)
    b.call(fn, [slot, exc, a, bb, d, blk.scc, sccout])
    blk.scc = b.load(sccout)
    blk.scc_lane = False
    return b.load(slot)


def _emit_saveexec(blk, code, r):
    b = blk.b
    s = _scalar_src(blk, code, r, 0, 2)
    ex = blk.exec_()
    ones = ir.Constant(I64, -1)
    k = int(code[r, C_K])
    nx = [lambda: b.and_(s, ex), lambda: b.or_(s, ex), lambda: b.xor(s, ex),
          lambda: b.and_(s, b.xor(ex, ones)), lambda: b.or_(s, b.xor(ex, ones)),
          lambda: b.xor(b.and_(s, ex), ones), lambda: b.xor(b.or_(s, ex), ones),
          lambda: b.xor(b.xor(s, ex), ones)][k]()
    if blk.is_lane(s, ex):
        blk.mark_lane(nx)
    blk.sset64(int(code[r, C_DST]), ex)
    blk.sset64(L.EXEC_LO, nx)
    blk.set_scc(nx)


def _valu_src(blk, code, r, i, const_value):
    """VALU source row i as <W x i32>, abs/neg applied (constants: the decoder applied them
    already, engine.row32_source)."""
    b = blk.b
    kind = int(code[r, C_K0 + i])
    if kind == L.OP_CONST:
        value = const_value(int(code[r, C_V0 + i]))
        v = _vconst(value)
        blk.const_rows[id(v)] = value
        return v
    if kind == L.OP_NONE:
        return _vconst(0)
    am = 0x80000000 if (int(code[r, C_ABS]) >> i) & 1 else 0
    nm = 0x80000000 if (int(code[r, C_NEG]) >> i) & 1 else 0
    if kind != L.OP_VGPR:
        s = blk.sget(int(code[r, C_S0 + i]))
        blk.whole(s)
        if am:
            s = b.and_(s, ir.Constant(I32, ~am & 0xFFFFFFFF))
        if nm:
            s = b.xor(s, ir.Constant(I32, nm))
        return _scalar_row(blk, s)
    v = u = blk.vget(int(code[r, C_S0 + i]))
    if am:
        v = b.and_(v, _vconst(~am))
    if nm:
        v = b.xor(v, _vconst(nm))
    if v is not u:
        _same_class(blk, v, u)
    return v


def _scalar_row(blk, s):
    """The row of i32 ``s`` in every lane, made once per value; _check_denormal and
    _check_nan check it as the one value it is."""
    if id(s) not in blk.splats:
        v = _splat(blk.b, s)
        blk.splats[id(s)] = (s, v)
        blk.scalar_rows[id(v)] = s
    return blk.splats[id(s)][1]


def _same_class(blk, r, *srcs, nan=True):
    """Mark ``r`` checked for denormals where every value of ``srcs`` is (and for NaNs, with
    ``nan``; without: r is known to be no NaN where the block runs): r is a lane of one of
    them with its sign changed (abs/neg, v_cndmask, v_div_fixup's quick case), not a value a
    row reading it needs to check again."""
    if all(id(v) in blk.dchecked for v in srcs):
        blk.dchecked[id(r)] = r
    if not nan or all(id(v) in blk.nchecked for v in srcs):
        blk.nchecked[id(r)] = r


def _f(b, v):
    return b.bitcast(v, _current.blk.VF)


def _u(b, v):
    return b.bitcast(v, _current.blk.V32)


def _intrinsic(blk, name, ty, nargs):
    """The declaration of LLVM intrinsic ``name`` (on vector type ``ty``) in the module."""
    return blk.module.globals.get(name) or \
        ir.Function(blk.module, ir.FunctionType(ty, [ty] * nargs), name)


def _emit_float(blk, form, s0, s1, s2, cin, ex):
    """The plain f32 form of valu_float.PLAIN32, with the lanes for which the op's 32-bit row
    kernel would leave it flagged: the result bits."""
    b = blk.b
    blk.modebad = b.or_(blk.modebad, b.icmp_unsigned(
        "!=", b.and_(blk.mode, ir.Constant(I64, 3)), ir.Constant(I64, 0)))
    one = _fconst(1.0)
    checks = [s0, s1]
    if form == "add":
        r = _u(b, b.fadd(_f(b, s0), _f(b, s1)))
    elif form == "sub":
        r = _u(b, b.fsub(_f(b, s0), _f(b, s1)))
    elif form == "subrev":
        r = _u(b, b.fsub(_f(b, s1), _f(b, s0)))
    elif form == "mul":
        r = _u(b, b.fmul(_f(b, s0), _f(b, s1)))
    elif form in ("mad", "madmk"):
        x, y, z = (s0, s1, s2) if form == "mad" else (s0, s2, s1)
        p = _u(b, b.fmul(_f(b, x), _f(b, y)))
        r = _u(b, b.fadd(_f(b, p), _f(b, z)))
        checks = [x, y, z, p]
    elif form in ("fma", "div_fmas"):
        if form == "div_fmas":
            # the plain fma only where no active lane has VCC set (no scaling)
            blk.modebad = b.or_(blk.modebad, b.icmp_unsigned(
                "!=", b.and_(_mask_int(b, cin), ex), ir.Constant(I64, 0)))
        fma = _intrinsic(blk, f"llvm.fma.v{blk.W}f32", blk.VF, 3)
        r = _u(b, b.call(fma, [_f(b, s0), _f(b, s1), _f(b, s2)]))
        checks = [s0, s1, s2]
    elif form == "rcp":
        r = _u(b, b.fdiv(one, _f(b, s0)))
        checks = [s0]
    elif form == "sqrt":
        r = _u(b, b.call(_intrinsic(blk, f"llvm.sqrt.v{blk.W}f32", blk.VF, 1), [_f(b, s0)]))
        checks = [s0]
    elif form == "rsq":
        r = _rsq(blk, s0)
        checks = [s0]
    elif form == "div_scale":
        # S0 unchanged where the quick case holds (valu_float._plain_div_scale_f32)
        m = _vconst(0x7FFFFFFF)
        lo_norm = _vconst(0x800000)
        e1 = b.and_(b.lshr(s1, _vconst(23)), _vconst(0xFF))
        e2 = b.and_(b.lshr(s2, _vconst(23)), _vconst(0xFF))
        ok = [b.icmp_unsigned("<", b.sub(b.and_(s1, m), lo_norm), _vconst(0x7F000000)),
              b.icmp_unsigned("<", b.sub(b.and_(s2, m), lo_norm), _vconst(0x7F000000)),
              b.icmp_unsigned("<", b.and_(s0, m), _vconst(0x7F800000)),
              b.icmp_unsigned("<=", b.and_(s1, m), _vconst(0x7E800000)),
              b.icmp_unsigned(">", e2, _vconst(23)),
              b.icmp_unsigned("<=", b.sub(b.add(e2, _vconst(125)), e1), _vconst(220))]
        good = ok[0]
        for o in ok[1:]:
            good = b.and_(good, o)
        blk.flag(b.not_(good))
        return s0
    else:   # div_fixup (valu_float._plain_div_fixup_f32)
        m = _vconst(0x7FFFFFFF)
        ok = b.and_(b.and_(
            b.icmp_unsigned("<", b.sub(b.and_(s1, m), _vconst(1)), _vconst(0x7F7FFFFF)),
            b.icmp_unsigned("<", b.sub(b.and_(s2, m), _vconst(1)), _vconst(0x7F7FFFFF))),
            b.icmp_unsigned("<=", b.and_(s0, m), _vconst(0x7F800000)))
        blk.flag(b.not_(ok))
        r = b.or_(b.and_(b.xor(s1, s2), _vconst(0x80000000)), b.and_(s0, m))
        # |S0| with a sign: a denormal where S0 is one; no NaN where the block runs
        _same_class(blk, r, s0, nan=False)
        return r
    # the root of a normal, zero or infinite operand is none of them a denormal (nor its
    # reciprocal): a denormal operand is checked itself
    for v in checks + ([] if form in ("sqrt", "rsq") else [r]):
        _check_denormal(blk, v)
    if form in ("sqrt", "rsq"):
        blk.dchecked[id(r)] = r
    if blk.row in blk.nan_rows:
        _check_nan(blk, r)
    return r


def _rsq(blk, a):
    """v_rsq_f32 over the row, all in f32 lanes: the f32 result where it is the correctly
    rounded 1/sqrt(x), which is the row kernel's (valu_float._plain_rsq_f32's Newton step,
    or the op itself next to a rounding midpoint), lanes that may not be flagged.

    y0 = 1/sqrt(x) in f32 (relative error d < 2**-23 + 2**-47). The residual x*y0*y0 - 1
    (< 2**-21) is made with fmas: h + l = y0*y0 exactly, t = fma(x, h, -1), s = fma(x, l, t),
    within 2**-45. One Newton step z = y0 - (y0/2)*s is within 1.5 d**2 + 2**-45 < 2**-44.2
    of 1/sqrt(x) relatively, under 2**-20.2 units in the last place of r = f32(z) (one
    rounding: y0 - c), and z - r is exact (Fast2Sum). So r is the correctly rounded root
    unless z lies within 2**-20.2 ulp of a rounding midpoint; lanes within 2**-18 ulp of one
    (a quarter ulp below a power of two) are flagged: a superset of the row kernel's odd
    lanes, about twice as many (131 and 65 of the 2**24 x in [1, 4), which with their
    scalings by 4 are every case; checked against the row kernel's numpy form: no other lane
    differs). x in [2**-126, 2**102] (above it, y0*y0 loses bits below the denormals:
    flagged); +-0, +inf, negative x and NaNs give y0 (+-inf, +0, NaN), as the row kernel
    does. Four f32 vectors and integer ops instead of the f64 step's eight of double lanes,
    their conversions and the packing of its masks (AVX2 code)."""
    b = blk.b
    fma = _intrinsic(blk, f"llvm.fma.v{blk.W}f32", blk.VF, 3)
    x = _f(b, a)
    y0 = b.fdiv(_fconst(1.0),
                b.call(_intrinsic(blk, f"llvm.sqrt.v{blk.W}f32", blk.VF, 1), [x]))
    h = b.fmul(y0, y0)
    lo = b.call(fma, [y0, y0, b.fneg(h)])
    t = b.call(fma, [x, h, _fconst(-1.0)])
    c = b.fmul(b.fmul(_fconst(0.5), y0), b.call(fma, [x, lo, t]))
    r = b.fsub(y0, c)
    dn = b.fadd(c, b.fsub(r, y0))       # r - z, exactly
    rb = _u(b, r)
    ulp = _f(b, b.sub(b.and_(rb, _vconst(0x7F800000)), _vconst(23 << 23)))
    up = b.fmul(ulp, _fconst(0.5 - 2.0 ** -18))
    down = b.select(b.icmp_unsigned("==", b.and_(rb, _vconst(0x7FFFFF)), _vconst(0)),
                    b.fmul(ulp, _fconst(0.25 - 2.0 ** -18)), up)
    ok = b.icmp_unsigned("<=", b.sub(a, _vconst(0x00800000)), _vconst(0x72800000 - 0x00800000))
    near = b.or_(b.fcmp_ordered("<", dn, b.fneg(up)), b.fcmp_ordered(">", dn, down))
    big = b.icmp_unsigned("<", b.sub(a, _vconst(0x72800001)), _vconst(0x7F800000 - 0x72800001))
    blk.flag(b.or_(b.and_(ok, near), big))
    return _u(b, b.select(ok, r, y0))


def _select_rows(b, pred, t, f):
    """select(pred, t, f) of two rows of lanes, each frozen first. The x86-64 code generator
    of llvmlite 0.50 (LLVM 22.1) folds select(c, (x & K) | (y & ~K), y), K a constant, into
    one vpternlogd with its operands permuted on AVX-512 (see chunk_lanes): wrong lanes for
    v_bfi_b32 v0, -4, v1, v7 then v_cmp and v_cndmask_b32 v0, v7, v0, vcc, for the same from
    and/and/or rows, and for v_bfi_b32 v7, -4, v1, v7 merged under EXEC (found by
    tools/cl_int_fuzz.py; reproduced on 4-lane IR without gcnemu). A freeze hides the
    operands' shape from that fold at no cost in instructions; every select of register
    rows (v_cndmask, v_min/v_max, the merges under EXEC) goes through here."""
    return b.select(pred, freeze(b, t), freeze(b, f))


def _int_op(blk, name, s0, s1, s2, cin):
    """(result, per-lane flag or None) of integer op ``name`` (gcnemu/sem/valu_int.py)."""
    b = blk.b
    c31 = _vconst(31)
    if name == "v_mov_b32":
        return s0, None
    if name == "v_add_i32":
        r = b.add(s0, s1)
        return r, b.icmp_unsigned("<", r, s0)
    if name == "v_sub_i32":
        return b.sub(s0, s1), b.icmp_unsigned(">", s1, s0)
    if name == "v_subrev_i32":
        return b.sub(s1, s0), b.icmp_unsigned(">", s0, s1)
    if name in ("v_addc_u32", "v_subb_u32", "v_subbrev_u32", "v_cndmask_b32"):
        c = cin
        if name == "v_cndmask_b32":
            r = _select_rows(b, c, s1, s0)
            _same_class(blk, r, s0, s1)
            return r, None
        V64 = blk.V64
        cz = b.zext(c, V64)
        a64, b64 = b.zext(s0, V64), b.zext(s1, V64)
        if name == "v_addc_u32":
            t = b.add(b.add(a64, b64), cz)
            return b.trunc(t, blk.V32), b.trunc(b.lshr(t, _splat(b, ir.Constant(I64, 32), V64)),
                                                blk.V1)
        x, y = (a64, b64) if name == "v_subb_u32" else (b64, a64)
        y = b.add(y, cz)
        return b.trunc(b.sub(x, y), blk.V32), b.icmp_unsigned(">", y, x)
    simple = {"v_and_b32": lambda: b.and_(s0, s1), "v_or_b32": lambda: b.or_(s0, s1),
              "v_xor_b32": lambda: b.xor(s0, s1), "v_not_b32": lambda: b.xor(s0, _vconst(-1)),
              "v_lshl_b32": lambda: b.shl(s0, b.and_(s1, c31)),
              "v_lshlrev_b32": lambda: b.shl(s1, b.and_(s0, c31)),
              "v_lshr_b32": lambda: b.lshr(s0, b.and_(s1, c31)),
              "v_lshrrev_b32": lambda: b.lshr(s1, b.and_(s0, c31)),
              "v_ashr_i32": lambda: b.ashr(s0, b.and_(s1, c31)),
              "v_ashrrev_i32": lambda: b.ashr(s1, b.and_(s0, c31)),
              "v_mul_lo_u32": lambda: b.mul(s0, s1), "v_mul_lo_i32": lambda: b.mul(s0, s1),
              "v_min_u32": lambda: _select_rows(b, b.icmp_unsigned("<", s0, s1), s0, s1),
              "v_max_u32": lambda: _select_rows(b, b.icmp_unsigned(">", s0, s1), s0, s1),
              "v_min_i32": lambda: _select_rows(b, b.icmp_signed("<", s0, s1), s0, s1),
              "v_max_i32": lambda: _select_rows(b, b.icmp_signed(">", s0, s1), s0, s1)}
    if name in simple:
        return simple[name](), None
    if name in ("v_mul_hi_u32", "v_mul_hi_i32"):
        ext = b.zext if name == "v_mul_hi_u32" else b.sext
        p = b.mul(ext(s0, blk.V64), ext(s1, blk.V64))
        return b.trunc(b.lshr(p, _splat(b, ir.Constant(I64, 32), blk.V64)), blk.V32), None
    if name == "v_mul_u32_u24":
        m = _vconst(0xFFFFFF)
        return b.mul(b.and_(s0, m), b.and_(s1, m)), None
    if name in ("v_mul_i32_i24", "v_mad_i32_i24"):
        c8 = _vconst(8)
        x = b.ashr(b.shl(s0, c8), c8)
        y = b.ashr(b.shl(s1, c8), c8)
        p = b.mul(x, y)
        return (p if name == "v_mul_i32_i24" else b.add(p, s2)), None
    if name == "v_mad_u32_u24":
        m = _vconst(0xFFFFFF)
        return b.add(b.mul(b.and_(s0, m), b.and_(s1, m)), s2), None
    if name == "v_bfe_u32":
        # (S0 >> off) & ((1 << width) - 1): width 0 gives 0, a field past bit 31 ends there
        field = b.sub(b.shl(_vconst(1), b.and_(s2, c31)), _vconst(1))
        return b.and_(b.lshr(s0, b.and_(s1, c31)), field), None
    if name == "v_bfi_b32":
        return b.or_(b.and_(s0, s1), b.and_(b.xor(s0, _vconst(-1)), s2)), None
    if name == "v_alignbit_b32":
        V64 = blk.V64
        wide = b.or_(b.shl(b.zext(s0, V64), _splat(b, ir.Constant(I64, 32), V64)),
                     b.zext(s1, V64))
        return b.trunc(b.lshr(wide, b.zext(b.and_(s2, c31), V64)), blk.V32), None
    raise AssertionError(name)


def _emit_valu(blk, code, r, name, const_value):
    b = blk.b
    flags = int(code[r, C_FLAGS])
    kind, arg = valu_kind(name)
    ex = blk.exec_()
    blk.excount.setdefault(id(ex), [ex, 0])[1] += 1
    s0 = _valu_src(blk, code, r, 0, const_value)
    s1 = _valu_src(blk, code, r, 1, const_value)
    cin = None
    if flags & L.FL_CIN_S2:
        s2 = _vconst(0)
        cm = _scalar_src(blk, code, r, 2, 2)
        cin = _mask_vec(b, cm)
    else:
        s2 = _valu_src(blk, code, r, 2, const_value)
    if flags & L.FL_CIN_VCC:
        cin = _mask_vec(b, blk.sget64(L.VCC_LO))
    fl = None
    res = None
    if kind == "float":
        res = _emit_float(blk, arg, s0, s1, s2, cin, ex)
        fl = ir.Constant(blk.V1, None)    # the plain cases of flag ops have no flag
    elif kind == "fcmp":
        for v in (s0, s1):
            _check_denormal(blk, v)
            _check_nan(blk, v)
        if _FCMP[arg] is None:
            fl = ir.Constant(blk.V1, [int(arg == "tru")] * blk.W)
        else:
            ordered, op = _FCMP[arg]
            fl = (b.fcmp_ordered if ordered else b.fcmp_unordered)(op, _f(b, s0), _f(b, s1))
    elif kind == "icmp":
        pred, signed = arg
        if _ICMP[pred] is None:
            fl = ir.Constant(blk.V1, [int(pred == "t")] * blk.W)
        else:
            cmp = b.icmp_signed if signed else b.icmp_unsigned
            fl = cmp(_ICMP[pred], s0, s1)
    else:
        res, fl = _int_op(blk, arg, s0, s1, s2, cin)
    if flags & L.FL_CMP:
        m = _lane_mask(blk, fl, ex)
        blk.sset64(int(code[r, C_SDST]), m)
        if flags & L.FL_CMPX:
            blk.sset64(L.EXEC_LO, m)
        return
    _set_vgpr(blk, 256 + int(code[r, C_DST]), res, ex)
    if flags & L.FL_FLAGS_TO_SDST:
        blk.sset64(int(code[r, C_SDST]), _lane_mask(blk, fl, ex))


def _set_vgpr(blk, d, res, ex):
    """VGPR code ``d`` = the row ``res`` in the lanes of EXEC ``ex``: merged now, or at the
    block's end where no row writes EXEC (blk.defer: the rows read the raw result)."""
    if blk.defer:
        blk.vset(d, res)
        return
    b = blk.b
    old = blk.vget(d)
    merged = _select_rows(b, _mask_vec(b, ex), res, old)
    for checked in (blk.dchecked, blk.nchecked):
        if id(res) in checked and id(old) in checked:
            checked[id(merged)] = merged
    blk.vset(d, merged)


# --- DS rows ------------------------------------------------------------------------------------
# A block runs the dword LDS loads and stores (ds_kind) with the engine's own row kernels
# (mem.ds.lds_row_form, called by symbol as SALU ops are: lds_symbol), on rows in stack slots:
# the same lanes' addresses, range checks, lane order and bits as the row path, and one
# LLVM call instead of a trip through run_wave's outer loop. The limit is min(M0 as the block
# has it at that row, the wave's LDS size); an active lane out of range makes the block
# decline (the row path then reads 0 / drops the store and records the overrun with its row
# and lane). Loads run at their row and their rows join the block's SSA state; stores are
# made at the block's end, in program order, once it is known not to decline, so that a
# block that declines has still stored nothing (find_blocks ends a block before a load that
# would read a store of its own). Blocks with DS rows run over 64 lanes in one pass (the row
# kernels' lanes and lane order) and only where nothing is recorded (engine.block_may_run).
def lds_symbol(kind: int, count: int) -> str:
    """The symbol by which blocks call the LDS row kernel of DS sub-op kind ``kind`` (layout.K_*)
    with ``count`` dwords per address (bound at load to the kernel's address: the disk cache)."""
    return f"gcnemu_lds_{kind}_{count}"


def _call_lds(blk, b, kind, count, args):
    """Call the LDS row kernel (numba's calling convention, as jit.call_native) with the nine
    64-bit ``args``; returns its mask of lanes out of range. Its result and exception slots
    are the block's (made in the entry by its first DS row: _lds_slots)."""
    slot, exc = blk.lds_slots
    fnty = ir.FunctionType(I32, [slot.type, exc.type] + [I64] * 9)
    sym = lds_symbol(kind, count)
    fn = blk.module.globals.get(sym) or ir.Function(blk.module, fnty, sym)
    b.call(fn, [slot, exc] + list(args))
    return b.load(slot)


def _rows_slot(blk, n):
    """A stack slot of n 64-lane uint32 rows (256 bytes apart), made in the entry."""
    p = blk.cb.alloca(ir.ArrayType(V64ROW, n))
    p.align = 64
    return p


def _put_rows(b, slot, rows):
    """Store the <64 x i32> ``rows`` into ``slot``; returns its address (i64)."""
    V = ir.VectorType(I32, 64)
    for k, v in enumerate(rows):
        p = b.gep(slot, [ir.Constant(I64, 0), ir.Constant(I64, k)])
        b.store(v, b.bitcast(p, V.as_pointer()), align=64)
    return b.ptrtoint(slot, I64)


def _emit_ds(blk, code, r):
    """DS row r (ds_kind): a load now, a store at the block's end (_emit_ds_stores)."""
    b = blk.b
    kind, count = ds_kind(code, r)
    if blk.lds_slots is None:
        blk.lds_slots = (blk.cb.alloca(I64), blk.cb.alloca(ir.IntType(8).as_pointer()))
    ex = blk.exec_()
    m0 = blk.sget(L.M0)
    blk.whole(m0)
    m0 = b.zext(m0, I64)
    ulim = b.select(b.icmp_unsigned("<", m0, blk.lsize), m0, blk.lsize)
    uo = [ir.Constant(I64, int(code[r, c]) & 0xFFFFFFFFFFFFFFFF)
          for c in (C_DS_UO0, C_DS_UO1, C_DS_AMASK)]
    addr = blk.vget(256 + int(code[r, C_F3]))
    ra, rb = int(code[r, C_DS_ROW_A]), int(code[r, C_DS_ROW_B])
    if kind in (L.K_LOAD, L.K_LOAD2):
        pairs = 2 if kind == L.K_LOAD2 else 1
        nrows = count * pairs
        dst = _rows_slot(blk, nrows)
        V = ir.VectorType(I32, 64)

        def by_kernel():        # (rows, lanes out of range)
            src = _put_rows(b, _rows_slot(blk, 1), [addr])
            pdst = b.ptrtoint(dst, I64)
            bad = _call_lds(blk, b, kind, count, [pdst, pdst, blk.plds, src] + uo + [ulim, ex])
            return [b.load(b.bitcast(b.gep(dst, [ir.Constant(I64, 0), ir.Constant(I64, k)]),
                                     V.as_pointer()), align=64) for k in range(nrows)], bad

        if count == 3 or not blk.in_loop:   # b96 (16-byte alignment): no whole-row form
            rows, out = by_kernel()
        else:
            # inside a loop, rows of whole runs or broadcasts per 16 lanes (matmul's tiles,
            # scan's buf[lid]), in range, every lane on: vector loads here (the row kernel's
            # own fast case, lanes._lds_segments), else the row kernel (outside loops, always:
            # the inline form is ~2x the IR and compile time of the call, for a row that runs
            # once per wave)
            whole, uniform, starts = _lds_segments(b, addr, uo[:pairs], uo[2], ulim, ex, count)
            with b.if_else(whole, likely=True) as (run, lanes):
                with run:
                    fast = _segment_rows(b, blk.plds, starts, uniform, count)
                    fast_end = b.block
                with lanes:
                    slow, bad = by_kernel()
                    slow_end = b.block
            *rows, out = phi_join(b, fast + [ir.Constant(I64, 0)], fast_end, slow + [bad],
                                  slow_end)
        blk.modebad = b.or_(blk.modebad, b.icmp_unsigned("!=", out, ir.Constant(I64, 0)))
        for k in range(nrows):
            _set_vgpr(blk, 256 + ra + k, rows[k], ex)
        return
    # a store: its lanes' range checked now (as the kernel will check them: _lds_addresses),
    # its operands kept for the end
    for i in range(2 if kind == L.K_STORE2 else 1):
        _a, ok = _lds_addresses(b, addr, uo[i], uo[2], ulim, count)
        out = b.and_(ex, b.xor(b.bitcast(ok, I64), ir.Constant(I64, -1)))
        blk.modebad = b.or_(blk.modebad, b.icmp_unsigned("!=", out, ir.Constant(I64, 0)))
    data0 = [blk.vget(256 + ra + k) for k in range(count)]
    data1 = [blk.vget(256 + rb + k) for k in range(count)] if kind == L.K_STORE2 else None
    blk.ds_stores.append((kind, count, addr, data0, data1, uo, ulim, ex,
                          [_rows_slot(blk, 1), _rows_slot(blk, count)] +
                          ([_rows_slot(blk, count)] if data1 else [])))


def _emit_ds_stores(blk, e):
    """The block's LDS stores, in program order (builder ``e``: where it stores its results):
    in a loop, ds_write_b32/b64/b128 of whole-row runs or broadcasts per 16 lanes, every lane
    on, as vector stores here (the row kernel's own fast case: lanes._lds_segments), the
    others by the row kernel (see _emit_ds)."""
    for kind, count, addr, data0, data1, uo, ulim, ex, slots in blk.ds_stores:
        def by_kernel():
            src = _put_rows(e, slots[0], [addr])
            p0 = _put_rows(e, slots[1], data0)
            p1 = _put_rows(e, slots[2], data1) if data1 else p0
            _call_lds(blk, e, kind, count, [p0, p1, blk.plds, src] + uo + [ulim, ex])

        if kind == L.K_STORE2 or count == 3 or not blk.in_loop:
            by_kernel()
            continue
        whole, uniform, starts = _lds_segments(e, addr, uo[:1], uo[2], ulim, ex, count)
        with e.if_else(whole, likely=True) as (run, lanes):
            with run:
                _segment_store(e, blk.plds, starts, uniform, count, data0)
            with lanes:
                by_kernel()


#: f32 forms whose result is a NaN in every lane where an operand is one (IEEE arithmetic, and
#: v_rsq_f32's plain form, whose y0 is then the NaN), and those that flag a NaN operand
#: themselves (div_scale's and div_fixup's quick cases need finite operands)
_NAN_PROPAGATING = {"add", "sub", "subrev", "mul", "mad", "madmk", "fma", "div_fmas", "rcp",
                    "sqrt", "rsq", "div_scale", "div_fixup"}


def _nan_checked_rows(code, names, start, nrows) -> set:
    """The rows of block (start, nrows) whose f32 result needs a NaN check of its own.

    A NaN a row makes matters only in its active lanes, where the merge keeps it, and there
    only if it reaches the registers the block stores or a row that does not pass a NaN on:
    a row whose every reader (until the register is written again under the same EXEC) is
    a NaN-propagating f32 form or an f32 compare (which checks its operands) hands its NaN
    lanes to their results, which are checked in turn, so its own check adds nothing. The
    rest are checked: results the block leaves in a register, results read by an integer
    op (v_cndmask of a NaN), or by a row after EXEC changed (lanes the next write keeps)."""
    need = set()
    producer = {}          # VGPR code -> (row whose f32 result it holds, EXEC generation)
    gen = 0
    for r in range(start, start + nrows):
        h = int(code[r, C_H])
        if h in (L.H_VALU, L.H_VCMP):
            kind, arg = valu_kind(names[r])
            passes = kind == "fcmp" or (kind == "float" and arg in _NAN_PROPAGATING)
            for i in range(3):
                if int(code[r, C_K0 + i]) == L.OP_VGPR:
                    p = producer.get(int(code[r, C_S0 + i]))
                    if p is not None and not passes:
                        need.add(p[0])
            flags = int(code[r, C_FLAGS])
            if not flags & L.FL_CMP:
                d = 256 + int(code[r, C_DST])
                p = producer.get(d)
                if p is not None and p[1] != gen:
                    need.add(p[0])        # lanes this write leaves may still hold its NaNs
                producer[d] = (r, gen) if kind == "float" else None
            if flags & L.FL_CMPX:
                gen += 1
        elif h == L.H_DS:
            # an LDS row reads its address (and a store its data) as integers; a load writes
            # rows that hold no f32 result then
            kind, count = ds_kind(code, r)
            ra, rb = int(code[r, C_DS_ROW_A]), int(code[r, C_DS_ROW_B])
            loads = kind in (L.K_LOAD, L.K_LOAD2)
            reads = [int(code[r, C_F3])] + ([] if loads else list(range(ra, ra + count)) + (
                list(range(rb, rb + count)) if kind == L.K_STORE2 else []))
            for v in reads:
                p = producer.get(256 + v)
                if p is not None:
                    need.add(p[0])
            if loads:
                for v in range(ra, ra + count * (2 if kind == L.K_LOAD2 else 1)):
                    p = producer.get(256 + v)
                    if p is not None and p[1] != gen:
                        need.add(p[0])
                    producer[256 + v] = None
        elif _writes_exec(code, r):
            gen += 1
    need.update(p[0] for p in producer.values() if p is not None)
    return need


def _writes_exec(code, r) -> bool:
    """Whether row r writes EXEC (v_cmpx, a compare or carry-out into EXEC, saveexec, a SALU
    op with EXEC as destination)."""
    h = int(code[r, C_H])
    if h in (L.H_VALU, L.H_VCMP):
        flags = int(code[r, C_FLAGS])
        return bool(flags & L.FL_CMPX) or bool(flags & (L.FL_CMP | L.FL_FLAGS_TO_SDST) and
                                               L.EXEC_LO - 1 <= int(code[r, C_SDST]) <= L.EXEC_HI)
    return h == L.H_SAVEEXEC or (h == L.H_SALU and int(code[r, C_KD]) == L.OP_SREG and
                                 int(code[r, C_DST]) + max(int(code[r, C_WD]), 1) > L.EXEC_LO
                                 and int(code[r, C_DST]) <= L.EXEC_HI)


def _const_reader():
    """Constant sources of 32-bit rows hold the address of a CONSTANT_ROWS row (the value
    with abs/neg applied): read its first lane."""
    def value(addr: int) -> int:
        return ctypes.c_uint32.from_address(addr).value
    return value


def _reduction(module, op, width):
    """llvm.vector.reduce.<op> over <width x i32>, declared once per module."""
    name = f"llvm.vector.reduce.{op}.v{width}i32"
    return module.globals.get(name) or \
        ir.Function(module, ir.FunctionType(I32, [ir.VectorType(I32, width)]), name)


def _has_ds(code: np.ndarray, start: int, nrows: int) -> bool:
    """Whether block (start, nrows) has DS rows: it then runs over 64 lanes in one pass and
    its function takes the LDS window and size."""
    return any(int(code[r, C_H]) == L.H_DS for r in range(start, start + nrows))


def _emit_block(module, fname, code, names, start, nrows, ctpop, width, loops):
    """Emit block (start, nrows) as function ``fname``, ``width`` lanes a chunk (64: the
    whole wave in one pass), ``loops`` the program's (_loops). Raises _Unchunkable where the
    rows read a lane mask whole."""
    has_ds = _has_ds(code, start, nrows)
    fnty = ir.FunctionType(I64, [I64, I64, I32.as_pointer(), I64, I64] + [I64, I64] * has_ds)
    fn = ir.Function(module, fnty, fname)
    pvb, vstride, psg, scc, mode = fn.args[:5]
    plds, lsize = fn.args[5:] if has_ds else (None, None)
    entry = fn.append_basic_block("entry")
    body = fn.append_basic_block("chunk")
    done = fn.append_basic_block("done")
    cb = ir.IRBuilder(entry)
    b = ir.IRBuilder(body)
    nch = 64 // width
    lane0 = b.phi(I64) if nch > 1 else ir.Constant(I64, 0)
    blk = _Block(b, cb, pvb, vstride, psg, scc, mode, width, lane0, plds, lsize)
    blk.ctpop = ctpop
    blk.module = module
    blk.nan_rows = _nan_checked_rows(code, names, start, nrows)
    blk.in_loop = _in_loop(loops, start, nrows)
    # where no row writes EXEC, each result is merged into its register's old lanes once, at
    # the end, not at every row: the rows read the raw results, whose active lanes are the
    # merged ones', and the keys are those of the active lanes (the others are discarded)
    blk.defer = not any(_writes_exec(code, r) for r in range(start, start + nrows))
    _current.blk = blk
    cv = _const_reader()
    for r in range(start, start + nrows):
        h = int(code[r, C_H])
        if h == L.H_SALU:
            _emit_salu(blk, code, r)
        elif h == L.H_SAVEEXEC:
            _emit_saveexec(blk, code, r)
        elif h in (L.H_VALU, L.H_VCMP):
            blk.row = r
            _emit_valu(blk, code, r, names[r], cv)
        elif h == L.H_SETREG:
            _emit_setreg(blk, code, r)
        elif h == L.H_DS:
            _emit_ds(blk, code, r)
    exec_end = blk.exec_()
    # a long block's chunks keep their raw results, merged under EXEC as they are stored, a
    # whole row at a time (store_row_under): a merge here kept each register's first value
    # live over the chunk (nbody's 64-row chunk loop, AVX2 code: 1503 -> 1401 instructions);
    # a short block's merges are cheaper here (mandelbrot's, AVX-512 code)
    store_merge = blk.defer and nch > 1 and \
        _float_rows(code, names, start, nrows) >= LONG_FLOAT
    if blk.defer:
        pred = _mask_vec(b, exec_end)
        if not store_merge:
            for c in blk.vdirty:
                old = blk.v0[c] if c in blk.v0 else b.load(blk.vaddr(c), align=4)
                blk.v[c] = _select_rows(b, pred, blk.v[c], old)
        # only the active lanes' keys and flags: the inactive lanes of the raw results are
        # not the row-by-row path's (their inputs were not merged) and are discarded
        blk.bad = b.and_(blk.bad, pred)
        if blk.dkey is not None:
            blk.dkey = b.select(pred, blk.dkey, _vconst(0xFFFFFFFF))
        if blk.nkey is not None:
            blk.nkey = b.select(pred, blk.nkey, _vconst(0))
    # VALU lanes: each EXEC value's lanes (this chunk's) times the rows run under it
    blk.nlanes = ir.Constant(I64, 0)
    for ex, n in blk.excount.values():
        cnt = b.call(ctpop, [b.and_(ex, blk.cmk) if width < 64 else ex])
        blk.nlanes = b.add(blk.nlanes, b.mul(cnt, ir.Constant(I64, n)))
    # this chunk's facts, put together with the chunks before it (loop-carried phis)
    bad = b.or_(b.icmp_unsigned("!=", b.bitcast(blk.bad, ir.IntType(width)),
                                ir.Constant(ir.IntType(width), 0)), blk.modebad)
    carried = []     # (phi, its value after this chunk)

    def carry(init, combine):
        if nch == 1:
            return combine(init) if init is not None else None
        b.position_at_start(body)
        p = b.phi(init.type)
        b.position_at_end(body)
        p.add_incoming(init, entry)
        nxt = combine(p)
        carried.append((p, nxt))
        return nxt

    bad = carry(ir.Constant(I1, 0), lambda p: b.or_(p, bad))
    nlanes = carry(ir.Constant(I64, 0), lambda p: b.add(p, blk.nlanes))
    dkey = nkey = None
    if blk.dkey is not None:
        dkey = carry(ir.Constant(blk.V32, [0xFFFFFFFF] * width) if nch > 1 else blk.dkey,
                     lambda p: _umin(b, p, blk.dkey) if nch > 1 else p)
    if blk.nkey is not None:
        nkey = carry(ir.Constant(blk.V32, None) if nch > 1 else blk.nkey,
                     lambda p: _umax(b, p, blk.nkey) if nch > 1 else p)
    sfinal = {}
    for i in blk.sdirty:
        v = blk.s[i]
        if blk.is_lane(v):
            # this chunk's bits of an SGPR of lanes 0..31 (even index) or 32..63 (odd)
            bits = b.trunc(b.lshr(blk.cmk, ir.Constant(I64, 32 * (i & 1))), I32)
            v = carry(ir.Constant(I32, 0), lambda p, v=v, bits=bits: b.or_(p, b.and_(v, bits)))
        sfinal[i] = v
    sccv = blk.scc
    if blk.scc_lane:
        sccv = carry(ir.Constant(I64, 0), lambda p: b.or_(p, blk.scc))
    scratch = {}
    if nch > 1:
        for c in blk.vdirty:
            scratch[c] = cb.alloca(V64ROW)
            scratch[c].align = 64
            p = b.gep(scratch[c], [ir.Constant(I64, 0), lane0])
            b.store(blk.v[c], b.bitcast(p, blk.V32.as_pointer()), align=4)
        nxt = b.add(lane0, ir.Constant(I64, width))
        lane0.add_incoming(ir.Constant(I64, 0), entry)
        lane0.add_incoming(nxt, body)
        for p, v in carried:
            p.add_incoming(v, body)
        b.cbranch(b.icmp_unsigned("<", nxt, ir.Constant(I64, 64)), body, done)
    else:
        b.branch(done)
    # at the entry's end: the row kernels' IR helpers (lanes) put stack slots there too,
    # through builders of their own
    cb.position_at_end(entry)
    cb.branch(body)
    _current.blk = None
    e = ir.IRBuilder(done)
    if dkey is not None:
        lo = e.call(_reduction(module, "umin", width), [dkey])
        bad = e.or_(bad, e.icmp_unsigned("<", lo, ir.Constant(I32, int(_keys()[0]))))
    if nkey is not None:
        hi = e.call(_reduction(module, "umax", width), [nkey])
        bad = e.or_(bad, e.icmp_unsigned(">", hi, ir.Constant(I32, int(_keys()[1]))))
    store = fn.append_basic_block("store")
    decline = fn.append_basic_block("decline")
    e.cbranch(bad, decline, store)
    e.position_at_end(decline)
    e.ret(ir.Constant(I64, -1))
    e.position_at_end(store)
    V64R = ir.VectorType(I32, 64)
    # EXEC's <64 x i1> where results merge as they are stored, made here: a vector of i1
    # live from one basic block into another is a lane-by-lane bit extract with AVX2
    pred64 = lane_predicate(e, exec_end) if store_merge and blk.vdirty else None
    for c in blk.vdirty:
        dst = e.inttoptr(e.add(pvb, e.mul(ir.Constant(I64, c), vstride)), V64R.as_pointer())
        if nch > 1:
            row = e.load(e.bitcast(scratch[c], V64R.as_pointer()), align=64)
            if pred64 is not None:
                store_row_under(e, row, dst, pred64)
            else:
                e.store(row, dst, align=4)
        else:
            # volatile: LLVM's x86 back end would fold store(select(p, v, load(d)), d) into
            # a masked store, vpmaskmovd on AVX2, microcoded on AMD's cores
            # (lanes.store_row_under)
            _volatile(e, _VolatileStore(e.block, blk.v[c], dst))
    for i in blk.sdirty:
        e.store(sfinal[i], e.gep(psg, [ir.Constant(I64, i)]), align=4)
    _emit_ds_stores(blk, e)
    ret = e.or_(e.shl(nlanes, ir.Constant(I64, 1)), sccv)
    if blk.nsetreg:
        # MODE[28:0] as the last s_setreg left it (a scalar: the last chunk's is every chunk's)
        ret = e.or_(ret, e.or_(ir.Constant(I64, 1 << 16),
                               e.shl(e.and_(blk.mode, ir.Constant(I64, 0x1FFFFFFF)),
                                     ir.Constant(I64, 17))))
    e.ret(ret)


# --- compilation --------------------------------------------------------------------------------
_lock = threading.Lock()
_count = [0]
#: seconds spent getting blocks in this process (compiling or loading), programs and blocks,
#: and how many programs' blocks were compiled / read from the disk cache (for measurements)
STATS = {"seconds": 0.0, "programs": 0, "blocks": 0, "compiled": 0, "loaded": 0}
#: the block functions of this process, by the key of their program's blocks (_key)
_compiled: dict = {}
#: every block function loaded in this process, name -> address: numba's engine does not list
#: the symbols of object files it loads, and a profiler needs them (tools/numba_perf.py
#: writes them to perf's map; without them a block's samples went to the function below it)
LOADED: dict = {}
#: the disk cache of compiled blocks: GCNEMU_BLOCK_CACHE=0 turns it off, a path moves it
#: (default: beside numba's cache, see _cache_dir)
DISK_CACHE = os.environ.get("GCNEMU_BLOCK_CACHE", "1")
#: the most object files the disk cache keeps (~17 KB each on the corpus; the oldest go first)
MAX_CACHED = 2048
_MAGIC = b"gcnemu-blocks-3\n"


def _target():
    """numba's code generator and what its machine code depends on beyond the IR."""
    import llvmlite
    import llvmlite.binding as llvm
    import numba
    from numba.core.registry import cpu_target
    cg = cpu_target.target_context.codegen()
    return cg, (llvm.get_process_triple(), cg._get_host_cpu_name(), cg._tm_features,
                llvmlite.__version__, numba.__version__, llvm.llvm_version_info)


#: the sources a block's IR is made from (relative to gcnemu/): this module's translation,
#: the layout it reads rows by, lanes' IR helpers, valu_float, whose constants the keys and
#: the f32 forms bake in (DENORMAL_KEY, NAN_KEY), and subops, which
#: unpacks DS sub-ops; a module the translation comes to read belongs here
TRANSLATION_SOURCES = ("exec/blockjit.py", "exec/layout.py", "exec/lanes.py",
                       "sem/valu_float.py", "mem/subops.py")


@functools.lru_cache(maxsize=1)
def _generator_identity() -> bytes:
    """What a block's IR depends on besides its rows: TRANSLATION_SOURCES and the target."""
    h = hashlib.sha256()
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for f in TRANSLATION_SOURCES:
        with open(os.path.join(package, f), "rb") as fh:
            h.update(fh.read())
    h.update(repr(_target()[1]).encode())
    return h.digest()


def _key(code: np.ndarray, names: list, blocks: list) -> str:
    """The digest of everything the blocks' object code depends on: their rows, with the
    process-specific addresses in them (VALU rows' kernels, SALU rows' compiled ops, constant
    rows) replaced by what they stand for (the instruction's name, the constant's value), the
    instruction names, whether each block lies in a loop (its DS rows' form: _emit_ds), the
    chunk and code generation settings (CHUNK_LANES or chunk_lanes(), MIN_CHUNKED_FLOAT,
    LONG_FLOAT, UNSCHEDULED_OK) and _generator_identity. Equal keys, in any process: the
    same code."""
    h = hashlib.sha256(_generator_identity())
    h.update(repr((CHUNK_LANES or chunk_lanes(), MIN_CHUNKED_FLOAT, LONG_FLOAT,
                   UNSCHEDULED_OK)).encode())
    cv = _const_reader()
    loops = _loops(code)
    for start, nrows in blocks:
        rows = np.array(code[start:start + nrows], dtype=np.int64)
        for k in range(nrows):
            r = rows[k]
            hh = int(r[C_H])
            if hh in (L.H_VALU, L.H_VCMP):
                r[C_K] = 0
                if int(r[C_FLAGS]) & L.FL_ROW32:
                    for i in range(3):
                        if i == 2 and int(r[C_FLAGS]) & L.FL_CIN_S2:
                            continue
                        if int(r[C_K0 + i]) in (L.OP_CONST, L.OP_NONE):
                            r[C_V0 + i] = cv(int(r[C_V0 + i]))
            elif hh == L.H_SALU:
                r[L.C_SFN] = 0
            elif hh == L.H_DS:
                r[C_DS_FN] = r[L.C_FN] = 0     # the kernel: lds_symbol, by the sub-op in C_K
        h.update(np.array([start, nrows, _in_loop(loops, start, nrows)], dtype=np.int64).tobytes()
                 + rows.tobytes())
        h.update("\n".join(names[start:start + nrows]).encode() + b"\0")
    return h.hexdigest()


def _cache_dir():
    """Where compiled blocks are kept between processes, or None (GCNEMU_BLOCK_CACHE=0)."""
    if DISK_CACHE in ("0", ""):
        return None
    if DISK_CACHE != "1":
        return DISK_CACHE
    import numba
    if numba.config.CACHE_DIR:
        return os.path.join(numba.config.CACHE_DIR, "gcnemu-blocks")
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "__pycache__", "blocks")


def _read_cached(key: str):
    """The objects cached under ``key`` (_write_cached's ``objs``), or None when absent,
    unreadable or damaged (its checksum is verified: LLVM's loader trusts what it is
    given)."""
    d = _cache_dir()
    if d is None:
        return None
    try:
        with open(os.path.join(d, key + ".o"), "rb") as f:
            data = f.read()
    except OSError:
        return None
    n = len(_MAGIC)
    if data[:n] != _MAGIC or hashlib.sha256(data[n + 32:]).digest() != data[n:n + 32]:
        return None
    objs, i = [], n + 32
    while i < len(data):
        end = data.index(b"\0", i)
        size = int.from_bytes(data[end + 1:end + 9], "little")
        objs.append((data[end + 9:end + 9 + size], data[i:end].decode().split()))
        i = end + 9 + size
    return objs


def _write_cached(key: str, objs: list) -> None:
    """Keep ``objs``, (object code, its block functions' names) for each module compiled,
    under ``key`` (atomically: processes share the directory); a read-only or full disk only
    loses the cache."""
    d = _cache_dir()
    if d is None:
        return
    try:
        os.makedirs(d, exist_ok=True)
        tmp = os.path.join(d, f".{key}.{os.getpid()}.tmp")
        payload = b"".join(" ".join(fnames).encode() + b"\0" + len(obj).to_bytes(8, "little")
                           + obj for obj, fnames in objs)
        with open(tmp, "wb") as f:
            f.write(_MAGIC + hashlib.sha256(payload).digest() + payload)
        os.replace(tmp, os.path.join(d, key + ".o"))
        files = [e for e in os.scandir(d) if e.name.endswith(".o")]
        if len(files) > MAX_CACHED:
            files.sort(key=lambda e: e.stat().st_mtime)
            for e in files[:len(files) - MAX_CACHED * 3 // 4]:
                os.unlink(e.path)
    except OSError:
        pass


def _compile(text: str, schedule: bool = True) -> bytes:
    """The object code of the module ``text``, made by numba's own target machine (its CPU
    name and features, NUMBA_CPU_NAME / NUMBA_CPU_FEATURES included), what numba's engine
    would make of it. The IR goes to the code generator as built: it is already vector code in
    SSA form, and numba's IR optimisation pipeline (CodeLibrary.finalize) took ~3x as long for
    no measured gain. ``schedule`` False: without LLVM's machine scheduler (_unscheduled).
    Called under numba's compiler lock."""
    import llvmlite.binding as llvm
    mod = llvm.parse_assembly(text)
    mod.verify()
    if not schedule:
        # a process-wide LLVM option, set only while this module is compiled (under numba's
        # compiler lock, which every compile in the process holds) and then back to what
        # x86-64's back end does anyway (_unscheduled is for x86-64 only)
        llvm.set_option("", "-enable-misched=false")
    try:
        return _target()[0]._tm.emit_object(mod)
    finally:
        if not schedule:
            llvm.set_option("", "-enable-misched=true")


#: a block with this many f32 arithmetic rows is long: where it runs as chunks, its results
#: merge under EXEC as they are stored (_emit_block), and on x86-64 it is compiled without
#: LLVM's machine scheduler (_unscheduled)
LONG_FLOAT = 16
#: whether blocks may be compiled without the machine scheduler: measured on x86-64 only
UNSCHEDULED_OK = platform.machine().lower() in ("x86_64", "amd64")


def _float_rows(code, names, start, nrows) -> int:
    """How many of block (start, nrows)'s rows are f32 arithmetic (valu_kind "float")."""
    return sum(int(code[r, C_H]) in (L.H_VALU, L.H_VCMP) and valu_kind(names[r])[0] == "float"
               for r in range(start, start + nrows))


def _unscheduled(code, names, blocks) -> list:
    """The indices of the blocks compiled without LLVM's machine scheduler (a module of their
    own): those with LONG_FLOAT f32 rows or more, on x86-64. In such a block the
    scheduler moved the denormal key of each value (a shift, a subtraction and a minimum) away
    from the value, which then stayed live, and spilled, over the chunk: nbody's two blocks of
    52 and 53 f32 rows had 153 and 144 spill stores per chunk of AVX2 code with it, 98 and 109
    without, and 8 % fewer instructions (AVX-512 code: 98 -> 41 spill stores), in thread CPU
    time 101 -> 107 M winst/s (AVX2 code; AVX-512 code 144 -> 146). Where blocks are short,
    its latency hiding pays: mandelbrot and loops_break (at most 5 f32 rows a block) ran 5 and
    8 % slower without it (AVX2 code)."""
    if not UNSCHEDULED_OK:
        return []
    return [j for j, (start, nrows) in enumerate(blocks)
            if _float_rows(code, names, start, nrows) >= LONG_FLOAT]


def _load(obj: bytes, fnames: list, symbols: dict) -> list:
    """Load the object code ``obj`` into numba's execution engine, its SALU and LDS calls
    bound to this process's ops and row kernels (``symbols``: symbol -> address), and return the addresses of its
    functions ``fnames``. numba's engine, not one of our own: an ExecutionEngine takes
    ownership of the TargetMachine it is given, and a second engine on numba's would free it
    under numba. Called under numba's compiler lock."""
    import llvmlite.binding as llvm
    for sym, addr in symbols.items():
        llvm.add_symbol(sym, addr)
    engine = _target()[0]._engine._ee
    engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
    engine.finalize_object()
    return [engine.get_function_address(f) for f in fnames]


def blocks_ir(code: np.ndarray, names: list, blocks: list, prefix: str = "",
              only=None) -> tuple:
    """(LLVM IR text, function names) of the ``blocks`` (find_blocks) of a decoded program,
    or of those whose indices are in ``only``, each run a chunk of CHUNK_LANES (or
    chunk_lanes()) lanes at a time where its rows allow it, else over all 64 lanes at once;
    block j's function is named ``gcnemu_block_<prefix>_<j>`` (default prefix: a count,
    unique in the process)."""
    width = CHUNK_LANES or chunk_lanes()
    with _lock:            # one module at a time: _current, and a unique tag per module
        _count[0] += 1
        tag = prefix or str(_count[0])
        module = ir.Module(name=f"gcnemu_blocks_{tag}")
        ctpop = module.declare_intrinsic("llvm.ctpop", [I64])
        fnames = []
        loops = _loops(code)
        for j, (start, nrows) in enumerate(blocks):
            if only is not None and j not in only:
                continue
            fname = f"gcnemu_block_{tag}_{j}"
            nfloat = _float_rows(code, names, start, nrows)
            has_ds = _has_ds(code, start, nrows)
            w = width if nfloat >= MIN_CHUNKED_FLOAT and not has_ds else 64
            try:
                _emit_block(module, fname, code, names, start, nrows, ctpop, w, loops)
            except _Unchunkable:
                del module.globals[fname]
                fname += "_whole"
                w = 64
                _emit_block(module, fname, code, names, start, nrows, ctpop, w, loops)
            FORMS["chunked" if w < 64 else "whole"] += 1
            fnames.append(fname)
        _current.blk = None
        return str(module), fnames


def compile_blocks(code: np.ndarray, names: list) -> int:
    """Find the blocks of the decoded program ``code`` (instruction names ``names``), compile
    them (in one LLVM module, or two: _unscheduled) and write each block's function address
    and facts into its first row (layout.C_BLK, C_BLEN, C_BNVALU, C_BNSALU, C_BSMAX, C_BVMAX,
    C_BNDS). Returns the number of blocks. A program decoded again in this process (each load
    of a code object decodes its kernels afresh) reuses the functions compiled for the same
    rows; one compiled by an earlier process loads its object code from the disk cache
    (_cache_dir)."""
    blocks = within_budget(code, find_blocks(code, names))
    if not blocks:
        return 0
    from numba.core.compiler_lock import global_compiler_lock
    t0 = time.perf_counter()
    key = _key(code, names, blocks)
    addrs = _compiled.get(key)
    if addrs is None:
        symbols = {salu_symbol(SALU_NAMES[int(code[r, C_K])]): int(code[r, L.C_SFN])
                for start, nrows in blocks for r in range(start, start + nrows)
                if int(code[r, C_H]) == L.H_SALU and int(code[r, C_V2]) == L.SQ_NONE}
        symbols.update({lds_symbol(*ds_kind(code, r)): int(code[r, C_DS_FN])
                        for start, nrows in blocks for r in range(start, start + nrows)
                        if int(code[r, C_H]) == L.H_DS})
        objs = _read_cached(key)
        with global_compiler_lock:     # LLVM is not thread-safe: numba compiles under this lock
            if objs is not None and sum(len(f) for _o, f in objs) == len(blocks):
                STATS["loaded"] += 1
            else:
                # one module for the blocks compiled without the machine scheduler, one for
                # the others (either may be empty)
                plain = _unscheduled(code, names, blocks)
                rest = [j for j in range(len(blocks)) if j not in plain]
                objs = []
                for only, schedule in ((rest, True), (plain, False)):
                    if only:
                        text, fnames = blocks_ir(code, names, blocks, key[:24], set(only))
                        objs.append((_compile(text, schedule), fnames))
                _write_cached(key, objs)
                STATS["compiled"] += 1
            byname = {}
            for obj, fnames in objs:
                byname.update(zip(fnames, _load(obj, fnames, symbols)))
            LOADED.update(byname)
        # block j's function: gcnemu_block_<key[:24]>_<j>, "_whole" after it where it runs
        # over all 64 lanes at once (blocks_ir)
        addrs = [byname.get(f"gcnemu_block_{key[:24]}_{j}") or
                 byname[f"gcnemu_block_{key[:24]}_{j}_whole"] for j in range(len(blocks))]
        _compiled[key] = addrs
    for (start, nrows), addr in zip(blocks, addrs):
        rows = code[start:start + nrows]
        code[start, L.C_BLEN] = nrows
        code[start, L.C_BNVALU] = int(np.isin(rows[:, C_H], (L.H_VALU, L.H_VCMP)).sum())
        code[start, L.C_BNSALU] = int(np.isin(rows[:, C_H],
                                              (L.H_SALU, L.H_SAVEEXEC, L.H_SETREG)).sum())
        code[start, L.C_BSMAX] = int(rows[:, C_SMAX].max())
        code[start, L.C_BVMAX] = int(rows[:, C_VMAX].max())
        code[start, L.C_BNDS] = int((rows[:, C_H] == L.H_DS).sum())
        code[start, L.C_BLK] = addr
    STATS["seconds"] += time.perf_counter() - t0
    STATS["programs"] += 1
    STATS["blocks"] += len(blocks)
    return len(blocks)
