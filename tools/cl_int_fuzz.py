"""Differential fuzzing of OpenCL C integer expressions: gcnemu against an exact Python model.

    python tools/cl_int_fuzz.py --cases 200 --seed 1 [--trees 8 --depth 4 --out DIR]
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
``--fold-check N`` compares the model with it on N generated kernels; tests/test_cl_int_fuzz.py
does both with a fixed budget.
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
    raise ValueError(f"unknown node op {op!r}")


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

    def __init__(self, rng: random.Random, max_depth: int = 4, raw: bool = False):
        self.rng = rng
        self.max_depth = max_depth
        self.raw = raw

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
        kind = rng.choice(choices)
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


def make_case(seed: int, n_trees: int = 8, max_depth: int = 4, raw: bool = False) -> Case:
    """The case of ``seed``: ``n_trees`` trees, about one in four made of uniform leaves;
    ``raw``: without the "opaque" nodes that keep LLVM's known bugs away (see VARS)."""
    rng = random.Random(seed)
    gen = Generator(rng, max_depth, raw)
    return Case(seed, [gen.tree(uniform=rng.random() < 0.25) for _ in range(n_trees)])


KERNEL_HEAD = """__kernel void f(__global const uint *a, __global const uint *b,
                __global const ulong *c, uint u, ulong v, ulong z{outs})
{{
    const uint gid = (uint)get_global_id(0);
    const uint grp = (uint)get_group_id(0);
    const uint A = a[gid];
    const uint B = b[gid];
    const ulong C = c[gid];
"""


def kernel_source(trees: list) -> str:
    """The kernel ``f`` that stores tree k of ``trees`` to ``outk[gid]``."""
    outs = "".join(f",\n                __global {tr.type} *out{k}" for k, tr in enumerate(trees))
    body = "".join(f"    out{k}[gid] = {render(tr)};\n" for k, tr in enumerate(trees))
    return KERNEL_HEAD.format(outs=outs) + body + "}\n"


def constant_kernel_source(trees: list, env: dict) -> str:
    """A kernel ``g`` with the same trees, where every leaf variable is the constant of
    ``env``: clang folds each tree to the constant it stores to ``outk[0]``."""
    outs = ", ".join(f"__global {tr.type} *out{k}" for k, tr in enumerate(trees))
    consts = "".join(f"    const {VARS[name]} {name} = {literal_text(env[name], VARS[name])};\n"
                     for name in VARS)
    body = "".join(f"    out{k}[0] = {render(tr)};\n" for k, tr in enumerate(trees))
    return f"__kernel void g({outs})\n{{\n{consts}{body}}}\n"


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
        for item in range(self.items):
            env = inputs.env(item, self.block)
            for k, tr in enumerate(trees):
                expected, g = evaluate(tr, env), int(got[k][item])
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
            candidates = [Node("lit", sub.type, (), evaluate(sub, env))]
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


def fold_check(seed: int, n_trees: int = 8, envs: int = 2) -> list:
    """Disagreements of :func:`evaluate` with :func:`clang_fold` on the case of ``seed`` for
    ``envs`` random leaf values: (tree source, env, model, clang) tuples; a tree that clang
    did not fold to a constant is a disagreement too (None)."""
    case = make_case(seed, n_trees)
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
            if got != expected:
                bad.append((render(tr), env, expected, got))
    return bad


# --- the command line -------------------------------------------------------------------
def campaign(cases: int, seed: int, n_trees: int, items: int, out: Path, rounds: int,
             minimise_found: bool = True, raw: bool = False, max_depth: int = 4,
             block: int = 64, log=print) -> int:
    """Run ``cases`` cases from ``seed`` on, ``rounds`` input sets each; the number of
    mismatching trees found (each written to ``out``)."""
    runner = Runner(items=items, block=block)
    found = 0
    t0 = time.perf_counter()
    for i in range(cases):
        case = make_case(seed + i, n_trees, max_depth, raw)
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
    log(f"{cases} cases ({cases * n_trees} expressions, {cases * rounds} dispatches of {items} "
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
    p.add_argument("--fold-check", type=int, metavar="N", default=0,
                   help="instead: compare the model with clang's constant folding on N cases")
    args = p.parse_args(argv)
    if args.fold_check:
        t0 = time.perf_counter()
        bad = []
        for s in range(args.seed, args.seed + args.fold_check):
            for expr, env, expected, got in fold_check(s, args.trees):
                bad.append(expr)
                print(f"seed {s}: model {expected} clang {got} env {env}\n    {expr}")
        print(f"{args.fold_check} cases ({args.fold_check * args.trees} expressions x 2 input "
              f"sets) in {time.perf_counter() - t0:.1f} s: {len(bad)} disagreements")
        return 1 if bad else 0
    found = campaign(args.cases, args.seed, args.trees, args.items, args.out, args.rounds,
                     not args.no_minimise, args.raw, args.depth, args.block)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
