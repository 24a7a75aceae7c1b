"""Per-row timing tables of a decoded Program, built from the ISA table (never hard-coded).

For each program row: the issue category of the seed's CU scheduler, the issue cost in cycles
(the CLRX column of gcnemu/isa/gfx7.tsv through `InstrDef.cost`), the cost of a taken branch
(the CLRX "4/20" entries: not taken / taken), behaviour flags and the s_waitcnt thresholds.
"""
from __future__ import annotations

import numpy as np

from ..exec.layout import (C_H, C_K, H_DS, H_ENDPGM, H_EXP, H_FLAT, H_MEMTIME, H_MIMG, H_MTBUF,
                           H_MUBUF, H_SMRD_LOAD, K_ATOMIC, K_LOAD_FORMAT, K_STORE, K_STORE2,
                           K_STORE_FORMAT)
from ..isa.table import parse_cycles

# issue categories (cu-whitepaper, "Instruction scheduling": per cycle at most one of each,
# from different waves; VMEM, LDS and export/GDS: at most two of them per cycle)
CAT_VALU, CAT_SALU, CAT_BRANCH, CAT_VMEM, CAT_LDS, CAT_EXPGDS, CAT_INTERNAL = range(7)
CATEGORY_NAMES = ("VALU", "SALU/SMEM", "BRANCH", "VMEM", "LDS", "EXPORT/GDS", "INTERNAL")

#: columns of the model's per-row cycle table (DispatchReport.pc_cycles): wave-instructions
#: issued, issue cycles, then the stall cycles before each issue by reason (STALL_REASONS)
PC_COLUMNS = ("count", "issue", "vmcnt", "lgkmcnt", "expcnt", "barrier", "unit_busy",
              "arbiter", "fetch", "dependency")
STALL_REASONS = PC_COLUMNS[2:]

# row flags
# (F_UNTRACED: an image instruction whose addresses the trace does not hold: sampling, gather4,
# get_lod, get_resinfo; gcnemu/timing/trace.py. F_ICINV: s_icache_inv, which invalidates the
# I$ of its CU group, gcnemu/timing/icache.py)
F_WAITCNT, F_BARRIER, F_END, F_SMEM, F_VMEM, F_STORE, F_ATOMIC, F_FLAT, F_LDS, F_GDS, F_EXP, \
    F_MIMG, F_LONG, F_NOREC, F_GLC, F_SLC, F_VSDST, F_SREAD, F_UNTRACED, F_ICINV = \
    (1 << i for i in range(20))

#: scalar register codes of the masks below (SGPR n is bit n): VCC, M0, EXEC
_IMPLICIT_REGS = {"VCC": (106, 107), "M0": (124,), "EXEC": (126, 127)}


def _regs(code: int, kind: str) -> tuple:
    """The scalar registers (codes < 128) an operand of register code ``code`` names: a pair
    for 64-bit kinds."""
    n = 2 if "64" in kind else 1
    return tuple(r for r in range(code, code + n) if 0 <= r < 128)


def scalar_masks(ins) -> tuple[int, int, int]:
    """(flag, low mask, high mask): for a VALU instruction that writes scalar registers
    (v_cmp* to VCC or an SGPR pair, carry-out ops, v_readfirstlane, v_readlane, v_cmpx to
    EXEC) F_VSDST and the registers it writes; for a scalar instruction (SALU, branch, SMEM)
    that reads scalar registers F_SREAD and those; else (0, 0, 0). Bit n of the 128-bit mask
    (low | high << 64) is scalar register code n (SGPRs 0-103, VCC 106-107, M0 124, EXEC
    126-127)."""
    d = ins.defn
    regs = set()
    if d.unit == "VALU":
        for r in d.writes:
            regs.update(_IMPLICIT_REGS.get(r, ()))
        for role, kind in d.operands:
            if role == "sdst":
                regs.update(_regs(ins.fields.get("sdst", ins.fields.get("vdst", -1)), kind))
        flag = F_VSDST
    elif d.unit in ("SALU", "SMEM", "BRANCH", "SPECIAL"):
        for r in d.reads:
            regs.update(_IMPLICIT_REGS.get(r, ()))
        f = ins.fields
        for role, kind in d.operands:
            if kind.startswith("ssrc"):
                field = role if role in f else ("ssrc0" if "ssrc0" in f else "sdst")
                regs.update(_regs(f.get(field, -1), kind))
            elif kind.startswith("base_smem"):
                regs.update(_regs(2 * f.get("sbase", -1), "64"))
            elif kind == "offset_smem" and not f.get("imm", 1):
                regs.update(_regs(f.get("offset", -1), "32"))
        flag = F_SREAD
    else:
        return 0, 0, 0
    if not regs:
        return 0, 0, 0
    lo = sum(1 << r for r in regs if r < 64)
    hi = sum(1 << (r - 64) for r in regs if r >= 64)
    # (as int64: bit 63 set is a negative number)
    return flag, lo - (1 << 64) if lo >= 1 << 63 else lo, hi - (1 << 64) if hi >= 1 << 63 else hi

#: s_* instructions the sequencer handles itself (no issue port of the five categories)
_INTERNAL = {"s_nop", "s_waitcnt", "s_barrier", "s_sleep", "s_setprio", "s_sethalt", "s_endpgm",
             "s_icache_inv", "s_incperflevel", "s_decperflevel", "s_ttracedata", "s_setkill",
             "s_trap"}


def row_tables(prog, dpfactor: int, default_cycles: int, long_cycles: int):
    """(category, flags, cost, taken_cost, waitcnt[n, 3], sregs[n, 2]) int64 arrays, one
    entry per row.

    waitcnt holds (vmcnt, expcnt, lgkmcnt) of s_waitcnt rows: a field at its maximum (15, 7,
    15 on gfx7) means "do not wait" and is stored as -1. sregs: the scalar registers a VALU
    row writes (F_VSDST) or a scalar row reads (F_SREAD), see scalar_masks."""
    n = prog.code.shape[0]
    cat = np.full(n, CAT_INTERNAL, np.int64)
    flags = np.zeros(n, np.int64)
    cost = np.full(n, default_cycles, np.int64)
    taken = np.full(n, default_cycles, np.int64)
    wait = np.full((n, 3), -1, np.int64)
    sregs = np.zeros((n, 2), np.int64)
    for i, ins in enumerate(prog.instructions):
        d = ins.defn
        h = int(prog.code[i, C_H])
        sub = int(prog.code[i, C_K])
        glc = bool(ins.fields.get("glc", 0))
        c = parse_cycles(d.cycles, dpfactor, glc)
        cost[i] = default_cycles if c is None else c
        taken[i] = cost[i]
        if "/" in d.cycles and "DPFACTOR" not in d.cycles:
            t = parse_cycles(d.cycles.split("/", 1)[1], dpfactor, glc)   # "4/20": taken cost
            if t is not None:
                taken[i] = t
        if ins.size > 4 and long_cycles:
            flags[i] |= F_LONG
        unit = d.unit
        if d.name in _INTERNAL:
            cat[i] = CAT_INTERNAL
        elif unit == "VALU":
            cat[i] = CAT_VALU
        elif unit in ("SALU", "SMEM", "SPECIAL"):
            cat[i] = CAT_SALU
        elif unit == "BRANCH":
            cat[i] = CAT_BRANCH
        elif unit == "LDS":
            cat[i] = CAT_LDS
        elif unit == "EXPORT":
            cat[i] = CAT_EXPGDS
        else:
            cat[i] = CAT_VMEM
        if d.name == "s_sleep":
            # CLRX GcnInstrsSopp.md: "Sleep approximately by (SIMM16&0x7)*64 cycles"
            cost[i] = taken[i] = max(cost[i], 64 * (ins.fields["simm16"] & 7))
        elif d.name == "s_nop":
            # CLRX GcnInstrsSopp.md: "Do nothing by (SIMM16&7) + 1 cycles" (within its issue)
            cost[i] = taken[i] = max(cost[i], (ins.fields["simm16"] & 7) + 1)
        if d.name == "s_waitcnt":
            s = ins.fields["simm16"]
            vm, ex, lgkm = s & 0xF, (s >> 4) & 7, (s >> 8) & 0xF
            flags[i] |= F_WAITCNT
            wait[i] = (vm if vm < 15 else -1, ex if ex < 7 else -1, lgkm if lgkm < 15 else -1)
        elif d.name == "s_barrier":
            flags[i] |= F_BARRIER
        elif d.name == "s_icache_inv":
            flags[i] |= F_ICINV
        elif h == H_ENDPGM:
            flags[i] |= F_END
        elif h == H_SMRD_LOAD:
            flags[i] |= F_SMEM
        elif h == H_MEMTIME:
            flags[i] |= F_SMEM | F_NOREC
        elif h == H_DS:
            if ins.fields.get("gds"):
                flags[i] |= F_GDS
                cat[i] = CAT_EXPGDS
            else:
                flags[i] |= F_LDS
        elif h in (H_FLAT, H_MUBUF, H_MTBUF, H_MIMG):
            flags[i] |= F_VMEM
            kind = sub & 0xFF
            if kind in (K_STORE, K_STORE2, K_STORE_FORMAT):
                flags[i] |= F_STORE
            elif kind == K_ATOMIC:
                flags[i] |= F_ATOMIC
            if h == H_FLAT:
                flags[i] |= F_FLAT
            # the L1 policy bits (gcnemu/timing/model.py: l1_policy)
            if glc:
                flags[i] |= F_GLC
            if ins.fields.get("slc", 0):
                flags[i] |= F_SLC
            if h == H_MIMG:
                flags[i] |= F_MIMG
                if kind not in (K_LOAD_FORMAT, K_STORE_FORMAT, K_ATOMIC):
                    flags[i] |= F_UNTRACED
        elif h == H_EXP:
            flags[i] |= F_EXP
        if cat[i] in (CAT_VALU, CAT_SALU, CAT_BRANCH):
            f, lo, hi = scalar_masks(ins)
            flags[i] |= f
            sregs[i] = lo, hi
    return cat, flags, cost, taken, wait, sregs
