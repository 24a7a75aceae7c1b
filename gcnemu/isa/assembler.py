"""Assembler for LLVM's gfx7 (GCN 1.1) assembly syntax, driven by the instruction table.

Each source line is ``[label:] [mnemonic operands] [comment]``; comments start with ``//``,
``;`` or ``#``. The operand kinds of a table row (``InstrDef.operands``, LLVM's names such as
``vdst32_0``, ``src32_3``, ``ssrc64_0``, ``simm16``, ``hwreg``) say what each operand accepts
(operand_kinds.tsv, generated from LLVM's gfx7 operand docs); one encoder per encoding family
packs the fields. VOP instructions without an ``_e32``/``_e64`` suffix take the 32-bit
encoding when their operands fit it and VOP3 otherwise, as llvm-mc does.

Public API: :func:`assemble`, :func:`assemble_with_labels` (machine code), and
:func:`assemble_object` (sections, symbols, relocations, kernel descriptor blocks and metadata,
which gcnemu.loader.asmlink links into a code object).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from ..errors import AssemblerError
from . import table
from .encoding import LAYOUTS, LITERAL, VOP3B_FIELDS, insert
from .operands import NAMED_REGS, CODE_CLASS, float_bits32, float_bits64_hi, inline_code

__all__ = ["assemble", "assemble_with_labels", "assemble_object", "AsmObject", "AsmSymbol",
           "AsmReloc", "AsmKernel"]

# ---------------------------------------------------------------------------------------------
_FLAG_MODS = frozenset({"glc", "slc", "tfe", "lds", "gds", "offen", "idxen", "addr64", "unorm",
                        "da", "r128", "lwe", "clamp", "done", "compr", "vm"})
_VALUE_MODS = frozenset({"offset", "offset0", "offset1", "dmask", "mul", "div", "dfmt", "nfmt",
                         "src0", "src1", "src2"})

#: Modifiers each family accepts (a modifier outside this set is an error).
_FAMILY_MODS = {
    # srcN:CODE sets the field of a source operand the instruction does not use (AMD's
    # compiler writes src2 = 0x80 in two-operand VOP3-only instructions; CLRX: vsrc2=0x80)
    "VOP3": {"clamp", "mul", "div", "src0", "src1", "src2"},
    "DS": {"offset", "offset0", "offset1", "gds"},
    "MUBUF": {"offset", "offen", "idxen", "addr64", "glc", "slc", "lds", "tfe"},
    "MTBUF": {"offset", "offen", "idxen", "addr64", "glc", "slc", "tfe", "dfmt", "nfmt"},
    "MIMG": {"dmask", "unorm", "glc", "slc", "r128", "tfe", "lwe", "da"},
    "FLAT": {"glc", "slc", "tfe", "offset"},
    "SMRD": {"glc"},  # llvm-mc 14 accepts and ignores glc on CI scalar loads (no such bit)
    "EXP": {"done", "compr", "vm"},
}

_TOKEN_RE = re.compile(r"(?:[^\s,(\[]|[(\[][^)\]]*[)\]]?)+")
_REG_RE = re.compile(r"(s|v|ttmp)(?:(\d+)|\[\s*(\d+)\s*(?::\s*(\d+)\s*)?\])$")
_INT_RE = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)$")
_FLOAT_RE = re.compile(r"-?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\.\d+(?:[eE][-+]?\d+)?)$")
_SYM_RE = re.compile(r"[A-Za-z_.$][\w.$]*$")
_LABEL_EXPR_RE = re.compile(r"([A-Za-z_.$][\w.$]*)([-+].+)?$")  # label, label+4, label-8
_LABEL_RE = re.compile(r"\s*([A-Za-z_.$][\w.$]*)\s*:(?!\S)")

_HWREG_NAMES = {"HW_REG_MODE": 1, "HW_REG_STATUS": 2, "HW_REG_TRAPSTS": 3, "HW_REG_HW_ID": 4,
                "HW_REG_GPR_ALLOC": 5, "HW_REG_LDS_ALLOC": 6, "HW_REG_IB_STS": 7}
_MSG_NAMES = {"MSG_INTERRUPT": 1, "MSG_GS": 2, "MSG_GS_DONE": 3, "MSG_SYSMSG": 15}
_GS_OPS = {"GS_OP_NOP": 0, "GS_OP_CUT": 1, "GS_OP_EMIT": 2, "GS_OP_EMIT_CUT": 3}
_SYS_OPS = {"SYSMSG_OP_ECC_ERR_INTERRUPT": 1, "SYSMSG_OP_REG_RD": 2, "SYSMSG_OP_HOST_TRAP_ACK": 3,
            "SYSMSG_OP_TTRACE_PC": 4}
_EXP_TARGETS = {"mrtz": 8, "null": 9}
for _i in range(8):
    _EXP_TARGETS[f"mrt{_i}"] = _i
for _i in range(4):
    _EXP_TARGETS[f"pos{_i}"] = 12 + _i
for _i in range(32):
    _EXP_TARGETS[f"param{_i}"] = 32 + _i

_KINDS = table.operand_kinds()


class _NoFit(Exception):
    """The operands do not fit this encoding (another encoding of the mnemonic may fit)."""

    def __init__(self, message: str, col: int | None = None):
        super().__init__(message)
        self.col = col


class _Tok:
    """One operand token: its text and 1-based column."""

    __slots__ = ("text", "col")

    def __init__(self, text: str, col: int):
        self.text = text
        self.col = col


# ---------------------------------------------------------------------------------------------
# Operand values

_reg_cache: dict = {}


def _parse_reg(text: str):
    """(code, dwords) of a register operand, None if `text` is not a register name."""
    r = _reg_cache.get(text)
    if r is not None:
        return r
    low = text.lower()
    if low in NAMED_REGS:
        r = NAMED_REGS[low]
    elif low.startswith("[") and low.endswith("]"):
        r = _parse_reg_list(text)
    else:
        m = _REG_RE.match(low)
        if not m and low.startswith(("s[", "v[", "ttmp[")) and low.endswith("]"):
            # expressions as indices: v[2*2-2:(3+7)/3]
            kind, _, inner = low[:-1].partition("[")
            lo_s, colon, hi_s = inner.partition(":")
            lo_v, hi_v = _eval_expr(lo_s), (_eval_expr(hi_s) if hi_s else None)
            if isinstance(lo_v, int) and lo_v >= 0 and (not colon or isinstance(hi_v, int)):
                m = _REG_RE.match(f"{kind}[{lo_v}" + (f":{hi_v}]" if hi_s else "]"))
        if not m:
            if low.startswith(("s[", "v[", "ttmp[")):
                raise _NoFit(f"malformed register range '{text}'")
            return None
        kind, single, lo, hi = m.groups()
        if single is not None:
            lo = hi = int(single)            # v010 is v10: a register name, not a number
        else:
            lo = _index(lo, text)            # v[010] is v8: an index is a number
            hi = lo if hi is None else _index(hi, text)
        n = hi - lo + 1
        if n < 1:
            raise _NoFit(f"register range '{text}' is empty (first register after last)")
        if kind == "v":
            if hi > 255:
                raise _NoFit(f"VGPR '{text}' out of range (v0..v255)")
            r = (256 + lo, n)
        else:
            limit = 103 if kind == "s" else 11
            if hi > limit:
                raise _NoFit(f"register '{text}' out of range ({kind}0..{kind}{limit})")
            if n > 1:
                align = 2 if n == 2 else 4
                if lo % align:
                    raise _NoFit(f"register range '{text}' must start at a multiple of {align}")
            r = ((lo if kind == "s" else 112 + lo), n)
    _reg_cache[text] = r
    return r


def _index(digits: str, text: str) -> int:
    v = _parse_number(digits)
    if not isinstance(v, int):
        raise _NoFit(f"malformed register range '{text}'")
    return v


def _parse_reg_list(text: str):
    """LLVM's register list syntax: [s6,s7] / [ttmp5] / [v1,v2,v3] = consecutive registers."""
    parts = [p.strip() for p in text[1:-1].split(",")]
    regs = []
    for p in parts:
        r = _parse_reg(p) if p else None
        if r is None or r[1] != 1:
            raise _NoFit(f"register list '{text}' must list single registers")
        regs.append(r[0])
    if any(b != a + 1 for a, b in zip(regs, regs[1:])):
        raise _NoFit(f"registers in '{text}' must be consecutive")
    n = len(regs)
    first = regs[0]
    if n > 1 and first < 256:
        align = 2 if n == 2 else 4
        base = first - 112 if 112 <= first <= 123 else first
        if base % align:
            raise _NoFit(f"register list '{text}' must start at a multiple of {align}")
        if first not in (104, 106, 108, 110, 126) and not (first <= 103 or 112 <= first <= 123):
            raise _NoFit(f"'{text}' is not a register range")
    return (first, n)


def _reg_of(tok: "_Tok"):
    """_parse_reg of a token, locating its errors at the token; FLAT_SCRATCH (codes 104, 105)
    is not a register of GCN 1.0."""
    try:
        reg = _parse_reg(tok.text)
    except _NoFit as e:
        e.col = tok.col
        raise
    if reg is not None and _gen[0] == table.GFX6 and reg[0] < 106 and reg[0] + reg[1] > 104:
        raise _NoFit(f"'{tok.text}': flat_scratch is GCN 1.1 only (GCN 1.0 has no register "
                     f"at codes 104, 105)", tok.col)
    return reg


#: Absolute symbols of the source being assembled (``name = expr``, ``.set name, expr``).
_symbols: dict = {}
_EXPR_CHARS = re.compile(r"[-+*/%^~()<>&|]")
_EXPR_OK = re.compile(r"[\w\s+\-*/%^~()<>&|.$]+$")


def _parse_number(text: str):
    """int or float value of a numeric token (or an integer expression over numbers and
    absolute symbols), None if it is not a number."""
    if _INT_RE.match(text):
        body = text.lstrip("-")
        if body[:2].lower() in ("0x", "0b"):
            v = int(text, 0)
        elif len(body) > 1 and body[0] == "0":   # C's octal, as llvm-mc reads 010 (= 8)
            if not body.isdigit() or "8" in body or "9" in body:
                return None
            v = int(text, 8)
        else:
            v = int(text, 10)
        if (1 << 63) <= v < (1 << 64):
            v -= 1 << 64  # a 64-bit two's complement value (llvm-mc reads 0xffffffffffffffff as -1)
        return v
    if _FLOAT_RE.match(text):
        return float(text)
    if text in _symbols:
        return _symbols[text]
    if _symbols or _EXPR_CHARS.search(text):
        return _eval_expr(text)
    return None


def _eval_expr(text: str):
    """Evaluate an integer expression (+ - * / % << >> & | ^ ~, parentheses, absolute
    symbols); None if `text` is not one."""
    import ast

    if not _EXPR_OK.match(text) or "|" in text and text.startswith(("|", "-|")):
        return None
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError):
        return None

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool):
            return n.value
        if isinstance(n, ast.Name):
            if n.id not in _symbols:
                raise KeyError(n.id)
            return _symbols[n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd, ast.Invert)):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else (~v if isinstance(n.op, ast.Invert) else v)
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            op = type(n.op)
            if op in (ast.Div, ast.FloorDiv, ast.Mod) and b == 0:
                raise ZeroDivisionError
            if op in (ast.LShift, ast.RShift) and not 0 <= b < 64:
                raise ValueError
            return {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                    ast.Div: lambda: int(a / b) if abs(a) < 2**52 else a // b,
                    ast.FloorDiv: lambda: a // b, ast.Mod: lambda: a % b,
                    ast.LShift: lambda: a << b, ast.RShift: lambda: a >> b,
                    ast.BitAnd: lambda: a & b, ast.BitOr: lambda: a | b,
                    ast.BitXor: lambda: a ^ b}[op]()
        raise ValueError

    try:
        v = ev(tree)
    except (KeyError, ValueError, ZeroDivisionError, TypeError, RecursionError):
        return None
    return v if -(1 << 64) < v < (1 << 64) else None


def _int_value(tok: _Tok, what: str, lo: int, hi: int) -> int:
    v = _parse_number(tok.text)
    if not isinstance(v, int):
        raise _NoFit(f"expected {what} (an integer), got '{tok.text}'", tok.col)
    if not lo <= v <= hi:
        raise _NoFit(f"{what} {v} out of range ({lo}..{hi})", tok.col)
    return v


def _is_fp_operand(name: str, role: str) -> bool:
    """Whether a source operand of `name` is a float (decides how a float literal is encoded)."""
    if name.startswith("s_"):
        return False
    if name.startswith("v_cvt_"):
        parts = name.split("_")
        return parts[-1] in ("f32", "f64", "f16")
    return "_f32" in name or "_f64" in name


class _Src:
    """An encoded source: 9-bit code, optional 32-bit literal, and what it reads over the
    constant bus (None, an SGPR code, "vcc" for the 64-bit VCC, or "lit")."""

    __slots__ = ("code", "literal", "bus")

    def __init__(self, code, literal=None, dwords=1):
        self.code = code
        self.literal = literal
        if code == LITERAL:
            self.bus = "lit"
        elif code == 106 and dwords == 2:
            self.bus = "vcc"
        elif code < 128 or 251 <= code <= 253:
            self.bus = code
        else:
            self.bus = None


def _src(tok: _Tok, kind: str, name: str, role: str) -> _Src:
    """Encode a register / constant / literal operand of an operand kind."""
    size, classes = _KINDS.get(kind, (None, frozenset()))
    text = tok.text
    reg = _reg_of(tok)
    if reg is not None:
        code, n = reg
        cls = "v" if code >= 256 else CODE_CLASS.get(code, "?")
        if cls == "exec" and kind == "sdst64_0" and "SMRD" not in table.by_name(_gen[0]).get(name, {}):
            # LLVM's gfx7 doc lists no exec for this kind, but llvm-mc (the encoding oracle)
            # accepts it for SALU and VOP3 destinations (s_and_saveexec_b64 exec, ...,
            # v_cmp_*_e64 exec, ...); only SMRD destinations reject it
            classes = classes | {"exec"}
        if cls not in classes and not (cls == "trap" and code >= 112 and "ttmp" in classes):
            raise _NoFit(f"'{text}' is not allowed as {role} here (expected {_describe(classes)})",
                         tok.col)
        if size is not None and n != size and not (code >= 251 and code < 256):
            raise _NoFit(f"'{text}' has {n} dword(s), {role} needs {size}", tok.col)
        return _Src(code, None, n)
    val = _parse_number(text)
    if val is None:
        raise _NoFit(f"expected {_describe(classes)} for {role}, got '{text}'", tok.col)
    if not ({"constant", "iconst", "literal"} & classes):
        raise _NoFit(f"a constant is not allowed as {role} here (expected {_describe(classes)})",
                     tok.col)
    dwords = size or 1
    if "constant" in classes or "iconst" in classes:
        c = inline_code(val, dwords)
        if c is not None:
            return _Src(c)
    if "literal" not in classes:
        raise _NoFit(f"'{text}' is not an inline constant and {role} cannot take a literal here",
                     tok.col)
    fp = _is_fp_operand(name, role)
    if isinstance(val, float):
        if dwords == 1 and val != 0.0 and not _representable_f32(val):
            raise _NoFit(f"float literal {text} is out of the 32-bit float range", tok.col)
        if dwords == 2:
            if not fp:
                raise _NoFit(f"a float literal is not allowed for a 64-bit integer {role}", tok.col)
            lit = float_bits64_hi(val)
        else:
            lit = float_bits32(val)
    else:
        if not -(1 << 31) <= val < (1 << 32):
            raise _NoFit(f"literal {text} does not fit in 32 bits", tok.col)
        lit = val & 0xFFFFFFFF
    return _Src(LITERAL, lit)


def _representable_f32(x: float) -> bool:
    import math
    import struct
    try:
        y = struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return False
    return y != 0.0 and not math.isinf(y)


def _describe(classes) -> str:
    order = ["v", "s", "flat_scratch", "vcc", "trap", "m0", "exec", "vccz", "execz", "scc",
             "lds_direct", "constant", "iconst", "literal", "off"]
    names = {"v": "VGPR", "s": "SGPR", "trap": "ttmp/tba/tma", "constant": "inline constant",
             "iconst": "inline constant", "literal": "literal"}
    seen = []
    for c in order:
        if c in classes and names.get(c, c) not in seen:
            seen.append(names.get(c, c))
    return ", ".join(seen) or "nothing"


def _vgpr(tok: _Tok, kind: str, role: str, count: int | None = None) -> int:
    """Index of the first VGPR of a vector operand (checking its size where it is fixed)."""
    reg = _reg_of(tok)
    if reg is None or reg[0] < 256:
        raise _NoFit(f"expected a VGPR for {role}, got '{tok.text}'", tok.col)
    size = count if count is not None else _KINDS.get(kind, (None,))[0]
    if size is not None and reg[1] != size:
        raise _NoFit(f"'{tok.text}' has {reg[1]} dword(s), {role} needs {size}", tok.col)
    return reg[0] - 256


def _sgpr_base(tok: _Tok, kind: str, role: str, count: int, shift: int) -> int:
    """An SGPR range given by its first register >> shift (SMRD sbase, buffer/image descriptors)."""
    reg = _reg_of(tok)
    if reg is None or reg[0] >= 256:
        raise _NoFit(f"expected {count} SGPRs for {role}, got '{tok.text}'", tok.col)
    code, n = reg
    if n != count:
        raise _NoFit(f"'{tok.text}' has {n} dword(s), {role} needs {count}", tok.col)
    classes = _KINDS.get(kind, (None, frozenset({"s", "trap"})))[1]
    cls = CODE_CLASS.get(code, "?")
    if cls not in classes and not (cls == "trap" and "ttmp" in classes):
        raise _NoFit(f"'{tok.text}' is not allowed as {role}", tok.col)
    if code & ((1 << shift) - 1):
        raise _NoFit(f"'{tok.text}' must start at a multiple of {1 << shift}", tok.col)
    return code >> shift


# ---------------------------------------------------------------------------------------------
# Special immediates

def _simm16(tok: _Tok, kind: str) -> int:
    v = _parse_number(tok.text)
    if not isinstance(v, int):
        raise _NoFit(f"expected a 16-bit integer, got '{tok.text}'", tok.col)
    if not -32768 <= v <= 65535:
        raise _NoFit(f"immediate {tok.text} does not fit in 16 bits", tok.col)
    return v & 0xFFFF


def _paren_args(tok: _Tok, fn: str) -> list[str]:
    t = tok.text
    if not (t.lower().startswith(fn + "(") and t.endswith(")")):
        raise _NoFit(f"expected an integer or {fn}(...), got '{t}'", tok.col)
    return [a.strip() for a in t[len(fn) + 1:-1].split(",")]


def _hwreg(tok: _Tok) -> int:
    if _parse_number(tok.text) is not None:
        return _int_value(tok, "hwreg", 0, 0xFFFF)
    args = _paren_args(tok, "hwreg")
    if len(args) not in (1, 3):
        raise _NoFit("hwreg(...) takes a register and optionally an offset and a size", tok.col)
    rid = _HWREG_NAMES.get(args[0].upper()) if not args[0][:1].isdigit() else None
    if rid is None:
        n = _parse_number(args[0])
        if not isinstance(n, int) or not 0 <= n <= 63:
            raise _NoFit(f"unknown hardware register '{args[0]}' (expected HW_REG_* or 0..63)",
                         tok.col)
        rid = n
    off, size = 0, 32
    if len(args) == 3:
        off, size = _parse_number(args[1]), _parse_number(args[2])
        if not isinstance(off, int) or not 0 <= off <= 31:
            raise _NoFit(f"hwreg bit offset must be 0..31, got '{args[1]}'", tok.col)
        if not isinstance(size, int) or not 1 <= size <= 32:
            raise _NoFit(f"hwreg bit size must be 1..32, got '{args[2]}'", tok.col)
    return rid | (off << 6) | ((size - 1) << 11)


def _sendmsg(tok: _Tok) -> int:
    if _parse_number(tok.text) is not None:
        return _int_value(tok, "message", 0, 0xFFFF)
    args = _paren_args(tok, "sendmsg")
    if not 1 <= len(args) <= 3:
        raise _NoFit("sendmsg(...) takes a message, an operation and a stream", tok.col)
    msg = _MSG_NAMES.get(args[0].upper())
    if msg is None:
        msg = _parse_number(args[0])
        if not isinstance(msg, int) or not 0 <= msg <= 15:
            raise _NoFit(f"unknown message '{args[0]}' (expected MSG_* or 0..15)", tok.col)
    v = msg
    if len(args) > 1:
        ops = _SYS_OPS if msg == 15 else _GS_OPS
        op = ops.get(args[1].upper())
        if op is None:
            op = _parse_number(args[1])
            if not isinstance(op, int) or not 0 <= op <= 7:
                raise _NoFit(f"unknown message operation '{args[1]}'", tok.col)
        v |= op << 4
    if len(args) > 2:
        st = _parse_number(args[2])
        if not isinstance(st, int) or not 0 <= st <= 3:
            raise _NoFit(f"message stream must be 0..3, got '{args[2]}'", tok.col)
        v |= st << 8
    return v


_WAITCNT_RE = re.compile(r"(vmcnt|expcnt|lgkmcnt)(_sat)?\(\s*([^)]*)\)$")
_WAITCNT_FIELDS = {"vmcnt": (0, 0xF), "expcnt": (4, 0x7), "lgkmcnt": (8, 0xF)}  # SI/CI: 4-bit lgkmcnt


def _waitcnt(toks: list) -> int:
    if len(toks) == 1 and _parse_number(toks[0].text) is not None:
        return _int_value(toks[0], "waitcnt", 0, 0xFFFF)
    v = 0x0F7F  # every counter at its maximum: wait for nothing
    for tok in toks:
        if tok.text == "&":
            continue
        m = _WAITCNT_RE.match(tok.text)
        if not m:
            raise _NoFit(f"expected vmcnt(N), expcnt(N) or lgkmcnt(N), got '{tok.text}'", tok.col)
        name, sat, num = m.groups()
        n = _parse_number(num.strip())
        if not isinstance(n, int) or n < 0:
            raise _NoFit(f"{name} needs a non-negative integer, got '{num}'", tok.col)
        shift, mask = _WAITCNT_FIELDS[name]
        if n > mask:
            if not sat:
                raise _NoFit(f"{name}({n}) is too large (at most {mask})", tok.col)
            n = mask
        v = (v & ~(mask << shift)) | (n << shift)
    return v


# ---------------------------------------------------------------------------------------------
# Family encoders. Each returns (bytes, fixup) where fixup is None or (label, col).

def _check_count(defn, roles, pos, mn_col):
    if len(pos) != len(roles):
        want = ", ".join(r for r, _ in roles) or "no operands"
        col = pos[len(roles)].col if len(pos) > len(roles) else mn_col
        raise _NoFit(f"{defn.name} takes {len(roles)} operand(s) ({want}), got {len(pos)}", col)


def _check_mods(fam, mods):
    allowed = _FAMILY_MODS.get(fam, ())
    for key, (val, col) in mods.items():
        if key not in allowed:
            raise _NoFit(f"modifier '{key}' is not valid for a {fam} instruction", col)


def _flag(mods, key):
    if key in mods:
        val, col = mods[key]
        if val is not None:
            raise _NoFit(f"modifier '{key}' takes no value", col)
        return 1
    return 0


def _mod_int(mods, key, lo, hi, default=0):
    if key not in mods:
        return default
    val, col = mods[key]
    if val is None:
        raise _NoFit(f"modifier '{key}' needs a value ({key}:N)", col)
    return _int_value(_Tok(val, col), key, lo, hi)


def _emit(fam, values, literal=None, fields=None):
    size, match, _, lay = LAYOUTS[fam]
    word = match | insert(fields or lay, values)
    b = word.to_bytes(size, "little")
    if literal is not None:
        b += literal.to_bytes(4, "little")
    return b


def _one_literal(srcs, tok_cols):
    lits = {s.literal for s in srcs if s.code == LITERAL}
    if len(lits) > 1:
        raise _NoFit("only one literal constant per instruction", tok_cols)
    return lits.pop() if lits else None


def _enc_salu(defn, pos, mods, mn_col):
    fam = defn.encoding
    _check_mods(fam, mods)
    roles = defn.positional_operands()
    _check_count(defn, roles, pos, mn_col)
    v = {"op": defn.opcode}
    srcs, fix = [], None
    literal = None
    for (role, kind), tok in zip(roles, pos):
        if role == "sdst":
            s = _src(tok, kind, defn.name, role)
            v["sdst"] = s.code
        elif role in ("ssrc", "ssrc0", "ssrc1"):
            s = _src(tok, kind, defn.name, role)
            srcs.append(s)
            field = "sdst" if fam == "SOPK" else ("ssrc1" if role == "ssrc1" else "ssrc0")
            v[field] = s.code
        elif kind == "label":
            val = _parse_number(tok.text)
            m = _LABEL_EXPR_RE.match(tok.text)
            addend = _parse_number(m.group(2)) if m and m.group(2) else 0
            if isinstance(val, int):
                v["simm16"] = _simm16(tok, kind)
            elif m and isinstance(addend, int):
                v["simm16"] = 0
                fix = (m.group(1), tok.col, addend)
            else:
                raise _NoFit(f"expected a label or a 16-bit offset, got '{tok.text}'", tok.col)
        elif kind in ("simm16", "uimm16", "bimm16"):
            v["simm16"] = _simm16(tok, kind)
        elif kind == "hwreg":
            v["simm16"] = _hwreg(tok)
        elif kind == "msg":
            v["simm16"] = _sendmsg(tok)
        elif kind in ("bimm32", "fimm32"):
            literal = _imm32(tok)
        else:  # pragma: no cover - table kinds are all handled above
            raise _NoFit(f"unsupported operand kind {kind}", tok.col)
    lit = _one_literal(srcs, mn_col)
    if lit is not None and literal is not None:
        raise _NoFit("only one literal constant per instruction", mn_col)
    return _emit(fam, v, lit if lit is not None else literal), fix


def _enc_sopp(defn, pos, mods, mn_col):
    _check_mods("SOPP", mods)
    roles = defn.positional_operands()
    if roles and roles[0][1] == "waitcnt":
        if not pos:
            raise _NoFit("s_waitcnt needs an operand", mn_col)
        return _emit("SOPP", {"op": defn.opcode, "simm16": _waitcnt(pos)}), None
    return _enc_salu(defn, pos, mods, mn_col)


def _imm32(tok):
    val = _parse_number(tok.text)
    if val is None:
        raise _NoFit(f"expected a 32-bit constant, got '{tok.text}'", tok.col)
    if isinstance(val, float):
        return float_bits32(val)
    if not -(1 << 31) <= val < (1 << 32):
        raise _NoFit(f"constant {tok.text} does not fit in 32 bits", tok.col)
    return val & 0xFFFFFFFF


def _enc_smrd(defn, pos, mods, mn_col):
    _check_mods("SMRD", mods)
    roles = defn.positional_operands()
    _check_count(defn, roles, pos, mn_col)
    v = {"op": defn.opcode}
    literal = None
    for (role, kind), tok in zip(roles, pos):
        if role == "sdst":
            v["sdst"] = _src(tok, kind, defn.name, role).code
        elif role == "sbase":
            v["sbase"] = _sgpr_base(tok, kind, role, 2 if kind == "base_smem_addr" else 4, 1)
        else:  # soffset
            reg = _reg_of(tok)
            if reg is not None:
                # llvm-mc 14 also takes m0 here (the gfx7 doc's offset_smem omits it)
                v["offset"] = _src(tok, "ssrc32_4", defn.name, role).code
            else:
                off = _int_value(tok, "offset", 0, 0xFFFFFFFF)
                if off <= 255:
                    v["offset"], v["imm"] = off, 1
                elif _gen[0] == table.GFX6:
                    raise _NoFit(f"offset {off} does not fit in 8 bits (a literal SMRD offset is "
                                 f"GCN 1.1 only)", tok.col)
                else:
                    v["offset"], literal = LITERAL, off
    return _emit("SMRD", v, literal), None


# VOP -----------------------------------------------------------------------------------------

_SRC0_ROLES = ("src0", "src", "vsrc", "vsrc0", "ssrc0")
_SRC1_ROLES = ("src1", "vsrc1", "ssrc1")
_SRC2_ROLES = ("src2", "ssrc2", "vsrc2")


def _split_mods(tok: _Tok):
    """Strip float input modifiers: -x, |x|, abs(x), neg(x). Returns (core token, neg, abs)."""
    t = tok.text
    neg = ab = 0
    col = tok.col
    if _parse_number(t) is not None:
        return tok, 0, 0
    if t.startswith("neg(") and t.endswith(")"):
        t, neg, col = t[4:-1], 1, col + 4
    elif t.startswith("-") and not t.startswith("-|") and _parse_number(t) is not None:
        return tok, 0, 0  # a negative constant
    elif t.startswith("-"):
        t, neg, col = t[1:], 1, col + 1
    if t.startswith("|") and t.endswith("|") and len(t) > 2:
        t, ab, col = t[1:-1], 1, col + 1
    elif t.startswith("abs(") and t.endswith(")"):
        t, ab, col = t[4:-1], 1, col + 4
    return (_Tok(t, col) if (neg or ab) else tok), neg, ab




#: The hardware docs give both v_writelane_b32 sources (data, lane select) as scalar operands;
#: llvm-mc 14 applies the one-SGPR rule to it anyway. gcnemu follows the hardware here.
_BUS_EXEMPT = frozenset({"v_writelane_b32"})


def _constant_bus(defn, keys, mn_col):
    """A VALU instruction reads at most one scalar value (SGPR, VCC, EXEC, M0, scc/vccz/execz,
    or a literal) over the constant bus; the same SGPR twice counts once. Implicit VCC reads
    (v_cndmask/v_addc e32, v_div_fmas) count too."""
    if defn.name in _BUS_EXEMPT:
        return
    used = {k for k in keys if k is not None}
    if "VCC" in defn.reads:
        used.add("vcc")  # implicit 64-bit VCC: llvm-mc counts it apart from an explicit vcc_lo
    if "M0" in defn.reads:  # v_movrel*: M0 holds the index
        used.add(124)
    if len(used) > 1:
        raise _NoFit("violates the constant bus restriction (a VALU instruction reads at most "
                     "one SGPR, special register or literal)", mn_col)


def _enc_vop_short(defn, pos, mods, mn_col):
    """VOP1 / VOP2 / VOPC (32-bit encodings, optional literal)."""
    fam = defn.encoding
    if mods:
        key, (val, col) = next(iter(mods.items()))
        raise _NoFit(f"modifier '{key}' needs the VOP3 (_e64) encoding", col)
    roles = defn.positional_operands()
    _check_count(defn, roles, pos, mn_col)
    v = {"op": defn.opcode}
    srcs, literal = [], None
    for (role, kind), tok in zip(roles, pos):
        if tok.text[:1] in ("|", "-") and _parse_number(tok.text) is None or \
                tok.text.startswith(("abs(", "neg(")):
            raise _NoFit("float modifiers need the VOP3 (_e64) encoding", tok.col)
        if kind == "vcc_64":
            if tok.text.lower() != "vcc":
                raise _NoFit(f"the 32-bit encoding of {defn.name} uses vcc here, got '{tok.text}'",
                             tok.col)
        elif role in ("vdst", "sdst"):
            v["vdst"] = (_vgpr(tok, kind, role) if role == "vdst"
                         else _src(tok, kind, defn.name, role).code)
        elif role in _SRC0_ROLES:
            s = _src(tok, kind, defn.name, role)
            srcs.append(s)
            v["src0"] = s.code
        elif role in _SRC1_ROLES or role == "vsrc2":
            if kind.startswith("vsrc"):
                v["vsrc1"] = _vgpr(tok, kind, role)
            else:
                s = _src(tok, kind, defn.name, role)
                if s.code == LITERAL:
                    raise _NoFit(f"{role} cannot take a literal", tok.col)
                v["vsrc1"] = s.code
                srcs.append(s)
        elif role == "imm32":
            literal = _imm32(tok)
        else:  # pragma: no cover
            raise _NoFit(f"unsupported operand {role}:{kind}", tok.col)
    lit = _one_literal(srcs, mn_col)
    if lit is not None and literal is not None:
        raise _NoFit("only one literal constant per instruction", mn_col)
    if lit is None:
        lit = literal
    _constant_bus(defn, [s.bus for s in srcs] + (["lit"] if literal is not None else []), mn_col)
    if defn.name in ("v_madmk_f32", "v_madak_f32") and lit is None:  # pragma: no cover
        raise _NoFit("missing constant", mn_col)
    return _emit(fam, v, lit), None


def _enc_vop3(defn, pos, mods, mn_col):
    _check_mods("VOP3", mods)
    roles, modable, has_clamp, has_omod = defn.vop3_operands()
    _check_count(defn, roles, pos, mn_col)
    vop3b = defn.is_vop3b
    v = {"op": defn.opcode}
    neg = ab = 0
    bus = []
    for (role, kind), tok in zip(roles, pos):
        core, n, a = _split_mods(tok)
        if (n or a) and role not in modable:
            raise _NoFit(f"{role} of {defn.name} takes no neg/abs modifier", tok.col)
        if role == "vdst":
            v["vdst"] = _vgpr(core, kind, role)
        elif role in ("sdst", "vcc"):
            if role == "vcc" and not vop3b:  # pragma: no cover
                raise _NoFit("unexpected vcc operand", tok.col)
            s = _src(core, "sdst64_0" if kind == "vcc_64" else kind, defn.name, role)
            v["sdst" if vop3b else "vdst"] = s.code
        else:
            idx = 0 if role in _SRC0_ROLES else 1 if role in _SRC1_ROLES else 2
            s = _src(core, kind, defn.name, role)
            if s.code == LITERAL:
                raise _NoFit("VOP3 instructions cannot take a literal constant on gfx7", tok.col)
            v[f"src{idx}"] = s.code
            bus.append(s.bus)
            neg |= n << idx
            ab |= a << idx
    for idx in range(3):
        key = f"src{idx}"
        if key in mods:
            if key in v:
                raise _NoFit(f"{key}: sets a field that an operand of {defn.name} already fills", mods[key][1])
            v[key] = _mod_int(mods, key, 0, 511)
    if "clamp" in mods:
        if not has_clamp:
            raise _NoFit(f"{defn.name} takes no clamp", mods["clamp"][1])
        v["clamp"] = _flag(mods, "clamp")
    if "mul" in mods or "div" in mods:
        if not has_omod:
            col = (mods.get("mul") or mods.get("div"))[1]
            raise _NoFit(f"{defn.name} takes no output modifier", col)
        if "mul" in mods and "div" in mods:
            raise _NoFit("mul: and div: exclude each other", mods["div"][1])
        if "mul" in mods:
            m = _mod_int(mods, "mul", 1, 4)
            if m not in (1, 2, 4):
                raise _NoFit("mul: must be 1, 2 or 4", mods["mul"][1])
            v["omod"] = {1: 0, 2: 1, 4: 2}[m]
        else:
            m = _mod_int(mods, "div", 1, 2)
            v["omod"] = 3 if m == 2 else 0
    _constant_bus(defn, bus, mn_col)
    v["neg"] = neg
    if vop3b:
        if ab:
            raise _NoFit(f"{defn.name} takes no abs modifier", mn_col)
        return _emit("VOP3", v, None, VOP3B_FIELDS), None
    v["abs"] = ab
    return _emit("VOP3", v), None


# Other vector families ----------------------------------------------------------------------

def _enc_vintrp(defn, pos, mods, mn_col):
    _check_mods("VINTRP", mods)
    roles = defn.positional_operands()
    _check_count(defn, roles, pos, mn_col)
    v = {"op": defn.opcode}
    for (role, kind), tok in zip(roles, pos):
        if role == "vdst":
            v["vdst"] = _vgpr(tok, kind, role)
        elif role == "vsrc":
            v["vsrc"] = _vgpr(tok, kind, role)
        elif kind == "param":
            p = {"p10": 0, "p20": 1, "p0": 2}.get(tok.text.lower())
            if p is None:
                raise _NoFit(f"expected p10, p20 or p0, got '{tok.text}'", tok.col)
            v["vsrc"] = p
        elif kind == "attr":
            m = re.match(r"attr(\d+)\.([xyzw])$", tok.text.lower())
            if not m or int(m.group(1)) > 63:
                raise _NoFit(f"expected attrN.[xyzw], got '{tok.text}'", tok.col)
            v["attr"], v["attrchan"] = int(m.group(1)), "xyzw".index(m.group(2))
    return _emit("VINTRP", v), None


def _swizzle(tok: _Tok) -> int:
    """ds_swizzle_b32 offset macros: QUAD_PERM, BITMASK_PERM, BROADCAST, SWAP, REVERSE."""
    args = _paren_args(tok, "swizzle")
    mode = args[0].upper()

    def ints(n, lo, hi):
        if len(args) != n + 1:
            raise _NoFit(f"swizzle({mode}, ...) takes {n} value(s)", tok.col)
        vals = [_parse_number(a) for a in args[1:]]
        if not all(isinstance(x, int) and lo <= x <= hi for x in vals):
            raise _NoFit(f"swizzle({mode}, ...) values must be {lo}..{hi}", tok.col)
        return vals

    if mode == "QUAD_PERM":
        a = ints(4, 0, 3)
        return 0x8000 | a[0] | a[1] << 2 | a[2] << 4 | a[3] << 6
    if mode == "BITMASK_PERM":
        if len(args) != 2 or not re.fullmatch(r'"[01pi]{5}"', args[1]):
            raise _NoFit('swizzle(BITMASK_PERM, "mask") needs 5 of 0, 1, p, i', tok.col)
        and_m = or_m = xor_m = 0
        for i, ch in enumerate(args[1][1:-1]):
            bit = 1 << (4 - i)
            if ch == "1":
                or_m |= bit
            elif ch == "p":
                and_m |= bit
            elif ch == "i":
                and_m |= bit
                xor_m |= bit
        return and_m | or_m << 5 | xor_m << 10
    if mode in ("SWAP", "REVERSE"):
        (n,) = ints(1, 1, 32)
        if n & (n - 1) or (mode == "SWAP" and n > 16) or (mode == "REVERSE" and n < 2):
            raise _NoFit(f"swizzle({mode}, n): bad group size {n}", tok.col)
        return 0x1F | (n if mode == "SWAP" else n - 1) << 10
    if mode == "BROADCAST":
        n, lane = ints(2, 0, 31) if len(args) == 3 and args[1] != "32" else (
            [_parse_number(args[1]), _parse_number(args[2])] if len(args) == 3 else ints(2, 0, 31))
        if not isinstance(n, int) or n < 2 or n > 32 or n & (n - 1) or \
                not isinstance(lane, int) or not 0 <= lane < n:
            raise _NoFit("swizzle(BROADCAST, size, lane): size 2..32 (power of 2), lane < size",
                         tok.col)
        return (0x20 - n) | lane << 5
    raise _NoFit(f"unknown swizzle mode '{args[0]}'", tok.col)


def _enc_ds(defn, pos, mods, mn_col):
    _check_mods("DS", mods)
    roles = defn.positional_operands()
    _check_count(defn, roles, pos, mn_col)
    v = {"op": defn.opcode}
    field = {"vdst": "vdst", "vaddr": "addr", "vdata": "data0", "vdata0": "data0", "vdata1": "data1"}
    if not any(r == "vaddr" for r, _ in roles):
        # ds_gws_*: LLVM 14 encodes the lone data VGPR in the ADDR field
        field["vdata"] = "addr"
    for (role, kind), tok in zip(roles, pos):
        v[field[role]] = _vgpr(tok, kind, role)
    kinds = {k for _, k in defn.operands}
    if "offset" in mods and mods["offset"][0] and mods["offset"][0].lower().startswith("swizzle("):
        if "sw_offset16" not in kinds:
            raise _NoFit("swizzle(...) is only valid for ds_swizzle_b32", mods["offset"][1])
        off = _swizzle(_Tok(mods["offset"][0], mods["offset"][1]))
        v["offset0"], v["offset1"] = off & 0xFF, off >> 8
        del mods["offset"]
    if "offset" in mods:
        if "ds_offset8" in kinds:
            raise _NoFit(f"{defn.name} takes offset0:/offset1:, not offset:", mods["offset"][1])
        off = _mod_int(mods, "offset", 0, 0xFFFF)
        v["offset0"], v["offset1"] = off & 0xFF, off >> 8
    for k in ("offset0", "offset1"):
        if k in mods:
            if "ds_offset8" not in kinds:
                raise _NoFit(f"{defn.name} takes offset:, not {k}:", mods[k][1])
            v[k] = _mod_int(mods, k, 0, 0xFF)
    v["gds"] = _flag(mods, "gds")
    return _emit("DS", v), None


def _data_count(kind, tfe):
    size = _KINDS.get(kind, (None,))[0]
    if size is None:
        return None
    return size + tfe


def _enc_buf(defn, pos, mods, mn_col):
    fam = defn.encoding
    _check_mods(fam, mods)
    roles = defn.positional_operands()
    _check_count(defn, roles, pos, mn_col)
    v = {"op": defn.opcode}
    for k in ("offen", "idxen", "addr64", "glc", "slc", "tfe") + (("lds",) if fam == "MUBUF" else ()):
        v[k] = _flag(mods, k)
    v["offset"] = _mod_int(mods, "offset", 0, 0xFFF)
    if v["addr64"] and (v["offen"] or v["idxen"]):
        raise _NoFit("addr64 cannot be combined with offen or idxen", mods["addr64"][1])
    if v["tfe"] and any(k == "ret" for _, k in defn.operands):
        raise _NoFit("atomics take no tfe", mods["tfe"][1])
    if fam == "MUBUF" and v["lds"]:
        if not any(k == "lds" for _, k in defn.operands):
            raise _NoFit(f"{defn.name} takes no lds modifier", mods["lds"][1])
        if v["tfe"]:
            raise _NoFit("lds and tfe exclude each other", mods["tfe"][1])
    if fam == "MTBUF":
        # llvm-mc 14's defaults: dfmt:1 (BUF_DATA_FORMAT_8), nfmt:0 (unorm)
        v["dfmt"] = _mod_int(mods, "dfmt", 0, 15, default=1)
        v["nfmt"] = _mod_int(mods, "nfmt", 0, 7)
    for (role, kind), tok in zip(roles, pos):
        if role in ("vdst", "vdata"):
            cnt = _data_count(kind, 0)  # llvm-mc 14 does not count TFE's dword for MUBUF/MTBUF
            v["vdata"] = _vgpr(tok, kind, role, cnt)
        elif role == "vaddr":
            need = (2 if v["addr64"] or (v["offen"] and v["idxen"]) else
                    1 if (v["offen"] or v["idxen"]) else 0)
            if tok.text.lower() == "off":
                if need:
                    raise _NoFit("vaddr must be a VGPR with offen/idxen/addr64, not off", tok.col)
                v["vaddr"] = 0
            else:
                if not need:
                    raise _NoFit("vaddr must be 'off' without offen, idxen or addr64", tok.col)
                v["vaddr"] = _vgpr(tok, kind, role, need)
        elif role == "srsrc":
            v["srsrc"] = _sgpr_base(tok, kind, role, 4, 2)
        elif role == "soffset":
            s = _src(tok, kind, defn.name, role)
            v["soffset"] = s.code
    return _emit(fam, v), None


def _enc_mimg(defn, pos, mods, mn_col):
    _check_mods("MIMG", mods)
    roles = defn.positional_operands()
    _check_count(defn, roles, pos, mn_col)
    v = {"op": defn.opcode}
    for k in ("unorm", "glc", "slc", "r128", "tfe", "lwe", "da"):
        v[k] = _flag(mods, k)
    v["dmask"] = _mod_int(mods, "dmask", 0, 15, default=0)
    for (role, kind), tok in zip(roles, pos):
        if role in ("vdst", "vdata"):
            if kind == "dst_mimg_gather4" and bin(v["dmask"]).count("1") != 1:
                raise _NoFit("image_gather4* needs a dmask with exactly one bit set",
                             mods["dmask"][1] if "dmask" in mods else mn_col)
            n = 4 if kind == "dst_mimg_gather4" else max(1, bin(v["dmask"]).count("1"))
            v["vdata"] = _vgpr(tok, kind, role, n + v["tfe"])
        elif role == "vaddr":
            v["vaddr"] = _vgpr(tok, kind, role, None)
        elif role == "srsrc":
            n = _reg_of(tok)
            # llvm-mc 14 takes an 8-SGPR resource even with r128; 4 SGPRs only with r128
            v["srsrc"] = _sgpr_base(tok, kind, role, 4 if v["r128"] and n and n[1] == 4 else 8, 2)
        elif role == "ssamp":
            v["ssamp"] = _sgpr_base(tok, kind, role, 4, 2)
    return _emit("MIMG", v), None


def _enc_flat(defn, pos, mods, mn_col):
    _check_mods("FLAT", mods)
    roles = defn.positional_operands()
    v = {"op": defn.opcode, "glc": _flag(mods, "glc"), "slc": _flag(mods, "slc"),
         "tfe": _flag(mods, "tfe")}
    _mod_int(mods, "offset", 0, 0)  # gfx7 FLAT has no offset field: only offset:0 is accepted
    if any(k == "opt" for _, k in defn.operands) and not v["glc"]:
        roles = [(r, k) for r, k in roles if r != "vdst"]
    _check_count(defn, roles, pos, mn_col)
    field = {"vdst": "vdst", "vaddr": "addr", "vdata": "data"}
    for (role, kind), tok in zip(roles, pos):
        cnt = _data_count(kind, v["tfe"]) if role == "vdst" else None
        v[field[role]] = _vgpr(tok, kind, role, cnt)
    return _emit("FLAT", v), None


def _enc_exp(defn, pos, mods, mn_col):
    _check_mods("EXP", mods)
    if len(pos) != 5:
        raise _NoFit(f"exp takes a target and 4 sources, got {len(pos)} operand(s)",
                     pos[-1].col if pos else mn_col)
    tgt = _EXP_TARGETS.get(pos[0].text.lower())
    if tgt is None:
        raise _NoFit(f"unknown export target '{pos[0].text}' (mrt0..7, mrtz, null, pos0..3, "
                     f"param0..31)", pos[0].col)
    v = {"tgt": tgt, "done": _flag(mods, "done"), "compr": _flag(mods, "compr"),
         "vm": _flag(mods, "vm")}
    en = 0
    regs = [None] * 4
    for i, tok in enumerate(pos[1:]):
        if tok.text.lower() == "off":
            continue
        regs[i] = _vgpr(tok, "src_exp", f"vsrc{i}", 1)
        en |= 1 << i
    if v["compr"]:
        # compressed (two 16-bit halves per register): as llvm-mc does, source 0 gives VSRC0
        # and enables channels 0-1, source 2 gives VSRC1 and channels 2-3; sources 1 and 3
        # only repeat them
        en = 0
        for a, field, bits in ((0, "vsrc0", 0x3), (2, "vsrc1", 0xC)):
            if regs[a] is not None:
                v[field] = regs[a]
                en |= bits
    else:
        for i, r in enumerate(regs):
            if r is not None:
                v[f"vsrc{i}"] = r
    v["en"] = en
    return _emit("EXP", v), None


_ENCODERS = {
    "SOP2": _enc_salu, "SOPK": _enc_salu, "SOP1": _enc_salu, "SOPC": _enc_salu, "SOPP": _enc_sopp,
    "SMRD": _enc_smrd, "VOP1": _enc_vop_short, "VOP2": _enc_vop_short, "VOPC": _enc_vop_short,
    "VOP3": _enc_vop3, "VINTRP": _enc_vintrp, "DS": _enc_ds, "MUBUF": _enc_buf, "MTBUF": _enc_buf,
    "MIMG": _enc_mimg, "FLAT": _enc_flat, "EXP": _enc_exp,
}
_SHORT_VOP = ("VOP1", "VOP2", "VOPC")


# ---------------------------------------------------------------------------------------------
# Lines

_OP_SPACES = re.compile(r"\s*([+*/%^]|<<|>>)\s*|(?<=[\w)])\s+-\s+(?=[\w(])")


def _tokenize(text: str, base_col: int):
    """Split an operand string into positional tokens and modifiers {key: (value, col)}."""
    pos, mods = [], {}
    empty = re.search(r"^\s*,|,\s*,", text)   # (llvm-mc takes a trailing comma)
    if empty:
        raise AssemblerError("empty operand (two commas in a row, or a comma first)", None,
                             base_col + empty.end() - 1)
    if "+" in text or "*" in text or "/" in text or " - " in text or "<<" in text or ">>" in text \
            or "%" in text or "^" in text:
        # `2 + offset` is one operand: drop the spaces around binary operators (columns after
        # it shift by the removed spaces; good enough for error messages)
        text = _OP_SPACES.sub(lambda m: m.group(1) or "-", text)
    for m in _TOKEN_RE.finditer(text):
        t = m.group(0)
        col = base_col + m.start()
        low = t.lower()
        if low in _FLAG_MODS:
            if low in mods:
                raise AssemblerError(f"modifier '{t}' given twice", None, col)
            mods[low] = (None, col)
            continue
        k, sep, val = low.partition(":")
        if sep and k in _VALUE_MODS and "[" not in t:
            if k in mods:
                raise AssemblerError(f"modifier '{k}' given twice", None, col)
            mods[k] = (t[len(k) + 1:], col + len(k) + 1)
            continue
        pos.append(_Tok(t, col))
    return pos, mods


_MNEMONIC_RE = re.compile(r"\s*([A-Za-z_.][\w.]*)")


#: Spellings llvm-mc 14 accepts for bonaire as aliases of gfx7 mnemonics.
_ALIASES = {"v_add_co_u32": "v_add_i32", "v_sub_co_u32": "v_sub_i32",
            "v_subrev_co_u32": "v_subrev_i32"}


#: the generation being assembled (set by assemble_with_labels for one call)
_gen = [table.GFX7]


def _candidates(mnemonic: str):
    """Table rows to try for a mnemonic, in order, or raise if it is unknown."""
    byname = table.by_name(_gen[0])
    low = mnemonic.lower()
    for alias, real in _ALIASES.items():
        if low.startswith(alias) and low[len(alias):] in ("", "_e64"):
            low = real + "_e64"  # llvm-mc picks the VOP3 form for these (gfx9 spellings)
    forced = None
    base = low
    if low.endswith(("_e32", "_e64")) and low not in byname:
        base, forced = low[:-4], low[-3:]
    rows = byname.get(base)
    if rows is None:
        return None, None
    if forced == "e64":
        cands = [rows["VOP3"]] if "VOP3" in rows else []
    elif forced == "e32":
        cands = [rows[f] for f in _SHORT_VOP if f in rows]
        if not cands and "VOP3" not in rows:
            cands = list(rows.values())  # llvm-mc also takes _e32 on scalar ops (s_mov_b64_e32)
    else:
        cands = [rows[f] for f in _SHORT_VOP if f in rows]
        if "VOP3" in rows:
            cands.append(rows["VOP3"])
        if not cands:
            cands = list(rows.values())
    return cands, forced


def _assemble_instruction(mnemonic, mn_col, optext, op_col, lineno):
    cands, forced = _candidates(mnemonic)
    if not cands:
        if cands is None:
            other = table.GFX6 if _gen[0] == table.GFX7 else table.GFX7
            base = mnemonic.lower()
            base = base[:-4] if base.endswith(("_e32", "_e64")) else base
            only = f" in {table.GEN_NAMES[_gen[0]]}: it is {table.GEN_NAMES[other]} only" \
                if base in table.by_name(other) else ""
            raise AssemblerError(f"unknown instruction '{mnemonic}'{only}", lineno, mn_col)
        raise AssemblerError(f"'{mnemonic}': {mnemonic[:-4]} has no {forced[1:]}-bit encoding",
                             lineno, mn_col)
    pos, mods = _tokenize(optext, op_col)
    first_err = None
    for defn in cands:
        p, m = pos, mods
        if mods and defn.encoding in ("SOPP", "SOPK"):
            # no modifiers here: `s_cbranch_execz done` branches to a label named done
            p = sorted(pos + [_Tok(optext[c - op_col:].split()[0].rstrip(","), c)
                              for k, (val, c) in mods.items()
                              for c in [c - (len(k) + 1 if val is not None else 0)]],
                       key=lambda t: t.col)
            m = {}
        try:
            return _ENCODERS[defn.encoding](defn, p, m, mn_col)
        except _NoFit as e:
            if first_err is None or (defn.encoding == "VOP3" and forced != "e64" and
                                     _is_vop3_only_problem(first_err)):
                first_err = e
    raise AssemblerError(f"{mnemonic}: {first_err}", lineno,
                         first_err.col if first_err.col is not None else mn_col)


def _is_vop3_only_problem(err) -> bool:
    msg = str(err)
    return "VOP3" in msg or "_e64" in msg


# ---------------------------------------------------------------------------------------------
# Objects: sections, symbols, relocations, kernel descriptor blocks and metadata. The
# assembler keeps what an ELF relocatable object would hold; gcnemu.loader.asmlink lays it
# out and links it as ld.lld does.

#: directives that change nothing gcnemu keeps: file names, compiler identification, the
#: address-significance table (for the linker's identical-code folding), v2 code object markers
_IGNORED_DIRECTIVES = frozenset({
    ".file", ".ident", ".end", ".addrsig", ".addrsig_sym", ".hsa_code_object_version",
    ".hsa_code_object_isa", ".amdgpu_hsa_kernel", ".p2alignl", ".loc", ".cfi_startproc",
    ".cfi_endproc", ".cfi_def_cfa", ".cfi_def_cfa_offset", ".cfi_def_cfa_register",
    ".cfi_offset", ".cfi_escape", ".cfi_undefined", ".cfi_register", ".cfi_rel_offset",
    ".cfi_sections", ".cfi_restore", ".cfi_same_value", ".cfi_llvm_def_aspace_cfa"})
#: what fills a section: in a section that is not loaded (debug information of clang -g),
#: the bytes matter to no dispatch and are not kept (their label arithmetic is not resolved)
_DATA_DIRECTIVES = frozenset({
    ".byte", ".short", ".hword", ".2byte", ".long", ".word", ".4byte", ".int", ".quad",
    ".8byte", ".zero", ".space", ".skip", ".ascii", ".asciz", ".string", ".uleb128",
    ".sleb128"})

#: the ELF flags of sections named without flags (as llvm-mc gives them)
_DEFAULT_FLAGS = {".text": "ax", ".rodata": "a", ".data": "aw", ".bss": "aw"}
_SYMBOL_TYPES = {"function": "func", "object": "object", "notype": "notype",
                 "stt_func": "func", "stt_object": "object", "stt_notype": "notype"}
_VISIBILITY = {".hidden": "hidden", ".protected": "protected", ".internal": "internal"}
_BINDING = {".globl": "global", ".global": "global", ".weak": "weak", ".local": "local"}
#: the symbol modifiers of an instruction operand: sym@rel32@lo+4 is a relocation
_RELOC_RE = re.compile(r"([A-Za-z_.$][\w.$]*)@(rel32@lo|rel32@hi|abs32@lo|abs32@hi|"
                       r"gotpcrel32@lo|gotpcrel32@hi|gotpcrel|rel64|abs64|rel32|abs32)"
                       r"((?:\s*[-+]\s*(?:0[xX][0-9a-fA-F]+|\d+))*)")
#: a difference of two labels as an operand: ``.Ltarget-.Lpc``
_DIFF_RE = re.compile(r"(?<![\w.$@])([A-Za-z_.$][\w.$]*)\s*-\s*([A-Za-z_.$][\w.$]*)"
                      r"((?:\s*[-+]\s*(?:0[xX][0-9a-fA-F]+|\d+))*)(?![\w.$@])")
#: stands for a relocated literal while the instruction is encoded: not an inline constant,
#: so the operand takes the literal dword the relocation then fills
_RELOC_PLACEHOLDER = 0x5EED1E75
#: the most bytes one .zero/.space may reserve (a typo must not exhaust memory)
_MAX_FILL = 64 << 20


@dataclass
class AsmSymbol:
    """A symbol of an assembled object: where it is defined (``section`` None: not defined
    here) and its ELF attributes (binding local/global/weak, visibility default/hidden/
    protected/internal, type notype/func/object, size in bytes)."""

    name: str
    section: Optional[str] = None
    offset: int = 0
    line: int = 0
    binding: str = "local"
    visibility: str = "default"
    type: str = "notype"
    size: int = 0


@dataclass
class AsmReloc:
    """A PC-relative relocation of a 32-bit literal: ``kind`` is 'rel32_lo' or 'rel32_hi' (the
    low or high half of symbol + addend - address of the literal)."""

    section: str
    offset: int
    kind: str
    symbol: str
    addend: int
    line: int
    column: int


@dataclass
class AsmKernel:
    """An ``.amdhsa_kernel`` block: its 64-byte descriptor reserved at ``offset`` of
    ``section`` (the NAME.kd symbol) and its directives {'.amdhsa_x': (value, line, column)}."""

    name: str
    section: str
    offset: int
    directives: dict
    line: int


@dataclass
class AsmObject:
    """What an assembly file defines: section bytes with their ELF flags ('a' alloc, 'w'
    write, 'x' exec) and alignments, symbols, relocations, kernel descriptor blocks, the
    ``.amdgpu_metadata`` YAML text with the line it starts on, and the ``.amdgcn_target``
    string with its line."""

    sections: dict
    flags: dict
    align: dict
    symbols: dict
    relocs: list
    kernels: list
    metadata: Optional[tuple] = None
    target: Optional[tuple] = None

    def labels(self, section: str = ".text") -> dict:
        """{name: offset} of the symbols defined in ``section``."""
        return {s.name: s.offset for s in self.symbols.values() if s.section == section}

    def machine_code(self) -> tuple[bytes, dict]:
        """(the bytes of .text, {label: offset}). Data in other sections (other than
        ``.amdhsa_kernel`` descriptors) and relocations need a code object: an AssemblerError
        says so (gcnemu.load links one)."""
        if self.relocs:
            r = self.relocs[0]
            raise AssemblerError(f"{r.symbol}@{r.kind.replace('_', '@')} is a relocation: raw "
                                 f"machine code cannot hold it (load the file with gcnemu.load, "
                                 f"which links a code object)", r.line, r.column)
        kd = {(k.section, k.offset + i) for k in self.kernels for i in range(64)}
        for name, data in self.sections.items():
            if name != ".text" and "a" in self.flags[name] and \
                    any((name, i) not in kd for i in range(len(data))):
                line = min([s.line for s in self.symbols.values() if s.section == name] or [None],
                           key=lambda x: x or 0)
                raise AssemblerError(f"section {name} holds data: raw machine code has only "
                                     f".text (load the file with gcnemu.load, which links a "
                                     f"code object)", line)
        return bytes(self.sections[".text"]), self.labels(".text")


class _State:
    """The assembler's position: the current section and everything defined so far."""

    def __init__(self):
        self.sections = {".text": bytearray()}
        self.flags = {".text": "ax"}
        self.align = {".text": 4}
        self.cur = ".text"
        self.previous = ".text"
        self.stack: list = []
        self.symbols: dict = {}
        self.fixups: list = []
        self.relocs: list = []
        self.kernels: list = []
        self.sizes: list = []
        self.diffs: list = []
        self.metadata = None
        self.target = None

    @property
    def out(self) -> bytearray:
        return self.sections[self.cur]

    def symbol(self, name: str) -> AsmSymbol:
        s = self.symbols.get(name)
        if s is None:
            s = self.symbols[name] = AsmSymbol(name)
        return s

    def define(self, name, lineno, col):
        s = self.symbol(name)
        if s.section is not None:
            raise AssemblerError(f"label '{name}' defined twice (first on line {s.line})",
                                 lineno, col)
        if name in _symbols:
            raise AssemblerError(f"'{name}' is already a symbol set with .set or =", lineno, col)
        s.section, s.offset, s.line = self.cur, len(self.out), lineno

    def switch(self, name, flags=None):
        if name not in self.sections:
            self.sections[name] = bytearray()
            base = name if name in _DEFAULT_FLAGS else "." + name.split(".")[1] \
                if name.count(".") > 1 else name
            self.flags[name] = flags if flags is not None else _DEFAULT_FLAGS.get(base, "")
            self.align[name] = 1
        elif flags is not None and flags != self.flags[name]:
            return f"section {name} was declared with flags '{self.flags[name]}', now '{flags}'"
        if name != self.cur:
            self.previous, self.cur = self.cur, name
        return None


def _parse_string(text: str, lineno: int, col: int) -> tuple:
    """(bytes, rest) of the GNU-as string literal at the start of ``text``."""
    if not text.startswith('"'):
        raise AssemblerError(f"expected a string in double quotes, got '{text.strip()}'",
                             lineno, col)
    out = bytearray()
    i = 1
    esc = {"n": 10, "t": 9, "b": 8, "f": 12, "r": 13, "v": 11, "a": 7, "\\": 92, '"': 34,
           "'": 39}
    while i < len(text):
        c = text[i]
        if c == '"':
            return bytes(out), text[i + 1:]
        if c == "\\" and i + 1 < len(text):
            n = text[i + 1]
            m = re.match(r"[0-7]{1,3}", text[i + 1:])
            if m:
                out.append(int(m.group(0), 8) & 0xFF)
                i += 1 + len(m.group(0))
                continue
            m = re.match(r"[xX]([0-9a-fA-F]+)", text[i + 1:])
            if m:
                out.append(int(m.group(1), 16) & 0xFF)
                i += 1 + len(m.group(0))
                continue
            if n not in esc:
                raise AssemblerError(f"unknown escape '\\{n}' in string", lineno, col + i)
            out.append(esc[n])
            i += 2
            continue
        out.extend(c.encode("utf-8"))
        i += 1
    raise AssemblerError("string without its closing '\"'", lineno, col)


def _section_directive(st, args, lineno, col):
    """.section NAME[, "flags"[, @type]] or .section NAME,#alloc,#write,#execinstr"""
    args = args.strip()
    if args.startswith('"'):
        raw, rest = _parse_string(args, lineno, col)
        name = raw.decode()
    else:
        m = re.match(r"[^\s,]+", args)
        if not m:
            raise AssemblerError(".section expects a section name", lineno, col)
        name, rest = m.group(0), args[m.end():]
    flags = None
    parts = [p.strip() for p in rest.split(",")[1:]] if rest.strip() else []
    if parts:
        if parts[0].startswith('"'):
            flags = _parse_string(parts[0], lineno, col)[0].decode()
        elif parts[0].startswith("#"):
            names = {"#alloc": "a", "#write": "w", "#execinstr": "x"}
            flags = ""
            for p in parts:
                if p not in names:
                    raise AssemblerError(f".section: unknown flag '{p}' (#alloc, #write, "
                                         f"#execinstr)", lineno, col)
                flags += names[p]
            parts = []
        bad = set(flags or "") - set("awxMSGTo")
        if bad:
            raise AssemblerError(f".section: unknown flags '{''.join(sorted(bad))}'", lineno, col)
        flags = "".join(c for c in "awx" if c in (flags or ""))
    if len(parts) > 1 and parts[1] not in ("@progbits", "@nobits", "%progbits", "%nobits",
                                          "@note", "%note"):
        raise AssemblerError(f".section: unsupported section type '{parts[1]}'", lineno, col)
    err = st.switch(name, flags)
    if err:
        raise AssemblerError(err, lineno, col)


def _names(args, name, lineno, col):
    names = [a.strip() for a in args.split(",")]
    for n in names:
        if not _SYM_RE.match(n):
            raise AssemblerError(f"{name} expects symbol names, got '{n}'", lineno, col)
    return names


def _directive(st, name, args, col, lineno):
    name = name.lower()
    if name in _IGNORED_DIRECTIVES:
        return
    if name in _DATA_DIRECTIVES and "a" not in st.flags[st.cur]:
        return
    if name in (".set", ".equ"):
        sym, _, expr = args.partition(",")
        if not _SYM_RE.match(sym.strip()) or not expr.strip():
            raise AssemblerError(f"{name} expects 'name, value'", lineno, col)
        _assign(sym.strip(), expr, lineno, col, st)
        return
    if name in (".byte", ".short", ".hword", ".2byte", ".long", ".word", ".4byte", ".int",
                ".quad", ".8byte"):
        width = {".byte": 1, ".short": 2, ".hword": 2, ".2byte": 2, ".quad": 8,
                 ".8byte": 8}.get(name, 4)
        for m in _TOKEN_RE.finditer(args):
            t = m.group(0)
            v = _parse_number(t)
            if not isinstance(v, int) or not -(1 << (8 * width - 1)) <= v < (1 << (8 * width)):
                why = (" (gcnemu's linker takes no data relocations: load addresses of "
                       "symbols with s_getpc_b64 and sym@rel32@lo/hi)") \
                    if _SYM_RE.match(t) and t not in _symbols else ""
                raise AssemblerError(f"{name} expects integers that fit in {width} byte(s), "
                                     f"got '{t}'{why}", lineno, col + len(name) + 1 + m.start())
            st.out.extend((v & ((1 << (8 * width)) - 1)).to_bytes(width, "little"))
        return
    if name in (".zero", ".space", ".skip"):
        parts = [p.strip() for p in args.split(",")]
        n = _parse_number(parts[0]) if parts[0] else None
        fill = _parse_number(parts[1]) if len(parts) > 1 else 0
        if not isinstance(n, int) or not 0 <= n <= _MAX_FILL or not isinstance(fill, int) \
                or len(parts) > 2:
            raise AssemblerError(f"{name} expects a byte count (0..{_MAX_FILL}) and an optional "
                                 f"fill byte, got '{args.strip()}'", lineno, col)
        st.out.extend(bytes([fill & 0xFF]) * n)
        return
    if name in (".ascii", ".asciz", ".string"):
        rest = args.strip()
        acol = col + len(name) + 1 + len(args) - len(args.lstrip())
        while True:
            data, rest = _parse_string(rest, lineno, acol)
            st.out.extend(data + (b"\0" if name != ".ascii" else b""))
            rest = rest.strip()
            if not rest:
                return
            if not rest.startswith(","):
                raise AssemblerError(f"{name}: expected ',' between strings, got '{rest}'",
                                     lineno, acol)
            rest = rest[1:].strip()
    if name in (".p2align", ".align", ".balign"):
        parts = [p.strip() for p in args.split(",")]
        n = _parse_number(parts[0]) if parts and parts[0] else None
        if not isinstance(n, int) or n < 0 or (name == ".p2align" and n > 16):
            raise AssemblerError(f"{name} expects an alignment, got '{args.strip()}'", lineno, col)
        align = (1 << n) if name == ".p2align" else n
        if align <= 0 or align & (align - 1):
            raise AssemblerError(f"{name}: alignment {align} is not a power of two", lineno, col)
        fill = None
        if len(parts) > 1 and parts[1]:
            fill = _parse_number(parts[1])
            if not isinstance(fill, int):
                raise AssemblerError(f"{name}: bad fill value '{parts[1]}'", lineno, col)
        out = st.out
        code = "x" in st.flags[st.cur]
        st.align[st.cur] = max(st.align[st.cur], align)
        while len(out) % align:
            if fill is None and code and align >= 4 and len(out) % 4 == 0:
                out.extend((0xBF800000).to_bytes(4, "little"))  # s_nop 0, as llvm-mc pads code
            else:
                out.append((fill or 0) & 0xFF)
        return
    if name in (".text", ".data", ".bss", ".rodata"):
        if args.strip():
            raise AssemblerError(f"{name} takes no operands here", lineno, col)
        st.switch(name)
        return
    if name == ".section":
        _section_directive(st, args, lineno, col)
        return
    if name == ".pushsection":
        st.stack.append(st.cur)
        _section_directive(st, args, lineno, col)
        return
    if name == ".popsection":
        if not st.stack:
            raise AssemblerError(".popsection without .pushsection", lineno, col)
        st.switch(st.stack.pop())
        return
    if name == ".previous":
        st.switch(st.previous)
        return
    if name in _BINDING or name in _VISIBILITY:
        for n in _names(args, name, lineno, col):
            s = st.symbol(n)
            if name in _BINDING:
                s.binding = _BINDING[name]
            else:
                s.visibility = _VISIBILITY[name]
        return
    if name == ".type":
        sym, _, kind = args.partition(",")
        k = kind.strip().lstrip("@%").strip('"').lower()
        if not _SYM_RE.match(sym.strip()) or k not in _SYMBOL_TYPES:
            raise AssemblerError(f".type expects 'name, @function' or 'name, @object', got "
                                 f"'{args.strip()}'", lineno, col)
        st.symbol(sym.strip()).type = _SYMBOL_TYPES[k]
        return
    if name == ".size":
        sym, _, expr = args.partition(",")
        if not _SYM_RE.match(sym.strip()) or not expr.strip():
            raise AssemblerError(f".size expects 'name, size', got '{args.strip()}'", lineno, col)
        # `.` is the current position, kept now; the rest is resolved once all labels are known
        st.sizes.append((sym.strip(), expr.strip(), st.cur, len(st.out), lineno, col))
        return
    if name == ".amdgcn_target":
        data, rest = _parse_string(args.strip(), lineno, col + len(name) + 1)
        if rest.strip():
            raise AssemblerError(f".amdgcn_target: unexpected '{rest.strip()}'", lineno, col)
        st.target = (data.decode("ascii", "replace"), lineno)
        return
    if name == ".amdhsa_code_object_version":
        v = _parse_number(args.strip())
        if v != 4:
            raise AssemblerError(f".amdhsa_code_object_version {args.strip()}: gcnemu "
                                 f"assembles code object v4 (what LLVM 14 makes)", lineno, col)
        return
    if name.startswith(".amdhsa_") or name in (".end_amdgpu_metadata",):
        raise AssemblerError(f"'{name}' outside an .amdhsa_kernel block", lineno, col)
    raise AssemblerError(f"unsupported directive '{name}'", lineno, col)


_ASSIGN_RE = re.compile(r"\s*([A-Za-z_.$][\w.$]*)\s*=(?!=)\s*(.*)$")


def _assign(name, expr, lineno, col, st):
    s = st.symbols.get(name)
    if s is not None and s.section is not None:
        raise AssemblerError(f"'{name}' is already a label", lineno, col)
    v = _parse_number(expr.strip())
    if not isinstance(v, int):
        raise AssemblerError(f"cannot evaluate '{expr.strip()}' for symbol '{name}'", lineno, col)
    _symbols[name] = v


def _label_difference(expr, cur_section, cur_offset, st, lineno, col, what):
    """The value of an expression over numbers and labels whose addresses cancel out (as
    ``.Lfunc_end0-saxpy``); ``.`` is (cur_section, cur_offset)."""
    section = None
    values = [{}, {}]
    for m in re.finditer(r"(?<![\w.$])(\.(?![\w.$])|[A-Za-z_.$][\w.$]*)", expr):
        n = m.group(1)
        if n in _symbols:
            continue
        if n == ".":
            sec, off = cur_section, cur_offset
        else:
            s = st.symbols.get(n)
            if s is None or s.section is None:
                raise AssemblerError(f"{what}: '{n}' is not defined", lineno, col)
            sec, off = s.section, s.offset
        if section not in (None, sec):
            raise AssemblerError(f"{what}: '{expr}' mixes labels of sections {section} and "
                                 f"{sec}", lineno, col)
        section = sec
        values[0][n], values[1][n] = off, off + (1 << 40)
    results = []
    for vals in values:
        text = re.sub(r"(?<![\w.$])(\.(?![\w.$])|[A-Za-z_.$][\w.$]*)",
                      lambda m: str(vals.get(m.group(1), m.group(1))), expr)
        v = _parse_number(text)
        if not isinstance(v, int):
            raise AssemblerError(f"{what}: cannot evaluate '{expr}'", lineno, col)
        results.append(v)
    if results[0] != results[1]:
        raise AssemblerError(f"{what}: '{expr}' is an address, not a difference of labels",
                             lineno, col)
    return results[0]


def _strip_comment(line: str) -> str:
    """The line without its comment: from ``//`` or ``;`` on (outside string literals), or the
    whole line when it starts with ``#`` (as llvm-mc: elsewhere a ``#`` is an error)."""
    if line.lstrip().startswith("#"):
        return ""
    if '"' not in line:
        for c in ("//", ";"):
            i = line.find(c)
            if i >= 0:
                line = line[:i]
        return line
    quoted = False
    i = 0
    while i < len(line):
        c = line[i]
        if quoted:
            if c == "\\":
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c == ";" or line.startswith("//", i):
            return line[:i]
        i += 1
    return line


def _instruction_reloc(st, optext, op_col, lineno):
    """(operand text with the relocated operand replaced by a placeholder literal, reloc
    fields or None) for an instruction operand such as ``sym@rel32@lo+4``."""
    m = _RELOC_RE.search(optext)
    if not m:
        m = _DIFF_RE.search(optext)
        if m and not any(_parse_reg(n) is not None or n in _symbols for n in m.group(1, 2)):
            # a label difference: a literal the assembler fills once the labels are placed
            text = optext[:m.start()] + str(_RELOC_PLACEHOLDER) + optext[m.end():]
            return text, ("diff", m.group(0), 0, op_col + m.start())
        return optext, None
    col = op_col + m.start()
    if len(_RELOC_RE.findall(optext)) > 1:
        raise AssemblerError("only one relocated operand per instruction", lineno, col)
    kind = m.group(2)
    if kind not in ("rel32@lo", "rel32@hi"):
        raise AssemblerError(f"relocation @{kind} is not supported: gcnemu links PC-relative "
                             f"sym@rel32@lo / sym@rel32@hi (after s_getpc_b64) only", lineno, col)
    addend = _parse_number(m.group(3).replace(" ", "")) if m.group(3).strip() else 0
    if not isinstance(addend, int):
        raise AssemblerError(f"bad relocation addend '{m.group(3).strip()}'", lineno, col)
    text = optext[:m.start()] + str(_RELOC_PLACEHOLDER) + optext[m.end():]
    return text, (kind.replace("@", "_"), m.group(1), addend, col)


def _assemble(source: str) -> AsmObject:
    st = _State()
    block = None          # (kind, start line, data) inside .amdhsa_kernel / .amdgpu_metadata
    for lineno, raw in enumerate(source.split("\n"), 1):
        if block is not None and block[0] == "metadata":
            if _strip_comment(raw).strip().lower() == ".end_amdgpu_metadata":
                st.metadata = ("\n".join(block[2]), block[1] + 1)
                block = None
            else:
                block[2].append(raw)
            continue
        line = _strip_comment(raw)
        if block is not None:     # .amdhsa_kernel
            stripped = line.strip()
            if not stripped:
                continue
            col = len(line) - len(line.lstrip()) + 1
            d, _, value = stripped.partition(" ") if " " in stripped else \
                stripped.partition("\t")
            d = d.lower()
            if d == ".end_amdhsa_kernel":
                kname, kline, dirs = block[1], block[2], block[3]
                st.align[st.cur] = max(st.align[st.cur], 1)
                st.define(kname + ".kd", lineno, col)
                st.kernels.append(AsmKernel(kname, st.cur, len(st.out), dirs, kline))
                st.out.extend(bytes(64))        # the descriptor, encoded when linked
                block = None
                continue
            if not d.startswith(".amdhsa_"):
                raise AssemblerError(f"expected an .amdhsa_ directive or .end_amdhsa_kernel in "
                                     f"the .amdhsa_kernel block of line {block[2]}, got "
                                     f"'{stripped}'", lineno, col)
            if d in block[3]:
                raise AssemblerError(f"{d} given twice in .amdhsa_kernel {block[1]} (first on "
                                     f"line {block[3][d][1]})", lineno, col)
            v = _parse_number(value.strip())
            vcol = col + len(stripped) - len(value.lstrip()) if value.strip() else col
            if not isinstance(v, int):
                raise AssemblerError(f"{d} expects an integer, got '{value.strip()}'", lineno,
                                     vcol)
            block[3][d] = (v, lineno, vcol)
            continue
        start = 0
        while True:
            m = _LABEL_RE.match(line, start)
            if not m:
                break
            st.define(m.group(1), lineno, m.start(1) + 1)
            start = m.end()
        rest = line[start:]
        if not rest.strip():
            continue
        m = _ASSIGN_RE.match(rest)
        if m:
            _assign(m.group(1), m.group(2), lineno, start + m.start(1) + 1, st)
            continue
        m = _MNEMONIC_RE.match(line, start)
        if not m:
            col = start + len(rest) - len(rest.lstrip()) + 1
            raise AssemblerError(f"expected an instruction, a label or a directive, got "
                                 f"'{rest.strip()}'", lineno, col)
        mnemonic = m.group(1)
        mn_col = m.start(1) + 1
        optext = line[m.end():]
        low = mnemonic.lower()
        if low == ".amdhsa_kernel":
            kname = optext.strip()
            if not _SYM_RE.match(kname):
                raise AssemblerError(".amdhsa_kernel expects a kernel name", lineno, mn_col)
            if any(k.name == kname for k in st.kernels):
                raise AssemblerError(f".amdhsa_kernel {kname} given twice", lineno, mn_col)
            block = ("amdhsa", kname, lineno, {})
            continue
        if low == ".amdgpu_metadata":
            if st.metadata is not None:
                raise AssemblerError(".amdgpu_metadata given twice (one metadata document per "
                                     "code object)", lineno, mn_col)
            block = ("metadata", lineno, [])
            continue
        if mnemonic.startswith("."):
            _directive(st, mnemonic, optext, mn_col, lineno)
            continue
        if optext and not optext[0].isspace():
            raise AssemblerError(f"unexpected '{optext[0]}' after '{mnemonic}'", lineno,
                                 m.end() + 1)
        optext, reloc = _instruction_reloc(st, optext, m.end() + 1, lineno)
        try:
            code, fix = _assemble_instruction(mnemonic, mn_col, optext, m.end() + 1, lineno)
        except AssemblerError as e:
            if e.line is None:
                raise AssemblerError(str(e), lineno, e.column) from None
            raise
        except (ValueError, OverflowError, KeyError, IndexError) as e:  # defensive: never leak
            raise AssemblerError(f"cannot assemble '{line.strip()}': {e}", lineno, mn_col) from None
        if reloc is not None:
            if len(code) < 8 or int.from_bytes(code[-4:], "little") != _RELOC_PLACEHOLDER:
                what = reloc[1] if reloc[0] == "diff" else \
                    f"{reloc[1]}@{reloc[0].replace('_', '@')}"
                raise AssemblerError(f"'{mnemonic}' has no 32-bit literal operand for '{what}'",
                                     lineno, reloc[3])
            at = len(st.out) + len(code) - 4
            if reloc[0] == "diff":
                st.diffs.append((st.cur, at, len(st.out), reloc[1], lineno, reloc[3]))
            else:
                st.relocs.append(AsmReloc(st.cur, at, reloc[0], reloc[1], reloc[2], lineno,
                                          reloc[3]))
            code = code[:-4] + bytes(4)
        if fix is not None:
            st.fixups.append((st.cur, len(st.out), fix[0], lineno, fix[1], fix[2]))
        st.out.extend(code)
    if block is not None:
        what = ".amdhsa_kernel" if block[0] == "amdhsa" else ".amdgpu_metadata"
        end = ".end_amdhsa_kernel" if block[0] == "amdhsa" else ".end_amdgpu_metadata"
        raise AssemblerError(f"{what} without its {end}", block[2] if block[0] == "amdhsa"
                             else block[1])
    for section, off, name, lineno, col, addend in st.fixups:
        s = st.symbols.get(name)
        if s is None or s.section is None:
            raise AssemblerError(f"undefined label '{name}'", lineno, col)
        if s.section != section:
            raise AssemblerError(f"branch to '{name}' in section {s.section} from {section}",
                                 lineno, col)
        delta = s.offset + addend - (off + 4)
        if delta % 4:
            raise AssemblerError(f"label '{name}' is not 4-byte aligned relative to the branch",
                                 lineno, col)
        delta //= 4
        if not -32768 <= delta <= 32767:
            raise AssemblerError(f"branch to '{name}' is out of range ({delta} dwords)", lineno, col)
        out = st.sections[section]
        out[off:off + 2] = (delta & 0xFFFF).to_bytes(2, "little")
    for section, at, off, expr, lineno, col in st.diffs:
        v = _label_difference(expr, section, off, st, lineno, col, "operand")
        if not -(1 << 31) <= v < (1 << 32):
            raise AssemblerError(f"'{expr}' = {v} does not fit in a 32-bit literal", lineno, col)
        st.sections[section][at:at + 4] = (v & 0xFFFFFFFF).to_bytes(4, "little")
    for name, expr, section, off, lineno, col in st.sizes:
        size = _label_difference(expr, section, off, st, lineno, col, f".size {name}")
        if not 0 <= size < (1 << 32):
            raise AssemblerError(f".size {name}: {size} is not a size", lineno, col)
        st.symbol(name).size = size
    for k in st.kernels:
        # as LLVM: NAME.kd takes the kernel's binding and visibility, then a kernel of default
        # visibility becomes protected (the descriptor's offset to it is fixed at link time)
        sym, kd = st.symbol(k.name), st.symbols[k.name + ".kd"]
        kd.binding, kd.visibility, kd.type, kd.size = sym.binding, sym.visibility, "object", 64
        if sym.visibility == "default":
            sym.visibility = "protected"
    return AsmObject(sections=st.sections, flags=st.flags, align=st.align, symbols=st.symbols,
                     relocs=st.relocs, kernels=st.kernels, metadata=st.metadata,
                     target=st.target)


def assemble_object(source: str, gen: str = table.GFX7) -> AsmObject:
    """Assemble gfx7 source (gfx6 with ``gen=table.GFX6``: the GCN 1.0 opcodes, and no
    CI-only instruction) with its sections, symbols, relocations, ``.amdhsa_kernel`` blocks
    and ``.amdgpu_metadata`` (what ``clang -S`` writes) into an :class:`AsmObject`;
    gcnemu.loader.asmlink links one into a code object."""
    if not isinstance(source, str):
        raise AssemblerError(f"assembler source must be str, not {type(source).__name__}")
    _symbols.clear()
    _gen[0] = gen
    try:
        return _assemble(source)
    finally:
        _symbols.clear()
        _gen[0] = table.GFX7


def assemble_with_labels(source: str, gen: str = table.GFX7) -> tuple[bytes, dict]:
    """Assemble gfx7 source (gfx6: ``gen=table.GFX6``); return the machine code of its .text
    section and {label: byte offset} (see :meth:`AsmObject.machine_code`)."""
    return assemble_object(source, gen).machine_code()


def assemble(source: str, gen: str = table.GFX7) -> bytes:
    """Assemble gfx7 source text (LLVM syntax) into machine code (its .text section; gfx6:
    ``gen=table.GFX6``)."""
    return assemble_with_labels(source, gen)[0]
