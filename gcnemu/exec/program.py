"""A decoded program: instructions turned once into a structure of integer arrays.

The engine never looks at bytes or strings. Each instruction becomes one row of `Program.code`
(int64, shape [n, NCOL]); its columns (C_*) are described in gcnemu/exec/layout.py. Operand codes use
the hardware's 9-bit source space (0..255 scalar registers and constants, 256 + n for VGPR n),
so one reader serves every family.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

import numpy as np

from ..isa import table
from ..isa.decoder import Instruction, decode
from ..isa.encoding import LITERAL
from ..mem.ds import lds_row_form
from ..mem.flat import flat_row_form
from ..mem.space import zeros_aligned
from ..mem.subops import subop as memory_subop
from ..sem import valu_int
from ..sem.fp import output_modifier_width
from . import blockjit
from . import layout as L
from .dispatch_gen import SALU_NAMES, VALU_NAMES
from .layout import (C_ABS, C_CLAMP, C_DST, C_F0, C_F1, C_F2, C_F3, C_F4, C_F5, C_F6, C_FAST,
                     C_FLAGS, C_H, C_IMM, C_K, C_K0, C_K1, C_K2, C_KD, C_LIT, C_NEG, C_OMOD,
                     C_OMODW, C_PC, C_ROW, C_S0, C_S1, C_S2, C_SDST, C_SIZE, C_SMAX, C_TGT, C_UNIT,
                     C_V0, C_V1, C_V2, C_VMAX, C_W0, C_W1, C_W2, C_WD, NCOL, VCC_LO)
from .opkernels import salu_address, valu32_address, valu_address

_VALU_INDEX = {n: i for i, n in enumerate(VALU_NAMES)}
#: mnemonic -> the op a GCN 1.0 (gfx6) GPU runs for it, where SI and CI differ (the
#: <mnemonic>_gfx6 functions of gcnemu/sem, each citing its document)
GFX6_SEMANTICS = {n[:-len("_gfx6")]: n for n in VALU_NAMES if n.endswith("_gfx6")}
_SALU_INDEX = {n: i for i, n in enumerate(SALU_NAMES)}
#: SALU index -> the engine's inline form (L.SQ_*, in C_V2 of fast SALU rows): the moves and
#: bitwise ops that branchy code is made of, run without a call (engine.salu_quick)
_SALU_QUICK = {_SALU_INDEX[f"s_{op}_b{w}"]: q for w in (32, 64) for op, q in (
    ("and", L.SQ_AND), ("or", L.SQ_OR), ("xor", L.SQ_XOR), ("andn2", L.SQ_ANDN2),
    ("orn2", L.SQ_ORN2), ("nand", L.SQ_NAND), ("nor", L.SQ_NOR), ("xnor", L.SQ_XNOR),
    ("mov", L.SQ_MOV), ("not", L.SQ_NOT)) if f"s_{op}_b{w}" in _SALU_INDEX}

UNITS = ("SALU", "SMEM", "VALU", "VMEM", "LDS", "EXPORT", "BRANCH", "SPECIAL")
_UNIT_INDEX = {u: i for i, u in enumerate(UNITS)}


def _width(kind: str) -> int:
    """Dwords of an operand kind from LLVM's syntax doc (vdst64_0 -> 2, ssrc32_1 -> 1...)."""
    m = re.search(r"(32|64|96|128|256|512)", kind)
    return int(m.group(1)) // 32 if m else 1


def _kinds(defn: table.InstrDef) -> dict:
    out = {}
    for role, kind in defn.operands:
        out.setdefault(role, kind)
    return out


@dataclass
class Program:
    """Decoded instructions of one kernel or snippet, ready for the engine."""

    code: np.ndarray                 #: int64 [n, NCOL]
    instructions: list               #: the decoded Instruction records, same order
    pc_index: dict = field(default_factory=dict)   #: byte offset -> row
    name: str = "snippet"

    def row_at(self, pc: int) -> int:
        return self.pc_index[pc]

    def text_at(self, row: int) -> str:
        """Disassembly of one row, for error messages."""
        try:
            from ..isa.disassembler import format_instruction
            return format_instruction(self.instructions[row])
        except Exception:  # the disassembler is optional for messages
            return self.instructions[row].name


def _branch_target(ins: Instruction, simm16: int, pc_index: dict, prog_name: str) -> int:
    off = simm16 - 0x10000 if simm16 & 0x8000 else simm16
    target = ins.offset + 4 + off * 4
    # a target outside the program is reported when (and only if) the branch is taken
    return pc_index.get(target, -1 - target if target >= 0 else -1)


_SAVEEXEC = {"s_and_saveexec_b64": 0, "s_or_saveexec_b64": 1, "s_xor_saveexec_b64": 2,
             "s_andn2_saveexec_b64": 3, "s_orn2_saveexec_b64": 4, "s_nand_saveexec_b64": 5,
             "s_nor_saveexec_b64": 6, "s_xnor_saveexec_b64": 7}
_CBRANCH = {"s_cbranch_scc0": 0, "s_cbranch_scc1": 1, "s_cbranch_vccz": 2, "s_cbranch_vccnz": 3,
            "s_cbranch_execz": 4, "s_cbranch_execnz": 5, "s_cbranch_cdbgsys": 6,
            "s_cbranch_cdbguser": 6, "s_cbranch_cdbgsys_or_user": 6, "s_cbranch_cdbgsys_and_user": 6}
_SOPP_SIMPLE = {"s_nop": L.H_NOP, "s_endpgm": L.H_ENDPGM, "s_branch": L.H_BRANCH,
                "s_waitcnt": L.H_WAITCNT, "s_barrier": L.H_BARRIER, "s_sleep": L.H_NOP,
                "s_setprio": L.H_NOP, "s_sendmsg": L.H_SENDMSG, "s_sendmsghalt": L.H_SENDMSG,
                "s_trap": L.H_TRAP, "s_icache_inv": L.H_NOP, "s_incperflevel": L.H_NOP,
                "s_decperflevel": L.H_NOP, "s_ttracedata": L.H_NOP, "s_sethalt": L.H_SETHALT,
                "s_setkill": L.H_NOP}
_SALU_SPECIAL = {"s_getpc_b64": L.H_GETPC, "s_setpc_b64": L.H_SETPC, "s_swappc_b64": L.H_SWAPPC,
                 "s_rfe_b64": L.H_RFE, "s_movrels_b32": L.H_MOVRELS, "s_movrels_b64": L.H_MOVRELS,
                 "s_movreld_b32": L.H_MOVRELD, "s_movreld_b64": L.H_MOVRELD,
                 "s_cbranch_join": L.H_CBRANCH_JOIN, "s_cbranch_g_fork": L.H_CBRANCH_G_FORK,
                 "s_cbranch_i_fork": L.H_CBRANCH_I_FORK, "s_getreg_b32": L.H_GETREG,
                 "s_setreg_b32": L.H_SETREG, "s_setreg_imm32_b32": L.H_SETREG,
                 "s_mov_regrd_b32": L.H_SALU, "s_setvskip": L.H_NOP}
_VALU_SPECIAL = {"v_readlane_b32": L.H_READLANE, "v_writelane_b32": L.H_WRITELANE,
                 "v_readfirstlane_b32": L.H_READFIRSTLANE, "v_movrels_b32": L.H_VMOVRELS,
                 "v_movreld_b32": L.H_VMOVRELD, "v_movrelsd_b32": L.H_VMOVRELSD,
                 "v_nop": L.H_NOP, "v_clrexcp": L.H_NOP, "v_mqsad_u32_u8": L.H_MQSAD}
_VCC_CIN_E32 = set(valu_int.CIN_OPS)
_CARRY_OUT = set(valu_int.SDST_OUT_OPS)


def _row(ins: Instruction, pc_index: dict, prog_name: str, gen: str) -> np.ndarray:
    r = np.zeros(NCOL, np.int64)
    d = ins.defn
    f = ins.fields
    name, enc = d.name, d.encoding
    # the op that runs: the instruction's own, or its GCN 1.0 form on a gfx6 GPU
    op = GFX6_SEMANTICS.get(name, name) if gen == table.GFX6 else name
    kinds = _kinds(d)
    r[C_PC] = ins.offset
    r[C_SIZE] = ins.size
    r[C_UNIT] = _UNIT_INDEX.get(d.unit, 0)
    r[C_S0] = r[C_S1] = r[C_S2] = r[C_DST] = r[C_SDST] = -1
    r[C_LIT] = ins.literal if ins.literal is not None else 0
    r[C_W0] = r[C_W1] = r[C_W2] = r[C_WD] = 1
    flags = 0
    if "f64" in name:
        flags |= L.FL_LIT_HIGH

    if enc in ("SOP2", "SOP1", "SOPC", "SOPK"):
        if name in _SALU_SPECIAL:
            r[C_H] = _SALU_SPECIAL[name]
        elif name in _SALU_INDEX:
            r[C_H] = L.H_SALU
            r[C_K] = _SALU_INDEX[name]
        elif name in _SAVEEXEC:
            r[C_H] = L.H_SAVEEXEC
            r[C_K] = _SAVEEXEC[name]
        else:
            r[C_H] = L.H_UNIMPLEMENTED
        if name == "s_mov_regrd_b32":
            r[C_H] = L.H_SALU
            r[C_K] = _SALU_INDEX.get("s_mov_b32", 0)
        if enc == "SOPK":
            r[C_S0] = f["sdst"]
            r[C_W0] = _width(kinds.get("sdst", kinds.get("ssrc", "32")))
            r[C_S1] = LITERAL
            r[C_LIT] = f["simm16"]
            r[C_IMM] = f["simm16"]
            if not name.startswith("s_cmpk") and name != "s_cbranch_i_fork" and not name.startswith("s_setreg"):
                r[C_DST] = f["sdst"]
            if name == "s_setreg_imm32_b32":
                r[C_S0] = LITERAL
                r[C_LIT] = ins.literal
            if name == "s_cbranch_i_fork":
                r[C_TGT] = _branch_target(ins, f["simm16"], pc_index, prog_name)
            r[C_WD] = r[C_W0]
        else:
            r[C_S0] = f["ssrc0"]
            r[C_W0] = _width(kinds.get("ssrc0", kinds.get("ssrc", "32")))
            if enc in ("SOP2", "SOPC"):
                r[C_S1] = f["ssrc1"]
                r[C_W1] = _width(kinds.get("ssrc1", "32"))
            if enc != "SOPC":
                r[C_DST] = f["sdst"]
                r[C_WD] = _width(kinds.get("sdst", "32"))
        return r

    if enc == "SOPP":
        r[C_IMM] = f["simm16"]
        if name in _CBRANCH:
            r[C_H] = L.H_CBRANCH
            r[C_K] = _CBRANCH[name]
        else:
            r[C_H] = _SOPP_SIMPLE.get(name, L.H_UNIMPLEMENTED)
        if name == "s_branch" or name in _CBRANCH:
            r[C_TGT] = _branch_target(ins, f["simm16"], pc_index, prog_name)
        return r

    if enc == "SMRD":
        if name.startswith(("s_load_dword", "s_buffer_load_dword")):
            r[C_H] = L.H_SMRD_LOAD
            r[C_K] = _width(kinds["sdst"])
            r[C_F0] = 1 if name.startswith("s_buffer") else 0
        elif name == "s_memtime":
            r[C_H] = L.H_MEMTIME
        else:
            # s_dcache_inv, s_dcache_inv_vol: no scalar cache is modelled; a nop row, without
            # the SMRD fields below
            r[C_H] = L.H_NOP
            return r
        r[C_S0] = f["sbase"] * 2
        r[C_DST] = f["sdst"]
        if f["imm"]:
            r[C_IMM] = f["offset"] * 4
            r[C_F1] = 0
        elif ins.literal is not None:
            r[C_IMM] = ins.literal * 4   # CI literal offset counts dwords, like the 8-bit one
        else:
            r[C_F1] = 1
            r[C_S1] = f["offset"]
        return r

    if enc in ("VOP2", "VOP1", "VOPC", "VOP3"):
        vop3 = enc == "VOP3"
        if name in _VALU_SPECIAL:
            r[C_H] = _VALU_SPECIAL[name]
        elif op in _VALU_INDEX:
            r[C_H] = L.H_VCMP if name.startswith("v_cmp") else L.H_VALU
        else:
            r[C_H] = L.H_UNIMPLEMENTED
        srcs = [k for k in ("src0", "src", "vsrc0") if k in kinds]
        r[C_S0] = f["src0"]
        r[C_W0] = _width(kinds[srcs[0]]) if srcs else 1
        if vop3:
            r[C_S1] = f["src1"]
            r[C_S2] = f["src2"]
            r[C_W1] = _width(kinds.get("src1", "32"))
            r[C_W2] = _width(kinds.get("src2", "32"))
            r[C_ABS] = f.get("abs", 0)
            r[C_NEG] = f["neg"]
            r[C_CLAMP] = f.get("clamp", 0)
            r[C_OMOD] = f["omod"]
            # VOP3 always encodes src1 and src2; an op without such an operand ignores the
            # field (usually 0: s0). Absent, as in the VOP1/VOP2/VOPC forms, so that the
            # engine reads nothing for it (a v_cmp_*_e64 or v_add_i32_e64 with VGPR and
            # constant sources stays on the pre-resolved FL_PLAIN32 path)
            if not any(k in kinds for k in ("src1", "ssrc1", "vsrc1")):
                r[C_S1] = -1
            if not any(k in kinds for k in ("src2", "ssrc2", "vsrc2")):
                r[C_S2] = -1
        elif enc in ("VOP2", "VOPC"):
            r[C_S1] = 256 + f["vsrc1"]
            r[C_W1] = _width(kinds.get("vsrc1", "32"))
        vd = kinds.get("vdst", "vdst32_0")
        r[C_WD] = _width(vd)
        if enc != "VOPC":
            r[C_DST] = f["vdst"]
        if name.startswith("v_cmp"):
            flags |= L.FL_CMP
            if name.startswith(("v_cmpx", "v_cmpsx")):
                flags |= L.FL_CMPX
            if vop3:
                r[C_SDST] = f["vdst"]
                r[C_DST] = -1
            else:
                r[C_SDST] = VCC_LO
        if name in _CARRY_OUT or name.startswith("v_div_scale"):
            r[C_SDST] = f["sdst"] if vop3 else VCC_LO
            flags |= L.FL_FLAGS_TO_SDST
        if name in _VCC_CIN_E32:
            if vop3:
                flags |= L.FL_CIN_S2
            else:
                flags |= L.FL_CIN_VCC
        if name.startswith("v_div_fmas"):
            flags |= L.FL_CIN_VCC
        if name in ("v_mac_f32", "v_mac_legacy_f32", "v_cvt_pkaccum_u8_f32"):
            r[C_S2] = 256 + f["vdst"]
            r[C_W2] = 1
        if name in ("v_madmk_f32", "v_madak_f32"):
            r[C_S2] = LITERAL
        if name in ("v_readlane_b32", "v_writelane_b32"):
            if not vop3:
                r[C_S1] = f["vsrc1"]   # the lane select is a scalar operand in VOP2's VSRC1 slot
            r[C_DST] = f["vdst"]
        if name == "v_readfirstlane_b32":
            r[C_DST] = f["vdst"]
        if vop3:
            # VOP3 has no literal on gfx7; src2 of 2-operand ops is ignored
            pass
        r[C_OMODW] = output_modifier_width(name) if r[C_H] == L.H_VALU else 0
        if r[C_H] in (L.H_VALU, L.H_VCMP):
            # every operand 32-bit and no output modifier: the 32-bit row kernel, which reads
            # VGPRs in place and stores the result itself; else the 64-bit-lane one
            widths = [r[C_W0], r[C_W1], r[C_W2]] + ([] if flags & L.FL_CMP else [r[C_WD]])
            if max(widths) == 1 and (r[C_OMOD] | r[C_CLAMP]) == 0:
                flags |= L.FL_ROW32
                r[C_K] = valu32_address(op)
            else:
                r[C_K] = valu_address(op)
        r[C_FLAGS] = flags
        return r

    # Memory, interpolation and export families: the engine reads the raw fields.
    r[C_H] = L.MEMORY_HANDLERS.get(enc, L.H_UNIMPLEMENTED)
    names = _FIELD_ORDER.get(enc, ())
    for i, fn in enumerate(names):
        r[C_F0 + i] = f.get(fn, 0)
    r[C_K] = memory_subop(enc, name)
    r[L.C_FN] = 0   # the family's entry: written when first needed (engine.provide_code)
    r[C_WD] = _width(kinds.get("vdst", kinds.get("vdata", "32")))
    if enc == "MIMG":
        r[C_WD] = bin(f["dmask"]).count("1") or 1
    r[C_FLAGS] = flags
    r[C_IMM] = f.get("offset", 0)
    for i, fn in enumerate(_EXTRA_FIELDS.get(enc, ())):
        r[C_LIT] |= int(f.get(fn, 0)) << (8 * i)
    return r


#: which raw fields of each memory family go to columns C_F0.. (in this order)
_FIELD_ORDER = {
    "DS": ("offset0", "offset1", "gds", "addr", "data0", "data1", "vdst"),
    "FLAT": ("glc", "slc", "addr", "data", "tfe", "vdst"),
    "MUBUF": ("offen", "idxen", "glc", "addr64", "lds", "vaddr", "vdata", "srsrc"),
    "MTBUF": ("offen", "idxen", "glc", "addr64", "dfmt", "vaddr", "vdata", "srsrc"),
    "MIMG": ("dmask", "unorm", "glc", "da", "vaddr", "vdata", "srsrc", "ssamp"),
    "VINTRP": ("vsrc", "attrchan", "attr", "vdst"),
    "EXP": ("en", "tgt", "compr", "done", "vm", "vsrc0", "vsrc1", "vsrc2"),
}

#: further raw fields of memory families, packed 8 bits each into column C_LIT (these
#: encodings carry no literal): field i at bits 8*i .. 8*i+7 (the memory families of gcnemu/mem)
_EXTRA_FIELDS = {
    "MUBUF": ("tfe", "slc"),
    "MTBUF": ("tfe", "slc", "nfmt"),
    "MIMG": ("tfe", "lwe", "r128", "slc"),
    "EXP": ("vsrc3",),
}


def build_program(instructions: list, name: str = "snippet", gen: str = table.GFX7) -> Program:
    """Turn decoded instructions into the engine's arrays; ``gen`` table.GFX6 runs the GCN 1.0
    semantics where they differ (GFX6_SEMANTICS)."""
    pc_index = {ins.offset: i for i, ins in enumerate(instructions)}
    code = np.zeros((max(len(instructions), 1), NCOL), np.int64)
    for i, ins in enumerate(instructions):
        code[i] = _row(ins, pc_index, name, gen)
        code[i, C_ROW] = i
        if ins.defn.encoding in ("MUBUF", "MTBUF"):
            code[i, C_S0] = ins.fields["soffset"]
        _fast_columns(code[i])
        if code[i, C_FAST] and int(code[i, C_FLAGS]) & L.FL_ROW32:
            _row32_operands(code[i])
    if not instructions:
        code[0, C_H] = L.H_ENDPGM
    elif blockjit.ENABLED:
        blockjit.compile_blocks(code, [ins.name for ins in instructions])
    return Program(code, list(instructions), pc_index, name)


_M32 = 0xFFFFFFFF
_M64 = 0xFFFFFFFFFFFFFFFF


class _ConstantRows:
    """Rows of 64 equal uint32 lanes, one per constant value, never freed: the source rows
    of constant operands of 32-bit row kernels (an instruction's C_V column holds its row's
    address, abs/neg already applied), so the engine reads them in place instead of filling a
    scratch row at every execution. Rows are 64-byte aligned, allocated in chunks."""

    CHUNK = 256

    def __init__(self):
        self._address: dict[int, int] = {}
        self._chunks: list = []
        self._used = self.CHUNK      # rows of the last chunk handed out
        self._lock = threading.Lock()

    def address(self, value: int) -> int:
        value &= _M32
        addr = self._address.get(value)
        if addr is None:
            with self._lock:
                addr = self._address.get(value)
                if addr is None:
                    if self._used == self.CHUNK:
                        self._chunks.append(zeros_aligned((self.CHUNK, 64), np.uint32))
                        self._used = 0
                    row = self._chunks[-1][self._used]
                    self._used += 1
                    row[:] = value
                    addr = self._address[value] = row.ctypes.data
        return addr


CONSTANT_ROWS = _ConstantRows()


def _row32_operands(r: np.ndarray) -> None:
    """For a 32-bit row kernel instruction (FL_ROW32): a constant source's C_V column becomes
    the address of its row in CONSTANT_ROWS, abs/neg applied (engine.row32_source), an absent
    source's the address of the zero row; a constant carry-in mask in src2 (FL_CIN_S2) stays
    a value. Rows whose sources are all such rows or VGPRs without abs/neg get FL_PLAIN32:
    the engine then finds each source row with one test (a VGPR or C_V) instead of resolving
    kinds, modifiers and SGPR broadcasts at every execution."""
    flags = int(r[C_FLAGS])
    plain = not flags & L.FL_CIN_S2
    for i in range(3):
        if i == 2 and flags & L.FL_CIN_S2:
            continue
        kind = int(r[C_K0 + i])
        absb, negb = (int(r[C_ABS]) >> i) & 1, (int(r[C_NEG]) >> i) & 1
        if kind == L.OP_CONST:
            v = ((int(r[C_V0 + i]) & _M32) & ~(absb << 31)) ^ (negb << 31)
            r[C_V0 + i] = CONSTANT_ROWS.address(v)
        elif kind == L.OP_NONE:
            r[C_V0 + i] = CONSTANT_ROWS.address(0)
        elif kind != L.OP_VGPR or absb or negb:
            plain = False
    if plain:
        r[C_FLAGS] = flags | L.FL_PLAIN32


def _scalar_operand(code: int, ndw: int, lit: int, lit_high: bool):
    """(kind, constant, sgpr end) of a scalar operand as the engine's read_scalar sees it.

    kind is OP_SREG for registers 0..127, OP_CONST for inline constants and literals (their
    value, as read_scalar would return it, is the constant), None for operands whose value
    is dynamic (VCCZ, EXECZ, SCC) or invalid: those instructions take the general path, as do
    registers whose range runs past code 127 (the general path reports them).
    sgpr end is code + ndw for SGPRs 0..103 (checked against the wave's allocation), else 0.
    """
    if code < 0:
        return L.OP_NONE, 0, 0
    if code == 125 or (code < 128 and code + ndw > 128):
        return None, 0, 0
    if code < 128:
        return L.OP_SREG, 0, (code + ndw if code <= 103 else 0)
    if code <= 192:
        return L.OP_CONST, code - 128, 0
    if code <= 208:
        v = (-(code - 192)) & _M64
        return L.OP_CONST, (v if ndw >= 2 else v & _M32), 0
    if 240 <= code <= 247:
        t = L.INLINE_F64 if ndw >= 2 else L.INLINE_F32
        return L.OP_CONST, int(t[code - 240]), 0
    if code == 255:
        v = int(lit) & _M32
        return L.OP_CONST, (v << 32 if ndw >= 2 and lit_high else v), 0
    return None, 0, 0


def _vector_operand(code: int, ndw: int, lit: int, lit_high: bool):
    """(kind, constant, sgpr end, vgpr end) of a VALU source as read_vector sees it."""
    if code >= 256:
        return L.OP_VGPR, 0, 0, code - 256 + ndw
    if code == 254:   # LDS_DIRECT
        return None, 0, 0, 0
    k, v, se = _scalar_operand(code, ndw, lit, lit_high)
    return k, v, se, 0


def _sdst_ok(code: int, ndw: int) -> bool:
    """A scalar destination of ``ndw`` dwords the fast path may write (else the general path
    runs the row and reports what is wrong)."""
    return 0 <= code and code + ndw <= 128 and code != 125


def _i64(v: int) -> int:
    v &= _M64
    return v - (1 << 64) if v >= 1 << 63 else v


def _fast_columns(r: np.ndarray) -> None:
    """Precompute what the engine's fast path needs: operand kinds (C_K0/1/2/D), constant
    operand values (C_V0/1/2), the SGPR and VGPR allocation the operands need (C_SMAX,
    C_VMAX; compared with the wave's at run time) and C_FAST = 1 when every operand is one
    the fast path handles. Instructions left at C_FAST 0 run the engine's general path."""
    h = int(r[C_H])
    lit = int(r[C_LIT])
    lit_high = (int(r[C_FLAGS]) & L.FL_LIT_HIGH) != 0
    kinds, vals, smax, vmax = [L.OP_NONE] * 3, [0] * 3, 0, 0
    ok = True
    kd = L.OP_NONE
    if h == L.H_SALU:
        for i, (c, wc) in enumerate(((C_S0, C_W0), (C_S1, C_W1))):
            k, v, se = _scalar_operand(int(r[c]), int(r[wc]), lit, lit_high)
            ok &= k is not None and (i == 1 or int(r[c]) >= 0)
            kinds[i], vals[i], smax = (k or 0), v, max(smax, se)
        d, wd = int(r[C_DST]), int(r[C_WD])
        if d >= 0:
            ok &= _sdst_ok(d, wd) and wd <= 2
            kd = L.OP_SREG
            if 0 <= d <= 103:
                smax = max(smax, d + wd)
        vals[2] = _SALU_QUICK.get(int(r[C_K]), L.SQ_NONE)
        if vals[2] == L.SQ_NONE:
            r[L.C_SFN] = salu_address(SALU_NAMES[int(r[C_K])])
    elif h == L.H_SMRD_LOAD:
        # s_load_dword[xN] from an SGPR base with an immediate offset: the engine loads it in
        # place (mem.scalar.smem_in_place) when the wave has the SGPRs (C_SMAX)
        s0, d, ndw = int(r[C_S0]), int(r[C_DST]), int(r[C_K])
        if int(r[C_F0]) or int(r[C_F1]) or not (0 <= s0 <= 102 and 0 <= d and d + ndw <= 104):
            return
        r[C_SMAX], r[C_FAST] = max(s0 + 2, d + ndw), 1
        return
    elif h == L.H_SAVEEXEC:
        k, v, se = _scalar_operand(int(r[C_S0]), 2, lit, False)
        ok &= k is not None
        kinds[0], vals[0], smax = (k or 0), v, se
        d = int(r[C_DST])
        ok &= _sdst_ok(d, 2)
        if 0 <= d <= 103:
            smax = max(smax, d + 2)
    elif h in (L.H_VALU, L.H_VCMP):
        flags = int(r[C_FLAGS])
        ops = [(C_S0, C_W0), (C_S1, C_W1), (C_S2, C_W2)]
        for i, (c, wc) in enumerate(ops):
            code = int(r[c])
            if i == 0 or code >= 0:
                if i == 2 and flags & L.FL_CIN_S2:
                    k, v, se = _scalar_operand(code, 2, lit, False)
                    ve = 0
                else:
                    k, v, se, ve = _vector_operand(code, int(r[wc]), lit, lit_high)
                ok &= k is not None and code >= 0
                kinds[i], vals[i], smax, vmax = (k or 0), v, max(smax, se), max(vmax, ve)
        if flags & (L.FL_CMP | L.FL_FLAGS_TO_SDST):
            sd = int(r[C_SDST])
            ok &= _sdst_ok(sd, 2)
            if 0 <= sd <= 103:
                smax = max(smax, sd + 2)
        if not flags & L.FL_CMP:
            d = int(r[C_DST])
            ok &= d >= 0
            vmax = max(vmax, d + int(r[C_WD]))
    elif h == L.H_DS:
        form = lds_row_form(*(int(r[c]) for c in (C_K, C_F0, C_F1, C_F2, C_F3, C_F4, C_F5, C_F6)))
        if form is not None:
            # the engine's LDS fast path (mem.ds.lds_row_form; columns layout.C_DS_*)
            fn, ra, rb, uo0, uo1, amask, vmax = form
            r[L.C_DS_FN], r[L.C_DS_ROW_A], r[L.C_DS_ROW_B] = fn, ra, rb
            r[L.C_DS_UO0], r[L.C_DS_UO1], r[L.C_DS_AMASK] = uo0, uo1, amask
            r[C_VMAX], r[C_FAST] = vmax, 1
        return
    elif h == L.H_SETREG:
        # the SGPR an s_setreg reads, for the block facts (blockjit: C_BSMAX); the hot loop
        # checks it itself (engine.fast_row)
        if 0 <= int(r[C_S0]) <= 103:
            r[C_SMAX] = int(r[C_S0]) + 1
        return
    elif h == L.H_FLAT:
        form = flat_row_form(*(int(r[c]) for c in (C_K, C_F2, C_F3, C_F5)))
        if form is not None:
            # the engine's FLAT fast path (mem.flat.flat_row_form; columns layout.C_FL_*)
            fn, row, span, vmax = form
            r[L.C_FL_FN], r[L.C_FL_ROW], r[L.C_FL_SPAN] = fn, row, span
            r[C_VMAX], r[C_FAST] = vmax, 1
        return
    else:
        return
    r[C_K0], r[C_K1], r[C_K2], r[C_KD] = kinds[0], kinds[1], kinds[2], kd
    r[C_V0], r[C_V1], r[C_V2] = _i64(vals[0]), _i64(vals[1]), _i64(vals[2])
    r[C_SMAX], r[C_VMAX] = smax, vmax
    r[C_FAST] = 1 if ok else 0


def program_from_bytes(code: bytes, name: str = "snippet") -> Program:
    """Decode machine code and build its Program (offsets are relative to the code start);
    undecodable bytes raise DecodeError naming the offset."""
    return build_program(decode(code), name)
