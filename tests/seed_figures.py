"""The quantitative figures of the four seed documents (../shared/seeds) that the timing model
covers, each with the sentence or table row it comes from, the value the document gives (computed
from the document's own numbers, never from the model) and how to measure the model's value.

tests/test_timing_seeds.py checks each figure (within 3 %, or the documented choice where two
documents disagree); tools/gen_seed_table.py writes the same table to docs/timing.md. Measuring
runs small dispatches, each run once per process (``_memo``).
"""
from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

SEEDS = Path(__file__).resolve().parents[1].parent / "shared" / "seeds"
TOLERANCE = 0.03


@dataclass
class Figure:
    """One figure: ``quote`` is text of ``source`` (checked to be there, whitespace aside);
    ``expected`` the document's value; ``measure()`` the model's. ``disagree``: where the
    documents contradict each other, which one the model follows and why (the model's value
    is then checked against ``follows``, the figure it follows)."""

    id: str
    source: str
    quote: str
    expected: float
    measure: object
    disagree: str = ""
    follows: float | None = None
    tags: tuple = field(default_factory=tuple)

    def check_value(self):
        return self.expected if self.follows is None else self.follows


@functools.lru_cache(maxsize=None)
def seed_text(name: str) -> str:
    return " ".join((SEEDS / name).read_text(encoding="utf-8").split())


def quoted(fig: Figure) -> bool:
    """Whether the figure's quote stands in its document (whitespace normalised)."""
    return " ".join(fig.quote.split()) in seed_text(fig.source)


# --- the CLRX tables, read from the document -------------------------------------------------
CLRX = "clrx-gcn-timings.txt"


def _clrx_value(expr: str, dpfactor: int, glc: bool = False):
    """The document's cycle expression at ``dpfactor`` (the Xbox One: 8, "Other GPU's"):
    "DPFACTOR*8", "16+GLC1", "16-24" (the low end), "4 or 16 (1)" (its footnote: 4 at DP
    speed 1/2..1/8, else 16); None for "?" entries."""
    e = expr.strip()
    if "?" in e or not e:
        return None
    m = re.fullmatch(r"(\d+) or (\d+) \(1\)", e)
    if m:
        return int(m.group(1)) if dpfactor <= 4 else int(m.group(2))
    m = re.fullmatch(r"(\d+)-(\d+)", e)
    if m:
        return int(m.group(1))
    m = re.fullmatch(r"(\d+)\+GLC(\d+)", e)
    if m:
        return int(m.group(1)) + (int(m.group(2)) if glc else 0)
    m = re.fullmatch(r"DPFACTOR\*(\d+)", e)
    if m:
        return dpfactor * int(m.group(1))
    return int(e)


def clrx_rows():
    """(mnemonic, cycles expression, throughput or None, table line) of the document's tables."""
    out = []
    for line in (SEEDS / CLRX).read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) < 3 or not re.fullmatch(r"[SV]_[A-Z0-9_]+|DS_[A-Z0-9_]+|BUFFER_[A-Z0-9_]+",
                                              cells[0]):
            continue
        if cells[0].startswith("DS_"):
            out.append((cells[0], cells[1], cells[2], line.strip()))
        else:
            out.append((cells[0], cells[1], None, line.strip()))
            if len(cells) >= 4 and re.fullmatch(r"[SV]_[A-Z0-9_]+", cells[2]):
                out.append((cells[2], cells[3], None, line.strip()))
    return out


def _model_cost(name: str, dpfactor: int, glc: bool = False):
    from gcnemu.isa.table import by_name
    encodings = by_name().get(name.lower())
    if not encodings:
        return None
    # the cost the model charges (gcnemu.timing.costs.row_tables reads the same column); an
    # instruction's encodings (VOP2 and its VOP3 form, ...) share one figure
    costs = {d.cost(dpfactor, glc) for d in encodings.values()}
    assert len(costs) == 1, f"{name}: its encodings cost {costs}"
    return costs.pop()


def _clrx_figures(dpfactor=8):
    from gcnemu.isa.table import by_name
    defs = by_name()
    figs = []
    for name, expr, _tp, line in clrx_rows():
        v = _clrx_value(expr, dpfactor)
        if v is None or name.lower() not in defs:
            continue     # "?" entries, and GCN 1.2+ instructions gfx7 does not have
        figs.append(Figure(f"clrx-cycles-{name.lower()}", CLRX, line, v,
                           functools.partial(_model_cost, name, dpfactor), tags=("clrx",)))
        if "GLC" in expr:
            figs.append(Figure(f"clrx-cycles-{name.lower()}-glc", CLRX, line,
                               _clrx_value(expr, dpfactor, True),
                               functools.partial(_model_cost, name, dpfactor, True), tags=("clrx",)))
    return figs


#: the document's rules for the families it gives no table for: (family, sentence, the
#: cycles of an instruction named n at DPFACTOR dpf, or None where the rule leaves it out)
CLRX_RULES = [
    ("SOP2", "All SOP2 instructions (S_CBRANCH_G_FORK not checked) take 4 cycles.",
     lambda n, dpf: None if n == "s_cbranch_g_fork" else 4),
    ("SOPK", "All SOPK instructions (S_CBRANCH_I_FORK not checked) take 4 cycles. S_SETREG_B32 "
             "and S_SETREG_IMM32_B32 take 8 cycles.",
     lambda n, dpf: None if n == "s_cbranch_i_fork" else
     (8 if n in ("s_setreg_b32", "s_setreg_imm32_b32") else 4)),
    ("SOP1", "The S_*_SAVEEXEC_B64 instructions take 8 cycles. Other ALU instructions (except "
             "S_MOV_REGRD_B32, S_CBRANCH_JOIN, S_RFE_B64) take 4 cycles.",
     lambda n, dpf: None if n in ("s_mov_regrd_b32", "s_cbranch_join", "s_rfe_b64") else
     (8 if re.fullmatch(r"s_\w+_saveexec_b64", n) else 4)),
    ("SOPC", "All comparison and bit checking instructions take 4 cycles.", lambda n, dpf: 4),
    ("VOP2", "All VOP2 instructions take 4 cycles.", lambda n, dpf: 4),
    ("VOPC", "All 16-bit and 32-bit comparison instructions take 4 cycles. All 64-bit "
             "comparison instructions take DPFACTOR*4 cycles.",
     lambda n, dpf: dpf * 4 if re.search(r"_(f64|i64|u64)$", n) else 4),
]


def _clrx_rule_figures(dpfactor=8):
    """One figure per gfx7 instruction of the families the document covers by a rule."""
    from gcnemu.isa.table import by_name
    figs = []
    for family, sentence, rule in CLRX_RULES:
        for name, encodings in sorted(by_name().items()):
            if family not in encodings:
                continue
            v = rule(name, dpfactor)
            if v is None:
                continue
            figs.append(Figure(f"clrx-rule-{family.lower()}-{name}", CLRX, sentence, v,
                               functools.partial(_model_cost, name.upper(), dpfactor),
                               tags=("clrx",)))
    # branches: "Jumps cost 4 cycle (no jump) or 20 cycles (???) if jump is performed."
    jumps = "Jumps cost 4 cycle (no jump) or 20 cycles (???) if jump is performed."
    for name, encodings in sorted(by_name().items()):
        if "SOPP" in encodings and re.fullmatch(r"s_(branch|cbranch_(scc|vcc|exec)\w*)", name):
            if name != "s_branch":
                figs.append(Figure(f"clrx-jump-not-taken-{name}", CLRX, jumps, 4,
                                   functools.partial(_model_cost, name.upper(), dpfactor),
                                   tags=("clrx",)))
            figs.append(Figure(f"clrx-jump-taken-{name}", CLRX, jumps, 20,
                               functools.partial(_taken_cost, name), tags=("clrx",)))
    return figs


def _taken_cost(name):
    """The cost the model charges a taken branch (gcnemu.timing.costs.row_tables)."""
    import tempfile

    import gcnemu
    from gcnemu.timing.costs import row_tables
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "br.s"
        src.write_text(("s_branch 0" if name == "s_branch" else f"{name} 0") + "\ns_endpgm\n")
        prog = gcnemu.load(str(src)).kernel("br").program
    return int(row_tables(prog, 8, 4, 0)[3][0])


# --- dispatch helpers ------------------------------------------------------------------------
_TMP = None


def _kernel(name, body, vgprs=8, sgprs=16):
    import tempfile

    import gcnemu
    global _TMP
    if _TMP is None:
        _TMP = Path(tempfile.mkdtemp(prefix="gcnemu-seeds-"))
    p = _TMP / f"{name}.s"
    p.write_text(body)
    k = gcnemu.load(str(p)).kernel(name)
    k.info = dataclasses.replace(k.info, vgpr_count=vgprs, sgpr_count=sgprs)
    return k


def _gpu(cus=None, **kw):
    import gcnemu
    return gcnemu.GPU(timing=True, **({"num_cus": cus} if cus else {}), **kw)


def _warm(gpu, k, **kw):
    """``gpu.dispatch(k, **kw)`` with the kernel's code in the I$ and the data caches cold:
    the seeds' micro-kernels measure rates and latencies of a shader that runs, not the first
    fetches of its code (gcnemu/timing/icache.py), so a first dispatch brings the code in and
    the L1, K$ and L2 are emptied again (gpu.caches.invalidate)."""
    gpu.dispatch(k, **kw)
    for level in ("l1", "k", "l2"):
        gpu.caches.invalidate(level)
    return gpu.dispatch(k, **kw)


def _local():
    """1 KB of LDS per workgroup: room for every DS form's lanes at their strides."""
    import gcnemu
    return gcnemu.Local(1024)


def _memo(fn):
    return functools.lru_cache(maxsize=None)(fn)


def _row(rep, k, name, nth=0):
    """The pc_cycles entry of the ``nth`` instruction named ``name`` of kernel ``k``."""
    rows = [i for i, ins in enumerate(k.program.instructions) if ins.name == name]
    return rep.pc_cycles[rows[nth]]


@_memo
def valu_80x300():
    k = _kernel("v80", "\n".join(["v_add_f32 v1, v1, v0"] * 80 + ["s_endpgm"]) + "\n")
    # (the code in the I$: the seed's "ideally"; its 6 lines' cold misses add ~160 cycles)
    return _warm(_gpu(1), k, grid=(64 * 300,), block=(64,)).cycles


FLAT_ADDR = """
s_load_dwordx2 s[4:5], s[0:1], 0x0
s_waitcnt lgkmcnt(0)
v_mov_b32 v1, s4
v_mov_b32 v2, s5
"""


@_memo
def store_latency(kind, hit):
    """One wave: a store (or returning atomic) to a line, then s_waitcnt vmcnt(0): issue cost
    plus the wait of the last access. With ``hit`` the line was stored to once before (an L2
    hit), else it is cold (an L2 miss)."""
    op = {"store": "flat_store_dword v[1:2], v0",
          "atomic": "flat_atomic_add v3, v[1:2], v0 glc"}[kind]
    body = FLAT_ADDR + ("" if not hit else op + "\ns_waitcnt vmcnt(0)\n") + op + \
        "\ns_waitcnt vmcnt(0)\ns_endpgm\n"
    k = _kernel(f"lat_{kind}_{hit}", body)
    gpu = _gpu()
    buf = gpu.to_device(np.zeros(64, np.uint32))
    rep = gpu.dispatch(k, grid=(64,), block=(64,), args=[buf])
    n = 1 if hit else 0
    name = "flat_store_dword" if kind == "store" else "flat_atomic_add"
    return int(_row(rep, k, name, n)["issue"] + _row(rep, k, "s_waitcnt", 1 + n)["vmcnt"])


@_memo
def valu_to_scalar():
    """From a v_cmp's issue to the issue of the s_cbranch_vccz that reads its VCC."""
    k = _kernel("vdep", "v_cmp_eq_u32 vcc, 0, v0\ns_cbranch_vccz 0\ns_endpgm\n")
    rep = _gpu().dispatch(k, grid=(64,), block=(64,))
    c = _row(rep, k, "s_cbranch_vccz")
    return int(_row(rep, k, "v_cmp_eq_u32")["issue"] + c["dependency"] + c["arbiter"])


@_memo
def _mubuf_x2(n):
    """One wave: n buffer_load_dwordx2 back to back (CLRX: 18 cycles each), then s_waitcnt;
    the code in the I$ (with a cold one the 8 loads' kernel misses on a line more than the
    4 loads' and the difference measures that, 58 cycles a load instead of 20)."""
    from gcnemu.mem.descriptors import encode_vsharp
    body = ("s_load_dwordx2 s[2:3], s[0:1], 0x0\ns_waitcnt lgkmcnt(0)\n"
            "s_load_dwordx4 s[4:7], s[2:3], 0x0\nv_lshlrev_b32 v1, 3, v0\ns_waitcnt lgkmcnt(0)\n"
            + "buffer_load_dwordx2 v[2:3], v1, s[4:7], 0 offen\n" * n
            + "s_waitcnt vmcnt(0)\ns_endpgm\n")
    k = _kernel(f"mubuf{n}", body)
    gpu = _gpu()
    data = gpu.to_device(np.zeros(128, np.uint32))
    vs = gpu.to_device(encode_vsharp(data.address, 512))
    ptr = gpu.to_device(np.array([vs.address], np.uint64))
    return _warm(gpu, k, grid=(64,), block=(64,), args=[ptr]).cycles


def simd_turn_cost():
    """Cycles per buffer_load_dwordx2 of one wave: the difference of 8 and 4 of them, / 4."""
    return (_mubuf_x2(8) - _mubuf_x2(4)) / 4


@_memo
def lds_latency():
    k = _kernel("ldslat", "v_lshlrev_b32 v1, 2, v0\nds_read_b32 v2, v1\ns_waitcnt lgkmcnt(0)\n"
                "s_endpgm\n")
    rep = _gpu().dispatch(k, grid=(64,), block=(64,), args=[_local()])
    return int(_row(rep, k, "ds_read_b32")["issue"] + _row(rep, k, "s_waitcnt")["lgkmcnt"])


@_memo
def scalar_latency():
    """A K$ hit: the second s_load of one line, then s_waitcnt."""
    k = _kernel("smlat", "s_load_dword s4, s[0:1], 0x0\ns_waitcnt lgkmcnt(0)\n"
                "s_load_dword s5, s[0:1], 0x0\ns_waitcnt lgkmcnt(0)\ns_endpgm\n")
    gpu = _gpu()
    rep = gpu.dispatch(k, grid=(64,), block=(64,), args=[gpu.to_device(np.zeros(4, np.uint32))])
    return int(_row(rep, k, "s_load_dword", 1)["issue"] + _row(rep, k, "s_waitcnt", 1)["lgkmcnt"])


#: DS forms: the instruction and its lanes' address stride: the natural one, its size rounded
#: up to its alignment (16 bytes for b96 and b128)
DS_FORMS = {
    "ds_write_b32": ("ds_write_b32 v1, v0", 4), "ds_read_b32": ("ds_read_b32 v2, v1", 4),
    "ds_write_b64": ("ds_write_b64 v1, v[2:3]", 8), "ds_read_b64": ("ds_read_b64 v[2:3], v1", 8),
    "ds_read_b96": ("ds_read_b96 v[2:4], v1", 16), "ds_write_b96": ("ds_write_b96 v1, v[2:4]", 16),
    "ds_read_b128": ("ds_read_b128 v[2:5], v1", 16),
    "ds_write_b128": ("ds_write_b128 v1, v[2:5]", 16),
    "ds_read2_b32": ("ds_read2_b32 v[2:3], v1 offset1:64", 4),
    "ds_write2_b32": ("ds_write2_b32 v1, v2, v3 offset1:64", 4),
    "ds_add_u32": ("ds_add_u32 v1, v0", 4),
}


#: dwords a DS form moves per lane
DS_DWORDS = {"ds_write_b32": 1, "ds_read_b32": 1, "ds_write_b64": 2, "ds_read_b64": 2,
             "ds_read_b96": 3, "ds_write_b96": 3, "ds_read_b128": 4, "ds_write_b128": 4,
             "ds_read2_b32": 2, "ds_write2_b32": 2, "ds_add_u32": 1}

B96 = ("ds_read_b96/ds_write_b96 are 16-byte aligned: at that stride a half wave's 96 dwords "
       "fall on 24 of the 32 banks, 4 each, where 3 passes would do; the model applies CLRX's "
       "own bank rule (\"The bank number is in bits 2-6 of the address\") to every dword and "
       "charges the extra pass")


@_memo
def ds_rate(form, waves=40, n=32):
    """Cycles per wave-instruction of ``form`` with 40 waves on one CU, each issuing ``n`` of
    them (conflict free): the LDS unit's sustained rate, with the code in the I$ (the cold
    misses of the first waves added ~3 %)."""
    op, stride = DS_FORMS[form]
    shift = {4: 2, 8: 3, 16: 4}[stride]
    body = f"v_lshlrev_b32 v1, {shift}, v0\n" + "\n".join([op] * n) + "\ns_endpgm\n"
    k = _kernel(f"rate_{form}", body)
    rep = _warm(_gpu(1), k, grid=(64 * waves,), block=(64,), args=[_local()])
    return rep.counters["SQ_BUSY_CYCLES"] / (waves * n)


@_memo
def ds_wave_cost(form, stride_bytes):
    """Issue cycles of one wave-instruction of ``form`` at ``stride_bytes`` between lanes."""
    op = DS_FORMS[form][0]
    body = f"v_mul_u32_u24 v1, {stride_bytes}, v0\n{op}\ns_endpgm\n"
    k = _kernel(f"cost_{form}_{stride_bytes}", body)
    rep = _gpu().dispatch(k, grid=(64,), block=(64,), args=[_local()])
    return int(_row(rep, k, form)["issue"])


def buffer_read_rate():
    """Cycles per wave-instruction of flat_load_dword (one dword per lane, L1 hits), 40 waves
    on one CU: the difference between 32 and 16 loads a wave, over 40 x 16."""
    return (_buffer_reads(32) - _buffer_reads(16)) / (40 * 16)


@_memo
def _buffer_reads(n, waves=40):
    body = FLAT_ADDR + "v_lshlrev_b32 v3, 2, v0\nv_add_i32 v1, vcc, v1, v3\nv_addc_u32 v2, vcc, v2, 0, vcc\n" + \
        "\n".join(["flat_load_dword v4, v[1:2]"] * n) + "\ns_waitcnt vmcnt(0)\ns_endpgm\n"
    k = _kernel(f"bufrate{n}", body)
    gpu = _gpu(1)
    buf = gpu.to_device(np.zeros(64, np.uint32))
    gpu.dispatch(k, grid=(64,), block=(64,), args=[buf])           # warm the caches
    return gpu.dispatch(k, grid=(64 * waves,), block=(64,), args=[buf]).cycles


@_memo
def read_after_write_hits():
    """A wave writes a line (MISS_LRU), a later wave of the same CU reads it (HIT_LRU): the
    seed: "either of these policies allow a read to hit on a previous wave's write"."""
    gpu = _gpu(1)
    buf = gpu.to_device(np.zeros(64, np.uint32))
    kw = _kernel("wr", FLAT_ADDR + "v_lshlrev_b32 v3, 2, v0\nv_add_i32 v1, vcc, v1, v3\n"
                 "v_addc_u32 v2, vcc, v2, 0, vcc\nflat_store_dword v[1:2], v0\ns_waitcnt vmcnt(0)\n"
                 "s_endpgm\n")
    kr = _kernel("rd", FLAT_ADDR + "v_lshlrev_b32 v3, 2, v0\nv_add_i32 v1, vcc, v1, v3\n"
                 "v_addc_u32 v2, vcc, v2, 0, vcc\nflat_load_dword v4, v[1:2]\ns_waitcnt vmcnt(0)\n"
                 "s_endpgm\n")
    gpu.dispatch(kw, grid=(64,), block=(64,), args=[buf])
    rep = gpu.dispatch(kr, grid=(64,), block=(64,), args=[buf])
    return rep.counters["TCP_HIT"]    # (the 4 lines of the 64 dwords)


@_memo
def glc_read_hits():
    """The same with GLC on the read (MISS_LRU: no hit on earlier data)."""
    gpu = _gpu(1)
    buf = gpu.to_device(np.zeros(64, np.uint32))
    body = FLAT_ADDR + "v_lshlrev_b32 v3, 2, v0\nv_add_i32 v1, vcc, v1, v3\n" \
        "v_addc_u32 v2, vcc, v2, 0, vcc\nflat_load_dword v4, v[1:2]{}\ns_waitcnt vmcnt(0)\ns_endpgm\n"
    gpu.dispatch(_kernel("rd0", body.format("")), grid=(64,), block=(64,), args=[buf])
    rep = gpu.dispatch(_kernel("rdg", body.format(" glc")), grid=(64,), block=(64,), args=[buf])
    return rep.counters["TCP_HIT"]


@_memo
def evict_lines(policy, warm):
    """An SLC read (HIT_EVICT) or GLC SLC read (MISS_EVICT) of 64 dwords (after a plain read
    of them by an earlier wave when ``warm``), then a plain read of them in the same wave:
    (L1 hits of the wave, L1 lines left once it is done)."""
    gpu = _gpu(1)
    buf = gpu.to_device(np.zeros(64, np.uint32))
    addr = FLAT_ADDR + "v_lshlrev_b32 v3, 2, v0\nv_add_i32 v1, vcc, v1, v3\nv_addc_u32 v2, vcc, v2, 0, vcc\n"
    if warm:
        gpu.dispatch(_kernel("ev0", addr + "flat_load_dword v4, v[1:2]\ns_waitcnt vmcnt(0)\ns_endpgm\n"),
                     grid=(64,), block=(64,), args=[buf])
    rep = gpu.dispatch(_kernel(f"ev{len(policy)}", addr + f"flat_load_dword v4, v[1:2] {policy}\n"
                               "s_waitcnt vmcnt(0)\nflat_load_dword v5, v[1:2]\ns_waitcnt vmcnt(0)\n"
                               "s_endpgm\n"), grid=(64,), block=(64,), args=[buf])
    return rep.counters["TCP_HIT"], gpu.caches.valid_lines("l1")


@_memo
def pixel_shader(waves, warm=False):
    """The seed's pixel shader on ``waves`` waves; ``warm``: the second dispatch on one GPU,
    its scalar constants in the K$ (the seed's 5166 cycles count the ALU work alone)."""
    import sys
    sys.path.insert(0, str(Path(__file__).parent))
    from test_seed_pixel_shader import seed_microcode
    from gcnemu.mem.descriptors import encode_vsharp
    prologue = "s_load_dwordx2 s[2:3], s[0:1], 0x0\ns_mov_b32 s4, 0\ns_waitcnt lgkmcnt(0)\n"
    k = _kernel("pixel_shader", prologue + seed_microcode() + "\n")
    gpu = _gpu()
    cb = gpu.to_device(np.ones(12, np.float32))
    vs = gpu.to_device(encode_vsharp(cb.address, 48))
    ptr = gpu.to_device(np.array([vs.address], np.uint64))
    if warm:
        gpu.dispatch(k, grid=(64 * waves,), block=(64,), args=[ptr])
    return gpu.dispatch(k, grid=(64 * waves,), block=(64,), args=[ptr])


def _occupancy(vgprs, sgprs, lds=0, wpg=1):
    from gcnemu.hardware import PRESETS, occupancy
    return occupancy(vgprs, sgprs, lds, wpg, PRESETS["xbox-one"])


def _tc():
    from gcnemu.timing import TimingConfig
    return TimingConfig()


def _preset(name):
    from gcnemu.hardware import PRESETS
    return PRESETS[name]


# --- the figures -------------------------------------------------------------------------------
WP = "cu-whitepaper.txt"
OV = "gpu-overview.txt"
CC = "caches-and-coherency.txt"


def figures() -> list:
    figs = []
    add = figs.append
    # DPFACTOR per preset (clrx: "1 | 1/2 | professional Hawaii" ...)
    for dpf, rate, preset, row in ((1, "1/2", "firepro-w9100", "1 | 1/2 | professional Hawaii |"),
                                   (2, "1/4", "hd7970", "2 | 1/4 | Highend Tahiti: Radeon HD7970 |"),
                                   (4, "1/8", "r9-290x", "4 | 1/8 | Highend Hawaii: R9 290 |"),
                                   (8, "1/16", "xbox-one", "8 | 1/16 | Other GPU's |")):
        add(Figure(f"dpfactor-{preset}", CLRX, row, dpf,
                   functools.partial(lambda p: _preset(p).dpfactor, preset), tags=("dpfactor",)))
    # the occupancy table: waves per SIMD at the SGPR and VGPR limits of each row
    table = [(1, 128, 256, 64), (2, 128, 128, 32), (3, 128, 84, 21), (4, 128, 64, 16),
             (5, 96, 48, 12), (6, 80, 40, 10), (7, 72, 36, 9), (8, 64, 32, 8), (9, 56, 28, 7),
             (10, 48, 24, 6)]
    for waves, sg, vg, ldsw in table:
        row = f"{waves} | {sg} | {vg} | {ldsw} |"
        add(Figure(f"occupancy-{waves}-waves-at-{vg}-vgprs", CLRX, row, waves,
                   functools.partial(lambda v: _occupancy(v, 16).waves_per_simd, vg),
                   tags=("occupancy",)))
        # several rows share an SGPR limit (128 up to 4 waves): the most waves it allows
        most = max(w for w, s2, _v, _l in table if s2 >= sg)
        add(Figure(f"occupancy-{waves}-waves-at-{sg}-sgprs", CLRX, row, most,
                   functools.partial(lambda s: _occupancy(8, s).waves_per_simd, sg),
                   tags=("occupancy",)))
        # LdsW/I dwords per lane: one-wave workgroups of 64 x LdsW/I dwords fit 4 x Waves to
        # a CU (the CU's 16-workgroup limit aside)
        add(Figure(f"occupancy-{waves}-waves-lds-{ldsw}-dwords-per-lane", CLRX, row,
                   min(16, 4 * waves),
                   functools.partial(lambda l: _occupancy(8, 16, 64 * 4 * l).workgroups_per_cu, ldsw),
                   tags=("occupancy",)))
    add(Figure("max-waves-per-cu", CLRX, "So, the maximum number of waves per compute unit is 40.",
               40, lambda: _preset("xbox-one").waves_per_simd * _preset("xbox-one").simds_per_cu))
    add(Figure("full-occupancy-registers", WP, "full CU occupancy is possible if the shaders require "
               "fewer than 24 VGPRs and 48 SGPRs", 10, lambda: _occupancy(24, 48).waves_per_simd))
    add(Figure("threadgroups-per-cu", WP, "up to 16 compute shader threadgroups", 16,
               lambda: _occupancy(8, 16, 0, 1).workgroups_per_cu))
    add(Figure("threadgroups-192", WP, "the GPU cannot run more than 192 such threadgroups at a time",
               192, lambda: _occupancy(8, 16, 0, 2).workgroups_per_cu * _preset("xbox-one").compute_units))
    # the whitepaper's rates and worked examples
    add(Figure("valu-80x300-cycles", WP, "if a shader has 80 instructions and runs on 300 waves, it "
               "should ideally take 24,000 cycles", 80 * 300, valu_80x300, tags=("dispatch",)))
    add(Figure("pixel-shader-62-cycles", WP, "The Xbox One shader is ALU bound and takes 62 cycles",
               62, lambda: (pixel_shader(12 * 168).cycles - pixel_shader(12 * 84).cycles) / 84,
               tags=("dispatch",)))
    # (the document's multiplication sign is lost in the text: "8362" is 83 x 62, which it
    # states as 5166; 83 x 62 is 5146, and 1000 waves on 12 CUs are 83.33 a CU)
    add(Figure("pixel-shader-1000-waves", WP, "83 waves per SIMD or 8362=5166 clock cycles", 5166,
               lambda: pixel_shader(1000, warm=True).cycles, tags=("dispatch",)))
    add(Figure("pixel-shader-6.45-us", WP, "Xbox One ~ 6.45 microseconds (5166 clock cycles)", 6.45,
               lambda: 5166 / _preset("xbox-one").clock_mhz,
               disagree="5166 cycles in 6.45 us is an 801 MHz clock; gpu-overview gives 853.33 MHz "
                        "(\"Clock speed has been updated\"): the model follows the overview, "
                        "5166 cycles = 6.05 us", follows=5166 / 853.33))
    add(Figure("valu-retire-16-cycles", WP, "although a full-speed instruction takes only 4 cycles "
               "to issue, it takes 16 cycles to retire and write the result", 16, valu_to_scalar,
               tags=("dispatch",)))
    # a wave's next instruction waits for its SIMD's turn: an 18-cycle instruction (CLRX:
    # BUFFER_LOAD_DWORDX2 | 18) holds it for 20
    add(Figure("simd-turn-mubuf-18-is-20", OV, "Most instructions have a four-cycle throughput, so "
               "each SIMD only needs attention once every four clocks.", 4 * -(-18 // 4),
               simd_turn_cost, tags=("dispatch",)))
    add(Figure("lds-latency", WP, "Latency of LDS instructions is at least 39 cycles", 39,
               lds_latency, tags=("dispatch",)))
    add(Figure("store-latency-l2-hit", WP, "Minimum latency of this type of instruction is about 25 "
               "cycles", 25, functools.partial(store_latency, "store", True), tags=("dispatch",)))
    add(Figure("atomic-latency-l2-hit", WP, "Minimum latency of this type of instruction is about 25 "
               "cycles", 25, functools.partial(store_latency, "atomic", True), tags=("dispatch",)))
    add(Figure("store-latency-l2-miss", WP, "a latency of these instructions can be 100 cycles and "
               "more", 100, functools.partial(store_latency, "store", False), tags=("dispatch",)))
    add(Figure("scalar-load-latency", WP, "Latency of a scalar memory read is at least 20 cycles",
               20, scalar_latency, tags=("dispatch",)))
    add(Figure("texture-read-rate", WP, "The peak rate of texture reads is 16 clock cycles per wave",
               16, lambda: _tc().image_cycles))
    add(Figure("buffer-read-rate", WP, "A buffer read can achieve 4 clock cycles per wave if one "
               "32-bit or smaller element is read per shader thread", 4, buffer_read_rate,
               tags=("dispatch",)))
    add(Figure("lds-rate-ds_write_b32", WP, "The peak data read and write rate of LDS instructions is "
               "4 clock cycles per 64 32-bit words", 4, functools.partial(ds_rate, "ds_write_b32"),
               tags=("dispatch",)))
    add(Figure("lds-rate-ds_read_b32", WP, "The peak data read and write rate of LDS instructions is "
               "4 clock cycles per 64 32-bit words", 4, functools.partial(ds_rate, "ds_read_b32"),
               tags=("dispatch",)))
    add(Figure("transcendental-quarter-rate", WP, "one single-precision transcendental operation per "
               "clock cycle", 16, functools.partial(_model_cost, "V_RSQ_F32", 8)))
    add(Figure("int-mul-quarter-rate", WP, "A 32-bit integer multiplies run at one-quarter rate",
               4 * 4, functools.partial(_model_cost, "V_MUL_LO_U32", 8)))
    add(Figure("f64-add-eighth-rate", WP, "a double-precision floating point adds run at one-eighth "
               "rate", 4 * 8, functools.partial(_model_cost, "V_ADD_F64", 8)))
    add(Figure("f64-mul-16th-rate", OV, "64-bit multiplies are 1/16-rate", 4 * 16,
               functools.partial(_model_cost, "V_MUL_F64", 8)))
    add(Figure("full-rate-valu", WP, "per 4 clock cycles per SIMD or one instruction per cycle per "
               "CU", 4,
               functools.partial(_model_cost, "V_ADD_F32", 8)))
    add(Figure("simds-per-cu", WP, "a compute unit contains four single instruction multiple data "
               "(SIMD) units", 4, lambda: _preset("xbox-one").simds_per_cu))
    add(Figure("waves-per-simd", WP, "all 10 waves on that SIMD compete", 10,
               lambda: _preset("xbox-one").waves_per_simd))
    add(Figure("vgprs-per-simd", WP, "There are 256 32-bit per element, 64-element wide registers "
               "called vector GPRs (VGPRs) per SIMD", 256, lambda: _preset("xbox-one").vgprs_per_simd))
    add(Figure("sgprs-per-simd", WP, "There are also 512 32-bit per element registers called scalar "
               "GPRs (SGPRs) per SIMD", 512, lambda: _preset("xbox-one").sgprs_per_simd))
    # the overview's sizes, rates and bandwidths
    add(Figure("compute-units", OV, "Compute units 12", 12, lambda: _preset("xbox-one").compute_units))
    add(Figure("clock", OV, "Clock rate 853.33 MHz", 853.33, lambda: _preset("xbox-one").clock_mhz))
    add(Figure("dram-bandwidth", OV, "Peak throughput from main RAM 68 GB/sec", 68.0,
               lambda: _tc().dram_gbps))
    add(Figure("l2-size", OV, "L2 cache size 4 * 128 KB = 512 KB (shared)", 512 * 1024,
               lambda: _tc().l2_channels * _tc().l2_channel_bytes))
    add(Figure("l2-ways", OV, "four separate 8-way texture caches per channel", 8, lambda: _tc().l2_ways))
    add(Figure("l2-lines", OV, "of 128 KB, each composed of 2048 64-byte cache lines", 2048,
               lambda: _tc().l2_channel_bytes // 64))
    add(Figure("l1-size", OV, "TCP (L1) cache size 16 KB/CU * 12 CUs = 192 KB (nonshared)", 16 * 1024,
               lambda: _tc().l1_bytes))
    add(Figure("l1-ways", OV, "local 64-way texture cache per pipe", 64, lambda: _tc().l1_ways))
    add(Figure("l1-lines", OV, "of 16 KB, composed of 256 64-byte cache lines", 256,
               lambda: _tc().l1_bytes // 64))
    add(Figure("lds-size", OV, "LDS size 12 CUs * 64 KB = 768 KB", 64 * 1024,
               lambda: _preset("xbox-one").lds_per_cu))
    add(Figure("gds-size", OV, "GDS size 64 KB", 64 * 1024, lambda: _preset("xbox-one").gds_bytes))
    add(Figure("issue-rate", OV, "Instruction issue rate 12 CUs * 4 SIMDs * 16 threads/clock = 768 "
               "ops/clock", 768, lambda: _preset("xbox-one").compute_units * _preset("xbox-one").simds_per_cu
               * 64 // _model_cost("V_ADD_F32", 8)))
    add(Figure("buffer-fetch-rate", OV, "Vertex/buffer fetch rate (4 bytes) 4 elements/clock * 12 CUs",
               4, lambda: 16 / buffer_read_rate(), tags=("dispatch",)))
    # coherency: line size and the L1 policies
    add(Figure("cache-line", CC, "All cache lines are 64 bytes.", 64, lambda: 64))
    add(Figure("l1-read-hits-previous-write", CC, "Because either of these policies allow a read to "
               "hit on a previous wave’s write", 64 * 4 // 64, read_after_write_hits,
               tags=("dispatch",)))
    add(Figure("l1-glc-read-misses", CC, "This policy doesn’t allow hits on the previous "
               "wavefront’s data", 0, glc_read_hits, tags=("dispatch",)))
    # after an earlier wave's plain read: HIT_EVICT hits it, and the wave's own second read
    # too (2 x 4 lines); MISS_EVICT misses, and the wave's second read hits what it brought
    # in (4); on cold caches, what either policy brought in is gone once the wave is done
    add(Figure("l1-hit-evict-hits", CC, "This policy allows hits on the previous wavefront’s data, "
               "and the current wave’s data is invalidated in the cache when the wave is done.",
               2 * 64 * 4 // 64, lambda: evict_lines("slc", True)[0], tags=("dispatch",)))
    add(Figure("l1-hit-evict-invalidated", CC, "the current wave’s data is invalidated in the "
               "cache when the wave is done", 0, lambda: evict_lines("slc", False)[1],
               tags=("dispatch",)))
    add(Figure("l1-miss-evict-hits", CC, "This policy doesn’t allow hits on the previous "
               "wavefront’s data, and the current wave’s data is invalidated in the cache when the "
               "wave is done.", 64 * 4 // 64, lambda: evict_lines("glc slc", True)[0],
               tags=("dispatch",)))
    add(Figure("l1-miss-evict-invalidated", CC, "the current wave’s data is invalidated in the "
               "cache when the wave is done", 0, lambda: evict_lines("glc slc", False)[1],
               tags=("dispatch",)))
    # the DS forms: CLRX's cycles (the wave's issue time) at the natural stride, and the
    # throughput column against the whitepaper's data rate
    for form, (op, stride) in DS_FORMS.items():
        cyc = next((c for n, c, _t, _l in clrx_rows() if n == form.upper()), None)
        tp = next((t for n, _c, t, _l in clrx_rows() if n == form.upper()), None)
        line = next((l for n, _c, _t, l in clrx_rows() if n == form.upper()), "")
        if cyc and _clrx_value(cyc, 8) is not None:
            fig = Figure(f"ds-cycles-natural-stride-{form}", CLRX, line, _clrx_value(cyc, 8),
                         functools.partial(ds_wave_cost, form, stride), tags=("dispatch", "lds"))
            if "b96" in form:
                # one extra pass per half wave: 2 x 2 cycles
                fig.disagree, fig.follows = B96 + ": +4 cycles", _clrx_value(cyc, 8) + 4
            add(fig)
        if tp and tp != "?":
            num, den = (int(x) for x in tp.split("/"))
            clocks = den / num
            words = 64 * DS_DWORDS[form]
            wp_clocks = max(4, words / 16)
            fig = Figure(f"ds-throughput-{form}", CLRX, line, clocks,
                         functools.partial(ds_rate, form), tags=("dispatch", "lds"))
            if "b96" in form:
                # 4 passes per half wave, 2 cycles each
                fig.disagree, fig.follows = B96 + f" (CLRX's throughput {tp})", 16
            elif abs(clocks - wp_clocks) > TOLERANCE * wp_clocks:
                fig.disagree = (f"CLRX's throughput {tp} is one wave-instruction per {clocks:g} "
                                f"clocks; the whitepaper's \"4 clock cycles per 64 32-bit words\" "
                                f"(and LDS issue at most one per 4 cycles) gives {wp_clocks:g} for "
                                f"its {words} dwords: the model follows the whitepaper's data rate")
                fig.follows = wp_clocks
            add(fig)
    figs.extend(_clrx_figures())
    figs.extend(_clrx_rule_figures())
    return figs
