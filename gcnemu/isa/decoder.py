"""Decode gfx7 machine code into Instruction records (fields as the hardware encodes them)."""
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


def _has_literal(defn: table.InstrDef, f: dict) -> bool:
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
        # CI (gfx7) only: IMM=0 with OFFSET=255 takes a 32-bit literal byte offset
        return f["imm"] == 0 and f["offset"] == LITERAL
    return False


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
        gen_name = "GCN 1.1 (gfx7)" if gen == table.GFX7 else "GCN 1.0 (gfx6)"
        raise DecodeError(f"undefined {fam} opcode {f.get('op', 0)} at byte offset {offset} "
                          f"(word 0x{w0:08x}) for {gen_name}", offset=offset)
    if defn.is_vop3b:
        f = extract(word, VOP3B_FIELDS)
    literal = None
    if _has_literal(defn, f):
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
