"""Disassembler: decoded gfx7 instructions back to LLVM's assembly syntax.

The text is written so that ``llvm-mc -arch=amdgcn -mcpu=bonaire`` and our own assembler
re-assemble it to the same bytes (``v_add_f32_e32 v1, v2, v3``, ``s_load_dwordx2 s[0:1],
s[4:5], 0x0``, literals as ``0x...``, inline floats as ``1.0``/``-0.5``, ``s_waitcnt vmcnt(0)
lgkmcnt(0)``, branch targets as numeric dword offsets). An encoding that has no such spelling
(a reserved operand code, a misaligned register range, bits outside every field, a literal an
assembler would fold into an inline constant) is written as ``.long`` words with the
instruction's best-effort text in a comment, so the output always re-assembles to the input.

Public API: :func:`disassemble`, :func:`format_instruction`.
"""
from __future__ import annotations

from . import table
from .decoder import Instruction, decode
from .encoding import LITERAL
from .operands import FLOAT_INLINE_TEXT, Unprintable, format_scalar

__all__ = ["disassemble", "format_instruction", "disassemble_lines"]

_KINDS = table.operand_kinds()

#: VOP3 forms that LLVM's gfx7 assembler lacks (written ``_e64``; only gcnemu reads them back),
#: and whose 32-bit form llvm-mc writes without ``_e32``.
_NO_LLVM_E64 = frozenset({"v_readlane_b32", "v_writelane_b32", "v_readfirstlane_b32"})

_HWREG_IDS = {1: "HW_REG_MODE", 2: "HW_REG_STATUS", 3: "HW_REG_TRAPSTS", 4: "HW_REG_HW_ID",
              5: "HW_REG_GPR_ALLOC", 6: "HW_REG_LDS_ALLOC", 7: "HW_REG_IB_STS"}
_EXP_TARGET_NAMES = {8: "mrtz", 9: "null"}
for _i in range(8):
    _EXP_TARGET_NAMES[_i] = f"mrt{_i}"
for _i in range(4):
    _EXP_TARGET_NAMES[12 + _i] = f"pos{_i}"
for _i in range(32):
    _EXP_TARGET_NAMES[32 + _i] = f"param{_i}"


def _size(kind: str, default: int = 1) -> int:
    s = _KINDS.get(kind, (None,))[0]
    return default if s is None else s


def _src(code: int, dwords: int, literal) -> str:
    if code == LITERAL:
        if literal is None:  # pragma: no cover - the decoder always reads the literal
            raise Unprintable("literal operand without a literal")
        return f"0x{literal:x}"
    return format_scalar(code, dwords)


def _vreg(n: int, dwords: int) -> str:
    return format_scalar(256 + n, dwords)


# ---------------------------------------------------------------------------------------------

def _fmt_salu(ins: Instruction) -> str:
    d, f = ins.defn, ins.fields
    fam = d.encoding
    out = []
    for role, kind in d.positional_operands():
        if role == "sdst":
            out.append(format_scalar(f["sdst"], _size(kind)))
        elif role in ("ssrc", "ssrc0", "ssrc1"):
            field = "sdst" if fam == "SOPK" else ("ssrc1" if role == "ssrc1" else "ssrc0")
            out.append(_src(f[field], _size(kind), ins.literal))
        elif kind == "label":
            v = f["simm16"]
            out.append(str(v - 0x10000 if v & 0x8000 else v))
        elif kind in ("simm16", "uimm16", "bimm16"):
            out.append(f"0x{f['simm16']:x}" if fam == "SOPK" else str(f["simm16"]))
        elif kind == "hwreg":
            v = f["simm16"]
            rid, off, size = v & 0x3F, (v >> 6) & 0x1F, ((v >> 11) & 0x1F) + 1
            out.append(f"hwreg({_HWREG_IDS.get(rid, rid)}, {off}, {size})")
        elif kind == "msg":
            out.append(_fmt_msg(f["simm16"]))
        elif kind == "waitcnt":
            out.append(_fmt_waitcnt(f["simm16"]))
        elif kind in ("bimm32", "fimm32"):
            out.append(f"0x{ins.literal:x}")
    if fam == "SOPP" and not out and f["simm16"]:
        raise Unprintable(f"{d.name} with nonzero immediate {f['simm16']}")
    return _join(d.name, out)


def _fmt_msg(v: int) -> str:
    msg, op, stream = v & 0xF, (v >> 4) & 0x7, (v >> 8) & 0x3
    if v >> 10 == 0:
        if msg == 1 and v == 1:
            return "sendmsg(MSG_INTERRUPT)"
        if msg in (2, 3) and (op or msg == 3):
            name = "MSG_GS" if msg == 2 else "MSG_GS_DONE"
            ops = ["GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT", "GS_OP_EMIT_CUT"]
            if op < 4 and (v >> 7) & 1 == 0:
                if op == 0:
                    if stream == 0:
                        return f"sendmsg({name}, {ops[0]})"
                else:
                    return f"sendmsg({name}, {ops[op]}, {stream})"
    return str(v)


def _fmt_waitcnt(v: int) -> str:
    if v & ~0x0F7F:
        return f"0x{v:x}"
    vm, exp, lgkm = v & 0xF, (v >> 4) & 0x7, (v >> 8) & 0xF
    parts = []
    if vm != 0xF:
        parts.append(f"vmcnt({vm})")
    if exp != 0x7:
        parts.append(f"expcnt({exp})")
    if lgkm != 0xF:
        parts.append(f"lgkmcnt({lgkm})")
    return " ".join(parts) if parts else f"0x{v:x}"


def _fmt_smrd(ins: Instruction) -> str:
    d, f = ins.defn, ins.fields
    out = []
    for role, kind in d.positional_operands():
        if role == "sdst":
            out.append(format_scalar(f["sdst"], _size(kind)))
        elif role == "sbase":
            out.append(format_scalar(f["sbase"] << 1, 2 if kind == "base_smem_addr" else 4))
        else:
            if f["imm"]:
                out.append(f"0x{f['offset']:x}")
            elif f["offset"] == LITERAL:
                out.append(f"0x{ins.literal:x}")
            else:
                out.append(format_scalar(f["offset"], 1))
    if len(out) < 3 and (f["imm"] or f["offset"] or f["sbase"] or (len(out) == 0 and f["sdst"])):
        raise Unprintable(f"{d.name} with unused fields set")
    return _join(d.name, out)


def _suffix(d, fam):
    if fam == "VOP3":
        rows = table.by_name().get(d.name, {})
        if any(e in rows for e in ("VOP1", "VOP2", "VOPC")):
            return d.name + "_e64"
        return d.name
    if d.name in _NO_LLVM_E64 or "VOP3" not in table.by_name().get(d.name, {}):
        return d.name
    return d.name + "_e32"


def _fmt_vop_short(ins: Instruction) -> str:
    d, f = ins.defn, ins.fields
    out = []
    for role, kind in d.positional_operands():
        if kind == "vcc_64":
            out.append("vcc")
        elif role == "vdst":
            out.append(_vreg(f["vdst"], _size(kind)))
        elif role == "sdst":
            out.append(format_scalar(f["vdst"], 1))
        elif role in ("src0", "src", "vsrc", "vsrc0", "ssrc0"):
            out.append(_src(f["src0"], _size(kind), ins.literal))
        elif role in ("src1", "vsrc1", "ssrc1", "vsrc2"):
            if kind.startswith("vsrc"):
                out.append(_vreg(f["vsrc1"], _size(kind)))
            else:
                out.append(format_scalar(f["vsrc1"], 1))
        elif role == "imm32":
            out.append(f"0x{ins.literal:x}")
    roles = {r for r, _ in d.positional_operands()}
    if d.encoding == "VOP1" and not roles and (f["src0"] or f["vdst"]):
        raise Unprintable(f"{d.name} with operand fields set")
    return _join(_suffix(d, d.encoding), out)


def _fmt_vop3(ins: Instruction) -> str:
    d, f = ins.defn, ins.fields
    vop3b = d.is_vop3b
    roles, modable, has_clamp, has_omod = d.vop3_operands()
    out = []
    used_src = set()
    neg, ab = f["neg"], (0 if vop3b else f["abs"])
    for role, kind in roles:
        if role == "vdst":
            out.append(_vreg(f["vdst"], _size(kind)))
        elif role in ("sdst", "vcc"):
            code = f["sdst"] if vop3b else f["vdst"]
            out.append(format_scalar(code, 2 if kind == "vcc_64" else _size(kind)))
        else:
            idx = 0 if role in ("src0", "src", "vsrc", "vsrc0", "ssrc0") else \
                1 if role in ("src1", "vsrc1", "ssrc1") else 2
            used_src.add(idx)
            code = f[f"src{idx}"]
            if kind.startswith("vsrc") and code < 256:
                raise Unprintable(f"{role} of {d.name} must be a VGPR")
            text = _src(code, _size(kind), ins.literal)
            n, a = (neg >> idx) & 1, (ab >> idx) & 1
            if (n or a) and role not in modable:
                raise Unprintable(f"neg/abs on {role} of {d.name}")
            const = code in FLOAT_INLINE_TEXT or 128 <= code <= 208
            if a:
                text = f"|{text}|"
            if n:
                text = f"neg({text})" if const and not a else "-" + text
            out.append(text)
    if f["vdst"] and not any(r == "vdst" or (r in ("sdst", "vcc") and not vop3b) for r, _k in roles):
        raise Unprintable(f"unused vdst field set in {d.name}")
    unused = []
    for idx in range(3):
        if idx not in used_src and ((neg >> idx) & 1 or (ab >> idx) & 1):
            raise Unprintable(f"neg/abs on the unused src{idx} of {d.name}")
        if idx not in used_src and f[f"src{idx}"]:
            unused.append(f" src{idx}:0x{f[f'src{idx}']:x}")   # e.g. AMD's compiler: src2 = 0x80
    text = _join(_suffix(d, "VOP3"), out) + "".join(unused)
    if not vop3b and f["clamp"]:
        if not has_clamp:
            raise Unprintable(f"clamp on {d.name}")
        text += " clamp"
    if f["omod"]:
        if not has_omod:
            raise Unprintable(f"output modifier on {d.name}")
        text += {1: " mul:2", 2: " mul:4", 3: " div:2"}[f["omod"]]
    return text


def _fmt_vintrp(ins: Instruction) -> str:
    d, f = ins.defn, ins.fields
    out = []
    for role, kind in d.positional_operands():
        if role == "vdst":
            out.append(_vreg(f["vdst"], 1))
        elif role == "vsrc":
            out.append(_vreg(f["vsrc"], 1))
        elif kind == "param":
            if f["vsrc"] > 2:
                raise Unprintable(f"interpolation parameter {f['vsrc']}")
            out.append(("p10", "p20", "p0")[f["vsrc"]])
        elif kind == "attr":
            out.append(f"attr{f['attr']}.{'xyzw'[f['attrchan']]}")
    if d.name == "v_interp_mov_f32" and f["vsrc"] > 2:
        raise Unprintable("bad parameter")
    return _join(d.name, out)


def _fmt_ds(ins: Instruction) -> str:
    d, f = ins.defn, ins.fields
    roles = d.positional_operands()
    field = {"vdst": "vdst", "vaddr": "addr", "vdata": "data0", "vdata0": "data0",
             "vdata1": "data1"}
    if not any(r == "vaddr" for r, _ in roles):
        field["vdata"] = "addr"
    out = [_vreg(f[field[r]], _size(k)) for r, k in roles]
    text = _join(d.name, out)
    kinds = {k for _, k in d.operands}
    if "ds_offset8" in kinds:
        if f["offset0"]:
            text += f" offset0:{f['offset0']}"
        if f["offset1"]:
            text += f" offset1:{f['offset1']}"
    else:
        off = f["offset0"] | (f["offset1"] << 8)
        if off:
            text += f" offset:{off}"
    if f["gds"]:
        text += " gds"
    return text


def _fmt_buf(ins: Instruction) -> str:
    d, f = ins.defn, ins.fields
    fam = d.encoding
    out = []
    for role, kind in d.positional_operands():
        if role in ("vdst", "vdata"):
            out.append(_vreg(f["vdata"], _size(kind)))  # llvm-mc 14: TFE adds no register here
        elif role == "vaddr":
            need = (2 if f["addr64"] or (f["offen"] and f["idxen"]) else
                    1 if (f["offen"] or f["idxen"]) else 0)
            if need:
                out.append(_vreg(f["vaddr"], need))
            else:
                if f["vaddr"]:
                    raise Unprintable("vaddr set without offen/idxen/addr64")
                out.append("off")
        elif role == "srsrc":
            out.append(format_scalar(f["srsrc"] << 2, 4))
        elif role == "soffset":
            if fam == "MTBUF":
                out.append(f"dfmt:{f['dfmt']}")
                out.append(f"nfmt:{f['nfmt']}")
            out.append(_src(f["soffset"], 1, None))
    text = _join(d.name, out)
    for k in ("idxen", "offen", "addr64"):
        if f[k]:
            text += " " + k
    if f["offset"]:
        text += f" offset:{f['offset']}"
    for k in ("glc", "slc") + (("lds",) if fam == "MUBUF" else ()) + ("tfe",):
        if f[k]:
            text += " " + k
    return text


def _fmt_mimg(ins: Instruction) -> str:
    d, f = ins.defn, ins.fields
    out = []
    dm = f["dmask"]
    for role, kind in d.positional_operands():
        if role in ("vdst", "vdata"):
            n = 4 if kind == "dst_mimg_gather4" else max(1, bin(dm).count("1"))
            out.append(_vreg(f["vdata"], n + f["tfe"]))
        elif role == "vaddr":
            out.append(_vreg(f["vaddr"], min(4, 256 - f["vaddr"])))
        elif role == "srsrc":
            out.append(format_scalar(f["srsrc"] << 2, 8))  # llvm-mc 14 writes 8 even with r128
        elif role == "ssamp":
            out.append(format_scalar(f["ssamp"] << 2, 4))
    text = _join(d.name, out)
    if dm:
        text += f" dmask:0x{dm:x}"
    for k in ("unorm", "glc", "slc", "r128", "tfe", "lwe", "da"):
        if f[k]:
            text += " " + k
    return text


def _fmt_flat(ins: Instruction) -> str:
    d, f = ins.defn, ins.fields
    roles = d.positional_operands()
    if any(k == "opt" for _, k in d.operands) and not f["glc"]:
        roles = [(r, k) for r, k in roles if r != "vdst"]
    field = {"vdst": "vdst", "vaddr": "addr", "vdata": "data"}
    out = []
    for r, k in roles:
        n = _size(k) + (f["tfe"] if r == "vdst" else 0)
        out.append(_vreg(f[field[r]], n))
    text = _join(d.name, out)
    for k in ("glc", "slc", "tfe"):
        if f[k]:
            text += " " + k
    return text


def _fmt_exp(ins: Instruction) -> str:
    f = ins.fields
    tgt = _EXP_TARGET_NAMES.get(f["tgt"])
    if tgt is None:
        raise Unprintable(f"export target {f['tgt']}")
    en = f["en"]
    if f["compr"]:
        regs = [f["vsrc0"], f["vsrc0"], f["vsrc1"], f["vsrc1"]]
        if en not in (0, 0x3, 0xC, 0xF) or f["vsrc2"] or f["vsrc3"]:
            raise Unprintable("compressed export with odd enable mask")
    else:
        regs = [f["vsrc0"], f["vsrc1"], f["vsrc2"], f["vsrc3"]]
    srcs = []
    for i, r in enumerate(regs):
        if en >> i & 1:
            srcs.append(_vreg(r, 1))
        else:
            if r and not f["compr"]:
                raise Unprintable("disabled export source with a register set")
            srcs.append("off")
    text = f"exp {tgt} " + ", ".join(srcs)
    for k in ("done", "compr", "vm"):
        if f[k]:
            text += " " + k
    return text


def _join(name: str, ops: list) -> str:
    return f"{name} {', '.join(ops)}" if ops else name


_FORMATTERS = {
    "SOP2": _fmt_salu, "SOPK": _fmt_salu, "SOP1": _fmt_salu, "SOPC": _fmt_salu, "SOPP": _fmt_salu,
    "SMRD": _fmt_smrd, "VOP1": _fmt_vop_short, "VOP2": _fmt_vop_short, "VOPC": _fmt_vop_short,
    "VOP3": _fmt_vop3, "VINTRP": _fmt_vintrp, "DS": _fmt_ds, "MUBUF": _fmt_buf,
    "MTBUF": _fmt_buf, "MIMG": _fmt_mimg, "FLAT": _fmt_flat, "EXP": _fmt_exp,
}


def _raw(code: bytes, ins: Instruction, note: str) -> str:
    words = [int.from_bytes(code[ins.offset + i:ins.offset + i + 4], "little")
             for i in range(0, ins.size, 4)]
    return ".long " + ", ".join(f"0x{w:08x}" for w in words) + f"  // {note}"


def format_instruction(ins: Instruction) -> str:
    """LLVM-syntax text of one decoded instruction.

    Raises :class:`gcnemu.isa.operands.Unprintable` when the encoding has no such spelling;
    :func:`disassemble` then falls back to ``.long`` words.
    """
    return _FORMATTERS[ins.defn.encoding](ins)


def _folds(ins: Instruction) -> bool:
    from .operands import inline_code
    lit = ins.literal
    return inline_code(lit, 1) is not None or inline_code(lit - (1 << 32), 1) is not None


def disassemble_lines(code: bytes, gen: str = table.GFX7, verify: bool = True):
    """[(byte offset, text)] for each instruction of `code`.

    With `verify`, each line is re-assembled and compared with its bytes; a line that does not
    reproduce them exactly is replaced by ``.long`` words (with the text in a comment). Raises
    :class:`gcnemu.errors.DecodeError` (with the byte offset) on undefined or truncated code.
    """
    from .assembler import assemble  # local import: the assembler imports nothing from here
    from ..errors import AssemblerError

    code = bytes(code)
    lines = []
    for ins in decode(code, gen):
        raw = code[ins.offset:ins.offset + ins.size]
        try:
            text = format_instruction(ins)
        except Unprintable as e:
            lines.append((ins.offset, _raw(code, ins, f"{ins.defn.name}: {e}")))
            continue
        if verify:
            try:
                ok = assemble(text, gen) == raw
            except AssemblerError:
                ok = False
            if not ok:
                if ins.literal is not None and _folds(ins):
                    text = _raw(code, ins, text + " (a literal assemblers fold into an inline "
                                                  "constant)")
                else:
                    text = _raw(code, ins, text)
        lines.append((ins.offset, text))
    return lines


def _with_labels(code: bytes, lines, gen):
    """Replace numeric branch offsets by labels ``L<hex offset>`` placed before their targets;
    None when a target is not an instruction boundary (then offsets stay numeric)."""
    from .decoder import decode_one

    starts = {off for off, _ in lines}
    targets = {}
    for off, text in lines:
        if text.startswith(".long"):
            continue
        ins = decode_one(code, off, gen)
        if ("label", "label") in ins.defn.operands:
            v = ins.fields["simm16"]
            target = off + 4 + 4 * (v - 0x10000 if v & 0x8000 else v)
            if target not in starts and target != len(code):
                continue
            targets[off] = target
    if not targets:
        return None
    names = {t: f"L{t:x}" for t in targets.values()}
    out = []
    for off, text in lines:
        if off in names:
            out.append((off, names[off] + ":"))
        if off in targets:
            text = text.rsplit(" ", 1)[0] + " " + names[targets[off]]
        out.append((off, text))
    if len(code) in names:
        out.append((len(code), names[len(code)] + ":"))
    return out


def disassemble(code: bytes, gen: str = table.GFX7, verify: bool = True,
                labels: bool = False) -> str:
    """Disassemble machine code into LLVM-syntax text, one instruction per line.

    With `labels`, branch targets inside the code get ``L<hex offset>:`` lines and branches
    name them (the text then needs an assembler that resolves labels, as ours does)."""
    lines = disassemble_lines(code, gen, verify)
    if labels:
        labelled = _with_labels(bytes(code), lines, gen)
        if labelled is not None:
            from .assembler import assemble
            text = "".join(t + "\n" for _, t in labelled)
            if not verify or assemble(text, gen) == bytes(code):
                return text
    return "".join(t + "\n" for _, t in lines)
