"""What each instruction of a program reads, writes and waits for, as flat arrays: the static
half of the sanitizer's register analyses (the trace gives the dynamic half, the order of rows
each wave ran).

Registers are numbered in one space: SGPR n (and VCC 106-107, M0 124, EXEC 126-127, which are
SGPR codes) is n, VGPR n is ``VREG + n``. SCC is not tracked. The operands come from the ISA
table's roles and kinds (gcnemu/isa/gfx7.tsv, LLVM's syntax doc) and the decoded fields, the
implicit VCC/EXEC/M0 ones from ``InstrDef.reads``/``writes``; a dynamically indexed operand
(s_movrel*, v_movrel*) counts as its static register.

The counters (CLRX GcnInstrsSopp.md s_waitcnt; GcnInstrsSmrd.md, GcnInstrsDs.md,
GcnInstrsMubuf.md, GcnInstrsFlat.md):

* ``VM``: MUBUF, MTBUF, MIMG, FLAT; returns in order; the destination VGPRs are written when
  the access completes;
* ``SMEM``: SMRD loads and s_memtime count LGKM and may return out of order: while one is
  outstanding only ``lgkmcnt(0)`` says that any LGKM access finished;
* ``LGKM``: DS, GDS and s_sendmsg count LGKM in order;
* ``EXP``: EXP and GDS, and on GCN 1.0 (gfx6) every VMEM store and atomic, count EXPCNT until
  the data VGPRs have been read ("Any memory-write operation increments EXPCNT, and it
  decrements EXPCNT after reading data from VDATA", GcnInstrsMubuf.md). GCN 1.1 no longer locks
  VMEM store data (LLVM's GCNSubtarget::vmemWriteNeedsExpWaitcnt: generations before Sea
  Islands only), so on gfx7 VMEM stores do not count here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..exec.layout import (
    C_H,
    H_BRANCH,
    H_CBRANCH,
    H_CBRANCH_G_FORK,
    H_CBRANCH_I_FORK,
    H_CBRANCH_JOIN,
    H_DS,
    H_ENDPGM,
    H_MIMG,
    H_RFE,
    H_SETHALT,
    H_SETPC,
    H_SMRD_LOAD,
    H_SWAPPC,
    H_TRAP,
)
from ..isa import table
from ..isa.encoding import LITERAL

#: first register number of the VGPRs in the sanitizer's register space
VREG = 256
#: counter classes of a row (bits of ``RowSets.counters``)
VM, SMEM, LGKM, EXP = 1, 2, 4, 8
_IMPLICIT = {"VCC": (106, 107), "EXEC": (126, 127), "M0": (124,)}
_KINDS = table.operand_kinds()
#: ops whose destination is also an operand (accumulators, read-modify-write SALU)
#: copies: their destination is as defined as their source, so that saving a callee-saved
#: register nobody wrote (s_mov_b32 s12, s33 in a function's prologue) is no finding
MOVES = {"s_mov_b32": 1, "s_mov_b64": 1, "v_mov_b32": 1, "v_readlane_b32": 1,
         "v_readfirstlane_b32": 1, "v_writelane_b32": 2}
_READS_DST = re.compile(r"^(v_mac_|v_mac_legacy_|v_interp_p2_|s_addk_|s_mulk_|s_cmovk_)")


def _dwords(kind: str) -> int:
    n = _KINDS.get(kind, (None,))[0]
    if n is not None:
        return n
    m = re.search(r"(32|64|96|128|256|512)", kind)
    return int(m.group(1)) // 32 if m else 1


def _scalar(code: int, n: int) -> list:
    """Registers of a scalar operand code (SGPRs, VCC, M0, EXEC...), none for constants."""
    if 0 <= code < 128:
        return [c for c in range(code, code + n) if c < 128]
    return []


def _source(code: int, n: int) -> list:
    """Registers of a 9-bit source operand: VGPRs from 256 on, else scalar."""
    if code >= 256:
        return [VREG + code - 256 + i for i in range(n) if code - 256 + i < 256]
    if code == LITERAL:
        return []
    return _scalar(code, n)


def _vgprs(v: int, n: int) -> list:
    return [VREG + v + i for i in range(n) if v + i < 256]


#: 64-bit words of a register bit set (the register space's VREG + 256 registers)
NWORDS = 8


@dataclass
class RowSets:
    """Per row of a program: registers read and written (bit sets: register r is bit r % 64 of
    word r // 64, so that the analyses test a row against a wave's state in a few word
    operations), data registers locked until EXPCNT (CSR: row r's are
    ``locks[locks_at[r]:locks_at[r + 1]]``), and the counters it counts on (bits VM, SMEM,
    LGKM, EXP) or, for s_waitcnt, its thresholds."""

    reads: np.ndarray          #: uint64 [n, NWORDS]
    writes: np.ndarray         #: uint64 [n, NWORDS]
    locks: np.ndarray
    locks_at: np.ndarray
    counters: np.ndarray       #: int64 [n]: counter bits; -1 for s_waitcnt
    waits: np.ndarray          #: int64 [n, 3]: s_waitcnt vmcnt, expcnt, lgkmcnt (else 99)
    barrier: np.ndarray        #: int64 [n]: 1 for s_barrier
    moves: np.ndarray          #: int64 [n]: 1 for a copy, 2 for v_writelane (see MOVES)
    #: int64 [n, 2]: the words [lo, hi) outside which the row's reads and writes are empty
    #: (a row names a few registers: the analyses walk those words only)
    words: np.ndarray = None
    #: int64 [n, 3] and uint64 [n, 3, NWORDS]: the register-only run from each row
    #: (`register_runs`)
    run: np.ndarray = None
    run_sets: np.ndarray = None

    def __post_init__(self):
        if self.words is None:
            self.words = word_spans(self.reads | self.writes)


def word_spans(bits: np.ndarray) -> np.ndarray:
    """int64 [n, 2]: per row of ``bits`` (uint64 [n, NWORDS]) the first word with a bit and one
    past the last ([0, 0] for none)."""
    some = bits != 0
    any_ = some.any(axis=1)
    lo = np.where(any_, some.argmax(axis=1), 0)
    hi = np.where(any_, bits.shape[1] - some[:, ::-1].argmax(axis=1), 0)
    return np.stack([lo, hi], axis=1).astype(np.int64)


#: handlers after whose row the wave may go on elsewhere than the next row: a register-only
#: run ends there (exec/layout.py)
_JUMPS = (H_SETPC, H_SWAPPC, H_RFE, H_CBRANCH_JOIN, H_CBRANCH_G_FORK, H_CBRANCH_I_FORK,
          H_ENDPGM, H_BRANCH, H_CBRANCH, H_TRAP, H_SETHALT)
#: the rows of ``register_runs``' sets
RUN_EXPOSED, RUN_READS, RUN_WRITES = range(3)


def register_runs(code, sets: RowSets) -> tuple:
    """The register-only runs of a program: per row r, the rows r, r + 1, ... up to the first
    that ends a run, when each of them only reads and writes registers -- no counter, no
    s_waitcnt, no s_barrier, no memory record, no locked data (most of a kernel's rows: a
    loop body between its loads, a Collatz step). The analyses take such a run in one step
    wherever the trace shows it ran whole (analysis.consume), from what it does in all:

    * ``run[r]``: its rows (0 when row r is no such row), and the words [lo, hi) of its sets;
    * ``run_sets[r, RUN_EXPOSED]``: the registers some row reads before any row of the run
      wrote them -- when the wave has written them all, no row of the run reads a register
      never written (a copy's source included, so each copy's destination is written too);
    * ``run_sets[r, RUN_READS]``, ``[r, RUN_WRITES]``: every register its rows read, write.

    A run ends after a row whose handler may jump (_JUMPS) and before a row that is not
    register-only, so that a wave that runs its first row runs the others next unless it
    stops there (a pause, a fault, a full trace), which the trace shows."""
    n = sets.reads.shape[0]
    h = code[:n, C_H]
    mem = (h == H_SMRD_LOAD) | ((h >= H_DS) & (h <= H_MIMG))
    plain = (sets.counters == 0) & (sets.barrier == 0) & ~mem & \
        (sets.locks_at[1:] == sets.locks_at[:-1])
    jumps = np.isin(h, _JUMPS)
    run = np.zeros((n, 3), np.int64)
    run_sets = np.zeros((n, 3, NWORDS), np.uint64)
    for r in range(n - 1, -1, -1):
        if not plain[r]:
            continue
        rd, wr = sets.reads[r], sets.writes[r]
        if r + 1 < n and plain[r + 1] and not jumps[r]:
            nxt = run_sets[r + 1]
            run[r, 0] = run[r + 1, 0] + 1
            run_sets[r, RUN_EXPOSED] = rd | (nxt[RUN_EXPOSED] & ~wr)
            run_sets[r, RUN_READS] = rd | nxt[RUN_READS]
            run_sets[r, RUN_WRITES] = wr | nxt[RUN_WRITES]
        else:
            run[r, 0] = 1
            run_sets[r] = (rd, rd, wr)
    run[:, 1:] = word_spans(run_sets[:, RUN_READS] | run_sets[:, RUN_WRITES])
    return run, run_sets


def instruction_sets(ins, gen: str = table.GFX7) -> tuple:
    """(reads, writes, locks, counters) of one decoded instruction (see RowSets)."""
    d, f = ins.defn, ins.fields
    enc, name = d.encoding, d.name
    rd, wr, lock = [], [], []
    cnt = 0
    for role, kind in d.operands:
        n = _dwords(kind)
        if enc in ("SOP2", "SOP1", "SOPC", "SOPK"):
            if role == "sdst":
                wr += _scalar(f["sdst"], n)
                if _READS_DST.match(name):
                    rd += _scalar(f["sdst"], n)
            elif role in ("ssrc", "ssrc0", "ssrc1"):
                field = "sdst" if enc == "SOPK" else ("ssrc1" if role == "ssrc1" else "ssrc0")
                rd += _scalar(f[field], n) if f[field] != LITERAL else []
        elif enc == "SMRD":
            if role == "sdst":
                wr += _scalar(f["sdst"], n)
            elif role == "sbase":
                rd += _scalar(f["sbase"] << 1, n)
            elif role == "soffset" and not f["imm"] and f["offset"] != LITERAL:
                rd += _scalar(f["offset"], 1)
        elif enc in ("VOP1", "VOP2", "VOPC"):
            if kind == "vcc_64":
                pass                                   # implicit, below
            elif role == "vdst":
                wr += _vgprs(f["vdst"], n)
                if _READS_DST.match(name):
                    rd += _vgprs(f["vdst"], n)
            elif role == "sdst":
                wr += _scalar(f["vdst"], 1)
            elif role in ("src0", "src", "vsrc", "vsrc0", "ssrc0"):
                rd += _source(f["src0"], n)
            elif role in ("src1", "vsrc1", "ssrc1", "vsrc2"):
                rd += _vgprs(f["vsrc1"], n) if kind.startswith("vsrc") else _scalar(f["vsrc1"], 1)
        elif enc == "VOP3":
            vop3b = d.is_vop3b
            if role == "vdst":
                wr += _vgprs(f["vdst"], n)
                if _READS_DST.match(name):
                    rd += _vgprs(f["vdst"], n)
            elif role in ("sdst", "vcc"):
                wr += _scalar(f["sdst"] if vop3b else f["vdst"], 2 if kind == "vcc_64" else n)
            elif role.startswith(("src", "vsrc", "ssrc")) and kind not in ("mod",):
                idx = 0 if role in ("src0", "src", "vsrc", "vsrc0", "ssrc0") else \
                    1 if role in ("src1", "vsrc1", "ssrc1") else 2
                rd += _source(f[f"src{idx}"], n)
        elif enc == "VINTRP":
            if role == "vdst":
                wr += _vgprs(f["vdst"], 1)
                if _READS_DST.match(name):
                    rd += _vgprs(f["vdst"], 1)
            elif role == "vsrc":
                rd += _vgprs(f["vsrc"], 1)
        elif enc == "DS":
            field = {"vdst": "vdst", "vaddr": "addr", "vdata": "data0", "vdata0": "data0",
                     "vdata1": "data1"}
            if role == "vdata" and not any(r == "vaddr" for r, _ in d.operands):
                field["vdata"] = "addr"
            if role == "vdst":
                wr += _vgprs(f["vdst"], n)
            elif role in field:
                rd += _vgprs(f[field[role]], n)
                if f["gds"] and role.startswith("vdata"):
                    lock += _vgprs(f[field[role]], n)
        elif enc in ("MUBUF", "MTBUF"):
            if role == "vaddr":
                na = 2 if f["addr64"] or (f["offen"] and f["idxen"]) else \
                    1 if (f["offen"] or f["idxen"]) else 0
                rd += _vgprs(f["vaddr"], na)
            elif role == "srsrc":
                rd += _scalar(f["srsrc"] << 2, 4)
            elif role == "soffset":
                rd += _scalar(f["soffset"], 1)
            elif role == "vdst":
                if not f.get("lds", 0):
                    wr += _vgprs(f["vdata"], n + f.get("tfe", 0))
            elif role == "vdata":
                rd += _vgprs(f["vdata"], n)
                if gen == table.GFX6:
                    lock += _vgprs(f["vdata"], n)
            elif role == "dst" and f["glc"]:           # a returning atomic: the old value
                data = _dwords(dict(d.operands)["vdata"])
                wr += _vgprs(f["vdata"], data // 2 if "cmpswap" in name else data)
        elif enc == "MIMG":
            nd = 4 if kind == "dst_mimg_gather4" else max(1, bin(f["dmask"]).count("1"))
            if role == "vaddr":
                rd += _vgprs(f["vaddr"], 1)        # the address count depends on the op
            elif role == "srsrc":
                rd += _scalar(f["srsrc"] << 2, 4 if f["r128"] else 8)
            elif role == "ssamp":
                rd += _scalar(f["ssamp"] << 2, 4)
            elif role == "vdst":
                wr += _vgprs(f["vdata"], nd + f["tfe"])
            elif role == "vdata":
                rd += _vgprs(f["vdata"], nd)
                if gen == table.GFX6:
                    lock += _vgprs(f["vdata"], nd)
                if "atomic" in name and f["glc"]:
                    wr += _vgprs(f["vdata"], 1)
        elif enc == "FLAT":
            if role == "vaddr":
                rd += _vgprs(f["addr"], 2)
            elif role == "vdata":
                rd += _vgprs(f["data"], n)
            elif role == "vdst":
                if any(k == "opt" for _, k in d.operands) and not f["glc"]:
                    continue                           # an atomic that returns nothing
                wr += _vgprs(f["vdst"], n + f["tfe"])
        elif enc == "EXP":
            pass
    if enc == "EXP":
        regs = [f["vsrc0"], f["vsrc0"], f["vsrc1"], f["vsrc1"]] if f["compr"] else \
            [f["vsrc0"], f["vsrc1"], f["vsrc2"], f["vsrc3"]]
        for i, r in enumerate(regs):
            if f["en"] >> i & 1:
                rd += _vgprs(r, 1)
                lock += _vgprs(r, 1)
        cnt = EXP
    for what in d.reads:
        rd += list(_IMPLICIT.get(what, ()))
    for what in d.writes:
        wr += list(_IMPLICIT.get(what, ()))
    if enc in ("MUBUF", "MTBUF", "MIMG", "FLAT"):
        cnt = VM | (EXP if lock else 0)
    elif enc == "SMRD" and wr:
        cnt = SMEM
    elif enc == "DS":
        cnt = LGKM | (EXP if lock else 0)
    elif name in ("s_sendmsg", "s_sendmsghalt"):
        cnt = LGKM
    return sorted(set(rd)), sorted(set(wr)), sorted(set(lock)), cnt


def _csr(lists) -> tuple:
    at = np.zeros(len(lists) + 1, np.int64)
    at[1:] = np.cumsum([len(x) for x in lists])
    flat = np.array([r for x in lists for r in x], np.int64)
    return flat, at


def register_bits(lists) -> np.ndarray:
    """uint64 [len(lists), NWORDS]: each list of registers as a bit set (see RowSets)."""
    out = np.zeros((len(lists), NWORDS), np.uint64)
    for i, regs in enumerate(lists):
        for r in regs:
            out[i, r >> 6] |= np.uint64(1) << np.uint64(r & 63)
    return out


def row_sets(prog, gen: str = table.GFX7) -> RowSets:
    """The RowSets of a decoded program (one entry per row of ``prog.code``; rows past the
    decoded instructions, if any, read and write nothing)."""
    n = prog.code.shape[0]
    rd, wr, lk = [[] for _ in range(n)], [[] for _ in range(n)], [[] for _ in range(n)]
    counters = np.zeros(n, np.int64)
    waits = np.full((n, 3), 99, np.int64)
    barrier = np.zeros(n, np.int64)
    moves = np.zeros(n, np.int64)
    for i, ins in enumerate(prog.instructions[:n]):
        rd[i], wr[i], lk[i], counters[i] = instruction_sets(ins, gen)
        if ins.defn.name == "s_waitcnt":
            v = ins.fields["simm16"]
            counters[i] = -1
            waits[i] = (v & 0xF, (v >> 4) & 0x7, (v >> 8) & 0x1F)
        elif ins.defn.name == "s_barrier":
            barrier[i] = 1
        moves[i] = MOVES.get(ins.defn.name, 0)
    locks, locks_at = _csr(lk)
    sets = RowSets(register_bits(rd), register_bits(wr), locks, locks_at, counters, waits,
                   barrier, moves)
    sets.run, sets.run_sets = register_runs(prog.code, sets)
    return sets


def register_name(r: int) -> str:
    """``s5``, ``vcc_lo``, ``m0``, ``exec_hi``, ``v12`` for a register of the sanitizer's space."""
    if r >= VREG:
        return f"v{r - VREG}"
    return {106: "vcc_lo", 107: "vcc_hi", 124: "m0", 126: "exec_lo", 127: "exec_hi",
            104: "flat_scratch_lo", 105: "flat_scratch_hi"}.get(r, f"s{r}" if r < 104 else
                                                                    f"ttmp{r - 112}" if r >= 112 else f"s{r}")
