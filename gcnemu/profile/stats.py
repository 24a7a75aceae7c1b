"""Kernel statistics as Radeon GPU Analyzer (RGA) reports them, and live-register analysis.

`kernel_stats` gives one row per kernel under the column names of RGA's statistics CSV
(``rga --analysis``), plus the occupancy the kernel's resources allow on a preset GPU (the
CLRX/seed tables of gcnemu.hardware) and what limits it. `live_registers` is RGA's
``--livereg`` analysis: a backward liveness analysis over the control-flow graph built from
the kernel's own instructions.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..hardware import PRESETS, GPUConfig, occupancy

#: RGA's statistics CSV columns, in RGA's order (the ones a gfx7 compute kernel has)
RGA_COLUMNS = ("DEVICE", "SCRATCH_MEM", "THREADS_PER_WORKGROUP", "WAVEFRONT_SIZE",
               "AVAILABLE_LDS_BYTES", "USED_LDS_BYTES", "AVAILABLE_SGPRs", "USED_SGPRs",
               "SGPR_SPILLS", "AVAILABLE_VGPRs", "USED_VGPRs", "VGPR_SPILLS", "ISA_SIZE")
#: the columns gcnemu adds after RGA's: the kernel, and the occupancy on the chosen preset
EXTRA_COLUMNS = ("WAVES_PER_SIMD", "OCCUPANCY_LIMITER", "WORKGROUPS_PER_CU")
COLUMNS = ("KERNEL",) + RGA_COLUMNS + EXTRA_COLUMNS

#: addressable SGPRs of a gfx7 wave (s0..s103; VCC and the trap registers sit above them)
AVAILABLE_SGPRS = 104
#: LDS one workgroup may allocate on gfx7 (the OpenCL CL_DEVICE_LOCAL_MEM_SIZE of GCN)
AVAILABLE_LDS = 32768
#: OpenCL's default work-group size limit of GCN devices, when the kernel states none
DEFAULT_WORKGROUP = 256


def load_kernels(path: str, options=None) -> list:
    """The kernels (gcnemu.kernel.Kernel) of a code object, CAL binary, .cl or .s file, by name."""
    import gcnemu
    prog = gcnemu.load(path, options=options) if path.endswith(".cl") else gcnemu.load(path)
    return [prog.kernel(n) for n in prog.kernel_names]


def _device(kernel) -> str:
    """The code object's target processor (gfx700...); "gfx7" for CAL binaries and bare
    assembly, which do not name one."""
    co = kernel.code_object
    return co.mach if co is not None and co.mach else "gfx7"


def threads_per_workgroup(info) -> int:
    """The largest workgroup the kernel is compiled for: its reqd_work_group_size, else the
    metadata's max_flat_workgroup_size, else OpenCL's default limit (256)."""
    if info.reqd_workgroup_size:
        x, y, z = info.reqd_workgroup_size
        return x * y * z
    return info.max_flat_workgroup_size or DEFAULT_WORKGROUP


def kernel_stats(kernel, config: GPUConfig | str = "xbox-one") -> dict:
    """One row of statistics for ``kernel`` (see COLUMNS). USED_SGPRs/USED_VGPRs are the
    compiler's exact counts from the metadata where there is one, else the allocation the
    descriptor's granulated fields give; occupancy uses the allocation (as a launch does) and
    a workgroup of THREADS_PER_WORKGROUP work-items."""
    if isinstance(config, str):
        config = PRESETS[config]
    info = kernel.info
    used_v = info.metadata_vgpr_count if info.metadata_vgpr_count is not None else info.vgpr_count
    used_s = info.metadata_sgpr_count if info.metadata_sgpr_count is not None else info.sgpr_count
    threads = threads_per_workgroup(info)
    occ = occupancy(max(4, min(256, info.vgpr_count)), info.sgpr_count, info.lds_size,
                    -(-threads // 64), config)
    return {"KERNEL": kernel.name, "DEVICE": _device(kernel),
            "SCRATCH_MEM": info.private_segment_fixed_size,
            "THREADS_PER_WORKGROUP": threads, "WAVEFRONT_SIZE": info.wavefront_size or 64,
            "AVAILABLE_LDS_BYTES": min(config.lds_per_cu, AVAILABLE_LDS),
            "USED_LDS_BYTES": info.lds_size,
            "AVAILABLE_SGPRs": AVAILABLE_SGPRS, "USED_SGPRs": used_s,
            "SGPR_SPILLS": info.sgpr_spill_count or 0,
            "AVAILABLE_VGPRs": config.vgprs_per_simd, "USED_VGPRs": used_v,
            "VGPR_SPILLS": info.vgpr_spill_count or 0, "ISA_SIZE": len(info.code),
            "WAVES_PER_SIMD": occ.waves_per_simd, "OCCUPANCY_LIMITER": occ.limited_by,
            "WORKGROUPS_PER_CU": occ.workgroups_per_cu}


# --- live registers ------------------------------------------------------------------------
_REG = re.compile(r"\b(v|s)(?:(\d+)|\[(\d+):(\d+)\])|\b(vcc)(?:_lo|_hi)?\b")
#: roles that name a destination (VOPC's and VOP2's implicit vcc is one when it comes first)
_DEF_ROLES = {"vdst", "sdst", "dst"}
#: instructions that also read their destination (accumulate, one lane, conditional move)
_READS_DST = re.compile(r"^(v_mac_|v_writelane_|s_cmov|s_cmovk_|s_addk_|s_mulk_|v_interp_p2_)")
#: branches whose target is the only successor / which may also fall through
_JUMP = {"s_branch"}
_ENDS = {"s_endpgm", "s_setpc_b64", "s_rfe_b64", "s_trap"}


def _regs(text: str) -> list:
    """Register names ('v5', 's12', 'vcc_lo') in one operand's text."""
    out = []
    for m in _REG.finditer(text):
        if m.group(5):
            out += ["vcc_lo", "vcc_hi"] if m.group(0) == "vcc" else [m.group(0)]
            continue
        kind, one, lo, hi = m.group(1), m.group(2), m.group(3), m.group(4)
        first, last = (int(one), int(one)) if one is not None else (int(lo), int(hi))
        out += [f"{kind}{n}" for n in range(first, last + 1)]
    return out


def operands(ins) -> tuple[set, set]:
    """(registers read, registers written) of one decoded instruction, from its disassembly:
    the positional operands in the order of the ISA table's roles. A buffer/image atomic
    with glc returns into its data registers (read and written)."""
    from ..isa.disassembler import format_instruction

    text = format_instruction(ins)
    name, _, rest = text.partition(" ")
    roles = [r for r, _ in ins.defn.positional_operands()]
    fam = ins.defn.encoding
    f = ins.fields
    if fam == "FLAT" and any(k == "opt" for _, k in ins.defn.operands) and not f.get("glc"):
        roles = [r for r in roles if r != "vdst"]
    # (commas inside hwreg(...) do not separate operands)
    tokens = [t.strip() for t in re.split(r",(?![^()]*\))", rest)] if rest.strip() else []
    tokens = [t for t in tokens if not t.startswith(("dfmt:", "nfmt:"))]
    uses, defs = set(), set()
    seen_src = False
    for role, tok in zip(roles, tokens):
        regs = _regs(tok)
        is_def = role in _DEF_ROLES or (role == "vcc" and not seen_src)
        if role.startswith(("src", "vsrc", "ssrc")):
            seen_src = True
        (defs if is_def else uses).update(regs)
    if fam in ("MUBUF", "MTBUF", "MIMG") and "atomic" in name and f.get("glc") and tokens:
        defs.update(_regs(tokens[0]))
    if _READS_DST.match(name):
        uses |= defs
    return uses, defs


@dataclass
class LiveRegisters:
    """Per instruction of a kernel: byte offset, text, live VGPRs and SGPRs (see
    live_registers), and the peaks."""

    offsets: list
    texts: list
    vgprs: list                 #: live VGPR count at each instruction
    sgprs: list                 #: live SGPR count (s0..s103, VCC) at each instruction
    live: list = field(repr=False, default_factory=list)   #: the live register names
    max_vgprs: int = 0
    max_sgprs: int = 0


def _successors(instrs: list, index: dict) -> list:
    succ = []
    for i, ins in enumerate(instrs):
        name = ins.name
        nxt = [i + 1] if i + 1 < len(instrs) else []
        if name in _ENDS:
            succ.append([])
            continue
        if ins.defn.encoding == "SOPP" and (name in _JUMP or name.startswith("s_cbranch_")):
            s16 = ins.fields["simm16"]
            target = ins.offset + 4 + 4 * (s16 - 0x10000 if s16 & 0x8000 else s16)
            t = [index[target]] if target in index else []
            succ.append(t if name in _JUMP else t + nxt)
            continue
        succ.append(nxt)
    return succ


def live_registers(kernel) -> LiveRegisters:
    """RGA's live-register analysis of ``kernel``: the control-flow graph is built from the
    kernel's instructions (s_branch, the s_cbranch_* family, including the EXEC-skip
    branches s_cbranch_execz/execnz with both their edges, s_endpgm), and every read is
    propagated up through it until a write to the register is met, to a fixed point.

    EXEC masking is treated as RGA treats it: a vector write ends a live range whatever EXEC
    holds (the values of lanes a masked write leaves alone are not counted live above it).
    The count at an instruction is the registers holding a value while it executes: those
    live on entry to it plus those it writes (a result nobody reads still takes a register).
    Registers are counted one per dword: v[2:3] is two; SGPRs count s0..s103 and VCC (two).
    A call (s_swappc_b64) is stepped over: the registers the callee reads are not seen."""
    from ..isa.disassembler import format_instruction

    info = kernel.info
    start = info.entry_address - kernel.code_address
    end = start + len(info.code)
    instrs = [ins for ins in kernel.program.instructions if start <= ins.offset < end]
    index = {ins.offset: i for i, ins in enumerate(instrs)}
    ops = [operands(ins) for ins in instrs]
    succ = _successors(instrs, index)
    n = len(instrs)
    live_in = [frozenset()] * n
    changed = True
    while changed:          # backward to a fixed point; reverse order converges fast
        changed = False
        for i in range(n - 1, -1, -1):
            out = set()
            for s in succ[i]:
                out |= live_in[s]
            uses, defs = ops[i]
            new = frozenset(uses | (out - defs))
            if new != live_in[i]:
                live_in[i] = new
                changed = True
    live = [live_in[i] | ops[i][1] for i in range(n)]
    vg = [sum(1 for r in s if r[0] == "v" and not r.startswith("vcc")) for s in live]
    sg = [len(s) - v for s, v in zip(live, vg)]
    return LiveRegisters([ins.offset - start for ins in instrs],
                         [format_instruction(ins) for ins in instrs], vg, sg, live,
                         max(vg, default=0), max(sg, default=0))


def format_livereg(lr: LiveRegisters, name: str) -> str:
    """The livereg listing: per instruction its live VGPR and SGPR counts, peaks marked."""
    out = [f"{name}: live registers per instruction (peak {lr.max_vgprs} VGPRs, "
           f"{lr.max_sgprs} SGPRs)", f"{'VGPRs':>5} {'SGPRs':>5}  {'offset':>6}  instruction"]
    for off, text, v, s in zip(lr.offsets, lr.texts, lr.vgprs, lr.sgprs):
        mark = " <- peak" if v == lr.max_vgprs else ""
        out.append(f"{v:5d} {s:5d}  {off:06x}  {text}{mark}")
    return "\n".join(out)
