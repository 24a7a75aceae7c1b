"""Differential fuzzing of OpenCL C integer expressions: gcnemu against an exact Python model.

    python tools/cl_int_fuzz.py --cases 200 --seed 1 [--trees 8 --depth 4 --out DIR]
    python tools/cl_int_fuzz.py --cases 100 --items 512 --block 256 --features cf,lds
    python tools/cl_int_fuzz.py --fold-check 20 --seed 1     # the model against clang's folding

Each case is a kernel, generated from ``random.Random(seed)``, that computes ``--trees``
independent random expression trees per work-item over uchar, ushort, uint, ulong, char,
short, int and long, and stores each to its own output buffer::

    __kernel void f(__global const uint *a, __global const uint *b, __global const ulong *c,
                    uint u, ulong v, ulong z, __global <T0> *out0, __global <T1> *out1, ...)

Leaves are ``A = a[gid]``, ``B = b[gid]``, ``C = c[gid]``, ``gid``, the uniform arguments
``u`` and ``v``, ``grp`` (the workgroup id, uniform too: clang keeps uniform values in SGPRs,
so trees made only of them run on the scalar unit) and literals biased to edge values. Every
intermediate has a known type (explicit casts, ``convert_<T>_sat``), and only operations whose
result the OpenCL C 1.2 specification defines are generated: no signed overflow (signed
``+ - * <<`` go through the unsigned type of the same width), no division by zero or MIN / -1
(divisors are guarded by ``| 1``, ``max(d, 1)`` or ``(d | 1) & ~2``, or are safe literals),
``clamp`` with ordered bounds, ``mul24``/``mad24`` on operands in their 24-bit range and with
products that fit. A shift count is taken modulo the width of the left operand's type after
integer promotion (what clang-14 emits: `and i32 %n, 31` for a char operand). Two
implementation-defined points of C99 are taken as clang defines them: a conversion of an
out-of-range value to a signed type wraps modulo 2^N, and ``>>`` of a negative value shifts
arithmetically.

``--features`` (default ``cf,lds``; ``none`` gives the plain expressions above) adds:

* ``cf``, divergent control flow (CF_OPS): nodes written as GNU statement expressions, so that
  they nest like any other: ``if``/``else`` on a lane condition, ``switch (sel % 5U)`` with a
  fall-through and a default, and ``for (uint i = 0; i < (count & 3|7|15); i++)`` loops with
  per-lane trip counts and rare per-lane ``break``/``continue``, whose body, condition and
  exits read the loop's ``r`` and ``i`` (nested two deep at most); and ``if (c) out[gid] = e1;
  else out[gid] = e2;`` statements at the top of some trees (stores under EXEC masks). This is
  code with s_and_saveexec / s_cbranch_execz / s_or_saveexec / loops on EXEC and v_cndmask.
  The model evaluates each work-item's branches and loop iterations in turn.
* ``lds``, __local memory (LDS_ATOMICS): some trees store two values of their type (1 to 8
  bytes) per work-item to a __local array, ``barrier(CLK_LOCAL_MEM_FENCE)``, and read the
  slots of other work-items through a permutation of the local id (``(lid * k + c) % block``
  with k odd, ``lid ^ m``, ``block - 1 - lid``), or apply a local atomic (add, sub, min, max,
  and, or, xor, inc, dec on int/uint: commutative, so the final value is exact) from every
  work-item to a __local variable that work-item 0 initialised, then read it after a second
  barrier. The model (:func:`lds_values`) computes each workgroup's memory in Python; use
  ``--block 256`` (four waves share the LDS and the barrier) as well as 64.
* ``vec``, vector types (VEC_FORMS): nodes whose value is a component of a 2- or 4-element
  vector computed from two vector literals by component-wise operators (at the element width,
  no promotion), shifts, built-ins, comparisons (-1 per true component), ``select`` on the
  mask's most significant bit, swizzles (.hi/.lo/.odd/.even/.wzyx/.s1032), ``convert_*_sat``
  from another element type, and ``vstore``/``vload`` at an element offset.

With cf and lds the campaign found one gcnemu error, fixed since: exec/blockjit.py's blocks
run as one pass over 64 lanes gave wrong lanes for ``v_bfi_b32`` by a constant mask under a
v_cndmask or merged under EXEC into its own source (the code generator's vpternlogd fold that
blockjit._select_rows now keeps away; tests/test_blockjit.py pins the shapes).

The toolchain has bugs of its own, found by this campaign, which the generator steers clear
of so that what remains points at gcnemu: libclc-14's built-ins with undefined behaviour or
wrong edges (KNOWN_LIBCLC_BUGS, LIBCLC_OVERFLOWING, LONG_MUL_HI_MASK: their operands are
guarded, in the source and in the model alike) and LLVM 14 AMDGPU code generation bugs that
depend on what LLVM knows of an operand's bits (the comment at VARS: such operands are xor-ed
with the argument ``z``, always 0 but unknown to LLVM). ``--raw`` leaves the latter out.

The kernel runs on gcnemu (``gcnemu.load`` of the .cl: clang-14, lld-14, libclc-14) over
``--items`` work-items with random inputs biased to edge values, and every output element is
compared with :func:`evaluate`, an exact model of the same trees written from the OpenCL C 1.2
specification (Python integers reduced modulo 2^N). A mismatch is minimised (subtrees replaced
by their operands or by a literal of their value while it still fails), and the reproducer
(.cl source, inputs, expected and got) is written to ``--out`` (default
``cl-int-fuzz-findings/``). The exit status is 1 when there were mismatches.

:func:`clang_fold` is an independent route to the expected values: the same expressions with
the inputs made compile-time constants, compiled with clang-14 -O2 to LLVM IR, whose stores
then hold the constants LLVM folded (libclc's built-ins inlined and folded too).
``--fold-check N`` compares the model with it on N generated kernels (with ``--features``:
clang folds the control flow, its loops unrolled, the same way; "lds" trees are folded as if
every work-item had the same leaves, which checks their sub-trees, not the exchange);
tests/test_cl_int_fuzz.py does both with a fixed budget.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# --- types ------------------------------------------------------------------------------
#: OpenCL C scalar integer types: (bits, signed)
TYPES = {"uchar": (8, False), "ushort": (16, False), "uint": (32, False), "ulong": (64, False),
         "char": (8, True), "short": (16, True), "int": (32, True), "long": (64, True)}
TYPE_NAMES = tuple(TYPES)
UNSIGNED_OF = {"uchar": "uchar", "ushort": "ushort", "uint": "uint", "ulong": "ulong",
               "char": "uchar", "short": "ushort", "int": "uint", "long": "ulong"}
SIGNED_OF = {u: s for s, u in UNSIGNED_OF.items() if s != u}
SIGNED_OF.update({s: s for s in SIGNED_OF.values()})
#: upsample(hi, lo): the result type from hi's type (lo is hi's unsigned type)
UPSAMPLE_RESULT = {"char": "short", "uchar": "ushort", "short": "int", "ushort": "uint",
                   "int": "long", "uint": "ulong"}
UPSAMPLE_HI = {r: h for h, r in UPSAMPLE_RESULT.items()}
NUMPY_DTYPE = {"uchar": np.uint8, "ushort": np.uint16, "uint": np.uint32, "ulong": np.uint64,
               "char": np.int8, "short": np.int16, "int": np.int32, "long": np.int64}
#: the leaves: name -> type; UNIFORM_VARS are the same for every work-item of a dispatch
VARS = {"A": "uint", "B": "uint", "C": "ulong", "gid": "uint", "grp": "uint", "u": "uint",
        "v": "ulong", "z": "ulong"}
UNIFORM_VARS = ("u", "v", "grp")
#: ``z`` is a kernel argument that is always 0 but that clang cannot know: an "opaque" node,
#: ``(x ^ z)``, hides what LLVM's value tracking knows of x. The operands of every division
#: and remainder, of the 64-bit and unsigned multiplications that need a high half and of
#: 64-bit | go through it, as LLVM 14's AMDGPU back end miscompiles them when it knows enough
#: of their bits (found by this campaign; the emitted code is wrong, gcnemu runs it right):
#:  * div/rem narrowed to a 24-bit float division (AMDGPUCodeGenPrepare's expandDivRem24, the
#:    DAG's LowerDIVREM24) where the operands have leading ones or 32 significant bits:
#:    `0xffffffff939d9fb0UL / ((ulong)A | 1)` gives 1; `3610276246L % (((long)grp | 1) & ~2)`
#:    gives 0xffffff96 for grp = 0 (upstream llvm/llvm-project#194829, PRs #80622, #196418);
#:  * UMUL_LOHI turned into MUL_I24/MULHI_I24 (the signed 24-bit multiply) where an operand has
#:    9+ sign bits: `mul_hi(295L, (long)(short)v)` gives 0 for (short)v = -14650, not -1 (fixed
#:    upstream by PR #105831, "Fix sign confusion in performMulLoHiCombine");
#:  * a signed division narrowed to DivBits bits by expandDivRem24 sign-extends its quotient
#:    from DivBits bits, wrong for -2^(DivBits-1) / -1: `(char)(-64 / ((char)~q | 1))` with
#:    q = 0 gives -64 (v_bfe_i32 v, v, 0, 7 of 64), not 64 (upstream PR #203436, "Remove
#:    unnecessary and broken sign/zero-extension");
#:  * a 64-bit `x | y` where y's high half is known all ones (~zext): SIFoldOperands folds the
#:    high `v_or_b32 x_hi, -1` to a move of x_hi (upstream #189677, PR #189655 "Fix OR -1
#:    fold"): `(ulong)~(ulong)A | (ulong)gid` stores 0 as the high dword, not 0xffffffff.
#: --raw generates trees without them.
NEVER_LEAF = ("z",)
#: the types whose high-half multiplies and | (64-bit) get "opaque" operands (divisions: all)
HIDDEN_TYPES = ("uint", "ulong", "long")


def bits_of(t: str) -> int:
    """Width in bits of OpenCL C integer type ``t``."""
    return TYPES[t][0]


def is_signed(t: str) -> bool:
    """Whether OpenCL C integer type ``t`` is signed."""
    return TYPES[t][1]


def wrap(value: int, t: str) -> int:
    """``value`` reduced modulo 2^N into the range of type ``t`` (two's complement for signed
    types): the model's canonical form of a value of that type."""
    n, signed = TYPES[t]
    value &= (1 << n) - 1
    if signed and value >> (n - 1):
        value -= 1 << n
    return value


def type_range(t: str) -> tuple[int, int]:
    """(least, greatest) value of type ``t``."""
    n, signed = TYPES[t]
    return (-(1 << (n - 1)), (1 << (n - 1)) - 1) if signed else (0, (1 << n) - 1)


def saturate(value: int, t: str) -> int:
    """``value`` clamped to the range of ``t`` (the ``_sat`` built-ins and conversions)."""
    lo, hi = type_range(t)
    return min(max(value, lo), hi)


def promoted(t: str) -> str:
    """The type of ``t`` after C99 integer promotion (char/short/uchar/ushort become int)."""
    return "int" if bits_of(t) < 32 else t


def arithmetic_conversion(t1: str, t2: str) -> str:
    """The common type of C99's usual arithmetic conversions of ``t1`` and ``t2``."""
    t1, t2 = promoted(t1), promoted(t2)
    if t1 == t2:
        return t1
    if is_signed(t1) == is_signed(t2):
        return t1 if bits_of(t1) > bits_of(t2) else t2
    uns, sgn = (t1, t2) if not is_signed(t1) else (t2, t1)
    if bits_of(uns) >= bits_of(sgn):
        return uns
    return sgn          # the signed type is wider and represents every unsigned value


def _wide_unsigned(t: str) -> str:
    """The unsigned type in which ``t``'s + - * << are done without signed overflow."""
    return "ulong" if bits_of(t) == 64 else "uint"


# --- expression trees -------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Node:
    """One expression: ``op`` (see render/evaluate), the result ``type``, the operands
    ``args`` and ``param`` (the variable name, literal value, operator or built-in name)."""

    op: str
    type: str
    args: tuple = ()
    param: object = None

    def size(self) -> int:
        """The number of nodes of the tree."""
        return 1 + sum(a.size() for a in self.args)


def literal_text(value: int, t: str) -> str:
    """A literal of type ``t`` with ``value``, written with no out-of-range conversion."""
    value = wrap(value, t)
    if not is_signed(t):
        return f"(({t})0x{value:x}{'UL' if bits_of(t) == 64 else 'U'})"
    lo, _ = type_range(t)
    suffix = "L" if bits_of(t) == 64 else ""
    if value == lo:                     # -2147483648 would be the negation of a long
        return f"(({t})(-{-lo - 1}{suffix} - 1))"
    return f"(({t}){value}{suffix})"


#: the operators of the "arith", "bit", "cmp" and "logic" nodes
ARITH_OPS = ("+", "-", "*")
BIT_OPS = ("&", "|", "^")
CMP_OPS = ("==", "!=", "<", ">", "<=", ">=")
#: the built-ins of "call" nodes whose operands and result all have the node's type
SAME_TYPE_CALLS = {"min": 2, "max": 2, "add_sat": 2, "sub_sat": 2, "hadd": 2, "rhadd": 2,
                   "mul_hi": 2, "rotate": 2, "clz": 1, "popcount": 1, "mad_sat": 3,
                   "bitselect": 3}
#: built-ins of libclc-14 that give wrong results, left out: mad_sat(long) returns x * y + z
#: wrapped when x * y fits but x * y + z overflows (its "hi == 0 && ulo >= LONG_MAX" test
#: misses ulo < LONG_MAX with z > 0): mad_sat(36028795945222144L, 164L, 3408888162112556020L)
#: is -9129133376580563980, not LONG_MAX, in clang's own constant folding too
KNOWN_LIBCLC_BUGS = {("mad_sat", "long")}
#: types where libclc-14's abs, abs_diff and sub_sat are wrong at an edge, which the generator
#: steers clear of (operands guarded in the source and in the model alike):
#:  * abs(int/long) is llvm.abs(x, is_int_min_poison=true), so abs(INT_MIN) is poison, not
#:    2^31: `convert_int_sat(abs((int)C))` is INT_MIN for (int)C = INT_MIN (LLVM folds the
#:    saturation away); abs gets max(x, MIN + 1);
#:  * abs_diff(int/long) subtracts with `sub nsw`: its operands get N-1 bits;
#:  * sub_sat(int/long) returns `x > 0 ? MAX : MIN` on overflow, wrong for x = 0, y = MIN:
#:    sub_sat(0, INT_MIN) is INT_MIN (also in clang's folding); y gets max(y, MIN + 1).
LIBCLC_OVERFLOWING = ("int", "long")
#: libclc-14's mul_hi(long) (also under mad_hi(long)) multiplies the low halves as longs,
#: `l = x_lo * y_lo`, a signed overflow when both are 2^31 or more, which LLVM exploits (`mul
#: nuw nsw`): mul_hi((long)B ^ z, -9223372032559808513L) for B = 3494063515 is -1747031758 at
#: run time (the -O2 IR computes that; gcnemu runs it right), -1747031757 folded. The second
#: operand gets bit 31 cleared, so that its low half is below 2^31.
LONG_MUL_HI_MASK = 0xFFFFFFFF7FFFFFFF
#: divisor guards for int and long: neither 0 nor -1 (MIN / -1 overflows). char and short
#: also take "or1" (-1 is fine: they are divided as ints)
DIV_GUARDS = ("max1", "or1_and_not2")


def render(n: Node) -> str:
    """OpenCL C source of tree ``n``; every subexpression is parenthesised and typed."""
    t, a = n.type, [render(x) for x in n.args]
    op = n.op
    if op == "var":
        return str(n.param)
    if op == "lit":
        return literal_text(n.param, t)
    if op == "cast":
        return f"(({t})({a[0]}))"
    if op == "sat":
        return f"convert_{t}_sat({a[0]})"
    if op == "opaque":                  # x ^ 0, where LLVM cannot see that z is 0
        return f"({a[0]} ^ ({t})z)" if bits_of(t) >= 32 else f"(({t})({a[0]} ^ ({t})z))"
    if op == "arith":
        narrow_safe = bits_of(t) < 32 and (n.param != "*" or bits_of(t) == 8)
        if narrow_safe:             # promoted to int, where the result cannot overflow
            return f"(({t})({a[0]} {n.param} {a[1]}))"
        if not is_signed(t) and bits_of(t) >= 32:
            return f"({a[0]} {n.param} {a[1]})"
        w = _wide_unsigned(t)
        return f"(({t})(({w})({a[0]}) {n.param} ({w})({a[1]})))"
    if op in ("bit", "mixed"):
        return f"(({t})({a[0]} {n.param} {a[1]}))"
    if op == "not":
        return f"(({t})~{a[0]})"
    if op == "neg":
        if not is_signed(t) and bits_of(t) >= 32:
            return f"(-{a[0]})"
        if bits_of(t) < 32:
            return f"(({t})-{a[0]})"
        return f"(({t})-({_wide_unsigned(t)})({a[0]}))"
    if op in ("div", "rem"):
        sym = "/" if op == "div" else "%"
        x, d = a[0], a[1]
        guard = n.param
        if guard == "or1":
            d = f"({d} | 1)"
        elif guard == "max1":
            d = f"max({d}, ({n.args[1].type})1)"
        elif guard == "or1_and_not2":
            d = f"(({d} | 1) & ~2)"
        return f"(({t})({x} {sym} {d}))"
    if op == "shl":
        w = _wide_unsigned(t)
        return f"(({t})(({w})({a[0]}) << {a[1]}))"
    if op == "shr":
        return f"(({t})({a[0]} >> {a[1]}))"
    if op == "cmp":
        return f"({a[0]} {n.param} {a[1]})"
    if op == "lnot":
        return f"(!{a[0]})"
    if op == "logic":
        return f"({a[0]} {n.param} {a[1]})"
    if op == "cond":
        return f"(({t})({a[0]} ? {a[1]} : {a[2]}))"
    if op == "select":                   # select(a, b, c): c ? b : a for scalars
        return f"select({a[0]}, {a[1]}, {a[2]})"
    if op == "call":
        if n.param == "sub_sat" and t in LIBCLC_OVERFLOWING:
            a[1] = _above_min_text(a[1], t)
        if n.param == "mul_hi" and t == "long":
            a[1] = f"({a[1]} & {literal_text(LONG_MUL_HI_MASK, t)})"
        return f"{n.param}({', '.join(a)})"
    if op == "abs" and n.args[0].type in LIBCLC_OVERFLOWING:
        return f"abs({_above_min_text(a[0], n.args[0].type)})"
    if op == "abs_diff" and n.args[0].type in LIBCLC_OVERFLOWING:
        s = n.args[0].type
        x, y = (_sext_text(e, s, bits_of(s) - 1) for e in a)
        return f"abs_diff({x}, {y})"
    if op in ("abs", "abs_diff", "upsample"):
        return f"{op}({', '.join(a)})"
    if op == "clamp":                    # clamp's result is undefined unless lo <= hi
        return f"clamp({a[0]}, min({a[1]}, {a[2]}), max({a[1]}, {a[2]}))"
    if op == "mad_hi":
        c = a[2]
        if is_signed(t) and bits_of(t) >= 32:    # mul_hi + c must not overflow: c to N-2 bits
            c = _sext_text(c, t, bits_of(t) - 2)
        b = f"({a[1]} & {literal_text(LONG_MUL_HI_MASK, t)})" if t == "long" else a[1]
        # libclc's mad_hi is a macro, mul_hi(a, b) + c: promoted to int for char and short
        return f"(({t})mad_hi({a[0]}, {b}, {c}))"
    if op in ("mul24", "mad24"):
        xbits, ybits = n.param
        x, y = (_narrow_text(a[0], t, xbits), _narrow_text(a[1], t, ybits))
        if op == "mul24":
            return f"mul24({x}, {y})"
        z = _sext_text(a[2], t, 30) if is_signed(t) else a[2]
        return f"mad24({x}, {y}, {z})"
    if op in CF_OPS:
        return _render_cf(n, a)
    if op == "lds":             # the value read back: its statements are in lds_statements
        return a[2]
    if op == "vec":
        return _render_vec(n, a)
    raise ValueError(f"unknown node op {op!r}")


# --- divergent control flow ("cf") and __local memory ("lds") ----------------------------
#: control-flow nodes, written as GNU statement expressions (``({ ...; r; })``, which clang
#: accepts in OpenCL C) so that they nest in expressions like any other node. Their local
#: variables ``r<uid>`` (the result) and ``i<uid>`` (a loop counter) are leaves of their
#: sub-trees; param is (uid, ...):
#:  * "if" (cond, then, else), param (uid, stmt): ``if (cond) r = then; else r = else;``; a
#:    ``stmt`` one at the top of a tree stores to the output in each branch instead, which LLVM
#:    cannot turn into a select: the EXEC mask guards the stores;
#:  * "loop" (count, init, brk, cont, body), param (uid, mask): r = init, then for i in
#:    [0, count & mask): ``if (brk) break; if (cont) continue; r = body;`` (brk, cont and body
#:    see r and i): per-lane trip counts and early exits;
#:  * "switch" (sel, e0, e1, e2, e3), param (uid,): r = 0, ``switch (sel % 5U)``, cases 0-2
#:    and a default, case 1 falling through into case 2 (r = e1, then r = e2 ^ r).
CF_OPS = ("if", "loop", "switch")
#: the generator's optional features (make_case), all on by default on the command line
FEATURES = ("cf", "lds", "vec")


def _render_cf(n: Node, a: list) -> str:
    t, uid = n.type, n.param[0]
    r, i = f"r{uid}", f"i{uid}"
    if n.op == "if":
        return f"({{ {t} {r}; if ({a[0]}) {{ {r} = {a[1]}; }} else {{ {r} = {a[2]}; }} {r}; }})"
    if n.op == "loop":
        return (f"({{ {t} {r} = {a[1]}; for (uint {i} = 0; {i} < ({a[0]} & {n.param[1]}U); "
                f"{i}++) {{ if ({a[2]}) break; if ({a[3]}) continue; {r} = {a[4]}; }} {r}; }})")
    if n.op == "switch":
        return (f"({{ {t} {r} = 0; switch ({a[0]} % 5U) {{ case 0: {r} = {a[1]}; break; "
                f"case 1: {r} = {a[2]}; case 2: {r} = ({t})({a[3]} ^ {r}); break; "
                f"default: {r} = {a[4]}; }} {r}; }})")
    raise AssertionError(n.op)


def _eval_cf(n: Node, env: dict) -> int:
    t, uid = n.type, n.param[0]
    r, i = f"r{uid}", f"i{uid}"
    if n.op == "if":
        return evaluate(n.args[1] if evaluate(n.args[0], env) else n.args[2], env)
    if n.op == "loop":
        count, init, brk, cont, body = n.args
        inner = dict(env)
        inner[r] = evaluate(init, env)
        for k in range(evaluate(count, env) & n.param[1]):
            inner[i] = k
            if evaluate(brk, inner):
                break
            if evaluate(cont, inner):
                continue
            inner[r] = evaluate(body, inner)
        return inner[r]
    if n.op == "switch":
        sel = evaluate(n.args[0], env) % (1 << 32) % 5
        if sel == 0:
            return evaluate(n.args[1], env)
        if sel in (1, 2):       # case 1 falls through into case 2; r starts at 0
            prev = evaluate(n.args[2], env) if sel == 1 else 0
            return wrap(evaluate(n.args[3], env) ^ prev, t)
        return evaluate(n.args[4], env)
    raise AssertionError(n.op)


#: "lds" nodes, only at the top of a tree (a barrier must be reached by every work-item):
#: args (src0, src1, combine), param (uid, kind, block, perm0, perm1). The kernel's statements
#: (:func:`lds_statements`) run before the outputs' stores:
#:  * kind "array": ``__local T l[2 * block]; l[lid] = src0; l[lid + block] = src1;`` a
#:    barrier, then ``x = l[perm0(lid)]; y = (l + block)[perm1(lid)];`` (ds_write/ds_read of
#:    1-8 bytes, ds_write2/ds_read2 where LLVM pairs them);
#:  * kind "atomic_<op>" (T int or uint): ``__local T l;`` set to src1 by work-item 0, a
#:    barrier, ``atomic_<op>(&l, src0)`` by every work-item (commutative ops only, so that the
#:    final value does not depend on their order), a barrier, ``x = y = l``.
#: The tree's value is combine, whose leaves include x<uid> and y<uid>.
LDS_ATOMICS = ("add", "sub", "min", "max", "and", "or", "xor", "inc", "dec")


def perm_text(perm: tuple, block: int) -> str:
    """OpenCL C of the permutation ``perm`` of the local id ``lid`` (see :func:`permute`)."""
    if perm[0] == "mul":
        return f"((lid * {perm[1]}U + {perm[2]}U) % {block}U)"
    if perm[0] == "xor":
        return f"(lid ^ {perm[1]}U)"
    return f"({block - 1}U - lid)"


def permute(perm: tuple, lid: int, block: int) -> int:
    """The image of local id ``lid`` by ``perm``: ("mul", k, c) is (lid * k + c) % block with
    k odd, ("xor", m) is lid ^ m with m < block, ("rev",) is block - 1 - lid."""
    if perm[0] == "mul":
        return (lid * perm[1] + perm[2]) % block
    if perm[0] == "xor":
        return lid ^ perm[1]
    return block - 1 - lid


def lds_statements(n: Node, out: str = "") -> str:
    """The statements of "lds" node ``n`` that set its x<uid> and y<uid>; with ``out`` (the
    constant kernel of :func:`clang_fold`) x = src0 and y = src1 (arrays; what every work-item
    reads when all have the same leaves) or x = y = src1 (atomics), without local memory."""
    uid, kind, block, p0, p1 = n.param
    t = n.type
    s0, s1 = render(n.args[0]), render(n.args[1])
    x, y, mem = f"x{uid}", f"y{uid}", f"l{uid}"
    if out:
        v0 = s0 if kind == "array" else s1
        return f"    const {t} {x} = {v0};\n    const {t} {y} = {s1};\n"
    bar = "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    if kind == "array":
        return (f"    __local {t} {mem}[{2 * block}];\n    {mem}[lid] = {s0};\n"
                f"    {mem}[lid + {block}U] = {s1};\n{bar}"
                f"    const {t} {x} = {mem}[{perm_text(p0, block)}];\n"
                f"    const {t} {y} = ({mem} + {block})[{perm_text(p1, block)}];\n")
    op = kind.split("_", 1)[1]
    call = (f"atomic_{op}(&{mem})" if op in ("inc", "dec") else f"atomic_{op}(&{mem}, {s0})")
    return (f"    __local {t} {mem};\n    if (lid == 0)\n        {mem} = {s1};\n{bar}"
            f"    {call};\n{bar}    const {t} {x} = {mem};\n    const {t} {y} = {x};\n")


def lds_values(n: Node, envs: list, block: int) -> list:
    """(x, y) of "lds" node ``n`` for each work-item of ``envs`` (whole workgroups of
    ``block`` items): the model of the kernel's local memory, one workgroup at a time."""
    uid, kind, _, p0, p1 = n.param
    t = n.type
    assert len(envs) % block == 0
    result = []
    for g in range(0, len(envs), block):
        group = envs[g:g + block]
        if kind == "array":
            s0 = [evaluate(n.args[0], e) for e in group]
            s1 = [evaluate(n.args[1], e) for e in group]
            result += [(s0[permute(p0, lid, block)], s1[permute(p1, lid, block)])
                       for lid in range(block)]
            continue
        op = kind.split("_", 1)[1]
        acc = evaluate(n.args[1], group[0])            # set by work-item 0
        for e in group:
            val = evaluate(n.args[0], e) if op not in ("inc", "dec") else 1
            acc = (acc + val if op in ("add", "inc") else acc - val if op in ("sub", "dec")
                   else min(acc, val) if op == "min" else max(acc, val) if op == "max"
                   else acc & val if op == "and" else acc | val if op == "or" else acc ^ val)
            acc = wrap(acc, t)
        result += [(acc, acc)] * block
    return result


# --- vector types ("vec") ------------------------------------------------------------------
#: "vec" nodes: args the components of two vectors a and b of n = 2 or 4 elements of the
#: node's type t (vector literals ``(t4)(e0, e1, e2, e3)``), and for "sat" n more of type s;
#: param (uid, n, form, op, comp, s). The node's value is component ``comp`` of c:
#:  * "arith": ``c = a op b``, + - * computed as the unsigned vector (``as_u4``: no signed
#:    overflow), & | ^ directly; vector operands are not promoted: they wrap at their width;
#:  * "shift": ``c = a << b`` (as the unsigned vector) or ``a >> b``, the count taken modulo
#:    the element width (OpenCL C 1.2, 6.3 j);
#:  * "call": ``c = op(a, b)``, one of VEC_CALLS, component-wise;
#:  * "cmp": ``c = convert_t4(a op b)``: a vector comparison gives -1 (all bits set) or 0 per
#:    component, not 1 (6.3 d), in the signed type of the element width;
#:  * "select": ``c = select(a, b, m)``: b's component where m's has its most significant bit
#:    set (6.12.6), m = ``a op b`` (a comparison) or ``(a ^ b).wzyx``;
#:  * "swizzle": ``(t4)(a.hi, b.lo)``, ``(t4)(a.odd, b.even)``, ``a.wzyx ^ b.s1032`` (n = 2:
#:    ``(t2)(a.y, b.x)``, ``(t2)(a.lo, b.hi)``, ``a.yx ^ b``);
#:  * "sat": ``c = convert_t4_sat(s4)`` of the vector of the other n components;
#:  * "vload": ``vstore4(a, 0, m); vstore4(b, 1, m); c = vload4(0, m + 1)`` on a private
#:    array m: a's components from the second, then b's first.
VEC_FORMS = ("arith", "shift", "call", "cmp", "select", "swizzle", "sat", "vload")
VEC_CALLS = ("min", "max", "add_sat", "hadd", "rhadd", "rotate", "clz", "popcount")
SWIZZLES = {4: ("(t)(a.hi, b.lo)", "(t)(a.odd, b.even)", "a.wzyx ^ b.s1032"),
            2: ("(t)(a.y, b.x)", "(t)(a.lo, b.hi)", "a.yx ^ b")}


def _render_vec(n: Node, a: list) -> str:
    uid, width, form, op, comp, s = n.param
    t = n.type
    vt, ut = f"{t}{width}", f"{UNSIGNED_OF[t]}{width}"
    va, vb = f"va{uid}", f"vb{uid}"
    head = (f"const {vt} {va} = ({vt})({', '.join(a[:width])}); "
            f"const {vt} {vb} = ({vt})({', '.join(a[width:2 * width])}); ")
    if form == "arith" and op in ARITH_OPS:
        c = f"as_{vt}(as_{ut}({va}) {op} as_{ut}({vb}))"
    elif form in ("arith", "cmp") and op not in ARITH_OPS:
        c = f"({va} {op} {vb})" if form == "arith" else f"convert_{vt}({va} {op} {vb})"
    elif form == "shift":
        c = (f"as_{vt}(as_{ut}({va}) << {vb})" if op == "<<" else f"({va} >> {vb})")
    elif form == "call":
        c = f"{op}({va}, {vb})" if op not in ("clz", "popcount") else f"{op}({va})"
    elif form == "select":
        rev = ".wzyx" if width == 4 else ".yx"
        m = f"({va} ^ {vb}){rev}" if op == "xor" else f"({va} {op} {vb})"
        c = f"select({va}, {vb}, {m})"
    elif form == "swizzle":
        c = SWIZZLES[width][op].replace("(t)", f"({vt})").replace("a.", f"{va}.").replace(
            "b.", f"{vb}.").replace(" b", f" {vb}")
    elif form == "sat":
        c = f"convert_{vt}_sat(({s}{width})({', '.join(a[2 * width:])}))"
    elif form == "vload":
        m = f"m{uid}"
        return (f"({{ {head}{t} {m}[{2 * width}]; vstore{width}({va}, 0, {m}); "
                f"vstore{width}({vb}, 1, {m}); vload{width}(0, {m} + 1).s{comp}; }})")
    else:
        raise AssertionError(form)
    return f"({{ {head}({c}).s{comp}; }})"


def _eval_vec(n: Node, env: dict) -> int:
    uid, width, form, op, comp, s = n.param
    t = n.type
    vals = [evaluate(x, env) for x in n.args]
    va, vb = vals[:width], vals[width:2 * width]
    nbits = bits_of(t)
    if form == "arith":
        c = [x + y if op == "+" else x - y if op == "-" else x * y if op == "*" else
             x & y if op == "&" else x | y if op == "|" else x ^ y for x, y in zip(va, vb)]
    elif form == "shift":           # the count's log2(width) low bits, viewed as unsigned
        c = [x << (y & (nbits - 1)) if op == "<<" else x >> (y & (nbits - 1))
             for x, y in zip(va, vb)]
    elif form == "call":
        c = [_call(op, [x] if op in ("clz", "popcount") else [x, y], t) for x, y in zip(va, vb)]
    elif form == "cmp":
        c = [-_cmp(op, x, y) for x, y in zip(va, vb)]
    elif form == "select":
        if op == "xor":
            m = [(x ^ y) < 0 if is_signed(t) else (x ^ y) >> (nbits - 1) for x, y in zip(va, vb)]
            m = m[::-1]
        else:
            m = [_cmp(op, x, y) for x, y in zip(va, vb)]
        c = [y if k else x for x, y, k in zip(va, vb, m)]
    elif form == "swizzle":
        if width == 4:
            c = ([va[2], va[3], vb[0], vb[1]], [va[1], va[3], vb[0], vb[2]],
                 [va[3] ^ vb[1], va[2] ^ vb[0], va[1] ^ vb[3], va[0] ^ vb[2]])[op]
        else:
            c = ([va[1], vb[0]], [va[0], vb[1]], [va[1] ^ vb[0], va[0] ^ vb[1]])[op]
    elif form == "sat":
        c = [saturate(x, t) for x in vals[2 * width:]]
    elif form == "vload":
        c = (va + vb)[1:1 + width]
    else:
        raise AssertionError(form)
    return wrap(c[comp], t)


def _cmp(op: str, x: int, y: int) -> int:
    return int(x == y if op == "==" else x != y if op == "!=" else x < y if op == "<" else
               x > y if op == ">" else x <= y if op == "<=" else x >= y)


def expected_outputs(trees: list, envs: list, block: int) -> list:
    """The model's value of each tree (a list per tree) for each work-item of ``envs``."""
    out = []
    for tr in trees:
        if tr.op == "lds":
            key = f"_lds{tr.param[0]}"
            out.append([evaluate(tr, {**e, key: xy})
                        for e, xy in zip(envs, lds_values(tr, envs, block))])
        else:
            out.append([evaluate(tr, e) for e in envs])
    return out


def _above_min_text(x: str, t: str) -> str:
    """``x`` of signed type ``t``, MIN replaced by MIN + 1."""
    return f"max({x}, {literal_text(type_range(t)[0] + 1, t)})"


def _sext_text(x: str, t: str, keep: int) -> str:
    """``x`` of signed type ``t`` sign-extended from its ``keep`` low bits."""
    s = bits_of(t) - keep
    return f"(({t})(({_wide_unsigned(t)})({x}) << {s}) >> {s})"


def _narrow_text(x: str, t: str, keep: int) -> str:
    """``x`` of type ``t`` brought into a ``keep``-bit range (sign-extended if signed)."""
    if is_signed(t):
        return _sext_text(x, t, keep)
    return f"({x} & 0x{(1 << keep) - 1:x}U)"


def _sext(value: int, keep: int) -> int:
    value &= (1 << keep) - 1
    return value - (1 << keep) if value >> (keep - 1) else value


def _narrow(value: int, t: str, keep: int) -> int:
    return _sext(value, keep) if is_signed(t) else value & ((1 << keep) - 1)


def _c_div(x: int, d: int) -> int:
    """C99 division: the quotient truncated towards zero."""
    q = abs(x) // abs(d)
    return q if (x < 0) == (d < 0) else -q


def _guard(d: int, kind: str | None, t: str) -> int:
    if kind == "or1":
        return wrap(d | 1, promoted(t))
    if kind == "max1":
        return max(d, 1)
    if kind == "or1_and_not2":
        return wrap((d | 1) & ~2, promoted(t))
    return d                          # a literal divisor, chosen safe


def _shift_count(s: int, width: int) -> int:
    """OpenCL C: the count's log2(width) low bits, the count viewed as unsigned."""
    return s & (width - 1)


def evaluate(n: Node, env: dict) -> int:
    """The exact value of tree ``n`` (in :func:`wrap`'s canonical form of ``n.type``) for the
    leaf values in ``env`` (name -> int), by the OpenCL C 1.2 specification's semantics."""
    t, op = n.type, n.op
    if op == "var":
        return wrap(env[n.param], t)
    if op == "lit":
        return wrap(n.param, t)
    if op in CF_OPS:
        return _eval_cf(n, env)
    if op == "vec":
        return _eval_vec(n, env)
    if op == "lds":     # x, y from lds_values, or as clang_fold's kernel sets them
        uid, kind = n.param[:2]
        x, y = env.get(f"_lds{uid}") or (
            evaluate(n.args[0 if kind == "array" else 1], env), evaluate(n.args[1], env))
        return evaluate(n.args[2], {**env, f"x{uid}": x, f"y{uid}": y})
    v = [evaluate(x, env) for x in n.args]
    if op in ("cast", "opaque"):
        return wrap(v[0], t)
    if op == "sat":
        return saturate(v[0], t)
    if op in ("arith", "mixed", "bit"):
        x, y = v
        p = n.param
        r = (x + y if p == "+" else x - y if p == "-" else x * y if p == "*" else
             x & y if p == "&" else x | y if p == "|" else x ^ y)
        if op == "mixed":      # computed in the common type, then converted to t
            r = wrap(r, arithmetic_conversion(n.args[0].type, n.args[1].type))
        return wrap(r, t)
    if op == "not":
        return wrap(~v[0], t)
    if op == "neg":
        return wrap(-v[0], t)
    if op in ("div", "rem"):
        x, d = v[0], _guard(v[1], n.param, n.args[1].type)
        q = _c_div(x, d)
        return wrap(q if op == "div" else x - q * d, t)
    if op == "shl":
        width = bits_of(_wide_unsigned(t))
        return wrap((v[0] % (1 << width)) << _shift_count(v[1], width), t)
    if op == "shr":            # after promotion: the count is reduced modulo the promoted width
        width = bits_of(promoted(n.args[0].type))
        return wrap(v[0] >> _shift_count(v[1], width), t)
    if op == "cmp":
        x, y = v
        p = n.param
        return int(x == y if p == "==" else x != y if p == "!=" else x < y if p == "<" else
                   x > y if p == ">" else x <= y if p == "<=" else x >= y)
    if op == "lnot":
        return int(v[0] == 0)
    if op == "logic":
        return int(bool(v[0]) and bool(v[1])) if n.param == "&&" else int(bool(v[0]) or bool(v[1]))
    if op == "cond":
        return wrap(v[1] if v[0] else v[2], t)
    if op == "select":
        return v[1] if v[2] else v[0]
    if op == "abs":
        x = v[0]
        if n.args[0].type in LIBCLC_OVERFLOWING:
            x = max(x, type_range(n.args[0].type)[0] + 1)
        return wrap(abs(x), t)
    if op == "abs_diff":
        x, y = v
        s = n.args[0].type
        if s in LIBCLC_OVERFLOWING:
            x, y = _sext(x, bits_of(s) - 1), _sext(y, bits_of(s) - 1)
        return wrap(abs(x - y), t)
    if op == "upsample":
        half = bits_of(n.args[0].type)
        return wrap((v[0] << half) | (v[1] % (1 << half)), t)
    if op == "clamp":
        lo, hi = min(v[1], v[2]), max(v[1], v[2])
        return min(max(v[0], lo), hi)
    if op == "mad_hi":
        c = _sext(v[2], bits_of(t) - 2) if is_signed(t) and bits_of(t) >= 32 else v[2]
        b = wrap(v[1] & LONG_MUL_HI_MASK, t) if t == "long" else v[1]
        return wrap(((v[0] * b) >> bits_of(t)) + c, t)
    if op in ("mul24", "mad24"):
        xbits, ybits = n.param
        prod = _narrow(v[0], t, xbits) * _narrow(v[1], t, ybits)
        if op == "mad24":
            prod += _sext(v[2], 30) if is_signed(t) else v[2]
        return wrap(prod, t)
    if op == "call":
        if n.param == "sub_sat" and t in LIBCLC_OVERFLOWING:
            v[1] = max(v[1], type_range(t)[0] + 1)
        if n.param == "mul_hi" and t == "long":
            v[1] = wrap(v[1] & LONG_MUL_HI_MASK, t)
        return _call(n.param, v, t)
    raise ValueError(f"unknown node op {op!r}")


def _call(name: str, v: list, t: str) -> int:
    """The built-ins of SAME_TYPE_CALLS (OpenCL C 1.2, 6.12.3 and 6.12.6)."""
    nbits = bits_of(t)
    if name == "min":
        return min(v)
    if name == "max":
        return max(v)
    if name == "add_sat":
        return saturate(v[0] + v[1], t)
    if name == "sub_sat":
        return saturate(v[0] - v[1], t)
    if name == "hadd":                  # (x + y) >> 1 without overflow
        return (v[0] + v[1]) >> 1
    if name == "rhadd":                 # (x + y + 1) >> 1 without overflow
        return (v[0] + v[1] + 1) >> 1
    if name == "mul_hi":                # the high half of the 2N-bit product
        return wrap((v[0] * v[1]) >> nbits, t)
    if name == "mad_sat":
        return saturate(v[0] * v[1] + v[2], t)
    if name == "rotate":                # left, by the count modulo N (not promoted)
        x, s = v[0] % (1 << nbits), v[1] % nbits
        return wrap((x << s) | (x >> (nbits - s)), t)
    if name == "clz":
        return nbits - (v[0] % (1 << nbits)).bit_length()
    if name == "popcount":
        return bin(v[0] % (1 << nbits)).count("1")
    if name == "bitselect":             # bits of b where c has ones, of a elsewhere
        return wrap((v[0] & ~v[2]) | (v[1] & v[2]), t)
    raise ValueError(f"unknown built-in {name!r}")


# --- the generator ----------------------------------------------------------------------
#: literal values for any type (reduced modulo 2^N); more come at random
EDGE_LITERALS = (0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64, -1, -2, 0x7F, 0x80, 0xFF,
                 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0xFFFFFF, 0x1000000, 0x7FFFFFFF,
                 0x80000000, 0x80000001, 0xFFFFFFFE, 0xFFFFFFFF, 0x100000000,
                 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFF00000000,
                 0x00000000FFFFFFFF, 0x123456789ABCDEF0, 0xFEDCBA9876543210, 0x0000000100000001,
                 0xAAAAAAAAAAAAAAAA, 0x5555555555555555, 0x80000000FFFFFFFF, -0x80000000,
                 1000000007, 0x9E3779B97F4A7C15)


def random_literal(rng: random.Random, t: str) -> int:
    """A literal of type ``t`` (wrapped), biased to edge values."""
    r = rng.random()
    if r < 0.55:
        value = rng.choice(EDGE_LITERALS)
    elif r < 0.75:
        value = rng.randint(-300, 300)
    elif r < 0.85:
        value = (1 << rng.randrange(64)) + rng.choice((-1, 0, 1))
    else:
        value = rng.getrandbits(64)
    return wrap(value, t)


class Generator:
    """Random typed expression trees; ``uniform`` trees use only uniform leaves."""

    def __init__(self, rng: random.Random, max_depth: int = 4, raw: bool = False,
                 features: tuple = ()):
        self.rng = rng
        self.max_depth = max_depth
        self.raw = raw
        self.features = tuple(features)
        self.uid = 0            # numbers the variables of "cf" and "lds" nodes
        self.scope: list = []   # (name, type) of the variables of the enclosing cf nodes
        self.loops = 0          # nesting of the loops being generated

    def _new_uid(self) -> int:
        self.uid += 1
        return self.uid

    def _scoped(self, names: list, make):
        """``make()`` with the variables ``names`` ((name, type)) in scope."""
        self.scope += names
        try:
            return make()
        finally:
            del self.scope[len(self.scope) - len(names):]

    def _rare(self, depth: int, uniform: bool, mask: int) -> Node:
        """An int condition true about once in ``mask + 1``: ``(e & mask) == 0``."""
        s = self.rng.choice(TYPE_NAMES)
        e = Node("bit", s, (self.node(s, depth, uniform), Node("lit", s, (), mask)), "&")
        return Node("cmp", "int", (e, Node("lit", s, (), 0)), "==")

    def cf(self, kind: str, t: str, depth: int, uniform: bool, stmt: bool = False) -> Node:
        """A control-flow node (see CF_OPS) of type ``t`` with sub-trees ``depth`` deep."""
        rng, uid = self.rng, self._new_uid()

        def g(tt=None):
            return self.node(tt or t, depth, uniform)
        if kind == "if":
            return Node("if", t, (g(rng.choice(TYPE_NAMES)), g(), g()), (uid, stmt))
        if kind == "switch":
            return Node("switch", t, (g("uint"), g(), g(), g(), g()), (uid,))
        count, init = g("uint"), g()
        self.loops += 1
        try:
            brk, cont, body = self._scoped(
                [(f"r{uid}", t), (f"i{uid}", "uint")],
                lambda: (self._rare(depth, uniform, 7), self._rare(depth, uniform, 3), g()))
        finally:
            self.loops -= 1
        return Node("loop", t, (count, init, brk, cont, body), (uid, rng.choice((3, 7, 15))))

    def vec(self, t: str, depth: int, uniform: bool) -> Node:
        """A "vec" node (see VEC_FORMS) of type ``t`` with sub-trees ``depth`` deep."""
        rng = self.rng
        width, form = rng.choice((2, 4)), rng.choice(VEC_FORMS)
        op, s = None, t
        if form == "arith":
            op = rng.choice(ARITH_OPS + BIT_OPS)
        elif form == "shift":
            op = rng.choice(("<<", ">>"))
        elif form == "call":
            op = rng.choice(VEC_CALLS)
        elif form == "cmp":
            op = rng.choice(CMP_OPS)
        elif form == "select":
            op = rng.choice(CMP_OPS + ("xor",))
        elif form == "swizzle":
            op = rng.randrange(3)
        elif form == "sat":
            s = rng.choice(TYPE_NAMES)
        args = [self.node(t, depth, uniform) for _ in range(2 * width)]
        if form == "sat":
            args += [self.node(s, depth, uniform) for _ in range(width)]
        return Node("vec", t, tuple(args),
                    (self._new_uid(), width, form, op, rng.randrange(width), s))

    def lds(self, block: int) -> Node:
        """An "lds" node (see LDS_ATOMICS) for workgroups of ``block`` items."""
        rng, uid = self.rng, self._new_uid()
        if rng.random() < 0.35:
            t, kind = rng.choice(("int", "uint")), "atomic_" + rng.choice(LDS_ATOMICS)
        else:
            t, kind = rng.choice(TYPE_NAMES), "array"

        def perm():
            r = rng.random()
            if r < 0.5:
                return ("mul", rng.randrange(1, 2 * block, 2), rng.randrange(block))
            return ("xor", rng.randrange(block)) if r < 0.85 else ("rev",)
        depth = rng.randint(1, self.max_depth - 1)
        src0, src1 = self.node(t, depth, False), self.node(t, depth, False)
        combine = self._scoped([(f"x{uid}", t), (f"y{uid}", t)],
                               lambda: self.node(t, rng.randint(1, self.max_depth - 1), False))
        p0 = perm()             # the same for both reads half the time: ds_read2
        return Node("lds", t, (src0, src1, combine),
                    (uid, kind, block, p0, p0 if rng.random() < 0.5 else perm()))

    def hide(self, node: Node, t: str | None = None, always: bool = False) -> Node:
        """``node`` made opaque to LLVM (see VARS) where type ``t`` (by default the node's)
        is one of HIDDEN_TYPES, or ``always``, unless the generator is ``raw``."""
        if self.raw or node.op == "lit" or not (always or (t or node.type) in HIDDEN_TYPES):
            return node
        return Node("opaque", node.type, (node,))

    def tree(self, t: str | None = None, uniform: bool = False) -> Node:
        """A random tree of type ``t`` (random when None)."""
        t = t or self.rng.choice(TYPE_NAMES)
        return self.node(t, self.rng.randint(2, self.max_depth), uniform)

    def leaf(self, t: str, uniform: bool) -> Node:
        """A variable (cast to ``t`` where its type differs) or a literal of type ``t``."""
        rng = self.rng
        if self.scope and rng.random() < 0.4:           # a variable of a cf or lds node
            name, vt = rng.choice(self.scope)
            var = Node("var", vt, (), name)
            return var if vt == t else Node("cast", t, (var,))
        if rng.random() < 0.3:
            return Node("lit", t, (), random_literal(rng, t))
        names = UNIFORM_VARS if uniform else tuple(n for n in VARS if n not in NEVER_LEAF)
        if not uniform and rng.random() < 0.6:        # mostly per-item values
            names = ("A", "B", "C", "gid")
        name = rng.choice(names)
        var = Node("var", VARS[name], (), name)
        return var if VARS[name] == t else Node("cast", t, (var,))

    def node(self, t: str, depth: int, uniform: bool) -> Node:
        """A random tree of type ``t`` at most ``depth`` deep."""
        rng = self.rng
        if depth <= 0 or rng.random() < 0.12:
            return self.leaf(t, uniform)
        sub = depth - 1

        def g(tt=None):
            return self.node(tt or t, sub, uniform)

        def any_type():
            return rng.choice(TYPE_NAMES)

        choices = ["cast", "sat", "arith", "arith", "mixed", "bit", "not", "neg", "div", "rem",
                   "divlit", "shl", "shr", "shr", "cond", "select", "call", "call", "call",
                   "clamp", "mad_hi"]
        if t == "int":
            choices += ["cmp", "cmp", "lnot", "logic"]
        if not is_signed(t):
            choices += ["abs", "abs_diff"]
        if t in ("int", "uint"):
            choices += ["mul24", "mad24"]
        if t in UPSAMPLE_HI:
            choices += ["upsample"]
        if "cf" in self.features and depth >= 2:
            choices += ["if", "switch"] + (["loop", "loop"] if self.loops < 2 else [])
        if "vec" in self.features and depth >= 2:
            choices += ["vec", "vec"]
        kind = rng.choice(choices)
        if kind in CF_OPS:
            return self.cf(kind, t, sub, uniform)
        if kind == "vec":           # its 8-12 operands: one level less deep
            return self.vec(t, max(sub - 1, 0), uniform)
        if kind == "cast":
            return Node("cast", t, (g(any_type()),))
        if kind == "sat":
            return Node("sat", t, (g(any_type()),))
        if kind == "arith":
            x, y = g(), g()
            sym = rng.choice(ARITH_OPS)
            if sym == "*" and bits_of(t) == 64:
                x, y = self.hide(x), self.hide(y)
            return Node("arith", t, (x, y), sym)
        if kind == "mixed":
            # operands of two types, computed in their common type, then converted to t;
            # + - * only where that type is unsigned (signed overflow is undefined)
            t1, t2 = any_type(), any_type()
            common = arithmetic_conversion(t1, t2)
            ops = BIT_OPS + (ARITH_OPS if not is_signed(common) else ())
            x, y = g(t1), g(t2)
            sym = rng.choice(ops)
            if sym in ("*", "|") and bits_of(common) == 64:
                x, y = self.hide(x, common), self.hide(y, common)
            return Node("mixed", t, (x, y), sym)
        if kind == "bit":
            x, y = g(), g()
            sym = rng.choice(BIT_OPS)
            if sym == "|" and bits_of(t) == 64:
                x, y = self.hide(x), self.hide(y)
            return Node("bit", t, (x, y), sym)
        if kind in ("not", "neg"):
            return Node(kind, t, (g(),))
        if kind in ("div", "rem"):
            guards = ("or1", "max1") if bits_of(t) < 32 or not is_signed(t) else DIV_GUARDS
            x, d = self.hide(g(), always=True), self.hide(g(), always=True)
            return Node(kind, t, (x, d), rng.choice(guards))
        if kind == "divlit":                # by a constant: clang's multiply-high sequences
            d = random_literal(rng, t)
            if d == 0 or (is_signed(t) and d == -1 and bits_of(t) >= 32):
                d = rng.choice((3, 7, 10, 255, 1000))
            return Node(rng.choice(("div", "rem")), t,
                        (self.hide(g(), always=True), Node("lit", t, (), d)), None)
        if kind in ("shl", "shr"):
            count = g(any_type())
            if rng.random() < 0.5:          # mostly in range, sometimes past the width
                count = Node("bit", count.type, (count, Node("lit", count.type, (), 63)), "&")
            return Node(kind, t, (g(), count))
        if kind == "cmp":
            s = any_type()
            return Node("cmp", "int", (g(s), g(s)), rng.choice(CMP_OPS))
        if kind == "lnot":
            return Node("lnot", "int", (g(any_type()),))
        if kind == "logic":
            return Node("logic", "int", (g(any_type()), g(any_type())), rng.choice(("&&", "||")))
        if kind == "cond":
            return Node("cond", t, (g(any_type()), g(), g()))
        if kind == "select":
            c = rng.choice((SIGNED_OF[t], UNSIGNED_OF[t]))
            return Node("select", t, (g(), g(), g(c)))
        if kind == "call":
            name = rng.choice(tuple(SAME_TYPE_CALLS))
            if (name, t) in KNOWN_LIBCLC_BUGS:
                name = "mul_hi"
            args = tuple(g() for _ in range(SAME_TYPE_CALLS[name]))
            if name in ("mul_hi", "mad_sat"):
                args = tuple(self.hide(x) for x in args)
            return Node("call", t, args, name)
        if kind == "clamp":
            return Node("clamp", t, (g(), g(), g()))
        if kind == "mad_hi":
            return Node("mad_hi", t, (self.hide(g()), self.hide(g()), g()))
        if kind == "abs":
            return Node("abs", t, (g(rng.choice((t, SIGNED_OF[t]))),))
        if kind == "abs_diff":
            s = rng.choice((t, SIGNED_OF[t]))
            return Node("abs_diff", t, (g(s), g(s)))
        if kind in ("mul24", "mad24"):
            if is_signed(t):                # |x * y| <= 2^30: the product fits in an int
                bits = rng.choice(((24, 7), (7, 24), (16, 15), (15, 16)))
            else:
                bits = rng.choice(((24, 24), (24, 8), (16, 16)))
            args = (g(), g()) + ((g(),) if kind == "mad24" else ())
            return Node(kind, t, args, bits)
        if kind == "upsample":
            hi = UPSAMPLE_HI[t]
            return Node("upsample", t, (g(hi), g(UNSIGNED_OF[hi])))
        raise AssertionError(kind)


@dataclasses.dataclass
class Case:
    """One generated kernel: its seed and trees."""

    seed: int
    trees: list

    def source(self) -> str:
        """The kernel's OpenCL C source."""
        return kernel_source(self.trees)


def make_case(seed: int, n_trees: int = 8, max_depth: int = 4, raw: bool = False,
              features: tuple = (), block: int = 64) -> Case:
    """The case of ``seed``: ``n_trees`` trees, about one in four made of uniform leaves;
    ``raw``: without the "opaque" nodes that keep LLVM's known bugs away (see VARS);
    ``features``: "cf" (control-flow nodes in the trees, and "if" statements at their top),
    "lds" (about a third of the trees an "lds" node, for workgroups of ``block`` items),
    "vec" (vector nodes in the trees and at the top of some)."""
    rng = random.Random(seed)
    gen = Generator(rng, max_depth, raw, features)
    trees = []
    for _ in range(n_trees):
        uniform = rng.random() < 0.25
        r = rng.random() if features else 1.0
        if "lds" in features and r < 0.3:
            trees.append(gen.lds(block))
        elif "cf" in features and r < 0.5:
            t = rng.choice(TYPE_NAMES)
            trees.append(gen.cf("if", t, rng.randint(1, max_depth - 1), uniform, stmt=True))
        elif "vec" in features and r < 0.7:
            t = rng.choice(TYPE_NAMES)
            trees.append(gen.vec(t, rng.randint(1, max_depth - 2), uniform))
        else:
            trees.append(gen.tree(uniform=uniform))
    return Case(seed, trees)


KERNEL_HEAD = """__kernel void f(__global const uint *a, __global const uint *b,
                __global const ulong *c, uint u, ulong v, ulong z{outs})
{{
    const uint gid = (uint)get_global_id(0);
    const uint grp = (uint)get_group_id(0);
    const uint lid = (uint)get_local_id(0);
    const uint A = a[gid];
    const uint B = b[gid];
    const ulong C = c[gid];
"""


def kernel_source(trees: list) -> str:
    """The kernel ``f`` that stores tree k of ``trees`` to ``outk[gid]``."""
    outs = "".join(f",\n                __global {tr.type} *out{k}" for k, tr in enumerate(trees))
    return KERNEL_HEAD.format(outs=outs) + _body(trees, "gid") + "}\n"


def _body(trees: list, index: str, constant: bool = False) -> str:
    """The statements that store tree k of ``trees`` to ``outk[index]``: first those of the
    "lds" trees (barriers are reached by every work-item), then the stores, a "stmt" "if"
    as a store in each branch."""
    pre = "".join(lds_statements(tr, "out" if constant else "") for tr in trees
                  if tr.op == "lds")
    body = []
    for k, tr in enumerate(trees):
        dest = f"out{k}[{index}]"
        if tr.op == "if" and tr.param[1]:
            c, e1, e2 = (render(a) for a in tr.args)
            body.append(f"    if ({c})\n        {dest} = {e1};\n    else\n        {dest} = {e2};\n")
        else:
            body.append(f"    {dest} = {render(tr)};\n")
    return pre + "".join(body)


def constant_kernel_source(trees: list, env: dict) -> str:
    """A kernel ``g`` with the same trees, where every leaf variable is the constant of
    ``env``: clang folds each tree to the constant it stores to ``outk[0]``."""
    outs = ", ".join(f"__global {tr.type} *out{k}" for k, tr in enumerate(trees))
    consts = "".join(f"    const {VARS[name]} {name} = {literal_text(env[name], VARS[name])};\n"
                     for name in VARS)
    consts += f"    const uint lid = {env.get('lid', 0)}U;\n"
    return f"__kernel void g({outs})\n{{\n{consts}{_body(trees, '0', True)}}}\n"


# --- inputs -----------------------------------------------------------------------------
EDGE_32 = (0, 1, 2, 3, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFFFF,
           0x800000, 0xFFFFFF, 0x1000000, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFF80,
           0xFFFF8000, 0xFF800000, 0xFFFFFFFE, 0xFFFFFFFF)


def random_value(rng: random.Random, nbits: int) -> int:
    """A random unsigned ``nbits``-bit input, biased to edge values."""
    mask = (1 << nbits) - 1
    r = rng.random()
    if r < 0.35:
        value = rng.choice(EDGE_32)
        if nbits == 64:
            value = rng.choice((value, (value << 32) | rng.choice(EDGE_32),
                                -(value & 0xFFFF), value << rng.randrange(33)))
    elif r < 0.5:
        value = rng.randint(-64, 64)
    elif r < 0.7:
        value = rng.getrandbits(rng.randint(1, nbits))          # small magnitudes
    else:
        value = rng.getrandbits(nbits)
    return value & mask


@dataclasses.dataclass
class Inputs:
    """One dispatch's inputs: per-item A, B, C and the uniform u, v."""

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    u: int
    v: int

    def env(self, item: int, block: int) -> dict:
        """The leaf values of work-item ``item`` in workgroups of ``block`` items."""
        return {"A": int(self.A[item]), "B": int(self.B[item]), "C": int(self.C[item]),
                "gid": item, "grp": item // block, "u": self.u, "v": self.v, "z": 0}

    def to_json(self) -> dict:
        """The inputs as JSON-able lists."""
        return {"A": [int(x) for x in self.A], "B": [int(x) for x in self.B],
                "C": [int(x) for x in self.C], "u": self.u, "v": self.v}


def random_inputs(rng: random.Random, items: int) -> Inputs:
    """Random inputs for ``items`` work-items."""
    return Inputs(np.array([random_value(rng, 32) for _ in range(items)], np.uint32),
                  np.array([random_value(rng, 32) for _ in range(items)], np.uint32),
                  np.array([random_value(rng, 64) for _ in range(items)], np.uint64),
                  random_value(rng, 32), random_value(rng, 64))


# --- running on gcnemu ------------------------------------------------------------------
@dataclasses.dataclass
class Mismatch:
    """An output element where gcnemu and the model differ."""

    tree: int
    item: int
    expected: int
    got: int


class Runner:
    """Compiles and dispatches generated kernels on one gcnemu GPU."""

    def __init__(self, items: int = 256, block: int = 64, workdir: str | None = None):
        import gcnemu
        self.gcnemu = gcnemu
        self.gpu = gcnemu.GPU()
        self.items, self.block = items, block
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="cl_int_fuzz_"))
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.inputs_bufs = (self.gpu.empty(items, np.uint32, "a"),
                            self.gpu.empty(items, np.uint32, "b"),
                            self.gpu.empty(items, np.uint64, "c"))
        self.out_bufs: list = []
        self._kernels: dict = {}
        self.compile_s = self.dispatch_s = 0.0

    def load(self, source: str):
        """The kernel ``f`` of ``source``, compiled through gcnemu.load of a .cl file (the last
        few are kept: each load also translates the code for gcnemu, ~0.4 s)."""
        if source in self._kernels:
            return self._kernels[source]
        path = self.workdir / "case.cl"
        path.write_text(source)
        t0 = time.perf_counter()
        kernel = self.gcnemu.load(str(path)).kernel("f")
        self.compile_s += time.perf_counter() - t0
        if len(self._kernels) >= 4:
            self._kernels.pop(next(iter(self._kernels)))
        self._kernels[source] = kernel
        return kernel

    def outputs(self, trees: list, inputs: Inputs) -> list:
        """gcnemu's output arrays of the kernel of ``trees`` for ``inputs``."""
        kernel = self.load(kernel_source(trees))
        while len(self.out_bufs) < len(trees):
            self.out_bufs.append(self.gpu.empty(self.items * 8, np.uint8,
                                                f"out{len(self.out_bufs)}"))
        for buf, arr in zip(self.inputs_bufs, (inputs.A, inputs.B, inputs.C)):
            buf.write(arr)
        outs = self.out_bufs[:len(trees)]
        for buf in outs:        # a poison pattern: an element never stored shows
            buf.write(np.full(self.items * 8, 0xA5, np.uint8))
        t0 = time.perf_counter()
        self.gpu.dispatch(kernel, grid=(self.items,), block=(self.block,),
                          args=[*self.inputs_bufs, np.uint32(inputs.u), np.uint64(inputs.v),
                                np.uint64(0), *outs])
        self.dispatch_s += time.perf_counter() - t0
        return [buf.to_numpy(NUMPY_DTYPE[tr.type], self.items) for tr, buf in zip(trees, outs)]

    def mismatches(self, trees: list, inputs: Inputs, first_only: bool = False) -> list:
        """Every (or the first) element where gcnemu and :func:`evaluate` differ."""
        found = []
        got = self.outputs(trees, inputs)
        model = expected_outputs(trees, [inputs.env(i, self.block) for i in range(self.items)],
                                 self.block)
        for item in range(self.items):
            for k in range(len(trees)):
                expected, g = model[k][item], int(got[k][item])
                if expected != g:
                    found.append(Mismatch(k, item, expected, g))
                    if first_only:
                        return found
        return found


def _replace(tree: Node, path: tuple, new: Node) -> Node:
    if not path:
        return new
    args = list(tree.args)
    args[path[0]] = _replace(args[path[0]], path[1:], new)
    return dataclasses.replace(tree, args=tuple(args))


def _subtrees(tree: Node, path: tuple = ()):
    yield path, tree
    for i, a in enumerate(tree.args):
        yield from _subtrees(a, path + (i,))


class Budget:
    """A count of the compiles a minimisation may still spend."""

    def __init__(self, tries: int):
        self.left = tries

    def take(self) -> bool:
        """Whether one more try is allowed (and count it)."""
        self.left -= 1
        return self.left >= 0


def minimise(tree: Node, still_fails, env: dict, budget: Budget) -> Node:
    """A smaller tree for which ``still_fails(tree)`` holds: subtrees replaced, greedily, by
    one of their operands (cast to the subtree's type) or by a literal of their value in
    ``env`` (the failing work-item's leaves), while it still fails. "opaque" nodes stay: without
    them the tree may fail for one of LLVM's bugs instead (see VARS)."""
    improved = True
    while improved and budget.left > 0:
        improved = False
        for path, sub in sorted(_subtrees(tree), key=lambda ps: -ps[1].size()):
            if sub.op in ("var", "lit", "opaque"):
                continue
            try:
                candidates = [Node("lit", sub.type, (), evaluate(sub, env))]
            except KeyError:        # a loop's or lds node's variable: no literal to try
                candidates = []
            for arg in sub.args:
                candidates.append(arg if arg.type == sub.type else Node("cast", sub.type, (arg,)))
            for cand in sorted(candidates, key=Node.size):
                if cand.size() >= sub.size() or not budget.take():
                    continue
                smaller = _replace(tree, path, cand)
                if still_fails(smaller):
                    tree, improved = smaller, True
                    break
            if improved:
                break
    return tree


def uniform_inputs(inputs: Inputs, item: int) -> Inputs:
    """``inputs`` with every work-item given item ``item``'s A, B and C."""
    n = len(inputs.A)
    return Inputs(np.full(n, inputs.A[item], np.uint32), np.full(n, inputs.B[item], np.uint32),
                  np.full(n, inputs.C[item], np.uint64), inputs.u, inputs.v)


def reproduce(runner: Runner, case: Case, mismatch: Mismatch, inputs: Inputs,
              tries: int = 250) -> dict:
    """A minimised reproducer of ``mismatch``: the fewest trees (the failing one alone where
    it fails alone), the failing item's inputs given to every work-item where it still fails
    so, each tree minimised; the .cl source, inputs, expected and got."""
    budget = Budget(tries)
    item = mismatch.item

    def failures(trees, target, inp):
        try:
            return [m for m in runner.mismatches(trees, inp) if m.tree == target]
        except Exception:               # a candidate clang rejects: not a reproducer
            return []

    trees, target, inp = list(case.trees), mismatch.tree, inputs
    # the smallest set-up that still fails: one tree before all of them, same inputs first
    for cand_trees, cand_target in (([trees[target]], 0), (trees, target)):
        found = next((i for i in (uniform_inputs(inputs, item), inputs)
                      if failures(cand_trees, cand_target, i)), None)
        if found is not None:
            trees, target, inp = cand_trees, cand_target, found
            break
    else:                               # does not fail again: report it as it came
        return {"seed": case.seed, "tree": mismatch.tree, "minimised": False,
                "source": case.source(), "env": inputs.env(item, runner.block),
                "inputs": inputs.to_json(), "expected": mismatch.expected, "got": mismatch.got}
    k = 0
    while len(trees) > 1 and k < len(trees) and budget.take():      # drop the other trees
        if k != target:
            fewer = trees[:k] + trees[k + 1:]
            if failures(fewer, target - (k < target), inp):
                trees, target = fewer, target - (k < target)
                continue
        k += 1
    first = failures(trees, target, inp)
    env = inp.env(first[0].item if first else item, runner.block)
    for j in [target] + [j for j in range(len(trees)) if j != target]:
        def fails(tr, j=j):
            return bool(failures(trees[:j] + [tr] + trees[j + 1:], target, inp))
        trees[j] = minimise(trees[j], fails, env, budget)
    found = failures(trees, target, inp)
    m = found[0] if found else mismatch
    same = all(inp.A[0] == x for x in inp.A) and all(inp.B[0] == x for x in inp.B) and \
        all(inp.C[0] == x for x in inp.C)
    rep = {"seed": case.seed, "tree": mismatch.tree, "minimised": True,
           "expression": render(trees[target]), "type": trees[target].type,
           "source": kernel_source(trees), "output": f"out{target}",
           "trees": len(trees), "item": m.item, "env": inp.env(m.item, runner.block),
           "same_inputs_for_every_item": bool(same), "expected": m.expected, "got": m.got,
           "failing_items": len(found), "original_expression": render(case.trees[mismatch.tree])}
    if not same:
        rep["inputs"] = inp.to_json()
    return rep


# --- clang's constant folding, an independent route to the expected values ---------------
_STORE = re.compile(r"store (i\d+) ([^,]+), i\d+ addrspace\(1\)\* %(\d+)")


def clang_fold(trees: list, env: dict) -> list:
    """The values clang-14 -O2 (with libclc-14) folds each of ``trees`` to, the leaves being
    the constants of ``env``: read from the stores of the LLVM IR (after opt-14 -O2 where
    clang left some unfolded and opt-14 is there). An entry is None where the
    stored value is not a constant; 'poison'/'undef' where LLVM found undefined behaviour."""
    from gcnemu.loader import opencl
    clang, _ = opencl.toolchain()
    with tempfile.TemporaryDirectory() as td:
        src = Path(td) / "fold.cl"
        src.write_text(constant_kernel_source(trees, env))
        r = subprocess.run([clang, *opencl.CL_FLAGS, "-S", "-emit-llvm", str(src), "-o", "-"],
                           capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"clang-14 failed:\n{r.stderr}")
    ir = r.stdout
    opt = shutil.which("opt-14")
    if opt and re.search(r"store i\d+ %", ir):
        # libclc's calls are marked nobuiltin ("no-builtins"), which stops LLVM folding the
        # intrinsics they became (llvm.ctpop, ...): drop the marks, run -O2 again
        ir = re.sub(r' nobuiltin| "no-builtins"', "", ir)
        r = subprocess.run([opt, "-O2", "-S"], input=ir, capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(f"opt-14 failed:\n{r.stderr}")
        ir = r.stdout
    values: list = [None] * len(trees)
    for ty, val, arg in _STORE.findall(ir):
        k = int(arg)
        val = val.strip()
        if re.fullmatch(r"-?\d+", val):
            values[k] = wrap(int(val), trees[k].type)
        elif val in ("poison", "undef"):
            values[k] = val
    return values


def fold_check(seed: int, n_trees: int = 8, envs: int = 2, features: tuple = ()) -> list:
    """Disagreements of :func:`evaluate` with :func:`clang_fold` on the case of ``seed`` (with
    ``features``) for ``envs`` random leaf values: (tree source, env, model, clang) tuples; a
    tree that clang did not fold to a constant is a disagreement too (None). "lds" trees are
    folded as if every work-item had the same leaves (see :func:`lds_statements`)."""
    case = make_case(seed, n_trees, features=features)
    rng = random.Random(seed ^ 0x5EED)
    bad = []
    for _ in range(envs):
        env = {name: random_value(rng, bits_of(VARS[name])) for name in VARS}
        env["gid"] &= 0xFFFF
        env["grp"] &= 0xFFFF
        env["z"] = 0
        folded = clang_fold(case.trees, env)
        for tr, got in zip(case.trees, folded):
            expected = evaluate(tr, env)
            if got is None and _has_vload(tr):
                continue        # LLVM does not forward the stores to an overlapping vload
            if got != expected:
                bad.append((render(tr), env, expected, got))
    return bad


def _has_vload(tree: Node) -> bool:
    return (tree.op == "vec" and tree.param[2] == "vload") or any(map(_has_vload, tree.args))


# --- the command line -------------------------------------------------------------------
def campaign(cases: int, seed: int, n_trees: int, items: int, out: Path, rounds: int,
             minimise_found: bool = True, raw: bool = False, max_depth: int = 4,
             block: int = 64, log=print, features: tuple = ()) -> int:
    """Run ``cases`` cases from ``seed`` on, ``rounds`` input sets each; the number of
    mismatching trees found (each written to ``out``)."""
    runner = Runner(items=items, block=block)
    found = 0
    t0 = time.perf_counter()
    for i in range(cases):
        case = make_case(seed + i, n_trees, max_depth, raw, features, block)
        rng = random.Random((seed + i) * 7919 + 1)
        for _ in range(rounds):
            inputs = random_inputs(rng, items)
            try:
                ms = runner.mismatches(case.trees, inputs)
            except Exception as e:      # clang rejecting the source (the generator's fault) or
                                        # gcnemu failing the dispatch: a finding either way
                found += 1
                out.mkdir(parents=True, exist_ok=True)
                (out / f"error-{case.seed}.txt").write_text(f"{type(e).__name__}: {e}\n\n"
                                                            + case.source())
                log(f"seed {case.seed}: {type(e).__name__}: {str(e)[:400]}")
                break
            if not ms:
                continue
            trees_hit = sorted({m.tree for m in ms})
            found += len(trees_hit)
            out.mkdir(parents=True, exist_ok=True)
            for k in trees_hit:
                first = next(m for m in ms if m.tree == k)
                log(f"seed {case.seed} tree {k}: {sum(m.tree == k for m in ms)} items differ, "
                    f"first item {first.item}: expected {first.expected} got {first.got}\n"
                    f"    {render(case.trees[k])}")
                rep = (reproduce(runner, case, first, inputs) if minimise_found else
                       {"seed": case.seed, "tree": k, "source": case.source(),
                        "env": inputs.env(first.item, runner.block),
                        "expected": first.expected, "got": first.got})
                if rep.get("minimised"):
                    log(f"    minimised: {rep['expression']}\n    env {rep['env']}: "
                        f"expected {rep['expected']} got {rep['got']}")
                name = f"mismatch-{case.seed}-{k}"
                (out / f"{name}.json").write_text(json.dumps(rep, indent=1))
                (out / f"{name}.cl").write_text(rep["source"])
            break
    dt = time.perf_counter() - t0
    log(f"features {','.join(features) or 'none'}, block {block}: "
        f"{cases} cases ({cases * n_trees} expressions, {cases * rounds} dispatches of {items} "
        f"items) in {dt:.1f} s: {cases / dt:.2f} cases/s (compile+load {runner.compile_s:.1f} s, "
        f"dispatch {runner.dispatch_s:.1f} s); {found} mismatching trees")
    return found


def main(argv=None) -> int:
    """The command line; see the module docstring."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cases", type=int, default=50)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--trees", type=int, default=8, help="expressions per kernel")
    p.add_argument("--depth", type=int, default=4, help="greatest depth of an expression")
    p.add_argument("--items", type=int, default=256, help="work-items per dispatch")
    p.add_argument("--block", type=int, default=64, help="work-items per workgroup")
    p.add_argument("--rounds", type=int, default=4, help="dispatches (input sets) per case")
    p.add_argument("--out", type=Path, default=Path("cl-int-fuzz-findings"))
    p.add_argument("--no-minimise", action="store_true")
    p.add_argument("--raw", action="store_true",
                   help="without the opaque operands that keep LLVM 14's known bugs away")
    p.add_argument("--features", default=",".join(FEATURES),
                   help=f"comma-separated, of {', '.join(FEATURES)} (or none)")
    p.add_argument("--fold-check", type=int, metavar="N", default=0,
                   help="instead: compare the model with clang's constant folding on N cases")
    args = p.parse_args(argv)
    features = tuple(f for f in args.features.split(",") if f and f != "none")
    if set(features) - set(FEATURES):
        p.error(f"unknown features {set(features) - set(FEATURES)}")
    if args.fold_check:
        t0 = time.perf_counter()
        bad = []
        for s in range(args.seed, args.seed + args.fold_check):
            for expr, env, expected, got in fold_check(s, args.trees, features=features):
                bad.append(expr)
                print(f"seed {s}: model {expected} clang {got} env {env}\n    {expr}")
        print(f"{args.fold_check} cases ({args.fold_check * args.trees} expressions x 2 input "
              f"sets) in {time.perf_counter() - t0:.1f} s: {len(bad)} disagreements")
        return 1 if bad else 0
    found = campaign(args.cases, args.seed, args.trees, args.items, args.out, args.rounds,
                     not args.no_minimise, args.raw, args.depth, args.block,
                     features=features)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
