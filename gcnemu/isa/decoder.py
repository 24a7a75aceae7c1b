"""Decode gfx7 (or gfx6: ``gen=table.GFX6``) machine code into Instruction records (fields as
the hardware encodes them)."""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import DecodeError
from . import table
from .encoding import DETECT_ORDER, LAYOUTS, LITERAL, VOP3B_FIELDS, extract


@dataclass(frozen=True)
class Instruction:
    """One decoded instruction: its table row, raw fields, optional literal, place and size."""

    defn: table.InstrDef
    fields: dict
    literal: int | None
    offset: int
    size: int

    @property
    def name(self) -> str:
        return self.defn.name


def detect_family(word: int) -> str | None:
    """The encoding family of a first dword, or None."""
    for fam in DETECT_ORDER:
        _, match, mask, _ = LAYOUTS[fam]
        if word & mask == match:
            return fam
    return None


def _has_literal(defn: table.InstrDef, f: dict, gen: str) -> bool:
    enc = defn.encoding
    if enc in ("SOP2", "SOPC"):
        return f["ssrc0"] == LITERAL or f["ssrc1"] == LITERAL
    if enc == "SOP1":
        return f["ssrc0"] == LITERAL
    if enc in ("VOP1", "VOP2", "VOPC"):
        return f["src0"] == LITERAL or defn.name in ("v_madmk_f32", "v_madak_f32")
    if enc == "SOPK":
        return defn.name == "s_setreg_imm32_b32"
    if enc == "SMRD":
        # CI (gfx7) only: IMM=0 with OFFSET=255 takes a 32-bit literal byte offset (the CI ISA
        # manual, SMRD; LLVM's SIInstrInfo has the literal-offset SMRD forms for CI only)
        return gen == table.GFX7 and f["imm"] == 0 and f["offset"] == LITERAL
    return False


#: scalar operand codes GCN 1.0 lacks: FLAT_SCRATCH_LO/HI are GCN 1.1 (CLRX GcnOperands.md:
#: "104-105 FLAT_SCRATCH register (GCN1.1)"; CLRX's GCN 1.0 decoder prints them ill_104/105)
_GFX6_RESERVED_SCALAR = {104: "flat_scratch_lo", 105: "flat_scratch_hi"}


def _check_gfx6_operands(defn: table.InstrDef, f: dict, offset: int, w0: int) -> None:
    """DecodeError for what GCN 1.0 does not encode: an SMRD literal offset (IMM=0,
    OFFSET=255, GCN 1.1 only: CLRX GcnInstrsSmrd.md) and FLAT_SCRATCH operands (104, 105)."""
    where = f"{defn.name} at byte offset {offset} (word 0x{w0:08x})"
    enc, roles = defn.encoding, {r for r, _ in defn.operands}
    if enc == "SMRD" and f["imm"] == 0 and f["offset"] == LITERAL:
        raise DecodeError(f"{where}: a literal offset (IMM=0, OFFSET=255) is GCN 1.1 (gfx7) "
                          f"only", offset=offset)
    codes = {k: f[k] for k in ("sdst", "ssrc0", "ssrc1", "soffset") if k in f}
    if enc == "SMRD":
        codes["sbase"] = f["sbase"] << 1
        if f["imm"] == 0:
            codes["offset"] = f["offset"]
    if enc in ("VOP1", "VOP2", "VOPC", "VOP3"):
        codes["src0"] = f["src0"]
        for k in ("src1", "src2"):
            if k in f and (k in roles or "s" + k in roles):
                codes[k] = f[k]
        if "ssrc1" in roles and "vsrc1" in f:    # v_readlane/v_writelane: a scalar VSRC1
            codes["vsrc1"] = f["vsrc1"]
        if "sdst" in roles and "sdst" not in f:   # v_cmp_*_e64, v_readlane: SGPR in VDST
            codes["vdst"] = f["vdst"]
    for k, v in codes.items():
        if v in _GFX6_RESERVED_SCALAR:
            raise DecodeError(f"{where}: {k} {v} is {_GFX6_RESERVED_SCALAR[v]}, which GCN 1.0 "
                              f"(gfx6) does not have (GCN 1.1 only)", offset=offset)


def decode_one(code: bytes, offset: int, gen: str = table.GFX7) -> Instruction:
    """Decode the instruction at byte `offset`; raise DecodeError naming the offset."""
    if offset + 4 > len(code):
        raise DecodeError(f"truncated instruction at byte offset {offset}: "
                          f"{len(code) - offset} byte(s) left, need 4", offset=offset)
    w0 = int.from_bytes(code[offset:offset + 4], "little")
    fam = detect_family(w0)
    if fam is None:
        raise DecodeError(f"undefined encoding 0x{w0:08x} at byte offset {offset}", offset=offset)
    size, _, _, fields = LAYOUTS[fam]
    if offset + size > len(code):
        raise DecodeError(f"truncated {fam} instruction at byte offset {offset}: needs {size} bytes, "
                          f"{len(code) - offset} left", offset=offset)
    word = int.from_bytes(code[offset:offset + size], "little")
    f = extract(word, fields)
    defn = table.lookup(fam, f.get("op", 0), gen)
    if defn is None:
        other = table.lookup(fam, f.get("op", 0), table.GFX7 if gen == table.GFX6 else table.GFX6)
        also = f" ({other.name} is {table.GEN_NAMES[next(iter(other.gens))]} only)" if other else ""
        raise DecodeError(f"undefined {fam} opcode {f.get('op', 0)} at byte offset {offset} "
                          f"(word 0x{w0:08x}) for {table.GEN_NAMES[gen]}{also}", offset=offset)
    if defn.is_vop3b:
        f = extract(word, VOP3B_FIELDS)
    if gen == table.GFX6:
        _check_gfx6_operands(defn, f, offset, w0)
    literal = None
    if _has_literal(defn, f, gen):
        if offset + size + 4 > len(code):
            raise DecodeError(f"truncated literal of {defn.name} at byte offset {offset}: "
                              f"the 32-bit constant after the instruction is missing", offset=offset)
        literal = int.from_bytes(code[offset + size:offset + size + 4], "little")
        size += 4
    return Instruction(defn, f, literal, offset, size)


def decode(code: bytes, gen: str = table.GFX7, start: int = 0, end: int | None = None) -> list[Instruction]:
    """Decode a whole code block into a list of instructions."""
    try:
        code = bytes(code)
    except TypeError:
        raise DecodeError(f"machine code must be bytes, not {type(code).__name__}") from None
    end = len(code) if end is None else end
    out, pc = [], start
    view = code[:end]
    while pc < end:
        ins = decode_one(view, pc, gen)
        out.append(ins)
        pc += ins.size
    return out
